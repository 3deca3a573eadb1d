"""A small GPT block (Linear, LayerNorm, softmax, masked_fill, view/transpose, F.gelu) traced end to end:
the same graph and code as torch.fx, the same forward values and gradients as eager glasstorch and as torch,
and the same annotated printout after shape propagation."""

from __future__ import annotations

import numpy as np
import torch
from fx_models import build_gpt_block, copy_weights, to_np
from fx_oracle import assert_same_code, assert_same_graph, normalize, trace_both
from torch.fx.passes.shape_prop import ShapeProp as TorchShapeProp

import glasstorch
import glasstorch.fx as gfx
from glasstorch.fx.passes import ShapeProp


def _setup():
    gm_gt, gm_th = trace_both(build_gpt_block)
    copy_weights(gm_gt, gm_th)
    x = np.random.default_rng(7).standard_normal((2, 8, 16)).astype(np.float32)
    return gm_gt, gm_th, x


def test_gpt_block_graph_and_code_match_torch():
    gm_gt, gm_th, _ = _setup()
    assert_same_graph(gm_gt, gm_th)
    assert_same_code(gm_gt, gm_th)
    ops = {(n.op, n._pretty_print_target(n.target)) for n in gm_gt.graph.nodes}
    for expected in [("call_module", "ln_1"), ("call_module", "attn.c_attn"), ("call_method", "masked_fill"),
                     ("call_method", "view"), ("call_method", "transpose"), ("call_method", "split"),
                     ("call_function", "torch.nn.functional.softmax"), ("call_function", "torch.nn.functional.gelu"),
                     ("call_function", "operator.matmul"), ("get_attr", "_tensor_constant0")]:
        assert expected in ops


def test_gpt_block_forward_and_backward_match_torch():
    gm_gt, gm_th, x = _setup()
    x_gt = glasstorch.from_numpy(x.copy()).requires_grad_()
    x_th = torch.from_numpy(x.copy()).requires_grad_()
    out_gt, out_th = gm_gt(x_gt), gm_th(x_th)
    np.testing.assert_allclose(to_np(out_gt), to_np(out_th), rtol=1e-5, atol=1e-5)
    (out_gt * out_gt).sum().backward()
    (out_th * out_th).sum().backward()
    np.testing.assert_allclose(to_np(x_gt.grad), to_np(x_th.grad), rtol=1e-4, atol=1e-5)
    grads_th = {k: p.grad for k, p in gm_th.named_parameters()}
    for k, p in gm_gt.named_parameters():
        np.testing.assert_allclose(to_np(p.grad), to_np(grads_th[k]), rtol=1e-4, atol=1e-5, err_msg=k)


def test_gpt_block_traced_equals_eager_glasstorch():
    m = build_gpt_block(glasstorch)
    gm = gfx.symbolic_trace(m)
    x = glasstorch.randn(3, 8, 16)
    np.testing.assert_array_equal(to_np(gm(x)), to_np(m(x)))
    np.testing.assert_array_equal(to_np(gfx.Interpreter(gm).run(x)), to_np(m(x)))


def test_gpt_block_print_readable_after_shape_prop_matches_torch():
    gm_gt, gm_th, x = _setup()
    ShapeProp(gm_gt).propagate(glasstorch.from_numpy(x))
    TorchShapeProp(gm_th).propagate(torch.from_numpy(x))
    text = gm_gt.print_readable(print_output=False)
    assert text == normalize(gm_th.print_readable(print_output=False))
    assert 'softmax: "f32[2, 4, 8, 8]" = torch.nn.functional.softmax(masked_fill, dim = -1' in text
