"""Shape ops of OPS2.md that move blocks of values: addN, broadcastTo, broadcastArgs,
batchToSpaceND, spaceToBatchND, depthToSpace, ensureShape, mirrorPad.

Shapes, block sizes and paddings are static Python values, checked with tfjs's messages when
the op is called (at trace time under a transform). `broadcastArgs` reads the values of its
shape tensors, so it runs eagerly only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .._tensors import FLOAT, INT, LIST, NUMERIC, ArrayLike, Shape, convert, op
from . import _checks, _js

__all__ = [
    "add_n",
    "addN",
    "batch_to_space_nd",
    "batchToSpaceND",
    "broadcast_args",
    "broadcast_to",
    "broadcastArgs",
    "broadcastTo",
    "depth_to_space",
    "depthToSpace",
    "ensure_shape",
    "ensureShape",
    "mirror_pad",
    "mirrorPad",
    "space_to_batch_nd",
    "spaceToBatchND",
]


@op("addN", tensors=LIST)
def add_n(tensors: Sequence[ArrayLike]) -> jax.Array:
    """The elementwise sum of a list of tensors of one shape and dtype, like `tf.addN`.

    >>> import tfjs_grad as tf
    >>> tf.add_n([[1, 2], [3, 4], [5, 6]]).tolist()
    [9.0, 12.0]
    """
    if not isinstance(tensors, (list, tuple)):
        raise ValueError("The argument passed to tf.addN() must be a list of tensors")
    if len(tensors) < 1:
        raise ValueError(f"Must pass at least one tensor to tf.addN(), but got {len(tensors)}")
    arrays = [convert(t, argument=f"tensors{i}", fn="addN") for i, t in enumerate(tensors)]
    if any(a.dtype != arrays[0].dtype for a in arrays):
        raise ValueError("All tensors passed to tf.addN() must have the same dtype")
    if any(a.shape != arrays[0].shape for a in arrays):
        raise ValueError("All tensors passed to tf.addN() must have the same shape")
    total = arrays[0]
    for a in arrays[1:]:
        total = total + a
    return total if len(arrays) > 1 else jnp.array(total)


@op("broadcastTo", x=NUMERIC)
def broadcast_to(x: ArrayLike, shape: Shape) -> jax.Array:
    """x repeated along its size-1 (and new leading) axes to `shape`, like `tf.broadcastTo`.

    >>> import tfjs_grad as tf
    >>> tf.broadcast_to([1, 2], [2, 2]).tolist()
    [[1.0, 2.0], [1.0, 2.0]]
    """
    shape = _checks.sized_shape(shape, "broadcastTo", x.dtype)
    if len(shape) < x.ndim:
        raise ValueError(f"broadcastTo(): shape.length={len(shape)} < input.rank={x.ndim}.")
    padded = (1,) * (len(shape) - x.ndim) + tuple(x.shape)
    if any(d != s and d != 1 for d, s in zip(padded, shape)):
        raise ValueError(
            f"broadcastTo(): [{_js.array(x.shape)}] cannot be broadcast to [{_js.array(shape)}]."
        )
    return jnp.broadcast_to(x, shape)


@op("broadcastArgs", eager_only=True, s0=INT, s1=INT)
def broadcast_args(s0: ArrayLike, s1: ArrayLike) -> jax.Array:
    """The broadcast of two int32 shape vectors, as an int32 shape vector, like
    `tf.broadcastArgs` (eager only: the result's length depends on the values).

    >>> import tfjs_grad as tf
    >>> tf.broadcast_args(tf.tensor1d([2, 1, 3], "int32"), tf.tensor1d([4, 1], "int32")).tolist()
    [2, 4, 3]
    """
    if s0.ndim != 1:
        raise ValueError(
            f"broadcastArgs(): first input must be a vector (rank=1). Has rank {s0.ndim}"
        )
    if s1.ndim != 1:
        raise ValueError(
            f"broadcastArgs(): second input must be a vector (rank=1). Has rank {s1.ndim}"
        )
    shape = _checks.broadcast(np.asarray(s0).tolist(), np.asarray(s1).tolist())
    return jnp.asarray(shape, jnp.int32)


def _block_args(
    x: jax.Array, block_shape: Sequence[int], pairs: Sequence[Sequence[int]]
) -> tuple[list[int], list[tuple[int, int]]]:
    return [int(b) for b in block_shape], [(int(a), int(b)) for a, b in pairs]


@op("spaceToBatchND", x=NUMERIC)
def space_to_batch_nd(
    x: ArrayLike, block_shape: Sequence[int], paddings: Sequence[Sequence[int]]
) -> jax.Array:
    """x's spatial axes (1..M) padded, cut into blocks, and the blocks moved into the batch
    axis, like `tf.spaceToBatchND`.

    >>> import tfjs_grad as tf
    >>> tf.space_to_batch_nd(tf.ones([1, 2, 2, 1]), [2, 2], [[0, 0], [0, 0]]).shape
    (4, 1, 1, 1)
    """
    blocks, pads = _block_args(x, block_shape, paddings)
    m = len(blocks)
    if x.ndim < 1 + m:
        raise ValueError(f"input rank {x.ndim} should be > than [blockShape] {m}")
    if len(pads) != m:
        raise ValueError(f"paddings.shape[0] {len(pads)} must be equal to [blockShape] {m}")
    if any((x.shape[i + 1] + a + b) % blocks[i] for i, (a, b) in enumerate(pads)):
        raise ValueError(
            f"input spatial dimensions {_js.array(x.shape[1:])} with paddings "
            f"{_js.array(pads)} must be divisible by blockShapes {_js.array(blocks)}"
        )
    rest = x.ndim - 1 - m
    padded = _checks.product(
        [x.shape[0], *(x.shape[i + 1] + a + b for i, (a, b) in enumerate(pads))]
    )
    _checks.check_size(
        padded * _checks.product(x.shape[m + 1 :]), "spaceToBatchND", "paddings", x.dtype
    )
    x = jnp.pad(x, [(0, 0), *pads] + [(0, 0)] * rest)
    batch, spatial, tail = x.shape[0], x.shape[1 : 1 + m], x.shape[1 + m :]
    split = [batch] + [d for s, b in zip(spatial, blocks) for d in (s // b, b)] + list(tail)
    x = jnp.reshape(x, split)
    perm = [2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
    perm += list(range(1 + 2 * m, x.ndim))
    x = jnp.transpose(x, perm)
    out = [batch * math.prod(blocks)] + [s // b for s, b in zip(spatial, blocks)] + list(tail)
    return jnp.reshape(x, out)


@op("batchToSpaceND", x=NUMERIC)
def batch_to_space_nd(
    x: ArrayLike, block_shape: Sequence[int], crops: Sequence[Sequence[int]]
) -> jax.Array:
    """The inverse of spaceToBatchND: blocks of the batch axis moved back into the spatial
    axes (1..M), then cropped, like `tf.batchToSpaceND`.

    >>> import tfjs_grad as tf
    >>> tf.batch_to_space_nd(tf.ones([4, 1, 1, 1]), [2, 2], [[0, 0], [0, 0]]).shape
    (1, 2, 2, 1)
    """
    blocks, cuts = _block_args(x, block_shape, crops)
    m, prod = len(blocks), math.prod(blocks)
    if x.ndim < 1 + m:
        raise ValueError(f"input rank is {x.ndim} but should be > than blockShape.length {m}")
    if len(cuts) != m:
        raise ValueError(
            f"crops.length is {len(cuts)} but should be equal to blockShape.length  {m}"
        )
    if x.shape[0] % prod:
        raise ValueError(
            f"input tensor batch is {x.shape[0]} but is not divisible by the product of the "
            f"elements of blockShape {' * '.join(map(str, blocks))} === {prod}"
        )
    batch, spatial, tail = x.shape[0] // prod, x.shape[1 : 1 + m], x.shape[1 + m :]
    x = jnp.reshape(x, [*blocks, batch, *spatial, *tail])
    perm = [m] + [d for i in range(m) for d in (m + 1 + i, i)]
    perm += list(range(2 * m + 1, x.ndim))
    x = jnp.transpose(x, perm)
    x = jnp.reshape(x, [batch] + [s * b for s, b in zip(spatial, blocks)] + list(tail))
    index = [slice(None)] + [slice(a, x.shape[1 + i] - b) for i, (a, b) in enumerate(cuts)]
    return x[tuple(index)]


@op("depthToSpace", x=FLOAT)
def depth_to_space(x: ArrayLike, block_size: int, data_format: str = "NHWC") -> jax.Array:
    """Each pixel's channels rearranged into a block_size x block_size patch (NHWC), like
    `tf.depthToSpace`.

    >>> import tfjs_grad as tf
    >>> tf.depth_to_space(tf.ones([1, 1, 1, 4]), 2).shape
    (1, 2, 2, 1)
    """
    if data_format != "NHWC":
        raise ValueError("Only NHWC dataFormat supported on CPU for depthToSpace. Got NCHW")
    if x.ndim != 4:
        raise ValueError(f"depthToSpace expects a rank-4 input, but got rank {x.ndim}")
    batch, height, width, depth = x.shape
    if not block_size > 1:
        raise ValueError(f"blockSize should be > 1 for depthToSpace, but was: {block_size}")
    if depth % (block_size * block_size):
        raise ValueError(
            f"Dimension size must be evenly divisible by {block_size * block_size} but is "
            f"{depth} for depthToSpace with input shape {_js.array(x.shape)}"
        )
    channels = depth // (block_size * block_size)
    x = jnp.reshape(x, (batch, height, width, block_size, block_size, channels))
    x = jnp.transpose(x, (0, 1, 3, 2, 4, 5))
    return jnp.reshape(x, (batch, height * block_size, width * block_size, channels))


def _dims(shape: Sequence[Any]) -> str:
    return ",".join("" if d is None else str(d) for d in shape)


@op("ensureShape", x=NUMERIC)
def ensure_shape(x: ArrayLike, shape: Sequence[int | None]) -> jax.Array:
    """x itself, after checking that its shape is `shape` (None matches any size), like
    `tf.ensureShape`.

    >>> import tfjs_grad as tf
    >>> tf.ensure_shape(tf.zeros([2, 3]), [None, 3]).shape
    (2, 3)
    """
    shape = list(shape)
    if len(shape) != x.ndim or any(s is not None and s != d for s, d in zip(shape, x.shape)):
        raise ValueError(
            f"EnsureShape: Shape of tensor {_dims(x.shape)} is not compatible with expected "
            f"shape {_dims(shape)}"
        )
    return x


@op("mirrorPad", x=NUMERIC)
def mirror_pad(x: ArrayLike, paddings: Sequence[Sequence[int]], mode: str) -> jax.Array:
    """x padded with its own mirror image: 'reflect' leaves out the edge, 'symmetric' repeats
    it, like `tf.mirrorPad` (with the true gradient: tfjs's drops the reflected parts).

    >>> import tfjs_grad as tf
    >>> tf.mirror_pad([1, 2, 3], [[2, 1]], "reflect").tolist()
    [3.0, 2.0, 1.0, 2.0, 3.0, 2.0]
    """
    if mode not in ("reflect", "symmetric"):
        raise ValueError(f"Invalid mode. Mode must be either reflect or symmetric. Got {mode}.")
    if x.ndim == 0:
        raise ValueError("mirrorPad(scalar) is not defined. Pass non-scalar to mirrorPad")
    if len(paddings) != x.ndim:
        raise ValueError(f"Padding doesn't match input. Must be {x.ndim}. Got {len(paddings)}.")
    offset = 1 if mode == "reflect" else 0
    for i, pair in enumerate(paddings):
        if len(pair) != 2:
            raise ValueError("Invalid number of paddings. Must be length of 2 each.")
        limit = x.shape[i] - offset
        if not (0 <= pair[0] <= limit and 0 <= pair[1] <= limit):
            raise ValueError(
                f"Padding in dimension {i} cannot be greater than or equal to {limit} or less "
                f"than 0 for input of shape {_js.array(x.shape)}"
            )
    widths = [(int(a), int(b)) for a, b in paddings]
    return jnp.pad(x, widths, mode=mode)


addN = add_n
broadcastTo = broadcast_to
broadcastArgs = broadcast_args
spaceToBatchND = space_to_batch_nd
batchToSpaceND = batch_to_space_nd
depthToSpace = depth_to_space
ensureShape = ensure_shape
mirrorPad = mirror_pad
