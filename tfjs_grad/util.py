"""`tf.util`: tfjs's host-side helpers that training code uses.

>>> import tfjs_grad as tf
>>> tf.util.createShuffledIndices is tf.util.create_shuffled_indices
True
"""

from .ops.utilities import create_shuffled_indices, createShuffledIndices, shuffle

__all__ = ["create_shuffled_indices", "createShuffledIndices", "shuffle"]
