"""AdamW — PyTorch's ``torch/optim/adamw.py``: Adam with decoupled weight decay.

The decay multiplies the parameter by ``1 - lr * weight_decay`` before the Adam update instead of adding
``weight_decay * p`` to the gradient, so it never enters the moment estimates.  Invariant: every group
of an AdamW (including one loaded from a state dict) has ``decoupled_weight_decay=True``.
"""

from __future__ import annotations

from .adam import Adam, adam

__all__ = ["AdamW", "adamw"]


class AdamW(Adam):
    """AdamW (default ``weight_decay=1e-2``).

    Example:
        >>> import glasstorch as torch
        >>> w = torch.ones(2, requires_grad=True)
        >>> opt = torch.optim.AdamW([w], lr=0.1, weight_decay=0.5)
        >>> w.grad = torch.zeros(2); opt.step(); w
        tensor([0.9500, 0.9500], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 1e-2,
                 amsgrad: bool = False, *, maximize: bool = False, foreach: bool | None = None,
                 capturable: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True


def adamw(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach: bool | None = None,
          capturable: bool = False, differentiable: bool = False, fused: bool | None = None, grad_scale=None,
          found_inf=None, has_complex: bool = False, *, amsgrad: bool, beta1, beta2, lr, weight_decay, eps,
          maximize: bool) -> None:
    """Functional AdamW (``torch.optim.adamw.adamw``): :func:`adam` with decoupled weight decay."""
    adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach=foreach, capturable=capturable,
         differentiable=differentiable, fused=fused, grad_scale=grad_scale, found_inf=found_inf,
         has_complex=has_complex, decoupled_weight_decay=True, amsgrad=amsgrad, beta1=beta1, beta2=beta2, lr=lr,
         weight_decay=weight_decay, eps=eps, maximize=maximize)
