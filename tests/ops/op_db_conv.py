"""OpInfo entries: convolution, pooling and scaled dot product attention
(glasstorch/_ops/native_functions/conv.yaml), through ``torch.*``, ``torch.nn.functional`` and ``torch._C._nn``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from opinfo import FLOATS, HALF, ErrorSample, OpInfo, Sample, T

import glasstorch.nn.functional  # noqa: F401  (until glasstorch/__init__ imports nn)

CONV_DTYPES = FLOATS + HALF + ("int64",)
POOL_DTYPES = FLOATS + HALF
NAN, INF = float("nan"), float("inf")
# half-precision convolutions accumulate long sums; compare them a little more loosely
CONV_TOL = {"float16": (2e-3, 2e-3), "bfloat16": (1.6e-2, 2e-2)}


@dataclasses.dataclass
class ConvOpInfo(OpInfo):
    """An entry whose callable is ``fn(lib)`` instead of a dotted name under the library."""

    fn: Callable | None = None

    def lib_fn(self, lib):
        return self.fn(lib)


def _C_nn(name):
    def get(lib):
        if lib.__name__ == "torch":
            return getattr(lib._C._nn, name)
        from glasstorch._generated import functions
        return getattr(functions, name)
    return get


def _channels_last(name, functional=False):
    """``lib.<name>`` (or ``lib.nn.functional.<name>``) with its first argument made channels-last."""
    def get(lib):
        fn = getattr(lib.nn.functional if functional else lib, name)

        def call(x, *args, **kwargs):
            return fn(x.contiguous(memory_format=lib.channels_last), *args, **kwargs)
        return call
    return get


def _tol(dtype, **kw):
    r, a = CONV_TOL.get(dtype, (None, None))
    return {"rtol": r, "atol": a, **kw}


# -- convolution -------------------------------------------------------------------------------------------
def _x(shape, seed=0):
    return T(shape, low=-2, high=2, seed=seed)


def conv2d_samples(dtype):
    x, w, b = _x((2, 3, 6, 7)), _x((4, 3, 3, 3), 1), _x((4,), 2)
    t = _tol(dtype)
    yield Sample((x, w), name="plain", **t)
    yield Sample((x, w, b), name="bias", **t)
    yield Sample((x, w, b, 2, 1), name="stride 2 padding 1", **t)
    yield Sample((x, w, b), {"stride": (2, 1), "padding": (1, 2), "dilation": (2, 1)}, name="mixed tuples", **t)
    yield Sample((x, _x((6, 1, 3, 2), 3), None, 1, 1, 1, 3), name="depthwise groups=3", **t)
    yield Sample((_x((1, 4, 5, 5)), _x((6, 2, 2, 2), 3), _x((6,), 4)), {"groups": 2}, name="groups=2", **t)
    yield Sample((_x((3, 6, 7)), w, b), name="unbatched", **t)
    yield Sample((x, w, b), {"padding": "same"}, name="same", **t)
    yield Sample((x, _x((4, 3, 2, 4), 3)), {"padding": "same", "dilation": (1, 2)}, name="same even kernel", **t)
    yield Sample((x, w, b), {"padding": "valid", "dilation": 2}, name="valid", **t)
    yield Sample((x, _x((4, 3, 1, 1), 3)), name="1x1", **t)
    yield Sample((T((2, 3, 6, 7), layout="transposed", low=-2, high=2), w), name="transposed input", **t)
    yield Sample((_x((1, 3, 3, 3)), w), {"padding": 3, "stride": 3}, name="big padding", **t)
    yield Sample((_x((0, 3, 5, 5)), w, b), name="empty batch", **t)
    yield Sample((_x((2, 0, 5, 5)), _x((4, 0, 3, 3), 1)), name="no input channels", **t)


def conv2d_errors():
    x = T((1, 2, 5, 5))
    w = T((4, 3, 3, 3))
    x3 = T((1, 3, 5, 5))
    return [
        ErrorSample((x, w), name="channels"),
        ErrorSample((T((1, 4, 5, 5)), T((3, 2, 3, 3))), {"groups": 2}, name="groups divide weight"),
        ErrorSample((T((1, 4, 5, 5)), w), {"groups": 2}, name="groups channels"),
        ErrorSample((T((1, 3, 2, 2)), w), name="kernel too big"),
        ErrorSample((x3, w), {"stride": 0}, name="stride 0"),
        ErrorSample((x3, w), {"padding": -1}, name="negative padding"),
        ErrorSample((x3, w), {"dilation": 0}, name="dilation 0"),
        ErrorSample((x3, w), {"dilation": -1}, name="negative dilation"),
        ErrorSample((x3, w), {"groups": 0}, name="groups 0"),
        ErrorSample((x3, w, T((3,))), name="bias size"),
        ErrorSample((x3, w, T((4,), dtype="float64")), name="bias dtype"),
        ErrorSample((T((3, 5)), w), name="2-d input"),
        ErrorSample((T((1, 1, 3, 5, 5)), w), name="5-d input"),
        ErrorSample((x3, T((4, 3, 3))), name="3-d weight"),
        ErrorSample((x3, w), {"stride": (1, 1, 1)}, name="stride length"),
        ErrorSample((x3, w), {"padding": "same", "stride": 2}, name="same strided"),
        ErrorSample((x3, w), {"padding": "foo"}, name="bad padding string"),
        ErrorSample((T((1, 3, 5, 5), dtype="float64"), w), name="input/weight dtype"),
        ErrorSample((T((1, 3, 5, 5), dtype="bool"), T((4, 3, 3, 3), dtype="bool")), name="bool"),
    ]


def conv1d_samples(dtype):
    x, w, b = _x((2, 3, 9)), _x((4, 3, 3), 1), _x((4,), 2)
    t = _tol(dtype)
    yield Sample((x, w, b), name="bias", **t)
    yield Sample((x, w, None, 2, 1, 2), name="stride padding dilation", **t)
    yield Sample((x, _x((6, 1, 2), 3)), {"groups": 3}, name="groups", **t)
    yield Sample((_x((3, 9)), w, b), name="unbatched", **t)
    yield Sample((x, _x((4, 3, 4), 3)), {"padding": "same"}, name="same even kernel", **t)
    yield Sample((x, w), {"padding": "valid"}, name="valid", **t)


def conv1d_errors():
    return [ErrorSample((T((1, 2, 3, 7)), T((4, 3, 3))), name="4-d input"),
            ErrorSample((T((1, 2, 7)), T((4, 3, 3))), name="channels")]


def conv3d_samples(dtype):
    x, w, b = _x((2, 2, 5, 4, 5)), _x((3, 2, 2, 3, 2), 1), _x((3,), 2)
    t = _tol(dtype)
    yield Sample((x, w, b), name="bias", **t)
    yield Sample((x, w, None, (2, 1, 2), 1, (1, 2, 1)), name="stride padding dilation", **t)
    yield Sample((x, _x((4, 1, 2, 2, 2), 3)), {"groups": 2}, name="groups", **t)
    yield Sample((_x((2, 5, 4, 5)), w, b), name="unbatched", **t)
    yield Sample((x, w), {"padding": "same"}, name="same", **t)


def conv_transpose_samples(nd):
    def samples(dtype):
        t = _tol(dtype)
        sp = (5, 4, 3)[:nd]
        x, w, b = _x((2, 4, *sp)), _x((4, 3, *(3,) * nd), 1), _x((3,), 2)
        yield Sample((x, w, b), name="bias", **t)
        yield Sample((x, w, None, 2, 1, 1), name="stride padding output_padding", **t)
        yield Sample((x, _x((4, 2, *(2,) * nd), 3), None, 1, 0, 0, 2), name="groups", **t)
        yield Sample((x, w), {"stride": 2, "dilation": 2, "output_padding": 1}, name="dilation", **t)
        yield Sample((_x((4, *sp)), w, b), name="unbatched", **t)
    return samples


def conv_transpose_errors(nd):
    return lambda: [ErrorSample((T((1, 2, *(5,) * nd)), T((4, 3, *(3,) * nd))), name="channels"),
                    ErrorSample((T((1, 4, *(5,) * nd)), T((4, 3, *(3,) * nd))), {"stride": 1, "output_padding": 1},
                                name="output_padding"),
                    ErrorSample((T((4,)), T((4, 3, *(3,) * nd))), name="1-d input")]


def convolution_samples(dtype):
    """``torch.convolution``: every argument positional, also transposed and 3-d."""
    t = _tol(dtype)
    x, w = _x((2, 4, 5, 5)), _x((4, 3, 3, 3), 1)
    yield Sample((x, _x((3, 4, 3, 3), 1), _x((3,), 2), [1], [0], [1], False, [0], 1), name="plain", **t)
    yield Sample((x, w, _x((3,), 2), [2], [1], [1], True, [1], 1), name="transposed", **t)
    yield Sample((x, _x((4, 2, 2, 3), 3), None, [2, 1], [1, 0], [1, 2], True, [1, 0], 2), name="transposed groups",
                 **t)
    yield Sample((_x((1, 4, 5)), _x((4, 2, 3), 3), None, [2], [1], [1], True, [1], 1), name="transposed 1-d", **t)
    yield Sample((_x((1, 2, 4, 4, 4)), _x((3, 2, 2, 2, 2), 3), None, [1], [0], [1], False, [0], 1), name="3-d", **t)


def convolution_backward_samples(dtype):
    """``torch.ops.aten.convolution_backward``: grad_output, input, weight, bias_sizes ..., output_mask."""
    t = _tol(dtype)
    yield Sample((_x((2, 3, 3, 3), 4), _x((2, 4, 5, 5)), _x((3, 4, 3, 3), 1), [3], [1], [0], [1], False, [0], 1,
                  [True, True, True]), name="plain", **t)
    yield Sample((_x((2, 3, 3, 3), 4), _x((2, 4, 5, 5)), _x((3, 4, 3, 3), 1), None, [1], [0], [1], False, [0], 1,
                  [False, True, False]), name="weight only", **t)
    yield Sample((_x((1, 4, 3, 3), 4), _x((1, 2, 6, 6)), _x((4, 2, 3, 3), 1), [4], [2], [1], [1], False, [0], 1,
                  [True, False, True]), name="strided padded", **t)
    yield Sample((_x((1, 4, 3, 3), 4), _x((1, 4, 5, 5)), _x((4, 2, 3, 3), 1), None, [1], [0], [1], False, [0], 2,
                  [True, True, False]), name="groups", **t)
    yield Sample((_x((2, 3, 10, 10), 4), _x((2, 4, 5, 5)), _x((4, 3, 3, 3), 1), [3], [2], [1], [1], True, [1], 1,
                  [True, True, True]), name="transposed", **t)
    yield Sample((_x((1, 2, 10), 4), _x((1, 4, 5)), _x((4, 2, 3), 1), None, [2], [1], [1], True, [1], 1,
                  [True, True, False]), name="transposed 1-d", **t)


def convolution_errors():
    x, w = T((1, 3, 5, 5)), T((4, 3, 3, 3))
    return [
        ErrorSample((x, T((4, 3)), None, [1], [0], [1], False, [0], 1), name="2-d weight"),
        ErrorSample((x, T((4, 3, 3)), None, [1], [0], [1], False, [0], 1), name="weight/input dims"),
        ErrorSample((x, w, None, [1], [0, 0, 0], [1], False, [0], 1), name="padding length"),
        ErrorSample((x, w, None, [1], [0], [1], False, [0, 0, 0], 1), name="output_padding length"),
        ErrorSample((x, w, None, [1], [0], [1], False, [-1], 1), name="negative output_padding"),
        ErrorSample((T((1, 4, 5, 5)), w, T((4,)), [1], [0], [1], True, [0], 1), name="transposed bias"),
        ErrorSample((x, w, None, [1], [0], [1], True, [0], 1), name="transposed channels"),
        ErrorSample((T((1, 4, 5, 5)), w, None, [1], [1], [1], True, [1], 1), name="output padding too big"),
    ]


def _convolution_samples(dtype):
    for s in convolution_samples(dtype):
        yield Sample(s.args + (False, False, True, True), name=s.name, rtol=s.rtol, atol=s.atol)


def _convolution_mode_samples(dtype):
    t = _tol(dtype)
    x = _x((2, 3, 6, 7))
    yield Sample((x, _x((4, 3, 3, 2), 1), _x((4,), 2), [1], "same", [2, 1], 1), name="same", **t)
    yield Sample((x, _x((4, 3, 3, 2), 1), None, [2], "valid", [1], 1), name="valid", **t)


# -- pooling -----------------------------------------------------------------------------------------------
SPECIAL_POOL = (((1.0, NAN, 3.0, -INF), (2.0, 5.0, NAN, -INF), (-INF, -INF, 0.0, 1.0), (-INF, -INF, 2.0, 2.0)),)


def max_pool_samples(dtype, with_indices=False):
    x = T((2, 3, 7, 8))
    extra = {"return_indices": True} if with_indices else {}
    yield Sample((x, 2), dict(extra), name="k=2")
    yield Sample((x, 3, 2, 1), dict(extra), name="k=3 s=2 p=1")
    yield Sample((x, (3, 2)), {"stride": (2, 1), "padding": (1, 1), "dilation": (2, 1), **extra}, name="tuples")
    yield Sample((x, 3), {"stride": 2, "ceil_mode": True, **extra}, name="ceil_mode")
    yield Sample((x, 2), {"stride": 2, "padding": 1, "ceil_mode": True, **extra}, name="ceil_mode padded")
    yield Sample((T((3, 5, 5)), 2), dict(extra), name="unbatched")
    if dtype in FLOATS + HALF:  # nan/-inf do not convert to integer dtypes
        yield Sample((T((1, 1, 4, 4), values=SPECIAL_POOL), 2), dict(extra), name="nan and -inf")
        yield Sample((T((1, 1, 4, 4), values=SPECIAL_POOL), 3), {"padding": 1, **extra}, name="-inf windows padded")
    yield Sample((T((1, 1, 4, 4), values=((((2.0,) * 4),) * 4,)), 2), dict(extra), name="ties")
    yield Sample((T((0, 2, 4, 4)), 2), dict(extra), name="empty batch")


def max_pool_errors():
    x = T((1, 2, 5, 5))
    return [
        ErrorSample((x, 3), {"padding": 2}, name="padding too big"),
        ErrorSample((x, 0), name="kernel 0"),
        ErrorSample((x, 2), {"stride": 0}, name="stride 0"),
        ErrorSample((x, 2), {"dilation": 0}, name="dilation 0"),
        ErrorSample((x, (2, 2, 2)), name="kernel length"),
        ErrorSample((T((2, 5)), 2), name="2-d input"),
        ErrorSample((T((1, 2, 2, 2)), 3), {"padding": 1, "dilation": 2}, name="output too small"),
        ErrorSample((T((1, 0, 5, 5)), 2), name="empty channels"),
    ]


def aten_max_pool_samples(dtype):
    """``max_pool2d_with_indices`` positional (also with ``out=``)."""
    yield Sample((T((2, 3, 7, 8)), [3, 3], [2, 2], [1, 1], [1, 1], True), name="positional")
    yield Sample((T((2, 3, 7, 8)), [2]), name="defaults")


def avg_pool_samples(dtype):
    x = T((2, 3, 7, 8))
    yield Sample((x, 2), name="k=2")
    yield Sample((x, 3, 2, 1), name="k=3 s=2 p=1")
    yield Sample((x, 3, 2, 1), {"count_include_pad": False}, name="count_include_pad=False")
    yield Sample((x, (3, 2)), {"stride": (2, 1), "padding": (1, 1), "ceil_mode": True}, name="ceil_mode")
    yield Sample((x, 3, 2, 1), {"ceil_mode": True, "count_include_pad": False}, name="ceil no pad count")
    yield Sample((x, 3), {"stride": 2, "padding": 1, "divisor_override": 2}, name="divisor_override")
    yield Sample((T((3, 5, 5)), 2), name="unbatched")
    yield Sample((T((2, 3, 7, 8), layout="transposed"), 2), name="transposed")


def avg_pool_errors():
    x = T((1, 2, 5, 5))
    return [
        ErrorSample((x, 3), {"padding": 2}, name="padding too big"),
        ErrorSample((x, 0), name="kernel 0"),
        ErrorSample((x, 2), {"divisor_override": 0}, name="divisor 0"),
        ErrorSample((T((5, 5)), 2), name="2-d input"),
    ]


def aten_avg_pool_samples(dtype):
    yield Sample((T((2, 3, 7, 8)), [3, 3], [2, 2], [1, 1], True, False, None), name="positional")
    yield Sample((T((2, 3, 7, 8)), [2]), name="defaults")


def adaptive_samples(dtype):
    for size in ((3, 4), 2, (1, 1), (7, 5), (None, 3), (4, 1)):
        yield Sample((T((2, 3, 7, 8)), size), name=f"{size}")
    yield Sample((T((3, 5, 6)), (2, 4)), name="unbatched")
    yield Sample((T((2, 0, 5, 6)), (2, 4)), name="no channels")
    yield Sample((T((2, 3, 7, 8), layout="transposed"), (3, 3)), name="transposed")


def adaptive_errors():
    return [ErrorSample((T((1, 2, 5, 5)), (2, 2, 2)), name="output_size length"),
            ErrorSample((T((1, 2, 5, 5)), (-1, 2)), name="negative output_size"),
            ErrorSample((T((1, 2, 0, 5)), (2, 2)), name="empty height"),
            ErrorSample((T((5, 5)), (2, 2)), name="2-d input")]


# -- attention ---------------------------------------------------------------------------------------------
def _qkv(b=(2, 3), lq=4, lk=5, e=8, ev=None, hk=None, seed=0):
    kb = b if hk is None else b[:-1] + (hk,)
    return (T(b + (lq, e), low=-2, high=2, seed=seed), T(kb + (lk, e), low=-2, high=2, seed=seed + 1),
            T(kb + (lk, ev or e), low=-2, high=2, seed=seed + 2))


BOOL_MASK = tuple(tuple(c <= r + 1 for c in range(5)) for r in range(4))


def sdpa_samples(dtype):
    q, k, v = _qkv()
    yield Sample((q, k, v), name="flash")
    yield Sample((q, k, v), {"is_causal": True}, name="flash causal")
    yield Sample((q, k, v), {"scale": 0.3}, name="flash scale")
    yield Sample((q, k, v), {"attn_mask": T((4, 5), dtype="bool", values=BOOL_MASK)}, name="flash bool mask")
    yield Sample((q, k, v), {"attn_mask": T((2, 1, 4, 5), seed=9)}, name="flash float 4-d mask")
    yield Sample((q, k, v), {"attn_mask": T((4, 5), values=((0.0,) * 5, (-INF,) * 5, (1.0,) * 5, (-1.0,) * 5))},
                 name="flash fully masked row")
    yield Sample((q, k, v), {"attn_mask": T((4, 5), seed=9), "is_causal": True}, name="flash causal + mask")
    yield Sample(_qkv(hk=1, b=(2, 4)), {"enable_gqa": True}, name="flash gqa")
    yield Sample(_qkv(b=(3,)), name="math 3-d")
    yield Sample(_qkv(b=(3,)), {"is_causal": True, "scale": -0.5}, name="math causal negative scale")
    yield Sample(_qkv(ev=6), name="math value dim")
    yield Sample(_qkv(ev=6), {"attn_mask": T((4, 5), dtype="bool", values=BOOL_MASK)}, name="math bool mask")
    yield Sample((q, k, v), {"attn_mask": T((3, 4, 5), seed=9)}, name="math 3-d mask")
    yield Sample(_qkv(hk=2, b=(2, 4), ev=6), {"enable_gqa": True}, name="math gqa")
    yield Sample(_qkv(b=()), name="2-d inputs")
    yield Sample((T((2, 3, 4, 8), layout="transposed"),) + _qkv()[1:], name="non-unit last stride (math)")


def sdpa_errors():
    q, k, v = _qkv()
    return [
        ErrorSample((q, T((2, 3, 5, 8), dtype="float64"), v), name="dtypes"),
        ErrorSample((T((8,)), T((8,)), T((8,))), name="1-d"),
        ErrorSample((q, k, v), {"attn_mask": T((4, 5), dtype="int64")}, name="int mask"),
        ErrorSample((q, k, v), {"attn_mask": T((4, 5), dtype="float64")}, name="float64 mask"),
        ErrorSample(_qkv(b=(3,)), {"attn_mask": T((4, 5)), "is_causal": True}, name="causal + mask (math)"),
        ErrorSample(_qkv(hk=3, b=(2, 4)), {"enable_gqa": True}, name="gqa heads"),
        ErrorSample((q, k, v), {"attn_mask": T((5,))}, name="1-d mask"),
    ]


def sdpa_choice_samples(dtype):
    for s in sdpa_samples(dtype):
        yield Sample(s.args, s.kwargs, name=s.name)
    yield Sample(_qkv(), {"dropout_p": 0.1}, name="dropout")


def flash_samples(dtype):
    q, k, v = _qkv()
    yield Sample((q, k, v), name="plain")
    yield Sample((q, k, v, 0.0, True), {"scale": 0.5}, name="causal scale")
    yield Sample((q, k, v), {"attn_mask": T((2, 3, 4, 5), seed=9)}, name="mask")
    if dtype in HALF:
        yield Sample((q, k, v), {"attn_mask": T((4, 5), dtype="float32", seed=9)}, name="float32 mask")


def flash_errors():
    q, k, v = _qkv()
    return [ErrorSample(_qkv(ev=6), name="head sizes"),
            ErrorSample(_qkv(b=(3,)), name="3-d"),
            ErrorSample((q, k, v, 0.5), name="dropout"),
            ErrorSample((q, k, v), {"attn_mask": T((4, 5), dtype="bool")}, name="bool mask"),
            ErrorSample((q, T((2, 3, 5, 8), dtype="float64"), v), name="dtype")]


def _flash_blhe(lib):
    """The flash kernel on (B, L, H, E) tensors viewed as (B, H, L, E): the output keeps that layout."""
    def call(q, k, v, *args, **kwargs):
        t = [x.transpose(1, 2) for x in (q, k, v)]
        return lib._scaled_dot_product_flash_attention_for_cpu(*t, *args, **kwargs)
    return call


def math_samples(dtype):
    yield Sample(_qkv(), name="4-d")
    yield Sample(_qkv(ev=6), {"attn_mask": T((4, 5), seed=9)}, name="mask")
    yield Sample(_qkv(b=(3,)), {"is_causal": True}, name="causal")
    yield Sample(_qkv(hk=2, b=(2, 4)), {"enable_gqa": True, "scale": 0.2}, name="gqa")


OPS = [
    OpInfo("conv2d", aten=("conv2d", "conv2d.padding", "_convolution_mode"), samples=conv2d_samples,
           dtypes=CONV_DTYPES, errors=conv2d_errors),
    OpInfo("nn.functional.conv2d", aten=("conv2d",), samples=conv2d_samples, dtypes=FLOATS),
    ConvOpInfo("conv2d (channels_last)", aten=("conv2d",), fn=_channels_last("conv2d"), dtypes=FLOATS + ("int64",),
               samples=lambda dt: (s for s in conv2d_samples(dt) if s.name in ("bias", "groups=2", "plain"))),
    OpInfo("conv3d", aten=("conv3d", "conv3d.padding"), samples=conv3d_samples, dtypes=CONV_DTYPES,
           errors=lambda: [ErrorSample((T((1, 2, 3, 4, 5, 6)), T((3, 2, 2, 2, 2))), name="6-d input")]),
    *[OpInfo(f"conv_transpose{nd}d", aten=(f"conv_transpose{nd}d" + (".input" if nd > 1 else ""),),
             samples=conv_transpose_samples(nd), dtypes=CONV_DTYPES, errors=conv_transpose_errors(nd))
      for nd in (1, 2, 3)],
    OpInfo("conv1d", aten=("conv1d", "conv1d.padding"), samples=conv1d_samples, dtypes=CONV_DTYPES,
           errors=conv1d_errors),
    OpInfo("convolution", aten=("convolution",), samples=convolution_samples, dtypes=CONV_DTYPES,
           errors=convolution_errors),
    ConvOpInfo("ops.aten.convolution_backward", aten=("convolution_backward",),
               fn=lambda lib: lib.ops.aten.convolution_backward, samples=convolution_backward_samples, dtypes=FLOATS),
    OpInfo("_convolution", aten=("_convolution",), samples=_convolution_samples, dtypes=FLOATS),
    OpInfo("_convolution_mode", aten=("_convolution_mode",), samples=_convolution_mode_samples, dtypes=FLOATS),
    OpInfo("max_pool2d", aten=("max_pool2d",), samples=lambda dt: (s for s in max_pool_samples(dt)),
           dtypes=POOL_DTYPES + ("int64",), errors=max_pool_errors),
    OpInfo("nn.functional.max_pool2d", aten=("max_pool2d_with_indices",),
           samples=lambda dt: max_pool_samples(dt, with_indices=True), dtypes=POOL_DTYPES, errors=max_pool_errors),
    ConvOpInfo("nn.functional.max_pool2d (channels_last)", aten=("max_pool2d_with_indices",),
               fn=_channels_last("max_pool2d", functional=True), dtypes=FLOATS,
               samples=lambda dt: max_pool_samples(dt, with_indices=True)),
    ConvOpInfo("_C._nn.max_pool2d_with_indices", aten=("max_pool2d_with_indices", "max_pool2d_with_indices.out"),
               fn=_C_nn("max_pool2d_with_indices"), out=True, samples=aten_max_pool_samples, dtypes=FLOATS),
    OpInfo("nn.functional.avg_pool2d", aten=("avg_pool2d",), samples=avg_pool_samples,
           dtypes=POOL_DTYPES + ("int64",), errors=avg_pool_errors),
    ConvOpInfo("_C._nn.avg_pool2d", aten=("avg_pool2d", "avg_pool2d.out"), fn=_C_nn("avg_pool2d"), out=True,
               samples=aten_avg_pool_samples, dtypes=FLOATS),
    OpInfo("nn.functional.adaptive_avg_pool2d", aten=("adaptive_avg_pool2d",), samples=adaptive_samples,
           dtypes=POOL_DTYPES, errors=adaptive_errors),
    ConvOpInfo("_C._nn.adaptive_avg_pool2d", aten=("adaptive_avg_pool2d", "adaptive_avg_pool2d.out"),
               fn=_C_nn("adaptive_avg_pool2d"), out=True, dtypes=FLOATS,
               samples=lambda dt: (Sample((T((2, 3, 7, 8)), [3, 2]), name="3x2"),)),
    OpInfo("_adaptive_avg_pool2d", aten=("_adaptive_avg_pool2d",), dtypes=POOL_DTYPES,
           samples=lambda dt: (Sample((T((2, 3, 7, 8)), [3, 2]), name="3x2"),
                               Sample((T((2, 3, 7, 8)), [1, 1]), name="1x1"))),
    OpInfo("nn.functional.scaled_dot_product_attention", aten=("scaled_dot_product_attention",),
           samples=sdpa_samples, dtypes=FLOATS + HALF, errors=sdpa_errors),
    OpInfo("_fused_sdp_choice", aten=("_fused_sdp_choice",), samples=sdpa_choice_samples, dtypes=FLOATS + HALF),
    OpInfo("_scaled_dot_product_flash_attention_for_cpu", aten=("_scaled_dot_product_flash_attention_for_cpu",),
           samples=flash_samples, dtypes=FLOATS + HALF, errors=flash_errors),
    ConvOpInfo("_scaled_dot_product_flash_attention_for_cpu (B, L, H, E)",
               aten=("_scaled_dot_product_flash_attention_for_cpu",), fn=_flash_blhe, dtypes=FLOATS,
               samples=lambda dt: (Sample(_qkv(b=(2, 4), lq=3, lk=3), {"is_causal": True}, name="causal"),)),
    OpInfo("_scaled_dot_product_attention_math", aten=("_scaled_dot_product_attention_math",),
           samples=math_samples, dtypes=FLOATS + HALF),
]
