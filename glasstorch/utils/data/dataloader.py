"""DataLoader — PyTorch's ``torch/utils/data/dataloader.py``: batches from a dataset, in-process or in workers.

``DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, collate_fn, ...)`` checks its
arguments as PyTorch does (same ValueErrors), then picks the index source: a ``BatchSampler`` over a
``RandomSampler``/``SequentialSampler`` for map-style datasets, an endless sampler for iterable ones.
Iterating it makes an iterator:

* ``num_workers == 0``: the main process fetches and collates each batch;
* ``num_workers > 0``: worker processes (``multiprocessing``, fork on Linux) fetch and collate; the main
  process hands out ``(task_idx, indices)`` round-robin, keeps ``prefetch_factor * num_workers`` tasks in
  flight, and returns results in task order (``in_order=True``), re-raising a worker's exception with its
  traceback and noticing a worker that died.  ``persistent_workers`` keeps the processes between epochs.

``pin_memory`` is accepted; without an accelerator PyTorch only warns, and so does glasstorch.

Invariant: with the same sampler order, workers or not, the batches are the same and in the same order.
"""

from __future__ import annotations

import itertools
import math
import multiprocessing
import os
import queue
import warnings

from ... import _functions as _F
from ..._core import dtype as _dt
from . import _utils
from ._utils.collate import default_collate, default_convert
from ._utils.fetch import create_fetcher
from ._utils.worker import ExceptionWrapper, IterableDatasetStopIteration, ResumeIteration, get_worker_info
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "default_collate", "default_convert", "get_worker_info"]

_FROZEN_AFTER_INIT = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers")


class _InfiniteConstantSampler(Sampler):
    """The index source of an IterableDataset: ``None`` forever (the dataset decides when to stop)."""

    def __iter__(self):
        return itertools.repeat(None)


class DataLoader:
    """Iterate a dataset in batches (``torch.utils.data.DataLoader``).

    Args:
        dataset: map-style (``__getitem__``/``__len__``) or an ``IterableDataset``.
        batch_size: samples per batch; None turns automatic batching off.
        shuffle: reshuffle every epoch (map-style only), drawing from ``generator``.
        sampler / batch_sampler: custom index order (exclusive with shuffle / batch_size, drop_last).
        num_workers: worker processes (0: load in the main process).
        collate_fn: merges a list of samples (default ``default_collate``).
        drop_last: drop the last incomplete batch.
        worker_init_fn, generator, prefetch_factor, persistent_workers, timeout, multiprocessing_context,
        pin_memory, pin_memory_device, in_order: as in PyTorch.

    Example:
        >>> import glasstorch as torch
        >>> from glasstorch.utils.data import TensorDataset
        >>> dl = DataLoader(TensorDataset(torch.arange(5)), batch_size=2)
        >>> [b[0].tolist() for b in dl]
        [[0, 1], [2, 3], [4]]
    """

    __initialized = False

    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None, multiprocessing_context=None,
                 generator=None, *, prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True):
        prefetch_factor = _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers)
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order
        self._is_iterable = isinstance(dataset, IterableDataset)
        shuffle = _check_sampling_options(self._is_iterable, shuffle, sampler, batch_sampler)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            if self._is_iterable:
                sampler = _InfiniteConstantSampler()
            else:
                sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if batch_sampler is not None else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True
        self._IterableDataset_len_called = None
        self._iterator = None
        self.check_worker_number_rationality()

    # -- configuration ---------------------------------------------------------------------------------------
    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, ctx):
        if ctx is not None:
            if self.num_workers <= 0:
                raise ValueError(f"multiprocessing_context can only be used with multi-process loading "
                                 f"(num_workers > 0), but got num_workers={self.num_workers}")
            if isinstance(ctx, str):
                methods = multiprocessing.get_all_start_methods()
                if ctx not in methods:
                    raise ValueError(f"multiprocessing_context option should specify a valid start method in "
                                     f"{methods!r}, but got multiprocessing_context={ctx!r}")
                ctx = multiprocessing.get_context(ctx)
            if not isinstance(ctx, multiprocessing.context.BaseContext):
                raise TypeError(f"multiprocessing_context option should be a valid context object or a string "
                                f"specifying the start method, but got multiprocessing_context={ctx}")
        self.__multiprocessing_context = ctx

    def __setattr__(self, attr, val):
        if self.__initialized and attr in _FROZEN_AFTER_INIT:
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    # -- iteration ------------------------------------------------------------------------------------------------
    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        self.check_worker_number_rationality()
        return _MultiProcessIter(self)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self) -> int:
        if not self._is_iterable:
            return len(self._index_sampler)
        length = self._IterableDataset_len_called = len(self.dataset)
        if self.batch_size is not None:
            length = length // self.batch_size if self.drop_last else math.ceil(length / self.batch_size)
        return length

    def check_worker_number_rationality(self) -> None:
        """Warn (as PyTorch does) when more workers are asked for than this process may use CPUs."""
        if not self.num_workers:
            return
        has_affinity = hasattr(os, "sched_getaffinity")
        suggest = len(os.sched_getaffinity(0)) if has_affinity else os.cpu_count()
        if suggest is not None and self.num_workers <= suggest:
            return
        if suggest is None:
            detail = "DataLoader is not able to compute a suggested max number of worker in current system."
        else:
            detail = (f"Our suggested max number of worker in current system is {suggest}"
                      f"{'' if has_affinity else ' (`cpuset` is not taken into account)'}, which is smaller than what "
                      "this DataLoader is going to create.")
        warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. {detail} Please be "
                      "aware that excessive worker creation might get DataLoader running slow or even freeze, lower "
                      "the worker number to avoid potential slowness/freeze if necessary.", stacklevel=2)


def _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers):
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 to "
                         "enable multiprocessing, otherwise set prefetch_factor to None.")
    if num_workers > 0 and prefetch_factor is None:
        prefetch_factor = 2
    elif prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    return prefetch_factor


def _check_sampling_options(is_iterable, shuffle, sampler, batch_sampler):
    if not is_iterable:
        return bool(shuffle)
    if shuffle not in (False, None):
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                         f"shuffle={shuffle}")
    if sampler is not None:
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                         f"sampler={sampler}")
    if batch_sampler is not None:
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but got "
                         f"batch_sampler={batch_sampler}")
    return shuffle


class _BaseIter:
    """What both iterators share: the index stream, the epoch's base seed, the length checks."""

    def __init__(self, loader: DataLoader):
        self._dataset = loader.dataset
        self._is_iterable = loader._is_iterable
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        if loader.pin_memory and loader.pin_memory_device:
            warnings.warn(f"pin_memory_device is deprecated, the current accelerator will be used as the device,ignore "
                          f"pin_memory_device='{loader.pin_memory_device}'.", stacklevel=3)
        if loader.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned memory "
                          "won't be used.", stacklevel=3)
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(self._index_sampler)
        self._base_seed = int(_F.empty((), dtype=_dt.int64).random_(generator=loader.generator).item())
        self._persistent_workers = loader.persistent_workers
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0
        self._IterableDataset_len_called = loader._IterableDataset_len_called

    def _next_index(self):
        return next(self._sampler_iter)

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        reported = self._IterableDataset_len_called
        if self._is_iterable and reported is not None and self._num_yielded > reported:
            msg = (f"Length of IterableDataset {self._dataset} was reported to be {reported}(when accessing "
                   f"len(dataloader)), but {self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly configuring the "
                        "IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples.")
            warnings.warn(msg, stacklevel=2)
        return data

    def __len__(self) -> int:
        return len(self._index_sampler)

    def __getstate__(self):
        raise NotImplementedError(f"{type(self).__name__} cannot be pickled")


class _SingleProcessIter(_BaseIter):
    """Fetch and collate in the calling process."""

    def __init__(self, loader):
        super().__init__(loader)
        if self._timeout != 0:
            raise AssertionError("_SingleProcessDataLoaderIter requires timeout == 0")
        self._fetcher = create_fetcher(self._is_iterable, self._dataset, self._auto_collation, self._collate_fn,
                                       self._drop_last)

    def _next_data(self):
        return self._fetcher.fetch(self._next_index())


class _MultiProcessIter(_BaseIter):
    """Worker processes fetch and collate; results come back in task order (see the module docstring)."""

    def __init__(self, loader):
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        self._in_order = loader.in_order
        ctx = loader.multiprocessing_context or multiprocessing.get_context()
        self._shutdown = True  # until the workers exist, there is nothing to shut down
        self._owner_pid = os.getpid()
        self._result_queue = ctx.Queue()
        self._done_event = ctx.Event()
        self._index_queues, self._workers = [], []
        for worker_id in range(self._num_workers):
            index_queue = ctx.Queue()
            index_queue.cancel_join_thread()
            args = (self._is_iterable, self._dataset, index_queue, self._result_queue, self._done_event,
                    self._auto_collation, self._collate_fn, self._drop_last, self._base_seed, loader.worker_init_fn,
                    worker_id, self._num_workers, self._persistent_workers)
            w = ctx.Process(target=_utils.worker.worker_loop, args=args, daemon=True)
            w.start()
            self._index_queues.append(index_queue)
            self._workers.append(w)
        self._shutdown = False
        self._reset(loader, first_iter=True)

    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0  # the next task to hand out
        self._rcvd_idx = 0  # the next task to return
        self._task_info: dict[int, tuple] = {}  # task -> (worker,) while pending, (worker, data) once arrived
        self._tasks_outstanding = 0
        self._workers_status = [True] * self._num_workers
        self._workers_num_tasks = [0] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:  # persistent workers: start a new epoch in each, wait until all have
            for q in self._index_queues:
                q.put(ResumeIteration())
            pending = self._num_workers
            while pending:
                idx, _ = self._get_data()
                pending -= isinstance(idx, ResumeIteration)
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    # -- talking to the workers -------------------------------------------------------------------------
    def _try_get_data(self, timeout=None):
        """(True, message) or, after ``timeout`` (default: the status-check interval), (False, None) if all
        workers live; a dead worker raises."""
        wait = _utils.MP_STATUS_CHECK_INTERVAL if timeout is None else timeout
        try:
            return True, self._result_queue.get(timeout=wait)
        except queue.Empty:
            dead = [w for i, w in enumerate(self._workers) if self._workers_status[i] and not w.is_alive()]
            if dead:
                for w in dead:
                    self._mark_worker_unavailable(self._workers.index(w))
                pids = ", ".join(str(w.pid) for w in dead)
                raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly") from None
            return False, None

    def _get_data(self):
        if self._timeout > 0:
            ok, data = self._try_get_data(self._timeout)
            if not ok:
                raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds")
            return data
        while True:
            ok, data = self._try_get_data()
            if ok:
                return data

    def _try_put_index(self):
        try:
            index = self._next_index()
        except StopIteration:
            return
        max_tasks = self._prefetch_factor * self._num_workers
        for _ in range(self._num_workers):  # the next live worker (with room, when results may come unordered)
            worker = next(self._worker_cycle)
            if self._workers_status[worker] and (
                    self._in_order or self._workers_num_tasks[worker] < max_tasks // sum(self._workers_status)):
                break
        else:
            return
        self._index_queues[worker].put((self._send_idx, index))
        self._task_info[self._send_idx] = (worker,)
        self._workers_num_tasks[worker] += 1
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _next_data(self):
        while True:
            self._skip_lost_tasks()
            if self._rcvd_idx >= self._send_idx:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            info = self._task_info[self._rcvd_idx]
            if len(info) == 2:  # it already arrived out of order
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process_data(info[1], info[0])
            idx, data = self._get_data()
            self._tasks_outstanding -= 1
            if self._is_iterable and isinstance(data, IterableDatasetStopIteration):
                self._workers_status[data.worker_id] = False
                if not self._persistent_workers:
                    self._index_queues[data.worker_id].put(None)
                self._try_put_index()
                continue
            if idx == self._rcvd_idx or not self._in_order:
                if idx == self._rcvd_idx:
                    self._rcvd_idx += 1
                worker = self._task_info.pop(idx)[0]
                return self._process_data(data, worker)
            self._task_info[idx] += (data,)

    def _skip_lost_tasks(self):
        """Pass over tasks whose worker has stopped (an exhausted IterableDataset replica) without a result."""
        while self._rcvd_idx < self._send_idx:
            info = self._task_info.get(self._rcvd_idx)
            if info and (len(info) == 2 or self._workers_status[info[0]]):
                return
            self._task_info.pop(self._rcvd_idx, None)
            self._rcvd_idx += 1

    def _process_data(self, data, worker):
        self._workers_num_tasks[worker] -= 1
        self._try_put_index()
        if isinstance(data, ExceptionWrapper):
            data.reraise()
        return data

    def _mark_worker_unavailable(self, worker_id):
        self._index_queues[worker_id].put(None)
        self._workers_status[worker_id] = False

    def _shutdown_workers(self):
        # A forked process (a worker of a later DataLoader) may hold a copy of this iterator and collect it:
        # only the process that started the workers may stop them.
        if self._shutdown or os.getpid() != self._owner_pid:
            return
        self._shutdown = True
        try:
            self._done_event.set()
            for q in self._index_queues:
                q.put(None)
            for w in self._workers:
                w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)
            for q in self._index_queues:
                q.cancel_join_thread()
                q.close()
            self._result_queue.cancel_join_thread()
            self._result_queue.close()
        finally:
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join(timeout=_utils.MP_STATUS_CHECK_INTERVAL)

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:  # interpreter shutdown: the modules this needs may already be gone
            pass
