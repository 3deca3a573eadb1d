"""Adafactor — PyTorch's ``torch/optim/_adafactor.py`` (factored second moments, no first moment).

Per parameter with a gradient: ``step += 1``; ``1 - beta2_t = step**beta2_decay``;
``rho = min(lr, 1/sqrt(step))``; ``alpha = max(eps2, RMS(p)) * rho``; decoupled ``p *= 1 - lr * wd``; a matrix
(or batch of them) keeps the row and column means of ``g²`` (``row_var``, ``col_var``) and estimates
``v = row_var @ col_var / mean(row_var)``, a vector keeps ``variance`` itself; ``u = g / sqrt(max(v, eps1²))`` is
clipped to RMS ``d`` and ``p -= alpha * u``.
Invariant: ``state[p]`` holds ``step`` (0-dim float tensor) and ``row_var``/``col_var`` (dim > 1) or ``variance``.
"""

from __future__ import annotations

from .. import _functions as _fn
from .._core.dtype import finfo
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from ..tensor import preserve_format as _PRESERVE
from .optimizer import (
    Optimizer,
    _check_state_steps,
    _resolve_impl,
    _run_closure,
    _scalar_state,
    _to_scalar,
)

__all__ = ["Adafactor", "adafactor"]


class Adafactor(Optimizer):
    """Adafactor with relative step sizes and update clipping.

    Example:
        >>> import glasstorch as torch
        >>> w = torch.ones(2, requires_grad=True)
        >>> opt = torch.optim.Adafactor([w], lr=0.1)
        >>> w.grad = torch.ones(2); opt.step(); w
        tensor([0.9000, 0.9000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-2, beta2_decay: float = -0.8, eps=(None, 1e-3), d: float = 1.0,
                 weight_decay: float = 0.0, *, foreach: bool | None = None, maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d, "weight_decay": weight_decay,
                    "foreach": foreach, "maximize": maximize}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)

    def _init_group(self, group, params, grads, row_vars, col_vars, variances, state_steps) -> bool:
        for p in group["params"]:
            if p.grad is None:
                continue
            if p.is_complex():
                raise RuntimeError("Adafactor does not support complex parameters")
            if getattr(p.grad, "is_sparse", False):
                raise RuntimeError("Adafactor does not support sparse gradients")
            params.append(p)
            grads.append(p.grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar_state(0.0, p, False)
                if p.grad.dim() > 1:
                    shape = list(p.grad.shape)
                    state["row_var"] = p.grad.new_zeros([*shape[:-1], 1])
                    state["col_var"] = p.grad.new_zeros([*shape[:-2], 1, shape[-1]])
                else:
                    state["variance"] = _fn.zeros_like(p.grad, memory_format=_PRESERVE)
            row_vars.append(state.get("row_var", None))
            col_vars.append(state.get("col_var", None))
            variances.append(state.get("variance", None))
            state_steps.append(state["step"])
        return False

    @no_grad()
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss (under grad mode)."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, row_vars, col_vars, variances, state_steps = [], [], [], [], [], []
            eps1, eps2 = group["eps"]
            has_complex = self._init_group(group, params, grads, row_vars, col_vars, variances, state_steps)
            adafactor(params, grads, row_vars, col_vars, variances, state_steps, d=group["d"], lr=group["lr"],
                      beta2_decay=group["beta2_decay"], weight_decay=group["weight_decay"], eps1=eps1, eps2=eps2,
                      foreach=group["foreach"], maximize=group["maximize"],
                      grad_scale=getattr(self, "grad_scale", None), found_inf=getattr(self, "found_inf", None),
                      has_complex=has_complex)
        return loss


def adafactor(params, grads, row_vars, col_vars, variances, state_steps, foreach: bool | None = None,
              grad_scale=None, found_inf=None, has_complex: bool = False, *, d, lr, beta2_decay, weight_decay,
              eps1, eps2, maximize: bool) -> None:
    """Functional Adafactor (``torch.optim._adafactor.adafactor``); every tensor argument is updated in place."""
    _check_state_steps(state_steps)
    _resolve_impl(params, foreach, None, False)
    if grad_scale is not None or found_inf is not None:
        raise AssertionError("Grad scaling should occur outside of optimizer.step()")
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        step_t, row_var, col_var, variance = state_steps[i], row_vars[i], col_vars[i], variances[i]
        if eps1 is None:
            eps1 = finfo(param.dtype).eps
        step_t += 1
        step_float = step_t.item()
        one_minus_beta2_t = step_float**beta2_decay
        rho_t = min(lr, 1 / (step_float**0.5))
        alpha = max(eps2, param.norm(2).item() / (param.numel() ** 0.5)) * rho_t
        if weight_decay != 0:
            param.mul_(1 - lr * weight_decay)
        if grad.dim() > 1:
            if row_var is None or col_var is None:
                raise AssertionError("row_var and col_var should be defined when grad is multidimensional")
            row_var.lerp_(grad.norm(dim=-1, keepdim=True).square_().div_(grad.size(-1)), one_minus_beta2_t)
            col_var.lerp_(grad.norm(dim=-2, keepdim=True).square_().div_(grad.size(-2)), one_minus_beta2_t)
            var_estimate = row_var @ col_var
            var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
        else:
            if variance is None:
                raise AssertionError("variance should be defined when grad is a vector")
            variance.lerp_(grad * grad, one_minus_beta2_t)
            var_estimate = variance.clone()
        update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
        update.mul_(grad)
        denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
        param.add_(update, alpha=-alpha / denom)
