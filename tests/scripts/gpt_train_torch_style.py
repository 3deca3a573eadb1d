"""A small GPT training script written the way PyTorch users write them (``import torch``), used by
tests/test_compat_gpt_script.py: run unmodified with real PyTorch and through ``python -m glasstorch.compat``,
the printed losses must agree.  Weights and batches come from numpy so both runs start from the same numbers.

Usage: gpt_train_torch_style.py OUT_DIR
"""

import math
import os
import sys
from contextlib import nullcontext

import numpy as np
import torch
import torch.nn as nn
from torch.nn import functional as F

out_dir = sys.argv[1]
os.makedirs(out_dir, exist_ok=True)
torch.manual_seed(1337)
device = "cuda" if torch.cuda.is_available() else "cpu"
ctx = nullcontext() if device == "cpu" else torch.autocast(device_type=device, dtype=torch.bfloat16)
block_size, batch_size, n_layer, n_head, n_embd = 16, 4, 2, 2, 32
text = "the quick brown fox jumps over the lazy dog. " * 40
chars = sorted(set(text))
stoi = {ch: i for i, ch in enumerate(chars)}
itos = {i: ch for ch, i in stoi.items()}
data = np.array([stoi[c] for c in text], dtype=np.int64)
vocab_size = len(chars)


class CausalSelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(n_embd, dim=2)
        q = q.view(B, T, n_head, C // n_head).transpose(1, 2)
        k = k.view(B, T, n_head, C // n_head).transpose(1, 2)
        v = v.view(B, T, n_head, C // n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention()
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(), nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab_size, n_embd), wpe=nn.Embedding(block_size, n_embd),
            h=nn.ModuleList([Block() for _ in range(n_layer)]), ln_f=nn.LayerNorm(n_embd)))
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.transformer.wte.weight = self.lm_head.weight  # weight tying

    def forward(self, idx, targets=None):
        pos = torch.arange(0, idx.size(1), dtype=torch.long, device=idx.device)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)
        for block in self.transformer.h:
            x = block(x)
        logits = self.lm_head(self.transformer.ln_f(x))
        if targets is None:
            return logits[:, [-1], :], None
        return logits, F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=-1)

    @torch.no_grad()
    def generate(self, idx, max_new_tokens, temperature=1.0, top_k=None):
        for _ in range(max_new_tokens):
            logits, _ = self(idx[:, -block_size:])
            logits = logits[:, -1, :] / temperature
            if top_k is not None:
                v, _ = torch.topk(logits, min(top_k, logits.size(-1)))
                logits[logits < v[:, [-1]]] = -float("Inf")
            idx_next = torch.multinomial(F.softmax(logits, dim=-1), num_samples=1)
            idx = torch.cat((idx, idx_next), dim=1)
        return idx


def init_from_numpy(model):
    rng = np.random.default_rng(0)
    with torch.no_grad():
        for name, p in model.named_parameters():
            values = rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.02
            if name.endswith("bias"):
                values[:] = 0
            elif ".ln_" in name or name.startswith("transformer.ln_f"):
                values[:] = 1
            p.copy_(torch.from_numpy(values))


def get_batch(rng):
    ix = rng.integers(0, len(data) - block_size - 1, size=batch_size)
    x = torch.from_numpy(np.stack([data[i:i + block_size] for i in ix]))
    y = torch.from_numpy(np.stack([data[i + 1:i + 1 + block_size] for i in ix]))
    return x.to(device), y.to(device)


def configure_optimizers(model, weight_decay, learning_rate, betas):
    params = {pn: p for pn, p in model.named_parameters() if p.requires_grad}
    decay = [p for p in params.values() if p.dim() >= 2]
    nodecay = [p for p in params.values() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": weight_decay}, {"params": nodecay, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=learning_rate, betas=betas)


warmup_iters, max_iters, learning_rate, min_lr = 3, 10, 3e-3, 3e-4


def get_lr(it):
    if it < warmup_iters:
        return learning_rate * (it + 1) / (warmup_iters + 1)
    ratio = (it - warmup_iters) / (max_iters - warmup_iters)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (learning_rate - min_lr)


def train(model, optimizer, scaler, start, stop, rng):
    for it in range(start, stop):
        for group in optimizer.param_groups:
            group["lr"] = get_lr(it)
        X, Y = get_batch(rng)
        with ctx:
            _, loss = model(X, Y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
        print(f"iter {it}: loss {loss.item():.6f} norm {float(norm):.6f} scale {scaler.get_scale():.1f}")


model = GPT().to(device)
init_from_numpy(model)
optimizer = configure_optimizers(model, 0.1, learning_rate, (0.9, 0.95))
scaler = torch.amp.GradScaler("cpu", init_scale=2.0 ** 10)
rng = np.random.default_rng(1)
train(model, optimizer, scaler, 0, 5, rng)
ckpt_path = os.path.join(out_dir, "ckpt.pt")
torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(), "scaler": scaler.state_dict(),
            "iter_num": 5, "rng": rng.bit_generator.state}, ckpt_path)

# resume into fresh objects, as a script restarted with init_from='resume' would
checkpoint = torch.load(ckpt_path, map_location=device, weights_only=False)
model = GPT().to(device)
model.load_state_dict(checkpoint["model"])
optimizer = configure_optimizers(model, 0.1, learning_rate, (0.9, 0.95))
optimizer.load_state_dict(checkpoint["optimizer"])
scaler = torch.amp.GradScaler("cpu")
scaler.load_state_dict(checkpoint["scaler"])
rng = np.random.default_rng(1)
rng.bit_generator.state = checkpoint["rng"]
train(model, optimizer, scaler, checkpoint["iter_num"], max_iters, rng)

model.eval()
start = torch.tensor([[stoi["t"]]], dtype=torch.long, device=device)
out = model.generate(start, max_new_tokens=20, temperature=0.8, top_k=5)[0].tolist()
sample = "".join(itos[i] for i in out)
assert len(sample) == 21 and set(sample) <= set(chars), sample
print(f"sample of {len(sample)} chars from a vocabulary of {vocab_size}")
