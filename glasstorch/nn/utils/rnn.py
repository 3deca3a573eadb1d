"""Packed variable-length sequences — PyTorch's ``torch/nn/utils/rnn.py``.

A ``PackedSequence`` holds the rows of a batch of sequences time step by time step: ``data`` is ``(sum(L), *)``,
``batch_sizes[t]`` is how many sequences are still running at step ``t`` (non-increasing), and the sequences are
ordered by decreasing length (``sorted_indices`` maps that order back to the caller's, ``unsorted_indices`` is its
inverse; both None when the caller's batch was already sorted).

Invariant: packing and padding are built from differentiable operators (``index_select``, slicing, ``cat``,
``stack``), so gradients flow back to the padded input.
"""

from __future__ import annotations

from typing import NamedTuple

from ..._core import dtype as _dt
from ..._functions import as_tensor, full
from ..._generated.functions import cat, index_select, sort, stack
from ...tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class _PackedSequenceBase(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(_PackedSequenceBase):
    """The data and batch sizes of a packed batch of sequences (built by ``pack_padded_sequence``).

    Example:
        >>> import glasstorch as torch
        >>> p = torch.nn.utils.rnn.pack_sequence([torch.ones(3, 1), torch.ones(2, 1)])
        >>> p.batch_sizes
        tensor([2, 2, 1])
    """

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is not None:
            if batch_sizes.device.type != "cpu":
                raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be "
                                 "created manually. They should be instantiated by functions like pack_sequence "
                                 "and pack_padded_sequences in nn.utils.rnn. "
                                 "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
            return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)
        return super().__new__(cls, data[0], data[1], sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """``data.to(...)``; the index tensors follow to ``data``'s device; ``self`` when nothing changed."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        kw = {"device": data.device}
        sorted_indices = None if self.sorted_indices is None else self.sorted_indices.to(**kw)
        unsorted_indices = None if self.unsorted_indices is None else self.unsorted_indices.to(**kw)
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def pin_memory(self):
        return type(self)(self.data.pin_memory(), self.batch_sizes, *self[2:])

    def cuda(self, *args, **kwargs):
        return self.to(*args, device="cuda", **kwargs)

    def cpu(self, *args, **kwargs):
        return self.to(*args, device="cpu", **kwargs)

    def double(self):
        return self.to(dtype=_dt.float64)

    def float(self):
        return self.to(dtype=_dt.float32)

    def half(self):
        return self.to(dtype=_dt.float16)

    def long(self):
        return self.to(dtype=_dt.int64)

    def int(self):
        return self.to(dtype=_dt.int32)

    def short(self):
        return self.to(dtype=_dt.int16)

    def char(self):
        return self.to(dtype=_dt.int8)

    def byte(self):
        return self.to(dtype=_dt.uint8)

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return self.data.is_pinned()


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a permutation of ``0 .. n-1`` (None stays None)."""
    if permutation is None:
        return None
    order = [0] * permutation.numel()
    for position, index in enumerate(permutation.tolist()):
        order[index] = position
    return as_tensor(order, dtype=_dt.int64, device=permutation.device)


def _lengths_list(lengths) -> list:
    if isinstance(lengths, Tensor):
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def _check_lengths(lengths: list, batch_size: int, max_len: int) -> None:
    if len(lengths) != batch_size:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(lengths)} "
                           f"(batch_size={batch_size})")
    if min(lengths) <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' "
                           "that is <= 0")
    if any(a < b for a, b in zip(lengths, lengths[1:], strict=False)):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. "
                           "You can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                           "sidestep this requirement if you do not need ONNX exportability.")
    if lengths[0] > max_len:
        raise RuntimeError(f"pack_padded_sequence: a length of {lengths[0]} exceeds the padded sequence length "
                           f"{max_len}")


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False, enforce_sorted: bool = True):
    """Packs a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) of sequences of ``lengths``.

    Raises:
        RuntimeError: PyTorch's texts for a wrong number of lengths, a length <= 0, or unsorted lengths with
            ``enforce_sorted=True``.

    Example:
        >>> import glasstorch as torch
        >>> p = torch.nn.utils.rnn.pack_padded_sequence(torch.zeros(3, 2, 1), [3, 1])
        >>> p.batch_sizes
        tensor([2, 1, 1])
    """
    lengths_t = as_tensor(lengths, dtype=_dt.int64, device="cpu") if not isinstance(lengths, Tensor) else lengths
    sorted_indices = None
    if not enforce_sorted:
        lengths_t, sorted_indices = sort(lengths_t, descending=True)
        sorted_indices = sorted_indices.to(device=input.device)
        input = index_select(input, 0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = input.transpose(0, 1)
    lens = _lengths_list(lengths_t)
    _check_lengths(lens, input.size(1), input.size(0))
    batch_sizes = [sum(1 for n in lens if n > t) for t in range(lens[0])]
    data = cat([input[t, :bs] for t, bs in enumerate(batch_sizes)], 0)
    return PackedSequence(data, as_tensor(batch_sizes, dtype=_dt.int64, device="cpu"), sorted_indices, None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None):
    """The padded batch ``(T, B, *)`` and the lengths (int64, CPU) of a ``PackedSequence`` (inverse of packing).

    Raises:
        ValueError: ``total_length`` shorter than the longest sequence (PyTorch's text).

    Example:
        >>> import glasstorch as torch
        >>> p = torch.nn.utils.rnn.pack_sequence([torch.ones(2), torch.ones(1)])
        >>> torch.nn.utils.rnn.pad_packed_sequence(p)[1]
        tensor([2, 1])
    """
    data, sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    T, B = len(sizes), sizes[0]
    if total_length is not None and total_length < T:
        raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, but "
                         f"got total_length={total_length} and max sequence length being {T}")
    rest, steps, off = tuple(data.shape[1:]), [], 0
    kw = {"dtype": data.dtype, "device": data.device}
    for bs in sizes:
        piece = data[off:off + bs]
        steps.append(piece if bs == B else cat([piece, full((B - bs, *rest), padding_value, **kw)], 0))
        off += bs
    if total_length is not None and total_length > T:
        steps.extend([full((B, *rest), padding_value, **kw)] * (total_length - T))
    padded = stack(steps, 0)
    lengths = as_tensor([sum(1 for bs in sizes if bs > b) for b in range(B)], dtype=_dt.int64, device="cpu")
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        padded = index_select(padded, 0 if batch_first else 1, sequence.unsorted_indices)
        lengths = index_select(lengths, 0, sequence.unsorted_indices.to(device="cpu"))
    return padded, lengths


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0, padding_side: str = "right"):
    """Stacks tensors of shapes ``(L_i, *)`` into ``(max L, B, *)`` (``(B, max L, *)`` with ``batch_first``).

    Example:
        >>> import glasstorch as torch
        >>> torch.nn.utils.rnn.pad_sequence([torch.ones(2), torch.ones(1)], batch_first=True)
        tensor([[1., 1.],
                [1., 0.]])
    """
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    if isinstance(sequences, Tensor):
        sequences = sequences.unbind(0)
    sequences = list(sequences)
    L = max(s.size(0) for s in sequences)
    padded = []
    for s in sequences:
        if s.size(0) == L:
            padded.append(s)
            continue
        pad = full((L - s.size(0), *s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
        padded.append(cat([s, pad] if padding_side == "right" else [pad, s], 0))
    return stack(padded, 0 if batch_first else 1)


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list:
    """The list of sequences ``padded[:length]`` of a padded batch (inverse of ``pad_sequence``)."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences, _lengths_list(lengths), strict=False)]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    """Packs a list of tensors of shapes ``(L_i, *)``: ``pack_padded_sequence(pad_sequence(...), lengths)``."""
    lengths = as_tensor([s.size(0) for s in sequences], dtype=_dt.int64, device="cpu")
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    """The list of sequences of a ``PackedSequence`` (inverse of ``pack_sequence``)."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
