"""``glasstorch.special`` — PyTorch's ``torch.special``: the aten ``special_*`` operators under their short names
(``torch.special.erf`` is the generated binding of ``aten::special_erf``, ``torch.special.zeta`` of
``aten::special_zeta``), the list coming from the declarations (``python_module: special``).

Example:
    >>> import glasstorch as torch
    >>> torch.special.gammaln(torch.tensor([0.5, 3.0]))
    tensor([0.5724, 0.6931])

Invariant: no data is touched here; every result comes from an operator.
"""

from __future__ import annotations

from .._generated import functions as _gen

__all__ = []
for _name in _gen.SPECIAL_FUNCTIONS:
    _short = _name.removeprefix("special_")
    globals()[_short] = getattr(_gen, _name)
    __all__.append(_short)
del _name, _short
