# SPDX-License-Identifier: BSD-3-Clause
"""adlib's Distributed Array Protocol (DistArray.__distarray__ and
adlib.from_distarray) against the independent implementation in
dap_reference.py, both ways: the reference producer's arrays imported by
adlib without copying (values checked after a Remap into a native adlib
array, writes through adlib seen by the producer), adlib's arrays read by
the reference consumer, adlib to adlib round trips, and malformed
descriptors refused with adlib.Error on every rank."""
import numpy as np
import pytest
from mpi4py import MPI

import adlib
from dap_reference import DapArray, owned_elements
from mpi_check import comm, everywhere, fill_reference, local_matches, raises_everywhere, \
    reference

P = comm.size


def two_axis_grid():
    return [2, P // 2] if P % 2 == 0 else [1, P]


def distribution(kind, n, parts):
    """The reference producer's description of one dimension."""
    if kind == "block":
        return ("block", n)
    if kind == "irregular":
        return ("irregular", [(3 * c + 1) % 4 for c in range(parts)])  # zeros included
    if kind == "cyclic":
        return ("cyclic", n)
    if kind == "block_cyclic":
        return ("block_cyclic", n, 2)
    if kind == "ghosted":
        return ("ghosted", n, 1)
    if kind == "unstructured":
        return ("unstructured", n, 7)
    raise ValueError(kind)


KINDS = ["block", "irregular", "cyclic", "block_cyclic", "ghosted", "unstructured"]


def shares(a, b):
    """Same memory (trivially true for empty blocks, which have none)."""
    return a.size == 0 or b.size == 0 or np.shares_memory(a, b)


def address(a):
    """Where a numpy array's first element lies."""
    return a.__array_interface__["data"][0]


def check_import(dims, dtype, grid_shape=None):
    """from_distarray over `producer`'s buffer: the producer's values arrive
    (checked against global indices after a Remap into a native array), and
    a Remap into the imported array writes the producer's memory.  Boundary
    padding ('ghosted' dimensions) becomes adlib's ghost cells outside the
    domain: adlib's index i is the producer's i + w."""
    producer = DapArray(comm, grid_shape or [P], dims, dtype=dtype)
    dap_shape = producer.shape
    low = [dim[2] if dim[0] == "ghosted" else 0 for dim in dims]
    shape = tuple(n - 2 * w for n, w in zip(dap_shape, low))
    producer.local[...] = reference(dap_shape, dtype, *producer.global_index_grid())
    a = adlib.from_distarray(producer)
    assert everywhere(a.shape == shape and a.dtype == np.dtype(dtype))
    assert everywhere(shares(a.local_with_ghosts, producer.local))
    grid = adlib.ProcessGrid(comm, [P])
    native = adlib.DistArray(grid, [adlib.cyclic(shape[0])] +
                             [adlib.collapsed(n) for n in shape[1:]], dtype)
    adlib.remap(native, a)

    def dap_reference(offset=0):
        index = [g + w for g, w in zip(native.global_index_grid(), low)]
        return reference(dap_shape, dtype, *index, offset=offset)

    assert everywhere(np.array_equal(native.local, np.broadcast_to(dap_reference(),
                                                                    native.local.shape)))
    native.local[...] = dap_reference(offset=3)
    adlib.remap(a, native)
    # The producer's interior changed (its communication padding is a copy
    # of a neighbour's element, refreshed only by a halo exchange; boundary
    # padding is adlib's ghost cells, which a Remap does not write).
    interior = [owned & (g >= w) & (g < n - w) for owned, g, w, n in
                zip(producer.owned_mask, producer.global_of_position, low, dap_shape)]
    mask = np.ix_(*interior)
    expected = reference(dap_shape, dtype, *producer.global_index_grid(), offset=3)
    assert everywhere(np.array_equal(producer.local[mask],
                                     np.broadcast_to(expected, producer.local.shape)[mask]))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("dtype", ["float64", "int64"])
def test_the_reference_producer_in_one_dimension(kind, dtype):
    check_import([distribution(kind, 11, P)], dtype)


@pytest.mark.parametrize("rows", KINDS)
@pytest.mark.parametrize("cols", ["block", "irregular", "cyclic", "block_cyclic", "ghosted"])
def test_the_reference_producer_in_two_dimensions(rows, cols):
    grid_shape = two_axis_grid()
    check_import([distribution(rows, 7, grid_shape[0]), distribution(cols, 9, grid_shape[1])],
                 "float64", grid_shape)


@pytest.mark.parametrize("dtype", ["float32", "complex128"])
def test_the_reference_producer_in_three_dimensions(dtype):
    check_import([("undistributed", 3), ("block_cyclic", 10, 3), ("undistributed", 2)], dtype)


def test_padding_without_boundary_padding_imports_the_owned_parts():
    # Valid DAP (communication padding only, none at the domain's ends) that
    # no pair of adlib ghost widths holds when P > 1: imported without ghost
    # cells, each process's local block being the part it owns, over the
    # producer's memory.  The padding stays the producer's: a Remap into the
    # import writes the owned elements only.
    producer = DapArray(comm, [P], [("padded", 10, 1)])
    owned = producer.owned_mask[0]
    g = producer.global_of_position[0]
    producer.local[...] = np.where(owned, reference((10,), np.float64, g), -1.0)
    a = adlib.from_distarray(producer)
    assert everywhere(a.shape == (10,))
    assert everywhere(np.array_equal(a.global_indices[0], g[owned]))
    assert everywhere(np.array_equal(a.local, reference((10,), np.float64, g[owned])))
    first_owned = producer.local[int(np.argmax(owned)):]  # no copy: a view from there on
    assert everywhere(not owned.any() or address(a.local) == address(first_owned))
    native = adlib.DistArray(adlib.ProcessGrid(comm, [P]), [adlib.cyclic(10)])
    adlib.remap(native, a)
    assert everywhere(np.array_equal(native.local,
                                     reference((10,), np.float64, native.global_indices[0])))
    native.local[...] = reference((10,), np.float64, native.global_indices[0], offset=3)
    adlib.remap(a, native)
    assert everywhere(np.array_equal(producer.local[owned],
                                     reference((10,), np.float64, g[owned], offset=3)))
    assert everywhere(np.all(producer.local[~owned] == -1.0))


def test_a_halo_exchange_on_the_import_fills_the_producers_padding():
    # Communication padding is a copy of a neighbour's element: adlib's
    # WriteHalo on the imported array writes it into the producer's buffer.
    producer = DapArray(comm, [P], [("ghosted", 10, 2)])
    owned = producer.owned_mask[0]
    g = producer.global_of_position[0]
    producer.local[...] = np.where(owned, reference(producer.shape, np.float64, g), -1.0)
    adlib.write_halo(adlib.from_distarray(producer))
    assert everywhere(np.array_equal(producer.local[~owned],
                                     reference(producer.shape, np.float64, g[~owned])))


def test_the_communicator_argument_is_the_dap_grid():
    # Two producers side by side, each over half of the processes.
    sub = comm.Split(comm.rank % 2, comm.rank)
    producer = DapArray(sub, [sub.size], [("cyclic", 7)], dtype=np.int64)
    producer.local[...] = reference(producer.shape, np.int64, *producer.global_index_grid())
    a = adlib.from_distarray(producer, sub)
    whole = adlib.full(a)
    sub.Free()
    assert everywhere(np.array_equal(whole, reference((7,), np.int64, np.arange(7))))


def test_the_dict_itself_is_accepted_and_the_buffer_outlives_the_producer():
    producer = DapArray(comm, [P], [("block", 12)])
    producer.local[...] = reference(producer.shape, np.float64, *producer.global_index_grid())
    buffer = producer.local
    a = adlib.from_distarray(producer.__distarray__(), comm)
    del producer, buffer  # the array holds the buffer
    assert everywhere(local_matches(a))


def adlib_arrays():
    """(specs, grid shape) of adlib arrays of every Range kind the module
    makes, ghosts and periodic ones included."""
    g2 = two_axis_grid()
    return [
        ([adlib.block(10)], [P]),
        ([adlib.block(10).ghosts(1)], [P]),
        ([adlib.block(10).ghosts(2).periodic()], [P]),
        ([adlib.irregular_block([(2 * c) % 3 for c in range(P)])], [P]),
        ([adlib.cyclic(9)], [P]),
        ([adlib.cyclic(9, P - 1)], [P]),
        ([adlib.block_cyclic(13, 3, P // 2)], [P]),
        ([adlib.block(7).ghosts(1), adlib.cyclic(5)], g2),
        ([adlib.collapsed(4), adlib.block_cyclic(9, 2)], [P]),
        ([adlib.block_cyclic(6, 2), adlib.collapsed(2), adlib.irregular_block([3] * g2[1])], g2),
    ]


@pytest.mark.parametrize("case", range(len(adlib_arrays())))
@pytest.mark.parametrize("dtype", ["float64", "int64", "complex128"])
def test_the_reference_consumer_reads_adlib_arrays(case, dtype):
    specs, grid_shape = adlib_arrays()[case]
    grid = adlib.ProcessGrid(comm, grid_shape)
    a = adlib.DistArray(grid, specs, dtype)
    fill_reference(a)
    shape = a.shape
    merged, twice = {}, False
    for part in comm.allgather(owned_elements(a.__distarray__())):
        for key, value in part.items():
            twice = twice or key in merged
            merged[key] = value
    # Boundary padding (ghost cells outside the domain) is owned in the DAP
    # and shifts its indices: adlib's index is the consumer's minus `low`.
    dims = a.__distarray__()["dim_data"]
    low = [comm.allreduce(dd.get("padding", (0, 0))[0] if dd and dd["proc_grid_rank"] == 0
                          else 0, op=MPI.MAX) for dd in dims]
    inside = {tuple(k - l for k, l in zip(key, low)): v for key, v in merged.items()
              if all(0 <= k - l < n for k, l, n in zip(key, low, shape))}
    expected = {idx: reference(shape, dtype, *idx) for idx in np.ndindex(*shape)}
    assert everywhere(not twice and set(inside) == set(expected) and
                      all(inside[k] == expected[k] for k in expected))


SPEC_KEYS = {
    "b": {"dist_type", "size", "proc_grid_size", "proc_grid_rank", "start", "stop", "padding",
          "periodic"},
    "c": {"dist_type", "size", "proc_grid_size", "proc_grid_rank", "start", "block_size"},
    "u": {"dist_type", "size", "proc_grid_size", "proc_grid_rank", "indices", "one_to_one"},
}


@pytest.mark.parametrize("case", range(len(adlib_arrays())))
@pytest.mark.parametrize("dtype", adlib.DTYPES)
def test_round_trip_shares_memory_and_layout(case, dtype):
    specs, grid_shape = adlib_arrays()[case]
    a = adlib.DistArray(adlib.ProcessGrid(comm, grid_shape), specs, dtype)
    fill_reference(a)
    dap = a.__distarray__()
    ok = isinstance(dap["__version__"], str) and isinstance(dap["dim_data"], tuple)
    ok = ok and dap["buffer"].base is not None and shares(dap["buffer"], a.local_with_ghosts)
    ok = ok and dap["buffer"].shape == a.local_with_ghosts.shape
    for dd in dap["dim_data"]:
        ok = ok and (dd == {} or set(dd) <= SPEC_KEYS[dd["dist_type"]])
    assert everywhere(ok)
    b = adlib.from_distarray(a)
    assert everywhere(type(b) is type(a) and b.shape == a.shape and
                      all(np.array_equal(x, y) for x, y in zip(b.global_indices,
                                                              a.global_indices)))
    assert everywhere(shares(b.local_with_ghosts, a.local_with_ghosts) and local_matches(b))
    fill_reference(b, offset=9)
    assert everywhere(local_matches(a, offset=9))


def test_the_buffer_keeps_the_array_alive():
    a = adlib.DistArray(adlib.ProcessGrid(comm, [P]), [adlib.block(20)])
    fill_reference(a)
    expected = a.local.copy()
    buffer = a.__distarray__()["buffer"]
    del a
    assert everywhere(np.array_equal(buffer, expected))


def test_unstructured_indices_are_an_int64_array():
    producer = DapArray(comm, [P], [("unstructured", 9, 3)])
    a = adlib.from_distarray(producer)
    dd = a.__distarray__()["dim_data"][0]
    assert everywhere(dd["dist_type"] == "u" and isinstance(dd["indices"], np.ndarray) and
                      dd["indices"].dtype == np.int64 and
                      np.array_equal(dd["indices"], producer.dim_data[0]["indices"]))


def test_what_the_protocol_cannot_describe_raises():
    if P > 1:
        part = adlib.ProcessGrid(comm, [P - 1])
        a = adlib.DistArray(part, [adlib.block(6)])
        ok, messages = raises_everywhere(a.__distarray__)
        assert everywhere(ok), messages


def test_uneven_ghost_widths_between_processes_raise():
    # The DAP wants the same communication padding on both sides of a
    # process boundary; at one process both widths are boundary padding.
    a = adlib.DistArray(adlib.ProcessGrid(comm, [P]), [adlib.block(10).ghosts(2, 1)])
    if P == 1:
        assert everywhere(a.__distarray__()["dim_data"][0]["padding"] == (2, 1))
    else:
        ok, messages = raises_everywhere(a.__distarray__, "ghost widths 2/1 differ")
        assert everywhere(ok), messages


def good_dict():
    producer = DapArray(comm, [P], [("block", 10)])
    return producer.__distarray__()


def on_rank(rank, change):
    """A valid dict, broken by `change` on `rank` only."""
    d = good_dict()
    if comm.rank == rank:
        change(d)
    return d


def drop_stop(d):
    del d["dim_data"][0]["stop"]


def shift_start(d):
    d["dim_data"][0]["start"] += 1
    d["dim_data"][0]["stop"] += 1


def read_only(d):
    d["buffer"] = d["buffer"].copy()
    d["buffer"].flags.writeable = False


def int32_buffer(d):
    d["buffer"] = d["buffer"].astype(np.int32)


def two_dimensional(d):
    d["buffer"] = d["buffer"].reshape(-1, 1)
    d["dim_data"] = d["dim_data"] + ({},)


def bad_version(d):
    d["__version__"] = "1.0.0"


def not_a_dict(d):
    d["dim_data"] = (3,)


def missing_buffer(d):
    del d["buffer"]


def float_indices(d):
    d["dim_data"] = ({"dist_type": "u", "size": 10, "proc_grid_size": P,
                      "proc_grid_rank": comm.rank, "indices": [1.5]},)


def unknown_dist_type(d):
    d["dim_data"][0]["dist_type"] = "x"


def no_dimensions(d):
    d["dim_data"] = ()


def bytes_buffer(d):
    d["buffer"] = b"12345678"


def bad_padding(d):
    d["dim_data"][0]["padding"] = "xy"


def string_periodic(d):
    d["dim_data"][0]["periodic"] = "no"


@pytest.mark.parametrize("change,fragment", [
    (float_indices, "'indices' are not integers"),
    (unknown_dist_type, "'x' is none of"),
    (no_dimensions, "dim_data length"),
    (bytes_buffer, "read-only"),
    (bad_padding, "dim_data[0]: 'padding' is not an integer"),
    (string_periodic, "dim_data[0]: 'periodic' is not a boolean"),
    (drop_stop, "'stop' is missing"),
    (shift_start, "DAP rule"),
    (read_only, "read-only"),
    (int32_buffer, "format"),
    (two_dimensional, "differ"),
    (bad_version, "version"),
    (not_a_dict, "not a dict"),
    (missing_buffer, "'buffer' is missing"),
])
@pytest.mark.parametrize("rank", [0, "last"])
def test_malformed_descriptors_raise_on_every_rank(change, fragment, rank):
    if change is two_dimensional and P == 1:
        pytest.skip("one process agrees with itself: a valid 2-D descriptor")
    d = on_rank(P - 1 if rank == "last" else 0, change)
    ok, messages = raises_everywhere(lambda: adlib.from_distarray(d), fragment)
    assert everywhere(ok), messages


def test_a_fortran_order_buffer_on_one_rank_raises_everywhere():
    d = DapArray(comm, [P], [("block", 6), ("undistributed", 4)]).__distarray__()
    if comm.rank == P - 1:
        d["buffer"] = np.asfortranarray(d["buffer"])
    ok, messages = raises_everywhere(lambda: adlib.from_distarray(d), "C order")
    assert everywhere(ok), messages


def test_a_producer_that_raises_raises_on_every_rank():
    class Broken:
        def __distarray__(self):
            if comm.rank == P - 1:
                raise ValueError("no descriptor here")
            return good_dict()

    ok, messages = raises_everywhere(lambda: adlib.from_distarray(Broken()), "no descriptor here")
    assert everywhere(ok), messages


def test_the_example_of_the_docs():
    # docs/python.md shows these lines.
    producer = DapArray(comm, [comm.size], [("block", 12)])  # any DAP producer
    producer.local[...] = producer.global_of_position[0]
    a = adlib.from_distarray(producer)  # collective; a's memory is producer.local
    grid = adlib.ProcessGrid(comm, [comm.size])
    native = adlib.DistArray(grid, [adlib.cyclic(12)])
    adlib.remap(native, a)  # into adlib's own distribution
    dap = native.__distarray__()  # '__version__', 'buffer' (no copy), 'dim_data'
    assert everywhere(np.array_equal(native.local, native.global_indices[0]) and
                      np.shares_memory(dap["buffer"], native.local_with_ghosts) or
                      native.local.size == 0)
