"""Adam (and the decoupled-weight-decay variant AdamW builds on) — PyTorch's ``torch/optim/adam.py``.

Per parameter with a gradient, in PyTorch's exact order: ``step += 1``; weight decay (decoupled:
``p *= 1 - lr * wd``; L2: ``g += wd * p``); ``m.lerp_(g, 1 - beta1)``; ``v = beta2 * v + (1 - beta2) * g²``;
``denom = sqrt(v or max(v)) / sqrt(1 - beta2**t) + eps``; ``p.addcdiv_(m, denom, value=-lr / (1 - beta1**t))``.

Invariant: ``state[p]`` holds ``step`` (a 0-dim float tensor on the CPU — float64 when that is the
default dtype, float32 when fused — on the param's device when capturable/fused), ``exp_avg``,
``exp_avg_sq`` and, with amsgrad, ``max_exp_avg_sq``; all updates are in place.
"""

from __future__ import annotations

from .. import _functions as _fn
from .._generated import functions as _gen
from ..tensor import Tensor
from ..tensor import preserve_format as _PRESERVE
from ._fast import fast_adam
from .optimizer import (
    Optimizer,
    _check_capturable,
    _check_state_steps,
    _device_dtype_check_for_fused,
    _get_scalar_dtype,
    _resolve_impl,
    _run_closure,
    _to_scalar,
    _use_grad_for_differentiable,
)

__all__ = ["Adam", "adam"]


def _view_as_real(t: Tensor) -> Tensor:
    """Complex params (and their state) are updated through their real view, as PyTorch's optimizers do."""
    return _gen.view_as_real(t)


def _check_tensor_lr(lr, foreach, capturable) -> None:
    if isinstance(lr, Tensor):
        if foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        if lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")


def _check_betas(betas, foreach, capturable) -> None:
    if not ((isinstance(betas[0], float) and isinstance(betas[1], float))
            or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))):
        raise ValueError("betas must be either both floats or both Tensors")
    for i in (0, 1):
        if isinstance(betas[i], Tensor):
            if not capturable and foreach:
                raise ValueError(f"betas[{i}] as a Tensor is not supported for capturable=False and foreach=True")
            if betas[i].numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")


class Adam(Optimizer):
    """Adam; ``decoupled_weight_decay=True`` makes it AdamW.

    Example:
        >>> import glasstorch as torch
        >>> w = torch.zeros(2, requires_grad=True)
        >>> opt = torch.optim.Adam([w], lr=0.1)
        >>> w.grad = torch.ones(2); opt.step(); w
        tensor([-0.1000, -0.1000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 amsgrad: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        _check_tensor_lr(lr, foreach, capturable)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_betas(betas, foreach, capturable)
        betas = tuple(map(_to_scalar, betas))
        defaults = {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay, "amsgrad": amsgrad,
                    "maximize": maximize, "foreach": foreach, "capturable": capturable,
                    "differentiable": differentiable, "fused": fused,
                    "decoupled_weight_decay": decoupled_weight_decay}
        super().__init__(params, defaults)
        if fused:
            if differentiable:
                raise RuntimeError("`fused` does not support `differentiable`")
            self._step_supports_amp_scaling = True
            if foreach:
                raise RuntimeError("`fused` and `foreach` cannot be `True` together.")

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("decoupled_weight_decay", False)
            fused = group.setdefault("fused", None)
            for p in group["params"]:
                p_state = self.state.get(p, [])
                if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                    step_val = float(p_state["step"])
                    p_state["step"] = (_fn.tensor(step_val, dtype=_get_scalar_dtype(is_fused=fused), device=p.device)
                                       if group["capturable"] or group["fused"]
                                       else _fn.tensor(step_val, dtype=_get_scalar_dtype()))

    def _init_group(self, group, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps) -> bool:
        has_complex = False
        for p in group["params"]:
            grad = p.grad
            if grad is None:
                continue
            has_complex |= p.is_complex()
            params.append(p)
            if getattr(grad, "is_sparse", False):
                raise RuntimeError("Adam does not support sparse gradients, please consider SparseAdam instead")
            grads.append(grad)
            state = self.state[p]
            if len(state) == 0:
                self._init_state(group, p, state)
            exp_avgs.append(state["exp_avg"])
            exp_avg_sqs.append(state["exp_avg_sq"])
            if group["amsgrad"]:
                max_exp_avg_sqs.append(state["max_exp_avg_sq"])
            if group["differentiable"] and state["step"].requires_grad:
                raise RuntimeError("`requires_grad` is not supported for `step` in differentiable mode")
            if group["foreach"] and isinstance(group["lr"], Tensor) and not group["capturable"]:
                raise RuntimeError("lr as a Tensor is not supported for capturable=False and foreach=True")
            state_steps.append(state["step"])
        return has_complex

    @staticmethod
    def _init_state(group, p, state) -> None:
        if group["fused"]:
            _device_dtype_check_for_fused(p)
        # `step` lives on the CPU unless capturable/fused (PyTorch's "special device hosting for step")
        state["step"] = (_fn.zeros((), dtype=_get_scalar_dtype(is_fused=group["fused"]), device=p.device)
                         if group["capturable"] or group["fused"]
                         else _fn.tensor(0.0, dtype=_get_scalar_dtype(), device="cpu"))
        state["exp_avg"] = _fn.zeros_like(p, memory_format=_PRESERVE)
        state["exp_avg_sq"] = _fn.zeros_like(p, memory_format=_PRESERVE)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = _fn.zeros_like(p, memory_format=_PRESERVE)

    @_use_grad_for_differentiable
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss (under grad mode)."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps = [], [], [], [], [], []
            beta1, beta2 = group["betas"]
            has_complex = self._init_group(group, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                                           state_steps)
            adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, amsgrad=group["amsgrad"],
                 has_complex=has_complex, beta1=beta1, beta2=beta2, lr=group["lr"],
                 weight_decay=group["weight_decay"], eps=group["eps"], maximize=group["maximize"],
                 foreach=group["foreach"], capturable=group["capturable"], differentiable=group["differentiable"],
                 fused=group["fused"], grad_scale=getattr(self, "grad_scale", None),
                 found_inf=getattr(self, "found_inf", None),
                 decoupled_weight_decay=group["decoupled_weight_decay"])
        return loss


def adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, foreach: bool | None = None,
         capturable: bool = False, differentiable: bool = False, fused: bool | None = None, grad_scale=None,
         found_inf=None, has_complex: bool = False, decoupled_weight_decay: bool = False, *, amsgrad: bool, beta1,
         beta2, lr, weight_decay, eps, maximize: bool) -> None:
    """Functional Adam/AdamW (``torch.optim.adam.adam``); every tensor argument is updated in place.

    ``fused=True`` runs ``_fused_adam_``/``_fused_adamw_``; otherwise the single-tensor step (which CPU
    ``foreach=True`` shares: PyTorch's foreach kernels are per-tensor loops there, with the same rounding).
    """
    if fused is None and foreach is None:
        _, foreach = _resolve_impl(params, None, None, differentiable)
        if foreach and isinstance(lr, Tensor) and not capturable:
            foreach = False
    foreach, fused = bool(foreach), bool(fused)
    _check_state_steps(state_steps)
    if fused:
        _fused_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, grad_scale, found_inf,
                    amsgrad=amsgrad, beta1=beta1, beta2=beta2, lr=lr, weight_decay=weight_decay, eps=eps,
                    maximize=maximize, differentiable=differentiable,
                    decoupled_weight_decay=decoupled_weight_decay)
        return
    if grad_scale is not None or found_inf is not None:
        raise AssertionError("Expected grad_scale and found_inf to be None")
    _single_tensor_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, amsgrad=amsgrad,
                        beta1=beta1, beta2=beta2, lr=lr, weight_decay=weight_decay, eps=eps, maximize=maximize,
                        capturable=capturable, differentiable=differentiable,
                        decoupled_weight_decay=decoupled_weight_decay)


def _group_by_device_and_dtype(params) -> dict:
    groups: dict = {}
    for i, p in enumerate(params):
        groups.setdefault((p.device, p.dtype), []).append(i)
    return groups


def _fused_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, grad_scale, found_inf, *,
                amsgrad, beta1, beta2, lr, weight_decay, eps, maximize, differentiable,
                decoupled_weight_decay) -> None:
    """PyTorch's ``_fused_adam``: per (device, dtype) group, ``step += 1`` and one fused op call."""
    if not params:
        return
    if differentiable:
        raise RuntimeError("Adam with fused=True does not support differentiable=True")
    beta1, beta2 = _to_scalar(beta1), _to_scalar(beta2)
    func = _gen._fused_adamw_ if decoupled_weight_decay else _gen._fused_adam_
    for (device, _), idx in _group_by_device_and_dtype(params).items():
        def pick(seq, idx=idx):
            return [seq[i] for i in idx]

        steps = pick(state_steps)
        scale = grad_scale.to(device) if grad_scale is not None else None
        inf = found_inf.to(device) if found_inf is not None else None
        _gen._foreach_add_(steps, 1)
        func(pick(params), pick(grads), pick(exp_avgs), pick(exp_avg_sqs),
             pick(max_exp_avg_sqs) if amsgrad else [], steps, amsgrad=amsgrad, lr=lr, beta1=beta1,
             beta2=beta2, weight_decay=weight_decay, eps=eps, maximize=maximize, grad_scale=scale, found_inf=inf)
        if inf is not None:
            for s in steps:
                s.sub_(inf)


def _single_tensor_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, amsgrad, beta1,
                        beta2, lr, weight_decay, eps, maximize, capturable, differentiable,
                        decoupled_weight_decay) -> None:
    lr, beta1, beta2 = _to_scalar(lr), _to_scalar(beta1), _to_scalar(beta2)
    rest = range(len(params))
    if not (capturable or differentiable):
        rest = fast_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, amsgrad=amsgrad,
                         beta1=beta1, beta2=beta2, lr=lr, weight_decay=weight_decay, eps=eps, maximize=maximize,
                         decoupled_weight_decay=decoupled_weight_decay)
    beta1_cache = {(beta1.device, beta1.dtype): beta1} if isinstance(beta1, Tensor) else None
    for i in rest:
        param = params[i]
        grad = grads[i] if not maximize else -grads[i]
        exp_avg, exp_avg_sq, step_t = exp_avgs[i], exp_avg_sqs[i], state_steps[i]
        if capturable:
            _check_capturable(param, step_t)
        step_t += 1
        if weight_decay != 0:
            if decoupled_weight_decay:
                param.mul_(1 - lr * weight_decay)
            elif differentiable and isinstance(weight_decay, Tensor) and weight_decay.requires_grad:
                grad = grad.addcmul_(param.clone(), weight_decay)
            else:
                grad = grad.add(param, alpha=weight_decay)
        is_complex = param.is_complex()
        if is_complex:
            grad, exp_avg, exp_avg_sq = _view_as_real(grad), _view_as_real(exp_avg), _view_as_real(exp_avg_sq)
            if amsgrad:
                max_exp_avg_sqs[i] = _view_as_real(max_exp_avg_sqs[i])
            param = _view_as_real(param)
        device_beta1 = beta1
        if beta1_cache is not None:
            key = (param.device, param.dtype)
            if key not in beta1_cache:
                beta1_cache[key] = beta1.to(device=param.device, dtype=param.dtype)
            device_beta1 = beta1_cache[key]
        exp_avg.lerp_(grad, 1 - device_beta1)
        if differentiable and isinstance(beta2, Tensor) and beta2.requires_grad:
            exp_avg_sq.lerp_(_gen.square(grad), weight=1 - beta2)
        else:
            exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
        if capturable or differentiable:
            _adam_tensor_step(param, exp_avg, exp_avg_sq, max_exp_avg_sqs, i, step_t, amsgrad=amsgrad, beta1=beta1,
                              beta2=beta2, lr=lr, eps=eps, differentiable=differentiable)
        else:
            _adam_scalar_step(param, exp_avg, exp_avg_sq, max_exp_avg_sqs, i, step_t.item(), amsgrad=amsgrad,
                              beta1=beta1, beta2=beta2, lr=lr, eps=eps)
        if amsgrad and is_complex:
            max_exp_avg_sqs[i] = _gen.view_as_complex(max_exp_avg_sqs[i])


def _adam_scalar_step(param, exp_avg, exp_avg_sq, max_exp_avg_sqs, i, step, *, amsgrad, beta1, beta2, lr, eps):
    """The bias-corrected update with host scalars (PyTorch's default, non-capturable path)."""
    bias_correction1 = 1 - beta1 ** step
    bias_correction2 = 1 - beta2 ** step
    step_size = lr / bias_correction1
    bias_correction2_sqrt = bias_correction2 ** 0.5
    if amsgrad:
        _gen.maximum(max_exp_avg_sqs[i], exp_avg_sq, out=max_exp_avg_sqs[i])
        denom = (max_exp_avg_sqs[i].sqrt() / bias_correction2_sqrt).add_(eps)
    else:
        denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
    param.addcdiv_(exp_avg, denom, value=-step_size)


def _adam_tensor_step(param, exp_avg, exp_avg_sq, max_exp_avg_sqs, i, step, *, amsgrad, beta1, beta2, lr, eps,
                      differentiable):
    """The same update with ``step`` kept a tensor (capturable / differentiable), folded as PyTorch folds it."""
    if differentiable and isinstance(beta1, Tensor) and beta1.requires_grad:
        bias_correction1 = 1 - beta1 ** step.clone()
    else:
        bias_correction1 = 1 - beta1 ** step
    if differentiable and isinstance(beta2, Tensor) and beta2.requires_grad:
        bias_correction2 = 1 - beta2 ** step.clone()
    else:
        bias_correction2 = 1 - beta2 ** step
    step_size_neg = (lr / bias_correction1).neg()
    bias_correction2_sqrt = bias_correction2.sqrt()
    if amsgrad:
        current = max_exp_avg_sqs[i].clone() if differentiable else max_exp_avg_sqs[i]
        max_exp_avg_sqs[i].copy_(_gen.maximum(current, exp_avg_sq))
        source = max_exp_avg_sqs[i]
    else:
        source = exp_avg_sq
    denom = (source.sqrt() / (bias_correction2_sqrt * step_size_neg)).add_(eps / step_size_neg)
    param.addcdiv_(exp_avg.clone() if differentiable else exp_avg, denom)

