"""In-place ops and ``out=`` on non-contiguous views write exactly the elements torch writes, with torch's values.

The written tensor is a view of a larger base (step slices whose byte stride is 16 or 64, an offset step, a
transpose, column and row slices, a permutation, an offset block, and views of 5000+ elements that reach the
compiled loops); the other operands are contiguous, strided, transposed, expanded, 0-dim or Python numbers.
After each call the whole base is compared with torch's (so a write outside the view, or a read of the wrong
elements, shows), and so are the returned tensor's metadata; where torch raises, the error type and message.
Every dtype runs: where torch's kernel is not compiled for one, both must raise the same error.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from oracle import assert_same

import glasstorch as gt

# torch computes overflows and invalid operations silently: a numpy RuntimeWarning is a leak
pytestmark = pytest.mark.filterwarnings("error::RuntimeWarning")

DTYPES = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool",
          "complex64", "complex128")
TOL = {"float16": (1e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7),
       "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}

# layout name -> (base shape, view of the base)
LAYOUTS = {
    "step4": ((24,), lambda b: b[::4]),             # 16-byte stride for 4-byte dtypes
    "step8": ((64,), lambda b: b[::8]),             # 64-byte stride for 8-byte dtypes
    "offset_step2": ((13,), lambda b: b[1::2]),
    "transposed": ((3, 5), lambda b: b.t()),
    "cols": ((4, 9), lambda b: b[:, ::3]),
    "rows": ((6, 4), lambda b: b[::2]),
    "permuted": ((2, 3, 4), lambda b: b.permute(2, 0, 1)),
    "offset_block": ((4, 6), lambda b: b[1:3, 2:5]),
    "big_step4": ((20000,), lambda b: b[::4]),      # 5000 elements: the compiled loops' sizes
    "big_transposed": ((64, 80), lambda b: b.t()),
}
SMALL = ("step4", "step8", "offset_step2", "transposed", "cols", "rows", "permuted", "offset_block")


def _cases(ops):
    """(op, dtype) parameters."""
    return [(op, dt) for op in ops for dt in DTYPES]


def _values(shape, dtype, seed, positive=False):
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if dtype in ("int64", "int32", "int16", "int8", "uint8"):
        lo = 1 if positive or dtype == "uint8" else -5
        return rng.integers(lo, 6, shape)
    # multiples of 1/8: exact in every float dtype, so both libraries start from the same bits
    vals = np.round(rng.uniform(0.25 if positive else -3.0, 3.0, shape) * 8) / 8
    if dtype.startswith("complex"):
        vals = vals + 1j * np.round(rng.uniform(-3.0, 3.0, shape) * 8) / 8
    return vals


def _tensor(lib, arr, dtype):
    return lib.tensor(arr.tolist(), dtype=getattr(lib, dtype)).reshape(arr.shape)


def _base_and_view(lib, layout, dtype, seed=0, positive=False):
    shape, view = LAYOUTS[layout]
    base = _tensor(lib, _values(shape, dtype, seed, positive), dtype)
    return base, view(base)


def _operand(lib, kind, shape, dtype, seed):
    """An input of ``shape`` laid out as ``kind`` (positive values: no integer division by zero)."""
    if kind == "scalar":
        return 2 if dtype not in ("bool",) else True
    if kind == "zero_dim":
        return _tensor(lib, np.asarray(_values((), dtype, seed, True)), dtype)
    if kind == "expanded":
        return _tensor(lib, _values(shape[:-1] + (1,), dtype, seed, True), dtype).expand(shape)
    if kind in ("strided", "step4", "step8"):  # steps of 3, 4 and 8 elements
        step = {"strided": 3, "step4": 4, "step8": 8}[kind]
        big = _tensor(lib, _values(shape[:-1] + (shape[-1] * step,), dtype, seed, True), dtype)
        return big[..., ::step]
    if kind == "transposed":
        rev = tuple(reversed(shape))
        return _tensor(lib, _values(rev, dtype, seed, True), dtype).permute(*reversed(range(len(shape))))
    return _tensor(lib, _values(shape, dtype, seed, True), dtype)


def _check(run, what):
    """Run ``run(lib)`` (returning the base and the result) in both libraries; compare, or compare the errors."""
    try:
        want_base, want = run(torch)
    except Exception as e:  # noqa: BLE001 - torch's error is the expected answer
        with pytest.raises(type(e)) as info:
            run(gt)
        assert str(info.value) == str(e), f"{what}: message differs:\n  glasstorch: {info.value}\n  torch: {e}"
        return
    got_base, got = run(gt)
    rtol, atol = TOL.get(str(want.dtype).removeprefix("torch."), (None, None))
    if str(want_base.dtype) == "torch.bfloat16" or str(want.dtype) == "torch.bfloat16":
        want_base, got_base, want, got = want_base.float(), got_base.float(), want.float(), got.float()
    assert_same(got_base, want_base, rtol=rtol, atol=atol, msg=f"{what} (base): ")
    assert_same(got, want, rtol=rtol, atol=atol, msg=f"{what} (result): ")


# -- unary in-place ----------------------------------------------------------------------------------------
UNARY = ("abs_", "neg_", "sign_", "sgn_", "exp_", "exp2_", "expm1_", "log_", "log2_", "log10_", "log1p_", "sqrt_",
         "rsqrt_", "reciprocal_", "sin_", "cos_", "tan_", "asin_", "acos_", "atan_", "sinh_", "cosh_", "tanh_",
         "asinh_", "acosh_", "atanh_", "sigmoid_", "erf_", "erfc_", "erfinv_", "floor_", "ceil_", "round_", "trunc_",
         "frac_", "relu_", "square_", "bitwise_not_", "logical_not_",
         "nan_to_num_", "zero_", "clamp_", "clamp_min_", "clamp_max_", "fill_")
_UNARY_ARGS = {"clamp_": (-1, 1), "clamp_min_": (0.5,), "clamp_max_": (0.5,), "fill_": (2,)}


@pytest.mark.parametrize(("op", "dtype"), _cases(UNARY))
def test_unary_inplace_on_views(op, dtype):
    layouts = SMALL + (("big_step4", "big_transposed") if dtype in ("float32", "float64") else ())
    for layout in layouts:
        def run(lib, layout=layout):
            base, v = _base_and_view(lib, layout, dtype)
            return base, getattr(v, op)(*_UNARY_ARGS.get(op, ()))

        _check(run, f"{op} {layout}")


UNARY_OUT = ("abs", "neg", "exp", "log", "sqrt", "sin", "tanh", "sigmoid", "floor", "round", "bitwise_not",
             "logical_not", "erf", "reciprocal", "sign", "nan_to_num")


@pytest.mark.parametrize(("op", "dtype"), _cases(UNARY_OUT))
def test_unary_out_on_views(op, dtype):
    """``op(x, out=view)`` with a strided or contiguous ``x`` of the view's shape and dtype."""
    for layout in SMALL + ("big_step4",):
        for kind in ("contiguous", "strided", "step4", "step8"):
            def run(lib, layout=layout, kind=kind):
                base, v = _base_and_view(lib, layout, dtype)
                x = _operand(lib, kind, tuple(v.shape), dtype, 1)
                return base, getattr(lib, op)(x, out=v)

            _check(run, f"{op} {layout} x {kind}")


# -- binary in-place ---------------------------------------------------------------------------------------
BINARY = ("add_", "sub_", "mul_", "div_", "true_divide_", "floor_divide_", "remainder_", "fmod_", "pow_", "atan2_",
          "bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_left_shift_", "bitwise_right_shift_",
          "logical_and_", "logical_or_", "logical_xor_", "copysign_", "hypot_", "xlogy_",
          "lt_", "le_", "gt_", "ge_", "eq_", "ne_", "clamp_min_", "clamp_max_", "lerp_")
_BINARY_EXTRA = {"lerp_": (0.25,)}
OTHER_KINDS = ("contiguous", "strided", "transposed", "expanded", "zero_dim", "scalar")


@pytest.mark.parametrize(("op", "dtype"), _cases(BINARY))
def test_binary_inplace_on_views(op, dtype):
    for layout in SMALL:
        for kind in OTHER_KINDS:
            if op == "lerp_" and kind == "scalar":
                continue  # lerp_'s end is a Tensor
            def run(lib, layout=layout, kind=kind):
                base, v = _base_and_view(lib, layout, dtype)
                other = _operand(lib, kind, tuple(v.shape), dtype, 1)
                return base, getattr(v, op)(other, *_BINARY_EXTRA.get(op, ()))

            _check(run, f"{op} {layout} x {kind}")


@pytest.mark.parametrize("dtype", ("float32", "float64"))
@pytest.mark.parametrize("op", ("add_", "sub_", "mul_", "div_", "maximum", "pow_", "atan2_"))
def test_binary_inplace_on_big_views(op, dtype):
    """Views of 5000+ elements: the compiled loops' sizes."""
    for layout in ("big_step4", "big_transposed"):
        for kind in ("contiguous", "strided", "expanded", "scalar"):
            def run(lib, layout=layout, kind=kind):
                base, v = _base_and_view(lib, layout, dtype)
                other = _operand(lib, kind, tuple(v.shape), dtype, 1)
                if op == "maximum":
                    return base, lib.maximum(v, other if kind != "scalar" else lib.tensor(2.0), out=v)
                return base, getattr(v, op)(other)

            _check(run, f"{op} {layout} x {kind}")


BINARY_OUT = ("add", "sub", "mul", "div", "remainder", "maximum", "minimum", "fmax", "atan2", "pow", "bitwise_and",
              "eq", "lt", "logical_and", "floor_divide", "hypot")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", BINARY_OUT)
def test_binary_out_on_views(op, dtype):
    """``op(a, b, out=view)`` with ``out`` of the inputs' dtype (comparisons: bool too)."""
    for layout in SMALL:
        for kind in ("contiguous", "strided", "expanded"):
            def run(lib, layout=layout, kind=kind):
                base, v = _base_and_view(lib, layout, dtype)
                a = _operand(lib, kind, tuple(v.shape), dtype, 1)
                b = _operand(lib, "transposed", tuple(v.shape), dtype, 2)
                return base, getattr(lib, op)(a, b, out=v)

            _check(run, f"{op} {layout} x {kind}")


@pytest.mark.parametrize("dtype", ("float32", "int64", "float16", "bool"))
@pytest.mark.parametrize("op", ("add", "mul", "maximum", "atan2", "eq", "bitwise_xor", "neg", "exp", "abs"))
def test_functional_on_strided_inputs(op, dtype):
    """A new output from non-contiguous inputs: torch's values and torch's strides (reorder_dimensions)."""
    for layout in SMALL:
        def run(lib, layout=layout):
            base, v = _base_and_view(lib, layout, dtype)
            fn = getattr(lib, op)
            if op in ("neg", "exp", "abs"):
                return base, fn(v)
            return base, fn(v, _operand(lib, "strided", tuple(v.shape), dtype, 1))

        _check(run, f"{op} {layout}")


# -- ternary in-place --------------------------------------------------------------------------------------
TERNARY = ("addcmul_", "addcdiv_", "lerp_", "clamp_", "masked_fill_", "where")


@pytest.mark.parametrize(("op", "dtype"), _cases(TERNARY))
def test_ternary_inplace_on_views(op, dtype):
    for layout in SMALL:
        for kind in ("contiguous", "strided", "expanded", "transposed"):
            def run(lib, layout=layout, kind=kind):
                base, v = _base_and_view(lib, layout, dtype)
                shape = tuple(v.shape)
                t1 = _operand(lib, kind, shape, dtype, 1)
                t2 = _operand(lib, "strided" if kind != "strided" else "contiguous", shape, dtype, 2)
                if op == "addcmul_":
                    return base, v.addcmul_(t1, t2, value=2)
                if op == "addcdiv_":
                    return base, v.addcdiv_(t1, t2, value=2)
                if op == "lerp_":
                    return base, v.lerp_(t1, t2)
                if op == "clamp_":
                    return base, v.clamp_(t1 - 3 if dtype not in ("bool", "uint8") else t1, t2)
                mask = _operand(lib, kind, shape, "bool", 3)
                if op == "masked_fill_":
                    return base, v.masked_fill_(mask, 1)
                return base, lib.where(mask, t1, t2, out=v)

            _check(run, f"{op} {layout} x {kind}")


# -- copies ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("src_dtype", ("float32", "float64", "int32", "float16", "bool"))
@pytest.mark.parametrize("dtype", DTYPES)
def test_copy_into_views(dtype, src_dtype):
    for layout in SMALL + ("big_step4", "big_transposed"):
        for kind in ("contiguous", "strided", "transposed", "expanded"):
            def run(lib, layout=layout, kind=kind):
                base, v = _base_and_view(lib, layout, dtype)
                return base, v.copy_(_operand(lib, kind, tuple(v.shape), src_dtype, 1))

            _check(run, f"copy_ {layout} x {kind}")


# -- mixed dtypes: the common dtype's result cast into the view ------------------------------------------------
MIXED = ("float16", "bfloat16", "float32", "float64", "int32", "uint8", "bool")


@pytest.mark.parametrize("dtype", MIXED)
@pytest.mark.parametrize("op", ("add_", "mul_", "div_", "addcmul_", "lerp_", "clamp_"))
def test_mixed_dtype_inplace_on_views(op, dtype):
    """``view.op_(other of another dtype)``: computed in the common dtype, cast into the view (or torch's error)."""
    for layout in SMALL:
        for other_dtype in MIXED:
            def run(lib, layout=layout, other_dtype=other_dtype):
                base, v = _base_and_view(lib, layout, dtype)
                o = _operand(lib, "strided", tuple(v.shape), other_dtype, 1)
                if op == "addcmul_":
                    return base, v.addcmul_(o, o, value=2)
                if op == "lerp_":
                    return base, v.lerp_(o, 0.5)
                if op == "clamp_":
                    return base, v.clamp_(o, o + 1)
                return base, getattr(v, op)(o)

            _check(run, f"{op} {layout} x {other_dtype}")


@pytest.mark.parametrize("out_dtype", MIXED)
@pytest.mark.parametrize("op", ("addcmul", "addcdiv", "lerp", "clamp", "mul", "sqrt"))
def test_out_of_another_dtype_on_views(op, out_dtype):
    """``op(float16 and float32 inputs, out=view of another dtype)``."""
    for layout in SMALL:
        for in_dtype in ("float16", "float32", "int32"):
            def run(lib, layout=layout, in_dtype=in_dtype):
                base, v = _base_and_view(lib, layout, out_dtype)
                shape = tuple(v.shape)
                a, b = _operand(lib, "step4", shape, in_dtype, 1), _operand(lib, "transposed", shape, in_dtype, 2)
                if op in ("addcmul", "addcdiv"):
                    return base, getattr(lib, op)(a, b, b, value=2, out=v)
                if op == "lerp":
                    return base, lib.lerp(a, b, 0.25, out=v)
                if op == "clamp":
                    return base, lib.clamp(a, b, b + 1, out=v)
                if op == "sqrt":
                    return base, lib.sqrt(a, out=v)
                return base, lib.mul(a, b, out=v)

            _check(run, f"{op} {layout} {in_dtype} -> {out_dtype}")


# -- other kernel families writing a strided out= ---------------------------------------------------------------
OTHER_FAMILIES = {
    "sum": lambda m, x, v: m.sum(x, 0, out=v),
    "mean": lambda m, x, v: m.mean(x, 0, out=v),
    "amax": lambda m, x, v: m.amax(x, 0, out=v),
    "prod": lambda m, x, v: m.prod(x, 0, out=v),
    "cumsum": lambda m, x, v: m.cumsum(x[0], 0, out=v),
    "mv": lambda m, x, v: m.mv(x, x[0], out=v),
    "cat": lambda m, x, v: m.cat([x[0, :2], x[1, :2]], out=v),
    "index_select": lambda m, x, v: m.index_select(x[0], 0, m.tensor([3, 2, 1, 0]), out=v),
    "where": lambda m, x, v: m.where(x[0] > 1, x[0], x[1], out=v),
    "sort": lambda m, x, v: m.sort(x[0], out=(v, m.empty(4, dtype=m.int64)))[0],
}


@pytest.mark.parametrize("dtype", ("float32", "float64", "int64", "float16"))
@pytest.mark.parametrize("name", sorted(OTHER_FAMILIES))
def test_other_families_out_on_views(name, dtype):
    """Reductions, scans, matrix-vector, cat, index_select, where and sort into a stride-2 view at an offset."""
    def run(lib):
        base = _tensor(lib, _values((4, 8), dtype, 0), dtype)
        x = _tensor(lib, _values((4, 4), dtype, 1), dtype)
        return base, OTHER_FAMILIES[name](lib, x, base[:, ::2][1])

    _check(run, f"{name} {dtype}")
