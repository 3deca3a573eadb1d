"""nn.Module mechanics against torch.nn: registration, traversal, state_dict/load_state_dict, modes,
conversions, hooks, repr and errors.  Every scenario is written once over ``m`` (glasstorch or torch) and run
in both libraries; results, exception types and messages are compared."""

from __future__ import annotations

import copy
import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest
import torch
from nn_oracle import copy_state, pair, randn, to_np
from oracle import assert_same_error

import glasstorch


def net(m):
    """A small model built the same way in both libraries: shared module, shared parameter, buffers."""

    class Block(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = m.nn.Linear(3, 3)
            self.register_buffer("count", m.zeros(1))
            self.register_buffer("scratch", m.ones(2), persistent=False)

        def forward(self, x):
            return self.fc(x).relu()

    class Net(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = Block()
            self.b = self.a  # the same module twice
            self.c = Block()
            self.c.fc.weight = self.a.fc.weight  # a shared parameter
            self.head = m.nn.Sequential(m.nn.Linear(3, 2), m.nn.Tanh())
            self.empty = None
            self.alpha = m.nn.Parameter(m.tensor(0.5))
            self.register_parameter("unused", None)

        def forward(self, x):
            return self.head(self.c(self.a(x)) * self.alpha)

    return Net()


def both_nets():
    gt, th = net(glasstorch), net(torch)
    copy_state(gt, th)
    return gt, th


# -- traversal --------------------------------------------------------------------------------------------------

TRAVERSALS = {
    "named_parameters": lambda mod: [n for n, _ in mod.named_parameters()],
    "named_parameters_dups": lambda mod: [n for n, _ in mod.named_parameters(remove_duplicate=False)],
    "named_parameters_prefix_norecurse": lambda mod: [n for n, _ in mod.named_parameters("p", recurse=False)],
    "named_buffers": lambda mod: [n for n, _ in mod.named_buffers()],
    "named_buffers_dups": lambda mod: [n for n, _ in mod.named_buffers(prefix="x", remove_duplicate=False)],
    "named_modules": lambda mod: [n for n, _ in mod.named_modules()],
    "named_modules_dups": lambda mod: [n for n, _ in mod.named_modules(prefix="root", remove_duplicate=False)],
    "named_children": lambda mod: [n for n, _ in mod.named_children()],
    "modules_count": lambda mod: len(list(mod.modules())),
    "children_types": lambda mod: [type(c).__name__ for c in mod.children()],
    "parameters_shapes": lambda mod: [tuple(p.shape) for p in mod.parameters()],
    "buffers_count": lambda mod: len(list(mod.buffers(recurse=False))),
    "state_dict_keys": lambda mod: list(mod.state_dict()),
    "state_dict_metadata": lambda mod: dict(mod.state_dict()._metadata),
    "state_dict_prefix": lambda mod: list(mod.state_dict(prefix="model.")),
    "state_dict_shared": lambda mod: mod.state_dict()["a.fc.weight"] is mod.state_dict()["c.fc.weight"],
    "state_dict_keep_vars": lambda mod: [type(v).__name__ for v in mod.state_dict(keep_vars=True).values()],
    "state_dict_detached": lambda mod: [v.requires_grad for v in mod.state_dict().values()],
    "dir_members": lambda mod: sorted({"a", "head", "alpha", "unused", "empty"} & set(dir(mod))),
    "dir_sequential": lambda mod: [k for k in dir(mod.head) if k.isdigit()],
}


@pytest.mark.parametrize("name", list(TRAVERSALS))
def test_traversal(name):
    gt, th = both_nets()
    assert TRAVERSALS[name](gt) == TRAVERSALS[name](th)


def test_shared_parameter_identity_and_training_flags():
    gt, _ = both_nets()
    assert gt.a is gt.b and gt.c.fc.weight is gt.a.fc.weight
    assert gt.training and all(mod.training for mod in gt.modules())
    assert gt.eval() is gt and not any(mod.training for mod in gt.modules())
    gt.train()
    assert all(mod.training for mod in gt.modules())
    assert_same_error(lambda: gt.train("yes"), lambda: torch.nn.Linear(1, 1).train("yes"))


def test_forward_matches_and_apply_order():
    gt, th = both_nets()
    g, t = pair(randn(4, 3))
    np.testing.assert_allclose(to_np(gt(g)), to_np(th(t)), rtol=1e-5, atol=1e-6)
    seen_g, seen_t = [], []
    assert gt.apply(lambda mod: seen_g.append(type(mod).__name__)) is gt
    th.apply(lambda mod: seen_t.append(type(mod).__name__))
    assert seen_g == seen_t


# -- registration and its errors ----------------------------------------------------------------------------


def _plain(m):
    class Plain(m.nn.Module):
        pass

    return Plain()


def _early(m):
    class Early(m.nn.Module):
        def __init__(self):
            self.w = m.nn.Parameter(m.ones(1))

    return Early()


def _early_module(m):
    class Early(m.nn.Module):
        def __init__(self):
            self.sub = m.nn.Linear(1, 1)

    return Early()


def _early_buffer(m):
    class Early(m.nn.Module):
        def __init__(self):
            self.register_buffer("b", m.ones(1))

    return Early()


def _with_kwargs(m):
    class Net(m.nn.Module):
        def __init__(self):
            super().__init__(x=1)

    return Net()


def _with_args(m):
    class Net(m.nn.Module):
        def __init__(self):
            super().__init__(1, 2)

    return Net()


def _set(mod, name, value):
    setattr(mod, name, value)


REGISTRATION_ERRORS = {
    "param_assign_tensor": lambda m: _set(m.nn.Linear(2, 2), "weight", m.ones(2, 2)),
    "param_assign_int": lambda m: _set(m.nn.Linear(2, 2), "bias", 3),
    "module_assign_int": lambda m: _set(m.nn.Sequential(m.nn.ReLU()), "0", 3),
    "buffer_assign_int": lambda m: _set(m.nn.BatchNorm1d(2), "running_mean", 3),
    "register_param_dot": lambda m: _plain(m).register_parameter("a.b", None),
    "register_param_empty": lambda m: _plain(m).register_parameter("", None),
    "register_param_not_str": lambda m: _plain(m).register_parameter(3, None),
    "register_param_exists": lambda m: m.nn.Linear(2, 2).register_parameter("forward", None),
    "register_param_tensor": lambda m: _plain(m).register_parameter("w", m.ones(2)),
    "register_param_double_tensor": lambda m: _plain(m).register_parameter("w", m.ones(2, dtype=m.float64)),
    "register_param_nonleaf": lambda m: _plain(m).register_parameter(
        "w", m.nn.Parameter(m.ones(2)) * 2),
    "register_buffer_dot": lambda m: _plain(m).register_buffer("a.b", None),
    "register_buffer_empty": lambda m: _plain(m).register_buffer("", None),
    "register_buffer_exists": lambda m: m.nn.Linear(2, 2).register_buffer("weight", m.ones(1)),
    "register_buffer_int": lambda m: _plain(m).register_buffer("b", 3),
    "register_buffer_not_str": lambda m: _plain(m).register_buffer(1.5, None),
    "add_module_int": lambda m: _plain(m).add_module("x", 3),
    "add_module_dict": lambda m: _plain(m).add_module("x", {}),
    "add_module_dot": lambda m: _plain(m).add_module("x.y", m.nn.ReLU()),
    "add_module_empty": lambda m: _plain(m).add_module("", m.nn.ReLU()),
    "add_module_exists": lambda m: m.nn.Linear(1, 1).add_module("weight", m.nn.ReLU()),
    "add_module_not_str": lambda m: _plain(m).add_module(None, m.nn.ReLU()),
    "param_before_init": _early,
    "module_before_init": _early_module,
    "buffer_before_init": _early_buffer,
    "init_kwargs": _with_kwargs,
    "init_args": _with_args,
    "missing_attr": lambda m: m.nn.Linear(1, 1).nonexistent,
    "forward_missing": lambda m: _plain(m)(m.ones(1)),
    "get_submodule_missing": lambda m: m.nn.Sequential(m.nn.Linear(1, 1)).get_submodule("0.foo"),
    "get_submodule_not_module": lambda m: m.nn.Sequential(m.nn.Linear(1, 1)).get_submodule("0.weight"),
    "get_parameter_missing": lambda m: m.nn.Sequential(m.nn.Linear(1, 1)).get_parameter("0.nothing"),
    "get_parameter_not_param": lambda m: m.nn.Sequential(m.nn.BatchNorm1d(1)).get_parameter("0.running_mean"),
    "get_buffer_not_buffer": lambda m: m.nn.Sequential(m.nn.BatchNorm1d(1)).get_buffer("0.weight"),
    "set_submodule_empty": lambda m: m.nn.Sequential(m.nn.Linear(1, 1)).set_submodule("", m.nn.ReLU()),
    "set_submodule_strict": lambda m: m.nn.Sequential(m.nn.Linear(1, 1)).set_submodule("1", m.nn.ReLU(),
                                                                                       strict=True),
    "to_int_dtype": lambda m: m.nn.Linear(1, 1).to(m.int64),
    "parameter_int": lambda m: m.nn.Parameter(m.tensor([1, 2])),
    "delattr_missing": lambda m: delattr(m.nn.Linear(1, 1), "nothing"),
}


@pytest.mark.parametrize("name", list(REGISTRATION_ERRORS))
def test_registration_errors(name):
    fn = REGISTRATION_ERRORS[name]
    assert_same_error(lambda: fn(glasstorch), lambda: fn(torch))


def test_attribute_routing():
    for m in (glasstorch, torch):
        mod = m.nn.Linear(2, 2)
        mod.extra = m.ones(2)  # a plain tensor is an ordinary attribute
        assert "extra" not in dict(mod.named_buffers()) and "extra" in mod.__dict__
        mod.buf = m.nn.Buffer(m.zeros(2), persistent=False)
        assert type(mod.buf) is m.Tensor and "buf" in mod._buffers and "buf" in mod._non_persistent_buffers_set
        mod.buf = m.ones(2)  # reassigning keeps it a (non-persistent) buffer
        assert "buf" in mod._buffers and "buf" not in mod.state_dict()
        mod.extra = m.nn.Parameter(m.ones(2))  # now a parameter: removed from __dict__
        assert "extra" not in mod.__dict__ and "extra" in mod._parameters
        mod.bias = None
        assert mod.bias is None and "bias" not in mod.state_dict()
        del mod.extra
        mod.extra = m.nn.ReLU()
        assert "extra" in mod._modules and "extra" not in mod._parameters
        del mod.extra, mod.buf
        assert "extra" not in mod._modules and "buf" not in mod._buffers
        seq = m.nn.Sequential(m.nn.ReLU())
        seq[0] = None
        assert seq._modules["0"] is None


def test_buffer_and_parameter_registration_via_buffer_class():
    results = []
    for m in (glasstorch, torch):
        mod = _plain(m)
        mod.b = m.nn.Buffer(m.ones(2))
        mod.p = m.nn.Parameter(m.ones(2))
        mod.b2 = m.nn.Buffer(m.ones(2), persistent=False)
        results.append((list(mod.state_dict()), list(dict(mod.named_buffers())),
                        isinstance(mod.b, m.nn.Buffer), isinstance(mod.b, m.nn.Parameter)))
    assert results[0] == results[1]


# -- state_dict / load_state_dict -----------------------------------------------------------------------------


def _load(m, sd_fn, **kw):
    mod = net(m)
    return mod.load_state_dict(sd_fn(m, net(m).state_dict()), **kw)


def _drop(keys):
    return lambda m, sd: OrderedDict((k, v) for k, v in sd.items() if k not in keys)


def _add(extra):
    def fn(m, sd):
        sd = OrderedDict(sd)
        for k in extra:
            sd[k] = m.zeros(1)
        return sd
    return fn


def _replace(key, value_fn):
    def fn(m, sd):
        sd = OrderedDict(sd)
        sd[key] = value_fn(m)
        return sd
    return fn


LOAD_ERRORS = {
    "missing": (_drop({"a.fc.bias", "alpha"}), {}),
    "unexpected": (_add(["a.fc.extra", "zzz", "head.5.weight"]), {}),
    "missing_and_unexpected": (lambda m, sd: _add(["x"])(m, _drop({"c.count"})(m, sd)), {}),
    "size_mismatch": (_replace("head.0.weight", lambda m: m.zeros(3, 3)), {}),
    "size_mismatch_nonstrict": (_replace("head.0.bias", lambda m: m.zeros(5)), {"strict": False}),
    "not_a_tensor": (_replace("alpha", lambda m: 3.0), {}),
    "not_a_dict": (lambda m, sd: [1, 2], {}),
    "several_errors": (lambda m, sd: _replace("alpha", lambda m: "x")(m, _add(["q"])(m, _replace(
        "head.0.bias", lambda m: m.zeros(7))(m, sd))), {}),
}


@pytest.mark.parametrize("name", list(LOAD_ERRORS))
def test_load_state_dict_errors(name):
    sd_fn, kw = LOAD_ERRORS[name]
    assert_same_error(lambda: _load(glasstorch, sd_fn, **kw), lambda: _load(torch, sd_fn, **kw))


LOAD_RESULTS = {
    "exact": (lambda m, sd: sd, {}),
    "nonstrict": (lambda m, sd: _add(["x", "a.y"])(m, _drop({"alpha"})(m, sd)), {"strict": False}),
    "nonstrict_clean": (lambda m, sd: sd, {"strict": False}),
    "scalar_from_vector": (_replace("alpha", lambda m: m.tensor([0.25])), {}),
}


@pytest.mark.parametrize("name", list(LOAD_RESULTS))
def test_load_state_dict_results(name):
    sd_fn, kw = LOAD_RESULTS[name]
    rg, rt = _load(glasstorch, sd_fn, **kw), _load(torch, sd_fn, **kw)
    assert repr(rg) == repr(rt) and str(rg) == str(rt)
    assert rg.missing_keys == rt.missing_keys and rg.unexpected_keys == rt.unexpected_keys


def test_load_state_dict_copies_in_place_and_casts():
    gt, th = both_nets()
    w = gt.a.fc.weight
    sd = {k: glasstorch.from_numpy(np.asarray(v.double().numpy() + 1)) for k, v in th.state_dict().items()}
    gt.load_state_dict(sd)
    assert gt.a.fc.weight is w and w.dtype == glasstorch.float32 and w.requires_grad
    np.testing.assert_allclose(to_np(w), to_np(th.a.fc.weight) + 1, rtol=1e-6)


def test_load_state_dict_assign():
    for m in (glasstorch, torch):
        mod = m.nn.Linear(2, 2)
        mod.weight.requires_grad_(False)
        new_w, new_b = m.ones(2, 2, dtype=m.float64), m.nn.Parameter(m.zeros(2), requires_grad=False)
        mod.load_state_dict({"weight": new_w, "bias": new_b}, assign=True)
        assert isinstance(mod.weight, m.nn.Parameter) and mod.weight.dtype == m.float64
        assert not mod.weight.requires_grad and mod.bias is new_b and mod.bias.requires_grad
        assert mod.weight.data_ptr() == new_w.data_ptr()


def test_batchnorm_old_checkpoint_gets_num_batches_tracked():
    for m in (glasstorch, torch):
        bn = m.nn.BatchNorm1d(3)
        sd = bn.state_dict()
        del sd["num_batches_tracked"]
        sd._metadata[""]["version"] = 1
        assert repr(bn.load_state_dict(sd)) == "<All keys matched successfully>"
        sd._metadata[""]["version"] = 2
        with pytest.raises(RuntimeError, match='Missing key\\(s\\) in state_dict: "num_batches_tracked"'):
            bn.load_state_dict(sd)


def test_extra_state():
    def make(m):
        class WithState(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = m.nn.Linear(1, 1)
                self.token = "a"

            def get_extra_state(self):
                return {"token": self.token}

            def set_extra_state(self, state):
                self.token = state["token"]

        return m.nn.Sequential(WithState())

    results = []
    for m in (glasstorch, torch):
        src, dst = make(m), make(m)
        src[0].token = "b"
        sd = src.state_dict()
        dst.load_state_dict(sd)
        missing = dst.load_state_dict({k: v for k, v in sd.items() if "extra" not in k}, strict=False)
        results.append((list(sd), sd["0._extra_state"], dst[0].token, missing.missing_keys))
        unexpected = m.nn.Sequential(m.nn.Linear(1, 1)).load_state_dict(
            {"0.weight": m.ones(1, 1), "0.bias": m.ones(1), "0._extra_state": 1}, strict=False)
        results.append(unexpected.unexpected_keys)
    assert results[:2] == results[2:]


# -- state_dict hooks ---------------------------------------------------------------------------------------------


def _hook_log(m):
    log = []
    mod = m.nn.Sequential(m.nn.Linear(2, 2))
    mod[0].register_state_dict_pre_hook(lambda mod_, prefix, keep_vars: log.append(("pre", prefix, keep_vars)))

    def post(mod_, sd, prefix, local_metadata):
        log.append(("post", prefix, sorted(sd), local_metadata))
        sd[prefix + "added"] = m.zeros(1)

    mod[0].register_state_dict_post_hook(post)
    h = mod._register_state_dict_hook(lambda mod_, sd, prefix, md: OrderedDict(k=1))
    out1 = mod.state_dict()
    h.remove()
    out2 = list(mod.state_dict())

    def load_post(mod_, keys):
        log.append(("load_post", list(keys.missing_keys), list(keys.unexpected_keys)))
        keys.unexpected_keys.clear()

    mod[0].register_load_state_dict_pre_hook(
        lambda mod_, sd, prefix, md, strict, missing, unexpected, errors: log.append(("load_pre", prefix, sorted(sd))))
    mod.register_load_state_dict_post_hook(load_post)
    res = mod.load_state_dict(OrderedDict((k, v) for k, v in mod.state_dict().items()))
    return log, dict(out1), out2, repr(res)


def test_state_dict_hooks():
    assert _hook_log(glasstorch) == _hook_log(torch)


def test_state_dict_hook_errors():
    def bad_post(m):
        mod = m.nn.Linear(1, 1)
        mod.register_state_dict_post_hook(lambda *a: {})
        mod.state_dict()

    def bad_load_post(m):
        mod = m.nn.Linear(1, 1)
        mod.register_load_state_dict_post_hook(lambda *a: 1)
        mod.load_state_dict(mod.state_dict())

    def twice(m):
        mod = m.nn.Linear(1, 1)

        def hook(*a):
            return None

        mod.register_state_dict_post_hook(hook)
        mod._register_state_dict_hook(hook)

    for fn in (bad_post, bad_load_post, twice):
        assert_same_error(lambda fn=fn: fn(glasstorch), lambda fn=fn: fn(torch))


# -- conversions ------------------------------------------------------------------------------------------------


CONVERSIONS = {
    "double": lambda mod, m: mod.double(),
    "half": lambda mod, m: mod.half(),
    "bfloat16": lambda mod, m: mod.bfloat16(),
    "float": lambda mod, m: mod.double().float(),
    "to_dtype": lambda mod, m: mod.to(m.float64),
    "to_kw": lambda mod, m: mod.to(device="cpu", dtype=m.float16),
    "to_device_dtype": lambda mod, m: mod.to("cpu", m.float64),
    "to_tensor": lambda mod, m: mod.to(m.zeros(1, dtype=m.float64)),
    "type": lambda mod, m: mod.type(m.float64),
    "cpu": lambda mod, m: mod.cpu(),
}


@pytest.mark.parametrize("name", list(CONVERSIONS))
def test_conversions_keep_identity(name):
    out = []
    for m in (glasstorch, torch):
        mod = m.nn.Sequential(m.nn.Linear(2, 2), m.nn.BatchNorm1d(2))
        mod[0].weight.grad = m.ones(2, 2)
        params = list(mod.parameters())
        assert CONVERSIONS[name](mod, m) is mod
        assert all(a is b for a, b in zip(params, mod.parameters(), strict=True))
        out.append([(k, repr(v.dtype), v.requires_grad) for k, v in mod.state_dict(keep_vars=True).items()]
                   + [repr(mod[0].weight.grad.dtype), type(mod[0].weight).__name__])
    assert out[0] == out[1]


# Module.to's arguments parsed as torch._C._nn._parse_to: the argument parser's TypeErrors, the refused copy
# argument (even False), the floating-point-only dtype check
TO_ERRORS = {
    "copy_kw": lambda m: m.nn.Linear(1, 1).to("cpu", copy=True),
    "copy_kw_false": lambda m: m.nn.Linear(1, 1).to(dtype=m.float64, copy=False),
    "copy_positional": lambda m: m.nn.Linear(1, 1).to("cpu", m.float64, False, True),
    "copy_after_dtype": lambda m: m.nn.Linear(1, 1).to(m.float64, False, False),
    "copy_after_tensor": lambda m: m.nn.Linear(1, 1).to(m.zeros(1), False, True),
    "long": lambda m: m.nn.Linear(1, 1).to(m.long),
    "int_kw": lambda m: m.nn.Linear(1, 1).to(dtype=m.int32),
    "bool_number": lambda m: m.nn.Linear(1, 1).to(True),
    "unknown_kw": lambda m: m.nn.Linear(1, 1).to(foo=1),
    "memory_format_str": lambda m: m.nn.Linear(1, 1).to(memory_format="x"),
    "memory_format_positional": lambda m: m.nn.Linear(1, 1).to("cpu", m.float64, False, m.channels_last),
    "device_then_bool": lambda m: m.nn.Linear(1, 1).to("cpu", True),
    "two_dtypes": lambda m: m.nn.Linear(1, 1).to(m.float64, m.float64),
    "device_twice": lambda m: m.nn.Linear(1, 1).to("cpu", device="cpu"),
    "list": lambda m: m.nn.Linear(1, 1).to([1]),
    "bad_device": lambda m: m.nn.Linear(1, 1).to("cpux"),
}


@pytest.mark.parametrize("name", list(TO_ERRORS))
def test_module_to_errors(name):
    fn = TO_ERRORS[name]
    assert_same_error(lambda: fn(glasstorch), lambda: fn(torch))


TO_CALLS = {
    "float_number": lambda mod, m: mod.to(1.5),  # a number binds as a tensor: its dtype (float64) is the target
    "none": lambda mod, m: mod.to(None, m.float64),
    "non_blocking": lambda mod, m: mod.to(m.float64, True),
    "tensor_kw": lambda mod, m: mod.to(tensor=m.zeros(1, dtype=m.float64)),
    "memory_format": lambda mod, m: mod.to(memory_format=m.channels_last),
    "nothing": lambda mod, m: mod.to(),
}


@pytest.mark.parametrize("name", list(TO_CALLS))
def test_module_to_accepted_forms(name):
    out = []
    for m in (glasstorch, torch):
        mod = m.nn.Sequential(m.nn.Conv2d(2, 2, 1), m.nn.Linear(2, 2))
        assert TO_CALLS[name](mod, m) is mod
        out.append([(k, repr(v.dtype), v.stride()) for k, v in mod.state_dict().items()])
    assert out[0] == out[1]


def test_to_complex_warns_like_torch():
    with warnings.catch_warnings(record=True) as wg:
        warnings.simplefilter("always")
        glasstorch.nn.Linear(1, 1).to(glasstorch.complex64)
    with warnings.catch_warnings(record=True) as wt:
        warnings.simplefilter("always")
        torch.nn.Linear(1, 1).to(torch.complex64)
    assert [str(w.message) for w in wg] == [str(w.message) for w in wt]


def test_requires_grad_and_zero_grad():
    for m in (glasstorch, torch):
        mod = m.nn.Linear(2, 2)
        assert mod.requires_grad_(False) is mod and not any(p.requires_grad for p in mod.parameters())
        mod.requires_grad_()
        mod(m.ones(1, 2)).sum().backward()
        g = mod.weight.grad
        mod.zero_grad(set_to_none=False)
        assert mod.weight.grad is g and float(g.abs().sum()) == 0
        mod.zero_grad()
        assert mod.weight.grad is None and mod.bias.grad is None


# -- call path and hooks -----------------------------------------------------------------------------------------


def _forward_hooks_trace(m):
    log = []

    class Add(m.nn.Module):
        def forward(self, x, y=0):
            log.append(("forward", float(x.sum()), y))
            return x + y

    mod = Add()
    h1 = mod.register_forward_pre_hook(lambda mod_, args: log.append(("pre1", len(args))))
    mod.register_forward_pre_hook(lambda mod_, args: args[0] * 2)  # a non-tuple result is wrapped
    mod.register_forward_pre_hook(lambda mod_, args, kwargs: (args, {"y": kwargs.get("y", 0) + 1}),
                                  with_kwargs=True)
    mod.register_forward_pre_hook(lambda mod_, args: log.append(("pre-first",)), prepend=True)
    mod.register_forward_hook(lambda mod_, args, out: out * 10)
    mod.register_forward_hook(lambda mod_, args, kwargs, out: log.append(("post-kw", sorted(kwargs))),
                              with_kwargs=True)
    mod.register_forward_hook(lambda mod_, args, out: log.append(("post-first", float(out.sum()))), prepend=True)
    r1 = float(mod(m.ones(2), y=1).sum())
    h1.remove()
    r2 = float(mod(m.ones(2)).sum())
    return log, r1, r2


def test_forward_hooks():
    assert _forward_hooks_trace(glasstorch) == _forward_hooks_trace(torch)


def _always_call_trace(m):
    log = []

    class Boom(m.nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    mod = Boom()
    mod.register_forward_hook(lambda mod_, args, out: log.append(("always", out)), always_call=True)
    mod.register_forward_hook(lambda mod_, args, out: log.append(("normal",)))
    handle = mod.register_forward_hook(lambda mod_, args, kw, out: log.append(("kw", kw)), always_call=True,
                                       with_kwargs=True)
    with pytest.raises(ValueError, match="boom"):
        mod(m.ones(1))
    handle.remove()
    assert not mod._forward_hooks_always_called.get(handle.id)
    return log, len(mod._forward_hooks_always_called), len(mod._forward_hooks_with_kwargs)


def test_forward_hook_always_call():
    assert _always_call_trace(glasstorch) == _always_call_trace(torch)


def test_forward_pre_hook_bad_return():
    def fn(m):
        mod = m.nn.ReLU()
        mod.register_forward_pre_hook(lambda mod_, args, kwargs: 5, with_kwargs=True)
        mod(m.ones(1))

    assert_same_error(lambda: fn(glasstorch), lambda: fn(torch))


def test_global_hooks():
    out = []
    for m in (glasstorch, torch):
        log = []
        h1 = m.nn.modules.module.register_module_forward_pre_hook(
            lambda mod, args, log=log: log.append(type(mod).__name__))
        h2 = m.nn.modules.module.register_module_forward_hook(lambda mod, args, res: res + 1)
        try:
            res = m.nn.Sequential(m.nn.ReLU(), m.nn.Tanh())(m.zeros(1))
        finally:
            h1.remove()
            h2.remove()
        out.append((log, float(res)))
        assert float(m.nn.ReLU()(m.zeros(1))) == 0  # removed
    assert out[0] == out[1]


def _backward_hooks_trace(m, x_np, y_np):
    log = []

    class Mul(m.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = m.nn.Parameter(m.full((3,), 2.0))

        def forward(self, x, y, k, scale=1):
            return x * y * self.w * scale, (x + y).sum()

    mod = Mul()

    def pre(mod_, grad_out):
        log.append(("pre", [None if g is None else g.tolist() for g in grad_out]))
        return (grad_out[0] * 3, grad_out[1])

    def full(mod_, grad_in, grad_out):
        log.append(("full", [None if g is None else g.tolist() for g in grad_in],
                    [None if g is None else g.tolist() for g in grad_out]))
        return (grad_in[0] + 1, grad_in[1], grad_in[2])

    mod.register_full_backward_pre_hook(pre)
    mod.register_full_backward_hook(full)
    mod.register_full_backward_hook(lambda mod_, gi, go: log.append(("first",)), prepend=True)
    x = m.tensor(x_np, requires_grad=True)
    y = m.tensor(y_np)
    a, b = mod(x, y, 7, scale=0.5)
    (a.sum() + b).backward()
    return log, x.grad.tolist(), mod.w.grad.tolist()


def test_full_backward_hooks():
    x, y = [1.0, 2.0, 3.0], [0.5, -1.0, 2.0]
    assert _backward_hooks_trace(glasstorch, x, y) == _backward_hooks_trace(torch, x, y)


def test_full_backward_hook_without_input_grad_warns_like_torch():
    def run(m):
        log = []
        mod = m.nn.Linear(2, 2)
        mod.register_full_backward_hook(lambda mod_, gi, go: log.append((gi, go[0].shape)))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            mod(m.ones(1, 2)).sum().backward()
        return [str(x.message) for x in w], [(gi, tuple(s)) for gi, s in log]

    assert run(glasstorch) == run(torch)


def test_backward_hook_errors():
    def mixed(m):
        mod = m.nn.Linear(1, 1)
        mod.register_backward_hook(lambda *a: None)
        mod.register_full_backward_hook(lambda *a: None)

    def mixed_other(m):
        mod = m.nn.Linear(1, 1)
        mod.register_full_backward_hook(lambda *a: None)
        mod.register_backward_hook(lambda *a: None)

    def wrong_count(m):
        mod = m.nn.Linear(1, 1)
        mod.register_full_backward_hook(lambda mod_, gi, go: (None, None))
        mod(m.ones(1, 1, requires_grad=True)).sum().backward()

    def wrong_pre_count(m):
        mod = m.nn.Linear(1, 1)
        mod.register_full_backward_pre_hook(lambda mod_, go: (None, None))
        mod(m.ones(1, 1, requires_grad=True)).sum().backward()

    for fn in (mixed, mixed_other, wrong_count, wrong_pre_count):
        assert_same_error(lambda fn=fn: fn(glasstorch), lambda fn=fn: fn(torch))


def test_legacy_backward_hook():
    def run(m):
        log = []
        mod = m.nn.Linear(2, 2)
        mod.register_backward_hook(lambda mod_, gi, go: log.append((len(gi), [tuple(g.shape) for g in go])))
        x = m.ones(3, 2, requires_grad=True)
        mod(x).sum().backward()
        return log

    assert run(glasstorch) == run(torch)


# -- repr -------------------------------------------------------------------------------------------------------


def test_repr_nested_with_multiline_extra_repr():
    def make(m):
        class Custom(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = m.nn.Sequential(m.nn.Linear(2, 3), m.nn.ModuleList([m.nn.ReLU(), m.nn.ReLU()]))

            def extra_repr(self):
                return "line one\nline two"

        class Single(m.nn.Module):
            def extra_repr(self):
                return "k=1"

        return m.nn.ModuleDict({"c": Custom(), "s": Single(), "none": None})

    assert repr(make(glasstorch)) == repr(make(torch))


# -- copying and pickling -------------------------------------------------------------------------------------


def test_deepcopy_module():
    gt, _ = both_nets()
    gt.register_forward_hook(lambda mod, args, out: out)
    gt.eval()
    cp = copy.deepcopy(gt)
    assert cp.training is False and len(cp._forward_hooks) == 1
    assert cp.a is cp.b and cp.c.fc.weight is cp.a.fc.weight  # sharing kept inside the copy
    assert cp.a.fc.weight is not gt.a.fc.weight and isinstance(cp.a.fc.weight, glasstorch.nn.Parameter)
    assert cp.a.fc.weight.data_ptr() != gt.a.fc.weight.data_ptr()
    for (k, v), (_, w) in zip(gt.state_dict().items(), cp.state_dict().items(), strict=True):
        np.testing.assert_array_equal(to_np(v), to_np(w), err_msg=k)
    x = glasstorch.ones(2, 3)
    np.testing.assert_array_equal(to_np(cp(x)), to_np(gt(x)))


def test_parameter_basics():
    for m in (glasstorch, torch):
        data = m.ones(2, 3)
        p = m.nn.Parameter(data)
        assert isinstance(p, m.Tensor) and isinstance(p, m.nn.Parameter) and p.requires_grad and p.is_leaf
        assert p.data_ptr() == data.data_ptr() and p is not data and p._base is None
        data.add_(1)
        assert p._version == data._version == 1
        assert type(p.data) is m.Tensor and type(p.detach()) is m.Tensor and type(p + 1) is m.Tensor
        with m.no_grad():
            assert p.mul_(2) is p
        assert not m.nn.Parameter(data, requires_grad=False).requires_grad
        assert m.nn.Parameter().shape == (0,)
        q = m.nn.Parameter(p)
        assert type(q) is m.nn.Parameter and q is not p
    reprs = [repr(m.nn.Parameter(m.arange(3.0))) for m in (glasstorch, torch)]
    assert reprs[0] == reprs[1]
    strs = [str(m.nn.Parameter(m.arange(3.0), requires_grad=False)) for m in (glasstorch, torch)]
    assert strs[0] == strs[1]


def test_parameter_deepcopy_and_pickle():
    p = glasstorch.nn.Parameter(glasstorch.arange(4.0), requires_grad=False)
    for q in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(q) is glasstorch.nn.Parameter and q.requires_grad is False and q.data_ptr() != p.data_ptr()
        assert q.tolist() == p.tolist()
    p2 = glasstorch.nn.Parameter(glasstorch.ones(2))
    assert pickle.loads(pickle.dumps(p2)).requires_grad
    memo = {}
    assert copy.deepcopy(p2, memo) is copy.deepcopy(p2, memo)


def test_parameters_vector_roundtrip():
    for m in (glasstorch, torch):
        mod = m.nn.Linear(3, 2)
        vec = m.nn.utils.parameters_to_vector(mod.parameters())
        assert tuple(vec.shape) == (8,)
        new = m.arange(8.0)
        m.nn.utils.vector_to_parameters(new, mod.parameters())
        assert mod.weight.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and mod.bias.tolist() == [6.0, 7.0]
        new[0] = 100.0  # the parameters now view the vector
        assert mod.weight[0, 0].item() == 100.0
    assert_same_error(lambda: glasstorch.nn.utils.vector_to_parameters([1.0], []),
                      lambda: torch.nn.utils.vector_to_parameters([1.0], []))


# -- containers -------------------------------------------------------------------------------------------------


def _names(seq):
    return [(k, type(v).__name__) for k, v in seq._modules.items()]


def _sequential_ops(m):
    s = m.nn.Sequential(m.nn.Linear(2, 2), m.nn.ReLU(), m.nn.Tanh(), m.nn.Sigmoid())
    out = [type(s[1]).__name__, type(s[-1]).__name__, type(s[1:3]).__name__, _names(s[::2]), len(s)]
    s.append(m.nn.GELU())
    s.insert(1, m.nn.SiLU())
    s.insert(-1, m.nn.ELU())
    out.append(_names(s))
    del s[2]
    out.append(_names(s))
    del s[1:3]
    out.append(_names(s))
    out.append(type(s.pop(0)).__name__)
    s.extend([m.nn.ReLU6()])
    s[0] = m.nn.Identity()
    out.append(_names(s))
    out.append(_names(s + m.nn.Sequential(m.nn.ReLU())))
    out.append(_names(s * 2))
    out.append(_names(2 * m.nn.Sequential(m.nn.ReLU())))
    s *= 2
    s += m.nn.Sequential(m.nn.Tanh())
    out.append(_names(s))
    od = m.nn.Sequential(OrderedDict([("first", m.nn.ReLU()), ("second", m.nn.Tanh())]))
    out.append((_names(od), list(od.state_dict()), [k for k in dir(od) if k in ("first", "second", "0")]))
    out.append([type(x).__name__ for x in m.nn.Sequential(m.nn.ReLU(), m.nn.Tanh())])
    return out


def test_sequential_operations():
    assert _sequential_ops(glasstorch) == _sequential_ops(torch)


SEQ_ERRORS = {
    "index": lambda m: m.nn.Sequential(m.nn.ReLU())[3],
    "index_neg": lambda m: m.nn.Sequential(m.nn.ReLU())[-2],
    "add": lambda m: m.nn.Sequential() + m.nn.ReLU(),
    "iadd": lambda m: m.nn.Sequential().__iadd__(3),
    "mul_type": lambda m: m.nn.Sequential() * 2.0,
    "mul_neg": lambda m: m.nn.Sequential() * 0,
    "insert_type": lambda m: m.nn.Sequential().insert(0, 3),
    "insert_range": lambda m: m.nn.Sequential().insert(2, m.nn.ReLU()),
    "modulelist_index": lambda m: m.nn.ModuleList([m.nn.ReLU()])[1],
    "modulelist_extend": lambda m: m.nn.ModuleList().extend(3),
    "moduledict_update": lambda m: m.nn.ModuleDict().update(3),
    "moduledict_update_elem": lambda m: m.nn.ModuleDict().update([3]),
    "moduledict_update_len": lambda m: m.nn.ModuleDict().update([("a", m.nn.ReLU(), 1)]),
    "moduledict_key": lambda m: m.nn.ModuleDict()["missing"],
    "parameterlist_call": lambda m: m.nn.ParameterList()(1),
    "parameterlist_extend": lambda m: m.nn.ParameterList().extend(m.ones(2)),
    "parameterdict_key": lambda m: m.nn.ParameterDict()[1],
    "parameterdict_call": lambda m: m.nn.ParameterDict()(1),
    "parameterdict_update": lambda m: m.nn.ParameterDict().update(1),
}


def _error_text(fn):
    with pytest.raises(Exception) as info:
        fn()
    # class reprs name the defining package: glasstorch's classes live in glasstorch.nn.modules...
    return type(info.value).__name__, str(info.value).replace("<class 'glasstorch.", "<class 'torch.")


@pytest.mark.parametrize("name", list(SEQ_ERRORS))
def test_container_errors(name):
    fn = SEQ_ERRORS[name]
    assert _error_text(lambda: fn(glasstorch)) == _error_text(lambda: fn(torch))


def _list_dict_ops(m):
    ml = m.nn.ModuleList([m.nn.ReLU(), m.nn.Tanh()])
    ml.append(m.nn.Linear(1, 1)).extend([m.nn.GELU()])
    ml.insert(1, m.nn.SiLU())
    out = [_names(ml), type(ml[-1]).__name__, _names(ml[1:3]), len(ml)]
    del ml[0]
    ml[0] = m.nn.ELU()
    out += [_names(ml), type(ml.pop(1)).__name__, _names(ml + m.nn.ModuleList([m.nn.ReLU()])), list(ml.state_dict())]
    md = m.nn.ModuleDict({"b": m.nn.ReLU(), "a": m.nn.Linear(1, 1)})
    md.update([("c", m.nn.Tanh())])
    md["d"] = m.nn.GELU()
    out += [list(md), list(md.keys()), "a" in md, type(md.pop("b")).__name__, len(md), list(md.state_dict())]
    md.clear()
    out.append(len(md))
    pl = m.nn.ParameterList([m.ones(2), m.nn.Parameter(m.zeros(1)), "text"])
    pl.append(m.ones(1))
    out += [[type(p).__name__ for p in pl], len(pl), list(pl.state_dict()), [type(p).__name__ for p in pl[1:]],
            [n for n, _ in pl.named_parameters()]]
    pd = m.nn.ParameterDict({"z": m.ones(1), "a": m.nn.Parameter(m.ones(2)), "n": None})
    pd.update(OrderedDict([("y", m.zeros(3)), ("b", m.zeros(1))]))
    pd.setdefault("q", m.ones(4))
    out += [list(pd), list(pd.keys()), [type(v).__name__ for v in pd.values()], list(pd.state_dict()),
            list(reversed(pd)), pd.get("missing", 5), "a" in pd, pd.popitem()[0], type(pd.pop("z")).__name__]
    out += [list(pd | m.nn.ParameterDict({"w": m.ones(1)})), list(pd.fromkeys(["u", "v"])), list(pd.copy())]
    pd.clear()
    out.append(len(pd))
    return out


def test_list_and_dict_containers():
    assert _list_dict_ops(glasstorch) == _list_dict_ops(torch)


def test_module_pickle_roundtrip():
    for m in (glasstorch, torch):
        mod = m.nn.Sequential(m.nn.Linear(3, 2), m.nn.BatchNorm1d(2))
        mod[1].eval()
        back = pickle.loads(pickle.dumps(mod))
        assert type(back[0].weight) is m.nn.Parameter and back[0].weight.requires_grad and not back[1].training
        assert [k for k in back.state_dict()] == [k for k in mod.state_dict()]
        for (k, v), (_, w) in zip(mod.state_dict().items(), back.state_dict().items(), strict=True):
            assert v.tolist() == w.tolist(), k


def _registration_hooks_trace(m):
    log = []
    mm = m.nn.modules.module
    handles = [
        mm.register_module_parameter_registration_hook(
            lambda mod, name, p, log=log: log.append(("param", type(mod).__name__, name))),
        mm.register_module_buffer_registration_hook(
            lambda mod, name, b, log=log: log.append(("buffer", name)) or (None if b is None else b * 0 + 7)),
        mm.register_module_module_registration_hook(lambda mod, name, sub, log=log: log.append(("module", name))),
        mm.register_module_full_backward_hook(lambda mod, gi, go, log=log: log.append(("bw", type(mod).__name__))),
    ]
    try:
        seq = m.nn.Sequential(m.nn.Linear(2, 2), m.nn.BatchNorm1d(2))
        seq(m.ones(3, 2, requires_grad=True)).sum().backward()
    finally:
        for h in handles:
            h.remove()
    return log, seq[1].running_var.tolist()


def test_global_registration_and_backward_hooks():
    assert _registration_hooks_trace(glasstorch) == _registration_hooks_trace(torch)


def _replicas(m):
    """DataParallel's manual replication (as test_nn does on CPU): replica params are views of the originals."""
    plist = m.nn.ParameterList([m.nn.Parameter(m.ones(2, 2)), m.nn.Parameter(m.zeros(2))])
    pdict = m.nn.ParameterDict({"foo": m.nn.Parameter(m.ones(3)), "bar": m.nn.Parameter(m.zeros(1))})
    seq = m.nn.Sequential(m.nn.Linear(2, 2))
    out = []
    for mod in (plist, pdict, seq):
        rep = mod._replicate_for_data_parallel()
        assert type(rep) is type(mod) and rep._is_replica and not hasattr(mod, "_is_replica")
        assert rep._modules is not mod._modules and rep._buffers is not mod._buffers
        out.append((len(rep._parameters), list(rep._modules), list(mod._parameters)))
        for n, p in mod.named_parameters(recurse=False):
            setattr(rep, n, p.view_as(p))
        for n, p in mod.named_parameters(recurse=False):
            assert getattr(rep, n)._base is p and getattr(rep, n).grad_fn is not None
    return out


def test_replicate_for_data_parallel():
    g, t = _replicas(glasstorch), _replicas(torch)
    assert g == t


def test_share_memory_goes_through_share_memory_():
    # Module.share_memory applies Tensor.share_memory_ to every parameter and buffer and returns the module
    seen = []

    def run(m):
        class Rec(m.nn.Module):
            def __init__(self):
                super().__init__()
                self.p = m.nn.Parameter(m.eye(2))
                self.register_buffer("b", m.zeros(1))

            def _apply(self, fn, recurse=True):
                seen.append(fn.__code__.co_names)
                return self

        r = Rec()
        return r.share_memory() is r

    assert run(glasstorch) and run(torch)
    assert "share_memory_" in seen[0] and "share_memory_" in seen[1]


@pytest.mark.parametrize("args,kwargs", [((), {"memory_format": "m.contiguous_format"}), (("cpu", "m.float64"), {}),
                                         (("m.float16", True), {}), (("cpu",), {"copy": False}),
                                         ((), {"device": "cpu", "copy": True}), ((1.5,), {})])
def test_c_nn_parse_to(args, kwargs):
    # torch._C._nn._parse_to is Module.to's parser: (device, dtype, non_blocking, memory_format) or torch's error
    def call(m):
        def arg(a):  # "m.NAME": that attribute of the library under test
            return getattr(m, a[2:]) if isinstance(a, str) and a.startswith("m.") else a
        conv = [arg(a) for a in args]
        kw = {k: arg(v) for k, v in kwargs.items()}
        return m._C._nn._parse_to(*conv, **kw)
    try:
        expected = call(torch)
    except Exception:
        assert_same_error(lambda: call(glasstorch), lambda: call(torch))
        return
    assert repr(call(glasstorch)) == repr(expected)
