"""Guards: the conditions under which a compiled entry may be reused (PyTorch: ``torch/_dynamo/guards.py``).

A :class:`Guard` is one checked fact about the call, with PyTorch's vocabulary:

- ``TENSOR_MATCH`` on every tensor input and every lifted parameter/buffer: type, dtype, device, sizes,
  strides (inputs only), requires_grad;
- ``ID_MATCH`` that a module still holds the very parameter/buffer object the graph was traced with;
- ``NN_MODULE`` training flag of every module reachable from the roots;
- ``CONSTANT_MATCH`` on the type and value of each non-tensor input (``EQUALS_MATCH`` for floats and strings,
  ``ID_MATCH`` for other objects);
- ``GLOBAL_STATE``: grad mode, inference mode, autocast enablement and dtype per device;
- ``EQUALS_MATCH`` on the plain value attributes of every module (Dropout's ``p`` ...) and on the globals and
  closure cells the function's own code names (``ID_MATCH`` for tensors among them);
- ``HOOKS``: no forward/backward hooks were added to the modules or the global tables since tracing.

:class:`GuardSet` compiles all of them into one generated Python function (one boolean expression), so a
cache hit costs one call; when it fails, :meth:`GuardSet.failure_reason` re-checks guard by guard to name
the first failure (``tensor 'x' size mismatch at index 0. expected 3, actual 4``), for the recompile log.

Invariant: ``check(leaves)`` is True exactly when every guard holds; guard constants are held strongly, so an
identity check can never be fooled by a recycled ``id``.
"""

from __future__ import annotations

from glasstorch._core import grad_state
from glasstorch._core.device import device as _device_cls
from glasstorch._core.dispatch_key import AUTOCAST_SET, tls
from glasstorch._core.dtype import dtype as _dtype_cls
from glasstorch._ops import autocast as _autocast
from glasstorch.tensor import Tensor

__all__ = ["Guard", "GuardBuilder", "GuardSet", "global_state", "describe_global_state"]

_AUTOCAST_DEVICES = ("cpu", "cuda", "emu")
_gs = grad_state.state


def global_state() -> tuple:
    """The global state a graph depends on: grad mode, inference mode, autocast on/off and dtypes."""
    off = tls.excluded & AUTOCAST_SET
    if off == AUTOCAST_SET:
        return (_gs.enabled, _gs.inference, off)
    return (_gs.enabled, _gs.inference, off, tuple(_autocast.get_dtype(d) for d in _AUTOCAST_DEVICES))


def describe_global_state(expected: tuple, actual: tuple) -> str:
    """``GLOBAL_STATE changed: grad_mode`` naming every component that differs."""
    names = []
    if expected[0] != actual[0]:
        names.append("grad_mode")
    if expected[1] != actual[1]:
        names.append("inference_mode")
    if expected[2:] != actual[2:]:
        names.append("autocast")
    return "GLOBAL_STATE changed: " + ", ".join(names)


def _state_text(state: tuple) -> str:
    if len(state) == 3:
        autocast = "off"
    else:
        on = [d for d in _AUTOCAST_DEVICES if not state[2] & _autocast._key_bit(d)]
        autocast = ", ".join(f"{d}:{dt}" for d, dt in zip(_AUTOCAST_DEVICES, state[3], strict=True) if d in on)
    return f"grad_mode={state[0]}, inference_mode={state[1]}, autocast={autocast}"


_VALUE_TYPES = (int, float, str, complex, bytes, bool, type(None), range, _dtype_cls, _device_cls)


def _by_value(value) -> bool:
    """Values guarded by equality: numbers, strings, dtypes, devices, and tuples (``torch.Size``) of them;
    anything else is guarded by identity."""
    if type(value) in _VALUE_TYPES:
        return True
    return isinstance(value, (tuple, frozenset)) and all(_by_value(v) for v in value)


def _by_identity(value) -> bool:
    return value is None or type(value) is bool


_MISSING = object()
_HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")


class Guard:
    """One guarded fact: ``name`` (its source, e.g. ``L['x']``), ``create_fn_name`` (the kind), ``code_list``
    (readable conditions), ``expr`` (the Python check on ``L``, the flat inputs) and a failure describer."""

    __slots__ = ("name", "source", "create_fn_name", "code_list", "expr", "_describe", "_check")

    def __init__(self, name, source, create_fn_name, code_list, expr, describe):
        self.name, self.source, self.create_fn_name = name, source, create_fn_name
        self.code_list, self.expr, self._describe = code_list, expr, describe
        self._check = None

    def describe_failure(self, leaves) -> str:
        return self._describe(leaves)

    def __repr__(self) -> str:
        return (f"Guard(name={self.name!r}, source={self.source!r}, create_fn={self.create_fn_name}, "
                f"code={self.code_list})")

    def __str__(self) -> str:
        lines = [f"Name: {self.name!r}", f"    Source: {self.source}", f"    Create Function: {self.create_fn_name}",
                 f"    Guard Types: [{self.create_fn_name!r}]", f"    Code List: {self.code_list}"]
        return "\n".join(lines)


def _short_name(name: str) -> str:
    # PyTorch names a local tensor by its bare name in messages: tensor 'x'
    if name.startswith("L['") and name.endswith("']") and name.count("'") == 2:
        return name[3:-2]
    return name


def tensor_mismatch(name: str, t, expected: dict) -> str | None:
    """PyTorch's TENSOR_MATCH failure text for ``t`` against the recorded properties, or None when it matches."""
    label = f"tensor '{_short_name(name)}'"
    if not isinstance(t, Tensor) or type(t) is not expected["type"]:
        return f"{label} type mismatch. expected {expected['type'].__name__}, actual {type(t).__name__}"
    impl = t._impl
    if impl.dtype is not expected["dtype"]:
        return f"{label} dtype mismatch. expected {expected['dtype']._short}, actual {impl.dtype._short}"
    if impl.device != expected["device"]:
        return f"{label} device mismatch. expected {expected['device']}, actual {impl.device}"
    for what in ("sizes", "strides"):
        want, got = expected.get(what), getattr(impl, what)
        if want is None or want == got:
            continue
        word = "size" if what == "sizes" else "stride"
        if len(want) != len(got):
            return f"{label} rank mismatch. expected {len(want)}, actual {len(got)}"
        i = next(i for i, (a, b) in enumerate(zip(want, got, strict=True)) if a != b)
        return f"{label} {word} mismatch at index {i}. expected {want[i]}, actual {got[i]}"
    if t.requires_grad is not expected["requires_grad"]:
        return f"{label} requires_grad mismatch. expected requires_grad={int(expected['requires_grad'])}"
    return None


def _alias_pattern(tensors) -> tuple:
    """For each tensor the index of the first input that is the same object (``(0, 1, 0)``: inputs 0 and 2)."""
    first: dict = {}
    return tuple(first.setdefault(id(t), i) for i, t in enumerate(tensors))


class GuardBuilder:
    """Collects guards and the constants their generated check refers to."""

    def __init__(self):
        self.guards: list[Guard] = []
        self.ns: dict = {"global_state": global_state}
        self._n = 0

    def const(self, value) -> str:
        name = f"___c{self._n}"
        self._n += 1
        self.ns[name] = value
        return name

    def tensor_match(self, access: str, name: str, t, *, strides: bool = True, source: str = "local") -> None:
        """TENSOR_MATCH; ``strides=False`` is the parameter/buffer form (identity is guarded separately, so the
        type, device and strides cannot change without the dtype/sizes/identity checks failing too)."""
        impl = t._impl
        expected = {"type": type(t), "dtype": impl.dtype, "device": impl.device, "sizes": impl.sizes,
                    "strides": impl.strides if strides else None, "requires_grad": t.requires_grad}
        parts = [f"(___i := {access}._impl).dtype is {self.const(impl.dtype)}",
                 f"___i.sizes == {self.const(impl.sizes)}"]
        if strides:
            parts = [f"type({access}) is {self.const(type(t))}", *parts,
                     f"___i.device == {self.const(impl.device)}", f"___i.strides == {self.const(impl.strides)}"]
        parts.append(f"{access}.requires_grad is {expected['requires_grad']}")
        code = [f"check_tensor({name}, {type(t).__name__}, {impl.dtype}, device={impl.device}, "
                f"requires_grad={expected['requires_grad']}, size={list(impl.sizes)}"
                + (f", stride={list(impl.strides)})" if strides else ")")]
        access_fn = self._accessor(access)
        self._add(name, source, "TENSOR_MATCH", code, " and ".join(parts),
                  lambda leaves: tensor_mismatch(name, access_fn(leaves), expected))

    def constant_match(self, access: str, name: str, value, source: str = "local") -> None:
        t = type(value)
        if value is None or t is bool:
            expr, code, kind = f"{access} is {value!r}", f"{name} is {value!r}", "CONSTANT_MATCH"
        elif _by_value(value):
            expr = f"type({access}) is {self.const(t)} and {access} == {self.const(value)}"
            code, kind = f"{name} == {value!r}", "EQUALS_MATCH"
        else:
            expr, code, kind = f"{access} is {self.const(value)}", f"___check_obj_id({name}, {id(value)})", "ID_MATCH"
        self._add(name, source, kind, [code], expr, lambda leaves: code)

    def module_training(self, module, name: str) -> None:
        flag = module.training
        code = f"{name}.training == {flag}"
        self._add(name, "local_nn_module", "NN_MODULE", [code], f"{self.const(module)}.training is {flag}",
                  lambda leaves: code)

    def module_attributes(self, module, name: str) -> None:
        """EQUALS_MATCH on the module's plain value attributes (``p`` of Dropout, ``eps``, user flags)."""
        items = [(k, v) for k, v in module.__dict__.items() if k[:1] != "_" and k != "training" and _by_value(v)]
        if not items:
            return
        d = self.const(module.__dict__)
        expr = " and ".join(f"{d}.get({k!r}) {'is' if _by_identity(v) else '=='} {self.const(v)}" for k, v in items)
        code = [f"{name}.{k} == {v!r}" for k, v in items]
        self._add(name, "local_nn_module", "EQUALS_MATCH", code, expr,
                  lambda leaves: next((c for (k, v), c in zip(items, code, strict=True)
                                       if module.__dict__.get(k, _MISSING) != v), code[0]))

    def no_hooks(self, modules, global_tables) -> None:
        """HOOKS: no module (nor the global tables) has forward/backward hooks, as when the graph was traced."""
        hook_dicts = [m.__dict__.get(k) for m in modules for k in _HOOK_DICTS] + list(global_tables)
        hook_dicts = [d for d in hook_dicts if d is not None]
        if not hook_dicts:
            return
        expr = "not (" + " or ".join(self.const(d) for d in hook_dicts) + ")"
        code = "no forward/backward hooks on the modules or globally"
        self._add("", "local_nn_module", "HOOKS", [code], expr, lambda leaves: f"hooks were added ({code} failed)")

    def function_state(self, fn) -> None:
        """Globals and closure cells the function's own code names: values by equality, tensors by identity."""
        fn = getattr(fn, "__func__", fn)
        code = getattr(fn, "__code__", None)
        if code is None:
            return
        g = getattr(fn, "__globals__", {})
        for k in code.co_names:
            if k in g:
                self._cell_guard(f"G[{k!r}]", g, k, g[k])
        for k, cell in zip(code.co_freevars, getattr(fn, "__closure__", None) or (), strict=False):
            try:
                v = cell.cell_contents
            except ValueError:
                continue
            self._cell_guard(f"L[{k!r}]", cell, None, v)

    def _cell_guard(self, name, holder, key, v) -> None:
        if isinstance(v, Tensor):
            op, kind = "is", "ID_MATCH"
        elif _by_value(v) and not isinstance(v, type):
            op, kind = ("is" if _by_identity(v) else "=="), "EQUALS_MATCH"
        else:
            return
        h = self.const(holder)
        access = f"{h}.get({key!r})" if key is not None else f"{h}.cell_contents"
        code = f"{name} {op} {v!r}" if kind == "EQUALS_MATCH" else f"___check_obj_id({name}, {id(v)})"
        self._add(name, "global" if key is not None else "closure", kind, [code],
                  f"{access} {op} {self.const(v)}", lambda leaves: code)

    def member_identity(self, module, store: str, key: str, obj, name: str) -> str:
        """ID_MATCH that ``module.<store>[key]`` is still ``obj``; returns the constant naming ``obj``."""
        holder, held = self.const(module), self.const(obj)
        code = f"___check_obj_id({name}, {id(obj)})"
        self._add(name, "local_nn_module", "ID_MATCH", [code], f"{holder}.{store}.get({key!r}) is {held}",
                  lambda leaves: code)
        return held

    def duplicate_inputs(self, positions, tensors, names) -> None:
        """DUPLICATE_INPUT: which tensor inputs are the same object must stay as it was when traced."""
        pattern = _alias_pattern(tensors)
        pos = self.const(tuple(positions))
        code = f"alias pattern of {names} == {pattern}"
        self._add("", "local", "DUPLICATE_INPUT", [code], f"alias_pattern([L[i] for i in {pos}]) == {pattern}",
                  lambda leaves: f"duplicate inputs changed: {code}")
        self.ns["alias_pattern"] = _alias_pattern

    def global_state_match(self) -> None:
        state = global_state()
        self._add("", "global", "GLOBAL_STATE", [f"___check_global_state() == ({_state_text(state)})"],
                  f"global_state() == {self.const(state)}",
                  lambda leaves: describe_global_state(state, global_state()))

    def _accessor(self, access: str):
        return eval(f"lambda L: {access}", dict(self.ns))  # noqa: S307 - our own generated expression

    def _add(self, name, source, kind, code, expr, describe) -> None:
        self.guards.append(Guard(name, source, kind, code, expr, describe))

    def build(self) -> GuardSet:
        return GuardSet(self.guards, self.ns)


class GuardSet:
    """All guards of one cache entry, compiled into ``check(L) -> bool``."""

    __slots__ = ("guards", "check", "source", "_ns")

    def __init__(self, guards: list[Guard], ns: dict):
        self.guards = guards
        self._ns = ns
        body = " and\n        ".join(f"({g.expr})" for g in guards) or "True"
        self.source = f"def check(L):\n    return (\n        {body}\n    )\n"
        scope = dict(ns)
        exec(compile(self.source, "<glasstorch guards>", "exec"), scope)  # noqa: S102 - generated from guards
        self.check = scope["check"]

    def failure_reason(self, leaves) -> str | None:
        """The description of the first guard that fails on ``leaves`` (None when all hold)."""
        for g in self.guards:
            if g._check is None:
                g._check = eval(f"lambda L: bool({g.expr})", dict(self._ns))  # noqa: S307
            try:
                ok = g._check(leaves)
            except Exception:  # a structure mismatch (e.g. a missing key) is a failure too
                ok = False
            if not ok:
                return g.describe_failure(leaves)
        return None

    def __len__(self) -> int:
        return len(self.guards)

    def code_text(self) -> str:
        """Every guard's readable code, one per line (the ``guards`` log artifact and the debug dir)."""
        return "\n".join(f"| +- {g.create_fn_name}: {c}" for g in self.guards for c in g.code_list)
