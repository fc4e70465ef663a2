"""`tf.data`: datasets for training, as tfjs-data 4.22 has them.

Make one with `array`, `generator` (Python generators and iterables, sync or async),
`zip` or `csv`; transform it with `map`, `filter`, `batch`, `shuffle`, `take`, `skip`,
`repeat`, `prefetch`, `concatenate`; read it with a `for` loop, `iterator()`,
`toArray()` or `forEachAsync(f)`; train on it with `model.fitDataset(ds, {epochs})`.

>>> import tfjs_grad as tf
>>> xs = tf.data.array([[1.0], [2.0], [3.0]])
>>> ys = tf.data.array([[2.0], [4.0], [6.0]])
>>> ds = tf.data.zip({"xs": xs, "ys": ys}).shuffle(3, 42).batch(2)
>>> [b["xs"].shape for b in ds]
[(2, 1), (1, 1)]
"""

from ._dataset import Dataset, IteratorResult, LazyIterator, dataset_from_iterator_fn
from ._readers import CSVDataset, array, csv, generator
from ._readers import zip_datasets as zip  # noqa: A001 (tfjs's name)

datasetFromIteratorFn = dataset_from_iterator_fn

__all__ = [
    "CSVDataset",
    "Dataset",
    "IteratorResult",
    "LazyIterator",
    "array",
    "csv",
    "datasetFromIteratorFn",
    "dataset_from_iterator_fn",
    "generator",
    "zip",
]


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
