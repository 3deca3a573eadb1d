"""Knobs of the inductor (``torch/_inductor/config.py``): fusion and inlining limits, parallel thresholds.

Module attributes read at compile time; change them before compiling (``glasstorch._inductor.config.x = ...``).
Invariant: no knob changes results beyond floating-point reassociation inside one reduction.
"""

# a lazy pointwise value read by more than one node is computed into a buffer when its op count exceeds this
realize_reads_cost = 6
# any lazy value grows into a buffer past this many ops (bounds the size of inlined expressions)
max_inline_cost = 60
# loops with fewer elements than this run on one thread (OpenMP start-up costs more than it saves)
parallel_threshold = 32768
# how many ready nodes the scheduler looks at for one that fuses into the open group
fusion_window = 64
# run ready extern calls (BLAS, fallbacks) before starting a new group: longer runs of fusable compute nodes
externs_first = True
# groups emitted into one C function (one ctypes call)
max_groups_per_kernel = 64
# write IR, schedule, C and wrapper into glasstorch._logging.debug_dir() when it gives a folder
debug = True
# time every loop group (C) and wrapper step (Python): CompiledFxGraph.profiler.rows() reads them; a few µs a call
profile_kernels = False
# reductions over the outer dimension (column sums) run with the loops interchanged (scheduler/codegen_columns)
column_reductions = True
# at most this many column reductions share one pass over their rows
max_column_members = 8
