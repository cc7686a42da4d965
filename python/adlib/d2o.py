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

Beyond d2o, any adlib layout is a strategy (`Layout(grid, specs)`, see
_d2o_layout).

`.data` is this process's block, a plain numpy array; operators and ufuncs
act on it locally, an operand of another distribution is redistributed by
an adlib Remap planned once per pair of distributions (cached), a numpy
operand of the global shape contributes its rows, scalars broadcast.  The
result of a binary operation has the left-hand d2o object's distribution
(d2o's rule).  Reductions fold each block with numpy and combine the
per-process results (one small allgather).

Collective arguments (global shape, dtype, strategy) are agreed: a call
whose arguments differ between processes raises the same exception on every
process instead of hanging.  See docs/d2o.md for what differs from d2o.

The class is made of parts, one concern per module: indexing
(_d2o_indexing: keys of every kind, with _d2o_selection for the keys that
reach other processes), reductions (_d2o_reductions), the splits and
redistribution (_d2o_distribution), the librarian (_d2o_librarian), what
they share (_d2o_common); construction, data access, operators, copies,
d2o's other methods and iteration are here."""
import math as _math
import numbers as _numbers
import operator as _operator
import warnings as _warnings

import numpy as _np
from mpi4py import MPI as _MPI

from ._d2o_distribution import STRATEGIES
from ._d2o_layout import Layout
from ._d2o_distribution import distribution as _distribution
from ._d2o_distribution import split as _split
from ._d2o_distribution import redistribute as _redistribute
from ._d2o_distribution import remap_with_array as _remap_with_array
from . import DTYPES as _ADLIB_DTYPES
from . import empty as _adlib_empty
from . import _adlib
from ._d2o_common import _agree, _agreed_checks, _is_scalar, _normalize_axes, _summed
from ._d2o_indexing import Indexing as _Indexing
from ._d2o_librarian import d2o_librarian
from ._d2o_reductions import Reductions as _Reductions

__all__ = ["distributed_data_object", "STRATEGIES", "Layout", "d2o_librarian", "from_adlib"]

# Gives each new object its index (bound once: every creation calls it).
_register = d2o_librarian.register
# An object over a block, fields and librarian index set (python/src/d2o_core.cpp).
_make = _adlib._d2o_make


#: The strategy used when none is given: d2o's default where FFTW is
#: installed (adlib computes FFTW's slab rule itself).
DEFAULT_STRATEGY = "fftw"


def _strategy_name(strategy):
    """A strategy's name (d2o's), or the Layout given."""
    if strategy is None:
        return DEFAULT_STRATEGY
    if isinstance(strategy, Layout):
        return strategy
    if strategy not in STRATEGIES["all"]:
        raise ValueError("distribution_strategy must be one of %s or an adlib.d2o.Layout, "
                         "not %r" % (", ".join(STRATEGIES["all"]), strategy))
    return strategy


class distributed_data_object(_Indexing, _Reductions):  # noqa: N801  (d2o's name)
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
            arguments = self._global_arguments(strategy, global_data, global_shape, dtype)
            if isinstance(strategy, Layout):
                _check_layout(strategy, arguments[1], comm)
            return arguments

        # What every process must agree on is in the operation's name.
        strategy, shape, kind, source = _check_and_agree(comm, check)
        if strategy == "freeform":
            self.distributor = _distribution(strategy, shape, comm, local_rows=source[0])
            data = source[1]
        else:
            self.distributor = _distribution(strategy, shape, comm)
            if self.distributor.is_layout:
                # Objects of an adlib Layout are of the subclass that runs
                # what d2o defines by rows on an 'equal' copy (set here, not
                # in a __new__ that every creation would pay for).
                self.__class__ = _LayoutObject
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
        return _np.array(dist.local_part(source), dtype=kind, copy=copy)

    @classmethod
    def _from_local(cls, distributor, data, hermitian=False):
        """An object over `data`, this process's block of `distributor`'s
        split (no checks, no communication: for results whose arguments the
        processes already agree on)."""
        # The compiled base makes it, as it makes its operators' results.
        return _make(_LayoutObject if distributor.is_layout else distributed_data_object,
                     distributor, data, hermitian)

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
        self.set_local_data(self.distributor.local_part(data), hermitian=hermitian, copy=copy)

    def __array__(self, dtype=None, copy=None):
        """numpy.asarray(obj): the whole array (collective)."""
        full = self.get_full_data()
        return full if dtype is None else full.astype(dtype)

    # copy() without arguments is the compiled base's (D2OCore): the block's
    # astype and a new object without Python code; with arguments, this.
    def _copy(self, dtype=None, distribution_strategy=None, **kwargs):
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

    def _in_rows(self):
        """This object, or for one of an adlib Layout an 'equal' copy: what
        code defined by rows works on."""
        return self

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


def _check_layout(layout, shape, comm):
    """Does an object of `shape` over `comm` fit the Layout (ValueError)?"""
    if shape != layout.shape:
        raise ValueError("d2o: an array of shape %s does not fit %r (shape %s)"
                         % (shape, layout, layout.shape))
    if not layout.fits(comm):
        raise ValueError("d2o: %r has a grid over another communicator than the object's"
                         % layout)


def _checked_shape(shape):
    """`shape` as a tuple of ints, at least one dimension, none negative."""
    shape = tuple(int(n) for n in shape)
    if not shape:
        raise ValueError("d2o: arrays have at least one dimension")
    if any(n < 0 for n in shape):
        raise ValueError("d2o: negative dimensions are not allowed: %s" % (shape,))
    return shape


def _comparison_operators():
    """The comparisons, as numpy ufuncs on the blocks.  (The arithmetic and
    bitwise operators, with their reflected and in-place forms, are the
    compiled base's slots: see _d2o_common.DistributedBase.)"""
    comparisons = {"eq": _np.equal, "ne": _np.not_equal, "lt": _np.less,
                   "le": _np.less_equal, "gt": _np.greater, "ge": _np.greater_equal}
    for name, ufunc in comparisons.items():
        def compare(self, other, ufunc=ufunc):
            return self._binary(ufunc, self, other)

        setattr(distributed_data_object, "__%s__" % name, compare)


_comparison_operators()
# The compiled operators and reductions take their fast paths for objects of
# this class (its subclasses go through _binary, _inplace and the
# reductions' Python methods) and register what they make with the librarian.
_adlib._d2o_configure(distributed_data_object, _np)

# Objects of an adlib Layout (imported last: the subclass needs the class above).
from ._d2o_layout_object import LayoutObject as _LayoutObject  # noqa: E402
