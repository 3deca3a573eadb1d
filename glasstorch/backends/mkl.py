"""``glasstorch.backends.mkl`` — PyTorch's ``torch.backends.mkl``: glasstorch does not link MKL itself."""


def is_available() -> bool:
    return False
