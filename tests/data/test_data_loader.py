"""glasstorch.utils.data.DataLoader against torch.utils.data.DataLoader (torch 2.13 is the oracle).

Sequential loading is compared batch by batch (values, dtypes, shapes, structure); collation of nested
structures is compared leaf by leaf; the argument checks are compared by exception type and message.
Worker processes (``num_workers > 0``) must give exactly the single-process batches, in order.
"""

from __future__ import annotations

import collections
import os
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as tud
from oracle import assert_same, assert_same_error

import glasstorch as gt
import glasstorch.utils.data as gud
from glasstorch.utils.data import _utils as gud_utils

Point = collections.namedtuple("Point", "x y")


def _describe(x):
    """A library-neutral picture of a batch: tensors as (dtype, shape, values), containers by type."""
    if hasattr(x, "dtype") and hasattr(x, "shape") and not isinstance(x, np.ndarray):
        return ("T", repr(x.dtype), tuple(x.shape), x.tolist())
    if isinstance(x, dict):
        return {k: _describe(v) for k, v in x.items()}
    if isinstance(x, tuple) and hasattr(x, "_fields"):
        return (type(x).__name__, [_describe(v) for v in x])
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_describe(v) for v in x])
    return x


COLLATE_CASES = [
    [1, 2, 3], [1.5, 2.0], [True, False], ["a", "b"], [b"a", b"b"],
    [np.float32(1), np.float32(2)], [np.int32(1), np.int32(2)], [np.bool_(True), np.bool_(False)],
    [np.arange(3, dtype=np.int16), np.arange(3, dtype=np.int16)],
    [{"a": 1, "b": [1.0, 2.0]}, {"a": 2, "b": [3.0, 4.0]}],
    [Point(1, 2.0), Point(3, 4.0)], [(1, "x"), (2, "y")], [[1, 2], [3, 4]],
    [collections.OrderedDict(k=np.float64(1.0)), collections.OrderedDict(k=np.float64(2.0))],
]


@pytest.mark.parametrize("case", range(len(COLLATE_CASES)))
def test_default_collate_matches_torch(case):
    batch = COLLATE_CASES[case]
    assert _describe(gud.default_collate(batch)) == _describe(tud.default_collate(batch))
    assert _describe(gud.default_convert(batch)) == _describe(tud.default_convert(batch))


def test_collate_of_tensors_and_errors():
    g = gud.default_collate([(gt.ones(2, 3), gt.tensor(1)), (gt.zeros(2, 3), gt.tensor(2))])
    t = tud.default_collate([(torch.ones(2, 3), torch.tensor(1)), (torch.zeros(2, 3), torch.tensor(2))])
    assert_same(g[0], t[0]) and assert_same(g[1], t[1])
    for bad in ([object()], [[1, 2], [3]], [np.array(["a"])]):
        assert_same_error(lambda b=bad: gud.default_collate(b), lambda b=bad: tud.default_collate(b))


def _pair(m, n=10):
    return (gud if m is gt else tud).TensorDataset(m.arange(n * 2, dtype=m.float32).view(n, 2), m.arange(n))


@pytest.mark.parametrize("kw", [{"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None},
                                {"batch_size": 1}, {"batch_size": 20}])
def test_sequential_batches_match_torch(kw):
    ours = list(gud.DataLoader(_pair(gt), **kw))
    theirs = list(tud.DataLoader(_pair(torch), **kw))
    assert len(ours) == len(theirs) == len(gud.DataLoader(_pair(gt), **kw))
    for a, b in zip(ours, theirs, strict=True):
        assert _describe(a) == _describe(b)


def test_shuffle_is_a_seeded_permutation_per_epoch():
    ds = gud.TensorDataset(gt.arange(20))

    def epochs(seed):
        dl = gud.DataLoader(ds, batch_size=6, shuffle=True, generator=gt.Generator().manual_seed(seed))
        return [[i for b in dl for i in b[0].tolist()] for _ in range(2)]
    first, second = epochs(0)
    assert sorted(first) == sorted(second) == list(range(20)) and first != second
    assert epochs(0) == [first, second] and epochs(1) != [first, second]


def test_samplers_collate_fn_and_lengths():
    ds = _pair(gt)
    dl = gud.DataLoader(ds, sampler=gud.SequentialSampler(range(4)), batch_size=2, collate_fn=lambda b: len(b))
    assert list(dl) == [2, 2]
    bs = gud.DataLoader(ds, batch_sampler=[[0, 9], [3]])
    assert [b[1].tolist() for b in bs] == [[0, 9], [3]] and len(bs) == 2
    for kw in ({"batch_size": 4}, {"batch_size": 4, "drop_last": True}):
        assert len(gud.DataLoader(ds, **kw)) == len(tud.DataLoader(_pair(torch), **kw))


class GStream(gud.IterableDataset):
    def __init__(self, n, report=None):
        self.n, self.report = n, report

    def __iter__(self):
        info = gud.get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return iter(gt.tensor([i, i * i]) for i in range(start, self.n, step))

    def __len__(self):
        return self.n if self.report is None else self.report


class TStream(tud.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(torch.tensor([i, i * i]) for i in range(self.n))

    def __len__(self):
        return self.n


def test_iterable_dataset_single_process_matches_torch():
    for kw in ({"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None}):
        ours, theirs = gud.DataLoader(GStream(7), **kw), tud.DataLoader(TStream(7), **kw)
        assert len(ours) == len(theirs)
        assert [_describe(b) for b in ours] == [_describe(b) for b in theirs]
    dl = gud.DataLoader(GStream(4, report=2), batch_size=None)
    len(dl)
    with pytest.warns(UserWarning, match="was reported to be 2"):
        list(dl)


def _ctor_error_cases():
    def cases(lib, m):
        ds = lib.TensorDataset(m.arange(4))
        stream = GStream(2) if lib is gud else TStream(2)
        return [
            lambda: lib.DataLoader(ds, num_workers=-1),
            lambda: lib.DataLoader(ds, timeout=-1),
            lambda: lib.DataLoader(ds, prefetch_factor=2),
            lambda: lib.DataLoader(ds, num_workers=1, prefetch_factor=-1),
            lambda: lib.DataLoader(ds, persistent_workers=True),
            lambda: lib.DataLoader(stream, shuffle=True),
            lambda: lib.DataLoader(stream, sampler=[0]),
            lambda: lib.DataLoader(stream, batch_sampler=[[0]]),
            lambda: lib.DataLoader(ds, sampler=[0], shuffle=True),
            lambda: lib.DataLoader(ds, batch_sampler=[[0]], batch_size=2),
            lambda: lib.DataLoader(ds, batch_sampler=[[0]], drop_last=True),
            lambda: lib.DataLoader(ds, batch_size=None, drop_last=True),
            lambda: lib.DataLoader(ds, multiprocessing_context="fork"),
            lambda: lib.DataLoader(ds, num_workers=1, multiprocessing_context="nonsense"),
            lambda: lib.DataLoader(ds, num_workers=1, multiprocessing_context=3),
            lambda: setattr(lib.DataLoader(ds), "batch_size", 3),
            lambda: lib.DataLoader(ds, batch_size=0),
        ]
    return list(zip(cases(gud, gt), cases(tud, torch), strict=True))


@pytest.mark.parametrize("i", range(17))
def test_constructor_errors_match_torch(i):
    ours, theirs = _ctor_error_cases()[i]
    assert_same_error(ours, theirs)


def test_pin_memory_warns_like_torch():
    for lib, m in ((gud, gt), (tud, torch)):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            list(lib.DataLoader(lib.TensorDataset(m.arange(2)), pin_memory=True))
        assert ["pinned memory won't be used" in str(w.message) for w in caught] == [True]


# -- worker processes ---------------------------------------------------------------------------------------------

class Probe(gud.Dataset):
    """Each sample reports the worker that made it and that worker's seeds."""

    def __getitem__(self, i):
        info = gud.get_worker_info()
        if i == 13:
            raise ValueError("sample 13 is bad")
        return {"x": gt.arange(3, dtype=gt.float64) + i, "i": i, "worker": -1 if info is None else info.id,
                "seed": -1 if info is None else info.seed, "torch_seed": gt.initial_seed(), "pid": os.getpid()}

    def __len__(self):
        return 12


def _init(worker_id):
    info = gud.get_worker_info()
    assert info.id == worker_id and info.num_workers == 2 and isinstance(info.dataset, Probe)


def test_workers_give_the_single_process_batches_in_order():
    single = list(gud.DataLoader(Probe(), batch_size=5))
    multi = list(gud.DataLoader(Probe(), batch_size=5, num_workers=2, worker_init_fn=_init))
    assert len(single) == len(multi) == 3
    for a, b in zip(single, multi, strict=True):
        assert a["x"].tolist() == b["x"].tolist() and a["x"].dtype is b["x"].dtype
        assert a["i"].tolist() == b["i"].tolist()
    assert [b["worker"].tolist()[0] for b in multi] == [0, 1, 0]  # round-robin
    assert all(b["pid"].tolist()[0] != os.getpid() for b in multi)
    for b in multi:  # each worker is seeded base_seed + id, for glasstorch too
        seeds = b["seed"].tolist()
        assert seeds == b["torch_seed"].tolist()
    assert multi[1]["seed"][0].item() - multi[0]["seed"][0].item() == 1
    assert gud.get_worker_info() is None


def test_worker_exception_is_reraised_with_its_traceback():
    dl = gud.DataLoader(Probe(), batch_size=2, num_workers=2, sampler=[12, 13])
    with pytest.raises(ValueError, match=r"Caught ValueError in DataLoader worker process \d+\.\nOriginal Traceback") \
            as info:
        list(dl)
    assert "sample 13 is bad" in str(info.value)


def test_iterable_dataset_sharded_across_workers():
    got = [b.tolist() for b in gud.DataLoader(GStream(7), batch_size=2, num_workers=2)]
    flat = sorted(row[0] for batch in got for row in batch)
    assert flat == list(range(7))
    assert got[0] == [[0, 0], [2, 4]] and got[1] == [[1, 1], [3, 9]]


def test_persistent_workers_survive_epochs():
    dl = gud.DataLoader(Probe(), batch_size=6, num_workers=2, persistent_workers=True)
    first = [b["pid"].tolist()[0] for b in dl]
    second = [b["pid"].tolist()[0] for b in dl]
    assert first == second and len(set(first)) == 2
    assert [b["i"].tolist() for b in dl] == [list(range(6)), list(range(6, 12))]
    dl._iterator._shutdown_workers()


class Dies(gud.Dataset):
    def __getitem__(self, i):
        os._exit(3)

    def __len__(self):
        return 2


def test_dead_worker_is_noticed(monkeypatch):
    monkeypatch.setattr(gud_utils, "MP_STATUS_CHECK_INTERVAL", 0.2)
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+.*\) exited unexpectedly"):
        list(gud.DataLoader(Dies(), num_workers=1))


def test_timeout_with_workers(monkeypatch):
    class Slow(gud.Dataset):
        def __getitem__(self, i):
            import time
            time.sleep(1)
            return i

        def __len__(self):
            return 1
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.2 seconds"):
        list(gud.DataLoader(Slow(), num_workers=1, timeout=0.2))
    with pytest.raises(AssertionError, match="requires timeout == 0"):
        iter(gud.DataLoader(Slow(), timeout=0.2))
