"""`tf.layers`: tfjs's layer factories, `tf.layers.<name>(config)`.

Each takes tfjs's config (a dict, keywords or both; camelCase keys, snake_case accepted)
and returns a `Layer`.

>>> import tfjs_grad as tf
>>> tf.layers.dense({"units": 3, "use_bias": False}).useBias
False
"""

from .base import InputLayer, Layer, Node, SymbolicTensor, input, layer_factory
from .core import (
    Activation,
    Dense,
    Dropout,
    Flatten,
    Permute,
    RepeatVector,
    Reshape,
    SpatialDropout1D,
)

dense = layer_factory(Dense)
activation = layer_factory(Activation)
dropout = layer_factory(Dropout)
spatialDropout1d = spatial_dropout1d = layer_factory(SpatialDropout1D)
flatten = layer_factory(Flatten)
reshape = layer_factory(Reshape)
permute = layer_factory(Permute)
repeatVector = repeat_vector = layer_factory(RepeatVector)
inputLayer = input_layer = layer_factory(InputLayer)

__all__ = [
    "Activation",
    "Dense",
    "Dropout",
    "Flatten",
    "InputLayer",
    "Layer",
    "Node",
    "Permute",
    "RepeatVector",
    "Reshape",
    "SpatialDropout1D",
    "SymbolicTensor",
    "activation",
    "dense",
    "dropout",
    "flatten",
    "input",
    "inputLayer",
    "input_layer",
    "permute",
    "repeatVector",
    "repeat_vector",
    "reshape",
    "spatialDropout1d",
    "spatial_dropout1d",
]
