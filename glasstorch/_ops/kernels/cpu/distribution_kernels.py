"""The arithmetic of PyTorch's CPU samplers, bit for bit — ``ATen/core/TransformationHelper.h``,
``native/cpu/DistributionTemplates.h`` (``NormalFill16``, ``normal_fill``), ``native/cpu/avx_mathfun.h`` and
``native/TensorFactories.cpp`` (``randperm_cpu``).

Each function turns raw mt19937 words (``Generator.random``/``random64``) into numbers.  PyTorch's wheels are
built by GCC in GNU mode, which contracts ``a * b + c`` into one fused multiply-add where the target has one, so
the equal numbers need the same fusions: ``uniform_real``'s ``x * (to - from) + from`` and the normal transform
``val * std + mean`` are fused, and so are the multiply-adds of ``log256_ps``/``sincos256_ps`` (see Note [The
AVX2 normal path]).  A small C library (``glasstorch._cbuild``) computes these with ``fma``/``fmaf`` and the C
library's ``log``/``log1p``/``sin``/``cos`` — the functions PyTorch calls — and runs randperm's Fisher-Yates
loop.  Without a C compiler (or with ``GLASSTORCH_DISABLE_CKERNELS=1``) numpy computes the same formulas
without the fusions and with its own transcendental functions: the same distribution, the last bit may differ.

Note [The AVX2 normal path]
PyTorch registers ``normal_stub`` for AVX2 but not AVX512 (REGISTER_NO_AVX512_DISPATCH), so every x86 machine
with AVX2 fills float32, float16 and bfloat16 tensors of 16 elements and more through ``NormalFill16<float>``'s
AVX2 code: Box-Muller on blocks of 16 uniforms (the first 8 give ``u1 = 1 - u``, the last 8 ``u2``), with
Pommier's ``log256_ps`` and ``sincos256_ps``.  GCC fuses their polynomial steps; which product joins which
sum was read off the instruction order (the first product of an ``a*b + c*d`` fuses, ``c*d`` stays) and checked
against PyTorch on 320,000 samples.  The C here writes those steps one lane at a time with ``fmaf``.

Invariant: with the C library, every function returns PyTorch's numbers for the same words.
"""

from __future__ import annotations

import ctypes
import math
import threading

import numpy as np

from .ckernels import compile_library

__all__ = ["words", "words64", "uniform_real_f32", "uniform_real_f64", "uniform_f32", "uniform_f64", "normal16_f32",
           "normal16_f64", "normal_scalar", "box_muller", "fma_f64", "exponential", "randperm_small", "randperm_large",
           "cauchy", "geometric", "exp", "mcg31_bernoulli", "available"]

_SOURCE = r"""
#include <math.h>
#include <stdint.h>
#include <string.h>

/* numpy's mt19937_state, worked on in place: the reference generator (PyTorch's twist and tempering) */
typedef struct { uint32_t key[624]; int pos; } gt_mt_state;

static void gt_mt_twist(gt_mt_state* st) {
  uint32_t* k = st->key;
  int i;
  for (i = 0; i < 624 - 397; i++) {
    uint32_t y = (k[i] & 0x80000000u) | (k[i + 1] & 0x7fffffffu);
    k[i] = k[i + 397] ^ (y >> 1) ^ (-(y & 1u) & 0x9908b0dfu);
  }
  for (; i < 623; i++) {
    uint32_t y = (k[i] & 0x80000000u) | (k[i + 1] & 0x7fffffffu);
    k[i] = k[i + 397 - 624] ^ (y >> 1) ^ (-(y & 1u) & 0x9908b0dfu);
  }
  uint32_t y = (k[623] & 0x80000000u) | (k[0] & 0x7fffffffu);
  k[623] = k[396] ^ (y >> 1) ^ (-(y & 1u) & 0x9908b0dfu);
  st->pos = 0;
}

static inline uint32_t gt_mt_next(gt_mt_state* st) {
  if (st->pos == 624) gt_mt_twist(st);
  uint32_t y = st->key[st->pos++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  return y ^ (y >> 18);
}

void gt_mt_words(gt_mt_state* st, int64_t n, uint64_t* out) {
  for (int64_t i = 0; i < n; i++) out[i] = gt_mt_next(st);
}

/* random64(): the first word is the high half */
void gt_mt_words64(gt_mt_state* st, int64_t n, uint64_t* out) {
  for (int64_t i = 0; i < n; i++) {
    uint64_t hi = gt_mt_next(st);
    out[i] = (hi << 32) | gt_mt_next(st);
  }
}

/* uniform_real<float> straight from the engine: blocks of words, then the conversion (vectorised) */
/* with clamp, a value equal to `to` becomes `from` (uniform_kernel's check, for a float32/float64 output) */
void gt_mt_uniform_f32(gt_mt_state* st, int64_t n, float from, float to, float* out, int clamp) {
  const float range = to - from;
  uint32_t w[1024];
  for (int64_t base = 0; base < n; base += 1024) {
    int64_t m = n - base < 1024 ? n - base : 1024;
    for (int64_t i = 0; i < m; i++) w[i] = gt_mt_next(st);
    for (int64_t i = 0; i < m; i++) {
      float v = fmaf((float)(w[i] & 0xFFFFFFu) * (1.0f / 16777216.0f), range, from);
      out[base + i] = clamp && v == to ? from : v;
    }
  }
}

void gt_mt_uniform_f64(gt_mt_state* st, int64_t n, double from, double to, double* out, int clamp) {
  const double range = to - from;
  for (int64_t i = 0; i < n; i++) {
    uint64_t hi = gt_mt_next(st), lo = gt_mt_next(st);
    double x = (double)(((hi << 32) | lo) & ((1ull << 53) - 1)) * (1.0 / 9007199254740992.0);
    double v = fma(x, range, from);
    out[i] = clamp && v == to ? from : v;
  }
}

static inline double gt_mt_unit64(gt_mt_state* st) {
  uint64_t hi = gt_mt_next(st), lo = gt_mt_next(st);
  return (double)(((hi << 32) | lo) & ((1ull << 53) - 1)) * (1.0 / 9007199254740992.0);
}

/* normal_distribution<double>(mean, std), n draws: the cached second value first (cache[1] != 0 marks it),
   then Box-Muller pairs; an odd last pair leaves its sine value in the cache */
void gt_mt_normal_scalar(gt_mt_state* st, int64_t n, double mean, double std, double* cache, double* out) {
  const double two_pi = 2.0 * 3.14159265358979323846;
  int64_t i = 0;
  if (n > 0 && cache[1] != 0.0) {
    out[0] = fma(cache[0], std, mean);
    cache[1] = 0.0;
    i = 1;
  }
  for (; i < n; i += 2) {
    double u1 = gt_mt_unit64(st), u2 = gt_mt_unit64(st);
    double r = sqrt(-2.0 * log1p(-u2));
    double theta = two_pi * u1;
    double c = r * cos(theta), s = r * sin(theta);
    out[i] = fma(c, std, mean);
    if (i + 1 < n) {
      out[i + 1] = fma(s, std, mean);
    } else {
      cache[0] = s;
      cache[1] = 1.0;
    }
  }
}

/* randperm_cpu's small-n shuffle, drawing as it goes (n < 2^32: the remainder in 32 bits is the same) */
void gt_mt_randperm_small(gt_mt_state* st, int64_t n, int64_t* r) {
  for (int64_t i = 0; i < n; i++) r[i] = i;
  for (int64_t i = 0; i < n - 1; i++) {
    int64_t z = (int64_t)(gt_mt_next(st) % (uint32_t)(n - i));
    int64_t t = r[i]; r[i] = r[z + i]; r[z + i] = t;
  }
}

static inline uint32_t fbits(float x) { uint32_t b; memcpy(&b, &x, 4); return b; }
static inline float bitsf(uint32_t b) { float x; memcpy(&x, &b, 4); return x; }

/* uniform_real<float>: (w & (2^24 - 1)) * 2^-24, then fma(x, to - from, from) */
void gt_uniform_f32(const uint64_t* w, int64_t n, float from, float to, float* out) {
  const float range = to - from;
  for (int64_t i = 0; i < n; i++) {
    float x = (float)(uint32_t)(w[i] & 0xFFFFFFu) * (1.0f / 16777216.0f);
    out[i] = fmaf(x, range, from);
  }
}

/* uniform_real<double> over random64(): words 2i (high) and 2i+1 (low) */
void gt_uniform_f64(const uint64_t* w, int64_t n, double from, double to, double* out) {
  const double range = to - from;
  for (int64_t i = 0; i < n; i++) {
    uint64_t v = (w[2 * i] << 32) | w[2 * i + 1];
    double x = (double)(v & ((1ull << 53) - 1)) * (1.0 / 9007199254740992.0);
    out[i] = fma(x, range, from);
  }
}

/* log256_ps, one lane, with GCC's fusions */
static inline float gt_log_ps(float x) {
  int invalid = !(x > 0.0f);
  const float min_norm = bitsf(0x00800000u);
  x = x > min_norm ? x : min_norm;  /* maxps: the second operand when x is NaN */
  uint32_t b = fbits(x);
  int32_t imm0 = (int32_t)(b >> 23) - 0x7f;
  x = bitsf((b & ~0x7f800000u) | fbits(0.5f));
  float e = (float)imm0 + 1.0f;
  int mask = x < 0.707106781186547524f;
  float tmp = mask ? x : 0.0f;
  x = x - 1.0f;
  e = e - (mask ? 1.0f : 0.0f);
  x = x + tmp;
  float z = x * x;
  float y = 7.0376836292E-2f;
  y = fmaf(y, x, -1.1514610310E-1f);
  y = fmaf(y, x, 1.1676998740E-1f);
  y = fmaf(y, x, -1.2420140846E-1f);
  y = fmaf(y, x, 1.4249322787E-1f);
  y = fmaf(y, x, -1.6668057665E-1f);
  y = fmaf(y, x, 2.0000714765E-1f);
  y = fmaf(y, x, -2.4999993993E-1f);
  y = fmaf(y, x, 3.3333331174E-1f);
  y = y * x;
  y = fmaf(y, z, e * -2.12194440e-4f);
  y = fmaf(-z, 0.5f, y);
  x = x + y;
  x = fmaf(e, 0.693359375f, x);
  return invalid ? bitsf(0xFFFFFFFFu) : x;
}

/* sincos256_ps, one lane, with GCC's fusions */
static inline void gt_sincos_ps(float x, float* s, float* c) {
  uint32_t sign_sin = fbits(x) & 0x80000000u;
  x = fabsf(x);
  float y = x * 1.27323954473516f;
  int32_t j = (int32_t)y;
  j = (j + 1) & ~1;
  y = (float)j;
  uint32_t swap_sin = ((uint32_t)(j & 4)) << 29;
  int poly = (j & 2) == 0;
  x = fmaf(y, -0.78515625f, x);
  x = fmaf(y, -2.4187564849853515625e-4f, x);
  x = fmaf(y, -3.77489497744594108e-8f, x);
  uint32_t sign_cos = ((uint32_t)(~(j - 2) & 4)) << 29;
  sign_sin ^= swap_sin;
  float z = x * x;
  float yc = fmaf(2.443315711809948E-005f, z, -1.388731625493765E-003f);
  yc = fmaf(yc, z, 4.166664568298827E-002f);
  yc = yc * z;
  yc = fmaf(yc, z, -(z * 0.5f));
  yc = yc + 1.0f;
  float ys = fmaf(-1.9515295891E-4f, z, 8.3321608736E-3f);
  ys = fmaf(ys, z, -1.6666654611E-1f);
  ys = ys * z;
  ys = fmaf(ys, x, x);
  *s = bitsf(fbits(poly ? ys : yc) ^ sign_sin);
  *c = bitsf(fbits(poly ? yc : ys) ^ sign_cos);
}

/* NormalFill16<float> (AVX2): uniforms in place -> normals, nblocks blocks of 16 */
void gt_normal16_f32(float* d, int64_t nblocks, float mean, float std) {
  const float two_pi = (float)(2.0 * 3.14159265358979323846);
  for (int64_t b = 0; b < nblocks; b++, d += 16) {
    for (int j = 0; j < 8; j++) {
      float u1 = 1.0f - d[j], u2 = d[j + 8];
      float radius = sqrtf(-2.0f * gt_log_ps(u1));
      float s, c;
      gt_sincos_ps(two_pi * u2, &s, &c);
      d[j] = fmaf(radius * c, std, mean);
      d[j + 8] = fmaf(radius * s, std, mean);
    }
  }
}

/* NormalFill16<double>: the scalar template, libm */
void gt_normal16_f64(double* d, int64_t nblocks, double mean, double std) {
  const double two_pi = 2.0 * 3.14159265358979323846;
  for (int64_t b = 0; b < nblocks; b++, d += 16) {
    for (int j = 0; j < 8; j++) {
      double u1 = 1.0 - d[j], u2 = d[j + 8];
      double radius = sqrt(-2.0 * log(u1));
      double theta = two_pi * u2;
      d[j] = fma(radius * cos(theta), std, mean);
      d[j + 8] = fma(radius * sin(theta), std, mean);
    }
  }
}

/* normal_distribution<double>: pairs (u1, u2) -> (r cos, r sin), unscaled */
void gt_box_muller(const double* u, int64_t npairs, double* out) {
  const double two_pi = 2.0 * 3.14159265358979323846;
  for (int64_t i = 0; i < npairs; i++) {
    double r = sqrt(-2.0 * log1p(-u[2 * i + 1]));
    double theta = two_pi * u[2 * i];
    out[2 * i] = r * cos(theta);
    out[2 * i + 1] = r * sin(theta);
  }
}

void gt_fma_f64(const double* x, int64_t n, double std, double mean, double* out) {
  for (int64_t i = 0; i < n; i++) out[i] = fma(x[i], std, mean);
}

/* transformation::exponential: -1 / lambda * log1p(-u) */
void gt_exponential(const double* u, int64_t n, double lambd, double* out) {
  const double k = -1.0 / lambd;
  for (int64_t i = 0; i < n; i++) out[i] = k * log1p(-u[i]);
}

/* transformation::cauchy<double>: median + sigma * tan(pi * (u - 0.5)), fused */
void gt_cauchy(const double* u, int64_t n, double median, double sigma, double* out) {
  const double pi = 3.14159265358979323846;
  for (int64_t i = 0; i < n; i++) out[i] = fma(sigma, tan(pi * (u[i] - 0.5)), median);
}

/* transformation::geometric<double>: ceil(log(u) / log1p(-p)) */
void gt_geometric(const double* u, int64_t n, double p, double* out) {
  const double d = log1p(-p);
  for (int64_t i = 0; i < n; i++) out[i] = ceil(log(u[i]) / d);
}

void gt_exp(const double* x, int64_t n, double* out) {
  for (int64_t i = 0; i < n; i++) out[i] = exp(x[i]);
}

/* MKL's VSL_BRNG_MCG31 stream (x <- a x mod 2^31 - 1 from x0 = seed mod m, or 1; u = x / m, rounded to float)
   through viRngBernoulli's ICDF method: 1 where u < (float)p */
void gt_mcg31_bernoulli(uint32_t seed, int64_t n, double p, int32_t* out) {
  const uint64_t a = 1132489760u, m = 2147483647u;
  uint64_t x = seed % m;
  if (x == 0) x = 1;
  const float pf = (float)p;
  for (int64_t i = 0; i < n; i++) {
    out[i] = (float)((double)x / (double)m) < pf;
    x = (a * x) % m;
  }
}

/* randperm_cpu, n < UINT32_MAX / 20: swap i with i + random() % (n - i) */
void gt_randperm_small(const uint64_t* w, int64_t n, int64_t* r) {
  for (int64_t i = 0; i < n; i++) r[i] = i;
  for (int64_t i = 0; i < n - 1; i++) {
    int64_t z = (int64_t)(w[i] % (uint64_t)(n - i));
    int64_t t = r[i]; r[i] = r[z + i]; r[z + i] = t;
  }
}

/* randperm_cpu, large n: the inside-out shuffle over random64() */
void gt_randperm_large(const uint64_t* w, int64_t n, int64_t* r) {
  for (int64_t i = 0; i < n; i++) {
    int64_t z = (int64_t)(w[i] % (uint64_t)(i + 1));
    r[i] = r[z];
    r[z] = i;
  }
}
"""

_state = {"lib": None, "tried": False, "engine": False}
_lock = threading.Lock()
_P = ctypes.c_void_p
_I64, _F32, _F64 = ctypes.c_int64, ctypes.c_float, ctypes.c_double
_SIGNATURES = {
    "gt_uniform_f32": (_P, _I64, _F32, _F32, _P), "gt_uniform_f64": (_P, _I64, _F64, _F64, _P),
    "gt_normal16_f32": (_P, _I64, _F32, _F32), "gt_normal16_f64": (_P, _I64, _F64, _F64),
    "gt_box_muller": (_P, _I64, _P), "gt_fma_f64": (_P, _I64, _F64, _F64, _P), "gt_exponential": (_P, _I64, _F64, _P),
    "gt_randperm_small": (_P, _I64, _P), "gt_randperm_large": (_P, _I64, _P),
    "gt_mt_words": (_P, _I64, _P), "gt_mt_words64": (_P, _I64, _P), "gt_mt_randperm_small": (_P, _I64, _P),
    "gt_mt_normal_scalar": (_P, _I64, _F64, _F64, _P, _P),
    "gt_mcg31_bernoulli": (ctypes.c_uint32, _I64, _F64, _P), "gt_cauchy": (_P, _I64, _F64, _F64, _P),
    "gt_geometric": (_P, _I64, _F64, _P), "gt_exp": (_P, _I64, _P),
    "gt_mt_uniform_f32": (_P, _I64, _F32, _F32, _P, ctypes.c_int),
    "gt_mt_uniform_f64": (_P, _I64, _F64, _F64, _P, ctypes.c_int),
}


def _lib():
    """The compiled library, or None (numpy) when there is no compiler or the C kernels are disabled."""
    if _state["tried"]:
        return _state["lib"]
    with _lock:
        if not _state["tried"]:
            lib = compile_library(_SOURCE, "distributions")
            if lib is not None:
                for name, argtypes in _SIGNATURES.items():
                    fn = getattr(lib, name)
                    fn.argtypes, fn.restype = argtypes, None
                _state["engine"] = _engine_agrees(lib)
            _state["lib"], _state["tried"] = lib, True
    return _state["lib"]


def _engine_agrees(lib) -> bool:
    """Whether the C engine, run on a numpy MT19937's state in place, continues its stream word for word (the
    state's layout is numpy's ``mt19937_state``: 624 words then ``pos``); if not, numpy draws every word."""
    a, b = np.random.MT19937(1234), np.random.MT19937(1234)
    want = a.random_raw(1500)
    got = np.empty(1500, np.uint64)
    lib.gt_mt_words(b.ctypes.state_address, 1500, _ptr(got))
    return bool(np.array_equal(want, got)) and bool(np.array_equal(a.random_raw(3), b.random_raw(3)))


def _engine(gen, n: int):
    """The address of ``gen``'s engine state for ``n`` draws in C, or None (draw through numpy)."""
    lib = _lib()
    if lib is None or not _state["engine"]:
        return None
    return gen.engine_address(n)


def _fused(x: np.ndarray, b, c) -> np.ndarray:
    """``fma(x, b, c)`` without C: float32 through float64 (the product is exact there), float64 through numpy's
    longdouble (x87's 64-bit mantissa on x86); a rounding can still land differently, rarely."""
    wide = np.float64 if x.dtype == np.float32 else np.longdouble
    return (x.astype(wide) * wide(b) + wide(c)).astype(x.dtype)


def available() -> bool:
    """Whether the bit-exact C library is in use."""
    return _lib() is not None


def _ptr(a: np.ndarray) -> int:
    assert a.flags.c_contiguous, "distribution kernels take contiguous buffers"
    return a.__array_interface__["data"][0]  # a.ctypes.data builds an interface object per call (microseconds)


# -- raw draws ------------------------------------------------------------------------------------------------
def words(gen, n: int) -> np.ndarray:
    """``n`` draws of ``random()`` (uint64 array of 32-bit words)."""
    addr = _engine(gen, n)
    if addr is None:
        return gen.random(n)
    out = np.empty(n, np.uint64)
    _state["lib"].gt_mt_words(addr, n, _ptr(out))
    return out


def words64(gen, n: int) -> np.ndarray:
    """``n`` draws of ``random64()``."""
    addr = _engine(gen, 2 * n)
    if addr is None:
        return gen.random64(n)
    out = np.empty(n, np.uint64)
    _state["lib"].gt_mt_words64(addr, n, _ptr(out))
    return out


# -- uniform_real ---------------------------------------------------------------------------------------------
def uniform_real_f32(gen, n: int, low: float, high: float, out=None, clamp: bool = False) -> np.ndarray:
    """``n`` draws of ``uniform_real_distribution<float>(low, high)`` from ``gen``, into ``out`` (contiguous
    float32) when given; ``clamp`` turns a value equal to ``high`` into ``low`` (``uniform_kernel``'s check)."""
    out = np.empty(n, np.float32) if out is None else out
    addr = _engine(gen, n)
    if addr is None:
        out[...] = uniform_f32(gen.random(n), low, high)
    else:
        _state["lib"].gt_mt_uniform_f32(addr, n, np.float32(low), np.float32(high), _ptr(out), clamp)
        return out
    if clamp:
        out[out == np.float32(high)] = np.float32(low)
    return out


def uniform_real_f64(gen, n: int, low: float, high: float, out=None, clamp: bool = False) -> np.ndarray:
    """``n`` draws of ``uniform_real_distribution<double>(low, high)`` (one ``random64()`` each) from ``gen``."""
    out = np.empty(n, np.float64) if out is None else out
    addr = _engine(gen, 2 * n)
    if addr is None:
        out[...] = uniform_f64(gen.random(2 * n), low, high)
    else:
        _state["lib"].gt_mt_uniform_f64(addr, n, float(low), float(high), _ptr(out), clamp)
        return out
    if clamp:
        out[out == high] = low
    return out


def uniform_f32(words: np.ndarray, low: float, high: float) -> np.ndarray:
    """``uniform_real<float>`` of 32-bit words: float32 in ``[low, high)`` (24 random bits each)."""
    lo, hi = np.float32(low), np.float32(high)
    lib = _lib()
    if lib is not None:
        out = np.empty(words.shape[0], np.float32)
        lib.gt_uniform_f32(_ptr(words), out.shape[0], lo, hi, _ptr(out))
        return out
    x = (words & np.uint64(0xFFFFFF)).astype(np.float32) * np.float32(2.0**-24)
    return _fused(x, hi - lo, lo)


def uniform_f64(words: np.ndarray, low: float, high: float) -> np.ndarray:
    """``uniform_real<double>`` of ``random64()`` values given as their word pairs: float64 in ``[low, high)``."""
    lib = _lib()
    if lib is not None:
        out = np.empty(words.shape[0] // 2, np.float64)
        lib.gt_uniform_f64(_ptr(words), out.shape[0], float(low), float(high), _ptr(out))
        return out
    v = (words[0::2] << np.uint64(32)) | words[1::2]
    x = (v & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0**-53
    return _fused(x, high - low, low)


# -- normal ---------------------------------------------------------------------------------------------------
def normal16_f32(data: np.ndarray, mean: float, std: float) -> None:
    """``NormalFill16<float>`` (AVX2) in place on float32 uniforms, ``len(data)`` a multiple of 16."""
    lib = _lib()
    if lib is not None:
        lib.gt_normal16_f32(_ptr(data), data.shape[0] // 16, np.float32(mean), np.float32(std))
        return
    _normal16_numpy(data, np.float32(mean), np.float32(std), np.float32)


def normal16_f64(data: np.ndarray, mean: float, std: float) -> None:
    """``NormalFill16<double>`` in place on float64 uniforms."""
    lib = _lib()
    if lib is not None:
        lib.gt_normal16_f64(_ptr(data), data.shape[0] // 16, float(mean), float(std))
        return
    _normal16_numpy(data, float(mean), float(std), np.float64)


def _normal16_numpy(data, mean, std, dt) -> None:
    blocks = data.reshape(-1, 16)
    u1, u2 = dt(1) - blocks[:, :8], blocks[:, 8:]
    radius = np.sqrt(dt(-2) * np.log(u1))
    theta = dt(2.0 * math.pi) * u2
    n1, n2 = radius * np.cos(theta), radius * np.sin(theta)
    blocks[:, :8] = n1 * std + mean
    blocks[:, 8:] = n2 * std + mean


def normal_scalar(gen, n: int, mean: float, std: float):
    """``n`` draws of ``normal_distribution<double>(mean, std)`` in one C call, using and refilling ``gen``'s
    cached second Box-Muller value; None when the C engine is not in use (the caller composes the steps)."""
    cached = gen.next_double_normal_sample
    m = n - (cached is not None)
    addr = _engine(gen, 4 * ((m + 1) // 2))
    if addr is None:
        return None
    cache = np.array([0.0 if cached is None else cached, float(cached is not None)])
    out = np.empty(n, np.float64)
    _state["lib"].gt_mt_normal_scalar(addr, n, float(mean), float(std), _ptr(cache), _ptr(out))
    gen.next_double_normal_sample = float(cache[0]) if cache[1] else None
    return out


def box_muller(u: np.ndarray) -> np.ndarray:
    """``normal_distribution<double>``'s pairs: ``u[2i], u[2i+1]`` -> ``r cos θ, r sin θ`` (mean 0, std 1)."""
    lib = _lib()
    if lib is not None:
        out = np.empty_like(u)
        lib.gt_box_muller(_ptr(u), u.shape[0] // 2, _ptr(out))
        return out
    r = np.sqrt(-2.0 * np.log1p(-u[1::2]))
    theta = 2.0 * math.pi * u[0::2]
    out = np.empty_like(u)
    out[0::2], out[1::2] = r * np.cos(theta), r * np.sin(theta)
    return out


def fma_f64(x: np.ndarray, std: float, mean: float) -> np.ndarray:
    """``transformation::normal``: ``x * std + mean``, fused."""
    lib = _lib()
    if lib is not None:
        x = np.ascontiguousarray(x, dtype=np.float64)
        out = np.empty_like(x)
        lib.gt_fma_f64(_ptr(x), x.shape[0], float(std), float(mean), _ptr(out))
        return out
    return _fused(x, std, mean)


def exponential(u: np.ndarray, lambd: float) -> np.ndarray:
    """``transformation::exponential``: ``-1 / lambd * log1p(-u)`` in float64."""
    lib = _lib()
    if lib is not None:
        out = np.empty_like(u)
        lib.gt_exponential(_ptr(u), u.shape[0], float(lambd), _ptr(out))
        return out
    return (-1.0 / lambd) * np.log1p(-u)


_MCG31_A, _MCG31_M = 1132489760, 2**31 - 1


def mcg31_bernoulli(seed: int, n: int, p: float) -> np.ndarray:
    """MKL's ``viRngBernoulli(VSL_RNG_METHOD_BERNOULLI_ICDF)`` over a ``VSL_BRNG_MCG31`` stream seeded with
    ``seed``: int32 0/1, 1 where ``float(x / m) < float(p)`` (checked against MKL's own library)."""
    out = np.empty(n, np.int32)
    lib = _lib()
    if lib is not None:
        lib.gt_mcg31_bernoulli(seed, n, float(p), _ptr(out))
        return out
    # numpy: blocks of 1024 states from the first one's and the powers a**i mod m (products stay below 2**62)
    block = 1024
    powers = np.empty(block, np.uint64)
    powers[0] = 1
    for i in range(1, block):
        powers[i] = powers[i - 1] * np.uint64(_MCG31_A) % np.uint64(_MCG31_M)
    step = int(powers[-1]) * _MCG31_A % _MCG31_M
    x = seed % _MCG31_M or 1
    for start in range(0, n, block):
        xs = np.uint64(x) * powers[: min(block, n - start)] % np.uint64(_MCG31_M)
        out[start:start + xs.size] = (xs / float(_MCG31_M)).astype(np.float32) < np.float32(p)
        x = x * step % _MCG31_M
    return out


def cauchy(u: np.ndarray, median: float, sigma: float) -> np.ndarray:
    """``transformation::cauchy<double>``: ``median + sigma * tan(pi * (u - 0.5))``."""
    lib = _lib()
    if lib is not None:
        out = np.empty_like(u)
        lib.gt_cauchy(_ptr(u), u.shape[0], float(median), float(sigma), _ptr(out))
        return out
    return median + sigma * np.tan(math.pi * (u - 0.5))


def geometric(u: np.ndarray, p: float) -> np.ndarray:
    """``transformation::geometric<double>``: ``ceil(log(u) / log1p(-p))``."""
    lib = _lib()
    if lib is not None:
        out = np.empty_like(u)
        lib.gt_geometric(_ptr(u), u.shape[0], float(p), _ptr(out))
        return out
    with np.errstate(divide="ignore"):
        return np.ceil(np.log(u) / math.log1p(-p))


def exp(x: np.ndarray) -> np.ndarray:
    """The C library's ``exp`` (``transformation::log_normal``)."""
    lib = _lib()
    if lib is not None:
        out = np.empty_like(x)
        lib.gt_exp(_ptr(x), x.shape[0], _ptr(out))
        return out
    return np.exp(x)


# -- randperm -------------------------------------------------------------------------------------------------
def randperm_small(gen, n: int) -> np.ndarray:
    """``randperm_cpu`` below ``UINT32_MAX / 20``: ``n - 1`` swaps, each with ``i + random() % (n - i)``."""
    out = np.empty(n, np.int64)
    addr = _engine(gen, max(n - 1, 0))
    if addr is not None:
        _state["lib"].gt_mt_randperm_small(addr, n, _ptr(out))
        return out
    words = gen.random(max(n - 1, 0))
    lib = _lib()
    if lib is not None:
        lib.gt_randperm_small(_ptr(words), n, _ptr(out))
        return out
    out[:] = np.arange(n)
    z = (words[: max(n - 1, 0)] % np.arange(n, 1, -1, dtype=np.uint64)).astype(np.int64) + np.arange(n - 1)
    for i, j in enumerate(z.tolist()):
        out[i], out[j] = out[j], out[i]
    return out


def randperm_large(words64: np.ndarray, n: int) -> np.ndarray:
    """``randperm_cpu`` from ``UINT32_MAX / 20`` on: the inside-out shuffle with ``random64() % (i + 1)``."""
    out = np.empty(n, np.int64)
    lib = _lib()
    if lib is not None:
        lib.gt_randperm_large(_ptr(words64), n, _ptr(out))
        return out
    z = (words64 % np.arange(1, n + 1, dtype=np.uint64)).astype(np.int64)
    for i, j in enumerate(z.tolist()):
        out[i] = out[j]
        out[j] = i
    return out
