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
import hashlib as _hashlib
import math as _math
import numbers as _numbers
import operator as _operator
import os as _os
import warnings as _warnings

import numpy as _np
from mpi4py import MPI as _MPI

from . import _adlib
from ._d2o_distribution import STRATEGIES
from ._d2o_distribution import distribution as _distribution
from ._d2o_distribution import split as _split
from ._d2o_distribution import grid_of as _grid_of
from ._d2o_distribution import redistribute as _redistribute
from ._d2o_distribution import remap_with_array as _remap_with_array
from . import DTYPES as _ADLIB_DTYPES
from . import empty as _adlib_empty
from ._d2o_distribution import equal_rows as _equal_rows
from . import _d2o_selection as _selection
from ._d2o_selection import expand_basic_key as _expand_key

from ._d2o_librarian import d2o_librarian

__all__ = ["distributed_data_object", "STRATEGIES", "d2o_librarian", "from_adlib"]

# Gives each new object its index (bound once: every creation calls it).
_register = d2o_librarian.register
_d2o_librarian = d2o_librarian

#: Checked mode (ADLIB_CHECKED=1, as adlib's Configuration reads it): basic
#: keys and masks are agreed across processes on every use too.
_CHECKED = _os.environ.get("ADLIB_CHECKED", "").strip().lower() in ("1", "true", "on", "yes")

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
    if comm.size == 1:
        return  # nobody to disagree with; the caller raises its own error
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
        self.index = _register(self)  # the same on every process: creation is collective

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
        obj.index = _register(obj)
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

    def _selection(self, key, cache_key=None):
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
        if cache_key is None:
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
        """obj[key]: see get_data."""
        basic = None if _CHECKED else _hashable_key(key)
        if basic is not None:  # integers, slices, Ellipsis: straight to the cached selection
            return self._get_basic(key, basic)
        return self.get_data(key)

    def __setitem__(self, key, value):
        """obj[key] = value: see set_data."""
        self.set_data(value, key)

    def get_data(self, key, local_keys=False, **kwargs):
        """obj[key], with numpy's keys: integers, slices (negative steps too)
        and Ellipsis; boolean masks (numpy arrays or objects); integer index
        arrays on the leading axes (numpy arrays, lists or objects; one
        broadcast dimension, as d2o).  Collective; the key is the same on
        every process unless `local_keys`.

        A slice of the first axis gives an object whose processes keep the
        rows they hold (views of their blocks, as numpy's basic slicing; no
        communication); an integer first index gives the row's values on
        every process (a replicated object, or a number).  An index array
        gives an object split like the key (an object key) or, for a numpy
        key, each process keeping the items it holds when the key visits
        the processes in order (no communication), else dealt evenly and
        fetched by an adlib Gather planned once per key.

        local_keys=True: each process gives its own key and gets what it
        selects, as its block of a 'freeform' object: a numpy key through
        an adlib Gather planned once per set of keys; a key object (one,
        made on every process) as d2o does, every process's object found
        through the librarian and selecting collectively in turn."""
        basic = None if local_keys else _hashable_key(key)
        if basic is not None:  # the common case first: integers, slices, Ellipsis
            self._agree_on_key("get_data", key)
            return self._get_basic(key, basic)
        if local_keys:
            return self._get_local_keys(key)
        if key is None:
            return self.copy()
        if _is_mask(key, self.ndim):
            self._agree_on_key("get_data", key)
            return self._masked(key)
        if _has_object_entry(key):
            return self._get_by_objects(key)
        if _selection.has_index_arrays(key):
            return self._get_indexed(key)
        self._agree_on_key("get_data", key)
        return self._get_basic(key)

    def set_data(self, data, to_key, from_key=None, local_keys=False, hermitian=False,
                 copy=True, **kwargs):
        """obj[to_key] = data[from_key] (data itself without from_key): each
        process writes the part of the selection it holds.  `data` is a
        scalar, a numpy array of the selection's shape or one that
        broadcasts to it, or an object of the selection's shape
        (redistributed to the selection's split).  Keys as get_data; where
        an index array names an element twice, the last value is kept
        (numpy's rule) for numpy data, one of them for object data.  Sets
        `hermitian` (False by default: a write may break the symmetry, as
        d2o)."""
        if from_key is not None:
            data = data.get_data(from_key) if isinstance(data, distributed_data_object) \
                else _np.asarray(data)[from_key]
        self.hermitian = bool(hermitian)
        if local_keys:
            self._set_local_keys(to_key, data)
        elif _is_mask(to_key, self.ndim):
            self._agree_on_key("set_data", to_key)
            self._set_masked(to_key, data)
        elif _has_object_entry(to_key):
            self._set_by_objects(to_key, data)
        elif _selection.has_index_arrays(to_key):
            self._set_indexed(to_key, data)
        else:
            self._agree_on_key("set_data", to_key)
            self._set_basic(to_key, data)

    def _agree_on_key(self, call, key):
        """In checked mode (ADLIB_CHECKED=1), agree across processes that
        they index with the same basic key or mask: a ValueError on every
        process where they differ, instead of a hang or a wrong answer.  (Keys
        with index arrays are always agreed: they plan schedules.)"""
        if _CHECKED and self.distributor.comm.size > 1:
            _agree(self.comm, "d2o.%s(key=%s)" % (call, _key_digest(key)))

    def _get_basic(self, key, basic=None):
        """get_data for integers, slices and Ellipsis (`basic`: the key's
        hashable form, when known)."""
        local_key, shape, split, owner = self._selection(key, basic)
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

    def _set_basic(self, key, value):
        """set_data for integers, slices and Ellipsis."""
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

    # -- index arrays and per-process keys ----------------------------------------

    def _resolve_agreed(self, call, key, shape=None):
        """The IndexArrays of a key every process gives alike, agreed: a bad
        key raises the same IndexError everywhere, keys that differ between
        processes a ValueError everywhere (one small allreduce)."""
        try:
            selection = _selection.resolve_index_arrays(key, self.shape if shape is None
                                                        else shape)
        except (IndexError, TypeError, ValueError) as error:
            _agree(self.comm, "d2o.%s(index arrays)" % call, error)
            raise
        _agree(self.comm, "d2o.%s(index arrays %s)" % (call, selection.digest()))
        return selection

    def _index_plan(self, call, key):
        """The _IndexPlan of a numpy key with index arrays (the same on every
        process): resolved once per split and key (kept with the split's
        other selections, under the key's raw fingerprint), agreed across
        processes on every use (one small allreduce, none on one process)."""
        dist = self.distributor
        fingerprint = _selection.raw_fingerprint(key)
        cache_key = None if fingerprint is None else ("index arrays", fingerprint)
        plan = None if cache_key is None else dist.selections.get(cache_key)
        if plan is None:
            plan = _IndexPlan(self._resolve_agreed(call, key), dist)
            if cache_key is not None:
                if len(dist.selections) >= 64:
                    dist.selections.clear()
                dist.selections[cache_key] = plan
        elif self.comm.size > 1:
            _agree(self.comm, "d2o.%s(index arrays %s)" % (call, plan.digest))
        return plan

    def _get_indexed(self, key):
        """get_data for numpy index arrays (the same on every process)."""
        plan = self._index_plan("get_data", key)
        dist = self.distributor
        if dist.replicated:
            values = self.data[plan.whole_key]
            return self._from_local(_distribution("not", values.shape, self.comm), values)
        if plan.stays:  # every item stays where it is
            values = self.data[plan.stays_key]
        else:
            values = _selection.gather(dist, self.data, plan.subscripts, plan.digest)
        return self._from_local(plan.split, values.reshape(plan.split.local_shape))

    def _set_indexed(self, key, value):
        """set_data for numpy index arrays (the same on every process)."""
        plan = self._index_plan("set_data", key)
        shape = plan.selection.selected_shape
        dist = self.distributor
        if isinstance(value, distributed_data_object):
            if value.shape != shape:
                raise ValueError("d2o: could not assign an object of shape %s to a selection "
                                 "of shape %s" % (value.shape, shape))
            if dist.replicated:
                value = value.get_full_data()
            else:
                split = plan.split
                block = value.data if value.distributor.same_split(split) else \
                    _redistribute(split, value.distributor, value.data, value.dtype)
                if plan.stays:
                    self.data[plan.stays_key] = block
                else:
                    _selection.scatter(dist, self.data, plan.subscripts, block, plan.digest)
                return
        values = _np.broadcast_to(_np.asarray(value), shape)
        if dist.replicated:
            self.data[plan.whole_key] = values
            return
        # Every process has every value: each writes the items it holds.
        self.data[plan.held_key] = values[plan.held]

    def _object_key(self, key):
        """A key with object entries as this process's numpy key: index
        objects brought to the split of the first (the leader), numpy
        arrays of the leader's length cut to its rows.  Returns (leader,
        local key)."""
        entries = key if isinstance(key, tuple) else (key,)
        leader = next(k for k in entries if isinstance(k, distributed_data_object))
        local = []
        for k in entries:
            if isinstance(k, distributed_data_object):
                if k.ndim != 1 or k.dtype.kind not in "iu":
                    raise IndexError("d2o: index objects are one-dimensional arrays of "
                                     "integers, not %s of shape %s" % (k.dtype.name, k.shape))
                if k.shape != leader.shape:
                    raise IndexError("shape mismatch: index objects of shapes %s and %s"
                                     % (leader.shape, k.shape))
                local.append(leader._operand(k))
            elif _selection.has_index_arrays(k) and _np.ndim(k) == 1 \
                    and len(k) == leader.shape[0] != 1:
                local.append(_np.asarray(k)[leader.distributor.local_slice()])
            else:
                local.append(k)
        return leader, tuple(local)

    def _resolve_object_key(self, call, key):
        """(leader, IndexArrays of this process's part, result split), agreed:
        an index out of range on one process raises on every process."""
        try:
            leader, local = self._object_key(key)
            selection = _selection.resolve_index_arrays(local, self.shape)
        except (IndexError, TypeError, ValueError) as error:
            _agree(self.comm, "d2o.%s(index objects)" % call, error)
            raise
        _agree(self.comm, "d2o.%s(index objects)" % call)
        lead = leader.distributor
        split = _split(lead.strategy, (leader.shape[0],) + selection.tail_shape, self.comm,
                       lead.rows, lead.order)
        return leader, selection, split

    def _get_by_objects(self, key):
        """get_data for index objects: the result is split like the key, each
        process fetching the items its part of the key names."""
        _, selection, split = self._resolve_object_key("get_data", key)
        if self.distributor.replicated:
            values = self.data[tuple(selection.arrays) + selection.rest]
        else:
            values = self._gather_own_subscripts(selection.subscripts(), selection.digest())
        return self._from_local(split, values.reshape(split.local_shape))

    def _set_by_objects(self, key, value):
        """set_data for index objects: each process stores the items its part
        of the key names (an adlib Scatter)."""
        _, selection, split = self._resolve_object_key("set_data", key)
        if isinstance(value, distributed_data_object):
            if value.shape != split.global_shape:
                raise ValueError("d2o: could not assign an object of shape %s to a selection "
                                 "of shape %s" % (value.shape, split.global_shape))
            block = value.data if value.distributor.same_split(split) else \
                _redistribute(split, value.distributor, value.data, value.dtype)
        else:
            value = _np.asarray(value)
            if value.ndim and value.shape[0] == split.global_shape[0] != 1:
                value = value[split.start:split.stop]  # this process's items
            block = _np.broadcast_to(value, split.local_shape)
        if self.distributor.replicated:
            self._set_replicated_everywhere(selection.subscripts(), block)
        else:
            self._scatter_own_subscripts(selection.subscripts(), block, selection.digest())

    def _get_local_keys(self, key):
        """get_data(local_keys=True): this process's own key; the result is a
        'freeform' object whose block here is what that key selects."""
        comm = self.comm
        call = "d2o.get_data(local_keys, %s)" % _local_key_kind(key)
        try:
            keys, subscripts, shape = self._local_key_parts(key)
        except (IndexError, TypeError, ValueError) as error:
            _agree(comm, call, error)
            raise
        _agree(comm, call)
        if keys is not None:
            # d2o's way: each process's key object selects collectively, and
            # the selection goes to the process whose key it is.
            for rank, other in enumerate(keys):
                selected = self.get_data(other).get_full_data(target_rank=rank)
                if rank == comm.rank:
                    block = selected
            return self._from_own_blocks(block)
        shape = shape if shape else (1,)  # a single element: a block of one
        if self.distributor.replicated:
            values = self.data.reshape(-1)[subscripts]
        else:
            values = self._gather_own_subscripts(subscripts, _subscripts_digest(subscripts))
        return self._from_own_blocks(values.reshape(shape))

    def _local_key_parts(self, key):
        """What this process's own key is: (every process's key object, None,
        None) for a key object, else (None, flat subscripts, selected shape)
        of a numpy key."""
        if isinstance(key, distributed_data_object):
            return self._keys_of_every_process(key), None, None
        if _has_object_entry(key):
            raise TypeError("d2o: local_keys takes one key object or a numpy key, not a tuple "
                            "with objects")
        subscripts, shape = _selection.local_key_subscripts(key, self.shape)
        return None, subscripts, shape

    def _keys_of_every_process(self, key):
        """Every process's key object (local_keys with objects), found by
        their librarian indices (one allgather): d2o's librarian's use."""
        keys = []
        for index in self.comm.allgather(key.index):
            if index not in _d2o_librarian:
                raise ValueError("d2o: local_keys: another process's key object (index %d) is "
                                 "not known here: key objects are made on every process"
                                 % index)
            keys.append(_d2o_librarian[index])
        return keys

    def _from_own_blocks(self, block):
        """A 'freeform' object of every process's own `block` (one allgather
        checking that the blocks agree after their first dimension)."""
        comm = self.comm
        trailing = comm.allgather(block.shape[1:])
        if any(t != trailing[0] for t in trailing):
            raise ValueError("d2o: local_keys: the processes' keys select blocks of different "
                             "trailing shapes %s" % trailing)
        split = _distribution("freeform", (None,) + block.shape[1:], comm,
                              local_rows=block.shape[0])
        return self._from_local(split, block)

    def _set_local_keys(self, key, value):
        """set_data(local_keys=True): each process stores its own values at
        its own key (an adlib Scatter)."""
        call = "d2o.set_data(local_keys, %s)" % _local_key_kind(key)
        if isinstance(value, distributed_data_object):
            value = value.data  # its block here: what get_data(local_keys=True) gave
        try:
            keys, subscripts, shape = self._local_key_parts(key)
            if keys is None:
                values = _np.broadcast_to(_np.asarray(value), shape)
        except (IndexError, TypeError, ValueError) as error:
            _agree(self.comm, call, error)
            raise
        _agree(self.comm, call)
        if keys is not None:
            # Each process's values, stored collectively through its key object.
            shapes = [self._selected_shape(other) for other in keys]
            try:
                mine = _np.array(_np.broadcast_to(_np.asarray(value), shapes[self.comm.rank]),
                                 dtype=self.dtype)
            except (TypeError, ValueError) as error:
                _agree(self.comm, call + " values", error)
                raise
            _agree(self.comm, call + " values")
            for rank, other in enumerate(keys):
                self.set_data(self._held_by(rank, mine, shapes[rank]), other)
            return
        if self.distributor.replicated:
            self._set_replicated_everywhere(subscripts, values)
        else:
            self._scatter_own_subscripts(subscripts, values, _subscripts_digest(subscripts))

    def _selected_shape(self, key):
        """The shape of what a key object selects (collective for a mask: its
        count)."""
        if _np.dtype(key.dtype) == _np.bool_:
            return (int(key.sum()),)
        return (key.shape[0],) + self.shape[1:]

    def _held_by(self, rank, block, shape):
        """A 'freeform' object of `shape` whose rows process `rank` alone
        holds (`block` there)."""
        if rank != self.comm.rank:
            block = _np.empty((0,) + shape[1:], self.dtype)
        split = _distribution("freeform", (None,) + shape[1:], self.comm,
                              local_rows=block.shape[0])
        return self._from_local(split, block)

    def _gather_own_subscripts(self, subscripts, digest):
        """The elements at this process's own flat subscripts (processes
        differ): the Gather is filed under every process's digest together
        (one allgather of digests), so it is reused only for the same keys
        on every process."""
        return _selection.gather(self.distributor, self.data, subscripts,
                                 _digest_of_all(self.comm, digest))

    def _scatter_own_subscripts(self, subscripts, values, digest):
        """Stores `values` at this process's own flat subscripts (the Scatter
        filed as the Gather above)."""
        _selection.scatter(self.distributor, self.data, subscripts, values,
                           _digest_of_all(self.comm, digest))

    def _set_replicated_everywhere(self, subscripts, values):
        """A replicated object stays the same everywhere: every process
        applies every process's writes, in rank order."""
        for theirs, their_values in self.comm.allgather(
                (subscripts, _np.ascontiguousarray(values).reshape(-1))):
            self.data[_np.unravel_index(theirs, self.shape)] = their_values

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

    def mean(self, axis=None, power=1, **kwargs):
        """numpy.mean; `power` (d2o's keyword): the mean of obj ** power."""
        if power != 1:
            return (self ** power).mean(axis=axis)
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

    def _arg_extreme(self, name, axis=None):
        """numpy's argmin / argmax (`name`): without an axis, the global flat
        index of the first extreme; along `axis`, int64 positions along it.
        numpy's rules: the first of equal extremes, the first NaN where there
        is one.  Along the other axes each process works on its own rows
        (the result keeps the split); otherwise each process proposes its
        block's candidates (value, global index) and one allgather picks the
        first best of them in the order of the rows."""
        if axis is not None and (isinstance(axis, bool) or
                                 not isinstance(axis, (_numbers.Integral, _np.integer))):
            raise TypeError("d2o: %s takes one axis (an integer) or None, not %r" % (name, axis))
        function = getattr(_np, name)
        dist = self.distributor
        single = dist.replicated or self.comm.size == 1
        if axis is None:
            if self.size == 0:
                raise ValueError("attempt to get %s of an empty sequence" % name)
            if single:
                return int(function(self.data))
            mine = None
            if self.data.size:
                local = int(function(self.data))
                row_items = int(_np.prod(self.shape[1:], dtype=_np.int64))
                mine = (self.data.reshape(-1)[local], dist.start * row_items + local)
            return int(self._first_best(function, mine))
        along = _normalize_axes(axis, self.ndim)[0]
        if self.shape[along] == 0:
            raise ValueError("attempt to get %s of an empty sequence" % name)
        if along != 0:
            return self._from_local(_reduced_split(dist, (along,)), function(self.data, axis=along))
        if single:
            return self._replicated_result(function(self.data, axis=0))
        mine = None
        if self.data.shape[0]:
            local = function(self.data, axis=0)
            values = _np.take_along_axis(self.data, local[_np.newaxis], axis=0)[0]
            mine = (values, local + dist.start)
        return self._replicated_result(self._first_best(function, mine))

    def _first_best(self, function, mine):
        """The global indices of the extremes among every process's
        candidates `mine` ((values, global indices), numpy arrays or numbers
        of one shape; None for a process without any): stacked in the order
        the processes hold rows, so that numpy's `function` (argmin, argmax)
        picks the first in the global array, on ties and NaN too.  One
        allgather."""
        gathered = self.comm.allgather(mine)
        candidates = [gathered[rank] for rank in self.distributor.order
                      if gathered[rank] is not None]
        values = _np.stack([_np.asarray(value) for value, _ in candidates])
        indices = _np.stack([_np.asarray(index) for _, index in candidates])
        best = _np.expand_dims(function(values, axis=0), 0)
        return _np.take_along_axis(indices, best, axis=0)[0]

    def _replicated_result(self, result):
        """A result every process holds whole: a number for no dimensions,
        else a replicated ('not') object (as reductions along the first axis
        give)."""
        result = _np.asarray(result)
        if result.ndim == 0:
            return result[()]
        return self._from_local(_distribution("not", result.shape, self.comm), result)

    def argmin(self, axis=None):
        """numpy.argmin: the global flat index of the first minimum (axis=None,
        a number on every process), or the positions along `axis`."""
        return self._arg_extreme("argmin", axis)

    def argmax(self, axis=None):
        """numpy.argmax (see argmin)."""
        return self._arg_extreme("argmax", axis)

    def argmin_nonflat(self):
        """The index tuple of the first minimum (numpy.unravel_index of argmin())."""
        return _np.unravel_index(self.argmin(), self.shape)

    def argmax_nonflat(self):
        """The index tuple of the first maximum (numpy.unravel_index of argmax())."""
        return _np.unravel_index(self.argmax(), self.shape)

    def _nan_extreme(self, name, axis):
        """numpy's nanmin / nanmax (`name`): the extremes with NaNs skipped
        (NaN, with numpy's warning, only where a whole slice is NaN).  Along
        the other axes each process reduces its own rows; otherwise each
        process folds its block with fmin / fmax (which skip NaN without
        warning about a block that is all NaN) and one allgather combines
        the partial results."""
        if self.dtype.kind not in "fc":  # no NaN to skip: numpy's nanmin is amin
            return (self.amin if name == "nanmin" else self.amax)(axis=axis)
        function = getattr(_np, name)
        dist = self.distributor
        axes = _normalize_axes(axis, self.ndim)
        if self.size == 0:
            # numpy on an empty array of the global shape (no memory): the
            # same error everywhere, or an empty result.
            function(_np.empty(self.shape, self.dtype), axis=axes)
        if axes is not None and 0 not in axes:
            return self._from_local(_reduced_split(dist, axes),
                                    _np.asarray(function(self.data, axis=axes)))
        if dist.replicated or self.comm.size == 1:
            return self._replicated_result(function(self.data, axis=axes))
        skipping = _np.fmin if name == "nanmin" else _np.fmax
        mine = skipping.reduce(self.data, axis=axes) if self.data.size else None
        partials = [_np.asarray(p) for p in self.comm.allgather(mine) if p is not None]
        if not partials:  # an empty array whose result is empty too (shape (n, 0), axis=0)
            return self._replicated_result(function(_np.empty(self.shape, self.dtype), axis=axes))
        return self._replicated_result(function(_np.stack(partials), axis=0))

    def nanmin(self, axis=None, **kwargs):
        """numpy.nanmin: the minimum, NaNs skipped."""
        return self._nan_extreme("nanmin", axis)

    def nanmax(self, axis=None, **kwargs):
        """numpy.nanmax: the maximum, NaNs skipped."""
        return self._nan_extreme("nanmax", axis)

    def median(self, axis=None):
        """numpy.median.  axis=None gathers the whole array on every process
        (as d2o does: one Remap, and the memory of the whole array); along
        the other axes each process takes the medians of its own rows (the
        result keeps the split).  Along the first axis of a distributed
        object: NotImplementedError."""
        axes = _normalize_axes(axis, self.ndim)
        if axes is None:
            return _np.median(self.get_full_data())
        if 0 not in axes:
            if self.data.shape[0]:
                medians = _np.asarray(_np.median(self.data, axis=axes))
            else:
                # numpy.median of no rows over several axes fails to reshape:
                # the medians of one row of zeros, none of them kept.
                with _np.errstate(all="ignore"), _warnings.catch_warnings():
                    _warnings.simplefilter("ignore", RuntimeWarning)
                    row = _np.zeros((1,) + self.shape[1:], self.dtype)
                    medians = _np.asarray(_np.median(row, axis=axes))[:0]
            return self._from_local(_reduced_split(self.distributor, axes), medians)
        if self.distributor.replicated:
            return self._replicated_result(_np.median(self.data, axis=axes))
        raise NotImplementedError("d2o: median along the first axis of a distributed object "
                                  "(axis=None gathers the whole array; or copy it with "
                                  "distribution_strategy='not' first)")

    # -- element kinds ------------------------------------------------------------

    @property
    def real(self):
        """The real parts, a new object of this split and numpy's real
        dtype (a property, as in numpy and d2o; hermitian kept, as d2o)."""
        return self._from_local(self.distributor, _np.array(self.data.real), self.hermitian)

    @property
    def imag(self):
        """The imaginary parts (see real)."""
        return self._from_local(self.distributor, _np.array(self.data.imag), self.hermitian)

    def conjugate(self):
        return self._from_local(self.distributor, _np.conjugate(self.data), self.hermitian)

    conj = conjugate

    def _elementwise(self, function):
        """function(block) on every block: a new object of this split."""
        return self._from_local(self.distributor, _np.asarray(function(self.data)))

    def isreal(self):
        """numpy.isreal elementwise: a bool object of this split."""
        return self._elementwise(_np.isreal)

    def iscomplex(self):
        """numpy.iscomplex elementwise: a bool object of this split."""
        return self._elementwise(_np.iscomplex)

    def isnan(self):
        """numpy.isnan elementwise: a bool object of this split."""
        return self._elementwise(_np.isnan)

    def isinf(self):
        """numpy.isinf elementwise: a bool object of this split."""
        return self._elementwise(_np.isinf)

    def isfinite(self):
        """numpy.isfinite elementwise: a bool object of this split."""
        return self._elementwise(_np.isfinite)

    def nan_to_num(self):
        """numpy.nan_to_num: a copy with NaN as 0 and infinities as the
        largest finite values of the dtype."""
        return self._elementwise(_np.nan_to_num)

    def _flat_split(self):
        """The split of this array flattened in C order: each process keeps
        its elements ('equal' and 'fftw' rows become 'freeform' runs of
        their elements, in the same process order); 'not' stays replicated."""
        dist = self.distributor
        if dist.replicated:
            return _distribution("not", (self.size,), self.comm)
        row_items = int(_np.prod(self.shape[1:], dtype=_np.int64))
        return _split("freeform", (self.size,), self.comm,
                      [r * row_items for r in dist.rows], dist.order)

    def flatten(self, inplace=False):
        """The array as 1-D, in C order, split as this object ('equal' and
        'fftw' rows become their row elements; 'not' stays replicated)."""
        return self._from_local(self._flat_split(), self.data.reshape(-1).copy())

    # -- other methods of d2o ------------------------------------------------------

    def get_dim(self):
        """The number of elements (d2o's name for size)."""
        return self.size

    def _earlier_totals(self, total):
        """The sum of the `total`s (numpy arrays of one shape and dtype) of
        the processes whose rows come before this process's, zeros on the
        first: the exclusive prefix sum in row order (one allgather; the
        processes of a split with a negative step come in reverse rank
        order, which MPI's Exscan does not follow)."""
        gathered = self.comm.allgather(total)
        order = self.distributor.order
        earlier = [gathered[rank] for rank in order[:order.index(self.comm.rank)]]
        if not earlier:
            return _np.zeros_like(total)
        return _np.sum(_np.stack(earlier), axis=0, dtype=total.dtype)

    def cumsum(self, axis=None):
        """numpy.cumsum.  axis=None: over the flattened array in C order, a
        1-D object split as flatten() gives; along `axis`, an object of this
        split.  Each process sums its own block; flattened and along the
        first axis it then adds the totals of the processes before it (one
        allgather of one number, or of one row, per process).  The element
        type is numpy's (int64 for small integers and bool)."""
        if axis is not None and (isinstance(axis, bool) or
                                 not isinstance(axis, (_numbers.Integral, _np.integer))):
            raise TypeError("d2o: cumsum takes one axis (an integer) or None, not %r" % (axis,))
        dist = self.distributor
        single = dist.replicated or self.comm.size == 1
        if axis is None:
            sums = _np.cumsum(self.data.reshape(-1))
            if not single:
                total = sums[-1] if sums.size else _np.zeros((), sums.dtype)
                sums += self._earlier_totals(_np.asarray(total))
            return self._from_local(self._flat_split(), sums)
        along = _normalize_axes(axis, self.ndim)[0]
        sums = _np.cumsum(self.data, axis=along)
        if along == 0 and not single:
            total = sums[-1] if sums.shape[0] else _np.zeros(sums.shape[1:], sums.dtype)
            sums += self._earlier_totals(total)
        return self._from_local(dist, sums)

    def vdot(self, other):
        """numpy.vdot(obj, other): the sum of conj(obj) * other over every
        element, the same number on every process.  `other` is an object of
        this shape (any split: redistributed to this one, as operands of
        operators are) or a numpy array of the global shape (this process
        takes its rows).  numpy.vdot of the blocks, then one MPI_Allreduce."""
        if isinstance(other, distributed_data_object):
            block = self._operand(other)
        else:
            other = _np.asarray(other)

            def check():  # a numpy operand is the caller's, per process: agreed
                if other.shape != self.shape:
                    raise ValueError("d2o: vdot of arrays of shapes %s and %s"
                                     % (self.shape, other.shape))
            _agreed_checks(self.comm, "d2o.vdot", check)
            block = other[self.distributor.local_slice()]
        partial = _np.asarray(_np.vdot(self.data, block))
        if self.distributor.replicated or self.comm.size == 1:
            return partial[()]
        return _summed(self.comm, partial)[()]

    def bincount(self, weights=None, minlength=None):
        """numpy.bincount of the flattened array: the number of elements of
        each value 0, 1, ..., max (at least `minlength` values), or the sum
        of their `weights` (an object or numpy array of this shape), as a
        numpy array (int64, float64 with weights), the same on every
        process.  Integer dtypes only (TypeError otherwise, as d2o); a
        negative element raises ValueError on every process, as numpy.

        The processes agree on the length (one MPI_Allreduce of their
        largest and smallest elements), count their own blocks to that
        length (an empty block gives zeros), and add the counts (one
        MPI_Allreduce)."""
        if self.dtype.kind not in "iu":
            raise TypeError("d2o: bincount counts the elements of integer arrays, not %s"
                            % self.dtype.name)
        dist = self.distributor
        if weights is not None and not isinstance(weights, distributed_data_object):
            weights = _np.asarray(weights)

        def check():  # arguments given per process: agreed (one allreduce)
            length = None if minlength is None else _operator.index(minlength)
            if length is not None and length < 0:
                raise ValueError("'minlength' must not be negative")
            if weights is None:
                return length
            if not isinstance(weights, distributed_data_object) and weights.shape != self.shape:
                raise ValueError("d2o: bincount: weights of shape %s for an array of shape %s"
                                 % (weights.shape, self.shape))
            # numpy counts in float64: checked here, not by numpy, which
            # would object only where a block has elements.
            if not _np.can_cast(weights.dtype, _np.float64, "safe"):
                raise TypeError("Cannot cast array data from %r to dtype('float64') according "
                                "to the rule 'safe'" % weights.dtype)
            return length
        minlength = _agreed_checks(self.comm, "d2o.bincount", check)
        local_weights = None
        if weights is not None:
            block = self._operand(weights) if isinstance(weights, distributed_data_object) \
                else weights[dist.local_slice()]
            local_weights = block.reshape(-1)
        values = self.data.reshape(-1)
        largest = int(values.max()) if values.size else -1
        smallest = int(values.min()) if values.size else 0
        single = dist.replicated or self.comm.size == 1
        if not single:
            extremes = _np.array([largest, -smallest], dtype=_np.int64)
            self.comm.Allreduce(_MPI.IN_PLACE, extremes, op=_MPI.MAX)
            largest, smallest = int(extremes[0]), -int(extremes[1])
        if smallest < 0:
            raise ValueError("'list' argument must have no negative elements")
        length = max(largest + 1, minlength or 0)
        counts = _np.bincount(values.astype(_np.intp, copy=False), weights=local_weights,
                              minlength=length)
        if local_weights is not None and self.size:
            # numpy gives int64 for no elements even with weights: an empty
            # block must add float64 zeros all the same.
            counts = counts.astype(_np.float64, copy=False)
        if single:
            return counts
        self.comm.Allreduce(_MPI.IN_PLACE, counts, op=_MPI.SUM)
        return counts

    def unique(self):
        """numpy.unique: the sorted distinct elements, a numpy array on every
        process.  Each process takes its block's, one allgather brings them
        together (as small as the number of distinct values allows)."""
        mine = _np.unique(self.data)
        if self.distributor.replicated or self.comm.size == 1:
            return mine
        return _np.unique(_np.concatenate(self.comm.allgather(mine)))

    def where(self):
        """The global coordinates of the nonzero elements (numpy.nonzero, or
        numpy.where with one argument), in C order: a list (as d2o's; numpy
        gives a tuple) of 1-D int64 objects, one per axis.  Each process
        keeps the coordinates of its own elements, split as obj[mask] is
        (one allgather of the counts); 'not' stays replicated."""
        coordinates = list(_np.nonzero(self.data))
        coordinates[0] = coordinates[0] + self.distributor.start
        split = self._mask_split(coordinates[0].size)
        return [self._from_local(split, c) for c in coordinates]

    def equal(self, other):
        """Structural equality (d2o's): `other` is an object of the same
        shape, dtype and strategy whose blocks hold the same elements as
        this one's, process by process.  The same answer on every process
        (one allreduce when `other` is an object; no communication, False,
        when it is not)."""
        if not isinstance(other, distributed_data_object):
            return False
        mine = (self.shape == other.shape and self.dtype == other.dtype and
                self.distribution_strategy == other.distribution_strategy and
                self.data.shape == other.data.shape and _np.array_equal(self.data, other.data))
        if self.comm.size == 1:
            return bool(mine)
        return bool(self.comm.allreduce(bool(mine), op=_MPI.LAND))

    def apply_scalar_function(self, function, inplace=False, dtype=None):
        """function applied to every element: to the whole block at once, or,
        where it takes no arrays (TypeError, ValueError), element by element
        (numpy.vectorize).  The result goes into a new object of `dtype`
        (this object's by default) and split, or, `inplace`, into this
        object (its dtype kept: a `dtype` that differs warns, as d2o).
        hermitian is kept for numpy.exp and numpy.log only (d2o's rule).
        Local: no communication."""
        if inplace:
            target = self
            if dtype is not None and _np.dtype(dtype) != self.dtype:
                _warnings.warn("d2o: apply_scalar_function(inplace=True) keeps the dtype %s "
                               "(not %s)" % (self.dtype, _np.dtype(dtype)), RuntimeWarning,
                               stacklevel=2)
        else:
            target = self.copy_empty(dtype=dtype)
        if self.data.size:
            try:
                values = function(self.data)
            except (TypeError, ValueError):
                values = _np.vectorize(function)(self.data)
            target.data[...] = values
        keeps_symmetry = any(function is f for f in (_np.exp, _np.log))
        target.hermitian = self.hermitian and keeps_symmetry
        return target

    def apply_generator(self, generator, copy=False):
        """Sets this process's block to generator(local_shape) (an array of
        that shape; converted to the dtype); hermitian becomes False, as
        d2o.  Local: no communication."""
        self.set_local_data(generator(self.local_shape), copy=copy)
        self.hermitian = False

    # -- adlib arrays -------------------------------------------------------------

    def to_adlib(self, grid, specs):
        """This array as a new adlib DistArray of any layout adlib has
        (`grid` an adlib.ProcessGrid over this object's communicator, `specs`
        one RangeSpec per dimension: block-cyclic, cyclic, 2-D and 3-D grids,
        ghosts), for adlib's schedules (WriteHalo, Shift, Gather, ...): one
        adlib Remap from this object's split, planned once per layout and
        cached.  Ghost cells are left unset.  Element types of adlib.DTYPES,
        1 to 3 dimensions.  Collective."""
        self._check_adlib_type("to_adlib")
        array = _adlib_empty(grid, specs, self.dtype)
        block = _np.ascontiguousarray(self.data)
        if not block.flags.writeable:
            block = block.copy()
        _remap_with_array(self.distributor, block, array, to_array=True)
        return array

    def _check_adlib_type(self, call):
        if self.dtype.name not in _ADLIB_DTYPES or not 1 <= self.ndim <= 3:
            raise TypeError("d2o: %s moves arrays of %s with 1 to 3 dimensions, not %s of %d"
                            % (call, ", ".join(_ADLIB_DTYPES), self.dtype.name, self.ndim))

    # -- iteration ------------------------------------------------------------------

    #: Elements per broadcast when an object is iterated.
    _ITERATION_CHUNK = 4096

    def __iter__(self):
        """d2o's iteration: every element of the flattened array, in C order,
        on every process (numpy iterates over the first axis instead).

        Collective: every process runs the loop, in step, to the end (or
        leaves it at the same element): the process that holds the next
        elements broadcasts them, _ITERATION_CHUNK at a time.  A replicated
        object, or one process, iterates its block without messages."""
        if self.distributor.replicated or self.comm.size == 1:
            return iter(self.data.reshape(-1))
        return self._broadcast_chunks()

    def _broadcast_chunks(self):
        """The elements of every process's block, in row order, each chunk
        broadcast by its owner (raw bytes; pickled for object arrays)."""
        dist, comm = self.distributor, self.comm
        row_items = int(_np.prod(self.shape[1:], dtype=_np.int64))
        flat = _np.ascontiguousarray(self.data).reshape(-1)
        chunk_size = self._ITERATION_CHUNK
        for position, owner in enumerate(dist.order):
            count = dist.rows[position] * row_items
            mine = owner == comm.rank
            for begin in range(0, count, chunk_size):
                end = min(count, begin + chunk_size)
                if self.dtype.hasobject:
                    chunk = comm.bcast(flat[begin:end] if mine else None, root=owner)
                else:
                    chunk = flat[begin:end] if mine else _np.empty(end - begin, self.dtype)
                    comm.Bcast([chunk.view(_np.uint8), _MPI.BYTE], root=owner)
                yield from chunk


class _IndexPlan:
    """What a numpy key with index arrays selects from one split, worked out
    once: the IndexArrays (`selection`, `digest`); for a replicated split
    the key into the whole block (`whole_key`); otherwise the result's
    `split` and, per item, the position of the process holding it.  Items
    that visit the processes in order stay where they are (`stays`: a
    'freeform' split of the result, this process's items read by
    `stays_key` from its block, no messages); others are dealt evenly in
    rank order and fetched at the flat `subscripts` of this process's
    items.  `held` marks the items this process holds, `held_key` reads
    them from its block (what assigning numpy values writes)."""

    def __init__(self, selection, dist):
        self.selection = selection
        self.digest = selection.digest()
        arrays, rest = selection.arrays, selection.rest
        self.whole_key = tuple(arrays) + rest
        if dist.replicated:
            return
        comm, shape = dist.comm, selection.selected_shape
        owners = _np.searchsorted(_np.cumsum(dist.rows), arrays[0], side="right")
        self.stays = owners.size < 2 or not (owners[1:] < owners[:-1]).any()
        if self.stays:
            rows = _np.bincount(owners, minlength=comm.size).tolist()
            self.split = _split("freeform", shape, comm, rows, dist.order)
            self.stays_key = self._block_key(arrays, rest, dist, slice(self.split.start,
                                                                       self.split.stop))
        else:
            self.split = _split("equal", shape, comm, _equal_rows(shape[0], comm.size))
            self.subscripts = selection.subscripts(self.split.start, self.split.stop)
        self.held = owners == dist.position_of(comm.rank)
        self.held_key = self._block_key(arrays, rest, dist, self.held)

    @staticmethod
    def _block_key(arrays, rest, dist, items):
        """The numpy key of `items` (a slice or a boolean array over the
        selection's items, all held here) into this process's block."""
        picked = tuple(a[items] for a in arrays)
        return (picked[0] - dist.start,) + picked[1:] + rest


def from_adlib(array, distribution_strategy=None, comm=None):
    """A new distributed_data_object holding the global array of the adlib
    DistArray `array` (any layout: block-cyclic, 2-D grids, ghosts; its
    owned elements), split by `distribution_strategy` ('fftw' by default;
    not 'freeform') over `comm` (MPI.COMM_WORLD by default: the
    communicator of the array's grid): one adlib Remap, planned once per
    layout and cached.  Collective."""
    comm = _MPI.COMM_WORLD if comm is None else comm
    strategy = _strategy_name(distribution_strategy)
    if strategy == "freeform":
        raise ValueError("d2o: from_adlib makes objects of a global strategy, not 'freeform'")
    obj = distributed_data_object(global_shape=array.shape, dtype=array.dtype,
                                  distribution_strategy=strategy, comm=comm)
    obj._check_adlib_type("from_adlib")
    _remap_with_array(obj.distributor, obj.data, array, to_array=False)
    return obj


def _agreed_checks(comm, call, check):
    """check()'s result, its verdict agreed across the processes of `comm`:
    an error on one raises on every one (one small allreduce, none on one
    process).  For arguments each process passes for itself."""
    try:
        result = check()
    except (TypeError, ValueError, IndexError) as error:
        _agree(comm, call, error)
        raise
    _agree(comm, call)
    return result


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
    if comm.size == 1:
        return strategy, shape, kind, source  # nothing to agree on
    agreed_shape = shape[1:] if strategy == "freeform" else shape
    _agree(comm, "d2o.distributed_data_object(strategy=%s, shape=%s, dtype=%s)"
           % (strategy, agreed_shape, kind.name))
    return strategy, shape, kind, source


def _is_mask(key, ndim):
    """Is `key` a boolean mask of the whole array (an object of bools, or a
    numpy array of bools with every dimension; one with fewer dimensions
    stands for its nonzero indices, an index key)?"""
    if isinstance(key, distributed_data_object):
        return _np.dtype(key.dtype) == _np.bool_
    return isinstance(key, _np.ndarray) and key.dtype == _np.bool_ and key.ndim == ndim


def _has_object_entry(key):
    """Is `key`, or an entry of a tuple key, a distributed_data_object
    (other than a boolean mask of the whole array)?"""
    entries = key if isinstance(key, tuple) else (key,)
    return any(isinstance(k, distributed_data_object) for k in entries)


def _local_key_kind(key):
    """What kind of per-process key this is (processes must agree on it)."""
    return "object" if isinstance(key, distributed_data_object) else "numpy"


def _subscripts_digest(subscripts):
    """The cache key of one process's own subscripts."""
    return "own:" + _hashlib.blake2b(subscripts.tobytes(), digest_size=12).hexdigest()


def _digest_of_all(comm, digest):
    """One digest of every process's `digest` (collective: one allgather);
    what a schedule planned from keys that differ between processes is
    cached under."""
    if comm.size == 1:
        return digest
    joined = "|".join(comm.allgather(digest))
    return "all:" + _hashlib.blake2b(joined.encode(), digest_size=12).hexdigest()


def _key_digest(key):
    """A short fingerprint of a basic key or a numpy mask (for the
    agreement of checked mode)."""
    if isinstance(key, _np.ndarray):
        return "mask:" + _hashlib.blake2b(key.tobytes(), digest_size=12).hexdigest()
    if isinstance(key, distributed_data_object):
        return "object-mask%s" % (key.shape,)
    return repr(_hashable_key(key))


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


def _summed(comm, partial):
    """The sum over `comm` of `partial` (a numpy array of one shape and dtype
    everywhere): one MPI_Allreduce for the types MPI adds (a logical or for
    bool, numpy's sum of bools), an allgather and numpy's sum otherwise."""
    flat = _np.ascontiguousarray(partial).reshape(-1)
    if flat.dtype.char in "bhilqBHILQfdFD?":
        result = _np.empty_like(flat)
        comm.Allreduce(flat, result, op=_MPI.LOR if flat.dtype.char == "?" else _MPI.SUM)
    else:
        result = _np.sum(_np.stack(comm.allgather(flat)), axis=0, dtype=flat.dtype)
    return result.reshape(_np.shape(partial))


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
