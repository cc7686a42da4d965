# SPDX-License-Identifier: BSD-3-Clause
"""What the parts of adlib.d2o's distributed_data_object share: the base
class every object is an instance of, the agreement of arguments across
processes, and small helpers of the reductions and checks."""
import numbers as _numbers
import os as _os

import numpy as _np
from mpi4py import MPI as _MPI

from . import _adlib
from ._d2o_distribution import grid_of as _grid_of


class DistributedBase(_adlib.D2OCore):
    """What every distributed_data_object is: the class the parts of its
    interface (indexing, reductions, d2o.py's own) derive from, so that each
    part tells objects from other operands without importing the others.
    Its compiled base holds the fields (distributor, data, dtype,
    hermitian, index) and runs the common operators and reductions
    (python/src/d2o_core.cpp)."""

    __slots__ = ()


def is_object(value):
    """Is `value` a distributed_data_object?"""
    return isinstance(value, DistributedBase)


#: Checked mode (ADLIB_CHECKED=1, as adlib's Configuration reads it): basic
#: keys and masks are agreed across processes on every use too.
_CHECKED = _os.environ.get("ADLIB_CHECKED", "").strip().lower() in ("1", "true", "on", "yes")


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


def _is_scalar(value):
    return _np.isscalar(value) or (isinstance(value, _np.ndarray) and value.ndim == 0)


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
