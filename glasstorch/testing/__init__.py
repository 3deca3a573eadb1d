"""``glasstorch.testing`` — PyTorch's ``torch.testing`` (its public helpers arrive with issue 22)."""
