"""dtypes and type promotion — PyTorch's ``c10/core/ScalarType`` and ``ATen/native/TypeProperties.cpp``.

A :class:`dtype` is an interned singleton (``glasstorch.float32 is glasstorch.float``) that knows its
numpy storage type.  Promotion follows PyTorch exactly:

* ``promote_types(a, b)`` is the ``promoteTypes`` lattice (note uint8 + int8 -> int16 and
  float16 + bfloat16 -> float32; an integer never widens a float).
* ``result_type`` groups operands into three priority classes — tensors with dim > 0, 0-dim tensors,
  and Python scalars ("wrapped numbers") — promotes inside each class, and lets a lower class change
  the result only when its *category* (bool < integral < floating < complex) is higher.  A complex
  lower class meeting a floating higher one keeps the float's width: float16 + complex -> complex32,
  bfloat16/float32 + complex -> complex64, float64 + complex -> complex128 (``toComplexType``).

``complex32`` (``torch.chalf``) exists for promotion and ``finfo``; numpy has no complex-half type, so
its storage type is a pair of float16 fields and few kernels accept it (PyTorch calls it experimental).

Note [Barebones dtypes]
``uint16``/``uint32``/``uint64`` ("barebones unsigned") and the four float8 types (``float8_e4m3fn``,
``float8_e5m2`` and their ``fnuz`` variants, stored as ml_dtypes' one-byte types) are PyTorch's late dtypes:
few kernels are compiled for them and ``promoteTypes`` refuses most pairs.  A barebones unsigned type promotes
only with itself and with the four floating types; a float8 type only with itself.  Any other pair raises
PyTorch's RuntimeError ("Promotion for uint16, uint32, uint64 types is not supported, attempted to promote
UInt16 and Char"; "Promotion for Float8 Types is not supported, ...").  The refusal lives in
:func:`promote_types` alone and touches no pair of the thirteen older dtypes, so internals that promote bool,
integers and floats keep their table; ``result_type``'s category rules (a 0-dim or scalar operand of a lower
category never promotes) mean ``uint16_tensor + 1`` stays uint16 without asking the table.

Invariant: every dtype has exactly one object; comparisons are by identity.
"""

from __future__ import annotations

import builtins

import ml_dtypes
import numpy as np

__all__ = [
    "dtype", "bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
    "float64", "complex32", "complex64", "complex128", "get_default_dtype", "set_default_dtype", "promote_types",
    "can_cast", "finfo", "iinfo", "ALL_DTYPES", "cpp_type_name", "check_linalg_norm_dtype",
    "float_digits", "half_input", "complex32_values", "uint16", "uint32", "uint64", "float8_e4m3fn", "float8_e5m2",
    "float8_e4m3fnuz", "float8_e5m2fnuz", "BAREBONES_UNSIGNED", "FLOAT8_DTYPES", "EVERY_DTYPE",
]

# Categories, lowest to highest (PyTorch: bool < integral < floating < complex).
BOOL_CAT, INT_CAT, FLOAT_CAT, COMPLEX_CAT = 0, 1, 2, 3


class dtype:
    """A tensor element type (``torch.dtype``).

    Example:
        >>> import glasstorch as torch
        >>> torch.float32.itemsize, torch.float32.is_floating_point
        (4, True)
    """

    __slots__ = ("_name", "_short", "itemsize", "is_floating_point", "is_complex", "is_signed", "np", "_cat",
                 "_code", "_tensor_type")

    def __init__(self, name, short, np_dtype, cat, code, tensor_type):
        self._name = name
        self._short = short  # PyTorch's ScalarType name: Float, Long, BFloat16 ...
        self.np = np.dtype(np_dtype)
        self.itemsize = self.np.itemsize
        self._cat = cat
        self.is_floating_point = cat == FLOAT_CAT
        self.is_complex = cat == COMPLEX_CAT
        self.is_signed = name not in ("bool", "uint8", "uint16", "uint32", "uint64")
        self._code = code  # row/column in the promotion table
        self._tensor_type = tensor_type  # legacy type name: FloatTensor, LongTensor ...

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):
        return (_dtype_by_name, (self._name,))

    def to_real(self):
        """The real counterpart of a complex dtype (complex64 -> float32); identity otherwise."""
        return {"complex32": float16, "complex64": float32, "complex128": float64}.get(self._name, self)

    def to_complex(self):
        """The complex counterpart of a float dtype (PyTorch's ``toComplexType``: float16 -> complex32,
        bfloat16 and float32 -> complex64, float64 -> complex128); identity for complex dtypes.  The barebones
        dtypes have none: PyTorch's RuntimeError (Note [Barebones dtypes])."""
        if self._code >= _FIRST_BAREBONES:
            raise RuntimeError(f"Unknown Complex ScalarType for {self._short}")
        return {"float16": complex32, "bfloat16": complex64, "float32": complex64,
                "float64": complex128}.get(self._name, self)


def _make(name, short, np_dtype, cat, code, tensor_type):
    return dtype(name, short, np_dtype, cat, code, tensor_type)


# Codes follow the facts sheet's promoteTypes table: u1 i1 i2 i4 i8 f2 f4 f8 c4 c8 b1 bf
uint8 = _make("uint8", "Byte", np.uint8, INT_CAT, 0, "ByteTensor")
int8 = _make("int8", "Char", np.int8, INT_CAT, 1, "CharTensor")
int16 = _make("int16", "Short", np.int16, INT_CAT, 2, "ShortTensor")
int32 = _make("int32", "Int", np.int32, INT_CAT, 3, "IntTensor")
int64 = _make("int64", "Long", np.int64, INT_CAT, 4, "LongTensor")
float16 = _make("float16", "Half", np.float16, FLOAT_CAT, 5, "HalfTensor")
float32 = _make("float32", "Float", np.float32, FLOAT_CAT, 6, "FloatTensor")
float64 = _make("float64", "Double", np.float64, FLOAT_CAT, 7, "DoubleTensor")
complex64 = _make("complex64", "ComplexFloat", np.complex64, COMPLEX_CAT, 8, "ComplexFloatTensor")
complex128 = _make("complex128", "ComplexDouble", np.complex128, COMPLEX_CAT, 9, "ComplexDoubleTensor")
bool = _make("bool", "Bool", np.bool_, BOOL_CAT, 10, "BoolTensor")  # noqa: A001 - torch.bool
bfloat16 = _make("bfloat16", "BFloat16", ml_dtypes.bfloat16, FLOAT_CAT, 11, "BFloat16Tensor")
# No numpy complex-half: stored as (real, imag) float16 pairs, so itemsize is PyTorch's 4.
complex32 = _make("complex32", "ComplexHalf", [("real", np.float16), ("imag", np.float16)], COMPLEX_CAT, 12,
                  "ComplexHalfTensor")

# Note [Barebones dtypes]: codes from 13 on are outside the promotion table.
_FIRST_BAREBONES = 13
uint16 = _make("uint16", "UInt16", np.uint16, INT_CAT, 13, "UInt16Tensor")
uint32 = _make("uint32", "UInt32", np.uint32, INT_CAT, 14, "UInt32Tensor")
uint64 = _make("uint64", "UInt64", np.uint64, INT_CAT, 15, "UInt64Tensor")
float8_e5m2 = _make("float8_e5m2", "Float8_e5m2", ml_dtypes.float8_e5m2, FLOAT_CAT, 16, "Float8_e5m2Tensor")
float8_e4m3fn = _make("float8_e4m3fn", "Float8_e4m3fn", ml_dtypes.float8_e4m3fn, FLOAT_CAT, 17, "Float8_e4m3fnTensor")
float8_e5m2fnuz = _make("float8_e5m2fnuz", "Float8_e5m2fnuz", ml_dtypes.float8_e5m2fnuz, FLOAT_CAT, 18,
                        "Float8_e5m2fnuzTensor")
float8_e4m3fnuz = _make("float8_e4m3fnuz", "Float8_e4m3fnuz", ml_dtypes.float8_e4m3fnuz, FLOAT_CAT, 19,
                        "Float8_e4m3fnuzTensor")
BAREBONES_UNSIGNED = (uint16, uint32, uint64)
FLOAT8_DTYPES = (float8_e4m3fn, float8_e5m2, float8_e4m3fnuz, float8_e5m2fnuz)

ALL_DTYPES = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64, complex128)
# every dtype, the barebones ones included (ALL_DTYPES is the thirteen minus complex32 most kernels take)
EVERY_DTYPE = ALL_DTYPES + (complex32,) + BAREBONES_UNSIGNED + FLOAT8_DTYPES
_BY_CODE = sorted(EVERY_DTYPE, key=lambda d: d._code)

# PyTorch's aliases: torch.float is float32, torch.long is int64, ...
ALIASES = {
    "float": float32, "double": float64, "half": float16, "long": int64, "int": int32, "short": int16,
    "cfloat": complex64, "cdouble": complex128, "chalf": complex32,
}
_BY_NAME = {d._name: d for d in _BY_CODE} | ALIASES


def _dtype_by_name(name):
    return _BY_NAME[name]


# promoteTypes, indexed by code (row, column). Letters: the facts sheet's short codes (c2 = complex32).
_u1, _i1, _i2, _i4, _i8, _f2, _f4, _f8, _c4, _c8, _b1, _bf, _c2 = _BY_CODE[:_FIRST_BAREBONES]
_PROMOTE = [
    # u1   i1   i2   i4   i8   f2   f4   f8   c4   c8   b1   bf   c2
    [_u1, _i2, _i2, _i4, _i8, _f2, _f4, _f8, _c4, _c8, _u1, _bf, _c2],  # u1
    [_i2, _i1, _i2, _i4, _i8, _f2, _f4, _f8, _c4, _c8, _i1, _bf, _c2],  # i1
    [_i2, _i2, _i2, _i4, _i8, _f2, _f4, _f8, _c4, _c8, _i2, _bf, _c2],  # i2
    [_i4, _i4, _i4, _i4, _i8, _f2, _f4, _f8, _c4, _c8, _i4, _bf, _c2],  # i4
    [_i8, _i8, _i8, _i8, _i8, _f2, _f4, _f8, _c4, _c8, _i8, _bf, _c2],  # i8
    [_f2, _f2, _f2, _f2, _f2, _f2, _f4, _f8, _c4, _c8, _f2, _f4, _c2],  # f2
    [_f4, _f4, _f4, _f4, _f4, _f4, _f4, _f8, _c4, _c8, _f4, _f4, _c4],  # f4
    [_f8, _f8, _f8, _f8, _f8, _f8, _f8, _f8, _c8, _c8, _f8, _f8, _c8],  # f8
    [_c4, _c4, _c4, _c4, _c4, _c4, _c4, _c8, _c4, _c8, _c4, _c4, _c4],  # c4
    [_c8, _c8, _c8, _c8, _c8, _c8, _c8, _c8, _c8, _c8, _c8, _c8, _c8],  # c8
    [_u1, _i1, _i2, _i4, _i8, _f2, _f4, _f8, _c4, _c8, _b1, _bf, _c2],  # b1
    [_bf, _bf, _bf, _bf, _bf, _f4, _f4, _f8, _c4, _c8, _bf, _bf, _c4],  # bf
    [_c2, _c2, _c2, _c2, _c2, _c2, _c4, _c8, _c4, _c8, _c2, _c4, _c2],  # c2
]


# Note [Python types as dtypes]
# PyTorch's argument parser takes a Python scalar type wherever it takes a dtype (a ScalarType parameter:
# ``tensor([1], dtype=int)``, ``x.to(float)``, ``sum(dtype=bool)``): bool, int, float and complex are the dtypes
# of Python's scalars as tensors hold them.  numpy types, strings and other objects are refused with the
# parser's TypeError.  This table is the one place the conversion lives (the parser's ScalarType converter,
# the hand-written bindings through it, finfo and iinfo).
PYTHON_TYPE_DTYPES = {builtins.bool: bool, builtins.int: int64, builtins.float: float64, builtins.complex: complex128}


def as_scalar_type(v) -> dtype | None:
    """``v`` as a ScalarType argument: a dtype, or the dtype of a Python scalar type; None when it is neither."""
    if isinstance(v, dtype):
        return v
    return PYTHON_TYPE_DTYPES.get(v) if isinstance(v, type) else None


def _dtype_param(v, fname: str, argname: str, pos: int) -> dtype:
    """A positional ScalarType argument of ``finfo``/``iinfo``, or the parser's TypeError for it."""
    d = as_scalar_type(v)
    if d is None:
        t = type(v)
        name = f"{t.__module__}.{t.__name__}" if t.__module__.startswith("numpy") else t.__name__
        raise TypeError(f"{fname}(): argument '{argname}' (position {pos}) must be torch.dtype, not {name}")
    return d


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """The smallest dtype both inputs can be cast to without losing category (``torch.promote_types``).

    Example:
        >>> promote_types(uint8, int8)
        torch.int16
    """
    if type1._code < _FIRST_BAREBONES and type2._code < _FIRST_BAREBONES:
        return _PROMOTE[type1._code][type2._code]
    return _promote_barebones(type1, type2)


_PLAIN_FLOATS = frozenset(("float16", "bfloat16", "float32", "float64"))


def is_barebones(d: dtype) -> builtins.bool:
    """Whether ``d`` is uint16/uint32/uint64 or a float8 type (Note [Barebones dtypes])."""
    return d._code >= _FIRST_BAREBONES


def _promote_barebones(type1: dtype, type2: dtype) -> dtype:
    """``promoteTypes`` for a pair with a barebones dtype in it (Note [Barebones dtypes])."""
    if type1 is type2:
        return type1
    if type1 in FLOAT8_DTYPES or type2 in FLOAT8_DTYPES:
        raise RuntimeError("Promotion for Float8 Types is not supported, attempted to promote "
                           f"{type1._short} and {type2._short}")
    for a, b in ((type1, type2), (type2, type1)):
        if a in BAREBONES_UNSIGNED and b._name in _PLAIN_FLOATS:
            return b
    raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, attempted to promote "
                       f"{type1._short} and {type2._short}")


def can_cast(from_: dtype, to: dtype) -> builtins.bool:
    """Whether casting is allowed under PyTorch's rules for in-place and ``out=`` (``torch.can_cast``).

    Disallowed: complex -> non-complex, floating -> integral, non-bool -> bool.
    """
    if from_.is_complex and not to.is_complex:
        return False
    if from_.is_floating_point and to._cat < FLOAT_CAT:
        return False
    if from_ is not bool and to is bool:
        return False
    return True


_default_dtype = float32


def get_default_dtype() -> dtype:
    """The dtype of Python floats and of float factories (``torch.get_default_dtype``)."""
    return _default_dtype


def get_default_complex_dtype() -> dtype:
    """PyTorch's ``default_complex_dtype``: complex128 for float64, complex32 for float16, else complex64."""
    return {float64: complex128, float16: complex32}.get(_default_dtype, complex64)


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype; only float32, float64, float16 and bfloat16 are allowed."""
    global _default_dtype
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type")
    if d not in (float32, float64, float16, bfloat16):
        raise TypeError("only floating-point types are supported as the default type")
    _default_dtype = d


def scalar_dtype(value) -> dtype:
    """The dtype a Python scalar counts as when wrapped (bool, int64, default float, default complex)."""
    if isinstance(value, builtins.bool):
        return bool
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return _default_dtype
    if isinstance(value, complex):
        return get_default_complex_dtype()
    raise TypeError(f"expected a Python scalar, got {type(value).__name__}")


def half_input(value):
    """A Python scalar as c10 hands it to a ``Half`` or ``BFloat16`` constructor, which takes a ``float`` only:
    a float or an int becomes a float32 (one rounding, as ``static_cast<float>``), so a double reaches float16
    or bfloat16 rounded twice whatever numpy's or ml_dtypes' own direct cast does.  Other values pass."""
    if isinstance(value, float):
        with np.errstate(over="ignore"):
            return np.float32(value)
    if isinstance(value, int) and not isinstance(value, builtins.bool) and -2**63 <= value < 2**63:
        return np.array(value, dtype=np.int64).astype(np.float32)[()]
    return value


def complex32_values(a: np.ndarray) -> np.ndarray:
    """complex32 storage (numpy has no complex-half: two float16 fields, ``real`` and ``imag``) as complex64
    values, exactly."""
    r = np.empty(a.shape, np.complex64)
    r.real, r.imag = a["real"], a["imag"]
    return r


# Note [float8 conversions]
# c10 converts into a float8 type from float only (a double, a half or an integer goes through float32 first) with
# round-to-nearest-even, as ml_dtypes does; the variants differ past the finite range.  float8_e4m3fn saturates:
# every non-NaN value beyond 448, the infinities included, becomes +-448 (ml_dtypes gives NaN).  float8_e5m2 has
# infinities; its NaN is 0x7F with the sign (ml_dtypes: 0x7E).  The fnuz types have neither infinities nor -0: out
# of range and NaN give their one NaN, 0x80, as in ml_dtypes.  Out of float8, c10 widens the bits to float: a NaN
# keeps its payload (e4m3fn 0x7F -> 0x7FF00000; e5m2 goes through half, which sets the quiet bit) and the fnuz NaN
# is float's signalling NaN 0x7F800001.  Other targets then take the float32 value, except that the fnuz NaN
# becomes 0 in every integer type (where float's NaN gives x86's "integer indefinite").
_F8_LUT: dict = {}


def _float8_lut(d: dtype) -> np.ndarray:
    """The float32 value of each of ``d``'s 256 bit patterns, NaN payloads as c10 makes them."""
    lut = _F8_LUT.get(d)
    if lut is None:
        b = np.arange(256, dtype=np.uint8)
        lut = b.view(d.np).astype(np.float32)
        bits = lut.view(np.uint32)
        nan = np.isnan(lut)
        sign = (b.astype(np.uint32) & 0x80) << 24
        if d is float8_e4m3fn:
            bits[nan] = sign[nan] | 0x7FF00000
        elif d is float8_e5m2:
            bits[nan] = sign[nan] | 0x7FC00000 | ((b[nan].astype(np.uint32) & 3) << 21)
        else:
            bits[nan] = 0x7F800001
        lut.flags.writeable = False
        _F8_LUT[d] = lut
    return lut


def float8_values(a: np.ndarray) -> np.ndarray:
    """float8 storage (ml_dtypes' one-byte types) as the float32 values c10 reads (Note [float8 conversions])."""
    return _float8_lut(_FROM_FLOAT8_NP[a.dtype])[a.view(np.uint8)]


def to_float8(values, d: dtype) -> np.ndarray:
    """``values`` (an array or a scalar, real) converted into float8 dtype ``d`` as c10 does it (Note [float8
    conversions])."""
    values = np.asarray(values)
    if values.dtype in _FROM_FLOAT8_NP:
        values = float8_values(values)
    with np.errstate(invalid="ignore", over="ignore"):
        f = values.astype(np.float32)
        if d is float8_e4m3fn:
            f = np.clip(f, -448.0, 448.0)
        r = f.astype(d.np)
    if d is float8_e5m2:
        nan = np.isnan(f)
        if nan.any():
            r.view(np.uint8)[nan] |= 0x7F
    return r


def combine_categories(higher: dtype | None, lower: dtype | None) -> dtype | None:
    """Merge a higher-priority group's dtype with a lower one's (PyTorch's ``combine_categories``)."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.is_complex:
        return higher
    if lower.is_complex:
        # a floating higher class keeps its width; an integral or bool one takes the complex type
        return higher.to_complex() if higher.is_floating_point else lower
    if higher.is_floating_point:
        return higher
    if higher is bool or lower.is_floating_point:
        return promote_types(higher, lower)
    return higher


def result_type_groups(dim_dtype, zero_dtype, wrapped_dtype) -> dtype:
    """Combine the three priority groups: ``combine(dim, combine(zero, wrapped))``."""
    out = combine_categories(dim_dtype, combine_categories(zero_dtype, wrapped_dtype))
    return out if out is not None else _default_dtype


def _promote_opt(a, b):
    return b if a is None else promote_types(a, b)


def result_type_of(operands) -> dtype:
    """``torch.result_type`` over any mix of tensors (objects with ``dtype`` and ``dim()``) and scalars."""
    dim_dt = zero_dt = wrapped_dt = None
    for op in operands:
        if isinstance(op, (builtins.bool, int, float, complex)):
            wrapped_dt = _promote_opt(wrapped_dt, scalar_dtype(op))
        elif getattr(op, "_is_wrapped_number", False):
            wrapped_dt = _promote_opt(wrapped_dt, _wrapped_dtype(op.dtype))
        elif op.dim() == 0:
            zero_dt = _promote_opt(zero_dt, op.dtype)
        else:
            dim_dt = _promote_opt(dim_dt, op.dtype)
    return result_type_groups(dim_dt, zero_dt, wrapped_dt)


def _wrapped_dtype(d):
    # A wrapped number counts as its category's default (int64 / default float / default complex).
    if d.is_complex:
        return get_default_complex_dtype()
    if d.is_floating_point:
        return _default_dtype
    return d if d is bool else int64


# std::numeric_limits<T>::digits (significand bits, the implicit one included) and ::digits10 of each floating
# type; finfo.resolution is 10 ** -digits10 (torch/csrc/TypeInfo.cpp).
_DIGITS = {"float16": (11, 3), "bfloat16": (8, 2), "float32": (24, 6), "float64": (53, 15),
           "float8_e4m3fn": (4, 0), "float8_e4m3fnuz": (4, 0), "float8_e5m2": (3, 0), "float8_e5m2fnuz": (3, 0)}
# c10's numeric_limits<Float8_e5m2fnuz>::epsilon() is 2**-3, not the format's 2**-2 (ml_dtypes' value)
_EPS_OVERRIDE = {"float8_e5m2fnuz": 0.125}


def float_digits(d: dtype) -> int:
    """``std::numeric_limits<T>::digits`` of a floating dtype (of the real part, for a complex one): 24 for float32.

    Example:
        >>> float_digits(bfloat16)
        8
    """
    return _DIGITS[d.to_real()._name][0]


_NO_TYPE = object()  # finfo() without an argument: the default dtype (None is refused, as in PyTorch)


class finfo:
    """Machine limits of a floating dtype (``torch.finfo``); a complex dtype answers for its real part.

    Example:
        >>> finfo(float16).max
        65504.0
    """

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type: dtype = _NO_TYPE):  # noqa: A002 - PyTorch's argument name
        type = _default_dtype if type is _NO_TYPE else _dtype_param(type, "finfo", "type", 1)
        if not (type.is_floating_point or type.is_complex):
            # PyTorch names the class, not the dtype, in this message.
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        real = type.to_real()
        info = np.finfo(real.np) if real.np.kind == "f" else ml_dtypes.finfo(real.np)  # bfloat16, float8s
        self.bits = real.itemsize * 8
        self.eps = _EPS_OVERRIDE.get(real._name, float(info.eps))
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = float(info.tiny)
        self.smallest_normal = self.tiny
        self.resolution = 10.0 ** -_DIGITS[real._name][1]
        self.dtype = real._name

    def __repr__(self):
        # C++ ostream formatting of doubles: six significant digits (Python's ``g``)
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")

    __str__ = __repr__


class iinfo:
    """Machine limits of an integral dtype (``torch.iinfo``); bool is refused, as in PyTorch."""

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, type: dtype):  # noqa: A002
        type = _dtype_param(type, "iinfo", "type", 1)
        if type is bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.is_floating_point or type.is_complex:
            # PyTorch names the class, not the dtype, in this message.
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(type.np)
        self.bits, self.min, self.max = info.bits, int(info.min), int(info.max)
        self.dtype = type._name

    def __repr__(self):
        # PyTorch prints min/max through a double: iinfo(min=-2.14748e+09, max=2.14748e+09, dtype=int32)
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"

    __str__ = __repr__


_FROM_FLOAT8_NP = {d.np: d for d in FLOAT8_DTYPES}
_FROM_NUMPY = {d.np: d for d in ALL_DTYPES + BAREBONES_UNSIGNED}


def from_numpy_dtype(np_dtype) -> dtype:
    """The glasstorch dtype storing numpy's ``np_dtype``; TypeError for types PyTorch cannot hold."""
    d = _FROM_NUMPY.get(np.dtype(np_dtype))
    if d is None:
        name = np.dtype(np_dtype).type.__name__
        raise TypeError(f"can't convert np.ndarray of type numpy.{name}. The only supported types "
                        "are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, "
                        "uint64, uint32, uint16, uint8, and bool.")
    return d


def name_of(d: dtype) -> str:
    """PyTorch's ScalarType name (Float, Long, ...) used in error messages."""
    return d._short


def check_linalg_norm_dtype(dtype, self_dtype, fn_name: str) -> None:
    """ATen's ``check_linalg_norm_dtype``: a norm's requested ``dtype`` (None: no request) must be floating or
    complex like the input's, and the input must promote to it without narrowing."""
    if dtype is None:
        return
    if not (dtype.is_floating_point or dtype.is_complex):
        raise RuntimeError(f"{fn_name}: dtype should be floating point or complex, but got {dtype._short}")
    if dtype.is_complex != self_dtype.is_complex:
        kind = "complex" if self_dtype.is_complex else "real"
        raise RuntimeError(f"{fn_name}: dtype should be {kind} for {kind} inputs, but got {dtype._short}")
    if promote_types(self_dtype, dtype) is not dtype:
        raise RuntimeError(f"{fn_name}: the dtype of the input ({self_dtype._short}) should be convertible "
                           f"without narrowing to the specified dtype ({dtype._short})")


# The C++ element types' names as PyTorch's messages print them, in two spellings:
# "scalar" -- the token c10's Scalar accessors are declared with ("value cannot be converted to type int64_t
#             without overflow");
# "typeid" -- the demangled typeid of the kernel's scalar_t ("from is out of bounds for long int").
_CPP_TYPE_NAMES = {
    bool: ("bool", "bool"), uint8: ("uint8_t", "unsigned char"), int8: ("int8_t", "signed char"),
    int16: ("int16_t", "short int"), int32: ("int", "int"), int64: ("int64_t", "long int"),
    float16: ("c10::Half", "c10::Half"), bfloat16: ("c10::BFloat16", "c10::BFloat16"), float32: ("float", "float"),
    float64: ("double", "double"), complex32: ("c10::complex<c10::Half>", "c10::complex<c10::Half>"),
    complex64: ("c10::complex<float>", "c10::complex<float>"),
    complex128: ("c10::complex<double>", "c10::complex<double>"),
    uint16: ("uint16_t", "unsigned short"), uint32: ("uint32_t", "unsigned int"), uint64: ("uint64_t", "unsigned long"),
} | {d: (f"c10::{d._short}", f"c10::{d._short}") for d in FLOAT8_DTYPES}


def cpp_type_name(d: dtype, style: str = "scalar") -> str:
    """The C++ name of ``d``'s element type in PyTorch's messages: ``style`` is "scalar" or "typeid".

    Example:
        >>> cpp_type_name(int64), cpp_type_name(int64, "typeid")
        ('int64_t', 'long int')
    """
    return _CPP_TYPE_NAMES[d][style == "typeid"]
