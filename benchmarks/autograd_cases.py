"""Autograd benchmark cases (the autograd issue's speed targets), side by side with PyTorch.

Each recipe maps a library module (glasstorch or torch) to a zero-argument callable, like ``cases.py``:

- backward of a 20-op pointwise chain on small (16-element) tensors, the graph built once and kept
  (``retain_graph=True``), so the time is the engine plus 20 backward formulas;
- the same chain forward + backward (the graph rebuilt every call);
- a 2-layer MLP, Linear-ReLU-Linear written with ``matmul``/``add``/``relu`` on a (256, 512) input,
  forward + backward.

:func:`engine_profile` runs a glasstorch recipe once more with the engine's node statistics switched on
(``glasstorch.autograd.engine.profile_nodes``) and reports how many nodes ran and the time per node:
the whole backward divided by the nodes, and the engine's own share (everything but the nodes'
``apply``) per node, in this thread's CPU time.
"""

from __future__ import annotations

import time

CHAIN_ELEMS = 16
CHAIN_ROUNDS = 5  # 4 ops per round: mul, add, sin, tanh


def _chain(lib, x, c):
    y = x
    for _ in range(CHAIN_ROUNDS):
        y = (y * c + c).sin().tanh()
    return y.sum()


def _chain_backward(lib):
    x = lib.linspace(-1.0, 1.0, CHAIN_ELEMS).requires_grad_()
    c = lib.full((CHAIN_ELEMS,), 0.5)
    loss = _chain(lib, x, c)
    return lambda: loss.backward(retain_graph=True)


def _chain_forward_backward(lib):
    x = lib.linspace(-1.0, 1.0, CHAIN_ELEMS).requires_grad_()
    c = lib.full((CHAIN_ELEMS,), 0.5)
    return lambda: _chain(lib, x, c).backward()


def _mlp(lib):
    gen = lib.Generator().manual_seed(0)
    x = lib.randn(256, 512, generator=gen)
    w1 = (lib.randn(512, 512, generator=gen) * 0.04).requires_grad_()
    b1 = lib.zeros(512, requires_grad=True)
    w2 = (lib.randn(512, 128, generator=gen) * 0.04).requires_grad_()
    b2 = lib.zeros(128, requires_grad=True)

    def step():
        h = lib.matmul(x, w1).add(b1).relu()
        out = lib.matmul(h, w2).add(b2)
        out.sum().backward()
    return step


AUTOGRAD_CASES = {
    "autograd: backward of 20-op chain (16 el.)": _chain_backward,
    "autograd: fwd+bwd 20-op chain (16 el.)": _chain_forward_backward,
    "autograd: MLP (256,512) Linear-ReLU-Linear fwd+bwd": _mlp,
}


def engine_profile(make, repeat: int = 20) -> dict | None:
    """Nodes per backward and microseconds per node (total, and the engine's share), from the engine.

    None when the engine has no statistics (an older glasstorch, for before/after comparisons)."""
    import glasstorch
    from glasstorch.autograd import engine

    if not hasattr(engine, "profile_nodes"):
        return None
    fn = make(glasstorch)
    fn()
    with engine.profile_nodes() as stats:
        t0 = time.thread_time()
        for _ in range(repeat):
            fn()
        wall = time.thread_time() - t0
    nodes = stats.nodes / repeat
    backward_s = stats.backward_s / repeat
    clock = stats.clock_cost_s  # each node's run holds two clock readings: one in apply's share, one in the engine's
    return {"nodes_per_backward": nodes,
            "backward_us_per_node": (backward_s / nodes - 2 * clock) * 1e6,
            "engine_us_per_node": ((stats.backward_s - stats.apply_s) / stats.nodes - clock) * 1e6,
            "call_us": wall / repeat * 1e6}  # CPU time of one call of the recipe
