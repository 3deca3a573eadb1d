"""L3 — operators ("ATen"): kernels over TensorImpls, factories, and (next) the dispatcher and codegen."""
