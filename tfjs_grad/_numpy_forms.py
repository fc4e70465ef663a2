"""numpy's keyword forms for the Tensor methods that share a name with numpy's ndarray.

jnp and numpy functions call an object's own methods by numpy's keyword names
(`jnp.reshape(t, s)` calls `t.reshape(s, order='C')`, `np.sum(t)` calls
`t.sum(axis=None, dtype=None, out=None)`), so these methods take tfjs's positional order
*and* numpy's keywords:

- tfjs's positional signature wins: `t.sum(0, True)` is `tf.sum(t, 0, keepDims=True)`,
  `t.cumsum(1, True)` is exclusive, `t.reshape([2, 3])` is `tf.reshape`.
- numpy's keywords have numpy's meaning: `axis=`, `keepdims=`, `dtype=`, `where=`,
  `initial=`, `order=`, `decimals=`, `copy=`; a keyword that repeats a positional
  argument raises TypeError, as Python does.
- `out=` must be None (Tensors are immutable): anything else raises TypeError.
- A plain tfjs-style call goes through the tf op (tfjs's dtype rules and messages, recorded
  by the eager tape). What tfjs has no op for (`where=`, `initial=`, `dtype=`, `clip`,
  `argmax`, `take`, `repeat`, rounding to decimals) runs jnp on the wrapped value and
  returns a Tensor, so it gives jnp's numbers and dtypes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax.numpy as jnp
import numpy as np
from jax.core import Tracer

_UNSET: Any = object()  # a keyword the caller did not pass

# numpy's keywords per reduction, beside axis/keepdims/out (what ndarray's method takes)
_REDUCTION_KEYWORDS = {
    "sum": {"dtype", "initial", "where"},
    "prod": {"dtype", "initial", "where"},
    "mean": {"dtype", "where"},
    "max": {"initial", "where"},
    "min": {"initial", "where"},
    "all": {"where"},
    "any": {"where"},
    "logSumExp": set(),
    "euclideanNorm": set(),
}
_JNP_REDUCTIONS: dict[str, Callable[..., Any]] = {
    "sum": jnp.sum,
    "prod": jnp.prod,
    "mean": jnp.mean,
    "max": jnp.max,
    "min": jnp.min,
    "all": jnp.all,
    "any": jnp.any,
}


def _array(x: Any) -> Any:
    """The JAX value of a Tensor (a Variable's current value), as `jnp.asarray(t)` reads it
    (a value the eager tape recorded leaves the tape, as any jnp call on it does)."""
    from ._tensor import unwrap

    return unwrap(x)


def _wrap(value: Any) -> Any:
    from ._tensor import wrap

    return wrap(value)


def _no_out(name: str, out: Any) -> None:
    if out is not None:
        raise TypeError(
            f"tf.Tensor.{name}() does not take out= (got {type(out).__name__}): tf.Tensor is "
            "immutable, so use the tensor it returns"
        )


def _one_of(name: str, argument: str, default: Any, **given: Any) -> Any:
    """The one synonym the caller passed (`keep_dims`, `keepdims`, `keepDims`), else default."""
    passed = [value for value in given.values() if value is not _UNSET]
    if len(passed) > 1:
        raise TypeError(f"tf.Tensor.{name}() got multiple values for argument '{argument}'")
    return passed[0] if passed else default


def _numpy_axis(axis: Any) -> Any:
    return tuple(axis) if isinstance(axis, list) else axis


def _dtype(dtype: Any) -> Any:
    from ._tensors import to_dtype

    return to_dtype(dtype)


def reduction(name: str, tfjs: Callable[..., Any]) -> Callable[..., Any]:
    """`t.<name>(axis, keepDims)` as tfjs, plus numpy's `axis=`, `keepdims=`, `out=None`
    and, where ndarray's method has them, `dtype=`, `where=`, `initial=`."""
    allowed = _REDUCTION_KEYWORDS[name]
    numpy_fn = _JNP_REDUCTIONS.get(name)

    def method(
        self: Any,
        axis: Any = None,
        keep_dims: Any = _UNSET,
        *,
        keepdims: Any = _UNSET,
        keepDims: Any = _UNSET,  # noqa: N803 (tfjs's spelling)
        dtype: Any = _UNSET,
        out: Any = _UNSET,
        where: Any = _UNSET,
        initial: Any = _UNSET,
    ) -> Any:
        if (  # tfjs's call, `t.sum()`, `t.mean(0, true)`: the op as it is (the eager tape's
            # hot path)
            keepdims is _UNSET and keepDims is _UNSET and dtype is _UNSET
            and out is _UNSET and where is _UNSET and initial is _UNSET
        ):  # fmt: skip
            return tfjs(self, axis, False if keep_dims is _UNSET else keep_dims)
        keep = _one_of(name, "keepdims", False, keep_dims=keep_dims, keepdims=keepdims,
                       keepDims=keepDims)  # fmt: skip
        _no_out(name, None if out is _UNSET else out)
        extra = {"dtype": dtype, "where": where, "initial": initial}
        for keyword, value in extra.items():
            if value is not _UNSET and keyword not in allowed:
                raise TypeError(
                    f"tf.Tensor.{name}() got an unexpected keyword argument '{keyword}'"
                )
        if dtype is None or dtype is _UNSET:
            del extra["dtype"]
        if where is _UNSET or where is True:  # numpy's default: every element
            del extra["where"]
        if initial is _UNSET:
            del extra["initial"]
        if extra and numpy_fn is not None:
            if "dtype" in extra:
                extra["dtype"] = _dtype(extra["dtype"])
            if "where" in extra:
                extra["where"] = _array(extra["where"])
            return _wrap(
                numpy_fn(_array(self), axis=_numpy_axis(axis), keepdims=bool(keep), **extra)
            )
        numpy_style = any(v is not _UNSET for v in (keepdims, dtype, out, where, initial))
        x = self
        if numpy_style and name in ("all", "any") and self.dtype != np.bool_:
            from . import cast

            x = cast(self, "bool")  # numpy's truth of a number: x != 0
        return tfjs(x, axis, bool(keep))

    method.__name__ = method.__qualname__ = name
    method.__doc__ = (
        f"`tf.{name}(x, axis, keepDims)`; numpy's keywords work too "
        f"(axis=, keepdims=, out=None{''.join(f', {k}=' for k in sorted(allowed))})."
    )
    return method


def scan(name: str, tfjs: Callable[..., Any]) -> Callable[..., Any]:
    """`t.cumsum(axis=0, exclusive, reverse)` as tfjs; numpy's `axis=None` (by keyword: the
    flattened tensor), `dtype=` and `out=None` too."""

    def method(
        self: Any,
        _axis: Any = _UNSET,
        /,
        exclusive: bool = False,
        reverse: bool = False,
        *,
        axis: Any = _UNSET,
        dtype: Any = None,
        out: Any = None,
    ) -> Any:
        if _axis is not _UNSET and axis is not _UNSET:
            raise TypeError(f"tf.Tensor.{name}() got multiple values for argument 'axis'")
        _no_out(name, out)
        from . import cast, reshape

        numpy_style = (_axis is _UNSET and axis is not _UNSET) or dtype is not None
        x = self
        if _axis is not _UNSET:
            axis = _axis
        elif axis is None:  # numpy's keyword: along the flattened tensor
            x, axis = reshape(self, [-1]), 0
        if dtype is not None:
            x = cast(x, _dtype(dtype))
        elif numpy_style and x.dtype == np.bool_:
            x = cast(x, "int32")  # numpy counts bools as integers
        return tfjs(x, 0 if axis is _UNSET else axis, exclusive, reverse)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = (
        f"`tf.{name}(x, axis=0, exclusive=False, reverse=False)`; numpy's `axis=None` "
        "keyword (the flattened tensor), `dtype=` and `out=None` work too."
    )
    return method


def check_order(name: str, order: Any, allowed: str) -> str:
    if not isinstance(order, str) or order.upper() not in allowed:
        raise ValueError(
            f"tf.Tensor.{name}(): order must be one of {', '.join(map(repr, allowed))}, "
            f"got {order!r}"
        )
    return order.upper()


def reshape(tfjs: Callable[..., Any]) -> Callable[..., Any]:
    def reshape(self: Any, shape: Any, *more: Any, order: str = "C", copy: Any = None) -> Any:
        """`tf.reshape(x, shape)`; numpy's `t.reshape(-1)`, `t.reshape(2, 3)`, `order=`
        ('C', 'A' or 'F') and `copy=` work too.

        >>> import tfjs_grad as tf
        >>> tf.ones([2, 3]).reshape(-1).shape, tf.ones([6]).reshape(3, 2).shape
        ((6,), (3, 2))
        """
        del copy  # a Tensor is immutable: sharing or copying its value is the same
        if more or isinstance(shape, int):
            shape = [shape, *more]
        if order == "C" or check_order("reshape", order, "CFA") != "F":
            return tfjs(self, shape)
        from . import transpose

        return transpose(tfjs(transpose(self), list(shape)[::-1]))

    return reshape


def flat(name: str) -> Callable[..., Any]:
    def method(self: Any, order: str = "C") -> Any:
        from . import reshape, transpose

        if check_order(name, order, "CFAK") == "F":
            return reshape(transpose(self), [-1])
        return reshape(self, [-1])

    method.__name__ = method.__qualname__ = name
    method.__doc__ = "The values as rank 1 (numpy's `order=`: 'C', 'F', 'A' or 'K')."
    return method


def transpose(tfjs: Callable[..., Any]) -> Callable[..., Any]:
    def transpose(self: Any, perm: Any = None, *more: int) -> Any:
        """`tf.transpose(x, perm)`; numpy's `t.transpose(1, 0)` works too."""
        if more or isinstance(perm, int):
            perm = [perm, *more]
        return tfjs(self, perm)

    return transpose


def rounding(tfjs: Callable[..., Any]) -> Callable[..., Any]:
    def round(self: Any, decimals: int = 0, out: Any = None) -> Any:
        """`tf.round(x)` (half to even); numpy's `decimals=` rounds to that many places."""
        _no_out("round", out)
        if decimals == 0:
            return tfjs(self)
        return _wrap(jnp.round(_array(self), decimals))

    return round


def dot(tfjs: Callable[..., Any]) -> Callable[..., Any]:
    def dot(self: Any, t2: Any, out: Any = None) -> Any:
        """`tf.dot(x, t2)` (numpy's `out=None` is accepted)."""
        _no_out("dot", out)
        return tfjs(self, t2)

    return dot


def clip(self: Any, min: Any = None, max: Any = None, out: Any = None, *,
         a_min: Any = _UNSET, a_max: Any = _UNSET) -> Any:  # fmt: skip
    """x limited to [min, max] as `jnp.clip` (either bound may be None or an array);
    numpy's `a_min=`/`a_max=` spellings work too."""
    _no_out("clip", out)
    for spelled, value, other in (("min", min, a_min), ("max", max, a_max)):
        if value is not None and other is not _UNSET:
            raise TypeError(f"tf.Tensor.clip() got multiple values for argument '{spelled}'")
    low = min if a_min is _UNSET else a_min
    high = max if a_max is _UNSET else a_max
    return _wrap(jnp.clip(_array(self), _array(low), _array(high)))


def _arg(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def method(self: Any, axis: Any = None, out: Any = None, *, keepdims: bool = False) -> Any:
        _no_out(name, out)
        return _wrap(fn(_array(self), axis=axis, keepdims=bool(keepdims)))

    method.__name__ = method.__qualname__ = name
    method.__doc__ = (
        f"numpy's `{name}`: the index over the flattened tensor when axis is None (tfjs's "
        f"`arg{name[3:].title()}` takes axis 0 by default)."
    )
    return method


def take(self: Any, indices: Any, axis: Any = None, out: Any = None, mode: Any = None,
         **kwargs: Any) -> Any:  # fmt: skip
    """numpy's `take` (as `jnp.take`: out-of-range indices follow `mode`); tfjs's is
    `gather`."""
    _no_out("take", out)
    x, index = _array(self), jnp.asarray(_array(indices))
    if mode == "raise":  # numpy's default; jnp has no such mode: checked here when concrete
        if isinstance(index, Tracer):
            raise ValueError(
                "tf.Tensor.take(): mode='raise' needs concrete indices; inside a JAX "
                "transform pass mode='fill', 'clip' or 'wrap'"
            )
        n = x.size if axis is None else x.shape[axis]
        if index.size and (int(index.min()) < -n or int(index.max()) >= n):
            raise IndexError(f"tf.Tensor.take(): an index is out of bounds for size {n}")
        mode = "wrap"  # in bounds, wrapping is numpy's reading of negative indices
    return _wrap(jnp.take(x, index, axis=axis, mode=mode, **kwargs))


def repeat(self: Any, repeats: Any, axis: Any = None, **kwargs: Any) -> Any:
    """numpy's `repeat` (as `jnp.repeat`); tfjs's nearest is `tile`."""
    return _wrap(jnp.repeat(_array(self), _array(repeats), axis=axis, **kwargs))


def wrap_methods(methods: dict[str, Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """The prototype methods with numpy's keyword forms added (names without an op stay
    out), plus the ndarray names tfjs lacks."""
    forms: dict[str, Callable[..., Any]] = {}
    for name, fn in methods.items():
        if name in _REDUCTION_KEYWORDS:
            forms[name] = reduction(name, fn)
        elif name in ("cumsum", "cumprod"):
            forms[name] = scan(name, fn)
        elif name == "reshape":
            forms[name] = reshape(fn)
        elif name == "transpose":
            forms[name] = transpose(fn)
        elif name == "round":
            forms[name] = rounding(fn)
        elif name == "dot":
            forms[name] = dot(fn)
        else:
            forms[name] = fn
    return forms


def ndarray_only() -> dict[str, Callable[..., Any]]:
    """numpy's ndarray methods that tfjs's Tensor lacks (jax.Array has them)."""
    return {
        "ravel": flat("ravel"),
        "flatten": flat("flatten"),
        "clip": clip,
        "argmax": _arg("argmax", jnp.argmax),
        "argmin": _arg("argmin", jnp.argmin),
        "take": take,
        "repeat": repeat,
    }
