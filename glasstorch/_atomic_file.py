"""Atomic writes of a whole file — what ``save`` to a path uses, so a crash never leaves half a checkpoint.

PyTorch's ``torch.save`` writes the target in place; glasstorch writes ``<dir>/.<name>.<random>.tmp``, flushes
and fsyncs it, gives it the target's permissions (an existing file's, else 0o666 minus the umask) and renames
it over the target, then fsyncs the folder.  On an error the temporary file is removed and the target is left
as it was.

Invariant: the target path holds either its old bytes or all of the new ones, never a mix.
"""

from __future__ import annotations

import os
import tempfile

__all__ = ["AtomicFile"]


class AtomicFile:
    """Write to ``<dir>/.<name>.<random>.tmp``, fsync, then ``os.replace`` onto the target (or delete on error)."""

    def __init__(self, path: str):
        self.path = path

    def __enter__(self):
        folder = os.path.dirname(os.path.abspath(self.path))
        fd, self.tmp = tempfile.mkstemp(prefix=f".{os.path.basename(self.path)}.", suffix=".tmp", dir=folder)
        self.file = os.fdopen(fd, "wb")
        return self.file

    def __exit__(self, exc_type, exc, tb):
        try:
            if exc_type is None:
                self.file.flush()
                os.fsync(self.file.fileno())
            self.file.close()
            if exc_type is None:
                os.chmod(self.tmp, _target_mode(self.path))
                os.replace(self.tmp, self.path)
                _fsync_dir(os.path.dirname(os.path.abspath(self.path)))
        finally:
            if os.path.exists(self.tmp):
                os.unlink(self.tmp)
        return False


def _target_mode(path: str) -> int:
    """Keep an existing file's permissions; a new file gets 0o666 minus the umask, as ``open`` would give."""
    try:
        return os.stat(path).st_mode & 0o7777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _fsync_dir(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
