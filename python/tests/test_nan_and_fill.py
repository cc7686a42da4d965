# SPDX-License-Identifier: BSD-3-Clause
"""NaN follows numpy at every process count (sum, product, maxval, minval
are NaN when an element is; maxloc / minloc give the first NaN, as argmax /
argmin), along dimensions too; creation fills with `fill` (0 by default) or
leaves the block unset (`fill=None`, adlib.empty)."""
import numpy as np
import pytest

import adlib
from mpi_check import comm, everywhere

P = comm.size


def nan_array(shape, seed):
    """The global array: small integers with ties, NaN at a few drawn places
    (none for some seeds)."""
    rng = np.random.default_rng(seed)
    data = rng.integers(-5, 6, size=shape).astype(np.float64)
    if seed % 3:
        count = 1 + seed % 4
        flat = data.reshape(-1)
        flat[rng.choice(flat.size, size=min(count, flat.size), replace=False)] = np.nan
    return data


def distribute(data, specs, grid):
    a = adlib.DistArray(grid, specs)
    index = np.ix_(*a.global_indices)
    a.local[...] = data[index]
    return a


def same(x, y):
    return (np.isnan(x) and np.isnan(y)) or x == y


LAYOUTS = {
    "block": lambda n: [adlib.block(n)],
    "cyclic": lambda n: [adlib.cyclic(n, source=P - 1)],
    "block_cyclic": lambda n: [adlib.block_cyclic(n, 2)],
}


@pytest.mark.parametrize("seed", range(9))
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_whole_array_reductions_match_numpy(layout, seed):
    n = 11 + seed
    data = nan_array((n,), seed)
    grid = adlib.ProcessGrid(comm, [P])
    a = distribute(data, LAYOUTS[layout](n), grid)
    r = adlib.ArrayReduction(a)
    assert everywhere(same(r.sum(a), data.sum()))
    assert everywhere(np.isnan(r.product(a)) == np.isnan(np.prod(data)))
    assert everywhere(same(r.maxval(a), data.max()))
    assert everywhere(same(r.minval(a), data.min()))
    value, (where,) = r.maxloc(a)
    assert everywhere(where == np.argmax(data) and same(value, data.max()))
    value, (where,) = r.minloc(a)
    assert everywhere(where == np.argmin(data) and same(value, data.min()))


@pytest.mark.parametrize("seed", range(6))
def test_reductions_along_a_dimension_match_numpy(seed):
    data = nan_array((7, 6), seed)
    grid = adlib.ProcessGrid.balanced(comm, 2)
    a = distribute(data, [adlib.block(7), adlib.cyclic(6)], grid)
    for dim in (0, 1):
        for name, numpy_form in (("maxval_dim", np.max), ("minval_dim", np.min),
                                 ("maxloc_dim", np.argmax), ("minloc_dim", np.argmin),
                                 ("sum_dim", np.sum)):
            expected = numpy_form(data, axis=dim)
            got = adlib.full(getattr(adlib, name)(a, dim))
            ok = np.array_equal(got, expected, equal_nan=got.dtype.kind == "f")
            assert everywhere(ok), (name, dim, got, expected)


def test_fill_and_empty():
    grid = adlib.ProcessGrid(comm, [P])
    specs = [adlib.block(4 * P + 3).ghosts(1).periodic()]
    assert everywhere(np.all(adlib.DistArray(grid, specs).local_with_ghosts == 0))
    assert everywhere(np.all(adlib.zeros(grid, specs, np.int64).local_with_ghosts == 0))
    sevens = adlib.DistArray(grid, specs, np.float32, fill=7)
    assert everywhere(sevens.dtype == np.float32 and np.all(sevens.local_with_ghosts == 7))
    mask = adlib.DistArray(grid, specs, bool)
    assert everywhere(not mask.local.any())
    empty = adlib.empty(grid, specs)
    assert everywhere(empty.shape == (4 * P + 3,) and
                      empty.local_with_ghosts.shape == sevens.local_with_ghosts.shape)
    empty.local[...] = 1.0
    adlib.write_halo(empty)
    assert everywhere(np.all(empty.local_with_ghosts == 1.0))
    # A fill that is not a scalar is refused on every rank.
    with pytest.raises(TypeError, match="scalar"):
        adlib.DistArray(grid, specs, fill=np.ones(2))
