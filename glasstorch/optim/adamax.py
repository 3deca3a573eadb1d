"""Adamax — PyTorch's ``torch/optim/adamax.py`` (Adam with the infinity norm).

Per parameter with a gradient: ``step += 1``; ``g = ±grad (+ wd * p)``; ``m.lerp_(g, 1 - beta1)``;
``u = max(beta2 * u, |g| + eps)``; ``p -= lr / (1 - beta1**step) * m / u``.
Invariant: ``state[p]`` holds ``step`` (0-dim float tensor), ``exp_avg`` and ``exp_inf``.
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

__all__ = ["Adamax", "adamax"]


def _check_common(lr, betas, eps, weight_decay) -> None:
    """The checks Adamax, NAdam and RAdam share, in PyTorch's order."""
    _check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    for i in (0, 1):
        if not 0.0 <= betas[i] < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {betas[i]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _init_moments(optimizer, group, params, grads, name, extra_lists, extra_keys) -> bool:
    """Collect the params with a gradient; a new state gets ``step`` and zero moments named ``extra_keys``."""
    has_complex = False
    for p in _params_with_dense_grads(group, params, grads, name):
        has_complex |= p.is_complex()
        state = optimizer.state[p]
        if len(state) == 0:
            state["step"] = _scalar_state(0.0, p, group["capturable"])
            if name == "NAdam":
                state["mu_product"] = _scalar_state(1.0, p, group["capturable"])
            for key in extra_keys:
                if key not in state:
                    state[key] = _fn.zeros_like(p, memory_format=_PRESERVE)
        for key, out in zip(("step", *extra_keys), extra_lists, strict=True):
            out.append(state[key])
    return has_complex


class Adamax(Optimizer):
    """Adamax: Adam whose second moment is an exponentially weighted infinity norm.

    Example:
        >>> import glasstorch as torch
        >>> w = torch.zeros(2, requires_grad=True)
        >>> opt = torch.optim.Adamax([w], lr=0.1)
        >>> w.grad = torch.ones(2); opt.step(); w
        tensor([-0.1000, -0.1000], requires_grad=True)
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 foreach: bool | None = None, *, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        _check_common(lr, betas, eps, weight_decay)
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_flag_defaults(self)
        _tensorize_state_scalars(self)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss (under grad mode)."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_infs, state_steps = [], [], [], [], []
            has_complex = _init_moments(self, group, params, grads, "Adamax", (state_steps, exp_avgs, exp_infs),
                                        ("exp_avg", "exp_inf"))
            beta1, beta2 = group["betas"]
            adamax(params, grads, exp_avgs, exp_infs, state_steps, eps=group["eps"], beta1=beta1, beta2=beta2,
                   lr=group["lr"], weight_decay=group["weight_decay"], foreach=group["foreach"],
                   maximize=group["maximize"], differentiable=group["differentiable"],
                   capturable=group["capturable"], has_complex=has_complex)
        return loss


def adamax(params, grads, exp_avgs, exp_infs, state_steps, foreach: bool | None = None, maximize: bool = False,
           differentiable: bool = False, capturable: bool = False, has_complex: bool = False, *, eps, beta1, beta2,
           lr, weight_decay) -> None:
    """Functional Adamax (``torch.optim.adamax.adamax``); every tensor argument is updated in place."""
    _check_state_steps(state_steps)
    _resolve_impl(params, foreach, None, differentiable)
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_inf, step_t = exp_avgs[i], exp_infs[i], state_steps[i]
        if capturable:
            _check_capturable(param, step_t)
        step_t += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        if param.is_complex():
            param, grad = _view_as_real(param), _view_as_real(grad)
            exp_avg, exp_inf = _view_as_real(exp_avg), _view_as_real(exp_inf)
        exp_avg.lerp_(grad, 1 - beta1)
        if not differentiable:
            _gen.maximum(exp_inf.mul_(beta2), grad.abs().add_(eps), out=exp_inf)
        else:
            norm_buf = _gen.cat([exp_inf.mul_(beta2).unsqueeze(0), grad.abs().add_(eps).unsqueeze_(0)], 0)
            exp_inf.copy_(_gen.amax(norm_buf, 0, keepdim=False))
        if capturable:
            neg_bias_correction = beta1**step_t - 1
            neg_bias_correction.div_(lr)
            param.addcdiv_(exp_avg, exp_inf * neg_bias_correction)
        else:
            clr = lr / (1 - beta1 ** _get_value(step_t))
            param.addcdiv_(exp_avg, exp_inf, value=-clr)
