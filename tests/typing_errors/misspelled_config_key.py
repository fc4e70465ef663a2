# pyright: strict
"""User code pyright must refuse (tests/test_layer_configs.py runs it and counts the errors):
each line marked `# error` misspells a `tf.layers` config key."""

from __future__ import annotations

import tfjs_grad as tf


def misspelled() -> None:  # in a function: importing this file (doctests) runs nothing
    tf.layers.dense({"unit": 3})  # error
    tf.layers.dense(units=3, activaton="relu")  # error
    tf.layers.conv2d({"filters": 1, "kernelSize": 3, "padding": "same", "stride": 1})  # error
    tf.layers.dense({"units": "three"})  # error
