"""glasstorch.utils — PyTorch's torch.utils: ``data`` (datasets, samplers, DataLoader), ``safetensors``
(the Hugging Face tensor file format) and ``_python_dispatch`` (TorchDispatchMode)."""
