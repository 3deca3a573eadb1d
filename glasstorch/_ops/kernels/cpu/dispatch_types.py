"""The dtype tables of CPU kernels — PyTorch's ``AT_DISPATCH_*`` type groups (``ATen/Dispatch.h``) and the
complex refusals of its meta functions.

Note [Kernel dtype tables]
A PyTorch CPU kernel is compiled for a fixed set of dtypes: the ``AT_DISPATCH_*`` macro around its loop names
groups (all integral types, floating types and Half/BFloat16, complex types ...).  Running it on another dtype
raises ``NotImplementedError: "<kernel name>" not implemented for '<dtype>'`` -- when the kernel runs, so not on
meta.  Each kernel here names its table (a frozenset built from the groups below) and its PyTorch kernel name in
one :class:`Dispatch`; the templates of ``pointwise_support.py`` check it before numpy sees the operands, so an
unsupported dtype never reaches a numpy loop that would compute something else or raise numpy's TypeError.

Some operators refuse complex operands earlier, in their meta function, with their own text and exception type
(``sign``: "Unlike NumPy, torch.sign is not intended to support complex numbers ...", ``maximum``: a RuntimeError);
a :class:`Dispatch` carries that refusal too (``complex_error``), checked on the tensor operands before the
iterator is built (so before a broadcast error, as PyTorch's meta function runs first).  PyTorch's ``meta``
device computes these operators with its Python meta registrations, which do not refuse complex, so neither
does glasstorch on meta operands.

Invariant: a kernel with a Dispatch touches only operands whose common dtype is in its table.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...._core import dtype as _dt
from ...._tensor.impl import TensorImpl

__all__ = [
    "BOOL", "INTEGRAL", "FLOATING", "COMPLEX", "COMPLEX_HALF", "REAL", "ALL", "Dispatch", "not_implemented",
    "BAREBONES_UNSIGNED", "FLOAT8", "BAREBONES", "refuse",
]

BOOL = frozenset((_dt.bool,))
INTEGRAL = frozenset((_dt.uint8, _dt.int8, _dt.int16, _dt.int32, _dt.int64))
FLOATING = frozenset((_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64))  # AT_FLOATING_TYPES_AND2(Half, BFloat16)
COMPLEX = frozenset((_dt.complex64, _dt.complex128))
COMPLEX_HALF = frozenset((_dt.complex32,))  # kComplexHalf: a few kernels list it (add, sub, mul, eq, ne)
REAL = BOOL | INTEGRAL | FLOATING
ALL = REAL | COMPLEX
# Note [Barebones dtypes] (``_core/dtype.py``): the few kernels compiled for them list these groups
BAREBONES_UNSIGNED = frozenset(_dt.BAREBONES_UNSIGNED)  # AT_BAREBONES_UNSIGNED_TYPES: uint16, uint32, uint64
FLOAT8 = frozenset(_dt.FLOAT8_DTYPES)  # AT_FLOAT8_TYPES
BAREBONES = BAREBONES_UNSIGNED | FLOAT8


def not_implemented(kname: str, dt) -> NotImplementedError:
    """The error of PyTorch's ``AT_DISPATCH_*`` macros for a dtype the kernel was not compiled for."""
    return NotImplementedError(f"\"{kname}\" not implemented for '{_dt.name_of(dt)}'")


def refuse(kname: str, dt, group=BAREBONES) -> None:
    """A kernel written for the older dtypes: PyTorch's dispatch error when ``dt`` is one of ``group`` (by default
    every barebones dtype), which its ``AT_DISPATCH`` list leaves out."""
    if dt in group:
        raise not_implemented(kname, dt)


@dataclass(frozen=True)
class Dispatch:
    """One kernel's dtype table: ``kname`` (PyTorch's name in the "not implemented" text), the dtypes it runs on,
    and optionally the ``(exception type, message)`` its operator's meta function raises for a complex tensor
    operand."""

    kname: str
    dtypes: frozenset = ALL
    complex_error: tuple | None = None
    # PyTorch's reduced-float scalar loop of a binary kernel (this name, compiled for Half and BFloat16): a float8
    # operation whose second operand has one element (a Python scalar, or a tensor the iterator broadcasts) raises
    # there; with ``float8_tensors`` the kernel runs on two float8 tensors otherwise (mul).  float8 stays out of
    # ``dtypes`` so that only this rare path pays for the test.
    reduced_scalar: str | None = None
    float8_tensors: bool = False

    def check(self, dt) -> None:
        """Raise PyTorch's dispatch error unless the kernel runs on common dtype ``dt``."""
        if dt not in self.dtypes:
            raise not_implemented(self.kname, dt)

    def check_binary(self, dt, other) -> None:
        """:meth:`check` for a binary kernel whose common dtype ``dt`` is not in the table (``reduced_scalar``)."""
        if self.reduced_scalar is None or dt not in FLOAT8:
            raise not_implemented(self.kname, dt)
        if type(other) is not TensorImpl or other.numel() == 1:
            raise not_implemented(self.reduced_scalar, dt)
        if not self.float8_tensors:
            raise not_implemented(self.kname, dt)

    def check_operands(self, operands) -> None:
        """The meta function's complex refusal, if any: raised when a tensor operand with data is complex."""
        if self.complex_error is not None:
            for x in operands:
                if type(x) is TensorImpl and x.dtype.is_complex and x.storage._data is not None:
                    exc, msg = self.complex_error
                    raise exc(msg)
