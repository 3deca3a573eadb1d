"""C source of the compiled eager CPU loops (see ``ckernels.py``), generated from small tables.

PyTorch's counterpart is the vectorized ``cpu_kernel_vec`` loops of ``aten/src/ATen/native/cpu/*Kernel.cpp``
with SLEEF's transcendental functions.  Here every operation is one C expression over one element (``x``,
or ``a`` and ``b``); :func:`source` writes, for each (operation, dtype), a *row function* — a loop over ``n``
elements with element strides, whose contiguous case gcc/clang vectorize — and two shared *drivers* that walk
an n-d iteration space row by row and split it over OpenMP threads above PyTorch's grain size (32768).

Numerics (no ``-ffast-math``: NaN, inf, -0.0 and subnormals behave as in IEEE arithmetic):

- add/sub/mul/div, relu, copies and float32<->float64 casts are the plain C operations: bit-exact with torch.
- float32 ``exp``, ``sin``, ``erf``, ``gelu`` (and gelu's derivative) run in float arithmetic with fma, 8 lanes
  per AVX2 vector (polynomials in Estrin's scheme, for short dependency chains).  Measured against torch on
  millions of points: exp <= 1 ulp (subnormal results rounded once: 2^q is applied as two factors), sin <= 3 ulp
  (three-part Cody-Waite reduction by pi, odd Taylor polynomial; |x| > 65536, inf and NaN go to libm's ``sinf``),
  erf <= 2 ulp (``x (c + x^2 Q(x^2))`` below 1 with ``c = 2/sqrt(pi)`` as two floats; above,
  ``1 - exp(G(a) - a^2)`` with ``G`` a Chebyshev fit of ``log(erfc(a)) + a^2`` on [1, 3.92] and ``a^2`` split
  exactly).  Blocks of 1024 elements that lie entirely on one side of erf's branch point run only that branch.
  float32 ``erfc`` is evaluated in double (``exp(-a^2)/a * g(1/a)``) and rounded once (<= 1 ulp).  The fits were
  made once with mpmath at 30-40 digits on Chebyshev nodes (numpy least squares / chebfit, converted to the power
  basis and rounded to the evaluation precision).  gelu and its derivative share one exponential and one rational
  function, the Mills ratio ``Phi(-t) / phi(t)`` (see ``gt_geluf``): <= 1 ulp for x >= sqrt 2 against float64 and
  a few ulp elsewhere, with relative accuracy for negative x, where torch's ``1 + erf`` cancels (torch returns 0
  below x = -5.9).  Three float32 gelu loops differ only in special values, those of the kernel torch picks
  (:func:`gelu_loop`, Note [gelu's special values follow torch's kernel] in activation.py).  No result depends
  on the ISA the file is compiled for (fmaf, rintf and IEEE operations only; tests/test_ckernels.py builds it
  with -march=native, x86-64-v3 and x86-64 and compares the bits).
- float64 ``erf``/``erfc``/``gelu`` call libm's ``erf``/``erfc`` per element (<= 1 ulp).

Invariant: a row function reads ``x``/``a``/``b`` and writes ``o`` only; an output may be the same memory as
an input (in-place ops), never a partial overlap (TensorIterator refuses those).
"""

from __future__ import annotations

import struct

from ...._device import cpu_features as _cpu

__all__ = ["UNARY", "BINARY", "SPLIT", "CASTS", "CTYPE", "MATH", "source", "row_name", "gelu_loop", "gelu_f32"]

CTYPE = {"f": "float", "d": "double"}

_HELPERS = r"""
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define GT_GRAIN 32768
/* calls whose output has at least this many bytes are written with non-temporal stores (ckernels.set_stream_bytes;
   ckernels sets half the last-level cache at load): beyond that, skipping the read-for-ownership of output lines
   that are not cached anyway pays; below, the output is often still cached from the allocator's previous block
   (or is read again soon) and plain stores win (1M float32 -> float64 copies: 2.2x faster without streaming). */
int64_t gt_stream_bytes = 16 << 20;

#if defined(__AVX__)
#include <immintrin.h>
#define GT_STREAM 1
static inline void gt_sfence(void) { _mm_sfence(); }
static inline void gt_stream_float(float *dst, const float *src, int64_t n) {
    int64_t i = 0;
    for (; i < n && ((uintptr_t)(dst + i) & 31); i++) dst[i] = src[i];
    for (; i + 8 <= n; i += 8) _mm256_stream_ps(dst + i, _mm256_loadu_ps(src + i));
    for (; i < n; i++) dst[i] = src[i];
}
static inline void gt_stream_double(double *dst, const double *src, int64_t n) {
    int64_t i = 0;
    for (; i < n && ((uintptr_t)(dst + i) & 31); i++) dst[i] = src[i];
    for (; i + 4 <= n; i += 4) _mm256_stream_pd(dst + i, _mm256_loadu_pd(src + i));
    for (; i < n; i++) dst[i] = src[i];
}
#else
#define GT_STREAM 0
static inline void gt_sfence(void) {}
static inline void gt_stream_float(float *dst, const float *src, int64_t n) { memcpy(dst, src, n * sizeof(float)); }
static inline void gt_stream_double(double *dst, const double *src, int64_t n) { memcpy(dst, src, n * sizeof(double)); }
#endif

"""

# The scalar math functions (static inline, vectorisable): also the float32 exp/erf of the inductor's kernels
# (glasstorch/_inductor/codegen_c.py), so compiled and eager loops give the same bits.
MATH = r"""
/* 2^n for an integral double n in [-1022, 1023], from its bits (no int conversion, so it vectorizes). */
static inline double gt_pow2i(double n) {
    double t = n + 6755399441055744.0;  /* 1.5 * 2^52: n lands in the low mantissa bits */
    int64_t b;
    memcpy(&b, &t, 8);
    b = (b - 0x4338000000000000LL + 1023) << 52;
    double r;
    memcpy(&r, &b, 8);
    return r;
}

/* e^y for |y| <= 700: y = n ln2 + r (|r| <= ln2/2, two-part ln2), e^r by its Taylor polynomial of degree 12. */
static inline double gt_exp_d(double y) {
    double n = rint(y * 1.4426950408889634);
    double r = fma(-n, 0x1.62e42fef00000p-1, y);
    r = fma(-n, 0x1.473de6af278edp-34, r);
    double p = 1.0 / 479001600.0;
    p = fma(p, r, 1.0 / 39916800.0);
    p = fma(p, r, 1.0 / 3628800.0);
    p = fma(p, r, 1.0 / 362880.0);
    p = fma(p, r, 1.0 / 40320.0);
    p = fma(p, r, 1.0 / 5040.0);
    p = fma(p, r, 1.0 / 720.0);
    p = fma(p, r, 1.0 / 120.0);
    p = fma(p, r, 1.0 / 24.0);
    p = fma(p, r, 1.0 / 6.0);
    p = fma(p, r, 0.5);
    p = fma(p, r, 1.0);
    p = fma(p, r, 1.0);
    return p * gt_pow2i(n);
}

/* float e^x in float arithmetic: x = q ln2 + r (fma with a two-part ln2), e^r by Taylor to r^7 (error < 6e-9),
   2^q applied as two factors 2^(q/2) so that at most the second product rounds (subnormal results included). */
static inline float gt_expf(float x) {
    float xc = x < -104.0f ? -104.0f : x;  /* e^-104 rounds to +0, e^89 to inf; NaN passes both tests */
    xc = xc > 89.0f ? 89.0f : xc;
    float q = rintf(xc * 1.44269502f);
    float r = fmaf(-q, 0x1.62e430p-1f, xc);
    r = fmaf(-q, -0x1.05c610p-29f, r);
    float r2 = r * r, r4 = r2 * r2;  /* Estrin's scheme: short dependency chains */
    float p = fmaf(r4, fmaf(1.0f / 5040.0f, r, 1.0f / 720.0f),
                   fmaf(r2, fmaf(1.0f / 120.0f, r, 1.0f / 24.0f), fmaf(1.0f / 6.0f, r, 0.5f)));
    p = fmaf(p, r2, r) + 1.0f;
    int32_t qi = (int32_t)q, q1 = qi >> 1, q2 = qi - q1;
    int32_t b1 = (q1 + 127) << 23, b2 = (q2 + 127) << 23;
    float s1, s2;
    memcpy(&s1, &b1, 4);
    memcpy(&s2, &b2, 4);
    return p * s1 * s2;  /* NaN stays NaN through every step */
}

/* e^x for x in [-87, 88] with a normal result: one scale factor, no clamps */
static inline float gt_expf_normal(float x) {
    float q = rintf(x * 1.44269502f);
    float r = fmaf(-q, 0x1.62e430p-1f, x);
    r = fmaf(-q, -0x1.05c610p-29f, r);
    float r2 = r * r, r4 = r2 * r2;
    float p = fmaf(r4, fmaf(1.0f / 5040.0f, r, 1.0f / 720.0f),
                   fmaf(r2, fmaf(1.0f / 120.0f, r, 1.0f / 24.0f), fmaf(1.0f / 6.0f, r, 0.5f)));
    p = fmaf(p, r2, r) + 1.0f;
    int32_t b = ((int32_t)q + 127) << 23;
    float s;
    memcpy(&s, &b, 4);
    return p * s;
}

/* sin for |x| <= 65536 (the caller sends the rest to libm) in float arithmetic: x = q pi + r with a three-part
   pi (the first fma is exact, each later step rounds relative to the small remainder), sin x = (-1)^q sin r,
   the odd Taylor polynomial to r^15 (error < 7e-10 on [-pi/2, pi/2]). */
static inline float gt_sinf(float x) {
    float q = rintf(x * 0.318309886f);
    float r = fmaf(-q, 0x1.921fb6p+1f, x);
    r = fmaf(-q, -0x1.777a5cp-24f, r);
    r = fmaf(-q, -0x1.ee59dap-49f, r);
    float s = r * r, s2 = s * s, s4 = s2 * s2;  /* Estrin's scheme: short dependency chains */
    float p = fmaf(s4, fmaf(-1.0f / 1307674368000.0f, s2, fmaf(1.0f / 6227020800.0f, s, -1.0f / 39916800.0f)),
                   fmaf(s2, fmaf(1.0f / 362880.0f, s, -1.0f / 5040.0f), fmaf(1.0f / 120.0f, s, -1.0f / 6.0f)));
    float res = fmaf(r * s, p, r);
    int32_t bits, odd = (int32_t)q << 31;
    memcpy(&bits, &res, 4);
    bits ^= odd;
    memcpy(&res, &bits, 4);
    return x == 0 ? x : res;  /* keeps -0.0 */
}

/* float erf in float arithmetic.  |x| < 1: x (c + x^2 Q(x^2)) with c = 2/sqrt(pi) as a two-float sum and Q a
   least-squares fit on [0, 1] of degree 5 (error 1.2e-8 with float coefficients).
   1 <= |x| < 3.92: 1 - exp(G(a) - a^2), G a Chebyshev fit of log(erfc(a)) + a^2 in u = (a - 2.46) / 1.46
   (error 5e-8 with float coefficients, i.e. erfc to 5e-8 relative), a^2 split exactly into hi + lo.  Beyond,
   erf rounds to +-1.  gt_erff_small and gt_erff_big are the two branches; gt_erff picks per element. */
static inline float gt_erff_small(float x) {
    float s = x * x, s2 = s * s, s4 = s2 * s2;  /* Estrin's scheme */
    float q = fmaf(s4, fmaf(8.386716217501089e-05f, s, -0.0008163730963133276f),
                   fmaf(s2, fmaf(0.005204732064157724f, s, -0.026861755177378654f),
                        fmaf(0.1128375455737114f, s, -0.37612637877464294f)));
    q = fmaf(s, q, -5.8635382771399236e-08f);      /* the low part of 2/sqrt(pi) */
    float r = fmaf(x, 1.128379225730896f, x * q);  /* x (2/sqrt(pi)) rounded once */
    return x == 0 ? x : r;                          /* keeps -0.0 */
}

static inline float gt_erff_big(float x) {
    float a = fabsf(x);
    float ac = a > 3.92f ? 3.92f : a;
    float u = (ac - 2.46f) * (1.0f / 1.46f);
    float u2 = u * u, u4 = u2 * u2;
    float g = fmaf(u4, fmaf(u4, 3.396094325580634e-05f,
                            fmaf(u2, fmaf(-0.00019525500829331577f, u, 0.0007852143608033657f),
                                 fmaf(-0.002913793781772256f, u, 0.010228922590613365f))),
                   fmaf(u2, fmaf(-0.03489236161112785f, u, 0.1224186047911644f),
                        fmaf(-0.5215439200401306f, u, -1.5426175594329834f)));
    float hi = ac * ac, lo = fmaf(ac, ac, -hi);
    /* the exponent is in [-15.4, -1.8]; at the clamp 3.92, 1 - 1.1e-8 rounds to 1; NaN propagates */
    return copysignf(1.0f - gt_expf_normal((g - hi) - lo), x);
}

static inline float gt_erff(float x) { return fabsf(x) < 1.0f ? gt_erff_small(x) : gt_erff_big(x); }

/* erf(z) for |z| <= 1: z * A(u), u = 2 z^2 - 1. */
static inline double gt_erf_small(double z) {
    double u = 2.0 * (z * z) - 1.0;
    double p = -2.0456302709131457e-10;
    p = fma(p, u, 4.138781000848222e-09);
    p = fma(p, u, -7.511466117983634e-08);
    p = fma(p, u, 1.223362611149463e-06);
    p = fma(p, u, -1.75371698875304e-05);
    p = fma(p, u, 0.0002175171632336999);
    p = fma(p, u, -0.002285485561065924);
    p = fma(p, u, 0.01985249668808455);
    p = fma(p, u, -0.1405360890227208);
    p = fma(p, u, 0.9654687386698853);
    return z * p;
}

/* erfc(a) for a >= 1: exp(-a^2) / a * g(1/a); 0 beyond 10.5 (below float's smallest subnormal). */
static inline double gt_erfc_tail(double a) {
    double ac = a < 1.0 ? 1.0 : a;
    ac = ac > 10.5 ? 10.5 : ac;
    double t = 1.0 / ac;
    double u = (t - 0.5476190476190477) / 0.4523809523809524;
    double p = -5.392289467493593e-07;
    p = fma(p, u, 1.0730358773424789e-06);
    p = fma(p, u, 9.474509000845245e-07);
    p = fma(p, u, -3.917619686509976e-06);
    p = fma(p, u, 4.408816161666233e-06);
    p = fma(p, u, -5.383751612213021e-06);
    p = fma(p, u, 5.43575838137186e-06);
    p = fma(p, u, 1.0122962143144938e-05);
    p = fma(p, u, -5.9958462464768206e-05);
    p = fma(p, u, 0.00015441319184926212);
    p = fma(p, u, -0.00025002415055463945);
    p = fma(p, u, 0.00010960273749444964);
    p = fma(p, u, 0.0009436389929523624);
    p = fma(p, u, -0.004087909332341799);
    p = fma(p, u, 0.009191419903453006);
    p = fma(p, u, -0.004311891534190686);
    p = fma(p, u, -0.07687601467168775);
    p = fma(p, u, 0.5027581520569262);
    double r = gt_exp_d(-(ac * ac)) * t * p;
    return a > 10.5 ? 0.0 : r;
}

static inline float gt_erfcf(float x) {
    double z = x, a = fabs(z);
    double tail = gt_erfc_tail(a);
    double r = a < 1.0 ? 1.0 - gt_erf_small(z) : (z > 0 ? tail : 2.0 - tail);
    return (float)r;
}

/* gelu and its derivative for float32 from one exponential and one rational function.  With t = |x| (clamped to
   14.6, where every result has rounded to 0, x or 1), phi(t) = e^(-t^2/2) / sqrt(2 pi) and the Mills ratio
   R(t) = Phi(-t) / phi(t) (smooth, R(0) = sqrt(pi/2), ~1/t): Phi(-t) = phi R, so
   gelu(x) = x (1 - phi R) for x > 0 and -t phi R otherwise; gelu'(x) = Phi(x) + x phi(x) = 1 - D for x > 0 and D
   otherwise, D = phi (R - t).  The negative side keeps relative accuracy where torch's 1 + erf cancels (torch
   returns 0 below x = -5.9 forward and -6.2 backward).
   gt_gauss_parts: phi(t) = e 2^(q + 40) 2^-40 with e = e^r, r = -t^2/2 - ln sqrt(2 pi) - q ln 2 (t^2 split exactly
   into hi + lo, ln 2 and ln sqrt(2 pi) as two floats each), e^r by Taylor to r^7; the caller applies 2^-40 last,
   so that results below float's normal range round once.
   gt_mills: R = P5 / Q6 in t, fitted on [0, 14.6] (relative error 1.5e-8 with float coefficients: weighted least
   squares with Lawson's iteration against math.erfc in double, coefficients rounded to float one at a time with
   the rest refitted).
   Against float64 on 300k points of [-15, 15] (tests/test_ckernels.py): gelu <= 1 ulp for x >= sqrt 2 and <= 6
   ulp elsewhere; gelu' <= 1 ulp for x >= sqrt 2, <= 3 ulp for x <= -sqrt 2, 1.6e-7 absolute between (gelu' has a
   root at -0.75).  Specials: -inf and NaN give NaN; gelu(+inf) and zero signs per torch's kernel (below). */
static inline float gt_gauss_parts(float t, float *s) {
    float hi = t * t, lo = fmaf(t, t, -hi);
    float q = rintf(fmaf(hi, -0.721347511f, -1.32574809f));  /* (-t^2/2 - ln sqrt(2 pi)) / ln 2 */
    float r = fmaf(q, -0x1.62e430p-1f, -0.5f * hi) - 0x1.d67f1cp-1f;
    r += fmaf(q, 0x1.05c610p-29f, fmaf(lo, -0.5f, -0x1.0c97d6p-26f));
    float r2 = r * r, r4 = r2 * r2;
    float e = fmaf(r4, fmaf(1.0f / 5040.0f, r, 1.0f / 720.0f),
                   fmaf(r2, fmaf(1.0f / 120.0f, r, 1.0f / 24.0f), fmaf(1.0f / 6.0f, r, 0.5f)));
    int32_t b = ((int32_t)q + 40 + 127) << 23;            /* q in [-155, -1]: 2^(q + 40) is a normal float */
    memcpy(s, &b, 4);
    return fmaf(e, r2, r) + 1.0f;
}

static inline float gt_mills(float t) {
    float t2 = t * t, t4 = t2 * t2;  /* Estrin's scheme */
    float p = fmaf(t4, fmaf(0x1.241efep-9f, t, 0x1.de02ecp-6f),
                   fmaf(t2, fmaf(0x1.6dfa72p-3f, t, 0x1.41876ap-1f), fmaf(0x1.45a78cp+0f, t, 0x1.40d932p+0f)));
    float d = fmaf(t4, fmaf(t2, 0x1.241f16p-9f, fmaf(0x1.de0224p-6f, t, 0x1.728ddap-3f)),
                   fmaf(t2, fmaf(0x1.506a7ap-1f, t, 0x1.729074p+0f), fmaf(0x1.d017d6p+0f, t, 1.0f)));
    return p / d;
}

/* onednn512: oneDNN's AVX-512 overflow, x (1 + erf) first: inf from x = 2^127 on, NaN at +inf (else gelu(+inf) =
   inf).  The negative side is <= -0.0 (NaN for -inf and NaN): zeros keep x's sign. */
static inline float gt_geluf_signed(float x, int onednn512) {
    float t = fabsf(x);
    t = t > 14.6f ? 14.6f : t;
    float s, e = gt_gauss_parts(t, &s);
    float m = e * gt_mills(t) * s;                        /* Phi(-t) 2^40 */
    float pos = x * (1.0f - m * 0x1p-40f);
    pos = onednn512 ? (x < 0x1p127f ? pos : x * 2.0f) + (x - x) : pos;
    float neg = ((t * m) * -0x1p-40f) * (1.0f + (x - x));
    return x > 0 ? pos : (x == 0 ? x : neg);
}

/* torch's own kernel (GeluKernel: x * 0.5 * (1 + erf)) and its inductor code: gelu(+inf) = inf, signed zeros */
static inline float gt_geluf(float x) { return gt_geluf_signed(x, 0); }
/* torch's oneDNN eltwise gelu_erf (Note [gelu's special values follow torch's kernel] in activation.py): on
   AVX-512 cores gelu(+inf) = NaN, gelu(x >= 2^127) = inf and zeros keep their sign; with AVX2 (or less)
   gelu(+inf) = inf and every zero result is +0.0 (-0.0 + 0.0 = +0.0, all other values unchanged). */
static inline float gt_geluf_onednn(float x, int avx512) {
    return avx512 ? gt_geluf_signed(x, 1) : gt_geluf_signed(x, 0) + 0.0f;
}

static inline float gt_gelu_backward(float g, float x) {
    float t = fabsf(x);
    t = t > 14.6f ? 14.6f : t;
    float s, e = gt_gauss_parts(t, &s);
    float d = e * (gt_mills(t) - t) * s * 0x1p-40f;       /* exact but for the last product's one rounding */
    return g * ((x > 0 ? 1.0f - d : d) + (x - x));
}

static inline double gt_gelu_d(double x) { return x * 0.5 * erfc(-x * 0.70710678118654752); }

static inline double gt_gelu_backward_d(double g, double x) {
    return g * (0.5 * erfc(-x * 0.70710678118654752) + x * exp(-0.5 * x * x) * 0.3989422804014327);
}

"""

_DRIVERS = r"""
typedef void (*gt_urow)(const char *, int64_t, char *, int64_t, int64_t, int);
typedef void (*gt_brow)(const char *, int64_t, const char *, int64_t, char *, int64_t, int64_t, int);

static int gt_threads(int nt, int64_t total) {
    int64_t most = total / GT_GRAIN;  /* at least one grain per thread */
    if (most < 1) most = 1;
    return nt < most ? nt : (int)most;
}

/* Offsets (in elements) of row r of an n-d space whose last dim is the row, for up to three operands. */
static inline void gt_row_offsets(int64_t r, int64_t nd, const int64_t *sz, const int64_t *s0, const int64_t *s1,
                                  const int64_t *s2, int64_t *o0, int64_t *o1, int64_t *o2) {
    int64_t a = 0, b = 0, c = 0;
    for (int64_t d = nd - 2; d >= 0; d--) {
        int64_t i = r % sz[d];
        r /= sz[d];
        a += i * s0[d];
        b += i * s1[d];
        if (s2) c += i * s2[d];
    }
    *o0 = a; *o1 = b; *o2 = c;
}

/* The unary driver: sz/sx/so are sizes and element strides, ex/eo element sizes, nt the thread budget. */
void gt_unary(void *fn, int64_t nd, const int64_t *sz, const int64_t *sx, const int64_t *so, const char *x,
              char *o, int64_t ex, int64_t eo, int nt) {
    gt_urow f = (gt_urow)fn;
    int64_t inner = sz[nd - 1], rows = 1;
    for (int64_t d = 0; d < nd - 1; d++) rows *= sz[d];
    if (rows * inner == 0) return;
    nt = gt_threads(nt, rows * inner);
    int st = GT_STREAM && rows * inner * eo >= gt_stream_bytes;
    int64_t ix = sx[nd - 1], io = so[nd - 1];
    if (rows == 1) {
        if (nt <= 1) { f(x, ix, o, io, inner, st); return; }
        #pragma omp parallel num_threads(nt)
        {
#ifdef _OPENMP
            int64_t t = omp_get_thread_num(), k = omp_get_num_threads();
#else
            int64_t t = 0, k = 1;
#endif
            int64_t lo = (inner * t / k) & ~(int64_t)15, hi = t == k - 1 ? inner : (inner * (t + 1) / k) & ~(int64_t)15;
            if (hi > lo) f(x + lo * ix * ex, ix, o + lo * io * eo, io, hi - lo, st);
        }
        return;
    }
    #pragma omp parallel for num_threads(nt) if(nt > 1) schedule(static)
    for (int64_t r = 0; r < rows; r++) {
        int64_t a, b, c;
        gt_row_offsets(r, nd, sz, sx, so, 0, &a, &b, &c);
        f(x + a * ex, ix, o + b * eo, io, inner, st);
    }
}

/* The binary driver: operands a, b and output o share one element size es. */
void gt_binary(void *fn, int64_t nd, const int64_t *sz, const int64_t *sa, const int64_t *sb, const int64_t *so,
               const char *a, const char *b, char *o, int64_t es, int nt) {
    gt_brow f = (gt_brow)fn;
    int64_t inner = sz[nd - 1], rows = 1;
    for (int64_t d = 0; d < nd - 1; d++) rows *= sz[d];
    if (rows * inner == 0) return;
    nt = gt_threads(nt, rows * inner);
    int st = GT_STREAM && rows * inner * es >= gt_stream_bytes;
    int64_t ia = sa[nd - 1], ib = sb[nd - 1], io = so[nd - 1];
    if (rows == 1) {
        if (nt <= 1) { f(a, ia, b, ib, o, io, inner, st); return; }
        #pragma omp parallel num_threads(nt)
        {
#ifdef _OPENMP
            int64_t t = omp_get_thread_num(), k = omp_get_num_threads();
#else
            int64_t t = 0, k = 1;
#endif
            int64_t lo = (inner * t / k) & ~(int64_t)15, hi = t == k - 1 ? inner : (inner * (t + 1) / k) & ~(int64_t)15;
            if (hi > lo) f(a + lo * ia * es, ia, b + lo * ib * es, ib, o + lo * io * es, io, hi - lo, st);
        }
        return;
    }
    #pragma omp parallel for num_threads(nt) if(nt > 1) schedule(static)
    for (int64_t r = 0; r < rows; r++) {
        int64_t p, q, s;
        gt_row_offsets(r, nd, sz, sa, sb, so, &p, &q, &s);
        f(a + p * es, ia, b + q * es, ib, o + s * es, io, inner, st);
    }
}

/* -- TensorIterator's layout work in C, read straight from numpy's array objects --------------------------------
   The first fields of numpy's array object (PyArrayObject_fields in numpy/ndarraytypes.h, after PyObject_HEAD);
   ckernels passes the arrays themselves (ctypes.py_object) and checks this layout once with gt_probe at load. */
typedef struct {
    intptr_t ob_refcnt;
    void *ob_type;
    char *data;
    int nd;
    const int64_t *dims;
    const int64_t *strides;
} gt_ndarray;

#define GT_MAXD 16

/* What this struct reads from a: data and nd, then (deep, once those matched numpy's own view) dims... and
   strides...; ckernels compares them with numpy's answers before it trusts the layout. */
void gt_probe(const gt_ndarray *a, int64_t *info, int deep) {
    info[0] = (int64_t)(intptr_t)a->data;
    info[1] = a->nd;
    for (int d = 0; deep && d < a->nd && d < GT_MAXD; d++) {
        info[2 + d] = a->dims[d];
        info[2 + GT_MAXD + d] = a->strides[d];
    }
}

/* Byte extent [lo, hi) of an array's elements. */
static void gt_extent(const gt_ndarray *a, int64_t es, intptr_t *lo, intptr_t *hi) {
    intptr_t l = (intptr_t)a->data, h = l + es;
    for (int d = 0; d < a->nd; d++) {
        int64_t span = (a->dims[d] - 1) * a->strides[d];
        if (span < 0) l += span; else h += span;
    }
    *lo = l; *hi = h;
}

/* An input that may overlap the output with another layout (a.copy_(a.t())): the caller's numpy path buffers it. */
static int gt_aliased(const gt_ndarray *x, int64_t ex, const gt_ndarray *o, int64_t eo) {
    int same = x->nd == o->nd && ex == eo;
    for (int d = 0; same && d < x->nd; d++) same = x->dims[d] == o->dims[d] && x->strides[d] == o->strides[d];
    if (same) return 0;
    intptr_t xl, xh, ol, oh;
    gt_extent(x, ex, &xl, &xh);
    gt_extent(o, eo, &ol, &oh);
    return xl < oh && ol < xh;
}

/* TensorIterator's layout for k operands (the output last) broadcast to the output's shape: element strides (0
   along broadcast dims), dims sorted by the output's strides (largest first, stable: reorder_dimensions) and
   neighbours merged where every operand allows it (coalesce_dimensions).  Returns the number of dims, or -1 when
   the arrays do not fit (shapes that do not broadcast, strides that are not whole elements, too many dims). */
static int gt_plan(int k, const gt_ndarray *const *ops, const int64_t *es, int64_t *sz, int64_t st[][GT_MAXD]) {
    const gt_ndarray *o = ops[k - 1];
    int nd = o->nd;
    if (nd > GT_MAXD) return -1;
    int64_t raw[3][GT_MAXD];
    for (int i = 0; i < k; i++) {
        const gt_ndarray *a = ops[i];
        int lead = nd - a->nd;
        if (lead < 0) return -1;
        for (int d = 0; d < nd; d++) {
            int64_t s = 0;
            if (d >= lead && a->dims[d - lead] != 1) {
                if (a->dims[d - lead] != o->dims[d] || a->strides[d - lead] % es[i]) return -1;
                s = a->strides[d - lead] / es[i];
            }
            raw[i][d] = s;
        }
    }
    int order[GT_MAXD];
    for (int d = 0; d < nd; d++) {  /* insertion sort by |output stride|, largest first, ties keep their order */
        int64_t key = llabs(raw[k - 1][d]);
        int j = d;
        while (j > 0 && llabs(raw[k - 1][order[j - 1]]) < key) { order[j] = order[j - 1]; j--; }
        order[j] = d;
    }
    int m = 0;
    for (int d = 0; d < nd; d++) {
        int64_t n = o->dims[order[d]];
        int merge = m > 0;
        for (int i = 0; merge && i < k; i++)
            merge = n == 1 || sz[m - 1] == 1 || st[i][m - 1] == raw[i][order[d]] * n;
        if (merge) {  /* the merged dim steps like its inner part (or like the outer one when the inner has size 1) */
            if (n != 1) for (int i = 0; i < k; i++) st[i][m - 1] = raw[i][order[d]];
            sz[m - 1] *= n;
        } else {
            for (int i = 0; i < k; i++) st[i][m] = raw[i][order[d]];
            sz[m++] = n;
        }
    }
    if (m == 0) { sz[0] = 1; for (int i = 0; i < k; i++) st[i][0] = 0; m = 1; }
    return m;
}

/* out = f(x) over numpy arrays x (broadcast to out's shape) and out; 0 when done, 1 when the caller must use numpy
   (a layout gt_plan refuses, or an input overlapping the output with another layout). */
int gt_unary_nd(void *fn, const gt_ndarray *x, const gt_ndarray *o, int64_t ex, int64_t eo, int nt) {
    const gt_ndarray *ops[2] = {x, o};
    int64_t es[2] = {ex, eo}, sz[GT_MAXD], st[2][GT_MAXD];
    int nd = gt_plan(2, ops, es, sz, st);
    if (nd < 0 || gt_aliased(x, ex, o, eo)) return 1;
    gt_unary(fn, nd, sz, st[0], st[1], x->data, o->data, ex, eo, nt);
    return 0;
}

/* out = f(a, b) over numpy arrays of one element size es (a and b broadcast; 0-d for scalars); as gt_unary_nd. */
int gt_binary_nd(void *fn, const gt_ndarray *a, const gt_ndarray *b, const gt_ndarray *o, int64_t es, int nt) {
    const gt_ndarray *ops[3] = {a, b, o};
    int64_t e[3] = {es, es, es}, sz[GT_MAXD], st[3][GT_MAXD];
    int nd = gt_plan(3, ops, e, sz, st);
    if (nd < 0 || gt_aliased(a, es, o, es) || gt_aliased(b, es, o, es)) return 1;
    gt_binary(fn, nd, sz, st[0], st[1], st[2], a->data, b->data, o->data, es, nt);
    return 0;
}
"""

# float32 gelu with the specials of torch's own kernel, of oneDNN with AVX2 and of oneDNN on AVX-512 cores
_GELU_F32 = {"gelu": "gt_geluf({})", "gelu_onednn": "gt_geluf_onednn({}, 0)",
             "gelu_onednn512": "gt_geluf_onednn({}, 1)"}

# unary operations: name -> {dtype char: (C expression of x, fix-up or None)}.  A fix-up (condition, expression)
# recomputes the elements where the condition holds after the vectorized pass (libm for sin's large arguments).
UNARY = {
    "relu": {"f": ("x < 0 ? 0.0f : x", None), "d": ("x < 0 ? 0.0 : x", None)},
    "exp": {"f": ("gt_expf(x)", None)},
    "sin": {"f": ("gt_sinf(x)", ("!(fabsf(x) <= 65536.0f)", "sinf(x)"))},
    "erf": {"f": ("gt_erff(x)", None), "d": ("erf(x)", None)},
    "erfc": {"f": ("gt_erfcf(x)", None), "d": ("erfc(x)", None)},
    "gelu": {"f": (_GELU_F32["gelu"].format("x"), None), "d": ("gt_gelu_d(x)", None)},
    "gelu_onednn": {"f": (_GELU_F32["gelu_onednn"].format("x"), None)},
    "gelu_onednn512": {"f": (_GELU_F32["gelu_onednn512"].format("x"), None)},
}

# Block splits: (bound, expression for blocks where every |x| < bound, expression where every |x| >= bound);
# blocks of both kinds (and NaN) use the full expression, which selects per element.
SPLIT = {
    ("erf", "f"): (1.0, "gt_erff_small(x)", "gt_erff_big(x)"),
}

# element-wise conversions (copy_): (source char, destination char)
CASTS = (("f", "f"), ("d", "d"), ("f", "d"), ("d", "f"))

# binary operations: name -> {dtype char: C expression of a and b}
BINARY = {
    "add": {"f": "a + b", "d": "a + b"},
    "sub": {"f": "a - b", "d": "a - b"},
    "mul": {"f": "a * b", "d": "a * b"},
    "div": {"f": "a / b", "d": "a / b"},
    "gelu_backward": {"f": "gt_gelu_backward(a, b)", "d": "gt_gelu_backward_d(a, b)"},
}


def gelu_loop(onednn: bool) -> str:
    """The float32 gelu of :data:`UNARY` with the specials of torch's oneDNN at this CPU's ISA (``onednn``: an input
    torch hands to oneDNN), else of torch's own kernel (Note [gelu's special values follow torch's kernel])."""
    if not (onednn and _cpu.is_x86()):
        return "gelu"
    return "gelu_onednn512" if _cpu.onednn_avx512() else "gelu_onednn"


def gelu_f32(onednn: bool, arg: str = "x") -> str:
    """The C expression of :func:`gelu_loop`'s float32 gelu of ``arg`` (the inductor inlines it)."""
    return _GELU_F32[gelu_loop(onednn)].format(arg)


def row_name(kind: str, op: str, *chars: str) -> str:
    return f"gt_{kind}_{op}_{''.join(chars)}"


_BLOCK = 1024  # elements per block of the contiguous loops (input, output and scratch stay in L1)


def _bits(bound: float) -> str:
    return f"0x{struct.unpack('<I', struct.pack('<f', bound))[0]:08x}u"


def _block_body(load: str, key: str, expr: str, fix, split) -> str:
    """C statements for one block: ``load`` reads element ``j`` (into x, or a and b), results go to ``D[j]``."""
    def loop(e, extra=""):
        # ivdep: element j reads inputs at j and writes D[j] only, so an in-place call (D == an input) carries no
        # dependence between iterations — without it gcc's runtime alias check sends x.mul_(y) to scalar code
        return f"_Pragma(\"GCC ivdep\") for (int64_t j = 0; j < m; j++) {{ {load}{extra} D[j] = {e}; }}"
    if split is not None:
        bound, small, big = split
        return (f"uint32_t any_big = 0, any_small = 0;\n"
                f"            for (int64_t j = 0; j < m; j++) {{ {load} uint32_t k; memcpy(&k, &{key}, 4); "
                f"k &= 0x7fffffffu; any_big |= k >= {_bits(bound)}; any_small |= k < {_bits(bound)}; }}\n"
                f"            if (!any_big) {loop(small)}\n"
                f"            else if (!any_small) {loop(big)}\n"
                f"            else {loop(expr)}")
    if fix is not None:
        cond, fexpr = fix
        return (f"uint32_t any = 0;\n"
                f"            {loop(expr, f' any |= ({cond});')}\n"
                f"            if (any) for (int64_t j = 0; j < m; j++) {{ {load} if ({cond}) D[j] = {fexpr}; }}")
    return loop(expr)


def _contiguous(to: str, setup: str, body: str) -> str:
    """The contiguous loop, block by block; long rows compute each block into an L1 scratch buffer and stream it
    to memory with non-temporal stores (no read-for-ownership of output lines that are not cached anyway)."""
    return f"""{to} buf[{_BLOCK}] __attribute__((aligned(32)));
        for (int64_t i0 = 0; i0 < n; i0 += {_BLOCK}) {{
            int64_t m = n - i0 < {_BLOCK} ? n - i0 : {_BLOCK};
            {setup}
            {to} *D = stream ? buf : O + i0;
            {body}
            if (stream) gt_stream_{to}(O + i0, buf, m);
        }}
        if (stream) gt_sfence();"""


def _unary_row(name, ti, to, expr, fix, split=None) -> str:
    body = _block_body(f"{ti} x = Xb[j];", "x", f"({to})({expr})", fix, split)
    fix_s = ""
    if fix is not None:
        fix_s = (f"\n        for (int64_t i = 0; i < n; i++) {{ {ti} x = X[i * sx]; if ({fix[0]}) O[i * so] = "
                 f"{fix[1]}; }}")
    return f"""
void {name}(const char *xp, int64_t sx, char *op, int64_t so, int64_t n, int stream) {{
    const {ti} *X = (const {ti} *)xp;
    {to} *O = ({to} *)op;
    if (sx == 1 && so == 1) {{
        {_contiguous(to, f"const {ti} *Xb = X + i0;", body)}
    }} else {{
        for (int64_t i = 0; i < n; i++) {{ {ti} x = X[i * sx]; O[i * so] = ({to})({expr}); }}{fix_s}
    }}
}}
"""


def _binary_row(name, t, expr, split=None) -> str:
    def contiguous(ia, ib, sp):
        setup = f"const {t} *Ab = A + {ia}, *Bb = B + {ib};"
        load = f"{t} a = Ab[{'j' if ia != '0' else '0'}], b = Bb[{'j' if ib != '0' else '0'}];"
        return _contiguous(t, setup, _block_body(load, "b", expr, None, sp))
    return f"""
void {name}(const char *ap, int64_t sa, const char *bp, int64_t sb, char *op, int64_t so, int64_t n, int stream) {{
    const {t} *A = (const {t} *)ap, *B = (const {t} *)bp;
    {t} *O = ({t} *)op;
    if (so == 1 && sa == 1 && sb == 1) {{
        {contiguous("i0", "i0", split)}
    }} else if (so == 1 && sa == 1 && sb == 0) {{
        {contiguous("i0", "0", None)}
    }} else if (so == 1 && sa == 0 && sb == 1) {{
        {contiguous("0", "i0", None)}
    }} else {{
        for (int64_t i = 0; i < n; i++) {{ {t} a = A[i * sa], b = B[i * sb]; O[i * so] = {expr}; }}
    }}
}}
"""


def source() -> str:
    """The whole C translation unit: helpers, drivers, and one row function per table entry."""
    parts = [_HELPERS + MATH + _DRIVERS]
    for op, by_dtype in UNARY.items():
        for ch, (expr, fix) in by_dtype.items():
            parts.append(_unary_row(row_name("u", op, ch), CTYPE[ch], CTYPE[ch], expr, fix, SPLIT.get((op, ch))))
    for src, dst in CASTS:
        parts.append(_unary_row(row_name("u", "copy", src, dst), CTYPE[src], CTYPE[dst], "x", None))
    for op, by_dtype in BINARY.items():
        for ch, expr in by_dtype.items():
            parts.append(_binary_row(row_name("b", op, ch), CTYPE[ch], expr, SPLIT.get((op, ch))))
    return "".join(parts)
