import gc

import pytest

import tfjs_grad as tf


@pytest.fixture(autouse=True)
def _fresh_variables():
    """Every test starts and ends with no live Variables (names are global, as in tfjs)."""
    tf.dispose_variables()
    yield
    tf.dispose_variables()
    gc.collect()
