"""``TwoTensor`` — PyTorch's ``torch/testing/_internal/two_tensor.py``: a wrapper tensor subclass holding two
tensors ``a`` and ``b`` of one geometry, running every operator on both.

The outer tensor has no data (``Tensor._make_wrapper_subclass``); each operator reaches
``__torch_dispatch__``, which runs it on the ``a`` side and on the ``b`` side and wraps each pair of tensor results
in a new TwoTensor, then lets :func:`return_and_correct_aliasing` return written inputs themselves and make views
share their input's storage.  ``__tensor_flatten__``/``__tensor_unflatten__`` name the inner tensors, as tracing
tools expect.  PyTorch's test suite uses it to exercise subclass serialization, deepcopy and dispatch.
"""

from __future__ import annotations

from ...tensor import Tensor
from ...utils._python_dispatch import TorchDispatchMode, return_and_correct_aliasing

__all__ = ["TwoTensor", "TwoTensorMode"]


def _map_two(fn, tree):
    """``tree`` with every TwoTensor ``x`` in it (inside lists, tuples and dicts) replaced by ``fn(x)``."""
    if isinstance(tree, TwoTensor):
        return fn(tree)
    if isinstance(tree, (list, tuple)):
        return type(tree)(_map_two(fn, v) for v in tree)
    if isinstance(tree, dict):
        return {k: _map_two(fn, v) for k, v in tree.items()}
    return tree


def _pair(x, y):
    """One result of the two runs: tensors pair up into a TwoTensor, other values (sizes, bools) are taken from the
    ``a`` run, as both runs agree on them."""
    if isinstance(x, Tensor):
        return TwoTensor(x, y)
    if isinstance(x, (list, tuple)):
        return type(x)(_pair(p, q) for p, q in zip(x, y, strict=True))
    return x


class TwoTensor(Tensor):
    @staticmethod
    def __new__(cls, a, b, outer_size=None, outer_stride=None, *, requires_grad=None):
        if not (a.device == b.device and a.layout == b.layout and a.requires_grad == b.requires_grad
                and a.dtype == b.dtype):
            raise AssertionError("Expected a and b to have same device, layout, requires_grad, and dtype")
        size = a.size() if outer_size is None else outer_size
        stride = a.stride() if outer_stride is None else outer_stride
        out = Tensor._make_wrapper_subclass(cls, size, strides=stride, storage_offset=a.storage_offset(),
                                            device=a.device, layout=a.layout, dtype=a.dtype,
                                            requires_grad=requires_grad or a.requires_grad)
        if a.shape != b.shape:
            raise AssertionError(f"Expected a.shape == b.shape, got {a.shape} != {b.shape}")
        if a.stride() != b.stride():
            raise AssertionError(f"Expected a.stride() == b.stride(), got {a.stride()} != {b.stride()}")
        if a.storage_offset() != b.storage_offset():
            raise AssertionError(f"Expected a.storage_offset() == b.storage_offset(), got {a.storage_offset()} != "
                                 f"{b.storage_offset()}")
        return out

    def __init__(self, a, b, outer_size=None, outer_stride=None, *, requires_grad=None):
        self.a = a
        self.b = b

    def __repr__(self):
        return f"TwoTensor({self.a!r}, {self.b!r})"

    def __tensor_flatten__(self):
        return ["a", "b"], None

    @staticmethod
    def __tensor_unflatten__(inner_tensors, meta, outer_size, outer_stride):
        if meta is not None:
            raise AssertionError("Expected meta to be None")
        a, b = inner_tensors["a"], inner_tensors["b"]
        if type(a) is Tensor and (outer_size is None or outer_stride is None):
            raise AssertionError("Expected outer_size and outer_stride to not be None")
        return TwoTensor(a, b, outer_size, outer_stride)

    @classmethod
    def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        out_a = func(*_map_two(lambda x: x.a, args), **_map_two(lambda x: x.a, kwargs))
        out_b = func(*_map_two(lambda x: x.b, args), **_map_two(lambda x: x.b, kwargs))
        return return_and_correct_aliasing(func, args, kwargs, _pair(out_a, out_b))

    def get_elem_a(self):
        return self.a


class TwoTensorMode(TorchDispatchMode):
    """Every tensor a factory makes while the mode is on comes out as a TwoTensor of it and a copy of it."""

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if isinstance(out, Tensor) and func._schema.name.split("::")[-1] in _FACTORIES:
            out = TwoTensor(out, out.clone())
        return out


# the operators torch's ``_is_tensor_constructor`` recognises: no tensor argument, a tensor result
_FACTORIES = frozenset({"empty", "empty_strided", "zeros", "ones", "full", "arange", "rand", "randn", "randint",
                        "linspace", "logspace", "eye", "scalar_tensor", "randperm", "normal", "tensor"})
