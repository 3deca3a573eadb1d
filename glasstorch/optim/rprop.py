"""Rprop — PyTorch's ``torch/optim/rprop.py`` (resilient backpropagation).

Per parameter with a gradient: ``step += 1``; ``s = sign(g * prev)``; the step size is multiplied by ``etaplus``
where ``s > 0``, by ``etaminus`` where ``s < 0`` and kept where ``s == 0``, then clamped to ``step_sizes``;
where the sign flipped the gradient counts as 0; ``p -= sign(g) * step_size``; ``prev = g``.
Invariant: ``state[p]`` holds ``step`` (0-dim float tensor), ``prev`` (zeros) and ``step_size`` (filled with lr).
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
    _params_with_dense_grads,
    _resolve_impl,
    _run_closure,
    _scalar_state,
    _tensorize_state_scalars,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["Rprop", "rprop"]


class Rprop(Optimizer):
    """Rprop: per-coordinate step sizes grown or shrunk by the sign agreement of successive gradients.

    Example:
        >>> import glasstorch as torch
        >>> w = torch.zeros(2, requires_grad=True)
        >>> opt = torch.optim.Rprop([w], lr=0.1)
        >>> w.grad = torch.ones(2); opt.step(); w
        tensor([-0.1000, -0.1000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach, "maximize": maximize,
                    "differentiable": differentiable, "capturable": capturable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        _set_flag_defaults(self)
        _tensorize_state_scalars(self)

    def _init_group(self, group, params, grads, prevs, step_sizes, state_steps) -> bool:
        has_complex = False
        for p in _params_with_dense_grads(group, params, grads, "Rprop"):
            has_complex |= p.is_complex()
            grad = p.grad
            state = self.state[p]
            if len(state) == 0:
                state["step"] = _scalar_state(0.0, p, group["capturable"])
                state["prev"] = _fn.zeros_like(p, memory_format=_PRESERVE)
                lr = group["lr"] if p.is_complex() else _to_scalar(group["lr"])
                state["step_size"] = _fn.full_like(grad, complex(lr, lr) if p.is_complex() else lr)
            prevs.append(state["prev"])
            step_sizes.append(state["step_size"])
            state_steps.append(state["step"])
        return has_complex

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss (under grad mode)."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, prevs, step_sizes, state_steps = [], [], [], [], []
            has_complex = self._init_group(group, params, grads, prevs, step_sizes, state_steps)
            etaminus, etaplus = group["etas"]
            step_size_min, step_size_max = group["step_sizes"]
            rprop(params, grads, prevs, step_sizes, state_steps, step_size_min=step_size_min,
                  step_size_max=step_size_max, etaminus=etaminus, etaplus=etaplus, foreach=group["foreach"],
                  maximize=group["maximize"], differentiable=group["differentiable"],
                  capturable=group["capturable"], has_complex=has_complex)
        return loss


def rprop(params, grads, prevs, step_sizes, state_steps, foreach: bool | None = None, capturable: bool = False,
          maximize: bool = False, differentiable: bool = False, has_complex: bool = False, *, step_size_min,
          step_size_max, etaminus, etaplus) -> None:
    """Functional Rprop (``torch.optim.rprop.rprop``); every tensor argument is updated in place."""
    _check_state_steps(state_steps)
    _resolve_impl(params, foreach, None, differentiable)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        prev, step_size, step = prevs[i], step_sizes[i], state_steps[i]
        if capturable:
            _check_capturable(param, step)
        step += 1
        if param.is_complex():
            grad, prev, param, step_size = (_view_as_real(grad), _view_as_real(prev), _view_as_real(param),
                                            _view_as_real(step_size))
        sign = grad.mul(prev.clone() if differentiable else prev).sign()
        if capturable:
            sign.copy_(_gen.where(sign.gt(0), etaplus, sign))
            sign.copy_(_gen.where(sign.lt(0), etaminus, sign))
            sign.copy_(_gen.where(sign.eq(0), 1, sign))
        else:
            sign[sign.gt(0)] = etaplus
            sign[sign.lt(0)] = etaminus
            sign[sign.eq(0)] = 1
        step_size.mul_(sign).clamp_(step_size_min, step_size_max)
        grad = grad.clone(memory_format=_PRESERVE)
        if capturable:
            grad.copy_(_gen.where(sign.eq(etaminus), 0, grad))
        else:
            grad[sign.eq(etaminus)] = 0
        param.addcmul_(grad.sign(), step_size, value=-1)
        prev.copy_(grad)
