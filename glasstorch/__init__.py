"""glasstorch — PyTorch's engine rebuilt in Python, layer for layer.

``import glasstorch as torch`` gives the public surface; the layers live in the sub-packages
(``_core`` L0, ``_device`` L1, ``_tensor`` L2, ``_ops`` L3, ``tensor`` L5).  See docs/architecture.md.
"""

import sys
from math import e, inf, nan, pi  # noqa: F401  (torch re-exports math's constants)

from . import _env  # noqa: F401  (first: environment defaults numpy's OpenBLAS reads when it loads)
from ._core.dtype import (  # noqa: F401
    bfloat16, bool, complex32, complex64, complex128, dtype, finfo, float16, float32, float64,
    float8_e4m3fn, float8_e4m3fnuz, float8_e5m2, float8_e5m2fnuz, get_default_dtype, iinfo, int8, int16, int32, int64,
    set_default_dtype, uint8, uint16, uint32, uint64,
)
from ._core.dtype import ALIASES as _ALIASES
from ._core.device import device  # noqa: F401
from ._core.shape import Size  # noqa: F401
from ._core.user_warning import is_warn_always_enabled, set_warn_always  # noqa: F401
from ._tensor.storage import UntypedStorage  # noqa: F401
from ._tensor.typed_storage import (  # noqa: F401
    BFloat16Storage, BoolStorage, ByteStorage, CharStorage, ComplexDoubleStorage, ComplexFloatStorage, DoubleStorage,
    FloatStorage, HalfStorage, IntStorage, LongStorage, ShortStorage, TypedStorage,
)
from ._tensor.printing import get_printoptions, printoptions, set_printoptions  # noqa: F401
from .tensor import (  # noqa: F401
    LEGACY_TYPES as _LEGACY_TYPES, Tensor, _mkldnn, channels_last, channels_last_3d, contiguous_format, jagged,
    layout, memory_format, preserve_format, sparse_bsc, sparse_bsr, sparse_coo, sparse_csc, sparse_csr, strided,
)
from ._functions import *  # noqa: F401,F403
from ._functions import Generator, default_generator  # noqa: F401
from . import _tensor_operators as _operators
from ._generated import methods as _methods
from ._generated.functions import *  # noqa: F401,F403
from ._sparse_functions import *  # noqa: F401,F403
from .tensor import _has_compatible_shallow_copy_type  # noqa: F401
from ._binding_support import return_types  # noqa: F401
from ._ops.dispatcher import show_dispatch_trace  # noqa: F401

newaxis = None  # numpy's name for None in an index, as torch.newaxis
from ._core.device import get_default_device, set_default_device  # noqa: E402,F401

_methods.install(Tensor)
from . import autograd  # noqa: E402
from .autograd import enable_grad, inference_mode, is_grad_enabled, no_grad, set_grad_enabled  # noqa: E402,F401
from .autograd.grad_mode import is_inference_mode_enabled  # noqa: E402,F401
from .tensor import wrap as _wrap  # noqa: E402

autograd.install(_wrap, sys.modules[__name__])
from . import nn  # noqa: E402,F401
from . import optim  # noqa: E402,F401
from . import amp  # noqa: E402,F401
from .amp.autocast_mode import (  # noqa: E402,F401
    autocast, autocast_decrement_nesting, autocast_increment_nesting, clear_autocast_cache, get_autocast_cpu_dtype,
    get_autocast_dtype, get_autocast_gpu_dtype, is_autocast_cache_enabled, is_autocast_cpu_enabled,
    is_autocast_enabled, set_autocast_cache_enabled, set_autocast_dtype, set_autocast_enabled,
)
from . import linalg  # noqa: E402,F401
from . import fft  # noqa: E402,F401
from . import signal  # noqa: E402,F401
from . import special  # noqa: E402,F401
from . import masked  # noqa: E402,F401
from ._lobpcg import lobpcg  # noqa: E402,F401
from ._lowrank import pca_lowrank, svd_lowrank  # noqa: E402,F401
from . import functional as _functional  # noqa: E402

_functional.install(sys.modules[__name__])
from . import library  # noqa: E402,F401
from ._ops_namespace import ops  # noqa: E402,F401
from .utils import _python_dispatch  # noqa: E402,F401
from . import _vmap_internals  # noqa: E402,F401
_operators.install()
# Compatibility surface and user APIs of the serialization / data / device-module issue.
from . import (  # noqa: E402,F401
    _C, _VF, backends, cuda, distributed, multiprocessing, serialization, sparse, storage, testing, utils, version,
    xpu,
)
from .backends import (  # noqa: E402,F401
    are_deterministic_algorithms_enabled,
    get_deterministic_debug_mode,
    get_float32_matmul_precision,
    is_deterministic_algorithms_warn_only_enabled,
    set_deterministic_debug_mode,
    set_float32_matmul_precision,
    use_deterministic_algorithms,
)
from .serialization import load, save  # noqa: E402,F401
from .utils import data as _data  # noqa: E402,F401  (glasstorch.utils.data as an attribute, as in PyTorch)
from .version import __version__  # noqa: E402,F401  "2.13.0+glasstorch": see glasstorch/version.py
# The emulated accelerator (device "emu", PyTorch's PrivateUse1): registers its allocator and kernels.
from . import emu  # noqa: E402,F401
from . import accelerator  # noqa: E402,F401
from . import random  # noqa: E402,F401  (torch.random: fork_rng and the default generator's seed/state)
from ._device.caching_allocator import OutOfMemoryError  # noqa: E402,F401
from ._device.threads import (  # noqa: E402,F401
    get_num_interop_threads, get_num_threads, set_num_interop_threads, set_num_threads,
)

# torch.float, torch.long, ... and torch.FloatTensor, torch.LongTensor, ...
globals().update(_ALIASES)
globals().update(_LEGACY_TYPES)
cfloat, cdouble, chalf = complex64, complex128, complex32

del _ALIASES, _LEGACY_TYPES, _methods, _operators, _wrap, _functional, _data, sys

# The compile stack loads on first use (``glasstorch.fx``, ``glasstorch._inductor.list_options()`` ...), as torch's
# own lazy ``_dynamo``/``_inductor``/``_functorch`` attributes do.
_LAZY_SUBMODULES = {"fx", "_dynamo", "_logging", "_inductor", "_functorch", "_subclasses"}


def __getattr__(name):
    if name in _LAZY_SUBMODULES:
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    if name == "compile":  # torch.compile: glasstorch._dynamo.eval_frame.compile, loaded on first use
        import importlib

        fn = globals()["compile"] = importlib.import_module(f"{__name__}._dynamo.eval_frame").compile
        return fn
    raise AttributeError(f"module '{__name__}' has no attribute '{name}'")
