"""Thin adapters where torch's test harness meets glasstorch objects.

Each translates at the boundary only (a glasstorch tensor to a torch tensor for a comparison, a torch dtype list
to glasstorch dtypes, a torch-built sample to a glasstorch tensor); none implements behaviour a test checks. See
docs/pytorch-tests.md for the list and the reason each exists.
"""
