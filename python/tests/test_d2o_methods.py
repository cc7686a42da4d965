# SPDX-License-Identifier: BSD-3-Clause
"""adlib.d2o: the rest of d2o's public methods against numpy on the whole
array, at every rank count: real and imag (properties), bincount, unique,
where, the elementwise tests and nan_to_num, nanmin and nanmax, vdot,
cumsum, median (along every axis), argmin and argmax along an axis and their _nonflat forms,
mean(power=), get_dim, equal, apply_scalar_function, apply_generator, the
librarian and iteration.  Every strategy, splits whose processes come in
reverse order (a slice with a negative step), processes without rows and
empty arrays; errors raised alike on every process."""
import gc
import math
import warnings

import numpy as np
import pytest

import adlib.d2o as d2o
from d2o_fixtures import (LAYOUTS, P, SPLITS, global_array, make, raises_on_every_rank,
                          same)
from mpi_check import comm, everywhere

def test_real_and_imag_are_properties():
    assert isinstance(vars(d2o.distributed_data_object)["real"], property)
    assert isinstance(vars(d2o.distributed_data_object)["imag"], property)
    failures = []
    for split in SPLITS:
        for dtype in [np.complex128, np.float64, np.int32]:
            a = global_array((7, 2), dtype, 1)
            x = make(a, split)
            if not (same(x.real, a.real, True) and same(x.imag, a.imag, True)):
                failures.append((split, np.dtype(dtype).name))
            if x.real.distributor is not x.distributor:
                failures.append((split, "split"))
    z = make(global_array((5,), np.complex128, 2), "equal")
    z.hermitian = True
    ok = z.real.hermitian and z.imag.hermitian  # kept, as d2o
    ok &= same(z.conjugate(), np.conj(z.get_full_data())) and same(z.conj(), z.conjugate())
    assert everywhere(ok and not failures), failures


SHAPES = [(9,), (5, 3), (1,), (0,), (0, 4), (4, 0), (6, 2, 2)]


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint16])
def test_bincount_agrees_with_numpy(split, dtype):
    failures = []
    for shape in SHAPES:
        a = np.abs(global_array(shape, dtype, 3)).astype(dtype)
        x = make(a, split)
        flat = a.reshape(-1)
        weights = global_array(shape, np.float64, 4) + 0.5
        cases = [
            (x.bincount(), np.bincount(flat)),
            (x.bincount(minlength=12), np.bincount(flat, minlength=12)),
            (x.bincount(weights=weights), np.bincount(flat, weights=weights.reshape(-1))),
            (x.bincount(weights=make(weights, "fftw")),  # an object of another split
             np.bincount(flat, weights=weights.reshape(-1))),
            (x.bincount(weights=weights.astype(np.int32), minlength=2),
             np.bincount(flat, weights=weights.astype(np.int32).reshape(-1), minlength=2)),
        ]
        for number, (got, want) in enumerate(cases):
            if not (isinstance(got, np.ndarray) and same(got, want, exact_dtype=True)):
                failures.append((shape, number))
    assert everywhere(not failures), failures


def test_bincount_errors_are_raised_on_every_process():
    x = make(global_array((7,), np.float64), "equal")
    assert raises_on_every_rank(TypeError, x.bincount, "integer")
    assert raises_on_every_rank(TypeError, make(global_array((7,), np.bool_), "equal").bincount)
    values = np.arange(9)
    values[-1] = -2  # held by the last process with rows only
    for split in SPLITS:
        y = make(values, split)
        assert raises_on_every_rank(ValueError, y.bincount, "negative"), split
    y = make(np.arange(9), "fftw")
    assert raises_on_every_rank(ValueError, lambda: y.bincount(minlength=-1), "negative")
    assert raises_on_every_rank(ValueError, lambda: y.bincount(weights=np.ones(8)), "shape")
    assert raises_on_every_rank(TypeError, lambda: y.bincount(weights=np.ones(9) * 1j), "cast")


@pytest.mark.parametrize("split", SPLITS)
def test_unique_and_where(split):
    failures = []
    for dtype in [np.float64, np.int32, np.complex128, np.bool_]:
        for shape in SHAPES:
            a = global_array(shape, dtype, 5)
            x = make(a, split)
            got = x.unique()
            if not (isinstance(got, np.ndarray) and same(got, np.unique(a), True)):
                failures.append(("unique", np.dtype(dtype).name, shape))
            where = x.where()
            want = np.nonzero(a)
            if not (isinstance(where, list) and len(where) == len(want) and
                    all(isinstance(w, d2o.distributed_data_object) for w in where) and
                    all(same(w, c, True) for w, c in zip(where, want))):
                failures.append(("where", np.dtype(dtype).name, shape))
            elif where[0].distribution_strategy != ("not" if split == "not" else "freeform"):
                failures.append(("where split", np.dtype(dtype).name, shape))
    nan = make(np.array([np.nan, 1.0, np.nan, 1.0, 2.0]), split)
    if not same(nan.unique(), np.unique(np.array([np.nan, 1.0, np.nan, 1.0, 2.0]))):
        failures.append("NaN")
    assert everywhere(not failures), failures


SPECIAL = np.array([[0.0, np.nan, 1.5], [np.inf, -np.inf, 2.0], [np.nan, np.nan, np.nan],
                    [3.0, -1.0, np.nan], [1e300, 0.0, -7.0]])


@pytest.mark.parametrize("split", SPLITS)
def test_elementwise_tests_and_nan_to_num(split):
    failures = []
    complex_values = SPECIAL.astype(np.complex128)
    complex_values.imag = SPECIAL[::-1]
    cases = [SPECIAL, complex_values, global_array((5, 3), np.int64), global_array((0, 3),
                                                                                 np.float64)]
    for a in cases:
        x = make(a, split)
        for name in ["isreal", "iscomplex", "isnan", "isinf", "isfinite"]:
            got = getattr(x, name)()
            if not (same(got, getattr(np, name)(a), True) and
                    got.distributor is x.distributor):
                failures.append((name, a.dtype.name, a.shape))
        if not same(x.nan_to_num(), np.nan_to_num(a), True):
            failures.append(("nan_to_num", a.dtype.name, a.shape))
    assert everywhere(not failures), failures


def outcome(function, axis, *args):
    """function(*args, axis=axis), or the name of the exception it raised."""
    try:
        return function(*args, axis=axis)
    except (ValueError, TypeError) as error:
        return type(error).__name__


@pytest.mark.parametrize("split", SPLITS)
def test_nanmin_and_nanmax_skip_nan(split):
    failures = []
    cases = [SPECIAL, np.where(np.isinf(SPECIAL), 0, SPECIAL), SPECIAL[:, :2].copy(),
             global_array((6, 2, 2), np.float64, 6), global_array((7,), np.int64, 7),
             global_array((4, 0), np.float64), SPECIAL[:, 0] + 1j]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices, as numpy warns
        for a in cases:
            x = make(a, split)
            for name in ["nanmin", "nanmax"]:
                for axis in [None, 0, -1] + ([1, (0, 1)] if a.ndim > 1 else []):
                    got, want = outcome(getattr(x, name), axis), outcome(getattr(np, name),
                                                                         axis, a)
                    if got != want if isinstance(want, str) else not same(got, want):
                        failures.append((name, a.dtype.name, a.shape, axis))
    assert everywhere(not failures), failures
    empty = make(np.zeros((0, 3)), split)
    assert raises_on_every_rank(ValueError, empty.nanmin, "zero-size")
    assert raises_on_every_rank(ValueError, lambda: empty.nanmax(axis=0), "zero-size")


@pytest.mark.parametrize("split", SPLITS)
def test_vdot_with_objects_of_any_split_and_numpy(split):
    failures = []
    for dtype in [np.complex128, np.float64, np.int64, np.int32, np.bool_]:
        for shape in [(7, 3), (5,), (0, 2)]:
            a, b = global_array(shape, dtype, 8), global_array(shape, dtype, 9)
            x = make(a, split)
            want = np.vdot(a, b)
            for other in [make(b, s) for s in SPLITS] + [b]:
                got = x.vdot(other)
                if not (np.ndim(got) == 0 and same(got, want, True)):
                    failures.append((np.dtype(dtype).name, shape, type(other).__name__))
    assert everywhere(not failures), failures
    x = make(global_array((6,), np.float64), split)
    assert raises_on_every_rank(ValueError, lambda: x.vdot(np.ones(5)), "shape")
    assert raises_on_every_rank(ValueError, lambda: x.vdot(make(np.ones(5), "equal")), "shape")


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.complex128, np.bool_])
def test_cumsum_flattened_and_along_each_axis(split, dtype):
    failures = []
    for shape in SHAPES:
        a = global_array(shape, dtype, 10)
        x = make(a, split)
        for axis in [None, 0, -1] + ([1] if len(shape) > 1 else []):
            got = x.cumsum(axis=axis)
            want = np.cumsum(a, axis=axis)
            if not (isinstance(got, d2o.distributed_data_object) and same(got, want, True)):
                failures.append((shape, axis))
            elif axis is None and not x.distributor.is_layout and \
                    got.distributor.rows != x.flatten().distributor.rows:
                failures.append((shape, "split"))
    assert everywhere(not failures), failures
    x = make(global_array((4, 2), dtype), split)
    assert raises_on_every_rank(TypeError, lambda: x.cumsum(axis=(0, 1)), "axis")
    assert raises_on_every_rank(ValueError, lambda: x.cumsum(axis=2), "out of bounds")


def test_cumsum_of_many_elements_per_process():
    a = np.random.default_rng(11).random((1000, 7))
    for split in SPLITS:
        x = make(a, split)
        ok = same(x.cumsum(), np.cumsum(a)) and same(x.cumsum(axis=0), np.cumsum(a, axis=0))
        assert everywhere(ok), split


@pytest.mark.parametrize("split", SPLITS)
def test_median(split):
    failures = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the median of nothing: NaN
        for a in [global_array((7, 3), np.float64, 12), global_array((8,), np.int64, 13),
                  global_array((6, 2, 3), np.float64, 14), np.zeros((0,))]:
            x = make(a, split)
            if not same(x.median(), np.median(a)):
                failures.append((a.shape, None))
            axes = ([0, 1, -1, (1, 2), (0, 2)] if a.ndim == 3 else [0, 1] if a.ndim == 2
                    else [0])
            for axis in axes:
                if not same(x.median(axis=axis), np.median(a, axis=axis)):
                    failures.append((a.shape, axis))
        b = global_array((0, 3), np.float64, 15)  # no rows: NaN per column, as numpy
        if not same(make(b, split).median(axis=0), np.median(b, axis=0)):
            failures.append((b.shape, 0))
        c = global_array((9, 4), np.int32, 16)  # a type adlib's Remap does not carry
        if not same(make(c, split).median(axis=0), np.median(c, axis=0)):
            failures.append((c.shape, "int32"))
    assert everywhere(not failures), failures


ARG_CASES = [
    np.array([[3.0, 1.0, 1.0], [0.0, 5.0, 1.0], [0.0, 5.0, -2.0], [7.0, 5.0, -2.0],
              [0.0, -1.0, 9.0]]),  # ties along every axis
    np.array([[1.0, np.nan, 2.0], [np.nan, 0.0, np.nan], [-5.0, np.nan, 8.0], [4.0, 2.0, 2.0]]),
    np.arange(20.0).reshape(5, 4)[::-1].copy(),
]


@pytest.mark.parametrize("split", SPLITS)
def test_argmin_and_argmax_along_an_axis(split):
    failures = []
    cases = ARG_CASES + [global_array(shape, dtype, 15) for shape in [(9,), (6, 2, 3), (4, 0)]
                         for dtype in [np.int64, np.float64, np.complex128]]
    for a in cases:
        x = make(a, split)
        for name in ["argmin", "argmax"]:
            axes = ([None, 0, -1] + list(range(1, a.ndim))) if a.size else [0]
            for axis in axes:
                want = getattr(np, name)(a, axis=axis)
                got = getattr(x, name)(axis=axis)
                if not same(got, want, True):
                    failures.append((name, a.dtype.name, a.shape, axis))
                elif axis not in (None, 0) and axis % a.ndim != 0 and \
                        not x.distributor.is_layout and \
                        got.distributor.rows != x.distributor.rows:  # the split is kept
                    failures.append((name, a.shape, axis, "split"))
            if not a.size:
                continue
            flat = getattr(x, name)()
            nonflat = getattr(x, name + "_nonflat")()
            if not (isinstance(flat, int) and
                               nonflat == np.unravel_index(getattr(np, name)(a), a.shape)):
                failures.append((name, a.shape, "nonflat"))
    assert everywhere(not failures), failures
    empty = make(np.zeros((0, 3)), split)
    assert raises_on_every_rank(ValueError, empty.argmin, "empty")
    assert raises_on_every_rank(ValueError, lambda: empty.argmax(axis=0), "empty")
    x = make(np.zeros((3, 2)), split)
    assert raises_on_every_rank(TypeError, lambda: x.argmin(axis=(0, 1)), "axis")
    assert raises_on_every_rank(ValueError, lambda: x.argmax(axis=2), "out of bounds")


@pytest.mark.parametrize("split", SPLITS)
def test_mean_with_power_get_dim_and_equal(split):
    ok = True
    for dtype in [np.float64, np.complex128, np.int64]:
        a = global_array((7, 3), dtype, 16)
        x = make(a, split)
        for power in [1, 2, 3]:
            for axis in [None, 0, 1]:
                ok &= same(x.mean(axis=axis, power=power), np.mean(a ** power, axis=axis))
        ok &= x.get_dim() == a.size and make(np.zeros((4, 0)), split).get_dim() == 0
    a = global_array((7, 3), np.float64, 17)
    x = make(a, split)
    ok &= x.equal(x) and x.equal(x.copy()) and x.equal(make(a, split))
    ok &= not x.equal(a) and not x.equal(None)
    ok &= not x.equal(x.copy(dtype=np.float32)) and not x.equal(x + 1)
    ok &= not x.equal(make(a[:6], split))
    if split in ("equal", "fftw"):  # the same rows, another strategy's name
        ok &= not x.equal(x.copy(distribution_strategy="fftw" if split == "equal" else "equal"))
    # Elements that differ on one process only: False on every process.
    changed = x.copy()
    if comm.rank == P - 1 and changed.data.size:
        changed.data.reshape(-1)[0] += 1
    ok &= not changed.equal(x) if any(comm.allgather(changed.data.size > 0)) else True
    ok &= changed.equal(x) == comm.allgather(changed.equal(x))[0]
    assert everywhere(ok)


@pytest.mark.parametrize("split", SPLITS)
def test_apply_scalar_function_and_apply_generator(split):
    a = np.abs(global_array((7, 3), np.float64, 18))
    x = make(a, split)
    x.hermitian = True
    ok = True
    root = x.apply_scalar_function(np.sqrt)
    ok &= same(root, np.sqrt(a), True) and root is not x and not root.hermitian
    exp = x.apply_scalar_function(np.exp)
    ok &= same(exp, np.exp(a)) and exp.hermitian  # kept for exp and log (d2o's rule)
    # A function of numbers only (math.floor takes no arrays): element by element.
    floor = x.apply_scalar_function(lambda v: math.floor(v + 0.5), dtype=np.int64)
    ok &= same(floor, np.floor(a + 0.5).astype(np.int64), True)
    branch = x.apply_scalar_function(lambda v: 1.0 if v > 1 else -1.0)
    ok &= same(branch, np.where(a > 1, 1.0, -1.0), True)
    y = x.copy()
    memory = y.data
    result = y.apply_scalar_function(lambda v: v * 2, inplace=True)
    ok &= result is y and y.data is memory and same(y, a * 2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        y.apply_scalar_function(lambda v: v + 1, inplace=True, dtype=np.int32)
    ok &= y.dtype == np.float64 and same(y, a * 2 + 1) and len(caught) == 1
    z = x.copy()
    z.hermitian = True
    returned = z.apply_generator(lambda shape: np.full(shape, 4.0))
    ok &= returned is None and same(z, np.full(a.shape, 4.0)) and not z.hermitian
    z.apply_generator(lambda shape: np.ones(shape, dtype=np.int32), copy=True)
    ok &= z.dtype == np.float64 and same(z, np.ones(a.shape))
    assert everywhere(ok)


def test_the_librarian_indexes_every_object_alike_on_every_process():
    a = global_array((6, 2), np.float64, 19)
    x = make(a, "equal")
    made = [x, x.copy(), x.copy_empty(), x + 1, x[::-1], x.sum(axis=0), x.real,
            x.copy(distribution_strategy="fftw"), make(a, "freeform"), x.flatten(),
            x.cumsum(), x.where()[0], x[x > 0]]
    indices = [obj.index for obj in made]
    ok = len(set(indices)) == len(indices) and all(isinstance(i, int) for i in indices)
    ok &= all(d2o.d2o_librarian[obj.index] is obj for obj in made)
    ok &= comm.allgather(indices) == [indices] * P  # the same indices everywhere
    gone = x.copy()
    gone_index = gone.index
    del gone
    gc.collect()
    try:
        d2o.d2o_librarian[gone_index]
        ok = False
    except KeyError:
        pass
    fresh = d2o.d2o_librarian.register(x)
    ok &= fresh > max(indices) and d2o.d2o_librarian[fresh] is x
    ok &= d2o.d2o_librarian is d2o.d2o_librarian  # one librarian, exported
    assert everywhere(ok)


def test_the_librarian_forgets_objects_that_are_gone():
    librarian = d2o.d2o_librarian
    x = make(np.zeros(3), "equal")
    first = x.index
    for _ in range(5000):  # many short-lived objects: swept out, not kept
        x + 1
    entries = len(librarian._library)
    assert everywhere(entries < 4000 and librarian[first] is x)


@pytest.mark.parametrize("split", SPLITS)
def test_iteration_yields_every_element_in_c_order(split):
    failures = []
    cases = [global_array(shape, dtype, 20) for shape in SHAPES
             for dtype in [np.float64, np.int32, np.bool_, np.complex128]]
    cases.append(np.arange(1759 * 7, dtype=np.float64).reshape(1759, 7))  # several chunks
    if split not in LAYOUTS:  # adlib layouts move numbers only
        cases.append(np.array([["a", "bb"], ["ccc", None], [1, 2.5]], dtype=object))
    for a in cases:
        x = make(a, split)
        got = list(x)
        want = list(a.reshape(-1))
        if len(got) != len(want) or any(g != w for g, w in zip(got, want)):
            failures.append((a.dtype.name, a.shape))
        elif got and type(got[0]) is not type(want[0]):
            failures.append((a.dtype.name, a.shape, "type"))
    # Leaving the loop at the same element on every process is fine.
    x = make(np.arange(10.0), split)
    for value in x:
        if value == 4.0:
            break
    if not same(x.sum(), 45.0):
        failures.append("after break")
    assert everywhere(not failures), failures


def test_numpy_arguments_that_differ_between_processes_raise_on_every_process():
    x = make(global_array((6, 2), np.int64, 50), "equal")
    wrong = (6, 2) if comm.rank != P - 1 else (5, 2)
    assert raises_on_every_rank(ValueError, lambda: x.vdot(np.ones(wrong)), "shapes")
    assert raises_on_every_rank(ValueError, lambda: x.bincount(weights=np.ones(wrong)), "weights")
    assert raises_on_every_rank(ValueError,
                                lambda: x.bincount(minlength=-1 if comm.rank == 0 else 3),
                                "minlength")
