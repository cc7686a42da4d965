# SPDX-License-Identifier: BSD-3-Clause
"""A mistake on one rank is an exception on every rank: the package's own
argument checks (dtype, number of dimensions, non-array arguments, combine
names, subscripts) are agreed, and so are the layouts a reduction or a
broadcast is built for.  Each case is made on the last rank only; every rank
must raise the same class with the same message, and a collective after it
must still work."""
import re

import numpy as np
import pytest

import adlib
from mpi_check import comm, everywhere

P = comm.size
odd = comm.rank == P - 1


def raised_everywhere(action, kind, *fragments):
    """Runs `action` on every rank; True when each raised `kind` with the
    same message (but for the "[rank r]" of what() that says where it
    was found) containing every fragment (collective)."""
    try:
        action()
        got = None
    except Exception as e:  # noqa: BLE001 (the class is what is checked)
        got = (type(e).__name__, re.sub(r" \[rank \d+\]$", "", str(e)))
    everyone = comm.allgather(got)
    ok = all(g is not None and g[0] == kind.__name__ and g[1] == everyone[0][1]
             and all(f in g[1] for f in fragments) for g in everyone)
    return ok, everyone


def still_in_step(grid):
    a = adlib.DistArray(grid, [adlib.block(4 * P + 1)])
    a.local[...] = 1.0
    return adlib.sum(a) == 4 * P + 1


@pytest.mark.parametrize("case", ["dtype", "wrap", "rank", "not_an_array", "combine",
                                  "subscripts", "dimension_reduction_rank_1", "broadcast_key"])
def test_a_mistake_on_one_rank_raises_on_every_rank(case):
    grid = adlib.ProcessGrid(comm, [P])
    a = adlib.DistArray(grid, [adlib.block(8)])
    a.local[...] = 0.0
    cases = {
        "dtype": (lambda: adlib.DistArray(grid, [adlib.block(8)], "int8" if odd else "float64"),
                  TypeError, "adlib arrays hold"),
        "wrap": (lambda: adlib.wrap(grid, [adlib.block(8)],
                                    [1, 2] if odd else np.zeros(len(a.local))),
                 TypeError, "adlib.wrap takes a numpy array"),
        "rank": (lambda: adlib.DistArray(grid, [adlib.block(2)] * (4 if odd else 1)),
                 adlib.Error, "rank 1 to 3"),
        "not_an_array": (lambda: adlib.Remap(a, "a" if odd else a), TypeError,
                         "takes adlib arrays"),
        "combine": (lambda: adlib.Scatter(a, [], "sum" if odd else "add"), ValueError,
                    "combine must be one of"),
        "subscripts": (lambda: adlib.Gather(a, [0.5] if odd else [0]), TypeError,
                       "subscripts are integers"),
        "dimension_reduction_rank_1": (
            lambda: adlib.DimensionReduction(
                a if odd else adlib.DistArray(grid, [adlib.block(8), adlib.collapsed(2)]), 0),
            adlib.Error, "whole-array reduction"),
        "broadcast_key": (lambda: adlib.broadcast_value(a, 9 if odd else 3), adlib.Error,
                          "out of range"),
    }
    action, kind, fragment = cases[case]
    # At one rank the mistake is everywhere, which must raise the same way.
    ok, everyone = raised_everywhere(action, kind, fragment)
    assert everywhere(ok), everyone
    assert everywhere(still_in_step(grid))


def test_layout_differing_on_one_rank_is_an_error_for_reductions_and_broadcasts():
    if P == 1:
        pytest.skip("needs two ranks to disagree")
    grid = adlib.ProcessGrid(comm, [P])
    a = adlib.DistArray(grid, [adlib.block(11 if odd else 10)])
    a.local[...] = 1.0
    ok, everyone = raised_everywhere(lambda: adlib.sum(a), adlib.Error,
                                     "arguments differ between ranks: layout: ")
    assert everywhere(ok), everyone
    x = adlib.DistArray(grid, [adlib.block(10)])
    x.local[...] = x.global_indices[0]
    ok, everyone = raised_everywhere(lambda: adlib.broadcast_value(x, 4 if odd else 3),
                                     adlib.Error, "section: ")
    assert everywhere(ok), everyone
    assert everywhere(adlib.broadcast_value(x, 4) == 4.0)


def test_incompatible_arguments_are_described_in_user_terms():
    """pybind11's "incompatible function arguments" (C++ signatures) becomes a
    TypeError that says what the object was made for and what it was given,
    on the rank that passed it (the same mistake everywhere here: a call on
    an object already built is not agreed)."""
    grid = adlib.ProcessGrid(comm, [P])
    a = adlib.DistArray(grid, [adlib.block(8)])
    c = adlib.DistArray(grid, [adlib.cyclic(8)])
    remap = adlib.Remap(c, a)
    single = adlib.DistArray(grid, [adlib.block(8)], np.float32)
    with pytest.raises(TypeError, match=re.escape(
            "Remap.execute: this Remap was made for adlib arrays of float64, rank 1; it was "
            "given an adlib array of float64, rank 1; an adlib array of float32, rank 1")):
        remap.execute(c, single)
    with pytest.raises(TypeError, match="a numpy array of float64, shape"):
        adlib.WriteHalo(a).execute(np.zeros(3))
    with pytest.raises(TypeError, match="ArrayReduction.sum: this ArrayReduction was made for "
                                        "adlib arrays of float64, rank 1"):
        adlib.ArrayReduction(a).sum(single)
    remap.execute(c, a)  # the right arrays still work
    assert everywhere(True)


@pytest.mark.parametrize("case", ["extent", "layout", "dtype", "combine", "key", "width",
                                  "boundary", "shift_amount", "dimension", "mask_presence",
                                  "subscripts_layout"])
def test_misuse_matrix_arguments_that_differ_between_ranks(case):
    """One case per collective argument that can differ between ranks, each
    valid on its own rank: an adlib.Error on every rank, with the same
    message naming the disagreement, and the communicator still in step."""
    if P == 1:
        pytest.skip("needs two ranks to disagree")
    grid = adlib.ProcessGrid(comm, [P])
    n = 4 * P + 3
    u = adlib.DistArray(grid, [adlib.block(n).ghosts(2).periodic()])
    v = adlib.DistArray(grid, [adlib.block(n).ghosts(2).periodic()])
    c = adlib.DistArray(grid, [adlib.cyclic(n)])
    m = adlib.DistArray(adlib.ProcessGrid(comm, [P, 1]), [adlib.block(n), adlib.collapsed(3)])
    s = adlib.DistArray(grid, [adlib.cyclic(n)], np.int64)
    s.local[...] = n - 1 - s.global_indices[0]
    s_block = adlib.DistArray(grid, [adlib.block(n)], np.int64)
    s_block.local[...] = n - 1 - s_block.global_indices[0]
    mask = adlib.DistArray(grid, [adlib.cyclic(n)], bool)
    y = adlib.DistArray(grid, [adlib.cyclic(n)])
    y_block = adlib.DistArray(grid, [adlib.block(n)])
    mine = list(range(comm.rank, n, P))
    u_longer = adlib.DistArray(grid, [adlib.block(n + 1)])
    c_longer = adlib.DistArray(grid, [adlib.cyclic(n + 1)])
    single_c = adlib.DistArray(grid, [adlib.cyclic(n)], np.float32 if odd else np.float64)
    single_u = adlib.DistArray(grid, [adlib.block(n)], np.float32 if odd else np.float64)
    cases = {
        "extent": (lambda: adlib.Remap(c_longer if odd else c, u_longer if odd else u),
                   "destination layout: "),
        "layout": (lambda: adlib.Remap(u if odd else c, v), "destination layout: "),
        "dtype": (lambda: adlib.Remap(single_c, single_u), "element type: "),
        "combine": (lambda: adlib.Scatter(c, mine, "max" if odd else "add"),
                    "differ between ranks"),
        "key": (lambda: adlib.broadcast_value(c, 1 if odd else 0), "section: "),
        "width": (lambda: adlib.WriteHalo(u, [1 if odd else 2], [1 if odd else 2],
                                          [adlib.Boundary.cyclic]),
                  "halo widths and boundaries: "),
        "boundary": (lambda: adlib.WriteHalo(u, [1], [1], [adlib.Boundary.mirror if odd
                                                          else adlib.Boundary.cyclic]),
                     "halo widths and boundaries: "),
        "shift_amount": (lambda: adlib.Shift(v, u, 2 if odd else 1, 0), "amount: "),
        "dimension": (lambda: adlib.DimensionReduction(m, 1 if odd else 0), "dimension: "),
        "mask_presence": (lambda: adlib.ArrayGather(y, c, [s], mask if odd else None),
                          "differ between ranks"),
        "subscripts_layout": (lambda: adlib.ArrayGather(y_block if odd else y, c,
                                                        [s_block if odd else s]),
                              "differ between ranks"),
    }
    action, fragment = cases[case]
    ok, everyone = raised_everywhere(action, adlib.Error, fragment)
    assert everywhere(ok), everyone
    assert everywhere(still_in_step(grid))


def test_ranks_in_a_python_check_and_a_collective_are_told_which_each_entered():
    """Regression: a rank in the package's own agreement (here making an
    array) while the others build a Remap got an adlib.Error with an empty
    message; every rank now gets the "operation: ..." disagreement."""
    if P == 1:
        pytest.skip("needs two ranks to disagree")
    grid = adlib.ProcessGrid(comm, [P])
    a = adlib.DistArray(grid, [adlib.block(8)])
    c = adlib.DistArray(grid, [adlib.cyclic(8)])
    try:
        if odd:
            adlib.DistArray(grid, [adlib.block(8)])
        else:
            adlib.Remap(c, a)
        message = None
    except adlib.Error as error:
        message = str(error)
    everyone = comm.allgather(message)
    assert everywhere(all(m and "arguments differ between ranks: operation: " in m
                          and "Python argument checks of adlib.DistArray on rank" in m
                          for m in everyone)), everyone
    assert everywhere(still_in_step(grid))
