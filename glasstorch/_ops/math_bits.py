"""The Conjugate and Negative fallbacks — PyTorch's ``ATen/native/MathBitsFallback.h``, ``ConjugateFallback.cpp``,
``NegateFallback.cpp`` and ``MathBitFallThroughLists.h``.

Note [Math bits]
``x.conj()`` of a complex tensor computes nothing: it is a view of ``x`` whose key set carries the Conjugate
key, a *bit* saying "my values are the stored ones, conjugated".  The imaginary part of such a view is a view
of the stored imaginary parts carrying the Negative key ("negated").  The bits live in ``TensorImpl.key_set``
(PyTorch's ``is_conj()`` reads exactly that), so a call with such an argument reaches these keys, which sit
between Functionalize and ADInplaceOrView:

- view operators (a schema returning an alias of an input it does not write) pass the bit on: a view copies
  its source's key set (``TensorImpl.view_impl``), so ``x.conj()[0]`` and ``x.conj().T`` stay lazy;
- ``clone`` and ``copy_`` understand the bits (``kernels/cpu/copy.py`` applies them while it copies); they and
  the tensor utilities that never read values fall through (:data:`FALLTHROUGH_OPS`);
- every other operator runs the boxed fallback: each input with the bit is replaced by a clone (its values
  resolved, no bit), and the call continues below.  A written input (in-place, ``out=``) is cloned too; the
  result is copied back through ``copy_``, which stores it conjugated (negated) again, so writes through a
  conjugate view land in its base conjugated.

Code that reads values outside the dispatcher resolves the bits first (``TensorImpl.values_np``: repr,
``item``/``tolist``); ``numpy()`` refuses a tensor with a bit, as PyTorch does.

Invariant: no kernel below these keys sees an input with a bit unless its entry falls through here.
"""

from __future__ import annotations

from .._core.dispatch_key import bit
from .._tensor.impl import TensorImpl
from .aten import aten
from .dispatcher import register_fallback
from .tensor_iterator import resize_out

__all__ = ["FALLTHROUGH_OPS", "install"]

# Operators whose kernels handle the bits themselves or never read values (PyTorch's lists, less the linear
# algebra kernels that fold a conjugate into a BLAS call; ours materialise).  View operators need no entry:
# the fallback passes every view through.
FALLTHROUGH_OPS = frozenset({
    "aten::copy_", "aten::clone", "aten::resolve_conj", "aten::resolve_neg", "aten::set_", "aten::set_.source_Tensor",
    "aten::set_.source_Storage", "aten::set_.source_Storage_storage_offset", "aten::empty_like",
    "aten::empty.memory_format", "aten::empty.out", "aten::empty_strided", "aten::full_like", "aten::resize_",
})


def _schema_name(schema) -> str:
    """PyTorch's ``schema.name()``: namespace and name, no overload (``aten::add_``)."""
    return schema.name if "::" in schema.name else f"aten::{schema.name}"


def _is_view(schema, what: str) -> bool:
    """Whether an argument aliases an output without being written (PyTorch's fallback asks the same), after
    its check that the aliasing arguments agree."""
    modes = {a.annotation.is_write for a in schema.arguments if a.annotation is not None}
    if len(modes) > 1:
        raise RuntimeError(f"Unsupported operator for {what} fallback: {_schema_name(schema)}{what} fallback doesn't "
                           "work for operators with a mix mutable and non-mutable inputs that alias with outputs, this "
                           "must be implemented manually.  If you got this error on a core op, please report a bug to "
                           "PyTorch.")
    return modes == {False}


class _MathBitFallback:
    """The boxed kernel of one math bit (PyTorch's ``MathOpFallback``)."""

    def __init__(self, key: str, what: str):
        self.bit = bit(key)
        self.what = what  # "conjugate" / "negation", as PyTorch's messages name it

    def __call__(self, op, ks, *args, **kwargs):
        schema = op.schema
        if _is_view(schema, self.what):
            return op.redispatch(ks, *args, **kwargs)
        written = []
        arguments = schema.arguments
        args = [self._resolved(ks, a, arguments[i], written, schema) for i, a in enumerate(args)]
        if kwargs:
            by_name = {a.name: a for a in arguments}
            kwargs = {k: self._resolved(ks, v, by_name[k], written, schema) for k, v in kwargs.items()}
        out = op.redispatch(ks, *args, **kwargs)
        if not written:
            return out
        original, clone = written[0]
        resize_out(original, clone.sizes)
        aten.copy_.redispatch(ks, original, clone, False)  # copy_ stores the values with the bit applied again
        return _swapped(out, clone, original)

    def _resolved(self, ks, value, argument, written, schema):
        if type(value) is TensorImpl:
            if not value.key_set & self.bit:
                return value
            clone = aten.clone.redispatch(ks, value, None)
            if argument.is_write:
                if written:
                    raise RuntimeError(f"{self.what} fallback does not support operators with more than one mutable "
                                       f"tensors with {self.what}bit set to true.")
                written.append((value, clone))
            return clone
        if isinstance(value, (list, tuple)) and any(type(x) is TensorImpl and x.key_set & self.bit for x in value):
            if argument.is_write:
                raise RuntimeError(f" fallback doesn't currently support mutable TensorLists with {self.what} "
                                   f"inputs. Please materialize all the {self.what} input tensor(s) in the mutable "
                                   f"TensorList inputs before calling {_schema_name(schema)}")
            return type(value)(self._resolved(ks, x, argument, written, schema) for x in value)
        return value


def _swapped(out, clone, original):
    """The op's result with the written clone replaced by the tensor the caller passed."""
    if out is clone:
        return original
    if isinstance(out, tuple):
        return tuple(original if o is clone else o for o in out)
    return out


def install() -> None:
    register_fallback("Conjugate", _MathBitFallback("Conjugate", "conjugate"), label="conjugateFallback",
                      fallthrough_for=FALLTHROUGH_OPS)
    register_fallback("Negative", _MathBitFallback("Negative", "negation"), label="negationFallback",
                      fallthrough_for=FALLTHROUGH_OPS)
