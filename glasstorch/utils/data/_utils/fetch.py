"""Fetchers — PyTorch's ``torch/utils/data/_utils/fetch.py``: one index (or list of indices) -> collated data.

A map-style fetcher reads ``dataset[i]`` for each index of a batch (or ``dataset.__getitems__(indices)``
when the dataset offers it); an iterable fetcher pulls the next samples from the dataset's iterator and
raises StopIteration at its end (also for a short last batch with ``drop_last``).

Invariant: ``fetch`` returns exactly what ``collate_fn`` made of the samples.
"""

from __future__ import annotations

__all__ = ["MapDatasetFetcher", "IterableDatasetFetcher", "create_fetcher"]


class MapDatasetFetcher:
    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool):
        self.dataset, self.auto_collation = dataset, auto_collation
        self.collate_fn, self.drop_last = collate_fn, drop_last

    def fetch(self, possibly_batched_index):
        if not self.auto_collation:
            return self.collate_fn(self.dataset[possibly_batched_index])
        getitems = getattr(self.dataset, "__getitems__", None)
        if getitems:
            data = getitems(possibly_batched_index)
        else:
            data = [self.dataset[i] for i in possibly_batched_index]
        return self.collate_fn(data)


class IterableDatasetFetcher:
    def __init__(self, dataset, auto_collation: bool, collate_fn, drop_last: bool):
        self.auto_collation, self.collate_fn, self.drop_last = auto_collation, collate_fn, drop_last
        self.dataset_iter = iter(dataset)
        self.ended = False

    def fetch(self, possibly_batched_index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.dataset_iter))
        data = []
        for _ in possibly_batched_index:
            try:
                data.append(next(self.dataset_iter))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(possibly_batched_index)):
            raise StopIteration
        return self.collate_fn(data)


def create_fetcher(iterable: bool, dataset, auto_collation: bool, collate_fn, drop_last: bool):
    cls = IterableDatasetFetcher if iterable else MapDatasetFetcher
    return cls(dataset, auto_collation, collate_fn, drop_last)
