"""Shared helpers of the AOT autograd tests: a dynamo-style capture of a module (parameters and buffers lifted
to graph inputs, then the user inputs), and comparisons against eager glasstorch and real PyTorch."""

from __future__ import annotations

import contextlib

import numpy as np
import torch

import glasstorch as gt
from glasstorch._functorch.aot_autograd import aot_module_simplified, nop
from glasstorch._functorch.partitioners import default_partition, min_cut_rematerialization_partition
from glasstorch.fx.experimental.proxy_tensor import make_fx


def lifted(module) -> tuple:
    """(names, tensors) of the module's parameters then buffers, as dynamo lifts them."""
    named = list(module.named_parameters()) + list(module.named_buffers())
    return [n for n, _ in named], [t for _, t in named]


@contextlib.contextmanager
def swapped(module, tensors, values):
    """Temporarily replace every parameter/buffer entry holding one of ``tensors`` by the matching value (a
    functional call over the module; tied weights are replaced everywhere they appear)."""
    by_id = {id(t): v for t, v in zip(tensors, values, strict=True)}
    saved = []
    for sub in module.modules():
        for table in (sub._parameters, sub._buffers):
            for leaf, old in list(table.items()):
                if old is not None and id(old) in by_id:
                    saved.append((table, leaf, old))
                    table[leaf] = by_id[id(old)]
    try:
        yield
    finally:
        for table, leaf, old in saved:
            table[leaf] = old


def capture(module, *inputs, fn=None):
    """An aten-level GraphModule over (*params, *buffers, *inputs), like dynamo hands a backend."""
    names, tensors = lifted(module)
    call = fn or module

    def flat_fn(*flat):
        with swapped(module, tensors, flat[:len(tensors)]):
            return call(*flat[len(names):])

    gm = make_fx(flat_fn, tracing_mode="fake")(*tensors, *inputs)
    return gm, tensors


def compile_module(module, *inputs, partition_fn=min_cut_rematerialization_partition, fn=None, compilers=None):
    """``compiled(*inputs)`` running ``module`` through aot_module_simplified with the nop compilers."""
    gm, tensors = capture(module, *inputs, fn=fn)
    fw = bw = nop
    if compilers is not None:
        fw, bw = compilers
    compiled = aot_module_simplified(gm, [*tensors, *inputs], fw_compiler=fw, bw_compiler=bw,
                                     partition_fn=partition_fn)
    return lambda *xs: compiled(*tensors, *xs)


def to_np(t):
    if isinstance(t, torch.Tensor):
        return t.detach().numpy()
    return np.asarray(t.detach().numpy())


def assert_close(a, b, rtol=1e-5, atol=1e-6, what=""):
    np.testing.assert_allclose(to_np(a), to_np(b), rtol=rtol, atol=atol, err_msg=what)


def copy_weights(gt_module, torch_module):
    """Load the torch module's state into the glasstorch module."""
    gt_module.load_state_dict({k: gt.from_numpy(v.detach().numpy().copy()) for k, v in
                               torch_module.state_dict().items()})


def grads(module) -> dict:
    return {n: p.grad for n, p in module.named_parameters()}


def zero_grads(module) -> None:
    for p in module.parameters():
        p.grad = None


__all__ = ["lifted", "swapped", "capture", "compile_module", "assert_close", "copy_weights", "grads", "zero_grads",
           "default_partition", "min_cut_rematerialization_partition", "to_np"]
