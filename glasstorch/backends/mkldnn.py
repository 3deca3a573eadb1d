"""``glasstorch.backends.mkldnn`` — PyTorch's ``torch.backends.mkldnn`` (oneDNN): not used by glasstorch."""

enabled = True


def is_available() -> bool:
    return False
