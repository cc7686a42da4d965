# SPDX-License-Identifier: BSD-3-Clause
"""d2o's librarian: every distributed_data_object gets an `index` when it is
created, and `d2o_librarian[index]` finds the object again while it lives.

Every operation that creates an object is collective (every process of the
object's communicator runs it, in the same order), so the processes count
their objects alike: an object's index is the same on every process.  That
is what makes an index useful where d2o uses it: a process can name an
object to the others by its index (a small integer that any message
carries) and each finds its own part of that object with
`d2o_librarian[index]`.  (Code that creates objects on some processes only
breaks that agreement, as it breaks every collective.)"""
from . import _adlib

__all__ = ["d2o_librarian"]


class _Librarian:
    """Indices of distributed_data_objects, and the objects by index.

    Registering is on the path of every object creation (operators, copies,
    slices), so its state is compiled (python/src/d2o_core.cpp, where the
    compiled operators register what they make): a counter and a plain dict
    of weak references (weakref.WeakValueDictionary would build a KeyedRef
    with a removal callback in Python for every entry).  Entries of objects
    that are gone are swept out when the dict has doubled since the last
    sweep, which keeps the memory proportional to the living objects at a
    constant cost per registration."""

    __slots__ = ("_library",)

    def __init__(self):
        self._library = _adlib._d2o_library()  # swept in place: always this dict

    #: A new index for `obj` (the next one; indices start at 1 and are never
    #: reused), under which this librarian finds it while it lives.
    register = staticmethod(_adlib._d2o_register)

    def __getitem__(self, index):
        """The object registered under `index`; KeyError when there is none
        (never registered, or the object is gone)."""
        ref = self._library.get(index)
        obj = None if ref is None else ref()
        if obj is None:
            raise KeyError("d2o_librarian: no living distributed_data_object has index %r"
                           % (index,))
        return obj

    def __contains__(self, index):
        ref = self._library.get(index)
        return ref is not None and ref() is not None

    def __repr__(self):
        return "<d2o_librarian: %d indices given>" % _adlib._d2o_registered()


#: The librarian of every distributed_data_object of this process.
d2o_librarian = _Librarian()
