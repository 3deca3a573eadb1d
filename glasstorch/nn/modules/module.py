"""``nn.Module`` — PyTorch's ``torch/nn/modules/module.py``: the base class of every layer.

A Module keeps its state in three ordered dicts: ``_parameters`` (name -> Parameter | None), ``_buffers``
(name -> Tensor | None; names in ``_non_persistent_buffers_set`` stay out of ``state_dict``) and
``_modules`` (name -> Module | None).  ``__setattr__`` routes an assigned Parameter, Module or Buffer into
the right dict and ``__getattr__`` (reached only when normal lookup fails) reads them back, so
``self.weight`` is found in ``_parameters``.  Traversal (``named_modules``/``named_parameters``), the
conversion walk (``_apply``: ``to``/``float``/``half``...), ``state_dict``/``load_state_dict`` and the
``__call__`` path with its forward/backward hooks are all written over those dicts.

Invariants:
- attribute names are unique across ``__dict__``, ``_parameters``, ``_buffers`` and ``_modules``;
- traversal is pre-order and deduplicated by identity (a shared module or parameter appears once, under its
  first name); ``state_dict`` is not deduplicated;
- ``_apply`` keeps Parameter identity (``param.data = fn(param)``), so optimizers built earlier stay valid.
"""

from __future__ import annotations

import inspect
import sys
import warnings
from collections import OrderedDict

from ... import __future__ as _future
from ..._functions import empty_like
from ...autograd.grad_mode import no_grad
from ...tensor import Tensor, _has_compatible_shallow_copy_type
from ...tensor import nn_parse_to as _parse_to  # torch._C._nn._parse_to
from ..parameter import Buffer, Parameter
from . import _module_hooks
from ._module_hooks import (  # noqa: F401
    ModuleCallMixin,
    register_module_backward_hook,
    register_module_buffer_registration_hook,
    register_module_forward_hook,
    register_module_forward_pre_hook,
    register_module_full_backward_hook,
    register_module_full_backward_pre_hook,
    register_module_module_registration_hook,
    register_module_parameter_registration_hook,
)
from ._module_state import ModuleStateMixin, _IncompatibleKeys  # noqa: F401
from .utils import _addindent, typename, zero_grads

__all__ = ["Module", "register_module_forward_pre_hook", "register_module_forward_hook",
           "register_module_full_backward_pre_hook", "register_module_backward_hook",
           "register_module_full_backward_hook", "register_module_buffer_registration_hook",
           "register_module_module_registration_hook", "register_module_parameter_registration_hook"]


def _forward_unimplemented(self, *input):
    raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')



def _keeps_tensor(tensor, applied) -> bool:
    """Whether ``_apply`` writes ``applied`` into ``tensor`` through ``.data`` (PyTorch's
    ``compute_should_use_set_data``)."""
    overwrite = _future.get_overwrite_module_params_on_conversion()
    return _has_compatible_shallow_copy_type(tensor, applied) and not overwrite

class Module(ModuleCallMixin, ModuleStateMixin):
    """Base class for all neural network modules (``torch.nn.Module``).

    Subclasses assign Parameters, buffers and submodules as attributes in ``__init__`` and define ``forward``;
    calling the module runs the hooks around ``forward``.

    Example:
        >>> import glasstorch as torch
        >>> class Net(torch.nn.Module):
        ...     def __init__(self):
        ...         super().__init__()
        ...         self.fc = torch.nn.Linear(4, 2)
        ...     def forward(self, x):
        ...         return self.fc(x).relu()
        >>> [k for k in Net().state_dict()]
        ['fc.weight', 'fc.bias']
    """

    dump_patches: bool = False
    _version: int = 1
    training: bool
    call_super_init: bool = False
    _compiled_call_impl = None

    def __init__(self, *args, **kwargs) -> None:
        if self.call_super_init is False and kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if self.call_super_init is False and args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} "
                            f"were given")
        d = self.__dict__  # plain writes: Module.__setattr__ routing is not needed for these
        d["training"] = True
        d["_parameters"] = {}
        d["_buffers"] = {}
        d["_non_persistent_buffers_set"] = set()
        for name in ("_backward_pre_hooks", "_backward_hooks"):
            d[name] = OrderedDict()
        d["_is_full_backward_hook"] = None
        for name in ("_forward_hooks", "_forward_hooks_with_kwargs", "_forward_hooks_always_called",
                     "_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_state_dict_hooks",
                     "_state_dict_pre_hooks", "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks"):
            d[name] = OrderedDict()
        d["_modules"] = {}
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    forward = _forward_unimplemented

    # -- registration -------------------------------------------------------------------------------------
    def _check_member_name(self, name, kind: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')

    def register_buffer(self, name: str, tensor, persistent: bool = True) -> None:
        """Add a buffer (module state that is not a parameter, e.g. BatchNorm's ``running_mean``).

        A non-persistent buffer stays out of ``state_dict``.  Raises KeyError/TypeError as PyTorch does.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_member_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not (isinstance(tensor, Tensor) or hasattr(tensor, "__torch_function__")):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' (torch Tensor or None "
                            f"required)")
        for hook in _module_hooks._global_buffer_registration_hooks.values():
            output = hook(self, name, tensor)
            if output is not None:
                tensor = output
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param) -> None:
        """Add a parameter (a Parameter or None) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_member_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' (torch.nn.Parameter or "
                            f"None required)")
        if param.grad_fn:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                             f"explicitly. To express '{name}' as a function of another Tensor, compute the value in "
                             f"the forward() method.")
        for hook in _module_hooks._global_parameter_registration_hooks.values():
            output = hook(self, name, param)
            if output is not None:
                param = output
        self._parameters[name] = param

    def add_module(self, name: str, module) -> None:
        """Add a child module (a Module or None) under ``name``."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        for hook in _module_hooks._global_module_registration_hooks.values():
            output = hook(self, name, module)
            if output is not None:
                module = output
        self._modules[name] = module

    def register_module(self, name: str, module) -> None:
        """Alias of :meth:`add_module`."""
        self.add_module(name, module)

    # -- attribute routing --------------------------------------------------------------------------------
    def __getattr__(self, name: str):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            members = d.get(store)
            if members is not None and name in members:
                return members[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            _remove_from(name, d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' (torch.nn.Parameter or "
                                f"None expected)")
            self.register_parameter(name, value)
        else:
            self._setattr_module_or_buffer(name, value)

    def _setattr_module_or_buffer(self, name, value) -> None:
        d = self.__dict__
        modules = d.get("_modules")
        if isinstance(value, Module) or (modules is not None and name in modules):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            if value is None:
                pass
            elif not isinstance(value, Module):
                raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' (torch.nn.Module or None "
                                f"expected)")
            else:
                _remove_from(name, d, self._parameters, self._buffers, self._non_persistent_buffers_set)
            for hook in _module_hooks._global_module_registration_hooks.values():
                output = hook(self, name, value)
                if output is not None:
                    value = output
            modules[name] = value
            return
        buffers = d.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not (isinstance(value, Tensor) or hasattr(value, "__torch_function__")):
                raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' (torch.nn.Buffer, torch.Tensor "
                                f"or None expected)")
            persistent = value.persistent if isinstance(value, Buffer) else name not in self._non_persistent_buffers_set
            self._register_buffer_from_setattr(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    def _register_buffer_from_setattr(self, name, value, persistent) -> None:
        # a subclass may override register_buffer without the persistent argument
        if getattr(self.register_buffer, "__func__", None) is Module.register_buffer or \
                "persistent" in inspect.signature(self.register_buffer).parameters:
            self.register_buffer(name, value, persistent)
            return
        if not persistent:
            raise RuntimeError("Registering a non-persistent buffer on a Module subclass that implements "
                               "register_buffer() without the persistent argument is not allowed.")
        self.register_buffer(name, value)

    def __delattr__(self, name) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __getstate__(self):
        state = self.__dict__.copy()
        state.pop("_compiled_call_impl", None)
        return state

    def __setstate__(self, state) -> None:
        self.__dict__.update(state)
        d = self.__dict__
        for name in ("_forward_pre_hooks", "_forward_pre_hooks_with_kwargs", "_forward_hooks_with_kwargs",
                     "_forward_hooks_always_called", "_state_dict_hooks", "_state_dict_pre_hooks",
                     "_load_state_dict_pre_hooks", "_load_state_dict_post_hooks", "_backward_pre_hooks"):
            d.setdefault(name, OrderedDict())
        d.setdefault("_non_persistent_buffers_set", set())
        d.setdefault("_is_full_backward_hook", None)

    def __dir__(self):
        keys = (dir(self.__class__) + list(self.__dict__) + list(self._parameters) + list(self._modules)
                + list(self._buffers))
        return sorted(k for k in keys if not k[0].isdigit())

    # -- lookup by dotted path ------------------------------------------------------------------------------
    def _get_name(self) -> str:
        return self.__class__.__name__

    def get_submodule(self, target: str) -> Module:
        """The submodule at dotted path ``target`` ("" is self); AttributeError if the path is not modules."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def set_submodule(self, target: str, module: Module, strict: bool = False) -> None:
        """Replace (or, unless ``strict``, add) the submodule at dotted path ``target``."""
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        atoms = target.split(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self if len(atoms) == 1 else self.get_submodule(".".join(atoms[:-1]))
        if strict and not hasattr(parent, atoms[-1]):
            raise AttributeError(parent._get_name() + " has no attribute `" + atoms[-1] + "`")
        if hasattr(parent, atoms[-1]) and not isinstance(getattr(parent, atoms[-1]), Module):
            raise AttributeError("`" + atoms[-1] + "` is not an nn.Module")
        setattr(parent, atoms[-1], module)

    def get_parameter(self, target: str) -> Parameter:
        """The Parameter at dotted path ``target``."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        param = getattr(mod, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        """The buffer at dotted path ``target``."""
        module_path, _, name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, name):
            raise AttributeError(mod._get_name() + " has no attribute `" + name + "`")
        buffer = getattr(mod, name)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return buffer

    # -- traversal ------------------------------------------------------------------------------------------
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate: bool = True):
        memo = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield module_prefix + ("." if module_prefix else "") + k, v

    def parameters(self, recurse: bool = True):
        """The parameters of this module (and, with ``recurse``, its submodules), each once."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """``(dotted name, Parameter)`` pairs, pre-order, deduplicated by identity."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True):
        """The buffers of this module (and, with ``recurse``, its submodules)."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True):
        """``(dotted name, buffer)`` pairs, pre-order, deduplicated by identity."""
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def children(self):
        """The direct submodules, each once."""
        for _, module in self.named_children():
            yield module

    def named_children(self):
        """``(name, module)`` for the direct submodules, each once."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate: bool = True):
        """Every module of the tree, self first (pre-order)."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        """``(dotted name, module)`` pre-order, self first as ``(prefix, self)``."""
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    # -- modes and bulk changes -------------------------------------------------------------------------------
    def train(self, mode: bool = True):
        """Set training mode on this module and every submodule; returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        """``train(False)``."""
        return self.train(False)

    def compile(self, *args, **kwargs) -> None:
        """Compile this module's call in place with ``glasstorch.compile(self._call_impl, ...)`` (PyTorch's
        ``Module.compile``): ``module(x)`` then runs the compiled forward; ``state_dict`` keys are unchanged."""
        self._compiled_call_impl = sys.modules["glasstorch"].compile(self._call_impl, *args, **kwargs)

    def requires_grad_(self, requires_grad: bool = True):
        """Set ``requires_grad`` on every parameter; returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters: to None, or (``set_to_none=False``) zeroed in place."""
        zero_grads(self.parameters(), set_to_none)

    def apply(self, fn):
        """Call ``fn`` on every submodule (children first, recursively) and then on self; returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, fn, recurse=True):
        """Convert every parameter (and its grad) and buffer with ``fn``: in place through ``.data`` when the result
        has the same kind of TensorImpl (dense stays dense), else as a new Parameter / grad (a layout change, or
        ``torch.__future__.set_overwrite_module_params_on_conversion(True)``), as PyTorch's ``Module._apply``."""
        if recurse:
            for module in self.children():
                module._apply(fn)
        if _future.get_swap_module_params_on_conversion():
            raise NotImplementedError("torch.__future__.set_swap_module_params_on_conversion(True) needs "
                                      "torch.utils.swap_tensors, which glasstorch does not implement")
        for key, param in self._parameters.items():
            if param is None:
                continue
            with no_grad():
                param_applied = fn(param)
            param_grad = param.grad
            if _keeps_tensor(param, param_applied):
                param.data = param_applied  # identity kept: the Parameter now reads the converted tensor
                out_param = param
            else:
                out_param = Parameter(param_applied, param.requires_grad)
                self._parameters[key] = out_param
            if param_grad is not None:
                with no_grad():
                    grad_applied = fn(param_grad)
                if _keeps_tensor(param_grad, grad_applied) and out_param.grad is not None:
                    out_param.grad.data = grad_applied
                else:
                    out_param.grad = grad_applied.requires_grad_(param_grad.requires_grad)
        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def to(self, *args, **kwargs):
        """Move and/or cast parameters and buffers (floating/complex ones change dtype); returns self."""
        device, dtype, non_blocking, convert_to_format = _parse_to(*args, **kwargs)
        if dtype is not None:
            if not (dtype.is_floating_point or dtype.is_complex):
                raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                                f"dtype={dtype}")
            if dtype.is_complex:
                warnings.warn("Complex modules are a new feature under active development whose design may change, "
                              "and some modules might not work as expected when using complex tensors as parameters "
                              "or buffers. Please file an issue at https://github.com/pytorch/pytorch/issues/new?"
                              "template=bug-report.yml if a complex module does not work as expected.", stacklevel=2)

        def convert(t):
            kw = {"device": device, "dtype": dtype if (t.is_floating_point() or t.is_complex()) else None}
            if convert_to_format is not None and t.dim() in (4, 5):
                kw["memory_format"] = convert_to_format
            try:
                return t.to(**kw)
            except NotImplementedError as e:
                if str(e) == "Cannot copy out of meta tensor; no data!":
                    raise NotImplementedError(f"{e} Please use torch.nn.Module.to_empty() instead of "
                                              f"torch.nn.Module.to() when moving module from meta to a different "
                                              f"device.") from None
                raise

        return self._apply(convert)

    def share_memory(self):
        """Move every parameter and buffer into shared memory (``Tensor.share_memory_``); returns self."""
        return self._apply(lambda t: t.share_memory_())

    def _replicate_for_data_parallel(self):
        """A shallow replica for DataParallel: its own dicts, no parameters of its own (they are set per replica)."""
        replica = self.__new__(type(self))
        replica.__dict__ = self.__dict__.copy()
        replica._parameters = {}
        replica._buffers = replica._buffers.copy()
        replica._modules = replica._modules.copy()
        replica._is_replica = True
        return replica

    def to_empty(self, *, device, recurse: bool = True):
        """Move parameters and buffers to ``device`` without copying their values (after meta-device init)."""
        return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)

    def cpu(self):
        """Move everything to the CPU; returns self."""
        return self._apply(lambda t: t.cpu())

    def cuda(self, device=None):
        """Move everything to a CUDA device (glasstorch has none: the tensor call raises)."""
        return self._apply(lambda t: t.cuda(device))

    def type(self, dst_type):
        """Cast every parameter and buffer to ``dst_type``; returns self."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        """Floating-point parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        """Floating-point parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        """Floating-point parameters and buffers to float16."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        """Floating-point parameters and buffers to bfloat16."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    # -- repr -------------------------------------------------------------------------------------------------
    def extra_repr(self) -> str:
        """The module's own settings in its repr (one or several lines); subclasses override it."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = ["(" + key + "): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"


def _remove_from(name, *dicts_or_sets) -> None:
    for d in dicts_or_sets:
        if name in d:
            if isinstance(d, dict):
                del d[name]
            else:
                d.discard(name)


