#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every case of a bench run against its baseline, its floor and its peers:
a Markdown table and a PNG plot (docs/performance.md is made with it).

    bench/performance_table.py RESULTS.jsonl   writes RESULTS-performance.md/.png

For each case the op lines (kind "op") of every run (each meta line starts
one) give, per impl, the median time; the table shows adlib's time (median
over the runs, then min-max), and for every other impl its time and the
ratio adlib / impl in each run, so that "in every run" can be read off.
The baseline of a case is its first mpi-* impl (bench/README.md names them),
the floor its "floor" line, peers the petsc-*, tpetra-* and scalapack-*
lines; a "-fresh" line is compared with adlib-fresh.  Set-up lines go to a second table (adlib:setup against every other
:setup line).  A run's cell is marked "~" where its probes are more than
PROBE_TOLERANCE off the median probes of all cells of that case (the host
changed mode under it: bench/README.md), "!" where cpu_share < 0.9.

The plot: adlib / baseline and adlib / fastest peer per case, one marker per
run (needs python3-matplotlib; skipped with a message otherwise).
"""
import json
import os
import statistics
import sys

PROBE_TOLERANCE = 1.5
CLEAN_CPU_SHARE = 0.9


def read_runs(path):
    runs, current = [], None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            record = json.loads(line)
            if record.get("meta"):
                current = {"meta": record, "lines": []}
                runs.append(current)
            elif current is not None:
                current["lines"].append(record)
    return runs


def is_peer(impl):
    return impl.split(":")[0].split("-")[0] in ("petsc", "tpetra", "scalapack")


def mark(line, probes):
    lat, dirty = probes
    flags = ""
    for value, median in ((line.get("probe_lat_us", 0), lat), (line.get("probe_dirty_us", 0), dirty)):
        if median > 0 and value > 0 and max(value / median, median / value) > PROBE_TOLERANCE:
            flags = "~"
    if line.get("cpu_share", 1) < CLEAN_CPU_SHARE:
        flags += "!"
    return flags


def tables(runs, kind):
    # times[case][impl] = [line of run 0, line of run 1, ...] (None where absent)
    cases = {}
    for r, run in enumerate(runs):
        for line in run["lines"]:
            if line.get("kind") != kind:
                continue
            impls = cases.setdefault(line["case"], {})
            impls.setdefault(line["impl"], [None] * len(runs))[r] = line
    rows = []
    for case, impls in cases.items():
        adlib_name = "adlib" if kind == "op" else "adlib:setup"
        if adlib_name not in impls:
            continue
        every = [l for lines in impls.values() for l in lines if l]
        probes = (statistics.median(l.get("probe_lat_us", 0) for l in every),
                  statistics.median(l.get("probe_dirty_us", 0) for l in every))
        adlib = impls[adlib_name]
        times = [l["median_us"] for l in adlib if l]
        cells = []
        for impl, lines in impls.items():
            if impl == adlib_name or impl.startswith("adlib"):
                continue
            # A "-fresh" line (data rewritten before each operation) is
            # compared with adlib-fresh where the case has it.
            mine = adlib
            if impl.endswith("-fresh") and "adlib-fresh" in impls:
                mine = impls["adlib-fresh"]
                impl = impl + " (vs adlib-fresh)"
            ratios = []
            for a, other in zip(mine, lines):
                if a and other and other["median_us"] > 0:
                    ratios.append(f"{a['median_us'] / other['median_us']:.2f}{mark(a, probes)}{mark(other, probes)}")
            other_times = [l["median_us"] for l in lines if l]
            cells.append((impl, statistics.median(other_times) if other_times else None, ratios))
        rows.append((case, statistics.median(times), min(times), max(times), cells))
    return rows


def markdown(rows, title):
    out = ["| case | adlib (us, median of runs, min-max) | other impl: median us, adlib/impl per run |",
           "| --- | --- | --- |"]
    for case, median, low, high, cells in rows:
        text = "<br>".join(f"`{impl}` {t:.1f}: {' / '.join(r)}" for impl, t, r in cells if t is not None)
        out.append(f"| {case} | {median:.1f} ({low:.1f}-{high:.1f}) | {text} |")
    return f"### {title}\n\n" + "\n".join(out) + "\n"


def plot(rows, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("bench/performance_table.py: no matplotlib (python3-matplotlib), no plot", file=sys.stderr)
        return
    # Cases with something to compare against; a log scale, since peers
    # reach from a thousandth to twice adlib's time.
    rows = [row for row in rows if any(cell[2] for cell in row[4])]
    fig, ax = plt.subplots(figsize=(10, 4.5))
    ax.set_yscale("log")
    names = []
    for x, (case, _, _, _, cells) in enumerate(rows):
        names.append(case)
        baseline = next((c for c in cells if c[0].startswith("mpi-")), None)
        peers = [c for c in cells if is_peer(c[0]) and c[2]]
        for label, cell, colour, shift in (("baseline", baseline, "tab:blue", -0.12),
                                           ("fastest peer", min(peers, key=lambda c: c[1]) if peers else None,
                                            "tab:red", 0.12)):
            if not cell:
                continue
            values = [float(r.rstrip("~!")) for r in cell[2]]
            ax.scatter([x + shift] * len(values), values, color=colour, s=18,
                       label=label if label not in ax.get_legend_handles_labels()[1] else None)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("adlib time / other time (per run, log)")
    ax.set_title("adlib against the hand-written baseline and the fastest peer (below 1: adlib faster)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    path = sys.argv[1]
    # Meta lines without op or set-up lines after them (the Python cases'
    # own) start no run of this table.
    runs = [run for run in read_runs(path)
            if any(line.get("kind") in ("op", "setup") and "case" in line for line in run["lines"])]
    if not runs:
        print(f"bench/performance_table.py: no runs in {path}", file=sys.stderr)
        return 1
    stem = os.path.splitext(path)[0]
    meta = runs[0]["meta"]
    ops, setups = tables(runs, "op"), tables(runs, "setup")
    header = (f"{len(runs)} run(s) on {meta.get('host')} ({meta.get('cpu')}, {meta.get('cores')} cores, "
              f"np {meta.get('np')}), adlib {meta.get('versions', {}).get('adlib_commit')}; "
              f"tuning file: {meta.get('tuning_file', 'not recorded')}; "
              f"single copy {meta.get('single_copy', 'not recorded')}, transparent huge pages "
              f"{meta.get('transparent_huge_pages', 'not recorded')}, GLIBC_TUNABLES "
              f"{meta.get('glibc_tunables') or 'unset'}\n\n")
    with open(stem + "-performance.md", "w") as f:
        f.write(header + markdown(ops, "Operations") + "\n" + markdown(setups, "Set-up"))
    plot(ops, stem + "-performance.png")
    print(f"{stem}-performance.md" + (f", {stem}-performance.png" if os.path.exists(stem + '-performance.png') else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
