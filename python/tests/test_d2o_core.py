# SPDX-License-Identifier: BSD-3-Clause
"""adlib.d2o's compiled base (python/src/d2o_core.cpp): its fast paths
(operators with a Python number or an object of the same split; sum, amax
and amin of every element when all of them are on this process) give what
the Python methods give, with the same dtype, hermitian flag and errors, at
every rank count; the other cases (numpy operands, other splits, subclasses,
axes, several processes) reach the Python methods; nothing leaks."""
import operator
import sys

import numpy as np
import pytest

import adlib.d2o as d2o
from d2o_fixtures import SPLITS, global_array, make, raises_on_every_rank, same
from mpi_check import everywhere

# Powers of negative numbers and divisions by zero give NaN and infinity
# with numpy's warnings, on both sides of every comparison.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")

BINARY = [operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
          operator.mod, operator.pow]
INTEGER_ONLY = [operator.and_, operator.or_, operator.xor, operator.lshift, operator.rshift]
IN_PLACE = {operator.add: operator.iadd, operator.sub: operator.isub,
            operator.mul: operator.imul, operator.and_: operator.iand,
            operator.or_: operator.ior, operator.xor: operator.ixor}


class Sub(d2o.distributed_data_object):
    """A user's subclass: the compiled fast paths leave it to the Python
    methods."""


def operands(dtype):
    """Scalars of every kind the fast path takes (Python int, float,
    complex) and of kinds it hands on (bool, numpy scalar)."""
    values = [3, 2.5, True, np.float64(1.5), np.int64(2)]
    if np.dtype(dtype).kind == "c":
        values.append(1 - 2j)
    return values


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("dtype", [np.float64, np.int64, np.complex128])
def test_operators_with_scalars_give_numpys_values_and_dtypes(split, dtype):
    failures = []
    a = global_array((7, 3), dtype, 1)
    a = np.where(a == 0, 1, a).astype(dtype)  # divisors
    x = make(a, split)
    ops = BINARY + (INTEGER_ONLY if np.dtype(dtype).kind == "i" else [])
    for op in ops:
        for value in operands(dtype):
            if op in INTEGER_ONLY and not isinstance(value, (int, np.integer)):
                continue
            if op in (operator.floordiv, operator.mod) and np.dtype(dtype).kind == "c":
                continue
            if op is operator.pow and np.dtype(dtype).kind == "i" and value == 2.5:
                continue
            for forward in (True, False):
                if not forward and op in (operator.lshift, operator.rshift, operator.pow):
                    continue
                got = op(x, value) if forward else op(value, x)
                want = op(a, value) if forward else op(value, a)
                if not (isinstance(got, d2o.distributed_data_object)
                        and got.distributor is x.distributor and got.dtype == want.dtype
                        and same(got, want, True)):
                    failures.append((op.__name__, repr(value), forward))
    assert everywhere(not failures), failures


@pytest.mark.parametrize("split", ["equal", "not", "freeform", "reversed", "layout"])
def test_operators_between_objects_of_one_split_and_of_two(split):
    failures = []
    a, b = global_array((6, 2), np.float64, 2), global_array((6, 2), np.float64, 3) + 5
    x = make(a, split)
    same_split = x.copy() + 0  # another object, this split (the same Distribution)
    same_split.data[...] = x.distributor.local_part(b) if not x.distributor.is_layout \
        else make(b, split).data
    other_split = make(b, "fftw" if split != "fftw" else "equal")
    for op in BINARY:
        for y in (same_split, other_split, make(b, split), b):
            got = op(x, y)
            if not (got.distributor is x.distributor and same(got, op(a, b), True)):
                failures.append((op.__name__, y.__class__.__name__))
            got = op(b, x) if isinstance(y, np.ndarray) else op(y, x)
            if not same(got, op(b, a), True):
                failures.append(("reflected", op.__name__))
    assert everywhere(not failures), failures


def test_hermitian_follows_d2os_rule_in_both_paths():
    a = global_array((5,), np.complex128, 4)
    h = make(a, "equal")
    h.hermitian = True
    plain = make(a, "equal")
    ok = (h + 1).hermitian and (2.5 * h).hermitian and (h - h).hermitian
    ok &= not (h + 1j).hermitian and not (h + plain).hermitian and not (plain + h).hermitian
    ok &= not (h + a).hermitian  # a numpy operand: the Python method's rule
    ok &= (h + make(a, "fftw").copy()).hermitian is False
    other = make(a, "fftw")
    other.hermitian = True
    ok &= (h * other).hermitian  # both hermitian, another split
    assert everywhere(ok)


@pytest.mark.parametrize("split", SPLITS)
def test_in_place_operators_write_the_block_and_keep_numpys_casting_rule(split):
    a = global_array((8, 2), np.int64, 5)
    x = make(a, split)
    memory = x.data
    ok = True
    for op, inplace in IN_PLACE.items():
        y = x
        y = inplace(y, 3)
        ok &= y is x and x.data is memory
        y = inplace(y, x.copy() + 0 if not x.distributor.is_layout else 1)
        ok &= y is x and x.data is memory
    expected = a.copy()
    for op, inplace in IN_PLACE.items():
        expected = inplace(expected, 3)
        expected = inplace(expected, expected.copy() if not x.distributor.is_layout else 1)
    ok &= same(x, expected, True)
    assert everywhere(ok)

    def add_a_half():
        y = make(a, split)
        y += 0.5  # int64 += float64: numpy's same_kind casting refuses

    assert raises_on_every_rank(TypeError, add_a_half)


def test_power_with_a_modulo_is_refused_as_d2o_does():
    x = make(global_array((4,), np.int64, 6), "equal")
    assert raises_on_every_rank(TypeError, lambda: pow(x, 2, 3))


@pytest.mark.parametrize("split", SPLITS)
@pytest.mark.parametrize("dtype", [np.float64, np.int32, np.complex128, np.bool_])
def test_whole_array_reductions_give_numpys_results(split, dtype):
    failures = []
    for shape in [(9,), (4, 3), (1,)]:
        a = global_array(shape, dtype, 7)
        x = make(a, split)
        cases = [("sum", x.sum(), a.sum()), ("sum axis", x.sum(axis=0), a.sum(axis=0)),
                 ("sum keyword", x.sum(axis=None), a.sum())]
        if np.dtype(dtype).kind != "c":
            cases += [("max", x.max(), a.max()), ("amax", x.amax(), a.max()),
                      ("min", x.min(), a.min()), ("amin", x.amin(axis=-1), a.min(axis=-1))]
        for name, got, want in cases:
            if not same(got, want, True) or (np.ndim(want) == 0 and np.ndim(got) != 0):
                failures.append((shape, name))
    assert everywhere(not failures), failures


@pytest.mark.parametrize("split", ["equal", "not", "freeform"])
def test_reductions_of_empty_arrays_raise_alike(split):
    x = make(np.zeros((0, 3)), split)
    ok = same(x.sum(), 0.0)
    assert everywhere(ok)
    for method in ("max", "amax", "min", "amin"):
        assert raises_on_every_rank(ValueError, getattr(x, method), "zero-size array")


def test_subclasses_take_the_python_methods_with_the_same_results():
    a = global_array((6, 2), np.float64, 8)
    s = Sub(a, distribution_strategy="equal")
    x = make(a, "equal")
    ok = same(s + 1, a + 1) and same(2 - s, 2 - a) and same(s * x, a * a)
    ok &= same(s.sum(), a.sum()) and same(s.max(), a.max()) and same(s.min(), a.min())
    s += 1
    ok &= same(s, a + 1)
    assert everywhere(ok)


def test_fast_paths_keep_no_references():
    x = make(global_array((64,), np.float64, 9), "equal")
    y = x.copy() + 0
    watched = [x, x.data, x.distributor, x.dtype, y.data]

    def run(times):
        nonlocal x
        for _ in range(times):
            x + 1
            1.5 * x
            x - y
            x += 0
            x += y
            x.sum()
            x.max()
            x.min()
            x.sum(axis=0)

    run(10)  # whatever the first calls cache
    before = [sys.getrefcount(o) for o in watched]
    run(2000)
    after = [sys.getrefcount(o) for o in watched]
    assert everywhere(before == after), (before, after)


def test_objects_made_by_the_fast_paths_are_filed_by_the_librarian():
    x = make(global_array((5,), np.float64, 10), "equal")
    made = [x + 1, 2 * x, x - x]
    indices = [o.index for o in made]
    ok = len(set(indices)) == 3 and indices == sorted(indices) and indices[0] > x.index
    ok &= all(d2o.d2o_librarian[o.index] is o for o in made)
    assert everywhere(ok)


def test_incomplete_objects_fail_cleanly():
    import adlib
    bare = adlib._adlib.D2OCore()  # no fields, not a distributed_data_object
    assert everywhere(raises_local(AttributeError, lambda: bare + 1)
                      and raises_local(AttributeError, lambda: bare.sum()))
    a = global_array((4,), np.float64, 11)
    x = make(a, "equal")
    del x.hermitian  # a fast path reads it as unset
    y = x + 1
    assert everywhere(same(y, a + 1) and y.hermitian is False)


def raises_local(kind, action):
    """Did `action` raise `kind` on this process?"""
    try:
        action()
    except kind:
        return True
    return False


@pytest.mark.parametrize("split", SPLITS)
def test_copy_is_a_new_block_of_the_same_split_dtype_and_flag(split):
    a = global_array((7, 3), np.complex128, 12)
    x = make(a, split)
    x.hermitian = True
    c = x.copy()
    ok = (type(c) is type(x) and c.distributor is x.distributor and c.dtype == x.dtype
          and c.hermitian is True and same(c, a, True) and c.index > x.index)
    ok &= not np.shares_memory(c.data, x.data)
    c.data[...] = 0
    ok &= same(x, a, True)  # the source is untouched
    other = x.copy(dtype=np.complex64)  # arguments: the Python method
    ok &= other.dtype == np.complex64 and same(other, a.astype(np.complex64), True)
    moved = x.copy(distribution_strategy="fftw" if split != "fftw" else "equal")
    ok &= same(moved, a, True)
    s = Sub(a, distribution_strategy="equal")
    ok &= same(s.copy(), a, True)
    assert everywhere(ok)
