"""Paths and small hooks PyTorch keeps in ``torch/_utils_internal.py``."""

from __future__ import annotations

import os
import tempfile

__all__ = ["get_file_path", "get_file_path_2", "get_writable_path", "glasstorch_parent"]

# the folder that holds the glasstorch package (torch_parent in PyTorch)
glasstorch_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
torch_parent = glasstorch_parent


def get_file_path(*path_components: str) -> str:
    """A path under the folder that holds the package."""
    return os.path.join(glasstorch_parent, *path_components)


def get_file_path_2(*path_components: str) -> str:
    return os.path.join(*path_components)


def get_writable_path(path: str) -> str:
    """``path`` when it is writable, otherwise a fresh temporary folder named after it."""
    if os.access(path, os.W_OK):
        return path
    return tempfile.mkdtemp(suffix=os.path.basename(path))
