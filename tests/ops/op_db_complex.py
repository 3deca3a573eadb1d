"""OpInfo entries: complex numbers (glasstorch/_ops/native_functions/complex.yaml).

tests/test_complex.py checks the lazy conjugate/negative bits in depth (views, write-through, the fallback,
gradients, gradcheck); these entries put the operators through the common harness: function/method/out=/in-place
forms over real and complex dtypes, and error parity.
"""

from __future__ import annotations

from opinfo import ALL, ErrorSample, OpInfo, Sample, T, unary_samples

COMPLEX = ("complex64", "complex128")
PARTS = ("float16", "float32", "float64")  # the real dtypes complex() and view_as_complex accept
FLOAT_OP = ("float32", "float64", "float16", "bfloat16", "int64", "uint8", "bool")


def _unary(dtype):
    yield from unary_samples(dtype)
    yield Sample((T((0, 3)),), name="empty")


def _pairs_samples(dtype):
    yield Sample((T((3, 2)),), name="(3, 2)")
    yield Sample((T((2, 3, 2)),), name="(2, 3, 2)")
    yield Sample((T((1, 2)),), name="(1, 2)")
    yield Sample((T((0, 2)),), name="empty")


def _view_as_complex_errors():
    return [ErrorSample((T((3, 2), dtype="int32"),), name="int"),
            ErrorSample((T((3, 2), dtype="bfloat16"),), name="bfloat16"),
            ErrorSample((T(()),), name="0-dim"),
            ErrorSample((T((3, 3)),), name="last dim 3"),
            ErrorSample((T((3, 2), layout="strided"),), name="last stride 2"),
            ErrorSample((T((2, 2), layout="transposed"),), name="transposed")]


def _parts_samples(dtype):
    for a, b in (((3, 4), (3, 4)), ((3, 4), (4,)), ((), ()), ((2, 1), (1, 3)), ((0, 2), (2,))):
        yield Sample((T(a, low=0.0, high=3.0), T(b, seed=1)), name=f"{a} {b}")
    yield Sample((T((3, 4), layout="transposed", low=0.0, high=3.0), T((3, 4), seed=1)), name="transposed")


def _parts_errors():
    return [ErrorSample((T((2,), dtype="float32"), T((2,), dtype="float64")), name="dtype mix"),
            ErrorSample((T((2,), dtype="int64"), T((2,), dtype="float32")), name="int"),
            ErrorSample((T((2,)), T((3,))), name="broadcast"),
            ErrorSample((T((2,)), T((2,))), {"out": T((2,), dtype="float32")}, name="real out"),
            ErrorSample((T((2,)), T((2,))), {"out": T((2,), dtype="complex128")}, name="wrong complex out")]


OPS = [
    OpInfo("conj", aten=("conj", "_conj"), samples=_unary, dtypes=ALL + COMPLEX, method=True),
    OpInfo("_conj", aten=("_conj",), samples=_unary, dtypes=COMPLEX, method=True),
    OpInfo("_neg_view", aten=("_neg_view",), samples=_unary, dtypes=("float32", "float64", "int64") + COMPLEX,
           method=True),
    OpInfo("resolve_conj", aten=("resolve_conj",), samples=_unary, dtypes=ALL + COMPLEX, method=True),
    OpInfo("resolve_neg", aten=("resolve_neg",), samples=_unary, dtypes=ALL + COMPLEX, method=True),
    OpInfo("conj_physical", aten=("conj_physical", "_conj_physical", "conj_physical.out", "conj_physical_"),
           samples=_unary, dtypes=ALL + COMPLEX, method=True, inplace=True, out=True),
    OpInfo("_conj_physical", aten=("_conj_physical",), samples=_unary, dtypes=COMPLEX, method=True),
    OpInfo("real", aten=("real",), samples=_unary, dtypes=ALL + COMPLEX),
    OpInfo("imag", aten=("imag",), samples=_unary, dtypes=COMPLEX,
           errors=lambda: [ErrorSample((T((2,), dtype="float32"),), name="real")]),
    OpInfo("isreal", aten=("isreal",), samples=_unary, dtypes=ALL + COMPLEX, method=True, grad=False),
    OpInfo("angle", aten=("angle", "angle.out"), samples=_unary, dtypes=FLOAT_OP + COMPLEX, method=True, out=True,
           errors=lambda: [ErrorSample((T((2,), dtype="float32"),), {"out": T((2,), dtype="int64")},
                                       name="float into int out"),
                           ErrorSample((T((2,), dtype="complex64"),), {"out": T((2,), dtype="int64")},
                                       name="complex into int out")]),
    OpInfo("view_as_real", aten=("view_as_real",), samples=_unary, dtypes=COMPLEX,
           errors=lambda: [ErrorSample((T((2,), dtype="float32"),), name="real")]),
    OpInfo("view_as_complex", aten=("view_as_complex",), samples=_pairs_samples, dtypes=PARTS,
           errors=_view_as_complex_errors),
    OpInfo("complex", aten=("complex", "complex.out"), samples=_parts_samples, dtypes=PARTS, out=True,
           errors=_parts_errors),
    OpInfo("polar", aten=("polar", "polar.out"), samples=_parts_samples, dtypes=("float32", "float64"), out=True,
           errors=lambda: _parts_errors() + [ErrorSample((T((2,), dtype="float16"), T((2,), dtype="float16")),
                                                         name="half")]),
]
