"""`tf.Tensor`: tfjs's immutable tensor, wrapping one JAX value.

A Tensor holds a `jax.Array` (or, inside a transform, a tracer). It is a JAX pytree with
that single leaf, so Tensors pass through `jax.jit`, `jax.vmap`, `lax.scan` and
`jax.tree_util` and come back as Tensors; `__jax_array__` and `__array__` let `jnp.*` and
`np.asarray` take them. Its op methods (`x.square().sum()`) are the public ops with the
tensor as first argument; `tensor_methods.attach` adds them once every op is imported.

Disposing a Tensor detaches it from its value (the value is freed once nothing else holds
it): a buffer a user may share with another Tensor, a Variable or a raw array is never
deleted behind their back.
"""

from __future__ import annotations

import inspect
import itertools
import math
import threading
from collections.abc import Callable, Generator, Iterator
from typing import Any

import jax
import numpy as np
from jax.core import Tracer

from . import _tape
from ._jax_internals import asked_by_jax_operator, rebuilt_for_library_code, refuse_in_primitives

DISPOSED_MESSAGE = "Tensor is disposed."


class TensorDisposedError(ValueError):
    """A disposed Tensor was read (tfjs: "Tensor is disposed.")."""


class _Disposed:
    """What a disposed Tensor holds: any attribute read raises tfjs's error."""

    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        raise TensorDisposedError(DISPOSED_MESSAGE)

    def __repr__(self) -> str:
        return "<disposed>"


DISPOSED: Any = _Disposed()
_ids = itertools.count(1)


class _Depth(threading.local):
    """How deep the current thread is inside public ops (nested calls return raw arrays)."""

    n = 0


depth = _Depth()


class Tensor:
    """tfjs's Tensor: an immutable array with tfjs's methods (`x.square().sum()`).

    Every op, loss, factory and gradient function returns Tensors. They are JAX pytrees
    with one leaf: `jax.jit`, `jax.vmap` and `jax.tree_util` keep them as Tensors, and
    `jnp.asarray(t)` / `np.asarray(t)` give the array.

    >>> import tfjs_grad as tf
    >>> x = tf.tensor1d([1, 2, 3])
    >>> x.square().sum().arraySync()
    14.0
    >>> x.mean(0, True).shape, x.dtype == "float32"
    ((1,), True)
    """

    __slots__ = ("_value", "_tid", "__weakref__")
    __array_priority__ = 100
    __hash__ = None  # type: ignore[assignment]  (elementwise ==, like jax.Array)

    def __init__(self, value: Any):
        self._value = value

    # -- the value -----------------------------------------------------------------
    def _get(self) -> Any:
        value = self._value
        if value is DISPOSED:
            raise TensorDisposedError(DISPOSED_MESSAGE)
        return value

    __tfjs_value__ = _get  # what the argument converter takes

    @property
    def __jax_array__(self) -> Callable[[], Any]:
        # `jax_array + t` gives the tf op (a Tensor), as `t + jax_array` does
        if asked_by_jax_operator(inspect.currentframe().f_back):  # type: ignore[union-attr]
            raise AttributeError("__jax_array__")
        return self._as_jax_array

    def _as_jax_array(self) -> Any:
        value = self._get()
        if type(value) is _tape.Lazy:  # a jnp call on a value the tape recorded
            return value.staged()
        return value

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        array = np.asarray(self._get())
        return array if dtype is None else array.astype(dtype)

    # -- metadata ------------------------------------------------------------------
    @property
    def id(self) -> int:
        """A unique int for this tensor (tfjs's `Tensor.id`)."""
        try:
            return self._tid
        except AttributeError:
            self._tid = next(_ids)
            return self._tid

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._get().shape)

    @property
    def dtype(self) -> Any:
        """The numpy dtype; it compares equal to tfjs's strings ('float32', 'int32', 'bool')."""
        return self._get().dtype

    @property
    def rank(self) -> int:
        return len(self._get().shape)

    @property
    def ndim(self) -> int:
        return len(self._get().shape)

    @property
    def size(self) -> int:
        return math.prod(self._get().shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.itemsize

    @property
    def itemsize(self) -> int:
        return np.dtype(self.dtype).itemsize

    @property
    def is_disposed(self) -> bool:
        value = self._value
        return value is DISPOSED or _tape.is_disposed(value)

    isDisposed = is_disposed

    def throw_if_disposed(self) -> None:
        """Raise "Tensor is disposed." if it is."""
        self._get()

    throwIfDisposed = throw_if_disposed

    def dispose(self) -> None:
        """Detach this tensor from its value; reading it afterwards raises.

        >>> import tfjs_grad as tf
        >>> t = tf.ones([2])
        >>> t.dispose()
        >>> t.isDisposed
        True
        """
        self._value = DISPOSED

    # -- reading values ------------------------------------------------------------
    def data_sync(self) -> np.ndarray:
        """The values as a flat numpy array of the tensor's dtype (a copy).

        >>> import tfjs_grad as tf
        >>> tf.tensor2d([[1, 2], [3, 4]]).dataSync()
        array([1., 2., 3., 4.], dtype=float32)
        """
        return np.array(self._get()).reshape(-1)

    dataSync = data_sync

    def array_sync(self) -> Any:
        """The values as nested Python lists (a rank-0 tensor gives a number).

        >>> import tfjs_grad as tf
        >>> tf.tensor2d([[1, 2], [3, 4]], None, "int32").arraySync()
        [[1, 2], [3, 4]]
        """
        return np.asarray(self._get()).tolist()

    arraySync = array_sync

    def data(self) -> _Ready:
        """An awaitable of `dataSync()`."""
        return _Ready(self.data_sync())

    def array(self) -> _Ready:
        """An awaitable of `arraySync()`."""
        return _Ready(self.array_sync())

    def bytes(self) -> _Ready:
        """An awaitable of the raw little-endian bytes of the values."""
        return _Ready(self.data_sync().astype(self.data_sync().dtype.newbyteorder("<")).tobytes())

    def buffer_sync(self) -> Any:
        """A `TensorBuffer` copy of the values (setting it leaves the tensor unchanged)."""
        from .ops.utilities import TensorBuffer

        return TensorBuffer(self.shape, self.dtype.name, self.data_sync())

    bufferSync = buffer_sync

    def buffer(self) -> _Ready:
        """An awaitable of `bufferSync()`."""
        return _Ready(self.buffer_sync())

    def to_string(self, verbose: bool = False) -> str:
        """tfjs's text for the tensor (what `print` writes).

        >>> import tfjs_grad as tf
        >>> print(tf.tensor1d([1, 2.5]).toString())
        Tensor
            [1, 2.5]
        """
        from .ops import _js

        value = self._get()
        if isinstance(value, Tracer):
            return f"Tensor (traced, shape [{', '.join(map(str, value.shape))}], {value.dtype})"
        return _js.tensor_to_string(np.asarray(value), bool(verbose))

    toString = to_string

    def print(self, verbose: bool = False) -> None:
        """Write `toString(verbose)` to stdout (inside transforms too, as `tf.print`)."""
        from .ops.utilities import print_

        print_(self, verbose)

    def __str__(self) -> str:
        return self.to_string()

    def __repr__(self) -> str:
        value = self._value
        if value is DISPOSED or _tape.is_disposed(value):
            return "Tensor(<disposed>)"
        if isinstance(value, Tracer):
            shown = "<traced>"
        else:
            try:
                shown = np.array2string(
                    np.asarray(value), separator=", ", prefix="Tensor(", threshold=1000
                )
            except Exception:  # a leaf JAX put in (tree utilities): show it as is
                return f"Tensor({value!r})"
        return f"Tensor({shown}, shape={self.shape}, dtype={np.dtype(self.dtype).name})"

    def __format__(self, spec: str) -> str:
        return format(np.asarray(self._get()), spec) if spec else str(self)

    # -- jax.Array's members tfjs lacks -----------------------------------------------
    def tolist(self) -> Any:
        return np.asarray(self._get()).tolist()

    def item(self, *args: Any) -> Any:
        value = self._get()
        if isinstance(value, Tracer):  # an eager call's staged value reads as data
            value = np.asarray(value)
        return value.item(*args)

    def is_deleted(self) -> bool:
        value = self._value
        if value is DISPOSED:
            return True
        return bool(getattr(value, "is_deleted", lambda: False)())

    isDeleted = is_deleted

    def block_until_ready(self) -> Tensor:
        self._get().block_until_ready()
        return self

    blockUntilReady = block_until_ready

    @property
    def sharding(self) -> Any:
        return self._get().sharding

    def devices(self) -> Any:
        return self._get().devices()

    @property
    def at(self) -> _At:
        """jax.Array's `.at[...]` functional updates, returning Tensors."""
        return _At(self._get())

    def astype(
        self,
        dtype: Any,
        order: str = "K",
        casting: str = "unsafe",
        subok: bool = True,
        copy: bool = True,
        device: Any = None,
    ) -> Tensor:
        """The values as dtype, as numpy's `astype` (`casting=` is checked as numpy does;
        `order=`, `subok=`, `copy=` and `device=` change nothing for an immutable tensor)."""
        from ._numpy_forms import check_order
        from ._tensors import to_dtype

        del subok, copy, device
        check_order("astype", order, "CFAK")
        target = to_dtype(dtype)
        if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
            raise ValueError(
                "tf.Tensor.astype(): casting must be one of 'no', 'equiv', 'safe', "
                f"'same_kind' or 'unsafe', got {casting!r}"
            )
        if casting != "unsafe" and not np.can_cast(self.dtype, target, casting):
            raise TypeError(
                f"tf.Tensor.astype(): cannot cast from {np.dtype(self.dtype).name} to "
                f"{target.name} according to the rule '{casting}'"
            )
        return wrap(self._get().astype(target))

    # -- Python protocols ------------------------------------------------------------
    def __bool__(self) -> bool:
        return bool(self._get())

    def __float__(self) -> float:
        return float(self._get())

    def __int__(self) -> int:
        return int(self._get())

    def __complex__(self) -> complex:
        return complex(self._get())

    def __index__(self) -> int:
        return self._get().__index__()

    def __len__(self) -> int:
        shape = self._get().shape
        if not shape:
            raise TypeError("len() of unsized object")
        return shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        value = self._get()
        if not value.shape:
            raise TypeError("iteration over a 0-d tensor")
        return (wrap(row) for row in value)

    def __getitem__(self, index: Any) -> Tensor:
        value = self._get()
        if type(value) is _tape.Lazy:
            return value.tape.index(self, index)
        return wrap(value[unwrap_index(index)])

    def __setitem__(self, index: Any, value: Any) -> None:
        raise TypeError(
            "tf.Tensor is immutable: use t.at[index].set(value), or a tf.Variable's assign()"
        )

    def __copy__(self) -> Tensor:
        return Tensor(self._get())

    def __deepcopy__(self, memo: Any) -> Tensor:
        return Tensor(self._get())

    def __reduce__(self) -> Any:
        return (Tensor, (np.asarray(self._get()),))

    def __getattr__(self, name: str) -> Any:
        from .tensor_methods import missing_attribute

        raise missing_attribute(name)


class NotImplementedMethodError(NotImplementedError, AttributeError):
    """A tfjs Tensor method whose op this library does not have yet."""


class _Ready:
    """An awaitable that is already resolved (tfjs's Promise of data/array/buffer)."""

    __slots__ = ("_result",)

    def __init__(self, result: Any):
        self._result = result

    def __await__(self) -> Generator[None, None, Any]:
        return self._result
        yield  # a generator that returns at once


class _At:
    __slots__ = ("_value",)

    def __init__(self, value: Any):
        self._value = value

    def __getitem__(self, index: Any) -> _AtRef:
        return _AtRef(self._value.at[unwrap_index(index)])


class _AtRef:
    __slots__ = ("_ref",)

    def __init__(self, ref: Any):
        self._ref = ref

    def __getattr__(self, name: str) -> Callable[..., Tensor]:
        method = getattr(self._ref, name)
        return lambda *args, **kwargs: wrap(
            method(*map(unwrap_index, args), **{k: unwrap_index(v) for k, v in kwargs.items()})
        )


def unwrap_index(index: Any) -> Any:
    """An index (or value) with its Tensors replaced by their arrays."""
    if isinstance(index, Tensor):
        return index.__jax_array__()
    if type(index) is tuple:
        return tuple(unwrap_index(i) for i in index)
    if type(index) is list and any(isinstance(i, Tensor) for i in index):
        return [unwrap_index(i) for i in index]
    return index


def wrap(value: Any) -> Tensor:
    """A Tensor around one array (recorded by the enclosing `tf.tidy`)."""
    from ._scope import track

    return track(value)


def rebind(tensor: Tensor, value: Any) -> None:
    """Give `tensor` another value (the eager tape settles a Tensor `tf.keep` kept in f)."""
    tensor._value = value


def _is_array(x: Any) -> bool:
    return isinstance(x, (jax.Array, Tracer))


def map_leaves(fn: Callable[[Any], Any], tree: Any) -> Any:
    """`tree` rebuilt with `fn` applied to each Tensor and array in it, through lists,
    tuples, NamedTuples and dicts (keeping their key order, which `jax.tree.map` sorts);
    any other object is left as it is. Unchanged containers come back as themselves."""
    if isinstance(tree, (Tensor, jax.Array, Tracer)):
        return fn(tree)
    if isinstance(tree, dict):
        items = {k: map_leaves(fn, v) for k, v in tree.items()}
        if all(items[k] is v for k, v in tree.items()):
            return tree
        return items if type(tree) is dict else type(tree)(items)
    if isinstance(tree, (list, tuple)):
        items = [map_leaves(fn, v) for v in tree]
        if all(a is b for a, b in zip(items, tree)):
            return tree
        if isinstance(tree, list):
            return items
        return type(tree)(*items) if hasattr(tree, "_fields") else type(tree)(items)
    return tree


def _as_tensor(x: Any) -> Any:
    return x if isinstance(x, Tensor) else Tensor(x)


def wrap_tree(tree: Any) -> Any:
    """`tree` with every array (not already a Tensor) wrapped in a Tensor; not recorded
    for tidy (the caller tracks what it made)."""
    return map_leaves(_as_tensor, tree)


def unwrap(x: Any) -> Any:
    """The array of a Tensor (a Variable's current value); anything else unchanged."""
    if isinstance(x, Tensor):
        value = x.__tfjs_value__()
        return value.staged() if type(value) is _tape.Lazy else value
    return x


def unwrap_tree(tree: Any) -> Any:
    """`tree` with every Tensor (and Variable) replaced by its array."""
    return map_leaves(unwrap, tree)


def _flatten(t: Tensor) -> tuple[tuple[Any], None]:
    value = t._value
    if value is DISPOSED:
        raise TensorDisposedError(DISPOSED_MESSAGE)
    if type(value) is _tape.Lazy:  # a JAX transform of a value the tape recorded
        value = value.staged()
    return (value,), None


def _unflatten(_aux: None, children: Any) -> Any:
    if rebuilt_for_library_code(inspect.currentframe().f_back):  # type: ignore[union-attr]
        # (jax.nn.sigmoid's jit, jax.nn.relu's rule: JAX code gets the array)
        return children[0]
    t = Tensor.__new__(Tensor)
    t._value = children[0]
    return t


jax.tree_util.register_pytree_node(Tensor, _flatten, _unflatten)
refuse_in_primitives(Tensor, "Tensor")
_tape.bind_tensor(Tensor)
