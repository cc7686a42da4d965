# SPDX-License-Identifier: BSD-3-Clause
"""adlib.d2o: the distributed_data_object against numpy on the whole array,
at every rank count: d2o's strategies (rows per process by d2o's and FFTW's
rules), creation, local and full data, operators and ufuncs between objects
of the same and of different strategies, numpy arrays and scalars,
reductions with and without an axis, copies; shapes with empty dimensions
and processes without rows; element types adlib's Remap carries (float64,
int64, complex128) and those it carries as another type (bool, int32);
and collective arguments that differ between processes raising the same
exception on every process."""
import itertools

import numpy as np
import pytest

import adlib.d2o as d2o
from adlib._d2o_distribution import equal_rows, fftw_rows
from d2o_fixtures import (LAYOUTS, P, STRATEGIES, STRATEGIES_AND_LAYOUTS, expected_rows,
                          global_array, layout_of, local_block, make, raises_on_every_rank,
                          same)
from mpi_check import comm, everywhere

SHAPES = [(7,), (5, 3), (1,), (0, 4), (4, 0), (9, 2, 3), (2, 3, 2, 2)]
DTYPES = [np.float64, np.int64, np.complex128, np.int32, np.bool_]


def test_the_strategies_split_rows_as_d2o_and_fftw_do():
    assert equal_rows(10, 4) == [3, 3, 2, 2]
    assert fftw_rows(10, 4) == [3, 3, 3, 1]
    assert fftw_rows(5, 4) == [2, 2, 1, 0]
    assert equal_rows(0, 3) == [0, 0, 0] and fftw_rows(0, 3) == [0, 0, 0]
    assert set(d2o.STRATEGIES["all"]) == set(STRATEGIES)


@pytest.mark.parametrize("strategy", STRATEGIES_AND_LAYOUTS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_creation_local_blocks_and_full_data(strategy, dtype):
    ok = True
    for shape in SHAPES:
        if strategy in LAYOUTS and len(shape) > 3:
            continue  # adlib arrays have 1 to 3 dimensions
        a = global_array(shape, dtype)
        obj = make(a, strategy)
        ok &= obj.shape == shape and obj.dtype == np.dtype(dtype)
        if strategy in LAYOUTS:
            ok &= obj.distribution_strategy == layout_of(shape, strategy)
            ok &= np.array_equal(obj.data, local_block(a, obj))
        else:
            rows = expected_rows(strategy, shape[0])
            start = 0 if strategy == "not" else sum(rows[:comm.rank])
            ok &= obj.distribution_strategy == strategy
            ok &= np.array_equal(obj.data, a[start:start + rows[comm.rank]])
        ok &= same(obj.get_full_data(), a)
        at_last = obj.get_full_data(target_rank=P - 1)
        ok &= same(at_last, a) if comm.rank == P - 1 else at_last is None
        ok &= same(np.asarray(obj), a)
    assert everywhere(ok)


def test_creation_from_a_shape_a_scalar_and_another_object():
    empty = d2o.distributed_data_object(global_shape=(6, 2), dtype=np.int64)
    filled = d2o.distributed_data_object(2.5, global_shape=(5,), distribution_strategy="equal")
    source = make(global_array((8, 3), np.float64), "equal")
    moved = d2o.distributed_data_object(source, distribution_strategy="fftw")
    kept = d2o.distributed_data_object(source)  # the source's strategy
    assert everywhere(empty.shape == (6, 2) and empty.dtype == np.int64 and
                      empty.distribution_strategy == d2o.DEFAULT_STRATEGY)
    assert everywhere(same(filled.get_full_data(), np.full(5, 2.5)))
    assert everywhere(same(moved.get_full_data(), source.get_full_data()) and
                      moved.distribution_strategy == "fftw" and
                      kept.distribution_strategy == "equal")


@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.complex128, np.int32])
def test_operators_between_strategies_numpy_and_scalars(dtype):
    ok, failures = True, []
    shape = (7, 3)
    a, b = global_array(shape, dtype, 1), global_array(shape, dtype, 2)
    b = np.where(b == 0, 1, b).astype(dtype)  # divisors
    operations = [("+", np.add), ("-", np.subtract), ("*", np.multiply), ("==", np.equal),
                  ("!=", np.not_equal)]
    if np.dtype(dtype).kind != "c":
        operations += [("//", np.floor_divide), ("%", np.remainder), ("<", np.less),
                       (">=", np.greater_equal)]
    for left, right in itertools.product(STRATEGIES_AND_LAYOUTS, STRATEGIES_AND_LAYOUTS):
        x, y = make(a, left), make(b, right)
        for name, ufunc in operations:
            result = ufunc(x, y)
            good = (isinstance(result, d2o.distributed_data_object) and
                    result.distribution_strategy == x.distribution_strategy and
                    same(result.get_full_data(), ufunc(a, b)))
            if not good:
                failures.append((left, right, name))
            ok &= good
    for split in ["equal", "layout"]:
        x = make(a, split)
        ok &= same((x + 1).get_full_data(), a + 1) and same((2 * x).get_full_data(), 2 * a)
        ok &= same((x * a).get_full_data(), a * a) and same((a[0] - x).get_full_data(), a[0] - a)
        ok &= same((x - a[:, :1]).get_full_data(), a - a[:, :1])  # broadcasts along axis 1
    ok &= same((b - x).get_full_data(), b - a)  # numpy on the left: still distributed
    ok &= isinstance(b - x, d2o.distributed_data_object)
    ok &= same((x / 2).get_full_data(), a / 2) and same((-x).get_full_data(), -a)
    ok &= same(abs(x).get_full_data(), abs(a))
    ok &= same((x ** 2).get_full_data(), a ** 2)
    if np.dtype(dtype).kind == "i":
        ok &= same((x & 3).get_full_data(), a & 3) and same((~x).get_full_data(), ~a)
    assert everywhere(ok), failures


@pytest.mark.parametrize("strategy", STRATEGIES_AND_LAYOUTS)
def test_in_place_operators_keep_the_object_and_its_memory(strategy):
    a, b = global_array((9, 2), np.float64, 3), global_array((9, 2), np.float64, 4)
    x = make(a, strategy)
    memory = x.data
    x += make(b, "equal")
    x *= 2
    x -= b  # a numpy array of the global shape: its rows
    i = make(global_array((9, 2), np.int64, 5), strategy)
    with pytest.raises(TypeError):  # numpy's casting rule: int64 += float64
        i += 0.5
    assert everywhere(x.data is memory and same(x.get_full_data(), (a + b) * 2 - b))


def test_ufuncs_act_on_the_blocks():
    a = np.abs(global_array((6, 4), np.float64, 6)) + 1
    x, y = make(a, "fftw"), make(a[::-1].copy(), "equal")
    ok = same(np.sqrt(x).get_full_data(), np.sqrt(a))
    ok &= same(np.maximum(x, y).get_full_data(), np.maximum(a, a[::-1]))
    quotient, remainder = np.divmod(x, 3)
    ok &= same(quotient.get_full_data(), a // 3) and same(remainder.get_full_data(), a % 3)
    out = x.copy_empty()
    np.add(x, y, out=out)
    ok &= same(out.get_full_data(), a + a[::-1])
    ok &= same(x.real.get_full_data(), a) and same(x.imag.get_full_data(), 0 * a)
    z = make(global_array((5,), np.complex128, 7), "equal")
    ok &= same(z.conjugate().get_full_data(), np.conj(z.get_full_data()))
    assert everywhere(ok)


REDUCTIONS = ["sum", "prod", "amin", "amax", "min", "max", "all", "any", "mean", "var", "std"]


@pytest.mark.parametrize("strategy", STRATEGIES_AND_LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.complex128, np.bool_])
def test_reductions_with_and_without_an_axis(strategy, dtype):
    failures = []
    for shape in [(7,), (5, 3), (1, 4), (6, 2, 3)]:
        a = global_array(shape, dtype, 8)
        x = make(a, strategy)
        axes = [None, 0, -1] + ([1, (0, 1)] if len(shape) > 1 else [])
        for name in REDUCTIONS:
            if np.dtype(dtype).kind == "c" and name in ("amin", "amax", "min", "max"):
                continue
            if np.dtype(dtype) == np.bool_ and name in ("var", "std", "mean"):
                continue
            for axis in axes:
                want = getattr(np, name)(a, axis=axis)
                got = getattr(x, name)(axis=axis)
                if isinstance(got, d2o.distributed_data_object):
                    got = got.get_full_data()
                if not same(got, want):
                    failures.append((shape, name, axis))
    for shape in [(7,), (5, 3)]:
        a = global_array(shape, dtype, 9)
        if np.dtype(dtype).kind != "c":
            x = make(a, strategy)
            if x.argmin() != np.argmin(a) or x.argmax() != np.argmax(a):
                failures.append((shape, "arg"))
    assert everywhere(not failures), failures


@pytest.mark.parametrize("strategy", STRATEGIES_AND_LAYOUTS)
def test_reductions_of_empty_arrays(strategy):
    x = make(np.zeros((0, 3)), strategy)
    ok = x.sum() == 0 and x.prod() == 1 and bool(x.all()) and not x.any()
    ok &= same(x.sum(axis=0).get_full_data(), np.zeros(3))
    try:
        x.amax()
        ok = False
    except ValueError:
        pass
    assert everywhere(ok)


@pytest.mark.parametrize("strategy", STRATEGIES_AND_LAYOUTS)
def test_copies_local_data_and_full_data(strategy):
    a = global_array((8, 2), np.float64, 10)
    x = make(a, strategy)
    ok = True
    for target in ["equal", "fftw", "not", layout_of(a.shape), layout_of(a.shape, LAYOUTS[1])]:
        y = x.copy(distribution_strategy=target)
        ok &= y.distribution_strategy == target and same(y.get_full_data(), a)
    c = x.copy(dtype=np.complex128)
    ok &= c.dtype == np.complex128 and same(c.get_full_data(), a.astype(np.complex128))
    ok &= c.data is not x.data
    e = x.copy_empty(dtype=np.int32)
    ok &= e.shape == x.shape and e.dtype == np.int32 and e.local_shape == x.local_shape
    e2 = x.copy_empty(global_shape=(3, 3), distribution_strategy="equal")
    ok &= e2.shape == (3, 3) and e2.distribution_strategy == "equal"
    block = x.get_local_data()
    x.set_local_data(block * 10)
    ok &= same(x.get_full_data(), a * 10)
    x.set_full_data(a + 1)
    ok &= same(x.get_full_data(), a + 1)
    ok &= same(x.flatten().get_full_data(), (a + 1).reshape(-1))
    assert everywhere(ok)


def test_collective_arguments_that_differ_raise_on_every_process():
    if P < 2:
        pytest.skip("arguments can differ between processes from two on")
    last = comm.rank == P - 1
    assert raises_on_every_rank(
        ValueError, lambda: d2o.distributed_data_object(global_shape=(4 + last, 2)), "differ")
    assert raises_on_every_rank(
        ValueError, lambda: d2o.distributed_data_object(
            global_shape=(4,), dtype=np.float32 if last else np.float64), "dtype")
    assert raises_on_every_rank(
        ValueError, lambda: d2o.distributed_data_object(
            global_shape=(4,), distribution_strategy="equal" if last else "fftw"), "strategy")
    assert raises_on_every_rank(
        ValueError, lambda: d2o.distributed_data_object(
            global_shape=(4,), distribution_strategy="slabs" if last else "fftw"), "slabs")
    assert raises_on_every_rank(
        ValueError, lambda: d2o.distributed_data_object(
            local_data=np.zeros((1, 2 + last)), distribution_strategy="freeform"), "differ")


def test_bad_arguments_raise_on_every_process():
    assert raises_on_every_rank(
        ValueError, lambda: d2o.distributed_data_object(global_shape=(-1, 2)), "negative")
    assert raises_on_every_rank(
        ValueError, lambda: d2o.distributed_data_object(global_shape=()), "dimension")
    assert raises_on_every_rank(
        ValueError, lambda: d2o.distributed_data_object(distribution_strategy="freeform"),
        "local_data")
    x = make(global_array((5,), np.float64), "equal")
    assert raises_on_every_rank(ValueError, lambda: x + make(global_array((6,), np.float64),
                                                             "equal"), "shapes")
    assert raises_on_every_rank(ValueError, lambda: x.set_full_data(np.zeros(4)), "shape")


KEYS = [
    (slice(None),), (slice(1, 6, 2),), (slice(None, None, -1),), (slice(None, None, -2),),
    (slice(5, 0, -3),), (slice(10, 20),), (slice(-3, None),), (2,), (-1,), (3, 1), (-2, -1),
    (slice(None), 1), (Ellipsis, 0), (slice(2, 7), slice(None, None, -1)), (Ellipsis,),
    (0, Ellipsis),
]


@pytest.mark.parametrize("strategy", STRATEGIES_AND_LAYOUTS)
@pytest.mark.parametrize("dtype", [np.float64, np.int32])
def test_getitem_with_integers_slices_and_ellipsis(strategy, dtype):
    a = global_array((8, 3), dtype, 11)
    x = make(a, strategy)
    failures = []
    for key in KEYS:
        got, want = x[key], a[key]
        if isinstance(got, d2o.distributed_data_object):
            if strategy not in ["not"] + LAYOUTS and isinstance(key[0], slice):
                # the processes keep their own rows: no communication
                if not np.shares_memory(got.data, x.data) and got.data.size:
                    failures.append((key, "copied"))
            got = got.get_full_data()
        if not same(got, want):
            failures.append(key)
    assert everywhere(not failures), failures


@pytest.mark.parametrize("strategy", STRATEGIES_AND_LAYOUTS)
def test_setitem_with_scalars_arrays_and_objects(strategy):
    a = global_array((9, 4), np.float64, 12)
    failures = []
    for key in KEYS[:12]:
        x, want = make(a, strategy), a.copy()
        x[key] = 7.5
        want[key] = 7.5
        if not same(x.get_full_data(), want):
            failures.append((key, "scalar"))
        shape = a[key].shape
        values = np.arange(np.prod(shape, dtype=int), dtype=np.float64).reshape(shape) + 100
        x[key] = values
        want[key] = values
        if not same(x.get_full_data(), want):
            failures.append((key, "numpy"))
        if len(shape) >= 1 and shape[0] > 0:
            for source in ["equal", "not"]:
                x[key] = make(values - 50, source)
                want[key] = values - 50
                if not same(x.get_full_data(), want):
                    failures.append((key, source))
    x = make(a, strategy)
    x.set_data(np.zeros(9), (slice(None), 2))
    want = a.copy()
    want[:, 2] = 0
    ok = same(x.get_full_data(), want) and same(x.get_data((slice(None), 2)).get_full_data(),
                                                 np.zeros(9))
    assert everywhere(ok and not failures), failures


def test_bad_keys_raise_index_errors_on_every_process():
    x = make(global_array((5, 2), np.float64), "equal")
    for key in [(5,), (-6,), (0, 0, 0), (Ellipsis, Ellipsis), ([0, 5],), (slice(None), [0])]:
        assert raises_on_every_rank(IndexError, lambda: x[key], ""), key


@pytest.mark.parametrize("strategy", STRATEGIES_AND_LAYOUTS)
def test_boolean_masks_select_and_assign_in_c_order(strategy):
    a = global_array((7, 3), np.float64, 13)
    failures = []
    for mask_kind in ["numpy", "equal", "same"]:
        x = make(a, strategy)
        mask = a > 0
        if mask_kind == "equal":
            mask = make(mask, "equal")
        elif mask_kind == "same":
            mask = x > 0  # an object of x's own split
        if not same(x[mask].get_full_data(), a[a > 0]):
            failures.append((mask_kind, "get"))
        x[mask] = -1.0
        want = a.copy()
        want[a > 0] = -1.0
        if not same(x.get_full_data(), want):
            failures.append((mask_kind, "set scalar"))
        values = np.arange(np.count_nonzero(a > 0), dtype=np.float64)
        x[mask] = values
        want[a > 0] = values
        if not same(x.get_full_data(), want):
            failures.append((mask_kind, "set values"))
    backwards = make(a, strategy)[::-1]  # a split whose processes come in reverse
    if not same(backwards[backwards.get_full_data() < 0].get_full_data(), a[::-1][a[::-1] < 0]):
        failures.append("reversed split")
    assert everywhere(not failures), failures
    x = make(a, strategy)
    assert raises_on_every_rank(IndexError, lambda: x[np.ones(6, dtype=bool)], "boolean index")
    assert raises_on_every_rank(ValueError, lambda: x.__setitem__(a > 0, np.zeros(2)), "values")
