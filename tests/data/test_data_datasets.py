"""glasstorch.utils.data datasets and samplers against torch.utils.data (torch 2.13 is the oracle).

Deterministic behaviour (sequential order, batching, lengths, error types and messages) is compared
exactly.  Random draws come from glasstorch's generator, whose stream differs from PyTorch's mt19937, so
for them the checks are the properties: a permutation, reproducible under a seed, PyTorch's chunking.
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.utils.data as tud
from oracle import assert_same, assert_same_error

import glasstorch as gt
import glasstorch.utils.data as gud


def _lib(m):
    return gud if m is gt else tud


# -- datasets ------------------------------------------------------------------------------------------------------

def test_tensor_dataset():
    for m in (gt, torch):
        ds = _lib(m).TensorDataset(m.arange(6).view(3, 2), m.tensor([1.0, 2.0, 3.0]))
        assert len(ds) == 3
        x, y = ds[1]
        assert x.tolist() == [2, 3] and y.item() == 2.0
    assert_same_error(lambda: gud.TensorDataset(gt.zeros(2), gt.zeros(3)),
                      lambda: tud.TensorDataset(torch.zeros(2), torch.zeros(3)))


def test_concat_and_chain():
    for lib in (gud, tud):
        a = lib.TensorDataset(gt.arange(3) if lib is gud else torch.arange(3))
        c = a + a
        assert isinstance(c, lib.ConcatDataset) and len(c) == 6 and c.cumulative_sizes == [3, 6]
        assert c[4][0].item() == 1 and c[-1][0].item() == 2
    assert_same_error(lambda: gud.ConcatDataset([range(3)])[-4], lambda: tud.ConcatDataset([range(3)])[-4])
    assert_same_error(lambda: gud.ConcatDataset([]), lambda: tud.ConcatDataset([]))

    class Stream(gud.IterableDataset):
        def __init__(self, n):
            self.n = n

        def __iter__(self):
            return iter(range(self.n))

        def __len__(self):
            return self.n
    chain = Stream(2) + Stream(3)
    assert isinstance(chain, gud.ChainDataset) and list(chain) == [0, 1, 0, 1, 2] and len(chain) == 5
    assert_same_error(lambda: gud.ConcatDataset([Stream(1)]), lambda: tud.ConcatDataset([_TorchStream()]))
    assert_same_error(lambda: list(gud.ChainDataset([range(2)])), lambda: list(tud.ChainDataset([range(2)])))


class _TorchStream(tud.IterableDataset):
    def __iter__(self):
        return iter([0])


def test_stack_dataset():
    s = gud.StackDataset(range(3), range(10, 13))
    assert s[1] == (1, 11) and len(s) == 3
    d = gud.StackDataset(a=range(2), b=range(2))
    assert d[1] == {"a": 1, "b": 1}
    for args, kwargs in (((range(2), range(3)), {}), ((range(1),), {"b": range(1)}), ((), {})):
        assert_same_error(lambda a=args, k=kwargs: gud.StackDataset(*a, **k),
                          lambda a=args, k=kwargs: tud.StackDataset(*a, **k))


def test_subset():
    s = gud.Subset(list("abcdef"), [5, 0, 2])
    assert len(s) == 3 and s[0] == "f" and s.__getitems__([1, 2]) == ["a", "c"]

    def bad(lib):
        class Mine(lib.Subset):
            def __getitem__(self, idx):
                return 0
        return lambda: Mine(range(3), [0])
    assert_same_error(bad(gud), bad(tud))


@pytest.mark.parametrize("lengths", [[3, 7], [0.3, 0.3, 0.4], [0.5, 0.5], [0.25, 0.25, 0.25, 0.25], [1.0]])
def test_random_split_lengths_match_torch(lengths):
    n = 10
    ours = gud.random_split(range(n), lengths, generator=gt.Generator().manual_seed(0))
    theirs = tud.random_split(range(n), lengths, generator=torch.Generator().manual_seed(0))
    assert [len(s) for s in ours] == [len(s) for s in theirs]
    assert sorted(i for s in ours for i in s) == list(range(n))
    again = gud.random_split(range(n), lengths, generator=gt.Generator().manual_seed(0))
    assert [list(s) for s in ours] == [list(s) for s in again]


def test_random_split_errors_and_warnings_match_torch():
    assert_same_error(lambda: gud.random_split(range(10), [3, 3]), lambda: tud.random_split(range(10), [3, 3]))
    assert_same_error(lambda: gud.random_split(range(10), [1.5, -0.5]),
                      lambda: tud.random_split(range(10), [1.5, -0.5]))
    messages = []
    for lib in (gud, tud):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.random_split(range(2), [0.9, 0.05, 0.05], generator=(gt if lib is gud else torch).Generator())
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 2


# -- samplers ------------------------------------------------------------------------------------------------------

def test_sequential_and_batch_samplers_match_torch():
    for bs, drop in ((3, False), (3, True), (1, False), (20, False), (20, True)):
        ours = gud.BatchSampler(gud.SequentialSampler(range(10)), bs, drop)
        theirs = tud.BatchSampler(tud.SequentialSampler(range(10)), bs, drop)
        assert list(ours) == list(theirs) and len(ours) == len(theirs)
    for bad in ((0, False), (True, False), (2.0, False), (2, 1)):
        assert_same_error(lambda b=bad: gud.BatchSampler(range(3), *b), lambda b=bad: tud.BatchSampler(range(3), *b))


def test_random_sampler_properties():
    data = range(7)
    g = gud.RandomSampler(data, generator=gt.Generator().manual_seed(3))
    order = list(g)
    assert sorted(order) == list(range(7)) and len(g) == 7
    assert list(gud.RandomSampler(data, generator=gt.Generator().manual_seed(3))) == order
    long = list(gud.RandomSampler(data, num_samples=16, generator=gt.Generator().manual_seed(1)))
    assert len(long) == 16 and sorted(long[:7]) == sorted(long[7:14]) == list(range(7))  # one randperm per pass
    repl = gud.RandomSampler(data, replacement=True, num_samples=40, generator=gt.Generator().manual_seed(1))
    drawn = list(repl)
    assert len(drawn) == len(repl) == 40 and all(0 <= i < 7 for i in drawn)
    assert len(set(list(gud.RandomSampler(range(50))))) == 50  # no generator: a fresh seeded one
    for kw in ({"replacement": 1}, {"num_samples": 0}, {"num_samples": 2.0}):
        assert_same_error(lambda k=kw: gud.RandomSampler(data, **k), lambda k=kw: tud.RandomSampler(data, **k))


def test_subset_and_weighted_samplers():
    idx = [10, 20, 30, 40]
    got = list(gud.SubsetRandomSampler(idx, generator=gt.Generator().manual_seed(0)))
    assert sorted(got) == idx
    w = gud.WeightedRandomSampler([0.0, 1.0, 0.0, 3.0], 50, generator=gt.Generator().manual_seed(0))
    drawn = list(w)
    assert len(drawn) == 50 and set(drawn) <= {1, 3} and len(w) == 50
    assert sorted(gud.WeightedRandomSampler([1.0, 2.0, 3.0], 3, replacement=False)) == [0, 1, 2]
    assert w.weights.dtype is gt.float64
    for args in (([1.0], 0), ([1.0], True), ([1.0], 1, 1), ([[1.0, 2.0]], 1)):
        assert_same_error(lambda a=args: gud.WeightedRandomSampler(*a), lambda a=args: tud.WeightedRandomSampler(*a))


def test_tensor_dataset_rows_match_torch():
    g = gud.TensorDataset(gt.arange(12.0).view(4, 3))
    t = tud.TensorDataset(torch.arange(12.0).view(4, 3))
    for i in range(4):
        assert_same(g[i][0], t[i][0])
