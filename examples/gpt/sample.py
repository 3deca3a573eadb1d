"""Sample text from a trained GPT checkpoint: ``python -m examples.gpt.sample --out out-gpt``.

Counterpart: nanoGPT's ``sample.py``. It rebuilds the model from the checkpoint's config, loads its weights,
and draws characters with temperature scaling, optional top-k filtering and ``torch.multinomial``.
Key invariant: the vocabulary comes from the checkpoint, never from re-reading the corpus, so ids decode to the
characters they were trained on.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

if __package__ in (None, ""):  # run as a file: make ``examples.gpt`` importable, then import relatively
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    __package__ = "examples.gpt"

from .backend import BACKENDS, cap_blas_threads, load, set_threads  # noqa: E402
from .checkpoint import checkpoint_path, load_checkpoint  # noqa: E402
from .data import CharVocab  # noqa: E402
from .model import GPTConfig, build_gpt  # noqa: E402


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    a = p.add_argument
    a("--backend", choices=BACKENDS, default="glasstorch")
    a("--device", default="cpu")
    a("--out", default="out/gpt", help="folder holding ckpt.pt")
    a("--start", default="\n", help="prompt text (characters must be in the checkpoint's vocabulary)")
    a("--num-samples", type=int, default=1)
    a("--max-new-tokens", "--chars", dest="max_new_tokens", type=int, default=300)
    a("--temperature", type=float, default=0.8, help="<1 sharper, >1 more random")
    a("--top-k", type=int, default=None, help="keep only the k likeliest characters at each step")
    a("--seed", type=int, default=1337)
    a("--threads", type=int, default=1)
    return p


def load_model(torch, out_dir: str, device: str = "cpu"):
    """The model (in eval mode) and vocabulary stored in ``out_dir``'s checkpoint."""
    ckpt = load_checkpoint(torch, checkpoint_path(out_dir))
    model = build_gpt(torch).GPT(GPTConfig(**ckpt["config"]))
    model.load_state_dict(ckpt["model"])
    return model.to(device).eval(), CharVocab(ckpt["vocab"])


def main(argv=None) -> list[str]:
    args = build_parser().parse_args(argv)
    cap_blas_threads(args.threads)
    torch = load(args.backend)
    note = set_threads(torch, args.threads)
    if note:
        print(note)
    if args.temperature <= 0:
        raise SystemExit(f"--temperature must be > 0, got {args.temperature}")
    model, vocab = load_model(torch, args.out, args.device)
    g = torch.Generator().manual_seed(args.seed)
    idx = torch.tensor([vocab.encode(args.start)], dtype=torch.long, device=args.device)
    samples = []
    for k in range(args.num_samples):
        out = model.generate(idx, args.max_new_tokens, temperature=args.temperature, top_k=args.top_k, generator=g)
        samples.append(vocab.decode(out[0].tolist()))
        print(f"--- sample {k + 1}/{args.num_samples} ---")
        print(samples[-1])
    return samples


if __name__ == "__main__":
    main()
