"""Weak references keyed by identity — PyTorch's ``torch/utils/weak.py``.

A Tensor's ``__eq__`` is elementwise and its ``__hash__`` is identity, so ``weakref.WeakKeyDictionary`` cannot hold
tensors as keys reliably. :class:`WeakIdRef` hashes and compares by the referent's identity instead, and
:class:`WeakIdKeyDictionary` (alias ``WeakTensorKeyDictionary``) is a mapping whose entries vanish with their key.
"""

from __future__ import annotations

import weakref
from collections.abc import MutableMapping
from weakref import ref

__all__ = ["TensorWeakRef", "WeakIdKeyDictionary", "WeakIdRef", "WeakTensorKeyDictionary"]

WeakRef = ref


class WeakIdRef(weakref.ref):
    """A weak reference whose hash and equality are the referent's ``id``; equal only to a reference to the very
    same object (or, once dead, only to itself)."""

    __slots__ = ("_id",)

    def __new__(cls, key, callback=None):
        self = weakref.ref.__new__(cls, key, callback)
        self._id = id(key)
        return self

    def __init__(self, key, callback=None):
        super().__init__(key, callback)

    def __call__(self):
        return super().__call__()

    def __hash__(self):
        return self._id

    def __eq__(self, other):
        if not isinstance(other, WeakIdRef):
            return NotImplemented
        a, b = self(), other()
        if a is not None and b is not None:
            return a is b
        return self is other


class WeakIdKeyDictionary(MutableMapping):
    """A dict whose keys are held weakly and matched by identity; an entry is dropped when its key dies."""

    def __init__(self, mapping=None, ref_type=WeakIdRef):
        self.data: dict = {}
        self.ref_type = ref_type
        self_ref = weakref.ref(self)

        def remove(k):
            d = self_ref()
            if d is not None:
                d.data.pop(k, None)

        self._remove = remove
        if mapping is not None:
            self.update(mapping)

    def __getitem__(self, key):
        return self.data[self.ref_type(key)]

    def __setitem__(self, key, value):
        self.data[self.ref_type(key, self._remove)] = value

    def __delitem__(self, key):
        del self.data[self.ref_type(key)]

    def __contains__(self, key):
        try:
            r = self.ref_type(key)
        except TypeError:
            return False
        return r in self.data

    def __iter__(self):
        for r in list(self.data):
            obj = r()
            if obj is not None:
                yield obj

    def __len__(self):
        return sum(1 for r in list(self.data) if r() is not None)

    def __repr__(self):
        return f"<{type(self).__name__} at {id(self):#x}>"

    def get(self, key, default=None):
        return self.data.get(self.ref_type(key), default)

    def copy(self):
        new = type(self)(ref_type=self.ref_type)
        for k, v in self.items():
            new[k] = v
        return new

    __copy__ = copy

    def keyrefs(self) -> list:
        return list(self.data)


WeakTensorKeyDictionary = WeakIdKeyDictionary


class TensorWeakRef:
    """A weak reference to a tensor that also answers ``()`` with None once it is gone."""

    __slots__ = ("ref",)

    def __init__(self, tensor):
        self.ref = WeakRef(tensor)

    def __call__(self):
        return self.ref()
