"""compile_fx_inner on hand-built aten graphs: compiled == eager graph == PyTorch, and fusion counts.

Each case builds a glasstorch.fx graph over glasstorch.ops.aten OpOverloads, compiles it with the inductor
and compares ``compiled(*inputs)`` with ``gm(*inputs)`` (values, dtypes, shapes, strides) and with the same aten
ops in real PyTorch.
"""

import numpy as np
import pytest
import torch

import glasstorch as gt
from glasstorch import _cbuild, fx
from glasstorch._inductor import compile_fx_inner
from glasstorch._inductor.compile_fx import CompilerMissing

pytestmark = pytest.mark.skipif(not _cbuild.available(), reason="no C compiler")
A = gt.ops.aten
TA = torch.ops.aten
TOL = {gt.float32: dict(rtol=1e-5, atol=1e-6), gt.float64: dict(rtol=1e-12, atol=1e-13)}


def graph(n_inputs, body):
    """A GraphModule whose body(g, emit, *placeholders) returns the output tuple; emit(op_name, *args) adds a node."""
    g = fx.Graph()
    ph = [g.placeholder(f"arg{i}") for i in range(n_inputs)]

    def emit(name, *args, **kwargs):
        packet, overload = name.split(".")
        return g.call_function(getattr(getattr(A, packet), overload), args, kwargs)
    g.output(body(emit, *ph))
    return fx.GraphModule(gt.nn.Module(), g)


def torch_eval(gm, inputs):
    """Run the same graph with torch's aten ops on torch copies of the inputs."""
    env = {}
    it = iter(inputs)
    for n in gm.graph.nodes:
        if n.op == "placeholder":
            env[n] = next(it)
        elif n.op == "call_function":
            conv = fx.node.map_arg((n.args, n.kwargs), lambda a: env[a])
            t = n.target
            op = getattr(getattr(TA, t.__name__.split(".")[0]), t._overloadname) if hasattr(t, "_overloadname") \
                else t
            env[n] = op(*conv[0], **conv[1])
        elif n.op == "output":
            return fx.node.map_arg(n.args[0], lambda a: env[a])


def to_torch(x):
    return torch.from_numpy(np.array(x.numpy(), copy=True)).as_strided(x.shape, x.stride()) if x.is_contiguous() \
        else torch.from_numpy(np.array(x.contiguous().numpy(), copy=True))


def check(gm, inputs, torch_inputs=None, fused=None):
    compiled = compile_fx_inner(gm, inputs)
    got = compiled(*inputs)
    ref = gm(*inputs)
    ref = ref if isinstance(ref, (list, tuple)) else (ref,)
    assert len(got) == len(ref)
    ti = torch_inputs if torch_inputs is not None else [to_torch(x) if isinstance(x, gt.Tensor) else x
                                                        for x in inputs]
    tref = torch_eval(gm, ti)
    tref = tref if isinstance(tref, (list, tuple)) else (tref,)
    for a, b, t in zip(got, ref, tref, strict=False):
        if b is None:
            assert a is None
            continue
        assert a.dtype is b.dtype and tuple(a.shape) == tuple(b.shape), (a.dtype, b.dtype, a.shape, b.shape)
        assert tuple(a.stride()) == tuple(b.stride()) or a.numel() <= 1, (a.stride(), b.stride())
        tol = TOL.get(a.dtype, dict(rtol=0, atol=0))
        np.testing.assert_allclose(a.numpy(), b.numpy(), **tol)
        np.testing.assert_allclose(a.numpy(), t.numpy(), **tol)
    if fused is not None:
        assert compiled.stats["groups"] == fused, compiled.stats
    return compiled


def rand(*shape, dtype=gt.float32):
    return gt.randn(*shape, dtype=dtype)


@pytest.mark.parametrize("dtype", [gt.float32, gt.float64])
def test_pointwise_chain_broadcast_one_kernel(dtype):
    gm = graph(3, lambda e, x, y, z: (e("relu.default", e("sub.Tensor", e("mul.Tensor", e("add.Tensor", x, y), z),
                                                                        1.5)),))
    c = check(gm, [rand(4, 6, 5, dtype=dtype), rand(6, 1, dtype=dtype), rand(5, dtype=dtype)], fused=1)
    assert c.stats["kernels"] == 1 and c.stats["externs"] == 0


def test_unary_math_float32():
    def body(e, x):
        a = e("exp.default", e("tanh.default", x))
        b = e("erf.default", e("sigmoid.default", x))
        c = e("rsqrt.default", e("add.Scalar", e("abs.default", x), 1.0))
        d = e("log.default", e("add.Scalar", e("exp.default", x), 1.0))
        return (e("add.Tensor", e("mul.Tensor", a, b), c), d, e("pow.Tensor_Scalar", x, 2), e("neg.default", x))
    check(graph(1, body), [rand(7, 9)])


def test_non_contiguous_inputs_and_views():
    def body(e, x, y):
        xt = e("transpose.int", x, 0, 1)           # (5, 4) view of a (4, 5)
        s = e("add.Tensor", xt, e("slice.Tensor", y, 1, 1, 9, 2))
        v = e("reshape.default", e("clone.default", s), [20])
        return (s, v, e("permute.default", e("unsqueeze.default", s, 0), [2, 0, 1]))
    y = rand(5, 10)
    check(graph(2, body), [rand(4, 5), y])
    xt = rand(5, 4).t()  # a non-contiguous input
    check(graph(2, body), [xt, y])


@pytest.mark.parametrize("keepdim", [False, True])
def test_reductions_over_dims(keepdim):
    def body(e, x):
        return (e("sum.dim_IntList", x, [1], keepdim), e("mean.dim", x, [0, 2], keepdim),
                e("amax.default", x, [-1], keepdim), e("sum.default", x), e("amin.default", x, [0], keepdim))
    check(graph(1, body), [rand(3, 4, 5)])


def test_softmax_and_log_softmax_fuse_into_one_group():
    gm = graph(1, lambda e, x: (e("_softmax.default", x, -1, False),))
    check(gm, [rand(6, 40)], fused=1)
    gm = graph(1, lambda e, x: (e("_log_softmax.default", x, 1, False),))
    check(gm, [rand(6, 40)], fused=1)
    gm = graph(1, lambda e, x: (e("_softmax.default", x, 0, False),))  # over a strided dim
    check(gm, [rand(7, 5)])


def test_layer_norm_forward_pieces_fuse():
    g = fx.Graph()
    x, w, b = (g.placeholder(n) for n in "xwb")
    import operator
    ln = g.call_function(A.native_layer_norm.default, (x, [16], w, b, 1e-5))
    g.output(tuple(g.call_function(operator.getitem, (ln, i)) for i in range(3)))
    gm = fx.GraphModule(gt.nn.Module(), g)
    c = check(gm, [rand(2, 3, 16), rand(16), rand(16)])
    assert c.stats["groups"] == 1, c.stats


def test_layer_norm_backward_pieces():
    # the pieces of layer_norm's backward formula: reductions over the last dim and over rows, fused siblings
    def body(e, go, xhat, rstd, w):
        gw = e("mul.Tensor", go, w)
        s1 = e("sum.dim_IntList", gw, [-1], True)
        s2 = e("sum.dim_IntList", e("mul.Tensor", gw, xhat), [-1], True)
        n = 32
        gx = e("mul.Tensor", e("sub.Tensor", e("sub.Tensor", e("mul.Scalar", gw, n), s1), e("mul.Tensor", xhat, s2)),
               e("div.Scalar", rstd, n))
        dw = e("sum.dim_IntList", e("mul.Tensor", go, xhat), [0, 1], False)
        db = e("sum.dim_IntList", go, [0, 1], False)
        return (gx, dw, db)
    c = check(graph(4, body), [rand(3, 5, 32), rand(3, 5, 32), rand(3, 5, 1).abs(), rand(32)])
    assert c.stats["groups"] <= 2, c.stats


def test_gelu_forward_and_backward_formula():
    check(graph(1, lambda e, x: (e("gelu.default", x), e("gelu.default", x, approximate="tanh"))), [rand(5, 33)])

    def backward(e, g, x):  # the pieces of gelu's backward formula as AOT records them
        cdf = e("mul.Scalar", e("add.Scalar", e("erf.default", e("div.Scalar", x, 2 ** 0.5)), 1), 0.5)
        pdf = e("mul.Scalar", e("exp.default", e("mul.Tensor", e("mul.Scalar", x, -0.5), x)), 0.3989422804014327)
        return (e("mul.Tensor", g, e("add.Tensor", cdf, e("mul.Tensor", x, pdf))),)
    g, x = rand(5, 33), rand(5, 33)
    c = check(graph(2, backward), [g, x], fused=1)
    expect = TA.gelu_backward.default(to_torch(g), to_torch(x))
    np.testing.assert_allclose(c(g, x)[0].numpy(), expect.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [gt.float32, gt.float64])
def test_gelu_and_gelu_backward_lower_to_the_eager_kernels_bits(dtype):
    # the eager C loops' inline functions (float32: one exponential and the Mills ratio; float64: libm's erfc)
    specials = [0.0, -0.0, 1e-30, -1e-30, float("inf"), float("-inf"), float("nan"), 1.7014118e38, -3e38]
    x = gt.cat([gt.linspace(-16, 16, 4001, dtype=dtype), gt.tensor(specials, dtype=dtype)])
    g = rand(x.shape[0], dtype=dtype)
    c = check(graph(2, lambda e, g, x: (e("gelu.default", x), e("gelu_backward.default", g, x))), [g, x], fused=1)
    got = c(g, x)
    eager = (A.gelu.default(x), A.gelu_backward.default(g, x))
    for a, b in zip(got, eager, strict=True):
        assert a.numpy().tobytes() == b.numpy().tobytes()


def test_one_hot_scatter_add_fuses_and_general_scatter_add_falls_back():
    # cross_entropy's backward: scatter_add of one value per row into zeros, fused with what reads it
    def body(e, x, idx, src):
        return (e("mul.Scalar", e("scatter_add.default", e("mul.Scalar", x, 2.0), 1, idx, src), 3.0),)
    x, src = rand(6, 7), rand(6, 2)
    idx = gt.tensor([[0], [6], [3], [3], [1], [0]])
    c = check(graph(3, body), [x, idx, src], fused=1)
    assert not c.stats["fallbacks"], c.stats
    ref = (x * 2.0).scatter_add(1, idx, src[:, :1]) * 3.0
    assert c(x, idx, src)[0].numpy().tobytes() == ref.numpy().tobytes()
    wide = gt.tensor([[0, 6], [3, 3], [1, 1], [0, 2], [5, 4], [2, 2]])  # two per row, repeats: a real scatter
    c = check(graph(3, lambda e, x, i, s: (e("scatter_add.default", x, 1, i, s),)), [x, wide, src])
    assert any("scatter_add" in f for f in c.stats["fallbacks"]), c.stats


def test_index_add_rows_direct_kernel_matches_eager_and_keeps_its_errors():
    # the embedding backward: repeated indices add in index order, as the eager kernel does
    gm = graph(3, lambda e, x, i, s: (e("mul.Scalar", e("index_add.default", x, 0, i, s), 2.0),))
    x, src = rand(5, 4), rand(7, 4)
    idx = gt.tensor([4, 0, 4, 2, 4, 0, 1])
    c = check(gm, [x, idx, src])
    assert any("index_add" in f for f in c.stats["fallbacks"]), c.stats
    ref = A.index_add.default(x, 0, idx, src) * 2.0
    assert c(x, idx, src)[0].numpy().tobytes() == ref.numpy().tobytes()
    bad = gt.tensor([0, 1, 5, 0, 0, 0, 0])
    with pytest.raises(RuntimeError) as got:
        c(x, bad, src)
    with pytest.raises(RuntimeError) as want:
        torch.index_add(to_torch(x), 0, to_torch(bad), to_torch(src))
    assert str(got.value) == str(want.value)


def test_mm_addmm_bmm_and_fused_epilogue():
    def body(e, a, b, bias, p, q):
        mm = e("mm.default", a, b)
        am = e("addmm.default", bias, a, b)
        bm = e("bmm.default", p, e("transpose.int", q, 1, 2))
        return (mm, e("relu.default", am), bm)
    c = check(graph(5, body), [rand(6, 8), rand(8, 7), rand(7), rand(2, 3, 4), rand(2, 5, 4)])
    assert c.stats["externs"] == 3


def test_int_and_bool_ops():
    def body(e, i, j, m):
        s = e("add.Tensor", i, e("mul.Scalar", j, 3))
        cmp = e("gt.Tensor", s, j)
        both = e("logical_and.default", cmp, e("logical_not.default", m))
        w = e("where.self", both, s, e("neg.default", j))
        return (s, cmp, both, w, e("sum.dim_IntList", cmp, [1], False), e("div.Tensor", i, 2))
    i = gt.randint(-5, 5, (4, 6))
    j = gt.randint(-5, 5, (6,))
    m = gt.randint(0, 2, (4, 6)).bool()
    check(graph(3, body), [i, j, m])
    check(graph(3, body), [i.int(), j.int(), m])


def test_none_outputs_and_input_passthrough():
    gm = graph(2, lambda e, x, y: (None, e("add.Tensor", x, y), x, None))
    check(gm, [rand(3), rand(3)])


def test_embedding_gather_and_nll_loss():
    import operator

    g = fx.Graph()
    w, idx, logits, tgt = (g.placeholder(n) for n in ("w", "idx", "logits", "tgt"))
    emb = g.call_function(A.embedding.default, (w, idx))
    ls = g.call_function(A._log_softmax.default, (logits, 1, False))
    nll = g.call_function(A.nll_loss_forward.default, (ls, tgt, None, 1, -100))
    g.output((emb, g.call_function(operator.getitem, (nll, 0)), g.call_function(operator.getitem, (nll, 1))))
    gm = fx.GraphModule(gt.nn.Module(), g)
    tgt_v = gt.tensor([1, 4, -100, 2, 0])
    c = check(gm, [rand(10, 4), gt.tensor([[1, 2, 9], [0, 0, 3]]), rand(5, 6), tgt_v])
    assert c.stats["externs"] == 0, c.stats


def test_fallback_for_ops_without_lowering():
    gm = graph(1, lambda e, x: (e("add.Tensor", e("cumsum.default", x, 1), 1.0),))
    c = check(gm, [rand(3, 4)])
    assert c.stats["fallbacks"] == ["aten.cumsum.default"] or any("cumsum" in f for f in c.stats["fallbacks"])


def test_memory_planning_reuses_arena_slots():
    def body(e, x):
        y = x
        for _ in range(6):  # each mm result is an intermediate read only by the next step
            y = e("mm.default", e("tanh.default", y), x)
        return (y,)
    c = check(graph(1, body), [rand(16, 16) * 0.1])
    assert c.stats["arena_bytes"] <= 3 * 16 * 16 * 4, c.stats


def test_compiled_call_repeats_and_restrides_inputs():
    gm = graph(1, lambda e, x: (e("mul.Scalar", x, 2.0),))
    x = rand(4, 3)
    compiled = compile_fx_inner(gm, [x])
    for _ in range(3):
        np.testing.assert_allclose(compiled(x)[0].numpy(), (x * 2).numpy())
    xt = rand(3, 4).t()  # other strides than at compile time: copied into the compiled layout
    np.testing.assert_allclose(compiled(xt)[0].numpy(), (xt * 2).numpy())


def test_missing_compiler_raises_clear_error(monkeypatch):
    monkeypatch.setattr(_cbuild, "_compiler", [])
    monkeypatch.setenv("GLASSTORCH_CC", "no-such-cc-h6")
    monkeypatch.setenv("CC", "no-such-cc-h6")
    monkeypatch.setenv("PATH", "/nonexistent")
    gm = graph(1, lambda e, x: (e("neg.default", x),))
    with pytest.raises(CompilerMissing, match="C compiler"):
        compile_fx_inner(gm, [rand(2)])
    assert issubclass(CompilerMissing, _cbuild.CompilerNotFound)


def test_cat_lowers_to_one_pointwise():
    def body(e, a, b, c):
        return (e("cat.default", [a, b, c], 1), e("relu.default", e("cat.default", [a, e("neg.default", a)], 0)))
    c = check(graph(3, body), [rand(2, 3, 4), rand(2, 5, 4), rand(2, 1, 4)])
    assert not c.stats["fallbacks"], c.stats


@pytest.mark.parametrize("causal", [False, True])
def test_flash_attention_lowers_to_bmm_and_fused_softmax(causal):
    import operator
    g = fx.Graph()
    q, k, v = (g.placeholder(n) for n in "qkv")
    qt, kt, vt = (g.call_function(A.transpose.int, (t, 1, 2)) for t in (q, k, v))
    r = g.call_function(A._scaled_dot_product_flash_attention_for_cpu.default, (qt, kt, vt, 0.0, causal))
    g.output(tuple(g.call_function(operator.getitem, (r, i)) for i in range(2)))
    gm = fx.GraphModule(gt.nn.Module(), g)
    c = check(gm, [rand(2, 6, 3, 4), rand(2, 6, 3, 4), rand(2, 6, 3, 4)])
    assert not c.stats["fallbacks"], c.stats


def test_debug_dir_and_logs_get_ir_schedule_c_and_wrapper(tmp_path, monkeypatch, capsys):
    import glasstorch._logging as gl
    monkeypatch.setattr(gl, "debug_dir", lambda: str(tmp_path))
    gm = graph(1, lambda e, x: (e("_softmax.default", x, -1, False),))
    compile_fx_inner(gm, [rand(4, 8)])
    files = sorted(p.name for p in (tmp_path / "inductor" / "forward").iterdir())
    assert files == ["ir.txt", "kernels.c", "schedule.txt", "wrapper.py"]
    assert "void kernel0" in (tmp_path / "inductor" / "forward" / "kernels.c").read_text()
    assert "joins group" in (tmp_path / "inductor" / "forward" / "schedule.txt").read_text()
    compile_fx_inner(gm, [rand(4, 8)])  # a second graph of the same compile gets a folder of its own
    assert sorted(p.name for p in (tmp_path / "inductor").iterdir()) == ["forward", "forward_1"]


def test_compile_debug_keeps_forward_and_backward_apart(tmp_path, monkeypatch):
    """GLASSTORCH_COMPILE_DEBUG=1: the joint graph's forward and backward each write their own inductor files."""
    from glasstorch._logging import _debug_dir
    monkeypatch.setenv("GLASSTORCH_COMPILE_DEBUG", "1")
    monkeypatch.setenv("GLASSTORCH_COMPILE_DEBUG_DIR", str(tmp_path))
    monkeypatch.setattr(_debug_dir, "_run_dir", None)
    monkeypatch.setattr(_debug_dir, "_counter", 0)
    x = gt.randn(8, 5, requires_grad=True)
    f = gt.compile(lambda t: (t.sin() * t).sum(), backend="inductor")
    f(x).backward()
    (run,) = (tmp_path / "glasstorch_compile_debug").iterdir()
    fwd, bwd = run / "0" / "inductor" / "forward", run / "0" / "inductor" / "backward"
    assert sorted(p.name for p in (run / "0" / "inductor").iterdir()) == ["backward", "forward"]
    assert fwd.joinpath("wrapper.py").read_text() != bwd.joinpath("wrapper.py").read_text()
    assert "sin" in fwd.joinpath("kernels.c").read_text() and "cos" in bwd.joinpath("kernels.c").read_text()


def test_new_input_shape_is_refused_not_miscomputed():
    gm = graph(1, lambda e, x: (e("neg.default", x),))
    compiled = compile_fx_inner(gm, [rand(4, 3)])
    with pytest.raises(RuntimeError, match="compile again"):
        compiled(rand(5, 3))
