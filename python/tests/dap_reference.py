# SPDX-License-Identifier: BSD-3-Clause
"""An independent producer and consumer of the Distributed Array Protocol
(DAP 0.10: `__distarray__()` returning {'__version__', 'buffer',
'dim_data'}), written with numpy and mpi4py only: no adlib inside, so
adlib's DAP export and import can be checked against a second
implementation, both ways.

Producer: DapArray(comm, grid_shape, dims) with one distribution per
dimension:
    ("block", n)                 regular blocks, c owns [c*n//P, (c+1)*n//P)
    ("irregular", sizes)         explicit block sizes (zeros allowed)
    ("cyclic", n)                round robin, block_size 1
    ("block_cyclic", n, b)       tiles of b round robin
    ("padded", n, w)             blocks with w cells of communication padding
                                 on every side shared with a neighbour
    ("ghosted", n, w)            blocks of n with w cells of padding on every
                                 side: communication padding inside, boundary
                                 padding at the ends (so 'size' is n + 2w)
    ("unstructured", n, seed)    a scrambled index list dealt unevenly
    ("undistributed", n)         proc_grid_size 1, exported as the empty dict
Consumer: owned_elements(dap) -> {global index tuple: value} for the
elements a process owns (communication padding excluded), from the dict
alone.

Padding convention (the spec's): 'start'/'stop' cover the whole buffer,
padding included; the padding at the low end of grid rank 0 and the high
end of the last grid rank is boundary padding (owned, counted in 'size'),
all other padding is communication padding (a copy of a neighbour's
elements, not owned).
"""
import numpy as np

VERSION = "0.10.0"


def grid_coordinates(rank, grid_shape):
    """C-order coordinates of `rank` in a grid (DAP 1.4)."""
    coords = []
    for extent in reversed(grid_shape):
        coords.append(rank % extent)
        rank //= extent
    return tuple(reversed(coords))


class DapArray:
    """A distributed array that exports itself through __distarray__()."""

    def __init__(self, comm, grid_shape, dims, dtype=np.float64):
        if int(np.prod(grid_shape)) != comm.size:
            raise ValueError("the DAP grid covers every process: %s for %d" % (grid_shape,
                                                                                comm.size))
        self.comm = comm
        self.grid_shape = tuple(grid_shape)
        self.coords = grid_coordinates(comm.rank, self.grid_shape)
        self.dim_data = []
        self.global_of_position = []  # per dimension: global index of each buffer position
        self.owned_mask = []          # per dimension: is the buffer position owned?
        axis = 0
        for dim in dims:
            if dim[0] == "undistributed":
                self.dim_data.append({})
                self.global_of_position.append(np.arange(dim[1]))
                self.owned_mask.append(np.ones(dim[1], dtype=bool))
                continue
            P, c = self.grid_shape[axis], self.coords[axis]
            axis += 1
            dd, positions, owned = self._dimension(dim, P, c)
            size = {"irregular": lambda: sum(dim[1]),
                    "ghosted": lambda: dim[1] + 2 * dim[2]}.get(dim[0], lambda: dim[1])()
            dd.update(size=size, proc_grid_size=P, proc_grid_rank=c)
            self.dim_data.append(dd)
            self.global_of_position.append(np.asarray(positions, dtype=np.int64))
            self.owned_mask.append(np.asarray(owned, dtype=bool))
        if axis != len(self.grid_shape):
            raise ValueError("every grid axis needs a distributed dimension")
        self.shape = tuple(dd.get("size", len(g)) for dd, g in zip(self.dim_data,
                                                                   self.global_of_position))
        self.local = np.zeros([len(g) for g in self.global_of_position], dtype=dtype)

    @staticmethod
    def _dimension(dim, P, c):
        kind = dim[0]
        if kind in ("block", "padded"):
            n = dim[1]
            lo, hi = c * n // P, (c + 1) * n // P
            w = dim[2] if kind == "padded" else 0
            low = w if c > 0 else 0
            high = w if c < P - 1 else 0
            dd = {"dist_type": "b", "start": lo - low, "stop": hi + high}
            if kind == "padded":
                dd["padding"] = (low, high)
            positions = np.arange(lo - low, hi + high)
            owned = (positions >= lo) & (positions < hi)
            return dd, positions, owned
        if kind == "ghosted":
            n, w = dim[1], dim[2]
            lo, hi = w + c * n // P, w + (c + 1) * n // P  # the interior, shifted by w
            positions = np.arange(lo - w, hi + w)
            owned = (((positions >= lo) | (c == 0)) & ((positions < hi) | (c == P - 1)))
            return ({"dist_type": "b", "start": lo - w, "stop": hi + w, "padding": (w, w)},
                    positions, owned)
        if kind == "irregular":
            sizes = list(dim[1])
            lo = sum(sizes[:c])
            return ({"dist_type": "b", "start": lo, "stop": lo + sizes[c]},
                    np.arange(lo, lo + sizes[c]), np.ones(sizes[c], dtype=bool))
        if kind in ("cyclic", "block_cyclic"):
            n = dim[1]
            b = dim[2] if kind == "block_cyclic" else 1
            positions = [g for t in range(c * b, n, P * b) for g in range(t, min(t + b, n))]
            dd = {"dist_type": "c", "start": min(c * b, n)}
            if kind == "block_cyclic":
                dd["block_size"] = b
            return dd, positions, np.ones(len(positions), dtype=bool)
        if kind == "unstructured":
            n, seed = dim[1], dim[2]
            order = np.random.default_rng(seed).permutation(n)
            # Uneven: coordinate c gets the elements of order whose position
            # hashes to it, coordinate P-1 nothing when P > 1.
            owner = (np.arange(n) * 5 + seed) % max(P - 1, 1)
            mine = order[owner == c]
            return ({"dist_type": "u", "indices": mine.astype(np.int64), "one_to_one": True},
                    mine, np.ones(len(mine), dtype=bool))
        raise ValueError("unknown distribution %r" % (kind,))

    def global_index_grid(self):
        """Global indices of every buffer position (numpy.ix_ style)."""
        return np.ix_(*self.global_of_position)

    def __distarray__(self):
        return {"__version__": VERSION, "buffer": self.local, "dim_data": tuple(self.dim_data)}


def dimension_map(dd, extent):
    """(global indices, owned) of the buffer positions of one dimension, from
    its dimension dictionary alone; `extent` is the buffer's extent."""
    if not dd:  # the empty-dict alias: undistributed
        dd = {"dist_type": "b", "proc_grid_rank": 0, "proc_grid_size": 1, "start": 0,
              "stop": extent, "size": extent}
    for key in ("dist_type", "size", "proc_grid_size", "proc_grid_rank"):
        if key not in dd:
            raise ValueError("dimension dictionary without %r: %r" % (key, dd))
    size, P, c = dd["size"], dd["proc_grid_size"], dd["proc_grid_rank"]
    if not 0 <= c < P:
        raise ValueError("proc_grid_rank %d outside 0..%d" % (c, P - 1))
    kind = dd["dist_type"]
    if kind == "b":
        start, stop = dd["start"], dd["stop"]
        if stop - start != extent:
            raise ValueError("block: stop - start = %d, buffer extent %d" % (stop - start, extent))
        low, high = dd.get("padding", (0, 0))
        # Boundary padding (at the domain's ends) is owned, communication padding is not.
        first = start + (low if c > 0 else 0)
        last = stop - (high if c < P - 1 else 0)
        g = np.arange(start, stop)
        if dd.get("periodic", False):
            g = g % max(size, 1)
        owned = (np.arange(start, stop) >= first) & (np.arange(start, stop) < last)
        return g, owned
    if kind == "c":
        b = dd.get("block_size", 1)
        start = dd["start"]
        g = np.array([i for t in range(start, size, P * b) for i in range(t, min(t + b, size))],
                     dtype=np.int64)
        if len(g) != extent:
            raise ValueError("cyclic: %d indices for a buffer extent %d" % (len(g), extent))
        return g, np.ones(extent, dtype=bool)
    if kind == "u":
        g = np.asarray(dd["indices"], dtype=np.int64)
        if len(g) != extent or len(np.unique(g)) != len(g):
            raise ValueError("unstructured: indices must be locally unique, one per position")
        return g, np.ones(extent, dtype=bool)
    raise ValueError("unknown dist_type %r" % (kind,))


def owned_elements(dap):
    """{global index tuple: value} of the elements this process owns, from a
    DAP dictionary (as __distarray__() returns it)."""
    major = str(dap["__version__"]).split(".")[0]
    if major != "0":
        raise ValueError("DAP version %s is not 0.x" % dap["__version__"])
    buffer = np.asarray(dap["buffer"])
    dims = dap["dim_data"]
    if len(dims) != buffer.ndim:
        raise ValueError("%d dimension dictionaries for a buffer of rank %d" % (len(dims),
                                                                              buffer.ndim))
    maps = [dimension_map(dd, buffer.shape[d]) for d, dd in enumerate(dims)]
    result = {}
    for position in np.ndindex(*buffer.shape):
        if all(maps[d][1][p] for d, p in enumerate(position)):
            key = tuple(int(maps[d][0][p]) for d, p in enumerate(position))
            result[key] = buffer[position]
    return result


def global_shape(dap):
    """The 'size' of every dimension (the buffer's extent for an empty dict)."""
    buffer = np.asarray(dap["buffer"])
    return tuple(dd["size"] if dd else buffer.shape[d] for d, dd in enumerate(dap["dim_data"]))
