"""glasstorch.utils — PyTorch's torch.utils (data loading arrives with the nn/optim layer)."""
