"""``aten``: call any registered operator by its overload identifier, for decompositions and kernels.

``aten.add_Tensor(a, b, 1)`` dispatches ``aten::add.Tensor`` from the top with TensorImpl arguments
in schema order (PyTorch's ``at::_ops::add_Tensor::call``).  Handles are resolved on first use, so
decomposition modules can be imported while the operator table is still being built.

Invariant: ``aten.<ident>`` is exactly ``dispatcher.get_op(<qualified name>)``.
"""

from __future__ import annotations

from .dispatcher import all_ops

__all__ = ["aten"]


class _AtenNamespace:
    """Attribute access by identifier: ``add_Tensor``, ``add__Tensor`` (in place), ``sum_dim_IntList``."""

    def __getattr__(self, ident: str):
        for name, op in all_ops().items():
            s = op.schema
            if name.startswith("aten::") and s.name + (f"_{s.overload_name}" if s.overload_name else "") == ident:
                setattr(self, ident, op)
                return op
        raise AttributeError(f"no operator aten::{ident} is registered (identifiers look like add_Tensor)")


aten = _AtenNamespace()
