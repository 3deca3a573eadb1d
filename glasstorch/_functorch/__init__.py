"""``glasstorch._functorch`` — PyTorch's ``torch/_functorch``: AOT autograd for the compile stack.

* :mod:`.aot_autograd`: ``aot_function`` / ``aot_module_simplified`` trace a joint forward+backward graph with
  make_fx, partition it and run the compiled halves as one ``autograd.Function``; ``aot_eager`` is the
  ``"aot_eager"`` backend;
* :mod:`.functionalize`: removes in-place ops and output aliasing from an aten-level FX graph;
* :mod:`.partitioners`: ``default_partition`` and ``min_cut_rematerialization_partition``.

Invariant: nothing here runs real compute at compile time; graphs are traced with FakeTensors.
"""

from .aot_autograd import aot_eager, aot_function, aot_module_simplified
from .partitioners import default_partition, min_cut_rematerialization_partition

__all__ = ["aot_function", "aot_module_simplified", "aot_eager", "default_partition",
           "min_cut_rematerialization_partition"]
