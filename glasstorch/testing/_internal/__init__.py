"""``glasstorch.testing._internal`` — PyTorch's ``torch/testing/_internal``: helpers its own test suite uses."""
