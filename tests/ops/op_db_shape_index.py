"""OpInfo entries for issue 20's shape and indexing helpers: meshgrid.

Each entry runs through test_ops.py (function form; values, dtypes, shapes, strides of the views; gradients and
gradcheck; error type and message), against torch.
"""

from __future__ import annotations

from opinfo import ALL, ErrorSample, OpInfo, Sample, T


def meshgrid_samples(dtype):
    yield Sample((T((3,)), T((2,), seed=1)), {"indexing": "ij"}, name="two ij")
    yield Sample((T((3,)), T((2,), seed=1)), {"indexing": "xy"}, name="two xy")
    yield Sample((T((2,)), T(()), T((4,), seed=2)), {"indexing": "xy"}, name="three with 0-dim xy")
    yield Sample((T((3,)),), {"indexing": "xy"}, name="one xy")
    yield Sample(([T((3,)), T((0,), seed=1)],), {"indexing": "ij"}, name="list with empty")
    yield Sample((T((2,)), T((3,), seed=1)), name="no indexing")


def meshgrid_errors():
    return [ErrorSample((), {"indexing": "ij"}, name="none"),
            ErrorSample((T((3,)), T((2,), dtype="float64")), {"indexing": "ij"}, name="dtypes"),
            ErrorSample((T((3,)),), {"indexing": "yx"}, name="bad indexing")]


OPS = [
    OpInfo("meshgrid", aten=("meshgrid", "meshgrid.indexing"), samples=meshgrid_samples, dtypes=ALL,
           errors=meshgrid_errors),
]
