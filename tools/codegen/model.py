"""The codegen's data model — PyTorch's ``torchgen/model.py`` (NativeFunction) for our YAML files.

``load_native_functions()`` reads every ``glasstorch/_ops/native_functions/*.yaml`` (PyTorch's
``native_functions.yaml`` format, split by family so no file grows past a few hundred lines) into
frozen :class:`NativeFunction` records that remember their file and line, so every error points at
the declaration that caused it.

Entry fields understood (PyTorch's names): ``func``, ``variants``, ``dispatch``, ``structured``,
``structured_delegate``, ``tags``, ``python_module``, ``manual_python_binding``, ``device_check``,
``device_guard`` (accepted, no effect), and ``autogen``.
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]


def _load_schema_module():
    """Load glasstorch/_ops/schema.py by path: the generator must not import glasstorch itself, whose
    import runs the (possibly stale or broken) generated code."""
    path = ROOT / "glasstorch" / "_ops" / "schema.py"
    spec = importlib.util.spec_from_file_location("_glasstorch_codegen_schema", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


_schema = _load_schema_module()
FunctionSchema, SchemaError, parse_schema = _schema.FunctionSchema, _schema.SchemaError, _schema.parse_schema
parse_default = _schema.parse_default

YAML_DIR = ROOT / "glasstorch" / "_ops" / "native_functions"
KERNEL_ROOTS = (ROOT / "glasstorch" / "_ops" / "kernels", ROOT / "glasstorch" / "_ops" / "decompositions")
KNOWN_FIELDS = {"func", "variants", "dispatch", "structured", "structured_delegate", "tags", "python_module",
                "manual_python_binding", "device_check", "device_guard", "autogen", "__line__"}
DISPATCH_KEYS = {"CPU", "CUDA", "PrivateUse1", "Meta", "SparseCPU", "SparseCsrCPU",
                 "CompositeImplicitAutograd", "CompositeExplicitAutograd",
                 "CompositeExplicitAutogradNonFunctional"}


class DeclarationError(ValueError):
    """A bad YAML declaration; the message starts with ``file:line``."""


@dataclass(frozen=True)
class NativeFunction:
    func: FunctionSchema
    variants: frozenset
    dispatch: dict = field(hash=False, compare=False)
    structured: bool = False
    structured_delegate: str | None = None
    tags: tuple = ()
    python_module: str | None = None
    manual_python_binding: bool = False
    loc: str = "?"

    @property
    def name(self) -> str:
        """``add.Tensor``-style name without namespace."""
        s = self.func
        return s.name + (f".{s.overload_name}" if s.overload_name else "")

    @property
    def ident(self) -> str:
        """A Python identifier for this overload: ``add_Tensor``, ``add__Tensor``, ``sum``."""
        s = self.func
        return s.name + (f"_{s.overload_name}" if s.overload_name else "")


class _LineLoader(yaml.SafeLoader):
    pass


def _construct_mapping(loader, node, deep=False):
    mapping = yaml.SafeLoader.construct_mapping(loader, node, deep=deep)
    mapping["__line__"] = node.start_mark.line + 1
    return mapping


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _parse_dispatch(raw, loc) -> dict:
    out = {}
    for keys, kernel in raw.items():
        if keys == "__line__":
            continue
        for key in (k.strip() for k in keys.split(",")):
            if key not in DISPATCH_KEYS:
                raise DeclarationError(f"{loc}: unknown dispatch key {key!r}")
            out[key] = kernel
    return out


def _entry(raw: dict, path: Path) -> NativeFunction:
    shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    loc = f"{shown}:{raw.get('__line__', '?')}"
    unknown = set(raw) - KNOWN_FIELDS
    if unknown:
        raise DeclarationError(f"{loc}: unknown field(s) {sorted(unknown)}")
    try:
        schema = parse_schema(raw["func"])
    except KeyError:
        raise DeclarationError(f"{loc}: entry has no 'func'") from None
    except SchemaError as e:
        raise DeclarationError(f"{loc}: {e}") from None
    variants = frozenset(v.strip() for v in raw.get("variants", "function").split(","))
    if "method" in variants and not any(a.name == "self" for a in schema.arguments):
        raise DeclarationError(f"{loc}: a method variant needs an argument named 'self'")
    dispatch = _parse_dispatch(raw.get("dispatch", {}), loc)
    if not dispatch and not raw.get("structured_delegate"):
        dispatch = {"CompositeImplicitAutograd": schema.name}
    tags = raw.get("tags", ())
    return NativeFunction(schema, variants, dispatch, bool(raw.get("structured", False)),
                          raw.get("structured_delegate"), tuple([tags] if isinstance(tags, str) else tags),
                          raw.get("python_module"), bool(raw.get("manual_python_binding", False)), loc)


def load_native_functions(yaml_dir: Path = YAML_DIR) -> list:
    """All declarations, in file-name order then file order; duplicate names are an error."""
    out, seen = [], {}
    for path in sorted(yaml_dir.glob("*.yaml")):
        entries = yaml.load(path.read_text(), Loader=_LineLoader) or []
        for raw in entries:
            f = _entry(raw, path)
            if f.name in seen:
                raise DeclarationError(f"{f.loc}: {f.name} is already declared at {seen[f.name]}")
            seen[f.name] = f.loc
            out.append(f)
    by_name = {f.name: f for f in out}
    for f in out:
        if f.structured_delegate and f.structured_delegate not in by_name:
            raise DeclarationError(f"{f.loc}: structured_delegate {f.structured_delegate} is not declared")
    return out


# -- kernel lookup -----------------------------------------------------------------------------------------
def _top_level_names(path: Path) -> set:
    tree = ast.parse(path.read_text(), str(path))
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names)
    return names


def kernel_index() -> dict:
    """kernel name -> list of dotted module names defining it (under the kernel roots)."""
    index: dict[str, list] = {}
    for root in KERNEL_ROOTS:
        for path in sorted(root.rglob("*.py")):
            if path.name == "__init__.py":
                continue
            module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            for name in _top_level_names(path):
                if not name.startswith("_"):
                    index.setdefault(name, []).append(module)
    return index


def resolve_kernel(name: str, key: str, index: dict, loc: str) -> tuple:
    """(module, function) for a dispatch entry; ``family.func`` picks the module by its last part."""
    if "." in name:
        family, func = name.rsplit(".", 1)
        mods = [m for m in index.get(func, []) if m.endswith("." + family)]
    else:
        func = name
        mods = index.get(func, [])
        if key in ("CPU", "Meta"):
            mods = [m for m in mods if ".kernels.cpu." in m or ".kernels.composite." in m] or mods
        elif key.startswith("Composite"):
            pref = ".decompositions." if key == "CompositeImplicitAutograd" else ".kernels.composite."
            mods = [m for m in mods if pref in m] or mods
    if not mods:
        raise DeclarationError(f"{loc}: no kernel named {name!r} (for dispatch key {key}) under "
                               f"{', '.join(str(r.relative_to(ROOT)) for r in KERNEL_ROOTS)}")
    if len(mods) > 1:
        raise DeclarationError(f"{loc}: kernel {name!r} is defined in several modules {mods}; qualify it as "
                               f"'module.{func}'")
    return mods[0], func
