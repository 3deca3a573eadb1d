"""CompositeImplicitAutograd kernels: operators written in terms of other operators."""
