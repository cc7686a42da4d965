# SPDX-License-Identifier: BSD-3-Clause
"""Helpers the Python tests share: verdicts agreed across ranks (a failure on
one rank fails the test on every rank, so no rank is left waiting in a
collective), and references computed from global indices."""
import numpy as np
from mpi4py import MPI

import adlib

comm = MPI.COMM_WORLD


def everywhere(ok):
    """True when `ok` holds on every rank (collective)."""
    return comm.allreduce(bool(ok), op=MPI.LAND)


def reference(shape, dtype, *index, offset=0):
    """The value every test stores at global index `index` of an array of
    `shape`: its C-order position plus 1 + offset (so zeros stand out), with
    an imaginary part for complex types."""
    linear = np.zeros(np.broadcast(*index).shape, dtype=np.int64) if index else 0
    for g, n in zip(index, shape):
        linear = linear * n + g
    value = linear + 1 + offset
    if np.dtype(dtype).kind == "c":
        return (value + 1j * (value % 7)).astype(dtype)
    return np.asarray(value).astype(dtype)


def fill_reference(a, offset=0):
    """Sets a's owned elements to reference() of their global indices."""
    a.local[...] = reference(a.shape, a.dtype, *a.global_index_grid(), offset=offset)


def local_matches(a, offset=0):
    """Does every owned element of `a` hold reference()?  (this rank only)"""
    expected = reference(a.shape, a.dtype, *a.global_index_grid(), offset=offset)
    return a.local.shape == tuple(len(g) for g in a.global_indices) and np.array_equal(
        a.local, np.broadcast_to(expected, a.local.shape))


def raises_everywhere(action, *fragments):
    """Runs `action` on every rank; True when it raised adlib.Error on every
    rank with a message containing every fragment (collective)."""
    try:
        action()
        message = None
    except adlib.Error as e:
        message = str(e)
    messages = comm.allgather(message)
    return all(m is not None and all(f in m for f in fragments) for m in messages), messages
