"""The one argument conversion every public function uses: tfjs's `convertToTensor`.

`convert` turns one argument into an array by tfjs's rules (JS numbers are float32, typed
arrays keep a tfjs dtype, a dtype an op asks for is parsed or asserted) and raises tfjs's
TypeError naming the argument and the function. `op` wraps a public function so that its
tensor arguments go through `convert`, `None` in an optional slot means the default (JS
`undefined`), its tensor arguments are promoted to one dtype where tfjs makes types match,
and its result is reported to `tf.tidy` (`_scope.track`).
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec, Protocol, TypeVar, cast, overload

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import Tracer

from . import _scope, _tape
from ._scope import track
from ._tensor import DISPOSED, DISPOSED_MESSAGE, Tensor, TensorDisposedError, depth

TensorLike = Any
"""What a tensor argument takes (tfjs's `TensorLike`, `tf.TensorLike`): a Tensor or Variable,
a JAX or numpy array, a Python number or bool, or nested lists of them. `Any` to a type
checker: `convert` checks it at run time and names the argument."""
ArrayLike = TensorLike
Shape = Sequence[int]
P = ParamSpec("P")
R = TypeVar("R")


class OpDecorator(Protocol):
    """What `op(...)` returns, as the type checker sees it: the body computes arrays, the
    public function returns them as Tensors (a list of arrays as a list of Tensors)."""

    @overload
    def __call__(self, fn: Callable[P, jax.Array]) -> Callable[P, Tensor]: ...
    @overload
    def __call__(self, fn: Callable[P, list[jax.Array]]) -> Callable[P, list[Tensor]]: ...
    @overload
    def __call__(
        self, fn: Callable[P, list[list[jax.Array]]]
    ) -> Callable[P, list[list[Tensor]]]: ...
    @overload
    def __call__(self, fn: Callable[P, R]) -> Callable[P, R]: ...


_DTYPES = {
    "float32": jnp.float32,
    "int32": jnp.int32,
    "bool": jnp.bool_,
    "complex64": jnp.complex64,
}
_UPCAST_ORDER = {np.dtype(d): i for i, d in enumerate((np.bool_, np.int32, np.float32))}

NUMERIC = "numeric"
"""Any numeric tensor; array-likes get tfjs's inferred dtype."""
FLOAT = "float32"
"""Float tensors only (any float dtype); array-likes are parsed as float32."""
INT = "int32"
"""Integer tensors only; array-likes are parsed as int32 (truncated)."""
BOOL = "bool"
"""Bool tensors only; array-likes are parsed as bool (nonzero is true)."""
PROMOTED = "promoted"
"""Numeric; then all PROMOTED arguments of a call are cast to one dtype (tfjs's upcastType)."""
LIST = "list"
"""A list of tensors (`tf.concat`'s): the eager tape records its tensors; the op converts
them itself."""


def to_dtype(dtype: Any, *, argument: str = "dtype") -> Any:
    """Map a tfjs dtype string (or any numpy/JAX dtype) to a numpy dtype."""
    if dtype is None:
        return None
    if isinstance(dtype, str):
        if dtype not in _DTYPES:
            raise ValueError(
                f"Argument '{argument}' must be one of {sorted(_DTYPES)}, but got '{dtype}'"
            )
        return np.dtype(_DTYPES[dtype])
    return np.dtype(dtype)


def dtype_name(dtype: Any) -> str:
    """tfjs's name for a dtype ('float32', 'int32', 'bool'); numpy's name otherwise."""
    return np.dtype(dtype).name


def js_shape(shape: Sequence[int]) -> str:
    """A shape as tfjs prints it in messages: [2, 3] -> "2,3", [] -> ""."""
    return ",".join(str(d) for d in shape)


def _is_python_numeric(values: Any) -> bool:
    if isinstance(values, bool):
        return False
    if isinstance(values, (int, float)):
        return True
    if isinstance(values, (list, tuple)):
        return all(_is_python_numeric(v) for v in values)
    return False


def _not_tensor_like(argument: str, fn: str, values: Any) -> TypeError:
    got = "null" if values is None else type(values).__name__
    return TypeError(
        f"Argument '{argument}' passed to '{fn}' must be a Tensor or TensorLike, but got '{got}'"
    )


def _wrong_dtype(argument: str, fn: str, expected: str, actual: Any) -> TypeError:
    return TypeError(
        f"Argument '{argument}' passed to '{fn}' must be {expected} tensor, "
        f"but got {dtype_name(actual)} tensor"
    )


def _accepts(expected: str, dtype: np.dtype) -> bool:
    if expected == FLOAT:
        return jnp.issubdtype(dtype, jnp.floating)
    if expected == INT:
        return jnp.issubdtype(dtype, jnp.integer)
    if expected == BOOL:
        return dtype == np.bool_
    return True


def _parse(values: Any, argument: str, fn: str) -> tuple[Any, Any]:
    """An array-like as a host (or, holding tracers, JAX) array, and the dtype tfjs infers."""
    if isinstance(values, (np.ndarray, np.generic)):
        array = np.asarray(values)
        inferred = {"b": np.bool_, "i": np.int32, "u": np.int32, "f": np.float32}.get(
            array.dtype.kind, np.complex64 if array.dtype.kind == "c" else None
        )
        if inferred is None:
            raise _not_tensor_like(argument, fn, values)
        return array, np.dtype(inferred)  # Int32Array / Uint8Array -> int32
    if not isinstance(values, (bool, int, float, list, tuple)):
        raise _not_tensor_like(argument, fn, values)
    try:
        array = np.asarray(values)
    except jax.errors.TracerArrayConversionError:
        array = jnp.asarray(values)  # a list holding traced arrays: let JAX stack it
    except (TypeError, ValueError) as error:
        raise _not_tensor_like(argument, fn, values) from error
    if array.dtype.kind == "b":
        return array, np.dtype(np.bool_)
    if array.dtype.kind not in "iuf":
        raise _not_tensor_like(argument, fn, values)
    if isinstance(array, np.ndarray):
        array = array.astype(np.float64)  # JS numbers: float64 until parsed into a dtype
    return array, np.dtype(np.float32)


def convert(values: ArrayLike, *, argument: str = "x", fn: str = "tensor", dtype: Any = None):
    """Turn one argument into an array, the way tfjs's `convertToTensor` does.

    Variables give their current value (the traced one inside a transform); JAX arrays and
    tracers keep their dtype. Python numbers and lists of numbers become float32 (JS numbers),
    lists of bools bool; numpy floats become float32, numpy integers of any width int32,
    numpy bools stay bool.

    Args:
      values: the argument.
      argument: its tfjs name, for messages.
      fn: the tfjs name of the function it was passed to, for messages.
      dtype: tfjs's `parseAsDtype`: None (any numeric), FLOAT, INT or BOOL. Array-likes are
        parsed as that dtype; arrays must already have it.

    Raises:
      TypeError: naming the argument and the function, when the value is not tensor-like or
        an array has a dtype the function does not take.

    >>> from tfjs_grad._tensors import convert
    >>> convert([1, 2], argument="a", fn="add").dtype
    dtype('float32')
    >>> convert({}, argument="a", fn="add")
    Traceback (most recent call last):
    TypeError: Argument 'a' passed to 'add' must be a Tensor or TensorLike, but got 'dict'
    """
    if type(values) is Tensor:  # the common case first
        values = values._value
        if type(values) is _tape.Lazy:  # the tape stages: JAX code gets the tracer
            values = values.staged()
    if isinstance(values, jax.Array):
        if dtype in (None, NUMERIC, PROMOTED) or _accepts(dtype, values.dtype):
            return values
        raise _wrong_dtype(argument, fn, dtype, values.dtype)
    if values is DISPOSED:
        raise TensorDisposedError(DISPOSED_MESSAGE)
    read = getattr(type(values), "__tfjs_value__", None)  # a Variable, a Tensor subclass
    if read is not None:
        values = read(values)
    if type(values) is _tape.Lazy:
        values = values.staged()
    expected = NUMERIC if dtype in (None, NUMERIC, PROMOTED) else dtype
    if isinstance(values, jax.Array):
        if not _accepts(expected, values.dtype):
            raise _wrong_dtype(argument, fn, expected, values.dtype)
        return values
    array, inferred = _parse(values, argument, fn)
    parsed = parse_as(array, inferred if expected == NUMERIC else to_dtype(expected))
    # device_put, not jnp.asarray: asarray compiles a program per new shape, so an eager
    # loop feeding a new batch length would compile once more for each tensor it makes
    return jax.device_put(parsed) if isinstance(parsed, np.ndarray) else jnp.asarray(parsed)


def parse_as(array: Any, dtype: Any) -> Any:
    """Values converted as tfjs's `toTypedArray` does: int32 truncates, bool is
    `Math.round(v) != 0` (so 0.4 is false, 0.5 true). Host floats (JS numbers) become
    int32 as JS's Int32Array takes them: NaN and infinities 0, the rest wrapped modulo
    2**32 (the same on every CPU, where a plain cast of an out-of-range float is not).

    >>> parse_as(np.asarray([16777217.0, 2.0**31, -2.9, np.nan]), "int32").tolist()
    [16777217, -2147483648, -2, 0]
    """
    target = np.dtype(dtype)
    if target == np.bool_ and array.dtype != np.bool_:
        xp = np if isinstance(array, np.ndarray) else jnp
        return xp.floor(array + 0.5) != 0
    if target == np.int32 and isinstance(array, np.ndarray) and array.dtype.kind == "f":
        whole = np.trunc(np.where(np.isfinite(array), array, 0.0))
        wrapped = np.mod(whole, 2.0**32)  # exact: float64 integers
        return np.where(wrapped >= 2.0**31, wrapped - 2.0**32, wrapped).astype(np.int32)
    return array.astype(dtype)


def _is_python_scalar(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def upcast(arrays: Sequence[Any], raw: Sequence[Any] | None = None) -> Any:
    """The dtype tfjs's `upcastType` gives `arrays` (bool < int32 < float32).

    With a dtype tfjs does not have (bfloat16, float16, ...), JAX's promotion decides, and
    a Python number among `raw` (the arguments before conversion) is weakly typed there, so
    `bfloat16 + 1` stays bfloat16.
    """
    dtypes = [a.dtype for a in arrays]
    if all(d in _UPCAST_ORDER for d in dtypes):
        return max(dtypes, key=_UPCAST_ORDER.__getitem__)
    raw = raw if raw is not None else arrays
    return jnp.result_type(*(r if _is_python_scalar(r) else a for a, r in zip(arrays, raw)))


class EagerOnlyError(ValueError):
    """An op whose result's shape depends on its input's values was called while JAX traces."""


def _check_eager(tfjs_name: str, values: dict[str, Any]) -> None:
    from ._jax_internals import tracing

    if tracing() or any(isinstance(v, Tracer) for v in values.values()):
        raise EagerOnlyError(
            f"tf.{tfjs_name} runs eagerly only: the shape of its result depends on the values "
            "of its input, which are not known while JAX traces (inside tf.jit, jax.jit, "
            "jax.vmap, ...). Call it outside the compiled function."
        )


def _camel(name: str) -> str:
    return re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), name)


OPS: dict[str, Callable[..., Any]] = {}
"""Every public op by its tfjs name (the first registered keeps the name)."""


def inside(public_op: Callable[P, Tensor]) -> Callable[P, jax.Array]:
    """`public_op` as an op body calls it: from inside another op, ops take and return
    arrays. The same function; only the type checker's view of its result changes.

    >>> import tfjs_grad as tf
    >>> inside(tf.add) is tf.add
    True
    """
    return cast("Callable[P, jax.Array]", public_op)


def op(tfjs_name: str, *, eager_only: bool = False, **tensors: str) -> OpDecorator:
    """Decorate a public function: convert its tensor arguments, defaults for None, track.

    The result's arrays come back as `tf.Tensor`s (recorded for `tf.tidy`); an op called
    from inside another op's body gets and returns plain arrays.

    Args:
      tfjs_name: the function's tfjs name, used in messages.
      eager_only: the result's shape depends on the input's values (`unique`, `whereAsync`):
        called while JAX traces, the op raises `EagerOnlyError` naming itself.
      **tensors: parameter name -> NUMERIC, FLOAT, INT, BOOL, PROMOTED or LIST. The argument's
        tfjs name in messages is the parameter name in camelCase. An optional tensor
        parameter (default None) left as None is not converted.

    Every other parameter whose default is not None takes its default when passed None,
    as JS functions treat `undefined`.
    """

    def decorate(fn: Callable[..., Any]) -> Any:
        params = list(inspect.signature(fn).parameters.values())
        names = [p.name for p in params]
        unknown = set(tensors) - set(names)
        if unknown:
            raise TypeError(f"{fn.__name__} has no parameters {sorted(unknown)}")
        defaults = {
            p.name: p.default
            for p in params
            if p.default is not inspect.Parameter.empty and p.default is not None
        }
        optional = {p.name for p in params if p.default is None}
        argument_names = {name: _camel(name) for name in tensors}
        converted = {name: kind for name, kind in tensors.items() if kind != LIST}
        promoted = [name for name, kind in tensors.items() if kind == PROMOTED]
        immediate = eager_only or tfjs_name in _tape.IMMEDIATE  # acts at once, on a tape too
        active_tape = _tape.active

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            if len(args) > len(names):
                raise TypeError(
                    f"{fn.__name__}() takes {len(names)} positional arguments "
                    f"but {len(args)} were given"
                )
            values = dict(zip(names, args))
            for name, value in kwargs.items():
                if name in values:
                    raise TypeError(f"{fn.__name__}() got multiple values for argument '{name}'")
                values[name] = value
            for name, default in defaults.items():
                if name in values and values[name] is None:
                    values[name] = default
            if depth.n == 0:
                tape = active_tape()
                if tape is not None:  # inside the f of an eager gradient call
                    if immediate:
                        values = _tape.concrete(values, tensors)
                    else:
                        recorded, result = tape.record(wrapper, values, tensors)
                        if recorded:
                            if type(result) is Tensor:
                                _scope.record_one(result)
                            else:
                                _scope.record(jax.tree.leaves(result, is_leaf=_is_tensor))
                            return result
            raw = {name: values[name] for name in promoted if name in values}
            for name, kind in converted.items():
                if name not in values or (values[name] is None and name in optional):
                    continue
                values[name] = convert(
                    values[name], argument=argument_names[name], fn=tfjs_name, dtype=kind
                )
            if eager_only:
                _check_eager(tfjs_name, values)
            if len(raw) > 1:
                dtype = upcast([values[n] for n in raw], list(raw.values()))
                for name in raw:
                    if values[name].dtype != dtype:
                        values[name] = values[name].astype(dtype)
            level = depth.n
            if level:  # called from inside another op: arrays in, arrays out
                return fn(**values)
            depth.n = 1
            try:
                result = fn(**values)
            finally:
                depth.n = 0
            return track(result)

        _announce_tensors(wrapper, fn)
        OPS.setdefault(tfjs_name, wrapper)
        return wrapper

    return decorate


_PUBLIC_RETURNS: dict[Any, Any] = {
    "jax.Array": Tensor,
    "list[jax.Array]": list[Tensor],
    "list[list[jax.Array]]": list[list[Tensor]],
}


def _announce_tensors(wrapper: Any, fn: Callable[..., Any]) -> None:
    """Give the public function its own return annotation (`help(tf.add)` shows `-> Tensor`):
    the body's arrays come back as Tensors. The body keeps its own."""
    public = _PUBLIC_RETURNS.get(fn.__annotations__.get("return"))
    if public is None:
        return
    wrapper.__annotations__ = {**fn.__annotations__, "return": public}
    wrapper.__signature__ = inspect.signature(fn).replace(return_annotation=public)


def _is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)
