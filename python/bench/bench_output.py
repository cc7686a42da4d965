# SPDX-License-Identifier: BSD-3-Clause
"""What the Python bench scripts (py_bench.py, d2o_bench.py) append to a
JSON-lines file: one meta line (processes, host, adlib, Python and numpy
versions), then one line per measurement, as the C++ bench writes them."""
import json
import os
import sys

import numpy as np

import adlib


def append_jsonl(path, lines, processes):
    """Appends the meta line and `lines` (dicts) to the file at `path`."""
    with open(path, "a") as out:
        out.write(json.dumps({"meta": True, "np": processes, "host": os.uname().nodename,
                              "adlib": adlib.__version__, "python": sys.version.split()[0],
                              "numpy": np.__version__}) + "\n")
        for line in lines:
            out.write(json.dumps(line) + "\n")
