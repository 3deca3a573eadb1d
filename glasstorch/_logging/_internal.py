"""Log settings for the compile stack: ``GLASSTORCH_LOGS``, ``set_logs`` and artifact loggers.

PyTorch counterpart: ``torch/_logging/_internal.py`` (``TORCH_LOGS``, ``torch._logging.set_logs``,
``getArtifactLogger``).  One stderr handler hangs on the ``glasstorch`` logger; an artifact logger is an
ordinary :class:`logging.Logger` named ``<module>.__<artifact>`` whose level is DEBUG (with that handler
attached) only while its artifact is on, so a switched-off ``log.debug(...)`` costs one level check.

Setting grammar (``GLASSTORCH_LOGS``, comma separated): an artifact name switches it on; ``dynamo``,
``+dynamo``, ``-dynamo`` set a component's level to INFO, DEBUG, ERROR.

Invariant: every logger handed out is reconfigured whenever the settings change, so a module may keep the
logger it got at import time.
"""

from __future__ import annotations

import logging
import os
import sys

from glasstorch._logging._registrations import ARTIFACTS, COMPONENTS

__all__ = ["getArtifactLogger", "artifact_enabled", "set_logs", "parse_log_settings"]

_OFF = logging.CRITICAL + 10  # above every level anyone logs at

_artifacts_on: set[str] = set()
_component_levels: dict[str, int] = {}
_artifact_loggers: dict[str, logging.Logger] = {}   # qualified name -> logger
_handler: logging.Handler | None = None


class _Formatter(logging.Formatter):
    """PyTorch's shape: ``V1130 10:20:51.123 pid file.py:line] [__artifact] message``."""

    def format(self, record: logging.LogRecord) -> str:
        letter = "V" if record.levelno <= logging.DEBUG else record.levelname[0]
        stamp = self.formatTime(record, "%m%d %H:%M:%S")
        artifact = getattr(record, "artifact", None) or _artifact_of(record.name)
        tag = f" [__{artifact}]" if artifact else ""
        head = f"{letter}{stamp}.{int(record.msecs):03d} {record.process} {record.filename}:{record.lineno}]{tag} "
        return head + record.getMessage()


def _artifact_of(name: str) -> str | None:
    tail = name.rpartition(".")[2]
    return tail[2:] if tail.startswith("__") and tail[2:] in ARTIFACTS else None


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever ``sys.stderr`` is at emit time (so redirections and test capture see the logs)."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, value):
        pass


def _install_handler() -> None:
    global _handler
    if _handler is None:
        _handler = _StderrHandler()
        _handler.setFormatter(_Formatter())
        root = logging.getLogger("glasstorch")
        root.addHandler(_handler)


def _check_artifact(name: str) -> None:
    if name not in ARTIFACTS:
        known = ", ".join(sorted(ARTIFACTS))
        raise ValueError(f"Unknown artifact name: {name!r}. Known artifacts: {known}")


def getArtifactLogger(module_qname: str, artifact_name: str) -> logging.Logger:
    """A logger that prints only while the artifact ``artifact_name`` is switched on.

    Args:
        module_qname: the calling module's ``__name__``.
        artifact_name: one of the registered artifacts (``output_code``, ``graph_breaks`` ...).

    Returns:
        a :class:`logging.Logger`; log at any level (``log.debug`` is the convention).

    Raises:
        ValueError: for an unknown artifact name.

    Example:
        >>> log = getArtifactLogger(__name__, "output_code")
        >>> log.debug("kernel source: %s", "...")   # prints only with GLASSTORCH_LOGS=output_code
    """
    _check_artifact(artifact_name)
    qname = f"{module_qname}.__{artifact_name}"
    log = logging.getLogger(qname)
    log.artifact_name = artifact_name  # type: ignore[attr-defined]
    _artifact_loggers[qname] = log
    _configure_artifact(log, artifact_name)
    return log


def _configure_artifact(log: logging.Logger, name: str) -> None:
    # an artifact logger prints through the shared handler itself and never propagates, so its output appears
    # once whatever the module path, and a switched-off artifact is silent even if a parent logger is verbose
    log.propagate = False
    if name in _artifacts_on:
        _install_handler()
        log.setLevel(logging.DEBUG)
        log.disabled = False
        if _handler not in log.handlers:
            log.addHandler(_handler)
    else:
        log.setLevel(_OFF)
        if _handler in log.handlers:
            log.removeHandler(_handler)


def artifact_enabled(artifact_name: str) -> bool:
    """Whether the artifact is switched on (use it to skip building an expensive message)."""
    return artifact_name in _artifacts_on


def _apply() -> None:
    for log in _artifact_loggers.values():
        _configure_artifact(log, log.artifact_name)  # type: ignore[attr-defined]
    for comp, logger_name in COMPONENTS.items():
        level = _component_levels.get(comp)
        logging.getLogger(logger_name).setLevel(level if level is not None else logging.NOTSET)
    if _artifacts_on or _component_levels:
        _install_handler()


def set_logs(**settings) -> None:
    """Switch artifacts and set component levels from Python (PyTorch's ``torch._logging.set_logs``).

    Every call replaces the previous settings; ``set_logs()`` switches everything off.

    Args:
        **settings: ``artifact=True/False`` for artifacts, ``component=logging.LEVEL`` (or None) for components.

    Raises:
        ValueError: for an unknown name or a component level that is not an int.

    Example:
        >>> set_logs(graph_breaks=True, recompiles=True, dynamo=logging.INFO)
        >>> set_logs()
    """
    artifacts, levels = set(), {}
    for name, value in settings.items():
        if name in COMPONENTS:
            if value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"Unrecognized log level for log {name}: {value}, valid level values "
                                 f"are: {','.join(logging.getLevelName(lv) for lv in (10, 20, 30, 40, 50))}")
            levels[name] = value
        else:
            _check_artifact(name)
            if value:
                artifacts.add(name)
    _artifacts_on.clear()
    _artifacts_on.update(artifacts)
    _component_levels.clear()
    _component_levels.update(levels)
    _apply()


def parse_log_settings(text: str) -> dict:
    """Turn a ``GLASSTORCH_LOGS`` string into :func:`set_logs` keyword arguments.

    Example:
        >>> parse_log_settings("graph_breaks,+dynamo")
        {'graph_breaks': True, 'dynamo': 10}
    """
    out: dict = {}
    for raw in text.replace(" ", "").split(","):
        if not raw:
            continue
        sign, name = (raw[0], raw[1:]) if raw[0] in "+-" else ("", raw)
        if name in COMPONENTS:
            out[name] = {"+": logging.DEBUG, "-": logging.ERROR, "": logging.INFO}[sign]
        elif name in ARTIFACTS and not sign:
            out[name] = True
        else:
            valid = ", ".join(sorted(ARTIFACTS) + [f"[+-]{c}" for c in sorted(COMPONENTS)])
            raise ValueError(f"Invalid log settings: GLASSTORCH_LOGS={text!r}, unrecognized name {raw!r}. "
                             f"Valid settings: {valid}")
    return out


def _init_from_env() -> None:
    text = os.environ.get("GLASSTORCH_LOGS", "")
    if text:
        set_logs(**parse_log_settings(text))
