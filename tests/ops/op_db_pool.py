"""OpInfo entries: pooling beyond 2-D, the pooling backward kernels, max unpooling and the pixel/channel
shuffles (glasstorch/_ops/native_functions/pooling.yaml), through ``torch.*``, ``torch.nn.functional`` and
``torch._C._nn``.
"""

from __future__ import annotations

from op_db_conv import ConvOpInfo, _C_nn
from opinfo import ALL, FLOATS, HALF, INTS, ErrorSample, OpInfo, Sample, T

import glasstorch.nn.functional  # noqa: F401  (until glasstorch/__init__ imports nn)

POOL = FLOATS + HALF
SPECIAL = (((1.0, float("nan"), 3.0), (2.0, 5.0, float("nan")), (-float("inf"), 0.0, 1.0)),)


def _pool1d_samples(dtype):
    yield Sample((T((2, 3, 9)), 3), name="k=3")
    yield Sample((T((2, 3, 9)), 3, 2, 1), {"ceil_mode": True}, name="k=3 s=2 p=1 ceil")
    yield Sample((T((3, 7)), 2), name="unbatched")


def _max_pool1d_samples(dtype):
    yield from _pool1d_samples(dtype)
    yield Sample((T((2, 3, 9)), 2), {"dilation": 2, "return_indices": True}, name="dilated, indices")


def _max_pool1d_errors():
    x = T((2, 5))
    return [ErrorSample((x, 2), {"padding": -1}, name="negative padding"),
            ErrorSample((x, 2), {"padding": 2}, name="padding too big"),
            ErrorSample((x, 0), name="kernel 0"),
            ErrorSample((T((1, 2, 3, 4)), 2), name="4-d input"),
            ErrorSample((T((2, 2)), 3), {"padding": 1, "dilation": 2}, name="output too small")]


def _avg_pool1d_samples(dtype):
    yield from _pool1d_samples(dtype)
    yield Sample((T((2, 3, 9)), 3, 2, 1), {"count_include_pad": False}, name="count_include_pad=False")


def _pool3d_samples(dtype, indices=False):
    x = T((2, 2, 5, 6, 7))
    extra = {"return_indices": True} if indices else {}
    yield Sample((x, 2), dict(extra), name="k=2")
    yield Sample((x, 3, 2, 1), dict(extra), name="k=3 s=2 p=1")
    yield Sample((x, (3, 2, 2)), {"stride": (2, 1, 2), "ceil_mode": True, **extra}, name="ceil_mode")
    yield Sample((T((2, 4, 5, 4)), 2), dict(extra), name="unbatched")


def _max_pool3d_samples(dtype):
    yield from _pool3d_samples(dtype, indices=True)
    yield Sample((T((1, 2, 5, 6, 7)), 2), {"dilation": (2, 1, 2)}, name="dilated")
    if dtype in POOL:
        yield Sample((T((1, 1, 3, 3, 3), values=(SPECIAL * 3,)), 2), name="nan and -inf")


def _pool3d_errors():
    x = T((1, 2, 5, 5, 5))
    return [ErrorSample((x, 3), {"padding": 2}, name="padding too big"),
            ErrorSample((x, 2), {"padding": -1}, name="negative padding"),
            ErrorSample((x, 0), name="kernel 0"),
            ErrorSample((x, (2, 2)), name="kernel length"),
            ErrorSample((T((2, 5)), 2), name="2-d input")]


def _avg_pool3d_samples(dtype):
    yield from _pool3d_samples(dtype)
    yield Sample((T((2, 2, 5, 6, 7)), 3, 2, 1), {"count_include_pad": False}, name="count_include_pad=False")
    yield Sample((T((2, 2, 5, 6, 7)), 3, 2, 1), {"divisor_override": 5}, name="divisor_override")


def _adaptive_samples(n):
    def samples(dtype):
        shape = (2, 3) + (7, 8, 6)[:n]
        for size in ((3, 4, 2)[:n], (1,) * n, (9, 5, 3)[:n]):
            yield Sample((T(shape), size if n > 1 else size[0]), name=f"{size}")
        yield Sample((T(shape[1:]), (2,) * n if n > 1 else 2), name="unbatched")
        if n > 1:
            yield Sample((T(shape), (None,) + (2,) * (n - 1)), name="None keeps the size")
    return samples


def _adaptive_max_samples(n):
    def samples(dtype):
        yield from _adaptive_samples(n)(dtype)
        yield Sample((T((2, 3) + (7, 8, 6)[:n]), (3, 4, 2)[:n] if n > 1 else 3), {"return_indices": True},
                     name="indices")
    return samples


def _adaptive_errors(n):
    def errors():
        return [ErrorSample((T((2, 3)), (2,) * n), name="too few dims"),
                ErrorSample((T((2, 0) + (3,) * n), (2,) * n), name="empty")]
    return errors


def _unpool_samples(n):
    def samples(dtype):
        x = T((2, 3) + (4, 6, 4)[:n])
        yield Sample((x, 2), name="k=2")
        yield Sample((x, 3, 2, 1), name="k=3 s=2 p=1")
        yield Sample((T((3,) + (4, 6, 4)[:n]), 2), name="unbatched")
    return samples


def _unpool_direct(n):
    """``max_unpool{n}d`` of a tensor that requires grad, at the indices of a max pool of another input."""
    def get(lib):
        F = lib.nn.functional
        pool, unpool = getattr(F, f"max_pool{n}d"), getattr(F, f"max_unpool{n}d")

        def call(x, kernel_size, stride=None, padding=0):
            _, idx = pool(x.detach(), kernel_size, stride, padding, return_indices=True)
            vals = x[(Ellipsis,) + tuple(slice(0, m) for m in idx.shape[x.dim() - n:])]
            return unpool(vals, idx, kernel_size, stride, padding)
        return call
    return get


def _max_backward_samples(dtype):
    x = T((2, 3, 7, 8))
    yield Sample((T((2, 3, 4, 4)), x, [3, 2], [2, 2], [1, 0], [1, 1], False), name="k=3x2 s=2")
    yield Sample((T((2, 3, 6, 7)), x, [2, 2], [1, 1], [0, 0], [1, 1], False), name="overlapping")


def _max_backward(n):
    """``aten.max_pool{n}d_with_indices_backward`` at the indices of the same library's forward."""
    def get(lib):
        def call(grad, x, kernel_size, stride, padding, dilation, ceil_mode):
            _, idx = getattr(lib._C._nn, f"max_pool{n}d_with_indices")(x.detach(), kernel_size, stride, padding,
                                                                      dilation, ceil_mode)
            return getattr(lib.ops.aten, f"max_pool{n}d_with_indices_backward")(grad, x, kernel_size, stride, padding,
                                                                               dilation, ceil_mode, idx)
        return call
    return get


def _max3d_backward_samples(dtype):
    yield Sample((T((1, 2, 2, 3, 4)), T((1, 2, 5, 6, 7)), [2, 2, 3], [2, 2, 2], [0, 0, 1], [1, 1, 1], False),
                 name="k=2x2x3")


def _adaptive_max_backward(n):
    def get(lib):
        def call(grad, x):
            _, idx = getattr(lib._C._nn, f"adaptive_max_pool{n}d")(x.detach(), list(grad.shape[-n:]))
            return getattr(lib.ops.aten, f"adaptive_max_pool{n}d_backward")(grad, x, idx)
        return call
    return get


def _avg_backward_samples(dtype):
    yield Sample((T((2, 3, 4, 4)), T((2, 3, 7, 8)), [3, 3], [2, 2], [1, 1], False, True, None), name="k=3 s=2 p=1")
    yield Sample((T((2, 3, 4, 5)), T((2, 3, 7, 8)), [3, 3], [2, 2], [1, 1], True, False, None), name="ceil")
    yield Sample((T((2, 3, 3, 4)), T((2, 3, 7, 8)), [3, 2], [2, 2], [0, 0], False, True, 3), name="divisor")


def _avg3d_backward_samples(dtype):
    yield Sample((T((1, 2, 3, 3, 4)), T((1, 2, 5, 6, 7)), [3, 3, 3], [2, 2, 2], [1, 1, 1], False, True, None),
                 name="k=3 s=2 p=1")


def _adaptive_backward_samples(n):
    def samples(dtype):
        yield Sample((T((2, 3) + (3, 4, 2)[:n]), T((2, 3) + (7, 8, 6)[:n])), name="shrink")
        yield Sample((T((2, 3) + (9, 5, 7)[:n]), T((2, 3) + (7, 8, 6)[:n])), name="overlapping bins")
    return samples


def _pixel_samples(op):
    def samples(dtype):
        if op == "pixel_shuffle":
            yield Sample((T((2, 8, 3, 4)), 2), name="r=2")
            yield Sample((T((9, 2, 3)), 3), name="unbatched")
            yield Sample((T((2, 1, 8, 3, 4)), 2), name="two batch dims")
        else:
            yield Sample((T((2, 2, 6, 4)), 2), name="r=2")
            yield Sample((T((1, 6, 9)), 3), name="unbatched")
    return samples


def _pixel_errors(op):
    def errors():
        return [ErrorSample((T((3, 3)), 1), name="2-d"), ErrorSample((T((8, 4, 4)), 0), name="factor 0"),
                ErrorSample((T((6, 3, 3)), 2), name="not divisible")]
    return errors


def _channel_shuffle_samples(dtype):
    yield Sample((T((2, 6, 3, 4)), 3), name="groups=3")
    yield Sample((T((2, 4, 5)), 2), name="1-d")
    yield Sample((T((1, 6, 2, 2, 2)), 2), name="3-d")


def _channel_shuffle_errors():
    return [ErrorSample((T((2, 8, 3)), 3), name="not divisible"), ErrorSample((T((2, 8, 3)), 0), name="groups 0"),
            ErrorSample((T((3,)), 1), name="1-d input")]


def _interp_samples(dtype):
    for shape, modes in (((2, 3, 5), ("nearest", "nearest-exact", "linear", "area")),
                         ((2, 3, 5, 4), ("nearest", "nearest-exact", "bilinear", "bicubic", "area")),
                         ((1, 2, 4, 3, 5), ("nearest", "nearest-exact", "trilinear", "area"))):
        n = len(shape) - 2
        for mode in modes:
            align = {} if mode in ("nearest", "nearest-exact", "area") else {"align_corners": False}
            yield Sample((T(shape),), {"size": (7, 3, 6)[:n], "mode": mode, **align}, name=f"{mode} size")
            yield Sample((T(shape),), {"scale_factor": 1.7, "mode": mode, **align}, name=f"{mode} scale 1.7")
            if align:
                yield Sample((T(shape),), {"scale_factor": (0.6, 2.0, 1.3)[:n], "mode": mode, "align_corners": True},
                             name=f"{mode} align_corners")
    yield Sample((T((2, 3, 5, 4)),), {"scale_factor": 2, "mode": "nearest", "recompute_scale_factor": True},
                 name="recompute_scale_factor")


def _interp_errors():
    x = T((2, 3, 5, 4))
    return [ErrorSample((x,), {"mode": "nearest", "align_corners": True}, name="align_corners with nearest"),
            ErrorSample((x,), {"size": 3, "scale_factor": 2.0}, name="both size and scale"),
            ErrorSample((x,), {"size": (3, 3, 3)}, name="size length"),
            ErrorSample((x,), {"size": 3, "mode": "linear"}, name="linear on 4-d"),
            ErrorSample((x,), {"size": 3, "mode": "nearest", "antialias": True}, name="antialias nearest")]


def _nearest_uint8(lib):
    return lambda x, **kw: lib.nn.functional.interpolate(x, **kw)


_UPSAMPLE = (("upsample_nearest1d", 1, False), ("upsample_nearest2d", 2, False), ("upsample_nearest3d", 3, False),
             ("_upsample_nearest_exact1d", 1, False), ("_upsample_nearest_exact2d", 2, False),
             ("_upsample_nearest_exact3d", 3, False), ("upsample_linear1d", 1, True),
             ("upsample_bilinear2d", 2, True), ("upsample_trilinear3d", 3, True), ("upsample_bicubic2d", 2, True))


def _upsample_backward_samples(n, align):
    def samples(dtype):
        in_size, out_size = [2, 3] + [5, 4, 3][:n], [7, 3, 6][:n]
        head = (True,) if align else ()
        yield Sample((T(tuple(in_size[:2] + out_size)), out_size, in_size) + head, name="sizes")
        out_size = [7, 3, 5][:n]  # (torch's reduced-precision backward treats an exact 2x with a scale differently)
        yield Sample((T(tuple(in_size[:2] + out_size)), out_size, in_size) + head + (1.5,) * n, name="scales")
    return samples


def _unfold_errors():
    return [ErrorSample((T((2, 3, 2, 2)), 3), name="no blocks"), ErrorSample((T((2, 3, 4, 4)), 0), name="kernel 0")]


def _fold_errors():
    return [ErrorSample((T((2, 10, 12)), (4, 5), 2), name="planes not divisible"),
            ErrorSample((T((2, 12, 11)), (4, 5), 2), name="wrong block count")]


OPS = [
    OpInfo("nn.functional.max_pool1d", aten=("max_pool1d", "max_pool1d_with_indices"), samples=_max_pool1d_samples,
           dtypes=POOL, errors=_max_pool1d_errors),
    OpInfo("nn.functional.avg_pool1d", aten=("avg_pool1d",), samples=_avg_pool1d_samples, dtypes=POOL + ("int64",)),
    OpInfo("nn.functional.max_pool3d", aten=("max_pool3d", "max_pool3d_with_indices"), samples=_max_pool3d_samples,
           dtypes=POOL + INTS, errors=_pool3d_errors),
    ConvOpInfo("_C._nn.max_pool3d_with_indices", aten=("max_pool3d_with_indices", "max_pool3d_with_indices.out"),
               fn=_C_nn("max_pool3d_with_indices"), out=True, dtypes=FLOATS,
               samples=lambda dt: (Sample((T((2, 2, 5, 6, 7)), [3, 3, 3], [2, 2, 2], [1, 1, 1], [1, 1, 1], True),
                                          name="positional"),)),
    OpInfo("nn.functional.avg_pool3d", aten=("avg_pool3d", "avg_pool3d.out"), samples=_avg_pool3d_samples,
           dtypes=FLOATS + ("int64",), out=True, errors=_pool3d_errors),
    OpInfo("nn.functional.adaptive_avg_pool1d", aten=("adaptive_avg_pool1d",), samples=_adaptive_samples(1),
           dtypes=POOL),
    OpInfo("nn.functional.adaptive_avg_pool3d", aten=("adaptive_avg_pool3d", "_adaptive_avg_pool3d"),
           samples=_adaptive_samples(3), dtypes=POOL, errors=_adaptive_errors(3)),
    ConvOpInfo("_C._nn.adaptive_avg_pool3d", aten=("adaptive_avg_pool3d", "adaptive_avg_pool3d.out"),
               fn=_C_nn("adaptive_avg_pool3d"), out=True, dtypes=FLOATS,
               samples=lambda dt: (Sample((T((2, 3, 7, 8, 6)), [3, 2, 4]), name="3x2x4"),)),
    OpInfo("nn.functional.adaptive_max_pool1d", aten=("adaptive_max_pool1d",), samples=_adaptive_max_samples(1),
           dtypes=POOL),
    OpInfo("nn.functional.adaptive_max_pool2d", aten=("adaptive_max_pool2d",), samples=_adaptive_max_samples(2),
           dtypes=POOL, errors=_adaptive_errors(2)),
    OpInfo("nn.functional.adaptive_max_pool3d", aten=("adaptive_max_pool3d",), samples=_adaptive_max_samples(3),
           dtypes=POOL, errors=_adaptive_errors(3)),
    ConvOpInfo("_C._nn.adaptive_max_pool2d", aten=("adaptive_max_pool2d", "adaptive_max_pool2d.out"),
               fn=_C_nn("adaptive_max_pool2d"), out=True, dtypes=FLOATS,
               samples=lambda dt: (Sample((T((2, 3, 7, 8)), [3, 5]), name="3x5"),)),
    ConvOpInfo("_C._nn.adaptive_max_pool3d", aten=("adaptive_max_pool3d", "adaptive_max_pool3d.out"),
               fn=_C_nn("adaptive_max_pool3d"), out=True, dtypes=FLOATS,
               samples=lambda dt: (Sample((T((2, 3, 7, 8, 6)), [3, 5, 2]), name="3x5x2"),)),
    ConvOpInfo("max_pool2d_with_indices_backward", fn=_max_backward(2), samples=_max_backward_samples, dtypes=POOL,
               aten=("max_pool2d_with_indices_backward", "max_pool2d_with_indices_backward.grad_input")),
    ConvOpInfo("max_pool3d_with_indices_backward", fn=_max_backward(3), samples=_max3d_backward_samples, dtypes=POOL,
               aten=("max_pool3d_with_indices_backward", "max_pool3d_with_indices_backward.grad_input")),
    ConvOpInfo("adaptive_max_pool2d_backward", fn=_adaptive_max_backward(2), dtypes=POOL,
               samples=lambda dt: _adaptive_backward_samples(2)(dt), aten=("adaptive_max_pool2d_backward",)),
    ConvOpInfo("adaptive_max_pool3d_backward", fn=_adaptive_max_backward(3), dtypes=POOL,
               samples=lambda dt: _adaptive_backward_samples(3)(dt), aten=("adaptive_max_pool3d_backward",)),
    OpInfo("ops.aten.avg_pool2d_backward", samples=_avg_backward_samples,
               dtypes=POOL, aten=("avg_pool2d_backward", "avg_pool2d_backward.grad_input")),
    OpInfo("ops.aten.avg_pool3d_backward", samples=_avg3d_backward_samples,
               dtypes=FLOATS, aten=("avg_pool3d_backward", "avg_pool3d_backward.grad_input")),
    OpInfo("ops.aten._adaptive_avg_pool2d_backward", aten=("_adaptive_avg_pool2d_backward",), dtypes=POOL,
           samples=_adaptive_backward_samples(2)),
    OpInfo("ops.aten._adaptive_avg_pool3d_backward", aten=("_adaptive_avg_pool3d_backward",), dtypes=POOL,
           samples=_adaptive_backward_samples(3)),
    ConvOpInfo("nn.functional.max_unpool1d", aten=("max_unpool2d",), fn=_unpool_direct(1), dtypes=POOL,
               samples=_unpool_samples(1)),
    ConvOpInfo("nn.functional.max_unpool2d", aten=("max_unpool2d", "max_unpool2d.out"), fn=_unpool_direct(2),
               dtypes=POOL, samples=_unpool_samples(2)),
    ConvOpInfo("nn.functional.max_unpool3d", aten=("max_unpool3d", "max_unpool3d.out"), fn=_unpool_direct(3),
               dtypes=POOL, samples=_unpool_samples(3)),
    OpInfo("pixel_shuffle", aten=("pixel_shuffle",), samples=_pixel_samples("pixel_shuffle"), dtypes=ALL,
           errors=_pixel_errors("pixel_shuffle")),
    OpInfo("pixel_unshuffle", aten=("pixel_unshuffle",), samples=_pixel_samples("pixel_unshuffle"), dtypes=ALL,
           errors=_pixel_errors("pixel_unshuffle")),
    OpInfo("nn.functional.channel_shuffle", aten=("channel_shuffle",), samples=_channel_shuffle_samples, dtypes=ALL,
           errors=_channel_shuffle_errors),
    OpInfo("native_channel_shuffle", aten=("native_channel_shuffle",), samples=_channel_shuffle_samples,
           dtypes=FLOATS, grad=False),  # torch: "derivative for aten::native_channel_shuffle is not implemented"
    OpInfo("nn.functional.interpolate", samples=_interp_samples, dtypes=POOL, errors=_interp_errors,
           aten=tuple(f"{name}{ov}" for name, _, _ in _UPSAMPLE for ov in ("", ".vec"))),
    ConvOpInfo("nn.functional.interpolate (nearest, uint8)", aten=("upsample_nearest2d.vec",), fn=_nearest_uint8,
               dtypes=("uint8",), grad=False,
               samples=lambda dt: (Sample((T((2, 3, 5, 4), low=0, high=200),), {"size": (7, 3), "mode": mode},
                                          name=mode) for mode in ("nearest", "nearest-exact"))),
    OpInfo("nn.functional.unfold", aten=("im2col",), dtypes=ALL, errors=_unfold_errors,
           samples=lambda dt: (Sample((T((2, 3, 5, 6)), (2, 3)), {"padding": 1, "stride": 2}, name="padded strided"),
                               Sample((T((3, 4, 5)), 2), {"dilation": 2}, name="unbatched dilated"))),
    OpInfo("nn.functional.fold", aten=("col2im",), dtypes=POOL, errors=_fold_errors,
           samples=lambda dt: (Sample((T((2, 12, 12)), (4, 5), 2), name="k=2"),
                               Sample((T((12, 9)), (5, 6), (2, 3)), {"padding": 1, "stride": 2}, name="unbatched"))),
] + [OpInfo(f"ops.aten.{name}_backward", aten=(f"{name}_backward",), samples=_upsample_backward_samples(n, align),
            dtypes=POOL) for name, n, align in _UPSAMPLE]
