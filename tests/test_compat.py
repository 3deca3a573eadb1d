"""PyTorch compatibility surface: ``python -m glasstorch.compat``, glasstorch.cuda / backends / distributed /
version, against what a CPU-only torch 2.13 (the oracle) answers.

The compat runner is exercised in subprocesses: in this process ``torch`` is the real PyTorch already.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import warnings

import pytest
import torch
from oracle import assert_same_error

import glasstorch as gt

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _run(args, cwd):
    env = dict(os.environ, PYTHONPATH=REPO)
    return subprocess.run([sys.executable, "-m", "glasstorch.compat", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300)


SCRIPT = """
    import sys
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from torch.utils.data import DataLoader, TensorDataset
    import helper  # a module next to the script: sys.path[0] is the script's folder

    assert torch.__name__ == "glasstorch" and sys.modules["torch.nn"] is sys.modules["glasstorch.nn"]
    torch.manual_seed(0)
    model = nn.Linear(3, 2)
    x = torch.randn(4, 3)
    loss = F.mse_loss(model(x), torch.zeros(4, 2))
    loss.backward()
    assert model.weight.grad.shape == (2, 3)
    batches = [b[0].shape[0] for b in DataLoader(TensorDataset(x), batch_size=3)]
    torch.save(model.state_dict(), sys.argv[1])
    try:
        import torch._nonexistent_module
    except ModuleNotFoundError as e:
        missing = (e.name, "glasstorch._nonexistent_module" in str(e))
    print("OK", sys.argv[1:], batches, helper.VALUE, __name__, torch.cuda.is_available(), missing)
"""


def test_script_runs_on_glasstorch(tmp_path):
    (tmp_path / "train.py").write_text(textwrap.dedent(SCRIPT))
    (tmp_path / "helper.py").write_text("VALUE = 41 + 1\n")
    ckpt = tmp_path / "out.pt"
    proc = _run([str(tmp_path / "train.py"), str(ckpt), "--flag"], cwd=str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == (f"OK ['{ckpt}', '--flag'] [3, 1] 42 __main__ False "
                                   "('torch._nonexistent_module', True)")
    state = torch.load(ckpt)  # written by glasstorch inside the script, read by real PyTorch here
    assert set(state) == {"weight", "bias"} and state["weight"].shape == (2, 3)


def test_module_mode(tmp_path):
    (tmp_path / "pkg_main.py").write_text("import sys, torch\nprint(torch.__version__, sys.argv[1:])\n")
    proc = _run(["-m", "pkg_main", "a"], cwd=str(tmp_path))
    assert proc.returncode == 0 and proc.stdout.strip() == "2.13.0+glasstorch ['a']", proc.stderr


def test_code_mode_and_usage_in_process(monkeypatch, capsys):
    from glasstorch import compat
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    assert compat.main([]) == 2 and "usage: python -m glasstorch.compat" in capsys.readouterr().err
    try:
        with pytest.raises(SystemExit) as info:
            compat.main(["-c", "import sys; sys.exit(3 if sys.argv == ['-c', 'x'] and __name__ == '__main__' else 0)",
                         "x"])
        assert info.value.code == 3 and compat.is_installed()
    finally:
        compat.uninstall()
    assert not compat.is_installed() and sys.modules["torch"] is torch


# -- glasstorch.cuda ----------------------------------------------------------------------------------------------

CUDA_CALLS = ["is_available()", "device_count()", "is_initialized()", "manual_seed(0)", "manual_seed_all(3)", "seed()",
              "seed_all()", "is_bf16_supported()", "is_bf16_supported(False)", "is_tf32_supported()",
              "memory_allocated()", "max_memory_allocated()", "memory_reserved()", "empty_cache()", "get_arch_list()",
              "get_rng_state_all()", "synchronize()", "current_device()", "get_device_name()", "init()",
              "initial_seed()", "get_device_capability()", "get_device_properties(0)", "mem_get_info()",
              "current_stream()", "ipc_collect()", "manual_seed('a')", "Stream()", "Event()",
              "device(0).__enter__()", "stream(None).__enter__()", "device(-1).__enter__()"]


@pytest.mark.parametrize("call", CUDA_CALLS)
def test_cuda_module_answers_like_cpu_only_torch(call):
    def run(mod):
        return lambda: eval(f"mod.{call}", {"mod": mod})
    try:
        want = run(torch.cuda)()
    except Exception:
        assert_same_error(run(gt.cuda), run(torch.cuda))
        return
    assert run(gt.cuda)() == want


def test_cuda_amp_aliases():
    with pytest.warns(FutureWarning, match=r"torch.cuda.amp.GradScaler\(args...\)` is deprecated"):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*CUDA is not available.*")
            scaler = gt.cuda.amp.GradScaler()
    assert isinstance(scaler, gt.amp.GradScaler) and not scaler.is_enabled()
    with pytest.warns(FutureWarning, match=r"torch.cuda.amp.autocast\(args...\)` is deprecated"):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*CUDA is not available.*")
            with gt.cuda.amp.autocast():
                pass


# -- glasstorch.backends, precision and determinism switches ------------------------------------------------------

@pytest.fixture
def restore_switches():
    saved = (gt.get_float32_matmul_precision(), gt.backends.context.matmul_fp32_precision,
             gt.are_deterministic_algorithms_enabled(), gt.is_deterministic_algorithms_warn_only_enabled())
    yield
    gt.backends.context.matmul_precision, gt.backends.context.matmul_fp32_precision = saved[:2]
    gt.use_deterministic_algorithms(saved[2], warn_only=saved[3])


def test_backends_defaults_match_torch():
    for expr in ("cuda.matmul.allow_tf32", "cuda.matmul.allow_fp16_reduced_precision_reduction",
                 "cuda.matmul.allow_bf16_reduced_precision_reduction", "cudnn.allow_tf32", "cudnn.benchmark",
                 "cudnn.deterministic", "cudnn.enabled", "cudnn.is_available()", "cudnn.version()",
                 "mps.is_available()", "mps.is_built()", "cuda.is_built()", "cpu.get_cpu_capability()",
                 "cuda.flash_sdp_enabled()", "cuda.math_sdp_enabled()", "cuda.matmul.fp32_precision"):
        assert eval(f"gt.backends.{expr}") == eval(f"torch.backends.{expr}"), expr


def test_matmul_precision_links_like_torch(restore_switches):
    gt.set_float32_matmul_precision("high")
    assert (gt.get_float32_matmul_precision(), gt.backends.cuda.matmul.allow_tf32,
            gt.backends.cuda.matmul.fp32_precision) == ("high", True, "tf32")
    gt.set_float32_matmul_precision("highest")
    assert not gt.backends.cuda.matmul.allow_tf32
    gt.backends.cuda.matmul.allow_tf32 = True
    assert gt.get_float32_matmul_precision() == "high"
    with pytest.warns(UserWarning, match="bad is not one of 'highest', 'high', or 'medium'"):
        gt.set_float32_matmul_precision("bad")
    assert gt.get_float32_matmul_precision() == "high"


def test_backend_setter_errors_match_torch():
    for value in (1, [], [True, False, True], (True, 1)):
        assert_same_error(
            lambda v=value: setattr(gt.backends.cuda.matmul, "allow_bf16_reduced_precision_reduction", v),
            lambda v=value: setattr(torch.backends.cuda.matmul, "allow_bf16_reduced_precision_reduction", v))
    assert_same_error(lambda: gt.backends.cuda.matmul.nonsense, lambda: torch.backends.cuda.matmul.nonsense)
    assert_same_error(lambda: setattr(gt.backends.cuda.matmul, "nonsense", 1),
                      lambda: setattr(torch.backends.cuda.matmul, "nonsense", 1))


def test_cudnn_flags_context():
    with gt.backends.cudnn.flags(enabled=False, benchmark=True):
        assert (gt.backends.cudnn.enabled, gt.backends.cudnn.benchmark) == (False, True)
    assert (gt.backends.cudnn.enabled, gt.backends.cudnn.benchmark) == (True, False)


def test_deterministic_switches_match_torch(restore_switches):
    # (torch's own first call of use_deterministic_algorithms with a bad type costs ~10 s: its texts are inlined)
    with pytest.raises(TypeError) as info:
        gt.use_deterministic_algorithms(1)
    assert str(info.value) == "_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not int"
    with pytest.raises(TypeError) as info:
        gt.use_deterministic_algorithms(True, warn_only=1)
    assert str(info.value) == "_set_deterministic_algorithms(): argument 'warn_only' must be bool, not int"
    for mode in ("bad", 7, 1.5):
        assert_same_error(lambda m=mode: gt.set_deterministic_debug_mode(m),
                          lambda m=mode: torch.set_deterministic_debug_mode(m))
    gt.use_deterministic_algorithms(True, warn_only=True)
    assert gt.are_deterministic_algorithms_enabled() and gt.get_deterministic_debug_mode() == 1
    gt.set_deterministic_debug_mode("error")
    assert gt.get_deterministic_debug_mode() == 2 and not gt.is_deterministic_algorithms_warn_only_enabled()
    gt.set_deterministic_debug_mode(0)
    assert not gt.are_deterministic_algorithms_enabled()


# -- distributed, version ------------------------------------------------------------------------------------------

def test_distributed_is_single_process():
    assert not gt.distributed.is_available() and not gt.distributed.is_initialized()
    assert gt.distributed.is_torchelastic_launched() == torch.distributed.is_torchelastic_launched()
    for name in ("get_rank", "get_world_size", "barrier"):
        assert_same_error(getattr(gt.distributed, name), getattr(torch.distributed, name))
    with pytest.raises(RuntimeError, match="no process-group backend"):
        gt.distributed.init_process_group("gloo")


def test_version_compares_like_torch_version():
    from torch.torch_version import TorchVersion
    ours, theirs = gt.__version__, TorchVersion("2.13.0+glasstorch")
    assert isinstance(ours, str) and ours == "2.13.0+glasstorch" and gt.version.cuda is None
    for other in ("2.13.0", "2.13", "2.13.0+zzz", "2.14.0a0", "2.13.1.dev0", (2, 13), (2, 14), "1.10", "abc",
                  "2.13.0.post1", "2.13.0rc1"):
        for op in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__"):
            assert getattr(ours, op)(other) == getattr(TorchVersion, op)(theirs, other), (op, other)


def test_backends_quantized_engine_switch():
    # glasstorch has no quantized engine (a PyTorch build without any answers ['none']); the texts are torch's
    assert gt.backends.quantized.supported_engines == ["none"]
    assert gt.backends.quantized.engine == "none"
    gt.backends.quantized.engine = "none"
    assert_same_error(lambda: setattr(gt.backends.quantized, "engine", "foo"),
                      lambda: setattr(torch.backends.quantized, "engine", "foo"))
    with pytest.raises(RuntimeError, match="^quantized engine FBGEMM is not supported$"):
        gt.backends.quantized.engine = "fbgemm"
