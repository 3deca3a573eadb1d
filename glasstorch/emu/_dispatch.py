"""The emu backend's kernels — how an out-of-tree PyTorch backend plugs into the dispatcher (PrivateUse1).

Tensors on ``emu`` carry the PrivateUse1 key.  Instead of a second operator library, one boxed kernel serves
every operator: it runs the operator's **CPU kernel** on the bytes in emu device memory.  It is registered as
the PrivateUse1 backend fallback and, for operators whose CompositeExplicitAutograd kernel would otherwise
run on the host (copies, fills, reductions …; views excepted: they touch no bytes), directly on PrivateUse1.

A call is either *launched* or *run synchronously*:

- **launched** (the common case): the operator's Meta kernel computes the outputs' sizes, strides and dtypes
  from meta stand-ins of the arguments (a *plan*, cached by the arguments' geometry and scalars); the outputs
  are allocated in device memory at once (on the current stream, so the caching allocator sees the request in
  program order) and returned; a job queued on the current stream later runs the CPU kernel on host views of
  the device bytes (CPU *aliases*) and copies fresh results into the outputs.  In-place and ``out=`` arguments
  are written directly through their aliases;
- **run synchronously**: the current stream is drained and the CPU kernel runs on the calling thread — for
  operators whose meta kernel cannot predict the result (data-dependent shapes, host scalars), random operators
  (they draw from the host generator, so emu results equal CPU results), device-to-host copies, factories,
  and everything when ``GLASSTORCH_EMU_LAUNCH_BLOCKING=1`` (PyTorch's ``CUDA_LAUNCH_BLOCKING``).

Arguments on another device raise PyTorch's "Expected all tensors to be on the same device, but found at least
two devices, emu:0 and cpu!" (CPU 0-dim tensors may join, as CPU scalars may on CUDA; copies and indexing
accept CPU tensors, snapshotted at call time).

Invariant: a launched job captures host views and CPU aliases only — never an emu Storage — so freeing a tensor
on the host returns its block to the allocator at once; the block is reused only in stream order.
"""

from __future__ import annotations

import functools
import os

import numpy as np

from .._core import dispatch_key as dk
from .._core import dtype as _dt
from .._core.device import CPU, META
from .._core.device import device as _Device
from .._device import emu as _emu
from .._ops import dispatcher as _dispatcher
from .._tensor.impl import TensorImpl, VersionCounter
from .._tensor.storage import UntypedStorage
from ._storage import raw_array

__all__ = ["emu_kernel", "install"]

_CPU_KS = dk.bit("CPU") | 1
_META_KS = dk.bit("Meta") | 1
_BELOW = dk.AUTOGRAD_SET | dk.bit("ADInplaceOrView") | dk.AUTOCAST_SET  # backend kernels run below these
_CROSS_DEVICE = frozenset(("aten::copy_", "aten::_to_copy", "aten::_copy_from", "aten::_copy_from_and_resize",
                           "aten::index.Tensor", "aten::index_put_", "aten::index_put", "aten::_index_put_impl_"))
_DATA_DEPENDENT = frozenset((
    "aten::nonzero", "aten::nonzero.out", "aten::argwhere", "aten::masked_select", "aten::masked_select.out",
    "aten::unique", "aten::_unique", "aten::_unique2", "aten::unique_dim", "aten::unique_consecutive",
    "aten::unique_dim_consecutive", "aten::bincount", "aten::repeat_interleave.Tensor",
    "aten::repeat_interleave.self_Tensor", "aten::_local_scalar_dense", "aten::item", "aten::equal",
    "aten::is_nonzero", "aten::allclose", "aten::is_same_size", "aten::histc", "aten::nonzero_numpy",
    "aten::_assert_async", "aten::_assert_async.msg"))
_LAUNCH_BLOCKING = os.environ.get("GLASSTORCH_EMU_LAUNCH_BLOCKING", "0") not in ("", "0")
_backend = _emu.backend
_sync_only: set = set()  # ops whose meta kernel failed where the CPU kernel succeeded: not worth a meta run


class _Unsupported(Exception):
    """The meta result cannot be turned into device outputs ahead of the computation."""


def _below():
    prev = dk.tls.excluded
    dk.tls.excluded = prev | _BELOW
    return prev


# -- scanning the arguments ------------------------------------------------------------------------------------
def _tensors(args, kwargs):
    for a in (*args, *kwargs.values()) if kwargs else args:
        t = type(a)
        if t is TensorImpl:
            yield a
        elif t is list or t is tuple:
            for x in a:
                if type(x) is TensorImpl:
                    yield x


def _scan(op, args, kwargs):
    """The emu device of the call; raises PyTorch's error when tensors of another device take part."""
    dev = foreign = None
    for t in _tensors(args, kwargs):
        d = t.device
        if d.type == "emu":
            if dev is None:
                dev = d
            elif d != dev and foreign is None:
                foreign = d
        elif foreign is None and (d.type != "cpu" or t.sizes):
            foreign = d
    if foreign is not None and dev is not None and not (foreign.type == "cpu" and op.name in _CROSS_DEVICE):
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two devices, "
                           f"{dev} and {foreign}!")
    return dev


# Operators tagged nondeterministic_seeded that take no Generator argument (they draw from the default one);
# the attention kernels draw only when their dropout_p argument is positive.
_SEEDED = frozenset(("native_dropout", "dropout", "dropout_", "feature_dropout", "feature_dropout_", "alpha_dropout",
                     "alpha_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_"))
_SEEDED_IF_DROPOUT = frozenset(("_scaled_dot_product_flash_attention_for_cpu", "_scaled_dot_product_attention_math",
                                "scaled_dot_product_attention", "_scaled_dot_product_efficient_attention"))


class _OpInfo:
    """What the kernel needs to know about an operator's schema, computed once per operator."""

    __slots__ = ("device_arg", "random", "dropout_arg")

    def __init__(self, op):
        self.device_arg = self.dropout_arg = None
        args = op.schema.arguments
        for i, a in enumerate(args):
            if a.type.base == "Device":
                self.device_arg = (i, a.name)
        base = op.schema.name.split("::")[-1]
        self.random = base in _SEEDED or any(a.type.base == "Generator" for a in args)
        if base in _SEEDED_IF_DROPOUT:
            self.dropout_arg = next(((i, a.name) for i, a in enumerate(args) if a.name == "dropout_p"), None)

    def draws(self, args, kwargs) -> bool:
        """Whether this call consumes random numbers."""
        if self.random:
            return True
        if self.dropout_arg is None:
            return False
        i, name = self.dropout_arg
        p = kwargs.get(name, args[i] if i < len(args) else 0.0)
        return bool(p)

    def target_device(self, args, kwargs):
        """The ``device`` argument of the call, when the schema has one and it is given."""
        if self.device_arg is None:
            return None
        i, name = self.device_arg
        if name in kwargs:
            return kwargs[name]
        return args[i] if i < len(args) else None


_infos: dict = {}


# -- the kernel -------------------------------------------------------------------------------------------------
def emu_kernel(op, ks, *args, **kwargs):
    """Run ``op`` for emu tensors (the boxed PrivateUse1 kernel); see the module docstring."""
    dev = _scan(op, args, kwargs)
    info = _infos.get(op)
    if info is None:
        info = _infos[op] = _OpInfo(op)
    target = info.target_device(args, kwargs)
    if dev is None:  # a factory: the CPU kernel allocates on the device it is given
        return _redispatch(op, _CPU_KS, args, kwargs)
    if target is not None and target.type != "emu":
        return _run_sync(op, args, kwargs, dev, target)  # device to host
    name = op.name
    if (_LAUNCH_BLOCKING or name in _DATA_DEPENDENT or name in _sync_only or info.draws(args, kwargs)
            or (name == "aten::copy_" and args[0].device.type != "emu")
            or (name == "aten::index.Tensor" and _has_mask(args))):
        return _run_sync(op, args, kwargs, dev, None)
    call = _Call(op, dev, args, kwargs)
    try:
        return call.launch()
    except _Unsupported:
        result = _run_sync(op, args, kwargs, dev, None)
        _sync_only.add(name)  # the CPU kernel succeeded where the meta kernel could not: skip meta next time
        return result


def _has_mask(args):
    idx = args[1] if len(args) > 1 else ()
    return any(type(t) is TensorImpl and (t.dtype is _dt.bool or t.dtype is _dt.uint8) for t in idx)


def _redispatch(op, ks, args, kwargs):
    prev = _below()
    try:
        return op.redispatch(ks, *args, **kwargs)
    finally:
        dk.tls.excluded = prev


# A *plan* says how to make a call's outputs from its tensor arguments, without data: a nested structure of
# ("in", k) (the k-th tensor argument itself), ("view", k, sizes, strides, offset, dtype, kv) (a view of its
# storage, sharing argument kv's version counter), ("new", sizes, strides, offset, dtype, nbytes) and
# ("value", v) (None or a metadata scalar).
# Plans come from the meta kernel and are cached by the geometry and scalars of the arguments.
_plans: dict = {}
_MAX_PLANS = 8192


class _Call:
    """One launched call: its plan (cached, or from a meta run), the device outputs and the queued job."""

    __slots__ = ("op", "dev", "args", "kwargs", "tensors", "index")

    def __init__(self, op, dev, args, kwargs):
        self.op, self.dev, self.args, self.kwargs = op, dev, args, kwargs
        self.tensors = list(_tensors(args, kwargs))
        self.index = {}
        for k, t in enumerate(self.tensors):
            self.index.setdefault(id(t), k)

    def launch(self):
        key = self._key()
        plan = _plans.get(key) if key is not None else None
        if plan is None:
            plan, cacheable = self._plan_from_meta()
            if key is not None and cacheable:
                if len(_plans) >= _MAX_PLANS:
                    _plans.clear()
                _plans[key] = plan
        fills = []
        out = self._realize(plan, (), fills)
        if not fills and not self.op.schema.is_mutable:
            return out  # views and metadata-only results: nothing to compute
        cpu = _Aliases()
        c_args, c_kwargs = _map_args(self.args, self.kwargs, cpu.to_cpu, CPU)
        jobs = [(path, cpu.alias(impl)) for path, impl in fills]
        _backend.current_stream(self.dev.index).launch(_job(self.op, c_args, c_kwargs, jobs))
        return out

    def _key(self):
        """The arguments' geometry, dtypes, aliasing and scalars: what the meta kernel's result depends on."""
        first_of = {}
        parts = [self.op, _dt.get_default_dtype()]
        for a in self.args:
            parts.append(self._sig(a, first_of))
        if self.kwargs:
            for k, v in self.kwargs.items():
                parts.append(k)
                parts.append(self._sig(v, first_of))
        key = tuple(parts)
        try:
            hash(key)
        except TypeError:
            return None
        return key

    def _sig(self, v, first_of):
        t = type(v)
        if t is TensorImpl:
            st = first_of.setdefault(id(v.storage), len(first_of))
            return (v.sizes, v.strides, v.offset, v.dtype, v.device, st, v.storage._nbytes, v.is_wrapped_number)
        if t is list or t is tuple:
            return (t, tuple(self._sig(x, first_of) for x in v))
        return (t, v)

    # plans from the meta kernel ---------------------------------------------------------------------------------
    def _plan_from_meta(self):
        meta = _MetaArgs(self.tensors)
        m_args, m_kwargs = _map_args(self.args, self.kwargs, meta.to_meta, META)
        try:
            meta_out = _redispatch(self.op, _META_KS, m_args, m_kwargs)
        except Exception as e:  # noqa: BLE001 - the CPU kernel decides: a genuine error is raised there, identically
            raise _Unsupported from e
        changed = self._apply_geometry_changes(meta)
        return self._plan(meta_out, meta), not changed

    def _apply_geometry_changes(self, meta) -> bool:
        """An ``out=`` argument the meta kernel resized is resized on the device before the job is queued."""
        changed = False
        for t in self.tensors:
            m = meta.of.get(id(t))
            if m is None or t.device.type != "emu":
                continue
            if m.sizes != t.sizes or m.strides != t.strides or m.offset != t.offset:
                t.set_geometry(m.sizes, m.strides, m.offset)
                changed = True
            if m.storage.nbytes() > t.storage.nbytes():
                t.storage.resize_(m.storage.nbytes())
                changed = True
        return changed

    def _plan(self, x, meta):
        if type(x) is TensorImpl:
            k = meta.input_of.get(id(x))
            if k is not None:
                return ("in", k)
            if x.device.type != "meta":
                raise _Unsupported
            k = meta.storage_owner.get(id(x.storage))
            if k is not None:  # a view of an argument
                return ("view", k, x.sizes, x.strides, x.offset, x.dtype, meta.version_owner.get(id(x.version)))
            return ("new", x.sizes, x.strides, x.offset, x.dtype, x.storage.nbytes())
        if type(x) is list or type(x) is tuple:
            return (type(x), tuple(self._plan(v, meta) for v in x))
        if x is None or type(x) in (int, float, bool):
            return ("value", x)  # metadata (e.g. _fused_sdp_choice); data-dependent ops never get a plan
        raise _Unsupported  # something else the meta kernel made on the host: only the CPU kernel knows it

    def _realize(self, plan, path, fills):
        kind = plan[0]
        if kind == "value":
            return plan[1]
        if kind == "in":
            return self.tensors[plan[1]]
        if kind == "new":
            _, sizes, strides, offset, dtype, nbytes = plan
            st = UntypedStorage._allocate(nbytes, self.dev)
            out = TensorImpl(st, sizes, strides, offset, dtype, st.device)
            fills.append((path, out))
            return out
        if kind == "view":
            _, k, sizes, strides, offset, dtype, kv = plan
            st = self.tensors[k].storage
            version = self.tensors[kv].version if kv is not None else None
            return TensorImpl(st, sizes, strides, offset, dtype, st.device, version)
        container, items = plan
        return container(self._realize(v, (*path, i), fills) for i, v in enumerate(items))


class _MetaArgs:
    """Meta stand-ins for a call's tensors: same geometry and dtype, a shared meta storage per real storage."""

    __slots__ = ("index", "of", "input_of", "storage_of", "storage_owner", "version_owner")

    def __init__(self, tensors):
        self.index = {}
        for k, t in enumerate(tensors):
            self.index.setdefault(id(t), k)
        self.of, self.input_of, self.storage_of, self.storage_owner, self.version_owner = {}, {}, {}, {}, {}

    def to_meta(self, t: TensorImpl):
        m = self.of.get(id(t))
        if m is not None:
            return m
        if t.device.type == "cpu" and not t.sizes:
            return t  # a CPU scalar stays one
        k = self.index[id(t)]
        ms = self.storage_of.get(id(t.storage))
        if ms is None:
            ms = self.storage_of[id(t.storage)] = UntypedStorage._allocate(t.storage.nbytes(), META)
            self.storage_owner[id(ms)] = k
        v = VersionCounter()
        self.version_owner[id(v)] = k
        m = self.of[id(t)] = TensorImpl(ms, t.sizes, t.strides, t.offset, t.dtype, META, v)
        self.input_of[id(m)] = k
        return m


class _Aliases:
    """CPU tensors over the device bytes of a call's emu tensors (host tensors are snapshotted instead)."""

    __slots__ = ("of", "storage_of")

    def __init__(self):
        self.of, self.storage_of = {}, {}

    def to_cpu(self, t: TensorImpl):
        c = self.of.get(id(t))
        if c is None:
            c = self.of[id(t)] = self.alias(t) if t.device.type == "emu" else _snapshot(t)
        return c

    def alias(self, t: TensorImpl) -> TensorImpl:
        cs = self.storage_of.get(id(t.storage))
        if cs is None:
            data = raw_array(t.storage)
            cs = self.storage_of[id(t.storage)] = UntypedStorage._wrap(data, data.size, CPU)
        return TensorImpl(cs, t.sizes, t.strides, t.offset, t.dtype, CPU)


def _snapshot(t: TensorImpl) -> TensorImpl:
    if not t.sizes:
        out = TensorImpl(UntypedStorage._allocate(t.dtype.itemsize, CPU), (), (), 0, t.dtype, CPU)
        out.as_numpy()[...] = t.as_numpy()
        out.is_wrapped_number = t.is_wrapped_number
        return out
    data = np.ascontiguousarray(t.as_numpy())
    st = UntypedStorage._wrap(data.reshape(-1).view(np.uint8), data.nbytes, CPU)
    strides = tuple(s // t.dtype.itemsize for s in data.strides) if data.size else t.strides
    return TensorImpl(st, t.sizes, strides, 0, t.dtype, CPU)


def _map_value(v, fn, device):
    t = type(v)
    if t is TensorImpl:
        return fn(v)
    if t is list or t is tuple:
        return t(fn(x) if type(x) is TensorImpl else x for x in v)
    if t is _Device and v.type == "emu":
        return device
    return v


def _map_args(args, kwargs, fn, device):
    m_args = [_map_value(a, fn, device) for a in args]
    m_kwargs = {k: _map_value(v, fn, device) for k, v in kwargs.items()} if kwargs else {}
    return m_args, m_kwargs


def _job(op, c_args, c_kwargs, fills):
    def run():
        res = op.redispatch(_CPU_KS, *c_args, **c_kwargs)
        for path, dst in fills:
            src = res
            for i in path:
                src = src[i]
            np.copyto(dst.as_numpy(), src.as_numpy())
    run.__qualname__ = f"emu::{op.name}"
    return run


# -- synchronous execution ---------------------------------------------------------------------------------------
def _run_sync(op, args, kwargs, dev, target):
    """Drain the current stream, run the CPU kernel here, move fresh results to the device (unless ``target``
    names another device)."""
    _backend.current_stream(dev.index).synchronize()
    aliases, storages, originals = {}, {}, {}

    def to_cpu(t):
        if t.device.type != "emu":
            return t
        pair = aliases.get(id(t))
        if pair is None:
            cs = storages.get(id(t.storage))
            if cs is None:
                data = raw_array(t.storage)
                cs = storages[id(t.storage)] = UntypedStorage._wrap(data, data.size, CPU)
                originals[id(cs)] = (t.storage, data, t.version)
            pair = aliases[id(t)] = (t, TensorImpl(cs, t.sizes, t.strides, t.offset, t.dtype, CPU))
        return pair[1]

    c_args, c_kwargs = _map_args(args, kwargs, to_cpu, CPU)
    res = _redispatch(op, _CPU_KS, c_args, c_kwargs)
    _write_back(aliases, originals)
    back = {id(a): t for t, a in aliases.values()}
    inputs = {id(t) for t in _tensors(args, kwargs)}
    keep_host = target is not None and target.type != "emu"
    return _to_device(res, back, originals, inputs, dev, keep_host)


def _write_back(aliases, originals):
    """A CPU kernel that resized an aliased ``out=`` tensor moved it to host memory: bring it back."""
    for t, a in aliases.values():
        storage, data, version = originals[id(a.storage)]
        if a.storage._data is not data:
            nb = a.storage.nbytes()
            if nb > storage.nbytes():
                storage.resize_(nb)
            np.copyto(raw_array(storage)[:nb], a.storage._data[:nb])
            originals[id(a.storage)] = (storage, a.storage._data, version)
        if (a.sizes, a.strides, a.offset) != (t.sizes, t.strides, t.offset):
            t.set_geometry(a.sizes, a.strides, a.offset)


def _to_device(x, back, originals, inputs, dev, keep_host):
    if type(x) is TensorImpl:
        emu = back.get(id(x))
        if emu is not None:
            return emu
        orig = originals.get(id(x.storage))
        if orig is not None:  # a view of an aliased argument
            return TensorImpl(orig[0], x.sizes, x.strides, x.offset, x.dtype, orig[0].device, orig[2])
        if keep_host or x.device.type != "cpu" or id(x) in inputs:
            return x
        st = UntypedStorage._allocate(x.storage.nbytes(), dev)
        out = TensorImpl(st, x.sizes, x.strides, x.offset, x.dtype, st.device)
        if x.storage.nbytes():
            np.copyto(raw_array(st), x.storage._data[:x.storage.nbytes()])
        return out
    if type(x) is list or type(x) is tuple:
        return type(x)(_to_device(v, back, originals, inputs, dev, keep_host) for v in x)
    return x


# -- registration -------------------------------------------------------------------------------------------------
def install() -> None:
    """Register the emu kernel as the PrivateUse1 fallback and over host-side CompositeExplicitAutograd kernels."""
    _dispatcher.register_fallback("PrivateUse1", emu_kernel, label="emu::fallback")
    for op in _dispatcher.all_ops().values():
        if op.schema.is_view or op.has_kernel("PrivateUse1"):
            continue
        if op.has_kernel("CompositeExplicitAutograd") or op.has_kernel("CompositeExplicitAutogradNonFunctional"):
            _dispatcher.register_kernel(op.name, "PrivateUse1", functools.partial(emu_kernel, op), with_keyset=True,
                                        label=f"emu::{op.name}")


def _worker_init():
    dk.tls.excluded |= _BELOW


_emu.worker_init_hooks.append(_worker_init)
