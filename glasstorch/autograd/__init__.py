"""L4 — autograd: the graph recorded in forward and the engine that replays it (``torch.autograd``).

Forward: every operator's Autograd-key kernel (generated from ``_ops/derivatives/*.yaml``) records a
Node when grad mode is on and an input requires grad.  Backward: :func:`backward` and :func:`grad`
hand the roots to the engine (``engine.py``), which runs the nodes in dependency order and deposits
gradients in ``.grad`` (AccumulateGrad) or returns them.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

import glasstorch as torch  # noqa: F401  (as PyTorch's torch.autograd imports torch: torch.autograd.torch)

from .._core.torch_function import handle_torch_function, has_torch_function
from .._ops._generated import ops as _ops  # noqa: F401  (the operators must exist before their kernels)
from .._ops.aten import aten
from .._core.layout import preserve_format
from .._ops.factories import full_impl
from . import engine as _engine
from . import forward_ad, formulas, functional, graph, manual_kernels, node_support  # noqa: F401  (manual: copy_)
from ._generated import kernels as _kernels  # noqa: F401  (registers the Autograd-key kernels)
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from .function import Function, InplaceFunction, once_differentiable  # noqa: F401
from .grad_mode import (  # noqa: F401
    _force_original_view_tracking, _is_multithreading_enabled, _unsafe_preserve_version_counter, enable_grad,
    enforce_grad_layout_policy, inference_mode, is_grad_enabled,
    is_inference_mode_enabled, is_view_replay_enabled, no_grad, set_grad_enabled, set_multithreading_enabled,
)
from .gradcheck import gradcheck, gradgradcheck  # noqa: F401
from .graph import AccumulateGrad, GradientEdge, Node, SavedTensor, gradient_edge, requires_grad
from .variable import Variable

__all__ = ["backward", "grad", "SavedTensor",
           "no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "detect_anomaly", "set_detect_anomaly", "graph", "Node", "Function", "InplaceFunction",
           "once_differentiable", "gradcheck", "gradgradcheck", "functional", "Variable", "forward_ad",
           "enforce_grad_layout_policy"]

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


def _backward_target(x):
    """The node ``backward(inputs=...)`` must run for one input: a leaf's AccumulateGrad; a non-leaf's grad_fn, the
    tensor then retaining its grad, for good (PyTorch's run_backward); an edge's node."""
    if isinstance(x, GradientEdge):
        return x.node
    edge = gradient_edge(x)
    if edge is None or not isinstance(edge[0], AccumulateGrad):
        graph.to_tensor(x).retain_grad()  # raises for a tensor that does not require grad
    return edge[0]


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


def _output_list(x, what) -> list:
    """``tensors``/``outputs`` of ``backward``/``grad``: a tensor, a GradientEdge, or a sequence of them."""
    return [x] if isinstance(x, GradientEdge) else _tensor_list(x, what)


def _root(out):
    """What the engine starts from for one output: a tensor's impl, or a GradientEdge as given."""
    return out if isinstance(out, GradientEdge) else out._impl


def _output_meta(out) -> tuple:
    """(sizes, dtype, device, requires grad) of an output; an edge's from the metadata of its node's input."""
    if isinstance(out, GradientEdge):
        sizes, dtype, device = out.node.input_meta[out.output_nr]
        return sizes, dtype, device, True
    o = out._impl
    return o.sizes, o.dtype, o.device, requires_grad(o)


def _implicit_grad(out, sizes, dtype, device):
    """The 1 a scalar output is seeded with: ``ones_like(out)`` through the dispatcher (a mode sees it), or ones
    of an edge's input metadata, as PyTorch's ``_make_grads``."""
    if isinstance(out, GradientEdge):
        return full_impl(sizes, 1, dtype, device)
    return aten.ones_like(out._impl, None, None, None, None, preserve_format)


def _make_grads(outputs, grad_outputs, is_grads_batched=False) -> list:
    """PyTorch's ``_make_grads``: implicit ones for scalar outputs, checks for given ones."""
    grads = []
    for i, (out, g) in enumerate(zip(outputs, grad_outputs, strict=False)):
        sizes, dtype, device, needs_grad = _output_meta(out)
        if g is None:
            if needs_grad:
                if any(s != 1 for s in sizes):
                    raise RuntimeError("grad can be implicitly created only for scalar outputs")
                if not dtype.is_floating_point:
                    raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {dtype}")
                grads.append(_implicit_grad(out, sizes, dtype, device))
            else:
                grads.append(None)
            continue
        if not hasattr(g, "_impl"):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        out_shape, grad_shape = _calculate_shape(out, g, is_grads_batched)
        if out_shape != grad_shape and is_grads_batched:
            grad_shape = grad_shape[1:]  # PyTorch measures the first sample, g[0], without its first dim again
            raise RuntimeError("If `is_grads_batched=True`, we interpret the first dimension of each grad_output as "
                               "the batch dimension. The sizes of the remaining dimensions are expected to match the "
                               f"shape of corresponding output, but a mismatch was detected: grad_output[{i}] has a "
                               f"shape of torch.Size({list(grad_shape)}) and output[{i}] has a shape of "
                               f"torch.Size({list(out_shape)}). If you only want some tensors in `grad_output` to be "
                               "considered batched, consider using vmap.")
        if out_shape != grad_shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of torch.Size({list(grad_shape)}) and "
                               f"output[{i}] has a shape of torch.Size({list(out_shape)}).")
        if dtype.is_complex != g.dtype.is_complex:
            raise RuntimeError(f"For complex Tensors, both grad_output and output are required to have the same "
                               f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and output[{i}] "
                               f"has a dtype of {dtype}.")
        grads.append(g._impl)
    return grads


def _calculate_shape(output, grad, is_grads_batched: bool) -> tuple:
    """The shapes ``_make_grads`` compares: the output's, and the grad's without its batch dimension when
    ``is_grads_batched`` (``torch.autograd._calculate_shape``)."""
    grad_shape = tuple(grad.shape)
    if isinstance(output, GradientEdge):
        if is_grads_batched:
            raise RuntimeError("Batched grads are not supported with GradientEdge")
        return tuple(output.node.input_meta[output.output_nr][0]), grad_shape
    return tuple(output.shape), grad_shape[1:] if is_grads_batched else grad_shape


def kineto_available() -> bool:
    """Whether the Kineto-backed profiler is built in (``torch._C._autograd.kineto_available``). glasstorch has
    no Kineto; profiler tests that need it skip on this answer."""
    return False


def _check_roots(outputs):
    for i, o in enumerate(outputs):
        if not isinstance(o, GradientEdge) and not requires_grad(o._impl):
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")


def _overridden(args) -> bool:
    """A tensor subclass (or another type) among ``args`` takes the call through ``__torch_function__``."""
    return has_torch_function(args)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None, inputs=None):
    """Accumulate d(tensors)/d(leaves) into the leaves' ``.grad`` (``torch.autograd.backward``)."""
    outputs = _output_list(tensors, "tensors")
    grads_in = _tensor_list(grad_tensors, "grad_tensors") or [None] * len(outputs)
    if len(grads_in) != len(outputs):
        raise RuntimeError(f"got {len(grads_in)} tensors and {len(outputs)} gradients")
    input_list = None
    if inputs is not None:
        input_list = _input_list(inputs, "backward")
        if not input_list:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    overridable = [t for t in (*outputs, *(input_list or ())) if not isinstance(t, GradientEdge)]
    if _overridden(overridable):  # a tensor subclass may take the call (PyTorch's backward checks, as grad does)
        return handle_torch_function(backward, overridable, tuple(outputs), grad_tensors=grad_tensors,
                                     retain_graph=retain_graph, create_graph=create_graph,
                                     inputs=None if input_list is None else tuple(input_list))
    if retain_graph is None:
        retain_graph = create_graph
    grads = _make_grads(outputs, grads_in)
    _check_roots(outputs)
    if input_list is not None:
        input_list = [_input_target(t) for t in input_list]
    roots = [_root(o) for o in outputs]
    if input_list is None:
        _engine.execute(roots, grads, retain_graph, create_graph)
        return
    _engine.execute(roots, grads, retain_graph, create_graph, targets=[_backward_target(t) for t in input_list])


def _batched_backward(run, grads, retain_graph) -> list:
    """``is_grads_batched``: PyTorch vmaps the backward over the first dimension of the grad_outputs; here one
    backward per batch element (the graph kept for the next), each input's gradients stacked."""
    batch = next(g.sizes[0] for g in grads if g is not None)
    per_sample = []
    for b in range(batch):
        sample = [None if g is None else aten.select_int(g, 0, b) for g in grads]
        per_sample.append(run(sample, retain_graph or b < batch - 1))
    return [_stack_samples([p[k] for p in per_sample]) for k in range(len(per_sample[0]))]


def _stack_samples(grads):
    """One input's gradients over the batch, stacked; None when no sample reached it (zeros where some did not)."""
    some = next((g for g in grads if g is not None), None)
    if some is None:
        return None
    return aten.stack([full_impl(some.sizes, 0, some.dtype, some.device) if g is None else g for g in grads], 0)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False, only_inputs=True,
         allow_unused=None, is_grads_batched=False, materialize_grads=False):
    """The gradients of ``outputs`` with respect to ``inputs``, returned, not accumulated."""
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = _output_list(outputs, "outputs")
    ins = _input_list(inputs, "grad")
    if not ins:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    g_outs = _tensor_list(grad_outputs, "grad_outputs") or [None] * len(outs)
    if len(g_outs) != len(outs):
        raise RuntimeError(f"grad_outputs contains {len(g_outs)} tensors but outputs contains {len(outs)}")
    overridable = [t for t in (*outs, *ins) if not isinstance(t, GradientEdge)]
    if _overridden(overridable):
        result = handle_torch_function(
            grad, overridable, tuple(outs), tuple(ins), grad_outputs=grad_outputs, retain_graph=retain_graph,
            create_graph=create_graph, only_inputs=only_inputs, allow_unused=allow_unused,
            is_grads_batched=is_grads_batched, materialize_grads=materialize_grads)
        return dict(zip(inputs.keys(), result, strict=True)) if type(inputs) is dict else result
    if retain_graph is None:
        retain_graph = create_graph
    for i in ins:
        if not isinstance(i, GradientEdge) and not requires_grad(i._impl):
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    grads = _make_grads(outs, g_outs, is_grads_batched)
    _check_roots(outs)
    run = functools.partial(_engine.execute, [_root(o) for o in outs], create_graph=create_graph,
                            inputs=[_input_target(i) for i in ins], accumulate=False, is_grad=True)
    captured = _batched_backward(run, grads, retain_graph) if is_grads_batched else run(grads, retain_graph)
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
