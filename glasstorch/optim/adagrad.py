"""Adagrad — PyTorch's ``torch/optim/adagrad.py``.

Per parameter with a gradient: ``step += 1``; ``g = ±grad (+ wd * p)``; ``clr = lr / (1 + (step - 1) * lr_decay)``;
``sum += g²``; ``p -= clr * g / (sqrt(sum) + eps)``.  Unlike the other optimizers the state is created
eagerly in the constructor: ``state[p] = {"step": tensor(0.), "sum": full_like(p, initial_accumulator_value)}``
for every parameter, with or without a gradient (that is what ``state_dict()`` shows before any step).
"""

from __future__ import annotations

from .. import _functions as _fn
from ..tensor import Tensor
from ..tensor import preserve_format as _PRESERVE
from .adam import _view_as_real
from .optimizer import (
    Optimizer,
    _amp_skip_or_unscale,
    _check_state_steps,
    _device_dtype_check_for_fused,
    _get_scalar_dtype,
    _resolve_impl,
    _run_closure,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["Adagrad", "adagrad"]


class Adagrad(Optimizer):
    """Adagrad with optional learning-rate decay and a non-zero initial accumulator.

    Example:
        >>> import glasstorch as torch
        >>> w = torch.zeros(2, requires_grad=True)
        >>> opt = torch.optim.Adagrad([w], lr=0.1)
        >>> w.grad = torch.ones(2); opt.step(); w
        tensor([-0.1000, -0.1000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        defaults = {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                    "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "fused": fused}
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
            self._need_device_dtype_check_for_fused = True
            self._step_supports_amp_scaling = True
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(group["fused"], p, self.state[p], initial_accumulator_value)

    @staticmethod
    def _init_state(fused, p, state, initial_accumulator_value) -> None:
        state["step"] = (_fn.zeros((), dtype=_get_scalar_dtype(is_fused=fused), device=p.device) if fused
                         else _fn.tensor(0.0, dtype=_get_scalar_dtype()))
        init_value = (complex(initial_accumulator_value, initial_accumulator_value) if p.is_complex()
                      else initial_accumulator_value)
        state["sum"] = _fn.full_like(p, init_value, memory_format=_PRESERVE)

    def __setstate__(self, state):
        super().__setstate__(state)
        fused = None
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            fused = group.setdefault("fused", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    step_val = float(p_state["step"])
                    p_state["step"] = (_fn.tensor(step_val, dtype=_get_scalar_dtype(is_fused=fused), device=p.device)
                                       if group["fused"] else _fn.tensor(step_val, dtype=_get_scalar_dtype()))

    def share_memory(self) -> None:
        """Move every state ``sum`` into shared memory (``Tensor.share_memory_``)."""
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p]["sum"].share_memory_()

    def _init_group(self, group, params, grads, state_sums, state_steps) -> tuple[bool, bool]:
        has_sparse_grad = has_complex = False
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            if group["fused"] and getattr(self, "_need_device_dtype_check_for_fused", True):
                _device_dtype_check_for_fused(p)
                self._need_device_dtype_check_for_fused = False
            has_sparse_grad |= bool(getattr(grad, "is_sparse", False))
            has_complex |= p.is_complex()
            params.append(p)
            grads.append(grad)
            state = self.state[p]
            if len(state) == 0:
                if group["fused"]:
                    _device_dtype_check_for_fused(p)
                self._init_state(group["fused"], p, state, self.defaults["initial_accumulator_value"])
            state_sums.append(state["sum"])
            state_steps.append(state["step"])
        return has_sparse_grad, has_complex

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss (under grad mode)."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, state_sums, state_steps = [], [], [], []
            has_sparse_grad, has_complex = self._init_group(group, params, grads, state_sums, state_steps)
            adagrad(params, grads, state_sums, state_steps, lr=group["lr"], weight_decay=group["weight_decay"],
                    lr_decay=group["lr_decay"], eps=group["eps"], has_sparse_grad=has_sparse_grad,
                    foreach=group["foreach"], maximize=group["maximize"], differentiable=group["differentiable"],
                    has_complex=has_complex, fused=group["fused"], grad_scale=getattr(self, "grad_scale", None),
                    found_inf=getattr(self, "found_inf", None))
        return loss


def adagrad(params, grads, state_sums, state_steps, fused: bool | None = None, grad_scale=None, found_inf=None,
            has_sparse_grad: bool = False, foreach: bool | None = None, differentiable: bool = False,
            has_complex: bool = False, *, lr, weight_decay, lr_decay, eps, maximize: bool) -> None:
    """Functional Adagrad (``torch.optim.adagrad.adagrad``); every tensor argument is updated in place."""
    _check_state_steps(state_steps)
    foreach, fused = _resolve_impl(params, foreach, fused, differentiable)
    if fused:
        if not params:
            return
        if has_sparse_grad:
            raise RuntimeError("`_fused_adagrad` does not support sparse gradients")
        if _amp_skip_or_unscale(grads, grad_scale, found_inf):
            return
    elif grad_scale is not None or found_inf is not None:
        raise AssertionError("Expected grad_scale and found_inf to be None")
    lr = _to_scalar(lr)
    for param, grad, state_sum, step_t in zip(params, grads, state_sums, state_steps, strict=True):
        step_t += 1
        step = step_t.item()
        grad = grad if not maximize else -grad
        if weight_decay != 0:
            if getattr(grad, "is_sparse", False):
                raise RuntimeError("weight_decay option is not compatible with sparse gradients")
            grad = grad.add(param, alpha=weight_decay)
        clr = lr / (1 + (step - 1) * lr_decay)
        if getattr(grad, "is_sparse", False):
            raise NotImplementedError("Adagrad with sparse gradients needs sparse tensors, which glasstorch lacks")
        if param.is_complex():
            grad, state_sum, param = _view_as_real(grad), _view_as_real(state_sum), _view_as_real(param)
        state_sum.addcmul_(grad, grad, value=1)
        std = state_sum.sqrt() + eps if differentiable else state_sum.sqrt().add_(eps)
        param.addcdiv_(grad, std, value=-clr)
