"""L4 — autograd: the graph recorded in forward and the engine that replays it (``torch.autograd``).

Forward: every operator's Autograd-key kernel (generated from ``_ops/derivatives/*.yaml``) records a
Node when grad mode is on and an input requires grad.  Backward: :func:`backward` and :func:`grad`
hand the roots to the engine (``engine.py``), which runs the nodes in dependency order and deposits
gradients in ``.grad`` (AccumulateGrad) or returns them.
"""

from __future__ import annotations

from collections.abc import Mapping

import glasstorch as torch  # noqa: F401  (as PyTorch's torch.autograd imports torch: torch.autograd.torch)

from .._ops._generated import ops as _ops  # noqa: F401  (the operators must exist before their kernels)
from .._ops.factories import full_impl
from . import engine as _engine
from . import forward_ad, formulas, functional, graph, manual_kernels, node_support  # noqa: F401  (manual: copy_)
from ._generated import kernels as _kernels  # noqa: F401  (registers the Autograd-key kernels)
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from .function import Function, InplaceFunction, once_differentiable  # noqa: F401
from .grad_mode import (  # noqa: F401
    _force_original_view_tracking, _is_multithreading_enabled,
    _unsafe_preserve_version_counter, enable_grad, inference_mode, is_grad_enabled,
    is_inference_mode_enabled, is_view_replay_enabled, no_grad, set_grad_enabled, set_multithreading_enabled,
)
from .gradcheck import gradcheck, gradgradcheck  # noqa: F401
from .graph import AccumulateGrad, GradientEdge, Node, requires_grad
from .variable import Variable

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "detect_anomaly", "set_detect_anomaly", "graph", "Node", "Function", "InplaceFunction",
           "once_differentiable", "gradcheck", "gradgradcheck", "functional", "Variable", "forward_ad"]

is_multithreading_enabled = _is_multithreading_enabled  # "Returns True if multithreading is currently enabled."

_to_tensor = None  # bound by install()


def _tensor_list(x, what):
    if x is None:
        return []
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def _input_target(x):
    """What the engine captures for one of ``inputs=``: a tensor's impl, or a GradientEdge as given (the gradient
    flowing into that node's input)."""
    return x if isinstance(x, GradientEdge) else x._impl


def _input_list(inputs, fname: str) -> list:
    """``inputs=`` of ``grad``/``backward``: a tensor, a sequence, or a plain dict (its values, in order)."""
    if type(inputs) is dict:
        return list(inputs.values())
    if isinstance(inputs, GradientEdge):  # a NamedTuple, yet one input
        return [inputs]
    if isinstance(inputs, Mapping):
        raise TypeError(f"`inputs` argument to `{fname}()` must be a dict, not {type(inputs).__name__}. "
                        "Other Mapping types are not supported.")
    return _tensor_list(inputs, "inputs")


def _make_grads(outputs, grad_outputs, is_grads_batched=False) -> list:
    """PyTorch's ``_make_grads``: implicit ones for scalar outputs, checks for given ones."""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs, strict=False)):
        o = out._impl
        if g is None:
            if requires_grad(o):
                if o.numel() != 1:
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not o.dtype.is_floating_point:
                    raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got "
                                       f"{o.dtype}")
                grads.append(_engine_ones_like(o))
            else:
                grads.append(None)
            continue
        if not hasattr(g, "_impl"):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        gi = g._impl
        out_shape, grad_shape = _calculate_shape(out, g, is_grads_batched)
        if out_shape != grad_shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of torch.Size({list(grad_shape)}) and "
                               f"output[{i}] has a shape of torch.Size({list(out_shape)}).")
        grads.append(gi)
    return grads


def _calculate_shape(output, grad, is_grads_batched: bool) -> tuple:
    """The shapes ``_make_grads`` compares: the output's, and the grad's without its batch dimension when
    ``is_grads_batched`` (``torch.autograd._calculate_shape``)."""
    grad_shape = tuple(grad.shape)
    return tuple(output.shape), grad_shape[1:] if is_grads_batched else grad_shape


def kineto_available() -> bool:
    """Whether the Kineto-backed profiler is built in (``torch._C._autograd.kineto_available``). glasstorch has
    no Kineto; profiler tests that need it skip on this answer."""
    return False


def _engine_ones_like(impl):
    return full_impl(impl.sizes, 1, impl.dtype, impl.device)


def _check_roots(outputs):
    for i, o in enumerate(outputs):
        if not requires_grad(o._impl):
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulate d(tensors)/d(leaves) into the leaves' ``.grad`` (``torch.autograd.backward``)."""
    outputs = _tensor_list(tensors, "tensors")
    grads_in = _tensor_list(grad_tensors, "grad_tensors") or [None] * len(outputs)
    if len(grads_in) != len(outputs):
        raise RuntimeError(f"got {len(grads_in)} tensors and {len(outputs)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(outputs, grads_in)
    _check_roots(outputs)
    input_list = None
    if inputs is not None:
        input_list = [_input_target(t) for t in _input_list(inputs, "backward")]
        if not input_list:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    roots = [o._impl for o in outputs]
    if input_list is None:
        _engine.execute(roots, grads, retain_graph, create_graph)
        return
    captured = _engine.execute(roots, grads, retain_graph, create_graph, input_list, accumulate=False)
    prev = _engine._grad_state.enabled
    _engine._grad_state.enabled = create_graph
    try:
        for target, g in zip(input_list, captured, strict=False):
            if isinstance(target, GradientEdge):  # an edge accumulates only where it is a leaf's AccumulateGrad
                target = target.node.impl if isinstance(target.node, AccumulateGrad) else None
            if g is not None and target is not None:
                _engine.accumulate_grad(target, g)
    finally:
        _engine._grad_state.enabled = prev


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned, not accumulated."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = _tensor_list(outputs, "outputs")
    ins = _input_list(inputs, "grad")
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    g_outs = _tensor_list(grad_outputs, "grad_outputs") or [None] * len(outs)
    if len(g_outs) != len(outs):
        raise RuntimeError(f"grad_outputs contains {len(g_outs)} tensors but outputs contains {len(outs)}")
    if retain_graph is None:
        retain_graph = create_graph
    for i in ins:
        if not isinstance(i, GradientEdge) and not requires_grad(i._impl):
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _make_grads(outs, g_outs)
    _check_roots(outs)
    captured = _engine.execute([o._impl for o in outs], grads, retain_graph, create_graph,
                               [_input_target(i) for i in ins], accumulate=False, is_grad=True)
    result = []
    for k, (i, g) in enumerate(zip(ins, captured, strict=True)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {k} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
            if materialize_grads and isinstance(i, GradientEdge):
                raise RuntimeError("materialize_grads cannot be used when the given input is a GradientEdge")
            if materialize_grads:  # PyTorch: zeros_like(input, requires_grad=create_graph), a fresh leaf
                zeros = formulas.zeros_like(i)
                result.append(zeros.requires_grad_() if create_graph else zeros)
                continue
            result.append(None)
        else:
            result.append(_to_tensor(g))
    if type(inputs) is dict:
        return dict(zip(inputs.keys(), result, strict=True))
    return tuple(result)


def install(wrap, torch_module) -> None:
    """Bind the tensor layer (wrap impls) and register the autograd kernels with the dispatcher."""
    global _to_tensor
    _to_tensor = wrap
    graph.bind_tensor_class(wrap)
    formulas.bind(torch_module)
    node_support.install_fallbacks()
