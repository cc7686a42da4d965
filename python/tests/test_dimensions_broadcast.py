# SPDX-License-Identifier: BSD-3-Clause
"""Reductions along a dimension and Broadcast from Python, checked against
numpy references computed from global indices (uneven sizes, empty local
blocks, masks, schedules executed on several arrays of one layout, errors
on every rank)."""
import numpy as np
import pytest

import adlib
from mpi_check import comm, everywhere, fill_reference, raises_everywhere, reference

P = comm.size
SHAPE = (7, 5)
OPERATIONS = ["sum", "product", "maxval", "minval", "maxloc", "minloc", "count", "any", "all"]


def uneven(n, parts):
    """An irregular block whose last part is empty (when there are several)."""
    sizes = [0] * parts
    for g in range(n):
        sizes[g % max(parts - 1, 1)] += 1
    return adlib.irregular_block(sizes)


def whole(shape, dtype, offset=0):
    return reference(shape, dtype, *np.ix_(*[np.arange(n) for n in shape]), offset=offset)


def numpy_along(operation, values, axis, mask=None):
    """What adlib's reduction along `axis` gives, from numpy."""
    counts = np.ones(values.shape, bool) if mask is None else mask
    if operation == "sum":
        return np.sum(values, axis=axis, where=counts)
    if operation == "product":
        return np.prod(values, axis=axis, where=counts)
    if operation in ("maxval", "minval"):
        fill = -np.inf if operation == "maxval" else np.inf
        if values.dtype.kind == "i":
            info = np.iinfo(values.dtype)
            fill = info.min if operation == "maxval" else info.max
        reduce = np.max if operation == "maxval" else np.min
        return reduce(values, axis=axis, where=counts, initial=fill)
    if operation in ("maxloc", "minloc"):
        # Only the ordered types get here; masked-out elements never win.
        worst = -np.inf if operation == "maxloc" else np.inf
        pick = np.argmax if operation == "maxloc" else np.argmin
        found = pick(np.where(counts, values.astype(np.float64), worst), axis=axis)
        return np.where(np.any(counts, axis=axis), found, -1)
    if operation == "count":
        return np.sum((values != 0) & counts, axis=axis)
    if operation == "any":
        return np.any(values != 0, axis=axis)
    return np.all(values != 0, axis=axis)


def result_matches(result, expected):
    got = result.local
    want = expected[np.ix_(*result.global_indices)]
    if got.dtype.kind in "fc":
        return np.allclose(got, want, rtol=1e-5)
    return np.array_equal(got, want)


@pytest.mark.parametrize("dtype", adlib.DTYPES)
@pytest.mark.parametrize("dimension", [0, 1])
def test_every_operation_along_each_dimension_of_a_2d_array(dtype, dimension):
    grid = adlib.ProcessGrid.balanced(comm, 2)
    rows, cols = grid.shape
    specs = [uneven(SHAPE[0], rows), adlib.cyclic(SHAPE[1])]
    a = adlib.DistArray(grid, specs, dtype)
    b = adlib.DistArray(grid, specs, dtype)
    plan = adlib.DimensionReduction(a, dimension)
    assert plan.dimension == dimension
    ordered = np.dtype(dtype).kind != "c"
    for operation in OPERATIONS:
        if operation in ("maxval", "minval", "maxloc", "minloc") and not ordered:
            assert not hasattr(plan, operation)
            continue
        result_type = {"maxloc": np.int64, "minloc": np.int64, "count": np.int64,
                       "any": bool, "all": bool}.get(operation)
        result = plan.make_result(result_type)
        for step, source in enumerate([a, b]):  # one plan, two arrays of one layout
            fill_reference(source, offset=step)
            # zeros make any / all / count mean something
            source.local[(source.global_index_grid()[0] % 3 == 0) & (
                source.global_index_grid()[1] == 1)] = 0
            values = whole(SHAPE, dtype, offset=step)
            values[(np.arange(SHAPE[0])[:, None] % 3 == 0) & (np.arange(SHAPE[1]) == 1)] = 0
            getattr(plan, operation)(result, source)
            assert everywhere(result_matches(result, numpy_along(operation, values,
                                                                 dimension))), (operation, step)


@pytest.mark.parametrize("operation", ["sum", "count", "maxloc", "minval"])
def test_masked_reductions_and_one_shots(operation):
    grid = adlib.ProcessGrid.balanced(comm, 2)
    rows, cols = grid.shape
    specs = [adlib.block_cyclic(SHAPE[0], 2), uneven(SHAPE[1], cols)]
    a = adlib.DistArray(grid, specs)
    fill_reference(a)
    mask = adlib.DistArray(grid, specs, bool)
    i, j = mask.global_index_grid()
    mask.local[...] = (i * SHAPE[1] + j) % 3 != 0
    mask.local[...] &= j != 2  # column 2: nothing counts
    full_mask = np.ones(SHAPE, bool)
    full_mask[...] = (np.arange(SHAPE[0])[:, None] * SHAPE[1] + np.arange(SHAPE[1])) % 3 != 0
    full_mask[:, 2] = False
    one_shot = getattr(adlib, operation + "_dim")
    result = one_shot(a, 0, mask=mask)
    expected = numpy_along(operation, whole(SHAPE, np.float64), 0, full_mask)
    assert everywhere(result_matches(result, expected))
    result = one_shot(a, 1)
    assert everywhere(result_matches(result, numpy_along(operation, whole(SHAPE, np.float64), 1)))


def test_reductions_along_each_dimension_of_a_3d_array():
    shape = (5, 3, 4)
    grid = adlib.ProcessGrid.balanced(comm, 3)
    a = adlib.DistArray(grid, [uneven(5, grid.shape[0]), adlib.block(3), adlib.cyclic(4)],
                        np.int64)
    fill_reference(a)
    for dimension in range(3):
        assert everywhere(result_matches(adlib.sum_dim(a, dimension),
                                         whole(shape, np.int64).sum(axis=dimension)))
        assert everywhere(result_matches(adlib.any_dim(a, dimension),
                                         np.ones(np.delete(shape, dimension), bool)))


def test_dimension_reduction_errors():
    grid = adlib.ProcessGrid.balanced(comm, 2)
    a = adlib.DistArray(grid, [adlib.block(7), adlib.block(5)])
    ok, messages = raises_everywhere(lambda: adlib.DimensionReduction(a, 2), "dimension 2")
    assert ok, messages
    line = adlib.DistArray(adlib.ProcessGrid(comm, [P]), [adlib.block(7)])
    ok, messages = raises_everywhere(lambda: adlib.DimensionReduction(line, 0), "whole-array")
    assert ok, messages
    plan = adlib.DimensionReduction(a, 0)
    mask = adlib.DistArray(grid, [adlib.block(7), adlib.block(5)], bool)
    ok, messages = raises_everywhere(lambda: plan.any(plan.make_result(bool), a, mask), "mask")
    assert ok, messages


@pytest.mark.parametrize("dtype", adlib.DTYPES)
def test_broadcast_rows_and_elements(dtype):
    grid = adlib.ProcessGrid(comm, [P])
    n, m = 9, 6
    a = adlib.DistArray(grid, [uneven(n, P), adlib.collapsed(m)], dtype)
    b = adlib.DistArray(grid, [uneven(n, P), adlib.collapsed(m)], dtype)
    fill_reference(a)
    fill_reference(b, offset=10)
    expected_a, expected_b = whole((n, m), dtype), whole((n, m), dtype, offset=10)
    ok = True
    for i in range(n):  # every row has one owner
        row = adlib.Broadcast(a, i)
        ok = ok and np.array_equal(row.execute(a), expected_a[i])
        ok = ok and np.array_equal(row.execute(b), expected_b[i])  # same layout, other array
        backwards = adlib.broadcast(a, (i, slice(None, None, -2)))
        ok = ok and np.array_equal(backwards, expected_a[i, ::-2])
        ok = ok and adlib.broadcast_value(b, i, -1) == expected_b[i, -1]
    assert everywhere(ok)
    # A 3-D section with its own shape, and value() of a one-element section.
    c = adlib.DistArray(grid, [uneven(n, P), adlib.collapsed(m), adlib.collapsed(2)], dtype)
    fill_reference(c)
    block = adlib.broadcast(c, (slice(4, 5), slice(1, 5, 2)))
    one = adlib.Broadcast(c, (3, 2, 1))
    assert everywhere(np.array_equal(block, whole((n, m, 2), dtype)[4:5, 1:5:2])
                      and one.value(c) == whole((n, m, 2), dtype)[3, 2, 1])


def test_broadcast_errors():
    grid = adlib.ProcessGrid(comm, [P])
    a = adlib.DistArray(grid, [adlib.cyclic(8), adlib.collapsed(3)])
    if P > 1:  # a column is spread over every process
        ok, messages = raises_everywhere(lambda: adlib.Broadcast(a, (slice(None), 0)),
                                         "more than one owner")
        assert ok, messages
    ok, messages = raises_everywhere(lambda: adlib.Broadcast(a, (8, 0)), "out of range")
    assert ok, messages
    ok, messages = raises_everywhere(lambda: adlib.Broadcast(a, 1).value(a), "one element")
    assert ok, messages


def test_broadcast_to_groups_other_than_the_arrays():
    grid = adlib.ProcessGrid.balanced(comm, 2)
    rows, cols = grid.shape
    n, m = 9, 4
    # The array lives on the first column of processes only.
    a = adlib.DistArray(grid.restrict(1, 0), [uneven(n, rows), adlib.collapsed(m)])
    fill_reference(a)
    expected = whole((n, m), np.float64)
    # To every process of the grid, holders of the array or not.
    got = adlib.broadcast(a, 5, group=adlib.Group(grid))
    assert everywhere(np.array_equal(got, expected[5]))
    # To the row of processes of the owner: the others get None.
    sizes = [0] * rows
    for g in range(n):
        sizes[g % max(rows - 1, 1)] += 1
    owner_row = int(np.searchsorted(np.cumsum(sizes), 5, side="right"))
    row_group = grid.restrict(0, owner_row)
    got = adlib.Broadcast(a, (5, slice(1, 3)), group=row_group).execute(a)
    member = row_group.contains(comm.rank)
    assert everywhere(np.array_equal(got, expected[5, 1:3]) if member else got is None)
