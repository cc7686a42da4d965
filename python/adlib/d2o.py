# SPDX-License-Identifier: BSD-3-Clause
"""adlib.d2o: d2o's distributed_data_object, a numpy-like array whose data
is spread over MPI processes, on adlib's schedules.  Code written for d2o
runs with `import adlib.d2o as d2o` in place of its d2o import:

    from mpi4py import MPI
    import numpy as np
    import adlib.d2o as d2o

    a = np.arange(12.0).reshape(4, 3)
    obj = d2o.distributed_data_object(a)           # 'fftw' slabs of rows
    p = d2o.distributed_data_object(a, distribution_strategy='equal')
    total = (obj * 2 + p).sum()                    # p redistributed, once planned
    full = obj.get_full_data()                     # the whole array everywhere

`.data` is this process's block, a plain numpy array; operators and ufuncs
act on it locally, an operand of another distribution is redistributed by
an adlib Remap planned once per pair of distributions (cached), a numpy
operand of the global shape contributes its rows, scalars broadcast.  The
result of a binary operation has the left-hand d2o object's distribution
(d2o's rule).  Reductions fold each block with numpy and combine the
per-process results (one small allgather).

Collective arguments (global shape, dtype, strategy) are agreed: a call
whose arguments differ between processes raises the same exception on every
process instead of hanging.  See docs/d2o.md for what differs from d2o."""
import math as _math
import numbers as _numbers

import numpy as _np
from mpi4py import MPI as _MPI

from . import _adlib
from ._d2o_distribution import STRATEGIES
from ._d2o_distribution import distribution as _distribution
from ._d2o_distribution import split as _split
from ._d2o_distribution import grid_of as _grid_of
from ._d2o_distribution import redistribute as _redistribute

__all__ = ["distributed_data_object", "STRATEGIES"]

#: The strategy used when none is given: d2o's default where FFTW is
#: installed (adlib computes FFTW's slab rule itself).
DEFAULT_STRATEGY = "fftw"

# The ndarray method of each numpy reduction adlib.d2o folds with.
_METHODS = {"sum": "sum", "prod": "prod", "amin": "min", "amax": "max", "all": "all",
            "any": "any"}

# Reductions combined across processes by one MPI_Allreduce of the partial
# results, for the element types MPI reduces; minima and maxima only of
# integers (MPI's MIN and MAX need not propagate NaN as numpy does, and
# take no bool or complex), nothing of a type MPI has no datatype for.
_MPI_OPERATIONS = {"sum": _MPI.SUM, "prod": _MPI.PROD, "amin": _MPI.MIN, "amax": _MPI.MAX,
                   "all": _MPI.LAND, "any": _MPI.LOR}


def _allreduces(name, dtype):
    """Is the reduction `name` of `dtype` elements combined by MPI_Allreduce?"""
    if name not in _MPI_OPERATIONS or dtype.char not in "?bhilqBHILQfdFD":
        return False
    return name not in ("amin", "amax") or dtype.kind in "iu"


_ERRORS = {"TypeError": TypeError, "ValueError": ValueError, "IndexError": IndexError,
           "AttributeError": AttributeError}


def _agree(comm, operation, error=None):
    """Collective over `comm`: every process raises the lowest failing
    process's error (same class, same message), or a ValueError when the
    processes called with different collective arguments (`operation`
    carries them: the call, global shapes, dtypes, strategies).  One small
    allreduce; returns normally when every process is fine."""
    mine = ""
    if error is not None:
        name = type(error).__name__
        mine = "%s|%s" % (name if name in _ERRORS else "ValueError", error)
    agreed = _adlib._agree(_grid_of(comm), mine, operation)
    if not agreed:
        return
    name, separator, message = agreed.partition("|")
    if not separator:  # the agreement found arguments that differ between processes
        raise ValueError("d2o: %s" % agreed)
    raise _ERRORS[name](message)


def _strategy_name(strategy):
    if strategy is None:
        return DEFAULT_STRATEGY
    if strategy not in STRATEGIES["all"]:
        raise ValueError("distribution_strategy must be one of %s, not %r"
                         % (", ".join(STRATEGIES["all"]), strategy))
    return strategy


def _is_scalar(value):
    return _np.isscalar(value) or (isinstance(value, _np.ndarray) and value.ndim == 0)


class distributed_data_object:  # noqa: N801  (d2o's name)
    """A global array of `global_shape` and `dtype`, split over the processes
    of `comm` by `distribution_strategy` (see STRATEGIES and the module
    overview); `.data` is this process's block.

    Created from `global_data` (a numpy array, anything numpy.asarray takes,
    a scalar with `global_shape`, or another distributed_data_object), from
    `global_shape` and `dtype` alone (elements unset, as numpy.empty), or,
    with 'freeform', from each process's `local_data` or `local_shape` (the
    global first axis is their sum).  `copy=False` keeps `local_data`
    itself as `.data` when its dtype and layout allow.  Collective."""

    # numpy hands operators with a distributed_data_object on the right to
    # __array_ufunc__ below rather than converting it.
    __array_priority__ = 1000.0

    def __init__(self, global_data=None, global_shape=None, dtype=None, local_data=None,
                 local_shape=None, distribution_strategy=None, hermitian=False, alias=None,
                 path=None, comm=None, copy=True, *args, **kwargs):
        comm = _MPI.COMM_WORLD if comm is None else comm
        if isinstance(global_data, distributed_data_object) and distribution_strategy is None:
            distribution_strategy = global_data.distribution_strategy

        def check():
            if alias is not None or path is not None:
                raise ValueError("d2o: HDF5 files (alias, path) are not supported by adlib.d2o")
            strategy = _strategy_name(distribution_strategy)
            if strategy in STRATEGIES["local"]:
                return self._local_arguments(strategy, global_data, global_shape, dtype,
                                             local_data, local_shape, copy)
            return self._global_arguments(strategy, global_data, global_shape, dtype)

        # What every process must agree on is in the operation's name.
        strategy, shape, kind, source = _check_and_agree(comm, check)
        if strategy == "freeform":
            self.distributor = _distribution(strategy, shape, comm, local_rows=source[0])
            data = source[1]
        else:
            self.distributor = _distribution(strategy, shape, comm)
            data = self._local_part(source, kind, copy)
        self.dtype = kind
        self.hermitian = bool(hermitian)
        self.data = data if data is not None else _np.empty(self.distributor.local_shape, kind)

    # -- construction helpers ------------------------------------------------

    @staticmethod
    def _global_arguments(strategy, global_data, global_shape, dtype):
        """(strategy, shape, dtype, source) for a global strategy."""
        if isinstance(global_data, distributed_data_object):
            shape = global_data.shape
            kind = _np.dtype(dtype if dtype is not None else global_data.dtype)
            return strategy, shape, kind, global_data
        if global_data is None:
            if global_shape is None:
                raise ValueError("d2o: give global_data or global_shape")
            shape = _checked_shape(global_shape)
            kind = _np.dtype(dtype if dtype is not None else _np.float64)
            return strategy, shape, kind, None
        if _is_scalar(global_data):
            if global_shape is None:
                raise ValueError("d2o: a scalar global_data needs global_shape")
            shape = _checked_shape(global_shape)
            kind = _np.dtype(dtype if dtype is not None else _np.asarray(global_data).dtype)
            return strategy, shape, kind, _np.asarray(global_data, dtype=kind)
        array = _np.asarray(global_data)
        if global_shape is not None and tuple(global_shape) != array.shape:
            raise ValueError("d2o: global_data has shape %s, global_shape says %s"
                             % (array.shape, tuple(global_shape)))
        kind = _np.dtype(dtype if dtype is not None else array.dtype)
        return strategy, _checked_shape(array.shape), kind, array

    @staticmethod
    def _local_arguments(strategy, global_data, global_shape, dtype, local_data, local_shape,
                         copy):
        """(strategy, shape, dtype, (rows, data)) for 'freeform': this
        process's block from local_data or local_shape; global_shape, when
        given, must have the same dimensions after the first."""
        if global_data is not None:
            raise ValueError("d2o: 'freeform' takes local_data or local_shape, not global_data")
        if local_data is not None:
            block = _np.array(local_data, dtype=dtype, copy=copy, ndmin=1)
        elif local_shape is not None:
            block = _np.empty(tuple(int(n) for n in local_shape),
                              dtype=_np.dtype(dtype if dtype is not None else _np.float64))
        else:
            raise ValueError("d2o: 'freeform' needs local_data or local_shape")
        if block.ndim == 0:
            raise ValueError("d2o: arrays have at least one dimension")
        trailing = block.shape[1:]
        if global_shape is not None and tuple(global_shape)[1:] != trailing:
            raise ValueError("d2o: local blocks of shape %s do not fit global_shape %s"
                             % (block.shape, tuple(global_shape)))
        return strategy, (None,) + trailing, block.dtype, (block.shape[0], block)

    def _local_part(self, source, kind, copy):
        """This process's block of `source` (None: unset)."""
        dist = self.distributor
        if source is None:
            return None
        if isinstance(source, distributed_data_object):
            if source.distributor.same_split(dist):
                block = source.data
            else:
                block = _redistribute(dist, source.distributor, source.data, source.dtype)
                copy = False
            return _np.array(block, dtype=kind, copy=copy)
        if source.ndim == 0:  # a scalar: every element
            return _np.full(dist.local_shape, source, dtype=kind)
        return _np.array(source[dist.local_slice()], dtype=kind, copy=copy)

    @classmethod
    def _from_local(cls, distributor, data, hermitian=False):
        """An object over `data`, this process's block of `distributor`'s
        split (no checks, no communication: for results whose arguments the
        processes already agree on)."""
        obj = cls.__new__(cls)
        obj.distributor = distributor
        obj.data = data
        obj.dtype = data.dtype
        obj.hermitian = hermitian
        return obj

    # -- attributes -----------------------------------------------------------

    @property
    def shape(self):
        """The global shape."""
        return self.distributor.global_shape

    @property
    def local_shape(self):
        """The shape of this process's block."""
        return self.data.shape

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        """The number of elements of the global array."""
        return _math.prod(self.shape)

    @property
    def distribution_strategy(self):
        return self.distributor.strategy

    @property
    def comm(self):
        return self.distributor.comm

    def __len__(self):
        return self.shape[0]

    def __repr__(self):
        return "<distributed_data_object>\n" + repr(self.data)

    def __str__(self):
        return str(self.data)

    # -- local and global data -----------------------------------------------

    def get_local_data(self, key=(slice(None),), copy=True):
        """This process's block (a copy unless copy=False), or `key` of it."""
        block = self.data[key]
        return block.copy() if copy else block

    def set_local_data(self, data, hermitian=False, copy=True):
        """Replaces this process's block (local: no communication); `data`
        must have the block's shape, and is converted to the dtype."""
        data = _np.asarray(data)
        if data.shape != self.data.shape:
            raise ValueError("d2o: set_local_data: a block of shape %s, this process holds %s"
                             % (data.shape, self.data.shape))
        self.hermitian = bool(hermitian)
        if copy or data.dtype != self.dtype:
            self.data = _np.array(data, dtype=self.dtype, copy=True)
        else:
            self.data = data

    def get_full_data(self, target_rank="all"):
        """The whole array as numpy: on every process ('all'), or on
        process `target_rank` alone (None elsewhere).  Collective."""
        dist = self.distributor
        if target_rank != "all":
            if dist.replicated:
                return self.data.copy() if self.comm.rank == target_rank else None
            rows = [self.shape[0] if r == target_rank else 0 for r in range(self.comm.size)]
            target = _split("freeform", self.shape, self.comm, rows)
            block = _redistribute(target, dist, self.data, self.dtype)
            return block if self.comm.rank == target_rank else None
        if dist.replicated:
            return self.data.copy()
        return _redistribute(_distribution("not", self.shape, self.comm), dist, self.data,
                             self.dtype)

    def set_full_data(self, data, hermitian=False, copy=True):
        """Takes this process's rows of `data`, the whole array (the same on
        every process, as d2o assumes)."""
        data = _np.asarray(data)
        if data.shape != self.shape:
            raise ValueError("d2o: set_full_data: data of shape %s for an array of shape %s"
                             % (data.shape, self.shape))
        self.set_local_data(data[self.distributor.local_slice()], hermitian=hermitian, copy=copy)

    def __array__(self, dtype=None, copy=None):
        """numpy.asarray(obj): the whole array (collective)."""
        full = self.get_full_data()
        return full if dtype is None else full.astype(dtype)

    def copy(self, dtype=None, distribution_strategy=None, **kwargs):
        """A copy, optionally of another dtype or strategy (redistributed)."""
        strategy = distribution_strategy or self.distribution_strategy
        kind = _np.dtype(dtype if dtype is not None else self.dtype)
        if strategy == self.distribution_strategy:
            return self._from_local(self.distributor, self.data.astype(kind, copy=True),
                                    self.hermitian)
        return distributed_data_object(self, dtype=kind, distribution_strategy=strategy,
                                       hermitian=self.hermitian, comm=self.comm)

    def copy_empty(self, global_shape=None, local_shape=None, dtype=None,
                   distribution_strategy=None, **kwargs):
        """A new object of this one's shape, dtype and strategy unless given,
        its elements unset (numpy.empty)."""
        kind = _np.dtype(dtype if dtype is not None else self.dtype)
        if global_shape is None and local_shape is None and distribution_strategy in (
                None, self.distribution_strategy):
            return self._from_local(self.distributor, _np.empty(self.data.shape, kind))
        strategy = distribution_strategy or self.distribution_strategy
        if strategy == "freeform":
            return distributed_data_object(
                local_shape=local_shape if local_shape is not None else self.local_shape,
                dtype=kind, distribution_strategy=strategy, comm=self.comm)
        return distributed_data_object(
            global_shape=global_shape if global_shape is not None else self.shape, dtype=kind,
            distribution_strategy=strategy, comm=self.comm)

    # -- elementwise operations -------------------------------------------------

    def _operand(self, value):
        """`value` as this process's part in this object's split: another
        object's block (redistributed if split otherwise), a global-shape
        numpy array's rows, anything else unchanged (scalars, arrays that
        broadcast along the other dimensions)."""
        if isinstance(value, distributed_data_object):
            if value.shape != self.shape:
                raise ValueError("d2o: operands of shapes %s and %s" % (self.shape, value.shape))
            if value.distributor.same_split(self.distributor):
                return value.data
            return _redistribute(self.distributor, value.distributor, value.data, value.dtype)
        if isinstance(value, _np.ndarray) and value.ndim == self.ndim and value.ndim > 0 \
                and value.shape[0] == self.shape[0] and value.shape[0] != 1:
            return value[self.distributor.local_slice()]
        return value

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """numpy ufuncs elementwise, on the blocks of the first
        distributed_data_object operand's split (d2o's rule)."""
        if method != "__call__":
            return NotImplemented
        leader = next(x for x in inputs + kwargs.get("out", ())
                      if isinstance(x, distributed_data_object))
        out = kwargs.pop("out", None)
        if out is not None:
            kwargs["out"] = tuple(leader._operand(o) if isinstance(o, distributed_data_object)
                                  else o for o in out)
        result = ufunc(*(leader._operand(x) for x in inputs), **kwargs)
        if out is not None:
            return out[0] if len(out) == 1 else out
        if isinstance(result, tuple):
            return tuple(self._from_local(leader.distributor, r) for r in result)
        return self._from_local(leader.distributor, _np.asarray(result))

    def _binary(self, ufunc, left, right):
        """left (ufunc) right, with this object's split; hermitian as d2o
        keeps it (both operands hermitian, or a real scalar)."""
        other = right if left is self else left
        result = ufunc(self._operand(left), self._operand(right))
        if isinstance(other, distributed_data_object):
            hermitian = self.hermitian and other.hermitian
        elif _is_scalar(other):
            hermitian = self.hermitian and _np.isrealobj(other)
        else:
            hermitian = False
        return self._from_local(self.distributor, _np.asarray(result), hermitian)

    def _inplace(self, ufunc, other):
        ufunc(self.data, self._operand(other), out=self.data)
        return self

    def __neg__(self):
        return self._from_local(self.distributor, -self.data, self.hermitian)

    def __pos__(self):
        return self._from_local(self.distributor, +self.data, self.hermitian)

    def __abs__(self):
        return self._from_local(self.distributor, _np.abs(self.data))

    def __invert__(self):
        return self._from_local(self.distributor, ~self.data)

    __hash__ = None  # == is elementwise

    def __bool__(self):
        if self.size != 1:
            raise ValueError("The truth value of a distributed_data_object with more than one "
                             "element is ambiguous. Use a.any() or a.all()")
        return bool(self.get_full_data().reshape(()))

    # -- indexing ---------------------------------------------------------------

    def _selection(self, key):
        """What `key` (integers, slices, Ellipsis) selects: (local_key, shape,
        split, owner).  local_key indexes this process's block; shape is the
        result's global shape; split is the result's split when the first
        axis is sliced (each process keeps the rows it holds, in the order
        the slice visits them: no communication), else None; owner is the
        process holding the row an integer first index names (None when
        every process holds it)."""
        # Keys repeat (a loop over obj[::-2], obj[i]): what a key selects is
        # kept per split, under a hashable form of the key.
        dist = self.distributor
        cache_key = _hashable_key(key)
        if cache_key is not None:
            found = dist.selections.get(cache_key)
            if found is not None:
                return found
        found = self._select(key)
        if cache_key is not None:
            if len(dist.selections) >= 64:
                dist.selections.clear()
            dist.selections[cache_key] = found
        return found

    def _select(self, key):
        """_selection without the cache."""
        key = _expand_key(key, self.shape)
        dist = self.distributor
        rest = key[1:]
        trailing = _np.broadcast_to(_np.empty(()), self.shape[1:])[rest].shape
        first = key[0]
        if isinstance(first, slice):
            indices = range(*first.indices(self.shape[0]))
            shape = (len(indices),) + trailing
            if dist.replicated:
                return (first,) + rest, shape, _distribution("not", shape, self.comm), None
            order = list(range(self.comm.size))
            if indices.step < 0:
                order.reverse()
            rows = [len(_range_within(indices, *dist.rows_of(r))) for r in order]
            split = _split("freeform", shape, self.comm, rows, order)
            mine = _range_within(indices, dist.start, dist.stop)
            if len(mine) == 0:
                local = slice(0, 0)
            else:
                begin = mine.start - dist.start
                end = begin + len(mine) * mine.step
                local = slice(begin, end if end >= 0 else None, mine.step)
            return (local,) + rest, shape, split, None
        if dist.replicated:
            return key, trailing, None, None
        owner = next(r for r in range(self.comm.size)
                     if dist.rows_of(r)[0] <= first < dist.rows_of(r)[1])
        return (first - dist.start,) + rest, trailing, None, owner

    def __getitem__(self, key):
        """Integers, slices (negative steps too) and Ellipsis, as numpy.  A
        slice of the first axis gives an object whose processes keep the
        rows they hold (views of their blocks, as numpy's basic slicing; no
        communication); an integer first index gives the row's values on
        every process (a replicated object, or a number)."""
        if _is_mask(key):
            return self._masked(key)
        local_key, shape, split, owner = self._selection(key)
        if split is not None:
            return self._from_local(split, self.data[local_key])
        if owner is None:
            value = self.data[local_key]
        else:
            value = self.comm.bcast(
                self.data[local_key] if self.comm.rank == owner else None, root=owner)
        if not shape:
            return value
        return self._from_local(_distribution("not", shape, self.comm), _np.array(value))

    def __setitem__(self, key, value):
        """Writes `value` (a scalar, a numpy array of the selection's shape or
        one that broadcasts to it, or an object of the selection's shape) into
        the selection: each process writes the part it holds."""
        if _is_mask(key):
            self._set_masked(key, value)
            return
        local_key, shape, split, owner = self._selection(key)
        if isinstance(value, distributed_data_object):
            if value.shape != shape:
                raise ValueError("d2o: could not assign an object of shape %s to a selection "
                                 "of shape %s" % (value.shape, shape))
            if split is None:
                value = value.get_full_data()
            else:
                if not value.distributor.same_split(split):
                    value = _redistribute(split, value.distributor, value.data, value.dtype)
                else:
                    value = value.data
                self.data[local_key] = value
                return
        value = _np.asarray(value)
        if split is not None and value.ndim == len(shape) and value.ndim > 0 \
                and value.shape[0] == shape[0] and shape[0] != 1:
            value = value[split.start:split.stop]  # this process's rows of the selection
        if owner is not None and owner != self.comm.rank:
            return
        self.data[local_key] = value

    def _mask_block(self, mask):
        """This process's part of a boolean mask of this object's shape: an
        object's (redistributed to this split if needed) or a numpy array's
        rows."""
        if mask.shape != self.shape:
            raise IndexError("d2o: a boolean index of shape %s for an array of shape %s"
                             % (mask.shape, self.shape))
        if isinstance(mask, distributed_data_object):
            return self._operand(mask)
        return mask[self.distributor.local_slice()]

    def _mask_split(self, selected):
        """The split of a masked selection, `selected` elements here: each
        process keeps its elements, in the order its rows come (one
        allgather of the counts); replicated objects stay replicated."""
        dist = self.distributor
        if dist.replicated:
            return _distribution("not", (selected,), self.comm)
        counts = self.comm.allgather(selected)
        return _split("freeform", (sum(counts),), self.comm,
                             [counts[r] for r in dist.order], dist.order)

    def _masked(self, mask):
        """obj[mask]: the elements where a boolean mask of the object's shape
        holds, as a 1-D object, in C order (numpy's)."""
        values = self.data[self._mask_block(mask)]
        return self._from_local(self._mask_split(values.size), values)

    def _set_masked(self, mask, value):
        """obj[mask] = value: a scalar, a 1-D array or object of as many
        elements as the mask selects (each process takes its own)."""
        block = self._mask_block(mask)
        if isinstance(value, distributed_data_object):
            value = value.get_full_data()
        value = _np.asarray(value)
        if value.ndim == 0 or (value.ndim == 1 and value.size == 1):
            self.data[block] = value.reshape(())
            return
        split = self._mask_split(int(_np.count_nonzero(block)))
        if value.shape != split.global_shape:
            raise ValueError("d2o: %d values for %d elements the mask selects"
                             % (value.size, split.global_shape[0]))
        self.data[block] = value[split.start:split.stop]

    def get_data(self, key, **kwargs):
        """obj[key] (d2o's name)."""
        return self[key]

    def set_data(self, data, key, **kwargs):
        """obj[key] = data (d2o's name)."""
        self[key] = data

    # -- reductions -----------------------------------------------------------

    def _fold(self, name, combine, axis=None, empty_value=None):
        """The numpy reduction `name` over `axis` (None: every element): each
        block folded with numpy, the per-process results combined by
        `combine` (a numpy reduction over a stacked first axis)."""
        dist = self.distributor
        if axis is None and (dist.replicated or self.comm.size == 1):
            # Every element is here: numpy's own method, nothing else.
            if self.data.size == 0 and empty_value is None:
                raise ValueError("zero-size array to reduction operation %s which has no "
                                 "identity" % name)
            return getattr(self.data, _METHODS[name])()
        function = getattr(_np, name)
        axes = _normalize_axes(axis, self.ndim)
        if axes is not None and 0 not in axes:
            # Along rows only: each process reduces its own rows.
            return self._from_local(_reduced_split(dist, axes),
                                    _np.asarray(function(self.data, axis=axes)))
        if self.size == 0 and empty_value is None:
            raise ValueError("zero-size array to reduction operation %s which has no identity"
                             % name)
        if dist.replicated or self.comm.size == 1:
            result = function(self.data, axis=axes)
        elif _allreduces(name, self.dtype):
            result = self._allreduced(name, function, axes)
        else:
            mine = function(self.data, axis=axes) if self.data.size else None
            gathered = [mine] if self.comm.size == 1 else self.comm.allgather(mine)
            partials = [p for p in gathered if p is not None]
            if not partials:
                result = function(_np.empty((0,) + self.shape[1:], self.dtype), axis=axes)
            else:
                result = combine(_np.stack([_np.asarray(p) for p in partials]), axis=0)
        if axes is None or _np.ndim(result) == 0:
            return result[()] if isinstance(result, _np.ndarray) else result
        replicated = _distribution("not", _np.shape(result), self.comm)
        return self._from_local(replicated, _np.asarray(result))

    def _allreduced(self, name, function, axes):
        """The reduction `name` over `axes` of the whole array, by numpy on
        the block and one MPI_Allreduce of the partial results (an empty
        block contributes the operation's identity)."""
        if self.data.size:
            partial = _np.asarray(function(self.data, axis=axes))
        else:
            empty = _np.empty((1,) + self.shape[1:], self.dtype)
            partial = _np.asarray(function(empty, axis=axes))  # the dtype and shape numpy gives
            if name in ("sum", "prod", "all", "any"):
                partial = _np.asarray(function(empty[:0], axis=axes))
            else:  # amin / amax of integers: the other extreme
                info = _np.iinfo(partial.dtype)
                partial = _np.full(partial.shape, info.max if name == "amin" else info.min,
                                   partial.dtype)
        partial = _np.ascontiguousarray(partial).reshape(-1)
        result = _np.empty_like(partial)
        self.comm.Allreduce(partial, result, op=_MPI_OPERATIONS[name])
        shape = () if axes is None else tuple(
            n for d, n in enumerate(self.shape) if d not in axes)
        return result.reshape(shape)

    def sum(self, axis=None, **kwargs):
        return self._fold("sum", _np.sum, axis, empty_value=0)

    def prod(self, axis=None, **kwargs):
        return self._fold("prod", _np.prod, axis, empty_value=1)

    def amin(self, axis=None, **kwargs):
        return self._fold("amin", _np.amin, axis)

    def amax(self, axis=None, **kwargs):
        return self._fold("amax", _np.amax, axis)

    min = amin
    max = amax

    def all(self, axis=None, **kwargs):
        return self._fold("all", _np.all, axis, empty_value=True)

    def any(self, axis=None, **kwargs):
        return self._fold("any", _np.any, axis, empty_value=False)

    def mean(self, axis=None, **kwargs):
        axes = _normalize_axes(axis, self.ndim)
        count = self.size if axes is None else int(_np.prod([self.shape[a] for a in axes]))
        total = self.sum(axis=axis)
        if count == 0:
            raise ValueError("d2o: mean of an empty array")
        return total / count

    def var(self, axis=None, **kwargs):
        axes = _normalize_axes(axis, self.ndim)
        mean = self.mean(axis=axis)
        if axes is None:
            centred = self.data - mean
        else:  # the mean's block lines up with this one's rows, or is replicated
            block = mean.data if isinstance(mean, distributed_data_object) else _np.asarray(mean)
            centred = self.data - _np.expand_dims(block, axes)
        squares = self._from_local(self.distributor, _np.abs(centred) ** 2)
        return squares.mean(axis=axis)

    def std(self, axis=None, **kwargs):
        return _np.sqrt(self.var(axis=axis))

    def _arg_extreme(self, name):
        """Global flat index of the first minimum / maximum (axis=None)."""
        if self.size == 0:
            raise ValueError("attempt to get %s of an empty sequence" % name)
        dist = self.distributor
        if dist.replicated:
            return int(getattr(_np, name)(self.data))
        mine = None
        if self.data.size:
            local = int(getattr(_np, name)(self.data))
            row_items = int(_np.prod(self.shape[1:], dtype=_np.int64))
            mine = (self.data.reshape(-1)[local], dist.start * row_items + local)
        candidates = [c for c in self.comm.allgather(mine) if c is not None]
        values = _np.array([c[0] for c in candidates])
        best = int(getattr(_np, name)(values))  # the first: processes hold rows in order
        return int(candidates[best][1])

    def argmin(self, axis=None):
        if axis is not None:
            raise NotImplementedError("d2o: argmin with an axis")
        return self._arg_extreme("argmin")

    def argmax(self, axis=None):
        if axis is not None:
            raise NotImplementedError("d2o: argmax with an axis")
        return self._arg_extreme("argmax")

    # -- element kinds ------------------------------------------------------------

    def real(self):
        return self._from_local(self.distributor, _np.array(self.data.real))

    def imag(self):
        return self._from_local(self.distributor, _np.array(self.data.imag))

    def conjugate(self):
        return self._from_local(self.distributor, _np.conjugate(self.data), self.hermitian)

    conj = conjugate

    def flatten(self, inplace=False):
        """The array as 1-D, in C order, split as this object ('equal' and
        'fftw' rows become their row elements; 'not' stays replicated)."""
        dist = self.distributor
        row_items = int(_np.prod(self.shape[1:], dtype=_np.int64))
        if dist.replicated:
            target = _distribution("not", (self.size,), self.comm)
        else:
            target = _split("freeform", (self.size,), self.comm,
                                   [r * row_items for r in dist.rows], dist.order)
        return self._from_local(target, self.data.reshape(-1).copy())


def _check_and_agree(comm, check):
    """Runs the constructor's checks on every process, agreeing on the
    verdict and on what must be the same everywhere (strategy, the global
    shape after the first axis for 'freeform', the whole shape otherwise,
    the dtype)."""
    try:
        strategy, shape, kind, source = check()
    except (TypeError, ValueError, IndexError, AttributeError) as error:
        _agree(comm, "d2o.distributed_data_object", error)
        raise
    agreed_shape = shape[1:] if strategy == "freeform" else shape
    _agree(comm, "d2o.distributed_data_object(strategy=%s, shape=%s, dtype=%s)"
           % (strategy, agreed_shape, kind.name))
    return strategy, shape, kind, source


def _expand_key(key, shape):
    """`key` as one integer (non-negative, checked) or slice per dimension."""
    key = key if isinstance(key, tuple) else (key,)
    ellipses = sum(1 for k in key if k is Ellipsis)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if len(key) - ellipses > len(shape):
        raise IndexError("too many indices for an array of dimension %d" % len(shape))
    if ellipses:
        at = next(i for i, k in enumerate(key) if k is Ellipsis)
        key = key[:at] + (slice(None),) * (len(shape) - len(key) + 1) + key[at + 1:]
    key = key + (slice(None),) * (len(shape) - len(key))
    expanded = []
    for d, (k, n) in enumerate(zip(key, shape)):
        if isinstance(k, slice):
            expanded.append(k)
        elif isinstance(k, (_numbers.Integral, _np.integer)) and not isinstance(k, bool):
            if not -n <= k < n:
                raise IndexError("index %d is out of bounds for axis %d with size %d"
                                 % (k, d, n))
            expanded.append(int(k) % n)
        else:
            raise IndexError("adlib.d2o indexes with integers, slices, Ellipsis and boolean "
                             "masks of the array's shape (index arrays are not supported yet), "
                             "not %s" % type(k).__name__)
    return tuple(expanded)


def _is_mask(key):
    """Is `key` a boolean mask (a numpy array or an object of bools)?"""
    return (isinstance(key, (distributed_data_object, _np.ndarray)) and
            _np.dtype(key.dtype) == _np.bool_)


def _hashable_key(key):
    """`key` as a hashable value (slices as triples), or None for keys of
    other kinds (those are not cached)."""
    parts = []
    for k in key if isinstance(key, tuple) else (key,):
        if isinstance(k, slice):
            parts.append(("s", k.start, k.stop, k.step))
        elif k is Ellipsis:
            parts.append(("e",))
        elif isinstance(k, (int, _np.integer)) and not isinstance(k, bool):
            parts.append(("i", int(k)))
        else:
            return None
    return tuple(parts)


def _range_within(indices, low, high):
    """The part of range `indices` inside [low, high), as a range."""
    step = indices.step
    if step > 0:
        start = indices.start
        if start < low:
            start += -(-(low - start) // step) * step
        return range(start, min(indices.stop, high), step)
    start = indices.start
    if start > high - 1:
        start -= -(-(start - (high - 1)) // -step) * -step
    return range(start, max(indices.stop, low - 1), step)


def _checked_shape(shape):
    """`shape` as a tuple of ints, at least one dimension, none negative."""
    shape = tuple(int(n) for n in shape)
    if not shape:
        raise ValueError("d2o: arrays have at least one dimension")
    if any(n < 0 for n in shape):
        raise ValueError("d2o: negative dimensions are not allowed: %s" % (shape,))
    return shape


def _normalize_axes(axis, ndim):
    """axis (None, an int or a tuple) as a sorted tuple of non-negative
    axes, or None for every axis."""
    if axis is None:
        return None
    axes = (axis,) if isinstance(axis, _numbers.Integral) else tuple(axis)
    normalized = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError("axis %d is out of bounds for an array of dimension %d" % (a, ndim))
        normalized.append(a % ndim)
    return tuple(sorted(set(normalized)))


def _reduced_split(dist, axes):
    """The split of the array left after reducing `axes` (not the first)."""
    shape = tuple(n for d, n in enumerate(dist.global_shape) if d not in axes)
    return _split(dist.strategy, shape, dist.comm, dist.rows, dist.order)


def _binary_operators():
    """The arithmetic, comparison and bitwise operators, each with its
    reflected and in-place form, as numpy ufuncs on the blocks."""
    table = {
        "add": _np.add, "sub": _np.subtract, "mul": _np.multiply, "truediv": _np.true_divide,
        "floordiv": _np.floor_divide, "mod": _np.remainder, "pow": _np.power,
        "and": _np.bitwise_and, "or": _np.bitwise_or, "xor": _np.bitwise_xor,
        "lshift": _np.left_shift, "rshift": _np.right_shift,
    }
    for name, ufunc in table.items():
        def forward(self, other, ufunc=ufunc):
            return self._binary(ufunc, self, other)

        def reflected(self, other, ufunc=ufunc):
            return self._binary(ufunc, other, self)

        def inplace(self, other, ufunc=ufunc):
            return self._inplace(ufunc, other)

        setattr(distributed_data_object, "__%s__" % name, forward)
        setattr(distributed_data_object, "__r%s__" % name, reflected)
        setattr(distributed_data_object, "__i%s__" % name, inplace)
    comparisons = {"eq": _np.equal, "ne": _np.not_equal, "lt": _np.less,
                   "le": _np.less_equal, "gt": _np.greater, "ge": _np.greater_equal}
    for name, ufunc in comparisons.items():
        def compare(self, other, ufunc=ufunc):
            return self._binary(ufunc, self, other)

        setattr(distributed_data_object, "__%s__" % name, compare)


_binary_operators()
