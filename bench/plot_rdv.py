#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The RDV sweep of a bench run: a Markdown table and a PNG plot.

    bench/plot_rdv.py RESULTS.jsonl     writes RESULTS-rdv.md and RESULTS-rdv.png

Reads the RDV-<L> op lines of the JSONL file that adlib_bench appended to
(bench/README.md, "JSON lines") and writes, next to it:

* <stem>-rdv.md: one table per run (each meta line starts a run): rows = L,
  columns = the impl lines present (in the order the bench ran them, so new
  adlib-* lines appear by themselves), cells = median_us.  A time is
  comparable only with times taken in the same host state: a cell whose
  probes (probe_lat_us, probe_dirty_us) are more than PROBE_TOLERANCE times
  off the run's median probes is shown in parentheses and marked, and one
  whose cpu_share is below CLEAN_CPU_SHARE is marked as not clean.  Without
  probe fields the table says that the host state was not checked.
* <stem>-rdv.png: time against bytes, log-log, one curve per impl line
  (median over the runs of the cells whose probes agree and whose
  cpu_share is clean, else of all, drawn hollow; error bars min-max over
  those runs).  Needs matplotlib (Debian: python3-matplotlib); without
  it the plot is skipped with a message and the exit status stays 0.

Only the standard library is needed for the table.
"""
import json
import os
import re
import statistics
import sys

# Two probe values agree when neither is more than this factor off the
# other: the host's two states differ by about 3x (bench/README.md).
PROBE_TOLERANCE = 1.5
# Below this cpu_share the bench warns that the time is not clean (other
# processes shared the cores); such cells are marked too.
CLEAN_CPU_SHARE = 0.9
CASE = re.compile(r"^RDV-(\d+)$")


class Run:
    """The RDV lines of one program run (one meta line)."""

    def __init__(self, meta):
        self.meta = meta or {}
        self.cells = {}  # (impl, L) -> the JSON line
        self.impls = []  # in the order of first appearance
        self.lengths = set()

    def label(self):
        run = self.meta.get("run", "?")
        return "run %s (%s)" % (run, self.meta.get("time", "time unknown"))

    def add(self, line, length):
        impl = line["impl"]
        if impl not in self.impls:
            self.impls.append(impl)
        self.lengths.add(length)
        self.cells[(impl, length)] = line

    def has_probes(self):
        return all("probe_lat_us" in c and "probe_dirty_us" in c for c in self.cells.values())

    def reference(self):
        """The run's host state: median lat_us and dirty_us over its RDV lines."""
        lines = list(self.cells.values())
        return (statistics.median(c["probe_lat_us"] for c in lines),
                statistics.median(c["probe_dirty_us"] for c in lines))

    def comparable(self, cell):
        """Probes in the run's host state, and the cores not shared."""
        return self.agrees(cell) and cell.get("cpu_share", 1.0) >= CLEAN_CPU_SHARE

    def agrees(self, cell):
        if not self.has_probes():
            return True
        ref_lat, ref_dirty = self.reference()
        return (close(cell["probe_lat_us"], ref_lat) and
                close(cell["probe_dirty_us"], ref_dirty))


def close(value, reference):
    if value <= 0 or reference <= 0:
        return value == reference  # one rank: the probes are 0
    return max(value, reference) / min(value, reference) <= PROBE_TOLERANCE


def read_runs(path):
    runs, current = [], None
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, 1):
            text = text.strip()
            if not text:
                continue
            try:
                line = json.loads(text)
            except json.JSONDecodeError:
                print("plot_rdv: %s:%d is not JSON, ignored" % (path, number), file=sys.stderr)
                continue
            if line.get("meta"):
                current = Run(line)
                runs.append(current)
                continue
            match = CASE.match(str(line.get("case", "")))
            if not match or line.get("kind", "op") != "op":
                continue
            if current is None:  # lines without a meta line before them
                current = Run(None)
                runs.append(current)
            current.add(line, int(match.group(1)))
    return [run for run in runs if run.cells]


def number(us):
    return "%.3f" % us if us < 100 else "%.1f" % us


def span(values):
    low, high = min(values), max(values)
    return number(low) if low == high else "%s-%s" % (number(low), number(high))


def table(run):
    out = []
    probes = run.has_probes()
    if probes:
        ref_lat, ref_dirty = run.reference()
        out.append("Host state of the run (median probes of its RDV lines): lat_us %s, "
                   "dirty_us %s." % (number(ref_lat), number(ref_dirty)))
    else:
        out.append("The JSON lines carry no probe values: the host state was not checked, "
                   "compare these times with care.")
    out.append("")
    head = ["L", "bytes"] + ["`%s`" % impl for impl in run.impls]
    if probes:
        head += ["lat_us", "dirty_us"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + " ---: |" * len(head))
    flagged = busy = False
    for length in sorted(run.lengths):
        row_cells = [run.cells[(i, length)] for i in run.impls if (i, length) in run.cells]
        row = [str(length), "%d" % row_cells[0].get("bytes", length * 8)]
        for impl in run.impls:
            cell = run.cells.get((impl, length))
            if cell is None:
                row.append("-")
                continue
            if run.agrees(cell):
                text = number(cell["median_us"])
            else:
                text = "(%s)&dagger;" % number(cell["median_us"])
                flagged = True
            if cell.get("cpu_share", 1.0) < CLEAN_CPU_SHARE:
                text += "*"
                busy = True
            row.append(text)
        if probes:
            row.append(span([c["probe_lat_us"] for c in row_cells]))
            row.append(span([c["probe_dirty_us"] for c in row_cells]))
        out.append("| " + " | ".join(row) + " |")
    if flagged:
        out.append("")
        out.append("&dagger; probes more than %gx off the run's: a different host state, "
                   "not comparable with the other cells." % PROBE_TOLERANCE)
    if busy:
        out.append("")
        out.append("\\* cpu_share below %g: other processes shared the cores, the time is not "
                   "clean." % CLEAN_CPU_SHARE)
    return out


def write_markdown(path, source, runs):
    meta = runs[0].meta
    versions = meta.get("versions", {})
    out = ["# RDV sweep: vector allreduce, median_us per operation", ""]
    out.append("From `%s`: host %s, %s ranks, adlib %s (%s), %s. Times are the median of the "
               "repeats, the maximum over ranks (bench/README.md); `floor` is one "
               "MPI_Sendrecv of the vector." % (
                   os.path.basename(source), meta.get("host", "?"), meta.get("np", "?"),
                   versions.get("adlib", "?"), versions.get("adlib_commit", "?"),
                   versions.get("mpi", "?")))
    for run in runs:
        out += ["", "## " + run.label(), ""] + table(run)
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


def plot(path, source, runs):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_rdv: matplotlib is not installed (Debian: apt-get install "
              "python3-matplotlib, then run /usr/bin/python3); no plot written",
              file=sys.stderr)
        return False
    impls = []
    for run in runs:
        impls += [i for i in run.impls if i not in impls]
    fig, ax = plt.subplots(figsize=(8, 5.5))
    hollow_any = False
    for impl in impls:
        xs, ys, lows, highs, hollow = [], [], [], [], []
        lengths = sorted({length for run in runs for (i, length) in run.cells if i == impl})
        for length in lengths:
            cells = [(run, run.cells[(impl, length)]) for run in runs
                     if (impl, length) in run.cells]
            good = [c["median_us"] for run, c in cells if run.comparable(c)]
            times = good or [c["median_us"] for _, c in cells]
            mid = statistics.median(times)
            xs.append(cells[0][1].get("bytes", length * 8))
            ys.append(mid)
            lows.append(mid - min(times))
            highs.append(max(times) - mid)
            hollow.append(not good)
        line = ax.errorbar(xs, ys, yerr=[lows, highs] if len(runs) > 1 else None,
                           capsize=3, label=impl)
        color = line[0].get_color()
        for want_hollow in (False, True):
            px = [x for x, h in zip(xs, hollow) if h == want_hollow]
            py = [y for y, h in zip(ys, hollow) if h == want_hollow]
            if px:
                ax.plot(px, py, linestyle="none", marker="o", color=color,
                        markerfacecolor="white" if want_hollow else color)
        hollow_any = hollow_any or any(hollow)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("bytes per rank (L * 8)")
    ax.set_ylabel("time per operation (us, median)")
    meta = runs[0].meta
    title = "RDV sweep, %s ranks, %s (%s)" % (meta.get("np", "?"), meta.get("host", "?"),
                                               os.path.basename(source))
    if len(runs) > 1:
        title += "\nmedian of %d runs, bars min-max" % len(runs)
    if hollow_any:
        title += "\nhollow: no run with the run's probes and clean cpu_share"
    ax.set_title(title, fontsize=10)
    ax.grid(True, which="both", linewidth=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return True


def main(argv):
    if len(argv) != 2:
        print("usage: plot_rdv.py RESULTS.jsonl", file=sys.stderr)
        return 2
    source = argv[1]
    runs = read_runs(source)
    if not runs:
        print("plot_rdv: no RDV-<L> lines in %s, nothing written" % source, file=sys.stderr)
        return 0
    stem = source[:-len(".jsonl")] if source.endswith(".jsonl") else source
    write_markdown(stem + "-rdv.md", source, runs)
    print("rdv table: %s-rdv.md" % stem)
    if plot(stem + "-rdv.png", source, runs):
        print("rdv plot: %s-rdv.png" % stem)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
