"""Knobs of the inductor (``torch/_inductor/config.py``): fusion and inlining limits, parallel thresholds.

Module attributes read at compile time; change them before compiling (``glasstorch._inductor.config.x = ...``),
or for a block with ``patch(...)``.  ``glasstorch.compile(fn, options={...})`` applies a patch of these names to
that callable's compilations only (``glasstorch._dynamo.backends.CompileInductorWrapper``).  Every knob carries a
type annotation: :func:`get_type` reads it, and ``options=`` values are checked against it as PyTorch checks them.

Invariant: no knob changes results beyond floating-point reassociation inside one reduction.
"""

import contextlib
import sys
import typing

from ..utils._config_module import ConfigPatch, changes_of

__all__ = ["patch", "get_config_copy", "get_type"]

# a lazy pointwise value read by more than one node is computed into a buffer when its op count exceeds this
realize_reads_cost: int = 6
# any lazy value grows into a buffer past this many ops (bounds the size of inlined expressions)
max_inline_cost: int = 60
# loops with fewer elements than this run on one thread (OpenMP start-up costs more than it saves)
parallel_threshold: int = 32768
# how many ready nodes the scheduler looks at for one that fuses into the open group
fusion_window: int = 64
# run ready extern calls (BLAS, fallbacks) before starting a new group: longer runs of fusable compute nodes
externs_first: bool = True
# groups emitted into one C function (one ctypes call)
max_groups_per_kernel: int = 64
# write IR, schedule, C and wrapper into glasstorch._logging.debug_dir() when it gives a folder
debug: bool = True
# time every loop group (C) and wrapper step (Python): CompiledFxGraph.profiler.rows() reads them; a few µs a call
profile_kernels: bool = False
# reductions over the outer dimension (column sums) run with the loops interchanged (scheduler/codegen_columns)
column_reductions: bool = True
# at most this many column reductions share one pass over their rows
max_column_members: int = 8

# -- PyTorch settings with no counterpart in this CPU compiler ---------------------------------------------------
# Accepted (and type-checked) so programs written for torch run unchanged, read by nothing: this compiler has
# one GEMM path (numpy's BLAS) and no kernel parameters to tune, and CUDA graphs need CUDA (torch itself skips
# them for CPU graphs).  ``mode="max-autotune"`` and ``"reduce-overhead"`` set exactly these.
max_autotune: bool = False
coordinate_descent_tuning: bool = False


class triton:
    """PyTorch's ``config.triton`` namespace: only ``cudagraphs`` exists here, with no effect (see above)."""

    cudagraphs: bool = False


_NAMESPACES = (triton,)
NO_EFFECT = ("max_autotune", "coordinate_descent_tuning", "triton.cudagraphs")


def _annotations(owner) -> dict:
    return dict(getattr(owner, "__annotations__", {}))


def _resolve(name: str):
    """``"x"`` -> (module, "x"); ``"triton.cudagraphs"`` -> (triton, "cudagraphs"); AttributeError if unknown."""
    owner, _, attr = name.rpartition(".")
    holder = sys.modules[__name__] if not owner else next((ns for ns in _NAMESPACES if ns.__name__ == owner), None)
    if holder is None or attr not in _annotations(holder):
        raise AttributeError(f"{__name__}.{name} does not exist")
    return holder, attr


def get_config_copy() -> dict:
    """Every setting's current value by name (namespaced ones dotted: ``"triton.cudagraphs"``), in file order."""
    module = sys.modules[__name__]
    out = {name: getattr(module, name) for name in _annotations(module)}
    for ns in _NAMESPACES:
        out.update((f"{ns.__name__}.{name}", getattr(ns, name)) for name in _annotations(ns))
    return out


def get_type(name: str):
    """The declared type of a setting (``bool``, ``int`` ...); AttributeError for an unknown name."""
    holder, attr = _resolve(name)
    return _annotations(holder)[attr]


def is_generic(tp) -> bool:
    """True for a subscripted type (``list[int]``, ``int | None``), which ``isinstance`` cannot check."""
    return typing.get_origin(tp) is not None


@contextlib.contextmanager
def _patched(changes: dict):
    targets = [(*_resolve(name), value) for name, value in changes.items()]
    saved = [(holder, attr, getattr(holder, attr)) for holder, attr, _ in targets]
    try:
        for holder, attr, value in targets:
            setattr(holder, attr, value)
        yield
    finally:
        for holder, attr, value in saved:
            setattr(holder, attr, value)


def patch(arg=None, value=None, **changes) -> ConfigPatch:
    """Set some settings for a ``with`` block or a decorated function: ``patch("debug", False)``,
    ``patch({"triton.cudagraphs": True})`` or ``patch(profile_kernels=True)``.

    Raises:
        AttributeError: a name that is not a setting.

    Example:
        >>> with patch(profile_kernels=True):
        ...     pass
    """
    changes = changes_of(arg, value, changes)
    for name in changes:
        _resolve(name)
    return ConfigPatch(_patched, changes)
