"""Layouts and memory formats — PyTorch's ``c10/core/Layout.h`` and ``c10/core/MemoryFormat.h``.

Singletons compared by identity: ``torch.strided``, ``torch.contiguous_format``, ``torch.channels_last``,
``torch.channels_last_3d``, ``torch.preserve_format``. The sparse, mkldnn and jagged layouts exist as names, as in
PyTorch, so code can compare against them; glasstorch builds strided tensors only.
"""

from __future__ import annotations

__all__ = ["memory_format", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format", "layout",
           "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "jagged", "_mkldnn"]


class memory_format:
    """A memory layout tag (``torch.memory_format``)."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return self._name


contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")
preserve_format = memory_format("preserve_format")


class layout:
    """A tensor layout (``torch.layout``)."""

    __slots__ = ("_name",)

    def __init__(self, name):
        self._name = name

    def __repr__(self):
        return f"torch.{self._name}"


strided = layout("strided")
sparse_coo = layout("sparse_coo")
sparse_csr = layout("sparse_csr")
sparse_csc = layout("sparse_csc")
sparse_bsr = layout("sparse_bsr")
sparse_bsc = layout("sparse_bsc")
jagged = layout("jagged")
_mkldnn = layout("_mkldnn")
