"""Per-call overhead of a small op, itemised by layer, side by side with PyTorch in one process.

``add`` of two 1-element float32 tensors: PyTorch's whole call against glasstorch's whole call, then
glasstorch's layers measured one at a time (each row times the layer plus what is below it, so the
difference between rows is the cost of one layer):

    binding (argument parsing)  ->  dispatcher (key set, TLS, table)  ->  kernel (TensorIterator)  ->  numpy

Usage: python benchmarks/dispatch_overhead.py [--json PATH]
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import timeit
from pathlib import Path

import numpy as np
import torch

import glasstorch as gt
from glasstorch._generated import functions as gfun
from glasstorch._ops import tensor_iterator as ti
from glasstorch._ops.aten import aten
from glasstorch._ops.kernels.cpu import pointwise

wrap = importlib.import_module("glasstorch.tensor").wrap

N = 20000


def _us(fn) -> float:
    fn()
    return min(timeit.repeat(fn, number=N, repeat=5)) / N * 1e6


def measure() -> dict:
    torch.set_num_threads(1)
    ta, tb = torch.ones(1), torch.ones(1)
    a, b = gt.ones(1), gt.ones(1)
    ia, ib = a._impl, b._impl
    na, nb = ia.as_numpy(), ib.as_numpy()
    out = np.empty(1, np.float32)
    handle = aten.add_Tensor
    rows = {
        "torch.add(a, b)": _us(lambda: torch.add(ta, tb)),
        "torch: a + b": _us(lambda: ta + tb),
        "glasstorch.add(a, b)  [binding + dispatcher + kernel + wrap]": _us(lambda: gt.add(a, b)),
        "glasstorch: a + b     [operator -> method binding]": _us(lambda: a + b),
        "  argument parsing only": _us(lambda: gfun._sig_add.parse((a, b), {})),
        "  dispatcher call + kernel (impls in, impl out)": _us(lambda: handle.call(ia, ib, 1)),
        "  kernel: add_out (TensorIterator + numpy)": _us(lambda: pointwise.add_out(ia, ib, 1, None)),
        "  TensorIterator build only": _us(lambda: ti.build((None,), (ia, ib))),
        "  numpy np.add(out=...) only": _us(lambda: np.add(na, nb, out=out)),
        "  wrap impl -> Tensor (+ making the impl)": _us(lambda: wrap(ia.view_impl(ia.sizes, ia.strides, 0))),
    }
    return rows


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    rows = measure()
    base = rows["torch.add(a, b)"]
    for name, us in rows.items():
        print(f"{name:<62} {us:8.2f} us   {us / base:6.2f}x torch.add")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
