"""Temporary patches made while a symbolic trace runs — PyTorch's ``_Patcher`` and ``wrap`` machinery in
``torch/fx/_symbolic_trace.py``.

A trace patches ``nn.Module.__call__``/``__getattr__`` (so module calls and parameter reads are seen) and
replaces *leaf functions* by wrappers that record a ``call_function`` node when an argument is a Proxy and
call through otherwise.  Leaf functions are: those registered with ``fx.wrap``, the public functions of
the autowrap modules (``math``), and the glasstorch functions written in Python that PyTorch dispatches
through ``__torch_function__`` (``nn.functional.relu``, ``softmax``, ``layer_norm``, ``zeros_like``,
``split`` ...; see ``_symbolic_trace._torch_function_leaves``).  Every patch is undone when the trace ends.

Invariant: after a trace (normal or failed) every patched dict or class holds its original value again.
"""

from __future__ import annotations

import builtins
import functools
import inspect

from .proxy import Proxy

__all__ = ["autowrap_check", "keyword_normalizer", "patch_wrapped_functions"]

# (id of a module's globals, function name) -> those globals: functions registered with wrap()
_wrapped_fns_to_patch: dict = {}
_MISSING = object()


def _find_proxy(*objects):
    """The first Proxy inside ``objects`` (through tuples, lists, dicts and slices), or None."""
    stack = list(objects)
    while stack:
        x = stack.pop(0)
        if isinstance(x, Proxy):
            return x
        if isinstance(x, (list, tuple)):
            stack[:0] = list(x)
        elif isinstance(x, dict):
            stack[:0] = list(x.values())
        elif isinstance(x, slice):
            stack[:0] = [x.start, x.stop, x.step]
    return None


def _create_wrapped_func(orig_fn, normalize=None, mark_wrapped: bool = True):
    """A wrapper recording ``orig_fn`` as one ``call_function`` when given a Proxy.

    ``normalize(args, kwargs)`` (optional) rewrites the arguments the way PyTorch's ``__torch_function__``
    dispatch passes them (parameters with defaults as keywords).  ``mark_wrapped`` sets ``meta["is_wrapped"]``
    (the generated code then repeats the ``wrap()`` registration); glasstorch's own leaves do not need it.
    """
    @functools.wraps(orig_fn)
    def wrapped(*args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is None:
            return orig_fn(*args, **kwargs)
        if normalize is not None:
            args, kwargs = normalize(args, kwargs)
        out = proxy.tracer.create_proxy("call_function", orig_fn, args, kwargs)
        if mark_wrapped:
            out.node.meta["is_wrapped"] = True
        return out
    wrapped.__fx_orig_fn = orig_fn
    return wrapped


def recording_call(orig_call):
    """A replacement ``__call__`` for operator objects (``OpOverload``): records the operator itself as the
    target when an argument is a Proxy, calls it otherwise."""
    @functools.wraps(orig_call)
    def call(op, *args, **kwargs):
        proxy = _find_proxy(args, kwargs)
        if proxy is None:
            return orig_call(op, *args, **kwargs)
        tracer = proxy.tracer
        return tracer.create_proxy("call_function", op, args, kwargs, name=tracer.graph._target_to_str(op))
    return call


def keyword_normalizer(fn):
    """``(args, kwargs) -> (args, kwargs)`` with every parameter that has a default passed by keyword (filled in
    when the caller left it out), as PyTorch's Python functions call ``handle_torch_function``."""
    sig = inspect.signature(fn)

    def normalize(args, kwargs):
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError:
            fn(*args, **kwargs)  # raises Python's own TypeError for the bad call, at trace time
            return args, kwargs
        bound.apply_defaults()
        pos, kw = [], {}
        for name, value in bound.arguments.items():
            p = sig.parameters[name]
            if p.kind is p.VAR_POSITIONAL:
                pos.extend(value)
            elif p.kind is p.VAR_KEYWORD:
                kw.update(value)
            elif p.default is p.empty and p.kind is not p.KEYWORD_ONLY:
                pos.append(value)
            else:
                kw[name] = value
        return tuple(pos), kw
    return normalize


class _Patcher:
    """Records every replacement so that :meth:`revert_all_patches` restores the originals."""

    def __init__(self) -> None:
        self.patches_made: list = []  # (kind, holder, name, original)
        self.visited: set = set()

    def patch(self, frame_dict: dict, name: str, new_fn) -> None:
        """``frame_dict[name] = new_fn`` until the trace ends (a builtin name gets a global that shadows it)."""
        if name not in frame_dict and hasattr(builtins, name):
            self.patches_made.append(("dict", frame_dict, name, _MISSING))
        elif getattr(frame_dict[name], "__fx_already_patched", False):
            return
        else:
            self.patches_made.append(("dict", frame_dict, name, frame_dict[name]))
        new_fn.__fx_already_patched = True
        frame_dict[name] = new_fn

    def patch_method(self, cls: type, name: str, new_fn) -> None:
        """``cls.name = new_fn`` until the trace ends."""
        original = cls.__dict__.get(name, _MISSING)
        self.patches_made.append(("class", cls, name, original))
        setattr(cls, name, new_fn)

    def visit_once(self, thing) -> bool:
        """True the first time ``thing`` is seen."""
        key = id(thing)
        if key in self.visited:
            return False
        self.visited.add(key)
        return True

    def revert_all_patches(self) -> None:
        while self.patches_made:
            kind, holder, name, original = self.patches_made.pop()
            if kind == "dict":
                if original is _MISSING:
                    del holder[name]
                else:
                    holder[name] = original
            elif original is _MISSING:
                delattr(holder, name)
            else:
                setattr(holder, name, original)
        self.visited.clear()

    def __enter__(self) -> _Patcher:
        return self

    def __exit__(self, *exc) -> None:
        self.revert_all_patches()


def patch_wrapped_functions(patcher: _Patcher) -> None:
    """Replace every function registered with :func:`wrap` by its recording wrapper."""
    for (_, name), frame_dict in list(_wrapped_fns_to_patch.items()):
        orig_fn = getattr(builtins, name) if name not in frame_dict and hasattr(builtins, name) else frame_dict[name]
        patcher.patch(frame_dict, name, _create_wrapped_func(orig_fn))


def autowrap_check(patcher: _Patcher, frame_dict: dict, leaves: dict) -> None:
    """Wrap, in ``frame_dict`` (a module's globals), every public name bound to a leaf function.

    ``leaves`` maps ``id(function)`` to ``(normalizer or None, mark_wrapped)``."""
    if not patcher.visit_once(frame_dict):
        return
    for name, value in list(frame_dict.items()):
        if not name.startswith("_") and callable(value) and id(value) in leaves:
            normalize, mark = leaves[id(value)]
            patcher.patch(frame_dict, name, _create_wrapped_func(value, normalize, mark))
