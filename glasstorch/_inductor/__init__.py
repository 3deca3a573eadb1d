"""glasstorch's inductor: aten FX graphs -> fused C/OpenMP kernels plus a Python wrapper (``torch._inductor``).

Layers, in order: :mod:`.lowering` (+ :mod:`.lowering_rules`, :mod:`.decomposition`) builds the loop-level IR of
:mod:`.ir`; :mod:`.scheduler` fuses it into loop groups; :mod:`.codegen_c` writes C; :mod:`.wrapper` plans
memory and writes the call sequence; :mod:`.compile_fx` ties them together.  :mod:`.config` holds the knobs;
:func:`list_mode_options` / :func:`list_options` say what ``glasstorch.compile(mode=, options=)`` can set.
Invariant: a compiled graph returns what the eager graph returns (values to rounding, dtypes, shapes, strides).
"""

from typing import Any

from . import config
from .compile_fx import CompiledFxGraph, CompilerMissing, compile_fx, compile_fx_inner  # noqa: F401
from .decomposition import select_decomp_table  # noqa: F401

# PyTorch's "lite" mode: opt out of most graph passes.  None of these names is a setting here (this compiler has
# no pattern passes to skip and no fallback-everything switch), so the mode changes nothing: the compile
# wrapper records them as unapplied.
lite_mode_options: dict[str, bool] = {
    "fallback_by_default": True, "selective_decompose": True, "reorder_for_peak_memory": False,
    "reorder_for_compute_comm_overlap": False, "triton.reorder_for_reducing_graph_partitions": False,
    "use_pre_grad_passes": False, "use_joint_graph_passes": False, "use_post_grad_passes": False,
    "use_dce": False, "allow_buffer_reuse": False,
}

# PyTorch's table, name for name; the settings that exist here but do nothing are config.NO_EFFECT
_MODE_OPTIONS: dict[str, dict[str, bool]] = {
    "default": {},
    "lite": lite_mode_options,
    "reduce-overhead": {"triton.cudagraphs": True},
    "max-autotune-no-cudagraphs": {"max_autotune": True, "coordinate_descent_tuning": True},
    "max-autotune": {"max_autotune": True, "triton.cudagraphs": True, "coordinate_descent_tuning": True},
}


def list_mode_options(mode: str | None = None, dynamic: bool | None = None) -> dict[str, Any]:
    """The settings each ``glasstorch.compile`` mode stands for (all modes when ``mode`` is None).

    ``dynamic`` is accepted as PyTorch's is; no mode depends on it.

    Raises:
        RuntimeError: an unknown mode (PyTorch's message, listing the modes).

    Example:
        >>> list_mode_options("reduce-overhead")
        {'triton.cudagraphs': True}
    """
    if not mode:
        return {name: dict(opts) for name, opts in _MODE_OPTIONS.items()}
    try:
        return dict(_MODE_OPTIONS[mode])
    except KeyError:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODE_OPTIONS)}") from None


def list_options() -> list[str]:
    """The names ``glasstorch.compile(options={...})`` accepts: every setting of :mod:`.config`.

    Example:
        >>> "profile_kernels" in list_options()
        True
    """
    return list(config.get_config_copy())
