"""Modules and functions traced by the fx tests, written once and built with either library.

``build(lib)`` returns the same models made with ``lib`` = glasstorch or torch, so a test can trace both with
their own ``fx`` and compare graphs, generated code and outputs.  ``copy_weights`` makes the torch copy
hold the glasstorch copy's parameters and buffers.
"""

from __future__ import annotations

import math

import numpy as np
import torch


def build_mlp(lib):
    nn, F = lib.nn, lib.nn.functional

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(8, 16)
            self.fc2 = nn.Linear(16, 4)

        def forward(self, x):
            h = F.relu(self.fc1(x))
            return self.fc2(h).softmax(dim=-1)

    return MLP()


def build_mixed(lib):
    """Operators, torch functions, methods, attribute reads, a parameter, a buffer and F calls."""
    nn, F = lib.nn, lib.nn.functional

    class Mixed(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(4, 4)
            self.scale = nn.Parameter(lib.ones(4) * 0.5)
            self.register_buffer("shift", lib.arange(4.0))

        def forward(self, x, y):
            a = lib.add(x, self.scale)
            b = (a * 2 - y) / 3
            c = self.lin(b).tanh() + self.shift
            d = F.gelu(c) @ c.transpose(0, 1)
            B, T = d.shape
            e = d.view(B * T)[: T - 1]
            return lib.cat([e, e.neg()], dim=0), d.sum(dim=1, keepdim=True) ** 2

    return Mixed()


def build_nested(lib):
    """A user module inside a user module (traced through) inside a Sequential (traced through)."""
    nn = lib.nn

    class Inner(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Linear(6, 6)

        def forward(self, x):
            return self.proj(x).relu() + x

    class Outer(nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = nn.Sequential(Inner(), Inner())
            self.norm = nn.LayerNorm(6)

        def forward(self, x):
            return self.norm(self.blocks(x))

    return Outer()


def build_gpt_block(lib):
    """A small causal self-attention transformer block (nanoGPT's Block), written with explicit ops.

    The causal mask covers the whole block (inputs are ``T`` long): slicing a real buffer by a traced size
    (``bias[:, :, :T, :T]``) is not symbolically traceable, in torch.fx either."""
    nn, F = lib.nn, lib.nn.functional
    C, H, T = 16, 4, 8

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_attn = nn.Linear(C, 3 * C)
            self.c_proj = nn.Linear(C, C)
            self.register_buffer("bias", lib.tril(lib.ones(T, T)).view(1, 1, T, T))

        def forward(self, x):
            B, T_, C_ = x.size()
            q, k, v = self.c_attn(x).split(C, dim=2)
            k = k.view(B, T_, H, C_ // H).transpose(1, 2)
            q = q.view(B, T_, H, C_ // H).transpose(1, 2)
            v = v.view(B, T_, H, C_ // H).transpose(1, 2)
            att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(C // H))
            att = att.masked_fill(self.bias == 0, float("-inf"))
            att = F.softmax(att, dim=-1)
            y = att @ v
            y = y.transpose(1, 2).contiguous().view(B, T_, C_)
            return self.c_proj(y)

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.c_fc = nn.Linear(C, 4 * C)
            self.c_proj = nn.Linear(4 * C, C)

        def forward(self, x):
            return self.c_proj(F.gelu(self.c_fc(x)))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln_1 = nn.LayerNorm(C)
            self.attn = CausalSelfAttention()
            self.ln_2 = nn.LayerNorm(C)
            self.mlp = MLP()

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    return Block()


def fn_arith(x, y):
    return (x + y) * 2 - x / (y.abs() + 1)


def fn_torch_functions(lib):
    def fn(x):
        a = lib.relu(x)
        b = lib.sum(a, dim=0)
        return lib.stack([b, lib.exp(-b)]), lib.where(x > 0, x, lib.zeros_like(x))
    return fn


def copy_weights(gt_mod, th_mod) -> None:
    """Load glasstorch ``gt_mod``'s parameters and buffers into torch ``th_mod`` (same names and shapes)."""
    state = {k: torch.from_numpy(np.array(v.detach().tolist(), dtype=np.float32))
             for k, v in gt_mod.state_dict().items()}
    th_mod.load_state_dict(state)


def to_np(t) -> np.ndarray:
    return np.asarray(t.detach().tolist(), dtype=np.float64).reshape(tuple(t.shape))
