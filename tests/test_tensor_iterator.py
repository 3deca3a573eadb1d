"""TensorIterator behaviour seen through elementwise ops, compared with torch: layouts, out=, casting, overlap."""

from __future__ import annotations

import warnings

import pytest
import torch

import glasstorch as gt
from glasstorch._ops.tensor_iterator import coalesce


def _both(build):
    return build(gt), build(torch)


LAYOUTS = {
    "transposed": lambda m: m.arange(12.0).view(3, 4).t(),
    "permuted3d": lambda m: m.arange(24.0).view(2, 3, 4).permute(2, 0, 1),
    "sliced": lambda m: m.arange(24.0).view(4, 6)[:, ::2],
    "channels_last_like":
        lambda m: m.arange(24.0).view(1, 2, 3, 4).permute(0, 3, 1, 2).contiguous().permute(0, 2, 3, 1),
    "expanded_row": lambda m: m.arange(4.0).expand(3, 4),
    "size1_dims": lambda m: m.arange(4.0).view(4, 1).as_strided((4, 1), (1, 7)),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_output_layout_follows_inputs(name):
    g, t = _both(lambda m: LAYOUTS[name](m) + 1)
    assert g.stride() == t.stride() and tuple(g.shape) == tuple(t.shape)
    assert g.tolist() == t.tolist()


@pytest.mark.parametrize("first,second", [("transposed", "transposed"), ("permuted3d", "permuted3d")])
def test_output_layout_with_two_operands(first, second):
    g, t = _both(lambda m: LAYOUTS[first](m) * LAYOUTS[second](m).contiguous())
    assert g.stride() == t.stride()
    g, t = _both(lambda m: LAYOUTS[first](m).contiguous() * LAYOUTS[second](m))
    assert g.stride() == t.stride()


def test_broadcast_error_text():
    for m in (gt, torch):
        with pytest.raises(RuntimeError) as e:
            m.ones(2, 4) + m.ones(5)
        msgs = str(e.value)
    assert msgs == "The size of tensor a (4) must match the size of tensor b (5) at non-singleton dimension 1"
    with pytest.raises(RuntimeError, match=r"must match the size of tensor b \(5\) at non-singleton dimension 1"):
        gt.ones(2, 4) + gt.ones(5)


def test_out_resize_warns_and_matches_torch():
    def run(m):
        out = m.zeros(2)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            res = m.add(m.ones(3, 2), m.ones(2), out=out)
        # torch's C++ warnings end with " (Triggered internally at <file>:<line>.)"
        return res is out, out.shape, [str(x.message).split(" (Triggered internally")[0] for x in w]
    g, t = run(gt), run(torch)
    assert g[0] and t[0] and tuple(g[1]) == tuple(t[1])
    assert g[2] == t[2]


def test_out_of_right_shape_keeps_strides():
    def run(m):
        out = m.zeros(4, 3).t()
        m.add(m.ones(3, 4), 1, out=out)
        return out.stride()
    assert run(gt) == run(torch)


def test_inplace_cannot_broadcast_self():
    for m in (gt, torch):
        with pytest.raises(RuntimeError) as e:
            m.ones(2).add_(m.ones(3, 2))
    assert str(e.value) == "output with shape [2] doesn't match the broadcast shape [3, 2]"
    with pytest.raises(RuntimeError, match=r"output with shape \[2\] doesn't match the broadcast shape \[3, 2\]"):
        gt.ones(2).add_(gt.ones(3, 2))


def test_safe_casting_for_inplace_and_out():
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        gt.ones(2, dtype=gt.int64).add_(1.5)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        gt.add(gt.ones(2), 1, out=gt.zeros(2, dtype=gt.int64))
    out = gt.zeros(2, dtype=gt.float64)  # float -> double is a safe cast
    gt.add(gt.ones(2), 1, out=out)
    assert out.tolist() == [2.0, 2.0]


def test_overlap_checks():
    x = gt.zeros(4)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        x[:1].expand(4).add_(1)
    y = gt.arange(6.0)
    with pytest.raises(RuntimeError, match="some elements of the input tensor and the written-to tensor"):
        gt.add(y[:4], 1, out=y[2:])
    y.add_(y)  # exactly the same tensor is fine: in place
    assert y.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]


def test_meta_operands_make_meta_outputs():
    out = gt.empty(3, 1, device="meta") + gt.empty(4, device="meta")
    assert out.is_meta and tuple(out.shape) == (3, 4)


def test_promotion_with_scalars_and_zero_dim():
    cases = [
        lambda m: m.ones(2, dtype=m.int64) + 2.5,
        lambda m: m.ones(2, dtype=m.uint8) + 1000,
        lambda m: m.ones(2, dtype=m.float16) + m.tensor(1.0, dtype=m.float64),
        lambda m: m.ones(2, dtype=m.int32) + m.tensor(1.0, dtype=m.float64),
        lambda m: m.ones(2, dtype=m.bool) + True,
        lambda m: m.ones(2, dtype=m.bool) + 1,
    ]
    for c in cases:
        g, t = c(gt), c(torch)
        assert repr(g.dtype) == repr(t.dtype) and g.tolist() == t.tolist()


def test_coalesce_merges_contiguous_dims():
    assert coalesce((2, 3, 4), [(12, 4, 1), (12, 4, 1)]) == ((24,), [(1,), (1,)])
    assert coalesce((2, 3, 4), [(12, 4, 1), (0, 4, 1)]) == ((2, 12), [(12, 1), (0, 1)])
    assert coalesce((3, 4), [(1, 3)]) == ((3, 4), [(1, 3)])
