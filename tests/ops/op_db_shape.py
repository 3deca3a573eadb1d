"""OpInfo entries: shape and copy operators (glasstorch/_ops/native_functions/shape.yaml) — cat/stack and
friends, repeat/tile/repeat_interleave, flip/roll/rot90, tril/triu, diag/diag_embed/narrow_copy, and padding
(``constant_pad_nd``, ``torch.nn.functional.pad`` and PyTorch's ``torch._C._nn`` pad operators).

``FnOpInfo`` entries reach callables that are not a dotted name under the library (``torch._C._nn``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

from opinfo import ALL, ALL_NUMERIC, FLOATS, ErrorSample, OpInfo, Sample, T

import glasstorch.nn.functional  # noqa: F401  (until glasstorch/__init__ imports nn)

SMALL = ("float32", "float64", "float16", "bfloat16", "int64", "int32", "uint8", "bool")


@dataclasses.dataclass
class FnOpInfo(OpInfo):
    """An entry whose callable is ``fn(lib)`` instead of a dotted name under the library."""

    fn: Callable | None = None

    def lib_fn(self, lib):
        return self.fn(lib) if self.fn is not None else super().lib_fn(lib)


def _C_nn(name):
    """``torch._C._nn.<name>``; glasstorch's generated binding of the same operator."""
    def get(lib):
        if lib.__name__ == "torch":
            return getattr(lib._C._nn, name)
        from glasstorch._generated import functions
        return getattr(functions, name)
    return get


def _F(name):
    def get(lib):
        return getattr(lib.nn.functional, name)
    return get


# -- cat / stack -------------------------------------------------------------------------------------------------
CAT_CASES = [
    ([(2, 3), (2, 4)], 1), ([(2, 3), (1, 3), (4, 3)], 0), ([(2, 3), (2, 1)], -1), ([(5,), (0,), (2,)], 0),
    ([(2, 0, 3), (2, 2, 3)], 1), ([(3,)], 0), ([(2, 3), (0,)], 1), ([(0,), (0,)], 0), ([(1, 2, 3), (1, 2, 3)], 2),
]


def cat_samples(dtype):
    for shapes, dim in CAT_CASES:
        yield Sample(([T(s, seed=i) for i, s in enumerate(shapes)], dim), name=f"{shapes} dim={dim}")
    yield Sample(([T((3, 4), layout="transposed"), T((3, 4), seed=1)],), name="transposed")
    yield Sample(((T((2, 6), layout="strided"), T((2, 3), layout="expanded", seed=1)), 1), name="tuple strided")
    yield Sample(([T((2, 3)), T((2, 3), dtype="float64", seed=1), T((2, 3), dtype="int32", seed=2)],),
                 name="mixed dtypes")
    yield Sample(([T((2, 3)), T((0,), dtype="float64")], 1), name="legacy empty promotes")


def cat_errors():
    return [
        ErrorSample(([],), name="empty"),
        ErrorSample(([T((2, 3)), T((3, 4))], 1), name="sizes"),
        ErrorSample(([T((2, 3)), T((2, 4))], 0), name="sizes dim 0"),
        ErrorSample(([T((2, 3)), T(())],), name="zero-dim"),
        ErrorSample(([T((2, 3)), T((2, 3, 1))],), name="ndim"),
        ErrorSample(([T((2, 3)), T((2, 3))], 2), name="dim out of range"),
        ErrorSample(([T((2, 3)), T((2, 3))],), {"out": T((0,), dtype="int64")}, name="out cast"),
        ErrorSample((T((2, 3)),), name="not a list"),
    ]


def stack_samples(dtype):
    for shape in ((), (3,), (2, 3), (0, 2)):
        for dim in range(-len(shape) - 1, len(shape) + 1):
            yield Sample(([T(shape), T(shape, seed=1), T(shape, seed=2)], dim), name=f"{shape} dim={dim}")
    yield Sample(((T((3, 4), layout="transposed"), T((3, 4), seed=1)), 1), name="transposed")
    yield Sample(([T((2, 3)), T((2, 3), dtype="float64", seed=1)],), name="mixed dtypes")


def stack_errors():
    return [ErrorSample(([],), name="empty"), ErrorSample(([T((2, 3)), T((3, 2))],), name="sizes"),
            ErrorSample(([T((2, 3)), T((2, 3))], 3), name="dim")]


def nstack_samples(dtype):
    for shapes in ([(), ()], [(3,), (3,)], [(3,), (2,)], [(2, 3), (2, 3)], [(2, 1), (2, 3)], [(2, 3, 1), (2, 3, 2)],
                   [(1, 3), (3,)], [(0,), (0,)]):
        yield Sample(([T(s, seed=i) for i, s in enumerate(shapes)],), name=f"{shapes}")
    yield Sample(([T((2, 3), layout="transposed"), T((2, 3), dtype="int32")],), name="mixed")


def _stack_entry(name):
    return OpInfo(name, aten=(name, f"{name}.out"), samples=nstack_samples, dtypes=SMALL, out=True,
                  errors=lambda: [ErrorSample(([],), name="empty")])


# -- repetition --------------------------------------------------------------------------------------------------
def repeat_samples(dtype):
    for shape, reps in (((), (2,)), ((), ()), ((3,), (2,)), ((2, 3), (2, 1)), ((2, 3), (1, 2, 2)), ((2, 3), (0, 2)),
                        ((0, 2), (2, 3)), ((2, 1, 3), (1, 3, 1))):
        yield Sample((T(shape), reps), name=f"{shape} x {reps}")
    yield Sample((T((3, 4), layout="transposed"), 2, 2), name="varargs transposed")


def repeat_errors():
    return [ErrorSample((T((2, 3)), (2,)), form="method", name="too few"),
            ErrorSample((T((2, 3)), (2, -1)), form="method", name="negative")]


def tile_samples(dtype):
    for shape, reps in (((), (2,)), ((3,), (2,)), ((2, 3), (2,)), ((2, 3), (1, 2, 2)), ((2, 3), ()), ((2, 3), (0,))):
        yield Sample((T(shape), reps), name=f"{shape} x {reps}")
    yield Sample((T((3, 4), layout="transposed"), (2, 1)), name="transposed")


def repeat_interleave_samples(dtype):
    yield Sample((T((2, 3)), 2), name="int flat")
    yield Sample((T((2, 3)), 2), {"dim": 1}, name="int dim 1")
    yield Sample((T((2, 3)), 0), {"dim": 0}, name="int zero")
    yield Sample((T(()), 3), name="0-dim")
    yield Sample((T((2, 3), layout="transposed"), 2, -1), name="transposed dim -1")
    rep = T((2,), dtype="int64", values=(1, 3))
    yield Sample((T((2, 3)), rep), {"dim": 0}, name="tensor repeats")
    yield Sample((T((2, 3)), T((), dtype="int64", values=2)), {"dim": 1}, name="0-dim repeats")
    yield Sample((T((2, 3)), T((1,), dtype="int64", values=(2,))), name="one repeat flat")
    yield Sample((T((2, 3)), T((3,), dtype="int32", values=(0, 2, 1))), {"dim": 1, "output_size": 3},
                 name="int32 repeats output_size")


def repeat_interleave_errors():
    return [ErrorSample((T((2, 3)), -1), name="negative"),
            ErrorSample((T((2, 3)), T((3,), dtype="int64", values=(1, 2, 3))), {"dim": 0}, name="size"),
            ErrorSample((T((2, 3)), T((1, 2), dtype="int64", values=((1, 2),))), {"dim": 0}, name="2-d repeats"),
            ErrorSample((T((2, 3)), T((2,), dtype="int64", values=(1, 2))), {"dim": 0, "output_size": 4},
                        name="output_size")]


def ri_tensor_samples(dtype):
    yield Sample((T((3,), values=(1, 2, 0)),), name="basic")
    yield Sample((T((0,)),), name="empty")
    yield Sample((T((4,), values=(3, 0, 1, 2)),), {"output_size": 6}, name="output_size")


def ri_tensor_errors():
    return [ErrorSample((T((3,), dtype="int64", values=(1, -2, 0)),), name="negative"),
            ErrorSample((T((1, 2), dtype="int64", values=((1, 2),)),), name="2-d"),
            ErrorSample((T((2,), values=(1, 2)),), name="float")]


# -- flips / rolls -----------------------------------------------------------------------------------------------
def flip_samples(dtype):
    for shape, dims in (((), (0,)), ((), ()), ((5,), (0,)), ((2, 3), (0,)), ((2, 3), (1, 0)), ((2, 3, 4), (-1, 0)),
                        ((2, 3), ()), ((0, 3), (0,))):
        yield Sample((T(shape), dims), name=f"{shape} {dims}")
    yield Sample((T((3, 4), layout="transposed"), (0,)), name="transposed")
    yield Sample((T((3, 6), layout="strided"), (1,)), name="strided")


def flip_errors():
    return [ErrorSample((T((2, 3)), (0, 0)), name="dup"), ErrorSample((T((2, 3)), (2,)), name="range"),
            ErrorSample((T((2, 3)), (0, -2)), name="dup wrapped")]


def lr_samples(dtype):
    for shape in ((2, 3), (2, 3, 4), (0, 2)):
        yield Sample((T(shape),), name=f"{shape}")
    yield Sample((T((3, 4), layout="transposed"),), name="transposed")


def ud_samples(dtype):
    yield from lr_samples(dtype)
    yield Sample((T((5,)),), name="1-d")


def roll_samples(dtype):
    for shape, shifts, dims in (((6,), 2, None), ((2, 3), 1, None), ((2, 3), -4, 1), ((2, 3), (1, -1), (0, 1)),
                                ((2, 3, 4), (5, 2), (-1, 0)), ((0, 3), 1, 0), ((), 1, None), ((2, 3), 0, 0)):
        args = (T(shape), shifts) if dims is None else (T(shape), shifts, dims)
        yield Sample(args, name=f"{shape} {shifts} {dims}")
    yield Sample((T((3, 4), layout="transposed"), 1), name="transposed flat")
    yield Sample((T((3, 4), layout="transposed"), 1, 1), name="transposed dim")


def roll_errors():
    return [ErrorSample((T((2, 3)), (1, -1), (0,)), name="align"),
            ErrorSample((T((2, 3)), (1,), (0, 1)), name="align2"),
            ErrorSample((T((2, 3)), (), ()), name="no shifts"), ErrorSample((T((2, 3)), 1, 2), name="dim")]


def rot90_samples(dtype):
    for k in (-1, 0, 1, 2, 3, 5):
        yield Sample((T((2, 3)), k), name=f"k={k}")
    yield Sample((T((2, 3, 4)), 1, (2, 0)), name="dims (2, 0)")
    yield Sample((T((2, 3, 4)), 3, (-1, 1)), name="dims (-1, 1)")
    yield Sample((T((3, 4), layout="transposed"),), name="transposed")


def rot90_errors():
    return [ErrorSample((T((2, 3)), 1, (0,)), name="one dim"), ErrorSample((T((3,)),), name="1-d"),
            ErrorSample((T((2, 3)), 1, (0, 0)), name="same"), ErrorSample((T((2, 3)), 1, (0, -2)), name="same wrapped"),
            ErrorSample((T((2, 3)), 1, (0, 2)), name="range")]


# -- triangles / diagonals -----------------------------------------------------------------------------------------
def tri_samples(dtype):
    for shape in ((3, 3), (2, 4), (4, 2), (2, 3, 4), (0, 3)):
        for d in (-1, 0, 2):
            yield Sample((T(shape), d), name=f"{shape} {d}")
    yield Sample((T((3, 4)),), name="default")
    yield Sample((T((3, 4)),), {"diagonal": -5}, name="far")
    yield Sample((T((3, 4), layout="transposed"), 1), name="transposed")
    yield Sample((T((3, 6), layout="strided"), -1), name="strided")


def tri_errors():
    return [ErrorSample((T((3,)),), name="1-d"), ErrorSample((T((3,)),), form="inplace", name="1-d inplace")]


def diag_samples(dtype):
    for shape in ((3,), (0,), (3, 3), (2, 4), (4, 2)):
        for d in (-2, 0, 1, 5):
            yield Sample((T(shape), d), name=f"{shape} {d}")
    yield Sample((T((3, 4), layout="transposed"),), name="transposed")
    yield Sample((T((6,), layout="strided"), 1), name="strided")


def diag_embed_samples(dtype):
    yield Sample((T((3,)),), name="1-d")
    yield Sample((T((2, 3)),), name="2-d")
    yield Sample((T((2, 3)), 1, 0, 2), name="offset dims")
    yield Sample((T((2, 3)), -1, 2, 0), name="neg offset swapped dims")
    yield Sample((T((2, 0)),), name="empty")
    yield Sample((T((3, 4), layout="transposed"), 0, -1, 0), name="transposed")


def narrow_copy_samples(dtype):
    for args in ((1, 1, 2), (0, 0, 1), (1, -2, 2), (-1, 0, 0), (0, 2, 0)):
        yield Sample((T((2, 3)),) + args, name=f"{args}")
    yield Sample((T((3, 4), layout="transposed"), 0, 1, 2), name="transposed")


def narrow_copy_errors():
    return [ErrorSample((T((2, 3)), 1, 4, 0), name="start"), ErrorSample((T((2, 3)), 1, 1, 3), name="length"),
            ErrorSample((T(()), 0, 0, 1), name="0-dim"), ErrorSample((T((2, 3)), -3, 0, 1), name="dim")]


# -- padding ------------------------------------------------------------------------------------------------------
def cpn_samples(dtype):
    for shape, pad in (((1, 2, 3), (1, 2)), ((1, 2, 3), (-1, 2)), ((2, 3), (1, 1, 2, 0)), ((2, 3), (0, 0)),
                       ((3,), (2, 3)), ((), ()), ((1, 2, 3), (-3, 0)), ((2, 3, 4), (1, 1, -3, 0)),
                       ((2, 3), (-1, -1, 0, -1))):
        yield Sample((T(shape), pad), name=f"{shape} {pad}")
    yield Sample((T((2, 3)), (1, 1), 1), name="value 1")
    yield Sample((T((3, 4), layout="transposed"), (1, 0, 0, 2)), name="transposed")
    yield Sample((T((1, 3, 2, 2), layout="transposed"), (1, 1)), name="4-d")


def cpn_errors():
    return [ErrorSample((T((2, 3)), (1,)), name="odd"), ErrorSample((T((2, 3)), (1, 1, 1, 1, 1, 1)), name="long"),
            ErrorSample((T((2, 3)), (-2, -2)), name="narrow"),
            ErrorSample((T((2, 3), dtype="uint8"), (1, 1), 300), name="value overflow")]


PAD_CASES = {
    "reflect": [((2, 3), (1, 2)), ((1, 2, 3), (2, 1)), ((1, 2, 3), (2, 1, 1, 1)), ((2, 2, 3, 4), (1, 2, 0, 1)),
                ((1, 2, 3), (-1, 1)), ((0, 2, 3), (1, 1)), ((1, 2, 3, 4), (1, 1, 2, 0, 1, 1)),
                ((1, 1, 2, 3, 4), (3, 0, 1, 1, 1, 0))],
    "replicate": [((2, 3), (3, 1)), ((1, 2, 3), (2, 1, 1, 1)), ((2, 2, 3, 4), (1, 2, 3, 1)), ((1, 2, 3), (-1, 2)),
                  ((0, 2, 3), (1, 1)), ((1, 2, 2, 3), (1, 0, 2, 1, 3, 1))],
    "circular": [((2, 3), (2, 1)), ((1, 2, 3), (3, 0)), ((1, 2, 3), (1, 1, 2, 1)), ((1, 1, 2, 3), (2, 1, 1, 1)),
                 ((1, 2, 3), (-1, -2)), ((1, 1, 2, 2, 3), (1, 1, 1, 1, 1, 0))],
    "constant": [((2, 3), (1, 2)), ((3,), (1, 1)), ((2, 3), (1, 1, 1, 1)), ((1, 2, 3), (-1, 1))],
}


def pad_samples(modes):
    def samples(dtype):
        for mode in modes:
            for shape, pad in PAD_CASES[mode]:
                yield Sample((T(shape), pad, mode), name=f"{mode} {shape} {pad}")
            yield Sample((T((2, 3, 4), layout="transposed"), (1, 1), mode), name=f"{mode} transposed")
        if "constant" in modes:
            yield Sample((T((2, 3)), (1, 1)), {"value": 2.5}, name="value")
            yield Sample((T((2, 3)), (1, 1), "constant", 1.0), name="positional value")
            yield Sample((T(()), ()), name="0-dim")
        if "reflect" in modes:
            yield Sample((T((1, 2, 3)), (1, 1), "reflect", 0.0), name="reflect value 0")
    return samples


def pad_errors():
    return [ErrorSample((T((1, 2, 3)), (1, 1), "foo"), name="mode"),
            ErrorSample((T((1, 2, 3)), (1, 1), "reflect", 1.0), name="value"),
            ErrorSample((T((3,)), (1, 1), "reflect"), name="1-d reflect"),
            ErrorSample((T((1, 1, 2, 3)), (1, 1), "replicate"), name="4-d one pair"),
            ErrorSample((T((1, 2, 3)), (1, 1, 1), "replicate"), name="odd"),
            ErrorSample((T((3,)), (1, 1, 1, 1)), name="too long"),
            ErrorSample((T((1, 2, 3)), (3, 1), "reflect"), name="reflect too big"),
            ErrorSample((T((1, 2, 3)), (4, 1), "circular"), name="circular too big"),
            ErrorSample((T((1, 2, 3)), (-2, -2), "circular"), name="circular empty"),
            ErrorSample((T((3,)), (1, 1), "circular"), name="1-d circular"),
            ErrorSample((T((1, 2, 3), dtype="bool"), (1, 1), "reflect"), name="bool reflect")]


def nn_pad_samples(nd, mode):
    def samples(dtype):
        shapes = {1: [((2, 3), (1, 2)), ((2, 2, 4), (0, 3)), ((0, 2, 3), (1, 1)), ((2, 3), (-1, 1))],
                  2: [((1, 2, 3), (1, 2, 1, 1)), ((2, 1, 3, 4), (0, 1, 2, 0)), ((1, 2, 3), (-1, 1, 0, -1))],
                  3: [((1, 2, 3, 4), (1, 2, 1, 1, 1, 0)), ((2, 1, 2, 3, 4), (0, 1, 2, 0, 1, 1)),
                      ((1, 2, 3, 4), (-2, -2, 0, 0, 0, 0))]}[nd]
        for shape, pad in shapes:
            yield Sample((T(shape), pad), name=f"{shape} {pad}")
        yield Sample((T((2, 3, 4, 2)[:nd + 1], layout="transposed"), (1,) * (2 * nd)), name="transposed")
    return samples


def nn_pad_errors(nd, mode):
    def errors():
        good = T((1, 2, 3, 4)[:nd + 1])
        out = [ErrorSample((T((2, 3, 4)[:nd]), (1,) * (2 * nd)), name="ndim"),
               ErrorSample((good, (1,) * (2 * nd + 1)), name="length"),
               ErrorSample((T((1, 0, 3, 4)[:nd + 1]), (1,) * (2 * nd)), name="empty dim"),
               ErrorSample((T((1, 2, 3, 4)[:nd + 1], dtype="bool"), (1,) * (2 * nd)), name="bool")]
        if mode == "reflection":
            out.append(ErrorSample((good, (5, 1) + (0,) * (2 * nd - 2)), name="too big"))
            if nd >= 2:
                out.append(ErrorSample((good, (0, 0, 3, 1) + (0,) * (2 * nd - 4)), name="too big h"))
            if nd == 3:
                out.append(ErrorSample((good, (0, 0, 0, 0, 2, 1)), name="too big d"))
        else:
            out.append(ErrorSample((good, (-3, -2) + (0,) * (2 * nd - 2)), name="too small w"))
        if nd >= 2:
            out.append(ErrorSample((good, (-2, -2) * nd), name="too small all"))
        return out
    return errors


def _padded(shape, pad):
    out = list(shape)
    for j in range(len(pad) // 2):
        out[-1 - j] += pad[2 * j] + pad[2 * j + 1]
    return tuple(out)


def _pad_backward_fn(name):
    """``aten::<name>_backward`` (no Python binding); ``out=`` is its ``grad_input``."""
    def make(lib):
        def call(grad_output, x, padding, out=None):
            op = getattr(lib.ops.aten, f"{name}_backward")
            return op(grad_output, x, padding) if out is None else op.grad_input(grad_output, x, padding,
                                                                                  grad_input=out)
        return call
    return make


def nn_pad_backward_samples(nd, mode):
    """(grad of the padded shape, input, padding) for the forward's samples with non-negative padding (torch's
    gradient of a cropping reflection is uninitialised memory)."""
    def samples(dtype):
        for s in nn_pad_samples(nd, mode)(dtype):
            x, pad = s.args
            if min(pad) >= 0:
                yield Sample((T(_padded(x.shape, pad), seed=1), x, pad), name=s.name)
        yield Sample((T(_padded((2, 3, 4, 2)[:nd + 1], (2,) * (2 * nd)), seed=1, layout="transposed"),
                      T((2, 3, 4, 2)[:nd + 1]), (1, 1) * nd), name="transposed grad")
    return samples


def nn_pad_backward_errors(nd):
    def errors():
        x, pad = (1, 2, 3, 4)[:nd + 1], (1,) * (2 * nd)
        out = [ErrorSample((T(_padded(x, pad), dtype="float64"), T(x), pad), name="dtypes"),
               ErrorSample((T(_padded(x, pad), dtype="int64"), T(x, dtype="int64"), pad), name="int64")]
        for j in range(nd):  # one wrong size at a time: width, height, depth
            bad = list(_padded(x, pad))
            bad[-1 - j] += 1
            out.append(ErrorSample((T(tuple(bad)), T(x), pad), name=f"grad size {j}"))
        return out
    return errors


def _nn_pad_entries():
    out = []
    for mode in ("reflection", "replication"):
        for nd in (1, 2, 3):
            name = f"{mode}_pad{nd}d"
            out.append(FnOpInfo(name, aten=(name, f"{name}.out"), fn=_C_nn(name), samples=nn_pad_samples(nd, mode),
                                dtypes=ALL_NUMERIC, out=True, errors=nn_pad_errors(nd, mode)))
            out.append(FnOpInfo(f"aten.{name}_backward", aten=(f"{name}_backward", f"{name}_backward.grad_input"),
                                fn=_pad_backward_fn(name), samples=nn_pad_backward_samples(nd, mode),
                                dtypes=FLOATS + ("float16", "bfloat16"), out=True, errors=nn_pad_backward_errors(nd)))
    return out


# -- narrow with a tensor start; where(condition) -----------------------------------------------------------------
def narrow_tensor_samples(dtype):
    for shape, dim, start, length in (((5, 4), 0, 1, 3), ((5, 4), 1, -3, 2), ((3,), 0, 0, 3), ((2, 6), -1, 6, 0)):
        yield Sample((T(shape), dim, T((), dtype="int64", values=start), length), name=f"{shape} {dim} {start}")
    yield Sample((T((4, 3), layout="transposed"), 1, T((), dtype="uint8", values=1), 2), name="uint8 start")
    yield Sample((T((4, 3)), 0, T((), dtype="int32", values=2), 2), name="int32 start")


def narrow_tensor_errors():
    return [ErrorSample((T((4, 3)), 0, T((1,), dtype="int64", values=(1,)), 2), name="1-d start"),
            ErrorSample((T((4, 3)), 0, T((), dtype="float32", values=1.0), 2), name="float start"),
            ErrorSample((T((4, 3)), 0, T((), dtype="bool", values=True), 2), name="bool start"),
            ErrorSample((T((4, 3)), 0, T((), dtype="int64", values=3), 2), name="out of range"),
            ErrorSample((T((4, 3)), 2, T((), dtype="int64", values=0), 2), name="dim")]


def tensor_split_tensor_samples(dtype):
    for shape, spec, dim in (((10,), 3, 0), ((10,), (2, 5), 0), ((2, 7), (1, 3, 9), 1), ((4, 3), 5, -2), ((5,), (), 0),
                             ((3, 4), (-1,), 1)):
        t = T((), dtype="int64", values=spec) if isinstance(spec, int) else T((len(spec),), dtype="int64", values=spec)
        yield Sample((T(shape), t, dim), name=f"{shape} {spec} dim={dim}")


def tensor_split_tensor_errors():
    return [ErrorSample((T((6,)), T((), dtype="float32", values=2.0))),
            ErrorSample((T((6,)), T((), dtype="int32", values=2)), name="int32"),
            ErrorSample((T((6,)), T((1, 1), dtype="int64", values=((2,),))), name="2-d"),
            ErrorSample((T(()), T((), dtype="int64", values=2)), name="0-d self"),
            ErrorSample((T((6,)), T((), dtype="int64", values=0)), name="0 sections")]


def where_condition_samples(dtype):
    for shape in ((), (5,), (3, 4), (2, 3, 4), (0,), (2, 0, 3)):
        yield Sample((T(shape, low=-1, high=2),), name=f"{shape}")
    yield Sample((T((3, 4), low=-1, high=2, layout="transposed"),), name="transposed")


OPS = [
    OpInfo("cat", aten=("cat", "cat.out"), samples=cat_samples, dtypes=ALL, out=True, errors=cat_errors),
    OpInfo("concat", aten=("concat", "concat.out"), samples=cat_samples, dtypes=("float32", "int64"), out=True),
    OpInfo("concatenate", aten=("concatenate", "concatenate.out"), samples=cat_samples, dtypes=("float32",), out=True),
    OpInfo("stack", aten=("stack", "stack.out"), samples=stack_samples, dtypes=ALL, out=True,
           errors=stack_errors),
    _stack_entry("hstack"), _stack_entry("vstack"), _stack_entry("dstack"), _stack_entry("column_stack"),
    OpInfo("repeat", aten=("repeat",), samples=repeat_samples, dtypes=ALL, function=False, method=True,
           errors=repeat_errors),
    OpInfo("tile", aten=("tile",), samples=tile_samples, dtypes=SMALL, method=True),
    OpInfo("repeat_interleave", aten=("repeat_interleave.self_int", "repeat_interleave.self_Tensor"),
           samples=repeat_interleave_samples, dtypes=SMALL, method=True, errors=repeat_interleave_errors),
    FnOpInfo("repeat_interleave", aten=("repeat_interleave.Tensor",), fn=lambda lib: lib.repeat_interleave,
             samples=ri_tensor_samples, dtypes=("int64", "int32"), errors=ri_tensor_errors),
    OpInfo("flip", aten=("flip",), samples=flip_samples, dtypes=ALL, method=True, errors=flip_errors),
    OpInfo("fliplr", aten=("fliplr",), samples=lr_samples, dtypes=SMALL, method=True,
           errors=lambda: [ErrorSample((T((3,)),), name="1-d")]),
    OpInfo("flipud", aten=("flipud",), samples=ud_samples, dtypes=SMALL, method=True,
           errors=lambda: [ErrorSample((T(()),), name="0-d")]),
    OpInfo("roll", aten=("roll",), samples=roll_samples, dtypes=ALL, method=True, errors=roll_errors),
    OpInfo("rot90", aten=("rot90",), samples=rot90_samples, dtypes=SMALL, method=True, errors=rot90_errors),
    OpInfo("tril", aten=("tril", "tril_", "tril.out"), samples=tri_samples, dtypes=SMALL, method=True, inplace=True,
           out=True, errors=tri_errors),
    OpInfo("triu", aten=("triu", "triu_", "triu.out"), samples=tri_samples, dtypes=SMALL, method=True, inplace=True,
           out=True, errors=tri_errors),
    OpInfo("diag", aten=("diag", "diag.out"), samples=diag_samples, dtypes=ALL, method=True, out=True,
           errors=lambda: [ErrorSample((T((2, 2, 2)),), name="3-d"), ErrorSample((T(()),), name="0-d")]),
    OpInfo("diag_embed", aten=("diag_embed",), samples=diag_embed_samples, dtypes=SMALL, method=True,
           errors=lambda: [ErrorSample((T((2, 3)), 0, 1, 1), name="same"), ErrorSample((T((2, 3)), 0, 3, 1),
                                                                                       name="range")]),
    OpInfo("narrow_copy", aten=("narrow_copy", "narrow_copy.out"), samples=narrow_copy_samples, dtypes=SMALL,
           method=True, out=True, errors=narrow_copy_errors),
    OpInfo("constant_pad_nd", aten=("constant_pad_nd",), samples=cpn_samples, dtypes=ALL, errors=cpn_errors),
    OpInfo("nn.functional.pad", aten=("pad", "_pad_enum", "_pad_circular"), samples=pad_samples(("constant",)),
           dtypes=ALL, errors=pad_errors),
    FnOpInfo("pad non-constant", aten=(), fn=_F("pad"), samples=pad_samples(("reflect", "replicate", "circular")),
             dtypes=ALL_NUMERIC),
    FnOpInfo("_pad_enum", aten=(), fn=_C_nn("_pad_enum"), dtypes=FLOATS,
             samples=lambda dtype: (Sample((T((1, 2, 3)), (1, 2), m), name=f"mode {m}") for m in range(4))),
    *_nn_pad_entries(),
    OpInfo("narrow", aten=("narrow.Tensor",), samples=narrow_tensor_samples, dtypes=SMALL, method=True,
           errors=narrow_tensor_errors),
    OpInfo("tensor_split", aten=("tensor_split.tensor_indices_or_sections",), samples=tensor_split_tensor_samples,
           dtypes=SMALL, method=True, errors=tensor_split_tensor_errors),
    FnOpInfo("where (condition)", aten=("where",), fn=lambda lib: lib.where, samples=where_condition_samples,
             dtypes=SMALL, grad=False),
]
