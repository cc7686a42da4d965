# SPDX-License-Identifier: BSD-3-Clause
"""PY-<case> (SCENARIOS.md): the per-execution cost of the Python bridge.

H2D-512 (2-D halo exchange, P x 1 grid, box stencil, width 1, not periodic)
and RM1-65536 (1-D remap block -> cyclic), each planned once and executed
  adlib         N times in a C++ loop inside one call (the schedule's own cost)
  adlib-python  N times in a Python for loop, one call per execution
on the same arrays in the same run; the difference is what the bridge adds
per call.  Timing as bench/src/common.hpp's time_op: 10 timed warm-up calls,
iterations per repeat from their mean, 5 repeats between barriers, each
repeat's time per operation the maximum over ranks; median, min and max of
the repeats in microseconds.  Values are verified before and after timing.
After each repeat the host-mode probes of bench/src/common.cpp run (an 8-byte
ping-pong latency and a 512 KiB exchange of freshly written data, each the
maximum over ranks, the medians printed as lat_us and dirty_us): the two
lines of a case compare only when their probes match.  They are timed with
mpi4py on numpy buffers, which adds a little to lat_us compared with the C++
harness.

    source scripts/mpi-env
    mpirun -np 2 --bind-to core env PYTHONPATH=build/python \\
        /usr/bin/python3 python/bench/py_bench.py [--jsonl FILE]
"""
import argparse
import math
import os
import statistics
import sys

import numpy as np
from mpi4py import MPI

import adlib
from bench_output import append_jsonl

comm = MPI.COMM_WORLD
MIN_REPEAT_S = float(os.environ.get("ANCHORS_MIN_REP_S", "0.2"))


PROBE_TAG = 7001
DIRTY_DOUBLES = 512 * 1024 // 8
dirty_send = np.zeros(DIRTY_DOUBLES)
dirty_recv = np.zeros(DIRTY_DOUBLES)
generation = 0


def latency_probe(partner):
    word = np.zeros(1)
    first = comm.rank < partner

    def round_trip():
        if first:
            comm.Send(word, partner, PROBE_TAG)
            comm.Recv(word, partner, PROBE_TAG)
        else:
            comm.Recv(word, partner, PROBE_TAG)
            comm.Send(word, partner, PROBE_TAG)

    for _ in range(10):
        round_trip()
    t0 = MPI.Wtime()
    for _ in range(100):
        round_trip()
    return (MPI.Wtime() - t0) / 200 * 1e6


def dirty_probe(partner):
    global generation
    samples = []
    for _ in range(5):
        # Rewritten whole, so its cache lines are dirty when MPI reads them.
        generation += 1
        np.add(np.arange(DIRTY_DOUBLES, dtype=np.float64), generation, out=dirty_send)
        comm.Sendrecv(dirty_send[:0], partner, PROBE_TAG, dirty_recv[:0], partner, PROBE_TAG)
        t0 = MPI.Wtime()
        comm.Sendrecv(dirty_send, partner, PROBE_TAG, dirty_recv, partner, PROBE_TAG)
        samples.append((MPI.Wtime() - t0) * 1e6)
    return statistics.median(samples)


def probes():
    """(lat_us, dirty_us), each the maximum over ranks (0 without a partner)."""
    partner = comm.rank ^ 1
    lat = dirty = 0.0
    if partner < comm.size:
        lat = latency_probe(partner)
        dirty = dirty_probe(partner)
    return comm.allreduce(lat, op=MPI.MAX), comm.allreduce(dirty, op=MPI.MAX)


def time_op(run):
    """run(n) executes the operation n times; returns (median, min, max,
    lat_us, dirty_us): times per operation in us, probe medians."""
    comm.Barrier()
    t0 = MPI.Wtime()
    run(10)
    warm = comm.allreduce((MPI.Wtime() - t0) / 10, op=MPI.MAX)
    if 200 * warm >= 1.0:
        n = math.ceil(1.0 / warm)
    else:
        n = max(200, math.ceil(MIN_REPEAT_S / max(warm, 1e-9)))
    repeats, lat, dirty = [], [], []
    for _ in range(5):
        comm.Barrier()
        t0 = MPI.Wtime()
        run(n)
        t1 = MPI.Wtime()
        repeats.append(comm.allreduce((t1 - t0) / n, op=MPI.MAX) * 1e6)
        probe = probes()
        lat.append(probe[0])
        dirty.append(probe[1])
    return (statistics.median(repeats), min(repeats), max(repeats), statistics.median(lat),
            statistics.median(dirty))


def probes_match(a, b):
    """Within 30% of each other: the same host mode (they differ by 2x)."""
    return max(a, b) <= 1.3 * min(a, b) if min(a, b) > 0 else a == b


def fail(case, what):
    sys.stderr.write("py_bench: %s: %s [rank %d]\n" % (case, what, comm.rank))
    comm.Abort(3)


def h2d(n):
    case = "PY-H2D-%d" % n
    grid = adlib.ProcessGrid(comm, [comm.size, 1])
    u = adlib.DistArray(grid, [adlib.block(n).ghosts(1), adlib.block(n).ghosts(1)])
    i, j = u.global_index_grid()
    gi, gj = np.ix_(*u.ghost_global_indices)
    inside = (gi >= 0) & (gi < n) & (gj >= 0) & (gj < n)
    expected = np.where(inside, (gi * n + gj).astype(np.float64), -1.0)
    halo = adlib.WriteHalo(u)

    def poison_and_fill():
        u.local_with_ghosts[...] = -1
        u.local[...] = i * n + j

    def verify(when):
        if not np.array_equal(u.local_with_ghosts, expected):
            fail(case, "wrong ghost cells " + when)

    poison_and_fill()
    halo.execute(u)
    verify("after one execution")
    cpp = lambda times: halo._execute_loop(u, times)  # noqa: E731

    def python(times):
        for _ in range(times):
            halo.execute(u)

    results = []
    for impl, run in (("adlib", cpp), ("adlib-python", python)):
        poison_and_fill()
        results.append((impl, time_op(run)))
        verify("after timing " + impl)
    return case, results, n * 8


def rm1(n):
    case = "PY-RM1-%d" % n
    grid = adlib.ProcessGrid(comm, [comm.size])
    src = adlib.DistArray(grid, [adlib.block(n)])
    dst = adlib.DistArray(grid, [adlib.cyclic(n)])
    src.local[...] = src.global_indices[0]
    expected = dst.global_indices[0].astype(np.float64)
    remap = adlib.Remap(dst, src)

    def verify(when):
        if not np.array_equal(dst.local, expected):
            fail(case, "wrong destination " + when)

    dst.local[...] = -1
    remap.execute(dst, src)
    verify("after one execution")
    cpp = lambda times: remap._execute_loop(dst, src, times)  # noqa: E731

    def python(times):
        for _ in range(times):
            remap.execute(dst, src)

    results = []
    for impl, run in (("adlib", cpp), ("adlib-python", python)):
        dst.local[...] = -1
        results.append((impl, time_op(run)))
        verify("after timing " + impl)
    return case, results, len(expected) * 8


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--jsonl", help="append the JSON lines to this file")
    args = parser.parse_args()
    lines = []
    if comm.rank == 0:
        print("%-16s %-13s %10s %10s %10s %9s %7s %7s %8s" %
              ("case", "impl", "median_us", "min_us", "max_us", "bytes", "GB/s", "lat_us",
               "dirty_us"))
    for case, results, nbytes in (h2d(512), rm1(65536)):
        cpp_median, cpp_lat, cpp_dirty = (results[0][1][k] for k in (0, 3, 4))
        for impl, (median, lo, hi, lat, dirty) in results:
            line = {"case": case, "impl": impl, "median_us": median, "min_us": lo, "max_us": hi,
                    "bytes": nbytes, "GBps": nbytes / (median * 1e3), "np": comm.size,
                    "probe_lat_us": lat, "probe_dirty_us": dirty,
                    "run": int(os.environ.get("ADLIB_BENCH_RUN", "1"))}
            if impl == "adlib-python":
                line["bridge_overhead_us"] = median - cpp_median
            lines.append(line)
            if comm.rank == 0:
                extra = ""
                if impl == "adlib-python":
                    extra = "  bridge %+.2f us" % (median - cpp_median)
                    # Another host mode between the two lines: no comparison.
                    if not probes_match(lat, cpp_lat) or not probes_match(dirty, cpp_dirty):
                        extra += " (probes differ from the adlib line: compare another run)"
                print("%-16s %-13s %10.2f %10.2f %10.2f %9d %7.2f %7.2f %8.1f%s" %
                      (case, impl, median, lo, hi, nbytes, line["GBps"], lat, dirty, extra))
    if comm.rank == 0 and args.jsonl:
        append_jsonl(args.jsonl, lines, comm.size)


if __name__ == "__main__":
    main()
