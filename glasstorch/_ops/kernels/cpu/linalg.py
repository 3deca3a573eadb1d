"""Matrix-product CPU kernels — PyTorch's ``LinearAlgebra.cpp`` (mm, bmm, addmm, baddbmm, addbmm) and
``Blas.cpp`` (addmv, mv, dot, vdot), on numpy's BLAS.

Every product is one ``numpy.matmul``/``numpy.dot`` call (BLAS for floating and complex dtypes; operands
that BLAS cannot read in place are made contiguous first).  float16/bfloat16 are computed in float32 and
rounded once, as PyTorch's CPU gemm does with its float accumulator; integer products wrap exactly as
PyTorch's do (modular arithmetic does not depend on the summation order).

The checks run in PyTorch's order with PyTorch's messages: the structured ``meta`` checks (shapes, the
``set_output`` dtype check of ``out=``, the "Bad in-place call" check of ``op_``) come first, then the
implementation's (dtype agreement, the "not implemented for 'Bool'" dispatch error).  ``bmm``'s dtype
errors depend on which CPU path PyTorch would take (Note [bmm paths]).

Kernels also serve the Meta key: after the meta checks they return the allocated output untouched.

Invariant: results are written only into the returned output; inputs are never modified (except ``self``
of the in-place variants).
"""

from __future__ import annotations

import numpy as np

from ...._core import dtype as _dt
from ...._core import shape as _shape
from ...._tensor import views as _views
from ...._tensor.impl import TensorImpl, empty_contiguous, empty_strided_impl
from ...overlap import check_outputs_writable
from ...tensor_iterator import common_dtype, resize_out, scalar_np
from . import batched_gemm as _batched
from .dispatch_types import COMPLEX, FLOATING, INTEGRAL

__all__ = ["mm_out", "bmm_out", "addmm_out", "baddbmm_out", "addbmm", "addbmm_", "addbmm_out", "addmv_out", "mv",
           "mv_out", "dot", "vdot", "dot_out", "vdot_out", "typemeta_name", "set_output", "check_inplace",
           "dim_size", "is_meta", "not_implemented", "mm_dtype_out_meta", "addmm_dtype_out_meta", "bmm_dtype_out_meta",
           "baddbmm_dtype_out_meta"]

# c10 TypeMeta names, used by the messages that print ``tensor.dtype()`` rather than ``scalar_type()``.
_TYPEMETA = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int", "int32": "int",
             "int64": "long int", "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
             "float64": "double", "complex32": "c10::complex<c10::Half>", "complex64": "c10::complex<float>",
             "complex128": "c10::complex<double>"}
_HALF = (_dt.float16, _dt.bfloat16)
_BLAS_DTYPES = (_dt.float32, _dt.float64, _dt.complex64, _dt.complex128)


# -- shared helpers (also used by kernels/cpu/sort.py) -----------------------------------------------------
def typemeta_name(dtype) -> str:
    """``float``, ``long int``, ``c10::Half``: how PyTorch prints a ``caffe2::TypeMeta``."""
    return _TYPEMETA[dtype._name]


def _fmt(xs) -> str:
    return "[" + ", ".join(str(x) for x in xs) + "]"


def is_meta(*impls) -> bool:
    return any(t is not None and t.storage._data is None for t in impls)


def not_implemented(kernel: str, dtype) -> NotImplementedError:
    """PyTorch's ``AT_DISPATCH`` error: ``"addmm_impl_cpu_" not implemented for 'Bool'``."""
    return NotImplementedError(f"\"{kernel}\" not implemented for '{dtype._short}'")


def dim_size(impl: TensorImpl, dim: int) -> int:
    """``tensor.size(dim)`` with PyTorch's IndexError for a bad dim (a 0-dim tensor has no dim 0)."""
    return impl.sizes[_shape.wrap_dim(dim, impl.ndim, wrap_scalar=False)]


def set_output(out, shape, dtype, device, strides=None) -> TensorImpl:
    """A structured kernel's ``set_output_raw_strided``: allocate, or check ``out``'s dtype and resize it."""
    shape = tuple(shape)
    if out is None:
        return empty_strided_impl(shape, strides, dtype, device) if strides else empty_contiguous(shape, dtype, device)
    if out.dtype is not dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {typemeta_name(dtype)}, but got "
                           f"{typemeta_name(out.dtype)} instead")
    if out.sizes != shape:
        resize_out(out, shape)
        if strides is not None and strides != out.strides:
            out.set_geometry(shape, tuple(strides), out.offset)
    return out


def check_inplace(self: TensorImpl, shape, dtype) -> None:
    """The structured in-place check: ``self`` must already have the output's dtype and shape."""
    if self.dtype is not dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {typemeta_name(self.dtype)} and output tensor "
                           f"dtype {typemeta_name(dtype)} should match")
    if self.sizes != tuple(shape):
        raise RuntimeError(f"Bad in-place call: input tensor size {_fmt(self.sizes)} and output tensor size "
                           f"{_fmt(shape)} should match")


def _output(self, out, shape, dtype, device):
    """``out`` of a structured op that also has an in-place variant (``out is self`` means in place)."""
    if out is not None and out is self:
        check_inplace(self, shape, dtype)
        return out
    return set_output(out, shape, dtype, device)


# the dtypes PyTorch's GEMM/GEMV/dot kernels are compiled for: all but bool and complex32
_GEMM = INTEGRAL | FLOATING | COMPLEX


def _acc(dtype):
    """The numpy dtype products are computed in: float32 for the half types (PyTorch's opmath_type)."""
    return np.dtype(np.float32) if dtype in _HALF else dtype.np


def _acc_dtype(dtype):
    return _dt.float32 if dtype in _HALF else dtype


def _blas(a: np.ndarray) -> np.ndarray:
    """``a`` as a stack of matrices BLAS can read in place (one unit stride); otherwise a contiguous copy."""
    if a.ndim < 2 or a.dtype.kind not in "fc":
        return a
    isz = a.itemsize
    s0, s1 = a.strides[-2:]
    n0, n1 = a.shape[-2:]
    if (s1 == isz and s0 >= max(n1, 1) * isz) or (s0 == isz and s1 >= max(n0, 1) * isz):
        return a
    return np.ascontiguousarray(a)


def _operand(impl: TensorImpl, acc) -> np.ndarray:
    a = impl.as_numpy()
    return a.astype(acc) if a.dtype != acc else a


def _scalar(value, dtype):
    """``Scalar::to<opmath_t>()``: alpha/beta in the computation dtype (ints truncate, as C++ casts do)."""
    return scalar_np(value, _acc_dtype(dtype))


def _is_zero(value) -> bool:
    return complex(value) == 0


def _product(a: np.ndarray, b: np.ndarray, out_np: np.ndarray, acc, alpha=1, beta=0, c=None) -> None:
    """``out = beta * c + alpha * (a @ b)`` in ``acc`` (``c`` ignored when beta is 0), written into ``out_np``."""
    a, b = _blas(a), _blas(b)
    plain = alpha == 1 and _is_zero(beta)
    if plain and out_np.dtype == acc and 0 not in out_np.strides:  # BLAS refuses a zero increment (an expanded out)
        _batched.matmul(a, b, out_np)
        return
    prod = np.matmul(a, b)
    if alpha != 1:
        np.multiply(prod, alpha, out=prod, casting="unsafe")
    if not _is_zero(beta) and c is not None:
        cb = np.multiply(c, beta, dtype=acc, casting="unsafe")
        np.add(prod, cb, out=prod, casting="unsafe")
    np.copyto(out_np, prod, casting="unsafe")


def _plain_product(result: TensorImpl, a: TensorImpl, b: TensorImpl) -> bool:
    """The common case in one BLAS call: same floating dtypes, a non-empty product; False otherwise."""
    dt = result.dtype
    if dt not in _BLAS_DTYPES or a.dtype is not dt or b.dtype is not dt or result.numel() == 0 or a.sizes[-1] == 0:
        return False
    _batched.matmul(_blas(a.as_numpy()), _blas(b.as_numpy()), result.as_numpy())
    return True


def _expand_size(impl: TensorImpl, shape) -> TensorImpl:
    """``expand_size(self, shape)``: the broadcast view of an addmm-family ``self``."""
    shape = tuple(shape)
    return impl if impl.sizes == shape else _views.expand(impl, shape)


def _copy_into(out: TensorImpl, src: TensorImpl) -> None:
    if out is src or is_meta(out, src):
        return
    np.copyto(out.as_numpy(), src.as_numpy(), casting="unsafe")


def _scale(out: TensorImpl, beta, check_cast=True) -> None:
    """``out.mul_(beta)`` (``zero_()`` when beta is 0, which drops NaNs as PyTorch does).

    ``check_cast``: beta is a Python scalar promoted with ``out`` as ``mul_`` does, so a float beta cannot
    scale an integer result (addmv scales by a tensor of ``out``'s dtype instead: no check)."""
    if check_cast and not _is_zero(beta):
        common = common_dtype([out, beta])
        if not _dt.can_cast(common, out.dtype):
            raise RuntimeError(f"result type {common._short} can't be cast to the desired output type "
                               f"{out.dtype._short}")
    arr = out.as_numpy()
    if _is_zero(beta):
        arr.fill(0)
    elif beta != 1:
        acc = _acc(out.dtype)
        np.copyto(arr, np.multiply(arr, _scalar(beta, out.dtype), dtype=acc, casting="unsafe"), casting="unsafe")


# -- mm / addmm ----------------------------------------------------------------------------------------------
def _check_mm_dtypes(m1: TensorImpl, m2: TensorImpl) -> None:
    if m1.dtype is not m2.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {typemeta_name(m1.dtype)} != "
                           f"{typemeta_name(m2.dtype)}")


def _shapes_error(m1, m2) -> RuntimeError:
    return RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({m1.sizes[0]}x{m1.sizes[1]} and "
                        f"{m2.sizes[0]}x{m2.sizes[1]})")


def _addmm_impl(result: TensorImpl, self: TensorImpl, m1: TensorImpl, m2: TensorImpl, beta, alpha) -> None:
    """PyTorch's ``addmm_impl_cpu_``: ``result = beta * self + alpha * m1 @ m2`` (``self`` already expanded)."""
    _check_mm_dtypes(m1, m2)
    if result.numel() == 0:
        return
    if m1.sizes[1] == 0:
        if not _is_zero(beta):
            check_outputs_writable(result)  # PyTorch copies self in and scales (zero_ alone does not check)
            _copy_into(result, self)
        _scale(result, beta)
        return
    check_outputs_writable(result)  # PyTorch's gemm writes a contiguous copy back with copy_
    if result.dtype in _dt.FLOAT8_DTYPES:  # the generic gemm: float products and sums, one float8 rounding
        prod = _dt.float8_values(m1.as_numpy()) @ _dt.float8_values(m2.as_numpy())
        if alpha != 1:
            prod = prod * np.float32(alpha)
        if not _is_zero(beta):
            prod = prod + np.float32(beta) * _dt.float8_values(self.as_numpy())
        np.copyto(result.as_numpy(), _dt.to_float8(prod, result.dtype))
        return
    if result.dtype not in _GEMM:
        raise not_implemented("addmm_impl_cpu_", result.dtype)
    acc = _acc(result.dtype)
    c = None if _is_zero(beta) else self.as_numpy()
    _product(_operand(m1, acc), _operand(m2, acc), result.as_numpy(), acc, _scalar(alpha, result.dtype),
             _scalar(beta, result.dtype), c)


def mm_out(self: TensorImpl, mat2: TensorImpl, out=None) -> TensorImpl:
    """``self @ mat2`` for two matrices (``mm.out``; also the Meta kernel)."""
    if self.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if self.sizes[1] != mat2.sizes[0]:
        raise _shapes_error(self, mat2)
    out = set_output(out, (self.sizes[0], mat2.sizes[1]), self.dtype, self.device)
    if is_meta(self, mat2, out):
        return out
    if self.sizes[1] and out.numel():
        check_outputs_writable(out)
    if _plain_product(out, self, mat2):
        return out
    _addmm_impl(out, out, self, mat2, 0, 1)
    return out


def _addmm_meta(self, mat1, mat2):
    if self.dtype is not mat2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {self.dtype._short} and "
                           f"{mat2.dtype._short}")
    if mat1.dtype is not mat2.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {mat1.dtype._short} and "
                           f"{mat2.dtype._short}")
    if mat1.ndim != 2:
        raise RuntimeError(f"mat1 must be a matrix, got {mat1.ndim}-D tensor")
    if mat2.ndim != 2:
        raise RuntimeError(f"mat2 must be a matrix, got {mat2.ndim}-D tensor")
    if mat1.sizes[1] != mat2.sizes[0]:
        raise _shapes_error(mat1, mat2)
    return mat1.sizes[0], mat2.sizes[1]


def addmm_out(self, mat1, mat2, beta=1, alpha=1, out=None) -> TensorImpl:
    """``beta * self + alpha * (mat1 @ mat2)``, ``self`` broadcast to the product's shape."""
    shape = _addmm_meta(self, mat1, mat2)
    out = _output(self, out, shape, mat1.dtype, mat1.device)
    b_self = _expand_size(self, shape)
    if is_meta(self, mat1, mat2, out):
        return out
    _addmm_impl(out, b_self, mat1, mat2, beta, alpha)
    return out


# -- bmm / baddbmm / addbmm ----------------------------------------------------------------------------------
def _bmm_meta(batch1, batch2):
    if batch1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    bs, n, k = batch1.sizes
    if batch2.sizes[0] != bs or batch2.sizes[1] != k:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{bs}, {k}] but got: "
                           f"[{batch2.sizes[0]}, {batch2.sizes[1]}].")
    return bs, n, batch2.sizes[2]


def _items_blas_ready(t: TensorImpl) -> bool:
    (_, n0, n1), (_, s0, s1) = t.sizes, t.strides
    return (s1 == 1 and (n0 == 1 or s0 >= n1)) or (s0 == 1 and (n1 == 1 or s1 >= n0))


def _bmm_path_checks(result, batch1, batch2, is_bmm) -> None:
    """Note [bmm paths]: PyTorch's CPU bmm/baddbmm pick a kernel by size and layout, and each path reports
    mixed dtypes (and bool) in its own words.  Small products (k*n*p < 400) run a naive loop dispatched on
    batch1's dtype; large floating/complex contiguous ones run MKL's batched gemm dispatched on the result's
    dtype; the rest loop over ``addmm``."""
    d1, d2, dr = batch1.dtype, batch2.dtype, result.dtype
    _, n, k = batch1.sizes
    if k * n * batch2.sizes[2] < 400:
        if d1 not in _GEMM:
            raise not_implemented("bmm" if is_bmm else "baddbmm", d1)
        if dr is not d1 or d2 is not d1:
            raise RuntimeError(f"expected scalar type {d1._short} but found {(dr if dr is not d1 else d2)._short}")
        return
    mkl = (dr.is_complex or (dr.is_floating_point and dr not in _HALF)) and _items_blas_ready(batch1) and \
        _items_blas_ready(batch2) and result.is_contiguous()
    if mkl:
        if d1 is not dr or d2 is not dr:
            raise RuntimeError(f"expected scalar type {dr._short} but found {(d1 if d1 is not dr else d2)._short}")
        if dr is _dt.complex32 or dr in _dt.FLOAT8_DTYPES:
            raise not_implemented("baddbmm_with_gemm", dr)
        return
    if is_bmm:
        _check_mm_dtypes(batch1, batch2)
    elif d1 is not d2:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {d1._short} and {d2._short}")
    if dr not in _GEMM:
        raise not_implemented("addmm_impl_cpu_", dr)


def _check_bmm_writable(result, batch1, batch2) -> None:
    """PyTorch's small products (under 400 multiply-adds a matrix) loop in place; the others write back a copy."""
    if result.numel() and batch1.sizes[2] and batch1.sizes[1] * batch1.sizes[2] * batch2.sizes[2] >= 400:
        check_outputs_writable(result)


def _bmm_impl(result, batch1, batch2, beta, alpha, is_bmm) -> None:
    """PyTorch's ``bmm_out_or_baddbmm_``; ``result`` already holds ``self`` for baddbmm."""
    if result.numel() == 0:
        return
    if batch1.sizes[2] == 0:
        _scale(result, 0 if is_bmm else beta)
        return
    _check_bmm_writable(result, batch1, batch2)
    _bmm_path_checks(result, batch1, batch2, is_bmm)
    acc = _acc(result.dtype)
    r = result.as_numpy()
    _product(_operand(batch1, acc), _operand(batch2, acc), r, acc, _scalar(alpha, result.dtype),
             _scalar(beta, result.dtype), None if is_bmm else r)


def bmm_out(self: TensorImpl, mat2: TensorImpl, out=None) -> TensorImpl:
    """Batched ``self[i] @ mat2[i]`` of two 3-D tensors; the result has mat2's dtype (PyTorch's rule)."""
    shape = _bmm_meta(self, mat2)
    out = set_output(out, shape, mat2.dtype, mat2.device)
    if is_meta(self, mat2, out):
        return out
    _check_bmm_writable(out, self, mat2)
    if _plain_product(out, self, mat2):
        return out
    _bmm_impl(out, self, mat2, 0, 1, True)
    return out


def baddbmm_out(self, batch1, batch2, beta=1, alpha=1, out=None) -> TensorImpl:
    """``beta * self + alpha * bmm(batch1, batch2)``, ``self`` broadcast to the product's shape."""
    target = (dim_size(batch1, 0), dim_size(batch1, 1), dim_size(batch2, 2))
    b_self = _expand_size(self, target)
    if self.dtype is not batch1.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {typemeta_name(self.dtype)}, batch1: "
                           f"{typemeta_name(batch1.dtype)}, batch2: {typemeta_name(batch2.dtype)}")
    shape = _bmm_meta(batch1, batch2)
    out = _output(self, out, shape, batch2.dtype, batch2.device)
    if is_meta(self, batch1, batch2, out):
        return out
    if not _is_zero(beta):
        if out.numel():
            check_outputs_writable(out)
        _copy_into(out, b_self)
    _bmm_impl(out, batch1, batch2, beta, alpha, False)
    return out


def _resize_as(result: TensorImpl, shape) -> None:
    """``resize_as_``: no deprecation warning, contiguous strides when the shape changes."""
    shape = tuple(shape)
    if result.sizes == shape:
        return
    need = (result.offset + _shape.prod(shape)) * result.dtype.itemsize
    if need > result.storage.nbytes():
        result.storage.resize_(need)
    result.set_geometry(shape, _shape.contiguous_strides(shape), result.offset)


def addbmm_out(self, batch1, batch2, beta=1, alpha=1, out=None) -> TensorImpl:
    """``beta * self + alpha * sum_i batch1[i] @ batch2[i]``: one gemm over the joined (batch, k) axis."""
    b_self = _expand_size(self, (dim_size(batch1, 1), dim_size(batch2, 2)))
    if batch1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    (nb, n, k), (nb2, k2, p) = batch1.sizes, batch2.sizes
    if nb != nb2:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {nb} and {nb2}")
    if k != k2:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({n}x{k} and {k2}x{p})")
    meta = is_meta(self, batch1, batch2, out)
    # self may be the result (addbmm_), which is resized below: read it first
    self_np = None if meta or _is_zero(beta) or b_self is out else np.array(b_self.as_numpy())
    _resize_as(out, b_self.sizes)
    if nb:
        for mat in (out, batch1):  # the per-batch addmm_ checks PyTorch runs
            if mat is out and out.dtype is not batch2.dtype:
                raise RuntimeError(f"self and mat2 must have the same dtype, but got {out.dtype._short} and "
                                   f"{batch2.dtype._short}")
            if mat is batch1 and batch1.dtype is not batch2.dtype:
                raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {batch1.dtype._short} and "
                                   f"{batch2.dtype._short}")
    if meta:
        return out
    if out.numel():
        check_outputs_writable(out)  # PyTorch's addbmm scales the result in place (mul_) whatever beta is
    if self_np is not None:
        np.copyto(out.as_numpy(), self_np, casting="unsafe")
    if nb == 0:
        _scale(out, beta)
        return out
    if n * p == 0:
        return out
    if k == 0:  # each batch's addmm_ scales the result: by beta, then by 1
        for i in range(nb):
            _scale(out, beta if i == 0 else 1)
        return out
    if out.dtype is _dt.bool:
        raise not_implemented("addmm_impl_cpu_", out.dtype)
    _addbmm_compute(out, batch1, batch2, beta, alpha)
    return out


def _addbmm_compute(out, batch1, batch2, beta, alpha) -> None:
    acc = _acc(out.dtype)
    r = out.as_numpy()
    a, b = _operand(batch1, acc), _operand(batch2, acc)
    alpha_, beta_ = _scalar(alpha, out.dtype), _scalar(beta, out.dtype)
    if out.dtype in _HALF:  # PyTorch rounds after each batch's addmm_
        for i in range(a.shape[0]):
            _product(a[i], b[i], r, acc, alpha_, beta_ if i == 0 else 1, r)
        return
    nb, n, k = a.shape
    joined_a = np.ascontiguousarray(a.transpose(1, 0, 2)).reshape(n, nb * k)
    joined_b = np.ascontiguousarray(b).reshape(nb * k, b.shape[2])
    _product(joined_a, joined_b, r, acc, alpha_, beta_, r)


def addbmm(self, batch1, batch2, beta=1, alpha=1) -> TensorImpl:
    return addbmm_out(self, batch1, batch2, beta, alpha, empty_strided_impl((0,), (1,), self.dtype, self.device))


def addbmm_(self, batch1, batch2, beta=1, alpha=1) -> TensorImpl:
    return addbmm_out(self, batch1, batch2, beta, alpha, self)


# -- addmv / mv ----------------------------------------------------------------------------------------------
def _addmv(self, mat, vec, beta, alpha, out, inplace) -> TensorImpl:
    if not (mat.ndim == 2 and vec.ndim == 1 and self.ndim <= 1):
        raise RuntimeError(f"vector + matrix @ vector expected, got {self.ndim}, {mat.ndim}, {vec.ndim}")
    m, k = mat.sizes
    if not (k == vec.sizes[0] and (m == self.numel() or self.numel() == 1)):
        raise RuntimeError(f"size mismatch, got input ({dim_size(self, 0)}), mat ({m}x{k}), vec ({vec.sizes[0]})")
    if not (self.dtype is mat.dtype and mat.dtype is vec.dtype):
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {self.dtype._short}, "
                           f"{mat.dtype._short}, and {vec.dtype._short}")
    if inplace:
        check_inplace(self, (m,), vec.dtype)
    else:
        out = set_output(out, (m,), vec.dtype, vec.device)
    if is_meta(self, mat, vec, out):
        return out
    if mat.numel() == 0:
        if not _is_zero(beta):  # PyTorch's mul_out(result, self, beta): the result takes self's shape
            resize_out(out, self.sizes)
            _copy_into(out, self)
        _scale(out, beta, check_cast=False)
        return out
    b_self = _expand_size(self, (m,))
    if out.numel() != 0:
        if not _is_zero(beta) and out is not b_self:
            check_outputs_writable(out)  # PyTorch copies self into the result first
        if mat.dtype not in _GEMM:
            raise not_implemented("addmv_impl_cpu", mat.dtype)
        acc = _acc(out.dtype)
        c = None if _is_zero(beta) else b_self.as_numpy()
        _product(_operand(mat, acc), _operand(vec, acc), out.as_numpy(), acc, _scalar(alpha, out.dtype),
                 _scalar(beta, out.dtype), c)
    return out


def addmv_out(self, mat, vec, beta=1, alpha=1, out=None) -> TensorImpl:
    """``beta * self + alpha * (mat @ vec)``; ``self`` is a vector or has one element."""
    return _addmv(self, mat, vec, beta, alpha, out, out is not None and out is self)


def mv(self: TensorImpl, vec: TensorImpl) -> TensorImpl:
    """Matrix @ vector: ``addmv_`` into a fresh result of vec's dtype (PyTorch's composite)."""
    result = empty_strided_impl((dim_size(self, 0),), (1,), vec.dtype, vec.device)
    return _addmv(result, self, vec, 0, 1, result, True)


def mv_out(self: TensorImpl, vec: TensorImpl, out: TensorImpl) -> TensorImpl:
    n = dim_size(self, 0)
    if out.ndim > 1 or (out.numel() != n and out.numel() != 1):
        return _addmv(empty_strided_impl((n,), (1,), vec.dtype, vec.device), self, vec, 0, 1, out, False)
    return _addmv(out, self, vec, 0, 1, out, False)


# -- dot / vdot ----------------------------------------------------------------------------------------------
def _dot_check(self, other) -> None:
    if self.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {self.ndim}D and {other.ndim}D tensors")
    if self.dtype is not other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {self.dtype._short} and "
                           f"{other.dtype._short}")
    n, m = self.numel(), other.numel()
    if n != m:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same number "
                           f"of elements, but got {n} and {m} elements respectively")


def _dot(self, other, conj: bool) -> TensorImpl:
    _dot_check(self, other)
    out = empty_strided_impl((), (), self.dtype, self.device)
    if is_meta(self, other):
        return out
    if self.dtype not in _GEMM:
        raise not_implemented("vdot" if conj else "dot", self.dtype)
    acc = _acc(self.dtype)
    a, b = _operand(self, acc), _operand(other, acc)
    out.as_numpy()[()] = np.vdot(a, b) if conj else np.dot(a, b)
    return out


def dot(self: TensorImpl, tensor: TensorImpl) -> TensorImpl:
    """The inner product of two 1-D tensors of one dtype, as a 0-dim tensor."""
    return _dot(self, tensor, False)


def vdot(self: TensorImpl, other: TensorImpl) -> TensorImpl:
    """``dot(conj(self), other)``; plain ``dot`` (and its messages) for real dtypes."""
    return _dot(self, other, self.dtype.is_complex)


def _dot_out(name, fn, self, other, out) -> TensorImpl:
    if not (out.device == self.device == other.device):
        raise RuntimeError(f"{name}: Expected the output and input tensors to be on the same device, but got the "
                           f"output tensor on {out.device}, the 'input' tensor on {self.device}, and the 'other' "
                           f"tensor on {other.device}")
    resize_out(out, ())
    if out.dtype is not self.dtype:
        raise RuntimeError(f"result dtype {out.dtype._short} does not match input dtype {self.dtype._short}")
    value = fn(self, other)
    if not is_meta(out, value):
        out.as_numpy()[()] = value.as_numpy()[()]
    return out


def dot_out(self, tensor, out) -> TensorImpl:
    return _dot_out("dot", dot, self, tensor, out)


def vdot_out(self, other, out) -> TensorImpl:
    return _dot_out("vdot", vdot, self, other, out)


# -- out_dtype overloads (mm.dtype, bmm.dtype, addmm.dtype, baddbmm.dtype) ------------------------------------
# PyTorch's CPU build registers no kernel for these (they exist for CUDA's fp16/bf16 -> fp32 gemm): only the
# Meta key has one, so a CPU call raises the dispatcher's "Could not run 'aten::mm.dtype'" error as torch does.
_MM_OUT_DTYPE = "out_dtype must be the same as input dtype or fp32 for fp16/bf16 inputs"
_BMM_OUT_DTYPE = ("out_dtype only supported for torch.float32 output with float16/bfloat16 inputs or same as input "
                  "dtypes")


def _out_dtype_ok(in_dtype, out_dtype) -> bool:
    return out_dtype is in_dtype or (out_dtype is _dt.float32 and in_dtype in _HALF)


def _exact_out(out, shape, dtype, device) -> TensorImpl:
    """The meta functions' ``out_wrapper(exact_dtype=True)``: ``out`` must have the result's dtype."""
    if out is None:
        return empty_contiguous(tuple(shape), dtype, device)
    if out.dtype is not dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {dtype} but got {out.dtype} instead")
    resize_out(out, tuple(shape))
    return out


def _mm_dtype_shape(a: TensorImpl, b: TensorImpl, out_dtype):
    if a.ndim != 2:
        raise RuntimeError("a must be 2D")
    if b.ndim != 2:
        raise RuntimeError("b must be 2D")
    (n, m1), (m2, p) = a.sizes, b.sizes
    if m1 != m2:
        raise RuntimeError(f"a and b must have same reduction dim, but got [{n}, {m1}] X [{m2}, {p}].")
    if not _out_dtype_ok(a.dtype, out_dtype):
        raise RuntimeError(_MM_OUT_DTYPE)
    return n, p


def mm_dtype_out_meta(self: TensorImpl, mat2: TensorImpl, out_dtype, out=None) -> TensorImpl:
    """Meta kernel of ``mm.dtype``/``mm.dtype_out``: ``self @ mat2`` computed into ``out_dtype``."""
    return _exact_out(out, _mm_dtype_shape(self, mat2, out_dtype), out_dtype, self.device)


def addmm_dtype_out_meta(self, mat1, mat2, out_dtype, beta=1, alpha=1, out=None) -> TensorImpl:
    """Meta kernel of ``addmm.dtype``/``addmm.dtype_out``: the product's shape, ``self`` broadcast to it."""
    shape = _mm_dtype_shape(mat1, mat2, out_dtype)
    _expand_size(self, shape)
    return _exact_out(out, shape, out_dtype, mat1.device)


def _bmm_dtype_shape(batch1, batch2, out_dtype):
    shape = _bmm_meta(batch1, batch2)
    if batch1.dtype is not batch2.dtype:
        raise RuntimeError(f"expected scalar type {batch1.dtype} but found {batch2.dtype}")
    if not _out_dtype_ok(batch1.dtype, out_dtype):
        raise RuntimeError(_BMM_OUT_DTYPE)
    return shape


def bmm_dtype_out_meta(self: TensorImpl, mat2: TensorImpl, out_dtype, out=None) -> TensorImpl:
    """Meta kernel of ``bmm.dtype``/``bmm.dtype_out``."""
    return _exact_out(out, _bmm_dtype_shape(self, mat2, out_dtype), out_dtype, mat2.device)


def baddbmm_dtype_out_meta(self, batch1, batch2, out_dtype, beta=1, alpha=1, out=None) -> TensorImpl:
    """Meta kernel of ``baddbmm.dtype``/``baddbmm.dtype_out``: ``self`` must have the product's shape."""
    shape = _bmm_dtype_shape(batch1, batch2, out_dtype)
    if self.ndim != 3:
        raise RuntimeError("self must be a 3D tensor")
    if self.sizes != tuple(shape):
        raise RuntimeError(f"Expected an input tensor shape with shape {list(shape)} but got shape: "
                           f"{list(self.sizes)}")
    return _exact_out(out, shape, out_dtype, batch1.device)
