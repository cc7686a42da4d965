# SPDX-License-Identifier: BSD-3-Clause
"""distributed_data_object of an adlib Layout (see _d2o_layout): the class
of objects whose distribution_strategy is a Layout.

What acts on each process's elements whatever their position works on the
layout's blocks directly, as for d2o's strategies: creation, local and
full data, elementwise operators and ufuncs (another split's operand is
redistributed by one cached Remap between the two layouts), copies, full
reductions (each block folded, one allreduce, when every element has one
owner), to_adlib / from_adlib.

What d2o defines by rows (indexing, reductions along axes, arg-extremes,
cumsum, flatten, where, unique, bincount, vdot, iteration) runs on an
'equal' copy made by one cached Remap: correct for every layout at the
cost of that Remap (and of a second one back for assignments).  Results of
this object's shape come back in its layout; others keep the copy's split
('equal' rows), as they would for an 'equal' object."""
import functools as _functools

import numpy as _np

from . import empty as _adlib_empty
from ._d2o_common import is_object as _is_object
from ._d2o_distribution import distribution as _distribution
from ._d2o_distribution import redistribute as _redistribute
from .d2o import distributed_data_object


class LayoutObject(distributed_data_object):
    """A distributed_data_object whose split is an adlib Layout (made by
    distributed_data_object(..., distribution_strategy=Layout(...)))."""

    def _in_rows(self):
        """An 'equal' copy of this object (one Remap, cached per layout)."""
        equal = _distribution("equal", self.shape, self.comm)
        block = _redistribute(equal, self.distributor, self.data, self.dtype)
        return distributed_data_object._from_local(equal, block, self.hermitian)

    def _from_rows(self, rows):
        """An object of this layout holding `rows`'s array (same shape)."""
        block = _redistribute(self.distributor, rows.distributor, rows.data, rows.dtype)
        return self._from_local(self.distributor, block, rows.hermitian)

    def _operand(self, value):
        """As distributed_data_object._operand; a numpy operand of the global
        shape (or one broadcasting to it along whole axes) gives the
        elements at this process's global indices."""
        if isinstance(value, _np.ndarray):
            return self.distributor.local_part(value)
        return super()._operand(value)

    def _fold(self, name, combine, axis=None, empty_value=None):
        """Full reductions fold the blocks where each element has one
        owner; along axes, or over a layout that replicates elements, the
        'equal' copy reduces."""
        if axis is None and self.distributor.unique:
            return super()._fold(name, combine, axis, empty_value)
        return self._in_rows()._fold(name, combine, axis, empty_value)

    def var(self, axis=None, **kwargs):
        if axis is None and self.distributor.unique:
            return super().var(axis=axis)
        return self._in_rows().var(axis=axis)

    def to_adlib(self, grid=None, specs=None):
        """As distributed_data_object.to_adlib; without arguments, an adlib
        array of this object's own layout, ghosts included (left unset for
        adlib.WriteHalo to fill), its owned elements copied from .data
        (no messages)."""
        if grid is None and specs is None:
            self._check_adlib_type("to_adlib")
            layout = self.distribution_strategy
            array = _adlib_empty(layout.grid, layout.specs, self.dtype)
            array.local[...] = self.data
            return array
        return super().to_adlib(grid, specs)


def _through_rows(name, assigns=False):
    """The method `name` of distributed_data_object, run on the 'equal'
    copy; with `assigns`, the copy's elements are then written back (one
    Remap each way).  A result of this object's shape and the copy's split
    comes back in the layout; the copy itself stands for this object."""
    method = getattr(distributed_data_object, name)

    @_functools.wraps(method)
    def run(self, *args, **kwargs):
        rows = self._in_rows()
        result = method(rows, *args, **kwargs)
        if assigns:
            self.data[...] = _redistribute(self.distributor, rows.distributor, rows.data,
                                           self.dtype)
            self.hermitian = rows.hermitian
        if result is rows:
            return self
        if _is_object(result) and result.shape == self.shape \
                and result.distributor.same_split(rows.distributor):
            return self._from_rows(result)
        return result

    run.__doc__ = ((method.__doc__ or "") + "\n\n        (An adlib Layout object: on an "
                   "'equal' copy of it, see adlib._d2o_layout_object.)")
    return run


#: What d2o defines by rows, and whether it assigns.
_ROW_METHODS = {
    "__getitem__": False, "get_data": False, "__setitem__": True, "set_data": True,
    "argmin": False, "argmax": False, "argmin_nonflat": False, "argmax_nonflat": False,
    "nanmin": False, "nanmax": False, "median": False, "cumsum": False, "flatten": False,
    "vdot": False, "bincount": False, "unique": False, "where": False, "__iter__": False,
}
for _name, _assigns in _ROW_METHODS.items():
    setattr(LayoutObject, _name, _through_rows(_name, _assigns))
