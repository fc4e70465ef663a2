"""embedding: integer ids -> rows of a learned `[inputDim, outputDim]` table.

With `maskZero` the layer supports masking and its output's mask is `ids != 0`, which a
model hands to the layers after it (recurrent layers skip the masked steps), as in tfjs.

>>> import numpy as np
>>> import tfjs_grad as tf
>>> emb = tf.layers.embedding(inputDim=3, outputDim=2, embeddingsInitializer="ones")
>>> np.asarray(emb.apply(np.array([[0, 2]], np.float32))).shape
(1, 2, 2)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import jax.numpy as jnp

from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .._config import REQUIRED
from .base import Layer, exactly_one, positive_integer


class Embedding(Layer):
    """Look up each id (float inputs are cast to int32) in the `embeddings` table."""

    className = "Embedding"
    _KEYS: ClassVar[dict[str, Any]] = {
        "inputDim": REQUIRED,
        "outputDim": REQUIRED,
        "embeddingsInitializer": "randomUniform",
        "embeddingsRegularizer": None,
        "activityRegularizer": None,
        "embeddingsConstraint": None,
        "maskZero": None,
        "inputLength": None,
    }

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        a = self._args
        self.inputDim = positive_integer(a["inputDim"], "inputDim")
        self.outputDim = positive_integer(a["outputDim"], "outputDim")
        self.embeddingsInitializer = _initializers.get(a["embeddingsInitializer"])
        self.embeddingsRegularizer = _regularizers.get(a["embeddingsRegularizer"])
        self.activityRegularizer = _regularizers.get(a["activityRegularizer"])
        self.embeddingsConstraint = _constraints.get(a["embeddingsConstraint"])
        self.maskZero = a["maskZero"]
        self.supportsMasking = bool(self.maskZero)
        self.inputLength = a["inputLength"]
        if self.batchInputShape is None:
            length = self.inputLength
            if isinstance(length, (list, tuple)):
                self.batchInputShape = [None, *length]
            else:
                self.batchInputShape = [None, length]

    def build(self, input_shape: Any) -> None:
        self.embeddings = self.add_weight(
            "embeddings",
            [self.inputDim, self.outputDim],
            initializer=self.embeddingsInitializer,
            regularizer=self.embeddingsRegularizer,
            constraint=self.embeddingsConstraint,
        )
        self.built = True

    def _compute_mask(self, inputs: Any, mask: Any) -> Any:
        if not self.maskZero:
            return None
        ids = jnp.asarray(exactly_one(inputs))
        return ids != 0

    def call(self, inputs: Any, training: bool = False) -> Any:
        ids = jnp.asarray(inputs).astype(jnp.int32)
        return jnp.take(self.embeddings.raw(), ids, axis=0)

    def get_config(self) -> dict[str, Any]:
        return {
            "input_dim": self.inputDim,
            "output_dim": self.outputDim,
            "embeddings_initializer": _initializers.serialize(self.embeddingsInitializer),
            "embeddings_regularizer": _regularizers.serialize(self.embeddingsRegularizer),
            "activity_regularizer": _regularizers.serialize(self.activityRegularizer),
            "embeddings_constraint": _constraints.serialize(self.embeddingsConstraint),
            "mask_zero": self.maskZero,
            "input_length": self.inputLength,
            **super().get_config(),
        }
