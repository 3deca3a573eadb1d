"""The inductor end to end: make_fx with its decomposition table, and the GPT example through
``glasstorch.compile(backend="inductor")`` (AOT autograd + compile_fx_inner): loss and every gradient match eager.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

import glasstorch as gt
from glasstorch import _cbuild, fx
from glasstorch._inductor import compile_fx_inner, select_decomp_table

pytestmark = pytest.mark.skipif(not _cbuild.available(), reason="no C compiler")
A = gt.ops.aten
REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def test_decomposition_table_with_make_fx_fuses_softmax_layer_norm_gelu():
    # layer_norm and softmax become pointwise + reduction pieces; gelu stays whole (it lowers to one inline
    # function, the eager kernel's); everything fuses into one kernel
    from glasstorch.fx.experimental.proxy_tensor import make_fx

    def f(x, w, b):
        h = gt.nn.functional.layer_norm(x, (16,), w, b)
        return gt.nn.functional.gelu(h).softmax(-1), gt.log_softmax(h, 0)
    args = [gt.randn(4, 5, 16), gt.randn(16), gt.randn(16)]
    gm = make_fx(f, tracing_mode="fake", decomposition_table=select_decomp_table())(*args)
    names = {n.target.__name__ for n in gm.graph.nodes if n.op == "call_function" and hasattr(n.target, "__name__")}
    assert not names & {"native_layer_norm.default", "_softmax.default"}, names
    assert "gelu.default" in names, names
    compiled = compile_fx_inner(gm, args)
    for got, ref in zip(compiled(*args), f(*args), strict=True):
        np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-5, atol=1e-6)
    assert compiled.stats["externs"] == 0 and compiled.stats["kernels"] == 1, compiled.stats


def test_fallback_returning_a_view_keeps_its_input_alive():
    # diagonal has no lowering: its result aliases the realised tanh buffer, which must not be recycled
    g = fx.Graph()
    x = g.placeholder("x")
    d = g.call_function(A.diagonal.default, (g.call_function(A.tanh.default, (x,)),))
    z = x
    for _ in range(3):
        z = g.call_function(A.mm.default, (g.call_function(A.sin.default, (z,)), x))
    g.output((g.call_function(A.add.Tensor, (d, g.call_function(A.sum.default, (z,)))),))
    gm = fx.GraphModule(gt.nn.Module(), g)
    xv = gt.randn(8, 8)
    np.testing.assert_allclose(compile_fx_inner(gm, [xv])(xv)[0].numpy(), gm(xv)[0].numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", pytest.param("float64", marks=pytest.mark.slow)])
def test_gpt_training_step_matches_eager(dtype):
    from examples.gpt.model import GPTConfig, build_gpt

    gt._dynamo.reset()
    gt.manual_seed(0)
    cfg = GPTConfig(block_size=16, vocab_size=23, n_layer=2, n_head=2, n_embd=32)
    model = build_gpt(gt).GPT(cfg).to(getattr(gt, dtype))
    x, y = gt.randint(23, (3, 16)), gt.randint(23, (3, 16))
    _, loss = gt.compile(model, backend="inductor")(x, y)
    loss.backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters()}
    model.zero_grad()
    _, ref = model(x, y)
    ref.backward()
    tol = dict(rtol=1e-4, atol=2e-6) if dtype == "float32" else dict(rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(loss.item(), ref.item(), **tol)
    for n, p in model.named_parameters():
        np.testing.assert_allclose(grads[n].numpy(), p.grad.numpy(), err_msg=n, **tol)
