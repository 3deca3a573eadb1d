"""Internals of ``glasstorch.utils.data`` — PyTorch's ``torch/utils/data/_utils``: collation, fetching, workers."""

from . import collate, fetch, worker  # noqa: F401

# How often (seconds) a blocked worker or main loop wakes up to check that its peer is still alive.
MP_STATUS_CHECK_INTERVAL = 5.0
