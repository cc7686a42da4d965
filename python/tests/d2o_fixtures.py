# SPDX-License-Identifier: BSD-3-Clause
"""What the adlib.d2o tests share: the splits they run on, the global arrays
(the same on every process), objects of them by strategy, comparisons with
numpy and errors agreed across processes (not a test module: no tests)."""
import numpy as np

import adlib.d2o as d2o
from adlib._d2o_distribution import equal_rows, fftw_rows
from mpi_check import comm, everywhere

P = comm.size
STRATEGIES = ["equal", "fftw", "not", "freeform"]
#: d2o's strategies, and 'equal' rows seen through obj[::-1] (the processes
#: in reverse rank order).
SPLITS = STRATEGIES + ["reversed"]


def global_array(shape, dtype, seed=0):
    """The same array on every process, small values (exact sums)."""
    rng = np.random.default_rng(seed)
    values = rng.integers(-3, 4, size=shape)
    if np.dtype(dtype) == np.bool_:
        return values > 0
    if np.dtype(dtype).kind == "u":
        return (values + 3).astype(dtype)
    if np.dtype(dtype).kind == "c":
        return (values + 1j * rng.integers(-2, 3, size=shape)).astype(dtype)
    return values.astype(dtype)


def freeform_rows(n):
    """Uneven rows per process, the first process possibly without any."""
    weights = [(r * 7 + 3) % 4 for r in range(P)]
    total = sum(weights) or 1
    rows = [n * w // total for w in weights]
    rows[-1] += n - sum(rows)
    return rows


def make(a, split):
    """A distributed_data_object holding `a`, split by `split` (a strategy
    or 'reversed')."""
    if split == "reversed":
        return d2o.distributed_data_object(a[::-1].copy(), distribution_strategy="equal")[::-1]
    if split == "freeform":
        rows = freeform_rows(a.shape[0])
        start = sum(rows[:comm.rank])
        return d2o.distributed_data_object(local_data=a[start:start + rows[comm.rank]],
                                           distribution_strategy="freeform")
    return d2o.distributed_data_object(a, distribution_strategy=split)


def full(value):
    """An object's whole array, anything else as numpy."""
    if isinstance(value, d2o.distributed_data_object):
        return value.get_full_data()
    return np.asarray(value)


def same(got, want, exact_dtype=False):
    """Equal shapes, element kinds (or dtypes) and values (close for
    floating point; NaN equal to NaN)."""
    got, want = full(got), np.asarray(want)
    if got.shape != want.shape or got.dtype.kind != want.dtype.kind:
        return False
    if exact_dtype and got.dtype != want.dtype:
        return False
    if want.dtype.kind in "fc":
        return np.allclose(got, want, equal_nan=True)
    return np.array_equal(got, want)


def raises_on_every_rank(kind, action, fragment=""):
    """True when `action` raised `kind` with `fragment` in its message on
    every rank (collective)."""
    try:
        action()
        message = None
    except kind as error:
        message = str(error)
    return everywhere(message is not None and fragment in message)


def expected_rows(strategy, n):
    """The rows per process of `strategy` for n rows."""
    return {"equal": equal_rows(n, P), "fftw": fftw_rows(n, P), "not": [n] * P,
            "freeform": freeform_rows(n)}[strategy]
