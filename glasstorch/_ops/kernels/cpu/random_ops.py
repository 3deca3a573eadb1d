"""Random operators as dispatcher kernels — PyTorch's ``Distributions.cpp`` / ``DistributionTemplates.h``
(argument checks, overloads) over the sampling loops of ``kernels/cpu/random.py``; plus ``multinomial``
(``Sampling``/``Distributions.cpp``) and ``native_dropout`` (``Dropout.cpp``).

Every kernel takes the ``Generator?`` argument last among its inputs; ``None`` means the default
generator (``at::get_generator_or_default``).  The in-place kernels return ``self``; the dispatcher's
ADInplaceOrView layer bumps its version.  On meta tensors the checks run and no numbers are drawn.

The streams are PyTorch's (mt19937, ``_device/generator.py``) and so are the draws of each kernel
(``kernels/cpu/random.py``): the same seed gives PyTorch's numbers.

Invariant: argument checks happen before any draw, so a failed call leaves the generator untouched.
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._device import generator as _generator
from ...._tensor import views as _views
from ...._tensor.impl import TensorImpl, empty_contiguous, empty_strided_impl
from ...aten import aten
from ...tensor_iterator import check_no_internal_overlap, resize_out
from . import activation as _act
from . import distribution_kernels as _dk
from . import random as _rand
from .activation import FLOATING, not_implemented

__all__ = ["uniform_impl_", "normal_impl_", "exponential_impl_", "cauchy_impl_", "log_normal_impl_", "geometric_impl_",
           "normal_Tensor_Tensor", "normal_Tensor_float", "normal_float_Tensor", "normal_Tensor_Tensor_out",
           "normal_Tensor_float_out", "normal_float_Tensor_out",
           "bernoulli_tensor_impl_", "bernoulli_scalar_impl_",
           "bernoulli_impl", "bernoulli_out_impl", "bernoulli_p_impl", "random_impl_", "random_to_impl_",
           "random_from_impl_", "multinomial_impl", "multinomial_out_impl", "native_dropout_impl"]

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _gen(generator, fname: str):
    """The generator to draw from (checked first, as the Python binding would); ``None`` is the default one."""
    if generator is None:
        return _generator.default_generator
    if not isinstance(generator, _generator.Generator):
        raise TypeError(f"{fname}(): argument 'generator' must be torch.Generator, not {type(generator).__name__}")
    return generator


def _has_data(t: TensorImpl) -> bool:
    return t.storage._data is not None


def _g(x) -> str:
    """A double as C++ ``operator<<`` prints it (6 significant digits)."""
    return f"{float(x):g}"


def _check_int64(*values) -> None:
    for v in values:
        if v is not None and not _INT64_MIN <= v <= _INT64_MAX:
            raise ValueError("Overflow when unpacking long long")


# -- uniform_, normal_, exponential_ --------------------------------------------------------------------------
def uniform_impl_(self, from_, to, generator):
    """``self.uniform_(from, to)``: floating and complex (each part) dtypes; PyTorch's bound checks."""
    generator = _gen(generator, "uniform_")
    check_no_internal_overlap(self)
    real = self.dtype.to_real()
    if real not in FLOATING:
        raise not_implemented("check_uniform_bounds", self.dtype)
    info = _dt.finfo(real)
    lo, hi = float(info.min), float(info.max)
    for value, name in ((from_, "from"), (to, "to")):
        if not lo <= value <= hi:
            raise RuntimeError(f"{name} is out of bounds for {_dt.cpp_type_name(real, 'typeid')}")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_g(from_)} > to={_g(to)}")
    if to - from_ > hi:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<{_dt.name_of(real)}>::max(), but found "
                           f"to={_g(to)} and from={_g(from_)} which result in to-from to exceed the limit")
    if _has_data(self):
        _rand.uniform_(self, from_, to, generator)
    return self


def normal_impl_(self, mean, std, generator):
    """``self.normal_(mean, std)``; a complex tensor draws each part with ``std / sqrt(2)``."""
    generator = _gen(generator, "normal_")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
    check_no_internal_overlap(self)
    if self.numel() == 0:
        return self
    if self.dtype.to_real() not in FLOATING:
        raise not_implemented("normal_kernel_cpu", self.dtype)
    if _has_data(self):
        _rand.normal_(self, mean, std, generator)
    return self


def exponential_impl_(self, lambd, generator):
    """``self.exponential_(lambd)``: density ``lambd * exp(-lambd * x)``."""
    generator = _gen(generator, "exponential_")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_g(lambd)}")
    if self.numel() == 0:
        return self
    if self.dtype not in FLOATING:
        raise RuntimeError(f"Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {_dt.name_of(self.dtype)}")
    check_no_internal_overlap(self)
    if _has_data(self):
        _rand.exponential_(self, lambd, generator)
    return self


# -- normal with tensor parameters -------------------------------------------------------------------------------
def _normal_tensors(mean, std, generator, out):
    """``normal_out_impl``: standard draws into the result (``mean``'s dtype, else ``std``'s; broadcast shape), then
    ``mul_(std)`` and ``add_(mean)`` — or, with a number ``std``, draws with that std and ``add_(mean)``."""
    generator = _gen(generator, "normal")
    std_t = type(std) is TensorImpl
    if std_t:
        if _has_data(std) and np.any(std.values_np() < 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
    like = mean if type(mean) is TensorImpl else std
    shape = _shape.broadcast_shapes(mean.sizes if type(mean) is TensorImpl else (), std.sizes if std_t else ())
    if out is None:
        out = empty_contiguous(shape, like.dtype, like.device)
    else:
        resize_out(out, shape)
    _rand.normal_(out, 0.0, 1.0 if std_t else float(std), generator)
    if _has_data(out):
        res = out.as_numpy()
        m = mean.values_np() if type(mean) is TensorImpl else mean
        with np.errstate(over="ignore", invalid="ignore"):
            if std_t:
                np.multiply(res, std.values_np(), out=res, casting="unsafe")
            np.add(res, np.asarray(m, dtype=res.dtype), out=res, casting="unsafe")  # a number mean: full({}, mean)
    return out


def normal_Tensor_Tensor(mean, std, generator=None):  # noqa: N802
    return _normal_tensors(mean, std, generator, None)


def normal_Tensor_float(mean, std=1.0, generator=None):  # noqa: N802
    return _normal_tensors(mean, std, generator, None)


def normal_float_Tensor(mean, std, generator=None):  # noqa: N802
    return _normal_tensors(mean, std, generator, None)


def normal_Tensor_Tensor_out(mean, std, generator, out):  # noqa: N802
    return _normal_tensors(mean, std, generator, out)


def normal_Tensor_float_out(mean, std, generator, out):  # noqa: N802
    """PyTorch's ``normal.Tensor_float_out`` does not resize ``out``: it draws with ``std`` into it as it is, then
    adds ``mean`` into it, so a ``mean`` that does not broadcast with ``out`` fails there."""
    generator = _gen(generator, "normal")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_g(std)}")
    _rand.normal_(out, 0.0, float(std), generator)
    return aten.add_out(mean, out, 1, out)  # mean first: its size is named first on a mismatch


def normal_float_Tensor_out(mean, std, generator, out):  # noqa: N802
    return _normal_tensors(mean, std, generator, out)


# -- cauchy_, log_normal_, geometric_ -------------------------------------------------------------------------
def cauchy_impl_(self, median, sigma, generator):
    """``self.cauchy_(median, sigma)``: density ``1 / (pi * sigma * (1 + ((x - median) / sigma) ** 2))``."""
    generator = _gen(generator, "cauchy_")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_g(sigma)}")
    if self.dtype not in FLOATING:
        raise RuntimeError(f"Cauchy distribution is a continuous probability distribution. dtype must be a floating "
                           f"point but you specified {_dt.cpp_type_name(self.dtype, 'typeid')}")
    return _sample(self, lambda: _rand.cauchy_(self, median, sigma, generator))


def log_normal_impl_(self, mean, std, generator):
    """``self.log_normal_(mean, std)``: ``exp`` of Normal(mean, std) draws."""
    generator = _gen(generator, "log_normal_")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_g(std)}")
    if self.dtype not in FLOATING:
        raise not_implemented("log_normal_cpu", self.dtype)
    return _sample(self, lambda: _rand.log_normal_(self, mean, std, generator))


def geometric_impl_(self, p, generator):
    """``self.geometric_(p)``: the number of Bernoulli(p) trials up to the first success (any real dtype)."""
    generator = _gen(generator, "geometric_")
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_g(p)}")
    if self.dtype is _dt.bool or self.dtype.is_complex:
        raise not_implemented("geometric_cpu", self.dtype)
    return _sample(self, lambda: _rand.geometric_(self, p, generator))


def _sample(self, draw):
    check_no_internal_overlap(self)
    if _has_data(self) and self.numel():
        draw()
    return self


# -- bernoulli ------------------------------------------------------------------------------------------------
def bernoulli_tensor_impl_(self, p, generator):
    """``self.bernoulli_(p)``: 1 with probability ``p`` (broadcast to ``self``), else 0.  An empty ``self``
    returns at once, unchecked, as in PyTorch."""
    generator = _gen(generator, "bernoulli_")
    if self.numel() == 0:
        return self
    check_no_internal_overlap(self)
    if self.dtype.is_complex:
        raise not_implemented("bernoulli_tensor_cpu_self_", self.dtype)
    probs = _views.expand(p, self.sizes)
    if p.dtype not in FLOATING:
        raise not_implemented("bernoulli_tensor_cpu_p_", p.dtype)
    if _has_data(self) and _has_data(p):
        _rand.bernoulli_(self, probs.as_numpy(), generator)
    return self


def bernoulli_scalar_impl_(self, p, generator):
    """``self.bernoulli_(p)`` with one probability for every element."""
    generator = _gen(generator, "bernoulli_")
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p)}")
    if self.numel() == 0:
        if _rand.MKL_BERNOULLI and _has_data(self):  # torch's MKL kernel draws its seed before it looks at the size
            _rand.bernoulli_(self, float(p), generator)
        return self
    check_no_internal_overlap(self)
    if self.dtype.is_complex:
        raise not_implemented("bernoulli_scalar_cpu_", self.dtype)
    if _has_data(self):
        _rand.bernoulli_(self, float(p), generator)
    return self


def bernoulli_impl(self, generator):
    """``torch.bernoulli(p)``: a new tensor like ``p`` with 1 drawn with probability ``p``."""
    generator = _gen(generator, "bernoulli")
    out = empty_contiguous(self.sizes, self.dtype, self.device)
    return bernoulli_tensor_impl_(out, self, generator)


def bernoulli_out_impl(self, generator, out):
    generator = _gen(generator, "bernoulli")
    resize_out(out, self.sizes)
    return bernoulli_tensor_impl_(out, self, generator)


def bernoulli_p_impl(self, p, generator):
    """``torch.bernoulli(input, p)``: shape and dtype of ``input``, one probability ``p``."""
    generator = _gen(generator, "bernoulli")
    out = empty_contiguous(self.sizes, self.dtype, self.device)
    return bernoulli_scalar_impl_(out, p, generator)


# -- random_ --------------------------------------------------------------------------------------------------
def _random_check_type(self, what: str) -> None:
    if self.dtype.is_complex:
        raise RuntimeError(f"{what} handles only integral, floating-point and boolean types")


def _max_inclusive(dtype) -> int:
    """The largest value ``random_()`` draws: ``2**digits`` for floats, the type's max for integers."""
    if dtype.is_floating_point:
        return 1 << _dt.float_digits(dtype)
    if dtype is _dt.bool:
        return 1
    return int(np.iinfo(dtype.np).max)


def random_impl_(self, generator):
    """``self.random_()``: integers uniform over ``[0, max]`` of the dtype (``[0, 2**mantissa]`` for floats)."""
    generator = _gen(generator, "random_")
    check_no_internal_overlap(self)
    if self.numel() == 0:
        return self
    if self.dtype.is_complex:
        raise not_implemented("random_kernel_cpu", self.dtype)
    if _has_data(self):
        _rand.random_default_(self, generator)
    return self


def random_from_impl_(self, from_, to, generator):
    """``self.random_(from, to)``: integers uniform in ``[from, to)``; ``to=None`` means up to the dtype's max."""
    generator = _gen(generator, "random_")
    _check_int64(from_, to)
    check_no_internal_overlap(self)
    if to is not None:
        return _random_range(self, from_, to, generator)
    if from_ == _INT64_MIN:  # [int64 min, int64 max]: the full 64-bit range
        if self.numel() and _has_data(self):
            _rand.random_full_range_(self, generator)
        return self
    _random_check_type(self, "random_from_to_impl")
    to_inc = _max_inclusive(self.dtype)
    if self.dtype.is_floating_point:
        from_ = _rand.update_from(from_, self.dtype)
        if from_ > to_inc:
            raise RuntimeError(f"random_ expects 'from' casted to dtype to be less than or equal to 'to_inc' casted "
                               f"to dtype, but got from={from_} > to_inc={to_inc}")
    elif not int(np.iinfo(self.dtype.np).min if self.dtype is not _dt.bool else 0) <= from_ <= to_inc:
        raise RuntimeError(f"from is out of bounds for {_dt.cpp_type_name(self.dtype, 'typeid')}")
    if _has_data(self):
        _rand.random_from_to_(self, to_inc - from_ + 1, from_, generator)
    return self


def random_to_impl_(self, to, generator):
    """``self.random_(to)``: integers uniform in ``[0, to)``."""
    generator = _gen(generator, "random_")
    _check_int64(to)
    check_no_internal_overlap(self)
    return _random_range(self, 0, to, generator)


def _random_range(self, from_, to, generator):
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} >= to={to}")
    _random_check_type(self, "check_random_bounds")
    if _has_data(self):
        _rand.random_(self, from_, to, generator)
    return self


# -- multinomial ----------------------------------------------------------------------------------------------
def _multinomial_checks(self, n_sample, replacement, out_dtype) -> None:
    if not (0 < self.ndim <= 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {_dt.name_of(self.dtype)}")
    if out_dtype is not _dt.int64:
        raise RuntimeError(f"multinomial expects Long tensor out, got: {_dt.name_of(out_dtype)}")
    if n_sample <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_categories = self.sizes[-1]
    if not replacement and n_sample > n_categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if n_categories > 1 << 24:
        raise RuntimeError("number of categories cannot exceed 2^24")


def _multinomial_without_replacement(self, n_sample: int, gen) -> np.ndarray:
    """PyTorch's fast path (no replacement, or one sample): ``q`` exponential draws in ``self``'s dtype and
    layout, then the indices of the largest ``p / q`` per row (argmax, or topk sorted)."""
    probs = self.as_numpy()
    if not (np.all(probs < np.inf) and np.all(probs >= 0)):  # NaN fails both
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(probs.astype(np.float64).sum(axis=-1) == 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    q = empty_strided_impl(self.sizes, _shape.strides_for_format(self.sizes, self.strides, None), self.dtype,
                           self.device)  # empty_like(self)
    _rand.exponential_(q, 1.0, gen)
    with np.errstate(divide="ignore", invalid="ignore"):
        keys = (probs / q.as_numpy()).astype(probs.dtype).reshape(-1, self.sizes[-1])
    if n_sample == 1:
        return np.argmax(keys, axis=1)[:, None]
    return np.argsort(-keys.astype(np.float64), axis=1, kind="stable")[:, :n_sample]


def _multinomial_with_replacement(self, n_sample: int, gen) -> np.ndarray:
    """``multinomial_with_replacement_apply``: per row, the running sum in the dtype (float for float16 and
    bfloat16) divided by the total, the last entry set to 1; each sample is the first entry >= a double
    uniform draw."""
    acc = np.float64 if self.dtype is _dt.float64 else np.float32
    rows = self.as_numpy().reshape(-1, self.sizes[-1])
    out = np.empty((rows.shape[0], n_sample), np.int64)
    for i, row in enumerate(rows):
        vals = row.astype(acc)
        bad = np.flatnonzero(~(vals >= 0) | ~np.isfinite(vals))
        if bad.size:  # the first bad entry decides the message, as PyTorch's loop meets it
            if not vals[bad[0]] >= 0:
                raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
            raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
        cum = np.cumsum(vals, dtype=acc)
        total = cum[-1]
        if not total > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        cum = cum / total
        cum[-1] = 1
        u = _rand.uniform_real(gen, n_sample, _dt.float64)
        out[i] = np.searchsorted(cum.astype(np.float64), u, side="left")
    return out


def multinomial_out_impl(self, num_samples, replacement, generator, out):
    """``num_samples`` category indices per row of the (unnormalized) probabilities ``self``."""
    generator = _gen(generator, "multinomial")
    _multinomial_checks(self, num_samples, replacement, out.dtype)
    shape = (num_samples,) if self.ndim == 1 else (self.sizes[0], num_samples)
    resize_out(out, shape)
    if self.numel() == 0 or not _has_data(self) or not _has_data(out):
        return out
    if not replacement or num_samples == 1:
        res = _multinomial_without_replacement(self, num_samples, generator)
    else:
        res = _multinomial_with_replacement(self, num_samples, generator)
    np.copyto(out.as_numpy(), res.reshape(shape), casting="unsafe")
    return out


def multinomial_impl(self, num_samples, replacement, generator):
    generator = _gen(generator, "multinomial")
    out = empty_contiguous((0,), _dt.int64, self.device)
    return multinomial_out_impl(self, num_samples, replacement, generator, out)


# -- dropout --------------------------------------------------------------------------------------------------
def native_dropout_impl(input, p, train):
    """``(output, mask)``: in training each element is kept with probability ``1 - p`` and scaled by
    ``1 / (1 - p)``; ``mask`` (bool) records the kept ones.  Not training: a copy and an all-True mask."""
    if input.numel() == 0:
        return input, empty_contiguous(input.sizes, input.dtype, input.device)
    out = empty_contiguous(input.sizes, input.dtype, input.device)
    mask = empty_contiguous(input.sizes, _dt.bool, input.device)
    if train is None or train:
        p1m = 1.0 - p
        if not 0 <= p1m <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_g(p1m)}")
        if input.dtype.is_complex:
            raise not_implemented("bernoulli_scalar_cpu_", input.dtype)
        if not input.dtype.is_floating_point:  # the output is scaled in place by a float
            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{_dt.name_of(input.dtype)}")
        if not _has_data(input):
            return out, mask
        scale = 0.0 if p1m == 0 else 1.0 / p1m
        keep = empty_contiguous(input.sizes, input.dtype, input.device)
        _rand.bernoulli_(keep, p1m, _gen(None, "native_dropout"))
        k = keep.as_numpy()
        ct = np.dtype(np.float32) if input.dtype in (_dt.float16, _dt.bfloat16) else input.dtype.np
        with np.errstate(all="ignore"):
            np.copyto(out.as_numpy(), input.as_numpy().astype(ct) * k.astype(ct) * ct.type(scale), casting="unsafe")
        np.copyto(mask.as_numpy(), k != 0)
        return out, mask
    if _has_data(input):
        np.copyto(out.as_numpy(), input.as_numpy())
        mask.as_numpy()[...] = True
    return out, mask


# -- rrelu ----------------------------------------------------------------------------------------------------
def rrelu_with_noise_functional_cpu(self, noise, lower, upper, training, generator):
    """``(out, noise_out)``: in training each element ``x <= 0`` (in memory order) draws its slope ``r`` from
    ``uniform_real_distribution<double>(lower, upper)`` (bounds and slope in the opmath type), gives ``x * r`` and
    records ``r`` in ``noise_out`` (1 elsewhere); out of training the slope is ``(lower + upper) / 2`` (leaky_relu)
    and ``noise_out`` is ``noise``'s values."""
    if not float(lower) <= float(upper):
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    generator = _gen(generator, "rrelu_with_noise")
    noise_out = empty_contiguous(noise.sizes, noise.dtype, noise.device)
    if not training:
        if _has_data(noise):
            noise_out.as_numpy()[...] = noise.as_numpy()
        return _act.leaky_relu_out(self, (float(lower) + float(upper)) / 2, None), noise_out
    if self.dtype not in (_dt.float32, _dt.float64, _dt.bfloat16):  # torch's CPU kernel has no float16
        raise not_implemented("rrelu_with_noise_out_cpu", self.dtype)
    out = empty_contiguous(self.sizes, self.dtype, self.device)
    if not _has_data(self) or self.numel() == 0:
        return out, noise_out
    ct = np.float64 if self.dtype is _dt.float64 else np.float32
    x = np.ascontiguousarray(self.as_numpy()).reshape(-1).astype(ct)
    hit = x <= 0
    # the bounds are the opmath type's (float32 below double) before the double distribution sees them, and
    # RReLU.cpp is compiled without FMA contraction: x * (hi - lo) + lo rounds twice (uniform_'s kernel fuses it)
    lo, hi = float(ct(float(lower))), float(ct(float(upper)))
    u = (_dk.words64(generator, int(hit.sum())) & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0 ** -53
    r = np.ones_like(x)
    r[hit] = (u * (hi - lo) + lo).astype(ct)
    out.as_numpy().reshape(-1)[...] = np.where(hit, x * r, x).astype(self.dtype.np)
    noise_out.as_numpy().reshape(-1)[...] = r.astype(noise.dtype.np)
    return out, noise_out


def rrelu_with_noise_cpu(self, noise, lower, upper, training, generator):
    """``rrelu_with_noise``: the functional form, its slopes written into ``noise`` (in training)."""
    out, noise_out = rrelu_with_noise_functional_cpu(self, noise, lower, upper, training, generator)
    if training and _has_data(noise) and noise.numel():
        noise.as_numpy()[...] = noise_out.as_numpy().reshape(noise.sizes)
    return out
