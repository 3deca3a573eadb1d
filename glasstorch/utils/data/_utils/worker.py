"""DataLoader worker processes — PyTorch's ``torch/utils/data/_utils/worker.py``.

Each worker runs :func:`worker_loop`: it seeds ``random``, glasstorch and numpy from ``base_seed + id``,
publishes :class:`WorkerInfo` (what ``get_worker_info()`` returns inside the worker), runs the user's
``worker_init_fn``, then serves ``(task_idx, indices)`` requests from its own index queue and puts
``(task_idx, batch)`` on the shared result queue.  An exception is sent back as an
:class:`ExceptionWrapper` and re-raised in the main process with the worker's traceback; the end of an
IterableDataset is sent as :class:`IterableDatasetStopIteration`; ``None`` asks the worker to exit and
:class:`ResumeIteration` (persistent workers) to start a new epoch.  A worker whose parent died exits.

Tensors cross the process boundary by pickling (``Tensor.__reduce_ex__``: their values, dtype, shape).

Invariant: every request a worker accepts is answered with exactly one ``(task_idx, ...)`` message.
"""

from __future__ import annotations

import os
import queue
import random
import sys
import traceback
from dataclasses import dataclass

import numpy as np

from .... import _functions as _F
from ...._device.threads import set_num_threads
from . import fetch as _fetch

__all__ = ["WorkerInfo", "get_worker_info", "worker_loop", "ExceptionWrapper", "IterableDatasetStopIteration",
           "ResumeIteration"]

MP_STATUS_CHECK_INTERVAL = 5.0


@dataclass(frozen=True)
class WorkerInfo:
    """Who this worker is: ``id`` in ``[0, num_workers)``, its ``seed`` and its copy of the ``dataset``."""

    id: int
    num_workers: int
    seed: int
    dataset: object


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """The current worker's :class:`WorkerInfo` inside a DataLoader worker process; None in the main process.

    Example:
        >>> get_worker_info() is None
        True
    """
    return _worker_info


@dataclass(frozen=True)
class IterableDatasetStopIteration:
    worker_id: int


@dataclass(frozen=True)
class ResumeIteration:
    seed: int | None = None


class ExceptionWrapper:
    """An exception and its formatted traceback, carried to another process and re-raised there."""

    def __init__(self, exc_info=None, where: str = "in background"):
        exc_info = exc_info or sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            exc = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exc


class _KeyErrorMessage(str):
    """KeyError quotes its argument in ``str()``; this keeps the multi-line message readable."""

    def __repr__(self):
        return self


def _numpy_seed(base_seed: int, worker_id: int) -> np.ndarray:
    """A numpy seed that differs per worker and from the ``random``/glasstorch seed (a SeedSequence hash)."""
    mask32 = 0xFFFFFFFF
    entropy = [worker_id, base_seed & mask32, (base_seed >> 32) & mask32, 0]
    return np.random.SeedSequence(entropy).generate_state(4)


def _seed_everything(base_seed: int, worker_id: int) -> int:
    seed = base_seed + worker_id
    random.seed(seed)
    _F.manual_seed(seed)
    np.random.seed(_numpy_seed(base_seed, worker_id))
    return seed


def _parent_alive(parent_pid: int) -> bool:
    """A worker whose parent died is re-parented: its parent pid changes (PyTorch's ManagerWatchdog)."""
    return os.getppid() == parent_pid


def worker_loop(iterable: bool, dataset, index_queue, data_queue, done_event, auto_collation, collate_fn, drop_last,
                base_seed, init_fn, worker_id, num_workers, persistent_workers):
    """The body of one worker process (see the module docstring for the protocol)."""
    global _worker_info
    parent_pid = os.getppid()  # the loader's process, or the forkserver that started this worker
    # One thread per worker, as PyTorch's _worker_loop: the workers are the parallelism, and a forked child must
    # not start OpenMP work (libgomp's pool does not survive fork: the child would hang in its first region).
    set_num_threads(1)
    try:
        seed = _seed_everything(base_seed, worker_id)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        init_error = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = _fetch.create_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_error = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        _serve(iterable, dataset, index_queue, data_queue, done_event, auto_collation, collate_fn, drop_last,
               worker_id, parent_pid, fetcher if init_error is None else None, init_error)
    except KeyboardInterrupt:
        pass  # the main process sees the interrupt and shuts the workers down
    if done_event.is_set():
        data_queue.cancel_join_thread()
        data_queue.close()


def _serve(iterable, dataset, index_queue, data_queue, done_event, auto_collation, collate_fn, drop_last, worker_id,
           parent_pid, fetcher, init_error):
    ended = False  # an IterableDataset ran out: answer the remaining requests with nothing
    while _parent_alive(parent_pid):
        try:
            request = index_queue.get(timeout=MP_STATUS_CHECK_INTERVAL)
        except queue.Empty:
            continue
        if isinstance(request, ResumeIteration):
            data_queue.put((request, None))
            ended = False
            if init_error is None:
                fetcher = _fetch.create_fetcher(iterable, dataset, auto_collation, collate_fn, drop_last)
            continue
        if request is None:
            break
        if done_event.is_set() or ended:
            continue
        task_idx, index = request
        if init_error is not None:
            data = init_error  # worker_init_fn or the dataset's iterator failed: this worker cannot serve
        else:
            try:
                data = fetcher.fetch(index)
            except StopIteration:
                if not iterable:
                    data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
                else:
                    data, ended = IterableDatasetStopIteration(worker_id), True
            except Exception:
                data = ExceptionWrapper(where=f"in DataLoader worker process {worker_id}")
        data_queue.put((task_idx, data))
        del data, request, index
