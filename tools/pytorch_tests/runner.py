"""Run one upstream test file, as itself on torch or as its glasstorch variant, in a subprocess.

Everything a run writes goes under ``out/pytorch_tests/<variant>/`` (gitignored): the file that ran (a copy, or
the rewritten variant), ``<name>.xml`` (junit), ``<name>.jsonl`` (one line per test, written as it ends) and
``<name>.log`` (pytest's output). The upstream files are read from ``PYTORCH_TEST_FILES`` (default
``/work/ptfiles``) and never copied into the repository.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tools.pytorch_tests.rewriter import rewrite_file, write_atomic

REPO = Path(__file__).resolve().parents[2]
OUT = REPO / "out" / "pytorch_tests"
VARIANTS = ("torch", "glass")


def files_dir() -> Path:
    return Path(os.environ.get("PYTORCH_TEST_FILES", "/work/ptfiles"))


@dataclass(frozen=True)
class TestFile:
    name: str              # test_view_ops
    select: str = ""       # a pytest node selector within the file ("TestNN" for test_nn)
    # Tests left out of both runs, with the reason (machine resources only: never to hide a failure).
    deselect: tuple[str, ...] = ()
    # Test classes the file imports from other upstream test files ("module:Class"), which are not part of this
    # measurement: both runs get an empty stand-in, so the file imports and those classes add no tests.
    stand_ins: tuple[str, ...] = ()

    @property
    def upstream(self) -> str:
        return f"test/{self.name}.py"


# The six files issue 19 is judged on.
FILES = {f.name: f for f in (
    TestFile("test_view_ops"),
    TestFile("test_autograd", stand_ins=("autograd.test_complex:TestAutogradComplex",
                                         "autograd.test_functional:TestAutogradFunctional",
                                         "autograd.test_logging:TestAutogradLogging")),
    TestFile("test_type_promotion"),
    TestFile("test_indexing"), TestFile("test_nn", select="TestNN"),
    # Each of these holds 2 GiB tensors several times over (8+ GiB at once), on a machine shared by many runs.
    TestFile("test_serialization", deselect=(
        "TestOldSerialization::test_serialization_offset",
        "TestOldSerialization::test_serialization_offset_filelike_weights_only_True",
        "TestOldSerialization::test_serialization_offset_filelike_weights_only_False",
        "TestSerialization::test_serialization_2gb_file",
        "TestSerialization::test_serialization_4gb_file",
    )),
)}


def variant_dir(variant: str) -> Path:
    return OUT / variant


def results_path(variant: str, name: str) -> Path:
    return variant_dir(variant) / f"{name}.jsonl"


def _link(target: Path, link: Path) -> None:
    if link.is_symlink() or link.exists():
        if link.is_symlink() and link.resolve() == target.resolve():
            return
        if link.is_dir() and not link.is_symlink():
            shutil.rmtree(link)
        else:
            link.unlink()
    link.symlink_to(target)


def _rewrite_data(src_root: Path, dst_root: Path) -> None:
    """The transcribed data files (``<files>/data``), rewritten like the tests (network1.py imports torch.nn)."""
    for src in sorted(src_root.rglob("*")):
        if src.is_file():
            dst = dst_root / src.relative_to(src_root)
            if src.suffix == ".py":
                rewrite_file(src, dst)
            else:
                dst.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(src, dst)


def source(name: str) -> Path:
    """The transcribed upstream file: ``pinned/<name>.py`` where a newer version was pinned (one that imports on
    torch 2.13), else ``<name>.py``."""
    pinned = files_dir() / "pinned" / f"{name}.py"
    return pinned if pinned.exists() else files_dir() / f"{name}.py"


def prepare(test: TestFile, variant: str) -> Path:
    """Write the file that will run (copy or variant) and its neighbours; returns its path."""
    src = source(test.name)
    if not src.exists():
        raise FileNotFoundError(f"{src} is missing: transcribe {test.upstream} first (docs/pytorch-tests.md)")
    vdir = variant_dir(variant)
    vdir.mkdir(parents=True, exist_ok=True)
    dst = vdir / f"{test.name}.py"
    if variant == "glass":
        rewrite_file(src, dst)
        if (files_dir() / "data").is_dir():
            _rewrite_data(files_dir() / "data", vdir / "data")
    else:
        rewrite_file(src, dst, variant="torch")  # unchanged but for renamed harness names (mapping.COMPAT)
    for spec in test.stand_ins:
        module, cls = spec.split(":")
        parts = module.split(".")
        for i in range(1, len(parts)):
            init = vdir.joinpath(*parts[:i], "__init__.py")
            if not init.exists():
                write_atomic(init, "")
        write_atomic(vdir.joinpath(*parts[:-1], parts[-1] + ".py"),
                     f"# stand-in for upstream test/{module.replace('.', '/')}.py (not measured)\n"
                     f"class {cls}:\n    pass\n")
    # expecttest finds expect files next to the test module.
    if (files_dir() / "expect").is_dir():
        _link(files_dir() / "expect", vdir / "expect")
    ini = OUT / "pytest.ini"
    if not ini.exists():
        write_atomic(ini, "[pytest]\n# measurement runs of PyTorch's test files (tools/pytorch_tests)\n")
    return dst


def command(path: Path, test: TestFile, variant: str, keyword: str | None, timeout: float) -> list[str]:
    target = f"{path}::{test.select}" if test.select else str(path)
    cmd = ["nice", "-n", "10", sys.executable, "-m", "pytest", target,
           "-p", "tools.pytorch_tests.plugin", "-p", "no:cacheprovider", "-q", "-rN",
           "-c", str(OUT / "pytest.ini"), "--rootdir", str(variant_dir(variant)),
           f"--junitxml={variant_dir(variant) / (test.name + '.xml')}",
           "-o", f"faulthandler_timeout={int(timeout) + 30}"]
    if importlib.util.find_spec("pytest_timeout") is not None:
        cmd += [f"--timeout={int(timeout)}"]
    if keyword:
        cmd += ["-k", keyword]
    return cmd


def run(name: str, variant: str, keyword: str | None = None, timeout: float = 300,
        file_timeout: float = 5400, resume: bool = False) -> int:
    """Run test file ``name`` in ``variant`` ("torch" or "glass"); returns pytest's exit status. ``resume``: run
    only the tests the last results lack."""
    test = FILES.get(name) or TestFile(name)
    path = prepare(test, variant)
    results = results_path(variant, name)
    if results.exists() and not keyword and not resume:
        results.unlink()  # a full run starts afresh; a -k run adds to (and supersedes part of) the last one
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
               PYTORCH_TESTS_VARIANT=variant, PYTORCH_TESTS_RESULTS=str(results),
               PYTORCH_TESTS_TIMEOUT=str(timeout), PYTHONDONTWRITEBYTECODE="1",
               PYTORCH_TESTS_GLASS_DATA=str(variant_dir(variant) / "data"),
               PYTORCH_TESTS_DESELECT=",".join(test.deselect))
    if resume:
        env["PYTORCH_TESTS_RESUME"] = "1"
    log = variant_dir(variant) / f"{name}.log"
    with open(log, "w", encoding="utf-8") as f:
        for attempt in range(RESUMES + 1):
            try:
                proc = subprocess.run(command(path, test, variant, keyword, timeout), cwd=variant_dir(variant),
                                      env=env, stdout=f, stderr=subprocess.STDOUT, timeout=file_timeout)
            except subprocess.TimeoutExpired:
                f.write(f"\n[tools.pytorch_tests] the whole file ran past {file_timeout:g}s and was stopped\n")
                return 124
            if proc.returncode >= 0:  # pytest's own statuses (0-5): the run ended on its own
                return proc.returncode
            # A signal ended the test process inside a test (a crash, not a failure): carry on after it.
            f.write(f"\n[tools.pytorch_tests] pytest was ended by signal {-proc.returncode}; resuming "
                    f"({attempt + 1}/{RESUMES})\n")
            f.flush()
            env["PYTORCH_TESTS_RESUME"] = "1"
        return proc.returncode


RESUMES = 20  # restarts after the test process dies mid-run

