"""Conversions between glasstorch and torch objects, for the adapters (values copied, dtypes kept)."""

from __future__ import annotations

import importlib

import numpy as np
import torch

import glasstorch
from tools.pytorch_tests.runtime import Missing

# dtypes numpy cannot hold: copied through a wider dtype that holds every value exactly.
# dtypes numpy cannot carry across: widened exactly (float8 values are all float32 values) and narrowed back
_WIDEN = {"bfloat16": "float32", "float16": "float32", "complex32": "complex64",
          **dict.fromkeys(("float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz"), "float32")}


def dtype_name(dtype) -> str:
    return str(dtype).removeprefix("torch.")


def is_glass_dtype(x) -> bool:
    return isinstance(x, glasstorch.dtype)


def torch_dtype(dtype):
    """The torch dtype of the same name as glasstorch dtype ``dtype`` or as the placeholder of one glasstorch lacks
    (``torch.float8_e5m2``); anything else passes through."""
    if is_glass_dtype(dtype):
        return getattr(torch, dtype_name(dtype))
    if isinstance(dtype, Missing):
        found = getattr(torch, str(dtype).removeprefix("torch."), None)
        return found if isinstance(found, torch.dtype) else dtype
    return dtype


def glass_dtype(dtype):
    """The glasstorch dtype of the same name as torch dtype ``dtype``, or None where glasstorch has none."""
    if not isinstance(dtype, torch.dtype):
        return dtype
    found = getattr(glasstorch, dtype_name(dtype), None)
    return found if is_glass_dtype(found) else None


def _wrapper_to_torch(t):
    """A traceable wrapper subclass (``__tensor_flatten__``, as TwoTensor): torch's class of the same module path,
    rebuilt with ``__tensor_unflatten__`` from its converted inner tensors."""
    names, ctx = t.__tensor_flatten__()
    module = importlib.import_module(type(t).__module__.replace("glasstorch", "torch", 1))
    cls = getattr(module, type(t).__qualname__)
    return cls.__tensor_unflatten__({n: _tensor_to_torch(getattr(t, n)) for n in names}, ctx, tuple(t.shape),
                                    tuple(t.stride()))


def _tensor_to_torch(t):
    if type(t) is not glasstorch.Tensor and getattr(type(t), "__tensor_flatten__", None) is not None:
        return _wrapper_to_torch(t)
    t = t.detach()
    dtype = torch_dtype(t.dtype)
    if t.device.type == "meta":
        return torch.empty_strided(tuple(t.shape), tuple(t.stride()), dtype=dtype, device="meta")
    if t.layout != glasstorch.strided:
        dense = _tensor_to_torch(t.to_dense())
        return dense.to_sparse() if t.layout == glasstorch.sparse_coo else dense
    t = t.resolve_conj().resolve_neg() if hasattr(t, "resolve_neg") else t.resolve_conj()
    name = dtype_name(t.dtype)
    src = t.to(getattr(glasstorch, _WIDEN[name])) if name in _WIDEN else t
    arr = np.ascontiguousarray(src.cpu().numpy())
    return torch.from_numpy(arr.copy()).to(dtype).reshape(tuple(t.shape))


_SEQUENCE_MODULES = (glasstorch.nn.Sequential, glasstorch.nn.ModuleList, glasstorch.nn.ParameterList)
_MAPPING_MODULES = (glasstorch.nn.ModuleDict, glasstorch.nn.ParameterDict)


def to_torch(obj):
    """``obj`` with every glasstorch tensor, dtype, device, Size and storage in it replaced by torch's."""
    if isinstance(obj, glasstorch.Tensor):
        return _tensor_to_torch(obj)
    if is_glass_dtype(obj):
        return torch_dtype(obj)
    if isinstance(obj, glasstorch.device):
        return torch.device(str(obj))
    if isinstance(obj, glasstorch.Size):
        return torch.Size(tuple(obj))
    if isinstance(obj, (glasstorch.TypedStorage, glasstorch.UntypedStorage)):
        return torch.tensor(obj.tolist(), dtype=torch_dtype(getattr(obj, "dtype", glasstorch.uint8)))
    # torch's assertEqual recurses into its own nn containers as sequences and mappings; glasstorch's the same.
    if isinstance(obj, _SEQUENCE_MODULES):
        return [to_torch(v) for v in obj]
    if isinstance(obj, _MAPPING_MODULES):
        return {k: to_torch(v) for k, v in obj.items()}
    if isinstance(obj, dict):
        items = [(k, to_torch(v)) for k, v in obj.items()]
        try:
            return type(obj)(items)  # dict, OrderedDict and most subclasses
        except TypeError:
            return dict(items)
    if isinstance(obj, (list, tuple)) and type(obj) in (list, tuple):
        return type(obj)(to_torch(v) for v in obj)
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a namedtuple
        return type(obj)(*(to_torch(v) for v in obj))
    return obj


def to_glass(t):
    """A glasstorch tensor with torch tensor ``t``'s values, dtype, shape and strides (a leaf; requires_grad kept)."""
    if not isinstance(t, torch.Tensor):
        return t
    dtype = glass_dtype(t.dtype)
    if dtype is None:
        raise TypeError(f"glasstorch has no dtype {t.dtype}")
    if t.layout == torch.sparse_coo:  # its indices and values as they are (an uncoalesced one stays uncoalesced)
        base = t.detach()
        out = glasstorch.sparse_coo_tensor(to_glass(base._indices()), to_glass(base._values()), tuple(t.shape),
                                           is_coalesced=base.is_coalesced())
        return out.requires_grad_(True) if t.requires_grad else out
    base = t.detach()
    name = dtype_name(t.dtype)
    arr = (base.to(getattr(torch, _WIDEN[name])) if name in _WIDEN else base).contiguous().numpy()
    values = glasstorch.from_numpy(arr.copy()).to(dtype)
    out = glasstorch.empty_strided(tuple(t.shape), tuple(t.stride()), dtype=dtype)
    out.copy_(values.reshape(tuple(t.shape)))
    if t.requires_grad:
        out.requires_grad_(True)
    return out
