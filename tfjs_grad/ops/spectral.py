"""`tf.spectral` (also top-level `tf.fft`, ...): fft, ifft, rfft, irfft over the last axis.

complex64 in and out, as tfjs; `rfft` takes float32 and gives the `n // 2 + 1` non-negative
frequencies, `irfft` takes them back to a real signal of length `2 (m - 1)`.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from .._tensors import NUMERIC, ArrayLike, dtype_name, op

__all__ = ["fft", "ifft", "irfft", "rfft"]


def _complex(fn: str, x: jax.Array) -> jax.Array:
    if x.dtype != jnp.complex64:
        raise TypeError(f"The dtype for {fn}() must be complex64 but got {dtype_name(x.dtype)}.")
    return x


@op("fft", input=NUMERIC)
def fft(input: ArrayLike) -> jax.Array:
    """The discrete Fourier transform over the last axis of a complex64 tensor, like
    `tf.fft` (`tf.spectral.fft`).

    >>> import numpy as np
    >>> import tfjs_grad as tf
    >>> tf.fft(np.array([1, 0], np.complex64))
    Tensor([1.+0.j, 1.+0.j], shape=(2,), dtype=complex64)
    """
    return jnp.fft.fft(_complex("tf.spectral.fft", input), axis=-1).astype(jnp.complex64)


@op("ifft", input=NUMERIC)
def ifft(input: ArrayLike) -> jax.Array:
    """The inverse discrete Fourier transform over the last axis, like `tf.ifft`.

    >>> import numpy as np
    >>> import tfjs_grad as tf
    >>> tf.ifft(np.array([1, 1], np.complex64))
    Tensor([1.+0.j, 0.+0.j], shape=(2,), dtype=complex64)
    """
    return jnp.fft.ifft(_complex("tf.spectral.ifft", input), axis=-1).astype(jnp.complex64)


@op("rfft", input=NUMERIC)
def rfft(input: ArrayLike, fft_length: int | None = None) -> jax.Array:
    """The Fourier transform of a real float32 signal over the last axis, like `tf.rfft`:
    complex64, `n // 2 + 1` values; `fft_length` crops or zero-pads the signal first.

    >>> import tfjs_grad as tf
    >>> tf.rfft([1.0, 1.0, 1.0, 1.0])
    Tensor([4.+0.j, 0.+0.j, 0.+0.j], shape=(3,), dtype=complex64)
    """
    if not jnp.issubdtype(input.dtype, jnp.floating):
        raise TypeError(
            f"The dtype for rfft() must be real value but got {dtype_name(input.dtype)}"
        )
    n = input.shape[-1] if fft_length is None else int(fft_length)
    return jnp.fft.rfft(input, n=n, axis=-1).astype(jnp.complex64)


@op("irfft", input=NUMERIC)
def irfft(input: ArrayLike) -> jax.Array:
    """The real signal whose `rfft` is `input` (complex64 `[..., m]`), like `tf.irfft`:
    float32 `[batch, 2 (m - 1)]`, where `batch` is the product of the leading axes (a rank-1
    input gives `[1, 2 (m - 1)]`, a rank-3 one keeps its first axis), as tfjs.

    >>> import numpy as np
    >>> import tfjs_grad as tf
    >>> tf.irfft(np.array([4, 0, 0], np.complex64))
    Tensor([[1., 1., 1., 1.]], shape=(1, 4), dtype=float32)
    """
    x = _complex("tf.spectral.irfft", input)
    m = x.shape[-1]
    batch = math.prod(x.shape[:-1])
    flat = x.reshape(batch, m)
    # m <= 2: tfjs takes the plain inverse transform of the m values
    out = jnp.real(jnp.fft.ifft(flat, axis=-1)) if m <= 2 else jnp.fft.irfft(flat, 2 * (m - 1))
    out = out.astype(jnp.float32)
    if x.ndim == 3 and x.shape[0] != 0:
        out = out.reshape(x.shape[0], batch // x.shape[0], out.shape[-1])
    return out


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
