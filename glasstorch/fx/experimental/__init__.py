"""``glasstorch.fx.experimental`` — PyTorch's ``torch/fx/experimental``: aten-level tracing (``proxy_tensor``).

Invariant: nothing here is imported by ``glasstorch.fx`` itself; the tracer is loaded on first use.
"""
