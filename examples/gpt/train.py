"""Train the character-level GPT: ``python -m examples.gpt.train [--backend glasstorch|torch] ...``.

Counterpart: nanoGPT's ``train.py`` (single process, no DDP), written against PyTorch's public API and run on
glasstorch by default. It reads a corpus (the Python standard library's source, or ``--text FILE``), builds a
char vocabulary, trains with AdamW (decay/no-decay groups), warmup + cosine LR and gradient clipping, shows a
tqdm bar (loss, tokens/s, ETA), estimates the val loss now and then, keeps an atomic checkpoint (resumable with
``--resume``: the checkpoint holds its corpus and vocabulary, so resuming needs only ``--out``), draws the
loss curve next to the checkpoint (``OUT/loss.png``), and prints a sample at the end.
Key invariant: the backend is exactly the one asked for — nothing falls back to PyTorch behind the user's back.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make ``examples.gpt`` importable, then import relatively
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    __package__ = "examples.gpt"

from .backend import BACKENDS, cap_blas_threads, load, maybe_compile, set_threads  # noqa: E402
from .checkpoint import checkpoint_path, load_checkpoint, save_checkpoint  # noqa: E402
from .data import DEFAULT_CORPUS_CHARS, CharVocab, get_batch, read_text, split_ids  # noqa: E402
from .model import GPTConfig, build_gpt  # noqa: E402
from .plot import plot_losses  # noqa: E402

# The `make run` model: small enough that glasstorch trains it in about a minute or two on 2 cores.
DEFAULTS = dict(n_layer=2, n_head=4, n_embd=64, block_size=64, batch_size=16, iters=500, lr=3e-3)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    a = p.add_argument
    a("--backend", choices=BACKENDS, default="glasstorch", help="tensor library (torch = real PyTorch, to compare)")
    a("--device", default="cpu")
    a("--text", default=None, help="UTF-8 text file to train on (default: the Python stdlib's source)")
    a("--max-chars", type=int, default=DEFAULT_CORPUS_CHARS, help="size cap of the default stdlib corpus")
    a("--out", default="out/gpt", help="folder for ckpt.pt and loss.png")
    a("--resume", action="store_true",
      help="continue from OUT/ckpt.pt (its own corpus, vocabulary and model config) up to --iters in total")
    a("--n-layer", "--n_layer", dest="n_layer", type=int, default=DEFAULTS["n_layer"])
    a("--n-head", "--n_head", dest="n_head", type=int, default=DEFAULTS["n_head"])
    a("--n-embd", "--n_embd", dest="n_embd", type=int, default=DEFAULTS["n_embd"])
    a("--block-size", "--block_size", dest="block_size", type=int, default=DEFAULTS["block_size"])
    a("--batch-size", "--batch_size", "--batch", dest="batch_size", type=int, default=DEFAULTS["batch_size"])
    a("--dropout", type=float, default=0.0)
    a("--iters", type=int, default=DEFAULTS["iters"], help="total training iterations")
    a("--lr", type=float, default=DEFAULTS["lr"], help="peak learning rate")
    a("--min-lr", type=float, default=None, help="final learning rate of the cosine (default lr/10)")
    a("--warmup-iters", type=int, default=None, help="linear warmup length (default iters/20)")
    a("--lr-decay-iters", type=int, default=None, help="where the cosine reaches --min-lr (default --iters)")
    a("--weight-decay", type=float, default=0.1)
    a("--grad-clip", type=float, default=1.0, help="max global grad norm (0 disables)")
    a("--eval-interval", type=int, default=100)
    a("--eval-iters", type=int, default=5, help="batches per split in each val-loss estimate")
    a("--seed", type=int, default=1337)
    a("--threads", type=int, default=1, help="torch.set_num_threads (and the BLAS pool size)")
    a("--compile", action="store_true", help="torch.compile the model (glasstorch.compile on glasstorch)")
    a("--sample-chars", type=int, default=200, help="characters to sample at the end (0: none)")
    a("--temperature", type=float, default=0.8)
    a("--top-k", type=int, default=None)
    a("--profile", action="store_true", help="profile one training step by layer and exit")
    a("--no-progress", action="store_true", help="plain log lines instead of a tqdm bar")
    return p


class WarmupCosine:
    """LR multiplier for LambdaLR: linear warmup to 1, cosine down to ``min_ratio`` at ``decay_iters``.

    A class (not a lambda) so the scheduler's state_dict keeps it and ``--resume`` restores it.
    """

    def __init__(self, warmup_iters: int, decay_iters: int, min_ratio: float):
        self.warmup_iters, self.decay_iters, self.min_ratio = warmup_iters, decay_iters, min_ratio

    def __call__(self, it: int) -> float:
        if it < self.warmup_iters:
            return (it + 1) / (self.warmup_iters + 1)
        if it >= self.decay_iters:
            return self.min_ratio
        progress = (it - self.warmup_iters) / max(1, self.decay_iters - self.warmup_iters)
        return self.min_ratio + 0.5 * (1.0 + math.cos(math.pi * progress)) * (1.0 - self.min_ratio)


def corpus_for(args, ckpt) -> tuple[str, str]:
    """The training text and where it came from: a resumed run's own (saved in its checkpoint, so ``--resume``
    needs only ``--out``), else ``--text`` or the stdlib corpus.  A ``--text`` that disagrees with the checkpoint
    is refused rather than silently mixed into a run that trained on other text."""
    if ckpt is None or "corpus" not in ckpt:  # a checkpoint from before corpora were saved reads --text again
        return read_text(args.text, args.max_chars)
    if args.text is not None and read_text(args.text, args.max_chars)[0] != ckpt["corpus"]:
        raise SystemExit(f"--resume continues on the corpus saved in {checkpoint_path(args.out)} "
                         f"({ckpt['corpus_source']}); {args.text} holds other text: drop --text, or start a new --out")
    return ckpt["corpus"], ckpt["corpus_source"]


class Run:
    """Everything one training run holds: backend, data, model, optimizer, scheduler and the history."""

    def __init__(self, args, torch, ckpt=None):
        self.args, self.torch = args, torch
        text, self.source = corpus_for(args, ckpt)
        self.vocab = CharVocab(ckpt["vocab"]) if ckpt else CharVocab.from_text(text)
        self.corpus = text
        self.train_data, self.val_data = split_ids(torch, self.vocab.encode(text))
        self.config = GPTConfig(**ckpt["config"]) if ckpt else GPTConfig(
            block_size=args.block_size, vocab_size=len(self.vocab), n_layer=args.n_layer, n_head=args.n_head,
            n_embd=args.n_embd, dropout=args.dropout)
        self.model = build_gpt(torch).GPT(self.config).to(args.device)
        self.optimizer = self.model.configure_optimizer(args.weight_decay, args.lr)
        warmup = args.warmup_iters if args.warmup_iters is not None else max(1, args.iters // 20)
        min_lr = args.min_lr if args.min_lr is not None else args.lr / 10
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, WarmupCosine(warmup, args.lr_decay_iters or args.iters, min_lr / args.lr))
        self.iter_num, self.history = 0, {"train": [], "val": []}
        if ckpt:
            self._restore(ckpt)
        self.step_model = maybe_compile(torch, self.model, args.compile)

    def _restore(self, ckpt):
        self.model.load_state_dict(ckpt["model"])
        self.optimizer.load_state_dict(ckpt["optimizer"])  # after the scheduler's first step: restores the lr
        self.scheduler.load_state_dict(ckpt["scheduler"])
        self.torch.set_rng_state(ckpt["rng_state"])
        self.iter_num, self.history = ckpt["iter_num"], ckpt["history"]

    def batch(self, split: str):
        data = self.train_data if split == "train" else self.val_data
        x, y = get_batch(self.torch, data, self.args.batch_size, self.config.block_size)
        return x.to(self.args.device), y.to(self.args.device)

    def train_step(self) -> float:
        """One iteration: forward, backward, clip, AdamW step, LR step; returns the loss as a float.

        ``last_phases`` keeps the wall time of its three phases: forward (batch + model + loss), backward
        (zero_grad + autograd), optimizer (clipping + AdamW + LR schedule).
        """
        t0 = time.perf_counter()
        x, y = self.batch("train")
        _, loss = self.step_model(x, y)
        loss_value = loss.item()
        t1 = time.perf_counter()
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        t2 = time.perf_counter()
        if self.args.grad_clip > 0:
            self.torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.grad_clip)
        self.optimizer.step()
        self.scheduler.step()
        self.iter_num += 1
        self.last_phases = {"forward": t1 - t0, "backward": t2 - t1, "optimizer": time.perf_counter() - t2}
        return loss_value

    def estimate_loss(self) -> dict:
        """Mean loss over ``eval_iters`` batches per split, in eval() mode and without a graph."""
        self.model.eval()
        out = {}
        with self.torch.no_grad():
            for split in ("train", "val"):
                out[split] = sum(self.model(*self.batch(split))[1].item()
                                 for _ in range(self.args.eval_iters)) / self.args.eval_iters
        self.model.train()
        return out

    def save(self, path: str) -> None:
        save_checkpoint(self.torch, {
            "model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
            "scheduler": self.scheduler.state_dict(), "iter_num": self.iter_num, "config": self.config.to_dict(),
            "vocab": self.vocab.itos, "rng_state": self.torch.get_rng_state(), "history": self.history,
            "backend": self.torch.__name__, "corpus": self.corpus, "corpus_source": self.source,
        }, path)

    def sample(self, n_chars: int, temperature: float, top_k: int | None, seed: int) -> str:
        torch = self.torch
        g = torch.Generator().manual_seed(seed)
        start = self.vocab.stoi.get("\n", 0)
        idx = torch.tensor([[start]], dtype=torch.long, device=self.args.device)
        self.model.eval()
        out = self.model.generate(idx, n_chars, temperature=temperature, top_k=top_k, generator=g)
        self.model.train()
        return self.vocab.decode(out[0].tolist()[1:])


def _progress(start: int, total: int, enabled: bool):
    if not enabled:
        return None
    from tqdm import tqdm  # a dependency of glasstorch; imported here so --no-progress runs without it

    return tqdm(total=total, initial=start, unit="it", dynamic_ncols=True, smoothing=0.1)


def train(run: Run, args) -> dict:
    """The loop: steps, periodic val loss + checkpoint, and a final evaluation + checkpoint."""
    tokens_per_iter = args.batch_size * run.config.block_size
    bar = _progress(run.iter_num, args.iters, not args.no_progress)
    ckpt = checkpoint_path(args.out)
    losses, tok_s = None, None
    while run.iter_num < args.iters:
        lr = run.optimizer.param_groups[0]["lr"]  # the lr this step uses
        t0 = time.perf_counter()
        loss = run.train_step()
        dt = time.perf_counter() - t0
        run.history["train"].append((run.iter_num, loss))
        tok_s = tokens_per_iter / dt if tok_s is None else 0.9 * tok_s + 0.1 * tokens_per_iter / dt  # smoothed
        stats = dict(loss=f"{loss:.4f}", tok_s=f"{tok_s:,.0f}", lr=f"{lr:.2e}")
        if bar is not None:
            bar.set_postfix(stats, refresh=False)
            bar.update(1)
        if run.iter_num % args.eval_interval == 0 or run.iter_num == args.iters:
            losses = run.estimate_loss()
            run.history["val"].append((run.iter_num, losses["val"]))
            run.save(ckpt)
            msg = f"iter {run.iter_num}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f} (saved {ckpt})"
            (bar.write if bar is not None else print)(msg)
        elif bar is None and run.iter_num % 10 == 0:
            print(f"iter {run.iter_num}: loss {stats['loss']}, {stats['tok_s']} tok/s, lr {stats['lr']}")
    if bar is not None:
        bar.close()
    return losses or {}


def main(argv=None) -> dict:
    args = build_parser().parse_args(argv)
    cap_blas_threads(args.threads)  # before the backend (and numpy) load
    torch = load(args.backend)
    note = set_threads(torch, args.threads)
    if note:
        print(note)
    torch.manual_seed(args.seed)
    ckpt = load_checkpoint(torch, checkpoint_path(args.out)) if args.resume else None
    run = Run(args, torch, ckpt)
    _describe(run, args, resumed=ckpt is not None)
    if args.profile:
        from .profile_step import profile_training_step

        profile_training_step(run)
        return {"profiled": True}
    t0 = time.perf_counter()
    losses = train(run, args)
    elapsed = time.perf_counter() - t0
    print(f"trained to iteration {run.iter_num} in {elapsed:.1f}s; checkpoint {checkpoint_path(args.out)}")
    print(plot_losses(run.history, os.path.join(args.out, "loss.png")))
    result = {"losses": losses, "iter_num": run.iter_num, "checkpoint": checkpoint_path(args.out)}
    if args.sample_chars > 0:
        result["sample"] = run.sample(args.sample_chars, args.temperature, args.top_k, args.seed)
        print(f"--- sample ({args.sample_chars} chars, temperature {args.temperature}) ---")
        print(result["sample"])
    return result


def _describe(run: Run, args, resumed: bool) -> None:
    c = run.config
    print(f"backend {run.torch.__name__} {getattr(run.torch, '__version__', '')}, device {args.device}, "
          f"threads {args.threads}, seed {args.seed}")
    print(f"data: {run.source}; vocab {len(run.vocab)} chars; train {len(run.train_data):,} / "
          f"val {len(run.val_data):,} tokens")
    print(f"model: {c.n_layer} layers, {c.n_head} heads, {c.n_embd} wide, block {c.block_size}, "
          f"{run.model.num_params() / 1e6:.3f}M params (non-embedding); batch {args.batch_size}")
    if resumed:
        print(f"resumed from {checkpoint_path(args.out)} at iteration {run.iter_num}")


if __name__ == "__main__":
    main()
