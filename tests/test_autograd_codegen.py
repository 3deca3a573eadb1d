"""The generated autograd kernels and nodes (tools/codegen/gen_autograd.py) against real PyTorch.

What the generator adds beyond a formula per input: ``Tensor[]`` inputs (flattened edges, one gradient per
element), PyTorch's ``check_no_requires_grad`` for tensor arguments without a formula, the dtype check of
``set_history``, saving only what the needed formulas read, the in-place-only entries (leaf check, history
rebased onto a written view's base) and PyTorch's node names.  Every recipe runs in both libraries (``m`` is
``glasstorch`` or ``torch``); results are compared as plain data, errors by type and exact message.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
from oracle import assert_same_error, both

import glasstorch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "codegen"))

import gen_autograd  # noqa: E402
from model import DeclarationError, load_native_functions  # noqa: E402


def _vals(x):
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if isinstance(x, (list, tuple)):
        return [_vals(v) for v in x]
    if hasattr(x, "tolist"):
        return (repr(x.dtype).removeprefix("torch."), list(x.shape), x.tolist())
    return repr(x).removeprefix("torch.")


def _same(recipe, tol=1e-6):
    got, want = both(recipe)
    _close(_vals(got), _vals(want), tol)


def _close(g, w, tol):
    if isinstance(w, float):
        assert isinstance(g, float) and abs(g - w) <= tol * (1 + abs(w)), (g, w)
    elif isinstance(w, list):
        assert isinstance(g, list) and len(g) == len(w), (g, w)
        for a, b in zip(g, w, strict=True):
            _close(a, b, tol)
    else:
        assert g == w, (g, w)


def _same_error(recipe):
    assert_same_error(lambda: recipe(glasstorch), lambda: recipe(torch))


def _names(fn):
    """The node names of a graph, depth first (None for a missing edge)."""
    if fn is None:
        return None
    return [fn.name(), [_names(child) for child, _ in fn.next_functions]]


# -- Tensor[] inputs -----------------------------------------------------------------------------------------
def _cat_recipe(m):
    a = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = m.tensor([[5.0, 6.0]])
    c = m.tensor([[7.0, 8.0], [9.0, 10.0], [11.0, 12.0]], dtype=m.float64, requires_grad=True)
    y = m.cat([a, b, c])
    ga, gc = m.autograd.grad(y, [a, c], m.arange(12.0, dtype=m.float64).reshape(6, 2))
    return y.grad_fn.name(), y.grad_fn._saved_dim, _names(y.grad_fn), ga, gc


def test_cat_edges_are_flattened_and_each_input_gets_its_slice():
    _same(_cat_recipe)


def test_cat_skips_legacy_empty_inputs_and_wraps_negative_dims():
    def recipe(m):
        a = m.ones(2, 3, requires_grad=True)
        e = m.zeros(0, requires_grad=True)
        b = m.full((2, 1), 2.0, requires_grad=True)
        y = m.cat([e, a, b], -1)
        return y.shape, m.autograd.grad(y, [e, a, b], m.arange(8.0).reshape(2, 4))
    _same(recipe)


def test_stack_gives_one_gradient_per_element():
    def recipe(m):
        xs = [m.tensor([1.0, 2.0, 3.0], requires_grad=True) * (i + 1) for i in range(3)]
        y = m.stack(xs, 1)
        return y.grad_fn.name(), m.autograd.grad(y, xs, m.arange(9.0).reshape(3, 3))
    _same(recipe)


@pytest.mark.parametrize("fn", ["hstack", "vstack", "dstack", "column_stack", "concat", "concatenate"])
def test_composite_stacking_ops_are_differentiable_through_cat(fn):
    def recipe(m):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        b = m.tensor([3.0, 4.0], dtype=m.float64, requires_grad=True)
        y = getattr(m, fn)([a, b])
        return y.shape, m.autograd.grad(y, [a, b], m.ones(y.shape, dtype=m.float64) * 3)
    _same(recipe)


def test_cat_double_backward():
    def recipe(m):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        b = m.tensor([3.0], requires_grad=True)
        y = m.cat([a * a, b * b * b])
        ga, gb = m.autograd.grad(y.sum(), [a, b], create_graph=True)
        return m.autograd.grad(ga.sum() + gb.sum(), [a, b])
    _same(recipe)


@pytest.mark.parametrize("fn", ["cat", "stack"])
def test_out_variant_of_a_list_op_refuses_inputs_that_require_grad(fn):
    _same_error(lambda m: getattr(m, fn)([m.ones(2), m.ones(2, requires_grad=True)], out=m.empty(0)))


# -- arguments without a formula -----------------------------------------------------------------------------
_NOT_DIFFERENTIABLE = {
    "nll_loss weight": lambda m, w: m.nn.functional.nll_loss(m.ones(2, 3), m.tensor([0, 2]), weight=w),
    "nll_loss2d weight": lambda m, w: m.nn.functional.nll_loss(m.ones(1, 3, 2, 2), m.zeros(1, 2, 2, dtype=m.int64),
                                                               weight=w),
    "bce weight": lambda m, w: m.nn.functional.binary_cross_entropy(m.full((3,), 0.3, requires_grad=True),
                                                                    m.ones(3), weight=w),
    "bce_with_logits pos_weight": lambda m, w: m.nn.functional.binary_cross_entropy_with_logits(
        m.ones(3), m.ones(3), pos_weight=w),
    "native_batch_norm running_mean": lambda m, w: m.native_batch_norm(m.ones(2, 3, requires_grad=True), None, None,
                                                                       w, m.ones(3), True, 0.1, 1e-5),
    "sdpa attn_mask": lambda m, w: m.ops.aten._scaled_dot_product_flash_attention_for_cpu(
        m.ones(1, 2, 3), m.ones(1, 2, 3), m.ones(1, 2, 3), attn_mask=w.reshape(1, 1, 3)[..., :2].expand(1, 2, 2)),
}


@pytest.mark.parametrize("case", list(_NOT_DIFFERENTIABLE))
def test_argument_without_formula_cannot_require_grad(case):
    """PyTorch's check_no_requires_grad: raised whether or not the differentiable inputs require grad."""
    _same_error(lambda m: _NOT_DIFFERENTIABLE[case](m, m.ones(3, requires_grad=True)))


@pytest.mark.parametrize("case", ["nll_loss weight", "bce weight"])
def test_argument_without_formula_is_fine_without_grad_mode_or_grad(case):
    def recipe(m):
        with m.no_grad():
            a = _NOT_DIFFERENTIABLE[case](m, m.ones(3, requires_grad=True))
        return a, _NOT_DIFFERENTIABLE[case](m, m.ones(3)).requires_grad
    _same(recipe)


def test_declared_non_differentiable_index_arguments_are_not_checked():
    def recipe(m):
        x = m.arange(6.0, requires_grad=True)
        y = x.gather(0, m.tensor([5, 0])) * m.where(m.tensor([True, False]), x[:2], x[2:4])
        return m.autograd.grad(y.sum(), x)
    _same(recipe)


# -- the dtype check of set_history ---------------------------------------------------------------------------
@pytest.mark.parametrize("call", ["sum", "prod", "cumsum", "prod_dim"])
def test_differentiable_op_with_an_integer_result_raises(call):
    def recipe(m):
        x = m.ones(2, 3, requires_grad=True)
        if call == "prod_dim":
            return x.prod(1, dtype=m.int32)
        return getattr(x, call)(0, dtype=m.int64) if call == "cumsum" else getattr(x, call)(dtype=m.int32)
    _same_error(recipe)


def test_copy_to_an_integer_dtype_records_nothing():
    _same(lambda m: [m.ones(3, requires_grad=True).to(d).requires_grad for d in (m.int32, m.float64, m.bool)])


# -- what is saved ---------------------------------------------------------------------------------------------
def test_a_tensor_only_one_formula_reads_is_saved_only_when_that_gradient_is_needed():
    def recipe(m):
        a = m.tensor([1.0, 2.0], requires_grad=True)
        b = m.tensor([3.0, 4.0])
        out = []
        for y in (a * b, b * a, a * a, m.addcmul(b, a, b)):
            fn = y.grad_fn
            out.append([getattr(fn, f"_saved_{n}") is None for n in ("self", "other", "tensor1", "tensor2")
                        if hasattr(fn, f"_saved_{n}")])
        return out
    _same(recipe)


def test_in_place_op_clones_old_self_only_when_a_formula_reads_it():
    def recipe(m):
        w = m.tensor([2.0, 3.0], requires_grad=True)
        y = m.tensor([1.0, 5.0]).clone()
        y.mul_(w)  # d/dw reads the old y; the formula of y (which needs no grad) reads w
        saved = (y.grad_fn._saved_self, y.grad_fn._saved_other)
        return saved, m.autograd.grad(y.sum(), w)
    _same(recipe)


# -- in-place-only entries ---------------------------------------------------------------------------------------
_IN_PLACE = {
    "fill_ scalar": lambda m, y: y.fill_(2.0),
    "fill_ tensor": lambda m, y: y.fill_(m.tensor(2.0, requires_grad=True)),
    "zero_": lambda m, y: y.zero_(),
    "normal_": lambda m, y: y.normal_(),
    "uniform_": lambda m, y: y.uniform_(),
    "exponential_": lambda m, y: y.exponential_(),
    "random_": lambda m, y: y.random_(),
    "random_ to": lambda m, y: y.random_(4),
    "random_ from": lambda m, y: y.random_(1, 4),
    "bernoulli_ float": lambda m, y: y.bernoulli_(0.5),
    "bernoulli_ tensor": lambda m, y: y.bernoulli_(m.full((3,), 0.5)),
    "eq_": lambda m, y: y.eq_(1.0),
}


@pytest.mark.parametrize("case", list(_IN_PLACE))
def test_in_place_only_op_node_name_and_gradient(case):
    def recipe(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * 1
        _IN_PLACE[case](m, y)
        return y.grad_fn.name(), y._version, m.autograd.grad(y, x, m.ones(3))
    _same(recipe)


def test_fill_with_a_tensor_value_sends_the_summed_gradient_to_the_value():
    def recipe(m):
        v = m.tensor(2.0, requires_grad=True)
        y = m.ones(2, 3) * 1
        y.fill_(v)
        return _names(y.grad_fn), m.autograd.grad(y, v, m.arange(6.0).reshape(2, 3))
    _same(recipe)


@pytest.mark.parametrize("case", ["fill_ scalar", "zero_", "normal_"])
def test_in_place_only_op_refuses_a_leaf_and_a_view_of_a_leaf(case):
    _same_error(lambda m: _IN_PLACE[case](m, m.ones(3, requires_grad=True)))
    _same_error(lambda m: _IN_PLACE[case](m, m.ones(2, 3, requires_grad=True)[1]))


def test_in_place_only_op_on_a_view_rebases_the_base_history():
    def recipe(m):
        x = m.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        y = x * 2
        y[1:3].zero_()
        return y.grad_fn.name(), m.autograd.grad(y, x, m.arange(4.0))
    _same(recipe)


def test_embedding_renorm_backward_is_not_implemented():
    def recipe(m):
        w = m.ones(4, 2, requires_grad=True) * 1
        m.embedding_renorm_(w, m.tensor([0, 1]), 1.0, 2.0)
        return w.grad_fn.name(), w.sum().backward()
    _same_error(recipe)


# -- circular padding (copy_ into slices, PyTorch's decomposition) ---------------------------------------------
@pytest.mark.parametrize("shape,pad", [((1, 1, 3), (2, -1)), ((2, 3, 4), (1, 1, 2, 0)), ((1, 2, 3, 4), (0, 2, -1, 1)),
                                       ((2, 3), (1, 1))])
def test_circular_pad_values_and_gradients(shape, pad):
    def recipe(m):
        x = m.arange(float(torch.Size(shape).numel()), dtype=m.float64).reshape(shape).requires_grad_()
        y = m.nn.functional.pad(x, pad, mode="circular")
        g = m.arange(float(y.numel()), dtype=m.float64).reshape(y.shape).sin()
        return y, m.autograd.grad(y, x, g)
    _same(recipe)


# -- the generator --------------------------------------------------------------------------------------------
def _entries(tmp_path, monkeypatch, text):
    (tmp_path / "x.yaml").write_text(text)
    monkeypatch.setattr(gen_autograd, "DERIV_DIR", tmp_path)
    monkeypatch.setattr(gen_autograd, "ROOT", tmp_path)
    return [gen_autograd._analyse(e) for e in gen_autograd.load_derivatives(load_native_functions())]


def test_generator_list_input_and_nondifferentiable_arguments(tmp_path, monkeypatch):
    nll_schema = ("nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, SymInt ignore_index) -> "
                  "(Tensor output, Tensor total_weight)")
    cat, nll = _entries(tmp_path, monkeypatch, f"""
- name: cat(Tensor[] tensors, int dim=0) -> Tensor
  tensors: cat_tensors_backward(grad, tensors_sizes, tensors_dtype, dim)
- name: {nll_schema}
  target: non_differentiable
  self: nll_loss_backward(grad, self, target, weight, reduction, ignore_index, result[1])
""")
    assert cat.diff_inputs == ["tensors"] and cat.list_inputs == {"tensors"} and not cat.saved_tensors
    assert cat.saved_meta == ["tensors_dtype", "tensors_sizes"] and cat.node == "CatBackward0"
    assert nll.diff_inputs == ["self"] and nll.checked == ["weight"] and nll.out_diff == [True, False]


@pytest.mark.parametrize("text,message", [
    ("- name: cat(Tensor[] tensors, int dim=0) -> Tensor\n  dim: grad", "'dim' is not a Tensor or Tensor[] argument"),
    ("- name: nosuch(Tensor self) -> Tensor\n  self: grad", "no declared operator has the schema"),
    ("- name: zero_(Tensor(a!) self) -> Tensor(a!)\n  declared: False\n  self: grad", "drop 'declared: False'"),
])
def test_generator_errors_point_at_the_declaration(tmp_path, monkeypatch, text, message):
    with pytest.raises(DeclarationError, match="x.yaml:1: ") as info:
        _entries(tmp_path, monkeypatch, text)
    assert message in str(info.value)
