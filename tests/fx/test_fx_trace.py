"""symbolic_trace against torch.fx: the same modules and functions give the same graph and the same code,
and the traced GraphModule computes what the eager code computes."""

from __future__ import annotations

import operator

import numpy as np
import pytest
import torch
import torch.fx as tfx
from fx_models import (
    build_gpt_block,
    build_mixed,
    build_mlp,
    build_nested,
    copy_weights,
    fn_arith,
    fn_torch_functions,
    to_np,
)
from fx_oracle import assert_same_code, assert_same_graph, normalize, trace_both

import glasstorch
import glasstorch.fx as gfx

MODELS = {"mlp": (build_mlp, [(3, 8)]), "mixed": (build_mixed, [(4, 4), (4, 4)]),
          "nested": (build_nested, [(5, 6)]), "gpt_block": (build_gpt_block, [(2, 8, 16)])}


def _helper(x, y):  # a leaf registered with both libraries' wrap()
    return x * y if len(x.shape) > 0 else x


gfx.wrap("_helper")
tfx.wrap("_helper")


@pytest.mark.parametrize("name", list(MODELS))
def test_module_graph_and_code_match_torch(name):
    gm_gt, gm_th = trace_both(MODELS[name][0])
    assert_same_graph(gm_gt, gm_th)
    assert_same_code(gm_gt, gm_th)
    assert type(gm_gt).__name__ == type(gm_th).__name__


@pytest.mark.parametrize("name", list(MODELS))
def test_module_outputs_match_eager_and_torch(name):
    builder, shapes = MODELS[name]
    m_gt, m_th = builder(glasstorch), builder(torch)
    copy_weights(m_gt, m_th)
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    xs_gt = [glasstorch.from_numpy(a.copy()) for a in arrays]
    xs_th = [torch.from_numpy(a.copy()) for a in arrays]
    gm = gfx.symbolic_trace(m_gt)
    out_gm, out_eager, out_th = gm(*xs_gt), m_gt(*xs_gt), m_th(*xs_th)
    flat = lambda o: list(o) if isinstance(o, tuple) else [o]  # noqa: E731
    for a, b, c in zip(flat(out_gm), flat(out_eager), flat(out_th), strict=True):
        np.testing.assert_array_equal(to_np(a), to_np(b))
        np.testing.assert_allclose(to_np(a), to_np(c), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fn", [lambda lib: fn_arith, fn_torch_functions], ids=["arith", "torch_functions"])
def test_function_traces_match_torch(fn):
    gm_gt, gm_th = trace_both(fn)
    assert_same_graph(gm_gt, gm_th)
    assert_same_code(gm_gt, gm_th)
    x = glasstorch.tensor([[1.0, -2.0], [3.0, -0.5]])
    y = glasstorch.tensor([[0.5, 2.0], [-1.0, 4.0]])
    args = (x, y) if fn is not fn_torch_functions else (x,)
    eager = fn(glasstorch)(*args)
    traced = gm_gt(*args)
    for a, b in zip(eager if isinstance(eager, tuple) else [eager], traced if isinstance(traced, tuple) else [traced],
                    strict=True):
        np.testing.assert_array_equal(to_np(a), to_np(b))


def _raises_same(fn_gt, fn_th):
    with pytest.raises(Exception) as e_th:
        tfx.symbolic_trace(fn_th)
    with pytest.raises(Exception) as e_gt:
        gfx.symbolic_trace(fn_gt)
    assert type(e_gt.value).__name__ == type(e_th.value).__name__
    assert str(e_gt.value) == str(e_th.value)
    return e_gt.value


def test_control_flow_on_proxy_raises_trace_error():
    def f(x):
        if x.sum() > 0:
            return x
        return -x
    err = _raises_same(f, f)
    assert isinstance(err, gfx.TraceError) and isinstance(err, ValueError)
    assert str(err) == "symbolically traced variables cannot be used as inputs to control flow"


@pytest.mark.parametrize("body", ["iterate", "len", "int", "ternary", "while"])
def test_untraceable_python_uses(body):
    cases = {
        "iterate": lambda x: [v for v in x],
        "len": lambda x: len(x),
        "int": lambda x: int(x),
        "ternary": lambda x: x if x.max() else x,
        "while": lambda x: [x for _ in range(3) if x.dim()],
    }
    _raises_same(cases[body], cases[body])


def test_tuple_unpacking_of_a_proxy_is_traced():
    def f(x):
        a, b = x.shape
        q, k = x.split(1, dim=0)
        return q * a + k * b
    gm_gt, gm_th = trace_both(lambda lib: f)
    assert_same_code(gm_gt, gm_th)
    x = glasstorch.arange(6.0).view(2, 3)
    np.testing.assert_array_equal(to_np(gm_gt(x)), to_np(f(x)))


def test_concrete_args_specialise_and_check():
    def f(a, b, c=None, d=2):
        if b:
            return a
        return a * d if c is None else a

    gm_gt, gm_th = trace_both(lambda lib: f, concrete_args={"b": False, "c": None})
    names = [(n.op, n.name) for n in gm_gt.graph.nodes]
    assert names == [(n.op, n.name) for n in gm_th.graph.nodes]
    x = glasstorch.ones(2)
    np.testing.assert_array_equal(to_np(gm_gt(x, False, None)), [2.0, 2.0])
    with pytest.raises(AssertionError) as e_gt:
        gm_gt(x, True, None)
    with pytest.raises(AssertionError) as e_th:
        gm_th(torch.ones(2), True, None)
    assert str(e_gt.value) == str(e_th.value) == "b has been specialized to have value False but got another value"
    with pytest.raises(AssertionError, match="c has been specialized to have value None"):
        gm_gt(x, False, 1)


def test_concrete_args_tuple_length_error():
    def f(a, b):
        return a + b
    with pytest.raises(RuntimeError) as e_th:
        tfx.symbolic_trace(f, concrete_args=(1,))
    with pytest.raises(RuntimeError) as e_gt:
        gfx.symbolic_trace(f, concrete_args=(1,))
    assert str(e_gt.value) == str(e_th.value)


def test_varargs_and_kwargs_become_placeholders():
    def g(x, *args, **kw):
        return x + args[0]
    gm_gt, gm_th = trace_both(lambda lib: g)
    assert_same_code(gm_gt, gm_th)
    assert [n.target for n in gm_gt.graph.nodes if n.op == "placeholder"] == ["x", "*args", "**kw"]
    out = gm_gt(glasstorch.ones(2), glasstorch.full((2,), 3.0))
    np.testing.assert_array_equal(to_np(out), [4.0, 4.0])


def test_wrapped_function_is_a_leaf():
    def f(x, y):
        return _helper(x, y) + 1
    gm_gt, gm_th = trace_both(lambda lib: f)
    assert_same_graph(gm_gt, gm_th)
    assert normalize(gm_th.code).replace("torch.fx._symbolic_trace.wrap", "W") == \
        gm_gt.code.replace("torch.fx._symbolic_trace.wrap", "W")
    assert _helper.__name__ == "_helper" and not hasattr(_helper, "__fx_already_patched")  # patch undone
    np.testing.assert_array_equal(to_np(gm_gt(glasstorch.ones(2) * 2, glasstorch.ones(2) * 3)), [7.0, 7.0])


def test_wrap_outside_module_scope_raises():
    with pytest.raises(NotImplementedError, match="wrap must be called at the top level of a module"):
        gfx.wrap("len")
    with pytest.raises(RuntimeError, match="Unsupported type for global function"):
        gfx.wrap(3)


def test_math_functions_are_autowrapped():
    import math

    def f(x):
        return x * math.sqrt(x.size(0))
    gm_gt, gm_th = trace_both(lambda lib: f)
    assert_same_graph(gm_gt, gm_th)
    np.testing.assert_allclose(to_np(gm_gt(glasstorch.ones(4))), [2.0] * 4)


def test_tensor_attribute_and_method_with_proxy_argument():
    def build(lib):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.const = lib.arange(3.0)  # a plain attribute, neither parameter nor buffer

            def forward(self, x):
                return self.const.add(x), lib.ones(3) * x  # the second is a fresh constant
        return M()
    gm_gt, gm_th = trace_both(build)
    assert_same_graph(gm_gt, gm_th)
    assert_same_code(gm_gt, gm_th)
    out = gm_gt(glasstorch.ones(3))
    np.testing.assert_array_equal(to_np(out[0]), [1.0, 2.0, 3.0])
    assert "_tensor_constant0" in dict(gm_gt.named_buffers())


def test_leaf_module_policy_can_be_overridden():
    class KeepAll(gfx.Tracer):
        def is_leaf_module(self, m, qualname):
            return True

    class KeepAllTh(tfx.Tracer):
        def is_leaf_module(self, m, qualname):
            return True

    g_gt = KeepAll().trace(build_nested(glasstorch))
    g_th = KeepAllTh().trace(build_nested(torch))
    assert str(g_gt) == normalize(str(g_th))
    assert [n.op for n in g_gt.nodes] == ["placeholder", "call_module", "call_module", "output"]


def test_sequential_root_and_leaf_modules():
    gm_gt, gm_th = trace_both(lambda lib: lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.ReLU(), lib.nn.Dropout(0.5)))
    assert_same_graph(gm_gt, gm_th)
    assert_same_code(gm_gt, gm_th)


def test_operators_and_reflected_operators():
    def f(x):
        return (2 - x, 2 / x, 2 ** x, x // 2, x % 2, -x, +x, ~(x > 0), abs(x), x[0], x[:, 1:], x @ x, x != 1,
                x <= 2, 1 + x, 3 * x)
    gm_gt, gm_th = trace_both(lambda lib: f)
    assert_same_graph(gm_gt, gm_th)
    assert_same_code(gm_gt, gm_th)
    x = glasstorch.tensor([[1.0, 2.0], [3.0, 4.0]])
    for a, b in zip(gm_gt(x), f(x), strict=True):
        np.testing.assert_array_equal(to_np(a), to_np(b))


def test_functions_with_keyword_arguments_and_lists():
    def build(lib):
        def f(x, y):
            return lib.cat((x, y), dim=-1), lib.add(x, y, alpha=2), lib.sum(x, dim=(0, 1), keepdim=True), \
                lib.stack([x, y]).mean(0), x.to(lib.float64), lib.nn.functional.layer_norm(x, (2,))
        return f
    gm_gt, gm_th = trace_both(build)
    assert_same_graph(gm_gt, gm_th)
    assert_same_code(gm_gt, gm_th)
    x, y = glasstorch.ones(2, 2), glasstorch.full((2, 2), 2.0)
    for a, b in zip(gm_gt(x, y), build(glasstorch)(x, y), strict=True):
        np.testing.assert_allclose(to_np(a), to_np(b))


def test_proxy_repr_and_attribute_node_is_lazy():
    g = gfx.Graph()
    p = gfx.Proxy(g.placeholder("x"))
    assert repr(p) == "Proxy(x)"
    attr = p.relu  # not yet a node
    assert [n.name for n in g.nodes] == ["x"]
    r = attr()
    assert r.node.op == "call_method" and r.node.target == "relu"
    v = p.shape + 1  # used as a value: a getattr node
    assert [n.target for n in g.nodes][-2:] == [getattr, operator.add]
    assert isinstance(v, gfx.Proxy)


def test_is_fx_tracing_flag():
    seen = []

    def f(x):
        seen.append(gfx.is_fx_tracing())
        return x
    gfx.symbolic_trace(f)
    assert seen == [True] and gfx.is_fx_tracing() is False


def test_patches_are_undone_after_a_failed_trace():
    import glasstorch.nn.functional as F

    relu, call = F.relu, glasstorch.nn.Module.__call__

    def f(x):
        F.relu(x)
        if x:
            return x
    with pytest.raises(gfx.TraceError):
        gfx.symbolic_trace(f)
    assert F.relu is relu and glasstorch.nn.Module.__call__ is call
    assert "__call__" not in vars(glasstorch.nn.Module) or vars(glasstorch.nn.Module)["__call__"] is call


def test_operator_overloads_annotations_and_constants_print_like_torch():
    def build(lib):
        def f(x: lib.Tensor, n: int = 3) -> lib.Tensor:
            return (lib.ops.aten.add(x, x), lib.ops.aten.mul.Tensor(x, n), lib.ops.aten.relu.default(x),
                    x.to(lib.float64), x.new_zeros((2,), dtype=lib.int64, device=lib.device("cpu")),
                    x.contiguous(memory_format=lib.contiguous_format), x.masked_fill(x > 0, float("inf")))
        return f
    gm_gt, gm_th = trace_both(build)
    assert_same_graph(gm_gt, gm_th)
    assert_same_code(gm_gt, gm_th)
    assert "n : _int_ = 3" in gm_gt.code  # (string annotations here: this file uses `from __future__ import`)
    out = gm_gt(glasstorch.tensor([1.0, -2.0]))
    assert out[0].tolist() == [2.0, -4.0] and out[1].tolist() == [3.0, -6.0] and out[3].dtype == glasstorch.float64
    assert out[4].dtype == glasstorch.int64 and out[6].tolist() == [float("inf"), -2.0]


def test_type_annotations_print_like_torch():
    src = "def f(x: lib.Tensor, n: int = 3) -> lib.Tensor:\n    return x * n\n"
    gms = []
    for lib in (glasstorch, torch):
        scope = {"lib": lib}
        exec(compile(src, "<f>", "exec", dont_inherit=True), scope)  # noqa: S102 - real annotations
        gms.append((gfx if lib is glasstorch else tfx).symbolic_trace(scope["f"]))
    assert_same_graph(*gms)
    assert_same_code(*gms)
    assert "def forward(self, x : torch.Tensor, n : int = 3) -> torch.Tensor:" in gms[0].code
    assert "%x : torch.Tensor [num_users=1]" in str(gms[0].graph)


def _functional_calls(lib):
    F = lib.nn.functional

    def f(x, idx, w, tgt):
        e = F.embedding(idx, w)
        a = F.scaled_dot_product_attention(e, e, e, is_causal=True)
        loss = F.cross_entropy(x, tgt) + F.mse_loss(x, x * 2, reduction="sum")
        p = F.max_pool2d(x.view(1, 1, 2, 4), 2)
        s = F.log_softmax(x, dim=1) + F.silu(x) + F.leaky_relu(x, 0.2) + F.hardtanh(x) + F.elu(x)
        q = lib.split(x, 2, dim=1)
        z = lib.zeros_like(x) + lib.ones_like(x, dtype=lib.float32)
        u = F.normalize(x, dim=1) + F.dropout(x, p=0.0, training=False)
        return a, loss, p, s, q, z, u, F.linear(x, w[:4, :4]), lib.einsum("ij,ij->i", x, x)
    return f


def test_functional_calls_are_recorded_like_torch():
    gm_gt, gm_th = trace_both(_functional_calls)
    # torch.split is defined in torch/functional.py; glasstorch's lives in a private module
    assert gm_gt.code == normalize(gm_th.code).replace("torch.functional.split(", "torch.split(")
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal((2, 4)).astype(np.float32), np.array([[0, 1], [2, 3]]),
              rng.standard_normal((5, 4)).astype(np.float32), np.array([1, 3])]
    out_gt = gm_gt(*[glasstorch.from_numpy(a) for a in arrays])
    out_th = _functional_calls(torch)(*[torch.from_numpy(a) for a in arrays])
    for a, b in zip(out_gt, out_th, strict=True):
        for u, v in zip(a if isinstance(a, tuple) else [a], b if isinstance(b, tuple) else [b], strict=True):
            np.testing.assert_allclose(to_np(u), to_np(v), rtol=1e-5, atol=1e-5)
