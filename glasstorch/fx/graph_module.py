"""GraphModule — PyTorch's ``torch/fx/graph_module.py``: an ``nn.Module`` whose ``forward`` is generated code.

``GraphModule(root, graph)`` copies from ``root`` every submodule, parameter, buffer and attribute the graph
reaches through ``get_attr``/``call_module`` (sharing the objects, not cloning them), then compiles
``graph.python_code("self")`` into ``forward``.  Each instance gets its own subclass (PyTorch's
``GraphModuleImpl``), so assigning a new graph and recompiling never affects another GraphModule.

Invariants: ``gm.code`` is the source of ``gm.forward``; after editing ``gm.graph`` in place, ``recompile()``
brings them back in step (assigning ``gm.graph = g`` recompiles by itself).
"""

from __future__ import annotations

import copy
import itertools
import linecache

from ..nn.modules.module import Module
from ..nn.modules.utils import _addindent
from ..nn.parameter import Parameter
from ..tensor import Tensor
from ._codegen import _custom_builtins
from .graph import Graph

__all__ = ["GraphModule"]

_next_key = itertools.count()
# Note [Unpickling GraphModules]: rebuilding one traces its code again, and the tracer sits above this file, so
# ``_symbolic_trace`` registers its ``reduce_graph_module`` here (a registration slot, not an upward import).
_reducer: list = []


def _exec_with_source(src: str, globals_: dict) -> None:
    """Run ``src`` under a fake file name that ``linecache`` knows, so tracebacks show the generated lines."""
    key = f"<eval_with_key>.{next(_next_key)}"
    linecache.cache[key] = (len(src), None, src.splitlines(keepends=True), key)
    exec(compile(src, key, "exec", dont_inherit=True), globals_)  # noqa: S102 - generated code by design


def _forward_from_src(src: str, globals_: dict):
    scope = dict(globals_)
    _exec_with_source(src, scope)
    return scope["forward"]


def _copy_attr(from_module: Module, to_module: Module, target: str) -> None:
    """Make ``to_module.<target>`` refer to ``from_module.<target>``, creating empty parent modules as needed."""
    *prefix, field = target.split(".")
    for item in prefix:
        f = getattr(from_module, item)
        t = getattr(to_module, item, None)
        if f is t:  # already installed (a parent module was copied whole)
            return
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        from_module, to_module = f, t
    orig = getattr(from_module, field)
    if isinstance(orig, Tensor) and not isinstance(orig, Parameter):
        to_module.register_buffer(field, orig)
    else:
        setattr(to_module, field, orig)


def _assign_attr(from_obj, to_module: Module, target: str) -> None:
    *prefix, field = target.split(".")
    for item in prefix:
        t = getattr(to_module, item, None)
        if t is None:
            t = Module()
            setattr(to_module, item, t)
        to_module = t
    if isinstance(from_obj, Tensor) and not isinstance(from_obj, Parameter):
        to_module.register_buffer(field, from_obj)
    else:
        setattr(to_module, field, from_obj)


class _CodeOnlyModule(Module):
    """A module made from a saved ``__dict__`` (deepcopy and unpickling rebuild GraphModules from it)."""

    def __init__(self, body: dict) -> None:
        super().__init__()
        self.__dict__ = body



def _get_attr(module, target: str):
    """The object at the dotted path ``target`` below ``module`` (``torch.fx.graph_module._get_attr``)."""
    obj = module
    for part in target.split("."):
        obj = getattr(obj, part)
    return obj

class GraphModule(Module):
    """An ``nn.Module`` generated from a :class:`Graph` (``torch.fx.GraphModule``).

    Args:
        root: the module the graph's ``get_attr``/``call_module`` targets are copied from, or a dict from
            target names to objects.
        graph: the Graph to compile into ``forward``.
        class_name: the name ``type(gm).__name__`` reports (and repr/print_readable show).

    Example:
        >>> import glasstorch as torch, glasstorch.fx as fx
        >>> gm = fx.symbolic_trace(torch.nn.Sequential(torch.nn.Linear(4, 2), torch.nn.ReLU()))
        >>> gm(torch.ones(1, 4)).shape
        torch.Size([1, 2])
    """

    def __new__(cls, *args, **kwargs):
        for t in cls.__mro__:  # the user-facing class, even when called on an instance's private subclass
            if t.__qualname__.split(".")[-1] != "GraphModuleImpl":
                cls = t
                break

        class GraphModuleImpl(cls):
            pass

        return super().__new__(GraphModuleImpl)

    def __init__(self, root, graph: Graph, class_name: str = "GraphModule") -> None:
        super().__init__()
        self.__class__.__name__ = class_name
        if isinstance(root, Module):
            if hasattr(root, "training"):
                self.training = root.training
            if isinstance(root, _CodeOnlyModule):
                for name, _ in root.named_children():
                    _copy_attr(root, self, name)
                for name, _ in root.named_buffers():
                    _copy_attr(root, self, name)
                for name, _ in root.named_parameters():
                    _copy_attr(root, self, name)
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    _copy_attr(root, self, node.target)
        elif isinstance(root, dict):
            targets = []
            for node in graph.nodes:
                if node.op in ("get_attr", "call_module"):
                    if node.target not in root:
                        raise RuntimeError("Node " + str(node) + " referenced target " + node.target
                                           + " but that target was not provided in ``root``!")
                    targets.append(node.target)
            for target in sorted(targets, key=lambda t: t.count(".")):
                _assign_attr(root[target], self, target)
        else:
            raise RuntimeError("Unsupported type " + str(root) + " passed for root!")
        self.graph = graph
        self._tracer_cls = graph._tracer_cls if graph._tracer_cls and "<locals>" not in \
            graph._tracer_cls.__qualname__ else None
        self.meta: dict = {}
        self._replace_hooks: list = []
        self._create_node_hooks: list = []
        self._erase_node_hooks: list = []

    @property
    def graph(self) -> Graph:
        """The Graph behind ``forward``; assigning one recompiles."""
        return self._graph

    @graph.setter
    def graph(self, g: Graph) -> None:
        if not isinstance(g, Graph):
            raise AssertionError(f"Expected a Graph instance, but got {type(g)}")
        self._graph = g
        g.owning_module = self
        self.recompile()

    @property
    def code(self) -> str:
        """The Python source of ``forward``."""
        if not hasattr(self, "_code"):
            raise RuntimeError("Code has not been generated! Please report a bug to PyTorch")
        return self._code

    def recompile(self):
        """Regenerate ``forward`` (and ``code``) from ``graph``; returns the PythonCode."""
        python_code = self._graph.python_code(root_module="self")
        self._code = python_code.src
        cls = type(self)
        cls.forward = _forward_from_src(self._code, python_code.globals)
        for _, mod in self.named_children():
            if isinstance(mod, GraphModule):
                mod.recompile()
        return python_code

    # -- submodules -----------------------------------------------------------------------------------------------
    def add_submodule(self, target: str, m: Module) -> bool:
        """Install ``m`` at dotted path ``target`` (creating empty parents); False if the path crosses a non-module."""
        *prefix, field = target.split(".")
        mod = self
        for item in prefix:
            submod = getattr(mod, item, None)
            if submod is None:
                submod = Module()
                setattr(mod, item, submod)
            if not isinstance(submod, Module):
                return False
            mod = submod
        mod.add_module(field, m)
        return True

    def delete_submodule(self, target: str) -> bool:
        """Remove the submodule at ``target``; False when ``target`` does not name one."""
        atoms = target.split(".")
        mod = self
        for item in atoms[:-1]:
            if not hasattr(mod, item):
                return False
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                return False
        if not hasattr(mod, atoms[-1]) or not isinstance(getattr(mod, atoms[-1]), Module):
            return False
        delattr(mod, atoms[-1])
        return True

    def delete_all_unused_submodules(self) -> None:
        """Delete every submodule no ``call_module``/``get_attr`` node reaches."""
        used: list = []
        for node in self.graph.nodes:
            if node.op in ("call_module", "get_attr") and isinstance(node.target, str):
                atoms = node.target.split(".")
                used.extend(".".join(atoms[:i + 1]) for i in range(len(atoms)))
                if node.op == "call_module":
                    try:
                        sub = self.get_submodule(node.target)
                    except AttributeError:
                        continue
                    used.extend(f"{node.target}.{n}" for n, _ in sub.named_modules() if n)
        for name in [n for n, _ in self.named_modules() if n not in used]:
            self.delete_submodule(name)

    # -- printing -------------------------------------------------------------------------------------------------
    def print_readable(self, print_output: bool = True, include_stride: bool = False, include_device: bool = False,
                       colored: bool = False) -> str:
        """The generated code as a class, with shape annotations from ``node.meta`` and stack-trace comments."""
        out = _print_readable(self, self._get_name(), include_stride, include_device)
        if print_output:
            print(out)
        return out

    def __str__(self) -> str:
        return "\n".join([super().__str__(), self._code,
                          "# To see more debug info, please use `graph_module.print_readable()`"])

    # -- copies and pickling ------------------------------------------------------------------------------------
    def __deepcopy__(self, memo: dict) -> GraphModule:
        res = type(self).__new__(type(self))
        memo[id(self)] = res
        fake_mod = _CodeOnlyModule(copy.deepcopy(self.__dict__, memo))
        GraphModule.__init__(res, fake_mod, fake_mod.__dict__["_graph"])
        res.__class__.__name__ = type(self).__name__
        for attr in ("_state_dict_hooks", "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks",
                     "_replace_hooks", "_create_node_hooks", "_erase_node_hooks"):
            if attr in self.__dict__:
                setattr(res, attr, copy.deepcopy(self.__dict__[attr], memo))
        res.meta = copy.deepcopy(getattr(self, "meta", {}), memo)
        return res

    def __copy__(self) -> GraphModule:
        res = GraphModule(self, self.graph, type(self).__name__)
        res.meta = getattr(self, "meta", {})
        return res

    def __reduce__(self):
        """Pickle the code, not the Graph: unpickling runs the code through the tracer again."""
        body = self.__dict__.copy()
        python_code = self.recompile()
        del body["_graph"]
        body["_graphmodule_cls_name"] = type(self).__name__
        return (_reducer[0], (body, _format_import_block(python_code.globals)))


def _print_readable(module: GraphModule, module_name: str, include_stride: bool, include_device: bool) -> str:
    code = module.graph.python_code(root_module="self", verbose=True, include_stride=include_stride,
                                    include_device=include_device).src
    code = _addindent(f"class {module_name}(torch.nn.Module):\n" + code.lstrip("\n"), 4)
    subs = [""]
    for name, sub in module.named_children():
        if isinstance(sub, GraphModule):
            subs.append(_print_readable(sub, name, include_stride, include_device))
    return code + _addindent("\n".join(subs), 4)


def _format_import_block(globals_: dict) -> str:
    """Import statements that recreate the globals of generated code in a fresh module."""
    lines = set()
    for name, obj in globals_.items():
        if name in _custom_builtins:
            lines.add(_custom_builtins[name][0])
        else:
            lines.add(f"from {obj.__module__} import {obj.__qualname__} as {name}")
    return "\n".join(sorted(lines))
