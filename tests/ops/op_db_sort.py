"""OpInfo entries: sorting and selection (glasstorch/_ops/native_functions/sort.yaml) — sort, argsort, msort,
topk, kthvalue, mode, cummax, cummin, median, nanmedian, unique (``torch.unique`` over ``_unique2``/``unique_dim``),
unique_consecutive, searchsorted, bucketize, nonzero (and ``as_tuple``), nonzero_static, argwhere.

PyTorch's unstable sort, ``topk`` and ``kthvalue`` order equal elements in an implementation-defined
way, so their samples use distinct values (a permutation); ``stable=True`` samples have many ties.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
from opinfo import ALL, ALL_NUMERIC, ErrorSample, OpInfo, Sample, T

import glasstorch as gt
import glasstorch.functional as _gt_functional

if not hasattr(gt.Tensor, "unique"):  # until glasstorch/__init__.py installs the torch.functional layer
    _gt_functional.install(gt)

SORTABLE = ALL  # every real dtype; complex raises (tested in errors)
NAN = float("nan")


@dataclasses.dataclass
class LibOpInfo(OpInfo):
    """An entry whose callable is ``fn(lib)`` instead of a dotted name under the library."""

    fn: Callable | None = None

    def lib_fn(self, lib):
        return self.fn(lib)


def _python_level(name):
    """torch.<name> is Python code in torch/functional.py; glasstorch's lives in glasstorch/functional.py."""
    def get(lib):
        return getattr(lib, name) if lib.__name__ == "torch" else getattr(_gt_functional, name)
    return get


def _perm(shape, seed=0, dtype=None):
    """Distinct values (a permutation of 0..n-1, shifted to include negatives for signed dtypes)."""
    n = int(np.prod(shape)) if shape else 1
    if n == 0:
        return T(shape, seed=seed)
    vals = np.random.default_rng(seed).permutation(n).astype(np.float64)
    if dtype not in ("uint8", "bool"):
        vals -= n // 2
    return T(shape, values=vals.reshape(shape).tolist() if shape else float(vals[0]))


def _ties(shape, seed=0):
    return T(shape, low=0, high=3, seed=seed)


# -- sort / argsort / msort ----------------------------------------------------------------------------------
def sort_samples(dtype):
    if dtype != "bool":
        for shape, dims in (((7,), (0, -1)), ((3, 5), (0, 1)), ((2, 3, 4), (0, 2)), ((), (0,))):
            for d in dims:
                for desc in (False, True):
                    yield Sample((_perm(shape, d + 1, dtype),), {"dim": d, "descending": desc},
                                 name=f"{shape} {d} {desc}")
        yield Sample((_perm((4, 5), 3, dtype),), name="default")
        yield Sample((_perm((4, 5), 4, dtype),), {"dim": 0}, name="dim 0 positional-free")
    for shape in ((12,), (3, 8), (0, 3), (2, 0)):
        for desc in (False, True):
            yield Sample((_ties(shape),), {"stable": True, "descending": desc}, name=f"stable {shape} {desc}")
    yield Sample((T((4, 6), low=0, high=3, layout="transposed"),), {"stable": True, "dim": 0}, name="transposed")
    yield Sample((T((4, 6), low=0, high=3, layout="strided"),), {"stable": True, "descending": True}, name="strided")
    yield Sample((T((3, 4), low=0, high=3, layout="expanded"),), {"stable": True}, name="expanded")
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        special = [3.0, NAN, -0.0, 1.0, float("-inf"), NAN, 0.0, float("inf"), 1.0]
        for desc in (False, True):
            yield Sample((T((9,), values=special),), {"stable": True, "descending": desc}, name=f"special {desc}")


def sort_errors():
    return [ErrorSample((T((3,), dtype="complex64"),), name="complex"), ErrorSample((T((2, 3)),), {"dim": 2}),
            ErrorSample((T((2, 3)),), {"stable": True, "out": (T((0,)), T((0,), dtype="int32"))}, name="out"),
            ErrorSample((T((2, 3)),), {"stable": True, "out": (T((0,), dtype="float64"), T((0,), dtype="int64"))},
                        name="out values")]


def argsort_samples(dtype):
    for s in sort_samples(dtype):
        yield dataclasses.replace(s, skip_out="stable" not in s.kwargs)
    if dtype != "bool":
        yield Sample((_perm((3, 5), 7, dtype), 0, True), name="positional dim descending", skip_out=True)


def msort_samples(dtype):
    if dtype != "bool":
        for shape in ((7,), (4, 3), (2, 3, 2), ()):
            yield Sample((_perm(shape, 5, dtype),), name=f"{shape}")
    yield Sample((T((0, 3)),), name="empty")


# -- topk / kthvalue -----------------------------------------------------------------------------------------
def topk_samples(dtype):
    for shape, k, d in (((7,), 3, -1), ((7,), 7, 0), ((7,), 0, 0), ((3, 5), 2, 1), ((3, 5), 3, 0), ((2, 3, 4), 2, 1),
                        ((), 1, 0), ((0, 4), 2, 1), ((4, 0), 0, 1)):
        for largest in (True, False):
            yield Sample((_perm(shape, k + 1, dtype), k), {"dim": d, "largest": largest}, name=f"{shape} k={k} {d}")
    yield Sample((_perm((4, 6), 3, dtype), 1), {"sorted": False}, name="unsorted k=1")
    yield Sample((_perm((4, 6), 4, dtype), 2, 0), name="positional")


def topk_errors():
    return [ErrorSample((T((2, 3)), 4)), ErrorSample((T((2, 3)), -1), name="negative"),
            ErrorSample((T((2, 3)), 1), {"dim": 2}, name="dim"),
            ErrorSample((T((2, 3), dtype="bool"), 1), name="bool"),
            ErrorSample((T((2, 3), dtype="complex64"), 1), name="complex"),
            ErrorSample((T((2, 3)), 1), {"out": (T((0,)), T((0,), dtype="int32"))}, name="out")]


def kthvalue_samples(dtype):
    for shape, k, d, keep in (((7,), 3, -1, False), ((3, 5), 2, 1, True), ((3, 5), 3, 0, False),
                              ((2, 3, 4), 4, 2, False), ((), 1, 0, False), ((), 1, 0, True), ((0, 4), 2, 1, False)):
        yield Sample((_perm(shape, k, dtype), k), {"dim": d, "keepdim": keep}, name=f"{shape} k={k} {d} {keep}")
    yield Sample((_perm((4, 6), 3, dtype), 2, 0, True), name="positional")


def kthvalue_errors():
    return [ErrorSample((T((2, 3)), 0)), ErrorSample((T((2, 3)), 4), name="k"),
            ErrorSample((T((2, 0)), 1), name="empty dim"), ErrorSample((T(()), 2), name="0-d"),
            ErrorSample((T((2, 3), dtype="bool"), 1), name="bool"),
            ErrorSample((T((2, 3)), 1), {"out": (T((0,)), T((0,), dtype="int32"))}, name="out indices"),
            ErrorSample((T((2, 3)), 1), {"out": (T((0,), dtype="float64"), T((0,), dtype="int64"))}, name="out values")]


# -- cummax / cummin -------------------------------------------------------------------------------------------
def cum_extreme_samples(dtype):
    """Ties (the index moves to the latest), NaN (kept, each later NaN moves the index), signed zeros, 0-dim,
    empty, and a transposed input (the outputs are contiguous)."""
    for shape, d in (((7,), 0), ((3, 5), 1), ((3, 5), 0), ((2, 3, 4), -1), ((), 0), ((), -1), ((0, 4), 0)):
        yield Sample((_ties(shape, seed=len(shape)), d), name=f"ties {shape} {d}")
    yield Sample((_perm((4, 6), 2, dtype), 1), name="distinct")
    yield Sample((T((4, 5), layout="transposed", low=0, high=3), 1), name="transposed")
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        nan = float("nan")
        yield Sample((T((2, 6), values=[[1, 3, nan, 2, nan, 5], [-0.0, 0.0, -0.0, 0.0, 1, nan]]), 1), name="nan")


def cum_extreme_errors():
    return [ErrorSample((T((2, 3)), 2), name="dim"), ErrorSample((T(()), 1), name="0-d dim"),
            ErrorSample((T((2, 3), dtype="complex64"), 1), name="complex"),
            ErrorSample((T((2, 3)), 1), {"out": (T((0,), dtype="float64"), T((0,), dtype="int64"))}, name="out values"),
            ErrorSample((T((2, 3)), 1), {"out": (T((0,)), T((0,), dtype="int32"))}, name="out indices")]


# -- median / nanmedian ----------------------------------------------------------------------------------------
# torch picks among equal medians in an implementation-defined way: distinct values, NaN placed on purpose
_NAN_ROWS = [[3, float("nan"), 1, float("nan"), 2], [5, 1, 4, 2, 3], [float("nan")] * 5, [2, 1, float("nan"), 4, 3]]


def median_all_samples(dtype):
    for shape in ((7,), (3, 4), (2, 3, 4), (), (0,)):
        yield Sample((_perm(shape, 1, dtype),), name=f"{shape}")
    yield Sample((_perm((4, 6), 2, dtype),), name="even count")
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        yield Sample((T((4, 5), values=_NAN_ROWS),), name="nan")


def median_dim_samples(dtype):
    for shape, d, keep in (((7,), 0, False), ((3, 4), 1, True), ((3, 4), 0, False), ((2, 3, 4), -1, False),
                           ((2, 3, 4), 1, True), ((), 0, False), ((), -1, True), ((0, 4), 1, False)):
        yield Sample((_perm(shape, 3, dtype), d), {"keepdim": keep}, name=f"{shape} {d} {keep}")
    yield Sample((_perm((6, 4), 4, dtype), 0, True), name="positional keepdim")
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        yield Sample((T((4, 5), values=_NAN_ROWS), 1), name="nan rows")


def median_errors(dim):
    out = [ErrorSample((T((2, 3), dtype="bool"), *dim), name="bool"),
           ErrorSample((T((2, 3), dtype="complex64"), *dim), name="complex")]
    if dim:
        out += [ErrorSample((T((2, 3)), 2), name="dim"), ErrorSample((T((2, 0)), 1), name="empty dim"),
                ErrorSample((T((2, 3)), 1), {"out": (T((0,), dtype="float64"), T((0,), dtype="int64"))},
                            name="out values"),
                ErrorSample((T((2, 3)), 1), {"out": (T((0,)), T((0,), dtype="int32"))}, name="out indices")]
    return lambda: out


# -- mode ------------------------------------------------------------------------------------------------------
def _small_ints(shape, seed):
    """Values in {0, 1, 2}: many ties, so the mode and its last index are exercised."""
    vals = np.random.default_rng(seed).integers(0, 3, size=shape).astype(float)
    return T(shape, values=vals.tolist() if shape else float(vals))


def mode_samples(dtype):
    for shape, d, keep in (((7,), 0, False), ((3, 5), 1, True), ((3, 5), 0, False), ((2, 3, 4), -1, False),
                           ((), 0, False), ((0, 4), 1, False)):
        yield Sample((_small_ints(shape, len(shape)), d), {"keepdim": keep}, name=f"{shape} {d} {keep}")
    yield Sample((_small_ints((4, 6), 5),), name="default dim")
    yield Sample((dataclasses.replace(_small_ints((6, 4), 6), layout="transposed"), 0), name="transposed")
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        yield Sample((T((2, 4), values=[[-0.0, 0.0, 1, 1], [2, -0.0, 0.0, 2]]), 1), name="signed zeros")


def mode_errors():
    return [ErrorSample((T((2, 3)), 2), name="dim"), ErrorSample((T((2, 0)), 1), name="empty dim"),
            ErrorSample((T((2, 3), dtype="complex64"), 1), name="complex"),
            ErrorSample((T((2, 3)), 1), {"out": (T((0,), dtype="float64"), T((0,), dtype="int64"))}, name="out values"),
            ErrorSample((T((2, 3)), 1), {"out": (T((0,)), T((0,), dtype="int32"))}, name="out indices")]


# -- unique ----------------------------------------------------------------------------------------------------
FLAGS = [{}, {"return_inverse": True}, {"return_counts": True}, {"return_inverse": True, "return_counts": True}]


def unique_samples(dtype):
    for shape in ((12,), (3, 4), (), (0,), (2, 0)):
        for flags in FLAGS:
            yield Sample((_ties(shape),), dict(flags), name=f"{shape} {flags}")
    yield Sample((_ties((10,)),), {"sorted": False, "return_inverse": True}, name="sorted=False")
    for shape, d in (((4, 3), 0), ((4, 3), 1), ((3, 2, 2), 2), ((2, 0), 1), ((3, 0, 2), 1), ((0, 3), 0)):
        for flags in (FLAGS[0], FLAGS[3]):
            yield Sample((T(shape, low=0, high=2),), dict(flags, dim=d), name=f"{shape} dim={d} {flags}")
    yield Sample((T((6, 2), values=[[1, 2], [0, 1], [1, 2], [1, 0], [0, 1], [1, 2]]),), {"dim": 0, **FLAGS[3]},
                 name="repeated rows")
    yield Sample((T((3, 4), low=0, high=3, layout="transposed"),), FLAGS[3], name="transposed")
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        yield Sample((T((7,), values=[NAN, 1.0, -0.0, NAN, 0.0, 1.0, 2.0]),), FLAGS[3], name="nan")


def unique_errors():
    return [ErrorSample((T((3,), dtype="complex64"),), name="complex"),
            ErrorSample((T((3,), dtype="complex64"),), {"dim": 0}, name="complex dim"),
            ErrorSample((T(()),), {"dim": 0}, name="0-d dim"), ErrorSample((T((2, 3)),), {"dim": 2}, name="dim"),
            ErrorSample((T((0, 0)),), {"dim": 1}, name="two empty dims"),
            ErrorSample((T((2, 0)),), {"dim": 0}, name="empty unselected")]


def unique2_samples(dtype):
    for flags in FLAGS:
        yield Sample((_ties((3, 4)),), dict(flags), name=f"{flags}")
    yield Sample((_ties((5,)), True, True, True), name="positional")


def unique_private_samples(dtype):
    for flags in ({}, {"return_inverse": True}, {"sorted": False, "return_inverse": True}):
        yield Sample((_ties((3, 4)),), dict(flags), name=f"{flags}")


def unique_consecutive_samples(dtype):
    for shape in ((12,), (3, 4), (), (0,)):
        for flags in FLAGS:
            yield Sample((T(shape, low=0, high=2),), dict(flags), name=f"{shape} {flags}")
    for shape, d in (((4, 3), 0), ((4, 3), 1), ((5,), 0), ((2, 0), 1), ((3, 2, 2), -1)):
        for flags in (FLAGS[0], FLAGS[3]):
            yield Sample((T(shape, low=0, high=2),), dict(flags, dim=d), name=f"{shape} dim={d} {flags}")
    yield Sample((T((6, 2), values=[[1, 2], [1, 2], [0, 1], [1, 2], [1, 2], [1, 2]]),), {"dim": 0, **FLAGS[3]},
                 name="repeated rows")
    if dtype in ("float32", "float64"):
        yield Sample((T((6,), values=[NAN, NAN, 1.0, 1.0, -0.0, 0.0]),), FLAGS[3], name="nan")


def unique_consecutive_errors():
    return [ErrorSample((T((3,), dtype="complex64"),), name="complex"),
            ErrorSample((T((3, 2), dtype="complex64"),), {"dim": 0}, name="complex dim"),
            ErrorSample((T(()),), {"dim": 0}, name="0-d dim"),
            ErrorSample((T((2, 0)),), {"dim": 0}, name="empty unselected")]


# -- searchsorted / bucketize ----------------------------------------------------------------------------------
def _sorted_seq(shape, seed=0, low=-6):
    vals = np.sort(np.random.default_rng(seed).integers(low, low + 12, shape), axis=-1).astype(np.float64)
    return T(shape, values=vals.tolist())


def searchsorted_samples(dtype):
    ints = dtype not in ("float32", "float64", "float16", "bfloat16")
    seq = _sorted_seq((8,)) if dtype != "uint8" else T((8,), values=[0, 1, 1, 2, 3, 3, 4, 7])
    for values in (T((3, 4), low=-7, high=7), T((5,), low=-7, high=7), T((0, 2))):
        for kw in ({}, {"right": True}, {"side": "right"}, {"side": "left"}, {"out_int32": True}):
            yield Sample((seq, values), dict(kw), name=f"1d {values.shape} {kw}")
    batched = _sorted_seq((2, 3, 6), 1, low=0 if dtype == "uint8" else -6)  # uint8 holds no negative values
    yield Sample((batched, T((2, 3, 4), low=-7, high=7)), name="batched")
    yield Sample((batched, T((2, 3, 4), low=-7, high=7)), {"right": True}, name="batched right")
    unsorted = T((6,), values=[3, 0, 5, 1, 4, 2])
    yield Sample((unsorted, T((4,), low=0, high=6)), {"sorter": T((6,), dtype="int64", values=[1, 3, 5, 0, 4, 2])},
                 name="sorter")
    yield Sample((seq, T((3, 4), low=-7, high=7, layout="transposed")), name="noncontiguous values")
    yield Sample((seq, 2), name="scalar int")
    yield Sample((seq, 2.5 if not ints else 3), {"right": True}, name="scalar")
    yield Sample((seq, T((), low=-7, high=7)), name="0-d value")
    other = "float64" if dtype != "float64" else "int32"
    yield Sample((seq, T((4,), dtype=other, low=-7, high=7)), name=f"mixed {other}")


def searchsorted_errors():
    s, v = T((4,), values=[1.0, 3.0, 5.0, 7.0]), T((2, 3))
    return [ErrorSample((s, v), {"side": "mid"}), ErrorSample((s, v), {"side": "left", "right": True}, name="opposite"),
            ErrorSample((s, v), {"sorter": T((3,), dtype="int64", values=[0, 1, 2])}, name="sorter size"),
            ErrorSample((s, v), {"sorter": T((4,), dtype="int32", values=[0, 1, 2, 3])}, name="sorter dtype"),
            ErrorSample((s, v), {"sorter": T((4,), dtype="int64", values=[0, 1, 2, 4])}, name="sorter range"),
            ErrorSample((T((2, 4)), T(())), name="scalar value"), ErrorSample((T(()), v), name="0-d boundaries"),
            ErrorSample((T((2, 4)), T((3, 2))), name="leading dims"),
            ErrorSample((s, v), {"out": T((0,), dtype="int32")}, name="out dtype"),
            ErrorSample((T((4,), dtype="bool"), T((2,), dtype="bool")), name="bool"),
            ErrorSample((T((4,), dtype="complex64"), T((2,), dtype="complex64")), name="complex")]


def bucketize_samples(dtype):
    bounds = _sorted_seq((8,)) if dtype != "uint8" else T((8,), values=[0, 1, 1, 2, 3, 3, 4, 7])
    for values in (T((3, 4), low=-7, high=7), T((0,)), T(())):
        for kw in ({}, {"right": True}, {"out_int32": True}):
            yield Sample((values, bounds), dict(kw), name=f"{values.shape} {kw}")
    yield Sample((3, bounds), name="scalar", skip_out=True)
    yield Sample((2.5, bounds), {"right": True, "out_int32": True}, name="scalar float", skip_out=True)
    yield Sample((T((5,), dtype="float64", low=-7, high=7), bounds), name="mixed")


def bucketize_errors():
    return [ErrorSample((T((3,)), T((2, 4)))), ErrorSample((T((3,)), T(())), name="0-d"),
            ErrorSample((T((3,), dtype="bool"), T((3,), dtype="bool")), name="bool")]


# -- nonzero ---------------------------------------------------------------------------------------------------
def nonzero_samples(dtype):
    for shape in ((12,), (3, 4), (2, 3, 2), (), (0, 3)):
        yield Sample((T(shape, low=-1, high=2),), name=f"{shape}")
        yield Sample((T(shape, low=-1, high=2),), {"as_tuple": True}, name=f"{shape} as_tuple", skip_out=True)
    yield Sample((T((4,), values=[0.0, 1.0, 0.0, 0.0]),), name="values")
    yield Sample((T((3, 4), low=-1, high=2, layout="transposed"),), name="transposed")
    yield Sample((T((1,), values=[0.0]),), {"as_tuple": True}, name="none", skip_out=True)
    if dtype in ("float32", "float64"):
        yield Sample((T((4,), values=[NAN, 0.0, -0.0, 1.0]),), name="nan")


def nonzero_errors():
    return [ErrorSample((T((2, 3)),), {"out": T((0,), dtype="int32")}, name="out dtype")]


def nonzero_static_samples(dtype):
    for shape in ((12,), (3, 4), ()):
        for size, fill in ((3, -1), (20, -5), (0, 0)):
            yield Sample((T(shape, low=-1, high=2),), {"size": size, "fill_value": fill}, name=f"{shape} {size}")


def nonzero_static_errors():
    return [ErrorSample((T((2, 3)),), {"size": -1}),
            ErrorSample((T((2, 3)),), {"size": 2, "out": T((0,), dtype="int32")}, name="out dtype")]


def argwhere_samples(dtype):
    for shape in ((12,), (3, 4), (), (0, 3)):
        yield Sample((T(shape, low=-1, high=2),), name=f"{shape}")


OPS = [
    OpInfo("sort", aten=("sort", "sort.stable", "sort.values", "sort.values_stable"), samples=sort_samples,
           dtypes=SORTABLE, method=True, out=True, errors=sort_errors),
    OpInfo("argsort", aten=("argsort", "argsort.stable", "argsort.stable_out"), samples=argsort_samples,
           dtypes=SORTABLE, method=True, out=True),
    OpInfo("msort", aten=("msort", "msort.out"), samples=msort_samples, dtypes=SORTABLE, method=True, out=True),
    OpInfo("topk", aten=("topk", "topk.values"), samples=topk_samples, dtypes=ALL_NUMERIC, method=True, out=True,
           errors=topk_errors),
    OpInfo("kthvalue", aten=("kthvalue", "kthvalue.values"), samples=kthvalue_samples, dtypes=ALL_NUMERIC,
           method=True, out=True, errors=kthvalue_errors),
    OpInfo("mode", aten=("mode", "mode.values"), samples=mode_samples, dtypes=ALL, method=True, out=True,
           errors=mode_errors),
    OpInfo("cummax", aten=("cummax", "cummax.out"), samples=cum_extreme_samples, dtypes=ALL, method=True, out=True,
           errors=cum_extreme_errors),
    OpInfo("cummin", aten=("cummin", "cummin.out"), samples=cum_extreme_samples, dtypes=ALL, method=True, out=True,
           errors=cum_extreme_errors),
    OpInfo("median", aten=("median",), samples=median_all_samples, dtypes=ALL_NUMERIC, method=True,
           errors=median_errors(())),
    OpInfo("median", aten=("median.dim", "median.dim_values"), samples=median_dim_samples, dtypes=ALL_NUMERIC,
           method=True, out=True, errors=median_errors((1,))),
    OpInfo("nanmedian", aten=("nanmedian",), samples=median_all_samples, dtypes=ALL_NUMERIC, method=True,
           errors=median_errors(())),
    OpInfo("nanmedian", aten=("nanmedian.dim", "nanmedian.dim_values"), samples=median_dim_samples, dtypes=ALL_NUMERIC,
           method=True, out=True, errors=median_errors((1,))),
    LibOpInfo("unique", aten=("unique_dim",), samples=unique_samples, dtypes=SORTABLE, method=True,
              errors=unique_errors, fn=_python_level("unique")),
    OpInfo("_unique2", aten=("_unique2",), samples=unique2_samples, dtypes=("float32", "int64", "bool")),
    OpInfo("_unique", aten=("_unique",), samples=unique_private_samples, dtypes=("float32", "int64", "bool")),
    LibOpInfo("unique_consecutive", aten=("unique_consecutive",), samples=unique_consecutive_samples,
              dtypes=SORTABLE, method=True, errors=unique_consecutive_errors,
              fn=_python_level("unique_consecutive")),
    OpInfo("searchsorted", aten=("searchsorted.Tensor", "searchsorted.Tensor_out", "searchsorted.Scalar",
                                 "searchsorted.Scalar_out"), samples=searchsorted_samples, dtypes=ALL_NUMERIC, out=True,
           errors=searchsorted_errors),
    OpInfo("bucketize", aten=("bucketize.Tensor", "bucketize.Tensor_out", "bucketize.Scalar"),
           samples=bucketize_samples, dtypes=ALL_NUMERIC, out=True, errors=bucketize_errors),
    LibOpInfo("nonzero", aten=("nonzero", "nonzero.out"), samples=nonzero_samples, dtypes=ALL, method=True, out=True,
              errors=nonzero_errors, fn=_python_level("nonzero")),
    OpInfo("nonzero_static", aten=("nonzero_static", "nonzero_static.out"), samples=nonzero_static_samples,
           dtypes=("float32", "int64", "bool"), method=True, out=True, errors=nonzero_static_errors),
    OpInfo("argwhere", aten=("argwhere",), samples=argwhere_samples, dtypes=("float32", "int64", "bool"),
           method=True),
]
