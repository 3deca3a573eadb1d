"""Tensor repr/str against real PyTorch (glasstorch/_tensor/printing.py vs torch/_tensor_str.py).

Every case is a builder ``f(m)`` that makes a tensor with library ``m`` (``torch`` or ``glasstorch``).
Two layers are checked:

* numpy layer: the torch tensor's values are fed to ``printing.render`` (no glasstorch Tensor needed);
* Tensor layer: ``repr(builder(glasstorch)) == repr(builder(torch))``.
"""

import math

import ml_dtypes
import numpy as np
import pytest
import torch

from glasstorch._core import dtype as gdtype
from glasstorch._tensor import printing

NAN, INF = math.nan, math.inf
_RNG = np.random.default_rng(0)
RAND_2D = _RNG.standard_normal((100, 100)).astype(np.float32).tolist()
RAND_3D = _RNG.standard_normal((3, 4, 5)).astype(np.float32).tolist()
RAND_1001 = _RNG.standard_normal(1001).astype(np.float32)
RAND_1001[500] = 1e10  # hidden by summarisation: must not switch the style to scientific
RAND_1001 = RAND_1001.tolist()
INTS_12_10_10 = np.arange(-600, 600).reshape(12, 10, 10).tolist()
INTS_4D = np.arange(16).reshape(2, 2, 2, 2).tolist()

CASES = {
    # floats: fixed point, integer style, scientific
    "float_basic": lambda m: m.tensor([1.0, 2.5, -3.25]),
    "float_int_valued": lambda m: m.tensor([1.0, -2.0, 0.0, -0.0]),
    "zeros_only": lambda m: m.tensor([-0.0, 0.0]),
    "neg_zero_with_frac": lambda m: m.tensor([-0.0, 0.5]),
    "sci_small": lambda m: m.tensor([1e-5, 1.0]),
    "sci_big": lambda m: m.tensor([1e9, 1.5]),
    "sci_ratio": lambda m: m.tensor([0.5, 1234.5]),
    "no_sci_ratio": lambda m: m.tensor([0.5, 400.25]),
    "sci_int_valued": lambda m: m.tensor([1e10, 2e10]),
    "big_int_valued_no_sci": lambda m: m.tensor([12345678.0, 100000.0]),
    "nan_inf_mix": lambda m: m.tensor([NAN, INF, -INF, 1.5]),
    "nan_inf_sci": lambda m: m.tensor([NAN, 1e10, -INF]),
    "nan_only": lambda m: m.tensor([NAN, NAN]),
    "inf_int_valued": lambda m: m.tensor([INF, 2.0, -INF]),
    "negatives": lambda m: m.tensor([-1.5, -0.001, 2.0, -300.0]),
    # 0-dim
    "scalar_float": lambda m: m.tensor(3.0),
    "scalar_frac": lambda m: m.tensor(-0.125),
    "scalar_sci": lambda m: m.tensor(1e-7),
    "scalar_nan": lambda m: m.tensor(NAN),
    "scalar_int": lambda m: m.tensor(7),
    "scalar_bool": lambda m: m.tensor(True),
    "scalar_f64": lambda m: m.tensor(2.5, dtype=m.float64),
    # integers and bools
    "ints": lambda m: m.tensor([1, -20, 300]),
    "bools": lambda m: m.tensor([True, False, True]),
    "bools_2d": lambda m: m.tensor([[True], [False]]),
    # wrapping and nesting
    "wrap_floats": lambda m: m.tensor([i * 0.37 for i in range(50)]),
    "wrap_ints": lambda m: m.tensor(list(range(-60, 60))),
    "wrap_2d": lambda m: m.tensor([[i * 1.25 for i in range(30)], [-1.0] * 30]),
    "matrix": lambda m: m.tensor([[1.5, -2.0], [3.0, 4.25]]),
    "rand_3d": lambda m: m.tensor(RAND_3D),
    "ints_4d": lambda m: m.tensor(INTS_4D),
    "dtype_suffix_wraps": lambda m: m.tensor([1.5] * 9, dtype=m.float64),
    # summarised (> threshold)
    "arange_2000": lambda m: m.tensor(list(range(2000))),
    "rand_100x100": lambda m: m.tensor(RAND_2D),
    "summarised_3d": lambda m: m.tensor(INTS_12_10_10),
    "summarised_style_from_edges": lambda m: m.tensor(RAND_1001),
    # dtype suffixes
    "float16": lambda m: m.tensor([0.1, 1000.0, -2.5], dtype=m.float16),
    "float16_sci": lambda m: m.tensor([1e-3, 60000.0], dtype=m.float16),
    "bfloat16": lambda m: m.tensor([1.0078125], dtype=m.bfloat16),
    "bfloat16_rounded": lambda m: m.tensor([0.1, 3.0, 300.0], dtype=m.bfloat16),
    "float64": lambda m: m.tensor([1 / 3, 2.0], dtype=m.float64),
    "int32": lambda m: m.tensor([1, 2, -3], dtype=m.int32),
    "int16": lambda m: m.tensor([[1], [-2]], dtype=m.int16),
    "int8": lambda m: m.tensor([-128, 127], dtype=m.int8),
    "uint8": lambda m: m.tensor([0, 7, 255], dtype=m.uint8),
    "int64": lambda m: m.tensor([1, 2], dtype=m.int64),
    "bool_dtype": lambda m: m.tensor([1, 0], dtype=m.bool),
    # complex
    "complex": lambda m: m.tensor([1 + 2j, -0.5 - 1e-5j]),
    "complex_int_valued": lambda m: m.tensor([[1 + 0j, 0 - 1j]]),
    "complex_scalar": lambda m: m.tensor(1 + 0j),
    "complex128": lambda m: m.tensor([1.5 + 2j, 3 - 4j], dtype=m.complex128),
    # empty
    "empty": lambda m: m.tensor([]),
    "empty_0x3": lambda m: m.zeros((0, 3)),
    "empty_int64": lambda m: m.zeros((0,), dtype=m.int64),
    "empty_3d_f64": lambda m: m.zeros((2, 0, 1), dtype=m.float64),
    # autograd
    "requires_grad": lambda m: m.tensor([1.0, 2.0], requires_grad=True),
    "requires_grad_scalar": lambda m: m.tensor(1.5, requires_grad=True),
    "requires_grad_f64": lambda m: m.tensor([[1.0, 2.0]], dtype=m.float64, requires_grad=True),
}

META_CASES = {
    "meta_2x3": lambda m: m.empty((2, 3), device="meta"),
    "meta_int64": lambda m: m.empty((4,), device="meta", dtype=m.int64),
    "meta_scalar_f16": lambda m: m.empty((), device="meta", dtype=m.float16),
}

OPTION_CASES = [
    ("precision2", {"precision": 2}, CASES["rand_3d"]),
    ("precision10", {"precision": 10}, CASES["float64"]),
    ("precision0", {"precision": 0}, lambda m: m.tensor([1.5, 2.25, -0.75])),
    ("sci_on", {"sci_mode": True}, CASES["float_basic"]),
    ("sci_on_int_valued", {"sci_mode": True}, lambda m: m.tensor([1.0, 2.0])),
    ("sci_on_zeros", {"sci_mode": True}, lambda m: m.tensor([0.0, 0.0])),
    ("sci_off", {"sci_mode": False}, lambda m: m.tensor([1e-5, 1e5])),
    ("threshold5", {"threshold": 5}, lambda m: m.tensor(list(range(10)))),
    ("threshold0_scalar", {"threshold": 0}, CASES["scalar_frac"]),
    ("edgeitems1", {"threshold": 5, "edgeitems": 1}, lambda m: m.tensor([[float(4 * i + j) for j in range(4)]
                                                                         for i in range(4)])),
    ("edgeitems0_summarised", {"threshold": 5, "edgeitems": 0}, lambda m: m.tensor(INTS_4D)),
    ("edgeitems0_1d", {"threshold": 5, "edgeitems": 0}, lambda m: m.tensor([0.5] * 10)),
    ("edgeitems0_small", {"edgeitems": 0}, CASES["matrix"]),
    ("linewidth40", {"linewidth": 40}, CASES["wrap_ints"]),
    ("linewidth40_suffix", {"linewidth": 40}, lambda m: m.tensor([1.5] * 4, dtype=m.float64,
                                                                  requires_grad=True)),
    ("linewidth1", {"linewidth": 1}, CASES["matrix"]),
    ("profile_short", {"profile": "short"}, CASES["rand_100x100"]),
    ("profile_full", {"profile": "full"}, lambda m: m.tensor(list(range(1100)))),
    ("complex_precision2", {"precision": 2}, CASES["complex"]),
]


@pytest.fixture(autouse=True)
def _restore_defaults():
    yield
    torch.set_printoptions(profile="default")
    printing.set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)
    gdtype.set_default_dtype(gdtype.float32)


def _set_both(options):
    torch.set_printoptions(**options)
    printing.set_printoptions(**options)


def _numpy_repr(th):
    """glasstorch's printer fed with the values of torch tensor ``th`` (numpy layer only)."""
    if th.device.type == "meta":
        values = None
    elif th.dtype == torch.bfloat16:
        values = th.detach().float().numpy().astype(ml_dtypes.bfloat16)
    else:
        values = th.detach().numpy()
    grad_fn = None if th.grad_fn is None else type(th.grad_fn).__name__
    facts = printing.TensorFacts(values=values, dtype=str(th.dtype), shape=tuple(th.shape),
                                 device=str(th.device), requires_grad=th.requires_grad, grad_fn_name=grad_fn,
                                 default_dtype=str(torch.get_default_dtype()))
    return printing.render(facts)


def _glasstorch():
    import glasstorch  # the Tensor core: a plain import, it is part of the package

    return glasstorch


# ------------------------------------------------------------------------------------------------
# numpy layer (runs without the glasstorch Tensor class)
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("build", list(CASES.values()) + list(META_CASES.values()),
                         ids=list(CASES) + list(META_CASES))
def test_numpy_layer_matches_torch(build):
    th = build(torch)
    assert _numpy_repr(th) == repr(th)


@pytest.mark.parametrize("options,build", [c[1:] for c in OPTION_CASES], ids=[c[0] for c in OPTION_CASES])
def test_numpy_layer_print_options(options, build):
    _set_both(options)
    th = build(torch)
    assert _numpy_repr(th) == repr(th)


@pytest.mark.parametrize("name", ["float_basic", "float64", "complex", "complex128", "empty", "meta_2x3",
                                  "scalar_f64", "rand_3d"])
def test_numpy_layer_default_float64(name):
    build = {**CASES, **META_CASES}[name]
    torch.set_default_dtype(torch.float64)
    th = build(torch)
    assert _numpy_repr(th) == repr(th)


def test_numpy_layer_grad_fn():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for th in (x * 2, x.sum(), (x + 1).reshape(2, 1)):
        assert _numpy_repr(th) == repr(th)


def test_format_values_direct():
    assert printing.format_values(np.array([1.0, 2.5], dtype=np.float32)) == "[1.0000, 2.5000]"
    assert printing.format_values(np.array([1.0078125], dtype=ml_dtypes.bfloat16)) == "[1.0078]"
    assert printing.format_values(np.array([], dtype=np.float32)) == "[]"
    assert printing.format_values(np.array(3.0)) == "3."


def test_facts_from_numpy():
    arr = np.array([[1, 2], [3, 4]], dtype=np.int32)
    facts = printing.facts_from_numpy(arr, "torch.int32")
    assert printing.render(facts) == repr(torch.tensor(arr))


class _Device:
    def __init__(self, kind):
        self.type = kind

    def __str__(self):
        return self.type


class _Impl:
    def __init__(self, values):
        self._values = values

    def as_numpy(self):
        if self._values is None:
            raise RuntimeError("meta tensors have no data")
        return self._values

    values_np = as_numpy  # the printer reads values with the lazy conj/neg bits applied; a stand-in has none


class MulBackward0:  # named like torch's node so type(grad_fn).__name__ matches
    pass


class _StandIn:
    """The slice of the glasstorch Tensor interface that tensor_repr reads."""

    def __init__(self, th, grad_fn=None):
        self.dtype = getattr(gdtype, str(th.dtype).removeprefix("torch."))
        self.shape = tuple(th.shape)
        self.device = _Device(th.device.type)
        self.requires_grad = th.requires_grad
        self.grad_fn = grad_fn
        meta = th.device.type == "meta"
        self._impl = _Impl(None if meta else th.detach().float().numpy().astype(self.dtype.np)
                           if th.dtype == torch.bfloat16 else th.detach().numpy())


_StandIn.__name__ = _StandIn.__qualname__ = "Tensor"
_StandIn.__module__ = "glasstorch.tensor"


def test_tensor_repr_on_stand_in():
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    cases = [(x * 2, MulBackward0()), (x, None), (torch.empty(2, 3, device="meta"), None),
             (torch.tensor([1.0078125], dtype=torch.bfloat16), None), (torch.tensor([1, 2], dtype=torch.uint8), None)]
    for th, grad_fn in cases:
        assert printing.tensor_repr(_StandIn(th, grad_fn)) == repr(th)


def test_subclass_prefix():
    class MyTensor(_StandIn):
        pass

    assert printing.tensor_repr(MyTensor(torch.tensor([1.0]))) == "MyTensor([1.])"


# ------------------------------------------------------------------------------------------------
# print-option API
# ------------------------------------------------------------------------------------------------

def test_default_options_match_torch():
    assert printing.get_printoptions() == torch._tensor_str.get_printoptions()


@pytest.mark.parametrize("options", [{"profile": "short"}, {"profile": "full"}, {"profile": "full", "precision": 6},
                                     {"sci_mode": True, "linewidth": 100}, {"threshold": 10, "edgeitems": 1}])
def test_set_printoptions_state_matches_torch(options):
    _set_both(options)
    assert printing.get_printoptions() == torch._tensor_str.get_printoptions()
    _set_both({"precision": 3})  # sci_mode returns to None when not given
    assert printing.get_printoptions() == torch._tensor_str.get_printoptions()


def test_printoptions_context_manager_restores():
    printing.set_printoptions(precision=3, sci_mode=False)
    before = printing.get_printoptions()
    with printing.printoptions(precision=7, threshold=5):
        assert printing.get_printoptions()["precision"] == 7
        assert printing.format_values(np.arange(10)) == "[0, 1, 2,  ..., 7, 8, 9]"
    assert printing.get_printoptions() == before


# ------------------------------------------------------------------------------------------------
# Tensor layer: repr(glasstorch tensor) == repr(torch tensor)
# ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("build", list(CASES.values()), ids=list(CASES))
def test_repr_matches_torch(build):
    gt = _glasstorch()
    assert repr(build(gt)) == repr(build(torch))
    assert str(build(gt)) == str(build(torch))


@pytest.mark.parametrize("build", list(META_CASES.values()), ids=list(META_CASES))
def test_meta_repr_matches_torch(build):
    gt = _glasstorch()
    assert repr(build(gt)) == repr(build(torch))


@pytest.mark.parametrize("options,build", [c[1:] for c in OPTION_CASES], ids=[c[0] for c in OPTION_CASES])
def test_repr_print_options(options, build):
    gt = _glasstorch()
    _set_both(options)
    assert repr(build(gt)) == repr(build(torch))


@pytest.mark.parametrize("name", ["float_basic", "float64", "complex", "complex128", "empty", "scalar_f64"])
def test_repr_default_float64(name):
    gt = _glasstorch()
    torch.set_default_dtype(torch.float64)
    gdtype.set_default_dtype(gdtype.float64)
    assert repr(CASES[name](gt)) == repr(CASES[name](torch))
