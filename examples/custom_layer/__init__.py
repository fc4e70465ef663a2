"""Port of tfjs-examples/custom-layer: the Antirectifier layer, written as tfjs subclasses
tf.layers.Layer, applied to an image."""
