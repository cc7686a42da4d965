# SPDX-License-Identifier: BSD-3-Clause
"""Gather and Scatter from Python, vector and array forms, checked against
numpy references computed from global indices: uneven sizes, a rank with no
subscripts, repeated subscripts, every combine operation, masks, schedules
executed on several arrays of one layout, and bad subscripts raising
adlib.Error on every rank."""
import itertools

import numpy as np
import pytest

import adlib
from mpi_check import comm, everywhere, fill_reference, raises_everywhere, reference

P = comm.size
N = 23  # not divisible by 2, 3 or 4


def line_specs(n):
    """1-D distributions over P processes: uneven blocks with the last one
    empty, cyclic, block-cyclic, block with ghosts, collapsed (replicated)."""
    sizes = [0] * P
    for g in range(n):
        sizes[(g * 7) % max(P - 1, 1)] += 1
    return [adlib.block(n), adlib.irregular_block(sizes), adlib.cyclic(n, 1 % P),
            adlib.block_cyclic(n, 3), adlib.block(n).ghosts(1), adlib.collapsed(n)]


def my_subscripts(n):
    """This rank's subscripts: repeats included, none at all on the last rank
    (when there are several)."""
    r = comm.rank
    if P > 1 and r == P - 1:
        return np.zeros(0, dtype=np.int64)
    subscripts = [(r * 7 + 5 * k) % n for k in range(r + 4)]
    return np.array(subscripts + subscripts[:2] + [n - 1, 0], dtype=np.int64)


def values_of(rank, count, dtype):
    """What `rank` scatters: small integers, so every sum and product is exact."""
    values = np.arange(count) % 3 + 1 + rank
    if np.dtype(dtype).kind == "c":
        return (values + 1j * (values % 2)).astype(dtype)
    return values.astype(dtype)


@pytest.mark.parametrize("dtype", adlib.DTYPES)
@pytest.mark.parametrize("kind", range(6))
def test_vector_gather_twice_on_two_arrays(dtype, kind):
    grid = adlib.ProcessGrid(comm, [P])
    x = adlib.DistArray(grid, [line_specs(N)[kind]], dtype)
    y = adlib.DistArray(grid, [line_specs(N)[kind]], dtype)
    wanted = my_subscripts(N)
    fetch = adlib.Gather(x, wanted)
    assert fetch.size == len(wanted)
    assert fetch.repeats >= (2 if len(wanted) else 0)
    fill_reference(x)
    fill_reference(y, offset=100)
    ok = np.array_equal(fetch.execute(x), reference((N,), dtype, wanted))
    out = np.full(len(wanted), -1, dtype=dtype)
    again = fetch.execute(y, out)  # another array of the same layout, into out
    ok = ok and again is out and np.array_equal(out, reference((N,), dtype, wanted, offset=100))
    assert everywhere(ok)
    # The one-shot form.
    assert everywhere(np.array_equal(adlib.gather(x, wanted), reference((N,), dtype, wanted)))


def combine_reference(start, combine, subscripts_and_values):
    """A serial scatter: every rank's contributions in rank order."""
    expected = start.copy()
    ufunc = {"add": np.add, "min": np.minimum, "max": np.maximum, "product": np.multiply}
    for subscripts, values in subscripts_and_values:
        if combine == "replace":
            expected[subscripts] = values  # numpy keeps the last of repeats, as adlib
        else:
            ufunc[combine].at(expected, subscripts, values)
    return expected


@pytest.mark.parametrize("dtype", adlib.DTYPES)
@pytest.mark.parametrize("combine", ["add", "min", "max", "product", "replace"])
@pytest.mark.parametrize("kind", [0, 1, 2, 5])
def test_vector_scatter_combines_repeats(dtype, combine, kind):
    if np.dtype(dtype).kind == "c" and combine in ("min", "max"):
        pytest.skip("complex numbers have no order")
    grid = adlib.ProcessGrid(comm, [P])
    x = adlib.DistArray(grid, [line_specs(N)[kind]], dtype)
    if combine == "replace":
        # Every rank its own elements (several ranks replacing one element
        # leave any of them), each listed twice: the later value stays.
        mine = np.arange(comm.rank, N, P, dtype=np.int64)[::-1]
        targets = np.concatenate([mine, mine])
    else:
        targets = my_subscripts(N)
    values = values_of(comm.rank, len(targets), dtype)
    plan = adlib.Scatter(x, targets, combine)
    assert plan.size == len(targets) and plan.combine == getattr(adlib.Combine, combine)
    everyone = comm.allgather((targets, values))
    for step in range(2):  # one plan, two executions
        fill_reference(x, offset=step)
        plan.execute(x, values)
        start = reference((N,), dtype, np.arange(N), offset=step)
        expected = combine_reference(start, combine, everyone)
        assert everywhere(np.array_equal(x.local, expected[x.global_indices[0]])), step
    # The one-shot form, with the enumeration instead of the name.
    fill_reference(x)
    adlib.scatter(x, targets, values, getattr(adlib.Combine, combine))
    expected = combine_reference(reference((N,), dtype, np.arange(N)), combine, everyone)
    assert everywhere(np.array_equal(x.local, expected[x.global_indices[0]]))


def test_vector_forms_refuse_bad_subscripts_on_every_rank():
    grid = adlib.ProcessGrid(comm, [P])
    x = adlib.DistArray(grid, [adlib.block(N)])
    # Only the last rank asks for an element past the end.
    bad = np.array([0, N if comm.rank == P - 1 else 1], dtype=np.int64)
    ok, messages = raises_everywhere(lambda: adlib.Gather(x, bad), "Gather", str(N))
    assert ok, messages
    ok, messages = raises_everywhere(lambda: adlib.Scatter(x, -bad, "max"), "Scatter")
    assert ok, messages
    # complex numbers have no min or max.
    z = adlib.DistArray(grid, [adlib.block(N)], np.complex128)
    ok, messages = raises_everywhere(lambda: adlib.Scatter(z, [0], "min"), "min")
    assert ok, messages
    # An output too short on one rank (every rank agrees in checked mode,
    # which the tests run in), and one of another type (a TypeError).
    fetch = adlib.Gather(x, [1, 2])
    short = np.zeros(1 if comm.rank == 0 else 2)
    ok, messages = raises_everywhere(lambda: fetch.execute(x, short), "Gather", "elements")
    assert ok, messages
    with pytest.raises(TypeError):
        fetch.execute(x, np.zeros(2, dtype=np.float32))
    # The schedules still work after the errors.
    fill_reference(x)
    assert everywhere(np.array_equal(adlib.gather(x, [N - 1]), [N]))


SRC_SHAPES = {1: (11,), 2: (7, 5), 3: (5, 3, 4)}
DST_SHAPES = {1: (13,), 2: (5, 6), 3: (3, 4, 2)}


def dst_specs(shape, parts):
    """Uneven: block, cyclic, irregular with an empty last part."""
    specs = []
    for d, (n, p) in enumerate(zip(shape, parts)):
        sizes = [0] * p
        for g in range(n):
            sizes[g % max(p - 1, 1)] += 1
        specs.append([adlib.block(n), adlib.cyclic(n), adlib.irregular_block(sizes)][d % 3])
    return specs


def src_specs(shape, parts):
    return [[adlib.cyclic(n), adlib.block(n), adlib.block_cyclic(n, 2)][d % 3]
            for d, n in enumerate(shape)]


def linear(shape, index_grid):
    """C-order position of every element of the open grids `index_grid`."""
    position = 0
    for g, n in zip(index_grid, shape):
        position = position * n + g
    return position


def subscripts_of(position, indexed_shape, d):
    """The subscript of dimension d that element `position` of the aligned
    array carries: repeats guaranteed once there are more positions than
    indexed elements."""
    return (position * 7 + 3 * d + 1) % indexed_shape[d]


def aligned_arrays(grid, specs, shape, indexed_shape, masked):
    """The subscript arrays (and the mask) distributed like `specs`."""
    subscripts = []
    for d in range(len(indexed_shape)):
        s = adlib.DistArray(grid, specs, np.int64)
        s.local[...] = subscripts_of(linear(shape, s.global_index_grid()), indexed_shape, d)
        subscripts.append(s)
    mask = None
    if masked:
        mask = adlib.DistArray(grid, specs, bool)
        mask.local[...] = linear(shape, mask.global_index_grid()) % 3 != 1
    return subscripts, mask


@pytest.mark.parametrize("dst_rank,src_rank", itertools.product([1, 2, 3], [1, 2, 3]))
@pytest.mark.parametrize("masked", [False, True])
def test_array_gather_every_pair_of_ranks(dst_rank, src_rank, masked):
    dtype = np.float64 if (dst_rank + src_rank) % 2 else np.int64
    dshape, sshape = DST_SHAPES[dst_rank], SRC_SHAPES[src_rank]
    dgrid = adlib.ProcessGrid.balanced(comm, dst_rank)
    sgrid = adlib.ProcessGrid.balanced(comm, src_rank)
    dspecs = dst_specs(dshape, dgrid.shape)
    src = adlib.DistArray(sgrid, src_specs(sshape, sgrid.shape), dtype)
    other = adlib.DistArray(sgrid, src_specs(sshape, sgrid.shape), dtype)
    dst = adlib.DistArray(dgrid, dspecs, dtype)
    subscripts, mask = aligned_arrays(dgrid, dspecs, dshape, sshape, masked)
    pick = adlib.ArrayGather(dst, src, subscripts, mask)
    position = linear(dshape, dst.global_index_grid())
    picked = tuple(subscripts_of(position, sshape, d) for d in range(src_rank))
    kept = np.ones(dst.local.shape, bool) if mask is None else mask.local
    for step, array in enumerate([src, other]):  # two sources of one layout
        fill_reference(array, offset=step)
        dst.local[...] = -1
        pick.execute(dst, array)
        expected = np.where(kept, reference(sshape, dtype, *picked, offset=step), -1)
        assert everywhere(np.array_equal(dst.local, expected)), step
    # One-shot.
    dst.local[...] = -1
    adlib.gather(dst, src, subscripts, mask=mask)
    assert everywhere(np.array_equal(dst.local, np.where(kept, reference(sshape, dtype, *picked),
                                                         -1)))


@pytest.mark.parametrize("dst_rank,src_rank", [(1, 1), (2, 1), (1, 2), (3, 2), (2, 3)])
@pytest.mark.parametrize("dtype", adlib.DTYPES)
@pytest.mark.parametrize("combine", ["add", "max", "product"])
def test_array_scatter_with_mask_combines_repeats(dst_rank, src_rank, dtype, combine):
    if np.dtype(dtype).kind == "c" and combine == "max":
        pytest.skip("complex numbers have no order")
    dshape, sshape = DST_SHAPES[dst_rank], SRC_SHAPES[src_rank]
    dgrid = adlib.ProcessGrid.balanced(comm, dst_rank)
    sgrid = adlib.ProcessGrid.balanced(comm, src_rank)
    sspecs = dst_specs(sshape, sgrid.shape)  # uneven, with empty blocks
    dst = adlib.DistArray(dgrid, src_specs(dshape, dgrid.shape), dtype)
    src = adlib.DistArray(sgrid, sspecs, dtype)
    subscripts, mask = aligned_arrays(sgrid, sspecs, sshape, dshape, True)
    plan = adlib.ArrayScatter(dst, src, subscripts, mask, combine=combine)
    # The serial reference: every source element, its targets and values
    # from its global index.
    everything = np.ix_(*[np.arange(n) for n in sshape])
    position = linear(sshape, everything)
    targets = tuple(np.broadcast_to(subscripts_of(position, dshape, d), sshape).ravel()
                    for d in range(dst_rank))
    counts = np.broadcast_to(position % 3 != 1, sshape).ravel()
    for step in range(2):
        src.local[...] = values_of(step, 1, dtype)[0] + linear(sshape, src.global_index_grid()) % 2
        fill_reference(dst)
        plan.execute(dst, src)
        values = (values_of(step, 1, dtype)[0] + position % 2).astype(dtype)
        values = np.broadcast_to(values, sshape).ravel()
        expected = reference(dshape, dtype, *np.ix_(*[np.arange(n) for n in dshape]))
        ufunc = {"add": np.add, "max": np.maximum, "product": np.multiply}[combine]
        ufunc.at(expected, tuple(t[counts] for t in targets), values[counts])
        assert everywhere(np.array_equal(dst.local, expected[np.ix_(*dst.global_indices)])), step


def test_array_forms_refuse_bad_subscripts_on_every_rank():
    grid = adlib.ProcessGrid(comm, [P])
    src = adlib.DistArray(grid, [adlib.block(N)])
    dst = adlib.DistArray(grid, [adlib.cyclic(N)])
    where = adlib.DistArray(grid, [adlib.cyclic(N)], np.int64)
    i = where.global_indices[0]
    where.local[...] = np.where(i == N - 1, N, i)  # one element (on one rank) out of range
    ok, messages = raises_everywhere(lambda: adlib.ArrayGather(dst, src, [where]),
                                     "ArrayGather", "outside")
    assert ok, messages
    ok, messages = raises_everywhere(lambda: adlib.scatter(src, dst, where), "ArrayScatter")
    assert ok, messages
    # A mask that is not distributed like the destination.
    where.local[...] = i
    mask = adlib.DistArray(grid, [adlib.block(N)], bool)
    mask.local[...] = True
    ok, messages = raises_everywhere(lambda: adlib.ArrayGather(dst, src, [where], mask),
                                     "ArrayGather")
    assert ok, messages
