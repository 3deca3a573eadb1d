"""Pass interface — PyTorch's ``torch/fx/passes/infra/pass_base.py``.

A pass is a callable object: ``result = SomePass()(gm)`` runs ``requires``, ``call`` and ``ensures`` and
returns a :class:`PassResult` (the resulting GraphModule and whether anything changed).

Invariant: a pass that reports ``modified=False`` returns the GraphModule it was given.
"""

from __future__ import annotations

import abc
from collections import namedtuple

__all__ = ["PassResult", "PassBase"]


class PassResult(namedtuple("PassResult", ["graph_module", "modified"])):
    """The outcome of a pass: ``graph_module`` and ``modified``."""

    __slots__ = ()

    def __new__(cls, graph_module, modified: bool):
        return super().__new__(cls, graph_module, modified)


class PassBase(abc.ABC):
    """Base class of passes: implement :meth:`call`; ``requires``/``ensures`` may check pre/postconditions."""

    def __call__(self, graph_module) -> PassResult | None:
        self.requires(graph_module)
        res = self.call(graph_module)
        self.ensures(graph_module)
        return res

    @abc.abstractmethod
    def call(self, graph_module) -> PassResult | None:
        """Run the pass on ``graph_module``."""

    def requires(self, graph_module) -> None:  # noqa: B027 - optional hook
        """Check the preconditions (nothing by default)."""

    def ensures(self, graph_module) -> None:  # noqa: B027 - optional hook
        """Check the postconditions (nothing by default)."""
