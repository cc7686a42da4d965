# SPDX-License-Identifier: BSD-3-Clause
"""adlib layouts as d2o strategies (d2o.Layout), at every rank count: what
each process holds (the owned elements at its global indices, processes
outside the grid holding nothing), operations that stay on the blocks,
what runs on an 'equal' copy, ghosts through to_adlib() and WriteHalo, and
bad layouts raising on every process.  The suites of test_d2o*.py run
every operation on layouts too (d2o_fixtures.LAYOUTS)."""
import numpy as np
import pytest

import adlib
import adlib.d2o as d2o
from adlib import _d2o_distribution
from d2o_fixtures import P, global_array, layout_of, raises_on_every_rank, same
from mpi_check import comm, everywhere


def two_by_two_ish():
    """A 2-D grid of every process (1x1, 1x2, 3x1, 2x2)."""
    rows = {3: 3, 4: 2}.get(P, 1)
    return adlib.ProcessGrid(comm, [rows, P // rows])


def test_blocks_are_the_owned_elements_at_the_global_indices():
    a = global_array((9, 6), np.float64, 60)
    grid = two_by_two_ish()
    layout = d2o.Layout(grid, [adlib.block_cyclic(9, 2), adlib.block(6).ghosts(1)])
    x = d2o.distributed_data_object(a, distribution_strategy=layout)
    reference = adlib.empty(grid, [adlib.block_cyclic(9, 2), adlib.block(6)])
    rows, columns = reference.global_indices
    ok = type(x).__name__ == "LayoutObject" and isinstance(x, d2o.distributed_data_object)
    ok &= x.distribution_strategy == layout and x.shape == (9, 6)
    ok &= np.array_equal(x.data, a[np.ix_(rows, columns)])  # ghosts are not in .data
    ok &= x.data.flags.c_contiguous and same(x, a)
    # A layout made alike is the same strategy (its Remaps are shared).
    ok &= d2o.Layout(grid, [adlib.block_cyclic(9, 2), adlib.block(6).ghosts(1)]) == layout
    ok &= d2o.Layout(grid, [adlib.block_cyclic(9, 3), adlib.block(6).ghosts(1)]) != layout
    assert everywhere(ok)


def test_processes_outside_the_grid_hold_nothing_and_take_part():
    a = global_array((7,), np.int64, 61)
    grid = adlib.ProcessGrid(comm, [max(1, P - 1)])  # the last process is outside from P = 2
    x = d2o.distributed_data_object(a, distribution_strategy=d2o.Layout(grid, [adlib.cyclic(7)]))
    outside = P > 1 and comm.rank == P - 1
    ok = x.data.shape == ((0,) if outside else x.data.shape)
    ok &= same(x + x, 2 * a) and x.sum() == a.sum() and same(x[::-1], a[::-1])
    ok &= same(x.copy(distribution_strategy="equal"), a)
    assert everywhere(ok)


def test_elementwise_operations_and_full_reductions_stay_on_the_blocks():
    a = global_array((8, 5), np.float64, 62)
    layout = layout_of(a.shape)
    x = d2o.distributed_data_object(a, distribution_strategy=layout)
    planned = len(_d2o_distribution._remaps)
    y = np.sqrt(abs(x * 2 + a)) - x  # objects, numpy of the global shape, ufuncs
    total, biggest = y.sum(), y.max()
    x += 1
    variance = x.var()
    # No Remap was planned for any of it: the blocks line up.
    ok = len(_d2o_distribution._remaps) == planned
    want = np.sqrt(abs(a * 2 + a)) - a
    ok &= y.distribution_strategy == layout and same(y, want)
    ok &= np.isclose(total, want.sum()) and np.isclose(biggest, want.max())
    ok &= np.isclose(variance, a.var()) and same(x, a + 1)
    assert everywhere(ok)


def test_row_defined_methods_run_on_an_equal_copy_and_come_back():
    a = global_array((6, 4), np.float64, 63)
    layout = layout_of(a.shape)
    x = d2o.distributed_data_object(a, distribution_strategy=layout)
    want = a.copy()
    x[1:4, ::-2] = -7.0  # an assignment writes back into the layout
    want[1:4, ::-2] = -7.0
    summed = x.cumsum(axis=1)  # same shape: back in the layout
    column_sums = x.sum(axis=0)  # another shape: the copy's split
    ok = x.distribution_strategy == layout and same(x, want)
    ok &= summed.distribution_strategy == layout and same(summed, np.cumsum(want, axis=1))
    ok &= same(column_sums, want.sum(axis=0))
    ok &= same(x[[5, 0, 2]], want[[5, 0, 2]]) and x.argmax() == np.argmax(want)
    ok &= list(x) == list(want.reshape(-1))
    assert everywhere(ok)


@pytest.mark.parametrize("kind", ["layout", "replicating-layout"])
def test_single_elements_come_from_their_holder_without_a_copy(kind):
    a = global_array((7, 5), np.float64, 68)
    x = d2o.distributed_data_object(a, distribution_strategy=layout_of(a.shape, kind))
    planned = len(_d2o_distribution._remaps)
    got = [x[i, j] for i, j in [(0, 0), (6, 4), (-1, -5), (3, 2)]] + [x.get_data((2, -1))]
    x[3, 2] = 100.0  # every process holding it writes it (several, when replicated)
    x.set_data(np.float64(-5.0), (-1, 0))
    ok = len(_d2o_distribution._remaps) == planned  # no 'equal' copy was made
    ok &= got == [a[0, 0], a[6, 4], a[-1, -5], a[3, 2], a[2, -1]]
    want = a.copy()
    want[3, 2], want[-1, 0] = 100.0, -5.0
    ok &= same(x, want)
    assert everywhere(ok)
    assert raises_on_every_rank(IndexError, lambda: x[7, 0], "out of bounds")
    assert raises_on_every_rank(IndexError, lambda: x[0, -6], "out of bounds")
    # A value numpy cannot convert raises on every process, not only on holders.
    assert raises_on_every_rank(ValueError, lambda: x.__setitem__((0, 0), "a"), "convert")
    assert raises_on_every_rank(ValueError, lambda: x.__setitem__((0, 0), np.ones(2)), "element")


def test_to_adlib_gives_the_layout_with_ghosts_for_write_halo():
    n, m = 8, 6
    a = global_array((n, m), np.float64, 64)
    grid = two_by_two_ish()
    specs = [adlib.block(n).ghosts(1).periodic(), adlib.block(m).ghosts(1).periodic()]
    x = d2o.distributed_data_object(a, distribution_strategy=d2o.Layout(grid, specs))
    u = x.to_adlib()
    adlib.WriteHalo(u).execute(u)
    rows, columns = u.ghost_global_indices
    want = a[np.ix_(rows % n, columns % m)]  # periodic ghosts wrap around
    ok = np.array_equal(u.local, x.data) and np.array_equal(u.local_with_ghosts, want)
    back = d2o.from_adlib(u, distribution_strategy=x.distribution_strategy)
    ok &= back.distribution_strategy == x.distribution_strategy and same(back, a)
    assert everywhere(ok)


def test_three_dimensional_layouts():
    a = global_array((5, 4, 6), np.complex128, 65)
    grid = two_by_two_ish()
    layout = d2o.Layout(grid, [adlib.cyclic(5), adlib.collapsed(4), adlib.block(6).ghosts(2)])
    x = d2o.distributed_data_object(a, distribution_strategy=layout)
    y = d2o.distributed_data_object(a, distribution_strategy="fftw")
    ok = same(x * y, a * a) and same(y * x, a * a) and np.isclose(x.vdot(y), np.vdot(a, a))
    ok &= same(x.sum(axis=(0, 2)), a.sum(axis=(0, 2))) and same(x[2, :, 1:4], a[2, :, 1:4])
    assert everywhere(ok)


def test_bad_layouts_raise_on_every_process():
    grid = adlib.ProcessGrid(comm, [P])
    layout = d2o.Layout(grid, [adlib.block(6)])
    assert raises_on_every_rank(
        ValueError, lambda: d2o.distributed_data_object(global_shape=(7,),
                                                        distribution_strategy=layout),
        "does not fit")
    assert raises_on_every_rank(
        ValueError, lambda: d2o.distributed_data_object(np.zeros((6, 2)),
                                                        distribution_strategy=layout),
        "does not fit")
    assert raises_on_every_rank(
        ValueError, lambda: d2o.distributed_data_object(global_shape=(6,),
                                                        distribution_strategy="slabs"),
        "Layout")
    assert raises_on_every_rank(
        adlib.Error, lambda: d2o.Layout(grid, [adlib.block_cyclic(6, 2).ghosts(1)]), "ghost")
    tiles = d2o.distributed_data_object(global_array((5, 4), np.float64, 67),
                                        distribution_strategy=layout_of((5, 4)))
    for operand in [np.ones(3), np.ones((2, 4)), np.ones((2, 5, 4))]:
        assert raises_on_every_rank(ValueError, lambda: tiles + operand, "broadcast")
    if P > 1:
        last = comm.rank == P - 1
        differing = d2o.Layout(grid, [adlib.cyclic(6) if last else adlib.block(6)])
        assert raises_on_every_rank(
            ValueError, lambda: d2o.distributed_data_object(global_shape=(6,),
                                                            distribution_strategy=differing),
            "differ")
        from mpi4py import MPI
        alone = d2o.Layout(adlib.ProcessGrid(MPI.COMM_SELF, [1]), [adlib.block(6)])
        assert raises_on_every_rank(
            ValueError, lambda: d2o.distributed_data_object(global_shape=(6,),
                                                            distribution_strategy=alone),
            "communicator")


@pytest.mark.parametrize("dtype", [np.bool_, np.int32, np.float16, np.uint8])
def test_element_types_adlib_does_not_carry_travel_as_others(dtype):
    a = global_array((7, 3), dtype, 66)
    x = d2o.distributed_data_object(a, distribution_strategy=layout_of(a.shape))
    y = d2o.distributed_data_object(a, distribution_strategy="equal")
    ok = same(x, a) and same(x == y, a == a) and same(x[::2], a[::2])
    assert everywhere(ok)
