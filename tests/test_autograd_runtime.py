"""The engine's surroundings, against torch: ``numpy()`` and grad mode, the deprecated ``volatile`` flag,
``torch.autograd.torch``, ``is_multithreading_enabled``/``set_multithreading_enabled``, ``torch._C``'s
thread-local object stash, and ``Tensor.grad`` keeping one Python object alive."""

import contextlib
import io
import threading
import warnings
import weakref

import torch

import glasstorch as gt
from tests.oracle import assert_same, assert_same_error


def _numpy_under_modes(m):
    x = m.ones(2, requires_grad=True)
    with m.no_grad():
        a = x.numpy().tolist()
    return a, x.numpy(force=True).tolist()


def test_numpy_of_tensor_requiring_grad_follows_grad_mode():
    assert _numpy_under_modes(gt) == _numpy_under_modes(torch)
    assert_same_error(lambda: gt.ones(2, requires_grad=True).numpy(), lambda: torch.ones(2, requires_grad=True).numpy())


def _volatile(m):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        v = m.autograd.torch.zeros(2)
        got = v.volatile
        v.volatile = True
        m.autograd.Variable(v, volatile=True)
        after = v.volatile
    return got, after, [(type(x.message).__name__, str(x.message), x.lineno - w[0].lineno) for x in w]


def test_volatile_is_gone_with_warnings():
    assert _volatile(gt) == _volatile(torch)


def _multithreading(m):
    seen = []
    with m.autograd.set_multithreading_enabled(False):
        seen.append(m.autograd.is_multithreading_enabled())
        m.autograd.set_multithreading_enabled(True)
        seen.append(m.autograd.is_multithreading_enabled())
    seen.append(m.autograd.is_multithreading_enabled())
    m.autograd.set_multithreading_enabled(False)
    seen.append(m.autograd.is_multithreading_enabled())
    m.autograd.set_multithreading_enabled(True)
    seen.append(m.autograd.is_multithreading_enabled())
    return seen


def test_multithreading_flag_as_context_manager_and_function():
    assert _multithreading(gt) == _multithreading(torch)


def _tls(m):
    C = m._C
    C._stash_obj_in_tls("agD_key", {"x": 1})
    seen = [C._is_key_in_tls("agD_key"), C._get_obj_in_tls("agD_key")]
    other = []
    t = threading.Thread(target=lambda: other.append(C._is_key_in_tls("agD_key")))
    t.start()
    t.join()
    C._remove_obj_from_tls("agD_key")
    C._remove_obj_from_tls("agD_key")  # removing an absent key is quiet
    return seen + other + [C._is_key_in_tls("agD_key")]


def test_python_objects_in_thread_local_state():
    assert _tls(gt) == _tls(torch)
    assert_same_error(lambda: gt._C._get_obj_in_tls("agD_absent"), lambda: torch._C._get_obj_in_tls("agD_absent"))


def _grad_object(m):
    x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x**2).sum().backward()
    ref = weakref.ref(x.grad)
    first_id = id(x.grad)
    kept = ref() is not None and id(x.grad) == first_id
    x.grad = None
    return kept, ref() is None, x


def test_grad_is_one_object_while_it_is_the_leaf_gradient():
    g_kept, g_freed, gx = _grad_object(gt)
    t_kept, t_freed, tx = _grad_object(torch)
    assert (g_kept, g_freed) == (t_kept, t_freed)
    (gx**2).sum().backward()
    (tx**2).sum().backward()
    assert_same(weakref.ref(gx.grad)(), weakref.ref(tx.grad)())


def _create_graph_warnings(m):
    prev = m.is_warn_always_enabled()
    m.set_warn_always(True)
    try:
        seen = [m.is_warn_always_enabled()]
        b = m.tensor([1.0, 2.0], dtype=m.double, requires_grad=True)
        c = b * b
        for run in (lambda: c.backward(m.ones_like(c), create_graph=True),
                    lambda: m.autograd.grad(c, b, m.ones_like(c), create_graph=True),
                    lambda: c.backward(m.ones_like(c), retain_graph=True)):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                run()
            seen.append([(type(x.message).__name__, str(x.message)) for x in w])
            b.grad = None
        return seen
    finally:
        m.set_warn_always(prev)


def test_backward_with_create_graph_warns_about_the_cycle_and_grad_does_not():
    assert _create_graph_warnings(gt) == _create_graph_warnings(torch)


def _coroutine_recovers(m):
    class Recoverable(Exception):
        pass

    @m.no_grad()
    def coro(n=4):
        raised = False
        for i in range(n):
            try:
                yield (-i if raised else i), m.is_grad_enabled()
            except Recoverable:
                raised = True
        return "done"

    seen = []
    with m.enable_grad():
        c = coro()
        seen.append(next(c))
        try:
            while True:
                seen.append(c.throw(Recoverable))
        except StopIteration as stop:  # the generator handled the last throw and finished
            seen.append(stop.value)
        seen.append(m.is_grad_enabled())
    return seen


def test_grad_mode_decorated_generator_that_handles_a_thrown_exception_and_finishes():
    assert _coroutine_recovers(gt) == _coroutine_recovers(torch)


def _nested_nan(m, fail_0th, forward_in_anomaly):
    """A double backward whose inner custom Function (made during the outer one's backward) returns NaN."""
    class Outer(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x.sum(0, keepdim=True)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            seen.append(type(m._C._current_autograd_node()).__name__)
            g = g.clone().expand(3)
            return Inner.apply(g * x, g + x)

    class Inner(m.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * 2.0 + b

        @staticmethod
        def backward(ctx, g):
            g1, g2 = g.clone(), g.clone()
            (g1 if fail_0th else g2)[0] = float("nan")
            return g1, g2

    seen = [m._C._current_autograd_node()]
    x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            with m.autograd.detect_anomaly() if forward_in_anomaly else contextlib.nullcontext():
                (gx,) = m.autograd.grad(Outer.apply(x), (x,), create_graph=True)
            with m.autograd.detect_anomaly():
                gx.sum().backward()
        except RuntimeError as e:
            seen.append(str(e))
    for x in w:  # the stacks' text differs by file; their headers and the functions they name must not
        text = str(x.message)
        head, _, stack = text.partition("\n" if not text.startswith("\n") else "calculation:\n")
        seen.append((head, "Inner.apply" in stack, "Outer.apply" in stack))
    return seen


def test_anomaly_mode_prints_the_failing_node_and_its_parents():
    for fail_0th in (True, False):
        for forward_in_anomaly in (True, False):
            assert _nested_nan(gt, fail_0th, forward_in_anomaly) == _nested_nan(torch, fail_0th, forward_in_anomaly)


def _anomaly_warning_as_error(m):
    a = m.ones(3, requires_grad=True)
    err = io.StringIO()
    with warnings.catch_warnings(record=True) as w, contextlib.redirect_stderr(err):
        with m.autograd.detect_anomaly():
            warnings.simplefilter("error")
            d1 = a + 1
            d2 = d1**2
            d1 += 1
            try:
                m.autograd.grad(d2.sum(), a)
            except RuntimeError as e:
                raised = type(e).__name__, str(e)
    return raised, len(w), "UserWarning: Error detected in PowBackward0" in err.getvalue()


def test_anomaly_warning_turned_into_an_error_is_printed_and_the_backward_error_raised():
    assert _anomaly_warning_as_error(gt) == _anomaly_warning_as_error(torch)


def _warning_in_backward(m):
    a = m.zeros((), requires_grad=True)
    b = m._C._nn._test_warn_in_autograd(a)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        b.backward()
    return type(b.grad_fn).__name__, [(type(x.message).__name__, str(x.message)) for x in w], a.grad.item()


def test_a_warning_given_in_backward_reaches_python():
    assert _warning_in_backward(gt) == _warning_in_backward(torch)
    assert gt._C._nn.gelu is gt._C._nn.gelu and callable(gt._C._nn.linear)  # torch._C._nn holds the nn operators


def _deep_reentrant(m, depth, fail_at=None):
    """A backward that calls backward inside itself ``depth`` levels deep (past the inline limit, so the deeper
    levels run on worker threads that must see the caller's thread-local state: grad mode, saved-tensor hooks)."""
    seen, packed = [], []

    class Deep(m.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            with m.enable_grad():
                ctx.x = m.autograd.Variable(x.detach(), requires_grad=True) - 1
            return ctx.x.detach()

        @staticmethod
        def backward(ctx, g):
            a = ctx.x.detach().requires_grad_()
            with m.enable_grad():
                a * a  # saves both operands: the pack hook runs where the hooks are active
            seen.append(m.is_grad_enabled())
            if fail_at is not None and ctx.x.item() == fail_at:
                raise ValueError(f"failed at {fail_at}")
            if ctx.x < 0:
                return g * 2
            with m.enable_grad():
                Deep.apply(ctx.x).sum().backward()
            return g * 2

    v = m.tensor(float(depth), requires_grad=True)
    with m.autograd.graph.saved_tensors_hooks(lambda t: packed.append(1) or t, lambda t: t):
        Deep.apply(v).sum().backward()
    return v.grad.item(), len(seen), set(seen), len(packed)


def test_deep_reentrant_backward_moves_to_worker_threads():
    assert _deep_reentrant(gt, 150) == _deep_reentrant(torch, 150)
    assert _deep_reentrant(gt, 10) == _deep_reentrant(torch, 10)  # the pool's workers are reused
    assert_same_error(lambda: _deep_reentrant(gt, 150, fail_at=3.0), lambda: _deep_reentrant(torch, 150, fail_at=3.0))


def _foreach_graph(m):
    a = [m.tensor(1.0, requires_grad=True), m.tensor([2.0, 3.0], requires_grad=True)]
    with m.autograd.graph.allow_mutation_on_saved_tensors():
        b = m._foreach_exp(a)
        shared = b[0].grad_fn is b[1].grad_fn and len(b[0].grad_fn.next_functions)
        m._foreach_add_(b, 1)  # writes the saved results: allow_mutation keeps the originals for backward
        (b[0] + b[1].sum()).backward()
    grads = [x.grad for x in a]
    d = [x * 1 for x in a]
    m._foreach_sqrt_(d)
    c = m._foreach_mul(a, d)
    (c[0] + c[1].sum()).backward()
    return shared, grads, [x.grad for x in a], type(d[0].grad_fn).__name__, type(b).__name__


def test_foreach_ops_record_one_node_and_in_place_ones_each_entry():
    g, t = _foreach_graph(gt), _foreach_graph(torch)
    assert (g[0], g[3], g[4]) == (t[0], t[3], t[4])
    for gs, ts in zip(g[1] + g[2], t[1] + t[2], strict=True):
        assert_same(gs, ts, rtol=1e-6)


def _library_and_mode(m):
    from_mode = []

    class Mode(m.utils._python_dispatch.TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            from_mode.append(m.utils._python_dispatch._get_current_dispatch_mode() is None)
            return func(*args, **(kwargs or {}))

    outside = m.utils._python_dispatch._get_current_dispatch_mode()
    with Mode() as mode:
        inside = m.utils._python_dispatch._get_current_dispatch_mode() is mode
        m.ones(2) + 1
    with m.library._scoped_library("agd_scoped", "DEF") as lib:
        lib.define("twice(Tensor x) -> Tensor")
        lib.impl("twice", lambda x: x * 2, "CPU")
        got = m.ops.agd_scoped.twice(m.ones(2)).tolist()
    with m.library._scoped_library("agd_scoped", "DEF") as lib:  # the first was destroyed: defining again works
        lib.define("twice(Tensor x) -> Tensor")
    return outside, inside, sorted(set(from_mode)), got


def test_scoped_library_and_current_dispatch_mode():
    assert _library_and_mode(gt) == _library_and_mode(torch)


def _wrapper_subclass(m, *args, **kwargs):
    class Wrapper(m.Tensor):
        @classmethod
        def __torch_dispatch__(cls, func, types, args=(), kwargs=None):
            return NotImplemented

    t = m.Tensor._make_wrapper_subclass(Wrapper, *args, **kwargs)
    return tuple(t.shape), t.stride(), t.dtype is m.float64, t.untyped_storage().nbytes(), t.requires_grad


def test_make_wrapper_subclass_takes_torchs_arguments():
    for args, kwargs in [(((2, 3),), {}), (((2, 3),), {"storage_size": 100}),
                         (((2, 3), (1, 2), None, None, "float64", "strided", "cpu", False, True), {})]:
        def run(m, args=args, kwargs=kwargs):
            a = tuple(getattr(m, x) if x in ("float64", "strided") else x for x in args)
            return _wrapper_subclass(m, *a, **kwargs)
        assert run(gt) == run(torch)
    def bogus_policy(m):
        return _wrapper_subclass(m, (2, 3), None, None, None, None, m.strided, None, False, False, "bogus")
    assert_same_error(lambda: bogus_policy(gt), lambda: bogus_policy(torch))
