"""``glasstorch.backends.mps`` — PyTorch's ``torch.backends.mps``: no Metal backend here."""


def is_available() -> bool:
    return False


def is_built() -> bool:
    return False
