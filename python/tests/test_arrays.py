# SPDX-License-Identifier: BSD-3-Clause
"""DistArray: every Range kind at ranks 1 to 3, every element type; .local
is adlib's memory (no copy) and stays valid while numpy holds it."""
import gc

import numpy as np
import pytest

import adlib
from mpi_check import comm, everywhere, fill_reference, local_matches, reference

P = comm.size


def spec_kinds(n):
    """One spec of every kind over an axis of P processes, extent n."""
    sizes = [(n * (c + 1)) // P - (n * c) // P for c in range(P)]
    sizes = sizes[1:] + sizes[:1] if P > 1 else sizes  # uneven, a zero-size block first if n < P
    return {
        "block": adlib.block(n),
        "block_ghosts": adlib.block(n).ghosts(2, 1),
        "irregular": adlib.irregular_block(sizes),
        "cyclic": adlib.cyclic(n, source=P - 1),
        "block_cyclic": adlib.block_cyclic(n, 2),
        "collapsed": adlib.collapsed(n),
    }


@pytest.mark.parametrize("n", [3, 5])
@pytest.mark.parametrize("dtype", adlib.DTYPES)
@pytest.mark.parametrize("kind", list(spec_kinds(5)))
def test_rank1_every_kind(dtype, kind, n):
    grid = adlib.ProcessGrid(comm, [P])
    a = adlib.DistArray(grid, [spec_kinds(n)[kind]], dtype=dtype)
    assert a.dtype == np.dtype(dtype) and a.ndim == 1 and a.shape == (n,)
    fill_reference(a)
    # Every global index is owned exactly once (collapsed: by every rank).
    owned = np.concatenate(comm.allgather(a.global_indices[0]))
    copies = P if kind == "collapsed" else 1
    assert everywhere(sorted(owned.tolist()) == sorted(list(range(n)) * copies))
    assert everywhere(local_matches(a))


@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_rank2_and_rank3(dtype):
    grid2 = adlib.ProcessGrid.balanced(comm, 2)
    a = adlib.DistArray(grid2, [adlib.block(7).ghosts(1), adlib.block_cyclic(9, 2)], dtype)
    fill_reference(a)
    assert everywhere(local_matches(a))
    grid3 = adlib.ProcessGrid.balanced(comm, 3)
    b = adlib.DistArray(grid3, [adlib.cyclic(3), adlib.collapsed(4), adlib.block(5).ghosts(1)],
                        dtype)
    fill_reference(b, offset=100)
    assert everywhere(local_matches(b, offset=100))
    # The owned block sits inside the ghosted allocation at owned_slices.
    assert everywhere(np.shares_memory(b.local, b.local_with_ghosts))
    assert everywhere(np.array_equal(b.local_with_ghosts[b.owned_slices], b.local))


def test_local_is_adlib_memory_not_a_copy():
    grid = adlib.ProcessGrid(comm, [P])
    a = adlib.DistArray(grid, [adlib.block(11)])
    first = a.local
    first[...] = 3.0
    # A second view sees the first one's writes: both are the same memory.
    assert everywhere(np.all(a.local == 3.0) and first.flags.writeable)
    assert everywhere(a.local.size == 0 or a.local.__array_interface__["data"][0] ==
                      first.__array_interface__["data"][0])
    # Writes through numpy reach adlib: a remap reads them.
    fill_reference(a)
    full = adlib.DistArray(grid, [adlib.collapsed(11)])
    adlib.remap(full, a)
    assert everywhere(np.array_equal(full.local, reference((11,), "float64", np.arange(11))))


def test_local_keeps_the_array_alive():
    grid = adlib.ProcessGrid(comm, [P])
    a = adlib.DistArray(grid, [adlib.block(1000)])
    fill_reference(a)
    view = a.local
    del a
    gc.collect()
    junk = [adlib.DistArray(grid, [adlib.block(1000)]) for _ in range(3)]
    for j in junk:
        j.local[...] = -1
    expected = reference((1000,), "float64", np.arange(1000))
    owned = np.concatenate(comm.allgather(view.copy()))
    assert everywhere(np.array_equal(owned, expected))


def test_ranks_outside_the_grid_hold_nothing():
    grid = adlib.ProcessGrid(comm, [1])  # rank 0 only
    a = adlib.DistArray(grid, [adlib.block(6).ghosts(1)])
    holds = comm.rank == 0
    assert everywhere(a.holds_data == holds)
    assert everywhere(a.local.shape == ((6,) if holds else (0,)))
    fill_reference(a)
    assert everywhere(local_matches(a))


def test_grid_over_a_rank_list():
    ranks = list(reversed(range(P)))
    grid = adlib.ProcessGrid(comm, [P], ranks)
    assert everywhere(grid.ranks() == ranks and grid.is_member)
    a = adlib.DistArray(grid, [adlib.block(2 * P + 1)])
    # Grid position 0 is the last rank: it owns the first block.
    assert everywhere(comm.rank != P - 1 or a.global_indices[0][0] == 0)


def test_group_restrict():
    grid = adlib.ProcessGrid(comm, [P, 1])
    row = grid.restrict(0, 0)
    a = adlib.DistArray(row, [adlib.block(4)])
    assert everywhere(a.holds_data == (comm.rank == 0))
    assert everywhere(row.size == 1 and row.contains(0))


def test_bad_element_type_and_rank():
    grid = adlib.ProcessGrid(comm, [P])
    with pytest.raises(TypeError):
        adlib.DistArray(grid, [adlib.block(4)], dtype=np.int8)
    with pytest.raises(adlib.Error):
        adlib.DistArray(grid, [adlib.block(4)] * 4)
