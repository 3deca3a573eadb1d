"""A GPT-2-style decoder-only transformer over characters, in the manner of nanoGPT's ``model.py``.

Counterpart: karpathy/nanoGPT ``model.py`` (the architecture and its initialisation), written against PyTorch's
public API only. The tensor library arrives as an argument (``build_gpt(torch)``), so one class body serves
``glasstorch`` and real PyTorch alike; that is what lets tests and benchmarks put the two side by side.

Shapes use nanoGPT's letters: B batch, T time (sequence), C channels (n_embd), nh heads, hs head size, V vocab.
Key invariant: the output head shares its weight with the token embedding (``lm_head.weight is wte.weight``),
so the tied matrix is one Parameter, counted once, decayed once and saved under both state_dict keys.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from types import SimpleNamespace


@dataclass
class GPTConfig:
    """Sizes of the model; ``vocab_size`` comes from the data's character vocabulary."""

    block_size: int = 64
    vocab_size: int = 128
    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 128
    dropout: float = 0.0
    bias: bool = True

    def to_dict(self) -> dict:
        return asdict(self)


def build_gpt(torch) -> SimpleNamespace:
    """Define the GPT module classes over the backend ``torch`` (glasstorch or PyTorch) and return them."""
    nn = torch.nn
    F = torch.nn.functional

    class CausalSelfAttention(nn.Module):
        """Multi-head self-attention where position t sees positions <= t (``is_causal=True``)."""

        def __init__(self, config: GPTConfig):
            super().__init__()
            assert config.n_embd % config.n_head == 0, (config.n_embd, config.n_head)
            self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd, bias=config.bias)  # q, k, v at once
            self.c_proj = nn.Linear(config.n_embd, config.n_embd, bias=config.bias)
            self.resid_dropout = nn.Dropout(config.dropout)
            self.n_head = config.n_head
            self.dropout = config.dropout

        def forward(self, x):
            B, T, C = x.size()
            q, k, v = self.c_attn(x).split(C, dim=2)
            # (B, T, C) -> (B, nh, T, hs): heads become a batch dimension
            q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            dropout_p = self.dropout if self.training else 0.0
            y = F.scaled_dot_product_attention(q, k, v, attn_mask=None, dropout_p=dropout_p, is_causal=True)
            y = y.transpose(1, 2).contiguous().view(B, T, C)  # re-assemble the heads side by side
            return self.resid_dropout(self.c_proj(y))

    class MLP(nn.Module):
        """Position-wise feed-forward: C -> 4C -> GELU -> C."""

        def __init__(self, config: GPTConfig):
            super().__init__()
            self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd, bias=config.bias)
            self.gelu = nn.GELU()
            self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd, bias=config.bias)
            self.dropout = nn.Dropout(config.dropout)

        def forward(self, x):
            return self.dropout(self.c_proj(self.gelu(self.c_fc(x))))

    class Block(nn.Module):
        """Pre-LayerNorm transformer block: x + attn(ln(x)), then x + mlp(ln(x))."""

        def __init__(self, config: GPTConfig):
            super().__init__()
            self.ln_1 = nn.LayerNorm(config.n_embd, bias=config.bias)
            self.attn = CausalSelfAttention(config)
            self.ln_2 = nn.LayerNorm(config.n_embd, bias=config.bias)
            self.mlp = MLP(config)

        def forward(self, x):
            x = x + self.attn(self.ln_1(x))
            return x + self.mlp(self.ln_2(x))

    class GPT(nn.Module):
        """Token + position embeddings, ``n_layer`` blocks, a final LayerNorm and a head tied to ``wte``."""

        def __init__(self, config: GPTConfig):
            super().__init__()
            self.config = config
            self.transformer = nn.ModuleDict(dict(
                wte=nn.Embedding(config.vocab_size, config.n_embd),
                wpe=nn.Embedding(config.block_size, config.n_embd),
                drop=nn.Dropout(config.dropout),
                h=nn.ModuleList([Block(config) for _ in range(config.n_layer)]),
                ln_f=nn.LayerNorm(config.n_embd, bias=config.bias),
            ))
            self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
            self.transformer.wte.weight = self.lm_head.weight  # weight tying (one Parameter, two names)
            self.apply(self._init_weights)
            # GPT-2's scaled init: each residual branch's output projection gets std 0.02 / sqrt(2 * n_layer)
            for name, p in self.named_parameters():
                if name.endswith("c_proj.weight"):
                    torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

        @staticmethod
        def _init_weights(module):
            if isinstance(module, nn.Linear):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
                if module.bias is not None:
                    torch.nn.init.zeros_(module.bias)
            elif isinstance(module, nn.Embedding):
                torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)

        def num_params(self, non_embedding: bool = True) -> int:
            """Parameter count; the position table is left out by default (as nanoGPT's MFU estimate does)."""
            n = sum(p.numel() for p in self.parameters())
            return n - self.transformer.wpe.weight.numel() if non_embedding else n

        def forward(self, idx, targets=None):
            B, T = idx.size()
            assert T <= self.config.block_size, f"sequence of length {T} > block_size {self.config.block_size}"
            pos = torch.arange(0, T, dtype=torch.long, device=idx.device)  # (T,)
            x = self.transformer.drop(self.transformer.wte(idx) + self.transformer.wpe(pos))  # (B, T, C)
            for block in self.transformer.h:
                x = block(x)
            x = self.transformer.ln_f(x)
            if targets is None:  # generation needs only the last position's logits
                return self.lm_head(x[:, [-1], :]), None
            logits = self.lm_head(x)  # (B, T, V)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
            return logits, loss

        def configure_optimizer(self, weight_decay: float, learning_rate: float, betas=(0.9, 0.95)):
            """AdamW with two groups: matrices (2-D and up) decay, biases and LayerNorm gains do not."""
            params = [p for p in self.parameters() if p.requires_grad]
            decay = [p for p in params if p.dim() >= 2]
            no_decay = [p for p in params if p.dim() < 2]
            groups = [{"params": decay, "weight_decay": weight_decay}, {"params": no_decay, "weight_decay": 0.0}]
            return torch.optim.AdamW(groups, lr=learning_rate, betas=betas)

        @torch.no_grad()
        def generate(self, idx, max_new_tokens: int, temperature: float = 1.0, top_k: int | None = None,
                     generator=None):
            """Extend ``idx`` (B, T) by ``max_new_tokens`` sampled tokens; ``top_k`` keeps the k likeliest."""
            for _ in range(max_new_tokens):
                idx_cond = idx if idx.size(1) <= self.config.block_size else idx[:, -self.config.block_size:]
                logits, _ = self(idx_cond)
                logits = logits[:, -1, :] / temperature  # (B, V)
                if top_k is not None:
                    v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                    logits[logits < v[:, [-1]]] = -float("inf")
                probs = F.softmax(logits, dim=-1)
                idx_next = torch.multinomial(probs, num_samples=1, generator=generator)  # (B, 1)
                idx = torch.cat((idx, idx_next), dim=1)
            return idx

    return SimpleNamespace(GPT=GPT, Block=Block, MLP=MLP, CausalSelfAttention=CausalSelfAttention)
