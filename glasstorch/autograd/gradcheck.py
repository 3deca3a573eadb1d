"""Finite-difference gradient checks — PyTorch's ``torch/autograd/gradcheck.py`` (``gradcheck``, ``gradgradcheck``).

``gradcheck(func, inputs)`` compares, for every differentiable output ``o`` and every input ``x`` that
requires grad, two Jacobians of shape ``(x.numel(), o.numel())``:

- numerical: central differences ``(f(x + eps e_j) - f(x - eps e_j)) / (2 eps)``, perturbing one element
  of ``x.data`` at a time (so no version bump and no graph);
- analytical: one backward per element of ``o`` with a one-hot ``grad_output``; it is computed twice and
  both must agree (to ``nondet_tol``), otherwise backward is "not reentrant".

They must satisfy ``allclose(analytical, numerical, rtol, atol)``.  Then backward must be linear in
``grad_output`` (zero in, zero out) and cope with undefined output gradients.  A failure raises
:class:`GradcheckError` (a RuntimeError), or returns False with ``raise_exception=False``.

Complex inputs and outputs are checked through their real and imaginary parts (Note [Complex gradcheck]).

``gradgradcheck`` runs gradcheck on the function ``(inputs, grad_outputs) -> autograd.grad(...,
create_graph=True)``, checking second derivatives.

Invariant: the inputs are restored exactly after every perturbation.
"""

from __future__ import annotations

import collections.abc
import itertools
import sys
import warnings

from .._core.layout import sparse_coo, strided
from .._ops.kernels.sparse.compressed import value_positions
from . import forward_ad as _fwad
from . import graph as _graph

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError", "get_numerical_jacobian", "get_analytical_jacobian"]


class GradcheckError(RuntimeError):
    """Raised by :func:`gradcheck` and :func:`gradgradcheck` when a check fails."""


_NONDET_HINT = """

NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""

_NOT_REENTRANT = ("Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
                  "gives different values, although analytical gradient matches numerical gradient.The tolerance for "
                  "nondeterminism was {}." + _NONDET_HINT)

_UNDEFINED_HINT = 'Please look at "Notes about undefined output gradients" in "tools/autograd/derivatives.yaml"'


def _torch():
    return sys.modules["glasstorch"]


def _is_tensor(x) -> bool:
    return isinstance(x, _torch().Tensor)


def _as_tuple(x) -> tuple:
    if isinstance(x, tuple):
        return x
    if isinstance(x, list):
        return tuple(x)
    return (x,)


def _differentiable_outputs(x) -> tuple:
    return tuple(o for o in _as_tuple(x) if _is_tensor(o) and o.requires_grad)


def _diff_inputs(inputs) -> list:
    return [x for x in inputs if _is_tensor(x) and x.requires_grad]


def _check_inputs(inputs) -> None:
    torch = _torch()
    any_grad = False
    for idx, inp in enumerate(inputs):
        if not (_is_tensor(inp) and inp.requires_grad):
            continue
        if inp.dtype not in (torch.float64, torch.complex128):
            warnings.warn(f"Input #{idx} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating point "
                          "or complex. ", stacklevel=3)
        if inp.layout is strided and not all(st > 0 or sz <= 1 for st, sz in zip(inp.stride(), inp.size(),
                                                                                      strict=False)):
            raise RuntimeError(f"The {idx}th input has a dimension with stride 0. gradcheck only supports inputs that "
                               "are non-overlapping to be able to compute the numerical gradients correctly. You "
                               "should call .contiguous on the input before passing it to gradcheck.")
        any_grad = True
    if not any_grad:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")


# -- numerical Jacobian -------------------------------------------------------------------------------------
def _snapshot(out) -> list:
    """Detached copies of ``out``'s tensors, taken before the next perturbation (Note [Outputs that are views])."""
    return [o.detach().clone() for o in _as_tuple(out) if _is_tensor(o)]


# Note [Outputs that are views]
# An output may be a view of the input (``x.view(-1)``, ``x.t()``): it reads the perturbed storage, so without a
# copy the "minus" output follows the input to ``+eps`` and every numerical derivative is zero. PyTorch's
# gradcheck clones each output as it is computed; so do we, in both the slow and the fast check.


def _values_alias(t):
    """A tensor aliasing the values of sparse ``t`` (no autograd), for perturbing them in place."""
    part = t._impl.sparse.values
    return _graph.to_tensor(part.view_impl(part.sizes, part.strides, part.offset))


def _sparse_numerical_jacobian_wrt(func, inputs, target, outs, eps) -> list:
    """The Jacobians of a sparse ``target``: its specified elements (the entries of its values) are perturbed; each
    lands in the row of its dense position, the rows of unspecified elements stay zero (PyTorch's
    ``_iter_tensor`` on sparse inputs)."""
    torch = _torch()
    values = _values_alias(target)
    rows = value_positions(target._impl)
    jacs = [torch.zeros(target.numel(), o.numel(), dtype=o.dtype) for o in outs]
    for k, idx in enumerate(itertools.product(*[range(n) for n in values.size()])):
        entry = values[idx] if idx else values
        orig = entry.clone()
        column = _central_differences(func, inputs, entry, orig, eps, eps)
        if values.is_complex():  # Note [Complex gradcheck]
            dy = _central_differences(func, inputs, entry, orig, eps * 1j, eps)
            column = [dx + d * 1j for dx, d in zip(column, dy, strict=True)]
        for jac, c in zip(jacs, column, strict=False):
            jac[int(rows[k])] = c
    return jacs


def _numerical_jacobian_wrt(func, inputs, target, outs, eps) -> list:
    """One (target.numel(), o.numel()) Jacobian per output tensor in ``outs``, perturbing ``target.data``."""
    if target.layout is not strided:
        return _sparse_numerical_jacobian_wrt(func, inputs, target, outs, eps)
    torch = _torch()
    data = target.data
    cols = [[] for _ in outs]
    for idx in itertools.product(*[range(n) for n in data.size()]):
        entry = data[idx] if idx else data
        orig = entry.clone()
        column = _central_differences(func, inputs, entry, orig, eps, eps, idx)
        if data.is_complex():  # Note [Complex gradcheck]: ds/dx + i ds/dy, the conjugate Wirtinger derivative
            dy = _central_differences(func, inputs, entry, orig, eps * 1j, eps, idx)
            column = [dx + d * 1j for dx, d in zip(column, dy, strict=True)]
        for k, c in enumerate(column[:len(cols)]):
            cols[k].append(c)
    return [torch.stack(c, 0) if c else torch.zeros(0, o.numel(), dtype=o.dtype) for c, o in zip(cols, outs,
                                                                                                     strict=True)]


def _numerical_jacobian(func, inputs, outputs, eps) -> list:
    """``J[j][i]``: (inputs[j].numel(), outputs[i].numel()) for every input j that requires grad, every output i."""
    outs = [o for o in outputs if _is_tensor(o)]
    return [_numerical_jacobian_wrt(func, inputs, inp, outs, eps) for inp in _diff_inputs(inputs)]


def _iter_tensors(x, only_requiring_grad: bool = False):
    """The tensors in ``x`` (a tensor or nested iterables of them), optionally only those that require grad."""
    if _is_tensor(x):
        if x.requires_grad or not only_requiring_grad:
            yield x
    elif isinstance(x, collections.abc.Iterable) and not isinstance(x, str):
        for elem in x:
            yield from _iter_tensors(elem, only_requiring_grad)


def _get_numerical_jacobian(fn, inputs, outputs=None, target=None, eps=1e-3, is_forward_ad=False) -> list:
    """For each tensor of ``target`` (default ``inputs``) that requires grad, a tuple of Jacobians
    (target.numel(), o.numel()), one per floating or complex output ``o`` of ``fn(*inputs)``.

    ``target`` may be tensors ``fn`` reaches without taking them as arguments (a module's parameters):
    their ``.data`` is perturbed in place and restored.
    """
    if outputs is None:
        outputs = _as_tuple(fn(*_as_tuple(inputs)))
    if not is_forward_ad and any(o.is_complex() for o in outputs):
        raise ValueError("Expected output to be non-complex. get_numerical_jacobian no longer supports functions "
                         "that return complex outputs.")
    def inexact(out):
        return [o for o in _as_tuple(out) if _is_tensor(o) and (o.is_floating_point() or o.is_complex())]

    inputs = _as_tuple(inputs)
    target = inputs if target is None else target
    return [tuple(_numerical_jacobian_wrt(lambda *a: inexact(fn(*a)), inputs, t, inexact(outputs), eps))
            for t in _iter_tensors(target, True)]


def _private_api(name: str) -> None:
    warnings.warn(f"`{name}` was part of PyTorch's private API and not meant to be exposed. We are deprecating it "
                  "and it will be removed in a future version of PyTorch. If you have a specific use for this or "
                  "feature request for this to be a stable API, please file us an issue at "
                  "https://github.com/pytorch/pytorch/issues/new", FutureWarning, stacklevel=3)


def get_numerical_jacobian(fn, inputs, target=None, eps=1e-3, grad_out=1.0):
    """Deprecated PyTorch API: the numerical Jacobians of ``fn(inputs)``'s first output w.r.t. each target."""
    _private_api("get_numerical_jacobian")
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_numerical_jacobian no longer supports values of "
                         "grad_out != 1.0.")
    jacobians = _get_numerical_jacobian(lambda *inps: fn(inps), inputs, None, target, eps)
    return tuple(per_output[0] for per_output in jacobians)


def get_analytical_jacobian(inputs, output, nondet_tol=0.0, grad_out=1.0):
    """Deprecated PyTorch API: (Jacobians of ``output`` w.r.t. each input that requires grad, from backward;
    reentrant, sizes_ok, types_ok)."""
    _private_api("get_analytical_jacobian")
    if grad_out != 1.0:
        raise ValueError("Expected grad_out to be 1.0. get_analytical_jacobian no longer supports values of "
                         "grad_out != 1.0.")
    if output.is_complex():
        raise ValueError("Expected output to be non-complex. get_analytical_jacobian no longer supports functions "
                         "that return complex outputs.")
    return _analytical_jacobian_parts(inputs, output, nondet_tol)


def _central_differences(func, inputs, entry, orig, delta, eps, idx=None) -> list:
    """``(f(x + delta) - f(x - delta)) / (2 eps)`` for each output, flattened, with ``entry`` (``idx``) of ``x``
    moved."""
    entry.copy_(orig - delta)
    lo = _snapshot(func(*inputs))
    entry.copy_(orig + delta)
    hi = _snapshot(func(*inputs))
    entry.copy_(orig)
    _check_same_dtype_and_shape(lo, hi, eps, idx)
    return [((b - a) / (2 * eps)).detach().reshape(-1) for a, b in zip(lo, hi, strict=False)]


def _check_same_dtype_and_shape(lo, hi, eps, idx=None) -> None:
    """PyTorch's neighbourhood check: perturbing an input must not change an output's shape or dtype."""
    on_index = "" if idx is None else f"on index {idx} "
    for a, b in zip(lo, hi, strict=False):
        assert a.shape == b.shape, (f"Expected `func` to return outputs with the same shape when inputs are perturbed "
                                    f"{on_index}by {eps}, but got: shapes {a.shape} and {b.shape}.")
        assert a.dtype == b.dtype, (f"Expected `func` to return outputs with the same dtype when inputs are perturbed "
                                    f"{on_index}by {eps}, but got: dtypes {a.dtype} and {b.dtype}.")


# -- analytical Jacobian ------------------------------------------------------------------------------------
def _analytical_jacobian_parts(inputs, output, nondet_tol) -> tuple:
    """(Jacobians, reentrant, sizes_ok, types_ok): ``J[j]`` of shape (inputs[j].numel(), output.numel()) from one
    backward per output element; computed twice, reentrant when both agree to ``nondet_tol``."""
    torch = _torch()
    diff = list(_iter_tensors(inputs, True))

    def rows():
        grad_out = torch.zeros(output.shape, dtype=output.dtype, device=output.device)  # row-major: view(-1)
        flat = grad_out.view(-1)
        per_input = [[] for _ in diff]
        for k in range(output.numel()):
            flat.zero_()
            flat[k] = 1
            grads = torch.autograd.grad(output, diff, grad_out, retain_graph=True, allow_unused=True)
            for j, g in enumerate(grads):
                per_input[j].append(None if g is None else g.clone())
        return per_input

    def stack(per_input):
        types_ok = sizes_ok = True
        jacs = []
        for inp, grads in zip(diff, per_input, strict=False):
            cols = []
            for g in grads:
                if g is None:
                    cols.append(torch.zeros(inp.numel(), dtype=inp.dtype))
                    continue
                if g.dtype != inp.dtype:
                    types_ok = False
                if g.size() != inp.size():
                    sizes_ok = False
                    cols.append(torch.zeros(inp.numel(), dtype=inp.dtype))
                    continue
                cols.append(_dense(g).reshape(-1).to(inp.dtype))
            jacs.append(torch.stack(cols, 1) if cols else torch.zeros(inp.numel(), 0, dtype=inp.dtype))
        return jacs, types_ok, sizes_ok

    jac1, types_ok, sizes_ok = stack(rows())
    jac2, _, _ = stack(rows())
    reentrant = all(a.numel() == 0 or not float((a - b).abs().max()) > nondet_tol  # PyTorch's test: NaN passes
                    for a, b in zip(jac1, jac2, strict=True))
    return jac1, reentrant, sizes_ok, types_ok


def _analytical_jacobian(inputs, output, nondet_tol, check_grad_dtypes) -> list:
    """``J[j]``: (inputs[j].numel(), output.numel()) from one backward per output element, run twice."""
    jac1, reentrant, sizes_ok, types_ok = _analytical_jacobian_parts(inputs, output, nondet_tol)
    if not types_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not sizes_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not reentrant:
        raise GradcheckError(_NOT_REENTRANT.format(nondet_tol))
    return jac1


def _dense(t):
    return t if t.layout is strided else t.to_dense()


def _densify(x):
    """A copy of sparse ``x`` with every unspecified element specified as zero (PyTorch's ``_densify``), so that
    non-masked gradcheck perturbs all elements; other inputs as they are."""
    if isinstance(x, (list, tuple)):
        return type(x)(_densify(e) for e in x)
    if not _is_tensor(x) or x.layout is strided:
        return x
    torch = _torch()
    if x.layout is sparse_coo:
        sd = x.sparse_dim()
        lead = torch.ones(x.shape[:sd], dtype=torch.int8)
        indices = lead.nonzero().t()
        values = x.detach().coalesce().to_dense().reshape((lead.numel(),) + tuple(x.shape[sd:]))
        out = torch.sparse_coo_tensor(indices, values, x.shape)._coalesced_(True)
    else:
        blocksize = tuple(x.values().shape[1:3]) if x.layout in (torch.sparse_bsr, torch.sparse_bsc) else None
        out = _densify(x.detach().to_sparse(layout=sparse_coo)).to_sparse(layout=x.layout, blocksize=blocksize)
    return out.requires_grad_(x.requires_grad)


def _check_outputs(outputs) -> None:
    if any(_is_tensor(t) and t.layout is not strided for t in _as_tuple(outputs)):
        raise ValueError("Sparse output is not supported at gradcheck yet. Please call to_dense(masked_grad=...) on "
                         "the output of fn for gradcheck.")


def _allclose(a, b, rtol, atol) -> bool:
    """``allclose(a, b)`` after type promotion: ``|a - b| <= atol + rtol * |b|`` everywhere (NaN fails)."""
    torch = _torch()
    dt = torch.promote_types(a.dtype, b.dtype)
    a, b = a.to(dt), b.to(dt)
    if a.numel() == 0:
        return True
    return bool(((a - b).abs() <= atol + rtol * b.abs()).all())


def _mismatch(a, n, i, j, part=None, mode="", of="outputs") -> str:
    prefix = "" if part is None else f"While considering the {part} part of complex {of} only, "
    return (f"{prefix}Jacobian {mode}mismatch for output {i:d} with respect to input {j:d},\nnumerical:{n}\n"
            f"analytical:{a}\n")


# -- forward-mode Jacobian ----------------------------------------------------------------------------------
def _forward_ad_jacobian(func, inputs, keep) -> list:
    """``J[j][i]``: (inputs[j].numel(), outputs[keep[i]].numel()), one row per element of input j: the output
    tangents of a forward pass whose only tangent is that element's one-hot."""
    torch = _torch()
    result = []
    diff = [k for k, x in enumerate(inputs) if _is_tensor(x) and x.requires_grad]

    def duals(k, e):
        # PyTorch's: every differentiable input is a dual of its detached value (so forward sees no input that
        # requires grad), with zero tangents but for element e of input k
        args = list(inputs)
        for j in diff:
            x = inputs[j]
            tangent = torch.zeros(x.shape, dtype=x.dtype, device=x.device)
            if j == k:
                tangent.view(-1)[e] = 1
            args[j] = _fwad.make_dual(x.detach(), tangent)
        return args

    with _fwad.dual_level():
        for k in diff:
            x = inputs[k]
            rows = [[] for _ in keep]
            for e in range(x.numel()):
                outs = [o for o in _as_tuple(func(*duals(k, e))) if _is_tensor(o)]
                for r, i in zip(rows, keep, strict=True):
                    t = _fwad.unpack_dual(outs[i]).tangent
                    r.append(torch.zeros(outs[i].numel(), dtype=outs[i].dtype) if t is None else t.reshape(-1).clone())
            result.append([torch.stack(r, 0) if r else torch.zeros(0, 0, dtype=x.dtype) for r in rows])
    return result


def _forward_ad_check(func, func_out, inputs, outputs, eps, rtol, atol, part=None, cplx=()) -> None:
    """The forward-AD Jacobians against the numerical ones (PyTorch's ``check_forward_ad``); a mismatch for one of
    the complex inputs ``cplx`` (positions) names the ``part`` of them being checked."""
    positions = [k for k, x in enumerate(inputs) if _is_tensor(x) and x.requires_grad]
    tensor_outs = [o for o in _as_tuple(func_out) if _is_tensor(o)]
    keep = [k for k, o in enumerate(tensor_outs) if o.requires_grad]
    if not keep:
        return
    numerical = _numerical_jacobian(func, inputs, _as_tuple(func_out), eps)
    forward = _forward_ad_jacobian(func, inputs, keep)
    for j, (per_input, fw) in enumerate(zip(numerical, forward, strict=True)):
        for i, k in enumerate(keep):
            if not _allclose(fw[i], per_input[k], rtol, atol):
                named = part if positions[j] in cplx else None
                raise GradcheckError(_mismatch(fw[i], per_input[k], i, j, named, "computed with forward mode ",
                                               "inputs"))


def _forward_ad_checks(func, func_out, inputs, outputs, eps, rtol, atol) -> None:
    """PyTorch's forward-AD half of ``_gradcheck_real_imag``: with complex inputs, the function is checked as one
    of their imaginary parts (real parts held), then of their real parts, so every perturbed input is real."""
    cplx = [k for k, x in enumerate(inputs) if _is_tensor(x) and x.is_complex()]
    if not cplx:
        return _forward_ad_check(func, func_out, inputs, outputs, eps, rtol, atol)
    for part, part_fn, part_inputs in _real_input_parts(func, inputs, cplx):
        part_out = part_fn(*part_inputs)
        _forward_ad_check(part_fn, part_out, part_inputs, _differentiable_outputs(part_out), eps, rtol, atol, part,
                          cplx)
    return None


def _real_input_parts(func, inputs, cplx) -> list:
    """(part, function, inputs) for the imaginary then the real part of the complex inputs at positions ``cplx``:
    the function takes that part (the other one held) so that every input it is given is real."""
    def parts_fn(rebuild):
        def part_fn(*args):
            args = list(args)
            for k in cplx:
                args[k] = rebuild(args[k], inputs[k])
            return _as_tuple(func(*args))
        return part_fn

    out = []
    for part, take, rebuild in (("imaginary", _torch().imag, lambda x, orig: orig.real + x * 1j),
                                ("real", _torch().real, lambda x, orig: x + orig.imag * 1j)):
        out.append((part, parts_fn(rebuild), tuple(take(x) if k in cplx else x for k, x in enumerate(inputs))))
    return out


def _undefined_forward_checks(func, inputs) -> None:
    """:func:`_test_undefined_forward_mode`, through the real and imaginary parts of complex inputs."""
    cplx = [k for k, x in enumerate(inputs) if _is_tensor(x) and x.is_complex()]
    if not cplx:
        return _test_undefined_forward_mode(func, inputs)
    for _part, part_fn, part_inputs in _real_input_parts(func, inputs, cplx):
        _test_undefined_forward_mode(part_fn, part_inputs)
    return None


def _slow_check(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol,
                complex_parts=None) -> None:
    func_out = _as_tuple(func_out)
    numerical = _numerical_jacobian(func, inputs, func_out, eps)
    if not outputs:
        for per_input in numerical:
            for jac in per_input:
                if bool(jac.ne(0).any()):
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    tensor_outs = [o for o in func_out if _is_tensor(o)]
    keep = [k for k, o in enumerate(tensor_outs) if o.requires_grad]
    for i, o in enumerate(outputs):
        analytical = _analytical_jacobian(inputs, o, nondet_tol, check_grad_dtypes)
        for j, (a, per_input) in enumerate(zip(analytical, numerical, strict=False)):
            n = per_input[keep[i]]
            if not _allclose(a, n, rtol, atol):
                part = complex_parts[1] if complex_parts is not None and i in complex_parts[0] else None
                raise GradcheckError(_mismatch(a, n, i, j, part))


def _random_directions(diff, outputs):
    """Fast mode's random unit ``u`` per input that requires grad and unit ``v`` per differentiable output, drawn
    from a generator of their own (as PyTorch's ``_make_vectors``): the global one is left as it was, so a random
    function (RReLU in training, under ``freeze_rng_state``) draws the same values in every evaluation."""
    gen = _torch().Generator()
    return [_unit_vector(x, gen) for x in diff], [_unit_vector(o, gen) for o in outputs]


def _unit_vector(x, gen):
    """PyTorch's ``_vec_from_tensor``: uniform entries scaled to norm 1 (so the absolute tolerance means the same
    at every size); for a sparse ``x`` only its specified elements are drawn (a dense ``u``, zero elsewhere)."""
    torch = _torch()
    if x.layout is strided:
        u = torch.rand(x.shape, dtype=x.dtype, generator=gen)
        return u / u.norm() if u.numel() else u
    step = _unit_vector(_values_alias(x), gen)
    flat = torch.zeros(x.numel(), dtype=x.dtype)
    flat.index_put_((torch.tensor(value_positions(x._impl)),), step.reshape(-1), accumulate=True)
    return flat.reshape(x.shape)


def _moved_part(x, u):
    """What a perturbation along ``u`` writes, and its step: ``x.data``, or a sparse ``x``'s values (``u`` read at
    their positions)."""
    if x.layout is strided:
        return x.data, u
    values = _values_alias(x)
    return values, u.reshape(-1)[_torch().tensor(value_positions(x._impl))].reshape(values.shape)


def _numerical_jvps(func, func_out, inputs, diff, us, eps) -> list:
    """``num[j][i]``: the central difference of differentiable output i along ``us[j]`` on input j alone."""
    num = []
    for x, u in zip(diff, us, strict=False):
        data, step = _moved_part(x, u)
        orig = data.clone()
        data.copy_(orig - eps * step)
        lo = _differentiable_like(func(*inputs), func_out)
        data.copy_(orig + eps * step)
        hi = _differentiable_like(func(*inputs), func_out)
        data.copy_(orig)
        _check_same_dtype_and_shape(lo, hi, eps)
        num.append([(b - a) / (2 * eps) for a, b in zip(lo, hi, strict=False)])
    return num


def _fast_forward_ad_check(func, func_out, inputs, outputs, eps, rtol, atol) -> None:
    """Fast mode's forward-AD check: ``v^T (J u)`` with ``J u`` from one dual pass per input, against the
    numerical one; on a mismatch (or a complex input) the whole-Jacobian check runs and reports."""
    torch = _torch()
    diff = _diff_inputs(inputs)
    tensor_outs = [o for o in _as_tuple(func_out) if _is_tensor(o)]
    keep = [k for k, o in enumerate(tensor_outs) if o.requires_grad]
    if not keep or any(x.is_complex() for x in diff):
        _forward_ad_checks(func, func_out, inputs, outputs, eps, rtol, atol)
        return
    gen = _torch().Generator()  # the global generator untouched (PyTorch's _make_vectors)
    us = [_unit_vector(x, gen) for x in diff]
    num = _numerical_jvps(func, func_out, inputs, diff, us, eps)
    positions = [k for k, x in enumerate(inputs) if _is_tensor(x) and x.requires_grad]
    agree = True
    with _fwad.dual_level():
        for j, (pos, u) in enumerate(zip(positions, us, strict=True)):
            # as PyTorch's: every differentiable input is a dual (zero tangent), input j's tangent is u
            args = list(inputs)
            for q in positions:
                x = inputs[q]
                args[q] = _fwad.make_dual(x.detach(), u if q == pos else torch.zeros(x.shape, dtype=x.dtype))
            outs = [o for o in _as_tuple(func(*args)) if _is_tensor(o)]
            for i, k in enumerate(keep):
                t = _fwad.unpack_dual(outs[k]).tangent
                n = num[j][i]
                ana = t.reshape(-1) if t is not None else torch.zeros(n.numel(), dtype=n.dtype)
                agree = agree and _allclose(ana, n.reshape(-1).to(ana.dtype), rtol, _adjusted_atol(atol, u, None))
    if not agree:  # outside the dual level: the whole-Jacobian check opens its own
        _forward_ad_checks(func, func_out, inputs, outputs, eps, rtol, atol)


def _adjusted_atol(atol, u, v) -> float:
    """Fast mode compares ``v^T A u`` with ``v^T B u``: an element-wise ``atol`` becomes ``atol * sum(u) * sum(v)``
    (``v`` None: forward mode compares ``J u`` itself)."""
    return atol * float(u.sum()) * (1.0 if v is None else float(v.sum()))


def _fast_check(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol,
                complex_parts=None) -> None:
    """``v^T J u`` for random unit ``u`` (per input) and ``v`` (per output), numerically and analytically.

    On a mismatch the full slow check runs, so the error shows whole Jacobians; so does a complex input (PyTorch's
    fast mode draws complex ``u``; here those inputs get the slow check's exact Jacobians).  A sparse input's ``u``
    lies on its specified elements, masked or not (PyTorch densifies ``u`` with the inputs, zeros outside).
    """
    torch = _torch()
    diff = _diff_inputs(inputs)
    slow = (func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol, complex_parts)
    if not outputs or any(x.is_complex() for x in diff):
        return _slow_check(*slow)
    us, vs = _random_directions(diff, outputs)
    num = _numerical_jvps(func, func_out, inputs, diff, us, eps)
    for i, (o, v) in enumerate(zip(outputs, vs, strict=False)):
        grads = torch.autograd.grad(o, diff, v, retain_graph=True, allow_unused=True)
        again = torch.autograd.grad(o, diff, v, retain_graph=True, allow_unused=True)  # PyTorch's reentrancy check
        if not all(g is None or h is None or g.numel() == 0
                   or not float((_dense(g) - _dense(h)).abs().max()) > nondet_tol  # a sparse grad compared densely
                   for g, h in zip(grads, again, strict=True)):
            raise GradcheckError(_NOT_REENTRANT.format(nondet_tol))
        for j, (g, u) in enumerate(zip(grads, us, strict=False)):
            ana = (_dense(g) * u).sum() if g is not None else torch.zeros((), dtype=u.dtype)
            numv = (num[j][i].to(v.dtype) * v).sum()
            if not _allclose(ana.reshape(1), numv.reshape(1), rtol, _adjusted_atol(atol, u, v)):
                return _slow_check(*slow)
    return None


def _differentiable_like(out, reference) -> list:
    """Detached copies of the outputs of ``out`` whose counterpart in ``reference`` is differentiable (Note
    [Outputs that are views])."""
    ref = _as_tuple(reference)
    return [o.detach().clone() for o, r in zip(_as_tuple(out), ref, strict=False) if _is_tensor(r) and r.requires_grad]


def _check_grad_layout(gi, di):
    """A sparse gradient must have its input's layout and sparse/dense dims; both are then compared densely."""
    if gi.layout is strided:
        return gi, di
    if gi.layout is not di.layout:
        raise GradcheckError(f"grad is incorrect layout ({gi.layout} is not {di.layout})")
    kind = str(gi.layout).replace("torch.", "").replace("_coo", "")
    if gi.sparse_dim() != di.sparse_dim():
        raise GradcheckError(f"grad is {kind} tensor, but has incorrect sparse_dim {gi.sparse_dim()}, expected "
                             f"{di.sparse_dim()}")
    if gi.dense_dim() != di.dense_dim():
        raise GradcheckError(f"grad is {kind} tensor, but has incorrect dense_dim {gi.dense_dim()}, expected "
                             f"{di.dense_dim()}")
    return gi.to_dense(), di.to_dense()


def _check_backward_linear(outputs, inputs, masked=False) -> None:
    """Backward must be multiplied by grad_output: zero grad_outputs give zero (or no) gradients."""
    torch = _torch()
    diff = _diff_inputs(inputs)
    grads = torch.autograd.grad(outputs, diff, [torch.zeros_like(o) for o in outputs], allow_unused=True)
    for gi, di in zip(grads, diff, strict=False):
        if gi is None:
            continue
        gi, di = _check_grad_layout(gi, di)
        if not (bool(torch.allclose(gi, torch.zeros_like(gi))) if masked else bool(gi.eq(0).all())):
            raise GradcheckError("backward not multiplied by grad_output")
        if gi.dtype != di.dtype:
            raise GradcheckError("grad is incorrect type")
        if gi.device != di.device:
            raise GradcheckError("grad is incorrect device")
        if gi.size() != di.size():
            raise GradcheckError("grad is incorrect size")


def _check_undefined_grad(func, inputs) -> None:
    """Backward must accept undefined (None) output gradients and then produce undefined or zero ones."""
    from . import engine as _engine

    diff = _diff_inputs(inputs)
    outs = _differentiable_outputs(func(*inputs))
    if not outs:
        return

    def warn():
        warnings.warn("Backwards compatibility: New undefined gradient support checking feature is enabled by "
                      "default, but it may break existing callers of this function. If this is true for you, you can "
                      'call this function with "check_undefined_grad=False" to disable the feature', stacklevel=4)

    groups = [outs] + ([[o] for o in outs] if len(outs) > 1 else [])
    for group in groups:
        try:
            captured = _engine.execute([o._impl for o in group], [None] * len(group), True, False,
                                       [d._impl for d in diff], accumulate=False)
        except RuntimeError as e:
            warn()
            raise GradcheckError(f"Expected backward function to handle undefined output grads. {_UNDEFINED_HINT}"
                                 ) from e
        for g in captured:
            if g is not None and bool(_dense(_torch().autograd.graph.to_tensor(g)).ne(0).any()):
                warn()
                raise GradcheckError("Expected all input grads to be undefined or zero when all output grads are "
                                     f"undefined or zero. {_UNDEFINED_HINT}")


# -- batched gradients (vmap) ---------------------------------------------------------------------------------
def _batched_grad_hint(flag: str, first: str) -> str:
    return (f"{first}.\n"
            "This could have been invoked in a number of ways (via a test that calls\n"
            "gradcheck/gradgradcheck directly or via an autogenerated test).\n\n"
            "If you are adding a new operator, please file an issue and then use one of the\n"
            "workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.\n"
            "If the test\n"
            "- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck\n"
            f"  with `{flag}=False` as a keyword argument.\n"
            "- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test\n"
            f"  to have `{flag}=False`.")


_BATCHED_HINT = _batched_grad_hint("check_batched_grad",
                                   "gradcheck or gradgradcheck failed while testing batched gradient computation")
_BATCHED_FWD_HINT = _batched_grad_hint("check_batched_forward_grad", "gradcheck failed while testing batched "
                                       "gradient computation with forward-mode AD")


def _zeros_like_expanded(x):
    torch = _torch()
    return torch.zeros([], dtype=x.dtype, device=x.device).expand(x.shape)


def _compare_batched(func, batch, expected_of, hint, output_idx=None) -> None:
    """``vmap(func)(stack(batch))`` against ``stack([func(b) for b in batch])``, result by result; a RuntimeError
    under vmap is reported with ``hint`` (PyTorch's ``_test_batched_grad`` and its forward-AD twin)."""
    torch = _torch()
    try:
        result = torch._vmap_internals._vmap(func)(torch.stack(batch))
    except RuntimeError as ex:
        raise GradcheckError(f"While computing batched gradients, got: {ex}\n\n{hint}") from ex
    # the per-sample results after the vmap: glasstorch's stack refuses sparse shards, which vmap reports first
    expected = [torch.stack(shards) for shards in zip(*[expected_of(b) for b in batch], strict=True)]
    for idx, (res, exp) in enumerate(zip(result, expected, strict=False)):
        if not bool(torch.allclose(res, exp)):
            raise GradcheckError(f"For output {idx if output_idx is None else output_idx} and input {idx}:\n\n{hint}"
                                 f"\n\nGot:\n{res}\n\nExpected:\n{exp}")


def _test_batched_grad(inputs, output, output_idx) -> None:
    """Two vector-Jacobian products with random cotangents against one vmapped over both."""
    torch = _torch()
    diff = list(_iter_tensors(inputs, True))

    def vjp(v):
        grads = torch.autograd.grad(output, diff, v, retain_graph=True, allow_unused=True)
        return tuple(_zeros_like_expanded(x) if g is None else g for g, x in zip(grads, diff, strict=True))

    cotangents = [torch.randn_like(output) for _ in range(2)]
    _compare_batched(vjp, cotangents, vjp, _BATCHED_HINT, output_idx)


def _test_batched_grad_forward_ad(func, inputs) -> None:
    """Per differentiable floating input: two Jacobian-vector products with random tangents (that input the only
    dual) against one vmapped over both."""
    torch = _torch()
    for k, current in enumerate(inputs):
        if not (_is_tensor(current) and current.requires_grad) or not (current.is_floating_point()
                                                                      or current.is_complex()):
            continue

        def jvp(tangent, k=k, current=current):
            with _fwad.dual_level():
                args = [_fwad.make_dual(current.detach(), tangent) if i == k else (x.detach() if _is_tensor(x) else x)
                        for i, x in enumerate(inputs)]
                out = []
                for o in _as_tuple(func(*args)):
                    if o is None:
                        continue
                    primal, tangent_out = _fwad.unpack_dual(o)
                    out.append(_zeros_like_expanded(primal) if tangent_out is None else tangent_out)
                return tuple(out)

        _compare_batched(jvp, [torch.randn_like(current) for _ in range(2)], jvp, _BATCHED_FWD_HINT)


def _test_undefined_forward_mode(func, inputs) -> None:
    """Each differentiable input in turn given a zero tangent, then none at all (the other inputs' tangents random):
    the output tangents must agree wherever both are defined (PyTorch's ``_test_undefined_forward_mode``)."""
    torch = _torch()
    diff = [k for k, x in enumerate(inputs) if _is_tensor(x) and x.requires_grad]
    gen = torch.Generator()
    with _fwad.dual_level():
        duals = list(inputs)
        for k in diff:
            x = inputs[k]
            duals[k] = _fwad.make_dual(x.detach(), _unit_vector(x.detach(), gen))
        for k in diff:
            x = inputs[k]
            kept = duals[k]
            duals[k] = _fwad.make_dual(x.detach(), torch.zeros_like(x))
            zero_tangent = [o for o in _as_tuple(func(*duals)) if _is_inexact(o)]
            duals[k] = x.detach()
            no_tangent = [o for o in _as_tuple(func(*duals)) if _is_inexact(o)]
            duals[k] = kept
            for idx, (a, b) in enumerate(zip(zero_tangent, no_tangent, strict=False)):
                t1, t2 = _fwad.unpack_dual(a).tangent, _fwad.unpack_dual(b).tangent
                if t1 is not None and t2 is not None and not bool(torch.allclose(t1, t2)):
                    raise GradcheckError(f"Mismatch in tangent values for output with index: {idx} when input: {x} "
                                         f"has an undefined tangent value. Got: {t1} but expected: {t2}")


def _is_inexact(x) -> bool:
    return _is_tensor(x) and (x.is_floating_point() or x.is_complex())


def _sparse_check(func, func_out, inputs, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol) -> None:
    """The non-masked check of sparse inputs: numerical Jacobians over every element (the inputs densified), the
    analytical ones from the inputs as given (PyTorch's ``tupled_inputs if masked else _densify(tupled_inputs)``)."""
    dense_inputs = _densify(inputs)
    numerical = _numerical_jacobian(func, dense_inputs, _as_tuple(func_out), eps)
    tensor_outs = [o for o in _as_tuple(func_out) if _is_tensor(o)]
    keep = [k for k, o in enumerate(tensor_outs) if o.requires_grad]
    for i, o in enumerate(outputs):
        analytical = _analytical_jacobian(inputs, o, nondet_tol, check_grad_dtypes)
        for j, (a, per_input) in enumerate(zip(analytical, numerical, strict=False)):
            if not _allclose(a, per_input[keep[i]], rtol, atol):
                raise GradcheckError(_mismatch(a, per_input[keep[i]], i, j))


# Note [Complex gradcheck]
# As PyTorch's gradcheck: a function with complex outputs is checked twice, once with each complex output replaced
# by its imaginary part and once by its real part, so every Jacobian is of a real output.  A complex input is
# perturbed along its real and its imaginary part; the numerical column is ds/dx + i ds/dy, which is what backward
# gives for a real output under the conjugate Wirtinger convention (Note [Conjugate Wirtinger gradients]).
def _complex_outputs_as(func, take):
    """``func`` with each complex tensor output replaced by ``take(output)`` (the real or imaginary part)."""
    def part_fn(*args):
        outs = _as_tuple(func(*args))
        return tuple(take(o) if _is_tensor(o) and o.is_complex() else o for o in outs)
    return part_fn


def _gradcheck_helper(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes,
                      check_backward_ad, fast_mode, check_forward_ad=False, masked=False, check_batched_grad=False,
                      check_batched_forward_grad=False) -> bool:
    tupled = _as_tuple(inputs)
    _check_inputs(tupled)
    func_out = func(*tupled)
    _check_outputs(func_out)
    outputs = _differentiable_outputs(func_out)
    sparse = any(_is_tensor(x) and x.layout is not strided for x in tupled)
    if check_backward_ad and sparse and not masked and not fast_mode:  # fast mode moves along the pattern anyway
        _sparse_check(func, func_out, tupled, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol)
    elif check_backward_ad:
        check = _fast_check if fast_mode else _slow_check
        complex_outs = {i for i, o in enumerate(outputs) if o.is_complex()}
        if any(_is_tensor(o) and o.is_complex() for o in _as_tuple(func_out)):
            for part, take in (("imaginary", _torch().imag), ("real", _torch().real)):  # PyTorch's order
                part_fn = _complex_outputs_as(func, take)
                part_out = part_fn(*tupled)
                check(part_fn, part_out, tupled, _differentiable_outputs(part_out), eps, rtol, atol, check_grad_dtypes,
                      nondet_tol, (complex_outs, part))
        else:
            check(func, func_out, tupled, outputs, eps, rtol, atol, check_grad_dtypes, nondet_tol)
    if check_forward_ad:  # fast mode: J u per input (real inputs); else, or complex, the whole Jacobian
        (_fast_forward_ad_check if fast_mode else _forward_ad_checks)(func, func_out, tupled, outputs, eps, rtol,
                                                                      atol)
        if check_undefined_grad:
            _undefined_forward_checks(func, tupled)
    if check_batched_forward_grad:
        _test_batched_grad_forward_ad(func, tupled)
    if not check_backward_ad:
        return True
    if check_batched_grad:
        for i, o in enumerate(outputs):
            _test_batched_grad(tupled, o, i)
    if outputs:
        _check_backward_linear(outputs, tupled, bool(masked))
    if check_undefined_grad:
        _check_undefined_grad(func, tupled)
    return True


def gradcheck(func, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked=None) -> bool:
    """Check the analytical gradients of ``func`` against finite differences (``torch.autograd.gradcheck``).

    ``check_forward_ad`` checks the Jacobian forward-mode AD computes as well (one pass per input element; in fast
    mode one per input, along the same kind of random direction as the backward check), and with
    ``check_undefined_grad`` that each input's tangent may be zero or absent.  ``check_batched_grad`` /
    ``check_batched_forward_grad`` compare two vector-Jacobian / Jacobian-vector products with one legacy vmap over
    both (an error under vmap is reported as a batched-gradient failure).  Sparse inputs are perturbed in their
    specified elements with ``masked=True`` (unspecified ones' gradients ignored), in every element otherwise;
    sparse outputs are refused (PyTorch's "Sparse output is not supported").
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    args = (func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes, check_backward_ad,
            fast_mode, check_forward_ad, bool(masked), check_batched_grad, check_batched_forward_grad)
    if not raise_exception:
        try:
            return _gradcheck_helper(*args)
        except GradcheckError:
            return False
    return _gradcheck_helper(*args)


def gradgradcheck(func, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False) -> bool:
    """Check second derivatives: gradcheck of ``(inputs, grad_outputs) -> grad(func(inputs), grad_outputs)``.

    Without ``grad_outputs``, random ones in [-1, 1) that require grad are drawn, one per differentiable
    output.
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    torch = _torch()
    tupled_inputs = _as_tuple(inputs)
    if grad_outputs is None:
        outs = _differentiable_outputs(func(*tupled_inputs))
        tupled_grad_outputs = tuple(
            (torch.rand(o.shape, dtype=o.dtype if (o.is_floating_point() or o.is_complex()) else torch.float64)
             * 2 - 1).requires_grad_() for o in outs)
    else:
        tupled_grad_outputs = _as_tuple(grad_outputs)
    n_inputs = len(tupled_inputs)
    diff_input_idx = {i for i, x in enumerate(tupled_inputs) if _is_tensor(x) and x.requires_grad}
    diff_grad_idx = {i for i, g in enumerate(tupled_grad_outputs) if g.requires_grad}

    def new_func(*args):
        # gradcheck may hand in detached copies: restore which ones require grad
        ins = tuple(x.requires_grad_() if i in diff_input_idx else x for i, x in enumerate(args[:n_inputs]))
        outputs = _differentiable_outputs(func(*ins))
        gouts = tuple(g.requires_grad_() if i in diff_grad_idx else g for i, g in enumerate(args[n_inputs:]))
        diff_ins = tuple(x for x in ins if _is_tensor(x) and x.requires_grad)
        grads = torch.autograd.grad(outputs, diff_ins, gouts, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, tupled_inputs + tupled_grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
                     check_batched_grad=check_batched_grad, fast_mode=fast_mode)
