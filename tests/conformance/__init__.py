"""Conformance against PyTorch's own OpInfo database (``torch.testing._internal.common_methods_invocations.op_db``).

Real torch builds every sample; glasstorch runs the same call, found by the OpInfo's public name; the results are
compared (values, dtypes, shapes, view strides, gradients, error texts).  The pieces:

* ``convert``  -- torch values -> glasstorch values (tensors with their geometry, dtypes, devices, callables) and back;
* ``resolve``  -- which glasstorch callable an OpInfo variant names, and the named skips;
* ``compare``  -- tolerances (torch's defaults, the OpInfo's overrides) and the comparison of results;
* ``driver``   -- the cases (OpInfo x dtype x check), the sampling policy and the checks themselves;
* ``known``    -- the table of tracked failures (``known_failures.json``) and its rewriting;
* ``report``   -- ``python -m tests.conformance.report``: "N of M OpInfos agree" and the per-family table.

docs/conformance.md describes how to read and update it.
"""
