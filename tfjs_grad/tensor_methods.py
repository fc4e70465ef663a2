"""tfjs's Tensor methods on `tf.Tensor`, generated from the public ops.

`attach()` runs once every op module is imported (at the end of `tfjs_grad/__init__.py`),
so an op added later gets its method for free: `x.<name>(*rest)` is `tf.<name>(x, *rest)`,
positional order included, under tfjs's name and its snake_case alias. A name of tfjs's
Tensor prototype whose op does not exist yet raises NotImplementedError (an
AttributeError too) naming it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from . import _numpy_forms
from ._tensor import NotImplementedMethodError, Tensor

# Every op name of tfjs 4.22's Tensor prototype (`Object.getOwnPropertyNames`).
PROTOTYPE_OPS = (
    "abs acos acosh add all any argMax argMin asin asinh atan atan2 atanh avgPool batchNorm "
    "batchToSpaceND broadcastTo ceil clipByValue concat conv1d conv2d conv2dTranspose cos cosh "
    "cumprod cumsum depthToSpace depthwiseConv2d dilation2d div divNoNan dot elu equal erf "
    "euclideanNorm exp expandDims expm1 fft flatten floor floorDiv gather greater greaterEqual "
    "ifft irfft isFinite isInf isNaN leakyRelu less lessEqual localResponseNormalization log "
    "log1p logSigmoid logSoftmax logSumExp logicalAnd logicalNot logicalOr logicalXor matMul "
    "max maxPool maximum mean min minimum mirrorPad mod mul neg norm notEqual oneHot onesLike "
    "pad pool pow prelu prod reciprocal relu relu6 reshape resizeBilinear "
    "resizeNearestNeighbor reverse rfft round rsqrt selu separableConv2d sigmoid sign sin sinh "
    "slice softmax softplus spaceToBatchND split sqrt square squaredDifference squeeze stack "
    "step stridedSlice sub sum tan tanh tile topk transpose unique unsortedSegmentSum unstack "
    "where zerosLike"
).split()
# The rest of the prototype, defined on the class itself.
PROTOTYPE_OTHERS = (
    "array arraySync as1D as2D as3D as4D as5D asScalar asType buffer bufferSync bytes cast "
    "clone data dataSync dataToGPU dispose isDisposed print rank reshapeAs throwIfDisposed "
    "toBool toFloat toInt toString variable"
).split()


def snake(name: str) -> str:
    """OPS2.md's snake_case alias rule (`batchToSpaceND` -> `batch_to_space_nd`)."""
    if name == "isNaN":
        return "is_nan"
    name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    name = re.sub(r"(?<=[A-Z])(?=[A-Z][a-z])", "_", name)
    return name.lower()


_SNAKE_NAMES = {snake(n): n for n in (*PROTOTYPE_OPS, *PROTOTYPE_OTHERS)}
_attached: set[str] = set()


def snake_to_camel(name: str) -> str:
    """tfjs's name of a Tensor member given either of its names (`mat_mul` -> `matMul`)."""
    return _SNAKE_NAMES.get(name, name)


def attached_names() -> frozenset[str]:
    """Every member name `attach` has set on Tensor (ops, aliases, conversions)."""
    return frozenset(_attached)


def missing_attribute(name: str) -> AttributeError:
    """The error for `t.<name>` when the class has no such attribute."""
    camel = name if name in PROTOTYPE_OPS else _SNAKE_NAMES.get(name)
    if camel is not None and not name.startswith("_"):
        return NotImplementedMethodError(
            f"tf.Tensor.{name}() is not implemented yet: tfjs_grad has no tf.{camel} op"
        )
    return AttributeError(f"'tf.Tensor' object has no attribute '{name}'")


def _methods(tf: Any) -> dict[str, Callable[..., Any]]:
    """Method name -> function, for every prototype op that exists as `tf.<name>`."""
    found: dict[str, Callable[..., Any]] = {}
    for name in PROTOTYPE_OPS:
        fn = getattr(tf, name, None)
        if name in ("resizeBilinear", "resizeNearestNeighbor"):
            fn = getattr(getattr(tf, "image", None), name, None)
        if name in ("concat", "stack"):
            op = getattr(tf, name, None)
            fn = None if op is None else _joined(op)
        elif name == "where":
            op = getattr(tf, name, None)
            fn = None if op is None else _where(op)
        if callable(fn):
            found[name] = fn
    return found


def _joined(op: Callable[..., Any]) -> Callable[..., Any]:
    def method(self: Any, tensors: Any, axis: Any = 0) -> Any:
        rest = list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]
        return op([self, *rest], axis)

    method.__name__ = method.__qualname__ = op.__name__
    method.__doc__ = f"`tf.{op.__name__}([x, *tensors], axis)`."
    return method


def _where(op: Callable[..., Any]) -> Callable[..., Any]:
    def where(self: Any, condition: Any, other: Any) -> Any:
        """`tf.where(condition, x, other)`: x is the "true" branch."""
        return op(condition, self, other)

    return where


def _interim() -> dict[str, Callable[..., Any]]:
    """tfjs's meaning for the names jax.Array also has, until their ops exist (a tf.<name>
    op, once added, replaces these)."""
    import jax.numpy as jnp

    from ._tensor import wrap
    from ._tensors import convert
    from .ops import _checks

    def reduce(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def method(self: Any, axis: Any = None, keep_dims: bool = False) -> Any:
            x = convert(self, argument="x", fn=name)
            axes = _checks.axes(axis, x.ndim)
            return wrap(fn(x.astype(bool), axis=axes, keepdims=bool(keep_dims)))

        method.__name__ = method.__qualname__ = name
        method.__doc__ = f"`tf.{name}(x, axis, keepDims)`: bool reduction over axis (all if None)."
        return method

    def scan(name: str, fn: Callable[..., Any], unit: int) -> Callable[..., Any]:
        def method(self: Any, axis: int = 0, exclusive: bool = False, reverse: bool = False) -> Any:
            x = convert(self, argument="x", fn=name)
            (axis,) = _checks.axes(axis, x.ndim)
            if reverse:
                x = jnp.flip(x, axis)
            out = fn(x, axis=axis)
            if exclusive:
                pad = [(0, 0)] * x.ndim
                pad[axis] = (1, 0)
                out = jnp.pad(out, pad, constant_values=unit)
                out = jnp.take(out, jnp.arange(x.shape[axis]), axis=axis)
            return wrap(jnp.flip(out, axis) if reverse else out)

        method.__name__ = method.__qualname__ = name
        method.__doc__ = f"`tf.{name}(x, axis=0, exclusive=False, reverse=False)`."
        return method

    def round_(self: Any) -> Any:
        """`tf.round(x)`: half to even (banker's rounding), as tfjs."""
        return wrap(jnp.round(convert(self, argument="x", fn="round")))

    return {
        "all": reduce("all", jnp.all),
        "any": reduce("any", jnp.any),
        "cumsum": scan("cumsum", jnp.cumsum, 0),
        "cumprod": scan("cumprod", jnp.cumprod, 1),
        "round": round_,
    }


def attach(tf: Any) -> None:
    """Give `tf.Tensor` a method for every prototype op `tf` has (call again after adding
    ops: it only adds)."""
    methods = _numpy_forms.wrap_methods(_interim() | _methods(tf)) | _numpy_forms.ndarray_only()
    for name, fn in methods.items():
        for alias in {name, snake(name)}:
            if alias not in _attached:
                setattr(Tensor, alias, fn)
                _attached.add(alias)
    _attach_operators(tf)
    _attach_conversions(tf)


def _operator(fn: Callable[..., Any], reverse: bool = False) -> Callable[..., Any]:
    if reverse:
        return lambda self, other: fn(other, self)
    return lambda self, other: fn(self, other)


def _comparison(fn: Callable[..., Any]) -> Callable[..., Any]:
    def compare(self: Any, other: Any) -> Any:
        if other is None or isinstance(other, (str, dict, set, type)):
            return NotImplemented
        return fn(self, other)

    return compare


def _attach_operators(tf: Any) -> None:
    import jax.numpy as jnp

    from ._tensor import wrap

    def raw(f: Callable[..., Any]) -> Callable[..., Any]:
        def call(a: Any, b: Any) -> Any:
            return wrap(f(_value(a), _value(b)))

        return call

    def matmul(a: Any, b: Any) -> Any:
        if len(getattr(a, "shape", ())) == 1 or len(getattr(b, "shape", ())) == 1:
            return tf.dot(a, b)
        return tf.matMul(a, b)

    def logical(name: str, bitwise: Callable[..., Any]) -> Callable[..., Any]:
        def call(a: Any, b: Any) -> Any:
            x, y = _value(a), _value(b)
            if jnp.result_type(x) == jnp.bool_ and jnp.result_type(y) == jnp.bool_:
                op = getattr(tf, name, None)
                if op is not None:
                    return op(x, y)
            return wrap(bitwise(x, y))

        return call

    binary = {
        "add": tf.add,
        "sub": tf.sub,
        "mul": tf.mul,
        "truediv": tf.div,
        "floordiv": getattr(tf, "floorDiv", None) or raw(jnp.floor_divide),
        "mod": getattr(tf, "mod", None) or raw(jnp.mod),
        "pow": tf.pow,
        "matmul": matmul,
        "and": logical("logicalAnd", jnp.bitwise_and),
        "or": logical("logicalOr", jnp.bitwise_or),
        "xor": logical("logicalXor", jnp.bitwise_xor),
    }
    for name, fn in binary.items():
        setattr(Tensor, f"__{name}__", _operator(fn))
        setattr(Tensor, f"__r{name}__", _operator(fn, reverse=True))
    for name, op_name in {
        "lt": "less",
        "le": "lessEqual",
        "gt": "greater",
        "ge": "greaterEqual",
        "eq": "equal",
        "ne": "notEqual",
    }.items():
        setattr(Tensor, f"__{name}__", _comparison(getattr(tf, op_name)))
    Tensor.__neg__ = lambda self: tf.neg(self)  # type: ignore[attr-defined]
    Tensor.__pos__ = lambda self: self  # type: ignore[attr-defined]
    Tensor.__abs__ = lambda self: tf.abs(self)  # type: ignore[attr-defined]

    def invert(self: Any) -> Any:
        x = _value(self)
        if x.dtype == jnp.bool_:
            return tf.logicalNot(x)
        return wrap(jnp.invert(x))

    Tensor.__invert__ = invert  # type: ignore[attr-defined]
    Tensor.T = property(lambda self: tf.transpose(self))  # type: ignore[attr-defined]


def _attach_conversions(tf: Any) -> None:
    """The non-op members that are ops in disguise (casts, reshapes, clone, variable)."""
    from ._tensor import wrap

    def cast(self: Any, dtype: Any) -> Any:
        """`tf.cast(x, dtype)`."""
        return tf.cast(self, dtype)

    def as_scalar(self: Any) -> Any:
        """The tensor as rank 0 (it must have one element)."""
        if self.size != 1:
            raise ValueError("The array must have only 1 element.")
        return tf.reshape(self, [])

    def clone(self: Any) -> Any:
        """A new tensor with the same values: disposing either leaves the other usable."""
        return wrap(_value(self))

    def variable(self: Any, trainable: bool = True, name: Any = None, dtype: Any = None) -> Any:
        """`tf.variable(x, trainable, name, dtype)`."""
        return tf.variable(self, trainable, name, dtype)

    members: dict[str, Any] = {
        "cast": cast,
        "asType": cast,
        "toFloat": lambda self: tf.cast(self, "float32"),
        "toInt": lambda self: tf.cast(self, "int32"),
        "toBool": lambda self: tf.cast(self, "bool"),
        "as1D": lambda self: tf.reshape(self, [self.size]),
        # tfjs's asXD is reshape: one -1 is inferred (mnist-core's `as4D(-1, 28, 28, 1)`)
        "as2D": lambda self, rows, columns: tf.reshape(self, [rows, columns]),
        "as3D": lambda self, rows, columns, depth: tf.reshape(self, [rows, columns, depth]),
        "as4D": lambda self, rows, columns, depth, depth2: tf.reshape(
            self, [rows, columns, depth, depth2]
        ),
        "as5D": lambda self, rows, columns, depth, depth2, depth3: tf.reshape(
            self, [rows, columns, depth, depth2, depth3]
        ),
        "asScalar": as_scalar,
        "reshapeAs": lambda self, x: tf.reshape(self, list(x.shape)),
        "clone": clone,
        "variable": variable,
    }
    for name, fn in members.items():
        for alias in {name, snake(name)}:
            if alias not in _attached:
                setattr(Tensor, alias, fn)
                _attached.add(alias)


def _value(x: Any) -> Any:
    return x.__tfjs_value__() if isinstance(x, Tensor) else x
