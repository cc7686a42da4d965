# SPDX-License-Identifier: BSD-3-Clause
"""A d2o-style workflow from a plain Python script: a 2-D field distributed
over a process grid, a halo exchange and a diffusion step per iteration in
numpy on the local block, and every few steps a remap of the field to whole
rows on each process (a redistribution, as d2o does between strategies) to
compute the row means.  Checked at the end against the same steps on the
whole array in plain numpy.

    mpiexec -n 4 /usr/bin/python3 python/examples/d2o_workflow.py --n 48 --steps 20
"""
import argparse
import sys

import numpy as np
from mpi4py import MPI

import adlib


def initial(i, j, n):
    """The initial field at global indices (i, j)."""
    return np.sin(2 * np.pi * i / n) * np.cos(4 * np.pi * j / n) + (i == j)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=48)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--every", type=int, default=5)
    args = parser.parse_args()
    n, comm = args.n, MPI.COMM_WORLD
    say = print if comm.rank == 0 else (lambda *a, **k: None)

    # The field: blocks in both dimensions, one ghost cell, periodic.
    grid = adlib.ProcessGrid.balanced(comm, 2)
    spec = adlib.block(n).ghosts(1).periodic()
    u = adlib.DistArray(grid, [spec, spec])
    i, j = u.global_index_grid()
    u.local[...] = initial(i, j, n)
    # Whole rows on each process: rows dealt cyclically, columns not distributed.
    rows = adlib.DistArray(grid, [adlib.cyclic(n), adlib.collapsed(n)])

    halo = adlib.WriteHalo(u)          # planned once ...
    to_rows = adlib.Remap(rows, u)     # ... executed every step
    ghosted, inner = u.local_with_ghosts, u.owned_slices
    up = tuple(slice(s.start - 1, s.stop - 1) for s in inner[:1]) + inner[1:]
    down = tuple(slice(s.start + 1, s.stop + 1) for s in inner[:1]) + inner[1:]
    left = inner[:1] + tuple(slice(s.start - 1, s.stop - 1) for s in inner[1:])
    right = inner[:1] + tuple(slice(s.start + 1, s.stop + 1) for s in inner[1:])
    nu = 0.2
    for step in range(1, args.steps + 1):
        halo.execute(u)                # ghosts <- neighbours (periodic)
        laplacian = ghosted[up] + ghosted[down] + ghosted[left] + ghosted[right] - 4 * u.local
        u.local[...] += nu * laplacian
        if step % args.every == 0 or step == args.steps:
            to_rows.execute(rows, u)
            means = rows.local.mean(axis=1)  # rows.global_indices[0] says which rows
            total, peak = adlib.sum(u), adlib.maxval(u)
            say("step %3d  sum %.12f  max %.6f  max row mean %.6f" %
                (step, total, peak, comm.allreduce(means.max(initial=-np.inf), op=MPI.MAX)))

    # The same steps on the whole array in plain numpy.
    gi, gj = np.ix_(np.arange(n), np.arange(n))
    ref = initial(gi, gj, n)
    for _ in range(args.steps):
        ref = ref + nu * (np.roll(ref, 1, 0) + np.roll(ref, -1, 0) + np.roll(ref, 1, 1) +
                          np.roll(ref, -1, 1) - 4 * ref)
    error = comm.allreduce(float(np.abs(u.local - ref[np.ix_(*u.global_indices)]).max(initial=0)),
                           op=MPI.MAX)
    row_error = comm.allreduce(
        float(np.abs(rows.local - ref[rows.global_indices[0], :]).max(initial=0)), op=MPI.MAX)
    ok = error < 1e-12 and row_error < 1e-12
    say("check against numpy: max difference %.3g (field), %.3g (rows): %s" %
        (error, row_error, "ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
