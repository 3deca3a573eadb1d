"""Module hook plumbing — PyTorch's ``torch/utils/hooks.py`` (RemovableHandle, BackwardHook) and
``torch/nn/modules/_functions.py`` (BackwardHookFunction).

Full backward hooks need the gradients of a module's *inputs* and *outputs* together, although the module's
forward may be any graph.  :class:`BackwardHook` passes the tensor inputs through an identity autograd
Function before forward and the tensor outputs through another one after it.  In backward, a post-hook on
the output identity node records ``grad_output`` (running the backward pre-hooks, which may replace it); a
post-hook on the input identity node then calls the user hooks with ``(module, grad_input, grad_output)``.

Invariant: every register_* call returns a :class:`RemovableHandle` whose ``id`` keys the hook in its dict
(and in the flag dicts named by ``extra_dict``), so ``remove()`` undoes exactly that registration.
"""

from __future__ import annotations

import warnings
import weakref
from collections import OrderedDict

from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ...tensor import Tensor

__all__ = ["RemovableHandle", "BackwardHook", "BackwardHookFunction"]


class RemovableHandle:
    """A handle that removes one registered hook (``torch.utils.hooks.RemovableHandle``).

    Args:
        hooks_dict: the dict of hooks keyed by handle id.
        extra_dict: a dict or list of dicts whose entry for this id goes too (e.g. the with_kwargs flags).

    Example:
        >>> import glasstorch as torch
        >>> m = torch.nn.Linear(2, 2)
        >>> h = m.register_forward_hook(lambda mod, args, out: None)
        >>> h.remove()
    """

    next_id: int = 0

    def __init__(self, hooks_dict, *, extra_dict=None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)
        else:
            self.extra_dict_ref = ()

    def remove(self) -> None:
        for ref in (self.hooks_dict_ref, *self.extra_dict_ref):
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __getstate__(self):
        return self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref)

    def __setstate__(self, state) -> None:
        self.hooks_dict_ref = weakref.ref(OrderedDict() if state[0] is None else state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        extra = state[2] if len(state) > 2 and state[2] is not None else ()
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


class BackwardHookFunction(Function):
    """Identity on tensors; its backward node is where module backward hooks attach."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


def _pack_with_none(indices, values, size) -> tuple:
    """Scatter ``values`` to ``indices`` of a ``size``-tuple of None (non-tensor arguments stay None)."""
    res = [None] * size
    for idx, val in zip(indices, values, strict=True):
        res[idx] = val
    return tuple(res)


class BackwardHook:
    """Runs a module's full backward hooks and backward pre-hooks for one forward call."""

    def __init__(self, module, user_hooks, user_pre_hooks) -> None:
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = -1
        self.output_tensors_index = None
        self.n_inputs = -1
        self.input_tensors_index = None

    def _set_user_hook(self, grad_fn) -> None:
        def hook(grad_input, _):
            if self.grad_outputs is None:
                return None  # the outputs' gradients never arrived: nothing to report
            res = _pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                out = user_hook(self.module, res, self.grad_outputs)
                if out is None:
                    continue
                if len(out) != len(res):
                    raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got {len(out)}, but "
                                       f"expected {len(res)}")
                res = out
            self.grad_outputs = None
            return tuple(res[i] for i in self.input_tensors_index)

        grad_fn.register_hook(hook)

    def _apply_on_tensors(self, fn, args):
        idx = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in idx]
        if not (any(t.requires_grad for t in tensors) and is_grad_enabled()):
            return args, None
        new_tensors = BackwardHookFunction.apply(*tensors)
        if len(new_tensors) == 0:
            raise RuntimeError("Cannot set Module backward hook for a Module with no input Tensors.")
        grad_fns = [t.grad_fn for t in new_tensors
                    if t.grad_fn is not None and t.grad_fn.name() == "BackwardHookFunctionBackward"]
        if not grad_fns:
            raise RuntimeError("Error while setting up backward hooks. Please open an issue with a code sample to "
                               "reproduce this.")
        fn(grad_fns[0])
        arg_list = list(args)
        for i, val in zip(idx, new_tensors, strict=True):
            arg_list[i] = val
        return (tuple(arg_list) if type(args) is tuple else type(args)(*arg_list)), idx

    def setup_input_hook(self, args):
        res, input_idx = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        self.input_tensors_index = input_idx
        return res

    def _output_hook(self, _, grad_output):
        self.grad_outputs = _pack_with_none(self.output_tensors_index, grad_output, self.n_outputs)
        expected = len(self.grad_outputs)
        for pre_hook in self.user_pre_hooks:
            new = pre_hook(self.module, self.grad_outputs)
            if new is None:
                continue
            if len(new) != expected:
                raise RuntimeError(f"Backward pre hook returned an invalid number of grad_output, got {len(new)}, "
                                   f"but expected {expected}")
            self.grad_outputs = new
        local_grad_outputs = self.grad_outputs
        if self.input_tensors_index is None:
            # no input requires grad: the hooks fire now, with no grad_input at all
            warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs "
                          "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                          "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=5)
            grad_inputs = _pack_with_none([], [], self.n_inputs)
            for user_hook in self.user_hooks:
                res = user_hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple) and all(el is None for el in res)):
                    raise RuntimeError("Backward hook for Modules where no input requires gradient should always "
                                       "return None or None for all gradients.")
            self.grad_outputs = None
        if local_grad_outputs is not None:
            return tuple(local_grad_outputs[i] for i in self.output_tensors_index)
        return None

    def setup_output_hook(self, args):
        is_tuple = isinstance(args, tuple)
        if not is_tuple:
            args = (args,)
        res, output_idx = self._apply_on_tensors(lambda grad_fn: grad_fn.register_hook(self._output_hook), args)
        self.n_outputs = len(args)
        self.output_tensors_index = output_idx
        return res if is_tuple else res[0]
