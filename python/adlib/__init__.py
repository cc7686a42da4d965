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
import operator as _operator

from mpi4py import MPI as _MPI  # initialises MPI before _adlib loads
import numpy as _np

from . import _adlib
from ._adlib import (  # noqa: F401
    Boundary,
    Combine,
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
#: Arrays of bool are masks (ArrayGather, ArrayScatter, DimensionReduction)
#: and the results of any / all along a dimension: no schedules of their own.
MASK_DTYPE = "bool"


class _agreed:
    """The package's own argument checks of a collective call, agreed across
    ranks: `with _agreed("Remap", grid_or_arrays...):` around the checks (TypeError,
    ValueError, IndexError, adlib.Error raised on this rank) makes every
    rank raise the lowest failing rank's exception, of the same class and
    with the same message, instead of leaving the others waiting in the
    call.  One small allreduce over the communicator of the first
    ProcessGrid, Group or array among the candidates (MPI_COMM_WORLD when
    this rank was given none: pass the same kind of argument everywhere)."""

    _classes = {"TypeError": TypeError, "ValueError": ValueError, "IndexError": IndexError}

    def __init__(self, operation, *candidates):
        self._operation = "Python argument checks of adlib." + operation
        self._grid = None
        for c in candidates:
            if isinstance(c, ProcessGrid):
                self._grid = c
            elif isinstance(c, Group):
                self._grid = c.grid
            elif isinstance(c, DistArrayBase):
                self._grid = c.group.grid
            if self._grid is not None:
                break

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        checks = (TypeError, ValueError, IndexError, Error)
        if kind is not None and not issubclass(kind, checks):
            return False  # not an argument check (KeyboardInterrupt, ...)
        mine = ""
        if kind is not None:
            name = kind.__name__ if kind.__name__ in self._classes else "Error"
            mine = "%s|%s" % (name, value)
        agreed = _adlib._agree(self._grid, mine, self._operation)
        if not agreed:
            return False
        name, separator, message = agreed.partition("|")
        if not separator:  # the agreement itself failed: ranks in different collectives
            name, message = "Error", agreed
        raise self._classes.get(name, Error)(message) from None


def DistArray(grid, specs, dtype=_np.float64, fill=0):
    """A new distributed array over `grid` (a ProcessGrid or Group), one
    RangeSpec per dimension (1 to 3), elements of `dtype` (see DTYPES; bool
    for masks), every element (ghosts included) set to `fill`.  `fill=None`
    leaves the elements unset, as numpy.empty does (see empty()): write them
    before reading them.

    Cost: allocating this rank's block, plus one pass over it unless
    `fill=None` (at 2**22 float64 elements, about the time numpy.zeros takes
    to touch its pages; nothing with `fill=None`).  Collective over the
    grid's communicator: the checks of `dtype` and of the number of
    dimensions are agreed (one small allreduce; a mistake on one rank raises
    on every rank); the shapes are not (a shape that differs between ranks
    is caught by the first collective over the array, whose layout every
    rank agrees on), nor is `fill`, which is local data."""
    with _agreed("DistArray", grid):
        name = _np.dtype(dtype).name
        if name not in DTYPES + (MASK_DTYPE,):
            raise TypeError("adlib arrays hold %s, not %s" % (", ".join(DTYPES), name))
        specs = list(specs)
        if not 1 <= len(specs) <= 3:
            raise Error("adlib: DistArray: the Python module makes arrays of rank 1 to 3, not %d"
                        % len(specs))
        if fill is not None:
            fill = _np.asarray(fill)
            if fill.ndim != 0:
                raise TypeError("DistArray fill must be a scalar or None, not an array of shape %s"
                                % (fill.shape,))
    cls = getattr(_adlib, "DistArray_%s_%dd" % (name, len(specs)))
    if fill is not None and fill == 0:
        return cls(grid, specs)  # Kokkos sets T(): zero
    array = cls(grid, specs, initialize=False)
    if fill is not None:
        array.local_with_ghosts[...] = fill
    return array


def empty(grid, specs, dtype=_np.float64):
    """DistArray(grid, specs, dtype, fill=None): no pass over the block."""
    return DistArray(grid, specs, dtype, fill=None)


def zeros(grid, specs, dtype=_np.float64):
    """DistArray(grid, specs, dtype): every element 0."""
    return DistArray(grid, specs, dtype, fill=0)


def wrap(grid, specs, local):
    """A distributed array over memory this process already has: `local` is
    this rank's block as a writable numpy array (C order, padding allowed:
    extents and strides at least the layout's local block, e.g. a view into
    a larger array), no copy; the array keeps `local` alive.  Collective: a
    block that does not fit the layout on any rank raises adlib.Error on
    every rank.  Ranks that hold no data pass an empty array of the same
    rank and element type."""
    with _agreed("wrap", grid):
        name = local.dtype.name if isinstance(local, _np.ndarray) else None
        if name not in DTYPES + (MASK_DTYPE,):
            raise TypeError("adlib.wrap takes a numpy array of %s, not %r"
                            % (", ".join(DTYPES), name or type(local).__name__))
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
    rule of the protocol on any rank raises adlib.Error on every rank; a
    `comm` that is not a communicator raises TypeError on that rank alone
    (there is no communicator to agree over), so pass the same one, or
    none, everywhere."""
    return _adlib._from_distarray(producer, _MPI.COMM_WORLD if comm is None else comm)


def _global_index_grid(self):
    """Global indices of .local as open grids (numpy.ix_), for expressions
    such as `a.local[...] = i * n + j`."""
    return _np.ix_(*self.global_indices)


DistArrayBase.global_index_grid = _global_index_grid


def _describe_argument(value):
    """How an argument reads in a TypeError: its adlib or numpy type."""
    if isinstance(value, DistArrayBase):
        return "an adlib array of %s, rank %d" % (value.dtype, value.ndim)
    if isinstance(value, _np.ndarray):
        return "a numpy array of %s, shape %s" % (value.dtype, value.shape)
    return "%s (%s)" % (repr(value)[:40], type(value).__name__)


def _in_user_terms(kind, method, function):
    """`function` (a bound method of a compiled class), with pybind11's
    "incompatible function arguments" (which lists C++ signatures) replaced
    by a TypeError that says what the object takes and what it was given.
    Local: the arguments of a call on an object already built are not
    agreed (ADLIB_CHECKED=1 agrees on the arrays; see docs/python.md)."""
    def call(self, *args, **kwargs):
        try:
            return function(self, *args, **kwargs)
        except TypeError as error:
            if "incompatible function arguments" not in str(error):
                raise
            given = [_describe_argument(a) for a in args]
            given += ["%s=%s" % (k, _describe_argument(v)) for k, v in kwargs.items()]
            raise TypeError(
                "%s.%s: this %s was made for adlib arrays of %s; it was given %s"
                % (kind, method, kind, self._made_for, "; ".join(given) or "no arguments")
            ) from None
    call.__name__ = method
    call.__qualname__ = "%s.%s" % (kind, method)
    call.__doc__ = function.__doc__
    return call


def _translate_incompatible_arguments():
    """Every method of the compiled schedule, reduction and array classes
    (Remap_float64_2d, ...) raises TypeErrors in the user's terms."""
    import re
    pattern = re.compile(r"^([A-Za-z]+)_(%s)_(\d)d(?:_(\d)d)?$" % "|".join(DTYPES + (MASK_DTYPE,)))
    for name in dir(_adlib):
        match = pattern.match(name)
        if not match:
            continue
        kind, dtype, rank, source_rank = match.groups()
        cls = getattr(_adlib, name)
        made_for = "%s, rank %s" % (dtype, rank)
        if source_rank:
            made_for += " (the source: rank %s)" % source_rank
        cls._made_for = made_for
        for method in [m for m in vars(cls) if not m.startswith("_")]:
            function = getattr(cls, method)
            if type(function).__name__ == "instancemethod":
                setattr(cls, method, _in_user_terms(kind, method, function))


_translate_incompatible_arguments()


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
    with _agreed("Remap", dst, src):
        cls = _schedule_class("Remap", dst, src)
    return cls(dst, src)


def WriteHalo(array, low=None, high=None, boundaries=None, stencil=Stencil.box):
    """Plans the ghost-cell exchange of `array` (collective): every ghost
    cell, cyclic where the ranges are periodic, or per dimension `low` and
    `high` widths and a Boundary; .execute(array) many times."""
    with _agreed("WriteHalo", array):
        cls = _schedule_class("WriteHalo", array)
    if low is None and high is None and boundaries is None:
        return cls(array)
    return cls(array, low, high, boundaries, stencil)


def Shift(dst, src, amount, dim, mode=ShiftMode.cyclic, fill=0):
    """Plans dst[..., i, ...] = src[..., i + amount, ...] along `dim`
    (collective); .execute(dst, src) many times."""
    with _agreed("Shift", dst, src):
        cls = _schedule_class("Shift", dst, src)
    return cls(dst, src, amount, dim, mode, fill)


def ArrayReduction(like):
    """Whole-array reductions (sum, product, dot, maxval, minval, maxloc,
    minloc) planned for arrays of `like`'s layout (collective)."""
    with _agreed("ArrayReduction", like):
        cls = _schedule_class("ArrayReduction", like)
    return cls(like)


def _combine(combine):
    """adlib.Combine from an enumeration value or its name ("add", ...)."""
    if isinstance(combine, Combine):
        return combine
    if isinstance(combine, str) and combine in Combine.__members__:
        return Combine.__members__[combine]
    raise ValueError("combine must be one of %s (or adlib.Combine), not %r"
                     % (", ".join(Combine.__members__), combine))


def _subscript_list(subscripts):
    """This rank's subscripts as a C-order numpy int64 array (flattened)."""
    subscripts = _np.asarray(subscripts)
    if subscripts.size and subscripts.dtype.kind not in "iu":
        raise TypeError("subscripts are integers, not %s" % subscripts.dtype.name)
    return _np.ascontiguousarray(subscripts.ravel(), dtype=_np.int64)


def _vector_class(kind, array):
    if not isinstance(array, DistArrayBase):
        raise TypeError("%s takes an adlib array, not %s" % (kind, type(array).__name__))
    if array.ndim != 1:
        raise Error("adlib: %s: the vector form addresses 1-D arrays, not rank %d (the array "
                    "form: adlib.Array%s)" % (kind, array.ndim, kind))
    try:
        return getattr(_adlib, "%s_%s" % (kind, array.dtype.name))
    except AttributeError:
        raise TypeError("%s moves %s, not %s" % (kind, ", ".join(DTYPES), array.dtype.name))


def _array_form_class(kind, dst, src):
    for a in (dst, src):
        if not isinstance(a, DistArrayBase):
            raise TypeError("%s takes adlib arrays, not %s" % (kind, type(a).__name__))
    if dst.dtype != src.dtype or dst.dtype.name not in DTYPES:
        raise TypeError("%s needs arrays of one element type of %s (%s and %s)"
                        % (kind, ", ".join(DTYPES), dst.dtype.name, src.dtype.name))
    return getattr(_adlib, "%s_%s_%dd_%dd" % (kind, dst.dtype.name, dst.ndim, src.ndim))


def _subscript_arrays(subscripts):
    """A list of subscript arrays (a single array stands for a list of one)."""
    return [subscripts] if isinstance(subscripts, DistArrayBase) else list(subscripts)


def Gather(src, subscripts):
    """Plans out[k] = src[subscripts[k]] for this rank's own subscripts (a
    numpy int64 array or any sequence of integers, repeats allowed, possibly
    empty) from 1-D arrays of `src`'s layout (collective: a subscript out of
    range on any rank raises adlib.Error on every rank).
    .execute(src, out=None) many times returns the gathered numpy array."""
    with _agreed("Gather", src):
        cls, subscripts = _vector_class("Gather", src), _subscript_list(subscripts)
    return cls(src, subscripts)


def Scatter(dst, subscripts, combine=Combine.add):
    """Plans dst[subscripts[k]] = combine(dst[subscripts[k]], values[k]) for
    this rank's own subscripts into 1-D arrays of `dst`'s layout
    (collective); `combine` an adlib.Combine or its name: "add" (default),
    "replace", "min", "max", "product".  Repeated subscripts combine every
    value.  .execute(dst, values) many times."""
    with _agreed("Scatter", dst):
        cls, subscripts = _vector_class("Scatter", dst), _subscript_list(subscripts)
        combine = _combine(combine)
    return cls(dst, subscripts, combine)


def ArrayGather(dst, src, subscripts, mask=None):
    """Plans dst[i] = src[subscripts[0][i], ..., subscripts[R-1][i]] for every
    element i of dst where mask[i] is true (collective): `subscripts` holds
    one int64 DistArray per dimension of `src` (a single array for a 1-D
    src), each, and the optional bool mask, distributed like `dst`; any
    ranks (1 to 3) and distributions.  .execute(dst, src) many times."""
    with _agreed("ArrayGather", dst, src):
        cls = _array_form_class("ArrayGather", dst, src)
    return cls(dst, src, _subscript_arrays(subscripts), mask)


def ArrayScatter(dst, src, subscripts, mask=None, combine=Combine.add):
    """Plans dst[subscripts[0][i], ...] = combine(dst[...], src[i]) for every
    element i of src where mask[i] is true (collective): one int64 DistArray
    per dimension of `dst`, each, and the optional bool mask, distributed
    like `src`; `combine` as for Scatter.  .execute(dst, src) many times."""
    with _agreed("ArrayScatter", dst, src):
        cls = _array_form_class("ArrayScatter", dst, src)
        combine = _combine(combine)
    return cls(dst, src, _subscript_arrays(subscripts), mask, combine)


def gather(a, b, *args, **kwargs):
    """One-shot gather, two forms:
    gather(src, subscripts, out=None): the vector form, returns out;
    gather(dst, src, subscripts, mask=None): the array form, fills dst."""
    if isinstance(b, DistArrayBase):
        ArrayGather(a, b, *args, **kwargs).execute(a, b)
        return a
    return Gather(a, b).execute(a, *args, **kwargs)


def scatter(dst, b, *args, **kwargs):
    """One-shot scatter, two forms:
    scatter(dst, subscripts, values, combine="add"): the vector form;
    scatter(dst, src, subscripts, mask=None, combine="add"): the array form."""
    if isinstance(b, DistArrayBase):
        ArrayScatter(dst, b, *args, **kwargs).execute(dst, b)
    else:
        values, args = (args[0], args[1:]) if args else (kwargs.pop("values"), args)
        Scatter(dst, b, *args, **kwargs).execute(dst, values)


def DimensionReduction(source, dimension):
    """Plans reductions of arrays of `source`'s layout (rank 2 or 3) along
    `dimension` (collective): .sum, .product, .maxval, .minval, .maxloc,
    .minloc, .count (result, source, mask=None), .any, .all (result, source);
    .make_result(dtype=None) allocates a result (rank - 1, replicated over
    the dimension's process axis): the source's type, int64 (maxloc, minloc,
    count) or bool (any, all)."""
    with _agreed("DimensionReduction", source):
        if isinstance(source, DistArrayBase) and source.ndim == 1:
            raise Error("adlib: DimensionReduction: a reduction along a dimension of a rank-1 "
                        "array is a whole-array reduction (adlib.ArrayReduction)")
        cls = _schedule_class("DimensionReduction", source)
    return cls(source, dimension)


def _along(operation, result_dtype, a, dim, mask):
    """One-shot reduction along `dim`: plans, allocates the result, executes."""
    plan = DimensionReduction(a, dim)
    result = plan.make_result(result_dtype)
    getattr(plan, operation)(result, a, mask)
    return result


def sum_dim(a, dim, mask=None):
    """SUM(a, DIM=dim, MASK=mask): a new array of rank a.ndim - 1."""
    return _along("sum", None, a, dim, mask)


def product_dim(a, dim, mask=None):
    """PRODUCT(a, DIM=dim, MASK=mask)."""
    return _along("product", None, a, dim, mask)


def maxval_dim(a, dim, mask=None):
    """MAXVAL(a, DIM=dim, MASK=mask) (-inf or the lowest integer where nothing counts)."""
    return _along("maxval", None, a, dim, mask)


def minval_dim(a, dim, mask=None):
    """MINVAL(a, DIM=dim, MASK=mask) (+inf or the largest integer where nothing counts)."""
    return _along("minval", None, a, dim, mask)


def maxloc_dim(a, dim, mask=None):
    """MAXLOC(a, DIM=dim, MASK=mask): int64 positions along dim (0-based, the
    first on ties, -1 where nothing counts)."""
    return _along("maxloc", _np.int64, a, dim, mask)


def minloc_dim(a, dim, mask=None):
    """MINLOC(a, DIM=dim, MASK=mask) (see maxloc_dim)."""
    return _along("minloc", _np.int64, a, dim, mask)


def count_dim(a, dim, mask=None):
    """COUNT(a != 0, DIM=dim, MASK=mask) as int64."""
    return _along("count", _np.int64, a, dim, mask)


def any_dim(a, dim):
    """ANY(a != 0, DIM=dim) as bool."""
    return _along("any", _np.bool_, a, dim, None)


def all_dim(a, dim):
    """ALL(a != 0, DIM=dim) as bool."""
    return _along("all", _np.bool_, a, dim, None)


def _section(kind, shape, key):
    """Triplets (lo, hi, stride) and the numpy shape of the section of an
    array of `shape` that a numpy-style key (integers and slices) selects;
    integers drop their dimension from the shape, as numpy does."""
    key = key if isinstance(key, tuple) else (key,)
    if len(key) > len(shape):
        raise Error("adlib: %s: %d subscripts for an array of rank %d"
                    % (kind, len(key), len(shape)))
    key = key + (slice(None),) * (len(shape) - len(key))
    triplets, kept = [], []
    for d, (k, n) in enumerate(zip(key, shape)):
        if isinstance(k, slice):
            positions = range(*k.indices(n))
            if len(positions):
                triplets.append((positions.start, positions[-1], positions.step))
            else:
                triplets.append((0, -1, 1))
            kept.append(len(positions))
        else:
            i = _operator.index(k)
            if not -n <= i < n:
                raise Error("adlib: %s: index %d out of range in dimension %d of extent %d"
                            % (kind, i, d, n))
            i = i + n if i < 0 else i
            triplets.append((i, i, 1))
    return triplets, kept


def Broadcast(array, key=(), group=None):
    """Plans the broadcast of the section array[key] (integers and slices,
    numpy style; the whole array by default) from the process that holds it
    to every process of `group` (the array's group by default), collectively
    over the grid's communicator; a section held by several processes
    raises adlib.Error on every rank.  .execute(array) many times returns the
    section as a numpy array (integer subscripts drop their dimension; None
    outside the group); .value(array) the element of a one-element section."""
    with _agreed("Broadcast", array):
        cls = _schedule_class("Broadcast", array)
        triplets, shape = _section("Broadcast", array.shape, key)
    return cls(array, triplets, shape, group)


def broadcast(array, key=(), group=None):
    """One-shot broadcast of array[key] (see Broadcast)."""
    return Broadcast(array, key, group).execute(array)


def broadcast_value(array, *index):
    """The element array[index] (one integer per dimension) on every process
    of the array's group (collective)."""
    return Broadcast(array, tuple(index)).value(array)


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
    "ArrayGather", "ArrayReduction", "ArrayScatter", "Boundary", "Broadcast", "Combine", "DTYPES",
    "DimensionReduction", "DistArray", "DistArrayBase", "Error", "Gather", "Group", "MASK_DTYPE",
    "ProcessGrid", "RangeSpec", "Remap", "Scatter", "Shift", "ShiftMode", "Stencil", "WriteHalo",
    "all_dim", "any_dim", "block", "block_cyclic", "broadcast", "broadcast_value", "collapsed",
    "count_dim", "cyclic", "dot", "empty", "from_distarray", "full", "gather", "irregular_block",
    "maxloc_dim", "maxval", "maxval_dim", "minloc_dim", "minval", "minval_dim", "product_dim",
    "remap", "scatter", "shift", "sum", "sum_dim", "wrap", "write_halo", "zeros",
]
