# SPDX-License-Identifier: BSD-3-Clause
"""adlib: distributed arrays and communication schedules over MPI.

    from mpi4py import MPI
    import adlib

    grid = adlib.ProcessGrid(MPI.COMM_WORLD, [2, 2])
    u = adlib.DistArray(grid, [adlib.block(64).ghosts(1), adlib.block(64).ghosts(1)])
    i, j = u.global_index_grid()
    u.local[...] = i * 64 + j           # numpy over adlib's memory, no copy
    halo = adlib.WriteHalo(u)           # plan once (collective) ...
    halo.execute(u)                     # ... execute many times

mpi4py is imported first: it initialises MPI, and the compiled module then
initialises Kokkos (finalised at exit, before mpi4py finalises MPI).
Errors are adlib.Error (a RuntimeError) carrying adlib's message, raised on
every rank for bad collective arguments.
"""
from mpi4py import MPI as _MPI  # initialises MPI before _adlib loads
import numpy as _np

from . import _adlib
from ._adlib import (  # noqa: F401
    Boundary,
    DistArrayBase,
    Error,
    Group,
    ProcessGrid,
    RangeSpec,
    ShiftMode,
    Stencil,
    block,
    block_cyclic,
    collapsed,
    cyclic,
    irregular_block,
)

__version__ = _adlib.__version__

#: The element types arrays can hold (numpy dtype names).
DTYPES = ("float64", "float32", "int64", "complex128")


def DistArray(grid, specs, dtype=_np.float64):
    """A new distributed array over `grid` (a ProcessGrid or Group), one
    RangeSpec per dimension (1 to 3), elements of `dtype` (see DTYPES).
    Collective over the grid's communicator.  The elements are not set."""
    name = _np.dtype(dtype).name
    if name not in DTYPES:
        raise TypeError("adlib arrays hold %s, not %s" % (", ".join(DTYPES), name))
    specs = list(specs)
    if not 1 <= len(specs) <= 3:
        raise Error("adlib: DistArray: the Python module makes arrays of rank 1 to 3, not %d"
                    % len(specs))
    cls = getattr(_adlib, "DistArray_%s_%dd" % (name, len(specs)))
    return cls(grid, specs)


def wrap(grid, specs, local):
    """A distributed array over memory this process already has: `local` is
    this rank's block as a writable numpy array (C order, padding allowed:
    extents and strides at least the layout's local block, e.g. a view into
    a larger array), no copy; the array keeps `local` alive.  Collective: a
    block that does not fit the layout on any rank raises adlib.Error on
    every rank.  Ranks that hold no data pass an empty array of the same
    rank and element type."""
    name = local.dtype.name if isinstance(local, _np.ndarray) else None
    if name not in DTYPES:
        raise TypeError("adlib.wrap takes a numpy array of %s, not %r" % (", ".join(DTYPES),
                                                                         type(local).__name__))
    specs = list(specs)
    if not 1 <= len(specs) <= 3:
        raise Error("adlib: DistArray::wrap: the Python module makes arrays of rank 1 to 3, "
                    "not %d" % len(specs))
    return getattr(_adlib, "DistArray_%s_%dd" % (name, len(specs)))(grid, specs, local)


def from_distarray(producer, comm=None):
    """A DistArray over the memory of any Distributed Array Protocol
    producer (no copy): `producer` is an object with __distarray__() or the
    dict it returns ('__version__', 'buffer', 'dim_data'), its buffer a
    writable PEP-3118 buffer of float64, float32, int64 or complex128 with 1
    to 3 dimensions.  Collective over `comm` (an mpi4py communicator,
    MPI.COMM_WORLD by default), whose rank r is the process at position r of
    the DAP's process grid in C order.  The array keeps the buffer alive;
    writing through it writes the producer's memory.  A dict that breaks a
    rule of the protocol on any rank raises adlib.Error on every rank."""
    return _adlib._from_distarray(producer, _MPI.COMM_WORLD if comm is None else comm)


def _global_index_grid(self):
    """Global indices of .local as open grids (numpy.ix_), for expressions
    such as `a.local[...] = i * n + j`."""
    return _np.ix_(*self.global_indices)


DistArrayBase.global_index_grid = _global_index_grid


def _schedule_class(kind, *arrays):
    for a in arrays:
        if not isinstance(a, DistArrayBase):
            raise TypeError("%s takes adlib arrays, not %s" % (kind, type(a).__name__))
    first = type(arrays[0])
    for a in arrays[1:]:
        if type(a) is not first:
            raise TypeError("%s needs arrays of one element type and rank (%s and %s)"
                            % (kind, first.__name__, type(a).__name__))
    return getattr(first, "_" + kind)


def Remap(dst, src):
    """Plans dst = src between arrays of the same shape and any distributions
    (collective); .execute(dst, src) as many times as needed."""
    return _schedule_class("Remap", dst, src)(dst, src)


def WriteHalo(array, low=None, high=None, boundaries=None, stencil=Stencil.box):
    """Plans the ghost-cell exchange of `array` (collective): every ghost
    cell, cyclic where the ranges are periodic, or per dimension `low` and
    `high` widths and a Boundary; .execute(array) many times."""
    cls = _schedule_class("WriteHalo", array)
    if low is None and high is None and boundaries is None:
        return cls(array)
    return cls(array, low, high, boundaries, stencil)


def Shift(dst, src, amount, dim, mode=ShiftMode.cyclic, fill=0):
    """Plans dst[..., i, ...] = src[..., i + amount, ...] along `dim`
    (collective); .execute(dst, src) many times."""
    return _schedule_class("Shift", dst, src)(dst, src, amount, dim, mode, fill)


def ArrayReduction(like):
    """Whole-array reductions (sum, product, dot, maxval, minval, maxloc,
    minloc) planned for arrays of `like`'s layout (collective)."""
    return _schedule_class("ArrayReduction", like)(like)


def remap(dst, src):
    """One-shot dst = src: plans, executes and drops a Remap."""
    Remap(dst, src).execute(dst, src)


def write_halo(array):
    """One-shot ghost-cell exchange of every ghost cell of `array`."""
    WriteHalo(array).execute(array)


def shift(dst, src, amount, dim, mode=ShiftMode.cyclic, fill=0):
    """One-shot shift (see Shift)."""
    Shift(dst, src, amount, dim, mode, fill).execute(dst, src)


def full(array):
    """The whole array as a numpy array on every process of its group (d2o's
    get_full_data): a remap into a collapsed copy.  Collective; for checks
    and output of small arrays only."""
    whole = DistArray(array.group, [collapsed(n) for n in array.shape], array.dtype)
    remap(whole, array)
    return whole.local.copy()


def sum(array):  # noqa: A001  (adlib.sum, as Fortran's SUM)
    """The sum of the elements, the same on every rank."""
    return ArrayReduction(array).sum(array)


def maxval(array):
    """The largest element, the same on every rank."""
    return ArrayReduction(array).maxval(array)


def minval(array):
    """The smallest element, the same on every rank."""
    return ArrayReduction(array).minval(array)


def dot(a, b):
    """sum(conj(a) * b) over arrays of one layout."""
    return ArrayReduction(a).dot(a, b)


__all__ = [
    "ArrayReduction", "Boundary", "DTYPES", "DistArray", "DistArrayBase", "Error", "Group",
    "ProcessGrid", "RangeSpec", "Remap", "Shift", "ShiftMode", "Stencil", "WriteHalo", "block",
    "block_cyclic", "collapsed", "cyclic", "dot", "from_distarray", "full", "irregular_block",
    "maxval", "minval", "remap", "shift", "sum", "wrap", "write_halo",
]
