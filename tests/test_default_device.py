"""The default device of factories (Note [The default device] in glasstorch/_core/device.py) against real PyTorch:
``with torch.device(...)`` blocks, ``set_default_device``/``get_default_device``, and what keeps its own device."""

import pytest
import torch

import glasstorch as gt

# (name, builder): each builder runs with m = glasstorch and m = torch, under a default device of "meta"
FACTORIES = [
    ("zeros", lambda m: m.zeros(2, 3)),
    ("zeros_kw", lambda m: m.zeros((2, 3), dtype=m.float64)),
    ("ones", lambda m: m.ones(4)),
    ("empty", lambda m: m.empty(2)),
    ("empty_memory_format", lambda m: m.empty(1, 2, 3, 4, memory_format=m.channels_last)),
    ("full", lambda m: m.full((2,), 7.0)),
    ("empty_strided", lambda m: m.empty_strided((2, 2), (1, 2))),
    ("tensor", lambda m: m.tensor([1.0, 2.0])),
    ("as_tensor_list", lambda m: m.as_tensor([1, 2])),
    ("arange", lambda m: m.arange(5)),
    ("linspace", lambda m: m.linspace(0, 1, 5)),
    ("logspace", lambda m: m.logspace(0, 1, 5)),
    ("eye", lambda m: m.eye(3)),
    ("rand", lambda m: m.rand(3)),
    ("randn", lambda m: m.randn(2, 2)),
    ("randint", lambda m: m.randint(0, 5, (3,))),
    ("randperm", lambda m: m.randperm(4)),
    ("normal_not_listed", lambda m: m.normal(0.0, 1.0, size=(2,))),   # not one of torch's device constructors
    ("scalar_tensor", lambda m: m.scalar_tensor(1.5)),
    ("hann_window", lambda m: m.hann_window(4)),
    ("tril_indices", lambda m: m.tril_indices(3, 3)),
    ("linear_weight", lambda m: m.nn.Linear(3, 2).weight),
]


@pytest.mark.parametrize("name,build", FACTORIES, ids=[n for n, _ in FACTORIES])
def test_factory_under_device_block(name, build):
    with torch.device("meta"):
        want = build(torch)
    with gt.device("meta"):
        got = build(gt)
    assert (got.device.type, tuple(got.shape), str(got.dtype)) == (want.device.type, tuple(want.shape),
                                                                  str(want.dtype))
    assert build(gt).device.type == "cpu"  # the block is over


@pytest.mark.parametrize("name,build", FACTORIES, ids=[n for n, _ in FACTORIES])
def test_factory_under_set_default_device(name, build):
    try:
        torch.set_default_device("meta")
        gt.set_default_device("meta")
        assert str(gt.get_default_device()) == str(torch.get_default_device())
        want, got = build(torch), build(gt)
    finally:
        torch.set_default_device(None)
        gt.set_default_device(None)
    assert got.device.type == want.device.type
    assert str(gt.get_default_device()) == str(torch.get_default_device()) == "cpu"


def test_explicit_device_and_inputs_keep_theirs():
    cpu = gt.ones(2)
    with gt.device("meta"):
        assert gt.zeros(2, device="cpu").device.type == "cpu"
        assert gt.zeros_like(cpu).device.type == "cpu"          # *_like follow their input
        assert (cpu + 1).device.type == "cpu"                   # ops follow their inputs
        assert cpu.new_zeros(2).device.type == "cpu"
        assert gt.from_numpy(cpu.numpy()).device.type == "cpu"


def test_nested_blocks_and_precedence():
    with torch.device("meta"), gt.device("meta"):
        assert str(gt.get_default_device()) == str(torch.get_default_device())
        with torch.device("cpu"), gt.device("cpu"):
            assert gt.ones(1).device.type == torch.ones(1).device.type == "cpu"
            assert str(gt.get_default_device()) == str(torch.get_default_device())
        assert gt.ones(1).device.type == torch.ones(1).device.type == "meta"
    try:  # an enclosing block wins over set_default_device, as torch's mode stack does
        torch.set_default_device("meta")
        gt.set_default_device("meta")
        with torch.device("cpu"), gt.device("cpu"):
            assert gt.ones(1).device.type == torch.ones(1).device.type == "cpu"
    finally:
        torch.set_default_device(None)
        gt.set_default_device(None)
