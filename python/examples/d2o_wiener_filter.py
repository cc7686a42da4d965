# SPDX-License-Identifier: BSD-3-Clause
"""d2o's own application on adlib: a Wiener filter that smooths a noisy 2-D
field held as an adlib.d2o distributed_data_object ('fftw' slabs of rows).

The 2-D FFT is distributed: numpy's 1-D FFT along the rows each process
holds, an adlib Remap that transposes the row slabs into slabs of whole
columns, numpy's 1-D FFT along those columns.  The filter S(k) / (S(k) + N)
multiplies the spectrum there, and the inverse FFT goes the same way back.
Both Remaps are planned once and executed at every application of the
filter.  The spectrum and the filtered field are checked against
numpy.fft.fft2 on the whole field; the report gives the time per
application and the share of it spent in the transposes.

    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \\
        mpirun --oversubscribe -np 4 /usr/bin/python3 python/examples/d2o_wiener_filter.py

(`PYTHONPATH=build/python` in a build tree; `--n0 512 --n1 512` for a
larger field, as `ADLIB_DEMO=d2o_wiener_filter scripts/demo` runs it.)
"""
import argparse
import sys

import numpy as np
from mpi4py import MPI

import adlib
import adlib.d2o as d2o

#: The signal: plane waves (amplitude, cycles along the rows, cycles along
#: the columns, phase), a few cycles per field whatever its shape.
SIGNAL_WAVES = [(1.0, 2, 1, 0.0), (0.7, 3, -4, 0.5 * np.pi), (0.5, 5, 2, 1.0)]
#: The mean square of the signal (each wave contributes amplitude^2 / 2).
SIGNAL_VARIANCE = sum(amplitude ** 2 / 2 for amplitude, _, _, _ in SIGNAL_WAVES)
#: The noise: white, of this standard deviation at every grid point.
NOISE_DEVIATION = 1.0
#: The seed of the noise; each global row has its own generator.
NOISE_SEED = 2016
#: The filter's model of the signal: a Gaussian power spectrum this many
#: modes (cycles per field) wide.
SIGNAL_SPECTRUM_WIDTH = 6.0
#: How far the distributed results may be from numpy's on the whole field,
#: relative to the largest value of numpy's.
TOLERANCE = 1e-10


def clean_signal(rows, shape):
    """The signal at the global rows `rows` of a field of `shape`, every column."""
    n0, n1 = shape
    row_phase = 2 * np.pi * np.asarray(rows, dtype=np.float64)[:, None] / n0
    column_phase = 2 * np.pi * np.arange(n1)[None, :] / n1
    return sum(amplitude * np.sin(cycles_along_rows * row_phase +
                                  cycles_along_columns * column_phase + phase)
               for amplitude, cycles_along_rows, cycles_along_columns, phase in SIGNAL_WAVES)


def noise(rows, n1):
    """White noise at the global rows `rows`: each row drawn from a generator
    seeded by the row's index, so that the field is the same whichever
    process computes a row, and for any number of processes."""
    drawn = [np.random.default_rng([NOISE_SEED, int(row)]).normal(0.0, NOISE_DEVIATION, n1)
             for row in rows]
    return np.array(drawn).reshape(len(drawn), n1)


def mode_numbers(n):
    """The modes numpy.fft.fft's outputs hold along an axis of length n, in
    cycles per field: 0, 1, ..., then the negative ones."""
    return np.fft.fftfreq(n, d=1.0 / n)


def wiener_weights(row_modes, column_modes, shape):
    """S(k) / (S(k) + N) at every (row mode, column mode), in the units of
    numpy's unnormalized FFT: white noise of variance sigma^2 has the power
    N = n0 n1 sigma^2 at every mode; the signal model, a field of the
    signal's variance spread over the modes by a Gaussian of width w, has
    S(k) = (n0 n1)^2 variance exp(-|k|^2 / w^2) / (pi w^2) (by Parseval,
    the S(k) of all modes add up to (n0 n1)^2 times the variance; pi w^2 is
    the Gaussian's sum over the modes while w is well below the field's size)."""
    points = shape[0] * shape[1]
    squared_modes = row_modes[:, None] ** 2 + column_modes[None, :] ** 2
    width = SIGNAL_SPECTRUM_WIDTH
    signal_power = (points ** 2 * SIGNAL_VARIANCE * np.exp(-squared_modes / width ** 2) /
                    (np.pi * width ** 2))
    noise_power = points * NOISE_DEVIATION ** 2
    return signal_power / (signal_power + noise_power)


class SlabFFT2:
    """The 2-D FFT of an (n0, n1) complex array held in slabs of rows, and
    its inverse: numpy's 1-D FFTs on the slabs, and adlib Remaps that
    transpose row slabs into column slabs and back, planned here once and
    executed at every transform.  The two slabs are numpy arrays allocated
    once and wrapped as adlib arrays (no copy), so each Remap moves data
    between the very arrays numpy computes on."""

    def __init__(self, comm, shape, rows_per_process, columns_per_process):
        n0, n1 = shape
        self.column_start = sum(columns_per_process[:comm.rank])
        self.column_stop = self.column_start + columns_per_process[comm.rank]
        self.columns_per_process = columns_per_process
        # One 1-D process grid for both layouts: a transpose between them
        # moves every block to every other process.
        grid = adlib.ProcessGrid(comm, [comm.size])
        self.row_slab = np.zeros((rows_per_process[comm.rank], n1), dtype=np.complex128)
        self.column_slab = np.zeros((n0, columns_per_process[comm.rank]), dtype=np.complex128)
        self.row_array = adlib.wrap(
            grid, [adlib.irregular_block(rows_per_process), adlib.collapsed(n1)], self.row_slab)
        self.column_array = adlib.wrap(
            grid, [adlib.collapsed(n0), adlib.irregular_block(columns_per_process)],
            self.column_slab)
        comm.Barrier()
        start = MPI.Wtime()
        self.to_columns = adlib.Remap(self.column_array, self.row_array)
        self.to_rows = adlib.Remap(self.row_array, self.column_array)
        self.planning_seconds = MPI.Wtime() - start
        self.transpose_seconds = 0.0  # since the caller last set it to 0

    def forward(self, rows):
        """The spectrum of the field whose row slab here is `rows`: left in
        self.column_slab, this process's columns, every row mode."""
        self.row_slab[...] = np.fft.fft(rows, axis=1)
        self._transpose(self.to_columns, self.column_array, self.row_array)
        self.column_slab[...] = np.fft.fft(self.column_slab, axis=0)

    def inverse(self):
        """The inverse FFT of the spectrum in self.column_slab: this
        process's row slab of the field (self.column_slab is overwritten)."""
        self.column_slab[...] = np.fft.ifft(self.column_slab, axis=0)
        self._transpose(self.to_rows, self.row_array, self.column_array)
        return np.fft.ifft(self.row_slab, axis=1)

    def _transpose(self, remap, destination, source):
        start = MPI.Wtime()
        remap.execute(destination, source)
        self.transpose_seconds += MPI.Wtime() - start


def filter_and_invert(fft, weights, filtered):
    """Multiplies the spectrum held by `fft` by the Wiener weights of this
    process's columns, and writes its inverse into `filtered` (a d2o object
    of the field's split): the real part, since the weights keep the
    spectrum of a real field Hermitian."""
    fft.column_slab *= weights
    filtered.data[...] = fft.inverse().real


def wiener_filter(fft, weights, noisy, filtered):
    """filtered <- the Wiener filter of noisy (both d2o objects, 'fftw' rows)."""
    fft.forward(noisy.data)
    filter_and_invert(fft, weights, filtered)


def relative_difference(computed, reference):
    """The largest difference, relative to the reference's largest value."""
    scale = np.abs(reference).max(initial=0.0)
    return np.abs(computed - reference).max(initial=0.0) / (scale if scale > 0 else 1.0)


def check_against_numpy(fft, weights, noisy, filtered, shape):
    """One application whose spectrum and result are gathered and compared
    with numpy.fft on the whole field: (spectrum difference, field
    difference), relative, the same on every process."""
    fft.forward(noisy.data)
    spectrum = adlib.full(fft.column_array)          # the whole spectrum, gathered
    filter_and_invert(fft, weights, filtered)
    whole_noisy = noisy.get_full_data()
    reference_spectrum = np.fft.fft2(whole_noisy)
    all_weights = wiener_weights(mode_numbers(shape[0]), mode_numbers(shape[1]), shape)
    reference_filtered = np.fft.ifft2(reference_spectrum * all_weights).real
    return (relative_difference(spectrum, reference_spectrum),
            relative_difference(filtered.get_full_data(), reference_filtered))


def root_mean_square(obj):
    """The root mean square of a real d2o object (a number, on every process)."""
    return float(np.sqrt((obj ** 2).mean()))


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n0", type=int, default=96, help="rows of the field")
    parser.add_argument("--n1", type=int, default=80, help="columns of the field")
    parser.add_argument("--repeats", type=int, default=5,
                        help="timed applications of the filter")
    parser.add_argument("--check", action=argparse.BooleanOptionalAction, default=True,
                        help="compare with numpy.fft.fft2 on the whole field")
    args = parser.parse_args()
    if args.n0 < 1 or args.n1 < 1 or args.repeats < 1:
        parser.error("--n0, --n1 and --repeats must be at least 1")
    return args


def main():
    args = parse_arguments()
    comm = MPI.COMM_WORLD
    say = print if comm.rank == 0 else (lambda *arguments, **keywords: None)
    shape = (args.n0, args.n1)

    # The noisy field, and the clean signal to judge the filter by, built
    # from global indices: the same field for any number of processes.
    noisy = d2o.distributed_data_object(global_shape=shape, dtype=np.complex128,
                                        distribution_strategy="fftw")
    rows_here = np.arange(args.n0)[noisy.distributor.local_slice()]
    clean = noisy.copy_empty(dtype=np.float64)        # the same split, float64
    clean.data[...] = clean_signal(rows_here, shape)
    noisy.data[...] = clean.data + noise(rows_here, args.n1)
    filtered = noisy.copy_empty(dtype=np.float64)

    # The columns are split as d2o splits the rows of the transposed field.
    rows_per_process = list(noisy.distributor.rows)
    columns_per_process = list(noisy.copy_empty(global_shape=shape[::-1]).distributor.rows)
    fft = SlabFFT2(comm, shape, rows_per_process, columns_per_process)
    column_modes = mode_numbers(args.n1)[fft.column_start:fft.column_stop]
    weights = wiener_weights(mode_numbers(args.n0), column_modes, shape)
    planning = comm.allreduce(fft.planning_seconds, op=MPI.MAX)

    say("d2o Wiener filter: %d x %d complex128 field on %d process%s, %d timed application%s" %
        (args.n0, args.n1, comm.size, "" if comm.size == 1 else "es", args.repeats,
         "" if args.repeats == 1 else "s"))
    say("  rows:    'fftw' slabs of %s rows (the adlib.d2o object)" % rows_per_process)
    say("  columns: slabs of %s columns (the same rule)" % fft.columns_per_process)
    say("  both Remaps (rows -> columns, columns -> rows) planned once in %.3f ms" %
        (planning * 1e3))

    failed = False
    if args.check:  # also the warm-up of the timed applications
        spectrum_difference, field_difference = check_against_numpy(
            fft, weights, noisy, filtered, shape)
        failed = not (spectrum_difference <= TOLERANCE and field_difference <= TOLERANCE)
        failed = comm.allreduce(failed, op=MPI.LOR)  # every process exits alike
        say("check against numpy.fft.fft2 on the whole field (relative differences): "
            "spectrum %.2e, filtered field %.2e: %s" %
            (spectrum_difference, field_difference, "FAILED" if failed else "ok"))

    say("%12s %12s %16s %16s" % ("application", "time (ms)", "transposes (ms)",
                                 "numpy FFTs (ms)"))
    # Per application, the maxima over processes (the slowest sets the pace).
    times = np.zeros((args.repeats, 3))
    for application in range(args.repeats):
        comm.Barrier()
        fft.transpose_seconds = 0.0
        start = MPI.Wtime()
        wiener_filter(fft, weights, noisy, filtered)
        elapsed = MPI.Wtime() - start
        times[application] = (elapsed, fft.transpose_seconds, elapsed - fft.transpose_seconds)
        comm.Allreduce(MPI.IN_PLACE, times[application], op=MPI.MAX)
        say("%12d %12.3f %16.3f %16.3f" % ((application + 1,) + tuple(times[application] * 1e3)))

    total, transposes, computing = np.median(times, axis=0)
    say("time per application (median of %d, maximum over processes): %.3f ms, of which "
        "transposes %.3f ms (%.0f%%), numpy FFTs and filter %.3f ms (%.0f%%); fastest %.3f ms" %
        (args.repeats, total * 1e3, transposes * 1e3, 100 * transposes / total,
         computing * 1e3, 100 * computing / total, times[:, 0].min() * 1e3))
    noisy_error = root_mean_square(abs(noisy - clean))    # noisy is real, held as complex
    filtered_error = root_mean_square(filtered - clean)
    say("root mean square distance to the clean signal: %.4f noisy, %.4f filtered "
        "(%.1fx closer)" % (noisy_error, filtered_error, noisy_error / filtered_error))
    if failed:
        say("d2o Wiener filter: FAILED: the distributed FFT or filter differs from numpy's "
            "by more than %g" % TOLERANCE)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
