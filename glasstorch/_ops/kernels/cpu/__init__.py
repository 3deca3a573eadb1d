"""CPU kernels on numpy."""
