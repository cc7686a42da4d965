# SPDX-License-Identifier: BSD-3-Clause
"""adlib.d2o's reductions: sum, prod, amin, amax, all, any, mean, var,
std, argmin, argmax, with and without an axis; each block folded by numpy,
the partial results combined by one MPI_Allreduce where MPI reduces the
type, one allgather where NaN must propagate.  A part of
distributed_data_object (d2o.py)."""
import numbers as _numbers
import warnings as _warnings

import numpy as _np
from mpi4py import MPI as _MPI

from ._d2o_common import DistributedBase, _normalize_axes
from ._d2o_common import is_object as _is_object
from . import DTYPES as _ADLIB_DTYPES
from . import _adlib
from ._d2o_distribution import distribution as _distribution
from ._d2o_distribution import equal_rows as _equal_rows
from ._d2o_distribution import grid_of as _grid_of
from ._d2o_distribution import split as _split

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


class Reductions(DistributedBase):
    """The reductions of distributed_data_object."""

    __slots__ = ()

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

    # sum, amax (max) and amin (min) are the compiled base's (D2OCore,
    # python/src/d2o_core.cpp): over every element of a block that holds
    # them all, the block's numpy method without Python code; otherwise these.
    def _sum(self, axis=None, **kwargs):
        return self._fold("sum", _np.sum, axis, empty_value=0)

    def prod(self, axis=None, **kwargs):
        return self._fold("prod", _np.prod, axis, empty_value=1)

    def _amin(self, axis=None, **kwargs):
        return self._fold("amin", _np.amin, axis)

    def _amax(self, axis=None, **kwargs):
        return self._fold("amax", _np.amax, axis)

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
            block = mean.data if _is_object(mean) else _np.asarray(mean)
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
        result keeps the split); along the first axis alone one adlib Remap
        to whole columns, each process the medians of its columns (adlib's
        element types, 2 or 3 dimensions; otherwise, and with the first axis
        among others, the whole array is gathered as for axis=None)."""
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
        if axes == (0,) and self.ndim >= 2 and self.dtype.name in _ADLIB_DTYPES \
                and self.ndim <= 3:
            return self._median_of_columns()
        # Other axes with the first: the whole array, as axis=None.
        return self._replicated_result(_np.median(self.get_full_data(), axis=axes))

    def _median_of_columns(self):
        """median(axis=0): one adlib Remap to whole columns (the first axis
        collapsed, the second dealt as 'equal' deals rows), the medians of
        each process's columns; the result is split 'equal' along its first
        axis (the columns)."""
        comm = self.comm
        columns = _equal_rows(self.shape[1], comm.size)
        grid = _grid_of(comm)
        specs = ([_adlib.collapsed(self.shape[0]), _adlib.irregular_block(columns)] +
                 [_adlib.collapsed(n) for n in self.shape[2:]])
        whole_columns = self.to_adlib(grid, specs).local
        shape = self.shape[1:]
        if self.shape[0] == 0:  # numpy: NaN (with its warning) for no rows
            medians = _np.median(_np.empty((0,) + whole_columns.shape[1:], self.dtype), axis=0)
        else:
            medians = _np.median(whole_columns, axis=0)
        return self._from_local(_split("equal", shape, comm, columns), _np.asarray(medians))


def _reduced_split(dist, axes):
    """The split of the array left after reducing `axes` (not the first)."""
    shape = tuple(n for d, n in enumerate(dist.global_shape) if d not in axes)
    return _split(dist.strategy, shape, dist.comm, dist.rows, dist.order)
