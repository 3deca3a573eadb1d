"""Read-only list and dict for node arguments — PyTorch's ``torch/fx/immutable_collections.py``.

A Node's ``args`` may hold lists and its ``kwargs`` is a dict; both are stored as these immutable
versions so that editing them in place (which would bypass the users bookkeeping) fails loudly.

Invariant: an immutable collection hashes by content, so argument structures can key CSE tables.
"""

from __future__ import annotations

__all__ = ["immutable_list", "immutable_dict"]

_HELP = ("If you are attempting to modify the kwargs or args of a torch.fx.Node object,\n"
         "instead create a new copy of it and assign the copy to the node:\n\n"
         "    new_args = ...  # copy and mutate args\n"
         "    node.args = new_args")


def _no_mutation(self, *args, **kwargs):
    raise TypeError(f"{type(self).__name__!r} object does not support mutation. {_HELP}")


class immutable_list(list):  # noqa: N801 - PyTorch's name
    """A list that refuses in-place changes."""

    __delitem__ = __iadd__ = __imul__ = __setitem__ = _no_mutation
    append = clear = extend = insert = pop = remove = reverse = sort = _no_mutation

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __reduce__(self):
        return (type(self), (tuple(self),))


class immutable_dict(dict):  # noqa: N801 - PyTorch's name
    """A dict that refuses in-place changes."""

    __delitem__ = __ior__ = __setitem__ = _no_mutation
    clear = pop = popitem = setdefault = update = _no_mutation

    def __hash__(self) -> int:
        return hash(frozenset(self.items()))

    def __reduce__(self):
        return (type(self), (tuple(self.items()),))
