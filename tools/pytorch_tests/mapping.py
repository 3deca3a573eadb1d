"""Where each ``torch.*`` import of an upstream test file goes in its glasstorch variant.

One table decides it, for the rewriter (which import statements it touches) and for the runtime (which module a
rewritten statement loads). A module name is matched against ``RULES`` by its longest prefix; the rule gives one
of three destinations:

* ``GLASS`` -- the library under test: ``torch.nn.functional`` becomes ``glasstorch.nn.functional``.
* ``GLASS_HARNESS`` -- a harness module whose tests are data written against ``torch`` (``common_nn``), imported
  as a rewritten copy so that those tests exercise glasstorch.
* ``HARNESS`` -- torch's own test harness from the installed wheel (``TestCase``, ``instantiate_device_type_tests``,
  ``parametrize``, the ``dtypes`` decorators). The rewriter leaves such an import as it is, unless
  ``NAME_OVERRIDES`` sends some of its names to an adapter.
* an adapter module of ``tools.pytorch_tests.adapters``: the harness where it meets glasstorch objects (dtype lists
  built from torch dtypes, tensors built by real torch), translated at the boundary and nothing more.
"""

from __future__ import annotations

import importlib.util

GLASS = "glass"
HARNESS = "harness"
GLASS_HARNESS = "glass-harness"  # a harness module rewritten like a test file (adapters/harness.py)
_ADAPTERS = "tools.pytorch_tests.adapters"

def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def two_tensor_target() -> str:
    """glasstorch's TwoTensor when the module exists, else torch's (whose tests then fail and count)."""
    return "glasstorch.testing._internal.two_tensor" if _module_exists("glasstorch.testing._internal.two_tensor") \
        else HARNESS


# (module prefix, destination). Longest prefix wins.
RULES: dict[str, str] = {
    "torch": GLASS,
    # torch's test harness stays torch's.
    "torch.testing._internal": HARNESS,
    # Its tests are data (module_tests, NewModuleTest): imported as is they would test torch.
    "torch.testing._internal.common_nn": GLASS_HARNESS,
    # Dtype lists (all_types_and, floating_types, ...) are built from torch dtypes; the adapter maps them.
    "torch.testing._internal.common_dtype": f"{_ADAPTERS}.common_dtype",
    "torch.testing._internal.two_tensor": "two_tensor",  # see two_tensor_target()
    # torch.testing's public helpers: make_tensor builds with real torch and converts; assert_close compares
    # after conversion. glasstorch.testing is issue 22's; these are the harness's comparison tools.
    "torch.testing": f"{_ADAPTERS}.testing",
    # get_file_path_2 finds the test data next to the transcribed files instead of under glasstorch's package.
    "torch._utils_internal": f"{_ADAPTERS}.utils_internal",
    # A pure utility (imports dill if installed); no tensor passes through it.
    "torch.utils._import_utils": HARNESS,
}

# Names of a harness module that reach glasstorch objects and so come from an adapter instead.
NAME_OVERRIDES: dict[str, dict[str, str]] = {
    "torch.testing._internal.common_utils": {
        # common_utils wraps torch.autograd.gradcheck with its defaults; the adapter wraps glasstorch's the same way.
        "gradcheck": f"{_ADAPTERS}.common_utils",
        "gradgradcheck": f"{_ADAPTERS}.common_utils",
        "make_tensor": f"{_ADAPTERS}.testing",
        "set_default_dtype": f"{_ADAPTERS}.common_utils",
        "set_warn_always_context": f"{_ADAPTERS}.common_utils",
        "freeze_rng_state": f"{_ADAPTERS}.common_utils",
        "_assertGradAndGradgradChecks": f"{_ADAPTERS}.common_utils",
        "dtype2prec_DONTUSE": f"{_ADAPTERS}.common_utils",
        "numpy_to_torch_dtype_dict": f"{_ADAPTERS}.common_utils",
        "torch_to_numpy_dtype_dict": f"{_ADAPTERS}.common_utils",
    },
    "torch.testing._internal.common_methods_invocations": {
        "mask_not_all_zeros": f"{_ADAPTERS}.common_methods_invocations",
    },
}


# Harness names an older upstream file imports that torch 2.13's harness has renamed: both runs (the baseline too)
# get the successor, so that the file imports at all. (module, name) -> name in the same module.
COMPAT: dict[tuple[str, str], str] = {
    ("torch.testing._internal.common_device_type", "onlyOnCPUAndCUDA"): "onlyNativeDeviceTypes",
}


def needs_compat(module: str, names: list[str]) -> bool:
    return any((module, n) in COMPAT for n in names)


def is_torch_module(name: str) -> bool:
    return name == "torch" or name.startswith("torch.")


def destination(module: str) -> str:
    """The destination of ``module`` (a ``torch`` module name): GLASS, HARNESS or an adapter module."""
    best = ""
    for prefix in RULES:
        if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > len(best):
            best = prefix
    dest = RULES[best]
    return two_tensor_target() if dest == "two_tensor" else dest


def glass_name(module: str) -> str:
    """``torch.nn.functional`` -> ``glasstorch.nn.functional``."""
    return "glasstorch" + module[len("torch"):]


def needs_rewrite(module: str, names: list[str] | None = None) -> bool:
    """Whether an import of ``module`` (of ``names``, for a from-import) must be rewritten."""
    if not is_torch_module(module):
        return False
    if destination(module) != HARNESS:
        return True
    overrides = NAME_OVERRIDES.get(module, {})
    return bool(names) and (any(n in overrides for n in names) or needs_compat(module, names))
