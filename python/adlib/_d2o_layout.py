# SPDX-License-Identifier: BSD-3-Clause
"""Any adlib distribution as a d2o strategy: `Layout(grid, specs)`, an adlib
process grid and one RangeSpec per dimension (block, cyclic, block-cyclic,
irregular blocks, collapsed dimensions, 2-D and 3-D grids, ghosts), and the
split of an object of that layout (LayoutDistribution).

d2o's own strategies cut the first axis into slabs of rows; a layout cuts
any dimension, and an object's `.data` is then this process's owned block
of the layout (packed, in the order of its local indices, ghost cells
excluded: they live in the adlib arrays made from the object, see
distributed_data_object.to_adlib).  Elementwise operations, ufuncs, full
reductions and redistribution act on these blocks directly; what is
defined by rows (indexing, reductions along axes, cumsum, ...) runs on an
'equal' copy (see _d2o_layout_object)."""
import numpy as _np

from . import empty as _adlib_empty


class Layout:
    """An adlib layout as a distribution_strategy: `grid` (an
    adlib.ProcessGrid over the object's communicator) and `specs` (one
    adlib RangeSpec per dimension, 1 to 3; their extents are the global
    shape).

        grid = adlib.ProcessGrid(MPI.COMM_WORLD, [2, 2])
        layout = d2o.Layout(grid, [adlib.block_cyclic(100, 4), adlib.block(60).ghosts(1)])
        u = d2o.distributed_data_object(global_shape=(100, 60), distribution_strategy=layout)

    Collective over the grid's communicator (it makes an adlib array of the
    layout, so a spec adlib rejects, or specs that differ between
    processes, raise adlib.Error on every process).  Two layouts are equal
    when adlib describes them alike over the same ranks."""

    def __init__(self, grid, specs):
        self.grid = grid
        self.specs = list(specs)
        # Ghost cells are not part of the split: communication uses the
        # layout without them, to_adlib() gives them back.
        self.owned_specs = [spec.ghosts(0) for spec in self.specs]
        template = _adlib_empty(grid, self.owned_specs, _np.float64)
        self.shape = tuple(int(n) for n in template.shape)
        self.local_shape = tuple(int(n) for n in template.local.shape)
        self.global_indices = tuple(_np.asarray(i, dtype=_np.intp)
                                    for i in template.global_indices)
        # adlib's description of the layout as given (ghosts included).
        described = repr(_adlib_empty(grid, self.specs, _np.float64))
        described = described[described.index("(") + 1:-1]  # without the array's type
        self.description = "%s, ranks %s" % (described, list(grid.ranks()))
        self._templates = {template.dtype: template}

    def __eq__(self, other):
        return isinstance(other, Layout) and self.description == other.description

    def __hash__(self):
        return hash(self.description)

    def __repr__(self):
        return "Layout(%s)" % self.description

    __str__ = __repr__

    def fits(self, comm):
        """Is the grid over `comm` (as far as this process can tell: the
        same rank, grid ranks within its size)?"""
        return self.grid.rank == comm.rank and max(self.grid.ranks()) < comm.size

    def owned_array(self, dtype):
        """An adlib array of the layout without ghosts, elements of
        `dtype` (adlib.DTYPES), made once per type (collective then) and
        shared: a template whose layout blocks are viewed through."""
        dtype = _np.dtype(dtype)
        template = self._templates.get(dtype)
        if template is None:
            template = self._templates[dtype] = _adlib_empty(self.grid, self.owned_specs, dtype)
        return template


class LayoutDistribution:
    """The split of a global array by a Layout over a communicator: what
    distributed_data_object asks of a split (see _d2o_distribution's
    Distribution), for a layout.  `unique` says whether each element is
    held by one process only (no grid axis replicates it), which full
    reductions rely on."""

    is_layout = True
    replicated = False

    def __init__(self, layout, comm):
        self.strategy = layout
        self.global_shape = layout.shape
        self.comm = comm
        self.local_shape = layout.local_shape
        self.global_indices = layout.global_indices
        held = int(_np.prod(self.local_shape, dtype=_np.int64))
        total = int(_np.prod(self.global_shape, dtype=_np.int64))
        self.unique = (held if comm.size == 1 else comm.allreduce(held)) == total
        self.selections = {}

    def key(self):
        """What splits alike share (cache keys of Remaps)."""
        return ("layout", self.strategy.description)

    def same_split(self, other):
        return self.comm is other.comm and self.key() == other.key()

    def local_part(self, values):
        """This process's part of `values`, numpy of the global shape, or
        of a shape that broadcasts to it (numpy's rule, trailing axes
        aligned): the elements at this process's global indices along the
        axes it has in full, extent-1 axes (of a longer global axis) kept
        for numpy to broadcast.  Any other shape raises ValueError, the
        same on every process (the tiles' shapes differ, so numpy would
        broadcast on some and not on others)."""
        values = _np.asarray(values)
        if values.ndim == 0:
            return values
        offset = len(self.global_shape) - values.ndim
        picks = []
        for axis, extent in enumerate(values.shape):
            whole = self.global_shape[axis + offset] if axis + offset >= 0 else None
            if extent == whole:
                picks.append(self.global_indices[axis + offset])
            elif extent == 1 and whole is not None:
                picks.append(_np.zeros(1, _np.intp))
            else:
                raise ValueError("d2o: an operand of shape %s does not broadcast to an "
                                 "array of shape %s" % (values.shape, self.global_shape))
        return values[_np.ix_(*picks)]

    def adlib_layout(self):
        """(grid, specs): the layout without ghosts."""
        return self.strategy.grid, self.strategy.owned_specs

    def adlib_array(self, block, flat=False):
        """An adlib array of the layout (without ghosts) over `block`, this
        process's packed C-order block (see Distribution.adlib_array); a
        layout has no flattened form."""
        if flat:
            raise TypeError("d2o: an adlib layout has no flattened form")
        return self.strategy.owned_array(block.dtype)._over(block)
