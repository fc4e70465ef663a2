"""`tf.browser`: `fromPixels` for the pixel data tfjs takes without a DOM.

A page's canvas, image and video elements do not exist in Python; `{data, width, height}`
(tfjs's PixelData: RGBA bytes, four a pixel, row by row) does, as a dict, an object with
those attributes (an `ImageData` stand-in), or an `[height, width, 4]` uint8 numpy array.

>>> import numpy as np
>>> import tfjs_grad as tf
>>> rgba = np.arange(8, dtype=np.uint8)  # two pixels
>>> tf.browser.fromPixels({"data": rgba, "width": 2, "height": 1}).arraySync()
[[[0, 1, 2], [4, 5, 6]]]
"""

from collections.abc import Mapping
from typing import Any

import numpy as np

from ._tensor import Tensor
from .ops.creation import tensor

__all__ = ["from_pixels", "fromPixels"]


def _rgba(pixels: Any) -> np.ndarray:
    if isinstance(pixels, np.ndarray) and pixels.ndim == 3 and pixels.shape[2] == 4:
        return pixels.astype(np.int32)
    if isinstance(pixels, Mapping):
        fields = [pixels.get(key) for key in ("data", "width", "height")]
    else:
        fields = [getattr(pixels, key, None) for key in ("data", "width", "height")]
    data, width, height = fields
    if data is None or width is None or height is None:
        raise TypeError(
            "pixels passed to tf.browser.fromPixels() must be {data, width, height} (RGBA "
            f"bytes) or a [height, width, 4] array, but got {type(pixels).__name__}"
        )
    values = np.asarray(data).astype(np.int32).ravel()
    if values.size != width * height * 4:
        raise ValueError(
            f"pixels.data of tf.browser.fromPixels() holds {values.size} values; a "
            f"{width}x{height} image needs {width * height * 4} (RGBA)"
        )
    return values.reshape(height, width, 4)


def fromPixels(pixels: Any, numChannels: int = 3) -> Tensor:
    """tfjs's `tf.browser.fromPixels(pixels, numChannels)`: an int32 `[height, width,
    numChannels]` tensor of the first `numChannels` of each pixel's RGBA bytes."""
    if pixels is None:
        raise ValueError("pixels passed to tf.browser.fromPixels() can not be null")
    if numChannels > 4:
        raise ValueError("Cannot construct Tensor with more than 4 channels from pixels.")
    return tensor(_rgba(pixels)[:, :, :numChannels], None, "int32")


from_pixels = fromPixels
