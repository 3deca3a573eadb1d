"""The legacy vmap — PyTorch's ``torch/_vmap_internals.py`` (``_vmap``, ``vmap``), which
``autograd.grad(..., is_grads_batched=True)`` and gradcheck's batched checks use.

``_vmap(func, in_dims, out_dims)(*args)`` maps ``func`` over dimension ``in_dims`` of its tensor arguments
(``None``: an argument shared by every sample) and stacks each output along ``out_dims``.  PyTorch runs ``func``
once on BatchedTensors; glasstorch has none and runs it once per sample on the slices, stacking the results:
the same values and the same argument errors, but ``func`` runs ``batch size`` times and its outputs are new
tensors (a sample's output is never the very tensor passed in).  A random draw inside ``func`` raises PyTorch's
"We do not yet support calling random operations inside of vmap" (``_core/vmap_state.py``).

Invariant: every sample sees its slices as views of the inputs (``select``), so in-place writes reach them.
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable

from ._core import vmap_state as _vmap_state
from ._generated import functions as _functions
from .tensor import Tensor

__all__ = ["vmap"]


def _name(func) -> str:
    return func.__name__ if hasattr(func, "__name__") else repr(func)


def _check_out_dims(out_dims, func) -> None:
    if isinstance(out_dims, int):
        return
    if not isinstance(out_dims, tuple) or not all(isinstance(d, int) for d in out_dims):
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must be an int or a tuple of int "
                         "representing where in the outputs the vmapped dimension should appear.")


def _structure(x):
    """A nested list of ``*`` leaves (PyTorch prints a pytree TreeSpec there)."""
    return [_structure(e) for e in x] if isinstance(x, tuple) else "*"


def _leaves(args, in_dims, func, top):
    """(argument, in_dim) for every leaf of ``args``; ``in_dims`` is broadcast over a tuple argument."""
    if isinstance(in_dims, tuple):
        if not isinstance(args, tuple) or len(args) != len(in_dims):
            raise ValueError(f"vmap({_name(func)}, in_dims={top}, ...)(<inputs>): in_dims is not compatible with the "
                             f"structure of `inputs`. in_dims has structure {_structure(in_dims)} but inputs has "
                             f"structure {_structure(args)}.")
        return [pair for a, d in zip(args, in_dims, strict=True) for pair in _leaves(a, d, func, top)]
    if isinstance(args, tuple):
        return [pair for a in args for pair in _leaves(a, in_dims, func, top)]
    return [(args, in_dims)]


def _check_in_dims(args, in_dims, func) -> int:
    """PyTorch's ``_create_batched_inputs`` checks; returns the batch size."""
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to be int or a "
                         f"(potentially nested) tuple matching the structure of inputs, got: {type(in_dims)}.")
    if len(args) == 0:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                         "trying to vmap over a function with no inputs. The latter is unsupported.")
    sizes = []
    for arg, dim in _leaves(args, in_dims, func, in_dims):
        if dim is None:
            continue
        if not isinstance(dim, int):
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for an input "
                             "but in_dim must be either an integer dimension or None.")
        if not isinstance(arg, Tensor):
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for an input "
                             f"but the input is of type {type(arg)}. We cannot vmap over non-Tensor arguments, please "
                             "use None as the respective in_dim")
        if not 0 <= dim < arg.dim():
            raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): Got in_dim={dim} for some input, "
                             f"but that input is a Tensor of dimensionality {arg.dim()} so expected in_dim to satisfy "
                             f"0 <= in_dim < {arg.dim()}.")
        sizes.append(arg.size(dim))
    if not sizes:
        raise ValueError(f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>): at least one input must be a "
                         "Tensor with a mapped dimension (in_dims not None).")
    if any(s != sizes[0] for s in sizes):
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return sizes[0]


def _sample(args, in_dims, b):
    """The arguments of sample ``b``: each mapped tensor's slice ``b`` along its in_dim."""
    if isinstance(args, tuple):
        dims = in_dims if isinstance(in_dims, tuple) else (in_dims,) * len(args)
        return tuple(_sample(a, d, b) for a, d in zip(args, dims, strict=True))
    return args if in_dims is None else args.select(in_dims, b)


def _validate_outputs(outputs, func) -> None:
    if isinstance(outputs, Tensor):
        return
    if not isinstance(outputs, tuple):
        raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
                         f"{type(outputs)} as the return.")
    for idx, out in enumerate(outputs):
        if not isinstance(out, Tensor):
            raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
                             f"{type(out)} for return {idx}.")


def _stack(per_sample, out_dims, func, allow_none):
    """Each output stacked over the samples along its out_dim (None stays None when allowed)."""
    single = not isinstance(per_sample[0], tuple)
    columns = [(s,) if single else s for s in per_sample]
    n = len(columns[0])
    dims = (out_dims,) * n if isinstance(out_dims, int) else out_dims
    if len(dims) != n:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims}): `out_dims` must have one dim per output "
                         f"(got {n} outputs) of {_name(func)}.")
    stacked = []
    for k in range(n):
        parts = [c[k] for c in columns]
        if allow_none and all(p is None for p in parts):
            stacked.append(None)
            continue
        stacked.append(_functions.stack(parts, dims[k]))
    return stacked[0] if single else tuple(stacked)


def _vmap(func: Callable, in_dims=0, out_dims=0, allow_none_pass_through: bool = False) -> Callable:
    """``func`` mapped over ``in_dims`` of its inputs, outputs stacked along ``out_dims`` (PyTorch's legacy
    vmap, without its warning); ``allow_none_pass_through`` lets an output be None (``autograd.grad``'s unused
    inputs)."""
    @functools.wraps(func)
    def wrapped(*args):
        _check_out_dims(out_dims, func)
        batch = _check_in_dims(args, in_dims, func)
        per_sample = []
        with _vmap_state.inside_vmap():  # random draws are refused (PyTorch's random batching rules raise)
            for b in range(batch):
                out = func(*_sample(args, in_dims, b))
                if not allow_none_pass_through:
                    _validate_outputs(out, func)
                per_sample.append(out)
        return _stack(per_sample, out_dims, func, allow_none_pass_through)
    return wrapped


def vmap(func: Callable, in_dims=0, out_dims=0) -> Callable:
    """Please use torch.vmap instead of this API."""
    warnings.warn("Please use `torch.vmap` instead of `torch._vmap_internals.vmap`.", FutureWarning, stacklevel=2)
    return _vmap(func, in_dims, out_dims)
