"""RAdam — PyTorch's ``torch/optim/radam.py`` (Adam with a rectified adaptive learning rate).

Per parameter with a gradient: ``step += 1``; ``g = ±grad``, plus ``wd * p`` (or ``p *= 1 - lr * wd`` when
decoupled); Adam's moments; ``rho_inf = 2 / (1 - beta2) - 1``, ``rho_t = rho_inf - 2 t beta2**t / (1 - beta2**t)``;
when ``rho_t > 5`` ``p -= lr * m̂ * r_t * sqrt(1 - beta2**t) / (sqrt(v) + eps)``, else ``p -= lr * m̂``.
Invariant: ``state[p]`` holds ``step`` (0-dim float tensor), ``exp_avg`` and ``exp_avg_sq``.
"""

from __future__ import annotations

from .._generated import functions as _gen
from .adadelta import _set_flag_defaults
from .adam import _view_as_real
from .adamax import _check_common, _init_moments
from .optimizer import (
    Optimizer,
    _check_capturable,
    _check_state_steps,
    _get_value,
    _resolve_impl,
    _run_closure,
    _tensorize_state_scalars,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["RAdam", "radam"]


class RAdam(Optimizer):
    """RAdam, optionally with decoupled (AdamW-style) weight decay.

    Example:
        >>> import glasstorch as torch
        >>> w = torch.zeros(2, requires_grad=True)
        >>> opt = torch.optim.RAdam([w], lr=0.1)
        >>> w.grad = torch.ones(2); opt.step(); w
        tensor([-0.1000, -0.1000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        _check_common(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "maximize": maximize,
                    "foreach": foreach, "capturable": capturable, "decoupled_weight_decay": decoupled_weight_decay,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_flag_defaults(self, "decoupled_weight_decay")
        _tensorize_state_scalars(self)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss (under grad mode)."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, state_steps = [], [], [], [], []
            has_complex = _init_moments(self, group, params, grads, "RAdam", (state_steps, exp_avgs, exp_avg_sqs),
                                        ("exp_avg", "exp_avg_sq"))
            beta1, beta2 = group["betas"]
            radam(params, grads, exp_avgs, exp_avg_sqs, state_steps, beta1=beta1, beta2=beta2, lr=group["lr"],
                  weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
                  foreach=group["foreach"], capturable=group["capturable"],
                  differentiable=group["differentiable"], decoupled_weight_decay=group["decoupled_weight_decay"],
                  has_complex=has_complex)
        return loss


def radam(params, grads, exp_avgs, exp_avg_sqs, state_steps, decoupled_weight_decay: bool = False,
          foreach: bool | None = None, differentiable: bool = False, capturable: bool = False,
          has_complex: bool = False, maximize: bool = False, *, beta1, beta2, lr, weight_decay, eps) -> None:
    """Functional RAdam (``torch.optim.radam.radam``); every tensor argument is updated in place."""
    _check_state_steps(state_steps)
    _resolve_impl(params, foreach, None, differentiable)
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_avg_sq, step_t = exp_avgs[i], exp_avg_sqs[i], state_steps[i]
        if capturable:
            _check_capturable(param, step_t)
        if param.is_complex():
            param, grad = _view_as_real(param), _view_as_real(grad)
            exp_avg, exp_avg_sq = _view_as_real(exp_avg), _view_as_real(exp_avg_sq)
        step_t += 1
        step = step_t if capturable else _get_value(step_t)
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        corrected_exp_avg = exp_avg / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2

        def rect(rho_t=rho_t, rho_inf=rho_inf):
            return ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5

        if capturable or rho_t > 5.0:
            sq_sqrt = exp_avg_sq.sqrt()
            sq_sqrt = sq_sqrt.add(eps) if differentiable else sq_sqrt.add_(eps)
            adaptive_lr = (bias_correction2**0.5) / sq_sqrt
        if capturable:
            update = _gen.where(rho_t > 5.0, rect() * adaptive_lr, 1.0)
            param.add_(corrected_exp_avg * lr * update, alpha=-1.0)
        elif rho_t > 5.0:
            param.add_(corrected_exp_avg * lr * adaptive_lr * rect(), alpha=-1.0)
        else:
            param.add_(corrected_exp_avg * lr, alpha=-1.0)
