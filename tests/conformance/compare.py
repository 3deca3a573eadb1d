"""Comparison of a glasstorch result (converted to torch values) with torch's, and the causes of a miss.

Tolerances are torch's own: ``torch.testing``'s defaults per result dtype (exact for integers and bool), widened
to the OpInfo's ``toleranceOverride`` (or ``precisionOverride``) for the sample dtype where it declares one for the
CPU or for every device (overrides that only the compile stacks use are left out).  Views of an input are held to
their strides and storage offset too; other results to their values, dtype and shape, as the OpInfo tests compare
them.

Every miss raises a ``Miss`` subclass, one per cause; the known-failure table records the cause by its ``cause``
string, so a tracked failure that starts failing for another reason is reported, not silently kept.
"""

from __future__ import annotations

import torch
from torch.testing._comparison import default_tolerances

__all__ = ["Miss", "MissingOp", "Raises", "ErrorText", "ValueMismatch", "DtypeMismatch", "ShapeMismatch",
           "StrideMismatch", "StructureMismatch", "GradientMismatch", "GradcheckFailure", "AliasMismatch",
           "CAUSES", "tolerance", "compare", "compare_errors", "describe_error", "fix_gauge"]


class Miss(AssertionError):
    """glasstorch disagrees with torch; ``cause`` names why, the message says where and how."""

    cause = "miss"


class MissingOp(Miss):
    cause = "missing op"


class Raises(Miss):
    cause = "raises"  # glasstorch raised where torch returned


class ErrorText(Miss):
    cause = "error text"  # torch raised; glasstorch raised another type or message, or did not raise


class ValueMismatch(Miss):
    cause = "value mismatch"


class DtypeMismatch(Miss):
    cause = "dtype mismatch"


class ShapeMismatch(Miss):
    cause = "shape mismatch"


class StrideMismatch(Miss):
    cause = "view strides"


class StructureMismatch(Miss):
    cause = "result structure"


class AliasMismatch(Miss):
    cause = "aliasing"  # in-place or out= did not return the tensor it wrote


class GradientMismatch(Miss):
    cause = "gradient"


class GradcheckFailure(Miss):
    cause = "gradcheck"


CAUSES = {c.cause: c for c in (MissingOp, Raises, ErrorText, ValueMismatch, DtypeMismatch, ShapeMismatch,
                                StrideMismatch, StructureMismatch, AliasMismatch, GradientMismatch, GradcheckFailure)}

_COMPILE_STACKS = ("TestInductor", "TestNNC", "TestJit", "TestCompile", "TestExport", "TestProxy", "TestFake")


def tolerance(op, dtype: torch.dtype):
    """The tolerance function of one (OpInfo, sample dtype): result dtype -> (rtol, atol).

    torch's defaults for the result's dtype, widened by the OpInfo's CPU/all-device overrides for the sample dtype
    (an OpInfo test's overrides are keyed by the dtype it runs in)."""
    o_rtol, o_atol = _overrides(op, dtype)
    return lambda result: tuple(max(a, b) for a, b in zip(default_tolerances(result), (o_rtol, o_atol), strict=True))


def _overrides(op, dtype: torch.dtype) -> tuple[float, float]:
    rtol, atol = 0.0, 0.0
    for info in op.decorators:
        if getattr(info, "device_type", None) not in (None, "cpu"):
            continue
        if str(getattr(info, "cls_name", "") or "").startswith(_COMPILE_STACKS):
            continue
        for deco in getattr(info, "decorators", ()):
            table = getattr(deco, "d", None)
            tol = table.get(dtype) if isinstance(table, dict) else None
            if isinstance(tol, float):  # precisionOverride: an absolute tolerance
                atol = max(atol, tol)
            elif tol is not None:       # toleranceOverride: tol(atol, rtol)
                rtol, atol = max(rtol, tol.rtol), max(atol, tol.atol)
    return rtol, atol


def describe_error(e: BaseException) -> str:
    text = str(e).strip().splitlines()[0] if str(e).strip() else ""
    return f"{type(e).__name__}: {text[:160]}"


def compare_errors(err_gt: BaseException | None, err_th: BaseException, where: str) -> None:
    """torch raised ``err_th``: glasstorch must raise the same type (by name) with the same message."""
    want = f"{type(err_th).__name__}: {err_th}"
    if err_gt is None:
        raise ErrorText(f"{where}: glasstorch returned; torch raised {describe_error(err_th)}")
    got = f"{type(err_gt).__name__}: {err_gt}"
    if got != want:
        raise ErrorText(f"{where}: glasstorch raised {describe_error(err_gt)}; torch raised {describe_error(err_th)}")


def _compare_tensor(got, want: torch.Tensor, tol, where: str, views, values: bool) -> None:
    if not isinstance(got, torch.Tensor):
        raise StructureMismatch(f"{where}: glasstorch returned {type(got).__name__}, torch a Tensor")
    if got.dtype != want.dtype:
        raise DtypeMismatch(f"{where}: dtype {got.dtype} vs torch {want.dtype}")
    if got.shape != want.shape:
        raise ShapeMismatch(f"{where}: shape {tuple(got.shape)} vs torch {tuple(want.shape)}")
    if want._is_view() and want.untyped_storage().data_ptr() in views:
        geometry = (getattr(got, "_gt_is_view", None), got.stride(), got.storage_offset())
        if geometry != (True, want.stride(), want.storage_offset()):
            raise StrideMismatch(f"{where}: (is view, strides, offset) {geometry} vs torch "
                                 f"{(True, want.stride(), want.storage_offset())}")
    if want.device.type == "meta" or want.numel() == 0 or not values:
        return
    rtol, atol = tol(want.dtype)
    try:
        torch.testing.assert_close(got, want, rtol=rtol, atol=atol, equal_nan=True, check_stride=False,
                                   check_device=False)
    except AssertionError as e:
        lines = [ln.strip() for ln in str(e).splitlines() if ln.strip()]
        raise ValueMismatch(f"{where}: " + "; ".join(lines[:4])) from None


# Note [Gauge freedom]: eigenvectors and singular vectors are unique only up to a unit factor per column (a sign
# when real, a phase when complex), which LAPACK does not specify; torch's (MKL) and glasstorch's (numpy's OpenBLAS)
# may pick different ones, as the issue allows ("compare what torch's OpInfo compares": its own tests compare torch
# with itself, so they never meet this).  Before the values of these OpInfos are compared, both results are
# brought to one gauge: each column is divided by the unit factor of the entry that is largest in torch's result;
# for singular vectors U's factor is applied to U's and V's column alike, so U diag(S) V^H is unchanged.  Gradients
# need nothing: the OpInfos' output_process_fn_grad already makes them gauge-invariant.
_GAUGE = {"linalg.eigh": (1, None), "linalg.eig": (1, None), "svd_lowrank": (0, 2), "pca_lowrank": (0, 2)}


def _unit_factors(want_vecs: torch.Tensor, vecs: torch.Tensor) -> torch.Tensor:
    pick = vecs.gather(-2, want_vecs.abs().argmax(dim=-2, keepdim=True))
    mag = pick.abs()
    return torch.where(mag == 0, torch.ones_like(pick), pick / mag)


def fix_gauge(key: str, got, want):
    """``got`` and ``want`` with their vectors in one gauge, for the OpInfos of Note [Gauge freedom]."""
    if key not in _GAUGE or not isinstance(want, tuple) or not isinstance(got, (tuple, list)) or len(got) != len(want):
        return got, want
    vi, coupled = _GAUGE[key]
    vecs = want[vi]
    if not isinstance(got[vi], torch.Tensor) or got[vi].shape != vecs.shape or vecs.numel() == 0:
        return got, want

    def fixed(res):
        res = list(res)
        factors = _unit_factors(vecs, res[vi])
        res[vi] = res[vi] / factors
        if coupled is not None:
            res[coupled] = res[coupled] / factors
        return tuple(res)
    return fixed(got), fixed(want)


def compare(got, want, tol, where: str = "output", views: frozenset = frozenset(), values: bool = True) -> None:
    """Raise a ``Miss`` unless glasstorch's ``got`` (converted to torch values) matches torch's ``want``.

    ``tol`` maps a result dtype to (rtol, atol); a result that is a view of a storage in ``views`` (the data
    pointers of torch's inputs) is held to its strides and offset too; ``values=False`` leaves tensor values out
    (uninitialised memory)."""
    if isinstance(want, torch.Tensor):
        return _compare_tensor(got, want, tol, where, views, values)
    if isinstance(want, (list, tuple)):
        if not isinstance(got, (list, tuple)) or len(got) != len(want):
            raise StructureMismatch(f"{where}: glasstorch returned {type(got).__name__} "
                                    f"of {len(got) if isinstance(got, (list, tuple)) else '-'}, torch "
                                    f"{type(want).__name__} of {len(want)}")
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            compare(g, w, tol, f"{where}[{i}]", views, values)
        return None
    if isinstance(want, (bool, int, float, complex)):
        return _compare_number(got, want, tol, where)
    if got != want:
        raise ValueMismatch(f"{where}: glasstorch {got!r} vs torch {want!r}")
    return None


def _compare_number(got, want, tol, where: str) -> None:
    if type(got) is not type(want):
        raise StructureMismatch(f"{where}: glasstorch returned {type(got).__name__} {got!r}, torch "
                                f"{type(want).__name__} {want!r}")
    if isinstance(want, (bool, int)):
        ok = got == want
    else:
        rtol, atol = tol(torch.float64 if isinstance(want, float) else torch.complex128)
        ok = got == want or (got != got and want != want) or abs(got - want) <= atol + rtol * abs(want)
    if not ok:
        raise ValueMismatch(f"{where}: glasstorch {got!r} vs torch {want!r}")
