# SPDX-License-Identifier: BSD-3-Clause
"""adlib.d2o's indexing: obj[key], obj[key] = value, get_data, set_data,
with basic keys (each process keeps what it holds), boolean masks, integer
index arrays and index objects (adlib Gather / Scatter, see
_d2o_selection), and per-process keys (local_keys).  A part of
distributed_data_object (d2o.py)."""
import hashlib as _hashlib

import numpy as _np

from . import _d2o_selection as _selection
from ._d2o_common import _CHECKED, DistributedBase, _agree
from ._d2o_common import is_object as _is_object
from ._d2o_distribution import distribution as _distribution
from ._d2o_distribution import equal_rows as _equal_rows
from ._d2o_distribution import redistribute as _redistribute
from ._d2o_distribution import split as _split
from ._d2o_librarian import d2o_librarian as _d2o_librarian
from ._d2o_selection import expand_basic_key as _expand_key


class Indexing(DistributedBase):
    """The indexing part of distributed_data_object."""

    __slots__ = ()

    # -- indexing ---------------------------------------------------------------

    def _selection(self, key, cache_key=None):
        """What `key` (integers, slices, Ellipsis) selects: (local_key, shape,
        split, owner).  local_key indexes this process's block; shape is the
        result's global shape; split is the result's split when the first
        axis is sliced (each process keeps the rows it holds, in the order
        the slice visits them: no communication), else None; owner is the
        process holding the row an integer first index names (None when
        every process holds it)."""
        # Keys repeat (a loop over obj[::-2], obj[i]): what a key selects is
        # kept per split, under a hashable form of the key.
        dist = self.distributor
        if cache_key is None:
            cache_key = _hashable_key(key)
        if cache_key is not None:
            found = dist.selections.get(cache_key)
            if found is not None:
                return found
        found = self._select(key)
        if cache_key is not None:
            if len(dist.selections) >= 64:
                dist.selections.clear()
            dist.selections[cache_key] = found
        return found

    def _select(self, key):
        """_selection without the cache."""
        key = _expand_key(key, self.shape)
        dist = self.distributor
        rest = key[1:]
        trailing = _np.broadcast_to(_np.empty(()), self.shape[1:])[rest].shape
        first = key[0]
        if isinstance(first, slice):
            indices = range(*first.indices(self.shape[0]))
            shape = (len(indices),) + trailing
            if dist.replicated:
                return (first,) + rest, shape, _distribution("not", shape, self.comm), None
            order = list(range(self.comm.size))
            if indices.step < 0:
                order.reverse()
            rows = [len(_range_within(indices, *dist.rows_of(r))) for r in order]
            split = _split("freeform", shape, self.comm, rows, order)
            mine = _range_within(indices, dist.start, dist.stop)
            if len(mine) == 0:
                local = slice(0, 0)
            else:
                begin = mine.start - dist.start
                end = begin + len(mine) * mine.step
                local = slice(begin, end if end >= 0 else None, mine.step)
            return (local,) + rest, shape, split, None
        if dist.replicated:
            return key, trailing, None, None
        owner = next(r for r in range(self.comm.size)
                     if dist.rows_of(r)[0] <= first < dist.rows_of(r)[1])
        return (first - dist.start,) + rest, trailing, None, owner

    def __getitem__(self, key):
        """obj[key]: see get_data."""
        basic = None if _CHECKED else _hashable_key(key)
        if basic is not None:  # integers, slices, Ellipsis: straight to the cached selection
            return self._get_basic(key, basic)
        return self.get_data(key)

    def __setitem__(self, key, value):
        """obj[key] = value: see set_data."""
        self.set_data(value, key)

    def get_data(self, key, local_keys=False, **kwargs):
        """obj[key], with numpy's keys: integers, slices (negative steps too)
        and Ellipsis; boolean masks (numpy arrays or objects); integer index
        arrays on the leading axes (numpy arrays, lists or objects; one
        broadcast dimension, as d2o).  Collective; the key is the same on
        every process unless `local_keys`.

        A slice of the first axis gives an object whose processes keep the
        rows they hold (views of their blocks, as numpy's basic slicing; no
        communication); an integer first index gives the row's values on
        every process (a replicated object, or a number).  An index array
        gives an object split like the key (an object key) or, for a numpy
        key, each process keeping the items it holds when the key visits
        the processes in order (no communication), else dealt evenly and
        fetched by an adlib Gather planned once per key.

        local_keys=True: each process gives its own key and gets what it
        selects, as its block of a 'freeform' object: a numpy key through
        an adlib Gather planned once per set of keys; a key object (one,
        made on every process) as d2o does, every process's object found
        through the librarian and selecting collectively in turn."""
        basic = None if local_keys else _hashable_key(key)
        if basic is not None:  # the common case first: integers, slices, Ellipsis
            self._agree_on_key("get_data", key)
            return self._get_basic(key, basic)
        if local_keys:
            return self._get_local_keys(key)
        if key is None:
            return self.copy()
        if _is_mask(key, self.ndim):
            self._agree_on_key("get_data", key)
            return self._masked(key)
        if _has_object_entry(key):
            return self._get_by_objects(key)
        if _selection.has_index_arrays(key):
            return self._get_indexed(key)
        self._agree_on_key("get_data", key)
        return self._get_basic(key)

    def set_data(self, data, to_key, from_key=None, local_keys=False, hermitian=False,
                 copy=True, **kwargs):
        """obj[to_key] = data[from_key] (data itself without from_key): each
        process writes the part of the selection it holds.  `data` is a
        scalar, a numpy array of the selection's shape or one that
        broadcasts to it, or an object of the selection's shape
        (redistributed to the selection's split).  Keys as get_data; where
        an index array names an element twice, the last value is kept
        (numpy's rule) for numpy data, one of them for object data.  Sets
        `hermitian` (False by default: a write may break the symmetry, as
        d2o)."""
        if from_key is not None:
            data = data.get_data(from_key) if _is_object(data) \
                else _np.asarray(data)[from_key]
        self.hermitian = bool(hermitian)
        if local_keys:
            self._set_local_keys(to_key, data)
        elif _is_mask(to_key, self.ndim):
            self._agree_on_key("set_data", to_key)
            self._set_masked(to_key, data)
        elif _has_object_entry(to_key):
            self._set_by_objects(to_key, data)
        elif _selection.has_index_arrays(to_key):
            self._set_indexed(to_key, data)
        else:
            self._agree_on_key("set_data", to_key)
            self._set_basic(to_key, data)

    def _agree_on_key(self, call, key):
        """In checked mode (ADLIB_CHECKED=1), agree across processes that
        they index with the same basic key or mask: a ValueError on every
        process where they differ, instead of a hang or a wrong answer.  (Keys
        with index arrays are always agreed: they plan schedules.)"""
        if _CHECKED and self.distributor.comm.size > 1:
            _agree(self.comm, "d2o.%s(key=%s)" % (call, _key_digest(key)))

    def _get_basic(self, key, basic=None):
        """get_data for integers, slices and Ellipsis (`basic`: the key's
        hashable form, when known)."""
        local_key, shape, split, owner = self._selection(key, basic)
        if split is not None:
            return self._from_local(split, self.data[local_key])
        if owner is None:
            value = self.data[local_key]
        else:
            value = self.comm.bcast(
                self.data[local_key] if self.comm.rank == owner else None, root=owner)
        if not shape:
            return value
        return self._from_local(_distribution("not", shape, self.comm), _np.array(value))

    def _set_basic(self, key, value):
        """set_data for integers, slices and Ellipsis."""
        local_key, shape, split, owner = self._selection(key)
        if _is_object(value):
            if value.shape != shape:
                raise ValueError("d2o: could not assign an object of shape %s to a selection "
                                 "of shape %s" % (value.shape, shape))
            if split is None:
                value = value.get_full_data()
            else:
                if not value.distributor.same_split(split):
                    value = _redistribute(split, value.distributor, value.data, value.dtype)
                else:
                    value = value.data
                self.data[local_key] = value
                return
        value = _np.asarray(value)
        if split is not None and value.ndim == len(shape) and value.ndim > 0 \
                and value.shape[0] == shape[0] and shape[0] != 1:
            value = value[split.start:split.stop]  # this process's rows of the selection
        if owner is not None and owner != self.comm.rank:
            return
        self.data[local_key] = value

    def _mask_block(self, mask):
        """This process's part of a boolean mask of this object's shape: an
        object's (redistributed to this split if needed) or a numpy array's
        rows."""
        if mask.shape != self.shape:
            raise IndexError("d2o: a boolean index of shape %s for an array of shape %s"
                             % (mask.shape, self.shape))
        if _is_object(mask):
            return self._operand(mask)
        return mask[self.distributor.local_slice()]

    def _mask_split(self, selected):
        """The split of a masked selection, `selected` elements here: each
        process keeps its elements, in the order its rows come (one
        allgather of the counts); replicated objects stay replicated."""
        dist = self.distributor
        if dist.replicated:
            return _distribution("not", (selected,), self.comm)
        counts = self.comm.allgather(selected)
        return _split("freeform", (sum(counts),), self.comm,
                             [counts[r] for r in dist.order], dist.order)

    def _masked(self, mask):
        """obj[mask]: the elements where a boolean mask of the object's shape
        holds, as a 1-D object, in C order (numpy's)."""
        values = self.data[self._mask_block(mask)]
        return self._from_local(self._mask_split(values.size), values)

    def _set_masked(self, mask, value):
        """obj[mask] = value: a scalar, a 1-D array or object of as many
        elements as the mask selects (each process takes its own)."""
        block = self._mask_block(mask)
        if _is_object(value):
            value = value.get_full_data()
        value = _np.asarray(value)
        if value.ndim == 0 or (value.ndim == 1 and value.size == 1):
            self.data[block] = value.reshape(())
            return
        split = self._mask_split(int(_np.count_nonzero(block)))
        if value.shape != split.global_shape:
            raise ValueError("d2o: %d values for %d elements the mask selects"
                             % (value.size, split.global_shape[0]))
        self.data[block] = value[split.start:split.stop]

    # -- index arrays and per-process keys ----------------------------------------

    def _resolve_agreed(self, call, key, shape=None):
        """The IndexArrays of a key every process gives alike, agreed: a bad
        key raises the same IndexError everywhere, keys that differ between
        processes a ValueError everywhere (one small allreduce)."""
        try:
            selection = _selection.resolve_index_arrays(key, self.shape if shape is None
                                                        else shape)
        except (IndexError, TypeError, ValueError) as error:
            _agree(self.comm, "d2o.%s(index arrays)" % call, error)
            raise
        _agree(self.comm, "d2o.%s(index arrays %s)" % (call, selection.digest()))
        return selection

    def _index_plan(self, call, key):
        """The _IndexPlan of a numpy key with index arrays (the same on every
        process): resolved once per split and key (kept with the split's
        other selections, under the key's raw fingerprint), agreed across
        processes on every use (one small allreduce, none on one process)."""
        dist = self.distributor
        fingerprint = _selection.raw_fingerprint(key)
        cache_key = None if fingerprint is None else ("index arrays", fingerprint)
        plan = None if cache_key is None else dist.selections.get(cache_key)
        if plan is None:
            plan = _IndexPlan(self._resolve_agreed(call, key), dist)
            if cache_key is not None:
                if len(dist.selections) >= 64:
                    dist.selections.clear()
                dist.selections[cache_key] = plan
        elif self.comm.size > 1:
            _agree(self.comm, "d2o.%s(index arrays %s)" % (call, plan.digest))
        return plan

    def _get_indexed(self, key):
        """get_data for numpy index arrays (the same on every process)."""
        plan = self._index_plan("get_data", key)
        dist = self.distributor
        if dist.replicated:
            values = self.data[plan.whole_key]
            return self._from_local(_distribution("not", values.shape, self.comm), values)
        if plan.stays:  # every item stays where it is
            values = self.data[plan.stays_key]
        else:
            values = _selection.gather(dist, self.data, plan.subscripts, plan.digest)
        return self._from_local(plan.split, values.reshape(plan.split.local_shape))

    def _set_indexed(self, key, value):
        """set_data for numpy index arrays (the same on every process)."""
        plan = self._index_plan("set_data", key)
        shape = plan.selection.selected_shape
        dist = self.distributor
        if _is_object(value):
            if value.shape != shape:
                raise ValueError("d2o: could not assign an object of shape %s to a selection "
                                 "of shape %s" % (value.shape, shape))
            if dist.replicated:
                value = value.get_full_data()
            else:
                split = plan.split
                block = value.data if value.distributor.same_split(split) else \
                    _redistribute(split, value.distributor, value.data, value.dtype)
                if plan.stays:
                    self.data[plan.stays_key] = block
                else:
                    _selection.scatter(dist, self.data, plan.subscripts, block, plan.digest)
                return
        values = _np.broadcast_to(_np.asarray(value), shape)
        if dist.replicated:
            self.data[plan.whole_key] = values
            return
        # Every process has every value: each writes the items it holds.
        self.data[plan.held_key] = values[plan.held]

    def _object_key(self, key):
        """A key with object entries as this process's numpy key: index
        objects brought to the split of the first (the leader), numpy
        arrays of the leader's length cut to its rows.  Returns (leader,
        local key)."""
        entries = key if isinstance(key, tuple) else (key,)
        leader = next(k for k in entries if _is_object(k))._in_rows()
        local = []
        for k in entries:
            if _is_object(k):
                if k.ndim != 1 or k.dtype.kind not in "iu":
                    raise IndexError("d2o: index objects are one-dimensional arrays of "
                                     "integers, not %s of shape %s" % (k.dtype.name, k.shape))
                if k.shape != leader.shape:
                    raise IndexError("shape mismatch: index objects of shapes %s and %s"
                                     % (leader.shape, k.shape))
                local.append(leader._operand(k))
            elif _selection.has_index_arrays(k) and _np.ndim(k) == 1 \
                    and len(k) == leader.shape[0] != 1:
                local.append(_np.asarray(k)[leader.distributor.local_slice()])
            else:
                local.append(k)
        return leader, tuple(local)

    def _resolve_object_key(self, call, key):
        """(leader, IndexArrays of this process's part, result split), agreed:
        an index out of range on one process raises on every process."""
        try:
            leader, local = self._object_key(key)
            selection = _selection.resolve_index_arrays(local, self.shape)
        except (IndexError, TypeError, ValueError) as error:
            _agree(self.comm, "d2o.%s(index objects)" % call, error)
            raise
        _agree(self.comm, "d2o.%s(index objects)" % call)
        lead = leader.distributor
        split = _split(lead.strategy, (leader.shape[0],) + selection.tail_shape, self.comm,
                       lead.rows, lead.order)
        return leader, selection, split

    def _get_by_objects(self, key):
        """get_data for index objects: the result is split like the key, each
        process fetching the items its part of the key names."""
        _, selection, split = self._resolve_object_key("get_data", key)
        if self.distributor.replicated:
            values = self.data[tuple(selection.arrays) + selection.rest]
        else:
            values = self._gather_own_subscripts(selection.subscripts(), selection.digest())
        return self._from_local(split, values.reshape(split.local_shape))

    def _set_by_objects(self, key, value):
        """set_data for index objects: each process stores the items its part
        of the key names (an adlib Scatter)."""
        _, selection, split = self._resolve_object_key("set_data", key)
        if _is_object(value):
            if value.shape != split.global_shape:
                raise ValueError("d2o: could not assign an object of shape %s to a selection "
                                 "of shape %s" % (value.shape, split.global_shape))
            block = value.data if value.distributor.same_split(split) else \
                _redistribute(split, value.distributor, value.data, value.dtype)
        else:
            value = _np.asarray(value)
            if value.ndim and value.shape[0] == split.global_shape[0] != 1:
                value = value[split.start:split.stop]  # this process's items
            block = _np.broadcast_to(value, split.local_shape)
        if self.distributor.replicated:
            self._set_replicated_everywhere(selection.subscripts(), block)
        else:
            self._scatter_own_subscripts(selection.subscripts(), block, selection.digest())

    def _get_local_keys(self, key):
        """get_data(local_keys=True): this process's own key; the result is a
        'freeform' object whose block here is what that key selects."""
        comm = self.comm
        call = "d2o.get_data(local_keys, %s)" % _local_key_kind(key)
        try:
            keys, subscripts, shape = self._local_key_parts(key)
        except (IndexError, TypeError, ValueError) as error:
            _agree(comm, call, error)
            raise
        _agree(comm, call)
        if keys is not None:
            # d2o's way: each process's key object selects collectively, and
            # the selection goes to the process whose key it is.
            for rank, other in enumerate(keys):
                selected = self.get_data(other).get_full_data(target_rank=rank)
                if rank == comm.rank:
                    block = selected
            return self._from_own_blocks(block)
        shape = shape if shape else (1,)  # a single element: a block of one
        if self.distributor.replicated:
            values = self.data.reshape(-1)[subscripts]
        else:
            values = self._gather_own_subscripts(subscripts, _subscripts_digest(subscripts))
        return self._from_own_blocks(values.reshape(shape))

    def _local_key_parts(self, key):
        """What this process's own key is: (every process's key object, None,
        None) for a key object, else (None, flat subscripts, selected shape)
        of a numpy key."""
        if _is_object(key):
            return self._keys_of_every_process(key), None, None
        if _has_object_entry(key):
            raise TypeError("d2o: local_keys takes one key object or a numpy key, not a tuple "
                            "with objects")
        subscripts, shape = _selection.local_key_subscripts(key, self.shape)
        return None, subscripts, shape

    def _keys_of_every_process(self, key):
        """Every process's key object (local_keys with objects), found by
        their librarian indices (one allgather): d2o's librarian's use."""
        keys = []
        for index in self.comm.allgather(key.index):
            if index not in _d2o_librarian:
                raise ValueError("d2o: local_keys: another process's key object (index %d) is "
                                 "not known here: key objects are made on every process"
                                 % index)
            keys.append(_d2o_librarian[index])
        return keys

    def _from_own_blocks(self, block):
        """A 'freeform' object of every process's own `block` (one allgather
        of the block shapes: the rows, and the check that the blocks agree
        after their first dimension)."""
        comm = self.comm
        shapes = comm.allgather(block.shape)
        if any(s[1:] != block.shape[1:] for s in shapes):
            raise ValueError("d2o: local_keys: the processes' keys select blocks of shapes %s, "
                             "which differ after the first dimension" % shapes)
        rows = [s[0] for s in shapes]
        split = _split("freeform", (sum(rows),) + block.shape[1:], comm, rows)
        return self._from_local(split, block)

    def _set_local_keys(self, key, value):
        """set_data(local_keys=True): each process stores its own values at
        its own key (an adlib Scatter)."""
        call = "d2o.set_data(local_keys, %s)" % _local_key_kind(key)
        if _is_object(value):
            value = value.data  # its block here: what get_data(local_keys=True) gave
        try:
            keys, subscripts, shape = self._local_key_parts(key)
            if keys is None:
                values = _np.broadcast_to(_np.asarray(value), shape)
        except (IndexError, TypeError, ValueError) as error:
            _agree(self.comm, call, error)
            raise
        _agree(self.comm, call)
        if keys is not None:
            # Each process's values, stored collectively through its key object.
            shapes = [self._selected_shape(other) for other in keys]
            try:
                mine = _np.array(_np.broadcast_to(_np.asarray(value), shapes[self.comm.rank]),
                                 dtype=self.dtype)
            except (TypeError, ValueError) as error:
                _agree(self.comm, call + " values", error)
                raise
            _agree(self.comm, call + " values")
            for rank, other in enumerate(keys):
                self.set_data(self._held_by(rank, mine, shapes[rank]), other)
            return
        if self.distributor.replicated:
            self._set_replicated_everywhere(subscripts, values)
        else:
            self._scatter_own_subscripts(subscripts, values, _subscripts_digest(subscripts))

    def _selected_shape(self, key):
        """The shape of what a key object selects (collective for a mask: its
        count)."""
        if _np.dtype(key.dtype) == _np.bool_:
            return (int(key.sum()),)
        return (key.shape[0],) + self.shape[1:]

    def _held_by(self, rank, block, shape):
        """A 'freeform' object of `shape` whose rows process `rank` alone
        holds (`block` there)."""
        if rank != self.comm.rank:
            block = _np.empty((0,) + shape[1:], self.dtype)
        rows = [shape[0] if r == rank else 0 for r in range(self.comm.size)]
        return self._from_local(_split("freeform", shape, self.comm, rows), block)

    def _gather_own_subscripts(self, subscripts, digest):
        """The elements at this process's own flat subscripts (processes
        differ): the Gather is filed under every process's digest together
        (one allgather of digests), so it is reused only for the same keys
        on every process."""
        return _selection.gather(self.distributor, self.data, subscripts,
                                 _digest_of_all(self.comm, digest))

    def _scatter_own_subscripts(self, subscripts, values, digest):
        """Stores `values` at this process's own flat subscripts (the Scatter
        filed as the Gather above)."""
        _selection.scatter(self.distributor, self.data, subscripts, values,
                           _digest_of_all(self.comm, digest))

    def _set_replicated_everywhere(self, subscripts, values):
        """A replicated object stays the same everywhere: every process
        applies every process's writes, in rank order."""
        for theirs, their_values in self.comm.allgather(
                (subscripts, _np.ascontiguousarray(values).reshape(-1))):
            self.data[_np.unravel_index(theirs, self.shape)] = their_values


class _IndexPlan:
    """What a numpy key with index arrays selects from one split, worked out
    once: the IndexArrays (`selection`, `digest`); for a replicated split
    the key into the whole block (`whole_key`); otherwise the result's
    `split` and, per item, the position of the process holding it.  Items
    that visit the processes in order stay where they are (`stays`: a
    'freeform' split of the result, this process's items read by
    `stays_key` from its block, no messages); others are dealt evenly in
    rank order and fetched at the flat `subscripts` of this process's
    items.  `held` marks the items this process holds, `held_key` reads
    them from its block (what assigning numpy values writes)."""

    def __init__(self, selection, dist):
        self.selection = selection
        self.digest = selection.digest()
        arrays, rest = selection.arrays, selection.rest
        self.whole_key = tuple(arrays) + rest
        if dist.replicated:
            return
        comm, shape = dist.comm, selection.selected_shape
        owners = _np.searchsorted(_np.cumsum(dist.rows), arrays[0], side="right")
        self.stays = owners.size < 2 or not (owners[1:] < owners[:-1]).any()
        if self.stays:
            rows = _np.bincount(owners, minlength=comm.size).tolist()
            self.split = _split("freeform", shape, comm, rows, dist.order)
            self.stays_key = self._block_key(arrays, rest, dist, slice(self.split.start,
                                                                       self.split.stop))
        else:
            self.split = _split("equal", shape, comm, _equal_rows(shape[0], comm.size))
            self.subscripts = selection.subscripts(self.split.start, self.split.stop)
        self.held = owners == dist.position_of(comm.rank)
        self.held_key = self._block_key(arrays, rest, dist, self.held)

    @staticmethod
    def _block_key(arrays, rest, dist, items):
        """The numpy key of `items` (a slice or a boolean array over the
        selection's items, all held here) into this process's block."""
        picked = tuple(a[items] for a in arrays)
        return (picked[0] - dist.start,) + picked[1:] + rest


def _is_mask(key, ndim):
    """Is `key` a boolean mask of the whole array (an object of bools, or a
    numpy array of bools with every dimension; one with fewer dimensions
    stands for its nonzero indices, an index key)?"""
    if _is_object(key):
        return _np.dtype(key.dtype) == _np.bool_
    return isinstance(key, _np.ndarray) and key.dtype == _np.bool_ and key.ndim == ndim


def _has_object_entry(key):
    """Is `key`, or an entry of a tuple key, a distributed_data_object
    (other than a boolean mask of the whole array)?"""
    entries = key if isinstance(key, tuple) else (key,)
    return any(_is_object(k) for k in entries)


def _local_key_kind(key):
    """What kind of per-process key this is (processes must agree on it)."""
    return "object" if _is_object(key) else "numpy"


def _subscripts_digest(subscripts):
    """The cache key of one process's own subscripts."""
    return "own:" + _hashlib.blake2b(subscripts.tobytes(), digest_size=12).hexdigest()


def _digest_of_all(comm, digest):
    """One digest of every process's `digest` (collective: one allgather);
    what a schedule planned from keys that differ between processes is
    cached under."""
    if comm.size == 1:
        return digest
    joined = "|".join(comm.allgather(digest))
    return "all:" + _hashlib.blake2b(joined.encode(), digest_size=12).hexdigest()


def _key_digest(key):
    """A short fingerprint of a basic key or a numpy mask (for the
    agreement of checked mode)."""
    if isinstance(key, _np.ndarray):
        return "mask:" + _hashlib.blake2b(key.tobytes(), digest_size=12).hexdigest()
    if _is_object(key):
        return "object-mask%s" % (key.shape,)
    return repr(_hashable_key(key))


def _hashable_key(key):
    """`key` as a hashable value (slices as triples), or None for keys of
    other kinds (those are not cached)."""
    parts = []
    for k in key if isinstance(key, tuple) else (key,):
        if isinstance(k, slice):
            parts.append(("s", k.start, k.stop, k.step))
        elif k is Ellipsis:
            parts.append(("e",))
        elif isinstance(k, (int, _np.integer)) and not isinstance(k, bool):
            parts.append(("i", int(k)))
        else:
            return None
    return tuple(parts)


def _range_within(indices, low, high):
    """The part of range `indices` inside [low, high), as a range."""
    step = indices.step
    if step > 0:
        start = indices.start
        if start < low:
            start += -(-(low - start) // step) * step
        return range(start, min(indices.stop, high), step)
    start = indices.start
    if start > high - 1:
        start -= -(-(start - (high - 1)) // -step) * -step
    return range(start, max(indices.stop, low - 1), step)
