"""Runtime helpers of the generated Python bindings (``glasstorch/_generated``) — wrap impls as Tensors.

PyTorch counterpart: ``torch/csrc/autograd/utils/wrap_outputs.h`` and ``torch/csrc/utils/structseq.cpp``
(the named tuples ``torch.return_types.max`` etc.).  Invariant: a result impl that already has a
public Tensor (in-place and ``out=`` results) comes back as that same Tensor object.
"""

from __future__ import annotations

from .tensor import Tensor, wrap

__all__ = ["_wrap", "_wrap_list", "_wrap_tuple", "_return_type", "_make_rt", "_requires_grad", "return_types"]

_wrap = wrap


def _wrap_list(impls):
    return tuple([wrap(i) for i in impls])


def _wrap_tuple(values):
    return tuple(wrap(v) if v is not None and not isinstance(v, (int, float, bool)) else v for v in values)


class _ReturnTypes:
    """``torch.return_types``: a namespace of the named tuples ops return."""


return_types = _ReturnTypes()


def _return_type(name: str, fields: list):
    """A tuple subclass with named fields that prints like ``torch.return_types.max(values=..., indices=...)``."""
    existing = getattr(return_types, name, None)
    if existing is not None and existing._fields == tuple(fields):
        return existing

    def __new__(cls, *values):
        return tuple.__new__(cls, values)

    def __repr__(self):
        body = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
        return f"torch.return_types.{name}(\n{body})"

    def __reduce__(self):
        return (type(self), tuple(self))

    ns = {"__slots__": (), "_fields": tuple(fields), "__new__": __new__, "__repr__": __repr__,
          "__reduce__": __reduce__, "n_fields": len(fields)}
    for i, f in enumerate(fields):
        ns[f] = property(lambda self, i=i: self[i])
    cls = type(name, (tuple,), ns)
    cls.__module__ = "torch.return_types"
    setattr(return_types, name, cls)
    return cls


def _make_rt(cls, values):
    return cls(*(wrap(v) if v is not None and not isinstance(v, (int, float, bool)) else v for v in values))


def _requires_grad(flag, impl) -> Tensor:
    t = wrap(impl)
    if flag:
        t.requires_grad_(True)
    return t
