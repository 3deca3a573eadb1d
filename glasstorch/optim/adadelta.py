"""Adadelta — PyTorch's ``torch/optim/adadelta.py``.

Per parameter with a gradient: ``step += 1``; ``g = ±grad (+ wd * p)``; ``v = rho * v + (1 - rho) * g²``;
``delta = sqrt(u + eps) / sqrt(v + eps) * g``; ``u = rho * u + (1 - rho) * delta²``; ``p -= lr * delta``.
Invariant: ``state[p]`` holds ``step`` (0-dim float tensor), ``square_avg`` and ``acc_delta``, created together
on the parameter's first step.
"""

from __future__ import annotations

from .. import _functions as _fn
from .._generated import functions as _gen
from ..tensor import Tensor
from ..tensor import preserve_format as _PRESERVE
from .adam import _view_as_real
from .optimizer import (
    Optimizer,
    _check_capturable,
    _check_state_steps,
    _params_with_dense_grads,
    _resolve_impl,
    _run_closure,
    _scalar_state,
    _tensorize_state_scalars,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["Adadelta", "adadelta"]


def _check_lr(lr) -> None:
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _set_flag_defaults(optimizer, *extra: str) -> None:
    """``__setstate__``: groups saved before a flag existed get its default (False; ``foreach`` None)."""
    for group in optimizer.param_groups:
        group.setdefault("foreach", None)
        for key in ("maximize", "differentiable", "capturable", *extra):
            group.setdefault(key, False)


class Adadelta(Optimizer):
    """Adadelta: per-coordinate step sizes from running averages of squared gradients and updates.

    Example:
        >>> import glasstorch as torch
        >>> w = torch.zeros(2, requires_grad=True)
        >>> opt = torch.optim.Adadelta([w], lr=1.0)
        >>> w.grad = torch.ones(2); opt.step(); w
        tensor([-0.0032, -0.0032], requires_grad=True)
    """

    def __init__(self, params, lr=1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
                 foreach: bool | None = None, *, capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "capturable": capturable, "foreach": foreach, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_flag_defaults(self)
        _tensorize_state_scalars(self)

    def _init_group(self, group, params, grads, square_avgs, acc_deltas, state_steps) -> bool:
        has_complex = False
        for p in _params_with_dense_grads(group, params, grads, "Adadelta"):
            has_complex |= p.is_complex()
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar_state(0.0, p, group["capturable"])
                state["square_avg"] = _fn.zeros_like(p, memory_format=_PRESERVE)
                state["acc_delta"] = _fn.zeros_like(p, memory_format=_PRESERVE)
            square_avgs.append(state["square_avg"])
            acc_deltas.append(state["acc_delta"])
            state_steps.append(state["step"])
        return has_complex

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss (under grad mode)."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, square_avgs, acc_deltas, state_steps = [], [], [], [], []
            has_complex = self._init_group(group, params, grads, square_avgs, acc_deltas, state_steps)
            adadelta(params, grads, square_avgs, acc_deltas, state_steps, lr=group["lr"], rho=group["rho"],
                     eps=group["eps"], weight_decay=group["weight_decay"], foreach=group["foreach"],
                     maximize=group["maximize"], differentiable=group["differentiable"],
                     capturable=group["capturable"], has_complex=has_complex)
        return loss


def adadelta(params, grads, square_avgs, acc_deltas, state_steps, capturable: bool = False,
             foreach: bool | None = None, differentiable: bool = False, has_complex: bool = False, *, lr, rho, eps,
             weight_decay, maximize: bool) -> None:
    """Functional Adadelta (``torch.optim.adadelta.adadelta``); every tensor argument is updated in place."""
    _check_state_steps(state_steps)
    _resolve_impl(params, foreach, None, differentiable)
    if capturable:
        for p, step in zip(params, state_steps, strict=True):
            _check_capturable(p, step, False)
    lr = _to_scalar(lr)
    for param, grad, square_avg, acc_delta, step in zip(params, grads, square_avgs, acc_deltas, state_steps,
                                                        strict=True):
        step += 1
        grad = grad if not maximize else -grad
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        if param.is_complex():
            square_avg, acc_delta, grad = _view_as_real(square_avg), _view_as_real(acc_delta), _view_as_real(grad)
        square_avg.mul_(rho).addcmul_(grad, grad, value=1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = acc_delta.add(eps).sqrt_()
        if differentiable:
            delta = delta.clone()
        delta.div_(std).mul_(grad)
        acc_delta.mul_(rho).addcmul_(delta, delta, value=1 - rho)
        if param.is_complex():
            delta = _gen.view_as_complex(delta)
        param.add_(delta, alpha=-lr)
