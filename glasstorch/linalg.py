"""``glasstorch.linalg`` — PyTorch's ``torch.linalg``: the aten ``linalg_*`` operators under their short names.

``torch.linalg.vector_norm`` is the generated binding of ``aten::linalg_vector_norm`` and so on; the
list comes from the declarations (``python_module: linalg``).
"""

from __future__ import annotations

from ._generated import functions as _gen

__all__ = []
for _name in getattr(_gen, "LINALG_FUNCTIONS", ()):
    _short = _name.removeprefix("linalg_")
    globals()[_short] = getattr(_gen, _name)
    __all__.append(_short)
del _name, _short
