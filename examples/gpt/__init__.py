"""nanoGPT-style character-level GPT written against PyTorch's public API, run on glasstorch (or real PyTorch).

``python -m examples.gpt.train`` trains, ``python -m examples.gpt.sample`` samples from a checkpoint; both also run
as plain files (``python examples/gpt/train.py``). ``--backend torch`` runs the same code on real PyTorch.
"""
