"""requirements.lock pins what the Makefile installs: pyproject's dependencies and their whole closure.

A fresh machine must get what CI tested, so the lock (written by ``make lock``, passed to pip as
PIP_CONSTRAINT) has to hold every dependency pyproject.toml names, at a version inside pyproject's range, and
every package those pull in.  The installed environment the suite runs in is held to the lock as well: a
package pip resolved differently (a new release of a transitive dependency) fails here.
"""

from __future__ import annotations

import importlib.metadata as md
import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"


def _lock() -> dict[str, Version]:
    pins = {}
    for n, line in enumerate(LOCK.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        m = re.fullmatch(r"([A-Za-z0-9_.\-]+)==([^\s;]+)", line)
        assert m, f"requirements.lock:{n}: not a 'name==version' pin: {line!r}"
        name = canonicalize_name(m.group(1))
        assert name not in pins, f"requirements.lock:{n}: {name} pinned twice"
        pins[name] = Version(m.group(2))
    return pins


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _direct_requirements() -> list[Requirement]:
    p = _project()
    reqs = list(p["project"]["dependencies"])
    for extra in p["project"].get("optional-dependencies", {}).values():
        reqs += extra
    reqs += p["build-system"]["requires"]
    return [Requirement(r) for r in reqs]


@pytest.mark.parametrize("req", _direct_requirements(), ids=str)
def test_every_direct_dependency_is_pinned_inside_its_range(req):
    pins = _lock()
    name = canonicalize_name(req.name)
    assert name in pins, f"{req} (pyproject.toml) is not in requirements.lock: run `make lock`"
    assert req.specifier.contains(pins[name], prereleases=True), \
        f"requirements.lock pins {name}=={pins[name]}, outside pyproject's {req}: run `make lock`"


def _closure(names) -> set[str]:
    """The installed distributions ``names`` need, transitively (markers evaluated here, extras followed)."""
    seen, todo = set(), [(n, frozenset(x)) for n, x in names]
    while todo:
        name, extras = todo.pop()
        key = (canonicalize_name(name), extras)
        if key in seen:
            continue
        seen.add(key)
        for spec in md.requires(name) or []:
            r = Requirement(spec)
            env_ok = any(r.marker is None or r.marker.evaluate({"extra": e}) for e in (extras or {""}))
            if env_ok:
                todo.append((r.name, frozenset(r.extras)))
    return {n for n, _ in seen}


def test_installed_packages_are_the_locked_ones():
    """Everything glasstorch[test] pulls in is pinned, and installed at exactly the pinned version."""
    pins = _lock()
    needed = _closure([("glasstorch", {"test"})]) - {"glasstorch"}
    missing = sorted(n for n in needed if n not in pins)
    assert not missing, f"installed but not pinned in requirements.lock: {missing}: run `make lock`"
    wrong = {n: (md.version(n), str(pins[n])) for n in needed if Version(md.version(n)) != pins[n]}
    assert not wrong, f"installed version differs from requirements.lock (installed, locked): {wrong}"


def test_makefile_installs_through_the_lock():
    text = (ROOT / "Makefile").read_text()
    assert "LOCK   := requirements.lock" in text
    installs = [ln.strip() for ln in text.splitlines() if " install " in ln and not ln.startswith("#")]
    ours = [ln for ln in installs if "LOCKVENV" not in ln]  # `make lock` itself resolves without the lock
    assert len(ours) >= 2 and all(ln.startswith("$(PIP) install") for ln in ours), installs
    assert "PIP    := PIP_CONSTRAINT=$(CURDIR)/$(LOCK)" in text
