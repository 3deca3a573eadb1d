"""Python objects stashed per thread by key — PyTorch's ``ATen/ThreadLocalPythonObjects.h``.

``torch._C._stash_obj_in_tls(key, obj)`` and its readers keep a dict per thread (Python code uses it to carry
state such as a dispatch mode's stack alongside the other thread-local state).  Invariant: a thread sees only
what it (or the state it was handed) stashed; a new thread starts empty.
"""

from __future__ import annotations

import threading

from . import thread_state

__all__ = ["stash", "get", "contains", "remove"]


class _Objects(threading.local):
    def __init__(self):
        self.objects = {}


_tls = thread_state.register(_Objects())


def stash(key: str, obj) -> None:
    _tls.objects[key] = obj


def get(key: str):
    objects = _tls.objects
    if key not in objects:
        raise RuntimeError("Expected py_objects.obj_dict_.count(key) to be true, but got false.  (Could this error "
                           "message be improved?  If so, please report an enhancement request to PyTorch.)")
    return objects[key]


def contains(key: str) -> bool:
    return key in _tls.objects


def remove(key: str) -> None:
    _tls.objects.pop(key, None)

