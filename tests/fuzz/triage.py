"""Triage of a long fuzz run: many random programs, differences grouped by signature, the shortest of each printed.

    .venv/bin/python tests/fuzz/triage.py test_fuzz_views:_views 3000 [exact|tol|loose]

Runs the generator (a module in tests/fuzz and a generator function in it) through Hypothesis without stopping at
the first difference, so one run lists every root cause it meets (one entry per kind of difference and operator).
"""

import importlib
import sys
import warnings
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path[:0] = [str(Path(__file__).parent), str(Path(__file__).parent.parent)]
import conftest  # noqa: E402,F401  (registers the fuzz profiles the test modules use)
from programs import Program, Stop  # noqa: E402


def main(target, examples, mode="exact"):
    module_name, generator_name = target.split(":")
    module = importlib.import_module(module_name)
    generator = getattr(module, generator_name)
    lenient = getattr(module, "LENIENT", None)
    found, ended = {}, {"error": 0, "ok": 0}

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(st.data())
    def explore(data):
        program = Program(data, exact=mode == "exact", tol_scale=1e4 if mode == "loose" else 1.0, lenient=lenient)
        try:
            generator(program)
        except Stop:
            pass
        try:
            mismatch = program.compare()
        except Exception as e:  # noqa: BLE001 - a crash of the comparison is a finding too
            mismatch = (f"comparison crashed: {type(e).__name__}", f"{e!r}\nprogram:\n{program.code()}")
        ended["error" if program.stopped else "ok"] += 1
        if mismatch:
            count, report = found.get(mismatch[0], (0, mismatch[1]))
            found[mismatch[0]] = (count + 1, min(report, mismatch[1], key=len))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        explore()
    for signature, (count, report) in sorted(found.items(), key=lambda kv: -kv[1][0]):
        print(f"=== {signature}  ({count} programs)\n{report}\n")
    print(f"{len(found)} signatures; programs that ended in a torch error: {ended['error']} of {sum(ended.values())}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), *sys.argv[3:])
