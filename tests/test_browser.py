"""tf.browser.fromPixels on tfjs's pixel data ({data, width, height}, RGBA bytes), against the
picture tests/reference/gen_antirectifier.js gave tfjs 4.22's fromPixels."""

import json
from pathlib import Path
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf

_FIXTURE = json.loads((Path(__file__).parent / "reference" / "antirectifier.json").read_text())


def _rgba():
    image = _FIXTURE["image"]
    return np.asarray(image["data"], np.uint8), image["width"], image["height"]


def test_from_pixels_reads_rgba_pixel_data_as_tfjs():
    data, width, height = _rgba()
    img = tf.browser.fromPixels({"data": data, "width": width, "height": height})
    assert (img.shape, img.dtype) == ((height, width, 3), "int32")
    np.testing.assert_array_equal(img.arraySync(), data.reshape(height, width, 4)[:, :, :3])
    # tfjs's demo: toFloat().expandDims(0), then the Antirectifier; its output is in the fixture
    batch = tf.browser.fromPixels(SimpleNamespace(data=data, width=width, height=height))
    x = batch.toFloat().expandDims(0)
    centered = x.reshape([1, -1]).sub(x.reshape([1, -1]).mean(1, True)).reshape(x.shape)
    want = np.asarray(_FIXTURE["output"]["values"]).reshape(_FIXTURE["output"]["shape"])
    np.testing.assert_allclose(centered.relu().arraySync(), want[..., :3], rtol=1e-6)


def test_from_pixels_channels_and_arrays():
    data, width, height = _rgba()
    pixels = data.reshape(height, width, 4)
    assert tf.browser.fromPixels(pixels, 4).shape == (height, width, 4)
    assert tf.browser.from_pixels(pixels, 1).shape == (height, width, 1)


def test_from_pixels_in_a_jax_program():
    data, width, height = _rgba()
    img = tf.browser.fromPixels({"data": data, "width": width, "height": height})
    mean = jax.jit(lambda v: jnp.mean(v.astype(jnp.float32)))(jnp.asarray(img))
    np.testing.assert_allclose(mean, data.reshape(height, width, 4)[:, :, :3].mean(), rtol=1e-6)


def test_from_pixels_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="can not be null"):
        tf.browser.fromPixels(None)
    with pytest.raises(ValueError, match="more than 4 channels"):
        tf.browser.fromPixels({"data": np.zeros(4), "width": 1, "height": 1}, 5)
    with pytest.raises(TypeError, match=r"\{data, width, height\}"):
        tf.browser.fromPixels([1, 2, 3])
    with pytest.raises(ValueError, match="pixels.data .* holds 3 values"):
        tf.browser.fromPixels({"data": [1, 2, 3], "width": 1, "height": 1})
