# SPDX-License-Identifier: BSD-3-Clause
"""How a d2o object's global array is split over the processes (d2o's
distributors), and the adlib layout of that split.

d2o's strategies slice the first axis or replicate:

- 'equal': rows dealt as evenly as possible, the first `n % P` processes one
  row more (d2o's rule);
- 'fftw': FFTW's slab rule, blocks of ceil(n / P) rows, the last processes
  possibly with fewer or none (computed here, FFTW is not needed);
- 'freeform': each process brings its own rows (its local shape);
- 'not': every process holds the whole array.

A Distribution is immutable and shared by every object of the same global
shape and split (d2o shares its distributors the same way), so the adlib
layout it describes, and the Remap schedules between layouts, are built
once per split rather than once per object."""
import math as _math

import numpy as _np

from . import DTYPES, Remap, _adlib, empty  # the package's checked Remap and arrays
from ._d2o_layout import Layout, LayoutDistribution

#: d2o's names for its strategies, by family.
STRATEGIES = {
    "all": ["not", "equal", "fftw", "freeform"],
    "global": ["not", "equal", "fftw"],
    "local": ["freeform"],
    "slicing": ["equal", "fftw", "freeform"],
    "not": ["not"],
    "hdf5": ["equal", "fftw", "not"],
}


def equal_rows(n, size):
    """d2o's 'equal' split of n rows over `size` processes."""
    base, extras = divmod(n, size)
    return [base + (1 if r < extras else 0) for r in range(size)]


def fftw_rows(n, size):
    """FFTW's slab split (fftw_mpi_local_size's default block): blocks of
    ceil(n / size) rows, in rank order."""
    block = -(-n // size) if n else 0
    return [max(0, min(block, n - r * block)) for r in range(size)]


class Distribution:
    """The split of one global shape over one communicator: per position, a
    number of first-axis rows (the whole first axis for 'not'), the
    positions held by the processes `order` names (rank order unless given:
    a slice with a negative step keeps each process's rows where they are,
    so its result lists the processes in reverse)."""

    is_layout = False  # see _d2o_layout.LayoutDistribution

    def __init__(self, strategy, global_shape, comm, rows, order=None):
        self.strategy = strategy
        self.global_shape = tuple(int(n) for n in global_shape)
        self.comm = comm
        self.rows = tuple(rows)  # per position
        self.order = tuple(range(comm.size)) if order is None else tuple(order)
        self._position = {rank: position for position, rank in enumerate(self.order)}
        self.start, self.stop = self.rows_of(comm.rank)
        self.local_shape = (self.stop - self.start,) + self.global_shape[1:]
        #: Are all the elements on this process (replicated, or one process)?
        #: A reduction of every element then needs no message.
        self.whole_here = strategy == "not" or comm.size == 1
        self._layout = None
        self._flat_layout = None
        self._templates = {}  # adlib arrays of the layouts, by (flat, dtype): see adlib_array
        self.selections = {}  # what index keys select (adlib.d2o's cache)

    @property
    def replicated(self):
        """Does every process hold the whole array?"""
        return self.strategy == "not"

    def key(self):
        """What two distributions that split alike share (the cache key of
        layouts and Remaps); the strategy's name is not part of it: 'equal'
        and 'fftw' splits that happen to coincide share schedules."""
        return (self.replicated, self.global_shape, self.rows, self.order)

    def same_split(self, other):
        return self.comm is other.comm and self.key() == other.key()

    def local_slice(self):
        """The rows of the global array this process holds."""
        return slice(self.start, self.stop)

    def local_part(self, values):
        """This process's rows of `values`, numpy of the global shape."""
        return values[self.start:self.stop]

    def position_of(self, rank):
        """Where process `rank`'s rows come in the split (rank order unless
        the split lists the processes otherwise)."""
        return self._position[rank]

    def rows_of(self, rank):
        """The rows process `rank` holds: (start, stop)."""
        if self.replicated:
            return 0, self.global_shape[0]
        position = self._position[rank]
        start = sum(self.rows[:position])
        return start, start + self.rows[position]

    def adlib_layout(self):
        """(grid, specs): the adlib layout of this split, a 1-D grid over the
        communicator, the first dimension in irregular blocks of the rows
        (collapsed, so replicated, for 'not'), the others whole."""
        if self._layout is None:
            grid = _grid_of(self.comm, self.order)
            first = (_adlib.collapsed(self.global_shape[0]) if self.replicated
                     else _adlib.irregular_block(list(self.rows)))
            specs = [first] + [_adlib.collapsed(n) for n in self.global_shape[1:]]
            self._layout = (grid, specs)
        return self._layout

    def adlib_array(self, block, flat=False):
        """An adlib array of this split's layout (flattened with `flat`) over
        `block`, this process's C-contiguous writable block, no copy and no
        communication: the first call per element type allocates an array
        of the layout once (collective; its elements unset, its pages never
        touched), whose layout every later block reuses.  adlib.wrap would
        agree on every block (allreduces costing several times the Remap
        or Gather that follows); d2o's blocks fit its layouts by
        construction."""
        key = (flat, block.dtype)  # dtypes hash fast; their .name takes a microsecond
        template = self._templates.get(key)
        if template is None:
            grid, specs = self.flat_adlib_layout() if flat else self.adlib_layout()
            template = empty(grid, specs, block.dtype)
            self._templates[key] = template
        return template._over(block)

    def flat_adlib_layout(self):
        """(grid, specs): the adlib layout of the flattened array (C order),
        1-D, each process holding its rows' elements: what redistribution
        (a Remap between two such layouts moves rows, whatever the rank of
        the array) and index keys (Gather, Scatter) address."""
        if self._flat_layout is None:
            grid = _grid_of(self.comm, self.order)
            row_items = 1
            for n in self.global_shape[1:]:
                row_items *= n
            size = self.global_shape[0] * row_items
            spec = (_adlib.collapsed(size) if self.replicated
                    else _adlib.irregular_block([r * row_items for r in self.rows]))
            self._flat_layout = (grid, [spec])
        return self._flat_layout


# 1-D process grids per communicator and process order, kept for the
# communicator's life (building one is collective).
_grids = {}


def _grid_of(comm, order=None):
    in_rank_order = order is None or tuple(order) == tuple(range(comm.size))
    key = (id(comm), None if in_rank_order else tuple(order))
    grid = _grids.get(key)
    if grid is None or grid[0] is not comm:
        made = (_adlib.ProcessGrid(comm, [comm.size]) if in_rank_order
                else _adlib.ProcessGrid(comm, [comm.size], list(order)))
        grid = (comm, made)
        _grids[key] = grid
    return grid[1]


def grid_of(comm):
    """The 1-D adlib process grid over `comm` (built once per communicator)."""
    return _grid_of(comm)


# Distributions by (strategy, shape, rows, order, communicator), and for the
# global strategies also by (strategy, shape, communicator): objects of one
# split share one, and with it its layout and schedules.
_distributions = {}


def distribution(strategy, global_shape, comm, local_rows=None):
    """The Distribution of `global_shape` over `comm` by `strategy`; for
    'freeform', `local_rows` is this process's first-axis length and the
    global first axis is their sum (collective: one allgather); a Layout
    splits as it says (collective at its first use: one allreduce)."""
    if isinstance(strategy, Layout):
        return _layout_distribution(strategy, comm)
    if strategy != "freeform":
        # Objects are created in loops: the split of a strategy and shape is
        # looked up before its rows are dealt again.
        found = _distributions.get((strategy, tuple(global_shape), id(comm)))
        if found is not None and found.comm is comm:
            return found
    size = comm.size
    shape = tuple(global_shape)
    if strategy != "freeform":
        shape = tuple(int(n) for n in shape)
    if strategy == "equal":
        rows = equal_rows(shape[0], size)
    elif strategy == "fftw":
        rows = fftw_rows(shape[0], size)
    elif strategy == "not":
        rows = (shape[0],) * size
    elif strategy == "freeform":
        rows = comm.allgather(int(local_rows))
        shape = (sum(rows),) + tuple(int(n) for n in shape[1:])
    else:
        raise ValueError("distribution_strategy must be one of %s, not %r"
                         % (", ".join(STRATEGIES["all"]), strategy))
    found = split(strategy, shape, comm, rows)
    if strategy != "freeform":
        _distributions[(strategy, shape, id(comm))] = found  # a second name for it
    return found


def _layout_distribution(layout, comm):
    """The LayoutDistribution of `layout` over `comm`, made once."""
    key = ("layout", layout.description, id(comm))
    found = _distributions.get(key)
    if found is None or found.comm is not comm:
        found = _distributions[key] = LayoutDistribution(layout, comm)
    return found


#: How many splits and Remaps are kept (the oldest are dropped beyond it).
_CACHE_LIMIT = 1024


def split(strategy, global_shape, comm, rows, order=None):
    """The Distribution of `rows` rows per position, the positions held by
    the processes `order` names (rank order by default): one object per
    split, shared by every object and selection of that split, so that its
    adlib layout and its index selections are built once."""
    shape = tuple(int(n) for n in global_shape)
    rows = tuple(int(r) for r in rows)
    order = None if order is None or tuple(order) == tuple(range(comm.size)) else tuple(order)
    key = (strategy, shape, rows, order, id(comm))
    found = _distributions.get(key)
    if found is None or found.comm is not comm:
        if len(_distributions) >= _CACHE_LIMIT:
            _distributions.clear()
        found = Distribution(strategy, shape, comm, rows, order)
        _distributions[key] = found
    return found


# Remap schedules between two splits, by (destination key, source key,
# element type, grid), and between a split and an adlib array's layout (see
# remap_with_array): planned once, executed for every object.
_remaps = {}


def redistribute(dst_distribution, src_distribution, src_local, dtype):
    """This process's block of the destination split, filled from the
    source split's blocks (`src_local`, this process's, C order): one adlib
    Remap between the two flattened layouts (rows move whole, whatever the
    rank), or, where a split is an adlib Layout, between the two layouts
    themselves; element types adlib does not carry travel as one it does
    (element_carrier).  Collective over the communicator."""
    dtype = _np.dtype(dtype)
    carrier, by_view = element_carrier(dtype)
    flat = not (dst_distribution.is_layout or src_distribution.is_layout)
    carried = to_carrier(_np.asarray(src_local, dtype=dtype), carrier, by_view)
    carried = carried.reshape(-1) if flat else carried.reshape(src_distribution.local_shape)
    if not carried.flags.writeable:  # adlib wraps writable memory only
        carried = carried.copy()
    received = _np.empty(_math.prod(dst_distribution.local_shape) if flat
                         else dst_distribution.local_shape, carrier)
    key = (dst_distribution.key(), src_distribution.key(), carrier, flat,
           id(dst_distribution.comm))
    _execute_cached_remap(key, dst_distribution.adlib_array(received, flat=flat),
                          src_distribution.adlib_array(carried, flat=flat))
    return from_carrier(received, dtype, by_view).reshape(dst_distribution.local_shape)


def remap_with_array(dist, block, array, to_array):
    """One adlib Remap between this process's `block` of the split `dist`
    and the adlib DistArray `array` (any layout over the same communicator):
    into the array with `to_array`, else into the block.  Planned once per
    layout, split and element type (cached), collective."""
    # The array's grid is a new Python object at every access: it is known
    # by its ranks and its layout by adlib's description of it.
    key = ("adlib array", id(dist.comm), tuple(array.group.grid.ranks()), repr(array),
           dist.key(), block.dtype, to_array)
    mine = dist.adlib_array(block)
    dst, src = (array, mine) if to_array else (mine, array)
    _execute_cached_remap(key, dst, src)


def _execute_cached_remap(key, dst, src):
    """Executes the Remap filed under `key`, planned from dst and src at its
    first use (collective: every process files its Remaps alike)."""
    remap = _remaps.get(key)
    if remap is None:
        if len(_remaps) >= _CACHE_LIMIT:
            _remaps.clear()
        remap = Remap(dst, src)
        _remaps[key] = remap
    remap.execute(dst, src)


# -- element types adlib does not carry ------------------------------------------


def element_carrier(dtype):
    """(carrier dtype, by_view): how elements of `dtype` travel through
    adlib's schedules, which carry adlib.DTYPES: those as they are, other
    8-byte types bit for bit as int64 (a view), narrower integers and bool
    widened to int64 and float16 to float32 (exact conversions).  Other
    types (strings, objects) raise TypeError, as d2o moves numbers only."""
    found = _carriers.get(dtype)
    if found is None:  # dtype.name and the tests below cost microseconds: once per type
        found = _carriers[dtype] = _carrier_of(_np.dtype(dtype))
    return found


# (carrier, by_view) by element type.
_carriers = {}


def _carrier_of(dtype):
    """element_carrier without the memo."""
    if dtype.name in DTYPES:
        return dtype, True
    if dtype.itemsize == 8 and dtype.kind in "iucmM":
        return _np.dtype(_np.int64), True
    if dtype.kind in "biu":
        return _np.dtype(_np.int64), False
    if dtype == _np.float16:
        return _np.dtype(_np.float32), False
    raise TypeError("adlib.d2o moves elements of numeric types, not %s" % dtype.name)


def to_carrier(values, carrier, by_view):
    """`values` as a C-contiguous array of the carrier type."""
    values = _np.ascontiguousarray(values)
    return values.view(carrier) if by_view else values.astype(carrier)


def from_carrier(values, dtype, by_view):
    """Carried `values` as `dtype` again."""
    return values.view(dtype) if by_view else values.astype(dtype)
