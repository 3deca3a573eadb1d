"""numpy arrays and numpy scalars as operands of Tensor operators and as arguments, against torch.

PyTorch's rules (torch/_tensor.py, python_variable_methods.cpp): Tensor has ``__array_priority__ = 1000``, so
numpy's operators and scalars defer to Tensor's; Tensor's operators take no arrays (a TypeError, so
NotImplemented), so ``t + ndarray`` is computed by numpy and wrapped back by ``__array_wrap__`` (numpy's result
dtype, bool as uint8), while ``ndarray + t`` is a TypeError; ``__eq__`` alone takes an array, as a tensor.
numpy scalars are Python numbers to the argument parser (``np.bool_`` a float).
"""

from __future__ import annotations

import operator
import warnings

import numpy as np
import pytest
import torch

import glasstorch
from tests.oracle import assert_same, assert_same_error

BINARY = {
    "add": operator.add, "sub": operator.sub, "mul": operator.mul, "truediv": operator.truediv,
    "floordiv": operator.floordiv, "mod": operator.mod, "pow": operator.pow, "and": operator.and_,
    "or": operator.or_, "xor": operator.xor, "lshift": operator.lshift, "rshift": operator.rshift,
    "matmul": operator.matmul, "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le,
    "gt": operator.gt, "ge": operator.ge,
}
INPLACE = {
    "iadd": operator.iadd, "isub": operator.isub, "imul": operator.imul, "itruediv": operator.itruediv,
    "ifloordiv": operator.ifloordiv, "imod": operator.imod, "ipow": operator.ipow, "iand": operator.iand,
    "ior": operator.ior, "ixor": operator.ixor, "ilshift": operator.ilshift, "irshift": operator.irshift,
}

# tensors, by name: each library builds its own from the same data
TENSORS = {
    "int32": lambda m: m.tensor([1, 2], dtype=m.int32),
    "float32": lambda m: m.tensor([2.0, -1.0]),  # exact powers: numpy's float32 pow is not powf
    "bool": lambda m: m.tensor([True, False]),
    "float16_0d": lambda m: m.tensor(3.0, dtype=m.float16),
}
# numpy operands: arrays (1-d, 0-d) and scalars
OPERANDS = {
    "f64_array": lambda: np.array([1.5, 2.5]),
    "i64_array": lambda: np.array([1, 2], dtype=np.int64),
    "f32_array": lambda: np.array([0.5, 4.0], dtype=np.float32),
    "bool_array": lambda: np.array([True, True]),
    "f64_0d": lambda: np.array(2.5),
    "i32_0d": lambda: np.array(3, dtype=np.int32),
    "np_float64": lambda: np.float64(2.0),
    "np_float32": lambda: np.float32(3.0),
    "np_float16": lambda: np.float16(2.0),
    "np_int64": lambda: np.int64(3),
    "np_int32": lambda: np.int32(2),
    "np_uint8": lambda: np.uint8(1),
    "np_bool": lambda: np.bool_(True),
    "np_complex128": lambda: np.complex128(1 + 1j),
}


# float16 with a complex number computes in complex32, where glasstorch's kernels fail (a defect of their own)
_COMPLEX32 = ("float16_0d", "np_complex128")
# operators whose complex cases (torch's refusals, complex powers) are the complex-dtype tests' subject
_COMPLEX_ELSEWHERE = {"floordiv", "pow", "lt", "le", "gt", "ge"}


def _outcome(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's __array_wrap__ signature draws numpy's DeprecationWarning
        try:
            return True, fn()
        except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
            return False, e


def _check(fn_gt, fn_th, what):
    ok_th, th = _outcome(fn_th)
    ok_gt, gt = _outcome(fn_gt)
    if not ok_th:
        assert not ok_gt, f"{what}: torch raised {type(th).__name__}: {th}; glasstorch returned {gt!r}"
        assert (type(gt).__name__, str(gt)) == (type(th).__name__, str(th)), f"{what}: {gt!r} vs {th!r}"
        return
    assert ok_gt, f"{what}: glasstorch raised {type(gt).__name__}: {gt}; torch returned {th!r}"
    if isinstance(th, torch.Tensor):
        assert_same(gt, th, msg=f"{what}: ")
    else:
        assert type(gt) is type(th) and gt == th, f"{what}: {gt!r} vs {th!r}"


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("order", ["tensor_first", "numpy_first"])
def test_binary_operator_with_numpy_operand(name, order):
    op = BINARY[name]
    for tname, make in TENSORS.items():
        for oname, operand in OPERANDS.items():
            if (tname, oname) == _COMPLEX32 or (oname == "np_complex128" and name in _COMPLEX_ELSEWHERE):
                continue
            if order == "tensor_first":
                def run(m, make=make, operand=operand):
                    return op(make(m), operand())
            else:
                def run(m, make=make, operand=operand):
                    return op(operand(), make(m))
            _check(lambda run=run: run(glasstorch), lambda run=run: run(torch), f"{tname} {name} {oname} ({order})")


@pytest.mark.parametrize("name", list(INPLACE))
def test_inplace_operator_with_numpy_operand(name):
    """``t op= ndarray`` falls back to ``t = t op ndarray`` (a new tensor; the old one is untouched), a numpy
    scalar updates ``t`` in place; ``ndarray op= t`` is a TypeError (numpy defers, Tensor takes no array)."""
    op = INPLACE[name]
    for tname, make in TENSORS.items():
        for oname, operand in OPERANDS.items():
            if (tname, oname) == _COMPLEX32:
                continue

            def run(m, make=make, operand=operand):
                t = make(m)
                before = t.clone()
                res = op(t, operand())
                return res, t, before, res is t

            ok_th, th = _outcome(lambda run=run: run(torch))
            what = f"{tname} {name} {oname}"
            if not ok_th:
                assert_same_error(lambda run=run: run(glasstorch), lambda run=run: run(torch))
                continue
            ok_gt, gt = _outcome(lambda run=run: run(glasstorch))
            assert ok_gt, f"{what}: glasstorch raised {gt!r}"
            assert gt[3] == th[3], f"{what}: in place {gt[3]} vs {th[3]}"
            for g, t in zip(gt[:3], th[:3], strict=True):
                assert_same(g, t, msg=f"{what}: ")


@pytest.mark.parametrize("name", ["iadd", "imul", "isub", "iand"])
def test_inplace_on_ndarray_with_tensor(name):
    op = INPLACE[name]
    assert_same_error(lambda: op(np.array([1, 2]), glasstorch.tensor([1, 2])),
                      lambda: op(np.array([1, 2]), torch.tensor([1, 2])))


def test_equality_takes_an_array_as_a_tensor():
    for tname, make in TENSORS.items():
        for arr in (np.array([1.0, 2.0]), np.array(1.5), np.array([1, 0], dtype=np.int16), np.array([True, False])):
            _check(lambda make=make, arr=arr: make(glasstorch).__eq__(arr),
                   lambda make=make, arr=arr: make(torch).__eq__(arr), f"{tname}.__eq__({arr!r})")
    # only __eq__: the other comparisons and the named function refuse an array
    for fn in (lambda m: m.ones(2).__ne__(np.ones(2)), lambda m: m.ones(2).__lt__(np.ones(2)),
               lambda m: m.ones(2) != np.ones(2), lambda m: m.ones(2) == np.array(["a", "b"]),
               lambda m: m.ones(2).__eq__(np.array([1, 2], dtype=object))):
        _check(lambda fn=fn: fn(glasstorch), lambda fn=fn: fn(torch), "comparison")
    assert_same_error(lambda: glasstorch.ones(2) == np.ones(3), lambda: torch.ones(2) == np.ones(3))
    assert_same_error(lambda: glasstorch.eq(glasstorch.ones(2), np.ones(2)),
                      lambda: torch.eq(torch.ones(2), np.ones(2)))


def test_array_and_tensor_in_the_same_memory():
    """``t == ndarray`` reads the array's memory (a tensor over it), ``t + ndarray`` wraps numpy's result."""
    arr = np.array([1.0, 2.0], dtype=np.float32)
    t = glasstorch.tensor([1.0, 5.0])
    res = t + arr
    assert isinstance(res, glasstorch.Tensor)
    assert res.dtype is glasstorch.float32
    assert (t == arr).tolist() == [True, False]


NUMPY_SCALAR_CALLS = {
    "add_f64": lambda m, t: m.add(t, np.float64(2.5)),
    "add_i64": lambda m, t: m.add(t, np.int64(3)),
    "add_alpha_np": lambda m, t: m.add(t, t, alpha=np.int64(2)),
    "add_bool": lambda m, t: m.add(t, np.bool_(True)),
    "mul_f32": lambda m, t: m.mul(t, np.float32(2)),
    "method_add": lambda m, t: t.add(np.float64(2)),
    "method_add_": lambda m, t: t.clone().add_(np.int32(2)),
    "eq_fn": lambda m, t: m.eq(t, np.int64(1)),
    "pow_method": lambda m, t: t.pow(np.float64(2)),
    "pow_fn_scalar_base": lambda m, t: m.pow(np.float64(2), t),
    "full": lambda m, t: m.full((2,), np.float64(2.0)),
    "full_int": lambda m, t: m.full((2,), np.int64(2)),
    "where": lambda m, t: m.where(t > 1, t, np.float64(0.5)),
    "clamp": lambda m, t: m.clamp(t, np.int64(0), np.int64(1)),
    "index": lambda m, t: t[np.int64(0)],
    "reshape": lambda m, t: t.reshape(np.int64(2)),
    "sum_dim": lambda m, t: t.sum(dim=np.int64(0)),
    "zeros": lambda m, t: m.zeros(np.int64(2)),
    "add_ndarray_fn": lambda m, t: m.add(t, np.ones(2)),
    "add_ndarray_first": lambda m, t: m.add(np.ones(2), t),
    "add_ndarray_method": lambda m, t: t.add(np.ones(2)),
    "numbers_only": lambda m, t: m.add(np.int64(2), np.float64(3.5)),
}


@pytest.mark.parametrize("name", list(NUMPY_SCALAR_CALLS))
@pytest.mark.parametrize("tname", ["int32", "float32"])
def test_numpy_scalars_as_arguments(name, tname):
    fn, make = NUMPY_SCALAR_CALLS[name], TENSORS[tname]
    _check(lambda: fn(glasstorch, make(glasstorch)), lambda: fn(torch, make(torch)), name)


UFUNCS = {
    "sin": lambda m: np.sin(m.tensor([1.0, 2.0])),
    "greater_is_uint8": lambda m: np.greater(m.tensor([1, 2]), 1),
    "add_f16_scalar": lambda m: np.add(m.tensor([1.0], dtype=m.float16), 1),
    "add_into_out": lambda m: np.add(m.ones(2), 1, out=np.empty(2)),
    "maximum": lambda m: np.maximum(m.tensor([-1, 2]), 0),
    "asarray": lambda m: np.asarray(m.tensor([[1, 2]], dtype=m.int16)),
    "asarray_dtype": lambda m: np.asarray(m.tensor([1, 2]), dtype=np.float32),
    "asarray_requires_grad": lambda m: np.asarray(m.ones(2, requires_grad=True)),
    "asarray_bfloat16": lambda m: np.asarray(m.ones(2, dtype=m.bfloat16)),
    "requires_grad_plus_array": lambda m: m.ones(2, requires_grad=True) + np.ones(2),
    "array_of_0d": lambda m: np.array(m.tensor(2.5)),
}


@pytest.mark.parametrize("name", list(UFUNCS))
def test_numpy_functions_on_tensors(name):
    fn = UFUNCS[name]
    ok_th, th = _outcome(lambda: fn(torch))
    ok_gt, gt = _outcome(lambda: fn(glasstorch))
    if not ok_th:
        assert_same_error(lambda: fn(glasstorch), lambda: fn(torch))
    elif isinstance(th, np.ndarray):
        assert ok_gt and isinstance(gt, np.ndarray), gt
        assert gt.dtype == th.dtype and gt.shape == th.shape
        np.testing.assert_array_equal(gt, th)
    else:
        assert ok_gt, gt
        assert_same(gt, th)


_NP_DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64,
              np.complex64, np.complex128]
_TENSOR_DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
                  "complex64", "complex128"]


@pytest.mark.parametrize("tdtype", _TENSOR_DTYPES)
def test_array_and_tensor_of_every_dtype(tdtype):
    """PyTorch's test_numpy_array_binary_ufunc_promotion: a 1-element array with a 1-element tensor, ``+`` and
    ``torch.add`` in both orders (numpy's promotion for ``t + a``, TypeErrors for the rest)."""
    for np_type in _NP_DTYPES:
        if tdtype == "float16" and np_type in (np.complex64, np.complex128):
            continue  # complex32 results: see _COMPLEX32
        for np_first in (True, False):
            for name in ("operator", "function"):
                def run(m, np_type=np_type, np_first=np_first, name=name):
                    t = m.tensor((1,), dtype=getattr(m, tdtype))
                    a = np.array((1,), dtype=np_type)
                    op = operator.add if name == "operator" else m.add
                    return op(a, t) if np_first else op(t, a)
                _check(lambda run=run: run(glasstorch), lambda run=run: run(torch),
                       f"{tdtype} {np_type.__name__} {name} np_first={np_first}")


@pytest.mark.parametrize("item", ["2", "2.5", "True", "m.tensor(2.0)", "m.tensor([1.0, 9.0])", "np.bool_(True)", "[1]",
                                  "float('nan')", "1j", "np.int64(1)", "np.float64(2)", "np.ones(3)", "np.array(2.0)"])
def test_contains(item):
    """``item in t``: a Tensor or a number (numpy's numbers too, not np.bool_) compares with ``==``; else torch's
    RuntimeError."""
    def run(m):
        return eval(item, {"m": m, "np": np}) in m.tensor([1.0, 2.0, float("nan")])  # noqa: S307 - fixed texts
    _check(lambda: run(glasstorch), lambda: run(torch), f"{item} in t")


@pytest.mark.parametrize("expr", ["t.copy_(np.ones(3))", "t.copy_(other=m.zeros(3))", "t.copy_(src=m.zeros(3))",
                                  "m.cat([t, np.ones(3)])", "t.masked_fill(np.array([True, False, True]), 0)",
                                  "t.index_select(0, np.array([0]))", "t.add_(np.ones(3))", "m.matmul(t, np.ones(3))"])
def test_arrays_refused_as_tensor_arguments(expr):
    """Named functions and methods take no numpy array for a Tensor (PyTorch's parser): the same TypeError, named
    by PyTorch's argument names (``copy_``'s is ``other``, its hand-written binding's)."""
    def run(m):
        return eval(expr, {"m": m, "np": np, "t": m.tensor([1.0, 2.0, 3.0])})  # noqa: S307 - fixed texts
    _check(lambda: run(glasstorch), lambda: run(torch), expr)
