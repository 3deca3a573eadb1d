"""``torch.storage``: the storage classes under their public module path (``torch/storage.py``).

``UntypedStorage`` is the flat byte buffer every tensor reads (``_tensor/storage.py``); ``TypedStorage`` is
PyTorch's deprecated typed view of one (``_tensor/typed_storage.py``), what ``tensor.storage()`` returns.
"""

from ._tensor.storage import UntypedStorage
from ._tensor.typed_storage import TypedStorage

__all__ = ["UntypedStorage", "TypedStorage"]
