"""complex32 (``torch.chalf``) through the indexing kernels and the backwards built on them, against torch.

numpy has no complex-half type, so a complex32 array is two float16 fields: filling from a complex32 0-dim tensor,
accumulating into one, and as_strided's backward (which PyTorch only divides where the input overlaps itself:
``div`` has no ComplexHalf kernel) each need the parts handled apart.
"""

import warnings

import pytest

from tests.oracle import assert_same, both

warnings.filterwarnings("ignore", "ComplexHalf support is experimental")


def _x(m, requires_grad=False):
    x = m.tensor([[1 + 2j, 3 - 1j, 0.1 + 0.7j], [0.5j, 2, -1.3 + 0.2j]], dtype=m.complex32)
    return x.requires_grad_(requires_grad)


def test_masked_fill_with_complex32_tensor_value():
    def f(m):
        mask = m.tensor([[True, False, True], [False, True, False]])
        return _x(m).masked_fill(mask, m.tensor(2.25 - 3.5j, dtype=m.complex32))

    assert_same(*both(f))


def test_index_fill_with_complex32_tensor_value():
    def f(m):
        return _x(m).index_fill(1, m.tensor([0, 2]), m.tensor(0.3 + 1.1j, dtype=m.complex32))

    assert_same(*both(f))


def test_index_put_with_mask_and_complex32_value():
    def f(m):
        mask = m.tensor([[True, False, True], [False, True, False]])
        return _x(m).index_put((mask,), m.tensor(-1.5 + 0.25j, dtype=m.complex32))

    assert_same(*both(f))


def test_index_put_accumulate_rounds_each_sum_to_half():
    def f(m):
        v = m.tensor([0.1 + 0.3j, 1e-3 - 2e-3j, 7.7 + 1j, 2049 + 1j], dtype=m.complex32)
        x = m.tensor([0.3 + 2048j, 1 - 1j], dtype=m.complex32)
        return x.index_put((m.tensor([0, 0, 1, 0]),), v, accumulate=True)

    assert_same(*both(f))


def test_getitem_backward_accumulates_repeated_indices():
    def f(m):
        x = _x(m, True)
        y = x[m.tensor([1, 0, 1])]
        y.backward(m.full(y.shape, 0.3 + 0.1j, dtype=m.complex32))
        return x.grad

    assert_same(*both(f))


@pytest.mark.parametrize("size, stride, offset", [((2, 2), (1, 1), 0), ((3,), (2,), 1), ((2, 3), (1, 2), 0)])
def test_as_strided_backward(size, stride, offset):
    def f(m):
        x = _x(m, True)
        y = x.as_strided(size, stride, offset)
        y.backward(m.full(y.shape, 1.5 - 0.5j, dtype=m.complex32))
        return x.grad

    assert_same(*both(f))


def test_as_strided_backward_overlapping_input_needs_div():
    def f(m):
        x = _x(m).as_strided((2, 2), (1, 1)).requires_grad_()
        y = x.as_strided((2,), (1,))
        y.backward(m.ones(2, dtype=m.complex32))

    gt, th = both(lambda m: m)
    with pytest.raises(NotImplementedError) as e_th:
        f(th)
    with pytest.raises(NotImplementedError) as e_gt:
        f(gt)
    assert str(e_gt.value) == str(e_th.value)
