"""Memory formats and strides against torch: ``empty``/``*_like``/``clone``/``contiguous``/``to`` with a
``memory_format``, ``is_contiguous`` for each format, the stride rules of size-0 and size-1 dims, the output
layout of TensorIterator (fresh and resized ``out=``), and the layers that keep a channels-last input so.

Each sweep runs the same recipe in both libraries and compares the outcome: the tensor's shape, strides,
storage offset and dtype, or the exception's type and message.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
import torch
from oracle import assert_same, assert_same_error, from_torch

import glasstorch as gt

_FORMATS = ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format")
_SHAPES_4D = list(itertools.product((0, 1, 2), repeat=4))
_SHAPES_5D = [(0, 1, 2, 2, 2), (1, 1, 1, 1, 1), (2, 1, 1, 1, 1), (2, 3, 1, 1, 1), (2, 1, 2, 1, 2), (2, 2, 0, 2, 2),
              (1, 2, 2, 2, 1), (2, 3, 2, 2, 2), (0, 0, 0, 0, 0), (2, 0, 1, 1, 1), (1, 2, 1, 2, 1)]
_SHAPES = _SHAPES_4D + _SHAPES_5D + [(2, 3), (0, 3), (1, 0, 2), (4,)]


def _outcome(m, recipe):
    """What ``recipe(m)`` gives: a tensor's layout, a plain value, or the error it raises."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = recipe(m)
    except Exception as e:  # noqa: BLE001 - the exception itself is compared
        return ("raises", type(e).__name__, str(e))
    if isinstance(r, (gt.Tensor, torch.Tensor)):
        return (tuple(r.shape), r.stride(), r.storage_offset(), repr(r.dtype))
    return r


def _mismatches(cases):
    """``[(label, glasstorch outcome, torch outcome)]`` for the recipes whose outcomes differ."""
    out = []
    for label, recipe in cases:
        got, want = _outcome(gt, recipe), _outcome(torch, recipe)
        if got != want:
            out.append((label, got, want))
    return out


def _fmt(m, name):
    return getattr(m, name)


def _sources(shape):
    """Recipes of tensors of ``shape`` in several layouts: row-major, each memory format, strided slices of a
    bigger tensor, expanded, reversed-permuted, transposed."""
    n = len(shape)
    out = [("plain", lambda m: m.empty(shape))]
    if n == 4:
        out.append(("cl", lambda m: m.empty(shape, memory_format=m.channels_last)))
        out.append(("slice_cl", lambda m: m.empty(tuple(2 * s for s in shape), memory_format=m.channels_last)
                    [::2, ::2, ::2, ::2]))
    if n == 5:
        out.append(("cl3d", lambda m: m.empty(shape, memory_format=m.channels_last_3d)))
    out.append(("slice", lambda m: m.empty(tuple(2 * s for s in shape))[(slice(None, None, 2),) * n]))
    out.append(("expand", lambda m: m.empty((1,) * n).expand(*shape)))
    out.append(("perm", lambda m: m.empty(shape[::-1]).permute(*range(n - 1, -1, -1))))
    if n >= 2:
        out.append(("t01", lambda m: m.empty((shape[1], shape[0]) + shape[2:]).transpose(0, 1)))
    return out


@pytest.mark.parametrize("shape", _SHAPES, ids=str)
def test_empty_with_memory_format(shape):
    """Fresh strides of each format (a size-0 dim counts as 1 in row-major strides, as itself in channels-last
    ones), and the rank and ``preserve_format`` errors; ``empty(out=)`` restrides the same way."""
    cases = []
    for f in _FORMATS:
        cases.append((f"empty {f}", lambda m, f=f: m.empty(shape, memory_format=_fmt(m, f))))
        cases.append((f"empty out {f}", lambda m, f=f: m.empty(shape, memory_format=_fmt(m, f), out=m.empty(0))))
        cases.append((f"resize_ {f}", lambda m, f=f: m.empty(0).resize_(shape, memory_format=_fmt(m, f))))
    assert _mismatches(cases) == []


@pytest.mark.parametrize("shape", _SHAPES, ids=str)
def test_contiguity_flags_and_layout_copies(shape):
    """``is_contiguous(memory_format=...)`` and the copies that take a format, from tensors in many layouts."""
    cases = []
    for tag, src in _sources(shape):
        for f in _FORMATS:
            cases += [
                (f"{tag} is_contiguous {f}", lambda m, s=src, f=f: s(m).is_contiguous(memory_format=_fmt(m, f))),
                (f"{tag} contiguous {f}", lambda m, s=src, f=f: s(m).contiguous(memory_format=_fmt(m, f))),
                (f"{tag} clone {f}", lambda m, s=src, f=f: s(m).clone(memory_format=_fmt(m, f))),
                (f"{tag} empty_like {f}", lambda m, s=src, f=f: m.empty_like(s(m), memory_format=_fmt(m, f))),
                (f"{tag} zeros_like {f}", lambda m, s=src, f=f: m.zeros_like(s(m), memory_format=_fmt(m, f))),
                (f"{tag} to {f}", lambda m, s=src, f=f: s(m).to(m.float64, memory_format=_fmt(m, f))),
                (f"{tag} resize_as_ {f}",
                 lambda m, s=src, f=f: m.empty(0).resize_as_(s(m), memory_format=_fmt(m, f))),
            ]
        cases.append((f"{tag} ones_like", lambda m, s=src: m.ones_like(s(m))))
    assert _mismatches(cases) == []


@pytest.mark.parametrize("shape", _SHAPES, ids=str)
def test_elementwise_output_layout(shape):
    """TensorIterator's output strides: fast set-up (row-major, channels-last, dense), the stride-sorting rule
    with its size-0 products, and an ``out=`` that is resized to the layout a fresh output would get."""
    cases = []
    for tag, src in _sources(shape):
        cases += [
            (f"{tag} + 1", lambda m, s=src: s(m).fill_(1) + 1),
            (f"{tag} + ones", lambda m, s=src: s(m).fill_(1) + m.ones(shape)),
            (f"{tag} relu", lambda m, s=src: m.relu(s(m).fill_(1))),
            (f"{tag} add out", lambda m, s=src: m.add(s(m).fill_(1), 1, out=m.empty(0))),
            (f"{tag} neg out", lambda m, s=src: m.neg(s(m).fill_(1), out=m.empty(0))),
            (f"{tag} mul out (had elements)", lambda m, s=src: m.mul(s(m).fill_(1), s(m).fill_(2), out=m.empty(2, 3))),
            (f"{tag} add out (right shape kept)",
             lambda m, s=src: m.add(s(m).fill_(1), 1, out=m.empty(shape[::-1]).permute(*range(len(shape))[::-1]))),
        ]
    assert _mismatches(cases) == []


def test_empty_tensors_and_channels_last_contiguity():
    """A size-0 tensor is row-major contiguous whatever its strides, but channels-last contiguity still reads
    the strides of its other dims."""
    for m in (gt, torch):
        assert m.zeros(3, 1, 0, 4).is_contiguous()
        assert not m.zeros(3, 1, 0, 4).is_contiguous(memory_format=m.channels_last)
        assert m.empty(3, 1, 0, 4, memory_format=m.channels_last).is_contiguous(memory_format=m.channels_last)
    assert _outcome(gt, lambda m: m.empty(2, 0, 3, 3, memory_format=m.channels_last)) == \
        _outcome(torch, lambda m: m.empty(2, 0, 3, 3, memory_format=m.channels_last))


def test_out_resize_follows_input_permutation_values():
    """The resized ``out=`` is written through its permuted strides: values as torch's, layout as torch's."""
    got, want = (m.mul(m.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1), 2, out=m.empty(0)) for m in (gt, torch))
    assert_same(got, want)
    assert want.stride() == (1, 12, 4)


def _copy_params(dst, src):
    for p, q in zip(dst.parameters(), src.parameters(), strict=True):
        p.data.copy_(from_torch(q.detach()))


_LAYERS = [
    ("BatchNorm2d", lambda m: m.nn.BatchNorm2d(3), (2, 3, 4, 5), "channels_last"),
    ("BatchNorm2d eval", lambda m: m.nn.BatchNorm2d(3).eval(), (2, 3, 4, 5), "channels_last"),
    ("BatchNorm3d", lambda m: m.nn.BatchNorm3d(3), (2, 3, 2, 4, 5), "channels_last_3d"),
    ("GroupNorm", lambda m: m.nn.GroupNorm(1, 3), (2, 3, 4, 5), "channels_last"),
    ("Conv2d", lambda m: m.nn.Conv2d(3, 4, 3, padding=1), (2, 3, 4, 5), "channels_last"),
    ("ReLU", lambda m: m.nn.ReLU(), (2, 3, 4, 5), "channels_last"),
    ("MaxPool2d", lambda m: m.nn.MaxPool2d(2), (2, 3, 4, 6), "channels_last"),
    ("BatchNorm2d contiguous", lambda m: m.nn.BatchNorm2d(3), (2, 3, 4, 5), "contiguous_format"),
]


@pytest.mark.parametrize(("name", "layer", "shape", "fmt"), _LAYERS, ids=[c[0] for c in _LAYERS])
def test_layers_keep_channels_last(name, layer, shape, fmt):
    """The layers torch keeps in channels-last give channels-last outputs and input gradients, same values."""
    th_layer = layer(torch)
    gt_layer = layer(gt)
    _copy_params(gt_layer, th_layer)
    base = (torch.arange(float(np.prod(shape))).reshape(shape) % 7) / 7
    th_x = base.contiguous(memory_format=getattr(torch, fmt)).requires_grad_()
    gt_x = from_torch(base).contiguous(memory_format=getattr(gt, fmt)).requires_grad_()
    th_y, gt_y = th_layer(th_x), gt_layer(gt_x)
    assert_same(gt_y, th_y.detach(), rtol=1e-5, atol=1e-5)
    weights = torch.arange(float(th_y.numel())).reshape(th_y.shape) / th_y.numel()
    (th_y * weights).sum().backward()
    (gt_y * from_torch(weights)).sum().backward()
    assert_same(gt_x.grad, th_x.grad, rtol=1e-4, atol=1e-4)


def _cl_input(m):
    return (m.arange(120.0).reshape(2, 3, 4, 5) / 7).contiguous(memory_format=m.channels_last)


def _sliced_cl_input(m):
    return (m.arange(480.0).reshape(4, 3, 8, 5) / 7).contiguous(memory_format=m.channels_last)[::2, :, ::2]


def _permuted_input(m):
    return (m.arange(120.0).reshape(5, 4, 3, 2) / 7).permute(3, 2, 1, 0)


_OPS = {
    "where out": lambda m, x: m.where(x > 1, x, 0.0, out=m.empty(0)),
    "clamp out": lambda m, x: m.clamp(x, 0, 1, out=m.empty(0)),
    "addcmul out": lambda m, x: m.addcmul(x, x, x, out=m.empty(0)),
    "gt out": lambda m, x: m.gt(x, 1, out=m.empty(0, dtype=m.bool)),
    "exp out": lambda m, x: m.exp(x, out=m.empty(0)),
    "add float64 out": lambda m, x: m.add(x, 1, out=m.empty(0, dtype=m.float64)),
    "cat": lambda m, x: m.cat([x, x], 1),
    "cat out": lambda m, x: m.cat([x, x], 1, out=m.empty(0)),
    "softmax": lambda m, x: m.softmax(x, 1),
    "to float64": lambda m, x: x.to(m.float64),
}


@pytest.mark.parametrize("src", [_cl_input, _sliced_cl_input, _permuted_input], ids=["cl", "sliced_cl", "perm"])
def test_other_ops_keep_the_input_layout(src):
    """Ternary, comparison, cast and cat outputs (fresh and resized out=) take the inputs' layout as torch's."""
    cases = [(name, lambda m, op=op: op(m, src(m))) for name, op in _OPS.items()]
    assert _mismatches(cases) == []


@pytest.mark.parametrize("bad", [None, 1, "channels_last"], ids=repr)
def test_is_contiguous_refuses_a_non_memory_format(bad):
    assert_same_error(lambda: gt.empty(2, 3).is_contiguous(memory_format=bad),
                      lambda: torch.empty(2, 3).is_contiguous(memory_format=bad))


@pytest.mark.parametrize(("size", "stride"), [((2, 3), (1, 2)), ((2, 0, 3), (0, 1, 0)), ((3,), (0,))], ids=str)
def test_new_empty_strided(size, stride):
    cases = [("plain", lambda m: m.zeros(2, dtype=m.float64).new_empty_strided(size, stride)),
             ("dtype", lambda m: m.zeros(2).new_empty_strided(size, stride, dtype=m.int16)),
             ("grad", lambda m: m.zeros(2).new_empty_strided(size, stride, requires_grad=True).requires_grad),
             ("int grad", lambda m: m.zeros(2).new_empty_strided(size, stride, dtype=m.int64, requires_grad=True))]
    assert _mismatches(cases) == []


@pytest.mark.parametrize("shape,perm", [((1, 3, 2, 1), (0, 2, 1, 3)), ((1, 3, 2, 4), (0, 2, 1, 3)),
                                        ((2, 3, 4, 5), (0, 3, 1, 2)), ((1, 2, 1, 3, 1), (0, 4, 1, 2, 3)),
                                        ((2, 4, 3, 3), (0, 1, 3, 2))])
@pytest.mark.parametrize("train", [False, True])
def test_batch_norm_output_keeps_an_ambiguous_channels_last_layout(shape, perm, train):
    # batch_norm_cpu allocates in the format the input is contiguous in (suggest_memory_format_contig), even when
    # the strides are ambiguous for suggest_memory_format (a permuted (1, 2, 3, 1) input is channels-last)
    def run(m):
        x = m.arange(float(np.prod(shape))).reshape(shape).permute(perm)
        bn = (m.nn.BatchNorm2d if len(shape) == 4 else m.nn.BatchNorm3d)(x.shape[1]).train(train)
        return bn(x)
    assert_same(run(gt), run(torch), rtol=1e-5, atol=1e-5)
