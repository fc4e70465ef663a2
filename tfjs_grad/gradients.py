"""tfjs's gradient functions: grad, grads, value_and_grad(s), variable_grads, custom_grad,
stop_gradient.

Each checks its arguments the way tfjs does, traces `f` once (`_trace`), applies the
connection rules to the traced program, and returns a vector-Jacobian product.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple, overload

import jax
import jax.numpy as jnp
import numpy as np
from jax.core import Tracer

from . import _store, _tape, _trace
from ._scope import track
from ._stopped import stopped
from ._tensor import Tensor, unwrap
from ._tensors import ArrayLike, convert, dtype_name, js_shape
from .variables import Variable, _js_key_order, peek, registered_variables

_NO_PATH = (
    "Cannot compute gradient of y=f(x) with respect to x. Make sure that the f you passed "
    "encloses all operations that lead from x to y."
)
_SOME_UNCONNECTED = (
    "Cannot compute gradient of y=f(x) with respect to x. Make sure that\n"
    "    the f you passed encloses all operations that lead from x to y."
)


class ValueAndGrad(NamedTuple):
    value: Tensor
    grad: Tensor


class ValueAndGrads(NamedTuple):
    value: Tensor
    grads: list[Tensor]


class VariableGrads(NamedTuple):
    value: Tensor
    grads: dict[str, Any]  # name -> Tensor (None for a non-trainable Variable named)


def _not_on_a_tape() -> None:
    """A gradient taken inside the f of another eager one: that f goes on traced."""
    tape = _tape.active()
    if tape is not None:
        tape.stage("a gradient function inside f")


def _check_fn(f: Any, api: str) -> None:
    if not callable(f):
        raise TypeError(f"The f passed in {api}(f) must be a function")


_inexact: set[Any] = set()  # dtypes seen to be inexact (checked on every eager step)


def _differentiable(x: Any, argument: str, api: str) -> Any:
    dtype = x.dtype
    if dtype in _inexact:
        return x
    if jnp.issubdtype(dtype, jnp.inexact):
        _inexact.add(dtype)
    else:
        raise TypeError(
            f"Argument '{argument}' passed to 'tf.{api}' must be a float tensor to be "
            f"differentiated, but got a {dtype_name(x.dtype)} tensor (JAX cannot differentiate "
            "integer or boolean inputs; cast it with .astype('float32'))"
        )
    return x


def _convert_dy(dy: Any, api: str) -> Any:
    if dy is None:
        return None
    dy = convert(dy, argument="dy", fn=f"tf.{api}")
    if dy.dtype != jnp.float32 and not jnp.issubdtype(dy.dtype, jnp.inexact):
        raise TypeError(f"dy must have 'float32' dtype, but has '{dtype_name(dy.dtype)}'")
    return dy


def _check_dy_shape(program: _trace.Program, dy: Any, call: str, returned: str) -> None:
    if dy is not None and tuple(dy.shape) != tuple(program.y_aval.shape):
        raise ValueError(
            f"The shape of dy passed in {call} must match the shape returned by {returned} "
            f"Shapes {js_shape(program.y_aval.shape)} and {js_shape(dy.shape)} must match"
        )


def _run(program: _trace.Program, xs: list[Any], dy: Any) -> tuple[Any, list[Any]]:
    if not any(program.connected):
        raise ValueError(_NO_PATH)
    if not all(program.connected):
        raise ValueError(_SOME_UNCONNECTED)
    y, grads, writes = _trace.vjp(program, xs, dy)
    _trace.write_back(program, writes)
    return y, grads


def grad(f: Callable[[Tensor], ArrayLike]) -> Callable[..., Tensor]:
    """Gradient of `f` with respect to its single input, like `tf.grad`.

    `f` may return any shape: the result is the vector-Jacobian product with `dy`
    (ones of f(x)'s shape when omitted).

    >>> import tfjs_grad as tf
    >>> g = tf.grad(lambda x: x ** 2)
    >>> g(tf.tensor1d([1, 2, 3])).tolist()
    [2.0, 4.0, 6.0]
    >>> tf.grad(tf.grad(lambda x: x ** 3))(tf.tensor1d([2, 3])).tolist()
    [12.0, 18.0]
    """
    _check_fn(f, "grad")

    def gradient(x: ArrayLike, dy: ArrayLike | None = None) -> Tensor:
        _not_on_a_tape()
        x = _differentiable(convert(x, argument="x", fn="tf.grad"), "x", "grad")
        dy = _convert_dy(dy, "grad")
        program = _trace.trace(f, [x], (), f)
        _check_dy_shape(program, dy, "grad(f)(x, dy)", "f(x)")
        return track(_run(program, [x], dy)[1][0])

    return gradient


@overload
def grads(f: Callable[[Tensor], ArrayLike]) -> Callable[..., list[Tensor]]: ...
@overload
def grads(f: Callable[[Tensor, Tensor], ArrayLike]) -> Callable[..., list[Tensor]]: ...
@overload
def grads(f: Callable[[Tensor, Tensor, Tensor], ArrayLike]) -> Callable[..., list[Tensor]]: ...
@overload
def grads(f: Callable[..., ArrayLike]) -> Callable[..., list[Tensor]]: ...
def grads(f: Callable[..., ArrayLike]) -> Callable[..., list[Tensor]]:
    """Gradients of `f(*args)` with respect to each of args, like `tf.grads`.

    >>> import tfjs_grad as tf
    >>> da, db = tf.grads(lambda a, b: a * b)([tf.tensor1d([2, 3]), tf.tensor1d([4, 5])])
    >>> da.tolist(), db.tolist()
    ([4.0, 5.0], [2.0, 3.0])
    """
    _check_fn(f, "grads")

    def gradients(args: Sequence[ArrayLike], dy: ArrayLike | None = None) -> list[Tensor]:
        _not_on_a_tape()
        xs = _args(
            args,
            "grads",
            "The args passed in grads(f)(args) must be an array of `Tensor`s or `TensorLike`s",
        )
        dy = _convert_dy(dy, "grads")
        program = _trace.trace(f, xs, (), f)
        _check_dy_shape(program, dy, "grads(f)([x1,...], dy)", "f([x1,...])")
        return track(_run(program, xs, dy)[1])

    return gradients


def value_and_grad(f: Callable[[Tensor], ArrayLike]) -> Callable[..., ValueAndGrad]:
    """f(x) and its gradient, like `tf.valueAndGrad`.

    >>> import tfjs_grad as tf
    >>> value, g = tf.value_and_grad(lambda x: (x ** 2).sum())(tf.tensor1d([1, 2]))
    >>> float(value), g.tolist()
    (5.0, [2.0, 4.0])
    """
    _check_fn(f, "valueAndGrad")

    def value_and_gradient(x: ArrayLike, dy: ArrayLike | None = None) -> ValueAndGrad:
        _not_on_a_tape()
        try:
            x = convert(x, argument="x", fn="tf.valueAndGrad")
        except TypeError:
            raise TypeError("The x passed in valueAndGrad(f)(x) must be a tensor") from None
        x = _differentiable(x, "x", "valueAndGrad")
        if dy is not None:
            try:
                dy = _convert_dy(dy, "valueAndGrad")
            except TypeError:
                raise TypeError(
                    "The dy passed in valueAndGrad(f)(x, dy) must be a tensor"
                ) from None
        program = _trace.trace(f, [x], (), f)
        _check_dy_shape(program, dy, "valueAndGrad(f)(x, dy)", "f(x)")
        y, (g,) = _run(program, [x], dy)
        return track(ValueAndGrad(y, g))

    return value_and_gradient


@overload
def value_and_grads(f: Callable[[Tensor], ArrayLike]) -> Callable[..., ValueAndGrads]: ...
@overload
def value_and_grads(f: Callable[[Tensor, Tensor], ArrayLike]) -> Callable[..., ValueAndGrads]: ...
@overload
def value_and_grads(
    f: Callable[[Tensor, Tensor, Tensor], ArrayLike],
) -> Callable[..., ValueAndGrads]: ...
@overload
def value_and_grads(f: Callable[..., ArrayLike]) -> Callable[..., ValueAndGrads]: ...
def value_and_grads(f: Callable[..., ArrayLike]) -> Callable[..., ValueAndGrads]:
    """f(*args) and its gradients, like `tf.valueAndGrads`.

    >>> import tfjs_grad as tf
    >>> f = tf.value_and_grads(lambda a, b: (a * b).sum())
    >>> value, (da, db) = f([tf.scalar(2.0), tf.scalar(3.0)])
    >>> float(value), float(da), float(db)
    (6.0, 3.0, 2.0)
    """
    _check_fn(f, "valueAndGrads")

    def values_and_gradients(
        args: Sequence[ArrayLike], dy: ArrayLike | None = None
    ) -> ValueAndGrads:
        _not_on_a_tape()
        message = "The args passed in valueAndGrads(f)(args) must be array of tensors"
        xs = _args(args, "valueAndGrads", message)
        if dy is not None:
            try:
                dy = _convert_dy(dy, "valueAndGrads")
            except TypeError:
                raise TypeError(
                    "The dy passed in valueAndGrads(f)(args, dy) must be a tensor"
                ) from None
        program = _trace.trace(f, xs, (), f)
        _check_dy_shape(program, dy, "valueAndGrads(f)([x1,...], dy)", "f([x1,...])")
        y, gs = _run(program, xs, dy)
        return track(ValueAndGrads(y, gs))

    return values_and_gradients


def _args(args: Any, api: str, message: str) -> list[Any]:
    if not isinstance(args, (list, tuple)):
        raise TypeError(message)
    xs = []
    for i, a in enumerate(args):
        x = convert(a, argument=f"args[{i}]", fn=f"tf.{api}")
        xs.append(_differentiable(x, f"args[{i}]", api))
    if not xs:
        raise ValueError("gradients() received an empty list of xs.")
    return xs


def variable_grads(
    f: Callable[[], ArrayLike], var_list: Sequence[Variable] | None = None
) -> VariableGrads:
    """Value of `f()` and its gradients with respect to the trainable Variables it reads.

    `var_list` defaults to every live trainable Variable. Variables `f` does not reach are
    left out of `grads`; non-trainable ones named in `var_list` map to None.

    >>> import tfjs_grad as tf
    >>> x = tf.variable(tf.tensor1d([1, 2, 3]), name="doc_vg_x")
    >>> y = tf.variable(tf.tensor1d([0.5, 0.5, 0.5]), name="doc_vg_y")
    >>> value, grads = tf.variable_grads(lambda: (x ** 2).sum() + (y ** 2).sum(), [x, y])
    >>> float(value), grads["doc_vg_x"].tolist(), grads["doc_vg_y"].tolist()
    (14.75, [2.0, 4.0, 6.0], [1.0, 1.0, 1.0])
    >>> x.dispose(); y.dispose()
    """
    return track(loss_gradients(loss_program(f, var_list)))


class LossProgram(NamedTuple):
    """A traced loss f (variable_grads's first half): the program and its Variables."""

    program: _trace.Program
    candidates: list[Variable]  # var_list, or every live Variable
    trainable: list[Variable]  # the program's inputs, in order
    connected: list[Variable]  # the trainable ones the loss depends on
    explicit: bool  # whether var_list was given
    trainable_ids: tuple[int, ...]  # the trainable Variables' ids, in order


def loss_program(f: Callable[[], ArrayLike], var_list: Sequence[Variable] | None) -> LossProgram:
    """Check the arguments, trace f once and apply tfjs's connection and shape rules."""
    if not callable(f):
        raise TypeError("The f passed in variableGrads(f) must be a function")
    explicit = var_list is not None
    if var_list is None:
        candidates = list(registered_variables().values())
    else:
        if not isinstance(var_list, (list, tuple)) or not all(
            isinstance(v, Variable) for v in var_list
        ):
            raise TypeError(
                "The varList passed in variableGrads(f, varList) must be an array of variables"
            )
        candidates = list(var_list)
        for v in candidates:  # the result's None entries depend on these flags
            _store.note_flag(v.id, v.trainable)
    trainable = [v for v in candidates if v.trainable]
    if not trainable:
        raise ValueError(
            "variableGrads() expects at least one of the input variables to be trainable, "
            f"but none of the {len(candidates)} variables is trainable."
        )
    # Trace on shapes alone: a variable is read only if the program needs its value,
    # so tf.jit threads just the state a loss really uses.
    trainable_ids = tuple([v.id for v in trainable])
    program = _trace.trace(
        lambda *_: f(),
        [v.aval() for v in trainable],
        trainable_ids,
        f,
        fetch=lambda: [v.raw() for v in trainable],
        peek=lambda: [peek(v) for v in trainable],
    )
    connected = [v for v, c in zip(trainable, program.connected) if c]
    if not connected:
        raise ValueError(
            "Cannot find a connection between any variable and the result of the loss "
            "function y=f(x). Please make sure the operations that use variables are inside "
            "the function f passed to minimize()."
        )
    if program.y_aval.shape != ():
        raise ValueError(
            "The f passed in variableGrads(f) must return a scalar, but it returned a "
            f"rank-{len(program.y_aval.shape)} tensor"
        )
    for v in connected:
        _differentiable(v, v.name, "variableGrads")
    return LossProgram(program, candidates, trainable, connected, explicit, trainable_ids)


def loss_gradients(loss: LossProgram) -> VariableGrads:
    """variable_grads's second half: run the program's vjp, apply f's writes."""
    program = loss.program
    xs = [v.raw() if needed else None for v, needed in zip(loss.trainable, program.needed)]
    value, gs, writes = _trace.vjp(program, xs, None)
    _trace.write_back(program, writes)
    by_name: dict[str, jax.Array | None] = {v.name: g for v, g in zip(loss.connected, gs)}
    if loss.explicit:
        by_name.update((v.name, None) for v in loss.candidates if not v.trainable)
    return VariableGrads(value, {name: by_name[name] for name in _js_key_order(by_name)})


def stop_gradient(x: ArrayLike) -> Tensor:
    """x's value with its gradient blocked: its inputs get zero gradients, and still count
    as used by the output (no "Cannot compute gradient" error).

    tfjs 4.22 has no `tf.stopGradient`; this follows the seed document and
    `jax.lax.stop_gradient`.

    >>> import tfjs_grad as tf
    >>> tf.grad(lambda x: tf.stop_gradient(x) ** 2)(tf.tensor1d([1, 2, 3])).tolist()
    [0.0, 0.0, 0.0]
    """
    tape = _tape.active()
    if tape is not None:  # inside the f of an eager gradient call: recorded as an op
        recorded, result = tape.record(stop_gradient, {"x": x}, ("x",))
        if recorded:
            return result
    return track(stopped(convert(x, argument="x", fn="stopGradient")))


def custom_grad(f: Callable[..., dict[str, Any]]) -> Callable[..., Tensor]:
    """A function with a user-defined gradient, like `tf.customGrad` (on `jax.custom_vjp`).

    `f(*inputs, save)` returns `{'value': y, 'grad_func': (dy, saved) -> grads}` (key
    `'gradFunc'` works too); `saved` is the list passed to `save`.

    >>> import tfjs_grad as tf
    >>> import jax.numpy as jnp
    >>> def forward(x, save):
    ...     save([x])
    ...     return {"value": x ** 2, "grad_func": lambda dy, saved: dy * jnp.abs(saved[0])}
    >>> square = tf.custom_grad(forward)
    >>> tf.grad(lambda x: square(x))(tf.tensor1d([-1, -2, 3])).tolist()
    [1.0, 2.0, 3.0]
    """
    if not callable(f):
        raise TypeError("The f passed in customGrad(f) must be a function.")
    op_name = getattr(f, "__name__", "customGrad")
    prefix = "The function f passed in customGrad(f) must return an object where "

    def run_forward(xs: Sequence[Any]) -> tuple[Any, Callable[..., Any], list[Any]]:
        saved: list[Any] = []

        def save(tensors: Any) -> None:
            if not isinstance(tensors, (list, tuple)):
                raise TypeError("save() in customGrad(f) must be given a list of tensors")
            saved.extend(convert(t, argument="saved", fn="save") for t in tensors)

        out = f(*map(Tensor, xs), save)
        value = out.get("value") if isinstance(out, dict) else None
        if isinstance(value, Tensor):
            value = unwrap(value)
        if not isinstance(value, (jax.Array, Tracer)):
            raise TypeError(prefix + "`obj.value` is a tensor")
        grad_func = out.get("grad_func", out.get("gradFunc"))
        if not callable(grad_func):
            raise TypeError(prefix + "`obj.gradFunc` is a function.")
        return value, grad_func, saved

    def check_grads(result: Any, xs: Sequence[Any]) -> tuple[Any, ...]:
        result = list(result) if isinstance(result, (list, tuple)) else [result]
        if len(result) != len(xs):
            raise ValueError(
                prefix + "`obj.gradFunc` is a function that returns the same number of tensors "
                "as inputs passed to f(...)."
            )
        out = []
        for i, (g, x) in enumerate(zip(result, xs)):
            if isinstance(g, Tensor):
                g = unwrap(g)
            if not isinstance(g, (jax.Array, Tracer, np.ndarray)):
                raise TypeError(
                    prefix + "`obj.gradFunc` is a function that returns a list of only tensors."
                )
            if not jnp.issubdtype(g.dtype, jnp.inexact):
                raise ValueError(
                    f"Error in gradient for op {op_name}. The gradient of input {i} must have "
                    f"'float32' dtype, but has '{dtype_name(g.dtype)}'"
                )
            if tuple(g.shape) != tuple(x.shape):
                raise ValueError(
                    f"Error in gradient for op {op_name}. The gradient of input '{i}' has shape "
                    f"'{js_shape(g.shape)}', which does not match the shape of the input "
                    f"'{js_shape(x.shape)}'"
                )
            out.append(g.astype(x.dtype))
        return tuple(out)

    def call(*inputs: ArrayLike) -> Tensor:
        tape = _tape.active()
        if tape is not None:  # customGrad's rule is JAX's: f goes on traced
            tape.stage("customGrad inside f")
        xs = []
        for x in inputs:
            if isinstance(x, Tensor):
                x = unwrap(x)
            if not isinstance(x, (jax.Array, Tracer, np.ndarray)):
                raise TypeError("The args passed in customGrad(f)(x1, x2,...) must all be tensors")
            xs.append(jnp.asarray(x))
        # f runs once, here, as in tfjs; its value takes the gradient grad_func gives
        # (none flows through the ops f used to compute it).
        value, grad_func, saved = run_forward(xs)

        @jax.custom_vjp
        def attach(xs: tuple[Any, ...], value: Any, saved: tuple[Any, ...]) -> Any:
            return value

        def fwd(xs: tuple[Any, ...], value: Any, saved: tuple[Any, ...]) -> Any:
            return value, (xs, saved)

        def bwd(residuals: Any, dy: Any) -> tuple[Any, None, None]:
            xs, saved = residuals
            result = grad_func(Tensor(dy), [Tensor(s) for s in saved])
            return check_grads(result, xs), None, None

        attach.defvjp(fwd, bwd)
        return track(attach(tuple(xs), value, tuple(saved)))

    return call


valueAndGrad = value_and_grad
valueAndGrads = value_and_grads
variableGrads = variable_grads
stopGradient = stop_gradient
customGrad = custom_grad
