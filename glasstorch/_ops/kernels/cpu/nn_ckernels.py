"""Compiled loops of the nn kernels that numpy runs far below memory speed: ``pdist``'s pair reductions, the 3-d and
adaptive max/average pools, and the tap sums of upsampling — PyTorch's ``cpu/DistanceOpsKernel.cpp``,
``cpu/MaxPoolKernel.cpp``, ``cpu/AvgPoolKernel.cpp``, ``cpu/AdaptiveMaxPoolKernel.cpp`` and ``cpu/UpSampleKernel.cpp``.

One C library (:data:`_C_SOURCE`, compiled once by ``glasstorch._cbuild`` through ``ckernels.compile_library``)
with float32 and float64 versions of each loop; every entry point returns False when the caller must keep its numpy
path (another dtype or layout, no compiler, ``GLASSTORCH_DISABLE_CKERNELS=1``).

Note [pdist's lane order]: ``_pdist_forward`` reduces each pair with ``vec::map2_reduce_all`` over one
``Vectorized`` register of accumulators (8 floats / 4 doubles: the kernel has no AVX-512 registration, so AVX2's
width runs on AVX-512 machines too): lane ``l`` adds the features ``l, l + W, l + 2W, ...``, the last partial
register only into its first lanes, then the register is folded — float32 as a tree (``l + (l ^ 4)``, ``^ 2``,
``^ 1``: AVX2's shuffles), float64 and the generic build lane after lane; rows shorter than ``W`` add feature after
feature.  The multiply and add round separately (no fma).  Measured bit-identical to torch 2.13 for p = 0, 1, 2, inf;
other p take libm's ``pow`` where torch has SLEEF's (both within 1 ulp).

The pools scan each window in PyTorch's order (depth, then height, then width): max keeps the first maximum and any
NaN replaces it; average adds the in-bounds elements in the tensor's dtype, then divides once.  Linear and cubic
upsampling apply one dim at a time, the last first (``resample.apply_taps``'s order): ``x0 * w0`` then
``+= x_t * w_t`` per tap; nearest upsampling gathers every dim in one pass.

Invariant: every loop reads C-contiguous inputs and writes C-contiguous outputs it is given, nothing else; the same
elements in the same order as the numpy path, so results are bit-identical to it.
"""

from __future__ import annotations

import ctypes

import numpy as np

from ...._device.threads import get_num_threads
from ....backends.cpu import get_cpu_capability
from . import ckernels as _ckernels

__all__ = ["pdist", "max_pool", "adaptive_max_pool", "avg_pool", "apply_taps", "gather", "available"]

_C_SOURCE = r"""
#include <math.h>
#include <stdint.h>
#include <string.h>

/* one AVX2 register of lanes as GCC/clang vector types (any x86-64 build lowers them to what it has) */
typedef float gt_vf __attribute__((vector_size(32)));
typedef int32_t gt_vfi __attribute__((vector_size(32)));
typedef double gt_vd __attribute__((vector_size(32)));
typedef int64_t gt_vdi __attribute__((vector_size(32)));

#define GT_VEC_OPS(S, T, VT, VI, W, ABSMASK)                                                                        \
static inline VT gt_load_##S(const T *p) { VT v; memcpy(&v, p, sizeof v); return v; }                             \
static inline VT gt_sel_##S(VI m, VT a, VT b) { return (VT)((m & (VI)a) | (~m & (VI)b)); }                        \
static inline VT gt_vabs_##S(VT v) { return (VT)((VI)v & (ABSMASK)); }                                             \
static inline T gt_maxnan_##S(T a, T b) { return (a > b || a != a) ? a : b; }                                     \
static inline VT gt_vmaxnan_##S(VT a, VT b) { return gt_sel_##S((a > b) | (a != a), a, b); }                      \
static inline T gt_zero_##S(T d) { return d > 0 ? 1 : d; }                                                       \
static inline VT gt_vzero_##S(VT d) { return gt_sel_##S(d > 0, (VT){0} + 1, d); }
GT_VEC_OPS(f, float, gt_vf, gt_vfi, 8, (int32_t)0x7fffffff)
GT_VEC_OPS(d, double, gt_vd, gt_vdi, 4, (int64_t)0x7fffffffffffffffLL)

static inline gt_vf gt_vpow_f(gt_vf d, float p) { for (int l = 0; l < 8; l++) d[l] = powf(d[l], p); return d; }
static inline gt_vd gt_vpow_d(gt_vd d, double p) { for (int l = 0; l < 4; l++) d[l] = pow(d[l], p); return d; }

#define GT_ADD(a, b) ((a) + (b))
#define GT_ID(d, p) (d)
#define GT_SQ(d, p) ((d) * (d))
#define GT_ZERO_f(d, p) gt_zero_f(d)
#define GT_ZERO_d(d, p) gt_zero_d(d)
#define GT_VZERO_f(d, p) gt_vzero_f(d)
#define GT_VZERO_d(d, p) gt_vzero_d(d)
#define GT_POW_f(d, p) powf(d, p)
#define GT_POW_d(d, p) pow(d, p)

#define GT_PAIRS 8
/* -- pdist: K <= GT_PAIRS pairs (row a against rows b[0..K)) reduced at once in map2_reduce_all's lane order
   (Note [pdist's lane order]); the K accumulator chains are independent, so they overlap in the pipeline (eight
   at once: 256x256 float32 in 445 us against 515 us with four) and row a is loaded once for all. -- */
#define GT_PDIST(NAME, S, T, VT, W, ABS, MAP, VMAP, RED, VRED, FIN)                                                \
static inline __attribute__((always_inline)) void NAME##_pairs(const T *a, const T *const *b, int K, int64_t m,   \
                                                                  T p, int tree, T *res) {                         \
    VT v[GT_PAIRS];                                                                                                \
    T lane[W];                                                                                                     \
    VT va = gt_load_##S(a);                                                                                        \
    for (int k = 0; k < K; k++) v[k] = VMAP(gt_vabs_##S(va - gt_load_##S(b[k])), p);                              \
    int64_t d = W;                                                                                                 \
    for (; d + W <= m; d += W) {                                                                                   \
        va = gt_load_##S(a + d);                                                                                   \
        for (int k = 0; k < K; k++) v[k] = VRED(v[k], VMAP(gt_vabs_##S(va - gt_load_##S(b[k] + d)), p));          \
    }                                                                                                              \
    for (int k = 0; k < K; k++) {                                                                                  \
        memcpy(lane, &v[k], sizeof lane);                                                                          \
        for (int l = 0; d + l < m; l++) lane[l] = RED(lane[l], MAP(ABS(a[d + l] - b[k][d + l]), p));               \
        if (tree) {                                                                                                \
            for (int s = W / 2; s > 0; s /= 2)                                                                     \
                for (int l = 0; l < s; l++) lane[l] = RED(lane[l], lane[l + s]);                                   \
        } else {                                                                                                   \
            for (int l = 1; l < W; l++) lane[0] = RED(lane[0], lane[l]);                                           \
        }                                                                                                          \
        res[k] = lane[0];                                                                                          \
    }                                                                                                              \
}                                                                                                                  \
static T NAME##_short(const T *a, const T *b, int64_t m, T p) {                                                    \
    T r = MAP(ABS(a[0] - b[0]), p);                                                                                \
    for (int64_t i = 1; i < m; i++) r = RED(r, MAP(ABS(a[i] - b[i]), p));                                          \
    return r;                                                                                                      \
}                                                                                                                  \
void NAME(const T *x, int64_t n, int64_t m, double p, int tree, T *out, int nt) {                                  \
    _Pragma("omp parallel for num_threads(nt) if(nt > 1) schedule(dynamic, 4)")                                    \
    for (int64_t i = 0; i < n - 1; i++) {                                                                          \
        T *o = out + i * n - i * (i + 1) / 2, agg, red[GT_PAIRS];                                                  \
        for (int64_t j = i + 1; j < n; j += GT_PAIRS) {                                                            \
            int K = n - j < GT_PAIRS ? (int)(n - j) : GT_PAIRS;                                                    \
            const T *b[GT_PAIRS];                                                                                  \
            for (int k = 0; k < K; k++) b[k] = x + (j + k) * m;                                                    \
            if (m < W) for (int k = 0; k < K; k++) red[k] = NAME##_short(x + i * m, b[k], m, (T)p);                \
            else if (K == GT_PAIRS) NAME##_pairs(x + i * m, b, GT_PAIRS, m, (T)p, tree, red);                      \
            else for (int k = 0; k < K; k++) NAME##_pairs(x + i * m, b + k, 1, m, (T)p, tree, red + k);            \
            for (int k = 0; k < K; k++) { agg = red[k]; *o++ = FIN; }                                              \
        }                                                                                                          \
    }                                                                                                              \
}

GT_PDIST(gt_pdist0_f, f, float, gt_vf, 8, fabsf, GT_ZERO_f, GT_VZERO_f, GT_ADD, GT_ADD, agg)
GT_PDIST(gt_pdist1_f, f, float, gt_vf, 8, fabsf, GT_ID, GT_ID, GT_ADD, GT_ADD, agg)
GT_PDIST(gt_pdist2_f, f, float, gt_vf, 8, fabsf, GT_SQ, GT_SQ, GT_ADD, GT_ADD, sqrtf(agg))
GT_PDIST(gt_pdistinf_f, f, float, gt_vf, 8, fabsf, GT_ID, GT_ID, gt_maxnan_f, gt_vmaxnan_f, agg)
GT_PDIST(gt_pdistp_f, f, float, gt_vf, 8, fabsf, GT_POW_f, gt_vpow_f, GT_ADD, GT_ADD,
         (float)pow((double)agg, 1.0 / (double)(float)p))
GT_PDIST(gt_pdist0_d, d, double, gt_vd, 4, fabs, GT_ZERO_d, GT_VZERO_d, GT_ADD, GT_ADD, agg)
GT_PDIST(gt_pdist1_d, d, double, gt_vd, 4, fabs, GT_ID, GT_ID, GT_ADD, GT_ADD, agg)
GT_PDIST(gt_pdist2_d, d, double, gt_vd, 4, fabs, GT_SQ, GT_SQ, GT_ADD, GT_ADD, sqrt(agg))
GT_PDIST(gt_pdistinf_d, d, double, gt_vd, 4, fabs, GT_ID, GT_ID, gt_maxnan_d, gt_vmaxnan_d, agg)
GT_PDIST(gt_pdistp_d, d, double, gt_vd, 4, fabs, GT_POW_d, gt_vpow_d, GT_ADD, GT_ADD, pow(agg, 1.0 / p))

/* -- pools over (planes, T, H, W) C-contiguous planes (1-d and 2-d pools pass T = 1 or H = 1).  g: planes, IT, IH,
   IW, OT, OH, OW, then kernel, stride, padding, dilation (T, H, W each); adaptive pools read only the sizes.
   Windows are scanned depth, height, width (PyTorch's order).  Where four neighbouring outputs along W have whole
   windows inside the input's width, they are scanned together: four independent chains, the same elements in the
   same order for each. -- */
typedef struct { int64_t P, I[3], O[3], k[3], s[3], p[3], d[3]; } gt_pool;

static gt_pool gt_pool_of(const int64_t *g) {
    gt_pool q;
    q.P = g[0];
    for (int i = 0; i < 3; i++) {
        q.I[i] = g[1 + i]; q.O[i] = g[4 + i]; q.k[i] = g[7 + i]; q.s[i] = g[10 + i]; q.p[i] = g[13 + i];
        q.d[i] = g[16 + i];
    }
    return q;
}

/* window of output o along dim i: max pools [lo, hi) stepping by the dilation, the start moved into the input;
   adaptive pools the bin [floor(o I / O), ceil((o + 1) I / O)) */
static inline void gt_max_window(const gt_pool *q, int adaptive, int i, int64_t o, int64_t *lo, int64_t *hi) {
    if (adaptive) {
        *lo = o * q->I[i] / q->O[i];
        *hi = ((o + 1) * q->I[i] + q->O[i] - 1) / q->O[i];
        return;
    }
    int64_t l = o * q->s[i] - q->p[i], h = l + (q->k[i] - 1) * q->d[i] + 1;
    while (l < 0) l += q->d[i];
    *lo = l; *hi = h < q->I[i] ? h : q->I[i];
}

/* average pools: [lo, hi) clipped to the input, span the window clipped to the padded input */
static inline void gt_avg_window(const gt_pool *q, int i, int64_t o, int64_t *lo, int64_t *hi, int64_t *span) {
    int64_t l = o * q->s[i] - q->p[i], h = l + q->k[i];
    h = h < q->I[i] + q->p[i] ? h : q->I[i] + q->p[i];
    *span = h - l;
    *lo = l > 0 ? l : 0; *hi = h < q->I[i] ? h : q->I[i];
}

/* whether outputs o .. o + 3 along W have their whole (dilated) window inside the input */
static inline int gt_four_inside(const gt_pool *q, int64_t o, int64_t extent) {
    int64_t first = o * q->s[2] - q->p[2], last = (o + 3) * q->s[2] - q->p[2] + extent;
    return o + 4 <= q->O[2] && first >= 0 && last <= q->I[2];
}

#define GT_POOLS(S, T)                                                                                             \
void gt_max_pool_##S(const T *x, T *out, int64_t *ind, const int64_t *g, int adaptive, int nt) {                  \
    gt_pool q = gt_pool_of(g);                                                                                     \
    const int64_t in_plane = q.I[0] * q.I[1] * q.I[2], out_plane = q.O[0] * q.O[1] * q.O[2];                       \
    const int64_t step[3] = {adaptive ? 1 : q.d[0], adaptive ? 1 : q.d[1], adaptive ? 1 : q.d[2]};                 \
    /* adaptive bins of one width along W (O divides I) are windows of that width and stride */                   \
    const int four = !adaptive || q.I[2] % q.O[2] == 0;                                                            \
    if (adaptive) { q.s[2] = q.I[2] / q.O[2]; q.p[2] = 0; }                                                        \
    const int64_t extent = adaptive ? q.s[2] : (q.k[2] - 1) * q.d[2] + 1;                                          \
    _Pragma("omp parallel for num_threads(nt) if(nt > 1) schedule(static)")                                        \
    for (int64_t pl = 0; pl < q.P; pl++) {                                                                         \
        const T *xp = x + pl * in_plane;                                                                           \
        T *op = out + pl * out_plane;                                                                              \
        int64_t *ip = ind + pl * out_plane;                                                                        \
        for (int64_t o0 = 0; o0 < q.O[0]; o0++) {                                                                  \
            int64_t t0, t1;                                                                                        \
            gt_max_window(&q, adaptive, 0, o0, &t0, &t1);                                                          \
            for (int64_t o1 = 0; o1 < q.O[1]; o1++) {                                                              \
                int64_t h0, h1;                                                                                    \
                gt_max_window(&q, adaptive, 1, o1, &h0, &h1);                                                      \
                for (int64_t o2 = 0; o2 < q.O[2];) {                                                               \
                    if (four && gt_four_inside(&q, o2, extent)) {                                                  \
                        int64_t w0 = o2 * q.s[2] - q.p[2], best[4];                                                \
                        T mv[4];                                                                                   \
                        for (int c = 0; c < 4; c++) {                                                              \
                            mv[c] = -INFINITY;                                                                     \
                            best[c] = (t0 * q.I[1] + h0) * q.I[2] + w0 + c * q.s[2];                               \
                        }                                                                                          \
                        for (int64_t t = t0; t < t1; t += step[0])                                                 \
                            for (int64_t h = h0; h < h1; h += step[1]) {                                           \
                                int64_t row = (t * q.I[1] + h) * q.I[2];                                           \
                                for (int64_t w = w0; w < w0 + extent; w += step[2])                                \
                                    for (int c = 0; c < 4; c++) {                                                  \
                                        int64_t at = row + w + c * q.s[2];                                         \
                                        T v = xp[at];                                                              \
                                        if (v > mv[c] || v != v) { mv[c] = v; best[c] = at; }                      \
                                    }                                                                              \
                            }                                                                                      \
                        for (int c = 0; c < 4; c++) { *op++ = mv[c]; *ip++ = best[c]; }                            \
                        o2 += 4;                                                                                   \
                        continue;                                                                                  \
                    }                                                                                              \
                    int64_t w0, w1;                                                                                \
                    gt_max_window(&q, adaptive, 2, o2, &w0, &w1);                                                  \
                    int64_t best = (t0 * q.I[1] + h0) * q.I[2] + w0;                                               \
                    T mv = -INFINITY;                                                                              \
                    for (int64_t t = t0; t < t1; t += step[0])                                                     \
                        for (int64_t h = h0; h < h1; h += step[1])                                                 \
                            for (int64_t w = w0; w < w1; w += step[2]) {                                           \
                                int64_t at = (t * q.I[1] + h) * q.I[2] + w;                                        \
                                T v = xp[at];                                                                      \
                                if (v > mv || v != v) { mv = v; best = at; }                                       \
                            }                                                                                      \
                    *op++ = mv; *ip++ = best;                                                                      \
                    o2++;                                                                                          \
                }                                                                                                  \
            }                                                                                                      \
        }                                                                                                          \
    }                                                                                                              \
}                                                                                                                  \
/* in-bounds elements added in T, divided once by PyTorch's divide factor: ovr > 0 (divisor_override), else the   \
   window clipped to the padded input (cip: count_include_pad) or to the input; 0 for a window with none */        \
void gt_avg_pool_##S(const T *x, T *out, const int64_t *g, int64_t cip, int64_t ovr, int nt) {                    \
    const gt_pool q = gt_pool_of(g);                                                                               \
    const int64_t in_plane = q.I[0] * q.I[1] * q.I[2], out_plane = q.O[0] * q.O[1] * q.O[2];                       \
    _Pragma("omp parallel for num_threads(nt) if(nt > 1) schedule(static)")                                        \
    for (int64_t pl = 0; pl < q.P; pl++) {                                                                         \
        const T *xp = x + pl * in_plane;                                                                           \
        T *op = out + pl * out_plane;                                                                              \
        for (int64_t o0 = 0; o0 < q.O[0]; o0++) {                                                                  \
            int64_t t0, t1, st;                                                                                    \
            gt_avg_window(&q, 0, o0, &t0, &t1, &st);                                                               \
            for (int64_t o1 = 0; o1 < q.O[1]; o1++) {                                                              \
                int64_t h0, h1, sh;                                                                                \
                gt_avg_window(&q, 1, o1, &h0, &h1, &sh);                                                           \
                for (int64_t o2 = 0; o2 < q.O[2];) {                                                               \
                    if (t0 < t1 && h0 < h1 && gt_four_inside(&q, o2, q.k[2])) {                                    \
                        int64_t w0 = o2 * q.s[2] - q.p[2];                                                         \
                        int64_t div = ovr > 0 ? ovr : (cip ? st * sh : (t1 - t0) * (h1 - h0)) * q.k[2];            \
                        T sum[4] = {0, 0, 0, 0};                                                                   \
                        for (int64_t t = t0; t < t1; t++)                                                          \
                            for (int64_t h = h0; h < h1; h++) {                                                    \
                                const T *row = xp + (t * q.I[1] + h) * q.I[2] + w0;                                \
                                for (int64_t w = 0; w < q.k[2]; w++)                                               \
                                    for (int c = 0; c < 4; c++) sum[c] += row[w + c * q.s[2]];                     \
                            }                                                                                      \
                        for (int c = 0; c < 4; c++) *op++ = sum[c] / (T)div;                                       \
                        o2 += 4;                                                                                   \
                        continue;                                                                                  \
                    }                                                                                              \
                    int64_t w0, w1, sw;                                                                            \
                    gt_avg_window(&q, 2, o2, &w0, &w1, &sw);                                                       \
                    o2++;                                                                                          \
                    if (t0 >= t1 || h0 >= h1 || w0 >= w1) { *op++ = 0; continue; }                                 \
                    int64_t div = ovr > 0 ? ovr : cip ? st * sh * sw : (t1 - t0) * (h1 - h0) * (w1 - w0);          \
                    T sum = 0;                                                                                     \
                    for (int64_t t = t0; t < t1; t++)                                                              \
                        for (int64_t h = h0; h < h1; h++)                                                          \
                            for (int64_t w = w0; w < w1; w++) sum += xp[(t * q.I[1] + h) * q.I[2] + w];            \
                    *op++ = sum / (T)div;                                                                          \
                }                                                                                                  \
            }                                                                                                      \
        }                                                                                                          \
    }                                                                                                              \
}
GT_POOLS(f, float)
GT_POOLS(d, double)

/* -- upsampling along one dim: x (outer, isz, inner) -> y (outer, osz, inner), y[o, q, i] = x[o, idx[q, 0], i] *
   w[q, 0] + ... + x[o, idx[q, taps - 1], i] * w[q, taps - 1] added left to right; w NULL: a gather (taps = 1) -- */
#define GT_TAPS(S, T)                                                                                              \
static void gt_taps_line_##S(const T *xo, T *yo, int64_t osz, const int64_t *idx, const T *w, int64_t taps) {      \
    if (!w) { for (int64_t q = 0; q < osz; q++) yo[q] = xo[idx[q]]; return; }                                      \
    if (taps == 2) {                                                                                               \
        for (int64_t q = 0; q < osz; q++) yo[q] = xo[idx[2 * q]] * w[2 * q] + xo[idx[2 * q + 1]] * w[2 * q + 1];   \
        return;                                                                                                    \
    }                                                                                                              \
    for (int64_t q = 0; q < osz; q++) {                                                                            \
        const int64_t *iq = idx + q * taps;                                                                        \
        const T *wq = w + q * taps;                                                                                \
        T acc = xo[iq[0]] * wq[0];                                                                                 \
        for (int64_t t = 1; t < taps; t++) acc += xo[iq[t]] * wq[t];                                               \
        yo[q] = acc;                                                                                               \
    }                                                                                                              \
}                                                                                                                  \
static void gt_taps_rows_##S(const T *xo, T *yr, int64_t inner, const int64_t *iq, const T *wq, int64_t taps) {   \
    const T *r0 = xo + iq[0] * inner;                                                                              \
    if (!wq) { memcpy(yr, r0, inner * sizeof(T)); return; }                                                        \
    const T w0 = wq[0];                                                                                            \
    if (taps == 2) {                                                                                               \
        const T *r1 = xo + iq[1] * inner, w1 = wq[1];                                                              \
        for (int64_t i = 0; i < inner; i++) yr[i] = r0[i] * w0 + r1[i] * w1;                                       \
        return;                                                                                                    \
    }                                                                                                              \
    for (int64_t i = 0; i < inner; i++) yr[i] = r0[i] * w0;                                                        \
    for (int64_t t = 1; t < taps; t++) {                                                                           \
        const T *rt = xo + iq[t] * inner, wt = wq[t];                                                              \
        for (int64_t i = 0; i < inner; i++) yr[i] += rt[i] * wt;                                                   \
    }                                                                                                              \
}                                                                                                                  \
void gt_taps_##S(const T *x, T *y, int64_t outer, int64_t isz, int64_t osz, int64_t inner, const int64_t *idx,   \
                 const T *w, int64_t taps, int nt) {                                                               \
    _Pragma("omp parallel for num_threads(nt) if(nt > 1) schedule(static)")                                        \
    for (int64_t o = 0; o < outer; o++) {                                                                          \
        const T *xo = x + o * isz * inner;                                                                         \
        T *yo = y + o * osz * inner;                                                                               \
        if (inner == 1) { gt_taps_line_##S(xo, yo, osz, idx, w, taps); continue; }                                \
        for (int64_t q = 0; q < osz; q++)                                                                          \
            gt_taps_rows_##S(xo, yo + q * inner, inner, idx + q * taps, w ? w + q * taps : 0, taps);               \
    }                                                                                                              \
}
GT_TAPS(f, float)
GT_TAPS(d, double)

/* -- nearest upsampling in one pass: y[p, q0, q1, q2] = x[p, i0[q0], i1[q1], i2[q2]] over (planes, D, H, W); an
   output row reading the same source row as the one before is a copy of it -- */
#define GT_GATHER(S, T)                                                                                            \
void gt_gather_##S(const T *x, T *y, const int64_t *g, const int64_t *i0, const int64_t *i1, const int64_t *i2,    \
                   int nt) {                                                                                       \
    const int64_t P = g[0], I0 = g[1], I1 = g[2], I2 = g[3], O0 = g[4], O1 = g[5], O2 = g[6];                      \
    _Pragma("omp parallel for num_threads(nt) if(nt > 1) schedule(static)")                                        \
    for (int64_t pl = 0; pl < P; pl++)                                                                             \
        for (int64_t q0 = 0; q0 < O0; q0++) {                                                                      \
            const T *xs = x + (pl * I0 + i0[q0]) * I1 * I2;                                                        \
            T *yr = y + (pl * O0 + q0) * O1 * O2;                                                                  \
            for (int64_t q1 = 0; q1 < O1; q1++, yr += O2) {                                                        \
                if (q1 && i1[q1] == i1[q1 - 1]) { memcpy(yr, yr - O2, O2 * sizeof(T)); continue; }                \
                const T *row = xs + i1[q1] * I2;                                                                   \
                for (int64_t q2 = 0; q2 < O2; q2++) yr[q2] = row[i2[q2]];                                          \
            }                                                                                                      \
        }                                                                                                          \
}
GT_GATHER(f, float)
GT_GATHER(d, double)
"""

_PDIST_KINDS = ("0", "1", "2", "inf", "p")


def _bind(lib) -> dict:
    """(kernel, dtype char) -> bound C function."""
    vp, i64, i32, f64 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_int, ctypes.c_double
    fns = {}
    for ch in "fd":
        for kind in _PDIST_KINDS:
            fn = getattr(lib, f"gt_pdist{kind}_{ch}")
            fn.argtypes = (vp, i64, i64, f64, i32, vp, i32)
            fn.restype = None
            fns[(f"pdist{kind}", ch)] = fn
        for kernel, args in (("max_pool", (vp, vp, vp, vp, i32, i32)), ("avg_pool", (vp, vp, vp, i64, i64, i32)),
                             ("taps", (vp, vp, i64, i64, i64, i64, vp, vp, i64, i32)),
                             ("gather", (vp, vp, vp, vp, vp, vp, i32))):
            fn = getattr(lib, f"gt_{kernel}_{ch}")
            fn.argtypes = args
            fn.restype = None
            fns[(kernel, ch)] = fn
    return fns


_fns = _ckernels.LazyTable(_C_SOURCE, "nn_ckernels", _bind)


def available() -> bool:
    """Whether the compiled loops are in use (compiles/loads them on first call)."""
    return _fns.available()


def _fn(kernel: str, arr: np.ndarray):
    """The C loop of ``kernel`` for ``arr``'s dtype, or None (numpy then)."""
    if arr.dtype.char not in "fd":
        return None
    return _fns.get((kernel, arr.dtype.char))


def _ptr(a: np.ndarray) -> int:
    return a.ctypes.data


def pdist(x: np.ndarray, p: float, out: np.ndarray) -> bool:
    """``out[k] = ||x[i] - x[j]||_p`` over the pairs ``i < j`` in row-major order (x (n, m) C-contiguous, m > 0)."""
    kind = {0.0: "0", 1.0: "1", 2.0: "2"}.get(p, "inf" if np.isinf(p) else "p")
    fn = _fn(f"pdist{kind}", x)
    if fn is None or not x.flags.c_contiguous or not out.flags.c_contiguous or out.dtype != x.dtype:
        return False
    tree = x.dtype.char == "f" and get_cpu_capability() != "DEFAULT"
    fn(_ptr(x), x.shape[0], x.shape[1], float(p), int(tree), _ptr(out), get_num_threads())
    return True


def _planes3(x: np.ndarray, n: int):
    """(planes, T, H, W) sizes of ``x``'s trailing ``n`` spatial dims (missing leading ones are 1)."""
    sp = (1,) * (3 - n) + x.shape[x.ndim - n:]
    planes = 1
    for v in x.shape[:x.ndim - n]:
        planes *= v
    return planes, sp


def _geometry(x, n, out_sp, k=(), s=(), p=(), d=()):
    planes, in_sp = _planes3(x, n)
    pad = (1,) * (3 - n)
    rest = [pad + tuple(v) if v else (1, 1, 1) for v in (k, s)] + [(0,) * (3 - n) + tuple(p) if p else (0, 0, 0),
                                                                 pad + tuple(d) if d else (1, 1, 1)]
    g = (planes,) + in_sp + pad + tuple(out_sp) + sum((tuple(r) for r in rest), ())
    return np.array(g, np.int64)


def _pool_fn(kernel, x):
    fn = _fn(kernel, x)
    return fn if fn is not None and x.flags.c_contiguous else None


def max_pool(x: np.ndarray, n: int, k, s, p, d, out_sp):
    """(values, flat plane indices) of each window's first maximum over ``x``'s last ``n`` dims; None: numpy."""
    return _max_like(x, n, out_sp, _geometry(x, n, out_sp, k, s, p, d), False)


def adaptive_max_pool(x: np.ndarray, n: int, out_sp):
    """(values, indices) of adaptive max pooling (bins ``[floor(o I / O), ceil((o + 1) I / O))``); None: numpy."""
    return _max_like(x, n, out_sp, _geometry(x, n, out_sp), True)


def _max_like(x, n, out_sp, g, adaptive):
    fn = _pool_fn("max_pool", x)
    if fn is None:
        return None
    shape = x.shape[:x.ndim - n] + tuple(out_sp)
    vals, idx = np.empty(shape, x.dtype), np.empty(shape, np.int64)
    fn(_ptr(x), _ptr(vals), _ptr(idx), _ptr(g), int(adaptive), get_num_threads())
    return vals, idx


def avg_pool(x: np.ndarray, n: int, k, s, p, out_sp, count_include_pad, divisor_override):
    """Average pooling over ``x``'s last ``n`` dims in ``x``'s dtype (float32/float64); None: numpy."""
    fn = _pool_fn("avg_pool", x)
    if fn is None:
        return None
    g = _geometry(x, n, out_sp, k, s, p)
    res = np.empty(x.shape[:x.ndim - n] + tuple(out_sp), x.dtype)
    ovr = 0 if divisor_override is None else int(divisor_override)
    fn(_ptr(x), _ptr(res), _ptr(g), int(bool(count_include_pad)), ovr, get_num_threads())
    return res


def apply_taps(x: np.ndarray, axis: int, idx: np.ndarray, w, dest=None):
    """``resample.apply_taps`` (``sum_t w[:, t] * x.take(idx[:, t], axis)``, ``w`` None: a gather) for C-contiguous
    float32/float64 ``x``; the result in ``dest`` when given (C-contiguous, the result's shape and dtype), else a new
    array.  None: numpy."""
    fn = _pool_fn("taps", x)
    if fn is None or (w is not None and w.dtype != x.dtype):
        return None
    axis %= x.ndim
    outer, inner = _prod(x.shape[:axis]), _prod(x.shape[axis + 1:])
    shape = x.shape[:axis] + (idx.shape[0],) + x.shape[axis + 1:]
    y = np.empty(shape, x.dtype) if dest is None else dest
    idx = np.ascontiguousarray(idx, np.int64)
    taps = idx.shape[1] if idx.ndim == 2 else 1
    wp = None if w is None else _ptr(np.ascontiguousarray(w))
    fn(_ptr(x), _ptr(y), outer, x.shape[axis], idx.shape[0], inner, _ptr(idx), wp, taps, get_num_threads())
    return y


def _prod(xs) -> int:
    p = 1
    for v in xs:
        p *= v
    return p


def gather(x: np.ndarray, idx, dest: np.ndarray) -> bool:
    """``dest[..., q0, q1, q2] = x[..., idx[0][q0], idx[1][q1], idx[2][q2]]`` over the last ``len(idx)`` (1-3) dims
    (nearest upsampling in one pass); False: numpy (nothing written)."""
    fn = _pool_fn("gather", x)
    if fn is None or not dest.flags.c_contiguous or dest.dtype != x.dtype:
        return False
    n = len(idx)
    zero = np.zeros(1, np.int64)
    i0, i1, i2 = [zero] * (3 - n) + [np.ascontiguousarray(i, np.int64).reshape(-1) for i in idx]
    g = _geometry(x, n, dest.shape[dest.ndim - n:])
    fn(_ptr(x), _ptr(dest), _ptr(g), _ptr(i0), _ptr(i1), _ptr(i2), get_num_threads())
    return True
