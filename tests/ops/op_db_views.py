"""OpInfo entries: views, copies and fills (glasstorch/_ops/native_functions/views.yaml).

tests/test_views.py checks the geometry of every view in depth (strides, offsets, aliasing, version
sharing, hypothesis-generated layouts); these entries put the same operators through the common
harness: function/method forms, dtypes, and error parity.
"""

from __future__ import annotations

from op_db_index import FnOpInfo
from opinfo import ALL, DType, ErrorSample, OpInfo, Sample, T

SRC = [T((2, 3, 4)), T((2, 3, 4), layout="transposed"), T((2, 3, 8), layout="strided")]
SRC_2D = [T((3, 4)), T((3, 4), layout="transposed")]


def _each(srcs, *args, **kwargs):
    def samples(dtype):
        for i, src in enumerate(srcs):
            yield Sample((src, *args), dict(kwargs), name=f"src{i} {args} {kwargs}")
    return samples


def _chain(*gens):
    def samples(dtype):
        for g in gens:
            yield from g(dtype)
    return samples


def _nd_split_samples(min_dim):
    def samples(dtype):
        for shape, spec in (((6,), 3), ((6,), [1, 4]), ((4, 6), 2), ((4, 6), [1, 3, 9]), ((2, 4, 6), 2),
                            ((2, 4, 6), [2]), ((2, 4, 6), []), ((0, 4, 6), 1), ((4, 4, 4, 2), 2)):
            if len(shape) >= min_dim:
                yield Sample((T(shape), spec), name=f"{shape} {spec}")
        yield Sample((T((4, 6, 4), layout="transposed"), 2), name="transposed")
    return samples


def _nd_split_errors(min_dim):
    return lambda: [ErrorSample((T((2,) * (min_dim - 1)), 2), name="too few dims"),
                    ErrorSample((T((3, 3, 3)), 2), name="not divisible"),
                    ErrorSample((T((2, 2, 2)), 0), name="zero sections"),
                    ErrorSample((T((2, 2, 2)), -1), name="negative sections")]


def _atleast_samples(dtype):
    for shape in ((), (3,), (2, 3), (2, 3, 4), (2, 1, 3, 2), (0,)):
        yield Sample((T(shape),), name=f"{shape}")
    yield Sample((T((3, 4), layout="transposed"),), name="transposed")
    yield Sample(([T(()), T((3,), seed=1), T((2, 3), seed=2), T((2, 3, 4), seed=3)],), name="sequence")
    yield Sample(((T((2,)), T((), seed=1)),), name="tuple")
    yield Sample((T((2,)), T((2, 2), seed=1)), name="varargs")


def _views(name, samples, aten, *, function=True, method=True, errors=None, dtypes=ALL):
    return OpInfo(name, aten=aten, samples=samples, dtypes=dtypes, function=function, method=method, errors=errors)


OPS = [
    _views("Tensor.view", _chain(_each([T((2, 3, 4))], 6, 4), _each([T((2, 3, 4))], -1)), ("view",), method=False,
           errors=lambda: [ErrorSample((T((3, 4), layout="transposed"), 12), name="incompatible")]),
    OpInfo("Tensor.view", aten=("view.dtype",), samples=_each([T((2, 3, 4))], DType("int32")), dtypes=("float32",),
           function=True, method=False),
    _views("Tensor.view_as", _each([T((2, 3, 4))], T((4, 6))), ("view_as",), method=False),
    _views("reshape", _chain(_each(SRC, 6, -1), _each(SRC, (24,))), ("reshape", "_unsafe_view")),
    _views("Tensor.reshape_as", _each(SRC, T((4, 6))), ("reshape_as",), method=False),
    _views("as_strided", _each([T((3, 4))], (2, 2), (1, 2), 1), ("as_strided",)),
    # geometries a reshape would give (its gradient is grad.reshape(self's sizes), as PyTorch's)
    _views("ops.aten._reshape_alias", _chain(_each([T((3, 4))], (2, 6), (6, 1)), _each([T((3, 4))], (4, 3), (3, 1)),
                                             _each([T((3, 4), layout="transposed")], (3, 2, 2), (1, 6, 3))),
           ("_reshape_alias",), method=False),
    _views("transpose", _each(SRC, 0, 2), ("transpose.int",),
           errors=lambda: [ErrorSample((T((2, 3)), 0, 3), name="dim")]),
    _views("swapaxes", _each(SRC, 1, -1), ("swapaxes",)),
    _views("swapdims", _each(SRC, 0, 1), ("swapdims",)),
    _views("t", _each(SRC_2D), ("t",), errors=lambda: [ErrorSample((T((2, 2, 2)),), name="3d")]),
    _views("permute", _each(SRC, (2, 0, 1)), ("permute",)),
    _views("Tensor.expand", _each([T((3, 1))], 2, 3, 4), ("expand",), method=False),
    _views("Tensor.expand_as", _each([T((3, 1))], T((2, 3, 4))), ("expand_as",), method=False),
    _views("broadcast_to", _each([T((3, 1))], (2, 3, 4)), ("broadcast_to",)),
    _views("narrow", _each(SRC, 1, 1, 2), ("narrow",)),
    _views("select", _each(SRC, 1, -1), ("select.int",)),
    _views("ops.aten.slice.Tensor", _chain(_each(SRC, 1, 0, 2, 1), _each(SRC, 2, -3, None, 2)), ("slice.Tensor",),
           method=False),
    # slice_inverse views self with src's geometry; a whole-dim slice keeps self and src of one shape
    _views("ops.aten.slice_inverse", _chain(_each([T((3, 4, 5))], T((3, 4, 5)), 1, 0, 4, 1),
                                            _each([T((3, 4, 5))], T((3, 4, 5)), 2)),
           ("slice_inverse",), method=False),
    _views("unsqueeze", _each(SRC, 1), ("unsqueeze",)),
    _views("squeeze", _chain(_each([T((2, 1, 3, 1))]), _each([T((2, 1, 3, 1))], 1), _each([T((2, 1, 3, 1))], (1, 3))),
           ("squeeze", "squeeze.dim", "squeeze.dims")),
    _views("flatten", _chain(_each(SRC), _each(SRC, 1)), ("flatten.using_ints",)),
    _views("unflatten", _each(SRC, 2, (2, 2)), ("unflatten.int",)),
    _views("movedim", _chain(_each(SRC, 0, 2), _each(SRC, (0, 1), (2, 0))), ("movedim.int", "movedim.intlist")),
    _views("moveaxis", _chain(_each(SRC, 0, 2), _each(SRC, (0, 1), (2, 0))), ("moveaxis.int", "moveaxis.intlist")),
    _views("Tensor.unfold", _each([T((2, 6))], 1, 2, 2), ("unfold",), method=False),
    _views("diagonal", _chain(_each(SRC_2D), _each(SRC, 1, 0, 2)), ("diagonal",)),
    _views("split", _chain(_each(SRC, 2, 2), _each(SRC, [1, 3], 2)), ("split.Tensor", "split_with_sizes")),
    _views("chunk", _each(SRC, 3, 2), ("chunk",)),
    _views("unsafe_split", _chain(_each(SRC, 2, 2), _each(SRC, [1, 3], 2)), ("unsafe_split.Tensor",
                                                                            "unsafe_split_with_sizes")),
    _views("unsafe_chunk", _each(SRC, 3, 2), ("unsafe_chunk",)),
    _views("unbind", _each(SRC, 1), ("unbind.int",)),
    _views("tensor_split", _chain(_each(SRC, 3, 2), _each(SRC, [1, 3], 2)),
           ("tensor_split.sections", "tensor_split.indices")),
    *[_views(name, _nd_split_samples(n), (f"{name}.int", f"{name}.array"), errors=_nd_split_errors(n))
      for name, n in (("hsplit", 1), ("vsplit", 2), ("dsplit", 3))],
    _views("ravel", _chain(_each(SRC), _each([T(()), T((0, 3))])), ("ravel",)),
    *[_views(f"atleast_{n}d", _atleast_samples, (f"atleast_{n}d", f"atleast_{n}d.Sequence"), method=False)
      for n in (1, 2, 3)],
    _views("ops.aten.alias", _each(SRC), ("alias",), method=False),
    _views("clone", _each(SRC), ("clone",)),
    _views("Tensor.copy_", _each([T((3, 4))], T((4,), seed=3)), ("copy_",), method=False),
    _views("Tensor.fill_", _chain(_each([T((3, 4))], 2), _each([T((3, 4))], T((), seed=2))),
           ("fill_.Scalar", "fill_.Tensor"), method=False),
    _views("Tensor.zero_", _each(SRC_2D), ("zero_",), method=False),
    _views("Tensor.to", _chain(_each(SRC, DType("float64")), _each(SRC, DType("int32"))), ("_to_copy",), method=False),
    # resizing: samples keep within the old storage (grown elements are uninitialised); tests/test_resize.py covers
    # growth, strides, versions and the autograd errors
    OpInfo("Tensor.resize_", aten=("resize_",), dtypes=ALL, method=False, grad=False,
           samples=_chain(_each(SRC_2D, 2, 5), _each(SRC_2D, (12,)), _each(SRC_2D, 3, 4), _each([T((3, 4))], 0),
                          _each([T((2, 3, 4))], 1, 2, 3, 4, memory_format=DType("channels_last"))),
           errors=lambda: [ErrorSample((T((3,)), -1), name="negative"),
                           ErrorSample((T((3,)), 2, 3), {"memory_format": DType("preserve_format")}, name="preserve"),
                           ErrorSample((T((3,)), 2, 3), {"memory_format": DType("channels_last")}, name="rank")]),
    # in-place views (inplace_view tag): the input's own geometry changes; tests/test_tensor_api.py covers their
    # autograd and version counters
    *[OpInfo(f"Tensor.{name}", aten=aten, samples=samples, dtypes=ALL, method=False, grad=False, errors=errors)
      for name, aten, samples, errors in [
          ("t_", ("t_",), _each(SRC_2D), lambda: [ErrorSample((T((2, 2, 2)),), name="3d")]),
          ("transpose_", ("transpose_",), _each(SRC, 0, 2), lambda: [ErrorSample((T((2, 3)), 0, 3), name="dim")]),
          ("swapaxes_", ("swapaxes_",), _each(SRC, 1, -1), None),
          ("swapdims_", ("swapdims_",), _each(SRC, 0, 1), None),
          ("unsqueeze_", ("unsqueeze_",), _each(SRC, 1), lambda: [ErrorSample((T((2, 3)), 3), name="dim")]),
          ("squeeze_", ("squeeze_", "squeeze_.dim", "squeeze_.dims"),
           _chain(_each([T((2, 1, 3, 1))]), _each([T((2, 1, 3, 1))], 1), _each([T((2, 1, 3, 1))], (1, 3))), None),
          ("as_strided_", ("as_strided_",), _each([T((3, 4))], (2, 2), (1, 2), 1), None),
          ("set_", ("set_", "set_.source_Tensor"), _chain(_each(SRC_2D), _each(SRC_2D, T((2, 5), seed=4))), None),
      ]],
    # the view_copy family: each view's values as a fresh row-major tensor, with the view's gradient (list
    # results' out= forms: tests/test_views.py::test_view_copy_list_out)
    *[OpInfo(name, aten=aten, samples=samples, dtypes=ALL, out=out)
      for name, aten, samples, out in [
          ("view_copy", ("view_copy", "view_copy.out"), _each([T((2, 3, 4))], (6, 4)), True),
          ("view_copy", ("view_copy.dtype", "view_copy.dtype_out"), _each([T((2, 3, 4))], DType("int32")), True),
          ("as_strided_copy", ("as_strided_copy", "as_strided_copy.out"), _each([T((3, 4))], (2, 2), (1, 2), 1),
           True),
          ("_reshape_alias_copy", ("_reshape_alias_copy", "_reshape_alias_copy.out"),
           _each([T((3, 4))], (4, 3), (3, 1)), True),
          ("transpose_copy", ("transpose_copy.int", "transpose_copy.int_out"), _each(SRC, 0, 2), True),
          ("t_copy", ("t_copy", "t_copy.out"), _each(SRC_2D), True),
          ("permute_copy", ("permute_copy", "permute_copy.out"), _each(SRC, (2, 0, 1)), True),
          ("expand_copy", ("expand_copy", "expand_copy.out"), _each([T((3, 1))], (2, 3, 4)), True),
          ("slice_copy", ("slice_copy.Tensor", "slice_copy.Tensor_out"), _each(SRC, 2, -3, None, 2), True),
          ("select_copy", ("select_copy.int", "select_copy.int_out"), _each(SRC, 1, -1), True),
          ("unsqueeze_copy", ("unsqueeze_copy", "unsqueeze_copy.out"), _each(SRC, 1), True),
          ("squeeze_copy", ("squeeze_copy", "squeeze_copy.dim", "squeeze_copy.dims", "squeeze_copy.out",
                            "squeeze_copy.dim_out", "squeeze_copy.dims_out"),
           _chain(_each([T((2, 1, 3, 1))]), _each([T((2, 1, 3, 1))], 1), _each([T((2, 1, 3, 1))], (1, 3))), True),
          ("unfold_copy", ("unfold_copy", "unfold_copy.out"), _each([T((2, 6))], 1, 2, 2), True),
          ("diagonal_copy", ("diagonal_copy", "diagonal_copy.out"), _chain(_each(SRC_2D), _each(SRC, 1, 0, 2)), True),
          ("alias_copy", ("alias_copy", "alias_copy.out"), _each(SRC), True),
          ("_test_autograd_multiple_dispatch_view_copy", ("_test_autograd_multiple_dispatch_view_copy",
                                                          "_test_autograd_multiple_dispatch_view_copy.out"),
           _each(SRC), True),
          ("split_copy", ("split_copy.Tensor", "split_copy.Tensor_out"), _each(SRC, 2, 2), False),
          ("split_with_sizes_copy", ("split_with_sizes_copy", "split_with_sizes_copy.out"), _each(SRC, [1, 3], 2),
           False),
          ("unbind_copy", ("unbind_copy.int", "unbind_copy.int_out"), _each(SRC, 1), False),
      ]],
    # PyTorch's test-only operators of per-dispatch-key formulas (derivatives/core.yaml): the Default formulas
    # (grad + 1 for the copy, the reshape for the view) are what the gradient checks compare
    OpInfo("_test_autograd_multiple_dispatch", aten=("_test_autograd_multiple_dispatch.fullcoverage",
                                                     "_test_autograd_multiple_dispatch.ntonly"),
           samples=_chain(_each(SRC), _each(SRC_2D, True)), dtypes=ALL, gradcheck=False),
    FnOpInfo("ops.aten._test_autograd_multiple_dispatch.fullcoverage_out",
             aten=("_test_autograd_multiple_dispatch.fullcoverage_out",),
             fn=lambda lib: lib.ops.aten._test_autograd_multiple_dispatch.fullcoverage_out,
             samples=_each(SRC, out=T((0,))), dtypes=("float32", "int64"), grad=False),
    OpInfo("_test_autograd_multiple_dispatch_view", aten=("_test_autograd_multiple_dispatch_view",),
           samples=_each(SRC_2D[:1]), dtypes=ALL),
    OpInfo("resize_as_", aten=("resize_as_",), dtypes=ALL, method=True, grad=False,
           samples=_chain(_each(SRC_2D, T((2, 5))), _each(SRC_2D, T((4, 3), layout="transposed")),
                          _each([T((2, 3, 4))], T((2, 3, 2, 2)), memory_format=DType("preserve_format"))),
           errors=lambda: [ErrorSample((T((3,)), T((2,))), {"memory_format": DType("channels_last")}, name="rank")]),
]
