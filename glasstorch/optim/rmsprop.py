"""RMSprop — PyTorch's ``torch/optim/rmsprop.py``.

Per parameter with a gradient: ``step += 1``; ``g = ±grad (+ wd * p)``; ``v = alpha * v + (1 - alpha) * g²``;
centered: ``ḡ.lerp_(g, 1 - alpha)`` and ``avg = sqrt(v - ḡ²)``, else ``avg = sqrt(v)``; ``avg += eps``;
with momentum ``buf = momentum * buf + g / avg`` and ``p -= lr * buf``, else ``p -= lr * g / avg``.
Invariant: ``state[p]`` holds ``step`` (0-dim float tensor), ``square_avg`` and, when used,
``momentum_buffer`` and ``grad_avg``, created together on the parameter's first step.
"""

from __future__ import annotations

from .. import _functions as _fn
from ..tensor import Tensor
from ..tensor import preserve_format as _PRESERVE
from .adam import _view_as_real
from .optimizer import (
    Optimizer,
    _check_capturable,
    _check_state_steps,
    _get_scalar_dtype,
    _resolve_impl,
    _run_closure,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["RMSprop", "rmsprop"]


class RMSprop(Optimizer):
    """RMSprop, optionally centered and with momentum.

    Example:
        >>> import glasstorch as torch
        >>> w = torch.zeros(2, requires_grad=True)
        >>> opt = torch.optim.RMSprop([w], lr=0.01)
        >>> w.grad = torch.ones(2); opt.step(); w
        tensor([-0.1000, -0.1000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-2, alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0,
                 momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        defaults = {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                    "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                    "maximize": maximize, "differentiable": differentiable}
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("momentum", 0)
            group.setdefault("centered", False)
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("capturable", False)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    step_val = float(p_state["step"])
                    p_state["step"] = (_fn.tensor(step_val, dtype=_get_scalar_dtype(), device=p.device)
                                       if group["capturable"] else _fn.tensor(step_val, dtype=_get_scalar_dtype()))

    def _init_group(self, group, params, grads, square_avgs, momentum_buffer_list, grad_avgs, state_steps) -> bool:
        has_complex = False
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            has_complex |= p.is_complex()
            params.append(p)
            if getattr(grad, "is_sparse", False):
                raise RuntimeError("RMSprop does not support sparse gradients")
            grads.append(grad)
            state = self.state[p]
            if len(state) == 0:
                state["step"] = (_fn.zeros((), dtype=_get_scalar_dtype(), device=p.device) if group["capturable"]
                                 else _fn.zeros((), dtype=_get_scalar_dtype()))
                state["square_avg"] = _fn.zeros_like(p, memory_format=_PRESERVE)
                if group["momentum"] > 0:
                    state["momentum_buffer"] = _fn.zeros_like(p, memory_format=_PRESERVE)
                if group["centered"]:
                    state["grad_avg"] = _fn.zeros_like(p, memory_format=_PRESERVE)
            square_avgs.append(state["square_avg"])
            state_steps.append(state["step"])
            if group["momentum"] > 0:
                momentum_buffer_list.append(state["momentum_buffer"])
            if group["centered"]:
                grad_avgs.append(state["grad_avg"])
        return has_complex

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss (under grad mode)."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps = [], [], [], [], [], []
            has_complex = self._init_group(group, params, grads, square_avgs, momentum_buffer_list, grad_avgs,
                                           state_steps)
            rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, lr=group["lr"],
                    alpha=group["alpha"], eps=group["eps"], weight_decay=group["weight_decay"],
                    momentum=group["momentum"], centered=group["centered"], foreach=group["foreach"],
                    maximize=group["maximize"], differentiable=group["differentiable"],
                    capturable=group["capturable"], has_complex=has_complex)
        return loss


def rmsprop(params, grads, square_avgs, grad_avgs, momentum_buffer_list, state_steps, foreach: bool | None = None,
            maximize: bool = False, differentiable: bool = False, capturable: bool = False,
            has_complex: bool = False, *, lr, alpha, eps, weight_decay, momentum, centered: bool) -> None:
    """Functional RMSprop (``torch.optim.rmsprop.rmsprop``); every tensor argument is updated in place."""
    _check_state_steps(state_steps)
    _resolve_impl(params, foreach, None, differentiable)
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        step = state_steps[i]
        if capturable:
            _check_capturable(param, step)
        grad = grads[i] if not maximize else -grads[i]
        square_avg = square_avgs[i]
        step += 1
        if weight_decay != 0:
            grad = grad.add(param, alpha=weight_decay)
        is_complex = param.is_complex()
        if is_complex:
            param, grad, square_avg = _view_as_real(param), _view_as_real(grad), _view_as_real(square_avg)
        square_avg.mul_(alpha).addcmul_(grad, grad, value=1 - alpha)
        if centered:
            grad_avg = _view_as_real(grad_avgs[i]) if is_complex else grad_avgs[i]
            grad_avg.lerp_(grad, 1 - alpha)
            avg = square_avg.addcmul(grad_avg, grad_avg, value=-1).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg = avg.add(eps) if differentiable else avg.add_(eps)
        if momentum > 0:
            buf = _view_as_real(momentum_buffer_list[i]) if is_complex else momentum_buffer_list[i]
            buf.mul_(momentum).addcdiv_(grad, avg)
            param.add_(buf, alpha=-lr)
        else:
            param.addcdiv_(grad, avg, value=-lr)
