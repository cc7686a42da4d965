# SPDX-License-Identifier: BSD-3-Clause
"""Gather / Scatter, reductions along a dimension and Broadcast from Python:
the snippets of docs/python.md (run by ctest at 1 to 4 ranks); every result
is checked against plain numpy, and the script fails if one differs."""
import numpy as np
from mpi4py import MPI

import adlib

comm = MPI.COMM_WORLD
line = adlib.ProcessGrid(comm, [comm.size])
n = 20
x = adlib.DistArray(line, [adlib.block(n)])
x.local[...] = x.global_indices[0] * 10.0     # x[g] = 10 g
checks = []

# Vector form: each rank its own subscripts (numpy int64), repeats allowed.
wanted = np.array([3, n - 1, 3, comm.rank], dtype=np.int64)
fetch = adlib.Gather(x, wanted)   # negotiated once (collective)
values = fetch.execute(x)         # values[k] = x[wanted[k]], a new numpy array
fetch.execute(x, out=values)      # ... or into an array of one's own
checks.append(np.array_equal(values, wanted * 10.0))

assemble = adlib.Scatter(x, wanted, "add")  # or adlib.Combine.add; min, max, product, replace
assemble.execute(x, np.ones(len(wanted)))   # x[wanted[k]] += 1, repeats too
adlib.scatter(x, wanted, np.ones(len(wanted)), adlib.Combine.max)  # one-shot

hits = np.zeros(n)
for r in range(comm.size):  # every rank's subscripts, as numpy sees them
    np.add.at(hits, [3, n - 1, 3, r], 1.0)
checks.append(np.array_equal(x.local, (np.arange(n) * 10.0 + hits)[x.global_indices[0]]))

# Array form: subscripts (int64) and mask (bool) distributed like the destination.
grid = adlib.ProcessGrid.balanced(comm, 2)
matrix = adlib.DistArray(grid, [adlib.block(6), adlib.cyclic(5)])
i, j = matrix.global_index_grid()
matrix.local[...] = i * 5 + j
picked = adlib.DistArray(line, [adlib.cyclic(n)])
rows = adlib.DistArray(line, [adlib.cyclic(n)], np.int64)
cols = adlib.DistArray(line, [adlib.cyclic(n)], np.int64)
rows.local[...] = picked.global_indices[0] % 6
cols.local[...] = picked.global_indices[0] % 5
even = adlib.DistArray(line, [adlib.cyclic(n)], bool)
even.local[...] = picked.global_indices[0] % 2 == 0
picked.local[...] = -1
pick = adlib.ArrayGather(picked, matrix, [rows, cols], mask=even)
pick.execute(picked, matrix)      # picked[k] = matrix[rows[k], cols[k]] where even[k]
adlib.scatter(matrix, picked, [rows, cols], mask=even, combine="add")  # the mirror, one-shot

k = np.arange(n)
expected = np.where(k % 2 == 0, (k % 6) * 5 + k % 5, -1.0)
checks.append(np.array_equal(picked.local, expected[picked.global_indices[0]]))
whole = np.arange(30.0).reshape(6, 5)
np.add.at(whole, (k[::2] % 6, k[::2] % 5), expected[::2])
checks.append(np.array_equal(matrix.local, whole[matrix.global_index_grid()]))

# Reductions along a dimension: plan once, execute many times.
down = adlib.DimensionReduction(matrix, 0)  # along dimension 0: column sums
sums = down.make_result()                   # length 5, replicated over axis 0
down.sum(sums, matrix)
where = down.make_result(np.int64)
down.maxloc(where, matrix)                  # the row of each column's largest element
counted = adlib.count_dim(matrix, 1)        # one-shots: sum_dim, maxval_dim, any_dim, ...

checks.append(np.array_equal(sums.local, whole.sum(axis=0)[sums.global_indices[0]]))
checks.append(np.array_equal(where.local, whole.argmax(axis=0)[where.global_indices[0]]))
checks.append(np.array_equal(counted.local,
                             (whole != 0).sum(axis=1)[counted.global_indices[0]]))

# Broadcast: a section with one owner, from it to every process of the group.
table = adlib.DistArray(line, [adlib.block(n), adlib.collapsed(3)])
table.local[...] = table.global_indices[0][:, None] * 3 + np.arange(3)
row = adlib.Broadcast(table, 7)             # table[7, :], planned once
copy = row.execute(table)                   # a numpy array on every process
pivot = adlib.broadcast_value(table, 7, 2)  # one element, on every process

checks.append(np.array_equal(copy, [21, 22, 23]) and pivot == 23)

if not comm.allreduce(all(checks), op=MPI.LAND):
    raise SystemExit("gather_scatter_reductions.py: a result differs from numpy: %s" % checks)
