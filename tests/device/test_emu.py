"""The emulated accelerator ``emu``: tensors, dispatch, asynchrony, streams, events, memory and OOM.

Values are checked against glasstorch on the CPU and against real torch (the oracle); allocator numbers are
derived from the caching allocator's rules (pytorch-facts §8); no test depends on a timing threshold other than
"an enqueue takes less than the 200 ms kernel it queues" (a margin of orders of magnitude).
"""

import gc
import pickle
import time

import numpy as np
import pytest
import torch

import glasstorch as gt
from glasstorch._device.caching_allocator import format_size
from glasstorch.emu import _dispatch

MiB = 1 << 20


def to_np(t):
    return t.detach().cpu().numpy()


def close(a, b, **kw):
    np.testing.assert_allclose(to_np(a), b if isinstance(b, np.ndarray) else to_np(b), **kw)


@pytest.fixture(autouse=True)
def _drain():
    yield
    gt.emu.synchronize()


# -- tensors on the device -----------------------------------------------------------------------------------------
def test_tensors_live_in_device_memory():
    gc.collect()
    base = gt.emu.memory_allocated()
    x = gt.empty(1000, device="emu")
    assert x.device == gt.device("emu", 0) and str(x.device) == "emu:0" and x.is_cuda is False
    assert type(x.untyped_storage()).__name__ == "EmuStorage"
    assert gt.emu.memory_allocated() - base == 4096  # 4000 bytes round up to 512-byte blocks
    del x
    assert gt.emu.memory_allocated() == base
    assert gt.emu.memory_reserved() >= 2 * MiB  # the segment stays cached


def test_round_trip_and_printing():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = gt.tensor(a, device="emu")
    assert repr(x).endswith("device='emu:0')")
    assert x.tolist() == a.tolist()
    y = gt.from_numpy(a).to("emu")
    np.testing.assert_array_equal(y.cpu().numpy(), a)
    with pytest.raises(TypeError, match=r"can't convert emu:0 device type tensor to numpy\. Use Tensor.cpu\(\)"):
        y.numpy()


def test_device_mixing_raises_pytorchs_error():
    e, c = gt.ones(3, device="emu"), gt.ones(3)
    for f in (lambda: e + c, lambda: c + e, lambda: gt.mm(e.view(1, 3), c.view(3, 1))):
        with pytest.raises(RuntimeError) as info:
            f()
        assert str(info.value) == ("Expected all tensors to be on the same device, but found at least two devices, "
                                   "emu:0 and cpu!")
    assert (e + gt.tensor(2.0)).tolist() == [3.0, 3.0, 3.0]  # a CPU scalar tensor may join
    e.copy_(gt.tensor([1.0, 2.0, 3.0]))  # copies cross devices
    assert e.tolist() == [1.0, 2.0, 3.0]
    assert e[gt.tensor([2, 0])].tolist() == [3.0, 1.0]  # as do CPU index tensors


@pytest.mark.parametrize("name, fn", [
    ("broadcast arithmetic", lambda m, a, b: (a * 2 + b.T) / 3 - a.exp()),
    ("matmul", lambda m, a, b: a @ b),
    ("reductions", lambda m, a, b: m.stack([a.sum(0), a.mean(0), a.amax(0), a.var(0)]) + a.sum(1, keepdim=True)[0]),
    ("softmax", lambda m, a, b: m.nn.functional.log_softmax(a, dim=-1) + m.softmax(a, dim=0)),
    ("views and copies", lambda m, a, b: a.t().contiguous().view(-1)[::3] + a.T.reshape(-1)[:4].sum()),
    ("cat and where", lambda m, a, b: m.cat([m.where(a > 0, a, b.T), a.abs()], 1)),
    ("indexing", lambda m, a, b: a[[0, 2], 1:] + a[a > 0].sum()),
    ("dtype casts", lambda m, a, b: (a * 10).to(m.int64).to(m.float64) + a.argmax(1, keepdim=True)),
    ("layer norm and gelu", lambda m, a, b: m.nn.functional.gelu(m.nn.functional.layer_norm(a, (4,)))),
])
def test_ops_on_emu_equal_cpu_and_torch(name, fn):
    rng = np.random.default_rng(0)
    an, bn = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((4, 3)).astype(np.float32)
    got = fn(gt, gt.tensor(an, device="emu"), gt.tensor(bn, device="emu"))
    assert got.device.type == "emu"
    ref_cpu = fn(gt, gt.tensor(an), gt.tensor(bn))
    ref_torch = fn(torch, torch.tensor(an), torch.tensor(bn))
    assert got.dtype == ref_cpu.dtype and tuple(got.shape) == tuple(ref_torch.shape)
    np.testing.assert_array_equal(to_np(got), to_np(ref_cpu))  # the same kernels: bit for bit
    np.testing.assert_allclose(to_np(got), ref_torch.numpy(), rtol=1e-5, atol=1e-6)


def test_in_place_and_out_arguments():
    x = gt.zeros(2, 3, device="emu")
    x.add_(1).mul_(3)
    x[0, 1] = 7.0
    x[1].fill_(-1)
    assert x.tolist() == [[3.0, 7.0, 3.0], [-1.0, -1.0, -1.0]]
    out = gt.empty(0, device="emu")
    gt.add(x, 1, out=out)  # out= resized on the device
    assert out.device.type == "emu" and out.tolist() == [[4.0, 8.0, 4.0], [0.0, 0.0, 0.0]]
    assert x._version > 0


def test_autograd_on_emu_equals_cpu():
    rng = np.random.default_rng(1)
    wn, xn = rng.standard_normal((5, 4)).astype(np.float32), rng.standard_normal((3, 5)).astype(np.float32)
    grads = []
    for dev in ("cpu", "emu"):
        w = gt.tensor(wn, device=dev, requires_grad=True)
        x = gt.tensor(xn, device=dev)
        loss = gt.nn.functional.cross_entropy(gt.tanh(x @ w), gt.tensor([0, 3, 1], device=dev))
        loss.backward()
        assert w.grad.device.type == dev
        grads.append((loss.item(), to_np(w.grad)))
    assert grads[0][0] == grads[1][0]
    np.testing.assert_array_equal(grads[0][1], grads[1][1])


def test_random_ops_draw_the_cpu_stream():
    gt.manual_seed(3)
    a = gt.randn(5, device="emu")
    d = gt.nn.functional.dropout(gt.ones(8, device="emu"), 0.5)
    gt.manual_seed(3)
    assert a.tolist() == gt.randn(5).tolist()
    assert d.tolist() == gt.nn.functional.dropout(gt.ones(8), 0.5).tolist()


def test_gpt_trains_on_emu_with_the_cpus_losses():
    from examples.gpt.model import GPTConfig, build_gpt
    cfg = GPTConfig(block_size=8, vocab_size=11, n_layer=1, n_head=2, n_embd=16, dropout=0.1)
    losses = {}
    for dev in ("cpu", "emu"):
        gt.manual_seed(0)
        model = build_gpt(gt).GPT(cfg).to(dev)
        opt = gt.optim.AdamW(model.parameters(), lr=1e-2)
        gt.manual_seed(1)
        x, y = gt.randint(11, (2, 8)).to(dev), gt.randint(11, (2, 8)).to(dev)
        for _ in range(2):
            _, loss = model(x, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.setdefault(dev, []).append(loss.item())
    assert losses["emu"] == losses["cpu"]


# -- asynchrony, streams, events -------------------------------------------------------------------------------------
def test_host_reads_wait_for_queued_kernels():
    x = gt.zeros(4, device="emu")
    gt.emu._sleep(int(5e7))  # 50 ms of work queued ahead
    x.add_(1)
    assert not gt.emu.current_stream().query()
    assert x.tolist() == [1.0, 1.0, 1.0, 1.0]  # reading waited for the add
    assert gt.emu.current_stream().query()


def test_timing_without_synchronize_measures_the_enqueue():
    start, end = gt.emu.Event(enable_timing=True), gt.emu.Event(enable_timing=True)
    gt.emu.synchronize()
    t0 = time.perf_counter()
    start.record()
    gt.emu._sleep(int(2e8))  # a 200 ms kernel
    end.record()
    enqueue_ms = (time.perf_counter() - t0) * 1000
    assert not end.query()
    end.synchronize()
    kernel_ms = start.elapsed_time(end)
    assert kernel_ms >= 199.0  # the events bracket the kernel
    assert enqueue_ms < kernel_ms / 4  # the host only queued it


def test_event_errors():
    a, b = gt.emu.Event(), gt.emu.Event()
    a.record()
    b.record()
    with pytest.raises(ValueError, match="Both events must be created with argument 'enable_timing=True'"):
        a.elapsed_time(b)
    c, d = gt.emu.Event(enable_timing=True), gt.emu.Event(enable_timing=True)
    with pytest.raises(ValueError, match="Both events must be recorded before calculating elapsed time"):
        c.elapsed_time(d)
    assert c.query()  # never recorded: nothing to wait for


def test_two_streams_with_events_produce_the_right_result():
    s1, s2 = gt.emu.Stream(), gt.emu.Stream()
    assert s1 != s2 and s1.device == gt.device("emu", 0)
    x = gt.arange(6.0, device="emu")
    done = gt.emu.Event()
    with gt.emu.stream(s1):
        gt.emu._sleep(int(5e7))  # the producer is slow
        y = x * 10
        y.record_stream(s2)
        done.record()
    assert gt.emu.current_stream() == gt.emu.default_stream()
    with gt.emu.stream(s2):
        s2.wait_event(done)  # without this, s2 could read y before s1 wrote it
        z = y + 1
    s2.synchronize()
    assert z.tolist() == [1.0, 11.0, 21.0, 31.0, 41.0, 51.0]
    s3 = gt.emu.Stream()
    s3.wait_stream(s2)
    with gt.emu.stream(s3):
        w = z.sum()
    assert w.item() == 156.0


def test_allocations_follow_the_current_stream():
    gt.emu._record_memory_history(enabled=None)
    s = gt.emu.Stream()
    with gt.emu.stream(s):
        t = gt.empty(100, device="emu")
    seg = next(seg for seg in gt.emu.memory._snapshot()["segments"]
               if any(b["address"] == t.untyped_storage().data_ptr() for b in seg["blocks"]))
    assert seg["stream"] == s.stream_id != 0


def test_record_stream_keeps_the_block_until_the_stream_is_done():
    s = gt.emu.Stream()
    x = gt.empty(256, device="emu")
    ptr = x.data_ptr()
    with gt.emu.stream(s):
        gt.emu._sleep(int(1e8))  # s is busy for 100 ms: x's memory must not be reused meanwhile
    x.record_stream(s)
    active = gt.emu.memory_stats()["active_bytes.all.current"]
    del x
    stats = gt.emu.memory_stats()
    assert stats["active_bytes.all.current"] == active  # freed, but pending on s
    y = gt.empty(256, device="emu")
    assert y.data_ptr() != ptr
    s.synchronize()
    del y
    z = gt.empty(256, device="emu")
    assert z.data_ptr() == ptr  # events processed: reusable again
    with pytest.raises(RuntimeError, match="record_stream"):
        gt.ones(2).record_stream(s)


def test_errors_of_queued_work_surface_at_synchronize():
    w = gt.randn(4, 3, device="emu")
    idx = gt.tensor([1, 7], device="emu")  # 7 is out of range: only the kernel can tell
    out = gt.nn.functional.embedding(idx, w)
    assert tuple(out.shape) == (2, 3)  # the launch returned with the right shape
    with pytest.raises(RuntimeError, match="index out of range"):
        gt.emu.synchronize()
    assert (w[0] * 0).tolist() == [0.0, 0.0, 0.0]  # the device stays usable


# -- memory: stats, history, OOM -----------------------------------------------------------------------------------
def test_memory_stats_and_summary():
    gt.emu.reset_peak_memory_stats()
    x = gt.empty(3 * MiB // 4, device="emu")  # 3 MiB: a large-pool block in a 20 MiB segment
    stats = gt.emu.memory_stats()
    assert stats["allocated_bytes.large_pool.current"] >= 3 * MiB
    assert gt.emu.max_memory_allocated() >= gt.emu.memory_allocated() >= 3 * MiB
    assert stats["max_split_size"] == -1 and "num_device_alloc" in stats
    summary = gt.emu.memory_summary()
    assert "PyTorch EMU memory summary, device ID 0" in summary and "Allocated memory" in summary
    assert all(len(line) == 77 for line in summary.splitlines())
    del x
    free, total = gt.emu.mem_get_info()
    assert total == gt.emu.get_device_properties().total_memory and 0 < free <= total


def test_out_of_memory_message_and_recovery():
    gt.emu.empty_cache()
    free, total = gt.emu.mem_get_info()
    big = (total // 2 + 64 * MiB) // MiB * MiB  # two of them cannot fit
    a = gt.empty(big, dtype=gt.uint8, device="emu")  # empty: no host page is touched
    ooms = gt.emu.memory_stats()["num_ooms"]
    with pytest.raises(gt.OutOfMemoryError) as info:
        gt.empty(big, dtype=gt.uint8, device="emu")
    msg = str(info.value)
    assert isinstance(info.value, RuntimeError) and gt.emu.OutOfMemoryError is gt.OutOfMemoryError
    assert msg.startswith(f"EMU out of memory. Tried to allocate {format_size(big)}. GPU 0 has a total capacity of "
                          f"{format_size(total)} of which ")
    assert " is free. Of the allocated memory " in msg and " is allocated by PyTorch, and " in msg
    assert " is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting " \
           "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation." in msg
    assert gt.emu.memory_stats()["num_ooms"] == ooms + 1
    del a  # free some: the same allocation succeeds
    b = gt.empty(big, dtype=gt.uint8, device="emu")
    assert b.numel() == big
    del b
    gt.emu.empty_cache()


def test_memory_fraction():
    gt.emu.empty_cache()
    total = gt.emu.mem_get_info()[1]
    gt.emu.set_per_process_memory_fraction(0.25)
    try:
        with pytest.raises(gt.OutOfMemoryError, match=" allowed; Of the allocated memory"):
            gt.empty(total // 2, dtype=gt.uint8, device="emu")
    finally:
        gt.emu.set_per_process_memory_fraction(1.0)
    with pytest.raises(ValueError, match=r"Invalid fraction value: 2.0. Allowed range: 0~1"):
        gt.emu.set_per_process_memory_fraction(2.0)


def test_memory_history_and_snapshot(tmp_path):
    gt.emu._record_memory_history(max_entries=10000)
    try:
        def make_activations():
            return gt.randn(64, 64, device="emu")

        act = make_activations()
        tmp = act * 2
        del tmp
        snap = gt.emu.memory._snapshot()
    finally:
        gt.emu._record_memory_history(enabled=None)
    block = next(b for seg in snap["segments"] for b in seg["blocks"] if b["address"] == act.data_ptr())
    assert block["state"] == "active_allocated" and block["size"] == 64 * 64 * 4
    assert [f["name"] for f in block["frames"]][:1] == ["make_activations"] or any(
        f["name"] == "make_activations" for f in block["frames"])
    actions = [e["action"] for e in snap["device_traces"][0]]
    assert {"alloc", "free_requested", "free_completed"} <= set(actions) and actions[-1] == "snapshot"
    path = tmp_path / "snap.pickle"
    gt.emu.memory._dump_snapshot(str(path))
    assert set(pickle.loads(path.read_bytes())) >= {"segments", "device_traces"}
    with pytest.raises(RuntimeError, match="expected state to be 'state', 'all', or None"):
        gt.emu._record_memory_history(enabled="everything")


def test_emu_module_surface():
    assert gt.emu.is_available() and gt.emu.device_count() == 1 and gt.emu.current_device() == 0
    with gt.emu.device(0):
        assert gt.emu.current_device() == 0
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        gt.empty(1, device="emu:3")
    assert "Stream" in repr(gt.emu.current_stream())
    assert _dispatch.emu_kernel.__name__ == "emu_kernel"


def test_accelerator_api_names_emu():
    assert gt.accelerator.current_accelerator() == gt.device("emu") and gt.accelerator.is_available()
    assert gt.accelerator.device_count() == 1 and gt.accelerator.current_device_index() == 0
    assert gt.accelerator.current_stream() == gt.emu.current_stream()
    x = gt.ones(10, device="emu")
    assert gt.accelerator.memory_allocated() == gt.emu.memory_allocated() > 0
    gt.accelerator.synchronize()
    del x


def test_memory_size_parsing():
    from glasstorch._device.emu import EmuBackend, parse_memory_size
    assert [parse_memory_size(s) for s in ("2GiB", "512MiB", "1.5GB", "64K", "1048576")] == [
        2 << 30, 512 << 20, 1_500_000_000, 64 << 10, 1 << 20]
    with pytest.raises(ValueError, match="GLASSTORCH_EMU_MEMORY: cannot parse 'lots'"):
        parse_memory_size("lots")
    assert EmuBackend(capacity="8MiB").mem_get_info(0) == (8 << 20, 8 << 20)


def test_nothing_leaks_after_training():
    from examples.gpt.model import GPTConfig, build_gpt
    gc.collect()
    gt.emu.synchronize()
    base = gt.emu.memory_allocated()
    model = build_gpt(gt).GPT(GPTConfig(block_size=8, vocab_size=11, n_layer=1, n_head=2, n_embd=16)).to("emu")
    opt = gt.optim.AdamW(model.parameters(), lr=1e-2)
    x = gt.randint(11, (2, 8)).to("emu")
    logits, loss = model(x, x)
    loss.backward()
    opt.step()
    assert gt.emu.memory_allocated() > base
    del model, opt, x, logits, loss
    gc.collect()
    assert gt.emu.memory_allocated() == base
    stats = gt.emu.memory_stats()
    assert stats["active_bytes.all.current"] == stats["allocated_bytes.all.current"] == base
