"""What a rewritten test file's imports call: modules and names resolved through ``mapping``.

A module or name glasstorch lacks does not stop the file from importing: it becomes a ``Missing`` placeholder
that raises ``GlassMissing("glasstorch lacks torch.x.y")`` when a test touches it, so only those tests fail, with
a message triage can read.
"""

from __future__ import annotations

import importlib
import types

from tools.pytorch_tests import mapping
from tools.pytorch_tests.adapters import harness


class GlassMissing(Exception):
    """A test used a torch module or name that glasstorch does not have."""


# While pytest imports the test file (collection), a use of a missing name in a class body or decorator
# (``@skipIf(not torch.profiler.itt.is_available(), ...)``) yields another placeholder, falsy, instead of
# stopping the whole file; once the tests run (the plugin calls ``strict()``), any use raises.
_lenient = True


def strict() -> None:
    global _lenient
    _lenient = False


class Missing:
    """Stands for ``torch.<name>`` where glasstorch has nothing; any use raises ``GlassMissing`` (during
    collection: yields another placeholder, see ``strict``)."""

    def __init__(self, name: str):
        object.__setattr__(self, "_name", name)
        # Harness code names generated tests after it (``'test_' + constructor.__name__``), as torch's run does.
        object.__setattr__(self, "__name__", name.rsplit(".", 1)[-1])
        object.__setattr__(self, "__qualname__", name.rsplit(".", 1)[-1])

    def _fail(self, *args, **kwargs):
        raise GlassMissing(f"glasstorch lacks {self._name}")

    def __call__(self, *args, **kwargs):
        if _lenient:
            return Missing(f"{self._name}()")
        self._fail()

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            raise AttributeError(attr)
        if _lenient:
            return Missing(f"{self._name}.{attr}")
        self._fail()

    def __setattr__(self, attr, value):
        self._fail()

    def __repr__(self):
        return f"<missing {self._name}>"

    def __str__(self):
        return self._name  # "torch.float8_e5m2": the harness names parametrized tests from it

    def __hash__(self):
        return hash(self._name)

    def __eq__(self, other):
        return isinstance(other, Missing) and other._name == self._name

    __iter__ = __getitem__ = __enter__ = _fail

    def __mro_entries__(self, bases):
        """``class X(nn.Missing):`` at module level: the class is defined; making one raises ``GlassMissing``."""
        name = self._name

        class MissingBase:
            def __init__(self, *args, **kwargs):
                raise GlassMissing(f"glasstorch lacks {name}")

        MissingBase.__name__ = MissingBase.__qualname__ = self.__name__
        return (MissingBase,)

    def __bool__(self):
        if _lenient:
            return False
        self._fail()


def _torch_has(dotted: str) -> bool:
    """Whether real torch has ``dotted`` (``torch.float8_e5m2``, ``torch.nn.LSTM``)."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for part in parts[i:]:
            if not hasattr(obj, part):
                return False
            obj = getattr(obj, part)
        return True
    return False


class GlassModule(types.ModuleType):
    """A glasstorch module as a test file sees it: the module itself for every name it has, and a ``Missing``
    for a name torch has and glasstorch lacks (so ``@parametrize("dtype", (torch.float8_e5m2,))`` in a class
    body defines the test, which then fails, instead of stopping the whole file). Assignments go to glasstorch's
    module (``torch.save = wrapper`` patches glasstorch.save, as the file means)."""

    def __init__(self, module: types.ModuleType, torch_name: str):
        super().__init__(module.__name__, module.__doc__)
        object.__setattr__(self, "_glass", module)
        object.__setattr__(self, "_torch_name", torch_name)

    def __getattr__(self, name):
        try:
            value = getattr(self._glass, name)
        except AttributeError:
            if not name.startswith("__") and _torch_has(f"{self._torch_name}.{name}"):
                return Missing(f"{self._torch_name}.{name}")
            raise
        return _wrap(value, f"{self._torch_name}.{name}")

    def __setattr__(self, name, value):
        setattr(self._glass, name, value)

    def __delattr__(self, name):
        delattr(self._glass, name)

    def __dir__(self):
        return dir(self._glass)

    def __repr__(self):
        return repr(self._glass)


_PROXIES: dict[str, GlassModule] = {}


def _wrap(value, torch_name: str):
    if isinstance(value, types.ModuleType) and not isinstance(value, GlassModule) \
            and value.__name__.split(".")[0] == "glasstorch":
        proxy = _PROXIES.get(value.__name__)
        if proxy is None:
            proxy = _PROXIES[value.__name__] = GlassModule(value, torch_name)
        return proxy
    return value


def _glass_module(module: str):
    """glasstorch's counterpart of torch module ``module`` (wrapped in ``GlassModule``), or a ``Missing``."""
    name = mapping.glass_name(module)
    try:
        return _wrap(importlib.import_module(name), module)
    except ImportError:
        pass
    # Some torch modules are plain attributes in glasstorch (or the reverse): walk from the root.
    obj = importlib.import_module("glasstorch")
    for part in module.split(".")[1:]:
        obj = getattr(obj, part, None)
        if obj is None:
            return Missing(module)
    return _wrap(obj, module)


def _module_for(module: str):
    dest = mapping.destination(module)
    if dest == mapping.GLASS:
        return _glass_module(module)
    if dest == mapping.HARNESS:
        return importlib.import_module(module)
    if dest == mapping.GLASS_HARNESS:
        return harness.glass_variant(module)
    return importlib.import_module(dest)


def glass_module(module: str, bind_root: bool = False):
    """The module that ``import <module>`` means in the glasstorch variant (its root if ``bind_root``)."""
    found = _module_for(module)
    if bind_root:
        return _module_for(module.split(".")[0])
    return found


def torch_names(module: str, names: tuple[str, ...]) -> tuple:
    """``from <module> import <names>`` on real torch, with the renamed harness names of ``mapping.COMPAT``."""
    base = importlib.import_module(module)
    return tuple(getattr(base, mapping.COMPAT.get((module, n), n)) for n in names)


def glass_names(module: str, names: tuple[str, ...]) -> tuple:
    """The objects ``from <module> import <names>`` means in the glasstorch variant."""
    overrides = mapping.NAME_OVERRIDES.get(module, {})
    base = None
    out = []
    for n in names:
        if (module, n) in mapping.COMPAT:
            out.append(torch_names(module, (n,))[0])
            continue
        if n in overrides:
            out.append(getattr(importlib.import_module(overrides[n]), n))
            continue
        if base is None:
            base = _module_for(module)
        if isinstance(base, Missing):
            out.append(Missing(f"{module}.{n}"))
            continue
        obj = getattr(base, n, None)
        if obj is None and isinstance(base, types.ModuleType) and not isinstance(base, GlassModule):
            try:  # a submodule not yet imported
                obj = importlib.import_module(f"{base.__name__}.{n}")
            except ImportError:
                obj = None
        out.append(Missing(f"{module}.{n}") if obj is None and not hasattr(base, n) else obj)
    return tuple(out)


def glass_star(module: str) -> dict:
    """The names ``from <module> import *`` binds in the glasstorch variant."""
    base = _module_for(module)
    if isinstance(base, Missing):
        return {}
    public = getattr(base, "__all__", None) or [n for n in vars(base) if not n.startswith("_")]
    return {n: getattr(base, n) for n in public if hasattr(base, n)}
