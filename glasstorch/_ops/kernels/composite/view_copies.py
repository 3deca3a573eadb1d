"""The view_copy family (``view_copy``, ``diagonal_copy``, ``split_copy`` ...) — PyTorch's generated
``CompositeExplicitAutogradNonFunctional`` kernels for functionalization (torchgen ``gen_functionalization_type``).

Each functional kernel runs its view and clones the result into a fresh row-major tensor; each ``out=`` kernel
runs the functional one, resizes ``out`` (PyTorch's ``resize_out_helper``: ``resize_output``, which warns when a
non-empty ``out`` changes shape) and copies into it, element by element for a list.

Invariant: a result never aliases its input, and it is contiguous whatever the input's layout.
"""

from __future__ import annotations

from ...._core import shape as _shape
from ...._core.dtype import cpp_type_name
from ...._core.layout import contiguous_format
from ...tensor_iterator import resize_out
from . import views as _v

__all__ = [
    "view_copy", "view_copy_out", "view_copy_dtype", "view_copy_dtype_out", "reshape_alias_copy",
    "reshape_alias_copy_out", "as_strided_copy", "as_strided_copy_out",
    "transpose_copy_int", "transpose_copy_int_out", "t_copy", "t_copy_out", "permute_copy", "permute_copy_out",
    "expand_copy", "expand_copy_out", "slice_copy_Tensor", "slice_copy_Tensor_out", "select_copy_int",
    "select_copy_int_out", "unsqueeze_copy", "unsqueeze_copy_out", "squeeze_copy", "squeeze_copy_out",
    "squeeze_copy_dim", "squeeze_copy_dim_out", "squeeze_copy_dims", "squeeze_copy_dims_out", "unfold_copy",
    "unfold_copy_out", "diagonal_copy", "diagonal_copy_out", "split_copy_Tensor", "split_copy_Tensor_out",
    "split_with_sizes_copy", "split_with_sizes_copy_out", "unbind_copy_int", "unbind_copy_int_out", "alias_copy",
    "alias_copy_out", "test_autograd_multiple_dispatch_out", "test_autograd_multiple_dispatch_view_copy",
    "test_autograd_multiple_dispatch_view_copy_out",
]


def _copy_of(view, name):
    """The functional kernel of ``view``'s copy: the view, then ``clone(memory_format=contiguous_format)``."""
    def kernel(self, *args):
        out = view(self, *args)
        if isinstance(out, (list, tuple)):
            return [_v.clone(t, contiguous_format) for t in out]
        return _v.clone(out, contiguous_format)
    kernel.__name__ = kernel.__qualname__ = name
    return kernel


def _out_of(functional, name, resize=True):
    """The ``out=`` kernel: the functional result resized into and copied to ``out`` (one per piece for a list).

    ``resize=False``: PyTorch's hand-written ``split_copy_Tensor_out``, which neither resizes nor checks dtypes:
    each piece is ``copy_``'d (broadcast, converted) into its out."""
    def kernel(*args):
        *args, out = args
        result = functional(*args)
        if not isinstance(result, list):
            return _into(out, result)
        if len(out) != len(result):  # PyTorch's hand-written list kernels (TensorShape.cpp) name themselves
            raise RuntimeError(f"{_LIST_OUT_NAMES.get(name, name)} expected an out= argument of size "
                               f"{len(result)}, got size {len(out)}")
        for o, r in zip(out, result, strict=True):
            _into(o, r) if resize else _v.copy_(o, r)
        return None
    kernel.__name__ = kernel.__qualname__ = name
    return kernel


_LIST_OUT_NAMES = {"split_copy_Tensor_out": "split_copy_Tensor_out()"}  # the one text with parentheses


def _into(out, result):
    """torchgen's ``resize_out_helper`` + ``copy_arg``: resize (warning if ``out`` had elements), then the same
    dtype and device or an error, then copy."""
    resize_out(out, result.sizes)
    for what, want, got in (("dtype", cpp_type_name(result.dtype, "typeid"), cpp_type_name(out.dtype, "typeid")),
                            ("device", result.device, out.device)):
        if want != got:
            raise RuntimeError(f"Expected out tensor to have {what} {want}, but got {got} instead")
    return _v.copy_(out, result)


def view_copy(self, size):
    """PyTorch's hand-written ``view_copy``: a geometry ``view`` refuses is reshaped instead (a row-major copy)."""
    sizes = _shape.infer_size(size, self.numel())
    if _shape.compute_stride(self.sizes, self.strides, sizes) is None:
        return _v.view(_v.clone(self, contiguous_format), sizes)
    return _v.clone(_v.view(self, sizes), contiguous_format)



view_copy_out = _out_of(view_copy, "view_copy_out")
view_copy_dtype = _copy_of(_v.view_dtype, "view_copy_dtype")
view_copy_dtype_out = _out_of(view_copy_dtype, "view_copy_dtype_out")
reshape_alias_copy = _copy_of(_v.reshape_alias, "reshape_alias_copy")
reshape_alias_copy_out = _out_of(reshape_alias_copy, "reshape_alias_copy_out")
as_strided_copy = _copy_of(_v.as_strided, "as_strided_copy")
as_strided_copy_out = _out_of(as_strided_copy, "as_strided_copy_out")
transpose_copy_int = _copy_of(_v.transpose, "transpose_copy_int")
transpose_copy_int_out = _out_of(transpose_copy_int, "transpose_copy_int_out")
t_copy = _copy_of(_v.t, "t_copy")
t_copy_out = _out_of(t_copy, "t_copy_out")
permute_copy = _copy_of(_v.permute, "permute_copy")
permute_copy_out = _out_of(permute_copy, "permute_copy_out")
expand_copy = _copy_of(_v.expand, "expand_copy")
expand_copy_out = _out_of(expand_copy, "expand_copy_out")
slice_copy_Tensor = _copy_of(_v.slice_Tensor, "slice_copy_Tensor")  # noqa: N816 - the overload's name
slice_copy_Tensor_out = _out_of(slice_copy_Tensor, "slice_copy_Tensor_out")  # noqa: N816
select_copy_int = _copy_of(_v.select_int, "select_copy_int")
select_copy_int_out = _out_of(select_copy_int, "select_copy_int_out")
unsqueeze_copy = _copy_of(_v.unsqueeze, "unsqueeze_copy")
unsqueeze_copy_out = _out_of(unsqueeze_copy, "unsqueeze_copy_out")
squeeze_copy = _copy_of(_v.squeeze, "squeeze_copy")
squeeze_copy_out = _out_of(squeeze_copy, "squeeze_copy_out")
squeeze_copy_dim = _copy_of(_v.squeeze_dim, "squeeze_copy_dim")
squeeze_copy_dim_out = _out_of(squeeze_copy_dim, "squeeze_copy_dim_out")
squeeze_copy_dims = _copy_of(_v.squeeze_dims, "squeeze_copy_dims")
squeeze_copy_dims_out = _out_of(squeeze_copy_dims, "squeeze_copy_dims_out")
unfold_copy = _copy_of(_v.unfold, "unfold_copy")
unfold_copy_out = _out_of(unfold_copy, "unfold_copy_out")
diagonal_copy = _copy_of(_v.diagonal, "diagonal_copy")
diagonal_copy_out = _out_of(diagonal_copy, "diagonal_copy_out")
split_copy_Tensor = _copy_of(_v.split_Tensor, "split_copy_Tensor")  # noqa: N816
split_copy_Tensor_out = _out_of(split_copy_Tensor, "split_copy_Tensor_out", resize=False)  # noqa: N816
split_with_sizes_copy = _copy_of(_v.split_with_sizes, "split_with_sizes_copy")
split_with_sizes_copy_out = _out_of(split_with_sizes_copy, "split_with_sizes_copy_out")
unbind_copy_int = _copy_of(_v.unbind_int, "unbind_copy_int")
unbind_copy_int_out = _out_of(unbind_copy_int, "unbind_copy_int_out")
alias_copy = _copy_of(_v.alias, "alias_copy")
alias_copy_out = _out_of(alias_copy, "alias_copy_out")
test_autograd_multiple_dispatch_out = _out_of(_v.test_autograd_multiple_dispatch, "test_autograd_multiple_dispatch_out")
test_autograd_multiple_dispatch_view_copy = _copy_of(_v.test_autograd_multiple_dispatch_view,
                                                     "test_autograd_multiple_dispatch_view_copy")
test_autograd_multiple_dispatch_view_copy_out = _out_of(test_autograd_multiple_dispatch_view_copy,
                                                        "test_autograd_multiple_dispatch_view_copy_out")
