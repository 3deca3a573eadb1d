"""Known gaps of the autograd layer (the autograd issue is still open): gradient tests of these entries are
expected to fail until their derivative formulas land.  The marks are strict, so a gap that gets fixed
fails here and must be removed from the list."""

import pytest

KNOWN_GRAD_GAPS = {
    'test_op_grad[_scaled_dot_product_flash_attention_for_cpu-float32]',
    'test_op_grad[_scaled_dot_product_flash_attention_for_cpu-float64]',
    'test_op_grad[_C._nn.nll_loss-float32]',
    'test_op_grad[_C._nn.nll_loss-float64]',
    'test_op_grad[_C._nn.nll_loss2d-float32]',
    'test_op_grad[_C._nn.nll_loss2d-float64]',
    'test_op_grad[ops.aten.nll_loss_forward-float32]',
    'test_op_grad[ops.aten.nll_loss_forward-float64]',
    'test_op_grad[ops.aten.nll_loss2d_forward-float32]',
    'test_op_grad[ops.aten.nll_loss2d_forward-float64]',
    'test_op_grad[nn.functional.binary_cross_entropy-float32]',
    'test_op_grad[nn.functional.binary_cross_entropy-float64]',
    'test_op_grad[nn.functional.binary_cross_entropy_with_logits-float32]',
    'test_op_grad[nn.functional.binary_cross_entropy_with_logits-float64]',
    'test_op_grad[binary_cross_entropy_with_logits-float32]',
    'test_op_grad[binary_cross_entropy_with_logits-float64]',
    'test_op_grad[nn.functional.batch_norm-float32]',
    'test_op_grad[nn.functional.batch_norm-float64]',
    'test_op_grad[native_batch_norm-float32]',
    'test_op_grad[native_batch_norm-float64]',
    'test_op_grad[_native_batch_norm_legit-float32]',
    'test_op_grad[_native_batch_norm_legit-float64]',
    'test_op_grad[_native_batch_norm_legit_no_training-float32]',
    'test_op_grad[_native_batch_norm_legit_no_training-float64]',
    'test_op_grad[prod-float32]',
    'test_op_grad[prod-float64]',
    'test_op_grad[cat-float32]',
    'test_op_grad[cat-float64]',
    'test_op_grad[concat-float32]',
    'test_op_grad[concatenate-float32]',
    'test_op_grad[stack-float32]',
    'test_op_grad[stack-float64]',
    'test_op_grad[hstack-float32]',
    'test_op_grad[hstack-float64]',
    'test_op_grad[vstack-float32]',
    'test_op_grad[vstack-float64]',
    'test_op_grad[dstack-float32]',
    'test_op_grad[dstack-float64]',
    'test_op_grad[column_stack-float32]',
    'test_op_grad[column_stack-float64]',
    'test_op_grad[_pad_enum-float32]',
    'test_op_grad[_pad_enum-float64]',
    'test_op_gradcheck[cat]',
    'test_op_gradcheck[stack]',
    'test_op_gradcheck[hstack]',
    'test_op_gradcheck[vstack]',
    'test_op_gradcheck[dstack]',
    'test_op_gradcheck[column_stack]',
}


def pytest_collection_modifyitems(config, items):
    for item in items:
        name = item.nodeid.split("::", 1)[-1]
        if name in KNOWN_GRAD_GAPS:
            item.add_marker(pytest.mark.xfail(strict=True, reason="autograd issue in progress: formula missing, or a "
                                                                  "non-differentiable argument accepted"))
