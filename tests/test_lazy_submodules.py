"""The compile stack's modules are attributes of the package right after ``import glasstorch``, loaded on first
use, as torch's ``_dynamo``/``_inductor``/``_functorch`` are (a fresh interpreter: this process imported them)."""

import subprocess
import sys

import pytest

CODE = """
import sys
import glasstorch
assert "glasstorch.{name}" not in sys.modules, "loaded eagerly"
mod = glasstorch.{name}
assert mod is sys.modules["glasstorch.{name}"]
print(mod.__name__)
"""


@pytest.mark.parametrize("name", ["_inductor", "_dynamo", "_functorch", "fx", "_logging"])
def test_lazy_submodule(name):
    run = subprocess.run([sys.executable, "-c", CODE.format(name=name)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == f"glasstorch.{name}"


def test_inductor_list_options_after_plain_import():
    code = "import glasstorch; opts = glasstorch._inductor.list_options(); assert 'max_inline_cost' in opts, opts"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr


def test_unknown_attribute_still_raises():
    import glasstorch

    with pytest.raises(AttributeError, match="module 'glasstorch' has no attribute 'not_a_module'"):
        glasstorch.not_a_module  # noqa: B018
