"""Models (tf.sequential, tf.model, LayersModel) and their training (`_training`)."""
