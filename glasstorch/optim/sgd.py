"""Stochastic gradient descent — PyTorch's ``torch/optim/sgd.py``.

Per parameter with a gradient: ``g = ±grad (+ weight_decay * p)``; with momentum the buffer starts as a
copy of ``g`` (no dampening on the first step) and then follows ``buf = momentum * buf + (1 - dampening) * g``;
Nesterov uses ``g + momentum * buf``; finally ``p -= lr * g`` in place.  Invariant: ``state[p]`` holds
``momentum_buffer`` (``None`` when momentum is 0), exactly as PyTorch stores it.

``foreach=True`` and ``fused=True`` are accepted and run the same per-tensor update (PyTorch's foreach
path computes the same numbers); ``fused`` additionally honours a GradScaler's ``grad_scale``/``found_inf``.
"""

from __future__ import annotations

from ..tensor import Tensor
from .optimizer import (
    Optimizer,
    _amp_skip_or_unscale,
    _device_dtype_check_for_fused,
    _resolve_impl,
    _run_closure,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["SGD", "sgd"]


class SGD(Optimizer):
    """Stochastic gradient descent, optionally with (Nesterov) momentum and L2 weight decay.

    Example:
        >>> import glasstorch as torch
        >>> w = torch.ones(2, requires_grad=True)
        >>> opt = torch.optim.SGD([w], lr=0.5, momentum=0.9)
        >>> w.grad = torch.ones(2); opt.step(); w
        tensor([0.5000, 0.5000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, momentum: float = 0, dampening: float = 0, weight_decay=0,
                 nesterov: bool = False, *, maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = {"lr": lr, "momentum": momentum, "dampening": dampening, "weight_decay": weight_decay,
                    "nesterov": nesterov, "maximize": maximize, "foreach": foreach,
                    "differentiable": differentiable, "fused": fused}
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        if fused:
            self._step_supports_amp_scaling = True
            self._need_device_dtype_check_for_fused = True
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    def _init_group(self, group, params, grads, momentum_buffer_list) -> bool:
        has_sparse_grad = False
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            if group["fused"] and getattr(self, "_need_device_dtype_check_for_fused", True):
                _device_dtype_check_for_fused(p)
                self._need_device_dtype_check_for_fused = False
            params.append(p)
            grads.append(grad)
            has_sparse_grad |= bool(getattr(grad, "is_sparse", False))
            if group["momentum"] != 0:
                momentum_buffer_list.append(self.state[p].get("momentum_buffer"))
        return has_sparse_grad

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss (under grad mode)."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params: list = []
            grads: list = []
            momentum_buffer_list: list = []
            has_sparse_grad = self._init_group(group, params, grads, momentum_buffer_list)
            sgd(params, grads, momentum_buffer_list, weight_decay=group["weight_decay"], momentum=group["momentum"],
                lr=group["lr"], dampening=group["dampening"], nesterov=group["nesterov"], maximize=group["maximize"],
                has_sparse_grad=has_sparse_grad, foreach=group["foreach"], fused=group["fused"],
                grad_scale=getattr(self, "grad_scale", None), found_inf=getattr(self, "found_inf", None))
            if group["momentum"] != 0:
                for p, buf in zip(params, momentum_buffer_list, strict=True):
                    self.state[p]["momentum_buffer"] = buf
        return loss


def sgd(params, d_p_list, momentum_buffer_list, has_sparse_grad: bool = False, foreach: bool | None = None,
        fused: bool | None = None, grad_scale=None, found_inf=None, *, weight_decay, momentum, lr, dampening,
        nesterov: bool, maximize: bool) -> None:
    """Functional SGD (``torch.optim.sgd.sgd``): updates ``params`` and fills ``momentum_buffer_list`` in place."""
    foreach, fused = _resolve_impl(params, foreach, fused, False)
    if fused:
        if has_sparse_grad:
            raise RuntimeError("`_fused_sgd` does not support sparse gradients")
        if _amp_skip_or_unscale(d_p_list, grad_scale, found_inf):
            return
    elif grad_scale is not None or found_inf is not None:
        raise AssertionError("Expected grad_scale and found_inf to be None")
    _single_tensor_sgd(params, d_p_list, momentum_buffer_list, weight_decay=weight_decay, momentum=momentum, lr=lr,
                       dampening=dampening, nesterov=nesterov, maximize=maximize)


def _single_tensor_sgd(params, grads, momentum_buffer_list, *, weight_decay, momentum, lr, dampening, nesterov,
                       maximize) -> None:
    lr = _to_scalar(lr)
    for i, param in enumerate(params):
        grad = grads[i] if not maximize else -grads[i]
        if weight_decay != 0:
            if isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
                grad = grad.addcmul_(param.clone(), weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        if momentum != 0:
            buf = momentum_buffer_list[i]
            if buf is None:
                buf = grad.detach().clone()
                momentum_buffer_list[i] = buf
            else:
                buf.mul_(momentum).add_(grad, alpha=1 - dampening)
            grad = grad.add(buf, alpha=momentum) if nesterov else buf
        if isinstance(lr, Tensor) and lr.requires_grad:
            param.addcmul_(grad, lr, value=-1)
        else:
            param.add_(grad, alpha=-lr)
