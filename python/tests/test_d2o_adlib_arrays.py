# SPDX-License-Identifier: BSD-3-Clause
"""adlib.d2o objects to and from adlib arrays of any layout (block-cyclic,
cyclic, 2-D grids, ghosts), at every rank count: the global array survives
both ways, against numpy; the Remaps are planned once per layout."""
import numpy as np
import pytest

import adlib
import adlib.d2o as d2o
from adlib import _d2o_distribution
from d2o_fixtures import P, STRATEGIES_AND_LAYOUTS, global_array, make, raises_on_every_rank, same
from mpi_check import comm, everywhere


def layouts():
    """(grid, specs) of several adlib layouts of a (10, 7) array."""
    rows_first = adlib.ProcessGrid(comm, [P, 1])
    columns_first = adlib.ProcessGrid(comm, [1, P])
    line = adlib.ProcessGrid(comm, [P])
    square = adlib.ProcessGrid(comm, [2, P // 2]) if P % 2 == 0 else rows_first
    return [
        (rows_first, [adlib.block_cyclic(10, 3), adlib.block(7).ghosts(1)]),
        (columns_first, [adlib.collapsed(10), adlib.cyclic(7)]),
        (square, [adlib.block(10).ghosts(2), adlib.block_cyclic(7, 2)]),
        (line, [adlib.irregular_block([10] + [0] * (P - 1)), adlib.collapsed(7)]),
    ]


@pytest.mark.parametrize("strategy", STRATEGIES_AND_LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.complex128])
def test_to_and_from_adlib_arrays_of_any_layout(strategy, dtype):
    a = global_array((10, 7), dtype, 40)
    x = make(a, strategy)
    failures = []
    for number, (grid, specs) in enumerate(layouts()):
        array = x.to_adlib(grid, specs)
        if not same(adlib.full(array), a):
            failures.append((number, "to"))
        array.local[...] += 1  # adlib's side changes it ...
        for back in ["equal", "fftw", "not"]:
            y = d2o.from_adlib(array, distribution_strategy=back)  # ... and d2o sees it
            if y.distribution_strategy != back or not same(y.get_full_data(), a + 1):
                failures.append((number, "from", back))
    assert everywhere(not failures), failures


def test_remaps_with_adlib_layouts_are_planned_once():
    a = global_array((10, 7), np.float64, 41)
    x = make(a, "equal")
    grid, specs = layouts()[0]
    x.to_adlib(grid, specs)
    planned = len(_d2o_distribution._remaps)
    for _ in range(3):
        (x * 2).to_adlib(grid, specs)
    assert everywhere(len(_d2o_distribution._remaps) == planned)


def test_element_types_adlib_does_not_carry_raise_on_every_process():
    x = make(global_array((4, 3), np.int32, 42), "equal")
    grid = adlib.ProcessGrid(comm, [P])
    assert raises_on_every_rank(TypeError, lambda: x.to_adlib(grid, [adlib.block(4),
                                                                     adlib.collapsed(3)]),
                                "to_adlib")
    array = adlib.zeros(grid, [adlib.block(4)])
    assert raises_on_every_rank(ValueError,
                                lambda: d2o.from_adlib(array, distribution_strategy="freeform"),
                                "global strategy")
