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
import operator
import threading
from collections.abc import Callable, Generator, Iterator
from typing import TYPE_CHECKING, Any

import jax
import numpy as np
from jax.core import Tracer

from . import _tape
from ._jax_internals import asked_by_jax_operator, rebuilt_for_library_code, refuse_in_primitives

if TYPE_CHECKING:
    from .ops.sorting import TopK, Unique
    from .variables import Variable

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

    if not TYPE_CHECKING:  # hidden from type checkers, so that a misspelt method is flagged

        def __getattr__(self, name: str) -> Any:
            if name[:1] == "_":  # a protocol probe (`x @ t` asks t for __jax_array__)
                raise AttributeError(f"'tf.Tensor' object has no attribute '{name}'")
            from .tensor_methods import missing_attribute

            raise missing_attribute(name)

    # -- generated by tests/scripts/gen_tensor_types.py: the methods attach() adds --
    if TYPE_CHECKING:

        @property
        def T(self) -> Tensor: ...
        def abs(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def acos(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def acosh(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def add(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def all(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def any(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def argMax(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def argMin(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def arg_max(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def arg_min(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def argmax(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def argmin(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def as1D(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def as1_d(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def as2D(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def as2_d(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def as3D(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def as3_d(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def as4D(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def as4_d(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def as5D(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def as5_d(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def asScalar(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def asType(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def as_scalar(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def as_type(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def asin(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def asinh(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def atan(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def atan2(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def atanh(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def avgPool(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def avg_pool(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def batchNorm(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def batchToSpaceND(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def batch_norm(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def batch_to_space_nd(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def broadcastTo(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def broadcast_to(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def cast(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def ceil(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def clip(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def clipByValue(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def clip_by_value(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def clone(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def concat(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def conv1d(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def conv2d(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def conv2dTranspose(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def conv2d_transpose(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def cos(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def cosh(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def cumprod(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def cumsum(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def depthToSpace(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def depth_to_space(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def depthwiseConv2d(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def depthwise_conv2d(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def dilation2d(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def div(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def divNoNan(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def div_no_nan(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def dot(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def elu(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def equal(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def erf(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def euclideanNorm(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def euclidean_norm(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def exp(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def expandDims(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def expand_dims(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def expm1(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def fft(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def flatten(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def floor(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def floorDiv(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def floor_div(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def gather(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def greater(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def greaterEqual(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def greater_equal(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def ifft(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def irfft(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def isFinite(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def isInf(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def isNaN(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def is_finite(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def is_inf(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def is_nan(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def leakyRelu(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def leaky_relu(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def less(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def lessEqual(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def less_equal(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def localResponseNormalization(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def local_response_normalization(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def log(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def log1p(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def logSigmoid(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def logSoftmax(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def logSumExp(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def log_sigmoid(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def log_softmax(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def log_sum_exp(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def logicalAnd(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def logicalNot(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def logicalOr(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def logicalXor(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def logical_and(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def logical_not(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def logical_or(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def logical_xor(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def matMul(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def mat_mul(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def max(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def maxPool(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def max_pool(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def maximum(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def mean(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def min(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def minimum(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def mirrorPad(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def mirror_pad(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def mod(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def mul(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def neg(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def norm(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def notEqual(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def not_equal(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def oneHot(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def one_hot(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def onesLike(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def ones_like(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def pad(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def pool(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def pow(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def prelu(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def prod(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def ravel(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def reciprocal(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def relu(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def relu6(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def repeat(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def reshape(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def reshapeAs(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def reshape_as(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def resizeBilinear(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def resizeNearestNeighbor(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def resize_bilinear(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def resize_nearest_neighbor(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def reverse(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def rfft(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def round(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def rsqrt(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def selu(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def separableConv2d(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def separable_conv2d(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def sigmoid(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def sign(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def sin(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def sinh(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def slice(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def softmax(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def softplus(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def spaceToBatchND(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def space_to_batch_nd(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def split(self, *args: Any, **kwargs: Any) -> list[Tensor]: ...
        def sqrt(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def square(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def squaredDifference(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def squared_difference(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def squeeze(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def stack(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def step(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def stridedSlice(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def strided_slice(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def sub(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def sum(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def take(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def tan(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def tanh(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def tile(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def toBool(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def toFloat(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def toInt(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def to_bool(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def to_float(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def to_int(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def topk(self, *args: Any, **kwargs: Any) -> TopK: ...
        def transpose(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def unique(self, *args: Any, **kwargs: Any) -> Unique: ...
        def unsortedSegmentSum(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def unsorted_segment_sum(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def unstack(self, *args: Any, **kwargs: Any) -> list[Tensor]: ...
        def variable(self, *args: Any, **kwargs: Any) -> Variable: ...
        def where(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def zerosLike(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def zeros_like(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __add__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __radd__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __sub__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __rsub__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __mul__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __rmul__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __truediv__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __rtruediv__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __floordiv__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __rfloordiv__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __mod__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __rmod__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __pow__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __rpow__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __matmul__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __rmatmul__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __and__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __rand__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __or__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __ror__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __xor__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __rxor__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __lt__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __le__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __gt__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __ge__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __eq__(self, *args: Any, **kwargs: Any) -> Tensor: ...  # type: ignore[override]
        def __ne__(self, *args: Any, **kwargs: Any) -> Tensor: ...  # type: ignore[override]
        def __neg__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __pos__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __abs__(self, *args: Any, **kwargs: Any) -> Tensor: ...
        def __invert__(self, *args: Any, **kwargs: Any) -> Tensor: ...
    # -- end of generated methods --


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


_LEAF_TYPES: set[type] = set()  # exact types seen to be Tensors, arrays or tracers
_ARRAY_TYPES: set[type] = set()  # those of them that are not Tensors


def map_leaves(fn: Callable[[Any], Any], tree: Any) -> Any:
    """`tree` rebuilt with `fn` applied to each Tensor and array in it, through lists,
    tuples, NamedTuples and dicts (keeping their key order, which `jax.tree.map` sorts);
    any other object is left as it is. Unchanged containers come back as themselves."""
    kind = type(tree)
    if kind in _LEAF_TYPES:  # (set lookups first: `jax.Array`'s isinstance is slow)
        return fn(tree)
    if kind is list or kind is tuple:
        items = [map_leaves(fn, v) for v in tree]
        if all(map(operator.is_, items, tree)):
            return tree
        return items if kind is list else tuple(items)
    if isinstance(tree, (Tensor, jax.Array, Tracer)):
        _LEAF_TYPES.add(kind)
        if not isinstance(tree, Tensor):
            _ARRAY_TYPES.add(kind)
        return fn(tree)
    if isinstance(tree, dict):
        items = {k: map_leaves(fn, v) for k, v in tree.items()}
        if all(items[k] is v for k, v in tree.items()):
            return tree
        return items if kind is dict else kind(items)
    if isinstance(tree, (list, tuple)):
        items = [map_leaves(fn, v) for v in tree]
        if all(map(operator.is_, items, tree)):
            return tree
        if isinstance(tree, list):
            return items
        return kind(*items) if hasattr(tree, "_fields") else kind(items)
    return tree


def _as_tensor(x: Any) -> Any:
    return x if isinstance(x, Tensor) else Tensor(x)


def wrap_tree(tree: Any) -> Any:
    """`tree` with every array (not already a Tensor) wrapped in a Tensor; not recorded
    for tidy (the caller tracks what it made)."""
    if type(tree) in _ARRAY_TYPES:  # one array, as most steps return
        return Tensor(tree)
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
