"""OpInfo entries for issue 20's shape and indexing helpers: meshgrid, trapezoid, trapz, cumulative_trapezoid,
sum_to_size, combinations.

Each entry runs through test_ops.py (function form; values, dtypes, shapes, strides of the views; gradients and
gradcheck; error type and message), against torch.
"""

from __future__ import annotations

from opinfo import ALL, ALL_NUMERIC, ErrorSample, OpInfo, Sample, T


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


def _trapezoid_samples(dx_type):
    def samples(dtype):
        yield Sample((T((3, 5)),), name="default dx")
        yield Sample((T((3, 5)),), {"dx": dx_type(2.5) if dx_type is float else 2, "dim": 0}, name="dx dim 0")
        yield Sample((T((3, 5)), T((5,), seed=1, dtype="float64")), name="1-d x")
        yield Sample((T((3, 5)), T((3, 5), seed=1)), {"dim": 0}, name="same-shape x dim 0")
        yield Sample((T((2, 3, 4)), T((3, 4), seed=1)), {"dim": 1}, name="lower-dim x")
        yield Sample((T((4, 3), layout="transposed"), T((4,), seed=1)), {"dim": -2}, name="transposed y")
        yield Sample((T((3, 0)),), name="no samples")
    return samples


def _trapezoid_errors(name):
    def errors():
        return [ErrorSample((T((3, 5)), T((4,))), name="x length"),
                ErrorSample((T((3, 5), dtype="bool"),), name="bool y"),
                ErrorSample((T((3, 5)), T((5,), dtype="bool")), name="bool x"),
                ErrorSample((T((3, 5)),), {"dx": 1j}, name="complex dx"),
                ErrorSample((T((3, 5)),), {"dim": 2}, name="dim range")]
    return errors


def _integration(name, dx_type=int, float_rtol=1e-6):
    return OpInfo(name, aten=(f"{name}.x", f"{name}.dx"), samples=_trapezoid_samples(dx_type), dtypes=ALL_NUMERIC,
                  errors=_trapezoid_errors(name), rtol=float_rtol, atol=1e-6)


def sum_to_size_samples(dtype):
    yield Sample((T((2, 3, 4)), (3, 1)), name="lead and inner")
    yield Sample((T((2, 3)), 1, 3), name="variadic")
    yield Sample((T((2, 3)), (2, 3)), name="same shape")
    yield Sample((T((2, 3), layout="transposed"), ()), name="to 0-dim")
    yield Sample((T((4, 3)), [3]), name="lead only")


def sum_to_size_errors():
    return [ErrorSample((T((2, 3)), (4,)), form="method", name="not expandable"),
            ErrorSample((T((2, 3)), (2, 3, 1)), form="method", name="more dims")]


def combinations_samples(dtype):
    yield Sample((T((4,)),), name="pairs")
    yield Sample((T((4,)),), {"r": 3}, name="triples")
    yield Sample((T((3,)),), {"r": 2, "with_replacement": True}, name="with replacement")
    yield Sample((T((3,)), 1), name="r=1")
    yield Sample((T((3,)), 0), name="r=0")
    yield Sample((T((2,)), 3), name="r > n")
    yield Sample((T((6,), layout="strided"),), {"r": 2}, name="strided")


def combinations_errors():
    return [ErrorSample((T((2, 2)),), name="2d"), ErrorSample((T((3,)), -1), name="negative r")]


OPS = [
    OpInfo("combinations", aten=("combinations",), samples=combinations_samples, dtypes=ALL,
           errors=combinations_errors),
    OpInfo("sum_to_size", aten=("sum_to_size",), samples=sum_to_size_samples, dtypes=ALL, function=False,
           method=True, errors=sum_to_size_errors),
    # float32 sums may round differently from torch's vectorised sum in the last bit: rtol
    _integration("trapezoid"), _integration("trapz", float), _integration("cumulative_trapezoid"),
    OpInfo("meshgrid", aten=("meshgrid", "meshgrid.indexing"), samples=meshgrid_samples, dtypes=ALL,
           errors=meshgrid_errors),
]
