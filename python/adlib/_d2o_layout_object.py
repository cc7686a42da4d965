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
import numbers as _numbers

import numpy as _np
from mpi4py import MPI as _MPI

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

    # -- single elements: the process holding one, without a copy ------------------

    def __getitem__(self, key):
        element = self._element_key(key)
        if element is None:
            return self._by_rows_getitem(key)
        self._agree_on_key("get_data", key)  # in checked mode
        return self._get_element(element)

    def get_data(self, key, local_keys=False, **kwargs):
        element = None if local_keys else self._element_key(key)
        if element is None:
            return self._by_rows_get_data(key, local_keys=local_keys, **kwargs)
        self._agree_on_key("get_data", key)
        return self._get_element(element)

    def __setitem__(self, key, value):
        element = self._element_key(key)
        if element is None or _is_object(value):
            self._by_rows_setitem(key, value)
        else:
            self._agree_on_key("set_data", key)  # in checked mode
            self._set_element(element, value)

    def set_data(self, data, to_key, from_key=None, local_keys=False, hermitian=False,
                 copy=True, **kwargs):
        element = None if local_keys or from_key is not None else self._element_key(to_key)
        if element is None or _is_object(data):
            self._by_rows_set_data(data, to_key, from_key=from_key, local_keys=local_keys,
                                   hermitian=hermitian, copy=copy, **kwargs)
            return
        self._agree_on_key("set_data", to_key)
        self._set_element(element, data)
        self.hermitian = bool(hermitian)

    def _element_key(self, key):
        """For a key of one integer per dimension, this process's position of
        that element in .data, or () where it holds none (IndexError, the
        same everywhere, out of range); None for any other key."""
        entries = key if isinstance(key, tuple) else (key,)
        if len(entries) != self.ndim or not all(
                isinstance(k, _numbers.Integral) and not isinstance(k, bool) for k in entries):
            return None
        # Every range is checked before any lookup: a process that holds no
        # element of the first axis's index must still raise for the second.
        for axis, (index, extent) in enumerate(zip(entries, self.shape)):
            if not -extent <= index < extent:
                raise IndexError("index %d is out of bounds for axis %d with size %d"
                                 % (index, axis, extent))
        position = []
        for axis, (index, extent) in enumerate(zip(entries, self.shape)):
            found = _np.flatnonzero(self.distributor.global_indices[axis] == index % extent)
            if not found.size:
                return ()
            position.append(int(found[0]))
        return tuple(position)

    def _get_element(self, position):
        """The element at `position` (see _element_key) on every process:
        the lowest rank holding it broadcasts it (an allreduce finds it)."""
        comm = self.comm
        if comm.size == 1:
            return self.data[position]
        holder = comm.allreduce(comm.rank if position else comm.size, op=_MPI.MIN)
        return comm.bcast(self.data[position] if comm.rank == holder else None, root=holder)

    def _set_element(self, position, value):
        """Every process holding the element writes it: no messages."""
        value = _np.asarray(value)
        if value.ndim and value.size != 1:
            raise ValueError("d2o: could not assign an array of shape %s to one element"
                             % (value.shape,))
        # Converted on every process, so that a value numpy refuses raises
        # everywhere, not only where the element is.
        element = _np.empty((), self.dtype)
        element[()] = value.reshape(())
        if position:
            self.data[position] = element

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


# Indexing by rows, where a key is more than one element.
LayoutObject._by_rows_getitem = _through_rows("__getitem__")
LayoutObject._by_rows_get_data = _through_rows("get_data")
LayoutObject._by_rows_setitem = _through_rows("__setitem__", assigns=True)
LayoutObject._by_rows_set_data = _through_rows("set_data", assigns=True)

#: What else d2o defines by rows, and whether it assigns.
_ROW_METHODS = {
    "argmin": False, "argmax": False, "argmin_nonflat": False, "argmax_nonflat": False,
    "nanmin": False, "nanmax": False, "median": False, "cumsum": False, "flatten": False,
    "vdot": False, "bincount": False, "unique": False, "where": False, "__iter__": False,
}
for _name, _assigns in _ROW_METHODS.items():
    setattr(LayoutObject, _name, _through_rows(_name, _assigns))
