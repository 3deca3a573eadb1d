"""Exceptions of the capture layer (PyTorch: ``torch/_dynamo/exc.py``).

A graph break is a structured record (:class:`GraphBreak`: reason, user stack, kind) raised inside tracing and
caught by the compile loop; with ``fullgraph=True`` it surfaces as :class:`Unsupported`.  Backend failures
wrap the backend's exception in :class:`BackendCompilerFailed` whose text names the backend, as PyTorch's.

Invariant: every exception class derives from :class:`TorchDynamoException`, itself a ``RuntimeError``.
"""

from __future__ import annotations

from glasstorch._dynamo.utils import format_user_stack

__all__ = ["TorchDynamoException", "Unsupported", "BackendCompilerFailed", "InvalidBackend", "RecompileError",
           "FailOnRecompileLimitHit", "GraphBreak"]


class TorchDynamoException(RuntimeError):
    """Base class of every error raised by ``glasstorch._dynamo``."""


class Unsupported(TorchDynamoException):
    """Something in the code cannot be captured into one graph (raised with ``fullgraph=True``).

    Attributes:
        reason: the one-line reason (``Unsupported Tensor.item() call with capture_scalar_outputs=False``).
        user_stack: list of ``traceback.FrameSummary`` of the user code that broke the graph.
    """

    def __init__(self, reason: str, user_stack=(), explanation: str = ""):
        self.reason = reason
        self.user_stack = list(user_stack)
        self.explanation = explanation
        text = reason + (f"\n  Explanation: {explanation}" if explanation else "")
        if self.user_stack:
            text += "\n\nfrom user code:\n" + format_user_stack(self.user_stack[-1:])
        super().__init__(text)


class GraphBreak(Exception):
    """Raised inside a trace to stop it at something uncapturable; caught by the compile loop.

    Not a ``RuntimeError`` on purpose: user ``except RuntimeError`` blocks inside the traced code must not
    swallow it.
    """

    def __init__(self, reason: str, explanation: str = "", user_stack=()):
        super().__init__(reason)
        self.reason = reason
        self.explanation = explanation
        self.user_stack = list(user_stack)


class BackendCompilerFailed(TorchDynamoException):
    """The backend raised while compiling a graph: ``backend='inductor' raised:\\nRuntimeError: ...``."""

    def __init__(self, backend_name: str, inner_exception: BaseException):
        self.backend_name = backend_name
        self.inner_exception = inner_exception
        super().__init__(f"backend={backend_name!r} raised:\n{type(inner_exception).__name__}: {inner_exception}"
                         f"\n\nSet GLASSTORCH_SUPPRESS_ERRORS=1 (or glasstorch._dynamo.config.suppress_errors = "
                         f"True) to fall back to eager instead.")


class InvalidBackend(TorchDynamoException):
    """An unknown backend name was given to ``compile``."""

    def __init__(self, name):
        super().__init__(f"Invalid backend: {name!r}, see `torch._dynamo.list_backends()` for available backends.")


class RecompileError(TorchDynamoException):
    """A recompile happened while ``config.error_on_recompile`` is set."""


class FailOnRecompileLimitHit(TorchDynamoException):
    """The recompile limit was hit while ``config.fail_on_recompile_limit_hit`` is set."""
