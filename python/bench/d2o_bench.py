# SPDX-License-Identifier: BSD-3-Clause
"""PY-D2O-<op>-<n> (SCENARIOS.md): adlib.d2o's overhead against numpy, one
process.

The operations of the d2o paper's overhead table on a float64 array of 2^n
elements (n = 0, 2, ..., 22 by default), distribution_strategy='equal':
creation from a global shape, copy, copy_empty, sum, max, a + 0, a += a,
a[::-2].  Lines `adlib-d2o` and `numpy` (the same operation on a numpy
array of the same size) in the same run; timeit, best of 5 repeats of at
least ANCHORS_MIN_REP_S (0.2 s) each.  `relative` is numpy's time / adlib's
time, the paper's "relative performance" (d2o 2016: creation of shape (1,)
60 us against numpy's 0.4 us, copy 7.9 us, copy_empty 4.3 us, above 95 %
only from about 2^16 to 2^18 elements).  Each value is checked once before
timing.

    PYTHONPATH=build/python /usr/bin/python3 python/bench/d2o_bench.py \\
        [--sizes 0 10 14 16 20] [--jsonl FILE]

(one process: run it without mpirun, or with -np 1).
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


def best_us(statement):
    """timeit: the number of calls that lasts MIN_REPEAT_S, best of REPEATS
    repeats, per call in microseconds."""
    timer = timeit.Timer(statement)
    number = 1
    while True:  # calls per repeat: until one repeat lasts MIN_REPEAT_S
        elapsed = timer.timeit(number)
        if elapsed >= MIN_REPEAT_S:
            break
        number = max(number * 2, int(number * MIN_REPEAT_S / max(elapsed, 1e-9)))
    return min(timer.repeat(REPEATS, number)) / number * 1e6


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=list(range(0, 23, 2)),
                        help="exponents n of the 2^n-element arrays")
    parser.add_argument("--jsonl", help="append the JSON lines to this file")
    args = parser.parse_args()
    if MPI.COMM_WORLD.size != 1:
        raise SystemExit("PY-D2O runs on one process")
    lines = []
    print("%-22s %-10s %12s %12s %9s" % ("case", "op", "adlib_us", "numpy_us", "relative"))
    for exponent in args.sizes:
        n = 2 ** exponent
        for name, ours, theirs in operations(n):
            adlib_us, numpy_us = best_us(ours), best_us(theirs)
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
