"""CPU kernels of the optimizer operators — PyTorch's ``FusedAdam.cpp`` + ``cpu/FusedAdamKernel.cpp`` and the
slow (per-tensor) paths of ``ForeachOpsKernels.cpp`` that ``torch.optim`` and ``clip_grad_norm_`` call.

The Adam update of one parameter is a single pass over its elements (PyTorch's ``adam_math``), written once in C
(:data:`_C_SOURCE`, compiled by ``glasstorch._cbuild`` into the on-disk cache at the first step) with a numpy
version for machines without a compiler (or with ``GLASSTORCH_DISABLE_CKERNELS=1``). :func:`adam_update` runs
it over a list of parameters in one call; the ``_fused_adam_`` kernels and the eager single-tensor Adam of
``glasstorch.optim`` (its fast path) both use it.

Note [Adam rounding]: measured against torch 2.13's x86 build (compiled with FMA contraction), every one of the
in-place ops of the single-tensor step — ``grad.add(param, alpha=wd)``, ``exp_avg.lerp_``, ``exp_avg_sq.mul_
(beta2).addcmul_(grad, grad, value=1-beta2)`` — rounds as one fused multiply-add, and the fused kernel rounds
the same way in its vectorized body; ``sqrt``, the divisions and the final ``param + (-step_size * m) / denom``
round separately. Only the fused kernel's scalar tail (the last ``numel % (32 / itemsize)`` elements under
AVX2, ``64 / itemsize`` under AVX512) contracts ``exp_avg_sq`` the other way, ``fma(v, beta2, (1-beta2)*g*g)``,
and takes ``std::max`` (NaN-dropping) for amsgrad. ``body`` below is where that tail starts (the numel for the
single-tensor step). The C code calls ``fma`` explicitly and compiles with contraction off, so these choices
are exactly what runs; the numpy fallback rounds each fma through a wider type (float64 for float32, long
double for float64), which is off by an ulp in rare near-ties.

Invariant: the kernels write params, moments (and grads when unscaling) in place and nothing else; version
counters are the caller's business (the dispatcher's ADInplaceOrView layer, or the optimizer's fast path).
"""

from __future__ import annotations

import ctypes
import functools
import math
import threading
import weakref

import numpy as np

from ...._core import dtype as _dt
from ...._device.threads import get_num_threads
from ...._tensor.impl import empty_contiguous
from ....backends.cpu import get_cpu_capability
from . import ckernels as _ckernels
from . import pointwise as _pointwise
from . import reduce as _reduce
from .linalg import is_meta as _is_meta
from .linalg import not_implemented as _not_implemented

__all__ = ["adam_update", "fused_adam_cpu_", "fused_adam_tensor_lr_cpu_", "fused_adamw_cpu_",
           "fused_adamw_tensor_lr_cpu_", "fused_adam_meta_", "fused_adam_tensor_lr_meta_", "fused_adamw_meta_",
           "fused_adamw_tensor_lr_meta_", "foreach_norm_cpu", "foreach_mul_tensor_cpu_", "foreach_add_scalar_cpu_",
           "compiled_available", "reset"]

# flags of the update (the C kernel reads the first three)
_AMSGRAD, _MAXIMIZE, _L2, _DECOUPLED, _SCALE = 1, 2, 4, 8, 16
_FLOAT_DTYPES = (_dt.float32, _dt.float64, _dt.float16, _dt.bfloat16)
# elements per step below which one thread does it all: the update is memory-bound, and waking (and then
# spin-waiting) OpenMP workers costs more than it saves until the moments outgrow the caches
_PARALLEL_MIN = 1 << 21

_C_SOURCE = r"""
#include <math.h>
#include <stdint.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Adam over contiguous elements. k = {sgn (-1 maximize), weight_decay, decay (1 - lr*wd when decoupled, else 1),
   w (1-beta1), w-1, beta2, 1-beta2, bias_correction2_sqrt, eps, -step_size}, cast to T; `small` = |w| < 0.5.
   The maximize sign and the decoupled decay are multiplications by +-1 / 1 when off: exact, so one loop body
   serves; L2 decay and amsgrad pick one of four loops. See Note [Adam rounding] in
   glasstorch/_ops/kernels/cpu/optim.py. */
#define GT_ADAM_BODY(NAME, T, FMA, SQRT, AMS, L2)                                                            \
static void NAME(T* restrict p, const T* restrict g, T* restrict m, T* restrict v, T* restrict vmax,          \
                 int64_t n, const T* k, int small) {                                                          \
    const T sgn = k[0], wd = k[1], decay = k[2], w = k[3], wm1 = k[4], b2 = k[5], c2 = k[6], bs = k[7];       \
    const T eps = k[8], nss = k[9];                                                                           \
    for (int64_t i = 0; i < n; i++) {                                                                         \
        T gi = g[i] * sgn;                                                                                    \
        T pi = p[i];                                                                                          \
        if (L2) gi = FMA(pi, wd, gi);                                                                         \
        pi = pi * decay;                                                                                      \
        const T mi0 = m[i];                                                                                   \
        const T mi = FMA(small ? w : wm1, gi - mi0, small ? mi0 : gi);                                        \
        const T vi = FMA(c2 * gi, gi, v[i] * b2);                                                             \
        m[i] = mi;                                                                                            \
        v[i] = vi;                                                                                            \
        T s = vi;                                                                                             \
        if (AMS) {                                                                                            \
            const T mx = vmax[i];                                                                             \
            s = (mx != mx) ? mx : ((vi != vi) ? vi : (mx > vi ? mx : vi));                                    \
            vmax[i] = s;                                                                                      \
        }                                                                                                     \
        p[i] = pi + (nss * mi) / (SQRT(s) / bs + eps);                                                        \
    }                                                                                                         \
}

/* The fused kernel's scalar tail: exp_avg_sq = fma(v, beta2, (1-beta2)*g*g), amsgrad through std::max. */
#define GT_ADAM_TAIL(NAME, T, FMA, SQRT)                                                                     \
static void NAME(T* restrict p, const T* restrict g, T* restrict m, T* restrict v, T* restrict vmax,          \
                 int64_t n, const T* k, int small, int ams, int l2) {                                         \
    for (int64_t i = 0; i < n; i++) {                                                                         \
        T gi = g[i] * k[0];                                                                                   \
        T pi = p[i];                                                                                          \
        if (l2) gi = FMA(pi, k[1], gi);                                                                       \
        pi = pi * k[2];                                                                                       \
        const T mi0 = m[i];                                                                                   \
        const T mi = small ? FMA(k[3], gi - mi0, mi0) : FMA(k[4], gi - mi0, gi);                              \
        const T vi = FMA(v[i], k[5], k[6] * gi * gi);                                                         \
        m[i] = mi;                                                                                            \
        v[i] = vi;                                                                                            \
        T s = vi;                                                                                             \
        if (ams) {                                                                                            \
            s = (vmax[i] < vi) ? vi : vmax[i];                                                                \
            vmax[i] = s;                                                                                      \
        }                                                                                                     \
        p[i] = pi + (k[9] * mi) / (SQRT(s) / k[7] + k[8]);                                                    \
    }                                                                                                         \
}

/* ptrs: 5 addresses per tensor (param, grad, exp_avg, exp_avg_sq, max_exp_avg_sq or 0); sizes: numel and
   where the tail starts; coefs: -step_size and bias_correction2_sqrt per tensor; hp: beta1, beta2,
   weight_decay, eps, decay; flags: 1 amsgrad, 2 maximize, 4 L2 decay. gscale: unscale the grads first (in
   place). Tensors are independent, so threads take whole tensors. */
#define GT_ADAM_LIST(NAME, T, B00, B01, B10, B11, TAIL)                                                      \
void NAME(int64_t nt, const int64_t* ptrs, const int64_t* sizes, const double* coefs, const double* hp,      \
          int flags, const float* gscale, int nthreads) {                                                     \
    const int ams = flags & 1, l2 = (flags & 4) != 0;                                                         \
    const T w = (T)(1.0 - hp[0]);                                                                             \
    const int small = fabs((double)w) < 0.5;                                                                  \
    _Pragma("omp parallel for schedule(dynamic, 1) num_threads(nthreads) if(nthreads > 1)")                   \
    for (int64_t t = 0; t < nt; t++) {                                                                        \
        const int64_t* q = ptrs + 5 * t;                                                                      \
        T *p = (T*)q[0], *g = (T*)q[1], *m = (T*)q[2], *v = (T*)q[3], *x = (T*)q[4];                          \
        const int64_t n = sizes[2 * t], body = sizes[2 * t + 1];                                              \
        const T k[10] = {(flags & 2) ? (T)-1 : (T)1, (T)hp[2], (T)hp[4], w, w - (T)1, (T)hp[1],              \
                         (T)(1.0 - hp[1]), (T)coefs[2 * t + 1], (T)hp[3], (T)coefs[2 * t]};                   \
        if (gscale) {                                                                                         \
            const T gs = (T)(*gscale);                                                                        \
            for (int64_t i = 0; i < n; i++) g[i] = g[i] / gs;                                                 \
        }                                                                                                     \
        if (ams) { if (l2) B11(p, g, m, v, x, body, k, small); else B10(p, g, m, v, x, body, k, small); }    \
        else { if (l2) B01(p, g, m, v, x, body, k, small); else B00(p, g, m, v, x, body, k, small); }        \
        if (body < n)                                                                                         \
            TAIL(p + body, g + body, m + body, v + body, x ? x + body : x, n - body, k, small, ams, l2);     \
    }                                                                                                         \
}

GT_ADAM_BODY(body_f00, float, fmaf, sqrtf, 0, 0)
GT_ADAM_BODY(body_f01, float, fmaf, sqrtf, 0, 1)
GT_ADAM_BODY(body_f10, float, fmaf, sqrtf, 1, 0)
GT_ADAM_BODY(body_f11, float, fmaf, sqrtf, 1, 1)
GT_ADAM_BODY(body_d00, double, fma, sqrt, 0, 0)
GT_ADAM_BODY(body_d01, double, fma, sqrt, 0, 1)
GT_ADAM_BODY(body_d10, double, fma, sqrt, 1, 0)
GT_ADAM_BODY(body_d11, double, fma, sqrt, 1, 1)
GT_ADAM_TAIL(tail_f, float, fmaf, sqrtf)
GT_ADAM_TAIL(tail_d, double, fma, sqrt)
GT_ADAM_LIST(gt_adam_f32, float, body_f00, body_f01, body_f10, body_f11, tail_f)
GT_ADAM_LIST(gt_adam_f64, double, body_d00, body_d01, body_d10, body_d11, tail_d)
"""

_state: dict = {"lib": None, "tried": False}
_fns: dict = {}
_lock = threading.Lock()


def _load():
    """Compile/load the Adam library once; None (numpy from then on) when disabled or impossible."""
    with _lock:
        if _state["tried"]:
            return _state["lib"]
        try:  # "tried" only once bound: another thread waits on the lock instead of seeing a half-loaded table
            lib = _ckernels.compile_library(_C_SOURCE, "optim")
            if lib is None:
                return None
            vp, i64, i32 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int
            for dt, name in ((_dt.float32, "gt_adam_f32"), (_dt.float64, "gt_adam_f64")):
                fn = getattr(lib, name)
                fn.argtypes = (i64, vp, vp, vp, vp, i32, vp, i32)
                fn.restype = None
                _fns[dt] = fn
            _state["lib"] = lib
            return lib
        finally:
            _state["tried"] = True


def compiled_available() -> bool:
    """Whether the compiled Adam loop is in use (compiles/loads it on first call)."""
    return (_state["lib"] if _state["tried"] else _load()) is not None


def reset() -> None:
    """Forget the loaded library so the next step re-reads ``GLASSTORCH_DISABLE_CKERNELS`` (for tests)."""
    with _lock:
        _state["lib"] = None
        _state["tried"] = False
        _fns.clear()


# -- the update ----------------------------------------------------------------------------------------------
@functools.cache
def _vec_elems(dtype) -> int:
    """Elements per SIMD vector of PyTorch's dispatch on this CPU: where the fused kernel's scalar tail starts."""
    width = {"AVX512": 64, "AVX2": 32}.get(get_cpu_capability(), 16)
    return max(width // dtype.itemsize, 1)


def _compiled_ok(dtype, group) -> bool:
    if dtype is not _dt.float32 and dtype is not _dt.float64:
        return False
    for t in group:
        if t is not None and (t.dtype is not dtype or not t.is_contiguous()):
            return False
    return True


def adam_update(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, *, lr, beta1, beta2, weight_decay,
                eps, amsgrad, maximize, decoupled, fused, grad_scale=None, checked=False) -> None:
    """One Adam/AdamW step of every parameter (TensorImpls; ``steps`` the already incremented step numbers).

    ``fused`` picks the fused kernel's bias-correction arithmetic and scalar tail, else the single-tensor
    step's (Note [Adam rounding]); ``grad_scale`` (a float) divides the grads in place first. ``checked``: the
    caller vouches that every tensor is contiguous float32/float64 of its param's dtype and sizes.
    """
    decay = 1.0 - lr * weight_decay if decoupled and weight_decay != 0 else 1.0  # the C loop always multiplies
    hp = (beta1, beta2, weight_decay, eps, decay)
    flags = (_AMSGRAD if amsgrad else 0) | (_MAXIMIZE if maximize else 0) | (_SCALE if grad_scale is not None else 0)
    if weight_decay != 0:
        flags |= _DECOUPLED if decoupled else _L2
    lib = _state["lib"] if _state["tried"] else _load()
    compiled: dict = {}
    for i, p in enumerate(params):
        bc1 = 1 - beta1 ** steps[i]
        bc2 = 1 - beta2 ** steps[i]
        neg_ss = -(lr / bc1)
        bc2s = math.sqrt(bc2) if fused else bc2 ** 0.5
        n = p.numel()
        body = n - n % _vec_elems(p.dtype) if fused else n
        vmax = max_exp_avg_sqs[i] if amsgrad else None
        group = (p, grads[i], exp_avgs[i], exp_avg_sqs[i], vmax)
        if lib is not None and (checked or _compiled_ok(p.dtype, group)):
            compiled.setdefault(p.dtype, []).append((group, n, body, neg_ss, bc2s))
        else:
            _adam_numpy(group, body, hp, neg_ss, bc2s, flags, grad_scale)
    for dtype, items in compiled.items():
        _adam_compiled(dtype, items, hp, flags, grad_scale)


# TensorImpl -> (storage buffer, offset, address): a buffer's address costs microseconds to ask numpy for, and
# params and moments are the same tensors step after step
_addresses: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _address(t) -> int:
    if t is None:
        return 0
    data = t.storage._data
    hit = _addresses.get(t)
    if hit is not None and hit[0] is data and hit[1] == t.offset:
        return hit[2]
    addr = t.storage._ptr + t.offset * t.dtype.itemsize
    _addresses[t] = (data, t.offset, addr)
    return addr


def _adam_compiled(dtype, items, hp, flags, grad_scale) -> None:
    nt = len(items)
    ptrs, sizes, coefs = [], [], []
    total = 0
    for group, n, body, neg_ss, bc2s in items:
        ptrs += [_address(t) for t in group]
        sizes += (n, body)
        coefs += (neg_ss, bc2s)
        total += n
    ptrs = np.array(ptrs, np.int64)
    sizes = np.array(sizes, np.int64)
    coefs = np.array(coefs, np.float64)
    hp_arr = np.asarray(hp, np.float64)
    gs = np.asarray([grad_scale], np.float32) if grad_scale is not None else None
    parallel = total >= _PARALLEL_MIN and nt > 1 and len(set(ptrs[0::5])) == nt  # a param listed twice: in order
    nthreads = get_num_threads() if parallel else 1
    _fns[dtype](nt, ptrs.ctypes.data, sizes.ctypes.data, coefs.ctypes.data, hp_arr.ctypes.data, flags,
                None if gs is None else gs.ctypes.data, nthreads)


def _fma(x, y, z, wide, c):
    """``x * y + z`` rounded (nearly always) once to ``c``: computed in the wider type ``wide``."""
    return np.add(np.multiply(x, y, dtype=wide), z, dtype=wide).astype(c)


def _adam_numpy(group, body, hp, neg_ss, bc2s, flags, grad_scale) -> None:
    """The same step with numpy ufuncs, in opmath (float32 for the reduced floats), any strides."""
    p_t, g_t, m_t, v_t, vmax_t = group
    if p_t.numel() == 0:
        return
    P, G, M, V = (t.as_numpy() for t in (p_t, g_t, m_t, v_t))
    c = np.float64 if p_t.dtype is _dt.float64 else np.float32
    wide = np.longdouble if c is np.float64 else np.float64
    beta1, beta2, wd, eps, decay = hp
    with np.errstate(all="ignore"):
        g = G.astype(c)
        if flags & _SCALE:
            g = g / c(grad_scale)
            G[...] = g
        if flags & _MAXIMIZE:
            g = -g
        p = P.astype(c)
        if flags & _L2:
            g = _fma(p, c(wd), g, wide, c)
        elif flags & _DECOUPLED:
            p = p * c(decay)
        m = M.astype(c)
        w = c(1.0 - beta1)
        d = g - m
        m = _fma(w, d, m, wide, c) if abs(w) < 0.5 else _fma(w - c(1), d, g, wide, c)
        v = V.astype(c)
        cg = c(1.0 - beta2) * g
        new_v = _fma(cg, g, v * c(beta2), wide, c)
        tail = p.size > body and p_t.is_contiguous()
        if tail:  # the fused kernel's scalar tail (Note [Adam rounding])
            new_v.reshape(-1)[body:] = _fma(v.reshape(-1)[body:], c(beta2), (cg * g).reshape(-1)[body:], wide, c)
        M[...], V[...] = m, new_v
        s = new_v
        if flags & _AMSGRAD:
            X = vmax_t.as_numpy()
            s = np.maximum(X.astype(c), new_v)
            if tail:
                xs = X.astype(c).reshape(-1)[body:]
                vs = new_v.reshape(-1)[body:]
                s.reshape(-1)[body:] = np.where(xs < vs, vs, xs)
            X[...] = s
        denom = np.sqrt(s) / c(bc2s) + c(eps)
        P[...] = p + (c(neg_ss) * m) / denom


# -- _fused_adam_ / _fused_adamw_ ----------------------------------------------------------------------------
def _check(cond: bool, text: str) -> None:
    if not cond:
        raise RuntimeError(f"Expected {text} to be true, but got false.  (Could this error message be improved?  "
                           f"If so, please report an enhancement request to PyTorch.)")


def _float_ptr_value(t):
    """``t->data_ptr<float>()[0]`` with PyTorch's dtype check."""
    if t.dtype is not _dt.float32:
        raise RuntimeError(f"expected scalar type Float but found {t.dtype._short}")
    return None if _is_meta(t) else float(t.as_numpy().reshape(-1)[0])


def _lr_value(lr) -> float:
    n = lr.numel()
    if n != 1:
        raise RuntimeError(f"a Tensor with {n} elements cannot be converted to Scalar")
    return float(lr.as_numpy().reshape(-1)[0])


def _fused(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr, beta1, beta2, weight_decay,
           eps, amsgrad, maximize, grad_scale, found_inf, decoupled, meta=False) -> None:
    scale = _float_ptr_value(grad_scale) if grad_scale is not None else None
    inf = _float_ptr_value(found_inf) if found_inf is not None else None
    if inf == 1.0:
        return
    n = len(params)
    _check(len(grads) == n, "grads.size() == n_tensors")
    _check(len(exp_avgs) == n, "exp_avgs.size() == n_tensors")
    _check(len(exp_avg_sqs) == n, "exp_avg_sqs.size() == n_tensors")
    if amsgrad:
        _check(len(max_exp_avg_sqs) == n, "max_exp_avg_sqs.size() == n_tensors")
    else:
        _check(len(max_exp_avg_sqs) == 0, "max_exp_avg_sqs.empty()")
    _check(len(state_steps) == n, "state_steps.size() == n_tensors")
    for i, p in enumerate(params):
        if p.dtype not in _FLOAT_DTYPES:
            raise _not_implemented("fused_adam_kernel", p.dtype)
        for t in (exp_avgs[i], exp_avg_sqs[i], max_exp_avg_sqs[i] if amsgrad else p, grads[i]):  # data_ptr<T>()
            if t.dtype is not p.dtype:
                raise RuntimeError(f"expected scalar type {p.dtype._short} but found {t.dtype._short}")
    if meta or _is_meta(*params):
        return
    steps = [float(np.float32(s.as_numpy().reshape(-1)[0])) for s in state_steps]  # state_step.item<float>()
    adam_update(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr=lr, beta1=beta1, beta2=beta2,
                weight_decay=weight_decay, eps=eps, amsgrad=amsgrad, maximize=maximize, decoupled=decoupled,
                fused=True, grad_scale=scale)


def fused_adam_cpu_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr, beta1, beta2,
                    weight_decay, eps, amsgrad, maximize, grad_scale=None, found_inf=None):
    _fused(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr, beta1, beta2, weight_decay, eps,
           amsgrad, maximize, grad_scale, found_inf, False)


def fused_adam_tensor_lr_cpu_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr, beta1, beta2,
                              weight_decay, eps, amsgrad, maximize, grad_scale=None, found_inf=None):
    _fused(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, _lr_value(lr), beta1, beta2,
           weight_decay, eps, amsgrad, maximize, grad_scale, found_inf, False)


def fused_adamw_cpu_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr, beta1, beta2,
                     weight_decay, eps, amsgrad, maximize, grad_scale=None, found_inf=None):
    _fused(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr, beta1, beta2, weight_decay, eps,
           amsgrad, maximize, grad_scale, found_inf, True)


def fused_adamw_tensor_lr_cpu_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr, beta1,
                               beta2, weight_decay, eps, amsgrad, maximize, grad_scale=None, found_inf=None):
    _fused(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, _lr_value(lr), beta1, beta2,
           weight_decay, eps, amsgrad, maximize, grad_scale, found_inf, True)


def _fused_meta(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, amsgrad):
    _check(len(grads) == len(self), "grads.size() == n_tensors")
    _check(len(exp_avgs) == len(self), "exp_avgs.size() == n_tensors")
    _check(len(exp_avg_sqs) == len(self), "exp_avg_sqs.size() == n_tensors")
    _check(len(max_exp_avg_sqs) == (len(self) if amsgrad else 0),
           "max_exp_avg_sqs.size() == n_tensors" if amsgrad else "max_exp_avg_sqs.empty()")
    _check(len(state_steps) == len(self), "state_steps.size() == n_tensors")


def fused_adam_meta_(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, lr, beta1, beta2,
                     weight_decay, eps, amsgrad, maximize, grad_scale=None, found_inf=None):
    _fused_meta(self, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, amsgrad)


fused_adam_tensor_lr_meta_ = fused_adamw_meta_ = fused_adamw_tensor_lr_meta_ = fused_adam_meta_


# -- foreach ops ---------------------------------------------------------------------------------------------
def _check_list(tensors) -> None:
    if len(tensors) == 0:
        raise RuntimeError("Tensor list must have at least one tensor.")


def foreach_norm_cpu(self, ord=2, dtype=None):  # noqa: A002 - PyTorch's argument name
    """``[linalg.vector_norm(t, ord, dtype=dtype) for t in self]`` (PyTorch's ``foreach_tensor_norm_slow``)."""
    _check_list(self)
    p = float(ord)
    if p == math.inf and any(t.numel() == 0 for t in self):
        raise RuntimeError("_foreach_norm cannot compute the infinity norm on an empty tensor because the "
                           "operation does not have an identity")
    if p == 2.0 and dtype is None:
        return [_norm2(t) for t in self]
    return [_reduce.linalg_vector_norm_out(t, ord, None, False, dtype, None) for t in self]


def _norm2(t):
    """The 2-norm of a whole tensor: for contiguous float32/float64 CPU data the very computation of
    ``linalg_vector_norm_out`` (``sqrt(dot(x, x))`` in the tensor's dtype) without its argument handling."""
    if (t.dtype is not _dt.float32 and t.dtype is not _dt.float64) or t.storage._data is None \
            or t.device.type != "cpu" or not t.is_contiguous():
        return _reduce.linalg_vector_norm_out(t, 2, None, False, None, None)
    flat = t.as_numpy().reshape(-1)
    out = empty_contiguous((), t.dtype, t.device)
    out.as_numpy()[()] = np.sqrt(np.dot(flat, flat))  # a sum of squares is never negative: no warning to hide
    return out


def _fast_scalar(t, other) -> bool:
    return (t.dtype is other.dtype and (t.dtype is _dt.float32 or t.dtype is _dt.float64)
            and t.storage._data is not None and other.storage._data is not None)


def foreach_mul_tensor_cpu_(self, other):
    """``t.mul_(other)`` for each ``t`` (``other`` a 0-dim tensor)."""
    _check_list(self)
    if other.ndim != 0:
        raise RuntimeError(f"scalar tensor expected to be 0 dim but it has {other.ndim} dimensions and "
                           f"{other.numel()} elements.")
    for t in self:
        if _fast_scalar(t, other) and other.device.type == "cpu":
            a = t.as_numpy()
            with np.errstate(all="ignore"):
                np.multiply(a, other.as_numpy()[()], out=a)
        else:
            _pointwise.mul_out(t, other, t)


def foreach_add_scalar_cpu_(self, scalar):
    """``t.add_(scalar)`` for each ``t``."""
    _check_list(self)
    for t in self:
        if (t.dtype is _dt.float32 or t.dtype is _dt.float64) and t.storage._data is not None \
                and isinstance(scalar, (int, float)) and not isinstance(scalar, bool):
            a = t.as_numpy()
            np.add(a, t.dtype.np.type(scalar), out=a)
        else:
            _pointwise.add_out(t, scalar, 1, t)
