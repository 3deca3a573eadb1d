"""The dispatcher: key sets, table resolution, fallthrough, redispatch, trace, modes and custom ops."""

from __future__ import annotations

import io
import re

import pytest
import torch

import glasstorch as gt
from glasstorch._core import dispatch_key as dk
from glasstorch._ops import dispatcher
from glasstorch.utils._python_dispatch import TorchDispatchMode


def _trace(fn) -> list:
    buf = io.StringIO()
    with gt.show_dispatch_trace(buf):
        fn()
    return buf.getvalue().splitlines()


def test_key_order_matches_pytorch_priorities():
    order = dk.RUNTIME_KEYS
    assert order.index("CPU") < order.index("Meta") < order.index("BackendSelect") < order.index("Python")
    assert order.index("Python") < order.index("ADInplaceOrView") < order.index("AutogradCPU")
    assert order.index("AutogradCPU") < order.index("AutocastCPU") < order.index("PythonDispatcher")


def test_tensor_keyset_carries_backend_autograd_and_adinplaceorview():
    """As torch's ``DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU, AutocastCPU)``."""
    ks = gt.ones(2)._impl.key_set
    assert dk.keyset_names(ks) == ["AutocastCPU", "AutogradCPU", "ADInplaceOrView", "CPU"]
    assert dk.keyset_names(gt.ones(2, device="meta")._impl.key_set) == ["AutogradMeta", "ADInplaceOrView", "Meta"]


def test_trace_of_add_on_cpu_and_meta():
    """As in PyTorch, the autograd kernel always runs first (every tensor carries the autograd key)."""
    a, b = gt.ones(2), gt.ones(2)
    assert _trace(lambda: gt.add(a, b)) == [
        "[call] op=[aten::add.Tensor], key=[AutogradCPU] kernel=[autograd::aten::add.Tensor]",
        "  [redispatch] op=[aten::add.Tensor], key=[CPU] kernel=[_add_Tensor_structured]"]
    m = gt.ones(2, device="meta")
    assert _trace(lambda: gt.add(m, m)) == [
        "[call] op=[aten::add.Tensor], key=[AutogradMeta] kernel=[autograd::aten::add.Tensor]",
        "  [redispatch] op=[aten::add.Tensor], key=[Meta] kernel=[_add_Tensor_structured]"]


def test_trace_under_inference_mode_skips_autograd():
    a = gt.ones(2)
    with gt.inference_mode():
        lines = _trace(lambda: gt.add(a, a))
    assert lines == ["[call] op=[aten::add.Tensor], key=[CPU] kernel=[_add_Tensor_structured]"]


def test_trace_of_inplace_shows_autograd_adinplaceorview_then_backend():
    a = gt.ones(2)
    lines = _trace(lambda: a.add_(1))
    assert lines == ["[call] op=[aten::add_.Tensor], key=[AutogradCPU] kernel=[autograd::aten::add_.Tensor]",
                     "  [redispatch] op=[aten::add_.Tensor], key=[ADInplaceOrView] "
                     "kernel=[ADInplaceOrView::aten::add_.Tensor]",
                     "    [redispatch] op=[aten::add_.Tensor], key=[CPU] kernel=[_add__Tensor_structured]"]
    assert a._version == 1


def test_fallthrough_keys_are_masked_out_of_the_table():
    op = dispatcher.get_op("aten::add.Tensor")
    assert not op.mask >> dk.DispatchKey.ADInplaceOrView & 1  # functional op: fallthrough
    assert not op.mask >> dk.DispatchKey.BackendSelect & 1
    inplace = dispatcher.get_op("aten::add_.Tensor")
    assert inplace.mask >> dk.DispatchKey.ADInplaceOrView & 1
    dump = dispatcher.dispatch_table_dump("aten::add.Tensor")
    assert "CPU: _add_Tensor_structured" in dump and "ADInplaceOrView: fallthrough" in dump


def test_tls_exclude_guard_skips_a_key():
    a = gt.ones(2)
    with dk.ExcludeDispatchKeyGuard(dk.bit("ADInplaceOrView")):
        a.add_(1)
    assert a._version == 0  # the layer that bumps versions was excluded, exactly what the guard is for
    a.add_(1)
    assert a._version == 1


def test_missing_kernel_error_names_op_and_backend():
    lib = gt.library.Library("gt_test_missing", "DEF")
    lib.define("only_meta(Tensor x) -> Tensor")
    lib.impl("only_meta", lambda x: gt.empty_like(x), "Meta")
    with pytest.raises(NotImplementedError) as e:
        gt.ops.gt_test_missing.only_meta(gt.ones(2))
    msg = str(e.value)
    assert msg.startswith("Could not run 'gt_test_missing::only_meta' with arguments from the 'CPU' backend.")
    assert "'gt_test_missing::only_meta' is only available for these backends: ['Meta']" in msg


def test_composite_implicit_fills_backends_and_autograd():
    op = dispatcher.get_op("aten::reshape")
    assert op.table[dk.DispatchKey.CPU].label == "reshape"
    assert op.table[dk.DispatchKey.Meta].label == "reshape"
    assert op.table[dk.DispatchKey.AutogradCPU].label == "reshape"


def test_redispatch_below_a_layer():
    seen = []
    lib = gt.library.Library("gt_test_layers", "DEF")
    lib.define("twice(Tensor x) -> Tensor")
    lib.impl("twice", lambda x: x * 2, "CPU")
    handle = dispatcher.get_op("gt_test_layers::twice")

    def autocast_like(ks, x):
        seen.append(dk.keyset_names(ks))
        return handle.redispatch(ks, x)
    dispatcher.register_kernel("gt_test_layers::twice", "AutocastCPU", autocast_like, with_keyset=True)
    with dk.IncludeDispatchKeyGuard(dk.bit("AutocastCPU")):
        prev = dk.tls.excluded
        dk.tls.excluded &= ~dk.bit("AutocastCPU")
        try:
            out = gt.ops.gt_test_layers.twice(gt.ones(2))
        finally:
            dk.tls.excluded = prev
    assert out.tolist() == [2.0, 2.0]
    assert seen and "AutocastCPU" not in seen[0] and "CPU" in seen[0]


def test_torch_dispatch_mode_sees_aten_ops_below_autograd():
    calls = []

    class Log(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            calls.append(str(func))
            return func(*args, **(kwargs or {}))

    x = gt.ones(2, 3)
    with Log():
        y = (x * 2).sum() if hasattr(x, "sum") else (x * 2).t()
    assert calls[0] == "aten.mul.Tensor"
    assert isinstance(y, gt.Tensor)
    with Log():
        pass
    calls.clear()
    _ = x + 1
    assert calls == []  # the mode is gone: the Python key left the included set
    assert not dk.tls.included & dk.bit("Python")


def test_custom_op_with_fake_and_trace():
    @gt.library.custom_op("gt_test_custom::scale", mutates_args=())
    def scale(x: gt.Tensor, k: float) -> gt.Tensor:
        return x * k

    @scale.register_fake
    def _(x, k):
        return gt.empty_like(x)

    assert scale(gt.ones(2), 3.0).tolist() == [3.0, 3.0]
    m = scale(gt.ones(4, device="meta"), 2.0)
    assert m.is_meta and m.shape == (4,)
    assert str(gt.ops.gt_test_custom.scale.default._schema) == "gt_test_custom::scale(Tensor x, float k) -> Tensor"
    lines = _trace(lambda: scale(gt.ones(2), 2.0))
    assert lines[0] == "[call] op=[gt_test_custom::scale], key=[AutogradCPU] kernel=[autograd_not_implemented_fallback]"
    assert lines[1] == "  [redispatch] op=[gt_test_custom::scale], key=[CPU] " \
                       "kernel=[test_custom_op_with_fake_and_trace.<locals>.scale]"
    assert re.match(r"\s+\[call\] op=\[aten::mul.Tensor\], key=\[AutogradCPU\]", lines[2])


def test_library_reserved_namespace_and_cleanup():
    with pytest.raises(ValueError, match="aten is a reserved namespace"):
        gt.library.Library("aten", "DEF")
    lib = gt.library.Library("gt_test_cleanup", "DEF")
    lib.define("f(Tensor x) -> Tensor")
    assert dispatcher.find_op("gt_test_cleanup::f") is not None
    lib._destroy()
    assert dispatcher.find_op("gt_test_cleanup::f") is None


def test_ops_namespace_matches_torch_schema_text():
    for name in ("add.Tensor", "view", "transpose.int", "clone"):
        ns_op = gt.ops.aten
        packet, _, overload = name.partition(".")
        ours = getattr(getattr(ns_op, packet), overload or "default")._schema
        theirs = getattr(getattr(torch.ops.aten, packet), overload or "default")._schema
        assert str(ours) == str(theirs).removeprefix("aten::")
