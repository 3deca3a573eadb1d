"""Backend fallbacks: what a layer key does for an op that registered nothing there.

PyTorch counterparts: ``TORCH_LIBRARY_IMPL(_, ADInplaceOrView, m) { m.fallback(fallthrough) }``,
``TORCH_LIBRARY_IMPL(_, BackendSelect, ...)``, the Autocast fallthrough, the autograd fallback, and the
Conjugate/Negative fallbacks of the lazy math bits (``math_bits.py``, Note [Math bits]) and the ZeroTensor fallback
(``zero_tensor.py``, Note [ZeroTensor]).
A fallthrough key is removed from each op's mask, so dispatch skips it without a call.

Until the autograd layer registers its kernels, the Autograd keys fall through as well.
"""

from __future__ import annotations

from .._core.dispatch_key import AUTOCAST_KEYS, AUTOGRAD_KEYS
from . import math_bits, zero_tensor
from .dispatcher import FALLTHROUGH, register_fallback

for _key in ("ADInplaceOrView", "BackendSelect", "Functionalize", "PythonTLSSnapshot", "PythonDispatcher",
             *AUTOCAST_KEYS, *AUTOGRAD_KEYS):
    register_fallback(_key, FALLTHROUGH)
math_bits.install()
zero_tensor.install()
