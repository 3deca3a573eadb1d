"""Known gaps of the autograd layer: gradient tests listed here are expected to fail until their derivative
formulas land.  The marks are strict, so a gap that gets fixed fails here and must be removed from the list.

Empty: every differentiable operator's gradient tests pass (Tensor[] inputs, non-differentiable arguments,
losses, batch norm, prod with zeros and circular padding were the last gaps).

Also here: ``threads``, a fixture running a test under 1 and then 2 intra-op threads in torch and glasstorch alike
(kernels that split work as ``at::parallel_for`` does round where the thread ranges end)."""

import pytest
import torch

import glasstorch as gt

KNOWN_GRAD_GAPS: set[str] = set()


def pytest_collection_modifyitems(config, items):
    for item in items:
        name = item.nodeid.split("::", 1)[-1]
        if name in KNOWN_GRAD_GAPS:
            item.add_marker(pytest.mark.xfail(strict=True, reason="autograd issue in progress: formula missing, or a "
                                                                  "non-differentiable argument accepted"))


@pytest.fixture(params=[1, 2], ids=["1 thread", "2 threads"])
def threads(request):
    """torch's and glasstorch's intra-op thread count set to the parameter, both restored afterwards."""
    before_t, before_g = torch.get_num_threads(), gt.get_num_threads()
    torch.set_num_threads(request.param)
    gt.set_num_threads(request.param)
    yield request.param
    torch.set_num_threads(before_t)
    gt.set_num_threads(before_g)
