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

mine = np.full((comm.rank + 1, 4), float(comm.rank))
f = d2o.distributed_data_object(local_data=mine, distribution_strategy="freeform")

try:
    d2o.distributed_data_object(global_shape=(4 + (comm.rank == comm.size - 1), 2))
    disagreement = None
except ValueError as error:                       # raised on every process when P > 1
    disagreement = str(error)

expected = 3 * a + 1
ok = np.array_equal(full, expected) and np.allclose(r.get_full_data(), np.sqrt(expected))
ok = ok and total == expected.sum() and np.array_equal(column_sums.get_full_data(),
                                                       expected.sum(axis=0))
ok = ok and np.allclose(row_means.get_full_data(), expected.mean(axis=1))
ok = ok and np.array_equal(every_other.get_full_data(), expected[1:6:2, ::-1])
ok = ok and corner == expected[0, 3]
expected[::2, 0] = 0.0
ok = ok and np.array_equal(q.get_full_data(), expected)
ok = ok and np.array_equal(backwards.get_full_data(), expected[::-1])  # a view, as in numpy
ok = ok and np.array_equal(local_rows, a[obj.distributor.local_slice()])
ok = ok and f.shape == (comm.size * (comm.size + 1) // 2, 4)
ok = ok and (disagreement is not None) == (comm.size > 1)
ok = comm.allreduce(ok, op=MPI.LAND)
if comm.rank == 0:
    print("d2o quick start: %s" % ("all checks passed" if ok else "FAILED"))
sys.exit(0 if ok else 1)
