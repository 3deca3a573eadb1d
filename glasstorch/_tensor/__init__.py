"""L2 — Storage (a flat buffer on a device) and TensorImpl (how to read it: sizes, strides, offset, dtype)."""
