"""The optimizer base class — PyTorch's ``torch/optim/optimizer.py``.

An :class:`Optimizer` owns ``param_groups`` (a list of dicts: ``"params"`` plus every hyperparameter,
missing ones filled from ``defaults``) and ``state`` (a ``defaultdict(dict)`` keyed by the parameter
tensor itself).  Subclasses gather, per group, the parameters that have a gradient and their state,
then run a per-tensor update written with in-place tensor ops under ``no_grad``.

Key invariant: a step never replaces a parameter — it writes into the parameter's own storage
(``add_``/``mul_``/``addcdiv_``...), so references held by a model stay valid, and ``state_dict()``
refers to parameters only by their position (ints counted over the groups in order), never by tensor.

Step hooks follow PyTorch: the subclass's ``step`` is wrapped once per class (``_patch_step_function``)
so that global and per-instance pre/post hooks run around every call, whoever overrides ``step``.
"""

from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from collections.abc import Iterable
from copy import deepcopy
from itertools import chain
from typing import Any

from .. import _functions as _fn
from .._core.dtype import float32, float64, get_default_dtype
from .._core.grad_state import state as _grad_state
from ..autograd.graph import RemovableHandle
from ..nn.modules.utils import typename, zero_grads
from ..nn.parameter import Parameter
from ..tensor import Tensor

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook", "required"]

_global_optimizer_pre_hooks: OrderedDict = OrderedDict()
_global_optimizer_post_hooks: OrderedDict = OrderedDict()

# Device types with foreach / fused kernels in PyTorch 2.13 (privateuse1 under its default name).
_FOREACH_DEVICES = ("cuda", "xpu", "mtia", "privateuseone")
_FUSED_DEVICES = ["mps", "cuda", "xpu", "hpu", "cpu", "mtia", "privateuseone"]
_CAPTURABLE_DEVICES = ["cuda", "xpu", "hpu", "privateuseone", "xla"]
_FOREACH_TYPES = (Tensor, Parameter)  # exact types only: other subclasses take the per-tensor path


class _RequiredParameter:
    """Marks a hyperparameter every param group must give (``torch.optim.optimizer.required``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _use_grad_for_differentiable(func):
    """Run ``step`` with grad mode = ``defaults['differentiable']`` (no_grad for ordinary optimizers)."""

    @functools.wraps(func)
    def _use_grad(self, *args, **kwargs):
        prev = _grad_state.enabled
        _grad_state.enabled = bool(self.defaults["differentiable"])
        try:
            return func(self, *args, **kwargs)
        finally:
            _grad_state.enabled = prev

    return _use_grad


def _get_value(x):
    """A Python number from a 0-dim tensor (``step``) — scalar maths on the host is cheapest."""
    return x.item() if isinstance(x, Tensor) else x


def _to_scalar(x):
    """A 1-element hyperparameter tensor with dims becomes 0-dim; anything else is kept."""
    if isinstance(x, Tensor) and x.dim() != 0:
        return x.squeeze()
    return x


def _get_scalar_dtype(is_fused=None):
    """The dtype of ``state['step']``: float32, or float64 when that is the default dtype (not fused)."""
    if is_fused:
        return float32
    return float64 if get_default_dtype() == float64 else float32


def _scalar_state(value, p: Tensor, on_device: bool) -> Tensor:
    """A 0-dim state entry (``step``, ``mu_product``, ``eta``...) in the step dtype; on ``p``'s device when
    ``on_device`` (capturable), else on the CPU."""
    if on_device:
        return _fn.tensor(value, dtype=_get_scalar_dtype(), device=p.device)
    return _fn.tensor(value, dtype=_get_scalar_dtype())


def _tensorize_state_scalars(optimizer, keys=("step",), always_on_device: bool = False) -> None:
    """After loading an old state dict: state scalars saved as Python numbers become 0-dim tensors."""
    for group in optimizer.param_groups:
        on_device = always_on_device or bool(group.get("capturable", False))
        for p in group["params"]:
            p_state = optimizer.state.get(p, [])
            if len(p_state) == 0:
                continue
            for key in keys:
                if not isinstance(p_state[key], Tensor):
                    p_state[key] = _scalar_state(float(p_state[key]), p, on_device)


def _params_with_dense_grads(group, params, grads, name: str):
    """Each param of ``group`` that has a gradient, appended to ``params`` (and its gradient to ``grads``) as it is
    yielded; a sparse gradient raises ``name``'s error, as torch's dense-only optimizers' ``_init_group`` does."""
    for p in group["params"]:
        if p.grad is None:
            continue
        if getattr(p.grad, "is_sparse", False):
            raise RuntimeError(f"{name} does not support sparse gradients")
        params.append(p)
        grads.append(p.grad)
        yield p


def _default_to_fused_or_foreach(params, differentiable: bool, use_fused: bool = False) -> tuple[bool, bool]:
    """PyTorch's choice when the user gave neither flag: foreach only when every param is on a foreach device."""
    if differentiable:
        return False, False
    fused = use_fused and all(
        p is None or type(p) in _FOREACH_TYPES and p.device.type in _FUSED_DEVICES and p.is_floating_point()
        for p in params)
    foreach = not fused and all(
        p is None or type(p) in _FOREACH_TYPES and p.device.type in _FOREACH_DEVICES for p in params)
    return fused, foreach


def _device_dtype_check_for_fused(p: Tensor) -> None:
    if not (p.device.type in _FUSED_DEVICES and p.is_floating_point()):
        raise RuntimeError("`fused=True` requires all the params to be floating point Tensors of supported devices: "
                           f"{_FUSED_DEVICES} but {p.dtype} and {p.device.type}")


def _check_capturable(param: Tensor, step_t: Tensor, supports_xla: bool = True, what: str = "params and state_steps",
                      *others: Tensor) -> None:
    """capturable=True needs ``param``, ``step_t`` (and ``others``) on one capturable device type."""
    devices = _CAPTURABLE_DEVICES if supports_xla else [d for d in _CAPTURABLE_DEVICES if d != "xla"]
    types = {t.device.type for t in (param, step_t, *others)}
    if not (len(types) == 1 and param.device.type in devices):
        raise AssertionError(f"If capturable=True, {what} must be on supported devices: {devices}.")


def _check_state_steps(state_steps) -> None:
    if not all(isinstance(t, Tensor) for t in state_steps):
        raise RuntimeError("API has changed, `state_steps` argument must contain a list of singleton tensors")


def _resolve_impl(params, foreach, fused, differentiable: bool) -> tuple[bool, bool]:
    """The (foreach, fused) pair the functional API settles on (both default to False on CPU)."""
    if foreach is None and fused is None:
        fused, foreach = _default_to_fused_or_foreach(params, differentiable, use_fused=False)
    return bool(foreach), bool(fused)


def _run_closure(closure):
    """Evaluate a step closure with grad mode on (it usually runs forward and backward)."""
    if closure is None:
        return None
    prev = _grad_state.enabled
    _grad_state.enabled = True
    try:
        return closure()
    finally:
        _grad_state.enabled = prev


def _amp_skip_or_unscale(grads, grad_scale, found_inf) -> bool:
    """What a fused kernel does with a GradScaler's tensors: skip on inf/NaN, else divide grads in place."""
    if found_inf is not None and found_inf.item() != 0:
        return True
    if grad_scale is not None:
        for g in grads:
            g.div_(grad_scale)
    return False


def register_optimizer_step_pre_hook(hook) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs) -> None | (args, kwargs)`` before every optimizer's step.

    Returns:
        a handle whose ``remove()`` unregisters the hook.
    """
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook) -> RemovableHandle:
    """Register ``hook(optimizer, args, kwargs) -> None`` after every optimizer's step."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _step_with_hooks(func):
    """Wrap a class's ``step`` so the global and per-instance step hooks run around it."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        self = args[0]
        for pre_hook in chain(_global_optimizer_pre_hooks.values(), self._optimizer_step_pre_hooks.values()):
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(f"{func} must return None or a tuple of (new_args, new_kwargs), but got "
                                       f"{result}.")
        out = func(*args, **kwargs)
        for post_hook in chain(self._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()):
            post_hook(self, args, kwargs)
        return out

    return wrapper


class Optimizer:
    """Base class for all optimizers.

    Args:
        params: an iterable of tensors, of ``(name, tensor)`` pairs, or of dicts (param groups).
        defaults: default hyperparameters, used where a group does not give its own.

    Example:
        >>> import glasstorch as torch
        >>> w = torch.zeros(3, requires_grad=True)
        >>> opt = torch.optim.SGD([w], lr=0.1)
        >>> w.grad = torch.ones(3); opt.step(); w
        tensor([-0.1000, -0.1000, -0.1000], requires_grad=True)
    """

    def __init__(self, params, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._optimizer_state_dict_pre_hooks = OrderedDict()
        self._optimizer_state_dict_post_hooks = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks = OrderedDict()
        self._optimizer_load_state_dict_post_hooks = OrderedDict()
        self._patch_step_function()
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got " + typename(params))
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)
        self._warned_capturable_if_run_uncaptured = True

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        for name in ("_optimizer_step_pre_hooks", "_optimizer_step_post_hooks", "_optimizer_state_dict_pre_hooks",
                     "_optimizer_state_dict_post_hooks", "_optimizer_load_state_dict_pre_hooks",
                     "_optimizer_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                setattr(self, name, OrderedDict())
        self._patch_step_function()
        self.defaults.setdefault("differentiable", False)

    def __repr__(self) -> str:
        text = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    # -- step hooks ---------------------------------------------------------------------------------------

    def _patch_step_function(self) -> None:
        self._zero_grad_profile_name = f"Optimizer.zero_grad#{self.__class__.__name__}.zero_grad"
        if not getattr(self.__class__.step, "hooked", None):
            self.__class__.step = _step_with_hooks(self.__class__.step)
            self.__class__.step.hooked = True

    def register_step_pre_hook(self, hook) -> RemovableHandle:
        """Register ``hook(optimizer, args, kwargs) -> None | (args, kwargs)`` to run before ``step``."""
        return self._add_hook(self._optimizer_step_pre_hooks, hook, False)

    def register_step_post_hook(self, hook) -> RemovableHandle:
        """Register ``hook(optimizer, args, kwargs) -> None`` to run after ``step``."""
        return self._add_hook(self._optimizer_step_post_hooks, hook, False)

    def register_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer)`` to run before ``state_dict()``."""
        return self._add_hook(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer, state_dict) -> state_dict | None`` to run after ``state_dict()``."""
        return self._add_hook(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer, state_dict) -> state_dict | None`` to run before ``load_state_dict``."""
        return self._add_hook(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook, prepend: bool = False) -> RemovableHandle:
        """Register ``hook(optimizer)`` to run after ``load_state_dict``."""
        return self._add_hook(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    @staticmethod
    def _add_hook(table: OrderedDict, hook, prepend: bool) -> RemovableHandle:
        handle = RemovableHandle(table)
        table[handle.id] = hook
        if prepend:
            table.move_to_end(handle.id, last=False)
        return handle

    # -- state dict ---------------------------------------------------------------------------------------

    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state: ``{"state": {index: {...}}, "param_groups": [{..., "params": [index]}]}``.

        Parameters appear as their position over all groups (a repeated one keeps its first index);
        state tensors are the live tensors, not copies.
        """
        for pre_hook in self._optimizer_state_dict_pre_hooks.values():
            pre_hook(self)
        param_mappings: dict[int, int] = {}
        start_index = 0

        def pack_group(group):
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            # ids new to this group take their *last* position in it (PyTorch's dict comprehension does so)
            param_mappings.update({id(p): i for i, p in enumerate(group["params"], start_index)
                                   if id(p) not in param_mappings})
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(param_mappings[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        state_dict = {"state": packed_state, "param_groups": param_groups}
        for post_hook in self._optimizer_state_dict_post_hooks.values():
            result = post_hook(self, state_dict)
            if result is not None:
                state_dict = result
        return state_dict

    @staticmethod
    def _process_value_according_to_param_policy(param, value, param_id, param_groups, key=None):
        """Cast a loaded state tensor: floating state to the param's dtype and device; ``step`` kept as is
        (unless fused/capturable, which keep it as float32 on the param's device)."""
        fused = capturable = False
        for pg in param_groups:
            if param_id in pg["params"]:
                fused = pg.get("fused", False)
                capturable = pg.get("capturable", False)
                break
        if key == "step":
            return value.to(dtype=float32, device=param.device) if (capturable or fused) else value
        if param.is_floating_point():
            return value.to(dtype=param.dtype, device=param.device)
        return value.to(device=param.device)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a dict made by :meth:`state_dict`; saved indices map to the current params by position.

        Raises:
            ValueError: when the number of groups or a group's size differs from this optimizer's.
        """
        state_dict = state_dict.copy()
        for pre_hook in self._optimizer_load_state_dict_pre_hooks.values():
            result = pre_hook(self, state_dict)
            if result is not None:
                state_dict = result
        groups = self.param_groups
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups, strict=True)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of "
                             "optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups), strict=True))
        saved_param_groups = state_dict["param_groups"]

        def cast(param, value, param_id=None, key=None):
            if isinstance(value, Tensor):
                return Optimizer._process_value_according_to_param_policy(param, value, param_id,
                                                                          saved_param_groups, key)
            if isinstance(value, dict):
                return {k: cast(param, v, param_id, k) for k, v in value.items()}
            if isinstance(value, Iterable):
                return type(value)(cast(param, v, param_id) for v in value)
            return value

        state: defaultdict = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v, param_id=k)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups, strict=True)]
        self.__setstate__({"state": state, "param_groups": param_groups})
        for post_hook in self._optimizer_load_state_dict_post_hooks.values():
            post_hook(self)

    # -- gradients and groups -----------------------------------------------------------------------------

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset every parameter's ``.grad``: to ``None`` (default) or to zeros in place, detached."""
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self, closure=None):
        """Perform one optimization step (each optimizer defines it)."""
        raise NotImplementedError

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters (with its own hyperparameters) to ``param_groups``.

        Raises:
            TypeError: not a dict, params given as a set, or a param that is not a Tensor.
            ValueError: a non-leaf param, a missing required hyperparameter, or a param already in a group.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        self._split_names(param_group)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + typename(param))
            if not self.defaults.get("differentiable", None) and not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                          "an error; see github.com/pytorch/pytorch/issues/40967 for more information", stacklevel=3)
        self._check_disjoint(param_group)
        self.param_groups.append(param_group)

    @staticmethod
    def _split_names(param_group) -> None:
        tensors, names = [], []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names

    def _check_disjoint(self, param_group) -> None:
        param_set: set = set()
        for group in self.param_groups:
            param_set.update(group["params"])
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError("all optimizer param groups should be with/without names. "
                                 f"cannot add param group {which} to the optimizer")
        if not param_set.isdisjoint(param_group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
