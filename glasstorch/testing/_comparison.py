"""``torch.testing.assert_close``: compare two (nested) tensors, numbers or containers, with torch's rules and texts.

PyTorch counterpart: ``torch/testing/_comparison.py``.  The inputs are walked in step: sequences (not strings)
item by item after a length check, mappings key by key after a key check; each leaf pair goes to the first
comparison that takes it: both None, two booleans, two numbers, or two tensor-likes (Tensors, or what
``as_tensor`` takes, such as numpy arrays, when neither is a Tensor the other is not).  The first failure raises,
with the path of the failing item appended ("The failure occurred for item [1]['a']").

Tolerances: given together, or both defaulted from the dtypes (the loosest of the two inputs): float16 and
complex32 rtol 1e-3 / atol 1e-5, bfloat16 1.6e-2 / 1e-5, float32 and complex64 1.3e-6 / 1e-5, float64 and
complex128 1e-7 / 1e-7, every other dtype exact.  Python ints, floats and complexes count as int64, float64 and
complex128.
"""

from __future__ import annotations

import cmath
import collections.abc
import contextlib

import numpy as np

from .._core import dtype as _dt
from .._core.layout import sparse_coo, strided
from .._functions import as_tensor, promote_types, tensor
from .._generated.functions import isclose
from ..tensor import Tensor

__all__ = ["assert_close", "assert_allclose", "default_tolerances"]

_PRECISIONS = {
    _dt.float16: (1e-3, 1e-5), _dt.bfloat16: (1.6e-2, 1e-5), _dt.float32: (1.3e-6, 1e-5), _dt.float64: (1e-7, 1e-7),
    _dt.complex32: (1e-3, 1e-5), _dt.complex64: (1.3e-6, 1e-5), _dt.complex128: (1e-7, 1e-7),
}
_NUMBER_DTYPES = {int: _dt.int64, float: _dt.float64, complex: _dt.complex128}
_COMPRESSED = {  # layout name: compressed indices, plain indices, the name messages use
    "sparse_csr": ("crow_indices", "col_indices", "CSR"), "sparse_csc": ("ccol_indices", "row_indices", "CSC"),
    "sparse_bsr": ("crow_indices", "col_indices", "BSR"), "sparse_bsc": ("ccol_indices", "row_indices", "BSC"),
}


class _Failure(Exception):
    """A comparison failed: the exception type and message to raise, and the path of the item (torch's
    ``ErrorMeta``)."""

    def __init__(self, type_, msg, path=()):
        super().__init__(msg)
        self.type, self.msg, self.path = type_, msg, path

    def to_error(self, msg=None) -> Exception:
        if isinstance(msg, str):
            return self.type(msg)
        text = self.msg
        if self.path:
            text += "\n\nThe failure occurred for item " + "".join(str([p]) for p in self.path)
        return self.type(msg(text) if callable(msg) else text)


class _NotHandled(Exception):
    """This comparison does not take inputs of these types; the next one is tried."""


def _type_repr(cls) -> str:
    """``<class 'torch.Tensor'>``: a type as torch's messages show it (glasstorch's classes under torch's names)."""
    if cls is Tensor:
        return "<class 'torch.Tensor'>"
    text = repr(cls)
    return text.replace("'glasstorch.", "'torch.") if text.startswith("<class 'glasstorch.") else text


def default_tolerances(*inputs, dtype_precisions=None) -> tuple[float, float]:
    """The loosest default ``(rtol, atol)`` of the inputs' dtypes (Tensors or dtypes), from ``dtype_precisions``
    (a dict dtype -> (rtol, atol)) or the table above."""
    dtypes = []
    for x in inputs:
        if isinstance(x, Tensor):
            dtypes.append(x.dtype)
        elif isinstance(x, _dt.dtype):
            dtypes.append(x)
        else:
            raise TypeError(f"Expected a torch.Tensor or a torch.dtype, but got {type(x)} instead.")
    table = dtype_precisions or _PRECISIONS
    rtols, atols = zip(*[table.get(d, (0.0, 0.0)) for d in dtypes], strict=True)
    return max(rtols), max(atols)


def _tolerances(dtypes, rtol, atol, path):
    if (rtol is None) != (atol is None):
        raise _Failure(ValueError, f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                                   f"{'rtol' if rtol is None else 'atol'}.", path)
    if rtol is not None:
        return rtol, atol
    return default_tolerances(*dtypes)


def _mismatch_msg(what, extra, abs_diff, rel_diff, rtol, atol, abs_idx=None, rel_idx=None, identifier=None) -> str:
    """torch's mismatch report: the headline, ``extra``, and the greatest (or only) absolute and relative
    differences with their index and allowance (no allowance shown for an exact comparison)."""
    exact = rtol == 0 and atol == 0
    name = what if identifier is None else identifier(what) if callable(identifier) else identifier
    lines = [f"{name} are not {'equal' if exact else 'close'}!", "", extra.strip()]
    for kind, diff, idx, tol in (("absolute", abs_diff, abs_idx, atol), ("relative", rel_diff, rel_idx, rtol)):
        if idx is None:
            line = f"{kind.title()} difference: {diff}"
        else:
            line = f"Greatest {kind} difference: {diff} at index {idx}"
        lines.append(line if exact else f"{line} (up to {tol} allowed)")
    return "\n".join(lines)


def _scalar_msg(actual, expected, rtol, atol, identifier=None) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg("Scalars", f"Expected {expected} but got {actual}.", abs_diff, rel_diff, rtol, atol,
                         identifier=identifier)


def _unravel(flat: int, shape) -> tuple:
    index = []
    for size in reversed(shape):
        flat, mod = divmod(flat, size)
        index.append(mod)
    return tuple(reversed(index))


def _tensor_msg(actual, expected, matches, rtol, atol, identifier=None) -> str:
    total = matches.numel()
    bad = total - int(matches.sum())
    extra = f"Mismatched elements: {bad} / {total} ({bad / total:.1%})"
    if actual.dtype.is_floating_point and actual.dtype.itemsize == 1:  # float8: no differences, the first mismatch
        name = "Tensor-likes" if identifier is None else \
            identifier("Tensor-likes") if callable(identifier) else identifier
        first = _unravel(int((~matches).flatten().int().argmax()), tuple(matches.shape))
        return f"{name} are not 'equal'!\n\n{extra}\nThe first mismatched element is at index {first}."
    a, e, ok = actual.flatten(), expected.flatten(), matches.flatten()
    if not (actual.dtype.is_floating_point or actual.dtype.is_complex):
        a, e = a.to(_dt.int64), e.to(_dt.int64)  # differences of unsigned or narrow integers must not wrap
    abs_diff = (a - e).abs()
    abs_diff[ok] = 0
    rel_diff = abs_diff / e.abs()
    rel_diff[ok] = 0
    max_abs, abs_at = abs_diff.max(0)
    max_rel, rel_at = rel_diff.max(0)
    shape = tuple(matches.shape)
    return _mismatch_msg("Tensor-likes", extra, max_abs.item(), max_rel.item(), rtol, atol,
                         _unravel(int(abs_at), shape), _unravel(int(rel_at), shape), identifier)


class _Pair:
    """Two leaves and the options; ``compare`` raises :class:`_Failure`."""

    def __init__(self, actual, expected, path, options):
        self.actual, self.expected, self.path, self.options = actual, expected, path, options

    def fail(self, type_, msg):
        raise _Failure(type_, msg, self.path)


class _NonePair(_Pair):
    @classmethod
    def take(cls, actual, expected, path, options):
        if actual is not None and expected is not None:
            raise _NotHandled
        return cls(actual, expected, path, options)

    def compare(self):
        if not (self.actual is None and self.expected is None):
            self.fail(AssertionError, f"None mismatch: {self.actual} is not {self.expected}")


class _BooleanPair(_Pair):
    @classmethod
    def take(cls, actual, expected, path, options):
        if not all(isinstance(x, (bool, np.bool_)) for x in (actual, expected)):
            raise _NotHandled
        return cls(bool(actual), bool(expected), path, options)

    def compare(self):
        if self.actual is not self.expected:
            self.fail(AssertionError, f"Booleans mismatch: {self.actual} is not {self.expected}")


class _NumberPair(_Pair):
    @classmethod
    def take(cls, actual, expected, path, options):
        if not all(isinstance(x, (int, float, complex, np.number)) for x in (actual, expected)):
            raise _NotHandled
        actual, expected = (x.item() if isinstance(x, np.number) else x for x in (actual, expected))
        pair = cls(actual, expected, path, options)
        dtypes = [_NUMBER_DTYPES[complex if isinstance(x, complex) else float if isinstance(x, float) else int]
                  for x in (actual, expected)]
        pair.rtol, pair.atol = _tolerances(dtypes, options["rtol"], options["atol"], path)
        return pair

    def compare(self):
        a, e = self.actual, self.expected
        if self.options["check_dtype"] and type(a) is not type(e):
            self.fail(AssertionError, f"The (d)types do not match: {type(a)} != {type(e)}.")
        if a == e or (self.options["equal_nan"] and cmath.isnan(a) and cmath.isnan(e)):
            return
        diff = abs(a - e)
        if cmath.isfinite(diff) and diff <= self.atol + self.rtol * abs(e):
            return
        self.fail(AssertionError, _scalar_msg(a, e, self.rtol, self.atol))


class _TensorLikePair(_Pair):
    @classmethod
    def take(cls, actual, expected, path, options):
        if not (isinstance(actual, type(expected)) or isinstance(expected, type(actual))):
            raise _NotHandled
        if not options["allow_subclasses"] and type(actual) is not type(expected):
            raise _NotHandled
        actual, expected = (cls._tensor(x) for x in (actual, expected))
        pair = cls(actual, expected, path, options)
        pair.rtol, pair.atol = _tolerances((actual, expected), options["rtol"], options["atol"], path)
        return pair

    @staticmethod
    def _tensor(x) -> Tensor:
        if isinstance(x, Tensor):
            return x
        try:
            return as_tensor(x)
        except Exception:  # noqa: BLE001 - not a tensor-like: the next comparison may take it
            raise _NotHandled from None

    def compare(self):
        a, e, opt = self.actual, self.expected, self.options
        self._attributes(a, e, opt)
        if a.device.type == "meta" or e.device.type == "meta":
            return
        if a.device != e.device:
            a, e = a.cpu(), e.cpu()
        if a.dtype != e.dtype:
            common = promote_types(a.dtype, e.dtype)
            a, e = a.to(common), e.to(common)
        if a.layout != e.layout:
            a, e = (x if x.layout == strided else x.to_dense() for x in (a, e))
        if a.layout == sparse_coo:
            self._sparse_coo(a, e)
        elif str(a.layout).removeprefix("torch.") in _COMPRESSED:
            self._sparse_compressed(a, e)
        else:
            self._values(a, e, self.rtol, self.atol)

    def _attributes(self, a, e, opt):
        def mismatch(name, x, y):
            self.fail(AssertionError, f"The values for attribute '{name}' do not match: {x} != {y}.")

        if a.shape != e.shape:
            mismatch("shape", a.shape, e.shape)
        if a.layout != e.layout:
            if opt["check_layout"]:
                mismatch("layout", a.layout, e.layout)
        elif a.layout == strided and opt["check_stride"] and a.stride() != e.stride():
            mismatch("stride()", a.stride(), e.stride())
        if opt["check_device"] and a.device != e.device:
            mismatch("device", a.device, e.device)
        if opt["check_dtype"] and a.dtype != e.dtype:
            mismatch("dtype", a.dtype, e.dtype)

    def _values(self, a, e, rtol, atol, identifier=None):
        if a.dtype.is_floating_point and a.dtype.itemsize == 1 and (rtol != 0 or atol != 0):
            self.fail(AssertionError, f"Rtol={rtol} and atol={atol} are not supported for bitwise comparison of low "
                                      f"dimensional floats. Please use rtol=0.0 and atol=0.0.")
        matches = isclose(a, e, rtol=rtol, atol=atol, equal_nan=self.options["equal_nan"])
        if bool(matches.all()):
            return
        if a.dim() == 0:
            self.fail(AssertionError, _scalar_msg(a.item(), e.item(), rtol, atol, identifier))
        self.fail(AssertionError, _tensor_msg(a, e, matches, rtol, atol, identifier))

    def _sparse_coo(self, a, e):
        if a._nnz() != e._nnz():
            self.fail(AssertionError, f"The number of specified values in sparse COO tensors does not match: "
                                      f"{a._nnz()} != {e._nnz()}")
        self._values(a._indices(), e._indices(), 0, 0, "Sparse COO indices")
        self._values(a._values(), e._values(), self.rtol, self.atol, "Sparse COO values")

    def _sparse_compressed(self, a, e):
        compressed, plain, name = _COMPRESSED[str(a.layout).removeprefix("torch.")]
        if a._nnz() != e._nnz():
            self.fail(AssertionError, f"The number of specified values in sparse {name} tensors does not match: "
                                      f"{a._nnz()} != {e._nnz()}")
        self._values(getattr(a, compressed)(), getattr(e, compressed)(), 0, 0, f"Sparse {name} {compressed}")
        self._values(getattr(a, plain)(), getattr(e, plain)(), 0, 0, f"Sparse {name} {plain}")
        self._values(a.values(), e.values(), self.rtol, self.atol, f"Sparse {name} values")


_PAIRS = (_NonePair, _BooleanPair, _NumberPair, _TensorLikePair)


def _pairs(actual, expected, path, options) -> list:
    """The leaf pairs of two inputs walked in step; a length or key mismatch, or leaves no comparison takes,
    raise :class:`_Failure`."""
    def is_seq(x):
        return isinstance(x, collections.abc.Sequence) and not isinstance(x, str)

    if is_seq(actual) and is_seq(expected):
        if len(actual) != len(expected):
            raise _Failure(AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}",
                           path)
        return [p for i in range(len(actual)) for p in _pairs(actual[i], expected[i], (*path, i), options)]
    if isinstance(actual, collections.abc.Mapping) and isinstance(expected, collections.abc.Mapping):
        keys, other = set(actual.keys()), set(expected.keys())
        if keys != other:
            raise _Failure(AssertionError, f"The keys of the mappings do not match:\nMissing keys in the actual "
                                           f"mapping: {sorted(other - keys)}\nAdditional keys in the actual mapping: "
                                           f"{sorted(keys - other)}", path)
        with contextlib.suppress(Exception):  # a deterministic order where the keys sort
            keys = sorted(keys)
        return [p for k in keys for p in _pairs(actual[k], expected[k], (*path, k), options)]
    for kind in _PAIRS:
        try:
            return [kind.take(actual, expected, path, options)]
        except _NotHandled:
            continue
    raise _Failure(TypeError, f"No comparison pair was able to handle inputs of type {_type_repr(type(actual))} "
                              f"and {_type_repr(type(expected))}.", path)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None, equal_nan=False,
                 check_device=True, check_dtype=True, check_layout=True, check_stride=False, msg=None) -> None:
    """Assert that ``actual`` and ``expected`` are close: ``|actual - expected| <= atol + rtol * |expected|``
    elementwise, with equal shapes (and, unless switched off, devices, dtypes, layouts; strides on request).

    ``msg`` replaces the generated message (a string), or receives it and returns the one to raise (a callable).

    Raises:
        AssertionError: the inputs differ (torch's messages: "Tensor-likes are not close!" with the mismatch
            count and greatest differences, "Scalars are not equal!", attribute, length and key mismatches).
        ValueError: only one of ``rtol`` and ``atol`` given.
        TypeError: inputs no comparison takes.
    """
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype, check_layout=check_layout,
                   check_stride=check_stride)
    __tracebackhide__ = True
    try:
        for pair in _pairs(actual, expected, (), options):
            pair.compare()
    except _Failure as failure:
        raise failure.to_error(msg) from None


# assert_allclose's own, looser defaults
_ALLCLOSE_PRECISIONS = {_dt.float16: (1e-3, 1e-3), _dt.float32: (1e-4, 1e-5), _dt.float64: (1e-5, 1e-8)}


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg="") -> None:
    """The deprecated ``torch.testing.assert_allclose``: ``assert_close`` without the dtype check, NaNs equal by
    default, looser default tolerances, and non-tensor inputs made tensors first (``expected`` in ``actual``'s
    dtype)."""
    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = default_tolerances(actual, expected, dtype_precisions=_ALLCLOSE_PRECISIONS)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=True,
                 check_dtype=False, check_stride=False, msg=msg or None)
