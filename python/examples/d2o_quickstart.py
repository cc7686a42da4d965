# SPDX-License-Identifier: BSD-3-Clause
"""The examples of docs/d2o.md (run by ctest at 1 to 4 ranks; every line the
page shows is a line of this file), checked against numpy on the whole
array.

    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \\
        mpirun --oversubscribe -np 4 /usr/bin/python3 python/examples/d2o_quickstart.py
"""
import sys

import numpy as np
from mpi4py import MPI

import adlib
import adlib.d2o as d2o

comm = MPI.COMM_WORLD
a = np.arange(24.0).reshape(6, 4)

obj = d2o.distributed_data_object(a)              # 'fftw' slabs of rows
p = d2o.distributed_data_object(a, distribution_strategy="equal")
local_rows = obj.data                             # this process's rows: numpy, no copy

q = obj * 2 + p                                   # p redistributed (a Remap planned once)
q += 1                                            # in place, on the blocks
r = np.sqrt(q)                                    # numpy ufuncs return objects too
total = q.sum()                                   # a number, the same everywhere
column_sums = q.sum(axis=0)                       # a replicated ('not') object
row_means = q.mean(axis=1)                        # rows stay where they are
full = q.get_full_data()                          # the whole array on every process

every_other = q[1:6:2, ::-1]                      # each process keeps its rows: no messages
backwards = q[::-1]                               # the same, the processes in reverse order
corner = q[0, 3]                                  # a number, from the process holding it
q[::2, 0] = 0.0                                   # each process writes what it holds

rows = q[[5, 0, 2]]                               # index arrays: an adlib Gather, planned once
picked = q[np.array([0, 3, 5]), np.array([1, 1, 2])]  # elements
wanted = d2o.distributed_data_object(np.array([4, 4, 1]), distribution_strategy="equal")
by_object = q[wanted]                             # split like the key object
q[[0, 4], 3] = -1.0                               # each process writes the items it holds
own = q.get_data(np.array([comm.rank % 6]), local_keys=True)  # each process its own key

grid = adlib.ProcessGrid(comm, [comm.size, 1])
cyclic_rows = q.to_adlib(grid, [adlib.block_cyclic(6, 2), adlib.block(4).ghosts(1)])
adlib.write_halo(cyclic_rows)                      # any adlib schedule on it
back = d2o.from_adlib(cyclic_rows, distribution_strategy="equal")

tiles = d2o.Layout(adlib.ProcessGrid.balanced(comm, 2),  # any adlib layout ...
                   [adlib.block_cyclic(6, 2), adlib.block(4).ghosts(1)])
t = d2o.distributed_data_object(a, distribution_strategy=tiles)  # ... as the split
u = t * 3 + 1 - q                                 # on the tiles; q comes by one Remap
tile_total = u.sum()                              # each tile folded, one allreduce
u_rows = u[1:5]                                   # by rows: on an 'equal' copy of u
halo = t.to_adlib()                               # the layout, ghosts included
adlib.write_halo(halo)                            # for adlib's schedules

mine = np.full((comm.rank + 1, 4), float(comm.rank))
f = d2o.distributed_data_object(local_data=mine, distribution_strategy="freeform")

try:
    d2o.distributed_data_object(global_shape=(4 + (comm.rank == comm.size - 1), 2))
    disagreement = None
except ValueError as error:                       # raised on every process when P > 1
    disagreement = str(error)

# Every collective call first, on every process; then the comparisons (a
# comparison that fails must not make one process skip a collective call).
gathered = {name: value.get_full_data() for name, value in [
    ("r", r), ("column_sums", column_sums), ("row_means", row_means),
    ("every_other", every_other), ("rows", rows), ("picked", picked),
    ("by_object", by_object), ("q", q), ("backwards", backwards), ("back", back),
    ("u", u), ("u_rows", u_rows)]}
expected = 3 * a + 1
checks = [
    np.array_equal(full, expected), np.allclose(gathered["r"], np.sqrt(expected)),
    total == expected.sum(), np.array_equal(gathered["column_sums"], expected.sum(axis=0)),
    np.allclose(gathered["row_means"], expected.mean(axis=1)),
    corner == expected[0, 3],
]
expected[::2, 0] = 0.0
checks += [
    np.array_equal(gathered["rows"], expected[[5, 0, 2]]),
    np.array_equal(gathered["picked"], expected[[0, 3, 5], [1, 1, 2]]),
    np.array_equal(gathered["by_object"], expected[[4, 4, 1]]),
    by_object.distributor.rows == wanted.distributor.rows,
]
expected[[0, 4], 3] = -1.0
checks += [
    np.array_equal(gathered["every_other"], expected[1:6:2, ::-1]),  # views, as in numpy
    np.array_equal(gathered["backwards"], expected[::-1]),
    np.array_equal(own.data, expected[[comm.rank % 6]]),
    np.array_equal(gathered["q"], expected),
    np.array_equal(gathered["back"], expected),
    np.array_equal(gathered["u"], 3 * a + 1 - expected),
    tile_total == (3 * a + 1 - expected).sum(),
    np.array_equal(gathered["u_rows"], (3 * a + 1 - expected)[1:5]),
    u.distribution_strategy == tiles, np.array_equal(halo.local, t.data),
    np.array_equal(local_rows, a[obj.distributor.local_slice()]),
    f.shape == (comm.size * (comm.size + 1) // 2, 4),
    (disagreement is not None) == (comm.size > 1),
]
ok = all(checks)
ok = comm.allreduce(ok, op=MPI.LAND)
if comm.rank == 0:
    print("d2o quick start: %s" % ("all checks passed" if ok else "FAILED"))
sys.exit(0 if ok else 1)
