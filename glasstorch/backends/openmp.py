"""``glasstorch.backends.openmp`` — PyTorch's ``torch.backends.openmp``: numpy kernels do not use OpenMP."""


def is_available() -> bool:
    return False
