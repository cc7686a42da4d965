# SPDX-License-Identifier: BSD-3-Clause
"""The Python quick start of docs/python.md (run by ctest at 1 to 4 ranks):
every line the page shows is a line of this file."""
import numpy as np
from mpi4py import MPI

import adlib

comm = MPI.COMM_WORLD
grid = adlib.ProcessGrid.balanced(comm, 2)  # all ranks, 2 axes
n, m = 12, 10
u = adlib.DistArray(grid, [adlib.block(n).ghosts(1), adlib.block(m).ghosts(1).periodic()])
v = adlib.DistArray(grid, [adlib.cyclic(n), adlib.collapsed(m)], dtype=np.float64)

i, j = u.global_index_grid()   # global indices of u.local, as numpy.ix_
u.local[...] = i * m + j       # u.local: numpy over adlib's memory, no copy

halo = adlib.WriteHalo(u)      # plan once (collective) ...
remap = adlib.Remap(v, u)
for step in range(3):
    halo.execute(u)            # ... execute many times: ghosts filled
    remap.execute(v, u)        # v = u, rows dealt cyclically
    u.local[...] += 1

total = adlib.sum(v)           # the same value on every rank

try:
    adlib.Remap(adlib.DistArray(grid, [adlib.block(n + 1), adlib.block(m)]), u)
except adlib.Error as error:   # bad arguments: raised on every rank
    message = str(error)       # "adlib: Remap: shape mismatch: ..."

expected = sum(g * m + h + 2 for g in range(n) for h in range(m))
if comm.rank == 0:
    print("sum", total, "expected", expected, "error:", message)
assert total == expected and "shape mismatch" in message
