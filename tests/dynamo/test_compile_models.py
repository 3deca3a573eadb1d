"""Compiled == eager for small models (forward values and every gradient), with the eager and a counting backend.

The oracle is the same glasstorch model run eagerly (same weights, same inputs); the MLP is also checked against
real PyTorch running ``torch.compile(backend="eager")``.
"""

import numpy as np
import pytest
import torch

import glasstorch as gt
from tests.oracle import from_torch, to_torch


def _mlp(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(8, 16), lib.nn.GELU(), lib.nn.Linear(16, 16), lib.nn.Tanh(),
                             lib.nn.LayerNorm(16), lib.nn.Linear(16, 4))


class SmallCNN(gt.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = gt.nn.Conv2d(3, 6, 3, padding=1)
        self.bn = gt.nn.BatchNorm2d(6)
        self.conv2 = gt.nn.Conv2d(6, 8, 3, stride=2)
        self.pool = gt.nn.MaxPool2d(2)
        self.fc = gt.nn.Linear(8 * 1 * 1, 5)

    def forward(self, x):
        x = gt.nn.functional.relu(self.bn(self.conv1(x)))
        x = self.pool(gt.nn.functional.relu(self.conv2(x)))
        return self.fc(x.flatten(1)).log_softmax(-1)


def _clone_model(model, cls=None):
    twin = cls() if cls is not None else _mlp(gt)
    twin.load_state_dict(model.state_dict())
    return twin


def _grads(model):
    return {n: p.grad.clone() for n, p in model.named_parameters()}


def _close(a, b, tol=1e-6):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("backend", ["eager", "counting"])
def test_mlp_forward_and_grads_match_eager(backend, cnt):
    eager_model = _mlp(gt)
    compiled_src = _clone_model(eager_model)
    compiled = gt.compile(compiled_src, backend=cnt if backend == "counting" else "eager")
    x = gt.randn(5, 8)
    y_e, y_c = eager_model(x), compiled(x)
    _close(y_c, y_e)
    y_e.pow(2).sum().backward()
    y_c.pow(2).sum().backward()
    ge, gc = _grads(eager_model), _grads(compiled_src)
    assert ge.keys() == gc.keys()
    for name in ge:
        _close(gc[name], ge[name])
    if backend == "counting":
        assert cnt.frame_count == 1
        compiled(x)
        assert cnt.frame_count == 1


def test_mlp_input_grad_matches_torch_compile():
    th_model = _mlp(torch)
    gt_model = _mlp(gt)
    gt_model.load_state_dict({k: from_torch(v) for k, v in th_model.state_dict().items()})
    xt = torch.randn(3, 8, requires_grad=True)
    xg = from_torch(xt.detach()).requires_grad_()
    yt = torch.compile(th_model, backend="eager")(xt)
    yg = gt.compile(gt_model, backend="eager")(xg)
    np.testing.assert_allclose(yg.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-5)
    yt.sum().backward()
    yg.sum().backward()
    np.testing.assert_allclose(xg.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-5)
    for (n, pt), (_, pg) in zip(th_model.named_parameters(), gt_model.named_parameters(), strict=True):
        np.testing.assert_allclose(pg.grad.numpy(), pt.grad.numpy(), rtol=1e-5, atol=1e-5, err_msg=n)


def test_small_cnn_train_step_matches_eager(cnt):
    gt.manual_seed(0)
    eager_model = SmallCNN()
    compiled_src = _clone_model(eager_model, SmallCNN)
    compiled = gt.compile(compiled_src, backend=cnt)
    x = gt.randn(2, 3, 6, 6)
    target = gt.tensor([1, 3])
    for model, fn in ((eager_model, eager_model), (compiled_src, compiled)):
        loss = gt.nn.functional.nll_loss(fn(x), target)
        loss.backward()
        model.loss = loss
    _close(compiled_src.loss, eager_model.loss)
    ge, gc = _grads(eager_model), _grads(compiled_src)
    for name in ge:
        _close(gc[name], ge[name], 1e-5)
    # BatchNorm's running statistics were updated by the compiled graph exactly as by the eager call
    _close(compiled_src.bn.running_mean, eager_model.bn.running_mean)
    _close(compiled_src.bn.running_var, eager_model.bn.running_var)
    assert int(compiled_src.bn.num_batches_tracked) == int(eager_model.bn.num_batches_tracked) == 1
    assert cnt.frame_count == 1
    # eval mode: a second graph (BatchNorm uses the running stats), same values as eager eval
    eager_model.eval()
    compiled.eval()
    _close(compiled(x), eager_model(x), 1e-5)
    assert cnt.frame_count == 2


def test_graph_inputs_are_lifted_params_then_buffers_then_user_inputs(cnt):
    gt.manual_seed(0)
    model = SmallCNN()
    compiled = gt.compile(model, backend=cnt)
    x = gt.randn(2, 3, 6, 6)
    compiled(x)
    gm, example = cnt.graphs[0], cnt.example_inputs[0]
    names = [n.name for n in gm.graph.nodes if n.op == "placeholder"]
    expected = [("p_" + k.replace(".", "_")) for k, _ in model.named_parameters()]
    expected += [("b_" + k.replace(".", "_")) for k, _ in model.named_buffers()]
    assert names[:-1] == expected
    assert len(names) == len(example)
    params_then_buffers = list(model.parameters()) + list(model.buffers())
    assert all(a is b for a, b in zip(example[:-1], params_then_buffers, strict=True))
    assert example[-1] is x
    assert not [n for n in gm.graph.nodes if n.op == "get_attr"]


def test_unused_parameters_are_not_lifted(cnt):
    class Partial(gt.nn.Module):
        def __init__(self):
            super().__init__()
            self.used = gt.nn.Linear(3, 3)
            self.unused = gt.nn.Linear(3, 3)

        def forward(self, x):
            return self.used(x)

    gt.compile(Partial(), backend=cnt)(gt.randn(2, 3))
    names = [n.name for n in cnt.graphs[0].graph.nodes if n.op == "placeholder"]
    assert names[:2] == ["p_used_weight", "p_used_bias"] and len(names) == 3


def test_output_structure_and_constants_rebuilt(cnt):
    @gt.compile(backend=cnt)
    def f(x, scale, tag):
        return {"y": x * scale, "pair": (x.sum(), tag), "n": x.shape[0]}

    out = f(gt.ones(3), 2.0, "a")
    assert set(out) == {"y", "pair", "n"} and out["n"] == 3 and out["pair"][1] == "a"
    assert out["y"].tolist() == [2.0, 2.0, 2.0] and float(out["pair"][0]) == 3.0


def test_nested_list_inputs_and_kwargs(cnt):
    @gt.compile(backend=cnt)
    def f(xs, *, bias=None):
        out = xs[0] + xs[1]
        return out if bias is None else out + bias

    a, b = gt.ones(2), gt.full((2,), 2.0)
    assert f([a, b]).tolist() == [3.0, 3.0]
    assert f([a, b], bias=gt.ones(2)).tolist() == [4.0, 4.0]
    assert f([a, b]).tolist() == [3.0, 3.0]
    assert cnt.frame_count == 2


def test_function_closing_over_a_global_module_lifts_its_parameters(cnt):
    global _GLOBAL_MODEL
    _GLOBAL_MODEL = gt.nn.Linear(2, 2)

    def f(x):
        return _GLOBAL_MODEL(x).relu()

    cf = gt.compile(f, backend=cnt)
    x = gt.randn(4, 2)
    _close(cf(x), f(x))
    assert [n.name for n in cnt.graphs[0].graph.nodes if n.op == "placeholder"][:2] == ["p_weight", "p_bias"]
    _GLOBAL_MODEL.eval()
    cf(x)
    assert cnt.frame_count == 2   # the global module's training flag is guarded


def test_to_torch_roundtrip_helper_is_available():
    # the helpers used above round-trip values exactly (guards against a silently broken oracle)
    t = torch.randn(3)
    assert torch.equal(to_torch(from_torch(t)), t)


def _tiny_gpt():
    from examples.gpt.model import GPTConfig, build_gpt
    gt.manual_seed(0)
    cfg = GPTConfig(vocab_size=11, n_layer=1, n_head=2, n_embd=16, block_size=8)
    return build_gpt(gt).GPT(cfg)


def test_gpt_training_step_matches_eager(cnt):
    eager_model = _tiny_gpt()
    compiled_src = _tiny_gpt()
    compiled_src.load_state_dict(eager_model.state_dict())
    compiled = gt.compile(compiled_src, backend=cnt)
    x = gt.randint(0, 11, (2, 8))
    y = gt.randint(0, 11, (2, 8))
    _, loss_e = eager_model(x, y)
    _, loss_c = compiled(x, y)
    _close(loss_c, loss_e, 1e-5)
    loss_e.backward()
    loss_c.backward()
    ge, gc = _grads(eager_model), _grads(compiled_src)
    for name in ge:
        _close(gc[name], ge[name], 1e-5)
    assert cnt.frame_count == 1 and not gt._dynamo.counters["graph_break"]
    # placeholders: every parameter once (the tied lm_head/wte weight is one input), then the two inputs
    names = [n.name for n in cnt.graphs[0].graph.nodes if n.op == "placeholder"]
    assert len(names) == len(list(compiled_src.parameters())) + 2


@pytest.mark.parametrize("backend", ["aot_eager", "inductor"])
def test_mlp_with_the_aot_and_inductor_backends(backend):
    pytest.importorskip("glasstorch._functorch.aot_autograd")
    if backend == "inductor":
        compile_fx = pytest.importorskip("glasstorch._inductor.compile_fx")
        if not compile_fx.compiler_available():
            pytest.skip("no C compiler")
    eager_model = _mlp(gt)
    compiled_src = _clone_model(eager_model)
    compiled = gt.compile(compiled_src, backend=backend)
    x = gt.randn(5, 8)
    y_e, y_c = eager_model(x), compiled(x)
    _close(y_c, y_e, 1e-5)
    y_e.sum().backward()
    y_c.sum().backward()
    ge, gc = _grads(eager_model), _grads(compiled_src)
    for name in ge:
        _close(gc[name], ge[name], 1e-5)
