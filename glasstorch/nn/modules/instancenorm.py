"""Instance normalization layers — PyTorch's ``torch/nn/modules/instancenorm.py``: InstanceNorm1d/2d/3d.

Each (sample, channel) plane is normalized by its own mean and variance (``F.instance_norm``); ``affine`` adds a
per-channel weight and bias, ``track_running_stats`` keeps running statistics used in eval mode.  Unbatched inputs
get a batch dimension of one.

Invariant: the layers share ``_NormBase``'s parameters and buffers (off by default: ``affine=False``,
``track_running_stats=False``).
"""

from __future__ import annotations

import warnings

from .. import functional as F
from .batchnorm import _NormBase

__all__ = ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class _InstanceNorm(_NormBase):
    _no_batch_dim = 2

    def __init__(self, num_features: int, eps: float = 1e-5, momentum: float = 0.1, affine: bool = False,
                 track_running_stats: bool = False, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device=device, dtype=dtype,
                         bias=bias)

    def _get_no_batch_dim(self) -> int:
        return self._no_batch_dim

    def _check_input_dim(self, input) -> None:
        d = self._no_batch_dim
        if input.dim() not in (d, d + 1):
            raise ValueError(f"expected {d}D or {d + 1}D input (got {input.dim()}D input)")

    def _apply_instance_norm(self, input):
        return F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.0, self.eps)

    def forward(self, input):
        self._check_input_dim(input)
        feature_dim = input.dim() - self._no_batch_dim
        if input.size(feature_dim) != self.num_features:
            if self.affine:
                raise ValueError(f"expected input's size at dim={feature_dim} to match num_features "
                                 f"({self.num_features}), but got: {input.size(feature_dim)}.")
            warnings.warn(f"input's size at dim={feature_dim} does not match num_features. You can silence this "
                          f"warning by not passing in num_features, which is not used because affine=False",
                          stacklevel=2)
        if input.dim() == self._no_batch_dim:
            return self._apply_instance_norm(input.unsqueeze(0)).squeeze(0)
        return self._apply_instance_norm(input)


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of (N, C, L) or (C, L) inputs (``nn.InstanceNorm1d``)."""

    _no_batch_dim = 2


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W) or (C, H, W) inputs (``nn.InstanceNorm2d``)."""

    _no_batch_dim = 3


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of (N, C, D, H, W) or (C, D, H, W) inputs (``nn.InstanceNorm3d``)."""

    _no_batch_dim = 4
