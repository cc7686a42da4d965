# SPDX-License-Identifier: BSD-3-Clause
"""adlib.d2o's index keys that may name elements other processes hold,
against numpy on the whole array, at every rank count: integer index arrays
on the leading axes (numpy arrays, lists, partial boolean masks, sorted,
unsorted and repeated, with basic keys on the other axes), index objects
(distributed_data_objects of integers, the result split like the key), and
per-process keys (local_keys=True); get and set, every strategy, element
types adlib's Gather carries and those carried as another type; empty
selections, empty arrays and processes without rows; bad keys and keys that
differ between processes raising on every process."""
import numpy as np
import pytest

from adlib import _d2o_selection
from adlib._d2o_distribution import equal_rows
from d2o_fixtures import P, STRATEGIES_AND_LAYOUTS, global_array, make, raises_on_every_rank, same
from mpi_check import comm, everywhere


# Keys of a (9, 4) array with index arrays, and what numpy makes of them.
INDEX_KEYS = [
    np.array([0, 2, 3, 8]),             # sorted rows: no messages
    [8, 1, 1, 5, -1],                   # unsorted, repeated, negative: a Gather
    np.array([], dtype=np.int64),       # selects nothing
    (np.array([4, 0, 7]), 2),           # elements
    (np.array([1, 6, 6]), np.array([3, 0, 1])),
    ([2, 5], slice(None, None, -2)),    # rows, then a basic key
    (np.array([7, 3]), Ellipsis),
    np.array([True, False, True, False, False, True, True, False, True]),  # rows by a mask
    np.array([3]),                      # one row
]


@pytest.mark.parametrize("strategy", STRATEGIES_AND_LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.complex128, np.bool_])
def test_index_arrays_select_as_numpy(strategy, dtype):
    a = global_array((9, 4), dtype, 21)
    x = make(a, strategy)
    failures = []
    for key in INDEX_KEYS:
        got = x[key]
        if not same(got.get_full_data(), a[key]):
            failures.append(repr(key))
    assert everywhere(not failures), failures


@pytest.mark.parametrize("strategy", STRATEGIES_AND_LAYOUTS)
def test_sorted_index_arrays_keep_items_where_they_are(strategy):
    a = global_array((9, 4), np.float64, 22)
    x = make(a, strategy)
    picked = x[np.array([0, 2, 3, 8])]
    ok = same(picked, a[[0, 2, 3, 8]])
    dist = x.distributor
    if strategy in ["equal", "fftw", "freeform"]:
        # Each process holds the picked rows it already held.
        mine = [r for r in [0, 2, 3, 8] if dist.start <= r < dist.stop]
        ok &= same(picked.data, a[mine])
    assert everywhere(ok)


@pytest.mark.parametrize("strategy", STRATEGIES_AND_LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.complex128, np.bool_])
def test_index_arrays_assign_as_numpy(strategy, dtype):
    a = global_array((9, 4), dtype, 23)
    failures = []
    for key in INDEX_KEYS:
        shape = a[key].shape
        values = (np.arange(np.prod(shape, dtype=int)).reshape(shape) % 3 + 100).astype(dtype)
        for kind in ["scalar", "numpy", "equal", "not"]:
            if kind != "scalar" and (not shape or shape[0] == 0):
                continue
            x, want = make(a, strategy), a.copy()
            if kind == "scalar":
                x[key] = dtype(1)
                want[key] = dtype(1)
            else:
                keys = np.asarray(key[0] if isinstance(key, tuple) else key)
                if keys.dtype != bool and len(np.unique(keys)) != len(keys) and kind != "numpy":
                    continue  # repeated items from objects: one of the values is kept
                x[key] = values if kind == "numpy" else make(values, kind)
                want[key] = values
            if not same(x.get_full_data(), want):
                failures.append((repr(key), kind))
    assert everywhere(not failures), failures


@pytest.mark.parametrize("strategy", STRATEGIES_AND_LAYOUTS)
@pytest.mark.parametrize("key_strategy", ["equal", "fftw", "not", "layout"])
def test_index_objects_select_split_like_the_key(strategy, key_strategy):
    a = global_array((9, 3), np.int64, 24)
    rows = np.array([8, 0, 3, 3, 7, 1, 2], dtype=np.int64)
    columns = np.array([2, 0, 1, 1, 0, 2, 2], dtype=np.int64)
    x, key = make(a, strategy), make(rows, key_strategy)
    failures = []
    got = x[key]
    # Split like the key (the rows of an 'equal' copy of a layout key).
    key_rows = equal_rows(len(rows), P) if key_strategy == "layout" else key.distributor.rows
    if not same(got.get_full_data(), a[rows]) or got.distributor.rows != tuple(key_rows):
        failures.append("rows")
    if not same(x[key, make(columns, "fftw")].get_full_data(), a[rows, columns]):
        failures.append("rows and columns objects")
    if not same(x[key, columns].get_full_data(), a[rows, columns]):
        failures.append("rows object, columns numpy")
    if not same(x.get_data((key, 1)).get_full_data(), a[rows, 1]):
        failures.append("rows object, an integer")
    want = a.copy()
    x[key, columns] = make(np.arange(7) * 10, "equal")
    want[rows, columns] = np.arange(7) * 10  # the repeated (3, 1) gets the same value twice
    x[key] = -1  # whole rows
    want[rows] = -1
    if not same(x.get_full_data(), want):
        failures.append("set")
    assert everywhere(not failures), failures


@pytest.mark.parametrize("strategy", STRATEGIES_AND_LAYOUTS)
def test_local_keys_give_each_process_its_own_selection(strategy):
    a = global_array((7, 5), np.complex128, 25)
    x = make(a, strategy)
    r = comm.rank
    keys = [
        np.array([(r * 3) % 7, 6 - r % 7, 0]),          # rows, others' rows too
        (np.array([r % 7, 0]), np.array([4, 1])),        # elements
        (slice(None, None, -3), 1 + r % 4),             # a basic key
        a.real > r % 3 - 1,                             # a mask of the whole shape
    ]
    failures = []
    for key in keys:
        got = x.get_data(key, local_keys=True)
        want = a[key]
        if got.distribution_strategy != "freeform" or not same(got.data, want):
            failures.append(repr(key))
        if not same(got.get_full_data(), np.concatenate(comm.allgather(want))):
            failures.append(("full", repr(key)))
    # Again, each process with its own key: the same schedules.
    if not same(x.get_data(keys[0], local_keys=True).data, a[keys[0]]):
        failures.append("again")
    y, want = make(a, strategy), a.copy()
    picked = y.get_data(keys[1], local_keys=True)
    y.set_data(picked * 2, keys[1], local_keys=True)
    for rank, key in enumerate(comm.allgather(keys[1])):
        want[key] = a[key] * 2  # processes writing the same element write the same value
    if not same(y.get_full_data(), want):
        failures.append("set")
    assert everywhere(not failures), failures


@pytest.mark.parametrize("strategy", STRATEGIES_AND_LAYOUTS)
def test_empty_arrays_and_processes_without_rows(strategy):
    failures = []
    a = global_array((0, 3), np.float64, 26)
    x = make(a, strategy)
    if not same(x[np.array([], dtype=np.int64)].get_full_data(), a[[]]):
        failures.append("empty array")
    b = global_array((2, 3), np.int64, 27)  # at 3 or 4 ranks some hold nothing
    y = make(b, strategy)
    for key in [[1, 0, 1], (np.array([1, 1]), np.array([2, 0]))]:
        if not same(y[key].get_full_data(), b[key]):
            failures.append(repr(key))
    y[[1, 0]] = np.array([[5, 6, 7], [8, 9, 10]])
    c = b.copy()
    c[[1, 0]] = np.array([[5, 6, 7], [8, 9, 10]])
    if not same(y.get_full_data(), c):
        failures.append("set")
    assert everywhere(not failures), failures


def test_from_key_and_get_data_of_none():
    a = global_array((6, 2), np.float64, 28)
    x, want = make(a, "equal"), a.copy()
    source = np.arange(12.0).reshape(6, 2)
    x.set_data(source, np.array([5, 1]), from_key=np.array([0, 3]))
    want[[5, 1]] = source[[0, 3]]
    ok = same(x.get_full_data(), want) and same(x.get_data(None).get_full_data(), want)
    assert everywhere(ok)


def test_bad_index_keys_raise_on_every_process():
    x = make(global_array((5, 2), np.float64), "equal")
    assert raises_on_every_rank(IndexError, lambda: x[[0, 5]], "out of bounds")
    assert raises_on_every_rank(IndexError, lambda: x[np.array([[0, 1]])], "one-dimensional")
    assert raises_on_every_rank(IndexError, lambda: x[np.array([0.5])], "integer")
    assert raises_on_every_rank(IndexError, lambda: x[:, [0, 1]], "leading axes")
    assert raises_on_every_rank(IndexError, lambda: x[[0, 1], [0, 1, 1]], "broadcast")
    # Out of range on one process only: still every process.
    rows = make(np.array([0, 1, 4, 2 if P == 1 else 9]), "equal")
    assert raises_on_every_rank(IndexError, lambda: x[rows] if P > 1 else x[[9]], "bounds")
    mine = np.array([comm.rank + (5 if comm.rank == P - 1 else 0)])
    assert raises_on_every_rank(IndexError, lambda: x.get_data(mine, local_keys=True), "bounds")


def test_keys_that_differ_between_processes_raise_on_every_process():
    x = make(global_array((8, 2), np.float64), "fftw")
    key = np.array([0, 7, comm.rank % 2 + 1])
    if P > 1:
        assert raises_on_every_rank(ValueError, lambda: x[key], "")
        assert raises_on_every_rank(ValueError, lambda: x.__setitem__(key, 1.0), "")


def test_repeated_keys_reuse_their_schedules():
    a = global_array((9, 4), np.float64, 29)
    x = make(a, "equal")
    key = np.array([8, 0, 5, 5])
    x[key]
    planned = len(_d2o_selection._schedules)
    for _ in range(3):
        x[key]
        (x + 1)[key]  # another object of the same split
    ok = len(_d2o_selection._schedules) == planned
    key[1] = 3  # the same array, changed in place: selected anew
    ok = ok and same(x[key].get_full_data(), a[[8, 3, 5, 5]])
    assert everywhere(ok)


@pytest.mark.parametrize("strategy", STRATEGIES_AND_LAYOUTS)
def test_local_key_objects_through_the_librarian(strategy):
    # Each process passes a different key object (all made on every process):
    # each gets what its own object selects, and stores its own values there.
    a = global_array((8, 3), np.float64, 30)
    x = make(a, strategy)
    rows = [np.array([(r * 3) % 8, 7, 0]) for r in range(P)]
    keys = [make(k, "equal") for k in rows]
    masks = [make(a > r - 1, "fftw") for r in range(P)]
    failures = []
    got = x.get_data(keys[comm.rank], local_keys=True)
    if got.distribution_strategy != "freeform" or not same(got.data, a[rows[comm.rank]]):
        failures.append("rows")
    got = x.get_data(masks[comm.rank], local_keys=True)
    if not same(got.data, a[a > comm.rank - 1]):
        failures.append("mask")
    y, want = make(a, strategy), a.copy()
    y.set_data(np.full((3, 3), -1.0 - comm.rank), keys[comm.rank], local_keys=True)
    for r in range(P):  # later processes' values win where keys meet
        want[rows[r]] = -1.0 - r
    if not same(y.get_full_data(), want):
        failures.append("set")
    assert everywhere(not failures), failures
    bad = np.zeros((2, 3)) if comm.rank == P - 1 else np.zeros((3, 3))
    assert raises_on_every_rank(ValueError, lambda: y.set_data(bad, keys[comm.rank],
                                                               local_keys=True), "")
