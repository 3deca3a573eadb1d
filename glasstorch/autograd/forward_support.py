"""Forward-mode propagation in the Autograd kernels — the forward-grad step PyTorch's ``gen_variable_type.py``
writes into every ``VariableType`` kernel (``result:`` formulas of ``derivatives.yaml``, ``auto_linear``,
``auto_element_wise``), and the Autograd kernels of ``_make_dual``, ``_fw_primal`` and ``_unpack_dual``
(``VariableTypeManual.cpp``).

Each generated kernel starts with ``if _fw.level >= 0 and _gs.fw_grad_mode:`` and, inside a dual level, hands the
call to :func:`forward_call` with its :class:`FwSpec`.  That runs the kernel as usual (recording the backward graph
when asked) with forward grad mode off, then computes the output tangents from the input tangents:

- ``auto_linear``: the op itself applied to the tangents (a view op gives the same view of the tangent);
- a formula (``result:`` in the YAML, or ``auto_element_wise``'s backward formula fed the tangent): a generated
  function of ``<arg>_p`` (primal), ``<arg>_t`` (tangent, zeros where an input has none) and ``result``;
- none (Note [Forward AD by double backward]): the Jacobian-vector product from the backward formula.

An in-place op updates its ``self``'s tangent in place (or gives it one: ``forward_grad.set_fw_grad``).

Invariant: outside a dual level a kernel pays one comparison; formulas run with forward grad mode off, so a tangent
never gets a tangent of its own.
"""

from __future__ import annotations

from .._core.grad_state import forward_levels
from .._core.grad_state import state as _gs
from .._ops.aten import aten
from .._ops.dispatcher import get_op
from .._ops.factories import full_impl
from .._tensor import views as _views
from .._tensor.impl import AutogradMeta, TensorImpl
from . import engine as _engine
from . import graph as _graph
from ._generated.nodes import ViewBackward0
from .forward_grad import fw_grad, set_fw_grad
from .graph import NodeBase, collect_next_edges, requires_grad
from .node_support import record, register_autograd, requires_grad_any

__all__ = ["FwSpec", "LINEAR", "NOT_IMPLEMENTED", "forward_call", "Identity"]

LINEAR = "auto_linear"
# ``result: not_implemented``: PyTorch has no forward formula for the op (igamma, special_zeta), so a dual input
# raises its error instead of taking the double-backward route
NOT_IMPLEMENTED = "not_implemented"


class FwSpec:
    """What a kernel's forward step needs: the operator, the positions of its differentiable inputs (``lists``:
    which are ``Tensor[]``), the kernel kind (functional / inplace / inplace_view) and the formula (a function,
    :data:`LINEAR`, or None for the double-backward fallback)."""

    __slots__ = ("op", "inputs", "lists", "kind", "jvp")

    def __init__(self, op, inputs, lists, kind, jvp):
        self.op, self.inputs, self.lists, self.kind, self.jvp = op, inputs, lists, kind, jvp


def _tangent(x, is_list):
    if is_list:
        ts = [fw_grad(t) for t in x]
        return ts if any(t is not None for t in ts) else None
    return fw_grad(x)


# Note [Forward AD in the autograd kernels]
# PyTorch's VariableType kernels compute forward grads inline after the redispatch.  Ours start with
# ``if _fw.level >= 0 and _gs.fw_grad_mode: return forward_call(spec, kernel, ...)``: outside a dual level that is
# one global read and a comparison; inside, forward_call calls the same kernel function back with forward grad mode
# off (so the check fails and the op runs and records its backward graph as usual), then evaluates the formula, also
# with the mode off, so that the ops of a formula see no tangents.  Levels are process-wide (as PyTorch's); the mode
# is thread-local.
def forward_call(spec: FwSpec, kernel, ks, *args):
    """Run ``kernel`` and give its outputs the tangents its formula computes from the inputs' tangents."""
    tangents = [_tangent(args[i], is_list) for i, is_list in zip(spec.inputs, spec.lists, strict=True)]
    if spec.jvp is NOT_IMPLEMENTED and any(t is not None for t in tangents):
        name = spec.op.name.split("::")[-1].split(".")[0]
        raise NotImplementedError(
            f"Trying to use forward AD with {name} that does not support it because it has not "
            "been implemented yet.\nPlease file an issue to PyTorch at https://github.com/pytorch/pytorch/issues/new?"
            "template=feature-request.yml so that we can prioritize its implementation or submit a PR adding the "
            "implementation to derivatives.yaml")
    _gs.fw_grad_mode = False
    try:
        if all(t is None for t in tangents):
            return kernel(ks, *args)
        old = None
        if spec.kind != "functional" and spec.jvp is not LINEAR:
            old = aten.clone(args[0], None)  # the formula reads self's value before the write
        result = kernel(ks, *args)
        out_t = _compute(spec, args, tangents, result, old)
    finally:
        _gs.fw_grad_mode = True
    if spec.kind == "functional":
        _install(result, out_t)
    else:
        _install_inplace(args[0], out_t)
    return result


def _compute(spec, args, tangents, result, old):
    if spec.jvp is LINEAR:
        return spec.op.call(*_substitute(spec, args, _filled(spec, args, tangents)))
    if spec.jvp is None:
        return _double_vjp(spec, args, tangents, old)
    return _formula(spec, args, tangents, result, old)


def _zeros(p):
    return full_impl(p.sizes, 0, p.dtype, p.device)


def _filled(spec, args, tangents) -> list:
    """Each differentiable input's tangent, zeros where it has none (PyTorch's undefined tangents read as 0)."""
    out = []
    for i, is_list, t in zip(spec.inputs, spec.lists, tangents, strict=True):
        a = args[i]
        if is_list:
            ts = t or [None] * len(a)
            out.append([_zeros(p) if x is None else x for p, x in zip(a, ts, strict=True)])
        else:
            out.append(t if t is not None else _zeros(a) if type(a) is TensorImpl else 0)  # a wrapped number: 0
    return out


def _substitute(spec, args, values) -> list:
    new = list(args)
    for i, v in zip(spec.inputs, values, strict=True):
        new[i] = v
    return new


def _public(x):
    if type(x) is TensorImpl:
        return _graph.to_tensor(x)
    if isinstance(x, (list, tuple)) and any(type(t) is TensorImpl for t in x):
        return [_public(t) for t in x]
    return x


def _impls(x):
    if x is None or type(x) is TensorImpl:
        return x
    if isinstance(x, (list, tuple)):
        return type(x)(_impls(t) for t in x)
    return x._impl


def _formula(spec, args, tangents, result, old):
    """The generated formula's arguments: ``<arg>_p, <arg>_t`` for each differentiable input, the others as they
    are, then ``result``."""
    filled = dict(zip(spec.inputs, _filled(spec, args, tangents), strict=True))
    values = []
    for i, a in enumerate(args):
        if i in filled:
            values += [_public(old if (i == 0 and old is not None) else a), _public(filled[i])]
        else:
            values.append(_public(a))
    return _impls(spec.jvp(*values, _public(result)))


def _install(result, out_t) -> None:
    """Functional ops: each floating output gets its tangent (a Tensor[] output one per element)."""
    if type(result) is TensorImpl:
        if type(out_t) is tuple:
            out_t = out_t[0]
        if out_t is not None and (result.dtype.is_floating_point or result.dtype.is_complex):
            set_fw_grad(result, _r_to_c(result, out_t))
        return
    if not isinstance(result, (list, tuple)):
        return
    ts = out_t if isinstance(out_t, (list, tuple)) else [out_t] + [None] * (len(result) - 1)
    for r, t in zip(result, ts, strict=False):
        _install(r, t)


def _r_to_c(result, t):
    """A real output keeps the real part of a complex tangent (PyTorch's ``handle_r_to_c``, which its formulas for
    complex-to-real ops such as ``abs`` spell out; done here once for every formula)."""
    if t.dtype.is_complex and not result.dtype.is_complex:
        return aten.real(t)
    return t


def _install_inplace(self, t) -> None:
    if type(t) is tuple:
        t = t[0]
    if t is None or not (self.dtype.is_floating_point or self.dtype.is_complex):
        return
    t = _r_to_c(self, t)
    existing = fw_grad(self)
    if existing is None:
        set_fw_grad(self, t, 0, is_inplace=True)
    elif existing is not t:
        _gs.fw_grad_mode = False
        try:
            aten.copy_(existing, t, False)
        finally:
            _gs.fw_grad_mode = True


# Note [Forward AD by double backward]
# For an op without a forward formula, its Jacobian-vector product comes from its backward formula: vjp(u) = Jᵀu
# is linear in u, so the gradient of u -> <vjp(u), v> is J v.  The op is re-run on leaves aliasing the inputs
# that have tangents (an in-place op on a clone of self's old value), its graph differentiated once with
# create_graph from a zero cotangent u that requires grad, and that gradient differentiated with respect to u,
# seeded with the tangents.  It costs a rerun and two backward passes, and a random op draws again: ops used with
# forward AD for real get a ``result:`` formula instead.
def _leaf(x):
    leaf = _views.alias(x)
    leaf.autograd = AutogradMeta(requires_grad=True)
    return leaf


def _leaves(spec, args, tangents):
    """The op's arguments with each input that has a tangent replaced by a fresh leaf; the (leaf, tangent) pairs."""
    new, pairs = list(args), []
    for i, is_list, t in zip(spec.inputs, spec.lists, tangents, strict=True):
        if t is None:
            continue
        if is_list:
            elems = list(args[i])
            for k, tk in enumerate(t):
                if tk is not None:
                    elems[k] = _leaf(elems[k])
                    pairs.append((elems[k], tk))
            new[i] = elems
        else:
            new[i] = _leaf(args[i])
            pairs.append((new[i], t))
    return new, pairs


def _outputs(result) -> list:
    if type(result) is TensorImpl:
        return [result]
    return [x for r in result for x in _outputs(r)] if isinstance(result, (list, tuple)) else []


def _double_vjp(spec, args, tangents, old):
    src = list(args)
    if old is not None:
        src[0] = old
    new, pairs = _leaves(spec, src, tangents)
    create = _gs.enabled and any(requires_grad(t) for _, t in pairs)
    prev, _gs.enabled = _gs.enabled, True
    try:
        if old is not None:
            new[0] = aten.clone(new[0], None)  # the write goes to a non-leaf copy
        out = spec.op.call(*new)
        flat = [o for o in _outputs(out) if requires_grad(o)]
        if not flat:
            return _shaped(out, {})
        us = [_leaf(_zeros(o)) for o in flat]
        gs = _engine.execute(flat, us, True, True, [p for p, _ in pairs], accumulate=False, is_grad=True)
        used = [(g, t) for g, (_, t) in zip(gs, pairs, strict=True) if g is not None and requires_grad(g)]
        jv = _engine.execute([g for g, _ in used], [t for _, t in used], create, create, us, accumulate=False,
                             is_grad=True) if used else [None] * len(us)
    finally:
        _gs.enabled = prev
    by_output = {id(o): (_zeros(o) if j is None else j) for o, j in zip(flat, jv, strict=True)}
    return _shaped(out, by_output)


def _shaped(result, by_output):
    """The tangents in the result's structure (None for outputs without one)."""
    if type(result) is TensorImpl:
        return by_output.get(id(result))
    if isinstance(result, tuple):
        return tuple(_shaped(r, by_output) for r in result)
    if isinstance(result, list):
        return [_shaped(r, by_output) for r in result]
    return None


# -- _make_dual, _fw_primal, _unpack_dual -----------------------------------------------------------------------
class Identity(NodeBase):
    """The backward of ``_fw_primal``: the gradient passes through (PyTorch's ``torch::autograd::Identity``)."""

    __slots__ = ()

    def name(self) -> str:
        return "torch::autograd::Identity"

    def apply(self, grads):
        return [grads[0]]


def _not_fw_view(result) -> TensorImpl:
    """Mark a view whose tangent is not a view of its base's (PyTorch's ``is_fw_differentiable=false``)."""
    if result.autograd is None:
        result.autograd = AutogradMeta()
    result.autograd.no_fw_view = True
    return result


_op_make_dual = get_op("aten::_make_dual")
_op_fw_primal = get_op("aten::_fw_primal")
_op_unpack_dual = get_op("aten::_unpack_dual")


def _autograd__make_dual(ks, primal, tangent, level):
    if fw_grad(primal, level) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward gradient at the same "
                           f"level {level} is not supported.")
    node = None
    if _gs.enabled and requires_grad_any(primal):
        node = _view_node(primal)
    result = _not_fw_view(_op_make_dual.redispatch(ks, primal, tangent, level))
    if node is not None:
        record.history(result, node)
    if level != 0:
        raise RuntimeError("Invalid level given to _make_dual")
    if level > forward_levels.level:
        raise RuntimeError("Trying to access a forward AD level with an invalid index. This index was either not "
                           "created or is already deleted.")
    set_fw_grad(result, tangent, level, False)
    return result


def _view_node(primal):
    """``_make_dual``'s backward: PyTorch records ``ViewBackward0`` (the gradient reshaped to the primal's)."""
    node = ViewBackward0()
    node.next_edges = collect_next_edges(primal)
    node.self_sizes_ = primal.sizes
    return node


def _autograd__fw_primal(ks, self, level):
    node = None
    if _gs.enabled and requires_grad_any(self):
        node = Identity()
        node.next_edges = collect_next_edges(self)
    result = _not_fw_view(_op_fw_primal.redispatch(ks, self, level))
    if node is not None:
        record.history(result, node)
    if fw_grad(self) is not None and level != 0:
        raise RuntimeError("Invalid level given to _fw_primal")
    return result


def _autograd__unpack_dual(ks, dual, level):
    primal = _op_fw_primal.call(dual, level)
    return primal, fw_grad(dual, level)


register_autograd("aten::_make_dual", _autograd__make_dual)
register_autograd("aten::_fw_primal", _autograd__fw_primal)
register_autograd("aten::_unpack_dual", _autograd__unpack_dual)
