"""AOT autograd end to end: aot_module_simplified over dynamo-style graphs (parameters lifted to inputs) against
the same graph run eagerly and against real PyTorch — forward values, every gradient, buffer updates."""

from __future__ import annotations

import pytest
import torch
from aot_helpers import (
    assert_close,
    compile_module,
    copy_weights,
    default_partition,
    min_cut_rematerialization_partition,
    zero_grads,
)

import glasstorch as gt
from glasstorch._functorch.aot_autograd import (
    DOUBLE_BACKWARD_ERROR,
    aot_eager,
    aot_function,
    aot_module_simplified,
    nop,
)

PARTITIONS = [default_partition, min_cut_rematerialization_partition]
PIDS = ["default", "mincut"]


def _g(t: torch.Tensor):
    return gt.from_numpy(t.detach().numpy().copy())


def _check_against_torch(gt_model, t_model, t_inputs, partition_fn, loss_of=lambda out: out.sum(), rtol=1e-5,
                         atol=1e-5):
    """Compiled glasstorch == eager glasstorch == torch: output, parameter grads, buffers."""
    g_inputs = [_g(x) for x in t_inputs]
    compiled = compile_module(gt_model, *g_inputs, partition_fn=partition_fn)
    out = compiled(*g_inputs)
    assert out.grad_fn.name() == "CompiledFunctionBackward"
    loss_of(out).backward()
    got = {n: p.grad.clone() for n, p in gt_model.named_parameters()}
    zero_grads(gt_model)
    ref_out = t_model(*t_inputs)
    loss_of(ref_out).backward()
    assert_close(out, ref_out, rtol, atol, "output vs torch")
    for n, p in t_model.named_parameters():
        assert_close(got[n], p.grad, rtol, atol, f"grad of {n} vs torch")
    for n, b in t_model.named_buffers():
        assert_close(dict(gt_model.named_buffers())[n], b, rtol, atol, f"buffer {n} vs torch")
    return out


def _pair(build, seed=0):
    torch.manual_seed(seed)
    tm = build(torch)
    gm = build(gt)
    copy_weights(gm, tm)
    return gm, tm


# -- models ----------------------------------------------------------------------------------------------------
def _mlp(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 3))


def _cnn(lib):
    nn = lib.nn
    return nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 4, 3),
                         nn.ReLU(), nn.Flatten(), nn.Linear(4 * 2 * 2, 5))


def _ln_gelu(lib):
    nn = lib.nn

    class LnGelu(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm(8)
            self.fc = nn.Linear(8, 8)

        def forward(self, x):
            return nn.functional.gelu(self.fc(self.ln(x))) + x

    return LnGelu()


def _attention(lib):
    nn = lib.nn

    class Attn(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(8, 24)

        def forward(self, x):
            B, T, C = x.shape
            q, k, v = self.qkv(x).split(8, dim=2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / C ** 0.5)
            mask = lib.ones(T, T).tril() == 0
            att = att.masked_fill(mask, float("-inf"))
            return lib.softmax(att, dim=-1) @ v

    return Attn()


def _bn_net(lib):
    nn = lib.nn
    return nn.Sequential(nn.Linear(5, 7), nn.BatchNorm1d(7), nn.ReLU(), nn.Linear(7, 2))


@pytest.mark.parametrize("partition_fn", PARTITIONS, ids=PIDS)
def test_mlp_matches_eager_and_torch(partition_fn):
    gm, tm = _pair(_mlp)
    _check_against_torch(gm, tm, [torch.randn(5, 6)], partition_fn)


@pytest.mark.parametrize("partition_fn", PARTITIONS, ids=PIDS)
def test_small_cnn_matches_torch(partition_fn):
    gm, tm = _pair(_cnn)
    _check_against_torch(gm, tm, [torch.randn(2, 2, 8, 8)], partition_fn)


def test_layer_norm_gelu_matches_torch():
    gm, tm = _pair(_ln_gelu)
    _check_against_torch(gm, tm, [torch.randn(3, 4, 8)], min_cut_rematerialization_partition)


def test_softmax_attention_matches_torch():
    gm, tm = _pair(_attention)
    _check_against_torch(gm, tm, [torch.randn(2, 5, 8)], min_cut_rematerialization_partition)


@pytest.mark.parametrize("partition_fn", PARTITIONS, ids=PIDS)
def test_batch_norm_training_updates_running_stats_like_torch(partition_fn):
    gm, tm = _pair(_bn_net)
    x = torch.randn(6, 5)
    _check_against_torch(gm, tm, [x], partition_fn)
    assert int(dict(gm.named_buffers())["1.num_batches_tracked"]) == 1
    gm.eval()
    tm.eval()
    with gt.no_grad():
        out = compile_module(gm, _g(x))(_g(x))
    assert out.grad_fn is None
    assert_close(out, tm(x), what="eval-mode output")


def test_cross_entropy_with_integer_targets():
    gm, tm = _pair(_mlp)
    x, y = torch.randn(7, 6), torch.randint(3, (7,))

    def loss(lib):
        return lambda model: (lambda inp, tgt: lib.nn.functional.cross_entropy(model(inp), tgt))

    g_loss_fn = loss(gt)(gm)
    compiled = compile_module(gm, _g(x), _g(y), fn=g_loss_fn)
    out = compiled(_g(x), _g(y))
    out.backward()
    t_out = loss(torch)(tm)(x, y)
    t_out.backward()
    assert_close(out, t_out, what="loss")
    for n, p in tm.named_parameters():
        assert_close(dict(gm.named_parameters())[n].grad, p.grad, what=n)


def test_gradients_reach_the_optimizer():
    gm, tm = _pair(_mlp)
    x = torch.randn(4, 6)
    compiled = compile_module(gm, _g(x))
    g_opt = gt.optim.SGD(gm.parameters(), lr=0.1)
    for _ in range(2):
        g_opt.zero_grad()
        compiled(_g(x)).pow(2).mean().backward()
        g_opt.step()
        tm.zero_grad()
        tm(x).pow(2).mean().backward()
        with torch.no_grad():                  # plain SGD by hand (torch.optim's first step imports dynamo)
            for p in tm.parameters():
                p -= 0.1 * p.grad
    for n, p in tm.named_parameters():
        assert_close(dict(gm.named_parameters())[n], p, what=n)


# -- functions: mutation, aliasing, odd inputs and outputs -----------------------------------------------------
def _both(fn, *inputs, partition_fn=min_cut_rematerialization_partition):
    """(compiled result, eager result) of ``fn`` over glasstorch inputs (cloned per run)."""
    gm = capture_fn(fn, *inputs)
    compiled = aot_module_simplified(gm, list(inputs), nop, nop, partition_fn=partition_fn)
    return compiled


def capture_fn(fn, *inputs):
    from glasstorch.fx.experimental.proxy_tensor import make_fx
    return make_fx(fn, tracing_mode="fake")(*inputs)


def _leaf(*shape, rg=True, seed=0):
    gt.manual_seed(seed)
    return gt.randn(*shape).requires_grad_(rg)


def test_inplace_ops_on_an_intermediate_and_through_a_view():
    def f(x, w):
        h = x @ w
        h.add_(1)
        h.mul_(2)
        h[:, 0] = 0.5          # copy_ into a view of the intermediate
        h[1].add_(x[1, :1])    # in-place add through a select view
        return h.sin().sum(1)

    x, w = _leaf(4, 3), _leaf(3, 5, seed=1)
    compiled = _both(f, x, w)
    fw = compiled._aot_module.fg.gm
    assert not any(getattr(getattr(n.target, "_schema", None), "is_mutable", False) for n in fw.graph.nodes)
    out = compiled(x, w)
    out.sum().backward()
    gx, gw = x.grad, w.grad
    x.grad = w.grad = None
    ref = f(x, w)
    ref.sum().backward()
    assert_close(out, ref)
    assert_close(gx, x.grad)
    assert_close(gw, w.grad)


def test_input_mutation_is_applied_to_the_real_input():
    def f(x, buf):
        buf.add_(1)
        buf[0].mul_(3)
        return x * buf

    x = _leaf(3, 2)
    buf, ref_buf = gt.ones(3, 2), gt.ones(3, 2)
    compiled = _both(f, x, buf.clone())
    out = compiled(x, buf)
    out.sum().backward()
    gx = x.grad
    x.grad = None
    ref = f(x, ref_buf)
    ref.sum().backward()
    assert_close(buf, ref_buf, what="mutated input")
    assert_close(out, ref)
    assert_close(gx, x.grad)
    out2 = compiled(x, buf)
    assert_close(buf, f(x.detach(), ref_buf) * 0 + ref_buf, what="second call mutates again")
    assert_close(out2, x.detach() * ref_buf)


def test_inplace_on_an_input_that_requires_grad():
    def f(a):
        a.mul_(2)
        return a.sin()

    base = _leaf(4)
    compiled = _both(f, base * 1)
    x = base * 1                     # a non-leaf requiring grad, mutated in place
    out = compiled(x)
    out.sum().backward()
    got = base.grad
    base.grad = None
    y = base * 1
    ref = f(y)
    ref.sum().backward()
    assert_close(out, ref)
    assert_close(x, y, what="input after mutation")
    assert_close(got, base.grad)


def test_outputs_that_alias_inputs_and_each_other():
    def f(x, y):
        z = x * y
        return x, x.t(), z, z.view(-1), y[0]

    x, y = _leaf(2, 3), _leaf(2, 3, seed=1)
    compiled = _both(f, x, y)
    out = compiled(x, y)
    ref = f(x, y)
    assert out[0] is x
    assert out[1]._base is x and out[1].grad_fn is not None
    assert out[3]._base is out[2]
    for a, b in zip(out, ref, strict=True):
        assert_close(a, b)
    sum(o.sum() * (i + 1) for i, o in enumerate(out)).backward()
    gx, gy = x.grad, y.grad
    x.grad = y.grad = None
    sum(o.sum() * (i + 1) for i, o in enumerate(ref)).backward()
    assert_close(gx, x.grad)
    assert_close(gy, y.grad)


def test_multiple_outputs_integer_inputs_and_none_grads():
    def f(x, idx, c):
        picked = x.index_select(0, idx)
        return picked * c, picked.argmax(1), (c * 2).sum()

    x, c = _leaf(5, 3), _leaf(3, rg=False)
    idx = gt.tensor([4, 0, 2])
    compiled = _both(f, x, idx, c)
    out = compiled(x, idx, c)
    assert out[1].dtype == gt.int64 and not out[1].requires_grad
    assert not out[2].requires_grad and out[2].grad_fn is None
    out[0].sum().backward()
    assert c.grad is None
    gx = x.grad
    x.grad = None
    ref = f(x, idx, c)
    ref[0].sum().backward()
    for a, b in zip(out, ref, strict=True):
        assert_close(a, b)
    assert_close(gx, x.grad)


def test_inference_path_without_grad():
    calls = []

    def counting(gm, inputs):
        calls.append(len([n for n in gm.graph.nodes if n.op == "placeholder"]))
        return gm

    def f(x, w):
        return (x @ w).tanh()

    x, w = _leaf(3, 4), _leaf(4, 2, seed=1)
    gm = capture_fn(f, x, w)
    with gt.no_grad():
        compiled = aot_module_simplified(gm, [x, w], counting, counting)
        assert calls == [2]                    # compiled at once: the path the example inputs take now
        out = compiled(x, w)
    assert out.grad_fn is None and not out.requires_grad
    assert_close(out, f(x, w))
    out = compiled(x.detach(), w.detach())    # grad mode on, nothing requires grad: inference again
    assert out.grad_fn is None
    assert calls == [2]
    out = compiled(x, w)
    assert calls == [2, 2]                     # the training forward graph, compiled on first use
    out.sum().backward()
    assert len(calls) == 3                     # the backward graph is compiled on the first backward


def test_double_backward_raises_like_torch():
    x = _leaf(3)
    compiled = _both(lambda t: (t.sin() * t).sum(), x)
    y = compiled(x)
    (g,) = gt.autograd.grad(y, x, create_graph=True)
    ref = (x.sin() + x * x.cos())
    assert_close(g, ref)
    with pytest.raises(RuntimeError, match="torch.compile with aot_autograd does not currently support double "
                                           "backward"):
        g.sum().backward()
    # torch 2.13: torch.compile(f, backend="aot_eager") then double backward raises exactly this text
    assert DOUBLE_BACKWARD_ERROR == "torch.compile with aot_autograd does not currently support double backward"


def test_aot_function_nested_args_and_constants():
    def f(pair, scale, d):
        a, b = pair
        return (a * b + d["c"]) * scale

    a, b, c = _leaf(3), _leaf(3, seed=1), _leaf(3, seed=2)
    compiled = aot_function(f, fw_compiler=nop)
    out = compiled((a, b), 2.0, {"c": c})
    out.sum().backward()
    grads = [t.grad for t in (a, b, c)]
    for t in (a, b, c):
        t.grad = None
    f((a, b), 2.0, {"c": c}).sum().backward()
    for got, t in zip(grads, (a, b, c), strict=True):
        assert_close(got, t.grad)
    assert_close(compiled((a, b), 3.0, {"c": c}), f((a, b), 3.0, {"c": c}))


def test_aot_eager_backend_callable():
    x, w = _leaf(3, 4), _leaf(4, 2, seed=1)
    gm = capture_fn(lambda a, b: (a @ b).relu(), x, w)
    out = aot_eager(gm, [x, w])(x, w)
    assert out.grad_fn.name() == "CompiledFunctionBackward"
    assert_close(out, (x @ w).relu())


def test_debug_dir_and_logs(tmp_path, monkeypatch, capsys):
    from glasstorch import _logging
    monkeypatch.setenv("GLASSTORCH_COMPILE_DEBUG", "1")
    monkeypatch.setenv("GLASSTORCH_COMPILE_DEBUG_DIR", str(tmp_path))
    _logging.set_logs(aot_graphs=True)
    try:
        x = _leaf(3)
        with _logging.compile_debug_scope():
            compiled = _both(lambda t: t.sin().cos(), x)
            compiled(x).sum().backward()
            folder = _logging.debug_dir()
    finally:
        _logging.set_logs()
    names = sorted(p.name for p in __import__("pathlib").Path(folder).iterdir())
    assert any(n.endswith("_joint_graph.py") for n in names), names
    assert any(n.endswith("_forward_graph.py") for n in names), names
    assert any(n.endswith("_backward_graph.py") for n in names), names
    assert any(n.endswith("_partition.txt") for n in names), names
    err = capsys.readouterr()
    text = err.out + err.err
    assert "Forward graph" in text and "Backward graph" in text and "Joint graph" in text


def test_compiled_graphs_are_functional_and_carry_meta():
    """What the backend compilers receive: aten graphs, every tensor node with meta val/tensor_meta, no
    in-place op, no output that is a graph input (for the forward and inference graphs)."""
    seen = []

    def keep(gm, inputs):
        seen.append(gm)
        return gm

    def f(x, w, buf):
        buf.mul_(0.5)
        h = (x @ w).relu()
        h.add_(buf.sum())
        return h.tanh(), x.view(-1)

    x, w, buf = _leaf(3, 4), _leaf(4, 2, seed=1), gt.ones(3, 2)
    gm = capture_fn(f, x, w, buf.clone())
    compiled = aot_module_simplified(gm, [x, w, buf.clone()], keep, keep)
    with gt.no_grad():
        compiled(x, w, buf.clone())
    out = compiled(x, w, buf)
    out[0].sum().backward()
    assert len(seen) == 3                              # inference, forward, backward
    for g in seen:
        placeholders = {n for n in g.graph.nodes if n.op == "placeholder"}
        for n in g.graph.nodes:
            if n.op in ("call_function", "placeholder") and isinstance(n.meta.get("val"), gt.Tensor):
                assert "tensor_meta" in n.meta, n.format_node()
            if n.op == "call_function":
                assert not getattr(getattr(n.target, "_schema", None), "is_mutable", False), n.format_node()
        outs = g.graph.output_node().args[0]
        if g is not seen[2]:                           # (new buf, tanh) of the inference and forward graphs
            assert not any(o in placeholders for o in outs[:2]), g.code


def test_dropout_matches_eager_under_the_same_seed():
    """Random ops run once, in the forward, in eager order (never recomputed): same RNG stream as eager."""
    nn = gt.nn
    gt.manual_seed(0)
    model = nn.Sequential(nn.Linear(8, 16), nn.Dropout(0.3), nn.ReLU(), nn.Linear(16, 4))
    x = gt.randn(5, 8)
    compiled = compile_module(model, x)
    gt.manual_seed(5)
    out = compiled(x)
    out.sum().backward()
    got = {n: p.grad.clone() for n, p in model.named_parameters()}
    zero_grads(model)
    gt.manual_seed(5)
    ref = model(x)
    ref.sum().backward()
    assert_close(out, ref)
    for n, p in model.named_parameters():
        assert_close(got[n], p.grad, what=n)
