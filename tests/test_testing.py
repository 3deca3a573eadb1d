"""glasstorch.testing (assert_close, assert_allclose, make_tensor) against torch.testing: each case runs with
m = glasstorch and m = torch and must pass in both or raise the same exception type with the same message."""

import numpy as np
import pytest
import torch

import glasstorch as gt

nan, inf = float("nan"), float("inf")

CASES = {
    "close": lambda m: ((m.tensor([1., 2.]), m.tensor([1., 2. + 1e-6])), {}),
    "float_mismatch": lambda m: ((m.tensor([1., 2., 3.]), m.tensor([1., 2.5, 3.])), {}),
    "int_mismatch": lambda m: ((m.tensor([1, 2, 3]), m.tensor([1, 4, 3])), {}),
    "uint8_wraps_not": lambda m: ((m.tensor([1, 2], dtype=m.uint8), m.tensor([2, 1], dtype=m.uint8)), {}),
    "bool_mismatch": lambda m: ((m.tensor([True, False]), m.tensor([True, True])), {}),
    "complex_mismatch": lambda m: ((m.tensor([1 + 1j]), m.tensor([1 + 2j])), {}),
    "matrix_index": lambda m: ((m.tensor([[1., 2.], [3., 4.]]), m.tensor([[1., 2.], [3., 5.]])), {}),
    "all_mismatch": lambda m: ((m.zeros(2, 3), m.ones(2, 3)), {}),
    "zero_expected": lambda m: ((m.tensor([1.]), m.tensor([0.])), {}),
    "scalar_tensor": lambda m: ((m.tensor(1.), m.tensor(2.)), {}),
    "scalar_zero": lambda m: ((m.tensor(1.), m.tensor(0.)), {}),
    "dtype": lambda m: ((m.tensor([1., 2.]), m.tensor([1., 2.], dtype=m.float64)), {}),
    "dtype_unchecked": lambda m: ((m.tensor([1., 2.]), m.tensor([1., 2.5], dtype=m.float64)), {"check_dtype": False}),
    "int_float_unchecked": lambda m: ((m.tensor([1, 2]), m.tensor([1., 2.])), {"check_dtype": False}),
    "shape": lambda m: ((m.tensor([1., 2.]), m.tensor([1., 2., 3.])), {}),
    "stride": lambda m: ((m.ones(2, 2), m.ones(2, 2).t().contiguous().t()), {"check_stride": True}),
    "device": lambda m: ((m.tensor([1.]), m.tensor([1.]).to("meta")), {}),
    "meta_both": lambda m: ((m.ones(2, device="meta"), m.zeros(2, device="meta")), {}),
    "nan": lambda m: ((m.tensor([nan]), m.tensor([nan])), {}),
    "nan_equal": lambda m: ((m.tensor([nan, 1.]), m.tensor([nan, 1.])), {"equal_nan": True}),
    "inf": lambda m: ((m.tensor([inf]), m.tensor([inf])), {}),
    "inf_signs": lambda m: ((m.tensor([inf]), m.tensor([-inf])), {}),
    "half": lambda m: ((m.tensor([1., 2.], dtype=m.float16), m.tensor([1., 2.1], dtype=m.float16)), {}),
    "tolerances": lambda m: ((m.tensor([1., 2.]), m.tensor([1., 2.5])), {"rtol": 0.5, "atol": 0}),
    "exact": lambda m: ((m.tensor([1., 2.]), m.tensor([1., 2.5])), {"rtol": 0, "atol": 0}),
    "only_rtol": lambda m: ((m.tensor([1.]), m.tensor([1.])), {"rtol": 1e-3}),
    "only_atol": lambda m: ((m.tensor([1.]), m.tensor([1.])), {"atol": 1}),
    "msg_str": lambda m: ((m.tensor([1.]), m.tensor([1.5])), {"msg": "custom"}),
    "msg_callable": lambda m: ((m.tensor([1.]), m.tensor([1.5])), {"msg": lambda s: s + " EXTRA"}),
    "list_item": lambda m: (([m.tensor(1.), m.tensor(2.)], [m.tensor(1.), m.tensor(3.)]), {}),
    "nested_item": lambda m: (([[m.tensor(1.)]], [[m.tensor(2.)]]), {}),
    "dict_item": lambda m: (({"a": m.tensor(1.)}, {"a": m.tensor(2.)}), {}),
    "dict_keys": lambda m: (({"a": 1, "b": 2}, {"a": 1, "c": 2}), {}),
    "lengths": lambda m: (([1, 2], [1, 2, 3]), {}),
    "tuple_list": lambda m: (((1, 2), [1, 2]), {}),
    "floats": lambda m: ((1.0, 1.5), {}),
    "ints": lambda m: ((3, 4), {}),
    "int_float": lambda m: ((1, 1.0), {}),
    "complex_numbers": lambda m: ((1 + 1j, 1 + 2j), {}),
    "numpy_number": lambda m: ((np.float32(1.0), 1.0), {}),
    "bools": lambda m: ((True, False), {}),
    "nones": lambda m: ((None, None), {}),
    "none_vs_number": lambda m: ((None, 1), {}),
    "tensor_vs_float": lambda m: ((m.tensor([1.]), 1.0), {}),
    "tensor_vs_list": lambda m: ((m.tensor([1., 2.]), [1., 2.]), {}),
    "strings": lambda m: (("a", "b"), {}),
    "ndarrays": lambda m: ((np.array([1., 2.]), np.array([1., 3.])), {}),
    "parameter": lambda m: ((m.nn.Parameter(m.ones(1)), m.ones(1)), {}),
    "parameter_strict": lambda m: ((m.nn.Parameter(m.ones(1)), m.ones(1)), {"allow_subclasses": False}),
    "requires_grad_ignored": lambda m: ((m.tensor([1.], requires_grad=True), m.tensor([1.])), {}),
    "sparse_vs_strided": lambda m: ((m.tensor([1., 2.]).to_sparse(), m.tensor([1., 2.])), {}),
    "sparse_values": lambda m: ((m.tensor([1., 2.]).to_sparse(), m.tensor([1., 3.]).to_sparse()), {}),
    "sparse_layout_unchecked": lambda m: ((m.tensor([1., 2.]).to_sparse(), m.tensor([1., 2.])),
                                          {"check_layout": False}),
}


def _outcome(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the exception is the result compared
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("name", list(CASES))
def test_assert_close_matches_torch(name):
    (ta, tk), (ga, gk) = CASES[name](torch), CASES[name](gt)
    assert _outcome(gt.testing.assert_close, *ga, **gk) == _outcome(torch.testing.assert_close, *ta, **tk)


@pytest.mark.parametrize("args", [([1., 2.], [1., 2.00001]), ([1., 2.], [1., 2.1]), ([nan], [nan]), (3, 3.0)])
def test_assert_allclose_matches_torch(args):
    g = _outcome(gt.testing.assert_allclose, *[gt.tensor(a) if isinstance(a, list) else a for a in args])
    t = _outcome(torch.testing.assert_allclose, *[torch.tensor(a) if isinstance(a, list) else a for a in args])
    assert g == t


MAKE = {
    "float32": ({"dtype": "float32"}, (3, 4)),
    "float64_bounds": ({"dtype": "float64", "low": -1, "high": 1}, (5,)),
    "half": ({"dtype": "float16"}, (2, 3)),
    "bfloat16": ({"dtype": "bfloat16"}, (4,)),
    "complex64": ({"dtype": "complex64"}, (3,)),
    "int64": ({"dtype": "int64"}, (2, 5)),
    "uint8": ({"dtype": "uint8"}, (6,)),
    "int8_bounds": ({"dtype": "int8", "low": -3.5, "high": 4}, (6,)),
    "bool": ({"dtype": "bool"}, (7,)),
    "noncontiguous": ({"dtype": "float32", "noncontiguous": True}, (3, 4)),
    "channels_last": ({"dtype": "float32", "memory_format": "channels_last"}, (2, 3, 4, 5)),
    "exclude_zero": ({"dtype": "int64", "low": -1, "high": 2, "exclude_zero": True}, (20,)),
    "requires_grad": ({"dtype": "float32", "requires_grad": True}, (2,)),
    "shape_list": ({"dtype": "float32"}, ([2, 3],)),
    "huge_span": ({"dtype": "float32", "low": -3e38, "high": 3e38}, (4,)),
}


def _make(m, opts, shape):
    kw = dict(opts)
    kw["dtype"] = getattr(m, kw["dtype"])
    if "memory_format" in kw:
        kw["memory_format"] = getattr(m, kw["memory_format"])
    m.manual_seed(0)
    return m.testing.make_tensor(*shape, device="cpu", **kw)


@pytest.mark.parametrize("name", list(MAKE))
def test_make_tensor_matches_torch(name):
    opts, shape = MAKE[name]
    g, t = _make(gt, opts, shape), _make(torch, opts, shape)
    assert (tuple(g.shape), g.stride(), str(g.dtype), g.requires_grad) == (tuple(t.shape), t.stride(), str(t.dtype),
                                                                           t.requires_grad)
    assert g.storage_offset() == t.storage_offset()
    g_vals = gt.view_as_real(g.detach()) if g.is_complex() else g.detach()
    t_vals = torch.view_as_real(t.detach()) if t.is_complex() else t.detach()
    np.testing.assert_array_equal(g_vals.float().numpy(), t_vals.float().numpy())


@pytest.mark.parametrize("kwargs", [{"low": 2, "high": 1}, {"low": nan}, {"low": 300, "high": 400},
                                    {"noncontiguous": True, "memory_format": "channels_last"},
                                    {"requires_grad": True}])
def test_make_tensor_errors_match_torch(kwargs):
    def call(m):
        kw = dict(kwargs)
        if "memory_format" in kw:
            kw["memory_format"] = getattr(m, kw["memory_format"])
        return _outcome(m.testing.make_tensor, 2, 3, 4, 5, dtype=m.uint8, device="cpu", **kw)
    assert call(gt) == call(torch)
