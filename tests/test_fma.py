"""float64 fused multiply-add (add with alpha, lerp, addcmul) bit-identical to torch's hardware fma, including
huge and tiny magnitudes and non-finite values (Note [Exact fma] in kernels/cpu/pointwise_support.py)."""

import numpy as np
import pytest
import torch

import glasstorch as gt


@pytest.mark.parametrize("scale", [1.0, 1e-300, 1e300, 1e-160, 1e160])
def test_float64_fma_ops_are_bit_identical_to_torch(scale):
    rng = np.random.default_rng(int(np.log10(scale) + 400))
    a, b, w = rng.standard_normal(50000) * scale, rng.standard_normal(50000) * scale, rng.random(50000)
    alpha = float(rng.standard_normal())
    for m_fn in (lambda m: m.tensor(a).add(m.tensor(b), alpha=alpha),
                 lambda m: m.lerp(m.tensor(a), m.tensor(b), m.tensor(w)),
                 lambda m: m.addcmul(m.tensor(a), m.tensor(b), m.tensor(w), value=0.3)):
        np.testing.assert_array_equal(m_fn(gt).numpy(), m_fn(torch).numpy())


def test_the_reported_double_rounding_case_and_specials():
    a, b, alpha = -0.7871927421571577, 0.2535611800950726, -0.05000000074505806
    for m in (gt, torch):
        assert m.tensor([a], dtype=m.float64).add(m.tensor([b], dtype=m.float64), alpha=alpha).item() == \
            -0.7998708013508292
    x = np.array([np.inf, -np.inf, np.nan, 1e308, 0.0, -0.0, 5e-324])
    y = x[::-1].copy()
    np.testing.assert_array_equal(gt.tensor(x).add(gt.tensor(y), alpha=2.0).numpy(),
                                  torch.tensor(x).add(torch.tensor(y), alpha=2.0).numpy())
