"""Reduced-precision transposed convolutions round as PyTorch's chosen backend does (Note [oneDNN and
reduced-precision convolutions]): oneDNN (float32 sums, one rounding) on CPUs it takes bfloat16/float16 on, the
slow path (col2im sums rounded in the reduced dtype) elsewhere. Both branches are compared with torch, whose
oneDNN switch picks the same path; the oneDNN branch only where this CPU has it."""

import numpy as np
import pytest
import torch

import glasstorch as gt
from glasstorch._device import cpu_features
from glasstorch._ops.kernels.cpu import conv


def _case(m, dtype, output_padding=0):
    g = np.random.default_rng(3)
    x = m.tensor(g.standard_normal((2, 4, 5, 5)).tolist(), dtype=getattr(m, dtype))
    w = m.tensor(g.standard_normal((4, 3, 3, 3)).tolist(), dtype=getattr(m, dtype))
    out = m.convolution(x, w, None, [2, 2], [0, 0], [1, 1], True, [output_padding, 0], 1)
    return out.float().tolist()


def _torch(dtype, onednn, output_padding=0):
    with torch.backends.mkldnn.flags(enabled=onednn):
        return _case(torch, dtype, output_padding)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_slow_path(monkeypatch, dtype):
    monkeypatch.setattr(cpu_features, "onednn_bf16", lambda: False)
    monkeypatch.setattr(cpu_features, "onednn_fp16", lambda: False)
    assert _case(gt, dtype) == _torch(dtype, onednn=False)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_this_cpu(dtype):
    takes = cpu_features.onednn_bf16() if dtype == "bfloat16" else cpu_features.onednn_fp16()
    assert conv._slow_reduced_transposed(getattr(gt, dtype), (2, 2), (0, 0)) is not takes
    assert _case(gt, dtype) == _torch(dtype, onednn=True)


def test_big_output_padding_takes_the_slow_path_everywhere():
    assert conv._slow_reduced_transposed(gt.bfloat16, (2, 2), (2, 0)) is True
    assert conv._slow_reduced_transposed(gt.float32, (2, 2), (0, 0)) is False


def test_the_two_paths_really_differ_here():
    """The sample separates the two roundings, so the tests above can fail."""
    assert _torch("bfloat16", onednn=False) != _case(torch, "float32") != _torch("float16", onednn=False)
    with torch.backends.mkldnn.flags(enabled=False):
        once = torch.tensor(_case(torch, "float32")).bfloat16().float().tolist()  # float32 sums, one rounding
    assert _torch("bfloat16", onednn=False) != once
