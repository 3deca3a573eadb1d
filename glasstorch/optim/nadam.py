"""NAdam — PyTorch's ``torch/optim/nadam.py`` (Adam with Nesterov momentum and a momentum schedule).

Per parameter with a gradient: ``step += 1``; ``g = ±grad``, plus ``wd * p`` (or ``p *= 1 - lr * wd`` when
decoupled); ``mu_t = beta1 * (1 - 0.5 * 0.96**(t * momentum_decay))``; ``mu_product *= mu_t``; Adam's moments;
``p -= lr * (1 - mu_t) / (1 - mu_product) * g / d + lr * mu_{t+1} / (1 - mu_product * mu_{t+1}) * m / d`` with
``d = sqrt(v / (1 - beta2**t)) + eps``.
Invariant: ``state[p]`` holds ``step`` and ``mu_product`` (0-dim float tensors), ``exp_avg`` and ``exp_avg_sq``.
"""

from __future__ import annotations

from ..tensor import Tensor
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

__all__ = ["NAdam", "nadam"]


class NAdam(Optimizer):
    """NAdam, optionally with decoupled (AdamW-style) weight decay.

    Example:
        >>> import glasstorch as torch
        >>> w = torch.zeros(2, requires_grad=True)
        >>> opt = torch.optim.NAdam([w], lr=0.1)
        >>> w.grad = torch.ones(2); opt.step(); w
        tensor([-0.1056, -0.1056], requires_grad=True)
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *, foreach: bool | None = None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        _check_common(lr, betas, eps, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                    "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_flag_defaults(self, "decoupled_weight_decay")
        _tensorize_state_scalars(self, ("step", "mu_product"))

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss (under grad mode)."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps = [], [], [], [], [], []
            has_complex = _init_moments(self, group, params, grads, "NAdam",
                                        (state_steps, mu_products, exp_avgs, exp_avg_sqs),
                                        ("mu_product", "exp_avg", "exp_avg_sq"))
            beta1, beta2 = group["betas"]
            nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, beta1=beta1, beta2=beta2,
                  lr=group["lr"], weight_decay=group["weight_decay"], momentum_decay=group["momentum_decay"],
                  eps=group["eps"], maximize=group["maximize"],
                  decoupled_weight_decay=group["decoupled_weight_decay"], foreach=group["foreach"],
                  capturable=group["capturable"], differentiable=group["differentiable"], has_complex=has_complex)
        return loss


def nadam(params, grads, exp_avgs, exp_avg_sqs, mu_products, state_steps, decoupled_weight_decay: bool = False,
          foreach: bool | None = None, capturable: bool = False, differentiable: bool = False,
          has_complex: bool = False, maximize: bool = False, *, beta1, beta2, lr, weight_decay, momentum_decay,
          eps) -> None:
    """Functional NAdam (``torch.optim.nadam.nadam``); every tensor argument is updated in place."""
    _check_state_steps(state_steps)
    if not all(isinstance(t, Tensor) for t in mu_products):
        raise RuntimeError("API has changed, `mu_products` argument must contain a list of singleton tensors")
    _resolve_impl(params, foreach, None, differentiable)
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_avg_sq, mu_product, step_t = exp_avgs[i], exp_avg_sqs[i], mu_products[i], state_steps[i]
        if param.is_complex():
            param, grad = _view_as_real(param), _view_as_real(grad)
            exp_avg, exp_avg_sq = _view_as_real(exp_avg), _view_as_real(exp_avg_sq)
        if capturable:
            _check_capturable(param, step_t, True, "params, mu_products and state_steps", mu_product)
        step_t += 1
        step = step_t if capturable else _get_value(step_t)
        bias_correction2 = 1 - beta2**step
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
        mu_product *= mu
        exp_avg.lerp_(grad, 1 - beta1)
        exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt()
        if differentiable or capturable:
            denom = denom.add(eps)
            mu_product_next = mu_product * mu_next
            param.addcdiv_(grad * (-lr * (1.0 - mu) / (1.0 - mu_product)), denom)
            param.addcdiv_(exp_avg * (-lr * mu_next / (1.0 - mu_product_next)), denom)
        else:
            mu_product_next = _get_value(mu_product) * mu_next
            denom.add_(eps)
            param.addcdiv_(grad, denom, value=(-lr * (1.0 - mu) / (1.0 - _get_value(mu_product))))
            param.addcdiv_(exp_avg, denom, value=(-lr * mu_next) / (1.0 - mu_product_next))
