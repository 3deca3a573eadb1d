"""Kernels of the sparse layouts (SparseCPU and SparseCsrCPU keys) — PyTorch's ``aten/src/ATen/native/sparse``."""
