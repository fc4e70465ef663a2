"""Creation ops: tensors from values, filled tensors, ranges, one-hot rows and random draws.

Random draws use JAX's generator (`_rng.next_key`): with `seed=` they are reproducible,
without one every call draws new numbers.
"""

from __future__ import annotations

import math
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from .. import _rng, _tape
from .._jax_internals import tracing
from .._tensors import INT, NUMERIC, ArrayLike, Shape, convert, op, parse_as, to_dtype
from . import _checks, _js

__all__ = [
    "fill",
    "linspace",
    "multinomial",
    "one_hot",
    "oneHot",
    "ones",
    "ones_like",
    "onesLike",
    "random_normal",
    "random_uniform",
    "randomNormal",
    "randomUniform",
    "scalar",
    "tensor",
    "tensor1d",
    "tensor2d",
    "tensor3d",
    "tensor4d",
    "truncated_normal",
    "truncatedNormal",
    "zeros",
    "zeros_like",
    "zerosLike",
]

_NOT_VALUES = (
    "values passed to tensor(values) must be a number/boolean/string or an array of "
    "numbers/booleans/strings, or a TypedArray"
)


def _values(values: ArrayLike, fn: str, dtype: Any = None) -> jax.Array:
    """`values` as an array; Python numbers (JS numbers) parsed straight into `dtype`, as
    tfjs's `toTypedArray` does (not through float32: int32 keeps 16777217)."""
    parse = None
    if dtype is not None and isinstance(values, (int, float, list, tuple)):
        parse = to_dtype(dtype).name
    try:
        return convert(values, argument="values", fn=fn, dtype=parse)
    except TypeError:
        raise TypeError(_NOT_VALUES) from None


def _make(array: jax.Array, shape: Shape | None, dtype: Any) -> jax.Array:
    """tfjs's `makeTensor`: a shape that must hold exactly the values, a dtype to parse as."""
    target = to_dtype(dtype)
    if target is not None and array.dtype != target:
        array = parse_as(array, target)
    if shape is None:
        return array
    shape = _checks.shape_arg(shape)
    inferred = array.shape
    if math.prod(shape) != array.size:
        raise ValueError(
            f"Based on the provided shape, [{_js.array(shape)}], the tensor should have "
            f"{math.prod(shape)} values but has {array.size}"
        )
    for i, dim in enumerate(inferred):
        given = shape[i] if i < len(shape) else None
        flat_dims_differ = i < len(inferred) - 1 or dim != math.prod(shape[i:])
        if dim != given and flat_dims_differ:
            raise ValueError(
                f"Error creating a new Tensor. Inferred shape ({_js.array(inferred)}) does not "
                f"match the provided shape ({_js.array(shape)}). "
            )
    return array.reshape(shape)


@op("tensor")
def tensor(values: ArrayLike, shape: Shape | None = None, dtype: Any = None) -> jax.Array:
    """An array from values (numbers, bools, nested lists, numpy arrays), like `tf.tensor`.

    >>> import tfjs_grad as tf
    >>> tf.tensor([1, 2, 3, 4], [2, 2])
    Tensor([[1., 2.],
            [3., 4.]], shape=(2, 2), dtype=float32)
    >>> tf.tensor([1.7, -1.7], None, "int32")
    Tensor([ 1, -1], shape=(2,), dtype=int32)
    """
    return _make(_values(values, "tensor", dtype), shape, dtype)


@op("scalar")
def scalar(value: ArrayLike, dtype: Any = None) -> jax.Array:
    """A rank-0 array, like `tf.scalar`.

    >>> import tfjs_grad as tf
    >>> tf.scalar(3.5)
    Tensor(3.5, shape=(), dtype=float32)
    """
    host = _host_scalar(value, dtype)
    if host is not None:
        if _tape.active() is not None:  # inside the f of an eager gradient call
            return _tape.host_scalar(host)
        return jnp.asarray(host)
    if isinstance(value, (list, tuple)) or np.ndim(value) > 0:
        raise ValueError(
            "Error creating a new Scalar: value must be a primitive (number|boolean|string)"
        )
    return _make(_values(value, "scalar", dtype), None, dtype)


_HOST_DTYPES = {np.dtype(np.float32), np.dtype(np.int32), np.dtype(np.bool_)}


def _host_scalar(value: Any, dtype: Any) -> np.ndarray | None:
    """A Python number parsed as tfjs parses it (a float64 JS number, then `dtype`) on the
    host, so that making it costs one transfer; None where the device path decides (not
    a plain number, or an int outside int64's range).

    >>> _host_scalar(2.7, "int32"), _host_scalar(16777217, "int32")
    (array(2, dtype=int32), array(16777217, dtype=int32))
    """
    kind = type(value)
    if kind is bool:
        parsed, inferred = np.asarray(value), np.dtype(np.bool_)
    elif kind is float or (kind is int and -(2**63) < value < 2**63):
        parsed, inferred = np.asarray(value, np.float64), np.dtype(np.float32)
    else:
        return None
    target = to_dtype(dtype) if dtype is not None else inferred
    if target not in _HOST_DTYPES:
        return None
    if kind is int and target == np.int32 and -(2**31) <= value < 2**31:
        return np.asarray(value, np.int32)  # what parse_as gives, without its float steps
    return np.asarray(parse_as(parsed, target))


def _ranked(values: ArrayLike, shape: Shape | None, dtype: Any, rank: int) -> jax.Array:
    fn = f"tensor{rank}d"
    names = {2: "two", 3: "three", 4: "four"}
    if shape is not None and len(shape) != rank:
        raise ValueError(f"{fn}() requires shape to have {names[rank]} numbers")
    array = _values(values, fn, dtype)
    inferred_rank = array.ndim
    if inferred_rank not in (rank, 1):
        raise ValueError(f"{fn}() requires values to be number{'[]' * rank} or flat/TypedArray")
    if inferred_rank == 1 and shape is None:
        flat = "flat/TypedArray" if rank == 2 else "flat array"
        raise ValueError(f"{fn}() requires shape to be provided when `values` are a {flat}")
    return _make(array, shape, dtype)


@op("tensor1d")
def tensor1d(values: ArrayLike, dtype: Any = None) -> jax.Array:
    """A rank-1 array, like `tf.tensor1d`.

    >>> import tfjs_grad as tf
    >>> tf.tensor1d([1, 2, 3])
    Tensor([1., 2., 3.], shape=(3,), dtype=float32)
    """
    array = _values(values, "tensor1d", dtype)
    if array.ndim != 1:
        raise ValueError("tensor1d() requires values to be a flat/TypedArray")
    return _make(array, None, dtype)


@op("tensor2d")
def tensor2d(values: ArrayLike, shape: Shape | None = None, dtype: Any = None) -> jax.Array:
    """A rank-2 array from nested lists, or from flat values and a shape, like `tf.tensor2d`.

    A numpy uint8 array becomes int32, as tfjs's `tensor2d(Uint8Array, shape)` does.

    >>> import numpy as np
    >>> import tfjs_grad as tf
    >>> tf.tensor2d(np.array([1, 0, 0, 1], np.uint8), [2, 2])
    Tensor([[1, 0],
            [0, 1]], shape=(2, 2), dtype=int32)
    """
    return _ranked(values, shape, dtype, 2)


@op("tensor3d")
def tensor3d(values: ArrayLike, shape: Shape | None = None, dtype: Any = None) -> jax.Array:
    """A rank-3 array, like `tf.tensor3d`.

    >>> import tfjs_grad as tf
    >>> tf.tensor3d([1, 2, 3, 4], [1, 2, 2]).shape
    (1, 2, 2)
    """
    return _ranked(values, shape, dtype, 3)


@op("tensor4d")
def tensor4d(values: ArrayLike, shape: Shape | None = None, dtype: Any = None) -> jax.Array:
    """A rank-4 array, like `tf.tensor4d`.

    >>> import tfjs_grad as tf
    >>> tf.tensor4d([[[[1], [2]], [[3], [4]]]]).shape
    (1, 2, 2, 1)
    """
    return _ranked(values, shape, dtype, 4)


@op("zeros")
def zeros(shape: Shape, dtype: Any = "float32") -> jax.Array:
    """An array of zeros, like `tf.zeros`.

    >>> import tfjs_grad as tf
    >>> tf.zeros([2])
    Tensor([0., 0.], shape=(2,), dtype=float32)
    """
    target = to_dtype(dtype)
    return _filled(_checks.sized_shape(shape, "zeros", target), 0, target)


@op("ones")
def ones(shape: Shape, dtype: Any = "float32") -> jax.Array:
    """An array of ones, like `tf.ones`.

    >>> import tfjs_grad as tf
    >>> tf.ones([2], "int32")
    Tensor([1, 1], shape=(2,), dtype=int32)
    """
    target = to_dtype(dtype)
    return _filled(_checks.sized_shape(shape, "ones", target), 1, target)


@op("zerosLike", x=NUMERIC)
def zeros_like(x: ArrayLike) -> jax.Array:
    """Zeros with x's shape and dtype, like `tf.zerosLike`.

    >>> import tfjs_grad as tf
    >>> tf.zeros_like(tf.tensor1d([1, 2], "int32"))
    Tensor([0, 0], shape=(2,), dtype=int32)
    """
    return _reads(x, jnp.zeros_like(x))


@op("onesLike", x=NUMERIC)
def ones_like(x: ArrayLike) -> jax.Array:
    """Ones with x's shape and dtype, like `tf.onesLike`.

    >>> import tfjs_grad as tf
    >>> tf.ones_like([[1, 2]])
    Tensor([[1., 1.]], shape=(1, 2), dtype=float32)
    """
    return _reads(x, jnp.ones_like(x))


def _reads(x: jax.Array, filled: jax.Array) -> jax.Array:
    """`filled`, made to read x: tfjs registers a zero gradient for zerosLike/onesLike, so a
    loss that ends in one is connected to x (gradient zeros), not refused as unconnected.
    The select is on a constant condition; XLA folds it away."""
    return jnp.where(True, filled, x)


@op("fill")
def fill(shape: Shape, value: Any, dtype: Any = None) -> jax.Array:
    """An array filled with value, like `tf.fill`: bool for a bool, else float32.

    >>> import tfjs_grad as tf
    >>> tf.fill([2, 2], 3)
    Tensor([[3., 3.],
            [3., 3.]], shape=(2, 2), dtype=float32)
    """
    if dtype is None:
        dtype = "bool" if isinstance(value, (bool, np.bool_)) else "float32"
    target = to_dtype(dtype)
    return _filled(_checks.sized_shape(shape, "fill", target), value, target)


def _filled(shape: Any, value: Any, dtype: Any) -> jax.Array:
    """A constant array. Outside a trace a small one is made on the host and placed on the
    device: jnp.full compiles an XLA program for each new shape, so an eager loop whose
    batch length changes would compile again for every `tf.zeros` it makes."""
    if tracing() or math.prod(shape) > _HOST_FILL_MOST or not _casts_alike(value, dtype):
        return jnp.full(shape, value, dtype)
    with np.errstate(over="ignore"):  # 1e40 as float32 is inf, as in tfjs's Float32Array
        return jax.device_put(np.full(shape, value, dtype))


_HOST_FILL_MOST = 1 << 20  # elements; larger constants are made on the device


def _casts_alike(value: Any, dtype: Any) -> bool:
    """Whether numpy casts value to dtype as jnp.full does (not so for NaN or an
    out-of-range int into int32, nor for arrays, which stay on the device)."""
    if isinstance(value, (bool, np.bool_)):
        return True
    if isinstance(value, (int, np.integer)):
        info = np.iinfo(dtype) if np.issubdtype(dtype, np.integer) else None
        return info is None or bool(info.min <= value <= info.max)
    if isinstance(value, (float, np.floating)):
        return bool(np.issubdtype(dtype, np.inexact)) or math.isfinite(value)
    return False


@op("linspace")
def linspace(start: float, stop: float, num: int) -> jax.Array:
    """`num` evenly spaced float32 values from start to stop inclusive, like `tf.linspace`.

    >>> import tfjs_grad as tf
    >>> tf.linspace(0, 1, 5)
    Tensor([0.  , 0.25, 0.5 , 0.75, 1.  ], shape=(5,), dtype=float32)
    """
    if num <= 0:
        raise ValueError("The number of values should be positive.")
    count = _checks.check_size(num, "linspace", "num", jnp.float32, f"num {_js.number(num)}")
    return jnp.linspace(start, stop, count, dtype=jnp.float32)


@op("range")
def range_(start: float, stop: float, step: float = 1, dtype: Any = "float32") -> jax.Array:
    """Values from start towards stop (exclusive) by step, like `tf.range`: float32 by default.

    As in tfjs, `stop < start` with `step == 1` counts down by 1; `stop < start` with
    `step > 1`, or `start < stop` with `step < 0`, is empty.

    >>> import tfjs_grad as tf
    >>> tf.range(0, 3)
    Tensor([0., 1., 2.], shape=(3,), dtype=float32)
    >>> tf.range(3, 0)
    Tensor([3., 2., 1.], shape=(3,), dtype=float32)
    """
    if step == 0:
        raise ValueError("Cannot have a step of zero")
    if start == stop or (start < stop and step < 0) or (stop < start and step > 1):
        count = 0
    else:
        span = (stop - start) / step
        count = abs(math.ceil(span)) if math.isfinite(span) else math.inf
        if stop < start and step == 1:
            step = -1
    target = to_dtype(dtype)
    where = f"from {_js.number(start)} to {_js.number(stop)} by {_js.number(step)}"
    count = _checks.check_size(count, "range", "stop", target, where)
    if all(float(v).is_integer() for v in (start, step)) and not jnp.issubdtype(
        target, jnp.floating
    ):
        return (jnp.arange(count, dtype=jnp.int32) * int(step) + int(start)).astype(target)
    # An iota in the program, not a host constant: inside tf.jit nothing count-sized is
    # baked in.
    return (jnp.arange(count, dtype=jnp.float32) * step + start).astype(target)


@op("oneHot", indices=INT)
def one_hot(
    indices: ArrayLike,
    depth: int,
    on_value: float = 1,
    off_value: float = 0,
    dtype: Any = "int32",
) -> jax.Array:
    """One-hot rows, like `tf.oneHot`: **int32 by default**, shape `indices.shape + [depth]`.

    An index outside [0, depth) gives a row of `off_value`.

    >>> import tfjs_grad as tf
    >>> tf.one_hot([0, 2, 5], 3)
    Tensor([[1, 0, 0],
            [0, 0, 1],
            [0, 0, 0]], shape=(3, 3), dtype=int32)
    """
    if depth < 2:
        raise ValueError(f"Error in oneHot: depth must be >=2, but it is {_js.number(depth)}")
    where = f"indices shape [{_js.array(indices.shape)}], depth {_js.number(depth)}"
    _checks.check_size(indices.size * depth, "oneHot", "depth", to_dtype(dtype), where)
    hot = jax.nn.one_hot(indices, int(depth), dtype=jnp.bool_)
    return jnp.where(hot, on_value, off_value).astype(to_dtype(dtype))


def _check_random_dtype(dtype: Any) -> Any:
    target = to_dtype(dtype)
    if target == np.bool_:
        raise ValueError("Unsupported data type bool")
    return target


def _js_round(x: jax.Array) -> jax.Array:
    # JS Math.round: halves towards +infinity (jnp.round rounds halves to even)
    return jnp.floor(x + 0.5)


@op("randomUniform")
def random_uniform(
    shape: Shape,
    minval: float = 0,
    maxval: float = 1,
    dtype: Any = "float32",
    seed: int | None = None,
) -> jax.Array:
    """Uniform values in [minval, maxval), like `tf.randomUniform`.

    With dtype 'int32' (or 'bool') the float draw is truncated toward zero, as tfjs stores
    it, so integers in [minval, maxval) for minval >= 0.

    >>> import tfjs_grad as tf
    >>> x = tf.random_uniform([1000], 2, 5, seed=0)
    >>> bool((x >= 2).all() and (x < 5).all()), x.dtype
    (True, dtype('float32'))
    """
    shape = _checks.sized_shape(shape, "randomUniform", jnp.float32)
    target = to_dtype(dtype)
    draw = jax.random.uniform(
        _rng.next_key(seed, "tf.randomUniform"), shape, jnp.float32, minval, maxval
    )
    if jnp.issubdtype(target, jnp.floating):
        return draw.astype(target)
    return draw.astype(jnp.int32).astype(target)


@op("randomNormal")
def random_normal(
    shape: Shape,
    mean: float = 0,
    stddev: float = 1,
    dtype: Any = "float32",
    seed: int | None = None,
) -> jax.Array:
    """Normally distributed values, like `tf.randomNormal`.

    With dtype 'int32' each draw is rounded (JS `Math.round`, as tfjs does); 'bool' is not
    supported.

    >>> import tfjs_grad as tf
    >>> bool((tf.random_normal([2, 2], seed=1) == tf.random_normal([2, 2], seed=1)).all())
    True
    """
    shape = _checks.sized_shape(shape, "randomNormal", jnp.float32)
    target = _check_random_dtype(dtype)
    draw = mean + stddev * jax.random.normal(
        _rng.next_key(seed, "tf.randomNormal"), shape, jnp.float32
    )
    if jnp.issubdtype(target, jnp.floating):
        return draw.astype(target)
    return _js_round(draw).astype(target)


@op("truncatedNormal")
def truncated_normal(
    shape: Shape,
    mean: float = 0,
    stddev: float = 1,
    dtype: Any = "float32",
    seed: int | None = None,
) -> jax.Array:
    """Normal values redrawn beyond two standard deviations, like `tf.truncatedNormal`.

    Values lie in [mean - 2 stddev, mean + 2 stddev]; 'int32' rounds as `random_normal`.

    >>> import tfjs_grad as tf
    >>> x = tf.truncated_normal([1000], 1, 0.5, seed=0)
    >>> bool((x >= 0).all() and (x <= 2).all())
    True
    """
    shape = _checks.sized_shape(shape, "truncatedNormal", jnp.float32)
    target = _check_random_dtype(dtype)
    unit = jax.random.truncated_normal(
        _rng.next_key(seed, "tf.truncatedNormal"), -2.0, 2.0, shape, jnp.float32
    )
    draw = mean + stddev * unit
    if jnp.issubdtype(target, jnp.floating):
        return draw.astype(target)
    return _js_round(draw).astype(target)


@op("multinomial", logits=NUMERIC)
def multinomial(
    logits: ArrayLike, num_samples: int, seed: int | None = None, normalized: bool = False
) -> jax.Array:
    """Draw class indices from categorical distributions, like `tf.multinomial`.

    Args:
      logits: unnormalized log-probabilities, `[classes]` or `[batch, classes]`; with
        `normalized=True`, probabilities.
      num_samples: draws per distribution.
      seed: makes the draw reproducible.
      normalized: whether `logits` are probabilities.

    Returns:
      int32 indices, `[batch, num_samples]` (`[num_samples]` for rank-1 logits).

    >>> import tfjs_grad as tf
    >>> tf.multinomial([[0.0, 0.0, 1e9]], 4, seed=0)
    Tensor([[2, 2, 2, 2]], shape=(1, 4), dtype=int32)
    """
    if logits.size < 2:
        raise ValueError(
            f"Error in multinomial: you need at least 2 outcomes, but got {logits.size}."
        )
    if logits.ndim > 2:
        raise ValueError(f"Rank of probabilities must be 1 or 2, but is {logits.ndim}")
    batched = logits.reshape(1, -1) if logits.ndim == 1 else logits
    where = f"{batched.shape[0]} distributions, num_samples {_js.number(num_samples)}"
    count = batched.shape[0] * num_samples
    _checks.check_size(count, "multinomial", "numSamples", jnp.int32, where)
    batched = batched.astype(jnp.promote_types(batched.dtype, jnp.float32))
    if normalized:
        batched = jnp.log(batched)
    draws = jax.random.categorical(
        _rng.next_key(seed, "tf.multinomial"),
        batched,
        axis=-1,
        shape=(int(num_samples), batched.shape[0]),
    )
    samples = draws.T.astype(jnp.int32)
    return samples.reshape(-1) if logits.ndim == 1 else samples


oneHot = one_hot
onesLike = ones_like
randomNormal = random_normal
randomUniform = random_uniform
truncatedNormal = truncated_normal
zerosLike = zeros_like
