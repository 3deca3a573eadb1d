"""``torch._VF``: every generated ``torch.*`` function by its native name, also those that ``torch/functional.py``
wraps or hides from the ``torch`` namespace (``unique_dim``, ``split``'s native overloads ...).

PyTorch counterpart: ``torch/_VF.py`` (a module forwarding to ``torch._C._VariableFunctions``).  Invariant: a name
resolves to the binding generated from native_functions/*.yaml, never to a Python wrapper of ``glasstorch``.
"""

from __future__ import annotations

from ._generated import functions as _functions


def __getattr__(name):
    try:
        return getattr(_functions, name)
    except AttributeError:
        raise AttributeError(f"module 'glasstorch._VF' has no attribute '{name}'") from None
