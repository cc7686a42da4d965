# SPDX-License-Identifier: BSD-3-Clause
"""adlib against the independent DAP implementation (dap_reference.py), both
ways, before adlib's own __distarray__ / from_distarray exist: buffers that
the reference producer lays out are wrapped by adlib without copying (the
specs written here from the distribution), and adlib's local blocks are
described as DAP dictionaries (every dimension as its global index list,
dist_type 'u') that the reference consumer reads back."""
import numpy as np
import pytest

import adlib
from dap_reference import DapArray, owned_elements
from mpi_check import comm, everywhere, fill_reference, reference

P = comm.size


def two_axis_grid():
    return [2, P // 2] if P % 2 == 0 else [1, P]


def producer_and_specs(kind, n, parts):
    """The reference producer's description of one dimension and the adlib
    spec of the same distribution."""
    if kind == "block":
        return ("block", n), adlib.block(n)
    if kind == "irregular":
        sizes = [(3 * c + 1) % 4 for c in range(parts)]  # n is ignored: the sizes say it
        return ("irregular", sizes), adlib.irregular_block(sizes)
    if kind == "cyclic":
        return ("cyclic", n), adlib.cyclic(n)
    if kind == "block_cyclic":
        return ("block_cyclic", n, 2), adlib.block_cyclic(n, 2)
    raise ValueError(kind)


@pytest.mark.parametrize("rows_kind", ["block", "irregular", "cyclic", "block_cyclic"])
@pytest.mark.parametrize("cols_kind", ["block", "cyclic", "block_cyclic", "irregular"])
def test_adlib_wraps_the_reference_producers_buffer(rows_kind, cols_kind):
    grid_shape = two_axis_grid()
    d0, s0 = producer_and_specs(rows_kind, 7, grid_shape[0])
    d1, s1 = producer_and_specs(cols_kind, 9, grid_shape[1])
    dap_array = DapArray(comm, grid_shape, [d0, d1])
    shape = dap_array.shape
    dap_array.local[...] = reference(shape, np.float64, *dap_array.global_index_grid())
    grid = adlib.ProcessGrid(comm, grid_shape)
    a = adlib.wrap(grid, [s0, s1], dap_array.__distarray__()["buffer"])
    # The same memory, the same elements at the same places.
    assert everywhere(dap_array.local.size == 0 or np.shares_memory(a.local, dap_array.local))
    assert everywhere(all(np.array_equal(a.global_indices[d], dap_array.global_of_position[d])
                          for d in range(2)))
    whole = adlib.full(a)
    assert everywhere(np.array_equal(
        whole, reference(shape, np.float64, *np.ix_(np.arange(shape[0]), np.arange(shape[1])))))
    # adlib writes, the producer's buffer shows it.
    src = adlib.DistArray(grid, [adlib.collapsed(shape[0]), adlib.cyclic(shape[1])])
    fill_reference(src, offset=5)
    adlib.remap(a, src)
    assert everywhere(np.array_equal(
        dap_array.local, reference(shape, np.float64, *dap_array.global_index_grid(), offset=5)))


def as_dap(a, grid):
    """A DAP dictionary for an adlib array whose every dimension is
    distributed over its own grid axis: the owned block as the buffer, each
    dimension as its global index list."""
    coords = grid.coordinates(grid.rank)
    dims = tuple({"dist_type": "u", "size": a.shape[d], "proc_grid_size": grid.shape[d],
                  "proc_grid_rank": coords[d], "indices": a.global_indices[d],
                  "one_to_one": True} for d in range(a.ndim))
    return {"__version__": "0.10.0", "buffer": a.local, "dim_data": dims}


@pytest.mark.parametrize("dtype", ["float64", "int64", "complex128"])
@pytest.mark.parametrize("kinds", [("block", "cyclic"), ("block_cyclic", "irregular"),
                                   ("irregular", "block")])
def test_the_reference_consumer_reads_adlib_arrays(dtype, kinds):
    grid_shape = two_axis_grid()
    grid = adlib.ProcessGrid(comm, grid_shape)
    specs = [producer_and_specs(kinds[0], 6, grid_shape[0])[1],
             producer_and_specs(kinds[1], 5, grid_shape[1])[1]]
    a = adlib.DistArray(grid, specs, dtype)
    fill_reference(a)
    merged = {}
    for part in comm.allgather(owned_elements(as_dap(a, grid))):
        for key, value in part.items():
            assert key not in merged
            merged[key] = value
    shape = a.shape
    expected = {idx: reference(shape, dtype, *idx) for idx in np.ndindex(*shape)}
    assert everywhere(set(merged) == set(expected) and
                      all(merged[k] == expected[k] for k in expected))
