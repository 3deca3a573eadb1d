"""glasstorch's inductor: aten FX graphs -> fused C/OpenMP kernels plus a Python wrapper (``torch._inductor``).

Layers, in order: :mod:`.lowering` (+ :mod:`.lowering_rules`, :mod:`.decomposition`) builds the loop-level IR of
:mod:`.ir`; :mod:`.scheduler` fuses it into loop groups; :mod:`.codegen_c` writes C; :mod:`.wrapper` plans
memory and writes the call sequence; :mod:`.compile_fx` ties them together.
Invariant: a compiled graph returns what the eager graph returns (values to rounding, dtypes, shapes, strides).
"""

from .compile_fx import CompiledFxGraph, CompilerMissing, compile_fx, compile_fx_inner  # noqa: F401
from .decomposition import select_decomp_table  # noqa: F401
