"""Activation checkpointing (``torch.utils.checkpoint``): ``checkpoint`` runs a function without keeping its
intermediate tensors and recomputes them in backward; ``checkpoint_sequential`` does it segment by segment."""
import contextlib
import warnings

from .._functions import get_rng_state, set_rng_state
from ..autograd import backward as autograd_backward
from ..autograd.engine import ImperativeEngine
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, no_grad
from ..autograd.graph import saved_tensors_hooks
from ..nn.modules.container import Sequential
from ..random import fork_rng
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "noop_context_fn"]

_REENTRANT_GRAD_MSG = ("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing an "
                       "`inputs` parameter to .backward(). To resolve this error, you can either set "
                       "use_reentrant=False, or call .backward() without passing the `inputs` argument.")


class CheckpointError(RuntimeError):
    """Raised when the recomputation does not match the original forward."""


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


def _detached(inputs):
    out = []
    for x in inputs:
        if isinstance(x, Tensor):
            d = x.detach()
            d.requires_grad = x.requires_grad
            x = d
        out.append(x)
    return out


class _ReentrantCheckpoint(Function):
    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = get_rng_state()
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not ImperativeEngine().is_checkpoint_valid():
            raise RuntimeError(_REENTRANT_GRAD_MSG)
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors, strict=True):
            inputs[i] = t
        with fork_rng(devices=[], enabled=ctx.preserve_rng_state):
            if ctx.preserve_rng_state:
                set_rng_state(ctx.fwd_cpu_state)
            detached = _detached(inputs)
            with enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads, strict=True) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        autograd_backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, Tensor) else None for x in detached)


def _metadata(t):
    return {"shape": tuple(t.shape), "dtype": t.dtype, "device": t.device}


def _non_reentrant(function, preserve, context_fn, determinism_check, args, kwargs):
    """Forward under pack hooks that keep only a slot number; the first unpack reruns ``function`` on detached
    inputs under hooks that fill every slot, and each unpack then hands back its slot's tensor."""
    if determinism_check not in ("default", "none"):
        raise ValueError("determinism_check should be one of ['default', 'none'], but got " + str(determinism_check))
    fwd_rng = get_rng_state() if preserve else None
    originals = []   # metadata of each tensor the forward saved, by slot
    recomputed = {}  # slot -> tensor, filled by the recomputation

    def recompute():
        inputs = _detached(args)
        count = [0]

        def pack(t):
            slot = count[0]
            count[0] += 1
            if slot < len(originals):
                if determinism_check == "default" and _metadata(t) != originals[slot]:
                    raise CheckpointError(
                        "torch.utils.checkpoint: Recomputed values for the following tensors have different "
                        f"metadata than during the forward pass.\ntensor at position {slot}:\nsaved metadata: "
                        f"{originals[slot]}\nrecomputed metadata: {_metadata(t)}\n")
                recomputed[slot] = t.detach()
            return None

        _, recompute_ctx = context_fn()
        with fork_rng(devices=[], enabled=preserve):
            if preserve:
                set_rng_state(fwd_rng)
            with enable_grad(), recompute_ctx, saved_tensors_hooks(pack, lambda _: None):
                function(*inputs, **kwargs)
        if count[0] < len(originals) and determinism_check == "default":
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward "
                f"and recomputation.\nNumber of tensors saved during forward: {len(originals)}\n"
                f"Number of tensors saved during recomputation: {count[0]}.\n")

    def pack(t):
        originals.append(_metadata(t))
        return len(originals) - 1

    def unpack(slot):
        if slot not in recomputed:
            recompute()
        return recomputed[slot]

    forward_ctx, _ = context_fn()
    with saved_tensors_hooks(pack, unpack), forward_ctx:
        return function(*args, **kwargs)


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, **kwargs):
    """Run ``function(*args, **kwargs)`` keeping only its inputs; backward recomputes what it needs."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in "
            "PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. use_reentrant=False "
            "is recommended, but if you need to preserve the current default behavior, you can pass "
            "use_reentrant=True. Refer to docs for more details on the differences between the two variants.",
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if use_reentrant:
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return _ReentrantCheckpoint.apply(function, preserve, *args)
    return _non_reentrant(function, preserve, context_fn, determinism_check, args, kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Checkpoint all but the last of ``segments`` equal chunks of a sequential model."""
    if use_reentrant is None:
        warnings.warn(
            "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
            "explicitly. In version 2.9 we will raise an exception if use_reentrant is not passed. "
            "use_reentrant=False is recommended, but if you need to preserve the current default behavior, you "
            "can pass use_reentrant=True. Refer to docs for more details on the differences between the two "
            "variants.", stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run(start, stop):
        def forward(x):
            for f in functions[start:stop]:
                x = f(x)
            return x
        return forward

    size = len(functions) // segments
    end = 0
    for start in range(0, size * (segments - 1), size):
        end = start + size
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end, len(functions))(input)
