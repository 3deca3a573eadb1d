"""``glasstorch.version`` — PyTorch's ``torch.version`` and ``torch.torch_version.TorchVersion``.

``__version__`` is "2.13.0+glasstorch": the PyTorch release whose behaviour glasstorch reproduces (the oracle
of its tests is torch 2.13), with a local version label naming the implementation, the way PyTorch's own
builds say "2.13.0+cpu".  Scripts that gate features on ``torch.__version__ >= "2.0"`` therefore take the
2.13 paths.  ``cuda``/``hip`` are None: no GPU build.

Invariant: ``TorchVersion`` compares with strings and tuples by PEP 440 rules, as PyTorch's does.
"""

from __future__ import annotations

import re

__all__ = ["__version__", "cuda", "hip", "git_version", "debug", "TorchVersion"]


_PEP440 = re.compile(
    r"^\s*v?(?:(?P<epoch>\d+)!)?(?P<release>\d+(?:\.\d+)*)"
    r"(?:[-_.]?(?P<pre_l>alpha|beta|preview|pre|rc|a|b|c)[-_.]?(?P<pre_n>\d*))?"
    r"(?:-(?P<post_n1>\d+)|[-_.]?(?:post|rev|r)[-_.]?(?P<post_n2>\d*))?"
    r"(?:[-_.]?dev[-_.]?(?P<dev_n>\d*))?"
    r"(?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?\s*$", re.IGNORECASE)
_LOW, _HIGH = (0,), (2,)  # sort below / above every present value (1, x)
_PRE_LETTER = {"alpha": "a", "a": "a", "beta": "b", "b": "b", "c": "rc", "pre": "rc", "preview": "rc", "rc": "rc"}


def version_key(text: str) -> tuple:
    """PEP 440's sort key (epoch, release, pre, post, dev, local); ValueError for a non-version string."""
    m = _PEP440.match(text)
    if m is None:
        raise ValueError(f"Invalid version: {text!r}")
    release = tuple(int(x) for x in m["release"].split("."))
    while len(release) > 1 and release[-1] == 0:
        release = release[:-1]
    post = m["post_n1"] or m["post_n2"]
    has_post = m["post_n1"] is not None or m["post_n2"] is not None
    if m["pre_l"]:
        pre = (1, _PRE_LETTER[m["pre_l"].lower()], int(m["pre_n"] or 0))
    else:
        pre = _LOW if (m["dev_n"] is not None and not has_post) else _HIGH
    post_key = (1, int(post or 0)) if has_post else _LOW
    dev = (1, int(m["dev_n"] or 0)) if m["dev_n"] is not None else _HIGH
    local = _LOW if m["local"] is None else (1, tuple((1, int(p), "") if p.isdigit() else (0, 0, p.lower())
                                                      for p in re.split(r"[-_.]", m["local"])))
    return (int(m["epoch"] or 0), release, pre, post_key, dev, local)


class TorchVersion(str):
    """A version string that compares as a PEP 440 version, also against tuples (``torch.torch_version``).

    Example:
        >>> TorchVersion("2.13.0+glasstorch") > (2, 9)
        True
    """

    __slots__ = ()

    @staticmethod
    def _other_key(other) -> tuple:
        if isinstance(other, (tuple, list)):
            other = ".".join(str(x) for x in other)
        if not isinstance(other, str):
            raise ValueError(other)
        return version_key(other)

    def _compare(self, other, op, str_op):
        try:
            return op(version_key(self), self._other_key(other))
        except ValueError:
            return str_op(self, other)


for _name, _op in (("__lt__", lambda a, b: a < b), ("__le__", lambda a, b: a <= b), ("__gt__", lambda a, b: a > b),
                   ("__ge__", lambda a, b: a >= b), ("__eq__", lambda a, b: a == b)):
    setattr(TorchVersion, _name, lambda self, other, _op=_op, _s=getattr(str, _name): self._compare(other, _op, _s))
TorchVersion.__hash__ = str.__hash__
del _name, _op


__version__ = TorchVersion("2.13.0+glasstorch")
cuda = None
hip = None
git_version = "unknown"
debug = False
