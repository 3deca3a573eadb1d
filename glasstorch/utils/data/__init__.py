"""``glasstorch.utils.data`` — PyTorch's ``torch.utils.data``: datasets, samplers and the DataLoader.

Layers inside: ``dataset`` (what a sample is), ``sampler`` (which indices, in which order), ``_utils``
(collate, fetch, worker processes) and ``dataloader`` (the iterator that drives them).
"""

from ._utils.collate import default_collate, default_convert
from ._utils.worker import get_worker_info
from .dataloader import DataLoader
from .dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from .sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = ["DataLoader", "Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split", "Sampler", "SequentialSampler", "RandomSampler",
           "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler", "default_collate", "default_convert",
           "get_worker_info"]
