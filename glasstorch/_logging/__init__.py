"""Observability of the compile stack: ``GLASSTORCH_LOGS`` channels and the per-compile debug folder.

PyTorch counterpart: ``torch._logging`` (``TORCH_LOGS``, ``set_logs``, ``getArtifactLogger``) and
``TORCH_COMPILE_DEBUG``.  Layers of the compile stack log through artifact loggers::

    from glasstorch._logging import getArtifactLogger, artifact_enabled
    log = getArtifactLogger(__name__, "output_code")
    log.debug("%s", source)            # printed only with GLASSTORCH_LOGS=output_code or set_logs(output_code=True)

and write files with :func:`write_debug_file` into :func:`debug_dir` (``GLASSTORCH_COMPILE_DEBUG=1``).

Invariant: importing this package reads ``GLASSTORCH_LOGS`` once; :func:`set_logs` replaces the settings.
"""

from glasstorch._logging._debug_dir import compile_debug_enabled, compile_debug_scope, debug_dir, write_debug_file
from glasstorch._logging._internal import (
    _init_from_env,
    artifact_enabled,
    getArtifactLogger,
    parse_log_settings,
    set_logs,
)
from glasstorch._logging._registrations import ARTIFACTS, COMPONENTS

__all__ = ["getArtifactLogger", "artifact_enabled", "set_logs", "parse_log_settings", "debug_dir",
           "compile_debug_scope", "compile_debug_enabled", "write_debug_file", "ARTIFACTS", "COMPONENTS"]

_init_from_env()
