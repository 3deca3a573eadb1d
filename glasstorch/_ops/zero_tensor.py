"""The ZeroTensor fallback — PyTorch's ``ZeroTensorFallback.cpp``.

Note [ZeroTensor]
``torch._efficientzerotensor(size)`` makes a tensor known to be all zeros: its key set carries the ZeroTensor
key (between the math bits and ADInplaceOrView, as in PyTorch), which ``_is_zerotensor()`` reads.  PyTorch's
holds no memory; glasstorch's holds zeros, so code that reads values outside the dispatcher (repr, ``tolist``)
sees what PyTorch's would.  At the ZeroTensor key:

- view operators pass the bit on (a view copies its source's key set), so ``z[0]`` and ``z.t()`` stay zero
  tensors;
- an operator that would write a zero tensor (in place, ``out=``) raises PyTorch's "ZeroTensors are immutable";
- every other operator sees each zero-tensor input as a plain tensor of zeros (an alias without the bit; nothing
  writes it) and continues below, so its result is an ordinary tensor.

Saving one raises (``get_tensor_metadata``), and ``numpy()`` refuses one, as in PyTorch.  PyTorch's dedicated
kernels that keep a result a zero tensor (``mul`` by a zero tensor) are not reproduced: those results are
ordinary zeros.
"""

from __future__ import annotations

from .._core.dispatch_key import bit
from .._tensor.impl import TensorImpl
from .dispatcher import register_fallback

__all__ = ["ZERO_TENSOR_BIT", "install"]

ZERO_TENSOR_BIT = bit("ZeroTensor")

_IMMUTABLE = ("ZeroTensors are immutable. Please use the materialized zero tensor obtained using .clone() if you "
              "want a mutable tensor.")
_IMMUTABLE_COPY = ("ZeroTensors are immutable. Please materialize the tensor using `.clone()`, if you want a mutable "
                   "zero tensor.")  # copy_'s own check, worded apart in PyTorch


def _plain(value):
    """A zero tensor's values as an ordinary tensor (an alias without the bit); other values unchanged."""
    if type(value) is TensorImpl:
        if not value.key_set & ZERO_TENSOR_BIT:
            return value
        out = value.view_impl(value.sizes, value.strides, value.offset)
        out.key_set &= ~ZERO_TENSOR_BIT
        return out
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(x) for x in value)
    return value


def _is_zero(value) -> bool:
    if type(value) is TensorImpl:
        return bool(value.key_set & ZERO_TENSOR_BIT)
    return isinstance(value, (list, tuple)) and any(_is_zero(x) for x in value)


def _zero_tensor_fallback(op, ks, *args, **kwargs):
    schema = op.schema
    if schema.is_view and not schema.is_mutable:
        return op.redispatch(ks, *args, **kwargs)
    arguments = schema.arguments
    by_name = {a.name: a for a in arguments}
    written = [a for i, a in enumerate(args) if i < len(arguments) and arguments[i].is_write]
    written += [v for k, v in kwargs.items() if k in by_name and by_name[k].is_write]
    if any(_is_zero(v) for v in written):
        raise RuntimeError(_IMMUTABLE_COPY if op.name == "aten::copy_" else _IMMUTABLE)
    return op.redispatch(ks, *_plain(tuple(args)), **{k: _plain(v) for k, v in kwargs.items()})


def install() -> None:
    register_fallback("ZeroTensor", _zero_tensor_fallback, label="zeroTensorFallback")
