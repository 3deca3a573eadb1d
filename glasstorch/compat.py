"""Run unchanged PyTorch scripts on glasstorch: ``python -m glasstorch.compat SCRIPT [ARGS...]``.

:func:`install` puts a finder at the front of ``sys.meta_path`` that answers every ``torch`` / ``torch.*``
import with the glasstorch module of the same path (``torch.nn.functional`` -> ``glasstorch.nn.functional``,
``torch.utils.data`` -> ``glasstorch.utils.data``): the very same module object, registered under both
names, so ``import torch``, ``import torch.nn as nn`` and ``from torch.utils.data import DataLoader`` all
see glasstorch.  A ``torch.*`` module without a glasstorch counterpart raises ModuleNotFoundError naming
the missing ``glasstorch.*`` module.

Run as a program it installs the finder, sets ``sys.argv`` and ``sys.path[0]`` as Python would for the
script, and runs it as ``__main__`` (``runpy``); ``-m MODULE`` and ``-c CODE`` work as with ``python``.
With the ``fork`` start method (Linux's default) DataLoader workers inherit the mapping; ``spawn``ed
children import the real ``torch``.

Invariant: after ``install()``, ``sys.modules["torch.X"] is sys.modules["glasstorch.X"]`` for every X imported.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import runpy
import sys

__all__ = ["install", "uninstall", "is_installed", "main"]

_USAGE = "usage: python -m glasstorch.compat (SCRIPT | -m MODULE | -c CODE) [ARGS...]"


def _counterpart(fullname: str) -> str:
    return "glasstorch" + fullname[len("torch"):]


class _AliasLoader(importlib.abc.Loader):
    """Hands the already-imported glasstorch module to the import system under its torch name."""

    def __init__(self, module):
        self.module = module

    def create_module(self, spec):
        return self.module

    def exec_module(self, module):
        return None  # the glasstorch module ran when it was imported under its own name


class TorchAliasFinder(importlib.abc.MetaPathFinder):
    """``torch`` and ``torch.*`` resolve to ``glasstorch`` and ``glasstorch.*``."""

    def find_spec(self, fullname, path, target=None):
        if fullname != "torch" and not fullname.startswith("torch."):
            return None
        target_name = _counterpart(fullname)
        try:
            module = importlib.import_module(target_name)
        except ModuleNotFoundError as e:
            if e.name is not None and (target_name == e.name or target_name.startswith(e.name + ".")):
                raise ModuleNotFoundError(
                    f"No module named '{fullname}': glasstorch.compat maps torch.* to glasstorch.*, and glasstorch "
                    f"has no module '{target_name}'", name=fullname) from None
            raise
        return importlib.util.spec_from_loader(fullname, _AliasLoader(module), origin=getattr(module, "__file__", None))


_finder = TorchAliasFinder()


def install() -> None:
    """Make ``import torch`` (and every ``torch.*``) import glasstorch; idempotent.

    Example:
        >>> install()
        >>> import torch
        >>> torch.__name__
        'glasstorch'
    """
    if _finder not in sys.meta_path:
        sys.meta_path.insert(0, _finder)


def uninstall() -> None:
    """Remove the finder and the ``torch`` aliases it registered."""
    if _finder in sys.meta_path:
        sys.meta_path.remove(_finder)
    for name in [n for n in sys.modules if n == "torch" or n.startswith("torch.")]:
        if getattr(sys.modules[name], "__name__", "").startswith("glasstorch"):
            del sys.modules[name]


def is_installed() -> bool:
    return _finder in sys.meta_path


def main(argv: list[str] | None = None) -> int:
    """Install the aliases and run a script, ``-m module`` or ``-c code`` as ``__main__``."""
    args = sys.argv[1:] if argv is None else list(argv)
    if not args or args[0] in ("-h", "--help") or (args[0] in ("-m", "-c") and len(args) < 2):
        print(_USAGE, file=sys.stderr if args[:1] not in (["-h"], ["--help"]) else sys.stdout)
        return 0 if args[:1] in (["-h"], ["--help"]) else 2
    install()
    if args[0] == "-m":
        sys.argv = [args[1], *args[2:]]
        sys.path[0] = os.getcwd()
        runpy.run_module(args[1], run_name="__main__", alter_sys=True)
    elif args[0] == "-c":
        sys.argv = ["-c", *args[2:]]
        sys.path[0] = ""
        exec(compile(args[1], "<string>", "exec"), {"__name__": "__main__", "__builtins__": __builtins__})  # noqa: S102
    else:
        script = args[0]
        sys.argv = list(args)
        sys.path[0] = os.path.dirname(os.path.abspath(script))
        runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
