"""Which calls an OpInfo makes (its variants), which OpInfos are skipped and why, and each OpInfo's family.

A variant is a torch callable of the OpInfo (``op.op``, ``method_variant``, ``inplace_variant``, the operator
forms, each alias's three forms) and how it is called (plainly, in place on a copy of the input, or with
``out=``).  glasstorch's counterpart is found by ``convert.to_gt``: by the callable's public dotted path, or, for
the OpInfos' own lambdas, by rebuilding the lambda over glasstorch.  Nothing here names a single operator except
the declared skips below.
"""

from __future__ import annotations

import functools
import warnings
from dataclasses import dataclass

import torch

import glasstorch as gt

__all__ = ["Variant", "SKIPS", "UNINITIALISED", "skip_reason", "variants", "op_key", "op_db", "family", "FAMILIES",
           "gt_dtypes"]

# Named skips, the only ones: what runs only on CUDA, and sparse layouts (a later stage).
SKIPS = {
    "jiterator_": "CUDA-only: the jiterator compiles CUDA kernels",
    "torch._scaled_mm": "CUDA-only: scaled float8 matmul",
    "torch._scaled_mm_v2": "CUDA-only: scaled float8 matmul",
    "torch.ops.aten._flash_attention_forward": "CUDA-only: flash attention forward",
    "torch.ops.aten._efficient_attention_forward": "CUDA-only: memory-efficient attention forward",
    "sparse.": "sparse layouts",
    "to_sparse": "sparse layouts",
}

# OpInfos whose values are uninitialised memory: compared by dtype, shape and view strides, not by value.
UNINITIALISED = frozenset({"empty", "empty_like", "empty_strided", "empty_permuted", "new_empty", "new_empty_strided"})


@functools.cache
def op_db() -> tuple:
    """torch's OpInfo database (importing it builds 702 entries; a few seconds).

    Each sample iterator crawls the Python stack (``inspect.stack()``, source lines of every frame) for the
    unittest.TestCase that runs it, to name its seed and its per-sample xfails.  Outside torch's unittest harness
    there is none to find, and under pytest the crawl is most of the run's time, so it is replaced by its answer
    here: no test function (the iterators then seed with common_utils.SEED, as they do outside a TestCase)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from torch.testing._internal import common_utils  # the oracle's test data
        from torch.testing._internal.common_methods_invocations import op_db as db
        from torch.testing._internal.opinfo import core
    common_utils.extract_test_fn = core.extract_test_fn = _no_test_fn
    return tuple(db)


def _no_test_fn():
    return None


def op_key(op) -> str:
    """The OpInfo's full name: ``name`` or ``name.variant_test_name`` (unique in op_db)."""
    return op.name + (f".{op.variant_test_name}" if op.variant_test_name else "")


def skip_reason(op) -> str | None:
    for prefix, reason in SKIPS.items():
        if op.name == prefix or (prefix.endswith(("_", ".")) and op.name.startswith(prefix)):
            return reason
    if not op.supported_dtypes("cpu"):
        return "CUDA-only: no CPU dtypes listed"
    return None


@functools.cache
def gt_dtypes() -> frozenset[str]:
    """Names of the torch dtypes glasstorch defines."""
    return frozenset(n for n in dir(torch) if isinstance(getattr(torch, n), torch.dtype)
                     and isinstance(getattr(gt, n, None), gt.dtype))


@dataclass(frozen=True)
class Variant:
    name: str            # function, method, inplace, out, operator, inplace_operator, alias:<name>[:method|:inplace]
    fn: object           # the torch callable
    mode: str            # "call", "inplace" (on a copy of the input) or "out"

    @property
    def kwargs_ok(self) -> bool:
        return not self.name.endswith("operator")  # operator.add(a, b) takes no keyword arguments


def variants(op) -> list[Variant]:
    """The variants an OpInfo declares, in a fixed order."""
    found = [Variant("function", op.op, "call")]
    if op.method_variant is not None:
        found.append(Variant("method", op.method_variant, "call"))
    if op.inplace_variant is not None:
        found.append(Variant("inplace", op.inplace_variant, "inplace"))
    if op.supports_out:
        found.append(Variant("out", op.op, "out"))
    if op.operator_variant is not None:
        found.append(Variant("operator", op.operator_variant, "call"))
    if op.inplace_operator_variant is not None:
        found.append(Variant("inplace_operator", op.inplace_operator_variant, "inplace"))
    for alias in op.aliases:
        found.append(Variant(f"alias:{alias.name}", alias.op, "call"))
        if alias.method_variant is not None:
            found.append(Variant(f"alias:{alias.name}:method", alias.method_variant, "call"))
        if alias.inplace_variant is not None:
            found.append(Variant(f"alias:{alias.name}:inplace", alias.inplace_variant, "inplace"))
    return found


FAMILIES = ("pointwise", "reductions", "linalg", "fft", "special", "shape", "nn.functional", "random", "factories",
            "masked", "signal", "other")


def _aten_tags(op) -> set[str]:
    name = (op.aten_name or op.name).split(".")[-1]
    packet = getattr(torch.ops.aten, name, None) if hasattr(torch.ops.aten, name) else None
    if packet is None:
        return set()
    return {str(t).removeprefix("Tag.") for o in packet.overloads() for t in getattr(packet, o).tags}


def family(op) -> str:
    """A coarse family for the report: the OpInfo's namespace, its OpInfo class, then the aten tags."""
    for prefix, fam in (("linalg.", "linalg"), ("fft.", "fft"), ("special.", "special"), ("masked.", "masked"),
                        ("signal.", "signal"), ("nn.functional.", "nn.functional")):
        if op.name.startswith(prefix):
            return fam
    kind = type(op).__name__
    by_class = {"UnaryUfuncInfo": "pointwise", "BinaryUfuncInfo": "pointwise", "ReductionOpInfo": "reductions",
                "SpectralFuncInfo": "fft", "ShapeFuncInfo": "shape"}
    if kind in by_class:
        return by_class[kind]
    if op.is_factory_function:
        return "factories"
    tags = _aten_tags(op)
    for tag, fam in (("nondeterministic_seeded", "random"), ("pointwise", "pointwise"), ("reduction", "reductions"),
                     ("view_copy", "shape"), ("inplace_view", "shape")):
        if tag in tags:
            return fam
    return "other"
