"""tf.math (OPS2.md "Math, sparse, ragged"): confusionMatrix."""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .._tensors import NUMERIC, ArrayLike, op

__all__ = ["confusion_matrix", "confusionMatrix"]


@op("confusionMatrix", labels=NUMERIC, predictions=NUMERIC)
def confusion_matrix(labels: ArrayLike, predictions: ArrayLike, num_classes: int) -> jax.Array:
    """The int32 `[num_classes, num_classes]` confusion matrix, rows labels and columns
    predictions, like `tf.math.confusionMatrix`.

    Labels and predictions are cast to int32 (truncated); one outside [0, num_classes)
    counts nowhere.

    >>> import tfjs_grad as tf
    >>> tf.math.confusion_matrix([0, 1, 1], [1, 1, 0], 2).tolist()
    [[0, 1], [1, 1]]
    """
    if num_classes is not None and not (num_classes > 0 and float(num_classes).is_integer()):
        raise ValueError(
            f"If provided, numClasses must be a positive integer, but got {num_classes}"
        )
    if labels.ndim != 1:
        raise ValueError(f"Expected the rank of labels to be 1, but got {labels.ndim}")
    if predictions.ndim != 1:
        raise ValueError(f"Expected the rank of predictions to be 1, but got {predictions.ndim}")
    if labels.shape[0] != predictions.shape[0]:
        raise ValueError(
            f"Mismatch in the number of examples: {labels.shape[0]} vs. "
            f"{predictions.shape[0]}. Labels and predictions should have the same number of "
            "elements."
        )
    if num_classes is None:
        raise ValueError(f"numClasses is required to be a positive integer, but got {num_classes}")
    depth = int(num_classes)
    rows = jax.nn.one_hot(labels.astype(jnp.int32), depth, dtype=jnp.int32)
    columns = jax.nn.one_hot(predictions.astype(jnp.int32), depth, dtype=jnp.int32)
    return jnp.matmul(rows.T, columns, preferred_element_type=jnp.int32)


confusionMatrix = confusion_matrix


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
