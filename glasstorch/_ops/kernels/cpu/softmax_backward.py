"""``_softmax_backward_data``: the gradient of softmax given its output — PyTorch's ``SoftMax.cpp``
(``TORCH_META_FUNC(_softmax_backward_data)``) and ``cpu/SoftMaxKernel.cpp`` (``host_softmax_backward``).

``grad_input = output * (grad - sum(grad * output, dim))``, computed in float32 for float16/bfloat16 (the kernel's
opmath) into a row-major result of grad's dtype (Half when grad is float and ``input_dtype`` is Half, which the CPU
kernel then refuses, as PyTorch's does).

Invariant: ``grad`` and ``output`` have one size; the result has it too.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core.shape import wrap_dim
from ...._tensor.impl import empty_contiguous
from .activation import opmath

__all__ = ["softmax_backward_data"]


def _fmt(sizes) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"


def softmax_backward_data(grad_output, output, dim, input_dtype):
    if grad_output.sizes != output.sizes:
        raise RuntimeError(f"Expected tensor for argument #1 'grad' to have same size as tensor for argument #2 "
                           f"'output'; but {_fmt(grad_output.sizes)} does not equal {_fmt(output.sizes)} (while "
                           f"checking arguments for softmax_backward)")
    d = wrap_dim(dim, grad_output.ndim)
    dtype = grad_output.dtype
    if dtype is _dt.float32 and input_dtype is _dt.float16:
        dtype = _dt.float16
    out = empty_contiguous(grad_output.sizes, dtype, grad_output.device)
    if out.storage._data is None:
        return out
    for t in (out, output):  # the CPU kernel reads both as grad's type
        if t.dtype is not grad_output.dtype:
            raise RuntimeError(f"expected scalar type {_dt.name_of(grad_output.dtype)} but found "
                               f"{_dt.name_of(t.dtype)}")
    if out.numel() == 0:
        return out
    work = opmath(dtype)
    g = grad_output.as_numpy().astype(work, copy=False)
    y = output.as_numpy().astype(work, copy=False)
    axis = d if grad_output.ndim else None
    with np.errstate(all="ignore"):
        res = y * (g - (g * y).sum(axis=axis, keepdims=True))
    np.copyto(out.as_numpy(), res, casting="unsafe")
    return out
