"""Direct 3-d convolution in C: the forward of ``conv3d`` for float32/float64 without an im2col buffer.

PyTorch hands CPU 3-d convolutions to oneDNN's direct kernels (or ``slow_conv3d``: vol2col + one GEMM).  numpy
has neither: the shifted-GEMM path of ``conv.py`` runs one BLAS GEMM per kernel offset with ``C`` as its inner
dimension, which for the few channels of a 3-d convolution is a memory-bound pass per offset.  This loop
computes a tile of 16 output channels x 16 output columns (8 for float64) in registers, running over input
channels and kernel offsets, with the weight repacked so the 16 channels' values of one offset are adjacent
(broadcast + FMA).

The input arrives zero-padded (``np.pad``) and C-contiguous; weight packing is done in numpy.  Sums run over
(input channel, kd, kh, kw) in that order with fused multiply-adds, as oneDNN's and BLAS's kernels do: results
agree with PyTorch's up to rounding, never bit for bit (neither does the GEMM path).

Invariant: :func:`conv3d_forward` returns None (nothing computed) when the library is unavailable (no
compiler, ``GLASSTORCH_DISABLE_CKERNELS=1``) or the dtype is not float32/float64; the caller uses numpy then.
"""

from __future__ import annotations

import ctypes

import numpy as np

from ...._device.threads import get_num_threads
from . import ckernels as _ckernels

__all__ = ["conv3d_forward", "col2im_add"]

_OB = 16  # output channels per tile (GT_OB)

_C_SOURCE = r"""
#include <stdint.h>
#include <string.h>
#pragma GCC optimize("fp-contract=fast")  /* FMA, as oneDNN and BLAS */
#define GT_OB 16

/* One tile: acc[ob][t] = sum_{c,kd,kh,kw} wp[c,kd,kh,kw,ob] * x[c, d0+kd*dd, h0+kh*dh, w0+t*sw+kw*dw].
   x points at (c=0, d0, h0, w0) of the padded image; xc/xd/xh are its element strides.  V holds TW lanes. */
#define GT_TILE(NAME, T, V, TW) \
static inline void NAME(const T *x, int64_t xc, int64_t xd, int64_t xh, int64_t sw, const T *wp, \
                        int64_t cg, int64_t kd_n, int64_t kh_n, int64_t kw_n, int64_t dd, int64_t dh, \
                        int64_t dw, T *res, int64_t res_stride, int64_t on, int64_t tw) { \
    V acc[GT_OB]; \
    for (int ob = 0; ob < GT_OB; ob++) acc[ob] = (V){0}; \
    for (int64_t c = 0; c < cg; c++) \
        for (int64_t kd = 0; kd < kd_n; kd++) \
            for (int64_t kh = 0; kh < kh_n; kh++) { \
                const T *xr = x + c * xc + kd * dd * xd + kh * dh * xh; \
                for (int64_t kw = 0; kw < kw_n; kw++, wp += GT_OB) { \
                    const T *xi = xr + kw * dw; \
                    V xv; \
                    if (sw == 1 && tw == TW) memcpy(&xv, xi, sizeof(V)); \
                    else { \
                        T tmp[TW] = {0}; \
                        for (int64_t t = 0; t < tw; t++) tmp[t] = xi[t * sw]; \
                        memcpy(&xv, tmp, sizeof(V)); \
                    } \
                    for (int ob = 0; ob < GT_OB; ob++) acc[ob] += wp[ob] * xv; \
                } \
            } \
    for (int64_t ob = 0; ob < on; ob++) memcpy(res + ob * res_stride, &acc[ob], tw * sizeof(T)); \
}

#define GT_CONV3D(NAME, T, TW) \
typedef T NAME##_vec __attribute__((vector_size(TW * sizeof(T)))); \
GT_TILE(NAME##_tile, T, NAME##_vec, TW) \
void NAME(const T *x, int64_t n_img, int64_t c_in, int64_t d_in, int64_t h_in, int64_t w_in, \
          const T *wp, int64_t o_n, int64_t groups, int64_t kd_n, int64_t kh_n, int64_t kw_n, \
          int64_t sd, int64_t sh, int64_t sw, int64_t dd, int64_t dh, int64_t dw, \
          T *out, int64_t od_n, int64_t oh_n, int64_t ow_n, int nthreads) { \
    const int64_t cg = c_in / groups, og = o_n / groups, nob = (og + GT_OB - 1) / GT_OB; \
    const int64_t xh = w_in, xd = h_in * w_in, xc = d_in * xd; \
    const int64_t wblk = cg * kd_n * kh_n * kw_n * GT_OB; \
    const int64_t osp = od_n * oh_n * ow_n; \
    const int64_t jobs = n_img * groups * nob * od_n; \
    _Pragma("omp parallel for num_threads(nthreads) schedule(static) if(nthreads > 1 && jobs > 1)") \
    for (int64_t job = 0; job < jobs; job++) { \
        int64_t od = job % od_n, r = job / od_n; \
        const int64_t b = r % nob; r /= nob; \
        const int64_t g = r % groups, n = r / groups; \
        const T *wb = wp + (g * nob + b) * wblk; \
        const int64_t o0 = g * og + b * GT_OB; \
        const int64_t on = og - b * GT_OB < GT_OB ? og - b * GT_OB : GT_OB; \
        const T *xg = x + (n * c_in + g * cg) * xc + od * sd * xd; \
        T *ob0 = out + (n * o_n + o0) * osp + od * oh_n * ow_n; \
        for (int64_t oh = 0; oh < oh_n; oh++) \
            for (int64_t w0 = 0; w0 < ow_n; w0 += TW) { \
                const int64_t tw = ow_n - w0 < TW ? ow_n - w0 : TW; \
                const T *xt = xg + oh * sh * xh + w0 * sw; \
                NAME##_tile(xt, xc, xd, xh, sw, wb, cg, kd_n, kh_n, kw_n, dd, dh, dw, ob0 + oh * ow_n + w0, osp, \
                            on, tw); \
            } \
    } \
}
GT_CONV3D(gt_conv3d_direct_f, float, 16)
GT_CONV3D(gt_conv3d_direct_d, double, 8)

/* col2im of a transposed convolution: full[b, o, i*s + k*d] += cols[b, i, o, k] (3 spatial dims, b = group x
   image), kernel offsets outer and input pixels inner, as the numpy loop over offsets adds them. */
#define GT_COL2IM(NAME, T) \
void NAME(const T *cols, int64_t nb, int64_t og, int64_t i0, int64_t i1, int64_t i2, int64_t k0, int64_t k1, \
          int64_t k2, int64_t s0, int64_t s1, int64_t s2, int64_t d0, int64_t d1, int64_t d2, T *full, \
          int64_t f0, int64_t f1, int64_t f2) { \
    const int64_t kp = k0 * k1 * k2, pix = i0 * i1 * i2, fsp = f0 * f1 * f2; \
    for (int64_t b = 0; b < nb; b++) \
        for (int64_t o = 0; o < og; o++) { \
            T *fo = full + (b * og + o) * fsp; \
            const T *co = cols + b * pix * og * kp + o * kp; \
            for (int64_t a = 0; a < k0; a++) for (int64_t e = 0; e < k1; e++) for (int64_t c = 0; c < k2; c++) { \
                const int64_t k = (a * k1 + e) * k2 + c; \
                for (int64_t p = 0; p < i0; p++) for (int64_t q = 0; q < i1; q++) { \
                    T *fr = fo + ((p * s0 + a * d0) * f1 + q * s1 + e * d1) * f2 + c * d2; \
                    const T *cr = co + ((p * i1 + q) * i2) * og * kp + k; \
                    for (int64_t r = 0; r < i2; r++) fr[r * s2] += cr[r * og * kp]; \
                } \
            } \
        } \
}
GT_COL2IM(gt_col2im_f, float)
GT_COL2IM(gt_col2im_d, double)
"""

def _bind(lib) -> dict:
    vp, i64 = ctypes.c_void_p, ctypes.c_int64
    fns = {}
    for ch, dt in (("f", np.float32), ("d", np.float64)):
        fn = getattr(lib, f"gt_conv3d_direct_{ch}")
        fn.argtypes = (vp,) + (i64,) * 5 + (vp,) + (i64,) * 11 + (vp, i64, i64, i64, ctypes.c_int)
        fn.restype = None
        fns[np.dtype(dt)] = fn
        fn = getattr(lib, f"gt_col2im_{ch}")
        fn.argtypes = (vp,) + (i64,) * 14 + (vp, i64, i64, i64)
        fn.restype = None
        fns[("col2im", np.dtype(dt))] = fn
    return fns


_fns = _ckernels.LazyTable(_C_SOURCE, "conv_direct", _bind)


def _pack_weight(w: np.ndarray, groups: int) -> np.ndarray:
    """(O, C/g, KD, KH, KW) -> (g, ceil(O/g / 16), C/g, KD, KH, KW, 16), zero-filled past O/g."""
    o = w.shape[0]
    og = o // groups
    nob = -(-og // _OB)
    wg = w.reshape((groups, og) + w.shape[1:])
    if nob * _OB != og:
        wg = np.concatenate([wg, np.zeros((groups, nob * _OB - og) + w.shape[1:], w.dtype)], axis=1)
    wg = wg.reshape((groups, nob, _OB) + w.shape[1:])
    return np.ascontiguousarray(np.moveaxis(wg, 2, -1))


def conv3d_forward(x: np.ndarray, w: np.ndarray, stride, padding, dilation, groups, out_sp):
    """(N, C, D, H, W) * (O, C/g, KD, KH, KW) -> (N, O, *out_sp) in ``x``'s dtype, or None when C cannot run it
    (``x`` and ``w`` must share a float32/float64 dtype)."""
    fn = _fns.get(x.dtype)
    if fn is None or w.dtype != x.dtype:
        return None
    if any(padding):
        x = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    x = np.ascontiguousarray(x)
    wp = _pack_weight(w, groups)
    n, c = x.shape[:2]
    o = w.shape[0]
    out = np.empty((n, o) + tuple(out_sp), x.dtype)
    fn(x.ctypes.data, n, c, *x.shape[2:], wp.ctypes.data, o, groups, *w.shape[2:], *stride, *dilation,
       out.ctypes.data, *out_sp, get_num_threads())
    return out


def col2im_add(cols: np.ndarray, full: np.ndarray, stride, dilation) -> bool:
    """``full[b, o, i * stride + k * dilation] += cols[b, i, o, k]`` for C-contiguous ``cols`` (B, *in, O, *K)
    and ``full`` (B, O, *full) of one float32/float64 dtype, 1 to 3 spatial dims; False (nothing written) when
    C cannot run it."""
    fn = _fns.get(("col2im", cols.dtype))
    nd = full.ndim - 2
    if fn is None or full.dtype != cols.dtype or not 1 <= nd <= 3 or not (
            cols.flags.c_contiguous and full.flags.c_contiguous):
        return False
    lead = (1,) * (3 - nd)
    in_sp, ks = lead + cols.shape[1:1 + nd], lead + cols.shape[2 + nd:]
    fn(cols.ctypes.data, full.shape[0], full.shape[1], *in_sp, *ks, *(lead + tuple(stride)),
       *(lead + tuple(dilation)), full.ctypes.data, *(lead + full.shape[2:]))
    return True
