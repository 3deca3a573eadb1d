"""The driver's error-input check follows torch's own test_errors: a call that returns NotImplemented counts as
raising, an error input torch itself returns on is nothing to match, and samples sharing a storage share it
in glasstorch too (the overlap checks see the same aliasing)."""

from __future__ import annotations

import pytest
import torch

from . import driver
from .convert import to_gt


@pytest.mark.parametrize("key", ["__rsub__|-|errors", "__rdiv__|-|errors", "clamp_max|-|errors", "take|-|errors"])
def test_error_inputs_agree(key):
    driver.run_case(driver.Case(*key.split("|")), "dtypes")


def test_tensors_over_one_storage_share_it_after_conversion():
    base = torch.arange(3)
    a, b, c = to_gt((base[:2], base[1:], torch.arange(3)))
    assert a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    assert a.untyped_storage().data_ptr() != c.untyped_storage().data_ptr()
    b[0] = 7
    assert a.tolist() == [0, 7]
