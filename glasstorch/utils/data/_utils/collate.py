"""Collation — PyTorch's ``torch/utils/data/_utils/collate.py``: a list of samples -> one batch.

``default_collate`` recurses through the structure of the first sample: tensors are stacked along a
new dim 0, numpy arrays and scalars become tensors and are stacked, Python floats become a float64
tensor, ints an int64 tensor (bools a bool tensor), strings and bytes stay a list; mappings, namedtuples
and sequences are collated field by field (tuples come back as lists, as in PyTorch).  ``default_convert``
(used when batching is off) only turns numpy data into tensors.  ``collate(batch, collate_fn_map=...)``
lets callers register per-type collate functions, checked by exact type, then in insertion order.

Invariant: the batch has the structure of one sample, with a leading batch dimension on every leaf.
"""

from __future__ import annotations

import collections.abc
import copy
import re

import numpy as np

from .... import _functions as _F
from ...._core import dtype as _dt
from ...._generated.functions import stack
from ....tensor import Tensor

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map", "collate_tensor_fn"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")
default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                                  "found {}")


def default_convert(data):
    """numpy arrays and scalars inside ``data`` -> tensors; everything else unchanged (structure kept)."""
    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return _F.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # namedtuple
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(d) for d in data])
    return data


def _rebuild_mapping(like, items: dict):
    """A mapping of ``like``'s type holding ``items`` (a copy updated in place when mutable; dict as last resort)."""
    try:
        if isinstance(like, collections.abc.MutableMapping):
            clone = copy.copy(like)
            clone.update(items)
            return clone
        return type(like)(items)
    except TypeError:
        return items


def _rebuild_sequence(like, items: list):
    try:
        if isinstance(like, collections.abc.MutableSequence):
            clone = copy.copy(like)
            for i, item in enumerate(items):
                clone[i] = item
            return clone
        return type(like)(items)
    except TypeError:
        return items


def collate(batch, *, collate_fn_map: dict | None = None):
    """Collate ``batch`` (a list of samples), dispatching leaves through ``collate_fn_map``."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for key, fn in collate_fn_map.items():
            if isinstance(elem, key):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_mapping(elem, {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map) for k in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch, strict=False)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if not all(len(e) == size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch, strict=False)]
        if isinstance(elem, tuple):
            return columns
        return _rebuild_sequence(elem, columns)
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    return stack(batch, 0)


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    if np_str_obj_array_pattern.search(batch[0].dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(batch[0].dtype))
    return collate([_F.as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    return _F.as_tensor(np.asarray(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    return _F.tensor(batch, dtype=_dt.float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    return _F.tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map: dict = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch):
    """Stack a list of samples into a batch (see the module docstring for the rules).

    Example:
        >>> import glasstorch as torch
        >>> default_collate([(torch.zeros(2), 1), (torch.ones(2), 2)])
        [tensor([[0., 0.],
                [1., 1.]]), tensor([1, 2])]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)
