# SPDX-License-Identifier: BSD-3-Clause
"""adlib.wrap: distributed arrays over numpy memory the script already has
(padded blocks and views included), no copy both ways; a block that does
not fit raises adlib.Error on every rank."""
import numpy as np
import pytest

import adlib
from mpi_check import comm, everywhere, fill_reference, local_matches, raises_everywhere, reference

P = comm.size


def block_count(n, parts, c):
    return (c + 1) * n // parts - c * n // parts


def test_wrap_a_padded_block_without_copying():
    n, m = 7, 5
    grid = adlib.ProcessGrid(comm, [P, 1])
    rows = block_count(n, P, comm.rank)
    storage = np.full((rows + 1, m + 3), -1.0)  # larger than the block: padding
    local = storage[:rows, :]                   # row pitch m + 3
    a = adlib.wrap(grid, [adlib.block(n), adlib.block(m)], local)
    assert everywhere(a.is_wrapped and np.shares_memory(a.local, storage))
    # Written through numpy, read by adlib.
    local[:, :m] = reference((n, m), np.float64, *a.global_index_grid())
    whole = adlib.full(a)
    assert everywhere(np.array_equal(whole, reference((n, m), np.float64,
                                                      *np.ix_(np.arange(n), np.arange(m)))))
    # Written by adlib, read through numpy: the padding is left alone.
    src = adlib.DistArray(grid, [adlib.cyclic(n), adlib.collapsed(m)])
    fill_reference(src, offset=10)
    adlib.remap(a, src)
    assert everywhere(local_matches(a, offset=10))
    assert everywhere(np.all(storage[:, m:] == -1.0) and np.all(storage[rows:, :] == -1.0))


@pytest.mark.parametrize("dtype", adlib.DTYPES)
def test_wrap_every_type_with_ghosts(dtype):
    n = 9
    grid = adlib.ProcessGrid(comm, [P])
    c = comm.rank
    local = np.zeros(block_count(n, P, c) + 2, dtype=dtype)  # one ghost each side
    u = adlib.wrap(grid, [adlib.block(n).ghosts(1).periodic()], local)
    fill_reference(u)
    adlib.write_halo(u)
    g = u.ghost_global_indices[0] % n
    assert everywhere(np.array_equal(local, reference((n,), dtype, g)))


def test_a_block_that_does_not_fit_fails_everywhere():
    n = 8
    grid = adlib.ProcessGrid(comm, [P])
    rows = block_count(n, P, comm.rank)
    short = np.zeros(rows - 1 if comm.rank == P - 1 else rows)  # the last rank's is too short
    ok, messages = raises_everywhere(lambda: adlib.wrap(grid, [adlib.block(n)], short),
                                     "DistArray::wrap", "rank %d" % (P - 1))
    assert ok, messages
    # A Fortran-order (transposed) block on rank 0: not C order, refused everywhere.
    f = np.zeros((3, 2)).T  # two rows of 3 per rank, column-major
    ok, messages = raises_everywhere(
        lambda: adlib.wrap(adlib.ProcessGrid(comm, [P, 1]),
                           [adlib.block(2 * P), adlib.collapsed(3)],
                           f if comm.rank == 0 else np.ascontiguousarray(f)),
        "DistArray::wrap", "C order")
    assert ok, messages
    # Read-only memory on one rank.
    ro = np.zeros(rows)
    if comm.rank == 0:
        ro.flags.writeable = False
    ok, messages = raises_everywhere(lambda: adlib.wrap(grid, [adlib.block(n)], ro), "read-only")
    assert ok, messages
    with pytest.raises(TypeError):
        adlib.wrap(grid, [adlib.block(n)], [0.0] * rows)  # not a numpy array: would be a copy


def test_an_array_of_another_arrays_layout_over_a_packed_block():
    # adlib.d2o's internal _over: the layout of `like`, the memory of `block`,
    # no communication; a block of other extents raises on this rank.
    n = 9
    grid = adlib.ProcessGrid(comm, [P])
    like = adlib.empty(grid, [adlib.block(n)])
    block = np.zeros(block_count(n, P, comm.rank))
    a = like._over(block)
    fill_reference(a)
    ok = np.shares_memory(a.local, block) and local_matches(a) and not np.shares_memory(
        block, like.local)
    whole = adlib.full(a)
    ok = ok and np.array_equal(whole, reference((n,), np.float64, np.arange(n)))
    try:
        like._over(np.zeros(block.size + 1))
        refused = False
    except adlib.Error as error:
        refused = "extent" in str(error)
    assert everywhere(ok and refused)
