"""Per-call overhead of a small op, itemised by layer, side by side with PyTorch in one process.

``add`` of two 1-element float32 tensors, without and with ``requires_grad``: PyTorch's whole call
against glasstorch's whole call, then glasstorch's layers measured one at a time.  Each row times the
layer plus everything below it; the "layer" column is the row minus the row it wraps, so the layers
add up to the whole call:

    binding (a + b: the generated operator function; a.add(b), glasstorch.add(a, b): the generated method and
    function; argument checks and the wrap of the result)  ->  dispatcher (key set, TLS, table)
      ->  Autograd kernel (recording or not: node, edges, history)  ->  redispatch below Autograd
      ->  structured kernel (TensorIterator + numpy)  ->  TensorIterator (checks, dtype, operand views)
      ->  output allocation (storage, TensorImpl and its numpy view: ``empty_contiguous_numpy``)

Timing: CPU time of this process, each row's best of 40 short rounds, the rows taking turns round by round
(a burst of load from elsewhere on a shared machine then spoils one round of every row, not a whole row).

Usage: python benchmarks/dispatch_overhead.py [--json PATH] [--number N]   (N: calls per row, all rounds)
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch

import glasstorch as gt
from glasstorch._core.dispatch_key import tls
from glasstorch._ops import tensor_iterator as ti
from glasstorch._ops.aten import aten
from glasstorch._ops.kernels.cpu import pointwise
from glasstorch._tensor.impl import empty_contiguous_numpy

wrap = importlib.import_module("glasstorch.tensor").wrap


_ROUNDS = 40


def _best_us(fns, number) -> list:
    """Per callable, its best round in microseconds per call, in CPU time of this process (time slices lent to
    other processes do not count).  ``number`` calls in all, as ``_ROUNDS`` short rounds taken in turn across
    the callables: a burst of load from elsewhere on a shared machine spoils one round of each, not one row."""
    calls = max(number // _ROUNDS, 50)
    best = [float("inf")] * len(fns)
    for fn in fns:
        fn()
    clock = time.process_time
    for _ in range(_ROUNDS):
        for i, fn in enumerate(fns):
            t0 = clock()
            for _ in range(calls):
                fn()
            best[i] = min(best[i], clock() - t0)
    return [t / calls * 1e6 for t in best]


def _top_kernel(handle, *impls):
    """The kernel a call reaches first and the key set it receives, as ``OperatorHandle.call`` computes them."""
    ks = 0
    for t in impls:
        ks |= t.key_set
    ks = ((ks | tls.included) & ~tls.excluded | 1) & handle.mask
    key = ks.bit_length() - 1
    return handle.table[key], (1 << key) - 1 & ks


def _layers(grad: bool, number: int) -> list:
    """(label, microseconds, label of the row it wraps or None) for one setting of requires_grad."""
    ta, tb = torch.ones(1, requires_grad=grad), torch.ones(1, requires_grad=grad)
    a, b = gt.ones(1, requires_grad=grad), gt.ones(1, requires_grad=grad)
    ia, ib = a._impl, b._impl
    na, nb = ia.as_numpy(), ib.as_numpy()
    out = np.empty(1, np.float32)
    handle = aten.add_Tensor
    kernel, ks_below = _top_kernel(handle, ia, ib)
    assert kernel.label.startswith("autograd::"), kernel.label
    tag = " (requires_grad)" if grad else ""
    rows = [
        (f"torch.add(a, b){tag}", lambda: torch.add(ta, tb), None),
        (f"torch: a + b{tag}", lambda: ta + tb, None),
        (f"glasstorch.add(a, b){tag}", lambda: gt.add(a, b), "binding: dispatcher call"),
        (f"glasstorch: a + b{tag}", lambda: a + b, "binding: dispatcher call"),
        ("method: a.add(b)", lambda: a.add(b), "binding: dispatcher call"),
        ("binding: dispatcher call", lambda: handle.call(ia, ib, 1), "dispatcher: Autograd kernel"),
        ("dispatcher: Autograd kernel", lambda: kernel.fn(ks_below, ia, ib, 1),
         "autograd: redispatch below"),
        ("autograd: redispatch below", lambda: handle.redispatch(ks_below, ia, ib, 1),
         "kernel: add_out"),
        ("kernel: add_out", lambda: pointwise.add_out(ia, ib, 1, None), "TensorIterator.build"),
        ("TensorIterator.build", lambda: ti.build((None,), (ia, ib)), "output allocation"),
        ("output allocation", lambda: empty_contiguous_numpy(ia.sizes, ia.dtype, ia.device), None),
        ("numpy np.add(out=...)", lambda: np.add(na, nb, out=out), None),
        ("wrap impl -> Tensor (+ new impl)", lambda: wrap(ia.view_impl(ia.sizes, ia.strides, 0)), None),
    ]
    times = _best_us([fn for _, fn, _ in rows], number)
    return [(label, us, below) for (label, _, below), us in zip(rows, times, strict=True)]


def measure(number: int = 20000) -> dict:
    torch.set_num_threads(1)
    result = {}
    for grad in (False, True):
        rows = _layers(grad, number)
        times = {label: us for label, us, _ in rows}
        base = rows[0][1]
        section = []
        for label, us, below in rows:
            layer = us - times[below] if below is not None else None
            section.append({"row": label, "us": us, "x_torch_add": us / base, "layer_us": layer})
        result["requires_grad" if grad else "no_grad_inputs"] = section
    return result


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--number", type=int, default=20000)
    args = ap.parse_args(argv)
    result = measure(args.number)
    for name, section in result.items():
        print(f"\n== {name} ==   {'total':>9}  {'x torch.add':>11}  {'this layer':>10}")
        for r in section:
            layer = "" if r["layer_us"] is None else f"{r['layer_us']:8.2f} us"
            print(f"{r['row']:<44} {r['us']:8.2f} us  {r['x_torch_add']:9.2f}x  {layer}")
    if args.json:
        args.json.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
