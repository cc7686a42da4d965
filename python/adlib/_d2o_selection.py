# SPDX-License-Identifier: BSD-3-Clause
"""What adlib.d2o's index keys select, as flat element subscripts, and the
adlib Gather / Scatter schedules that fetch and store the selected
elements across processes.

Basic keys (integers, slices, Ellipsis) and boolean masks of the whole shape
are handled by d2o.py without subscripts (each process keeps what it
holds).  This module serves the keys that may name elements another
process holds: integer index arrays on the leading axes (numpy's advanced
indexing in one broadcast dimension, d2o's "index lists"), and keys that
differ between processes (`local_keys=True`).  Such a key becomes, on each
process, the flat C-order subscripts of the elements it wants; adlib's
vector Gather (Scatter with "replace") moves them, planned once per split,
element type and key, and kept (the cache below)."""
import functools as _functools
import hashlib as _hashlib
import numbers as _numbers

import numpy as _np

from . import Gather, Scatter
from ._d2o_distribution import element_carrier, from_carrier, to_carrier

# -- basic keys ---------------------------------------------------------------


def expand_basic_key(key, shape):
    """`key` (integers, slices, Ellipsis) as one non-negative integer
    (checked) or slice per dimension of `shape`."""
    key = key if isinstance(key, tuple) else (key,)
    ellipses = sum(1 for k in key if k is Ellipsis)
    if ellipses > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if len(key) - ellipses > len(shape):
        raise IndexError("too many indices for an array of dimension %d" % len(shape))
    if ellipses:
        at = next(i for i, k in enumerate(key) if k is Ellipsis)
        key = key[:at] + (slice(None),) * (len(shape) - len(key) + 1) + key[at + 1:]
    key = key + (slice(None),) * (len(shape) - len(key))
    expanded = []
    for d, (k, n) in enumerate(zip(key, shape)):
        if isinstance(k, slice):
            expanded.append(k)
        elif _is_integer(k):
            if not -n <= k < n:
                raise IndexError("index %d is out of bounds for axis %d with size %d"
                                 % (k, d, n))
            expanded.append(int(k) % n)
        else:
            raise IndexError("adlib.d2o indexes with integers, slices, Ellipsis, boolean masks "
                             "and integer index arrays on the leading axes, not %s"
                             % type(k).__name__)
    return tuple(expanded)


def basic_offsets(key, shape):
    """(offsets, selected_shape): the flat C-order offsets, within an array
    of `shape`, of what the basic key selects, in numpy's order."""
    key = expand_basic_key(key, shape)
    strides = _c_strides(shape)
    axes, selected_shape = [], []
    for k, n, stride in zip(key, shape, strides):
        if isinstance(k, slice):
            positions = _np.arange(*k.indices(n), dtype=_np.int64)
            selected_shape.append(len(positions))
        else:
            positions = _np.array([k], dtype=_np.int64)
        axes.append(positions * stride)
    if not axes:
        return _np.zeros(1, _np.int64), ()
    offsets = _functools.reduce(_np.add.outer, axes)
    return _np.ascontiguousarray(offsets, dtype=_np.int64).reshape(-1), tuple(selected_shape)


def _c_strides(shape):
    """Element strides of a C-order array of `shape`."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= n
    return tuple(reversed(strides))


def _is_integer(k):
    return isinstance(k, (_numbers.Integral, _np.integer)) and not isinstance(k, (bool, _np.bool_))


# -- index arrays -------------------------------------------------------------


class IndexArrays:
    """A key with integer index arrays on its leading axes, resolved against
    a global `shape`: `arrays`, one int64 array per leading axis, broadcast
    to one length (negative indices wrapped, every index checked), and the
    basic key of the remaining axes (`rest`), with the flat offsets it
    selects inside one trailing block (`tail_offsets`, `tail_shape`).  The
    selection's shape is (len(arrays[0]),) + tail_shape, as numpy's."""

    def __init__(self, arrays, rest, shape):
        self.shape = tuple(shape)
        self.arrays = arrays
        self.rest = rest
        lead = len(arrays)
        self.tail_offsets, self.tail_shape = basic_offsets(rest, self.shape[lead:])
        self.tail_items = _np.prod(self.shape[lead:], dtype=_np.int64)

    @property
    def length(self):
        return len(self.arrays[0])

    @property
    def selected_shape(self):
        return (self.length,) + self.tail_shape

    def subscripts(self, begin=0, end=None):
        """The flat subscripts of selected items begin..end (their elements
        in C order)."""
        arrays = tuple(a[begin:end] for a in self.arrays)
        if not arrays[0].size or not self.tail_offsets.size:
            return _np.zeros(0, _np.int64)
        leading = _np.ravel_multi_index(arrays, self.shape[:len(arrays)]).astype(_np.int64)
        return (leading[:, None] * self.tail_items + self.tail_offsets[None, :]).reshape(-1)

    def digest(self):
        """A short fingerprint of the key (what processes compare to agree
        they index alike, and what the schedule cache files it under)."""
        hasher = _hashlib.blake2b(digest_size=12)
        hasher.update(repr((self.shape, _hashable(self.rest))).encode())
        for a in self.arrays:
            hasher.update(a.tobytes())
        return hasher.hexdigest()


def has_index_arrays(key):
    """Does `key` (a numpy array, a list, or a tuple of entries) hold an
    integer or partial boolean index array (numpy's advanced indexing)?"""
    entries = key if isinstance(key, tuple) else (key,)
    return any(_is_array_entry(k) for k in entries)


def _is_array_entry(k):
    return isinstance(k, list) or (isinstance(k, _np.ndarray) and k.ndim > 0)


def resolve_index_arrays(key, shape):
    """`key` with index arrays (numpy arrays or lists of integers; boolean
    arrays stand for their nonzero indices, numpy's rule) as IndexArrays.
    The arrays and the integers among them must be the leading entries of
    the key, and broadcast to one dimension (d2o's one-dimensional
    advanced indexing); IndexError otherwise."""
    entries = key if isinstance(key, tuple) else (key,)
    expanded = []
    for k in entries:
        if _is_array_entry(k):
            array = _np.asarray(k)
            if array.dtype == _np.bool_:
                axis = len(expanded)
                if array.shape != tuple(shape[axis:axis + array.ndim]):
                    raise IndexError("boolean index of shape %s does not match the array's axes "
                                     "%d.. of shape %s" % (array.shape, axis, tuple(shape)))
                expanded.extend(_np.nonzero(array))
                continue
            if array.size == 0:
                array = array.astype(_np.int64)
            if array.dtype.kind not in "iu":
                raise IndexError("arrays used as indices must be of integer (or boolean) type, "
                                 "not %s" % array.dtype.name)
            expanded.append(array)
        else:
            expanded.append(k)
    lead = 0
    while lead < len(expanded) and (isinstance(expanded[lead], _np.ndarray)
                                    or _is_integer(expanded[lead])):
        lead += 1
    if any(isinstance(k, _np.ndarray) for k in expanded[lead:]):
        raise IndexError("adlib.d2o takes index arrays on the leading axes only (here after "
                         "axis %d, which is not an array or an integer)" % lead)
    if lead > len(shape):
        raise IndexError("too many indices for an array of dimension %d" % len(shape))
    try:
        arrays = _np.broadcast_arrays(*[_np.asarray(k, dtype=_np.int64)
                                        for k in expanded[:lead]])
    except ValueError:
        raise IndexError("shape mismatch: the index arrays %s do not broadcast together"
                         % [_np.shape(k) for k in expanded[:lead]]) from None
    if arrays[0].ndim != 1:
        raise IndexError("adlib.d2o's index arrays are one-dimensional (d2o's rule), not of "
                         "shape %s" % (arrays[0].shape,))
    checked = []
    for axis, (array, n) in enumerate(zip(arrays, shape)):
        if array.size and (array.min() < -n or array.max() >= n):
            bad = array[(array < -n) | (array >= n)][0]
            raise IndexError("index %d is out of bounds for axis %d with size %d"
                             % (bad, axis, n))
        checked.append(_np.where(array < 0, array + n, array).astype(_np.int64))
    return IndexArrays(tuple(checked), tuple(expanded[lead:]), shape)


def local_key_subscripts(key, shape):
    """(subscripts, selected_shape) of any key this process gives alone
    (local_keys=True): a boolean mask of the whole shape, index arrays on
    the leading axes, or a basic key."""
    if isinstance(key, _np.ndarray) and key.dtype == _np.bool_ and key.shape == tuple(shape):
        subscripts = _np.flatnonzero(key).astype(_np.int64)
        return subscripts, subscripts.shape
    if has_index_arrays(key):
        selection = resolve_index_arrays(key, shape)
        return selection.subscripts(), selection.selected_shape
    return basic_offsets(key, shape)


def raw_fingerprint(key):
    """A hashable fingerprint of a key as given (arrays by type, shape and
    a digest of their bytes), what selections are cached under before the
    key is resolved; None for keys of other kinds (not cached)."""
    parts = []
    for k in key if isinstance(key, tuple) else (key,):
        if isinstance(k, list):
            k = _np.asarray(k)
        if isinstance(k, _np.ndarray):
            if k.dtype.hasobject:
                return None
            digest = _hashlib.blake2b(_np.ascontiguousarray(k).tobytes(), digest_size=12)
            parts.append(("array", k.dtype.str, k.shape, digest.hexdigest()))
        elif isinstance(k, slice):
            parts.append(("slice", k.start, k.stop, k.step))
        elif k is Ellipsis:
            parts.append(("...",))
        elif _is_integer(k):
            parts.append(("int", int(k)))
        else:
            return None
    return tuple(parts)


def _hashable(key):
    """A repr-stable form of a basic key (slices as triples)."""
    return tuple((k.start, k.stop, k.step) if isinstance(k, slice) else
                 ("...",) if k is Ellipsis else int(k) for k in key)


# -- moving the selected elements ------------------------------------------------

# Gather and Scatter schedules by (split, carrier type, kind, key digest):
# planned once per key, executed for every object of the split.
_schedules = {}
_CACHE_LIMIT = 256


def _flat_array(dist, block):
    """block (this process's, of `dist`'s split) as a 1-D adlib array of its
    carrier type over the flattened layout: (array, its numpy memory,
    carrier, by_view)."""
    carrier, by_view = element_carrier(block.dtype)
    flat = to_carrier(block, carrier, by_view).reshape(-1)
    if not flat.flags.writeable:  # adlib wraps writable memory only
        flat = flat.copy()
    return dist.adlib_array(flat, flat=True), flat, carrier, by_view


def _schedule(kind, dist, carrier, digest, plan):
    """The Gather or Scatter filed under (split, carrier type, kind, key
    digest); plan() makes it at its first use (collective)."""
    key = (dist.key(), id(dist.comm), carrier, kind, digest)
    schedule = _schedules.get(key)
    if schedule is None:
        if len(_schedules) >= _CACHE_LIMIT:
            _schedules.clear()
        schedule = _schedules[key] = plan()
    return schedule


def gather(dist, block, subscripts, digest):
    """The elements of the global array (split by `dist`, this process's
    `block`) at this process's flat `subscripts`, as a 1-D numpy array of
    the block's type (collective; the Gather is planned once per digest,
    which must be the same on every process)."""
    source, _, carrier, by_view = _flat_array(dist, block)
    schedule = _schedule("gather", dist, carrier, digest, lambda: Gather(source, subscripts))
    return from_carrier(schedule.execute(source), block.dtype, by_view)


def scatter(dist, block, subscripts, values, digest):
    """Writes `values` (one per flat subscript of this process) into the
    global array's elements at `subscripts` (collective; "replace": where
    processes name the same element, one of their values is kept).  `block`
    is this process's block, written in place."""
    target, flat, carrier, by_view = _flat_array(dist, block)
    schedule = _schedule("scatter", dist, carrier, digest,
                         lambda: Scatter(target, subscripts, "replace"))
    carried = to_carrier(_np.asarray(values, dtype=block.dtype).reshape(-1), carrier, by_view)
    schedule.execute(target, carried)
    if block.size:
        shaped = from_carrier(flat, block.dtype, by_view).reshape(block.shape)
        if not _np.shares_memory(shaped, block):
            block[...] = shaped
