# SPDX-License-Identifier: BSD-3-Clause
"""PY-D2O-<op>-<n> (SCENARIOS.md): adlib.d2o's overhead against numpy, one
process.

The operations of the d2o paper's overhead table on a float64 array of 2^n
elements (n = 0, 2, ..., 22 by default), distribution_strategy='equal':
creation from a global shape, copy, copy_empty, sum, max, a + 0, a += a,
a[::-2].  Lines `adlib-d2o` and `numpy` (the same operation on a numpy
array of the same size) in the same run; timeit, best of 5 repeats of at
least ANCHORS_MIN_REP_S (0.2 s) each, the two sides' repeats alternating.  `relative` is numpy's time / adlib's
time, the paper's "relative performance" (d2o 2016: creation of shape (1,)
60 us against numpy's 0.4 us, copy 7.9 us, copy_empty 4.3 us, above 95 %
only from about 2^16 to 2^18 elements).  Each value is checked once before
timing.

    PYTHONPATH=build/python /usr/bin/python3 python/bench/d2o_bench.py \\
        [--sizes 0 10 14 16 20] [--jsonl FILE]

(one process: run it without mpirun, or with -np 1).  With --weak, the
weak-scaling cases PY-D2O-WEAK-<op>: copy, copy_empty, sum(axis=0) (also
as mpi4py-hand: local sum + Allreduce), sum(axis=1), a + 0, a + b, a += a,
sqrt, on 1024 x 1024 float64 per process, 'equal', under mpirun at P = 1,
2, 4 (4 oversubscribed on 2 cores: say so); best of 5 repeats between
barriers, each the maximum over processes.
"""
import argparse
import os
import sys
import timeit

import numpy as np
from mpi4py import MPI

import adlib.d2o as d2o
from bench_output import append_jsonl

MIN_REPEAT_S = float(os.environ.get("ANCHORS_MIN_REP_S", "0.2"))
REPEATS = 5


def operations(n):
    """(name, adlib-d2o statement, numpy statement), each a callable, over
    arrays of n elements, checked once here."""
    a = np.arange(n, dtype=np.float64)
    obj = d2o.distributed_data_object(a, distribution_strategy="equal")
    # a += a on zeros: the values stay put over millions of calls (no
    # overflow to infinity), and zeros cost what any other value costs.
    inplace_a = np.zeros(n)
    inplace_obj = d2o.distributed_data_object(inplace_a, distribution_strategy="equal")
    checks = [
        np.array_equal(obj.copy().get_full_data(), a),
        obj.copy_empty().shape == (n,),
        obj.sum() == a.sum(), obj.max() == a.max(),
        np.array_equal((obj + 0).get_full_data(), a + 0),
        np.array_equal(obj[::-2].get_full_data(), a[::-2]),
        d2o.distributed_data_object(global_shape=(n,), distribution_strategy="equal").shape
        == (n,),
    ]
    if not all(checks):
        raise SystemExit("PY-D2O: adlib.d2o gave another value than numpy at n = %d" % n)

    def add_in_place(x):
        x += x

    return [
        ("create", lambda: d2o.distributed_data_object(global_shape=(n,),
                                                      distribution_strategy="equal"),
         lambda: np.empty((n,))),
        ("copy", obj.copy, a.copy),
        ("copy_empty", obj.copy_empty, lambda: np.empty_like(a)),
        ("sum", obj.sum, a.sum),
        ("max", obj.max, a.max),
        ("add0", lambda: obj + 0, lambda: a + 0),
        ("iadd", lambda: add_in_place(inplace_obj), lambda: add_in_place(inplace_a)),
        ("rev2", lambda: obj[::-2], lambda: a[::-2]),
    ]


def calls_per_repeat(timer):
    """How many calls one repeat makes: until it lasts MIN_REPEAT_S."""
    number = 1
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= MIN_REPEAT_S:
            return number
        number = max(number * 2, int(number * MIN_REPEAT_S / max(elapsed, 1e-9)))


def best_pair_us(ours, theirs):
    """timeit of both statements: the number of calls that lasts
    MIN_REPEAT_S each, best of REPEATS repeats, per call in microseconds.
    Their repeats alternate, so that a change of the host's speed during
    the measurement touches both sides of the ratio alike."""
    timers = [timeit.Timer(ours), timeit.Timer(theirs)]
    numbers = [calls_per_repeat(timer) for timer in timers]
    best = [float("inf"), float("inf")]
    for _ in range(REPEATS):
        for k in (0, 1):
            best[k] = min(best[k], timers[k].timeit(numbers[k]) / numbers[k] * 1e6)
    return best[0], best[1]


def weak_operations(comm, rows_per_process, columns):
    """PY-D2O-WEAK: (name, callable) over a float64 array of
    rows_per_process x columns elements per process, 'equal'; the
    collective ones are called by every process."""
    n0 = rows_per_process * comm.size
    obj = d2o.distributed_data_object(global_shape=(n0, columns), distribution_strategy="equal")
    obj.data[...] = 1.0
    other = obj.copy()
    accumulated = d2o.distributed_data_object(global_shape=(n0, columns),
                                              distribution_strategy="equal")
    accumulated.data[...] = 0.0
    if not (obj.sum(axis=0).get_full_data() == n0).all():
        raise SystemExit("PY-D2O-WEAK: sum(axis=0) gave another value")
    column_sums = np.empty(columns)

    def by_hand():  # the same reduction written with mpi4py: local sum, Allreduce
        comm.Allreduce(obj.data.sum(axis=0), column_sums, op=MPI.SUM)

    def add_in_place():
        accumulated.__iadd__(accumulated)

    return [
        ("copy", obj.copy), ("copy_empty", obj.copy_empty),
        ("sum_axis0", lambda: obj.sum(axis=0)), ("sum_axis0-mpi4py-hand", by_hand),
        ("sum_axis1", lambda: obj.sum(axis=1)), ("add0", lambda: obj + 0),
        ("add", lambda: obj + other), ("iadd", add_in_place), ("sqrt", lambda: np.sqrt(obj)),
    ]


def collective_best_us(comm, statement):
    """Best of REPEATS repeats between barriers, each at least MIN_REPEAT_S
    on process 0 (the count agreed), the time per call the maximum over
    processes, in microseconds."""
    number, elapsed = 1, 0.0
    while True:
        comm.Barrier()
        start = MPI.Wtime()
        for _ in range(number):
            statement()
        elapsed = comm.allreduce(MPI.Wtime() - start, op=MPI.MAX)
        if elapsed >= MIN_REPEAT_S:
            break
        number = max(number * 2, int(number * MIN_REPEAT_S / max(elapsed, 1e-9)))
    best = float("inf")
    for _ in range(REPEATS):
        comm.Barrier()
        start = MPI.Wtime()
        for _ in range(number):
            statement()
        best = min(best, comm.allreduce(MPI.Wtime() - start, op=MPI.MAX) / number)
    return best * 1e6


def weak(args):
    """PY-D2O-WEAK at this run's process count (compare the lines of runs at
    P = 1, 2, 4: relative performance = time at P = 1 / time at P)."""
    comm = MPI.COMM_WORLD
    lines = []
    if comm.rank == 0:
        print("%-34s %4s %12s" % ("case", "np", "us"))
    for name, statement in weak_operations(comm, 1024, 1024):
        value = collective_best_us(comm, statement)
        impl = "mpi4py-hand" if name.endswith("mpi4py-hand") else "adlib-d2o"
        case = "PY-D2O-WEAK-%s" % name.replace("-mpi4py-hand", "")
        lines.append({"case": case, "impl": impl, "best_us": value, "elements": 1 << 20,
                      "np": comm.size, "run": int(os.environ.get("ADLIB_BENCH_RUN", "1"))})
        if comm.rank == 0:
            print("%-34s %4d %12.1f  %s" % (case, comm.size, value, impl))
            sys.stdout.flush()
    if comm.rank == 0 and args.jsonl:
        append_jsonl(args.jsonl, lines, comm.size)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=list(range(0, 23, 2)),
                        help="exponents n of the 2^n-element arrays")
    parser.add_argument("--jsonl", help="append the JSON lines to this file")
    parser.add_argument("--weak", action="store_true",
                        help="PY-D2O-WEAK: 2^20 elements per process, any process count")
    args = parser.parse_args()
    if args.weak:
        weak(args)
        return
    if MPI.COMM_WORLD.size != 1:
        raise SystemExit("PY-D2O runs on one process (PY-D2O-WEAK: --weak)")
    lines = []
    print("%-22s %-10s %12s %12s %9s" % ("case", "op", "adlib_us", "numpy_us", "relative"))
    for exponent in args.sizes:
        n = 2 ** exponent
        for name, ours, theirs in operations(n):
            adlib_us, numpy_us = best_pair_us(ours, theirs)
            case = "PY-D2O-%s-%d" % (name, exponent)
            for impl, value in (("adlib-d2o", adlib_us), ("numpy", numpy_us)):
                lines.append({"case": case, "impl": impl, "best_us": value, "elements": n,
                              "np": 1, "run": int(os.environ.get("ADLIB_BENCH_RUN", "1"))})
            print("%-22s %-10s %12.3f %12.3f %8.1f%%" %
                  (case, name, adlib_us, numpy_us, 100.0 * numpy_us / adlib_us))
            sys.stdout.flush()
    if args.jsonl:
        append_jsonl(args.jsonl, lines, 1)


if __name__ == "__main__":
    main()
