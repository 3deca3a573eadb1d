"""OpInfo entries: neural-network ops, part 1 (glasstorch/_ops/native_functions/nn.yaml) — activations,
softmax, normalization, dropout and embedding, through ``torch.*``, ``Tensor.*`` and ``torch.nn.functional``.

``NnOpInfo`` entries reach functions that live outside ``torch.*`` / ``torch.nn.functional`` (PyTorch's
``torch._C._nn`` bindings such as ``gelu_``) or run a small program (batch norm's running statistics).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable

from opinfo import ALL_FLOAT, FLOATS, HALF, DType, ErrorSample, OpInfo, Sample, T, unary_samples

from glasstorch._device import cpu_features

INT_BOOL = ("int64", "bool")
SPECIAL = (-30.0, -2.5, -1.0, -0.25, 0.0, 0.25, 1.0, 2.5, 30.0, float("inf"), float("-inf"), float("nan"))


@dataclasses.dataclass
class NnOpInfo(OpInfo):
    """An entry whose callable is ``fn(lib)`` instead of a dotted name under the library."""

    fn: Callable | None = None

    def lib_fn(self, lib):
        return self.fn(lib)


def no_grad(*ops):
    """Entries whose gradients are not the point (programs over the library, warnings, out= forms)."""
    for op in ops:
        op.grad = False
    return list(ops)


def _C_nn(name):
    """``torch._C._nn.<name>``; glasstorch's generated binding of the same operator."""
    def get(lib):
        if lib.__name__ == "torch":
            return getattr(lib._C._nn, name)
        from glasstorch._generated import functions
        return getattr(functions, name)
    return get


# -- samples -----------------------------------------------------------------------------------------------
def act_samples(dtype, *extra_args, **extra_kwargs):
    for s in unary_samples(dtype, low=-4.0, high=4.0):
        yield Sample(s.args + extra_args, dict(extra_kwargs), name=s.name)
    if dtype in ALL_FLOAT:  # inf/nan do not convert to integer dtypes
        yield Sample((T((12,), values=SPECIAL),) + extra_args, dict(extra_kwargs), name="special values")


def with_kwargs(*variants, inplace=False):
    """Samples for each kwargs variant; ``inplace=True`` also passes ``inplace=True`` (functional forms)."""
    def samples(dtype):
        for kw in variants:
            kw = dict(kw, **({"inplace": True} if inplace else {}))
            yield from act_samples(dtype, **kw)
    return samples


def softmax_samples(dtype):
    for shape, dims in (((), (0, -1)), ((5,), (0, -1)), ((3, 4), (0, 1, -1)), ((2, 3, 4), (0, 1, 2, -2)),
                        ((0, 3), (0, 1)), ((2, 0, 3), (2,))):
        for d in dims:
            yield Sample((T(shape, low=-10, high=10), d), name=f"{shape} dim={d}")
    yield Sample((T((3, 4), layout="transposed"), 1), name="transposed")
    yield Sample((T((3, 6), layout="strided"), 0), name="strided")
    yield Sample((T((2, 5), low=50, high=90), 1), name="large values")
    if dtype not in INT_BOOL:
        yield Sample((T((2, 12), values=((0.0, 1.0, -1.0, 2.0, float("-inf"), 3.0, 0.0, 1.0, -1.0, 2.0, 5.0, 3.0),
                                         (float("-inf"),) * 12)), 1), name="-inf")
        yield Sample((T((3, 4)), 1), {"dtype": DType("float64")}, name="dtype=float64")
    yield Sample((T((3, 4), dtype="int64"), 0), {"dtype": DType("float32")}, name="int -> dtype=float32")


def functional_softmax_samples(dtype):
    for s in softmax_samples(dtype):
        yield Sample(s.args[:1], {"dim": s.args[1], **s.kwargs}, name=s.name)
    for shape in ((), (5,), (3, 4), (2, 3, 4), (2, 3, 4, 5)):
        yield Sample((T(shape),), name=f"implicit dim {shape}")


def _softmax_samples(dtype):
    for s in softmax_samples(dtype):
        if not s.kwargs:
            yield Sample(s.args + (False,), name=s.name)


def glu_samples(dtype):
    for shape, dims in (((4,), (0, -1)), ((3, 4), (0, 1, -1)), ((2, 6, 4), (1, -1)), ((0, 4), (1,))):
        for d in dims:
            if shape[d] % 2 == 0:
                yield Sample((T(shape), d), name=f"{shape} dim={d}")
    yield Sample((T((4, 6), layout="transposed"), 0), name="transposed")
    yield Sample((T((3, 8), layout="strided"), -1), name="strided")


# -- normalization samples -----------------------------------------------------------------------------------
def layer_norm_samples(dtype):
    yield Sample((T((2, 3, 4)), (4,)), name="last dim")
    yield Sample((T((2, 3, 4)), (3, 4), T((3, 4), seed=1), T((3, 4), seed=2)), name="two dims, affine")
    yield Sample((T((5,)), [5], T((5,), seed=1)), name="1-d, weight only")
    yield Sample((T((3, 4), layout="transposed"), (4,), None, T((4,), seed=2)), name="transposed, bias only")
    yield Sample((T((3, 6), layout="strided"), (6,)), {"eps": 1e-2}, name="strided, eps")
    yield Sample((T((0, 4)), (4,)), name="empty")
    # PyTorch computes in float32 as x * rstd - mean * rstd, losing ~1e-5 to cancellation at this mean
    if dtype in FLOATS:
        yield Sample((T((2, 4), low=100, high=101), (4,)), name="large mean", rtol=1e-4, atol=1e-4)
    if dtype in HALF:
        yield Sample((T((2, 4)), (4,), T((4,), dtype="float32", seed=1), T((4,), dtype="float32", seed=2)),
                     name="mixed float32 params")


def native_layer_norm_samples(dtype):
    for s in layer_norm_samples(dtype):
        args = s.args + (None,) * (4 - len(s.args)) + (s.kwargs.get("eps", 1e-5),)
        yield Sample(args, name=s.name, rtol=s.rtol, atol=s.atol)


def rms_norm_samples(dtype):
    yield Sample((T((2, 3, 4)), (4,)), name="last dim")
    yield Sample((T((2, 3, 4)), (3, 4), T((3, 4), seed=1)), name="two dims, weight")
    yield Sample((T((3, 4), layout="transposed"), [4], T((4,), seed=1)), {"eps": 1e-3}, name="transposed, eps")
    yield Sample((T((3, 6), layout="strided"), (6,)), name="strided")
    yield Sample((T((0, 4)), (4,)), name="empty")
    other = "float32" if dtype != "float32" else "float64"
    yield Sample((T((2, 4)), (4,), T((4,), dtype=other, seed=1)), name=f"{other} weight (unfused)")


def fused_rms_norm_samples(dtype):
    for s in rms_norm_samples(dtype):
        args = s.args + (None,) * (3 - len(s.args)) + (s.kwargs.get("eps"),)
        yield Sample(args, name=s.name)


def instance_norm_samples(dtype):
    x = T((3, 4, 5))
    yield Sample((x,), name="plain")
    yield Sample((T((2, 3, 2, 3)), T((3,), seed=1), T((3,), seed=2, low=0.5, high=2.0), T((3,), seed=3),
                  T((3,), seed=4)), {"momentum": 0.3}, name="running stats affine")
    yield Sample((x, T((4,), seed=1), T((4,), seed=2, low=0.5, high=2.0)), {"use_input_stats": False},
                 name="eval")


def instance_norm_errors():
    return [ErrorSample((T((3, 4, 1)),), name="one spatial element"),
            ErrorSample((T((3, 4, 5)),), {"use_input_stats": False}, name="no running stats")]


def batch_norm_samples(dtype):
    """F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)."""
    p = "float32" if dtype in HALF else None
    c3 = dict(dtype=p)
    yield Sample((T((4, 3)), None, None), {"training": True}, name="2-d training, no stats")
    yield Sample((T((2, 3, 5)), T((3,), **c3), T((3,), low=0.5, high=2, **c3), T((3,), seed=1, **c3),
                  T((3,), seed=2, **c3)), {"training": True, "momentum": 0.2}, name="3-d training, affine")
    yield Sample((T((2, 3, 2, 2)), T((3,), **c3), T((3,), low=0.5, high=2, **c3)), {"training": False},
                 name="4-d eval")
    yield Sample((T((2, 3, 4), layout="transposed"), T((4,), **c3), T((4,), low=0.5, high=2, **c3), None,
                  T((4,), seed=2, **c3)), {"training": False, "eps": 1e-3}, name="transposed eval, bias")
    yield Sample((T((0, 3)), None, None, T((3,), **c3)), {"training": True}, name="empty")


def native_batch_norm_samples(dtype):
    p = "float32" if dtype in HALF else None
    yield Sample((T((4, 3)), None, None, None, None, True, 0.1, 1e-5), name="training, no stats")
    yield Sample((T((2, 3, 5)), T((3,), dtype=p, seed=1), T((3,), dtype=p, seed=2), T((3,), dtype=p),
                  T((3,), low=0.5, high=2, dtype=p), True, 0.3, 1e-5), name="training, stats")
    yield Sample((T((2, 3, 2, 2)), None, None, T((3,), dtype=p), T((3,), low=0.5, high=2, dtype=p), False, 0.1,
                  1e-3), name="eval")



def _aten(name):
    """``torch.ops.aten.<name>`` (no Python binding in PyTorch) in either library."""
    return lambda lib: getattr(lib.ops.aten, name)


def native_layer_norm_backward_samples(dtype):
    # one row: d weight / d bias of several rows depend on how many threads split them (the suite runs torch on
    # one thread, glasstorch on its own count); tests/nn/test_norm_kernels_vs_torch.py pins both to two
    stat = {"low": 0.5, "high": 2.0}
    yield Sample((T((1, 3, 4), seed=3), T((1, 3, 4)), [3, 4], T((1, 1, 1), seed=1), T((1, 1, 1), seed=2, **stat),
                  T((3, 4), seed=4), T((3, 4), seed=5), [True, True, True]), name="affine")
    yield Sample((T((2, 6), seed=3), T((2, 6)), [6], T((2, 1), seed=1), T((2, 1), seed=2, **stat), None, None,
                  [True, False, False]), name="input only")


def native_batch_norm_backward_samples(dtype):
    pos = {"low": 0.5, "high": 2.0}
    yield Sample((T((2, 3, 5), seed=3), T((2, 3, 5)), T((3,), seed=4), None, None, T((3,), seed=1),
                  T((3,), seed=2, **pos), True, 1e-5, [True, True, True]), name="training")
    yield Sample((T((2, 3, 2, 2), seed=3), T((2, 3, 2, 2)), None, T((3,), seed=1), T((3,), seed=2, **pos), None,
                  None, False, 1e-3, [True, False, True]), name="eval")


def native_group_norm_backward_samples(dtype):
    pos = {"low": 0.5, "high": 2.0}
    yield Sample((T((2, 4, 3), seed=3), T((2, 4, 3)), T((2, 2), seed=1), T((2, 2), seed=2, **pos), T((4,), seed=4),
                  2, 4, 3, 2, [True, True, True]), name="affine")
    yield Sample((T((2, 6, 2, 2), seed=3), T((2, 6, 2, 2)), T((2, 3), seed=1), T((2, 3), seed=2, **pos), None,
                  2, 6, 4, 3, [True, False, False]), name="input only")


def _batch_norm_out(name, overload):
    """A batch-norm operator's out= overload, its three results written into fresh tensors of the input's dtype."""
    def get(lib):
        op = getattr(getattr(lib.ops.aten, name), overload)

        def call(x, *args):
            outs = [lib.empty(0, dtype=x.dtype) for _ in range(3)]
            return op(x, *args, out=outs[0], save_mean=outs[1], save_invstd=outs[2])
        return call
    return get


def batch_norm_out_samples(dtype, stats=True):
    pos = {"low": 0.5, "high": 2.0}
    running = (T((3,), seed=3), T((3,), seed=4, **pos)) if stats else ()
    yield Sample((T((2, 3, 5)), T((3,), seed=1), T((3,), seed=2), *running, True, 0.1, 1e-5), name="training")

def update_stats_samples(dtype):
    p = "float32" if dtype in HALF else None
    yield Sample((T((4, 3)), None, None, 0.1), name="no stats")
    yield Sample((T((2, 3, 5)), T((3,), dtype=p), T((3,), low=0.5, high=2, dtype=p), 0.3), name="stats")
    yield Sample((T((2, 3, 2, 2)), T((3,), dtype=p), None, 1.0), name="mean only")
    yield Sample((T((1, 2)), T((2,), dtype=p), T((2,), dtype=p), 0.5), name="one per channel")


def update_stats_errors():
    return [ErrorSample((T((0, 1)), T((1,)), T((1,)), 0.0), name="empty"),
            ErrorSample((T((2, 3), dtype="float64"), T((3,)), None, 0.1), name="mixed dtypes"),
            ErrorSample((T((2, 3), dtype="float16"), T((3,), dtype="float64"), None, 0.1), name="half, double stats")]


def legit_samples(dtype):
    p = "float32" if dtype in HALF else None
    yield Sample((T((2, 3, 5)), T((3,), dtype=p, seed=1), T((3,), dtype=p, seed=2), T((3,), dtype=p),
                  T((3,), low=0.5, high=2, dtype=p), True, 0.3, 1e-5), name="training")
    yield Sample((T((2, 3, 2, 2)), None, None, T((3,), dtype=p), T((3,), low=0.5, high=2, dtype=p), False, 0.1,
                  1e-3), name="eval")


def legit_no_stats_samples(dtype):
    p = "float32" if dtype in HALF else None
    yield Sample((T((4, 3)), None, None, True, 0.1, 1e-5), name="2-d")
    yield Sample((T((2, 3, 5), layout="transposed"), T((3,), dtype=p, seed=1), T((3,), dtype=p, seed=2), True,
                  0.1, 1e-5), name="3-d affine")


def legit_no_training_samples(dtype):
    p = "float32" if dtype in HALF else None
    yield Sample((T((2, 3, 2, 2)), T((3,), dtype=p, seed=1), T((3,), dtype=p, seed=2), T((3,), dtype=p),
                  T((3,), low=0.5, high=2, dtype=p), 0.1, 1e-3), name="4-d")
    yield Sample((T((4, 3)), None, None, T((3,), dtype=p), T((3,), low=0.5, high=2, dtype=p), 0.1, 1e-5),
                 name="2-d")


def _running_stats(lib):
    """F.batch_norm in training, returning the updated running statistics too."""
    def run(x, rm, rv, **kw):
        out = lib.nn.functional.batch_norm(x, rm, rv, training=True, **kw)
        return out, rm, rv
    return run


def running_stats_samples(dtype):
    p = "float32" if dtype in HALF else None
    yield Sample((T((4, 3)), T((3,), dtype=p), T((3,), low=0.5, high=2, dtype=p)), name="2-d")
    yield Sample((T((2, 3, 5)), T((3,), dtype=p), T((3,), low=0.5, high=2, dtype=p)), {"momentum": 0.5},
                 name="3-d momentum")


def group_norm_samples(dtype):
    yield Sample((T((2, 4, 3)), 2), name="3-d, 2 groups")
    yield Sample((T((2, 6, 2, 2)), 3, T((6,), seed=1), T((6,), seed=2)), name="4-d affine")
    yield Sample((T((3, 4)), 1), {"eps": 1e-3}, name="2-d, 1 group")
    yield Sample((T((2, 4, 5), layout="transposed"), 4, None, T((4,), seed=2)), name="transposed, bias")
    if dtype in HALF:
        yield Sample((T((2, 4, 3)), 2, T((4,), dtype="float32", seed=1), T((4,), dtype="float32", seed=2)),
                     name="mixed float32 params")


def native_group_norm_samples(dtype):
    yield Sample((T((2, 4, 3)), None, None, 2, 4, 3, 2, 1e-5), name="3-d")
    yield Sample((T((2, 6, 2, 2)), T((6,), seed=1), T((6,), seed=2), 2, 6, 4, 3, 1e-5), name="4-d affine")


def dropout_samples(dtype):
    for p in (0.0, 0.3, 1.0):
        yield Sample((T((4, 5)), p), name=f"p={p}")
    yield Sample((T((4, 5)), 0.5, False), name="eval")
    yield Sample((T((3, 4), layout="transposed"),), {"p": 0.5, "training": True}, name="transposed")
    yield Sample((T((0, 3)),), name="empty")
    yield Sample((T((4, 5)), 0.5, True, True), name="inplace")


def dropout_fn_samples(dtype):
    yield Sample((T((4, 5)), 0.5, False), name="eval")
    yield Sample((T((4, 5)), 0.0, True), name="p=0")
    yield Sample((T((4, 5)), 1.0, True), name="p=1")
    yield Sample((T((4, 5)), 0.4, True), name="p=0.4")


def native_dropout_samples(dtype):
    for p, train in ((0.5, True), (0.5, False), (0.0, True), (1.0, True), (0.3, None)):
        yield Sample((T((4, 5)), p, train), name=f"p={p} train={train}")


def embedding_samples(dtype):
    w = T((10, 3))
    yield Sample((T((4,), dtype="int64", low=0, high=10), w), name="1-d")
    yield Sample((T((2, 3), dtype="int64", low=0, high=10), w), name="2-d")
    yield Sample((T((2, 3), dtype="int32", low=0, high=10), w), name="int32 indices")
    yield Sample((T((), dtype="int64", low=0, high=10), w), name="0-d index")
    yield Sample((T((0,), dtype="int64"), w), name="no indices")
    yield Sample((T((3, 2), dtype="int64", low=0, high=10, layout="transposed"), T((10, 3), layout="transposed")),
                 name="transposed")
    yield Sample((T((4,), dtype="int64", low=0, high=10), w), {"padding_idx": 2}, name="padding_idx")
    yield Sample((T((4,), dtype="int64", low=0, high=10), w), {"padding_idx": -3}, name="negative padding_idx")
    yield Sample((T((5,), dtype="int64", low=0, high=10), T((10, 3), low=-2, high=2)), {"max_norm": 1.0},
                 name="max_norm")
    yield Sample((T((5,), dtype="int64", low=0, high=10), T((10, 3), low=-2, high=2)),
                 {"max_norm": 1.5, "norm_type": 1.0}, name="max_norm, norm_type=1")


def embedding_fn_samples(dtype):
    w = T((10, 3))
    yield Sample((w, T((2, 3), dtype="int64", low=0, high=10)), name="2-d")
    yield Sample((w, T((4,), dtype="int32", low=0, high=10), 3, True), name="padding_idx, scale_grad_by_freq")


def renorm_samples(dtype):
    yield Sample((T((6, 3), low=-3, high=3), T((4,), dtype="int64", low=0, high=6), 1.0, 2.0), name="p=2")
    yield Sample((T((6, 3), low=-3, high=3), T((2, 2), dtype="int64", low=0, high=6), 2.0, 1.0), name="p=1")
    yield Sample((T((6, 3), low=-3, high=3), T((3,), dtype="int64", low=0, high=6), 2.5, float("inf")),
                 name="p=inf")


# -- error samples -------------------------------------------------------------------------------------------
def _gelu_backward(lib):
    """``aten::gelu_backward`` (PyTorch binds no Python function for it); ``out=`` is its ``grad_input``."""
    def call(grad_output, x, approximate="none", out=None):
        if out is None:
            return lib.ops.aten.gelu_backward(grad_output, x, approximate=approximate)
        return lib.ops.aten.gelu_backward.grad_input(grad_output, x, approximate=approximate, grad_input=out)
    return call


def _f64(x, lib):
    return x.new_empty(0, dtype=lib.float64)


def _aten_backward(name, out_name="grad_input"):
    """``aten::<name>`` (a derivative operator: PyTorch binds no Python function for it); ``out=`` is its
    ``grad_input`` (or the ``out_name`` overload and argument)."""
    def make(lib):
        def call(*args, out=None):
            op = getattr(lib.ops.aten, name)
            return op(*args) if out is None else getattr(op, out_name)(*args, **{out_name: out})
        return call
    return make


def backward_op_samples(*extra, integral=False):
    """(grad, input, *extra): the input with special values (ties with the thresholds too), broadcasting on either
    side, an expanded grad and a float64 grad (promotes)."""
    def samples(dtype):
        for s in act_samples(dtype):
            x = s.args[0]
            yield Sample((dataclasses.replace(x, seed=1, values=None), x, *extra), name=s.name)
        yield Sample((T((4,), seed=1), T((3, 4)), *extra), name="broadcast grad")
        yield Sample((T((3, 4), seed=1), T((4,)), *extra), name="broadcast input")
        yield Sample((T((3, 1), seed=1, layout="expanded"), T((3, 4)), *extra), name="expanded grad")
        if dtype != "float64" and (integral or dtype in ALL_FLOAT):
            yield Sample((T((3, 4), dtype="float64", seed=1), T((3, 4)), *extra), name="grad float64")
    return samples


def _log_sigmoid_backward(lib):
    """``aten::log_sigmoid_backward(grad, x, buffer)`` with the buffer the forward makes, ``exp(-|x|)``, computed
    from a detached ``x`` (the buffer is not differentiable): so the numerical Jacobian in ``x`` sees the buffer
    move with ``x``, as it does in a real backward."""
    call = _aten_backward("log_sigmoid_backward")(lib)

    def fn(grad, x, out=None):
        return call(grad, x, (-x.detach().abs()).exp(), out=out)
    return fn


def elu_backward_samples(dtype):
    """(grad, alpha, scale, input_scale, is_result, input or result): elu's and celu's/selu's constants."""
    for s in act_samples(dtype):
        x = s.args[0]
        yield Sample((dataclasses.replace(x, seed=1, values=None), 1.0, 1.0, 1.0, False, x), name=s.name)
    yield Sample((T((3, 4), seed=1), 1.6732632423543772, 1.0507009873554805, 1.0, False, T((3, 4))), name="selu")
    yield Sample((T((3, 4), seed=1), 2.0, 1.0, 0.5, True, T((3, 4), low=-2.0)), name="from the result")
    yield Sample((T((4,), seed=1), 0.5, 2.0, 1.5, False, T((3, 4))), name="broadcast grad")


def elu_backward_errors():
    return [ErrorSample((T((3,), dtype=dt), 1.0, 1.0, 1.0, False, T((3,), dtype=dt)), name=dt)
            for dt in ("int64", "bool")] + [
        ErrorSample((T((2,)), 1.0, 1.0, 1.0, False, T((3,))), name="shapes"),
        ErrorSample((T((3,)), -1.0, 1.0, 1.0, True, T((3,))), name="in-place result, negative slope")]


def backward_op_errors(*extra, dtypes=("bool", "complex64")):
    return lambda: [ErrorSample((T((3,), dtype=dt), T((3,), dtype=dt), *extra), name=dt) for dt in dtypes] + [
        ErrorSample((T((2,)), T((3,)), *extra), name="shapes")]


def _onednn_gelu(dtype) -> bool:
    """Whether torch hands gelu_backward ('none') of ``dtype`` to oneDNN (float32; bfloat16 on AVX-512 cores; float16
    on AVX512-FP16 cores), which cannot broadcast and refuses a grad of another dtype ("could not create a primitive
    descriptor")."""
    return dtype == "float32" or (dtype == "bfloat16" and cpu_features.onednn_bf16()) or (
        dtype == "float16" and cpu_features.onednn_fp16())


def gelu_backward_samples(dtype):
    for kw in ({}, {"approximate": "tanh"}):
        for s in act_samples(dtype):  # grad and input: same shape and layout, special values included
            x = s.args[0]
            yield Sample((dataclasses.replace(x, seed=1, values=None, low=-2.0, high=2.0), x), kw, name=s.name)
        # broadcasting: torch's oneDNN path cannot broadcast, its plain kernel can
        if not _onednn_gelu(dtype) or kw:
            yield Sample((T((3, 1), low=-2.0, high=2.0, layout="expanded"), T((3, 4), seed=1)), kw, name="expanded")
            yield Sample((T((4,), low=-2.0, high=2.0), T((3, 4), seed=1)), kw, name="broadcast grad")
            yield Sample((T((3, 4), low=-2.0, high=2.0), T((4,), seed=1)), kw, name="broadcast input")
        other = "float64" if dtype != "float64" else "float32"
        if not _onednn_gelu(dtype) or kw:  # mixed dtypes promote (torch's oneDNN path refuses another grad dtype)
            yield Sample((T((3, 4), dtype=other, low=-2.0, high=2.0), T((3, 4), seed=1)), kw, name=f"grad {other}")


def gelu_backward_errors():
    return [ErrorSample((T((3,), dtype=dt), T((3,), dtype=dt)), kw, name=f"{dt} {kw}")
            for dt in ("int64", "bool", "complex64") for kw in ({}, {"approximate": "tanh"})] + [
        ErrorSample((T((3,)), T((3,))), {"approximate": "foo"}, name="approximate"),
        ErrorSample((T((2,)), T((3,))), {"approximate": "tanh"}, name="shapes")]


def softmax_errors():
    return [ErrorSample((T((2, 3)), 2), name="dim"), ErrorSample((T((2, 3), dtype="int64"), 1), name="int"),
            ErrorSample((T((2, 3), dtype="int64"), 0), name="int, not last dim"),
            ErrorSample((T((2, 3)), "x"), name="dim type")]


def _softmax_errors():
    return [ErrorSample((T((2, 3)), 1, True), name="half_to_float"),
            ErrorSample((T((2, 3)), 1, False), {"out": T((0,), dtype="float64")}, name="out dtype")]


def layer_norm_errors():
    return [ErrorSample((T((2, 3)), (4,)), name="shape"), ErrorSample((T((2, 3)), (2, 3, 4)), name="too many dims"),
            ErrorSample((T((2, 3)), ()), name="no dims"), ErrorSample((T((2, 3)), (3,), T((4,))), name="weight"),
            ErrorSample((T((2, 3)), (3,), None, T((4,))), name="bias"),
            ErrorSample((T((2, 3), dtype="int64"), (3,)), name="int"),
            ErrorSample((T((2, 3)), (3,), T((3,), dtype="float64")), name="mixed float/double"),
            ErrorSample((T((2, 3), dtype="float64"), (3,), T((3,))), name="mixed double/float"),
            ErrorSample((T((2, 3)), 3), name="int normalized_shape")]


def rms_norm_errors():
    return [ErrorSample((T((2, 3)), (4,)), name="shape"), ErrorSample((T((2, 3)), (2, 4)), name="shape 2"),
            ErrorSample((T((2, 3)), ()), name="no dims"), ErrorSample((T((2, 3)), (3,), T((4,))), name="weight"),
            ErrorSample((T((2, 3), dtype="int64"), (3,)), name="int")]


def batch_norm_errors():
    x = T((2, 3, 4))
    return [ErrorSample((x, None, None), name="eval without stats"),
            ErrorSample((x, T((3,)), None), name="eval without running_var"),
            ErrorSample((x, T((4,)), T((3,))), name="running_mean size"),
            ErrorSample((x, None, None, T((4,))), {"training": True}, name="weight size"),
            ErrorSample((x, None, None, None, T((2,))), {"training": True}, name="bias size"),
            ErrorSample((T((1, 3)), None, None), {"training": True}, name="one value per channel"),
            ErrorSample((x, None, None), {"training": True, "eps": 0.0}, name="eps"),
            ErrorSample((x, T((3,)), T((3,))), {"eps": -1.0}, name="negative eps"),
            ErrorSample((T((2, 3), dtype="int64"), None, None), {"training": True}, name="int"),
            ErrorSample((T((2, 3), dtype="float64"), T((3,)), T((3,))), name="mixed double/float")]


def group_norm_errors():
    x = T((2, 3, 4))
    return [ErrorSample((x, 2), name="groups"), ErrorSample((x, 3, T((2,))), name="weight"),
            ErrorSample((x, 3, None, T((2,))), name="bias"), ErrorSample((x, 3, T((3,)), T((2,))), name="bias 2"),
            ErrorSample((T((3,)), 3), name="1-d"), ErrorSample((T((1, 3)), 3), name="one value per group"),
            ErrorSample((T((2, 3), dtype="int64"), 3), name="int"),
            ErrorSample((x, 3, T((3,), dtype="float64")), name="mixed")]


def group_norm_aten_errors():
    return [ErrorSample((T((2, 3, 4)), 0), name="zero groups"), ErrorSample((T((3,)), 3), name="1-d")]


def embedding_errors():
    w = T((5, 3))
    return [ErrorSample((T((2,), dtype="int64", low=5, high=9), w), name="index too large"),
            ErrorSample((T((2,), dtype="int64", low=-3, high=-1), w), name="negative index"),
            ErrorSample((T((2,)), w), name="float indices"),
            ErrorSample((T((2,), dtype="int16", low=0, high=3), w), name="int16 indices"),
            ErrorSample((T((2,), dtype="int64", low=0, high=3), T((5,))), name="1-d weight"),
            ErrorSample((T((2,), dtype="int64", low=0, high=3), w), {"padding_idx": 7}, name="padding_idx"),
            ErrorSample((T((2,), dtype="int64", low=0, high=3), w), {"padding_idx": -7}, name="padding_idx -7")]


def dropout_errors():
    return [ErrorSample((T((3,)), 1.5), name="p > 1"), ErrorSample((T((3,)), -0.5), name="p < 0")]


def dropout_fn_errors():
    return [ErrorSample((T((3,)), 1.5, True), name="p > 1"),
            ErrorSample((T((3,), dtype="int64"), 0.5, True), name="int"),
            ErrorSample((T((3,), dtype="complex64"), 0.5, True), name="complex")]


def rrelu_samples(dtype):
    yield Sample((T((4, 5)),), {"training": True}, name="training")
    yield Sample((T((4, 5)), 0.0, 1.0, True), name="0..1")
    yield Sample((T((4, 5), layout="transposed"),), {"lower": 0.2, "upper": 0.3}, name="eval")
    yield Sample((T((4, 5)),), {"training": True, "inplace": True}, name="in place")


def rrelu_errors():
    return [ErrorSample((T((3,)), 0.3, 0.1, True), name="lower > upper"),
            ErrorSample((T((3,), dtype="int64"),), {"training": True}, name="int64")]


def feature_dropout_samples(dtype):
    for p, train in ((0.4, True), (0.0, True), (1.0, True), (0.5, False)):
        yield Sample((T((2, 3, 4)), p, train), name=f"p={p} train={train}")
    yield Sample((T((3, 4), layout="transposed"), 0.3, True), name="transposed")
    yield Sample((T((0, 3)), 0.3, True), name="empty")


def feature_dropout_errors():
    return dropout_fn_errors() + [ErrorSample((T((3,)), 0.5, True), name="1-d")]


def act_errors(kernel_call_args=()):
    def errors():
        return [ErrorSample((T((3,), dtype="int64"),) + kernel_call_args, name="int"),
                ErrorSample((T((3,), dtype="bool"),) + kernel_call_args, name="bool"),
                ErrorSample((T((3,), dtype="complex64"),) + kernel_call_args, name="complex"),
                ErrorSample((T((3,)),) + kernel_call_args, {"out": T((0,), dtype="float64")}, name="out dtype")]
    return errors


def _warnings_of(call):
    """The warning messages (category and text) ``call(lib, *args)`` emits."""
    def get(lib):
        def run(*args):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                call(lib, *args)
            return [f"{w.category.__name__}: {w.message}" for w in caught]
        return run
    return get


WARNINGS = no_grad(
    NnOpInfo("warns: softmax implicit dim", aten=(), dtypes=("float32",), samples=lambda dt: [Sample((T((2, 3)),))],
             fn=_warnings_of(lambda lib, x: (lib.nn.functional.softmax(x), lib.nn.functional.log_softmax(x)))),
)

NN_ACT = ALL_FLOAT + INT_BOOL


def _act(name, aten, samples=act_samples, dtypes=NN_ACT, **kw):
    return OpInfo(f"nn.functional.{name}", aten=aten, samples=samples, dtypes=dtypes, **kw)


OPS = [
    # -- softmax ----------------------------------------------------------------------------------------------
    OpInfo("softmax", aten=("softmax.int", "softmax.int_out"), samples=softmax_samples, dtypes=NN_ACT, method=True,
           out=True, errors=softmax_errors),
    OpInfo("log_softmax", aten=("log_softmax.int", "log_softmax.int_out"), samples=softmax_samples, dtypes=NN_ACT,
           method=True, out=True, errors=softmax_errors),
    OpInfo("_softmax", aten=("_softmax", "_softmax.out"), samples=_softmax_samples, dtypes=ALL_FLOAT, out=True,
           errors=_softmax_errors),
    OpInfo("_log_softmax", aten=("_log_softmax", "_log_softmax.out"), samples=_softmax_samples, dtypes=ALL_FLOAT,
           out=True, errors=_softmax_errors),
    OpInfo("nn.functional.softmax", aten=(), samples=functional_softmax_samples, dtypes=FLOATS),
    OpInfo("nn.functional.log_softmax", aten=(), samples=functional_softmax_samples, dtypes=FLOATS),
    # -- activations ------------------------------------------------------------------------------------------
    OpInfo("relu", aten=("relu", "relu_"), samples=act_samples, dtypes=ALL_FLOAT + ("int64", "int32", "uint8"),
           method=True, inplace=True, errors=lambda: [ErrorSample((T((3,), dtype="bool"),), name="bool"),
                                                      ErrorSample((T((3,), dtype="complex64"),), name="complex")]),
    _act("relu", aten=(), samples=with_kwargs({}, inplace=True), dtypes=FLOATS + ("int64",)),
    _act("relu6", aten=("relu6", "relu6_"), samples=with_kwargs({}, {"inplace": True}),
         dtypes=ALL_FLOAT + ("int64", "uint8")),
    _act("gelu", aten=("gelu", "gelu.out"), samples=with_kwargs({}, {"approximate": "tanh"}, {"approximate": "none"}),
         out=True, errors=lambda: act_errors()() + [ErrorSample((T((3,)),), {"approximate": "foo"}, name="approx")]),
    NnOpInfo("torch._C._nn.gelu_", aten=("gelu_",), fn=_C_nn("gelu_"), dtypes=ALL_FLOAT,
             samples=with_kwargs({}, {"approximate": "tanh"})),
    NnOpInfo("aten.gelu_backward", aten=("gelu_backward", "gelu_backward.grad_input"), fn=_gelu_backward,
             samples=gelu_backward_samples, dtypes=ALL_FLOAT, out=True, errors=gelu_backward_errors),
    *no_grad(NnOpInfo("aten.gelu_backward(grad_input=float64)", aten=(), dtypes=("float32", "float16"),
                      fn=lambda lib: lambda g, x: _gelu_backward(lib)(g, x, "tanh", out=_f64(x, lib)),
                      samples=lambda dt: [Sample((T((3, 4), seed=1), T((3, 4))))],
                      rtol=1e-3, atol=1e-5)),  # float64 results with the inputs' precision
    _act("silu", aten=("silu", "silu_", "silu.out"), samples=with_kwargs({}, {"inplace": True}),
         dtypes=NN_ACT + ("complex64",)),
    NnOpInfo("torch._C._nn.silu", aten=(), fn=_C_nn("silu"), samples=act_samples, dtypes=FLOATS, out=True),
    _act("mish", aten=("mish", "mish_", "mish.out"), samples=with_kwargs({}, {"inplace": True}),
         errors=act_errors()),
    NnOpInfo("torch._C._nn.mish", aten=(), fn=_C_nn("mish"), samples=act_samples, dtypes=FLOATS, out=True),
    _act("softplus", aten=("softplus", "softplus.out"), out=True, errors=act_errors(),
         samples=with_kwargs({}, {"beta": 2, "threshold": 1.5}, {"beta": 0.5}, {"beta": -1.0}, {"beta": 0})),
    _act("elu", aten=("elu", "elu_"), samples=with_kwargs({}, {"alpha": 0.5}, {"alpha": -1.5},
                                                          {"alpha": 2.0, "inplace": True}), errors=act_errors()),
    NnOpInfo("torch._C._nn.elu", aten=("elu.out",), fn=_C_nn("elu"), dtypes=ALL_FLOAT, out=True,
             samples=lambda dt: act_samples(dt, 1.5, 2.0, 0.5)),
    _act("selu", aten=("selu", "selu_"), samples=with_kwargs({}, {"inplace": True})),
    _act("celu", aten=("celu", "celu_"), samples=with_kwargs({}, {"alpha": 0.5}, {"alpha": 2.0, "inplace": True}),
         errors=lambda: [ErrorSample((T((3,)),), {"alpha": 0.0}, name="alpha=0")]),
    _act("leaky_relu", aten=("leaky_relu", "leaky_relu_", "leaky_relu.out"),
         samples=with_kwargs({}, {"negative_slope": 0.2}, {"negative_slope": -1.5, "inplace": True},
                             {"negative_slope": True}), errors=act_errors()),
    NnOpInfo("torch._C._nn.leaky_relu", aten=(), fn=_C_nn("leaky_relu"), dtypes=FLOATS, out=True,
             samples=lambda dt: act_samples(dt, 0.3)),
    _act("hardtanh", aten=("hardtanh", "hardtanh_", "hardtanh.out"), dtypes=ALL_FLOAT + ("int64", "int32", "uint8"),
         samples=with_kwargs({}, {"min_val": -2.5, "max_val": 0.5}, {"min_val": 0.0, "max_val": 3, "inplace": True},
                             {"min_val": 1, "max_val": 1})),
    NnOpInfo("torch._C._nn.hardtanh", aten=(), fn=_C_nn("hardtanh"), dtypes=FLOATS + ("int64",), out=True,
             samples=lambda dt: act_samples(dt, 2, -1),
             errors=lambda: [ErrorSample((T((3,), dtype="bool"),), name="bool"),
                             ErrorSample((T((3,), dtype="uint8"), -1, 2), name="uint8 negative"),
                             ErrorSample((T((3,), dtype="complex64"),), name="complex")]),
    OpInfo("hardshrink", aten=("hardshrink", "hardshrink.out"), samples=lambda dt: act_samples(dt, 0.3),
           dtypes=ALL_FLOAT, method=True, out=True,
           errors=lambda: [ErrorSample((T((3,), dtype="int64"),), name="int64"),
                           ErrorSample((T((3,), dtype="complex64"),), name="complex")]),
    NnOpInfo("torch._C._nn.softshrink", aten=("softshrink", "softshrink.out"), fn=_C_nn("softshrink"),
             samples=lambda dt: act_samples(dt, 0.3), dtypes=ALL_FLOAT, out=True,
             errors=lambda: [ErrorSample((T((3,)), -0.5), name="negative lambda"),
                             ErrorSample((T((3,), dtype="float16"), 1e6), name="lambda past float16"),
                             ErrorSample((T((3,), dtype="bool"),), name="bool")]),
    *[NnOpInfo(f"aten.{name}_backward", aten=(f"{name}_backward", f"{name}_backward.grad_input"),
               fn=_aten_backward(f"{name}_backward"), samples=backward_op_samples(0.4), dtypes=ALL_FLOAT, out=True,
               errors=backward_op_errors(0.5, dtypes=("int64",))) for name in ("hardshrink", "softshrink")],
    _act("hardsigmoid", aten=("hardsigmoid", "hardsigmoid_", "hardsigmoid.out"),
         samples=with_kwargs({}, {"inplace": True}), errors=act_errors()),
    NnOpInfo("torch._C._nn.hardsigmoid", aten=(), fn=_C_nn("hardsigmoid"), samples=act_samples, dtypes=FLOATS,
             out=True),
    _act("hardswish", aten=("hardswish", "hardswish_", "hardswish.out"), samples=with_kwargs({}, {"inplace": True}),
         errors=act_errors()),
    NnOpInfo("torch._C._nn.hardswish", aten=(), fn=_C_nn("hardswish"), samples=act_samples, dtypes=FLOATS, out=True),
    _act("threshold", aten=("threshold", "threshold_", "threshold.out"),
         dtypes=ALL_FLOAT + ("int64", "int32", "uint8", "bool"),
         samples=lambda dt: act_samples(dt, 0.5, 2.0),
         errors=lambda: [ErrorSample((T((3,), dtype="bool"), 0, 1), name="bool"),
                         ErrorSample((T((3,), dtype="complex64"), 0, 1), name="complex")]),
    OpInfo("threshold", aten=(), dtypes=FLOATS, out=True, samples=lambda dt: act_samples(dt, -1.5, 7)),
    NnOpInfo("aten.threshold_backward", aten=("threshold_backward", "threshold_backward.grad_input"),
             fn=_aten_backward("threshold_backward"), samples=backward_op_samples(0.5, integral=True),
             dtypes=ALL_FLOAT + ("int64", "uint8"), out=True, errors=backward_op_errors(0)),
    NnOpInfo("aten.leaky_relu_backward", aten=("leaky_relu_backward", "leaky_relu_backward.grad_input"),
             fn=_aten_backward("leaky_relu_backward"), samples=backward_op_samples(0.2, False), dtypes=ALL_FLOAT,
             out=True, errors=lambda: backward_op_errors(0.1, False, dtypes=("int64", "bool"))() + [
                 ErrorSample((T((3,)), T((3,)), -0.1, True), name="in-place result, negative slope")]),
    NnOpInfo("aten.hardtanh_backward", aten=("hardtanh_backward", "hardtanh_backward.grad_input"),
             fn=_aten_backward("hardtanh_backward"), samples=backward_op_samples(-0.5, 1.0), dtypes=ALL_FLOAT,
             out=True, errors=backward_op_errors(-1, 1, dtypes=("int64", "bool"))),
    *[NnOpInfo(f"aten.{name}_backward", aten=(f"{name}_backward", f"{name}_backward.grad_input"),
               fn=_aten_backward(f"{name}_backward"), samples=backward_op_samples(), dtypes=ALL_FLOAT + ("complex64",),
               out=True, errors=backward_op_errors(dtypes=("int64", "bool"))) for name in ("tanh", "sigmoid")],
    NnOpInfo("aten.softplus_backward", aten=("softplus_backward", "softplus_backward.grad_input"),
             fn=_aten_backward("softplus_backward"), samples=backward_op_samples(2, 1), dtypes=ALL_FLOAT, out=True,
             errors=backward_op_errors(1, 20, dtypes=("int64", "bool"))),
    NnOpInfo("aten.elu_backward", aten=("elu_backward", "elu_backward.grad_input"), fn=_aten_backward("elu_backward"),
             samples=elu_backward_samples, dtypes=ALL_FLOAT, out=True, errors=elu_backward_errors),
    NnOpInfo("aten.hardsigmoid_backward", aten=("hardsigmoid_backward", "hardsigmoid_backward.grad_input"),
             fn=_aten_backward("hardsigmoid_backward"), samples=backward_op_samples(), dtypes=ALL_FLOAT,
             out=True, errors=backward_op_errors(dtypes=("int64",))),
    NnOpInfo("aten.silu_backward", aten=("silu_backward", "silu_backward.grad_input"),
             fn=_aten_backward("silu_backward"), samples=backward_op_samples(), dtypes=ALL_FLOAT + ("complex64",),
             out=True, errors=backward_op_errors(dtypes=("int64", "bool"))),
    NnOpInfo("aten.mish_backward", aten=("mish_backward",), fn=_aten_backward("mish_backward"),
             samples=backward_op_samples(), dtypes=ALL_FLOAT,
             errors=backward_op_errors(dtypes=("int64", "complex64"))),
    NnOpInfo("aten.hardswish_backward", aten=("hardswish_backward", "hardswish_backward.out"),
             fn=_aten_backward("hardswish_backward", "out"), samples=backward_op_samples(), dtypes=ALL_FLOAT,
             out=True, errors=backward_op_errors(dtypes=("int64", "complex64"))),
    NnOpInfo("aten.log_sigmoid_backward", aten=("log_sigmoid_backward", "log_sigmoid_backward.grad_input"),
             fn=_log_sigmoid_backward, samples=backward_op_samples(), dtypes=ALL_FLOAT, out=True),
    _act("logsigmoid", aten=("log_sigmoid", "log_sigmoid.out", "log_sigmoid_forward", "log_sigmoid_forward.output"),
         out=True, errors=act_errors()),
    _act("glu", aten=("glu", "glu.out"), samples=glu_samples, dtypes=ALL_FLOAT + ("int64",), out=True,
         errors=lambda: [ErrorSample((T((3,)),), name="odd"), ErrorSample((T(()),), name="scalar"),
                         ErrorSample((T((2, 4)), 2), name="dim"),
                         ErrorSample((T((4,), dtype="int64"),), name="int")]),
    NnOpInfo("torch._C._nn.glu", aten=(), fn=_C_nn("glu"), samples=glu_samples, dtypes=FLOATS, out=True,
             errors=lambda: [ErrorSample((T(()),), name="scalar")]),
    *no_grad(NnOpInfo("torch._C._nn.glu(out=float64)", aten=(), fn=lambda lib: lambda x: _C_nn("glu")(lib)(
        x, out=x.new_empty(0, dtype=lib.float64)), samples=glu_samples, dtypes=("float32",))),
    # -- normalization ----------------------------------------------------------------------------------------
    OpInfo("nn.functional.layer_norm", aten=("layer_norm",), samples=layer_norm_samples, dtypes=ALL_FLOAT,
           errors=layer_norm_errors),
    OpInfo("native_layer_norm", aten=("native_layer_norm",), samples=native_layer_norm_samples, dtypes=ALL_FLOAT),
    OpInfo("nn.functional.rms_norm", aten=("rms_norm",), samples=rms_norm_samples, dtypes=ALL_FLOAT,
           errors=rms_norm_errors),
    OpInfo("_fused_rms_norm", aten=("_fused_rms_norm",), samples=fused_rms_norm_samples, dtypes=ALL_FLOAT),
    OpInfo("nn.functional.instance_norm", aten=("instance_norm",), samples=instance_norm_samples, dtypes=FLOATS,
           errors=instance_norm_errors),
    OpInfo("nn.functional.batch_norm", aten=("batch_norm",), samples=batch_norm_samples, dtypes=ALL_FLOAT,
           errors=batch_norm_errors),
    *no_grad(NnOpInfo("batch_norm running stats", aten=(), fn=_running_stats, samples=running_stats_samples,
                      dtypes=ALL_FLOAT)),
    OpInfo("native_batch_norm", aten=("native_batch_norm",), samples=native_batch_norm_samples, dtypes=ALL_FLOAT),
    *no_grad(NnOpInfo("ops.aten.native_layer_norm_backward", aten=("native_layer_norm_backward",),
                      fn=_aten("native_layer_norm_backward"), samples=native_layer_norm_backward_samples,
                      dtypes=ALL_FLOAT),
             NnOpInfo("ops.aten.native_batch_norm_backward", aten=("native_batch_norm_backward",),
                      fn=_aten("native_batch_norm_backward"), samples=native_batch_norm_backward_samples,
                      dtypes=ALL_FLOAT),
             NnOpInfo("ops.aten.native_group_norm_backward", aten=("native_group_norm_backward",),
                      fn=_aten("native_group_norm_backward"), samples=native_group_norm_backward_samples,
                      dtypes=ALL_FLOAT),
             NnOpInfo("native_batch_norm.out", aten=("native_batch_norm.out",),
                      fn=_batch_norm_out("native_batch_norm", "out"), samples=batch_norm_out_samples, dtypes=FLOATS),
             NnOpInfo("_native_batch_norm_legit.out", aten=("_native_batch_norm_legit.out",),
                      fn=_batch_norm_out("_native_batch_norm_legit", "out"), samples=batch_norm_out_samples,
                      dtypes=FLOATS),
             NnOpInfo("_native_batch_norm_legit.no_stats_out", aten=("_native_batch_norm_legit.no_stats_out",),
                      fn=_batch_norm_out("_native_batch_norm_legit", "no_stats_out"),
                      samples=lambda dt: batch_norm_out_samples(dt, stats=False), dtypes=FLOATS)),
    OpInfo("batch_norm_update_stats", aten=("batch_norm_update_stats",), samples=update_stats_samples,
           dtypes=ALL_FLOAT, errors=update_stats_errors),
    OpInfo("_native_batch_norm_legit", aten=("_native_batch_norm_legit", "_native_batch_norm_legit.no_stats"),
           samples=lambda dt: list(legit_samples(dt)) + list(legit_no_stats_samples(dt)), dtypes=ALL_FLOAT),
    OpInfo("_native_batch_norm_legit_no_training", aten=("_native_batch_norm_legit_no_training",),
           samples=legit_no_training_samples, dtypes=ALL_FLOAT),
    OpInfo("nn.functional.group_norm", aten=("group_norm",), samples=group_norm_samples, dtypes=ALL_FLOAT,
           errors=group_norm_errors),
    OpInfo("group_norm", aten=(), samples=group_norm_samples, dtypes=FLOATS, errors=group_norm_aten_errors),
    OpInfo("native_group_norm", aten=("native_group_norm",), samples=native_group_norm_samples, dtypes=ALL_FLOAT),
    # -- dropout (random: shapes and dtypes; the identity cases are also value-checked below) ------------------
    OpInfo("nn.functional.dropout", aten=("dropout", "dropout_"), samples=dropout_samples, dtypes=ALL_FLOAT,
           random=True, errors=dropout_errors),
    OpInfo("dropout", aten=(), samples=lambda dt: (s for s in dropout_fn_samples(dt) if s.name in ("eval", "p=0")),
           dtypes=FLOATS + ("int64",)),
    OpInfo("dropout", aten=(), samples=dropout_fn_samples, dtypes=ALL_FLOAT + ("int64",), random=True,
           errors=dropout_fn_errors),
    *[OpInfo(name, aten=(name, name + "_"), samples=feature_dropout_samples, dtypes=ALL_FLOAT, random=True,
             errors=feature_dropout_errors if name.startswith("feature") else dropout_fn_errors)
      for name in ("feature_dropout", "alpha_dropout", "feature_alpha_dropout")],
    OpInfo("nn.functional.rrelu", aten=("rrelu", "rrelu_", "rrelu_with_noise", "rrelu_with_noise_functional"),
           samples=rrelu_samples,
           dtypes=ALL_FLOAT, random=True, errors=rrelu_errors),
    OpInfo("native_dropout", aten=("native_dropout",), samples=native_dropout_samples, dtypes=ALL_FLOAT,
           random=True, errors=lambda: [ErrorSample((T((3,)), 1.5, True), name="p > 1"),
                                        ErrorSample((T((3,), dtype="int64"), 0.5, True), name="int")]),
    # -- embedding --------------------------------------------------------------------------------------------
    OpInfo("nn.functional.embedding", aten=("embedding", "embedding_renorm_"), samples=embedding_samples,
           dtypes=ALL_FLOAT + ("int64",), errors=embedding_errors),
    OpInfo("embedding", aten=(), samples=embedding_fn_samples, dtypes=FLOATS),
    OpInfo("embedding_renorm_", aten=(), samples=renorm_samples, dtypes=ALL_FLOAT),
    # a test operator: a copy whose backward warns (tests/test_autograd_runtime.py checks the warning)
    OpInfo("_C._nn._test_warn_in_autograd", aten=("_test_warn_in_autograd",), samples=unary_samples, dtypes=NN_ACT),
] + WARNINGS


# -- recurrent cells (native_functions/rnn.yaml): batch 3, input 4, hidden 5; layers and packing in tests/nn/test_rnn.py
def _cell_samples(gates, lstm=False):
    def samples(dtype):
        G = gates * 5
        hx = [T((3, 5), seed=1), T((3, 5), seed=2)] if lstm else T((3, 5), seed=1)
        weights = (T((G, 4), seed=3), T((G, 5), seed=4))
        yield Sample((T((3, 4)), hx, *weights, T((G,), seed=5), T((G,), seed=6)), name="bias")
        yield Sample((T((3, 4), layout="transposed"), hx, *weights), name="no bias, transposed input")
    return samples


OPS += [
    OpInfo("rnn_tanh_cell", aten=("rnn_tanh_cell",), samples=_cell_samples(1), dtypes=FLOATS),
    OpInfo("rnn_relu_cell", aten=("rnn_relu_cell",), samples=_cell_samples(1), dtypes=FLOATS),
    OpInfo("gru_cell", aten=("gru_cell",), samples=_cell_samples(3), dtypes=FLOATS),
    OpInfo("lstm_cell", aten=("lstm_cell",), samples=_cell_samples(4, lstm=True), dtypes=FLOATS),
]
