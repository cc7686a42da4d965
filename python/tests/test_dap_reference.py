# SPDX-License-Identifier: BSD-3-Clause
"""The reference DAP producer and consumer (dap_reference.py) on their own:
every distribution kind, alone and combined in 2-D, read back by the
consumer on every process and assembled into the whole array, which must
hold every element exactly once with its reference value; the spec's own
examples; malformed dictionaries refused."""
import numpy as np
import pytest

from dap_reference import DapArray, dimension_map, global_shape, owned_elements
from mpi_check import comm, everywhere, reference

P = comm.size


def distributions(n):
    sizes = [0] * P
    for g in range(n):
        sizes[(3 * g + 1) % P] += 1
    return {
        "block": ("block", n),
        "irregular": ("irregular", sizes),
        "cyclic": ("cyclic", n),
        "block_cyclic": ("block_cyclic", n, 2),
        "padded": ("padded", n, 1),
        "ghosted": ("ghosted", n, 1),
        "unstructured": ("unstructured", n, 11),
    }


def assembled(array):
    """Every process's owned elements (consumer view), merged; checks that no
    element is owned twice."""
    merged = {}
    for part in comm.allgather(owned_elements(array.__distarray__())):
        for key, value in part.items():
            assert key not in merged, "element %s owned twice" % (key,)
            merged[key] = value
    return merged


def check_whole(array, shape):
    values = assembled(array)
    expected = {idx: reference(shape, array.local.dtype, *idx) for idx in np.ndindex(*shape)}
    return set(values) == set(expected) and all(values[k] == expected[k] for k in expected)


@pytest.mark.parametrize("kind", list(distributions(9)))
def test_one_dimension(kind):
    a = DapArray(comm, [P], [distributions(9)[kind]])
    a.local[...] = reference(a.shape, a.local.dtype, *a.global_index_grid())
    assert everywhere(check_whole(a, a.shape))
    # 'size' counts boundary padding, nothing else.
    assert global_shape(a.__distarray__()) == ((11,) if kind == "ghosted" else (9,))


@pytest.mark.parametrize("first", ["block", "irregular", "cyclic", "unstructured", "padded"])
@pytest.mark.parametrize("second", ["irregular", "block_cyclic", "undistributed"])
def test_two_dimensions(first, second):
    if second == "undistributed":
        grid = [P]
    else:
        grid = [2, P // 2] if P % 2 == 0 else [1, P]
    rows = grid[0]
    n = 4 * rows + 1
    dims = [{"block": ("block", n), "cyclic": ("cyclic", n), "unstructured": ("unstructured", n, 5),
             "padded": ("padded", n, 1),
             "irregular": ("irregular", [n - (rows - 1)] + [1] * (rows - 1))}[first]]
    if second == "undistributed":
        dims.append(("undistributed", 4))
    elif second == "irregular":
        dims.append(("irregular", [3, 0, 2, 1][: grid[1]]))
    else:
        dims.append(("block_cyclic", 8, 3))
    a = DapArray(comm, grid, dims, dtype=np.int64)
    a.local[...] = reference(a.shape, np.int64, *a.global_index_grid())
    assert everywhere(check_whole(a, a.shape)), a.shape


def test_padding_is_not_owned_and_the_buffer_is_not_copied():
    n = 4 * P
    a = DapArray(comm, [P], [("padded", n, 1)])
    a.local[...] = -1  # padding keeps -1: it is not owned, the consumer skips it
    mine = a.owned_mask[0]
    a.local[mine] = reference((n,), a.local.dtype, a.global_of_position[0][mine])
    assert everywhere(check_whole(a, (n,)))
    dap = a.__distarray__()
    assert everywhere(np.shares_memory(dap["buffer"], a.local))


def test_the_specs_examples():
    # 1.6.3: the empty dictionary is an undistributed dimension.
    buf = np.arange(6.0).reshape(2, 3)
    got = owned_elements({"__version__": "0.10.0", "buffer": buf, "dim_data": ({}, {})})
    assert got == {(i, j): buf[i, j] for i in range(2) for j in range(3)}
    # 1.6.2: the padding table (4 processes, left boundary padding 4): grid
    # rank 1 with padding (1, 2) owns its buffer minus one cell below and two above.
    dd = {"dist_type": "b", "size": 40, "proc_grid_size": 4, "proc_grid_rank": 1,
          "start": 9, "stop": 20, "padding": (1, 2)}
    g, owned = dimension_map(dd, 11)
    assert g.tolist() == list(range(9, 20)) and g[owned].tolist() == list(range(10, 18))
    # Rank 0's low padding is boundary padding: owned.
    dd0 = dict(dd, proc_grid_rank=0, start=0, stop=11, padding=(4, 1))
    g, owned = dimension_map(dd0, 11)
    assert g[owned].tolist() == list(range(0, 10))
    # Block-cyclic: start is the first index of the first tile.
    dd = {"dist_type": "c", "size": 10, "proc_grid_size": 3, "proc_grid_rank": 1,
          "start": 2, "block_size": 2}
    assert dimension_map(dd, 4)[0].tolist() == [2, 3, 8, 9]
    # An empty local buffer is valid.
    dd = {"dist_type": "c", "size": 2, "proc_grid_size": 3, "proc_grid_rank": 2, "start": 2}
    assert dimension_map(dd, 0)[0].tolist() == []


def test_malformed_dictionaries_are_refused():
    buf = np.zeros(3)
    bad = [
        {"dist_type": "b", "size": 5, "proc_grid_size": 1, "proc_grid_rank": 0,
         "start": 0, "stop": 4},                                          # stop - start != 3
        {"dist_type": "c", "size": 7, "proc_grid_size": 2, "proc_grid_rank": 0, "start": 0},
        {"dist_type": "u", "size": 5, "proc_grid_size": 1, "proc_grid_rank": 0,
         "indices": [1, 1, 2]},                                           # not locally unique
        {"dist_type": "b", "size": 3, "proc_grid_size": 1, "proc_grid_rank": 1,
         "start": 0, "stop": 3},                                          # rank outside the grid
        {"dist_type": "x", "size": 3, "proc_grid_size": 1, "proc_grid_rank": 0},
        {"size": 3, "proc_grid_size": 1, "proc_grid_rank": 0},
    ]
    for dd in bad:
        with pytest.raises(ValueError):
            owned_elements({"__version__": "0.10.0", "buffer": buf, "dim_data": (dd,)})
    with pytest.raises(ValueError):
        owned_elements({"__version__": "1.0.0", "buffer": buf, "dim_data": ({},)})
