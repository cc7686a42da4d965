# SPDX-License-Identifier: BSD-3-Clause
"""Remap, WriteHalo, Shift and the reductions from Python, checked against
numpy references computed from global indices; schedules built once and
executed many times."""
import itertools

import numpy as np
import pytest

import adlib
from mpi_check import comm, everywhere, fill_reference, local_matches, reference

P = comm.size


def kinds(n, parts):
    """One spec of each kind for an axis of `parts` processes."""
    sizes = [0] * parts
    for g in range(n):  # uneven, the last coordinate empty when parts > 1
        sizes[(g * 7) % max(parts - 1, 1)] += 1
    return [adlib.block(n), adlib.irregular_block(sizes), adlib.cyclic(n, 1 % parts),
            adlib.block_cyclic(n, 3), adlib.collapsed(n), adlib.block(n).ghosts(1)]


@pytest.mark.parametrize("src_kind,dst_kind", itertools.product(range(6), range(6)))
def test_remap_between_every_pair_of_kinds_2d(src_kind, dst_kind):
    grid = adlib.ProcessGrid.balanced(comm, 2)
    shape = (7, 5)
    rows, cols = grid.shape
    src = adlib.DistArray(grid, [kinds(7, rows)[src_kind], kinds(5, cols)[(src_kind + 1) % 6]])
    dst = adlib.DistArray(grid, [kinds(7, rows)[dst_kind], kinds(5, cols)[(dst_kind + 2) % 6]])
    plan = adlib.Remap(dst, src)
    for step in range(3):  # one plan, several executions with new values
        fill_reference(src, offset=step)
        dst.local[...] = -1
        plan.execute(dst, src)
        assert everywhere(local_matches(dst, offset=step)), (shape, step)


@pytest.mark.parametrize("dtype", adlib.DTYPES)
def test_remap_every_type_3d_and_reverse(dtype):
    grid = adlib.ProcessGrid.balanced(comm, 3)
    src = adlib.DistArray(grid, [adlib.block(4), adlib.cyclic(3), adlib.block(5)], dtype)
    dst = adlib.DistArray(grid, [adlib.collapsed(4), adlib.block(3), adlib.cyclic(5)], dtype)
    fill_reference(src)
    plan = adlib.Remap(dst, src)
    plan.start(dst, src)
    plan.finish()
    assert everywhere(local_matches(dst))
    # reverse: src[i] += dst[j] for every element copied i -> j.
    plan.reverse(src, dst)
    src_expected = 2 * reference(src.shape, dtype, *src.global_index_grid())
    assert everywhere(np.array_equal(src.local, np.broadcast_to(src_expected, src.local.shape)))


def wrapped_reference(a, shape, periodic, sentinel):
    """What .local_with_ghosts holds after a full halo exchange: the
    reference of the (wrapped) global index, the sentinel where a ghost lies
    outside a non-periodic domain."""
    grids = np.ix_(*a.ghost_global_indices)
    inside = np.ones(a.local_with_ghosts.shape, dtype=bool)
    wrapped = []
    for d, g in enumerate(grids):
        if periodic[d]:
            wrapped.append(g % shape[d])
        else:
            inside &= (g >= 0) & (g < shape[d])
            wrapped.append(np.clip(g, 0, shape[d] - 1))
    return np.where(inside, reference(shape, a.dtype, *wrapped), sentinel)


@pytest.mark.parametrize("periodic", [(True, True), (False, True), (False, False)])
def test_write_halo_full(periodic):
    grid = adlib.ProcessGrid.balanced(comm, 2)
    shape = (9, 6)
    specs = [adlib.block(9).ghosts(1).periodic(periodic[0]),
             adlib.block(6).ghosts(2, 1).periodic(periodic[1])]
    u = adlib.DistArray(grid, specs)
    halo = adlib.WriteHalo(u)
    for step in range(3):
        u.local_with_ghosts[...] = -7
        fill_reference(u, offset=0)
        halo.execute(u)
        assert everywhere(np.array_equal(u.local_with_ghosts,
                                         wrapped_reference(u, shape, periodic, -7)))


def test_write_halo_widths_boundaries_and_two_arrays():
    grid = adlib.ProcessGrid(comm, [P])
    u = adlib.DistArray(grid, [adlib.block(10).ghosts(2)])
    v = adlib.DistArray(grid, [adlib.block(10).ghosts(2)])
    halo = adlib.WriteHalo(u, low=[1], high=[2], boundaries=[adlib.Boundary.mirror])
    fill_reference(u)
    fill_reference(v, offset=50)
    for a in (u, v):
        a.local_with_ghosts[: a.owned_slices[0].start] = -1
        a.local_with_ghosts[a.owned_slices[0].stop:] = -1
    halo.execute(u, v)
    for a, offset in ((u, 0), (v, 50)):
        g = a.ghost_global_indices[0]
        lo, hi = a.owned_slices[0].start, a.owned_slices[0].stop
        expected = np.full(len(g), -1.0)
        for k, gk in enumerate(g):
            if lo <= k < hi or (k == lo - 1) or (hi <= k < hi + 2):
                m = -gk if gk < 0 else (2 * 9 - gk if gk > 9 else gk)  # mirror
                expected[k] = m + 1 + offset
        if not a.holds_data or hi == lo:
            expected = a.local_with_ghosts.copy()  # an empty block fills nothing
        assert everywhere(np.array_equal(a.local_with_ghosts, expected)), (a.local_with_ghosts,
                                                                           expected)


@pytest.mark.parametrize("mode", [adlib.ShiftMode.cyclic, adlib.ShiftMode.end_off])
@pytest.mark.parametrize("amount", [1, -3])
def test_shift(mode, amount):
    grid = adlib.ProcessGrid.balanced(comm, 2)
    shape = (5, 8)
    src = adlib.DistArray(grid, [adlib.block(5), adlib.cyclic(8)], "int64")
    dst = adlib.DistArray(grid, [adlib.block(5), adlib.cyclic(8)], "int64")
    fill_reference(src)
    step = adlib.Shift(dst, src, amount, 1, mode, fill=-5)
    step.execute(dst, src)
    i, j = dst.global_index_grid()
    source = j + amount
    expected = reference(shape, "int64", i, source % 8)
    if mode == adlib.ShiftMode.end_off:
        expected = np.where((source >= 0) & (source < 8), expected, -5)
    assert everywhere(np.array_equal(dst.local, np.broadcast_to(expected, dst.local.shape)))


@pytest.mark.parametrize("dtype", adlib.DTYPES)
def test_reductions(dtype):
    grid = adlib.ProcessGrid.balanced(comm, 2)
    shape = (6, 7)
    a = adlib.DistArray(grid, [adlib.block_cyclic(6, 2), adlib.block(7).ghosts(1)], dtype)
    b = adlib.DistArray(grid, [adlib.block_cyclic(6, 2), adlib.block(7).ghosts(1)], dtype)
    fill_reference(a)
    fill_reference(b, offset=3)
    full = reference(shape, dtype, *np.ix_(np.arange(6), np.arange(7)))
    other = reference(shape, dtype, *np.ix_(np.arange(6), np.arange(7)), offset=3)
    reduce = adlib.ArrayReduction(a)
    assert everywhere(reduce.sum(a) == full.sum() and adlib.sum(a) == full.sum())
    assert everywhere(np.isclose(reduce.dot(a, b), np.vdot(full, other)))
    if np.dtype(dtype).kind != "c":
        assert everywhere(adlib.maxval(a) == full.max() and adlib.minval(a) == full.min())
        value, where = reduce.maxloc(a)
        assert everywhere(value == full.max() and where == np.unravel_index(full.argmax(), shape))
        value, where = reduce.minloc(a)
        assert everywhere(value == full.min() and where == (0, 0))


def test_errors_are_raised_on_every_rank():
    from mpi_check import raises_everywhere
    grid = adlib.ProcessGrid(comm, [P])
    a = adlib.DistArray(grid, [adlib.block(8)])
    b = adlib.DistArray(grid, [adlib.block(9)])
    ok, messages = raises_everywhere(lambda: adlib.Remap(b, a), "Remap", "shape mismatch")
    assert ok, messages
    # A halo exchange that needs a periodic range, on a non-periodic one.
    u = adlib.DistArray(grid, [adlib.block(8).ghosts(1)])
    ok, messages = raises_everywhere(
        lambda: adlib.WriteHalo(u, [1], [1], [adlib.Boundary.cyclic]), "WriteHalo", "periodic")
    assert ok, messages
    # Block sizes that do not add up to the extent: a bad spec.
    ok, messages = raises_everywhere(
        lambda: adlib.DistArray(grid, [adlib.irregular_block([1] * (P + 1))]), "IrregularBlockRange")
    assert ok, messages
    # An execution with an array of another layout than the planned one.
    plan = adlib.Remap(a, a.__class__(grid, [adlib.cyclic(8)]))
    ok, messages = raises_everywhere(lambda: plan.execute(a, a), "Remap")
    assert ok, messages
    # Arrays of different element types: a TypeError before any communication.
    c = adlib.DistArray(grid, [adlib.block(8)], "float32")
    with pytest.raises(TypeError):
        adlib.Remap(c, a)
