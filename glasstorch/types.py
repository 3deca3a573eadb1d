"""Type aliases that annotations across the library use — PyTorch's ``torch/types.py``.

glasstorch has no symbolic shapes yet, so the ``*LikeType`` aliases are the plain Python types and ``py_sym_types``
is empty.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import IO, TypeAlias

from ._core.device import device as _device
from ._core.dtype import dtype as _dtype
from ._core.layout import layout as _layout
from ._core.shape import Size
from ._tensor.storage import UntypedStorage
from .autograd.graph import GradientEdge
from .tensor import Tensor

__all__ = ["Device", "FileLike", "Number", "Storage"]

_ALIASED = (_dtype, _layout)  # torch.types exposes dtype and layout under these private names too

_TensorOrTensors: TypeAlias = Tensor | Sequence[Tensor]
_TensorOrOptionalTensors: TypeAlias = Tensor | Sequence[Tensor | None]
_TensorOrTensorsOrGradEdge: TypeAlias = Tensor | Sequence[Tensor] | GradientEdge | Sequence[GradientEdge]
_size: TypeAlias = Size | list[int] | tuple[int, ...]
_symsize: TypeAlias = Size | Sequence[int]
_dispatchkey: TypeAlias = str

IntLikeType: TypeAlias = int
FloatLikeType: TypeAlias = float
BoolLikeType: TypeAlias = bool
py_sym_types: tuple = ()

Number: TypeAlias = int | float | bool
_Number = (int, float, bool)
FileLike: TypeAlias = str | os.PathLike | IO[bytes]
Device: TypeAlias = _device | str | int | None
Storage = UntypedStorage

_bool = bool
_complex = complex
_float = float
_int = int
_str = str
