"""``glasstorch.compile(mode=, options=)``: errors as PyTorch's, settings applied to one callable's compilations.

Covered: the error texts (both given, unknown mode, unknown option, wrong value type) against real torch;
what non-inductor backends receive (keyword arguments, as ``_TorchCompileWrapper`` passes them); an option
that changes the generated C takes effect for its callable only, in the lazily compiled backward too, with the
settings restored afterwards (also after an error); every mode compiles and gives eager's result;
``list_mode_options`` is PyTorch's table; ``config.patch``.
"""

import importlib
import logging

import numpy as np
import pytest
import torch
import torch._inductor

import glasstorch as gt
import glasstorch._inductor as gt_inductor
from glasstorch import _cbuild
from glasstorch._dynamo.backends import CompileInductorWrapper, CompileWrapper, inductor
from glasstorch._dynamo.exc import BackendCompilerFailed
from glasstorch._inductor import config

cfx = importlib.import_module("glasstorch._inductor.compile_fx")
needs_cc = pytest.mark.skipif(not _cbuild.available(), reason="no C compiler")
_DEFAULTS = config.get_config_copy()


def _f(x):
    return (x * 2).sum(0) + 1


@pytest.fixture(autouse=True)
def _fresh_torch_dynamo():
    torch._dynamo.reset()   # torch counts recompiles per code object: _f is compiled in many tests
    yield
    torch._dynamo.reset()


def _raises_same(kind, call_torch, call_ours):
    with pytest.raises(kind) as th:
        call_torch()
    with pytest.raises(kind) as ours:
        call_ours()
    return str(th.value), str(ours.value)


# -- errors ------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("options", [{"debug": 1}, {"debug": None}, {"max_autotune": "yes"},
                                     {"max-autotune": 1.5}, {"triton.cudagraphs": 0}])
def test_wrong_value_type_matches_torch(options):
    th, ours = _raises_same(RuntimeError, lambda: torch.compile(_f, options=options),
                            lambda: gt.compile(_f, options=options))
    assert ours == th


@pytest.mark.parametrize("key", ["x", "cpp.nope", "not-a_setting"])
def test_unknown_option_names_the_known_ones(key):
    th, ours = _raises_same(RuntimeError, lambda: torch.compile(_f, options={key: 1}),
                            lambda: gt.compile(_f, options={key: 1}))
    prefix = f"Unexpected optimization option {key}, known options are ["
    assert th.startswith(prefix)   # torch lists its own ~600 settings; ours lists ours, in the same format
    assert ours == prefix[:-1] + repr(gt_inductor.list_options())
    assert {"profile_kernels", "column_reductions", "debug", "triton.cudagraphs"} <= set(gt_inductor.list_options())


@pytest.mark.parametrize("kwargs", [{"mode": "bogus"}, {"mode": "default", "options": {}},
                                    {"mode": "max-autotune", "options": {"debug": True}}])
def test_mode_errors_match_torch(kwargs):
    th, ours = _raises_same(RuntimeError, lambda: torch.compile(_f, **kwargs), lambda: gt.compile(_f, **kwargs))
    assert ours == th


def test_checks_wait_for_the_decorated_function_and_options_must_be_a_dict():
    deco_th = torch.compile(mode="default", options={})   # as torch: nothing is checked before decorating
    deco_gt = gt.compile(mode="default", options={})
    th, ours = _raises_same(RuntimeError, lambda: deco_th(_f), lambda: deco_gt(_f))
    assert ours == th
    th, ours = _raises_same(AttributeError, lambda: torch.compile(_f, options=[("debug", True)]),
                            lambda: gt.compile(_f, options=[("debug", True)]))
    assert ours == th


# -- other backends -------------------------------------------------------------------------------------------
class _Records(logging.Handler):
    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@pytest.mark.parametrize("backend,logger,kwargs", [
    ("eager", "backends.debugging", {"options": {"x": 1}}),
    ("eager", "backends.debugging", {"mode": "bogus"}),
    ("aot_eager", "backends.common", {"mode": "reduce-overhead"}),
])
def test_debug_backends_log_and_ignore_the_settings(backend, logger, kwargs):
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    msgs = {}
    for lib, name in ((torch, f"torch._dynamo.{logger}"), (gt, "glasstorch._dynamo.backends")):
        rec = _Records()
        logging.getLogger(name).addHandler(rec)
        try:
            out = lib.compile(_f, backend=backend, **kwargs)(lib.tensor(x))
        finally:
            logging.getLogger(name).removeHandler(rec)
        np.testing.assert_array_equal(out.numpy(), _f(x))
        msgs[lib.__name__] = [m for m in rec.messages if "ignoring extra kwargs" in m]
    assert msgs["glasstorch"] == msgs["torch"] and len(msgs["torch"]) == 1


@pytest.mark.parametrize("kwargs", [{"options": {"x": 1}}, {"mode": "max-autotune"}, {"mode": "default"},
                                    {"options": {}}, {"mode": "anything"}])
def test_a_callable_backend_gets_torch_s_keywords(kwargs):
    seen = {}
    for lib in (torch, gt):
        def backend(gm, example_inputs, _name=lib.__name__, **kw):
            seen[_name] = kw
            return gm.forward
        assert lib.compile(_f, backend=backend, **kwargs)(lib.ones(2, 2)).tolist() == [5.0, 5.0]
    assert seen["glasstorch"] == seen["torch"]


def test_a_callable_without_kwargs_fails_as_in_torch():
    def mybackend(gm, example_inputs):
        return gm.forward
    th, ours = _raises_same(Exception, lambda: torch.compile(_f, backend=mybackend, options={"x": 1})(torch.ones(2)),
                            lambda: gt.compile(_f, backend=mybackend, options={"x": 1})(gt.ones(2)))
    assert ours.splitlines()[:2] == th.splitlines()[:2]   # backend='mybackend' raised:\nTypeError: ...
    with pytest.raises(BackendCompilerFailed):
        gt.compile(_f, backend=mybackend, mode="max-autotune")(gt.ones(2))


def test_wrappers_only_when_there_is_something_to_pass(cnt):
    assert gt.compile(_f)._backend is inductor   # the plain backend: nothing extra at compile time
    assert gt.compile(_f, mode="default")._backend is inductor
    assert gt.compile(_f, backend=cnt, options={})._backend is cnt
    wrapped = gt.compile(_f, backend=cnt, mode="reduce-overhead")._backend
    assert isinstance(wrapped, CompileWrapper) and wrapped.kwargs == {"mode": "reduce-overhead"}
    a = gt.compile(_f, options={"profile-kernels": True})._backend
    b = gt.compile(_f, options={"profile_kernels": True})._backend
    assert a == b and hash(a) == hash(b) and a.config == {"profile_kernels": True}
    assert a != gt.compile(_f, options={"profile_kernels": False})._backend


# -- the inductor: settings for one callable -------------------------------------------------------------------------
@pytest.fixture
def graphs(monkeypatch):
    """Every graph compile_fx_inner compiles, with the settings it saw."""
    seen = []
    inner = cfx.compile_fx_inner

    def collecting(gm, example_inputs, **kw):
        seen.append((config.profile_kernels, config.column_reductions))
        out = inner(gm, example_inputs, **kw)
        seen[-1] += (out,)
        return out
    monkeypatch.setattr(cfx, "compile_fx_inner", collecting)
    return seen


@needs_cc
def test_an_option_changes_only_its_own_callable(graphs):
    x = np.random.default_rng(0).standard_normal((64, 32)).astype(np.float32)
    plain = gt.compile(_f)
    columns_off = gt.compile(_f, options={"column_reductions": False})
    out_plain, out_off = plain(gt.tensor(x)), columns_off(gt.tensor(x))
    again = plain(gt.tensor(x) + 0)   # same guards: no recompile, still the first callable's code
    (_, on, g_plain), (_, off, g_off) = graphs
    assert on is True and off is False and len(graphs) == 2 and config.column_reductions is True
    assert "acc_buf1[x0 - gt_x]" in g_plain.c_source and "acc_buf1[x0 - gt_x]" not in g_off.c_source
    # the disk cache is keyed by the C text itself: different code, different library
    assert _cbuild.load(g_plain.c_source, openmp=True) is not _cbuild.load(g_off.c_source, openmp=True)
    expected = _f(torch.tensor(x)).numpy()
    for out in (out_plain, out_off, again):
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-5)


@needs_cc
def test_the_lazy_backward_compiles_under_the_same_settings(graphs):
    x = gt.randn(8, 16, requires_grad=True)
    f = gt.compile(lambda t: (t.tanh() * 3).sum(), options={"profile_kernels": True})
    loss = f(x)
    assert [g[0] for g in graphs] == [True] and config.profile_kernels is False
    loss.backward()   # the backward graph compiles now, outside compile(): the patch must hold again
    assert [g[0] for g in graphs] == [True, True] and config.profile_kernels is False
    assert all(g[2].profiler is not None for g in graphs)
    ref = gt.tensor(x.detach().numpy(), requires_grad=True)
    (ref.tanh() * 3).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), ref.grad.numpy(), rtol=1e-5, atol=1e-6)
    graphs.clear()
    gt.compile(lambda t: t.tanh().sum())(gt.randn(4))
    assert [g[0] for g in graphs] == [False] and graphs[0][2].profiler is None


def test_settings_are_restored_when_compiling_raises(monkeypatch):
    seen = []

    def failing(gm, example_inputs, **kw):
        seen.append(config.profile_kernels)
        raise ValueError("boom")
    monkeypatch.setattr(cfx, "_require_compiler", lambda: None)
    monkeypatch.setattr(cfx, "compile_fx_inner", failing)
    with pytest.raises(BackendCompilerFailed, match="boom"):
        gt.compile(_f, options={"profile_kernels": True})(gt.ones(3, 2))
    assert seen == [True] and config.profile_kernels is False


@needs_cc
@pytest.mark.parametrize("mode", ["default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs", "lite"])
def test_every_mode_compiles_and_matches_eager(mode, graphs):
    x = np.random.default_rng(1).standard_normal((5, 7)).astype(np.float32)
    out = gt.compile(_f, mode=mode)(gt.tensor(x))
    np.testing.assert_allclose(out.numpy(), _f(torch.tensor(x)).numpy(), rtol=1e-5, atol=1e-5)
    assert len(graphs) == 1 and config.get_config_copy() == _DEFAULTS


def test_modes_apply_what_exists_and_record_the_rest():
    assert gt_inductor.list_mode_options() == torch._inductor.list_mode_options()
    for mode in ("reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"):
        assert gt_inductor.list_mode_options(mode) == torch._inductor.list_mode_options(mode)
        wrapper = CompileInductorWrapper(mode, None, None)
        assert wrapper.config == gt_inductor.list_mode_options(mode) and not wrapper.unapplied
        assert set(wrapper.config) <= set(config.NO_EFFECT)   # CPU here: no CUDA graphs, nothing to autotune
    lite = CompileInductorWrapper("lite", None, None)
    assert lite.config == {} and lite.unapplied == torch._inductor.list_mode_options("lite")


# -- config.patch ------------------------------------------------------------------------------------------------


def test_patch_sets_and_restores():
    with config.patch({"triton.cudagraphs": True}, profile_kernels=True):
        assert config.triton.cudagraphs is True and config.profile_kernels is True
        with config.patch("profile_kernels", False):
            assert config.profile_kernels is False
        assert config.profile_kernels is True
    assert config.get_config_copy() == _DEFAULTS
    with pytest.raises(AttributeError) as ours:
        config.patch(nope=1)
    with pytest.raises(AttributeError) as th:
        with torch._inductor.config.patch(nope=1):
            pass
    assert str(ours.value) == str(th.value).replace("torch.", "glasstorch.")
    assert config.get_type("debug") is bool and config.get_type("parallel_threshold") is int
