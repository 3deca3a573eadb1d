"""Python source from an FX graph — the code generator of PyTorch's ``torch/fx/graph.py`` (``CodeGen``).

``CodeGen._gen_python_code`` walks the nodes once and writes one statement per node, in the style of
torch.fx::

    def forward(self, x, y = None):
        add = x + 1;  x = None               # operators print as operators
        linear = self.linear(add);  add = None   # call_module / get_attr go through ``self``
        relu = torch.relu(linear);  linear = None
        return relu

A value is set to None right after its last use (so the generated function frees memory as it goes).
Names come from one :class:`_Namespace` per generated function that holds both the locals (node names)
and the globals (functions and types the code refers to), so no local can shadow a global.  ``torch`` in
the generated code is the glasstorch package (``import glasstorch as torch``), which is also how dtypes
print (``torch.float32``).

Invariant: the generated source, executed with ``PythonCode.globals``, computes what the graph computes.
"""

from __future__ import annotations

import builtins
import enum
import keyword
import math
import re
import sys

import glasstorch

from .node import Node, _get_qualified_name, _resolves, _type_repr

__all__ = ["PythonCode", "CodeGen"]

# name -> (import statement, object): globals every generated function gets
_custom_builtins: dict = {}
_illegal_names = {k: object() for k in keyword.kwlist}
_illegal_names.update(builtins.__dict__)  # a node may not shadow a builtin


def _register_custom_builtin(name: str, import_str: str, obj) -> None:
    _custom_builtins[name] = (import_str, obj)
    _illegal_names[name] = obj


_register_custom_builtin("inf", "from math import inf", math.inf)
_register_custom_builtin("nan", "from math import nan", math.nan)
_register_custom_builtin("NoneType", "NoneType = type(None)", type(None))
_register_custom_builtin("torch", "import glasstorch as torch", glasstorch)
_register_custom_builtin("device", "from glasstorch import device", glasstorch.device)

_snake_case_sub = re.compile(r"(?<=[a-z])([A-Z])").sub
_illegal_char_regex = re.compile("[^0-9a-zA-Z_]+")
_name_regex = re.compile(r"^([a-zA-Z_][0-9a-zA-Z_]*?)(?:_(\d+))?$")
_from_torch_regex = re.compile(r"^glasstorch(?:\.(?!_dynamo\.|_inductor\.)[^.]+)*$")

reflectable_magic_methods = {
    "add": "{} + {}", "sub": "{} - {}", "mul": "{} * {}", "floordiv": "{} // {}", "truediv": "{} / {}",
    "div": "{} / {}", "mod": "{} % {}", "pow": "{} ** {}", "lshift": "{} << {}", "rshift": "{} >> {}",
    "and_": "{} & {}", "or_": "{} | {}", "xor": "{} ^ {}", "getitem": "{}[{}]", "matmul": "{} @ {}",
}
magic_methods = {
    "eq": "{} == {}", "ne": "{} != {}", "lt": "{} < {}", "gt": "{} > {}", "le": "{} <= {}", "ge": "{} >= {}",
    "pos": "+{}", "neg": "-{}", "invert": "~{}", **reflectable_magic_methods,
}
inplace_methods = {
    "iadd": "{} += {}", "iand": "{} &= {}", "ifloordiv": "{} //= {}", "ilshift": "{} <<= {}", "imod": "{} %= {}",
    "imul": "{} *= {}", "imatmul": "{} @= {}", "ior": "{} |= {}", "ipow": "{} **= {}", "irshift": "{} >>= {}",
    "isub": "{} -= {}", "itruediv": "{} /= {}", "ixor": "{} ^= {}", "setitem": "{}[{}] = {}",
}

dtype_abbrs = {glasstorch.bfloat16: "bf16", glasstorch.float64: "f64", glasstorch.float32: "f32",
               glasstorch.float16: "f16", glasstorch.complex32: "c32", glasstorch.complex64: "c64",
               glasstorch.complex128: "c128", glasstorch.int8: "i8", glasstorch.int16: "i16", glasstorch.int32: "i32",
               glasstorch.int64: "i64", glasstorch.bool: "b8", glasstorch.uint8: "u8"}


def _snake_case(s: str) -> str:
    """``pascalCase`` -> ``pascal_case``, ``ALL_CAPS`` -> ``all_caps``."""
    return _snake_case_sub(r"_\1", s).lower()


def _is_magic(x: str) -> bool:
    return x.startswith("__") and x.endswith("__")


def _format_target(base: str, target: str) -> str:
    """``self`` + ``layers.0.fc`` -> ``getattr(self.layers, "0").fc``."""
    r = base
    for e in target.split("."):
        r = f"{r}.{e}" if e.isidentifier() else f'getattr({r}, "{e}")'
    return r


def _is_from_torch(obj) -> bool:
    module = getattr(obj, "__module__", None)
    return module is not None and _from_torch_regex.fullmatch(module) is not None


class _Namespace:
    """Unique names for the objects of one scope.

    Each object gets one name; names never repeat (``add``, ``add_1``, ``add_2``); a name never shadows a
    builtin or keyword unless the object is that builtin.
    """

    def __init__(self) -> None:
        self._obj_to_name: dict = {}
        self._used_names: set = set()
        self._base_count: dict = {}

    def create_name(self, candidate: str, obj) -> str:
        if obj is not None and obj in self._obj_to_name:
            return self._obj_to_name[obj]
        match = _name_regex.match(candidate)
        if match is None:
            candidate = _illegal_char_regex.sub("_", candidate) or "_unnamed"
            if candidate[0].isdigit():
                candidate = f"_{candidate}"
            match = _name_regex.match(candidate)
        base, num = match.group(1, 2)
        if num is None or candidate in self._used_names:
            num = self._base_count.get(base, 0)
            if _illegal_names.get(candidate, obj) is not obj:
                num += 1
                candidate = f"{base}_{num}"
        else:
            num = int(num)
        while candidate in self._used_names:
            num += 1
            candidate = f"{base}_{num}"
        self._used_names.add(candidate)
        self._base_count[base] = num
        if obj is not None:
            self._obj_to_name[obj] = candidate
        return candidate

    def associate_name_with_obj(self, name: str, obj) -> None:
        existing = self._obj_to_name.setdefault(obj, name)
        if existing is not name:
            raise AssertionError("obj is already associated")

    def _rename_object(self, obj, name: str) -> None:
        if obj not in self._obj_to_name:
            raise AssertionError(f"Object {obj} is not in _obj_to_name")
        self._obj_to_name[obj] = name
        self._used_names.add(name)


class PythonCode:
    """Generated source (``src``) and the globals it must run with (``globals``)."""

    __slots__ = ("src", "globals", "_lineno_map")

    def __init__(self, src: str, globals: dict, lineno_map: dict | None = None) -> None:  # noqa: A002
        self.src = src
        self.globals = globals
        self._lineno_map = lineno_map


def _stack_summary(stack_trace: str) -> str:
    """The innermost frame of a recorded stack: ``File: f.py:12 in forward, code: return x + 1``."""
    lines = [ln for ln in stack_trace.strip().split("\n") if ln.strip()]
    for i in range(len(lines) - 1, -1, -1):
        m = re.match(r'\s*File "(.+)", line (\d+), in (.+)', lines[i])
        if m:
            code = lines[i + 1].strip() if i + 1 < len(lines) else ""
            return f"File: {m.group(1)}:{m.group(2)} in {m.group(3)}, code: {code}"
    return "No stacktrace found for following nodes"


class CodeGen:
    """Turns nodes into the source of ``forward`` (override the hooks to change the calling convention)."""

    def __init__(self) -> None:
        self._body_transformer = None
        self._func_name = "forward"

    def gen_fn_def(self, free_vars: list, maybe_return_annotation: str) -> str:
        """``def forward(self, x, y = None):`` — ``self`` is added when missing."""
        if not free_vars or free_vars[0] != "self":
            free_vars.insert(0, "self")
        return f"def {self._func_name}({', '.join(free_vars)}){maybe_return_annotation}:"

    def generate_output(self, output_args, repr_fn=repr) -> str:
        """The return statement (not indented)."""
        return f"return {repr_fn(output_args)}"

    def process_inputs(self, *args):
        """Inputs as the generated function takes them (identity here)."""
        return args

    def process_outputs(self, outputs):
        """Outputs as callers see them (identity here)."""
        return outputs

    def additional_globals(self) -> list:
        """Extra ``(name, object)`` globals the generated code needs."""
        return []

    def _gen_python_code(self, nodes, root_module: str, namespace: _Namespace, *, verbose: bool = False,
                         include_stride: bool = False, include_device: bool = False) -> PythonCode:
        emitter = _Emitter(self, namespace, root_module, verbose, include_stride, include_device)
        return emitter.run(list(nodes))


class _Emitter:
    """The state of one code generation: globals, free variables, body lines and last uses."""

    def __init__(self, codegen, namespace, root_module, verbose, include_stride, include_device) -> None:
        self.codegen, self.namespace, self.root_module = codegen, namespace, root_module
        self.verbose, self.include_stride, self.include_device = verbose, include_stride, include_device
        self.free_vars: list = []
        self.body: list = []
        self.globals_: dict = {}
        self.wrapped_fns: dict = {}
        self.return_annotation = ""
        self.prev_summary = None
        for name, (_, obj) in _custom_builtins.items():
            self.add_global(name, obj)

    # -- globals and reprs ----------------------------------------------------------------------------------------
    def add_global(self, name_hint: str, obj) -> str:
        """The name the code uses for ``obj``: a ``torch.`` path for glasstorch objects, else a new global."""
        if _is_from_torch(obj) and obj is not glasstorch.device:
            qualified = _get_qualified_name(obj)
            # a dotted path is only valid code when no part is a keyword (``aten.random_.from``): PyTorch's
            # codegen prints that one as is and fails to compile it; here it becomes a named global instead
            if _resolves(qualified, obj) and not any(keyword.iskeyword(p) for p in qualified.split(".")):
                return qualified
            name_hint = qualified
        name = self.namespace.create_name(name_hint, obj)
        if name in self.globals_ and self.globals_[name] is not obj:
            raise AssertionError(f"Global name {name} already assigned to different object")
        self.globals_[name] = obj
        return name

    def type_repr(self, o) -> str:
        if o == ():
            return "()"
        origin = getattr(o, "__origin__", None)
        if origin is not None:
            origin_name = self.add_global(_type_repr(origin), origin)
            args = getattr(o, "__args__", ())
            return f"{origin_name}[{','.join(self.type_repr(a) for a in args)}]" if args else origin_name
        return self.add_global(_type_repr(o), o)

    def get_repr(self, arg) -> str:
        if isinstance(arg, Node):
            return repr(arg)
        if isinstance(arg, tuple) and hasattr(arg, "_fields"):
            cls_name = self.add_global(_get_qualified_name(type(arg)), type(arg))
            return f"{cls_name}{repr(tuple(arg))}"
        if type(arg).__name__ == "OpOverload" and hasattr(arg, "_schema"):
            return self.add_global(_get_qualified_name(arg), arg)
        if isinstance(arg, enum.Enum):
            return f"{self.add_global(type(arg).__name__, type(arg))}.{arg.name}"
        if isinstance(arg, glasstorch.Tensor):
            dtype = str(arg.dtype).split(".")[-1]
            return f"torch.Tensor(size={list(arg.size())}, dtype={dtype})"
        if isinstance(arg, tuple):
            if len(arg) == 1:
                return f"({self.get_repr(arg[0])},)"
            return "(" + ", ".join(self.get_repr(a) for a in arg) + ")"
        if isinstance(arg, list):
            return "[" + ", ".join(self.get_repr(a) for a in arg) + "]"
        if isinstance(arg, slice):
            return f"slice({self.get_repr(arg.start)}, {self.get_repr(arg.stop)}, {self.get_repr(arg.step)})"
        return repr(arg)

    def format_args(self, args, kwargs) -> str:
        out = [self.get_repr(a) for a in args]
        out += [f"{k} = {self.get_repr(v)}" for k, v in kwargs.items()]
        return ", ".join(out)

    # -- statements ---------------------------------------------------------------------------------------------
    def annotation(self, node) -> str:
        if self.verbose:
            val = node.meta.get("val", node.meta.get("tensor_meta", node.meta.get("example_value", None)))
            core = self._meta_annotation(val)
            if core is not None:
                return f': "{core}"'
        return "" if node.type is None else f" : {self.type_repr(node.type)}"

    def _meta_annotation(self, val):
        if isinstance(val, glasstorch.Tensor):
            shape = f"[{', '.join(str(s) for s in val.shape)}]"
            stride = f"[{', '.join(str(s) for s in val.stride())}]" if self.include_stride else ""
            device = f"{val.device}" if self.include_device else ""
            return f"{dtype_abbrs.get(val.dtype, str(val.dtype))}{shape}{stride}{device}"
        if type(val).__name__ == "TensorMetadata":
            return f"{dtype_abbrs.get(val.dtype, str(val.dtype))}[{', '.join(str(s) for s in val.shape)}]"
        return None

    def emit(self, node) -> None:
        ann = self.annotation(node)
        op = node.op
        if op == "placeholder":
            default = "" if not node.args else f" = {self.get_repr(node.args[0])}"
            self.free_vars.append(f"{node.target}{ann}{default}")
            raw_name = node.target.replace("*", "")
            if raw_name != repr(node):
                self.body.append(f"{repr(node)} = {raw_name}\n")
            return
        if op == "call_method":
            self.body.append(f"{repr(node)}{ann} = {_format_target(self.get_repr(node.args[0]), node.target)}"
                             f"({self.format_args(node.args[1:], node.kwargs)})")
        elif op == "call_function":
            self.emit_call_function(node, ann)
        elif op == "call_module":
            self.body.append(f"{repr(node)}{ann} = {_format_target(self.root_module, node.target)}"
                             f"({self.format_args(node.args, node.kwargs)})")
        elif op == "get_attr":
            self.body.append(f"{repr(node)}{ann} = {_format_target(self.root_module, node.target)}")
        elif op == "output":
            if node.type is not None:
                self.return_annotation = f" -> {self.type_repr(node.type)}"
            self.body.append(self.codegen.generate_output(node.args[0], repr_fn=self.get_repr))
        else:
            raise NotImplementedError(f"node: {node.op} {node.target}")

    def emit_call_function(self, node, ann) -> None:
        target = node.target
        name = getattr(target, "__name__", None)
        if getattr(target, "__module__", "") == "_operator" and name in magic_methods:
            expr = magic_methods[name].format(*(self.get_repr(a) for a in node.args))
            self.body.append(f"{repr(node)}{ann} = {expr}")
            return
        if getattr(target, "__module__", "") == "_operator" and name in inplace_methods:
            self.body.append(f"{inplace_methods[name].format(*(self.get_repr(a) for a in node.args))};  "
                             f"{repr(node)}{ann} = {self.get_repr(node.args[0])}")
            return
        global_name = self.add_global(_get_qualified_name(target), target)
        if global_name == "getattr" and len(node.args) == 2 and isinstance(node.args[1], str) \
                and node.args[1].isidentifier():
            self.body.append(f"{repr(node)}{ann} = {_format_target(self.get_repr(node.args[0]), node.args[1])}")
            return
        self.body.append(f"{repr(node)}{ann} = {global_name}({self.format_args(node.args, node.kwargs)})")
        if node.meta.get("is_wrapped", False):
            self.wrapped_fns.setdefault(global_name)

    def free_after(self, user, user_to_last_uses) -> None:
        """End ``user``'s line, setting the values it used last (and an unused result) to None."""
        if user.op == "placeholder":
            return
        if user.op == "output":
            self.body.append("\n")
            return
        to_delete = list(user_to_last_uses.get(user, []))
        if len(user.users) == 0:
            to_delete.append(user)
        if to_delete:
            self.body.append(f";  {' = '.join([repr(n) for n in to_delete] + ['None'])}\n")
        else:
            self.body.append("\n")

    def stack_comment(self, node) -> None:
        if node.op in ("placeholder", "output"):
            return
        trace = node.stack_trace
        summary = _stack_summary(trace) if trace else "No stacktrace found for following nodes"
        line = f"\n# {summary}\n"
        if line != self.prev_summary:
            self.prev_summary = line
            self.body.append(line)

    def run(self, nodes) -> PythonCode:
        last_use: dict = {}
        user_to_last_uses: dict = {}
        for node in reversed(nodes):
            for inp in node._input_nodes:
                if inp not in last_use:
                    last_use[inp] = node
                    user_to_last_uses.setdefault(node, []).append(inp)
        for node in nodes:
            if self.verbose:
                self.stack_comment(node)
            self.emit(node)
            self.free_after(node, user_to_last_uses)
        if not self.body:
            self.body.append("pass\n")
        wrap_stmts = ""
        if self.wrapped_fns:
            wrap_name = self.add_global("wrap", sys.modules["glasstorch.fx"].wrap)
            wrap_stmts = "\n".join(f'{wrap_name}("{name}")' for name in self.wrapped_fns)
        body = self.body
        if self.codegen._body_transformer is not None:
            body = self.codegen._body_transformer(body)
        for name, value in self.codegen.additional_globals():
            self.add_global(name, value)
        prologue = self.codegen.gen_fn_def(self.free_vars, self.return_annotation)
        code = "".join(body).lstrip("\n")
        code = "\n".join("    " + line for line in code.split("\n"))
        return PythonCode(f"\n{wrap_stmts}\n\n{prologue}\n{code}", self.globals_)
