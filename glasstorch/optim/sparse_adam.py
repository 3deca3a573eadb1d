"""SparseAdam — PyTorch's ``torch/optim/sparse_adam.py`` (the step is ``torch.optim._functional.sparse_adam``).

Dense params, COO sparse gradients (``nn.Embedding(sparse=True)``).  Per param with a gradient: ``step += 1``
(a plain int in ``state``, as PyTorch keeps it); ``g = ±grad`` coalesced; an empty gradient stops there.  Only
the rows ``g`` touches change: ``m += (g - m) * (1 - beta1)``, ``v += (g² - v) * (1 - beta2)``, then
``p -= lr * sqrt(1 - beta2**t) / (1 - beta1**t) * m / (sqrt(v) + eps)`` on those rows.
"""

from __future__ import annotations

import math

from .. import _functions as _fn
from .. import _sparse_functions as _sparse
from ..autograd.grad_mode import no_grad
from ..tensor import Tensor
from ..tensor import preserve_format as _PRESERVE
from .optimizer import Optimizer, _run_closure, _to_scalar

__all__ = ["SparseAdam", "sparse_adam"]


class SparseAdam(Optimizer):
    """Adam masked to the rows a sparse gradient materialises.

    Example:
        >>> import glasstorch as torch
        >>> emb = torch.nn.Embedding(4, 2, sparse=True)
        >>> opt = torch.optim.SparseAdam(emb.parameters(), lr=0.1)
        >>> emb(torch.tensor([1])).sum().backward(); opt.step()
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        sparse_at, complex_at = [], []
        for gi, group in enumerate(self.param_groups):
            if not isinstance(group, dict):
                raise AssertionError(f"param_groups must be a list of dicts, but got {type(group)}")
            for pi, p in enumerate(group["params"]):
                if p.is_sparse:
                    sparse_at.append([gi, pi])
                if p.is_complex():
                    complex_at.append([gi, pi])
        if sparse_at:
            raise ValueError(f"Sparse params at indices {sparse_at}: SparseAdam requires dense parameter tensors")
        if complex_at:
            raise ValueError(f"Complex params at indices {complex_at}: SparseAdam does not support complex parameters")

    @no_grad()
    def step(self, closure=None):
        """Perform a single optimization step; ``closure`` re-evaluates the loss (under grad mode)."""
        loss = _run_closure(closure)
        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, steps = [], [], [], [], []
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                params.append(p)
                if not p.grad.is_sparse:
                    raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = 0
                    state["exp_avg"] = _fn.zeros_like(p, memory_format=_PRESERVE)
                    state["exp_avg_sq"] = _fn.zeros_like(p, memory_format=_PRESERVE)
                exp_avgs.append(state["exp_avg"])
                exp_avg_sqs.append(state["exp_avg_sq"])
                state["step"] += 1
                steps.append(state["step"])
            sparse_adam(params, grads, exp_avgs, exp_avg_sqs, steps, eps=group["eps"], beta1=beta1, beta2=beta2,
                        lr=_to_scalar(group["lr"]), maximize=group.get("maximize", False))
        return loss


def sparse_adam(params, grads, exp_avgs, exp_avg_sqs, state_steps, *, eps, beta1, beta2, lr, maximize) -> None:
    """Functional SparseAdam (``torch.optim._functional.sparse_adam``); params and moments change in place."""
    for param, grad, exp_avg, exp_avg_sq, step in zip(params, grads, exp_avgs, exp_avg_sqs, state_steps, strict=True):
        grad = (-grad if maximize else grad).coalesce()  # non-linear update: indices must be unique
        indices, values = grad._indices(), grad._values()
        if values.numel() == 0:
            continue

        def on_rows(vals, indices=indices, size=grad.size()):
            return _sparse.sparse_coo_tensor(indices, vals, size)

        old_m = exp_avg.sparse_mask(grad)._values()
        m_delta = values.sub(old_m).mul_(1 - beta1)
        exp_avg.add_(on_rows(m_delta))
        old_v = exp_avg_sq.sparse_mask(grad)._values()
        v_delta = values.pow(2).sub_(old_v).mul_(1 - beta2)
        exp_avg_sq.add_(on_rows(v_delta))
        numer = m_delta.add_(old_m)
        denom = v_delta.add_(old_v).sqrt_().add_(eps)
        step_size = lr * math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step)
        param.add_(on_rows(-step_size * numer.div_(denom)))
