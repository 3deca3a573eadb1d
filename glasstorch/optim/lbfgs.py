"""L-BFGS — PyTorch's ``torch/optim/lbfgs.py``.

One ``step(closure)`` runs up to ``max_iter`` quasi-Newton iterations on the flattened parameters: the search
direction comes from the two-loop recursion over the last ``history_size`` curvature pairs ``(y, s)``, the step
length is ``lr`` (the first iteration ever: ``min(1, 1/|g|_1) * lr``) or, with ``line_search_fn="strong_wolfe"``,
the result of a bracketing + cubic-zoom line search meeting the strong Wolfe conditions.
Invariant: only one param group; all state lives in ``state[first param]`` (``func_evals``, ``n_iter`` and,
after an iteration, ``d``, ``t``, ``old_dirs``, ``old_stps``, ``ro``, ``H_diag``, ``prev_flat_grad``,
``prev_loss``, ``al``), with scalars kept as 0-dim tensors wherever PyTorch keeps them so.
"""

from __future__ import annotations

from .._core.grad_state import state as _grad_state
from .._generated import functions as _gen
from ..tensor import contiguous_format as _CONTIG
from .adadelta import _check_lr
from .optimizer import Optimizer, _run_closure, _to_scalar

__all__ = ["LBFGS"]


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to ``bounds`` (default: the
    interval); the interval's midpoint when the cubic has no real minimiser."""
    lo, hi = bounds if bounds is not None else ((x1, x2) if x1 <= x2 else (x2, x1))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if not d2_square >= 0:
        return (lo + hi) / 2.0
    d2 = d2_square.sqrt()
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, lo), hi)


def _zoom_point(bracket, bracket_f, bracket_gtd, insuf_progress):
    """The next trial step inside the bracket, pushed away from its ends when progress is too slow."""
    t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
    top, bottom = max(bracket), min(bracket)
    eps = 0.1 * (top - bottom)
    if min(top - t, t - bottom) < eps:
        if insuf_progress or t >= top or t <= bottom:
            t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
            return t, False
        return t, True
    return t, False


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """Line search along ``d`` from ``x``: returns ``(f_new, g_new, t, evaluations)``."""
    d_norm = d.abs().max()
    g = g.clone(memory_format=_CONTIG)
    f_new, g_new = obj_func(x, t, d)
    evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    bracket_gtd = None
    # phase 1: grow the step until an interval surely holds an acceptable point
    while ls_iter < max_ls:
        armijo_failed = f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev)
        if not armijo_failed and abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g, done = [t], [f_new], [g_new], True
            break
        if armijo_failed or gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g = [g_prev, g_new.clone(memory_format=_CONTIG)]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        t_next = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                    bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new.clone(memory_format=_CONTIG), gtd_new
        t = t_next
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]
    # phase 2: shrink the bracket by cubic interpolation until the strong Wolfe conditions hold
    insuf_progress = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t, insuf_progress = _zoom_point(bracket, bracket_f, bracket_gtd, insuf_progress)
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low]:
            bracket[high], bracket_f[high] = t, f_new
            bracket_g[high], bracket_gtd[high] = g_new.clone(memory_format=_CONTIG), gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
            continue
        if abs(gtd_new) <= -c2 * gtd:
            done = True
        elif gtd_new * (bracket[high] - bracket[low]) >= 0:
            bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
            bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
        bracket[low], bracket_f[low] = t, f_new
        bracket_g[low], bracket_gtd[low] = g_new.clone(memory_format=_CONTIG), gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evals


class LBFGS(Optimizer):
    """Limited-memory BFGS over all parameters flattened into one vector; ``step`` needs a closure.

    Example:
        >>> import glasstorch as torch
        >>> w = torch.tensor([3.0], requires_grad=True)
        >>> opt = torch.optim.LBFGS([w], line_search_fn="strong_wolfe")
        >>> def closure():
        ...     opt.zero_grad(); loss = ((w - 1) ** 2).sum(); loss.backward(); return loss
        >>> _ = opt.step(closure); w
        tensor([1.], requires_grad=True)
    """

    def __init__(self, params, lr=1, max_iter: int = 20, max_eval: int | None = None, tolerance_grad: float = 1e-7,
                 tolerance_change: float = 1e-9, history_size: int = 100, line_search_fn: str | None = None) -> None:
        _check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = {"lr": lr, "max_iter": max_iter, "max_eval": max_eval, "tolerance_grad": tolerance_grad,
                    "tolerance_change": tolerance_change, "history_size": history_size,
                    "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]
        self._numel_cache = None

    def _numel(self) -> int:
        if self._numel_cache is None:
            self._numel_cache = sum(2 * p.numel() if p.is_complex() else p.numel() for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        views = []
        for p in self._params:
            if p.grad is None:
                view = p.new(p.numel()).zero_()
            elif getattr(p.grad, "is_sparse", False):
                view = p.grad.to_dense().view(-1)
            else:
                view = p.grad.view(-1)
            views.append(_gen.view_as_real(view).view(-1) if view.is_complex() else view)
        return _gen.cat(views, 0)

    def _add_grad(self, step_size, update) -> None:
        offset = 0
        for p in self._params:
            if p.is_complex():
                p = _gen.view_as_real(p)
            numel = p.numel()
            p.add_(update[offset:offset + numel].view_as(p), alpha=step_size)
            offset += numel
        if offset != self._numel():
            raise AssertionError(f"Expected offset {offset} to equal {self._numel()}")

    def _clone_param(self):
        return [p.clone(memory_format=_CONTIG) for p in self._params]

    def _set_param(self, params_data) -> None:
        for p, pdata in zip(self._params, params_data, strict=True):
            p.copy_(pdata)

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(_run_closure(closure))
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def _direction(self, state, flat_grad, d, t, prev_flat_grad, history):
        """The two-loop recursion: ``-H g`` from the stored curvature pairs (after adding the newest)."""
        old_dirs, old_stps, ro, h_diag = history
        y = flat_grad.sub(prev_flat_grad)
        s = d.mul(t)
        ys = y.dot(s)
        if ys > 1e-10:
            if len(old_dirs) == self.param_groups[0]["history_size"]:
                old_dirs.pop(0)
                old_stps.pop(0)
                ro.pop(0)
            old_dirs.append(y)
            old_stps.append(s)
            ro.append(1.0 / ys)
            h_diag = ys / y.dot(y)
        if "al" not in state:
            state["al"] = [None] * self.param_groups[0]["history_size"]
        al = state["al"]
        q = flat_grad.neg()
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            q.add_(old_dirs[i], alpha=-al[i])
        r = _gen.mul(q, h_diag)
        for i in range(len(old_dirs)):
            be_i = old_dirs[i].dot(r) * ro[i]
            r.add_(old_stps[i], alpha=al[i] - be_i)
        return r, h_diag

    def step(self, closure):
        """Run up to ``max_iter`` iterations; ``closure`` (required) re-evaluates the loss and its gradients.

        Returns:
            the loss of the first closure call.
        """
        prev_mode = _grad_state.enabled
        _grad_state.enabled = False
        try:
            return self._step(closure)
        finally:
            _grad_state.enabled = prev_mode

    def _step(self, closure):
        if len(self.param_groups) != 1:
            raise AssertionError(f"Expected exactly one param_group, but got {len(self.param_groups)}")
        group = self.param_groups[0]
        lr = _to_scalar(group["lr"])
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn = group["line_search_fn"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = _run_closure(closure)
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if flat_grad.abs().max() <= tolerance_grad:
            return orig_loss
        d, t = state.get("d"), state.get("t")
        history = (state.get("old_dirs"), state.get("old_stps"), state.get("ro"), state.get("H_diag"))
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = flat_grad.neg()
                history = ([], [], [], 1)
            else:
                d, h_diag = self._direction(state, flat_grad, d, t, prev_flat_grad, history)
                history = (*history[:3], h_diag)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone(memory_format=_CONTIG)
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss
            t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr if state["n_iter"] == 1 else lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break
            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(obj_func, x_init, t, d, loss, flat_grad, gtd,
                                                                  max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = float(_run_closure(closure))
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if (n_iter == max_iter or current_evals >= max_eval or opt_cond
                    or d.mul(t).abs().max() <= tolerance_change or abs(loss - prev_loss) < tolerance_change):
                break
        state["d"], state["t"] = d, t
        state["old_dirs"], state["old_stps"], state["ro"], state["H_diag"] = history
        state["prev_flat_grad"], state["prev_loss"] = prev_flat_grad, prev_loss
        return orig_loss
