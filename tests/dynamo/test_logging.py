"""glasstorch._logging: artifact loggers, set_logs, GLASSTORCH_LOGS and the compile debug folder."""

import logging
import os
import subprocess
import sys

import pytest

import glasstorch as gt
import glasstorch._logging as gl
from glasstorch._logging import _debug_dir


def test_artifact_logger_prints_only_when_on(capsys):
    log = gl.getArtifactLogger("glasstorch._inductor.test", "output_code")
    log.debug("hidden")
    assert not gl.artifact_enabled("output_code")
    gl.set_logs(output_code=True)
    assert gl.artifact_enabled("output_code")
    log.debug("kernel %d", 7)
    gl.set_logs()
    log.debug("hidden again")
    err = capsys.readouterr().err
    assert "hidden" not in err
    assert err.count("kernel 7") == 1 and "[__output_code] kernel 7" in err


def test_unknown_artifact_and_bad_level_raise():
    with pytest.raises(ValueError, match="Unknown artifact name: 'nope'"):
        gl.getArtifactLogger(__name__, "nope")
    with pytest.raises(ValueError, match="Unknown artifact name"):
        gl.set_logs(nope=True)
    with pytest.raises(ValueError, match="Unrecognized log level for log dynamo"):
        gl.set_logs(dynamo="loud")


def test_parse_log_settings():
    assert gl.parse_log_settings("graph_breaks, recompiles,+dynamo,-inductor,aot") == {
        "graph_breaks": True, "recompiles": True, "dynamo": logging.DEBUG, "inductor": logging.ERROR,
        "aot": logging.INFO}
    with pytest.raises(ValueError, match="Invalid log settings"):
        gl.parse_log_settings("graph_brakes")


def test_component_level(capsys):
    gl.set_logs(dynamo=logging.INFO)
    gt.compile(lambda x: x + 1, backend="eager")(gt.ones(1))
    gl.set_logs()
    assert "glasstorch._dynamo start tracing" in capsys.readouterr().err
    assert logging.getLogger("glasstorch._dynamo").level == logging.NOTSET


def test_guards_and_graph_code_artifacts(capsys):
    gl.set_logs(guards=True, graph_code=True)
    gt.compile(lambda x: x.exp(), backend="eager")(gt.ones(2))
    err = capsys.readouterr().err
    assert "[__guards] GUARDS [0/0]" in err and "TENSOR_MATCH: check_tensor(L['x']" in err
    assert "[__graph_code] TRACED GRAPH" in err and "torch.ops.aten.exp.default" in err


def test_env_var_in_a_fresh_process():
    code = ("import glasstorch as torch\n"
            "f = torch.compile(lambda x: x.sum().item(), backend='eager')\n"
            "f(torch.ones(2))\n")
    env = dict(os.environ, GLASSTORCH_LOGS="graph_breaks")
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert "[__graph_breaks] Graph break in user code at <string>:2" in run.stderr
    assert "Graph Break Reason: Unsupported Tensor.item() call with capture_scalar_outputs=False" in run.stderr


def test_compile_debug_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("GLASSTORCH_COMPILE_DEBUG", "1")
    monkeypatch.setenv("GLASSTORCH_COMPILE_DEBUG_DIR", str(tmp_path))
    monkeypatch.setattr(_debug_dir, "_run_dir", None)
    monkeypatch.setattr(_debug_dir, "_counter", 0)
    seen = []

    def backend(gm, example_inputs):
        seen.append(gl.debug_dir())
        gl.write_debug_file("backend_note.txt", "hello")
        return gm.forward

    f = gt.compile(lambda x: x * 2, backend=backend)
    f(gt.ones(2))
    f(gt.ones(3))
    assert gl.debug_dir() is None
    run_dirs = list((tmp_path / "glasstorch_compile_debug").iterdir())
    assert len(run_dirs) == 1 and run_dirs[0].name.startswith("run_") and f"-pid_{os.getpid()}" in run_dirs[0].name
    first, second = run_dirs[0] / "0", run_dirs[0] / "1"
    assert seen == [str(first), str(second)]
    assert "torch.ops.aten.mul.Tensor" in (first / "graph.py").read_text()
    assert "TENSOR_MATCH" in (first / "guards.txt").read_text()
    assert (first / "backend_note.txt").read_text() == "hello"


def test_debug_dir_off_by_default(monkeypatch):
    monkeypatch.delenv("GLASSTORCH_COMPILE_DEBUG", raising=False)
    with gl.compile_debug_scope() as d:
        assert d is None and gl.debug_dir() is None
        assert gl.write_debug_file("x.txt", "y") is None
