"""`tf.signal`: hannWindow, hammingWindow, frame and stft.

The windows are tfjs's cosine windows `a - b cos(2 pi k / d)` with d = n for even n and
n - 1 for odd n (periodic for even lengths, symmetric for odd ones; length 1 gives NaN).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from .._tensors import FLOAT, ArrayLike, convert, inside, op
from . import spectral

__all__ = ["frame", "hamming_window", "hammingWindow", "hann_window", "hannWindow", "stft"]


def _cosine_window(length: int, a: float, b: float) -> jax.Array:
    even = 1 - length % 2
    k = np.arange(length, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        values = a - b * np.cos(2.0 * math.pi * k / (length + even - 1))
    return jnp.asarray(values, jnp.float32)


@op("signal.hannWindow")
def hann_window(window_length: int) -> jax.Array:
    """A Hann window, like `tf.signal.hannWindow` (0.5 - 0.5 cos(...), see the module).

    >>> import tfjs_grad as tf
    >>> tf.signal.hannWindow(5)
    Tensor([0. , 0.5, 1. , 0.5, 0. ], shape=(5,), dtype=float32)
    """
    return _cosine_window(int(window_length), 0.5, 0.5)


@op("signal.hammingWindow")
def hamming_window(window_length: int) -> jax.Array:
    """A Hamming window, like `tf.signal.hammingWindow` (0.54 - 0.46 cos(...)).

    >>> import tfjs_grad as tf
    >>> tf.signal.hamming_window(3)
    Tensor([0.08, 1.  , 0.08], shape=(3,), dtype=float32)
    """
    return _cosine_window(int(window_length), 0.54, 0.46)


@op("signal.frame", signal=FLOAT)
def frame(
    signal: ArrayLike,
    frame_length: int,
    frame_step: int,
    pad_end: bool = False,
    pad_value: float = 0,
) -> jax.Array:
    """Frames of `frame_length` samples every `frame_step` along the last axis, like
    `tf.signal.frame`: `[..., frames, frame_length]`; with `pad_end` the frames that run
    past the end are padded with `pad_value`.

    >>> import tfjs_grad as tf
    >>> tf.signal.frame([1.0, 2.0, 3.0, 4.0, 5.0], 2, 2, True)
    Tensor([[1., 2.],
            [3., 4.],
            [5., 0.]], shape=(3, 2), dtype=float32)
    """
    length, size, step = int(frame_length), signal.shape[-1], int(frame_step)
    starts = list(range(0, size - length + 1, step)) if size >= length else []
    if pad_end:
        start = starts[-1] + step if starts else 0
        starts += list(range(start, size, step))
    if not starts:
        return jnp.zeros((*signal.shape[:-1], 0, length), signal.dtype)
    overhang = max(0, starts[-1] + length - size)
    padded = jnp.pad(
        signal,
        [(0, 0)] * (signal.ndim - 1) + [(0, overhang)],
        constant_values=jnp.asarray(pad_value, signal.dtype),
    )
    index = np.asarray(starts)[:, None] + np.arange(length)[None, :]
    return padded[..., index]


@op("signal.stft", signal=FLOAT)
def stft(
    signal: ArrayLike,
    frame_length: int,
    frame_step: int,
    fft_length: int | None = None,
    window_fn: Callable[[int], ArrayLike] | None = None,
) -> jax.Array:
    """The short-time Fourier transform, like `tf.signal.stft`: frames of the signal times
    `window_fn(frame_length)` (a Hann window by default), then `rfft` of `fft_length`
    (by default the smallest power of two >= frame_length): complex64
    `[frames, fft_length // 2 + 1]`.

    >>> import tfjs_grad as tf
    >>> tf.signal.stft(tf.ones([4]), 4, 4).shape
    (1, 3)
    """
    length = int(frame_length)
    n = 1 << max(0, math.ceil(math.log2(length))) if fft_length is None else int(fft_length)
    window = hann_window(length) if window_fn is None else window_fn(length)
    window = convert(window, argument="window", fn="signal.stft")
    frames = inside(frame)(signal, length, frame_step)
    return inside(spectral.rfft)(frames * window, n)


hannWindow = hann_window
hammingWindow = hamming_window


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
