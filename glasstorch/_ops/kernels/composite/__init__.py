"""CompositeExplicitAutograd kernels: one backend-agnostic kernel serves CPU, Meta and every device."""
