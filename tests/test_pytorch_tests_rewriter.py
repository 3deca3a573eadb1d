"""tools/pytorch_tests: the rewriter maps the import forms PyTorch's test files use and leaves the harness alone.

No upstream test file is needed: the source below holds the forms those files use (module-level and inside a
function, aliased, multi-line, from-imports of glasstorch modules, of the harness and of adapted harness names).
"""

from __future__ import annotations

import ast
import textwrap

import pytest
import torch
from torch.testing._internal import common_utils

import glasstorch
from tools.pytorch_tests import mapping, runtime
from tools.pytorch_tests.adapters.convert import to_glass, to_torch
from tools.pytorch_tests.rewriter import rewrite_source
from tools.pytorch_tests.runtime import GlassMissing, GlassModule, Missing

SOURCE = textwrap.dedent("""\
    # Owner(s): ["module: tests"]
    import torch
    import torch.nn.functional as F
    import unittest, torch.nn as nn
    from torch import inf
    from torch.autograd import (Function,
                                gradcheck as autograd_gradcheck)
    from torch.testing._internal.common_utils import TestCase, run_tests, parametrize
    from torch.testing._internal.common_utils import gradcheck, skipIfTorchDynamo
    from torch.testing._internal.common_device_type import instantiate_device_type_tests, dtypes
    from torch.testing._internal.common_dtype import all_types_and
    from torch.testing import make_tensor

    def helper():
        import torch.utils.data
        from torch.nn import Linear
        return torch, Linear
    """)


def test_harness_imports_are_left_alone_and_lines_kept():
    out = rewrite_source(SOURCE)
    src_lines, out_lines = SOURCE.splitlines(), out.splitlines()
    assert len(out_lines) == len(src_lines)  # a traceback's line number is the upstream file's
    ast.parse(out)
    for line in ("from torch.testing._internal.common_utils import TestCase, run_tests, parametrize",
                 "from torch.testing._internal.common_device_type import instantiate_device_type_tests, dtypes",
                 "# Owner(s): [\"module: tests\"]"):
        assert line in out_lines
    # every other torch import was rewritten in place, at its indentation
    for i, (a, b) in enumerate(zip(src_lines, out_lines, strict=True)):
        if a.strip().startswith(("import torch", "from torch")) and a not in out_lines:
            assert "tools.pytorch_tests.runtime" in b, (i, b)
            assert len(b) - len(b.lstrip()) == len(a) - len(a.lstrip())
    assert "import unittest" in out_lines[3]


def test_rewritten_imports_bind_glasstorch_adapters_and_harness():
    env: dict = {}
    exec(compile(rewrite_source(SOURCE), "<variant>", "exec"), env)
    assert isinstance(env["torch"], GlassModule) and env["torch"].Tensor is glasstorch.Tensor
    assert env["F"].relu is glasstorch.nn.functional.relu
    assert env["nn"].Linear is glasstorch.nn.Linear
    assert env["Function"] is glasstorch.autograd.Function
    assert env["autograd_gradcheck"] is glasstorch.autograd.gradcheck
    assert env["inf"] == float("inf")
    assert env["TestCase"] is common_utils.TestCase  # torch's harness
    assert env["gradcheck"] is not common_utils.gradcheck  # adapted: glasstorch's gradcheck, harness defaults
    assert env["gradcheck"].__code__ is common_utils.gradcheck.__code__
    assert all(isinstance(d, glasstorch.dtype) for d in env["all_types_and"](env["torch"].half))
    t = env["make_tensor"](2, 3, dtype=glasstorch.float32, device="cpu", noncontiguous=True)
    assert isinstance(t, glasstorch.Tensor) and tuple(t.shape) == (2, 3) and not t.is_contiguous()
    glass_root, linear = env["helper"]()
    assert linear is glasstorch.nn.Linear and glass_root.utils.data is not None


def test_mapping_destinations():
    assert mapping.destination("torch") == mapping.GLASS
    assert mapping.destination("torch.nn.functional") == mapping.GLASS
    assert mapping.destination("torch.testing._internal.common_utils") == mapping.HARNESS
    assert mapping.destination("torch.testing._internal.common_dtype").startswith("tools.pytorch_tests.adapters")
    assert not mapping.needs_rewrite("torch.testing._internal.common_utils", ["TestCase"])
    assert mapping.needs_rewrite("torch.testing._internal.common_utils", ["TestCase", "gradcheck"])
    assert not mapping.needs_rewrite("numpy")


def test_a_name_glasstorch_lacks_fails_only_where_used(monkeypatch):
    lacking = [n for n in ("float8_e5m2", "uint64", "onnx", "jit", "distributions") if not hasattr(glasstorch, n)]
    if not lacking:
        pytest.skip("glasstorch has every candidate name")
    env: dict = {}
    exec(compile(rewrite_source("import torch\n"), "<variant>", "exec"), env)
    placeholder = getattr(env["torch"], lacking[0])  # defining a test with it does not stop the file
    assert isinstance(placeholder, Missing) and str(placeholder) == f"torch.{lacking[0]}"
    assert hasattr(torch, lacking[0])
    monkeypatch.setattr(runtime, "_lenient", True)  # collection: a class body's use yields a falsy placeholder
    assert not placeholder.sub.is_available()
    monkeypatch.setattr(runtime, "_lenient", False)  # the tests run: any use raises
    with pytest.raises(GlassMissing, match=f"glasstorch lacks torch.{lacking[0]}"):
        placeholder()
    with pytest.raises(AttributeError):
        env["torch"].no_such_name_in_torch_either  # noqa: B018


@pytest.mark.parametrize("name", ["bfloat16", "float16", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                                  "float8_e5m2fnuz"])
def test_adapter_converts_numpyless_dtypes_both_ways(name):
    """The harness boundary carries dtypes numpy lacks by an exact widening: the bytes come back as they went."""
    t = torch.randn(4, 3).to(getattr(torch, name))[:, ::2]
    g = to_glass(t)
    assert (str(g.dtype), g.shape, g.stride()) == (str(t.dtype), t.shape, t.stride())
    back = to_torch(g)
    assert torch.equal(back.contiguous().view(torch.uint8), t.contiguous().view(torch.uint8))
