"""Effects of FX nodes: which calls mutate, which draw random numbers — PyTorch's ``Node.is_impure`` and
``torch._library.utils.is_impure``.

Dead-code elimination keeps a node nobody reads when it is *impure*; common-subexpression elimination
never merges a mutating or random node and treats a mutation as a barrier.  The rules, by opcode:

* placeholder, output: always impure;
* call_function: a registered side-effectful function (``has_side_effect``; ``operator.setitem`` and the
  in-place operators ``operator.iadd`` ...), an OpOverload with a mutable schema, an in-place function
  (``relu_``), a call with ``out=`` or ``inplace=True``, or a random function (``rand``, ``dropout`` ...);
* call_method: an in-place method (``add_``), ``__setitem__``, ``backward`` and other effectful methods, a call
  with ``out=``/``inplace=True``, or a random method (``bernoulli``, ``uniform_``);
* call_module: a module with ``_is_impure = True`` or ``inplace = True`` (``nn.ReLU(inplace=True)``);
* get_attr: pure.

Invariant: the classification reads only the node (op, target, args, kwargs, owning module); it never runs it.
"""

from __future__ import annotations

import operator

__all__ = ["has_side_effect", "is_mutating", "is_random", "node_is_impure"]

_INPLACE_OPERATORS = {operator.iadd, operator.isub, operator.imul, operator.itruediv, operator.ifloordiv,
                      operator.imod, operator.ipow, operator.imatmul, operator.iand, operator.ior, operator.ixor,
                      operator.ilshift, operator.irshift, operator.setitem, operator.delitem}

# Functions DCE must keep although nobody uses their result (their effect is the point).
_side_effectful_functions: set = set(_INPLACE_OPERATORS) | {print}

_EFFECTFUL_METHODS = frozenset({"__setitem__", "__delitem__", "backward", "register_hook", "retain_grad",
                                "record_stream", "copy_", "set_", "resize_", "fill_", "zero_"})

# Operators that draw from a random generator (PyTorch's ``nondeterministic_seeded`` ops and their wrappers).
_RANDOM_NAMES = frozenset({
    "rand", "randn", "randint", "randperm", "rand_like", "randn_like", "randint_like", "bernoulli", "bernoulli_",
    "multinomial", "normal", "normal_", "poisson", "uniform_", "exponential_", "geometric_", "cauchy_",
    "log_normal_", "random_", "dropout", "dropout_", "alpha_dropout", "alpha_dropout_", "feature_alpha_dropout",
    "feature_alpha_dropout_", "feature_dropout", "feature_dropout_", "dropout1d", "dropout2d", "dropout3d",
    "native_dropout", "_fused_dropout", "rrelu", "rrelu_", "rrelu_with_noise", "gumbel_softmax",
    "scaled_dot_product_attention", "_scaled_dot_product_attention_math", "embedding_renorm_",
})


def has_side_effect(fn):
    """Register ``fn`` so that dead-code elimination keeps its calls (``torch.fx.node.has_side_effect``)."""
    _side_effectful_functions.add(fn)
    return fn


def _target_name(target) -> str:
    schema = getattr(target, "_schema", None)
    if schema is not None and type(target).__name__ == "OpOverload":
        return schema.name.split("::")[-1]
    if isinstance(target, str):
        return target
    return getattr(target, "__name__", "") or ""


def _is_inplace_name(name: str) -> bool:
    return name.endswith("_") and not name.endswith("__")


def _writes_through_kwargs(node) -> bool:
    kw = node.kwargs
    return kw.get("out") is not None or kw.get("inplace") is True


def is_mutating(node) -> bool:
    """Whether the call writes into one of its inputs or has another effect beyond its result."""
    if node.op == "call_function":
        target = node.target
        try:
            if target in _side_effectful_functions:
                return True
        except TypeError:  # an unhashable callable cannot have been registered
            pass
        schema = getattr(target, "_schema", None)
        if schema is not None and getattr(schema, "is_mutable", False):
            return True
        return _is_inplace_name(_target_name(target)) or _writes_through_kwargs(node)
    if node.op == "call_method":
        name = node.target
        return _is_inplace_name(name) or name in _EFFECTFUL_METHODS or _writes_through_kwargs(node)
    if node.op == "call_module":
        mod = _submodule(node)
        return mod is None or getattr(mod, "_is_impure", False) is True or getattr(mod, "inplace", False) is True
    return False


def is_random(node) -> bool:
    """Whether the call draws from a random generator (two calls give different results)."""
    if node.op not in ("call_function", "call_method"):
        return False
    return _target_name(node.target) in _RANDOM_NAMES


def _submodule(node):
    owner = node.graph.owning_module
    if owner is None:
        return None
    try:
        return owner.get_submodule(node.target)
    except AttributeError:
        return None


def node_is_impure(node, impure_random: bool = True) -> bool:
    """``Node.is_impure``: see the module docstring."""
    if node.op in ("placeholder", "output"):
        return True
    if node.op == "get_attr":
        return False
    return is_mutating(node) or (impure_random and is_random(node))
