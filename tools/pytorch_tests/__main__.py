"""Command line: ``python -m tools.pytorch_tests {run,report,rewrite,check}``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tools.pytorch_tests import manifest, report, runner
from tools.pytorch_tests.rewriter import rewrite_file


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.pytorch_tests", description=__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="run one upstream test file on torch and/or as its glasstorch variant")
    r.add_argument("file", help="e.g. test_serialization (its text under PYTORCH_TEST_FILES)")
    g = r.add_mutually_exclusive_group()
    g.add_argument("--torch", action="store_true", help="only the baseline: the file as it is, on torch")
    g.add_argument("--glass", action="store_true", help="only the glasstorch variant")
    r.add_argument("-k", dest="keyword", help="pytest -k expression")
    r.add_argument("--resume", action="store_true", help="run only the tests the last results lack")
    r.add_argument("--timeout", type=float, default=300, help="per-test timeout in seconds (default 300)")
    r.add_argument("--file-timeout", type=float, default=5400, help="whole-file limit in seconds (default 5400)")
    rp = sub.add_parser("report", help="per file: torch passes, glasstorch passes among them, exclusions, ratio")
    rp.add_argument("files", nargs="*", help="files to report (default: the six of issue 19)")
    rp.add_argument("--failures", metavar="FILE", help="list FILE's counted failures ('all' for every file)")
    rp.add_argument("--markdown", type=Path, help="also write the report as markdown to this path")
    rw = sub.add_parser("rewrite", help="write the glasstorch variant of an upstream file")
    rw.add_argument("src", type=Path)
    rw.add_argument("dst", type=Path)
    ck = sub.add_parser("check", help="check the transcribed files against manifest.json")
    ck.add_argument("--update", action="store_true", help="first fold PYTORCH_TEST_FILES/MANIFEST-*.json into it")
    args = p.parse_args(argv)

    if args.cmd == "run":
        variants = ["torch"] if args.torch else ["glass"] if args.glass else list(runner.VARIANTS)
        status = 0
        for v in variants:
            rc = runner.run(args.file, v, args.keyword, args.timeout, args.file_timeout, args.resume)
            print(f"{args.file} [{v}]: pytest exit {rc}; results {runner.results_path(v, args.file)}")
            status = status or (rc if rc not in (0, 1) else 0)
        return status
    if args.cmd == "report":
        return report.main(args.files, args.failures, args.markdown)
    if args.cmd == "rewrite":
        rewrite_file(args.src, args.dst)
        return 0
    if args.update:
        manifest.update(runner.files_dir())
    lines = manifest.check(runner.files_dir())
    print("\n".join(lines))
    return 0 if all(": ok" in line for line in lines) else 1


if __name__ == "__main__":
    sys.exit(main())
