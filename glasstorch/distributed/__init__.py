"""``glasstorch.distributed`` — PyTorch's ``torch.distributed`` as a build without distributed support.

glasstorch runs in one process: ``is_available()`` is False and no process group is ever initialised, so
``is_initialized()`` is False and the collective entry points raise PyTorch's "Default process group has
not been initialized" ValueError.  ``init_process_group`` explains that there is no backend.  This lets
training scripts that guard on ``dist.is_available() and dist.is_initialized()`` run single-process.

Invariant: importing this module never starts processes or opens sockets.
"""

from __future__ import annotations

import os

__all__ = ["is_available", "is_initialized", "is_nccl_available", "is_gloo_available", "is_mpi_available",
           "is_torchelastic_launched", "init_process_group", "destroy_process_group", "get_rank", "get_world_size",
           "barrier", "all_reduce", "broadcast", "all_gather", "reduce", "ReduceOp", "get_backend"]

_NO_GROUP = "Default process group has not been initialized, please make sure to call init_process_group."


def is_available() -> bool:
    """Whether distributed training is supported (no: glasstorch is single-process)."""
    return False


def is_initialized() -> bool:
    return False


def is_nccl_available() -> bool:
    return False


def is_gloo_available() -> bool:
    return False


def is_mpi_available() -> bool:
    return False


def is_torchelastic_launched() -> bool:
    """Whether this process was started by torchelastic (``torchrun``), read from its environment."""
    return os.getenv("TORCHELASTIC_RUN_ID") is not None


def init_process_group(backend=None, *args, **kwargs) -> None:
    raise RuntimeError("glasstorch.distributed is not available: glasstorch has no process-group backend "
                       "(nccl, gloo, mpi); run the script as a single process")


def destroy_process_group(group=None) -> None:
    raise ValueError(_NO_GROUP)


def _no_group(*args, **kwargs):
    raise ValueError(_NO_GROUP)


get_rank = get_world_size = get_backend = barrier = all_reduce = broadcast = all_gather = reduce = _no_group


class ReduceOp:
    """The reduction names collectives take (``dist.ReduceOp.SUM`` ...)."""

    SUM = "sum"
    AVG = "avg"
    PRODUCT = "product"
    MIN = "min"
    MAX = "max"
    BAND = "band"
    BOR = "bor"
    BXOR = "bxor"
    PREMUL_SUM = "premul_sum"
