"""The inductor's speed mechanisms keep results equal to eager and to torch, and do what they claim.

Covered: the per-group profiler (``config.profile_kernels``), merged member loops, 4-d BLAS for a head-split
batch, one buffer per realised value, weight gradients computed in the parameter's layout (no AccumulateGrad
copy), saved values sharing one storage, vectorised NaN-aware max, bool buffers as ``uint8_t``, and the
partitioner saving what the backward must materialise.
"""

import numpy as np
import pytest
import torch

import glasstorch as gt
from glasstorch import _cbuild, fx
from glasstorch._inductor import compile_fx_inner, config

pytestmark = pytest.mark.skipif(not _cbuild.available(), reason="no C compiler")
A = gt.ops.aten


def _graph(n_inputs, body):
    g = fx.Graph()
    ph = [g.placeholder(f"arg{i}") for i in range(n_inputs)]
    g.output(body(g, *ph))
    return fx.GraphModule(gt.nn.Module(), g)


def _rand(*shape, seed=0):
    return gt.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def test_profiler_times_groups_and_steps(monkeypatch):
    monkeypatch.setattr(config, "profile_kernels", True)
    def body(g, x, w):
        return (g.call_function(A._softmax.default, (g.call_function(A.mm.default, (x, w)), -1, False)),)
    gm = _graph(2, body)
    x, w = _rand(64, 32), _rand(32, 48, seed=1)
    compiled = compile_fx_inner(gm, [x, w])
    for _ in range(3):
        (out,) = compiled(x, w)
    np.testing.assert_allclose(out.numpy(), torch.softmax(torch.tensor(x.numpy()) @ torch.tensor(w.numpy()), -1),
                               rtol=1e-5, atol=1e-6)
    rows = compiled.profiler.rows()
    labels = [lab for _, lab in rows]
    assert any(lab.startswith("extern mm") for lab in labels)
    assert any(lab.startswith("  group kernel") and "softmax" in lab for lab in labels)
    assert all(t >= 0 for t, _ in rows) and sum(t for t, _ in rows) > 0
    compiled.profiler.reset()
    assert all(t == 0 for t, _ in compiled.profiler.rows())


def _exp_and_its_sum(g, x):
    m = g.call_function(A.amax.default, (x, [1], True))
    e = g.call_function(A.exp.default, (g.call_function(A.sub.Tensor, (x, m)),))
    return e, g.call_function(A.sum.dim_IntList, (e, [1]))


def test_members_share_one_loop_and_one_exp(monkeypatch):
    """``exp(x - max)`` written out and summed (attention's softmax before its deferred division): one loop and
    one ``gt_expf`` per element; without merging, two.  The bits are the same either way, and torch's."""
    from glasstorch._inductor import codegen_c

    x = _rand(33, 70)
    compiled = compile_fx_inner(_graph(1, _exp_and_its_sum), [x])
    e, s = compiled(x)
    tx = torch.tensor(x.numpy())
    te = torch.exp(tx - tx.amax(1, keepdim=True))
    np.testing.assert_allclose(e.numpy(), te.numpy(), rtol=2e-7, atol=1e-7)
    np.testing.assert_allclose(s.numpy(), te.sum(1).numpy(), rtol=1e-6)
    assert compiled.c_source.split("void kernel", 1)[1].count("gt_expf(") == 1
    monkeypatch.setattr(codegen_c, "_runs", lambda group: [[m] for m in group.members])
    separate = compile_fx_inner(_graph(1, _exp_and_its_sum), [x])
    assert separate.c_source.split("void kernel", 1)[1].count("gt_expf(") == 2
    e2, s2 = separate(x)
    assert np.array_equal(e.numpy(), e2.numpy()) and np.array_equal(s.numpy(), s2.numpy())


def test_nan_aware_vector_max_and_bool_memory():
    gm = _graph(1, lambda g, x: (g.call_function(A.amax.default, (x, [1])),
                                 g.call_function(A.gt.Scalar, (x, 0.0))))
    a = np.random.default_rng(2).standard_normal((5, 40)).astype(np.float32)
    a[1, 7] = np.nan
    a[3, :] = -np.inf
    x = gt.tensor(a)
    compiled = compile_fx_inner(gm, [x])
    mx, pos = compiled(x)
    np.testing.assert_array_equal(mx.numpy(), torch.amax(torch.tensor(a), 1).numpy())
    np.testing.assert_array_equal(pos.numpy(), a > 0)
    assert "reduction(max:acc)" in compiled.c_source and "uint8_t* restrict" in compiled.c_source


def test_head_split_bmm_runs_as_4d_matmul_without_copies():
    b, t, h, d = 3, 8, 4, 5

    def body(g, qkv):
        q = g.call_function(A.permute.default, (g.call_function(A.view.default, (qkv, [b, t, h, d])), [0, 2, 1, 3]))
        k = g.call_function(A.permute.default, (q, [0, 1, 3, 2]))
        q3 = g.call_function(A.reshape.default, (q, [b * h, t, d]))
        k3 = g.call_function(A.reshape.default, (k, [b * h, d, t]))
        return (g.call_function(A.bmm.default, (q3, k3)),)
    x = _rand(b, t, h * d, seed=3)
    compiled = compile_fx_inner(_graph(1, body), [x])
    (out,) = compiled(x)
    tq = torch.tensor(x.numpy()).view(b, t, h, d).permute(0, 2, 1, 3)
    want = (tq @ tq.transpose(-1, -2)).reshape(b * h, t, t)
    np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-5, atol=1e-5)
    assert "kernel" not in compiled.wrapper_source.split("def call", 1)[1]  # no copy kernel: BLAS reads in place
    assert ".reshape((3, 4, 8, 8))" in compiled.wrapper_source


def test_value_read_by_several_views_is_written_once():
    """Realising one lazy value twice (two views of it feed BLAS) gives one buffer and one loop, and a view chain
    over it is rebuilt on that buffer instead of copying."""
    from glasstorch._inductor import ir
    from glasstorch._inductor.lowering import GraphLowering, strided_view

    x = _rand(6, 12)
    g = GraphLowering(_graph(1, lambda gr, a: (a,)), [x])
    g.run()
    base = g.inputs[0].view()
    value = ir.Pointwise(base.sizes, base.dtype, lambda idx: ir.ops.expr("({0} + 1.0f)", (base.load(idx),),
                                                                         base.dtype), 2)
    first, again = g.realize(value), g.realize(value)
    assert first is again and sum(isinstance(n, ir.ComputeNode) for n in g.nodes) == 1
    half = ir.Reindexed(value, (6, 4), lambda idx: [idx[0], idx[1] + 4])
    assert strided_view(half) is None  # a view of a lazy value is not a load of a buffer ...
    view = strided_view(g.rebase(half))  # ... until the value under it is realised: then it is a strided window
    assert view is not None and view.buf is first.buf and view.strides == (12, 1) and view.offset == 4
    assert sum(isinstance(n, ir.ComputeNode) for n in g.nodes) == 1


def _mlp():
    gt.manual_seed(0)
    return gt.nn.Sequential(gt.nn.Linear(16, 32), gt.nn.GELU(), gt.nn.Linear(32, 8))


def test_compiled_training_grads_layout_and_saved_storage():
    model, ref = _mlp(), _mlp()
    compiled = gt.compile(model)
    x = _rand(10, 16, seed=4)
    compiled(x).pow(2).sum().backward()
    ref(x).pow(2).sum().backward()
    for p, q in zip(model.parameters(), ref.parameters(), strict=True):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-6)
        assert p.grad.stride() == p.stride()
    tm = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 8))
    with torch.no_grad():
        for tp, p in zip(tm.parameters(), ref.parameters(), strict=True):
            tp.copy_(torch.tensor(p.detach().numpy()))
    tm(torch.tensor(x.numpy())).pow(2).sum().backward()
    for tp, p in zip(tm.parameters(), model.parameters(), strict=True):
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-4, atol=1e-5)


def test_saved_values_share_one_storage_and_user_outputs_do_not():
    import importlib

    aot = importlib.import_module("glasstorch._functorch.aot_autograd")
    seen = {}

    def fw_compiler(gm, inputs):
        inner = compile_fx_inner(gm, inputs)

        def run(*args):
            outs = inner(*args)
            seen["outs"], seen["n_user"] = outs, gm.meta["num_user_outputs"]
            return outs
        return run
    model = _mlp()
    x = _rand(10, 16, seed=5)
    compiled = gt.compile(model, backend=lambda gm, ex: aot.aot_module_simplified(
        gm, ex, fw_compiler=fw_compiler, bw_compiler=compile_fx_inner))
    compiled(x).sum().backward()
    outs, n_user = seen["outs"], seen["n_user"]
    inputs = {id(t.untyped_storage()) for t in [x, *model.parameters()]}
    saved = [o for o in outs[n_user:] if isinstance(o, gt.Tensor) and id(o.untyped_storage()) not in inputs]
    pooled = {id(o.untyped_storage()) for o in saved if o.untyped_storage().nbytes() > o.numel() * o.element_size()}
    assert len(saved) >= 2 and len(pooled) == 1  # one storage for all the values saved for the backward
    assert all(id(o.untyped_storage()) in pooled for o in saved if o.numel() > 1)
    for o in outs[:n_user]:
        assert all(o.untyped_storage() is not s.untyped_storage() for s in saved)


def test_transposed_weight_grad_is_computed_in_the_parameter_layout():
    """``(a @ b).t()`` returned by a backward graph comes out contiguous (computed as ``b.t() @ a.t()``); a
    forward graph keeps eager's transposed strides."""
    def body(g, a, b):
        return (g.call_function(A.t.default, (g.call_function(A.mm.default, (a, b)),)),)
    a, b = _rand(7, 5), _rand(5, 3, seed=1)
    want = (torch.tensor(a.numpy()) @ torch.tensor(b.numpy())).t()
    for backward, strides in ((True, (7, 1)), (False, (1, 3))):
        (out,) = compile_fx_inner(_graph(2, body), [a, b], is_backward=backward)(a, b)
        np.testing.assert_allclose(out.numpy(), want.numpy(), rtol=1e-6, atol=1e-6)
        assert out.stride() == strides


def test_partition_saves_what_the_backward_feeds_to_a_matmul():
    from glasstorch._functorch import partitioners

    g = fx.Graph()
    p = g.placeholder("primals_1")
    w = g.placeholder("primals_2")
    t = g.placeholder("tangents_1")
    h = g.call_function(A.gelu.default, (g.call_function(A.expand.default, (p, [4, 3])),))  # saving p is cheaper
    out = g.call_function(A.mm.default, (h, w))
    gw = g.call_function(A.mm.default, (g.call_function(A.t.default, (h,)), t))
    g.output((out, gw))
    joint = fx.GraphModule(gt.nn.Module(), g)
    vals = {"primals_1": _rand(1, 3), "primals_2": _rand(3, 2, seed=1), "tangents_1": _rand(4, 2, seed=2)}
    for n in g.nodes:
        if n.op == "placeholder":
            n.meta["val"] = vals[n.name]
    from glasstorch.fx.interpreter import Interpreter

    class _Prop(Interpreter):
        def run_node(self, n):
            r = super().run_node(n)
            n.meta.setdefault("val", r)
            return r
    _Prop(joint).run(*vals.values())
    fw, _ = partitioners.min_cut_rematerialization_partition(joint, None, num_fwd_outputs=1)
    saved = [str(a.target) for a in fw.graph.output_node().args[0][1:] if a.op == "call_function"]
    assert any("gelu" in s for s in saved)  # GELU's output is saved, not recomputed for the weight gradient
