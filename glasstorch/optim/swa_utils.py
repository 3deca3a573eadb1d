"""Stochastic weight averaging — PyTorch's ``torch.optim.swa_utils``.

``AveragedModel`` keeps a deep copy of a model whose parameters (and, with ``use_buffers``, buffers) are a
running average of the source model's; ``update_bn`` recomputes BatchNorm statistics with a cumulative
average over a loader; ``SWALR`` anneals every group's lr towards a fixed ``swa_lr``.
"""

from __future__ import annotations

import itertools
import math
from copy import deepcopy

from .. import _functions as _fn
from .._core.dtype import int64
from ..autograd.grad_mode import no_grad
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ..tensor import Tensor
from ._lr_base import LRScheduler, _format_param, _warn_get_lr_called_within_step

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay=0.999):
    """In-place EMA over lists of tensors: ``ema = decay * ema + (1 - decay) * current``."""
    _check_decay(decay)

    def ema_update(ema_list, current_list, _):
        with no_grad():
            for e, c in zip(ema_list, current_list, strict=True):
                if e.is_floating_point() or e.is_complex():
                    e.lerp_(c, 1 - decay)
                else:
                    e.copy_(e * decay + c * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn():
    """In-place equal-weight average over lists of tensors."""
    def swa_update(avg_list, current_list, num_averaged):
        with no_grad():
            for a, c in zip(avg_list, current_list, strict=True):
                if a.is_floating_point() or a.is_complex():
                    a.lerp_(c, 1 / (num_averaged + 1))
                elif isinstance(num_averaged, Tensor):  # torch's calls, so integer tensors fail as torch's do
                    a.addcdiv_(c - a, num_averaged + 1)
                else:
                    a.add_(c - a, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay=0.999):
    """EMA of one tensor, returned as a new tensor."""
    _check_decay(decay)

    def ema_update(ema_param, current_param, num_averaged):
        with no_grad():
            return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn():
    """Equal-weight average of one tensor, returned as a new tensor."""
    def swa_update(averaged_param, current_param, num_averaged):
        with no_grad():
            return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A deep copy of ``model`` holding running averages of its parameters (SWA by default, or ``avg_fn``)."""

    def __init__(self, model: Module, device=None, avg_fn=None, multi_avg_fn=None, use_buffers=False) -> None:
        super().__init__()
        assert avg_fn is None or multi_avg_fn is None, "Only one of avg_fn and multi_avg_fn should be provided"
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", _fn.tensor(0, dtype=int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        """First call copies ``model``'s values; later calls fold them into the average; ``n_averaged += 1``."""
        if self.use_buffers:
            mine = itertools.chain(self.module.parameters(), self.module.buffers())
            theirs = itertools.chain(model.parameters(), model.buffers())
        else:
            mine, theirs = self.parameters(), model.parameters()
        first = bool(self.n_averaged == 0)
        avg, cur = [], []
        with no_grad():
            for p_avg, p_model in zip(mine, theirs, strict=False):
                p = p_model.detach().to(p_avg.device)
                avg.append(p_avg.detach())
                cur.append(p)
                if first:
                    p_avg.detach().copy_(p)
            if not first:
                n = self.n_averaged
                if self.multi_avg_fn is not None:  # one call per (device, dtype) group, as torch groups them
                    groups: dict = {}
                    for a, c in zip(avg, cur, strict=True):
                        pair = groups.setdefault((a.device, a.dtype), ([], []))
                        pair[0].append(a)
                        pair[1].append(c)
                    for (device, _), (group_avg, group_cur) in groups.items():
                        self.multi_avg_fn(group_avg, group_cur, n.to(device))
                else:  # torch's CPU path: one tensor at a time (no foreach kernels), the result copied back
                    avg_fn = self.avg_fn or get_swa_avg_fn()
                    for a, c in zip(avg, cur, strict=True):
                        a.copy_(avg_fn(a, c, n.to(a.device)))
            if not self.use_buffers:
                for b_swa, b_model in zip(self.module.buffers(), model.buffers(), strict=False):
                    b_swa.detach().copy_(b_model.detach().to(b_swa.device))
            self.n_averaged += 1


def update_bn(loader, model: Module, device=None) -> None:
    """One pass over ``loader`` with every BatchNorm reset and on a cumulative average (``momentum=None``)."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    with no_grad():
        for inp in loader:
            if isinstance(inp, (list, tuple)):
                inp = inp[0]
            if device is not None:
                inp = inp.to(device)
            model(inp)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneal each group's lr to ``swa_lr`` over ``anneal_epochs`` steps ("cos" or "linear"), then hold it."""

    def __init__(self, optimizer, swa_lr, anneal_epochs=10, anneal_strategy="cos", last_epoch=-1) -> None:
        for lr, group in zip(_format_param("swa_lr", optimizer, swa_lr), optimizer.param_groups, strict=True):
            group["swa_lr"] = lr
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t):
        return t

    @staticmethod
    def _cosine_anneal(t):
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr, swa_lr, alpha):
        return swa_lr if alpha == 1 else (lr - alpha * swa_lr) / (1 - alpha)

    def _fraction(self, step):
        return max(0, min(1, step / max(1, self.anneal_epochs)))

    def get_lr(self) -> list:
        _warn_get_lr_called_within_step(self)
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(self._fraction(step - 1))
        alpha = self.anneal_func(self._fraction(step))
        groups = self.optimizer.param_groups
        return [g["swa_lr"] * alpha + self._get_initial_lr(g["lr"], g["swa_lr"], prev_alpha) * (1 - alpha)
                for g in groups]

    def _set_anneal_func(self, anneal_strategy) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
