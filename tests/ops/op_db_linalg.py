"""OpInfo entries: matrix products (glasstorch/_ops/native_functions/linalg.yaml) — mm, bmm, addmm, baddbmm,
addbmm, addmv, mv, dot, vdot, matmul (every broadcasting case), linear, outer, ger and einsum; the out_dtype
overloads (Meta only, as in PyTorch's CPU build); the singular value decomposition (_linalg_svd, linalg.svd,
linalg.svdvals), its singular vectors compared up to their sign.

Products are compared with tolerances that grow with the dtype's rounding (float16/bfloat16 are
accumulated in float32 and rounded once, as PyTorch's CPU gemm does; integer products are exact).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import torch
from opinfo import ALL_FLOAT, ALL_NUMERIC, FLOATS, ErrorSample, OpInfo, Sample, T

import glasstorch as gt
import glasstorch.functional as _gt_functional

INTS_FLOATS = ALL_NUMERIC
# (rtol, atol) per dtype for sums of products of values in [-5, 5)
PROD_TOL = {"float32": (1e-5, 1e-4), "float64": (1e-10, 1e-10), "float16": (2e-3, 2e-2), "bfloat16": (1.6e-2, 0.2)}


@dataclasses.dataclass
class LibOpInfo(OpInfo):
    """An entry whose callable is ``fn(lib)`` instead of a dotted name under the library."""

    fn: Callable | None = None

    def lib_fn(self, lib):
        return self.fn(lib)


def _linear(lib):
    if lib.__name__ == "torch":
        return lib.nn.functional.linear
    nn = getattr(lib, "nn", None)
    if nn is not None and hasattr(getattr(nn, "functional", None), "linear"):
        return nn.functional.linear
    from glasstorch._generated import functions
    return functions.linear


def _einsum(lib):
    return lib.einsum if lib.__name__ == "torch" else _gt_functional.einsum


def _tol(dtype):
    return PROD_TOL.get(dtype, (None, None))


def _s(args, name, dtype, kwargs=None, **kw):
    rtol, atol = _tol(dtype)
    return Sample(args, kwargs or {}, name=name, rtol=rtol, atol=atol, **kw)


def _scalars(dtype):
    """beta/alpha pairs valid for the dtype (floats only for floating dtypes)."""
    pairs = [(1, 1), (0, 2), (2, -1)]
    if dtype in ALL_FLOAT:
        pairs += [(0.5, 1.5)]
    return pairs


# -- mm / bmm ------------------------------------------------------------------------------------------------
MM_SHAPES = [((2, 3), (3, 4)), ((1, 1), (1, 1)), ((5, 1), (1, 6)), ((0, 3), (3, 4)), ((2, 0), (0, 4)),
             ((2, 3), (3, 0)), ((7, 9), (9, 8))]


def mm_samples(dtype):
    for sa, sb in MM_SHAPES:
        yield _s((T(sa), T(sb, seed=1)), f"{sa}@{sb}", dtype)
    for la, lb in (("transposed", "contiguous"), ("contiguous", "transposed"), ("strided", "transposed"),
                   ("expanded", "strided")):
        yield _s((T((4, 5), layout=la), T((5, 3), seed=1, layout=lb)), f"{la}@{lb}", dtype)


def mm_errors():
    return [ErrorSample((T((3,)), T((3, 4)))), ErrorSample((T((2, 3)), T((3, 4, 1)))),
            ErrorSample((T((2, 3)), T((2, 3))), name="shapes"),
            ErrorSample((T((2, 3)), T((3, 4), dtype="float64")), name="dtype"),
            ErrorSample((T((2, 3), dtype="int64"), T((3, 4))), name="dtype int"),
            ErrorSample((T((2, 3), dtype="bool"), T((3, 4), dtype="bool")), name="bool"),
            ErrorSample((T((2, 3)), T((3, 4))), {"out": T((2, 4), dtype="float64")}, name="out dtype")]


BMM_SHAPES = [((2, 3, 4), (2, 4, 5)), ((3, 8, 7), (3, 7, 9)), ((0, 3, 4), (0, 4, 5)), ((2, 0, 4), (2, 4, 5)),
              ((2, 3, 0), (2, 0, 5)), ((1, 1, 1), (1, 1, 1))]


def bmm_samples(dtype):
    for sa, sb in BMM_SHAPES:
        yield _s((T(sa), T(sb, seed=1)), f"{sa}@{sb}", dtype)
    for la, lb in (("transposed", "strided"), ("expanded", "transposed")):
        yield _s((T((2, 9, 8), layout=la), T((2, 8, 7), seed=1, layout=lb)), f"{la}@{lb}", dtype)


def bmm_errors():
    out = []
    for n in (2, 8):  # below and above PyTorch's small-product threshold (k*n*p < 400)
        for da, db in (("float32", "float64"), ("float64", "float32"), ("int64", "float32"),
                       ("float32", "int32"), ("bool", "float32"), ("bool", "bool"), ("float16", "float32")):
            out.append(ErrorSample((T((2, n, n), dtype=da), T((2, n, n), dtype=db)), name=f"{da}@{db} n={n}"))
    out += [ErrorSample((T((2, 3)), T((2, 3, 4)))), ErrorSample((T((2, 2, 3)), T((2, 3)))),
            ErrorSample((T((2, 2, 3)), T((3, 3, 4))), name="batch"),
            ErrorSample((T((2, 2, 3)), T((2, 2, 4))), name="inner")]
    return out


# -- addmm family ----------------------------------------------------------------------------------------------
def addmm_samples(dtype):
    for beta, alpha in _scalars(dtype):
        yield _s((T((2, 4), seed=2), T((2, 3)), T((3, 4), seed=1)), f"beta={beta} alpha={alpha}", dtype,
                 {"beta": beta, "alpha": alpha})
    for ss in ((4,), (1, 4), (), (2, 1)):
        yield _s((T(ss, seed=2), T((2, 3)), T((3, 4), seed=1)), f"self {ss}", dtype)
    yield _s((T((2, 4), seed=2), T((2, 0)), T((0, 4), seed=1)), "k=0", dtype, {"beta": 2})
    yield _s((T((0, 4), seed=2), T((0, 3)), T((3, 4), seed=1)), "empty", dtype)
    yield _s((T((3, 5), seed=2, layout="transposed"), T((3, 6), layout="transposed"), T((6, 5), seed=1,
                                                                                       layout="strided")),
             "layouts", dtype, {"beta": 2})


def addmm_errors():
    return [ErrorSample((T((2, 4), dtype="float64"), T((2, 3)), T((3, 4))), name="self dtype"),
            ErrorSample((T((2, 4)), T((2, 3), dtype="float64"), T((3, 4))), name="mat1 dtype"),
            ErrorSample((T((2, 4)), T((3,)), T((3, 4)))), ErrorSample((T((2, 4)), T((2, 3)), T((3,)))),
            ErrorSample((T((2, 4)), T((2, 3)), T((2, 4))), name="shapes"),
            ErrorSample((T((3,)), T((2, 3)), T((3, 4))), name="expand"),
            ErrorSample((T((4,)), T((2, 3)), T((3, 4))), form="inplace", name="inplace size"),
            ErrorSample((T((2, 4), dtype="bool"), T((2, 3), dtype="bool"), T((3, 4), dtype="bool")), name="bool")]


def baddbmm_samples(dtype):
    for beta, alpha in _scalars(dtype):
        yield _s((T((2, 3, 5), seed=2), T((2, 3, 4)), T((2, 4, 5), seed=1)), f"beta={beta} alpha={alpha}", dtype,
                 {"beta": beta, "alpha": alpha})
    for ss in ((5,), (1, 3, 1), ()):
        yield _s((T(ss, seed=2), T((2, 3, 4)), T((2, 4, 5), seed=1)), f"self {ss}", dtype)
    yield _s((T((2, 8, 9), seed=2), T((2, 8, 7)), T((2, 7, 9), seed=1)), "large", dtype, {"beta": 2, "alpha": 3})
    yield _s((T((2, 3, 5), seed=2), T((2, 3, 0)), T((2, 0, 5), seed=1)), "k=0", dtype, {"beta": 2})


def baddbmm_errors():
    return [ErrorSample((T((2, 3, 5), dtype="float64"), T((2, 3, 4)), T((2, 4, 5))), name="self dtype"),
            ErrorSample((T((2, 3, 5)), T((2, 3, 4)), T((2, 4, 5), dtype="float64")), name="batch2 dtype"),
            ErrorSample((T((2, 3, 5)), T((2, 3, 4)), T((2, 4, 5), dtype="float64")), form="inplace",
                        name="inplace dtype"),
            ErrorSample((T((5,)), T((2, 3, 4)), T((2, 4, 5))), form="inplace", name="inplace size"),
            ErrorSample((T((4,)), T((2, 3, 4)), T((2, 4, 5))), name="expand"),
            ErrorSample((T((5,)), T((2, 3, 4)), T((4, 5))), name="batch2 2d"),
            ErrorSample((T((5,)), T((3, 4)), T((2, 4, 5))), name="batch1 2d"),
            ErrorSample((T((5,)), T((2, 3, 4)), T((3, 4, 5))), name="batches")]


def addbmm_samples(dtype):
    for beta, alpha in _scalars(dtype):
        yield _s((T((3, 5), seed=2), T((2, 3, 4)), T((2, 4, 5), seed=1)), f"beta={beta} alpha={alpha}", dtype,
                 {"beta": beta, "alpha": alpha})
    yield _s((T((5,), seed=2), T((3, 3, 4)), T((3, 4, 5), seed=1)), "self (5,)", dtype)
    yield _s((T((3, 5), seed=2), T((0, 3, 4)), T((0, 4, 5), seed=1)), "no batches", dtype, {"beta": 2})
    yield _s((T((3, 5), seed=2), T((2, 3, 0)), T((2, 0, 5), seed=1)), "k=0", dtype, {"beta": 2})
    yield _s((T((8, 9), seed=2), T((3, 8, 7), layout="transposed"), T((3, 7, 9), seed=1)), "large", dtype)


def addbmm_errors():
    return [ErrorSample((T((3, 5), dtype="float64"), T((2, 3, 4)), T((2, 4, 5))), name="self dtype"),
            ErrorSample((T((3, 5)), T((2, 3, 4), dtype="float64"), T((2, 4, 5))), name="batch1 dtype"),
            ErrorSample((T((3, 5)), T((2, 3, 4)), T((3, 4, 5))), name="batches"),
            ErrorSample((T((3, 5)), T((2, 3, 4)), T((2, 3, 5))), name="sizes"),
            ErrorSample((T((3, 5)), T((3, 4)), T((2, 4, 5))), name="2d"),
            ErrorSample((T((3, 5), dtype="bool"), T((2, 3, 4), dtype="bool"), T((2, 4, 5), dtype="bool")),
                        name="bool")]


def addmv_samples(dtype):
    for beta, alpha in _scalars(dtype):
        yield _s((T((2,), seed=2), T((2, 3)), T((3,), seed=1)), f"beta={beta} alpha={alpha}", dtype,
                 {"beta": beta, "alpha": alpha})
    for ss in ((1,), ()):
        yield _s((T(ss, seed=2), T((2, 3)), T((3,), seed=1)), f"self {ss}", dtype)
    yield _s((T((4,), seed=2, layout="strided"), T((4, 5), layout="transposed"), T((5,), seed=1,
                                                                                  layout="strided")),
             "layouts", dtype)
    yield _s((T((2,), seed=2), T((2, 0)), T((0,), seed=1)), "k=0", dtype, {"beta": 2})
    yield _s((T((0,), seed=2), T((0, 3)), T((3,), seed=1)), "empty", dtype)


def addmv_errors():
    return [ErrorSample((T((2,)), T((2, 3)), T((2,))), name="size"),
            ErrorSample((T((2, 1)), T((2, 3)), T((3,))), name="self 2d"),
            ErrorSample((T((2,), dtype="float64"), T((2, 3)), T((3,))), name="dtype"),
            ErrorSample((T((1,)), T((2, 3)), T((3,))), form="inplace", name="inplace size"),
            ErrorSample((T((2,), dtype="bool"), T((2, 3), dtype="bool"), T((3,), dtype="bool")), name="bool")]


def mv_samples(dtype):
    for sa, sb in (((2, 3), (3,)), ((0, 3), (3,)), ((2, 0), (0,)), ((6, 7), (7,))):
        yield _s((T(sa), T(sb, seed=1)), f"{sa}@{sb}", dtype)
    yield _s((T((4, 5), layout="transposed"), T((5,), seed=1, layout="strided")), "layouts", dtype)


def mv_errors():
    return [ErrorSample((T((3,)), T((3,)))), ErrorSample((T((2, 3)), T((2, 3)))),
            ErrorSample((T((2, 3)), T((2,))), name="size"),
            ErrorSample((T((2, 3)), T((3,), dtype="float64")), name="dtype"),
            ErrorSample((T(()), T((3,))), name="0-d")]


def dot_samples(dtype):
    for n in (5, 1, 0, 40):
        yield _s((T((n,)), T((n,), seed=1)), f"n={n}", dtype)
    yield _s((T((6,), layout="strided"), T((6,), seed=1, layout="expanded")), "layouts", dtype)


def dot_errors():
    return [ErrorSample((T((2, 3)), T((3,)))), ErrorSample((T((3,)), T((4,))), name="size"),
            ErrorSample((T((3,)), T((3,), dtype="float64")), name="dtype"),
            ErrorSample((T((3,), dtype="bool"), T((3,), dtype="bool")), name="bool"),
            ErrorSample((T((3,)), T((3,))), {"out": T((), dtype="float64")}, name="out dtype")]


# -- matmul ----------------------------------------------------------------------------------------------------
MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),  # dot, mv, 1-d @ 2-d, mm
    ((5, 2, 3), (3,)), ((5, 2, 3), (3, 4)), ((2, 5, 2, 3), (3, 4)),  # folded into mv / mm
    ((3,), (5, 3, 4)), ((2, 3), (5, 3, 4)), ((2, 3), (2, 5, 3, 4)),  # batched on the right
    ((5, 2, 3), (5, 3, 4)), ((2, 1, 2, 3), (5, 3, 4)), ((1, 2, 3), (4, 3, 5)), ((4, 2, 3), (1, 3, 5)),
    ((2, 3, 1, 2, 3), (3, 3, 5)),  # broadcast batch dims
    ((0, 2, 3), (3, 4)), ((5, 0, 3), (5, 3, 4)), ((5, 2, 0), (0, 4)), ((2, 0), (0, 3, 2)), ((0,), (0,)),
]


def matmul_samples(dtype):
    for sa, sb in MATMUL_SHAPES:
        yield _s((T(sa), T(sb, seed=1)), f"{sa}@{sb}", dtype)
    yield _s((T((2, 4, 3), layout="transposed"), T((3, 5), seed=1)), "3d transposed@2d", dtype)
    yield _s((T((3, 4, 6), layout="strided"), T((3, 6, 2), seed=1, layout="transposed")), "strided@transposed",
             dtype)
    yield _s((T((2, 4, 3), layout="expanded"), T((3,), seed=1)), "expanded@1d", dtype)


def matmul_errors():
    return [ErrorSample((T(()), T((2, 3)))), ErrorSample((T((3,)), T((2,))), name="dot size"),
            ErrorSample((T((2, 3)), T((2,))), name="mv size"), ErrorSample((T((3,)), T((2, 3))), name="1d@2d"),
            ErrorSample((T((2, 3)), T((2, 3))), name="mm"), ErrorSample((T((2, 2, 3)), T((3, 3, 4))), name="batch"),
            ErrorSample((T((2, 2, 3)), T((2, 2, 4))), name="bmm"),
            ErrorSample((T((2, 3)), T((3, 4), dtype="float64")), name="mm dtype"),
            ErrorSample((T((3,)), T((3,), dtype="float64")), name="dot dtype"),
            ErrorSample((T((2, 3)), T((3,), dtype="float64")), name="mv dtype"),
            ErrorSample((T((1, 2, 3)), T((3, 4), dtype="float64")), name="folded dtype"),
            ErrorSample((T((2, 2, 3)), T((2, 3, 4), dtype="float64")), name="bmm dtype"),
            ErrorSample((T((2, 3)), T((3, 4))), {"out": T((2, 4), dtype="float64")}, name="out dtype"),
            ErrorSample((T((2, 2, 3)), T((2, 3, 4))), {"out": T((0,), dtype="int64")}, name="out dtype 3d")]


# -- linear / outer / einsum --------------------------------------------------------------------------------
def linear_samples(dtype):
    for si, sw, bias in (((5, 3), (4, 3), (4,)), ((5, 3), (4, 3), None), ((3,), (4, 3), (4,)), ((2, 3), (3,), None),
                         ((2, 5, 3), (4, 3), (4,)), ((2, 5, 3), (4, 3), None), ((2, 2, 5, 3), (4, 3), (4,)),
                         ((0, 3), (4, 3), (4,)), ((5, 3), (4, 3), ())):
        args = (T(si), T(sw, seed=1)) + ((T(bias, seed=2),) if bias is not None else ())
        yield _s(args, f"{si} {sw} bias={bias}", dtype)
    yield _s((T((2, 5, 3), layout="transposed"), T((4, 3), seed=1), T((4,), seed=2)), "3d noncontiguous", dtype)


def linear_errors():
    return [ErrorSample((T(()), T((4, 3)), T((4,)))), ErrorSample((T((2, 5, 3)), T((4, 2)), T((4,))), name="shapes"),
            ErrorSample((T((2, 3)), T((4, 3), dtype="float64")), name="dtype"),
            ErrorSample((T((2, 3)), T((4, 3)), T((4,), dtype="float64")), name="bias dtype"),
            ErrorSample((T((2, 3)), T((2, 4, 3))), name="3d weight")]


def outer_samples(dtype):
    for sa, sb in (((3,), (4,)), ((1,), (5,)), ((0,), (3,))):
        yield Sample((T(sa), T(sb, seed=1)), name=f"{sa} {sb}")
    other = "float64" if dtype != "float64" else "int32"
    yield Sample((T((3,)), T((2,), seed=1, dtype=other)), name=f"mixed {other}")
    yield Sample((T((4,), layout="strided"), T((3,), seed=1, layout="expanded")), name="layouts")


def outer_errors():
    return [ErrorSample((T((2, 3)), T((3,)))), ErrorSample((T((3,)), T(()))),
            ErrorSample((T((3,)), T((3,))), {"out": T((0,), dtype="int64")}, name="out cast")]


EINSUM_CASES = [
    ("ij,jk->ik", ((2, 3), (3, 4))), ("ij,jk", ((2, 3), (3, 4))), ("i,i->", ((5,), (5,))), ("i,j->ij", ((3,), (4,))),
    ("ii->i", ((3, 3),)), ("ii", ((3, 3),)), ("ij->ji", ((2, 3),)), ("ij->", ((2, 3),)), ("ij->j", ((2, 3),)),
    ("bij,bjk->bik", ((2, 3, 4), (2, 4, 5))), ("...ij,...jk->...ik", ((5, 1, 2, 3), (4, 3, 2))),
    ("bn,anm,bm->ba", ((2, 5), (3, 5, 4), (2, 4))), ("i,i->i", ((3,), (1,))), ("ij,ij->ij", ((2, 3), (2, 3))),
    ("ij,kl->", ((2, 3), (3, 4))), ("ij,jk->", ((2, 3), (3, 4))), ("bii->bi", ((2, 3, 3),)),
    ("i j , j k -> i k", ((2, 3), (3, 4))), ("...->...", ((2, 3),)), ("ba,ab", ((3, 2), (2, 3))),
    ("ij,jk->ik", ((2, 0), (0, 4))), ("ij,jk,kl->il", ((2, 3), (3, 4), (4, 5))), ("i...->...", ((2, 3, 4),)),
]


def einsum_samples(dtype):
    for eq, shapes in EINSUM_CASES:
        yield _s((eq,) + tuple(T(s, seed=i) for i, s in enumerate(shapes)), eq, dtype)
    yield _s(("ij,jk->ik", [T((2, 3)), T((3, 4), seed=1)]), "list operands", dtype)
    yield _s((T((2, 3)), [0, 1], T((3, 4), seed=1), [1, 2], [0, 2]), "sublist", dtype)
    yield _s((T((2, 3, 4)), [Ellipsis, 1], T((4, 5), seed=1), [1, 2]), "sublist ellipsis", dtype)
    yield _s(("ij,jk->ik", T((2, 3), layout="transposed"), T((3, 4), seed=1, layout="strided")), "layouts", dtype)


def einsum_errors():
    a, b = T((2, 3)), T((3, 4))
    eqs = ["ij,jk->ik", "ij->ik", "ij->ii", "ijk->ij", "i1->i", "ii->i", "..i->i", "i...j...->ij", "ij->...i..",
           "ij->.i", "i,i->", "ij->i;"]
    out = [ErrorSample((eq, a), name=eq) for eq in eqs]
    out += [ErrorSample(("ij,jk->ik", a, b, a), name="too many"), ErrorSample(("ij",), name="no operands"),
            ErrorSample(("i,i->", T((3,)), T((2,))), name="broadcast"),
            ErrorSample(("...ij,...jk->...ik", T((5, 2, 2, 3)), T((4, 3, 2))), name="ellipsis broadcast"),
            ErrorSample(("ij,jk->ik", a, T((3, 4), dtype="float64")), name="dtype"),
            ErrorSample(("ij,jk->ik", T((2, 3), dtype="bool"), T((3, 4), dtype="bool")), name="bool"),
            ErrorSample((a, [0, 60]), name="sublist range")]
    return out


# -- out_dtype overloads: PyTorch's CPU build has only their Meta kernel --------------------------------------
def _meta_call(name, **fixed):
    """``lib.<name>`` on meta copies of the tensor arguments, ``out_dtype`` given by name (shapes and dtypes only)."""
    def fn(lib):
        def call(*args, out_dtype, **kwargs):
            args = [a.to("meta") if isinstance(a, (torch.Tensor, gt.Tensor)) else a for a in args]
            return getattr(lib, name)(*args, out_dtype=getattr(lib, out_dtype), **kwargs, **fixed)
        return call
    return fn


def _cpu_missing(name):
    """The first sentence of the CPU call's error: PyTorch registers no CPU kernel for these overloads."""
    def fn(lib):
        def call(*args, out_dtype, **kwargs):
            try:
                getattr(lib, name)(*args, out_dtype=getattr(lib, out_dtype), **kwargs)
            except NotImplementedError as e:
                return str(e).split(". ")[0]
            return "no error"
        return call
    return fn


def out_dtype_samples(shapes):
    def gen(dtype):
        for out_dtype in ("float32", dtype, "float64"):
            yield Sample(tuple(T(s, seed=i) for i, s in enumerate(shapes)), {"out_dtype": out_dtype},
                         name=f"-> {out_dtype}")
        yield Sample(tuple(T(s[:-1] + (s[-1] + 1,), seed=i) for i, s in enumerate(shapes)), {"out_dtype": dtype},
                     name="shapes")
    return gen


def out_dtype_cpu_samples(shapes):
    def gen(dtype):
        yield Sample(tuple(T(s, seed=i) for i, s in enumerate(shapes)), {"out_dtype": "float32"}, name="cpu")
        yield Sample(tuple(T(s, seed=i) for i, s in enumerate(shapes)), {"out_dtype": "float32", "out": T((0,))},
                     name="cpu out=")
    return gen


_OUT_DTYPE_SHAPES = {"mm": ((2, 3), (3, 4)), "bmm": ((2, 2, 3), (2, 3, 4)), "addmm": ((4,), (2, 3), (3, 4)),
                     "baddbmm": ((2, 2, 4), (2, 2, 3), (2, 3, 4))}


def _out_dtype_entries():
    entries = []
    for name, shapes in _OUT_DTYPE_SHAPES.items():
        aten = (f"{name}.dtype", f"{name}.dtype_out")
        if name != "baddbmm":  # torch's own meta function of baddbmm.dtype fails (multiplies by the dtype)
            entries.append(LibOpInfo(f"{name}.dtype", aten=aten, samples=out_dtype_samples(shapes), dtypes=ALL_FLOAT,
                                     out=True, random=True, grad=False, fn=_meta_call(name)))
        entries.append(LibOpInfo(f"{name}.dtype cpu", aten=aten, samples=out_dtype_cpu_samples(shapes),
                                 dtypes=("float32",), grad=False, fn=_cpu_missing(name)))
    return entries


# -- singular value decomposition ----------------------------------------------------------------------------
SVD_SHAPES = [(3, 3), (4, 2), (2, 4), (2, 3, 3), (2, 4, 3), (1, 1), (0, 3), (3, 0), (2, 0, 2)]


def _unsigned(U, S, Vh):
    """Singular vectors are unique up to a sign (for distinct singular values): make each column of U, and
    the matching row of Vh, have a positive largest-magnitude entry.  Extra columns of a full U or Vh (any
    basis of the complement) are dropped; their shapes are compared separately."""
    k = S.shape[-1]
    if U.numel() == 0 or k == 0:
        return U, S, Vh
    U, Vh = U[..., :k], Vh[..., :k, :]
    pick = U.abs().argmax(-2, keepdim=True)
    sign = U.gather(-2, pick).sign()
    return U * sign, S, Vh * sign.transpose(-2, -1)


def _svd_fn(kind):
    def fn(lib):
        def call(A, *args, **kwargs):
            if kind == "out":
                outs = (A.new_empty(0), A.new_empty(0), A.new_empty(0))
                res = lib.linalg.svd(A, *args, out=outs, **kwargs)
                assert all(r is o for r, o in zip(res, outs, strict=True))
            else:
                res = (lib._linalg_svd if kind == "_linalg_svd" else lib.linalg.svd)(A, *args, **kwargs)
            U, S, Vh = res
            return _unsigned(U, S, Vh) + (tuple(U.shape), tuple(Vh.shape), U.stride(), Vh.stride())
        return call
    return fn


def svd_samples(dtype):
    for shape in SVD_SHAPES:
        yield Sample((T(shape),), name=f"{shape}", rtol=1e-4, atol=1e-4)
    yield Sample((T((4, 3), layout="transposed"),), name="transposed", rtol=1e-4, atol=1e-4)
    yield Sample((T((3, 4)),), {"full_matrices": False}, name="reduced", rtol=1e-4, atol=1e-4)
    yield Sample((T((2, 4, 3)), False), name="reduced positional", rtol=1e-4, atol=1e-4)


def _linalg_svd_samples(dtype):
    yield from svd_samples(dtype)
    yield Sample((T((3, 4)), False, False), name="no uv", rtol=1e-4, atol=1e-4)


def svd_errors():
    return [ErrorSample((T((3,)),), name="1-d"), ErrorSample((T((2, 2), dtype="int64"),), name="int"),
            ErrorSample((T((2, 2), dtype="float16"),), name="half"),
            ErrorSample((T((2, 2)),), {"driver": "gesvd"}, name="driver"),
            ErrorSample((T((2, 2), values=((1.0, float("nan")), (0.0, 1.0))),), name="nan")]


def svdvals_samples(dtype):
    for shape in SVD_SHAPES:
        yield Sample((T(shape),), name=f"{shape}", rtol=1e-5, atol=1e-5)
    yield Sample((T((3, 5), layout="strided"),), name="strided", rtol=1e-5, atol=1e-5)
    yield Sample((T((2, 2), values=((1.0, float("inf")), (0.0, 1.0))),), name="inf", skip_out=True)


_SVD_GRAD = {"grad_rtol": 1e-3, "grad_atol": 1e-4}


OPS = [
    OpInfo("mm", aten=("mm", "mm.out"), samples=mm_samples, dtypes=INTS_FLOATS, method=True, out=True,
           errors=mm_errors),
    OpInfo("bmm", aten=("bmm", "bmm.out"), samples=bmm_samples, dtypes=INTS_FLOATS, method=True, out=True,
           errors=bmm_errors),
    OpInfo("addmm", aten=("addmm", "addmm_", "addmm.out"), samples=addmm_samples, dtypes=INTS_FLOATS, method=True,
           inplace=True, out=True, errors=addmm_errors),
    OpInfo("baddbmm", aten=("baddbmm", "baddbmm_", "baddbmm.out"), samples=baddbmm_samples, dtypes=INTS_FLOATS,
           method=True, inplace=True, out=True, errors=baddbmm_errors),
    OpInfo("addbmm", aten=("addbmm", "addbmm_", "addbmm.out"), samples=addbmm_samples, dtypes=INTS_FLOATS,
           method=True, inplace=True, out=True, errors=addbmm_errors),
    OpInfo("addmv", aten=("addmv", "addmv_", "addmv.out"), samples=addmv_samples, dtypes=INTS_FLOATS, method=True,
           inplace=True, out=True, errors=addmv_errors),
    OpInfo("mv", aten=("mv", "mv.out"), samples=mv_samples, dtypes=INTS_FLOATS, method=True, out=True,
           errors=mv_errors),
    OpInfo("dot", aten=("dot", "dot.out"), samples=dot_samples, dtypes=INTS_FLOATS, method=True, out=True,
           errors=dot_errors),
    OpInfo("vdot", aten=("vdot", "vdot.out"), samples=dot_samples, dtypes=INTS_FLOATS + ("complex64",), method=True,
           out=True, errors=dot_errors),
    OpInfo("matmul", aten=("matmul", "matmul.out"), samples=matmul_samples, dtypes=INTS_FLOATS, method=True, out=True,
           errors=matmul_errors),
    LibOpInfo("nn.functional.linear", aten=("linear", "linear.out"), samples=linear_samples, dtypes=ALL_FLOAT,
              out=True, errors=linear_errors, fn=_linear),
    OpInfo("outer", aten=("outer", "outer.out"), samples=outer_samples, dtypes=INTS_FLOATS, method=True, out=True,
           errors=outer_errors),
    OpInfo("ger", aten=("ger", "ger.out"), samples=outer_samples, dtypes=FLOATS + ("int64",), method=True, out=True),
    LibOpInfo("einsum", aten=("einsum",), samples=einsum_samples, dtypes=INTS_FLOATS + ("bool",), errors=einsum_errors,
              fn=_einsum),
    LibOpInfo("_linalg_svd", aten=("_linalg_svd",), samples=_linalg_svd_samples, dtypes=FLOATS, errors=svd_errors,
              fn=_svd_fn("_linalg_svd"), **_SVD_GRAD),
    LibOpInfo("linalg.svd", aten=("linalg_svd",), samples=svd_samples, dtypes=FLOATS, errors=svd_errors,
              fn=_svd_fn("function"), **_SVD_GRAD),
    LibOpInfo("linalg.svd out=", aten=("linalg_svd.U", "_linalg_svd.U"), samples=svd_samples, dtypes=FLOATS,
              grad=False, fn=_svd_fn("out")),
    OpInfo("linalg.svdvals", aten=("linalg_svdvals", "linalg_svdvals.out"), samples=svdvals_samples, dtypes=FLOATS,
           out=True, errors=svd_errors, **_SVD_GRAD),
] + _out_dtype_entries()
