"""ASGD — PyTorch's ``torch/optim/asgd.py`` (averaged stochastic gradient descent).

Per parameter with a gradient: ``step += 1``; ``g = ±grad (+ wd * p)``; ``p *= 1 - lambd * eta``; ``p -= eta * g``;
the average ``ax`` follows ``p`` (``ax += mu * (p - ax)``, a plain copy while ``mu == 1``); then
``eta = lr / (1 + lambd * lr * step)**alpha`` and ``mu = 1 / max(1, step - t0)``.
Invariant: ``state[p]`` holds ``step``, ``eta`` and ``mu`` (0-dim float tensors on the param's device) and ``ax``.
"""

from __future__ import annotations

from .. import _functions as _fn
from .._generated import functions as _gen
from ..tensor import preserve_format as _PRESERVE
from .adadelta import _check_lr, _set_flag_defaults
from .adam import _view_as_real
from .optimizer import (
    Optimizer,
    _check_capturable,
    _check_state_steps,
    _get_value,
    _params_with_dense_grads,
    _resolve_impl,
    _run_closure,
    _scalar_state,
    _tensorize_state_scalars,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["ASGD", "asgd"]


class ASGD(Optimizer):
    """Averaged SGD: SGD with a decaying step and a running average ``ax`` of the iterates.

    Example:
        >>> import glasstorch as torch
        >>> w = torch.zeros(2, requires_grad=True)
        >>> opt = torch.optim.ASGD([w], lr=0.1)
        >>> w.grad = torch.ones(2); opt.step(); w
        tensor([-0.1000, -0.1000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                    "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_flag_defaults(self)
        _tensorize_state_scalars(self, ("step", "eta", "mu"), always_on_device=True)

    def _init_group(self, group, params, grads, mus, axs, etas, state_steps) -> bool:
        has_complex = False
        for p in _params_with_dense_grads(group, params, grads, "ASGD"):
            has_complex |= p.is_complex()
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar_state(0.0, p, True)
                lr = _to_scalar(group["lr"])
                state["eta"] = _scalar_state(lr.item() if hasattr(lr, "item") else lr, p, True)
                state["mu"] = _scalar_state(1.0, p, True)
                state["ax"] = _fn.zeros_like(p, memory_format=_PRESERVE)
            mus.append(state["mu"])
            axs.append(state["ax"])
            etas.append(state["eta"])
            state_steps.append(state["step"])
        return has_complex

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss (under grad mode)."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, mus, axs, etas, state_steps = [], [], [], [], [], []
            has_complex = self._init_group(group, params, grads, mus, axs, etas, state_steps)
            asgd(params, grads, axs, mus, etas, state_steps, lambd=group["lambd"], lr=group["lr"],
                 t0=group["t0"], alpha=group["alpha"], weight_decay=group["weight_decay"],
                 foreach=group["foreach"], maximize=group["maximize"], differentiable=group["differentiable"],
                 capturable=group["capturable"], has_complex=has_complex)
        return loss


def asgd(params, grads, axs, mus, etas, state_steps, foreach: bool | None = None, maximize: bool = False,
         differentiable: bool = False, capturable: bool = False, has_complex: bool = False, *, lambd, lr, t0, alpha,
         weight_decay) -> None:
    """Functional ASGD (``torch.optim.asgd.asgd``); every tensor argument is updated in place."""
    _check_state_steps(state_steps)
    _resolve_impl(params, foreach, None, differentiable)
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        mu, ax, eta, step_t = mus[i], axs[i], etas[i], state_steps[i]
        if capturable:
            _check_capturable(param, step_t, True, "params, mus, etas, and state_steps", mu, eta)
        if param.is_complex():
            grad, param, ax = _view_as_real(grad), _view_as_real(param), _view_as_real(ax)
        step_t += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        if capturable:
            param.mul_(1 - lambd * eta)
            param.addcmul_(grad, eta, value=-1)
        else:
            eta_value = _get_value(eta)
            param.mul_(1 - lambd * eta_value)
            param.add_(grad, alpha=-eta_value)
        if capturable or mu.item() != 1:
            ax.add_(param.sub(ax).mul_(mu))
        else:
            ax.copy_(param)
        if capturable:
            eta.copy_(lr / ((1 + lambd * lr * step_t) ** alpha))
            mu.copy_(1 / _gen.maximum(step_t - t0, _fn.ones_like(step_t)))
        else:
            step = _get_value(step_t)
            eta.copy_(_fn.as_tensor(lr / ((1 + lambd * lr * step) ** alpha)))
            mu.copy_(_fn.as_tensor(1 / max(1, step - t0)))
