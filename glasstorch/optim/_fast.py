"""The eager fast path of the single-tensor (and CPU foreach) Adam/AdamW step.

PyTorch's ``_single_tensor_adam`` runs about ten dispatched in-place ops per parameter (``step += 1``, ``mul_``,
``lerp_``, ``mul_``, ``addcmul_``, ``sqrt``, ``div``, ``add_``, ``addcdiv_``); through a Python dispatcher that is
most of an optimizer step's time. Here every parameter whose tensors are plain contiguous CPU float32/float64
tensors is updated by one pass of ``_ops/kernels/cpu/optim.adam_update`` (all such parameters in one call),
with the single-tensor step's rounding (Note [Adam rounding] there), and each tensor's version counter is
bumped as many times as PyTorch's in-place ops bump it (param 1, or 2 with decoupled decay; exp_avg 1;
exp_avg_sq 2; max_exp_avg_sq 1; step 1). Anything else — subclasses, other devices or dtypes, strided or
mismatched tensors, an active Python dispatch mode (tracing, fake tensors), a parameter listed twice — is left
to the per-op loop, which gives PyTorch's errors and dispatch behaviour.

Invariant: the fast path runs only where the per-op loop would have run the plain CPU kernels under no_grad,
so skipping the dispatcher changes nothing a program can observe except the time.
"""

from __future__ import annotations

from .._core import dispatch_key as _dk
from .._core import dtype as _dt
from .._ops.kernels.cpu import optim as _kernels
from ..nn.parameter import Parameter
from ..tensor import Tensor

__all__ = ["fast_adam"]

_PLAIN = (Tensor, Parameter)
_CPU_KS = _dk.backend_keyset_for_device("cpu")
# key bits a plain CPU in-place op may pass through on its way to the CPU kernel
_QUIET = _CPU_KS | _dk.bit("BackendSelect") | _dk.bit("ADInplaceOrView") | _dk.AUTOCAST_SET | _dk.AUTOGRAD_SET
_FLOATS = (_dt.float32, _dt.float64)


def _plain_scalar(x) -> bool:
    return type(x) is float or type(x) is int


def _plain(t, like) -> bool:
    """A plain contiguous CPU tensor with data, of ``like``'s dtype and sizes."""
    if type(t) not in _PLAIN:
        return False
    i = t._impl
    return (i.key_set == _CPU_KS and i.dtype is like.dtype and i.sizes == like.sizes
            and i.storage._data is not None and i.is_contiguous())


def _step_ok(s) -> bool:
    if type(s) not in _PLAIN:
        return False
    i = s._impl
    return i.key_set == _CPU_KS and not i.sizes and i.dtype in _FLOATS and i.storage._data is not None


def _eligible(i, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, amsgrad) -> bool:
    p = params[i]
    if type(p) not in _PLAIN:
        return False
    pi = p._impl
    if pi.dtype not in _FLOATS or pi.key_set != _CPU_KS or pi.storage._data is None or not pi.is_contiguous():
        return False
    return (_plain(grads[i], pi) and _plain(exp_avgs[i], pi) and _plain(exp_avg_sqs[i], pi)
            and (not amsgrad or _plain(max_exp_avg_sqs[i], pi)) and _step_ok(state_steps[i]))


def fast_adam(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, amsgrad, beta1, beta2, lr,
              weight_decay, eps, maximize, decoupled_weight_decay) -> list:
    """Update every eligible parameter; return the indices left for the per-op loop (all when none qualify)."""
    everything = list(range(len(params)))
    if not (_plain_scalar(lr) and _plain_scalar(beta1) and _plain_scalar(beta2) and _plain_scalar(weight_decay)
            and _plain_scalar(eps)):
        return everything
    tls = _dk.tls
    if ((_CPU_KS | tls.included) & ~tls.excluded) & ~_QUIET or len({id(p) for p in params}) != len(params):
        return everything
    take, rest = [], []
    for i in everything:
        (take if _eligible(i, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, amsgrad)
         else rest).append(i)
    if take:
        _update(take, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, amsgrad=amsgrad,
                beta1=beta1, beta2=beta2, lr=lr, weight_decay=weight_decay, eps=eps, maximize=maximize,
                decoupled=decoupled_weight_decay)
    return rest


def _update(take, params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps, *, amsgrad, beta1, beta2,
            lr, weight_decay, eps, maximize, decoupled) -> None:
    steps = []
    for i in take:
        s = state_steps[i]._impl
        a = s.as_numpy()
        a += 1  # ``step_t += 1`` in the step's own dtype
        s.version.version += 1
        steps.append(float(a))
    p_i = [params[i]._impl for i in take]
    m_i = [exp_avgs[i]._impl for i in take]
    v_i = [exp_avg_sqs[i]._impl for i in take]
    x_i = [max_exp_avg_sqs[i]._impl for i in take] if amsgrad else []
    _kernels.adam_update(p_i, [grads[i]._impl for i in take], m_i, v_i, x_i, steps, lr=float(lr),
                         beta1=float(beta1), beta2=float(beta2), weight_decay=float(weight_decay), eps=float(eps),
                         amsgrad=amsgrad, maximize=maximize, decoupled=decoupled, fused=False,
                         checked=True)
    p_bump = 2 if decoupled and weight_decay != 0 else 1
    for t in p_i:
        t.version.version += p_bump
    for t in m_i:
        t.version.version += 1
    for t in v_i:
        t.version.version += 2
    for t in x_i:
        t.version.version += 1
