# SPDX-License-Identifier: BSD-3-Clause
"""What the adlib.d2o tests share: the splits they run on, the global arrays
(the same on every process), objects of them by strategy, comparisons with
numpy and errors agreed across processes (not a test module: no tests)."""
import numpy as np

import adlib
import adlib.d2o as d2o
from adlib._d2o_distribution import equal_rows, fftw_rows
from mpi_check import comm, everywhere

P = comm.size
STRATEGIES = ["equal", "fftw", "not", "freeform"]
#: adlib layouts as strategies (arrays of 1 to 3 dimensions), see layout_of:
#: one that gives each element one owner, one that replicates elements
#: along a grid axis (from 2 processes on).
LAYOUTS = ["layout", "replicating-layout"]
#: What creation takes: d2o's strategies and adlib layouts.
STRATEGIES_AND_LAYOUTS = STRATEGIES + LAYOUTS
#: d2o's strategies, 'equal' rows seen through obj[::-1] (the processes in
#: reverse rank order) and adlib layouts.
SPLITS = STRATEGIES + ["reversed"] + LAYOUTS

# Layouts by (kind, shape): grids are collective to make, so made once.
_layouts = {}


def layout_of(shape, kind="layout"):
    """An adlib Layout for `shape` (1-3 dimensions).  'layout': 1-D
    block-cyclic over all processes but the last (which holds nothing);
    2-D block (with ghosts) x cyclic over a 2-D grid; 3-D block x collapsed
    x block-cyclic over a 2-D grid.  'replicating-layout': the first
    dimension block-cyclic over the first axis of a 2-D grid, the others
    collapsed, so each element is held along the second axis (2 processes
    at P = 2 and 4)."""
    shape = tuple(shape)
    if not 1 <= len(shape) <= 3:
        raise ValueError("adlib layouts hold arrays of 1 to 3 dimensions, not %s" % (shape,))
    found = _layouts.get((kind, shape))
    if found is not None:
        return found
    rows = {1: 1, 2: 1, 3: 3, 4: 2}.get(P, P)  # a 2-D grid: 1x1, 1x2, 3x1, 2x2
    grid_shape = [rows, P // rows]
    if kind == "replicating-layout":
        grid = adlib.ProcessGrid(comm, grid_shape)
        specs = [adlib.block_cyclic(shape[0], 2)] + [adlib.collapsed(n) for n in shape[1:]]
    elif len(shape) == 1:
        grid = adlib.ProcessGrid(comm, [max(1, P - 1)])
        specs = [adlib.block_cyclic(shape[0], 2)]
    elif len(shape) == 2:
        grid = adlib.ProcessGrid(comm, grid_shape)
        specs = [adlib.block(shape[0]).ghosts(1), adlib.cyclic(shape[1])]
    else:
        grid = adlib.ProcessGrid(comm, grid_shape)
        specs = [adlib.block(shape[0]), adlib.collapsed(shape[1]),
                 adlib.block_cyclic(shape[2], 2)]
    found = _layouts[(kind, shape)] = d2o.Layout(grid, specs)
    return found


def global_array(shape, dtype, seed=0):
    """The same array on every process, small values (exact sums)."""
    rng = np.random.default_rng(seed)
    values = rng.integers(-3, 4, size=shape)
    if np.dtype(dtype) == np.bool_:
        return values > 0
    if np.dtype(dtype).kind == "u":
        return (values + 3).astype(dtype)
    if np.dtype(dtype).kind == "c":
        return (values + 1j * rng.integers(-2, 3, size=shape)).astype(dtype)
    return values.astype(dtype)


def freeform_rows(n):
    """Uneven rows per process, the first process possibly without any."""
    weights = [(r * 7 + 3) % 4 for r in range(P)]
    total = sum(weights) or 1
    rows = [n * w // total for w in weights]
    rows[-1] += n - sum(rows)
    return rows


def make(a, split):
    """A distributed_data_object holding `a`, split by `split` (a strategy,
    'reversed' or a kind of layout, see layout_of)."""
    if split == "reversed":
        return d2o.distributed_data_object(a[::-1].copy(), distribution_strategy="equal")[::-1]
    if split in LAYOUTS:
        return d2o.distributed_data_object(a, distribution_strategy=layout_of(a.shape, split))
    if split == "freeform":
        rows = freeform_rows(a.shape[0])
        start = sum(rows[:comm.rank])
        return d2o.distributed_data_object(local_data=a[start:start + rows[comm.rank]],
                                           distribution_strategy="freeform")
    return d2o.distributed_data_object(a, distribution_strategy=split)


def full(value):
    """An object's whole array, anything else as numpy."""
    if isinstance(value, d2o.distributed_data_object):
        return value.get_full_data()
    return np.asarray(value)


def same(got, want, exact_dtype=False):
    """Equal shapes, element kinds (or dtypes) and values (close for
    floating point; NaN equal to NaN)."""
    got, want = full(got), np.asarray(want)
    if got.shape != want.shape or got.dtype.kind != want.dtype.kind:
        return False
    if exact_dtype and got.dtype != want.dtype:
        return False
    if want.dtype.kind in "fc":
        return np.allclose(got, want, equal_nan=True)
    return np.array_equal(got, want)


def raises_on_every_rank(kind, action, fragment=""):
    """True when `action` raised `kind` with `fragment` in its message on
    every rank (collective)."""
    try:
        action()
        message = None
    except kind as error:
        message = str(error)
    return everywhere(message is not None and fragment in message)


def local_block(a, obj):
    """What obj's block should hold of `a`, its global array: its rows, or
    for a layout the elements at its global indices."""
    dist = obj.distributor
    if dist.is_layout:
        return a[np.ix_(*dist.global_indices)]
    return a[dist.start:dist.stop]


def expected_rows(strategy, n):
    """The rows per process of `strategy` for n rows."""
    return {"equal": equal_rows(n, P), "fftw": fftw_rows(n, P), "not": [n] * P,
            "freeform": freeform_rows(n)}[strategy]
