"""``torch._utils_internal`` for the glasstorch variant: glasstorch's, except that test data is found elsewhere.

Upstream files locate their data relative to the package (``get_file_path_2(dirname(dirname(torch.__file__)),
'torch', 'testing', '_internal', 'data', 'network1.py')``). In the variant ``torch.__file__`` is glasstorch's, so
that path would point into this repository. ``get_file_path_2`` sends any path under
``<glasstorch's parent>/torch/`` to the rewritten copy of the transcribed data (``out/pytorch_tests/glass/data``,
see ``runner``), which exists only there, never in the repository.
"""

from __future__ import annotations

import os

import glasstorch
import glasstorch._utils_internal as _glass_utils_internal

_ROOT = os.path.dirname(os.path.dirname(glasstorch.__file__))
DATA_DIR_ENV = "PYTORCH_TESTS_GLASS_DATA"


def get_file_path_2(*path_components: str) -> str:
    path = os.path.join(*path_components)
    torch_dir = os.path.join(_ROOT, "torch") + os.sep
    data = os.environ.get(DATA_DIR_ENV)
    if data and path.startswith(torch_dir):
        return os.path.join(data, "torch", path[len(torch_dir):])
    return path


def __getattr__(name):
    return getattr(_glass_utils_internal, name)
