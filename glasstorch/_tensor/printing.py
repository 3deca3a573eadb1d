"""Tensor ``repr``/``str`` — glasstorch's counterpart of PyTorch's ``torch/_tensor_str.py``.

Invariant: for a tensor with the same values, dtype, device and autograd state, and under the same
print options and default dtype, :func:`tensor_repr` returns character for character the text that
real PyTorch prints.

The module has two layers:

* a numpy layer (:func:`format_values`, :func:`render`) that knows the text format and nothing about
  the Tensor class: it takes a numpy array of element values plus a :class:`TensorFacts` record;
* :func:`tensor_repr`, which reads those facts off a glasstorch Tensor.

How PyTorch lays a tensor out, in brief:

* One element style serves the whole tensor (for complex: one for the real parts, one for the
  imaginary parts).  It is chosen from the finite nonzero values only: "integer style" (``1.``) when all
  of them are whole numbers, scientific notation when ``max/min > 1000``, ``max > 1e8`` or
  ``min < 1e-4`` (``sci_mode`` overrides), fixed point with ``precision`` digits otherwise.  Every
  element is right-aligned to the widest of those finite nonzero values.
* More than ``threshold`` elements: each dimension keeps only ``edgeitems`` entries at each end, the
  rest is shown as ``...``; the element style then looks at the kept entries only.
* A 1-d row wraps once it would pass ``linewidth``; nested dimensions indent by one column per level
  and are separated by ``dim - 1`` newlines.
* After the values come suffixes (``device=``, ``size=``, ``dtype=``, ``grad_fn=``/``requires_grad=``),
  each moved to a new line if it would pass ``linewidth``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
from typing import Any

import numpy as np

from .._core import dtype as _dt

__all__ = [
    "set_printoptions", "get_printoptions", "printoptions", "tensor_repr",
    "TensorFacts", "format_values", "render", "facts_from_numpy",
]


# --------------------------------------------------------------------------------------------------
# Print options
# --------------------------------------------------------------------------------------------------

@dataclasses.dataclass
class _PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_OPTS = _PrintOptions()

# profile name -> (precision, threshold, edgeitems, linewidth)
_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None,
                     sci_mode=None):
    """Set the options used to print tensors (``torch.set_printoptions``).

    A ``profile`` ('default', 'short' or 'full') first resets precision, threshold, edgeitems and
    linewidth; explicit arguments then override it.  ``sci_mode`` is always assigned, so leaving it out
    returns it to automatic choice (None), as in PyTorch.

    Example:
        >>> set_printoptions(precision=2); get_printoptions()["precision"]
        2
        >>> set_printoptions(profile="default")
    """
    if profile in _PROFILES:
        _OPTS.precision, _OPTS.threshold, _OPTS.edgeitems, _OPTS.linewidth = _PROFILES[profile]
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            setattr(_OPTS, name, value)
    _OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options as a dict that can be passed back to :func:`set_printoptions`."""
    return dataclasses.asdict(_OPTS)


@contextlib.contextmanager
def printoptions(**kwargs):
    """Context manager: apply ``set_printoptions(**kwargs)`` inside the block, restore afterwards."""
    saved = get_printoptions()
    set_printoptions(**kwargs)
    try:
        yield
    finally:
        set_printoptions(**saved)


# --------------------------------------------------------------------------------------------------
# Element style
# --------------------------------------------------------------------------------------------------

class _ElementStyle:
    """How each element of one real-valued tensor is written, and the common width it is padded to.

    ``values`` is a numpy array (any shape) of the elements that decide the style: for floating
    tensors a float64 array, otherwise an integer or bool array.
    """

    def __init__(self, values: np.ndarray, floating: bool):
        self.floating = floating
        self.integral = True  # "1." style for floats whose finite nonzero values are all whole
        self.sci = False
        self.width = 1
        if floating:
            self._choose_float_style(values.reshape(-1))
        else:
            self.width = max([1] + [len(str(v)) for v in values.reshape(-1).tolist()])

    def _choose_float_style(self, flat: np.ndarray) -> None:
        decisive = flat[np.isfinite(flat) & (flat != 0)]
        if decisive.size == 0:
            return  # only zeros / nan / inf: keep "0." style, whatever sci_mode says
        magnitudes = np.abs(decisive)
        lo, hi = float(magnitudes.min()), float(magnitudes.max())
        self.integral = bool(np.all(decisive == np.ceil(decisive)))
        if _OPTS.sci_mode is None:
            self.sci = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        else:
            self.sci = bool(_OPTS.sci_mode)
        self.width = max([1] + [self._measure(v) for v in decisive.tolist()])

    def _measure(self, value: float) -> int:
        if self.sci:
            return len(f"{value:.{_OPTS.precision}e}")
        if self.integral:
            return len(f"{value:.0f}") + 1  # room for the trailing "."
        return len(f"{value:.{_OPTS.precision}f}")

    def format(self, value) -> str:
        """``value`` is a Python float (floating tensors) or a Python int/bool."""
        if not self.floating:
            text = str(value)
        elif self.sci:
            text = f"{value:.{_OPTS.precision}e}"
        elif self.integral:
            text = f"{value:.0f}" + ("." if math.isfinite(value) else "")
        else:
            text = f"{value:.{_OPTS.precision}f}"
        return text.rjust(self.width)


class _Styles:
    """The element style(s) of a whole tensor: one for real tensors, real + imaginary for complex."""

    def __init__(self, kept: np.ndarray, kind: str):
        self.kind = kind
        if kind == "c":
            self.real = _ElementStyle(_to_float64(kept.real), True)
            self.imag = _ElementStyle(_to_float64(kept.imag), True)
        else:
            self.real = _ElementStyle(_to_float64(kept) if kind == "f" else kept, kind == "f")
            self.imag = None

    def element_width(self) -> int:
        """Columns one element takes in a row, including the ", " separator."""
        width = self.real.width + 2
        if self.imag is not None:
            width += self.imag.width + 1  # the "j"
        return width

    def format(self, value) -> str:
        if self.imag is None:
            return self.real.format(value)
        imag = (self.imag.format(value.imag) + "j").lstrip()
        joiner = "" if imag[0] in "+-" else "+"
        return self.real.format(value.real) + joiner + imag


def _value_kind(values: np.ndarray) -> str:
    """'b' bool, 'i' integer, 'c' complex, 'f' floating (numpy floats and ml_dtypes such as bfloat16)."""
    if values.dtype == np.bool_:
        return "b"
    if values.dtype.kind in "iu":
        return "i"
    if values.dtype.kind == "c":
        return "c"
    return "f"


def _to_float64(values: np.ndarray) -> np.ndarray:
    return np.asarray(values).astype(np.float64)


def _python_values(values: np.ndarray, kind: str) -> list:
    """Elements of a 1-d array as Python scalars (floats are read exactly, through float64)."""
    if kind == "f":
        return _to_float64(values).tolist()
    if kind == "c":
        return values.astype(np.complex128).tolist()
    return values.tolist()


# --------------------------------------------------------------------------------------------------
# Summarisation and layout
# --------------------------------------------------------------------------------------------------

def _kept_values(values: np.ndarray) -> np.ndarray:
    """The elements a summarised print actually shows (what its element style is chosen from)."""
    edge = _OPTS.edgeitems
    if values.ndim == 0:
        return values
    if values.ndim == 1:
        if values.shape[0] > 2 * edge:
            return np.concatenate((values[:edge], values[-edge:]))  # -0: is everything, as in PyTorch
        return values
    if not edge:
        return values[:0].reshape(-1)
    rows = _edge_indices(values.shape[0])
    return np.concatenate([_kept_values(values[i]).reshape(-1) for i in rows])


def _edge_indices(length: int) -> list[int]:
    edge = _OPTS.edgeitems
    if length > 2 * edge:
        return list(range(edge)) + list(range(length - edge, length))
    return list(range(length))


def _row_text(values: np.ndarray, indent: int, summarize: bool, styles: _Styles) -> str:
    """A 1-d array as ``[a, b, ...]``, wrapped to the line width."""
    edge = _OPTS.edgeitems
    per_line = max(1, math.floor((_OPTS.linewidth - indent) / styles.element_width()))
    if summarize and not edge:
        cells = ["..."]
    elif summarize and values.shape[0] > 2 * edge:
        head = _python_values(values[:edge], styles.kind)
        tail = _python_values(values[-edge:], styles.kind)
        cells = [styles.format(v) for v in head] + [" ..."] + [styles.format(v) for v in tail]
    else:
        cells = [styles.format(v) for v in _python_values(values, styles.kind)]
    lines = [", ".join(cells[i:i + per_line]) for i in range(0, len(cells), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_text(values: np.ndarray, indent: int, summarize: bool, styles: _Styles) -> str:
    """An n-d array as nested brackets; ``indent`` is the column of its opening bracket."""
    if values.ndim == 0:
        return styles.format(_python_values(values.reshape(1), styles.kind)[0])
    if values.ndim == 1:
        return _row_text(values, indent, summarize, styles)
    length, edge = values.shape[0], _OPTS.edgeitems
    if summarize and length > 2 * edge:
        head = [_nested_text(values[i], indent + 1, summarize, styles) for i in range(edge)]
        tail = [_nested_text(values[i], indent + 1, summarize, styles) for i in range(length - edge, length)]
        parts = head + ["..."] + tail
    else:
        parts = [_nested_text(values[i], indent + 1, summarize, styles) for i in range(length)]
    separator = "," + "\n" * (values.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def format_values(values: np.ndarray, indent: int = len("tensor(")) -> str:
    """The bracketed value text of a tensor whose elements are ``values`` (PyTorch's ``_tensor_str``).

    ``values`` may have any numpy dtype, including ``ml_dtypes.bfloat16``; ``indent`` is the column
    where the text starts (7 after ``tensor(``).

    Example:
        >>> format_values(np.array([1.0, 2.5], dtype=np.float32))
        '[1.0000, 2.5000]'
    """
    values = np.asarray(values)
    if values.size == 0:
        return "[]"
    summarize = values.size > _OPTS.threshold
    styles = _Styles(_kept_values(values) if summarize else values, _value_kind(values))
    return _nested_text(values, indent, summarize, styles)


# --------------------------------------------------------------------------------------------------
# The whole repr
# --------------------------------------------------------------------------------------------------

@dataclasses.dataclass
class TensorFacts:
    """Everything the printer needs to know about a tensor.

    ``values`` is None for tensors without data (meta).  Dtypes are given by their repr text
    (``'torch.float32'``); ``default_dtype`` None means "ask glasstorch".
    """

    values: np.ndarray | None
    dtype: str
    shape: tuple
    device: str = "cpu"
    requires_grad: bool = False
    grad_fn_name: str | None = None
    prefix: str = "tensor("
    default_dtype: str | None = None
    tangent: str | None = None  # the repr of a dual tensor's forward-mode tangent


def _default_dtype_name() -> str:
    try:
        from glasstorch._core.dtype import get_default_dtype
    except ImportError:
        return "torch.float32"
    return repr(get_default_dtype())


def _has_default_dtype(dtype: str, default: str) -> bool:
    """Dtypes that a non-empty tensor's repr leaves unsaid."""
    default_complex = "torch.complex128" if default == "torch.float64" else "torch.complex64"
    return dtype in (default, default_complex, "torch.int64", "torch.bool")


def _body_and_suffixes(facts: TensorFacts, indent: int) -> tuple[str, list[str]]:
    default = facts.default_dtype or _default_dtype_name()
    size = "size=" + str(tuple(facts.shape))
    suffixes = [] if facts.device.split(":")[0] == "cpu" else [f"device='{facts.device}'"]
    if facts.values is None:  # meta: no data to show
        suffixes.append(size)
        if facts.dtype != default:
            suffixes.append("dtype=" + facts.dtype)
        return "...", suffixes
    if facts.values.size == 0:
        if len(facts.shape) != 1:
            suffixes.append(size)
        if facts.dtype != default:
            suffixes.append("dtype=" + facts.dtype)
        return "[]", suffixes
    if not _OPTS.edgeitems:
        suffixes.append(size)
    if not _has_default_dtype(facts.dtype, default):
        suffixes.append("dtype=" + facts.dtype)
    return format_values(facts.values, indent), suffixes


def _append_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """Join suffixes with ", ", starting a new line (at ``indent``) for one that would pass the width."""
    pieces = [text]
    used = len(text) - text.rfind("\n") + 1  # PyTorch's measure: last line length + 2 (or + 1 after \n)
    for suffix in suffixes:
        if used + len(suffix) + 2 > _OPTS.linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            used = indent + len(suffix)
        else:
            pieces.append(", " + suffix)
            used += len(suffix) + 2
    return "".join(pieces) + ")"


def render(facts: TensorFacts, tensor_contents: str | None = None) -> str:
    """The full repr text, e.g. ``tensor([1., 2.], dtype=torch.float64, requires_grad=True)``."""
    indent = len(facts.prefix)
    body, suffixes = _body_and_suffixes(facts, indent)
    if tensor_contents is not None:
        body = tensor_contents
    if facts.grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{facts.grad_fn_name}>")
    elif facts.requires_grad:
        suffixes.append("requires_grad=True")
    if facts.tangent is not None:
        suffixes.append("tangent=" + facts.tangent)
    return _append_suffixes(facts.prefix + body, suffixes, indent)


def facts_from_numpy(values: np.ndarray, dtype: str, **extra) -> TensorFacts:
    """Facts for a plain CPU tensor holding ``values`` (a convenience for tests and tools)."""
    values = np.asarray(values)
    return TensorFacts(values=values, dtype=dtype, shape=tuple(values.shape), **extra)


def _prefix_of(t) -> str:
    cls = type(t)
    if cls.__name__ in ("Tensor", "Parameter") and cls.__module__.split(".")[0] == "glasstorch":
        return "tensor("
    return cls.__name__ + "("


def _grad_fn_name(t) -> str | None:
    try:
        grad_fn = t.grad_fn
    except RuntimeError:
        return "Invalid"
    return None if grad_fn is None else type(grad_fn).__name__


def _values_of(impl) -> np.ndarray:
    """The elements as numpy values, conjugate/negative bits applied (Note [Math bits]); complex32 storage (two
    float16 fields, ``real`` and ``imag``) as complex64."""
    a = np.asarray(impl.values_np())
    return _dt.complex32_values(a) if a.dtype.names else a


def tensor_facts(t, tangent: str | None = None) -> TensorFacts:
    """Read the printer's facts off a glasstorch Tensor (never touching the data of a meta tensor); ``tangent``
    is the repr of its forward-mode tangent, if it is dual."""
    is_meta = t.device.type == "meta"
    return TensorFacts(
        values=None if is_meta else _values_of(t._impl),
        dtype=repr(t.dtype),
        shape=tuple(t.shape),
        device=str(t.device),
        requires_grad=bool(t.requires_grad),
        grad_fn_name=_grad_fn_name(t),
        prefix=_prefix_of(t),
        tangent=tangent,
    )


def tensor_repr(t, *, tensor_contents: str | None = None, tangent: str | None = None) -> str:
    """``repr(t)`` / ``str(t)`` of a glasstorch Tensor, in PyTorch's exact format.

    Example:
        >>> import glasstorch as torch
        >>> tensor_repr(torch.tensor([1.0, 2.5]))
        'tensor([1.0000, 2.5000])'
    """
    if getattr(t._impl, "sparse", None) is not None:  # stand-ins (tests, tools) may lack the slot
        return _sparse_repr(t, tensor_contents)
    return render(tensor_facts(t, tangent), tensor_contents)


# The parts a sparse layout prints, by layout name: (prefix, attribute of the parts)
_COO_PARTS = (("indices=tensor(", "indices"), ("values=tensor(", "values"))
_ROW_PARTS = (("crow_indices=tensor(", "compressed_indices"), ("col_indices=tensor(", "plain_indices"),
              ("values=tensor(", "values"))
_COL_PARTS = (("ccol_indices=tensor(", "compressed_indices"), ("row_indices=tensor(", "plain_indices"),
              ("values=tensor(", "values"))
_SPARSE_PARTS = {"sparse_coo": _COO_PARTS, "sparse_csr": _ROW_PARTS, "sparse_bsr": _ROW_PARTS, "sparse_csc": _COL_PARTS,
                 "sparse_bsc": _COL_PARTS}


def _part_str(part, indent: int) -> str:
    values = _values_of(part)
    text = "[]" if values.size == 0 else format_values(values, indent)
    return text + (", size=" + str(tuple(part.sizes)) if values.size == 0 else "")


def _sparse_repr(t, tensor_contents) -> str:
    """PyTorch's ``_str_intern`` for the sparse layouts: the parts, then size, nnz, dtype, layout, grad."""
    impl, indent = t._impl, len(_prefix_of(t))
    sp = impl.sparse
    default = _default_dtype_name()
    suffixes = ["size=" + str(tuple(impl.sizes)), "nnz=" + str(sp.nnz)]
    if not _has_default_dtype(repr(impl.dtype), default):
        suffixes.append("dtype=" + repr(impl.dtype))
    name = str(sp.layout).removeprefix("torch.")
    body = ("),\n" + " " * indent).join(prefix + _part_str(getattr(sp, attr), indent + len(prefix))
                                        for prefix, attr in _SPARSE_PARTS[name]) + ")"
    if tensor_contents is not None:
        body = tensor_contents
    suffixes.append("layout=" + str(sp.layout))
    grad_fn_name = _grad_fn_name(t)
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif t.requires_grad:
        suffixes.append("requires_grad=True")
    text = _prefix_of(t) + body
    if name == "sparse_coo":  # PyTorch forces the first suffix onto a new line for COO
        text += ",\n" + " " * indent + suffixes.pop(0)
    return _append_suffixes(text, suffixes, indent)
