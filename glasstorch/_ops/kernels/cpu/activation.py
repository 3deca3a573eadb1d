"""Activation CPU kernels — PyTorch's ``Activation.cpp``, ``GatedLinearUnit.cpp`` and their ``cpu/Activation.cpp``
loops, on numpy (softmax is in ``softmax.py``).

Pointwise activations are *structured*: ``kernel(self, <scalars...>, out)`` lets TensorIterator check
and allocate (``out=None``), then evaluates one numpy expression.  Like PyTorch's kernels, float16 and
bfloat16 inputs are computed in float32 (the "opmath" type) and rounded once when stored; float64 stays
float64.  Each kernel accepts the dtypes PyTorch's ``AT_DISPATCH`` accepts and raises PyTorch's
``"<kernel name>" not implemented for '<dtype>'`` otherwise.

Also here: ``embedding`` and ``embedding_renorm_`` (PyTorch's ``Embedding.cpp``), which are lookups rather than
activations but belong to the same ``nn.functional`` family.

Invariant: kernels write only into their output (or ``self`` for the ``_`` variants, via ``out=self``).
"""

from __future__ import annotations

import math

import numpy as np

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._device import cpu_features as _cpu
from ...._tensor.impl import TensorImpl, empty_contiguous
from ...._tensor.views import type_string
from ...tensor_iterator import build, dense_scalar
from . import ckernels as _ck
from . import ckernels_src as _ck_src
from .copy import cast_ready
from .pointwise_support import cast_outputs

__all__ = [
    "relu_kernel", "relu_inplace_kernel", "gelu_out", "gelu_backward_out", "silu_out", "softplus_out", "elu_out",
    "leaky_relu_out",
    "hardtanh_out", "hardsigmoid_out", "hardswish_out", "mish_out", "silu_backward_out", "mish_backward_kernel",
    "hardswish_backward_out", "threshold_out", "threshold_backward_out",
    "leaky_relu_backward_out", "hardtanh_backward_out", "log_sigmoid_backward_out", "hardsigmoid_backward_out",
    "elu_backward_out",
    "log_sigmoid_forward_out",
    "glu_out", "embedding_kernel", "embedding_renorm_kernel",
    "FLOATING", "not_implemented", "opmath", "typemeta_name", "check_out_dtype",
]

FLOATING = frozenset({_dt.float32, _dt.float64, _dt.float16, _dt.bfloat16})
_COMPLEX = frozenset({_dt.complex64, _dt.complex128})
_INTEGRAL = frozenset({_dt.uint8, _dt.int8, _dt.int16, _dt.int32, _dt.int64})

# caffe2::TypeMeta names, which PyTorch prints in "Expected out tensor to have dtype ..." messages
_TYPEMETA = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
             "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
             "bool": "bool", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


# -- shared helpers -----------------------------------------------------------------------------------------
def not_implemented(kernel: str, dtype) -> NotImplementedError:
    """PyTorch's AT_DISPATCH failure: ``"gelu_cpu" not implemented for 'Long'``."""
    return NotImplementedError(f'"{kernel}" not implemented for \'{_dt.name_of(dtype)}\'')


def opmath(dtype) -> np.dtype:
    """The numpy type a kernel computes in: float32 for the half types (``at::opmath_type``)."""
    if dtype in (_dt.float16, _dt.bfloat16):
        return np.dtype(np.float32)
    return dtype.np


def typemeta_name(dtype) -> str:
    return _TYPEMETA.get(dtype._name, dtype._name)


def check_out_dtype(out: TensorImpl, dtype) -> None:
    """A structured kernel's ``out=`` must already have the result dtype (``set_output_raw_strided``)."""
    if out.dtype is not dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {typemeta_name(dtype)}, but got "
                           f"{typemeta_name(out.dtype)} instead")


def _pointwise(self, out, kernel: str, fn, allowed=FLOATING, c=None):
    """Run ``fn`` (numpy, on the opmath type) over ``self`` into ``out`` through TensorIterator; ``c`` names a
    compiled loop (``ckernels.UNARY``) tried first."""
    it = build((out,), (self,), check_same_dtype=True)
    dt = it.common_dtype
    if dt not in allowed:
        raise not_implemented(kernel, dt)
    if not it.is_meta and it.out.numel() and not (c is not None and _ck.unary(c, it.ins_np[0], it.out_np)):
        x = it.ins_np[0].astype(opmath(dt), copy=False)
        with np.errstate(all="ignore"):
            np.copyto(it.out_np, fn(x), casting="unsafe")
    return it.out


def _scalar(value, npdt):
    """A Scalar argument converted to the computation type (C++ ``Scalar::to<opmath_t>``)."""
    if isinstance(value, complex) and npdt.kind != "c":
        value = value.real
    return npdt.type(value)


_erf_obj = np.frompyfunc(math.erf, 1, 1)


def _erf(x: np.ndarray) -> np.ndarray:
    """Elementwise erf in double precision (numpy has none; ``math.erf`` per element, exact but slow)."""
    return np.asarray(_erf_obj(np.asarray(x, dtype=np.float64)), dtype=np.float64)


_ERFCC = (0.17087277, -0.82215223, 1.48851587, -1.13520398, 0.27886807, -0.18628806, 0.09678418, 0.37409196,
          1.00002368, -1.26551223)


def _erfc_nonneg(z: np.ndarray) -> np.ndarray:
    """erfc for ``z >= 0`` with relative error below 1.1e-7 (the Chebyshev fit of Numerical Recipes' ``erfcc``),
    vectorized: accurate to float32's last bit or two, also deep in the tail."""
    z = np.asarray(z, dtype=np.float64)
    t = np.multiply(z, 0.5, out=np.empty_like(z))  # an array even when 0-d, for the in-place steps
    t += 1.0
    np.reciprocal(t, out=t)
    poly = np.full_like(t, _ERFCC[0])
    for c in _ERFCC[1:]:  # Horner, in place
        poly *= t
        poly += c
    poly -= z * z
    np.exp(poly, out=poly)
    poly *= t
    return poly


def _one_plus_erf(z: np.ndarray) -> np.ndarray:
    """``1 + erf(z)``: exactly (per element) for float64, else from the vectorized erfc without cancellation."""
    if z.dtype == np.float64:
        return 1.0 + _erf(z)
    z = z.astype(np.float64)
    c = _erfc_nonneg(np.abs(z))
    return np.where(z >= 0, 2.0 - c, c)


# -- relu / hardtanh / threshold (clamp-like, integers allowed) ---------------------------------------------
def _check_clampable(dtype, what: str) -> None:
    if dtype is _dt.bool:
        raise RuntimeError(f"Boolean inputs not supported for {what}" if what == "relu" else
                           f"Bool inputs not supported for {what}")
    if dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")


def _relu(self, out):
    _check_clampable(self.dtype, "relu")
    it = build((out,), (self,), check_same_dtype=True)
    if _dt.is_barebones(self.dtype) and not it.is_meta:  # PyTorch's relu is clamp_min(self, 0)
        raise not_implemented("clamp_min_scalar_cpu", self.dtype)
    if not it.is_meta and it.out.numel() and not _ck.unary("relu", it.ins_np[0], it.out_np):
        zero = dense_scalar(it.common_dtype.np.type(0), it.shape, it.common_dtype.np)
        np.maximum(zero, it.ins_np[0], out=it.out_np)  # max(0, x): NaN stays NaN, -0.0 stays -0.0 (as PyTorch)
    return it.out


def relu_kernel(self):
    """``relu``: ``max(x, 0)`` (PyTorch: ``clamp_min(self, 0)``); NaN stays NaN."""
    return _relu(self, None)


def relu_inplace_kernel(self):
    return _relu(self, self)


def hardtanh_out(self, min_val, max_val, out):
    """``clamp(x, min_val, max_val)``; integer inputs truncate the limits to integers first."""
    dt = self.dtype
    _check_clampable(dt, "hardtanh")
    if dt in _INTEGRAL:
        min_val, max_val = int(min_val), int(max_val)
        if dt is _dt.uint8 and (min_val < 0 or max_val < 0):
            raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    it = build((out,), (self,), check_same_dtype=True)
    if not it.is_meta and it.out.numel():
        ct = opmath(it.common_dtype)
        x = it.ins_np[0].astype(ct, copy=False)
        lo, hi = _scalar(min_val, ct), _scalar(max_val, ct)
        # min(max(x, lo), hi) with NaN propagated (np.maximum/np.minimum keep NaN)
        np.copyto(it.out_np, np.minimum(np.maximum(x, lo), hi), casting="unsafe")
    return it.out


def threshold_out(self, threshold, value, out):
    """``x <= threshold ? value : x``, with ``threshold`` and ``value`` converted to the dtype."""
    dt = self.dtype
    if dt is _dt.bool or dt.is_complex:
        raise not_implemented("threshold_cpu", dt)
    it = build((out,), (self,), check_same_dtype=True)
    if not it.is_meta and it.out.numel():
        x = it.ins_np[0]
        t = np.asarray(threshold).astype(dt.np)
        v = np.asarray(value).astype(dt.np)
        np.copyto(it.out_np, np.where(x <= t, v, x), casting="unsafe")
    return it.out


def threshold_backward_out(grad_output, self, threshold, out=None):
    """``threshold_backward`` / ``.grad_input`` (structured, ``out`` is ``grad_input``): ``x <= threshold ? 0 :
    grad``, compared in the common dtype; broadcasts and promotes like a binary op (PyTorch's iterator takes ``self``
    first: its broadcast errors and output layout follow)."""
    it = build((out,), (self, grad_output))
    dt = it.common_dtype
    if dt is _dt.bool or dt.is_complex:
        raise not_implemented("threshold_cpu", dt)
    if not it.is_meta and it.out.numel():
        x, g = (np.asarray(a).astype(dt.np, copy=False) for a in it.ins_np)
        np.copyto(it.out_np, np.where(x <= np.asarray(threshold).astype(dt.np), dt.np.type(0), g), casting="unsafe")
    return it.out


def _grad_kernel(out, inputs, kname, fn, dtypes=FLOATING, compute=None, check_same_dtype=False, cast=False):
    """A structured ``*_backward`` kernel of two (or more) tensors: broadcast and promoted as a binary op
    (``inputs`` in the order PyTorch's iterator takes them: its broadcast errors and output layout follow; with
    ``check_same_dtype`` all of one dtype, as iterators that check it), ``dtypes`` only (floating by default),
    ``fn(a, b, ..., ct)`` computed in the opmath type ``ct`` (or ``compute(dtype)``) and rounded once; with
    ``cast`` a given ``out`` of another dtype receives the common-dtype result (``cast_common_dtype_to_outputs``)."""
    it = build((out,), inputs, check_same_dtype=check_same_dtype, cast_outputs=cast)
    dt = it.common_dtype
    if dt not in dtypes:
        raise not_implemented(kname, dt)
    if not it.is_meta and it.out.numel():
        ct = (compute or opmath)(dt)
        arrays = [np.asarray(x).astype(ct, copy=False) for x in it.ins_np]
        with np.errstate(all="ignore"):
            np.copyto(it.out_np, fn(*arrays, ct), casting="unsafe")
        if cast:
            cast_outputs(it)
    return it.out


def leaky_relu_backward_out(grad_output, self, negative_slope, self_is_result, out=None):
    """``self > 0 ? grad : grad * negative_slope`` (``self`` may be the in-place forward's result: only a
    non-negative slope keeps the sign there)."""
    if self_is_result and negative_slope < 0:
        raise RuntimeError(_LEAKY_INPLACE_NEGATIVE)
    return _grad_kernel(out, (self, grad_output), "leaky_relu_backward_cpu",
                        lambda x, g, ct: np.where(x > 0, g, g * _scalar(negative_slope, ct)))


_LEAKY_INPLACE_NEGATIVE = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. This is "
    "caused by calling in-place forward function with a negative slope, please call out-of-place version instead. "
    "File an issue at https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu backward "
    "calculation with negative slope")


def elu_backward_out(grad_output, alpha, scale, input_scale, is_result, self_or_result, out=None):
    """elu's derivative from its input (``x <= 0 ? grad * input_scale * alpha * scale * exp(x * input_scale) :
    grad * scale``) or from its result (``y <= 0 ? grad * input_scale * (y + alpha * scale) : grad * scale``; only a
    non-negative ``alpha * scale`` keeps the sign there)."""
    if is_result and alpha * scale < 0:
        raise RuntimeError("In-place elu backward calculation is triggered with a negative slope which is not "
                           "supported. This is caused by calling in-place forward function with a negative slope, "
                           "please call out-of-place version instead.")

    def fn(g, x, ct):
        neg, pos, ins = _scalar(alpha, ct) * _scalar(scale, ct), _scalar(scale, ct), _scalar(input_scale, ct)
        if is_result:
            return np.where(x <= 0, g * ins * (x + neg), g * pos)
        return np.where(x <= 0, g * ins * neg * np.exp(x * ins), g * pos)
    return _grad_kernel(out, (grad_output, self_or_result), "elu_backward_cpu", fn)


def hardtanh_backward_out(grad_output, self, min_val, max_val, out=None):
    """``self <= min_val or self >= max_val ? 0 : grad`` (PyTorch reports its dtype errors as hardshrink's)."""
    def fn(g, x, ct):
        return np.where((x <= _scalar(min_val, ct)) | (x >= _scalar(max_val, ct)), ct.type(0), g)
    return _grad_kernel(out, (grad_output, self), "hardshrink_backward_cpu", fn)


def hardshrink_out(self, lambd, out):
    """``-lambd <= x <= lambd ? 0 : x`` (NaN stays NaN)."""
    def fn(x):
        lam = _scalar(lambd, x.dtype)
        return np.where((x >= -lam) & (x <= lam), x.dtype.type(0), x)
    return _pointwise(self, out, "hardshrink_cpu", fn)


def softshrink_out(self, lambd, out):
    """``|x| > lambd ? x - sign(x) * lambd : x * 0``; ``lambd`` must lie in ``[0, max of the dtype]``."""
    dt = self.dtype
    if dt not in FLOATING:
        raise not_implemented("softshrink_check", dt)
    top = float(np.finfo(dt.np).max) if dt is not _dt.bfloat16 else 3.3895313892515355e38
    if not 0 <= lambd <= top:
        raise RuntimeError(f"lambda must be in range [0, {top:g}] for input dtype {_dt.name_of(dt)}, but found "
                           f"{lambd:g}")

    def fn(x):
        lam = _scalar(lambd, x.dtype)
        return np.where(np.abs(x) > lam, x - np.where(x > 0, lam, -lam), x * 0)
    return _pointwise(self, out, "softshrink_cpu", fn)


def hardshrink_backward_out(grad_out, self, lambd, out=None):
    """``-lambd <= x <= lambd ? 0 : grad``."""
    def fn(g, x, ct):
        lam = _scalar(lambd, ct)
        return np.where((x >= -lam) & (x <= lam), ct.type(0), g)
    return _grad_kernel(out, (grad_out, self), "shrink_backward_cpu", fn)


def softshrink_backward_out(grad_output, self, lambd, out=None):
    """``-lambd <= x <= lambd ? 0 : grad`` (softshrink's slope is 1 outside the dead zone)."""
    return hardshrink_backward_out(grad_output, self, lambd, out)


def log_sigmoid_backward_out(grad_output, self, buffer, out=None):
    """``(1 - z / (1 + z)) * grad`` where ``self < 0``, else ``(z / (1 + z)) * grad``, with ``z`` the forward's
    ``buffer`` (``exp(-|self|)``), in PyTorch's CPU kernel's order of operations; the three broadcast and promote
    together in the order PyTorch's iterator takes them (input, buffer, grad), all of one dtype as its iterator
    checks."""
    def fn(x, z, g, ct):
        q = z / (1 + z)
        return np.where(x < 0, 1 - q, q) * g
    return _grad_kernel(out, (self, buffer, grad_output), "log_sigmoid_backward_cpu", fn, check_same_dtype=True)


def hardsigmoid_backward_out(grad_output, self, out=None):
    """``-3 < self < 3 ? grad / 6 : 0``, with PyTorch's float constant 1/6 in every dtype."""
    sixth = float(np.float32(1.0 / 6.0))
    return _grad_kernel(out, (grad_output, self), "hardsigmoid_backward",
                        lambda g, x, ct: np.where((x > -3) & (x < 3), g * ct.type(sixth), ct.type(0)))


# -- smooth activations (floating only) -----------------------------------------------------------------------
def gelu_out(self, approximate, out):
    """``x * Φ(x)`` exactly (``approximate='none'``) or with the tanh approximation."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    if approximate == "tanh":
        def fn(x):
            inner = math.sqrt(2.0 / math.pi) * (x + 0.044715 * x * x * x)
            return 0.5 * x * (1 + np.tanh(inner))
        return _pointwise(self, out, "GeluKernelImpl", fn)
    kernel = _gelu_kernel(self)

    def fn(x):
        return _gelu_specials(kernel, x, x * 0.5 * _one_plus_erf(x * x.dtype.type(1.0 / math.sqrt(2.0))))
    return _pointwise(self, out, "GeluKernelImpl", fn, c=kernel)


# Note [gelu's special values follow torch's kernel]
# torch's CPU gelu (approximate='none') hands a contiguous float32 input of more than one element, or a bfloat16
# one on AVX-512 cores (mkldnn_bf16_device_check), or a float16 one on AVX512-FP16 cores (mkldnn_fp16_device_check),
# to oneDNN's eltwise gelu_erf (use_mkldnn in Activation.cpp);
# other inputs take its own kernel, x * 0.5 * (1 + erf(x / sqrt 2)).  oneDNN JITs per CPU, and the special values
# differ (torch 2.13, measured with ONEDNN_MAX_CPU_ISA):
#   own kernel:              gelu(+inf) = inf,  zeros keep x's sign (gelu(-0.0) = -0.0, gelu(-20) = -0.0)
#   oneDNN, AVX-512 cores:   gelu(+inf) = NaN,  zeros keep x's sign; x (1 + erf) overflows: inf from x = 2^127 on
#   oneDNN, AVX2 or less:    gelu(+inf) = inf,  every zero result is +0.0 (gelu(-0.0) = +0.0)
# gelu(-inf) and gelu(NaN) are NaN everywhere, and gelu_backward's specials agree between the kernels.  glasstorch
# picks the same kernel name by the same rule and this CPU's features, so its specials are torch's on any x86 CPU;
# values agree within float32 rounding (ours are accurate where torch's 1 + erf cancels, below x = -5); our C loop
# gives the same bits whatever -march it is built for.  ONEDNN_MAX_CPU_ISA=AVX2 is honoured (cpu_features);
# assumed: torch.backends.mkldnn.enabled (torch's default); non-x86 CPUs get the own kernel's rule (unmeasured).
# The oracle of the tests is torch as it runs on the test machine, so each machine pins its own row above;
# tests/test_ckernels.py also runs both with ONEDNN_MAX_CPU_ISA=AVX2 to pin the AVX2 row on an AVX-512 machine.
def _gelu_kernel(self) -> str:
    """The compiled loop (``ckernels_src.UNARY``) whose specials are those of the kernel torch's gelu picks."""
    onednn = self.dtype is _dt.float32 or (self.dtype is _dt.bfloat16 and _cpu.onednn_bf16()) or (
        self.dtype is _dt.float16 and _cpu.onednn_fp16())
    return _ck_src.gelu_loop(onednn and self.numel() > 1 and self.is_contiguous())


def _gelu_specials(kernel: str, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The numpy gelu ``y`` (the own kernel's specials) with those of ``kernel`` (see the Note above), rounded to
    ``x``'s dtype first (a float64 ``y`` can round to -0.0)."""
    y = y.astype(x.dtype, copy=False)
    if kernel == "gelu_onednn512":
        y[x >= 2.0 ** 127] = np.inf
        y[np.isposinf(x)] = np.nan
    elif kernel == "gelu_onednn":
        y[y == 0] = 0.0
    return y


def gelu_backward_out(grad_output, self, approximate, out=None):
    """``gelu_backward`` / ``gelu_backward.grad_input`` (structured, ``out`` is ``grad_input``): ``grad * d gelu(x) /
    dx`` — ``Phi(x) + x phi(x)``, or the derivative of the tanh form (evaluated in float64: its two terms cancel).
    Broadcasts and promotes like a binary op; float32/float64 'none' run the compiled loop."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    it = build((out,), (grad_output, self))
    dt = it.common_dtype
    if dt not in FLOATING:
        raise not_implemented("GeluBackwardKernelImpl", dt)
    if it.is_meta or not it.out.numel():
        return it.out
    g, x = it.ins_np
    if approximate == "none" and _ck.binary("gelu_backward", g, x, it.out_np):
        return it.out
    ct = opmath(dt)
    g, x = np.asarray(g).astype(ct, copy=False), np.asarray(x).astype(ct, copy=False)
    with np.errstate(all="ignore"):
        if approximate == "tanh":  # in float64: the derivative cancels between its two terms
            k = math.sqrt(2.0 / math.pi)
            x = x.astype(np.float64)
            t = np.tanh(k * (x + 0.044715 * x * x * x))
            d = 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * (k * (1 + 3 * 0.044715 * x * x))
        else:
            pdf = np.exp(-0.5 * x * x) * ct.type(1.0 / math.sqrt(2 * math.pi))
            d = 0.5 * _one_plus_erf(x * ct.type(1.0 / math.sqrt(2.0))) + x * pdf
        res = g * d
        if res.dtype != dt.np:  # rounded to the result dtype first (also under an out= of another dtype)
            res = cast_ready(res, dt.np).astype(dt.np)
        np.copyto(it.out_np, cast_ready(res, it.out_np.dtype), casting="unsafe")
    return it.out


def silu_out(self, out):
    """``x * sigmoid(x)`` (complex inputs too, as in PyTorch)."""
    return _pointwise(self, out, "silu_cpu", lambda x: x / (1 + np.exp(-x)), FLOATING | _COMPLEX)


def _exp32(x):
    """float32 ``exp`` as accurate as PyTorch's vector exp (Sleef u10)."""
    return _libm32(np.exp, x)


def _libm32(f, x):
    """A float32 math function correctly rounded (in double, then to float); other types as is."""
    return f(x.astype(np.float64)).astype(np.float32) if x.dtype == np.float32 else f(x)


def _mul_add(a, b, c):
    """``a * b + c`` rounded once in float32, as the fused multiply-add the compiler makes of PyTorch's vector
    ``+`` and ``*`` (the product is exact in double); other types as is."""
    if a.dtype != np.float32:
        return a * b + c
    return (a.astype(np.float64) * b + c).astype(np.float32)


def _sigmoid(x):
    one = x.dtype.type(1)
    return one / (one + _exp32(-x))


def silu_backward_out(grad_output, self, out=None):
    """``grad * s * (1 + x * (1 - s))`` with ``s = sigmoid(x)``, in the opmath type and rounded once (complex too)."""
    def fn(g, x, ct):
        s = _sigmoid(x)
        one = x.dtype.type(1)
        return g * s * _mul_add(x, one - s, one)
    return _grad_kernel(out, (grad_output, self), "silu_backward_cpu", fn, FLOATING | _COMPLEX)


def mish_backward_kernel(grad_output, self):
    """``grad * (t + x * s * (1 - t * t))`` with ``s = sigmoid(x)`` and ``t = tanh(log1p(exp(x)))``."""
    def fn(g, x, ct):
        one = x.dtype.type(1)
        t = _libm32(np.tanh, _libm32(np.log1p, _exp32(x)))
        return g * _mul_add(x * _sigmoid(x), one - t * t, t)
    # PyTorch's kernel writes a result of the input's dtype (empty({0}, input.options())), cast from the common one
    out = empty_contiguous((0,), self.dtype, self.device)
    return _grad_kernel(out, (grad_output, self), "mish_backward_cpu", fn, cast=True)


def hardswish_backward_out(grad_output, self, out=None):
    """``0`` up to -3, ``grad * (x / 3 + 1/2)`` below 3, ``grad`` from 3 on."""
    def fn(g, x, ct):
        return np.where(x <= -3, ct.type(0), np.where(x < 3, g * (x / ct.type(3) + ct.type(0.5)), g))
    return _grad_kernel(out, (grad_output, self), "hardswish_backward_cpu", fn)


def softplus_out(self, beta, threshold, out):
    """``log(1 + exp(beta * x)) / beta``, or ``x`` itself where ``beta * x > threshold``."""
    def fn(x):
        b, t = _scalar(beta, x.dtype), _scalar(threshold, x.dtype)
        bx = x * b
        return np.where(bx > t, x, np.log1p(np.exp(bx)) / b)
    return _pointwise(self, out, "softplus_cpu", fn)


def tanh_backward_out(grad_output, output, out=None):
    """tanh's derivative from its result: ``grad * (1 - y * y)`` (conjugated for complex, as PyTorch's kernel)."""
    return _grad_kernel(out, (grad_output, output), "tanh_backward_cpu",
                        lambda g, y, ct: g * np.conj(1 - y * y), FLOATING | _COMPLEX)


def sigmoid_backward_out(grad_output, output, out=None):
    """sigmoid's derivative from its result: ``grad * (1 - y) * y`` in that order, ``grad * conj((1 - y) * y)``
    for complex (PyTorch's kernels)."""
    def fn(g, y, ct):
        return g * np.conj((1 - y) * y) if ct.kind == "c" else g * (1 - y) * y
    return _grad_kernel(out, (grad_output, output), "sigmoid_backward_cpu", fn, FLOATING | _COMPLEX, _half_steps)


def _half_steps(dtype) -> np.dtype:
    """sigmoid_backward's compute type: float16 step by step (its kernel has no float opmath for Half, only for
    BFloat16), else the opmath type."""
    return np.dtype(np.float16) if dtype is _dt.float16 else opmath(dtype)


def softplus_backward_out(grad_output, self, beta, threshold, out=None):
    """softplus's derivative: ``grad`` where ``beta * x > threshold``, else ``grad * z / (z + 1)`` with
    ``z = exp(beta * x)`` (the iterator takes grad_output first)."""
    def fn(g, x, ct):
        bx = x * _scalar(beta, ct)
        z = np.exp(bx)
        return np.where(bx > _scalar(threshold, ct), g, g * z / (z + 1))
    return _grad_kernel(out, (grad_output, self), "softplus_backward_cpu", fn)


def elu_out(self, alpha, scale, input_scale, out):
    """``x * scale`` for ``x > 0``, else ``alpha * scale * (exp(x * input_scale) - 1)``."""
    def fn(x):
        a, s, i = _scalar(alpha, x.dtype), _scalar(scale, x.dtype), _scalar(input_scale, x.dtype)
        return np.where(x > 0, x * s, np.expm1(x * i) * (a * s))
    return _pointwise(self, out, "elu_cpu", fn)


def leaky_relu_out(self, negative_slope, out):
    def fn(x):
        return np.where(x > 0, x, x * _scalar(negative_slope, x.dtype))
    return _pointwise(self, out, "leaky_relu_cpu", fn)


def hardsigmoid_out(self, out):
    return _pointwise(self, out, "hardsigmoid_cpu", lambda x: np.minimum(np.maximum(x + 3, 0), 6) / 6)


def hardswish_out(self, out):
    return _pointwise(self, out, "hardswish_cpu", lambda x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6)


def mish_out(self, out):
    """``x * tanh(softplus(x))``."""
    return _pointwise(self, out, "mish_cpu", lambda x: x * np.tanh(np.log1p(np.exp(x))))


def log_sigmoid_forward_out(self, output, buffer):
    """``log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|))``; ``buffer`` keeps ``exp(-|x|)`` for the backward.

    The functional form allocates both row-major whatever the input's layout, as PyTorch's
    ``log_sigmoid_forward_cpu`` (``empty_like(input, MemoryFormat::Contiguous)``); on meta PyTorch's meta function
    keeps the input's layout, as the iterator does."""
    if output is None and buffer is None and self.device.type != "meta":
        output = empty_contiguous(self.sizes, self.dtype, self.device)
        buffer = empty_contiguous(self.sizes, self.dtype, self.device)
    for o in (output, buffer):
        if o is not None and o.dtype is not self.dtype:
            raise RuntimeError(f"expected scalar type {_dt.name_of(self.dtype)} but found {_dt.name_of(o.dtype)}")
    it = build((output, buffer), (self,), check_same_dtype=True)
    dt = it.common_dtype
    if dt not in FLOATING:
        raise not_implemented("log_sigmoid_cpu", dt)
    out, buf = it.outs
    if not it.is_meta and out.numel():
        x = it.ins_np[0].astype(opmath(dt), copy=False)
        with np.errstate(all="ignore"):
            e = np.exp(-np.abs(x))
            np.copyto(out.as_numpy(), np.minimum(x, 0) - np.log1p(e), casting="unsafe")
            np.copyto(buf.as_numpy(), e, casting="unsafe")
    return out, buf


def glu_out(self, dim, out):
    """Gated linear unit: the first half along ``dim`` times the sigmoid of the second half."""
    if self.ndim == 0:
        raise RuntimeError("glu does not support 0-dimensional tensors")
    d = _shape.wrap_dim(dim, self.ndim)
    n = self.sizes[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    half = n // 2
    shape = self.sizes[:d] + (half,) + self.sizes[d + 1:]
    first = self.view_impl(shape, self.strides, self.offset)
    second = self.view_impl(shape, self.strides, self.offset + half * self.strides[d])
    it = build((out,), (first, second))
    dt = it.common_dtype
    if dt not in FLOATING:
        raise not_implemented("glu_cpu", dt)
    if not it.is_meta and it.out.numel():
        ct = opmath(dt)
        a, b = (x.astype(ct, copy=False) for x in it.ins_np)
        with np.errstate(all="ignore"):
            np.copyto(it.out_np, a / (1 + np.exp(-b)), casting="unsafe")
    return it.out


# -- embedding --------------------------------------------------------------------------------------------------
def _check_indices(indices: TensorImpl, fname: str) -> None:
    if indices.dtype not in (_dt.int64, _dt.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {type_string(indices)} instead (while checking arguments for "
                           f"{fname})")


def _lookup_rows(indices: TensorImpl, num: int) -> np.ndarray:
    idx = indices.as_numpy().astype(np.int64).reshape(-1)
    if idx.size and (idx.min() < 0 or idx.max() >= num):
        raise IndexError("index out of range in self")
    return idx


def embedding_kernel(weight, indices, padding_idx, scale_grad_by_freq, sparse):
    """Rows of ``weight`` picked by ``indices``: shape ``indices.shape + (embedding_dim,)``.

    ``padding_idx`` and ``scale_grad_by_freq`` only change the backward; the forward is a plain lookup.
    """
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    _check_indices(indices, "embedding")
    out = empty_contiguous(indices.sizes + (weight.sizes[1],), weight.dtype, weight.device)
    if out.storage._data is None or indices.storage._data is None:
        return out
    idx = _lookup_rows(indices, weight.sizes[0])
    np.copyto(out.as_numpy(), weight.as_numpy()[idx].reshape(out.sizes))
    return out


def embedding_renorm_kernel(self, indices, max_norm, norm_type):
    """Rescale, in place, each row named in ``indices`` whose p-norm exceeds ``max_norm`` to ``max_norm``."""
    if self.ndim != 2:
        raise RuntimeError("'self' must be 2-D")
    _check_indices(indices, "embedding_renorm_")
    if not (self.dtype.is_floating_point or self.dtype.is_complex):
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{_dt.name_of(self.dtype)} instead.")
    if self.storage._data is None or indices.storage._data is None:
        return self
    idx = np.unique(_lookup_rows(indices, self.sizes[0]))
    w = self.as_numpy()
    for i in idx:
        row = w[i].astype(np.float64)
        a = np.abs(row)
        if norm_type == 1:
            norm = a.sum()
        elif norm_type == 2:
            norm = math.sqrt(float((a * a).sum()))
        elif math.isinf(norm_type):
            norm = a.max() if norm_type > 0 else a.min()
        else:
            norm = float((a ** norm_type).sum()) ** (1.0 / norm_type)
        if norm > max_norm:
            scale = max_norm / (norm + 1e-7)
            w[i] = (w[i].astype(opmath(self.dtype)) * opmath(self.dtype).type(scale)).astype(w.dtype)
    return self
