"""`tf.initializers`: how layers fill their weights (tfjs's classes, names and configs).

Each factory takes tfjs's config (a dict or keywords, camelCase or snake_case) and returns
an `Initializer` whose `apply(shape, dtype)` makes the values. Draws use `seed` when given,
else the process's generator. As in tfjs, the "normal" variance-scaling initializers
(glorotNormal, heNormal, leCunNormal) draw a normal truncated at two standard deviations
without rescaling it (the sample deviation is about 0.88 of `sqrt(scale / fan)`).

>>> import tfjs_grad as tf
>>> tf.initializers.ones().apply([2]).tolist()
[1.0, 1.0]
>>> tf.initializers.glorotNormal().getClassName()
'VarianceScaling'
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from . import _rng
from ._config import REQUIRED, camel, merge, snake
from ._tensors import to_dtype

_NUMBERS = frozenset({"value", "minval", "maxval", "mean", "stddev", "gain", "scale"})
_NAMES = frozenset({"mode", "distribution"})


def _check_argument(what: str, key: str, value: Any) -> None:
    """A ValueError naming `key` when an initializer's argument is not of its kind (a
    model file may hold anything)."""
    if key in _NUMBERS:
        if isinstance(value, (np.ndarray, jax.Array)):  # a 0-d array of numbers is one
            real = value.ndim == 0 and value.dtype.kind in "iuf"
        else:
            real = isinstance(value, numbers.Real) and not isinstance(value, bool)
        if not (real and math.isfinite(float(value))):
            raise ValueError(f"{what}: {key} must be a finite number, got {value!r:.60}")
    elif key == "seed":
        if value is not None and (
            isinstance(value, bool) or not isinstance(value, numbers.Integral)
        ):
            raise ValueError(f"{what}: seed must be an integer or null, got {value!r:.60}")
    elif key in _NAMES and not isinstance(value, str):
        raise ValueError(f"{what}: {key} must be a string, got {value!r:.60}")


def _fans(shape: Sequence[int]) -> tuple[float, float]:
    """tfjs's computeFans for channels-last kernels."""
    if len(shape) == 0:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    if len(shape) == 2:
        return float(shape[0]), float(shape[1])
    receptive = float(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


class Initializer:
    """Base class: `apply(shape, dtype)` makes an array; `getConfig()` is tfjs's config."""

    className: ClassVar[str] = "Initializer"
    _KEYS: ClassVar[dict[str, Any]] = {}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        self.config = merge(config, kwargs, self._KEYS, type(self).__name__)
        for key, value in self.config.items():
            _check_argument(type(self).__name__, key, value)

    def apply(self, shape: Sequence[int], dtype: Any = None) -> jax.Array:
        """Values of `shape` (float32 unless `dtype` says otherwise)."""
        target = to_dtype(dtype) or jnp.float32
        return jnp.asarray(self._make(tuple(int(d) for d in shape)), dtype=target)

    __call__ = apply

    def _make(self, shape: tuple[int, ...]) -> Any:
        raise NotImplementedError

    def _key(self) -> jax.Array:
        return _rng.next_key(self.config.get("seed"))

    def getClassName(self) -> str:
        return self.className

    def getConfig(self) -> dict[str, Any]:
        return dict(self.config)

    get_class_name = getClassName
    get_config = getConfig


class Zeros(Initializer):
    className = "Zeros"

    def _make(self, shape: tuple[int, ...]) -> Any:
        return jnp.zeros(shape)


class Ones(Initializer):
    className = "Ones"

    def _make(self, shape: tuple[int, ...]) -> Any:
        return jnp.ones(shape)


class Constant(Initializer):
    className = "Constant"
    _KEYS = {"value": REQUIRED}

    def _make(self, shape: tuple[int, ...]) -> Any:
        return jnp.full(shape, self.config["value"])


class RandomUniform(Initializer):
    className = "RandomUniform"
    _KEYS = {"minval": -0.05, "maxval": 0.05, "seed": None}

    def _make(self, shape: tuple[int, ...]) -> Any:
        c = self.config
        return jax.random.uniform(self._key(), shape, minval=c["minval"], maxval=c["maxval"])


class RandomNormal(Initializer):
    className = "RandomNormal"
    _KEYS = {"mean": 0.0, "stddev": 0.05, "seed": None}

    def _make(self, shape: tuple[int, ...]) -> Any:
        c = self.config
        return c["mean"] + c["stddev"] * jax.random.normal(self._key(), shape)


class TruncatedNormal(Initializer):
    className = "TruncatedNormal"
    _KEYS = {"mean": 0.0, "stddev": 0.05, "seed": None}

    def _make(self, shape: tuple[int, ...]) -> Any:
        c = self.config
        return c["mean"] + c["stddev"] * jax.random.truncated_normal(self._key(), -2.0, 2.0, shape)


class Identity(Initializer):
    className = "Identity"
    _KEYS = {"gain": 1.0}

    def _make(self, shape: tuple[int, ...]) -> Any:
        if len(shape) != 2 or shape[0] != shape[1]:
            raise ValueError("Identity matrix initializer can only be used for 2D square matrices.")
        return self.config["gain"] * jnp.eye(shape[0])


_MODES = {"fanIn", "fanOut", "fanAvg"}
_DISTRIBUTIONS = {"normal", "uniform", "truncatedNormal"}


class VarianceScaling(Initializer):
    className = "VarianceScaling"
    _KEYS = {"scale": 1.0, "mode": "fanIn", "distribution": "normal", "seed": None}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        super().__init__(config, **kwargs)
        c = self.config
        c["mode"], c["distribution"] = camel(c["mode"]), camel(c["distribution"])
        if c["scale"] <= 0:
            raise ValueError(f"scale must be a positive float. Got: {c['scale']}")
        if c["mode"] not in _MODES:
            raise ValueError(f"Invalid mode: {c['mode']}; expected one of {sorted(_MODES)}")
        if c["distribution"] not in _DISTRIBUTIONS:
            raise ValueError(
                f"Invalid distribution: {c['distribution']}; expected one of "
                f"{sorted(_DISTRIBUTIONS)}"
            )

    def _make(self, shape: tuple[int, ...]) -> Any:
        c = self.config
        fan_in, fan_out = _fans(shape)
        fan = {"fanIn": fan_in, "fanOut": fan_out, "fanAvg": (fan_in + fan_out) / 2}[c["mode"]]
        scale = c["scale"] / max(1.0, fan)
        if c["distribution"] == "uniform":
            limit = math.sqrt(3 * scale)
            return jax.random.uniform(self._key(), shape, minval=-limit, maxval=limit)
        return math.sqrt(scale) * jax.random.truncated_normal(self._key(), -2.0, 2.0, shape)

    def getConfig(self) -> dict[str, Any]:
        c = dict(self.config)
        c["mode"], c["distribution"] = snake(c["mode"]), snake(c["distribution"])
        return c

    get_config = getConfig


def _scaling(class_name: str, scale: float, mode: str, distribution: str) -> type[VarianceScaling]:
    class Preset(VarianceScaling):
        _KEYS = {"seed": None}

        def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
            Initializer.__init__(self, config, **kwargs)
            self.config = {
                "scale": scale,
                "mode": mode,
                "distribution": distribution,
                **self.config,
            }

    Preset.__name__ = Preset.__qualname__ = class_name
    return Preset


GlorotUniform = _scaling("GlorotUniform", 1.0, "fanAvg", "uniform")
GlorotNormal = _scaling("GlorotNormal", 1.0, "fanAvg", "normal")
HeUniform = _scaling("HeUniform", 2.0, "fanIn", "uniform")
HeNormal = _scaling("HeNormal", 2.0, "fanIn", "normal")
LeCunUniform = _scaling("LeCunUniform", 1.0, "fanIn", "uniform")
LeCunNormal = _scaling("LeCunNormal", 1.0, "fanIn", "normal")


class Orthogonal(Initializer):
    className = "Orthogonal"
    _KEYS = {"gain": 1.0, "seed": None}

    def _make(self, shape: tuple[int, ...]) -> Any:
        if len(shape) < 2:
            raise ValueError("Shape must be at least 2D.")
        rows, cols = int(np.prod(shape[:-1])), shape[-1]
        a = jax.random.normal(self._key(), (max(rows, cols), min(rows, cols)))
        q, r = jnp.linalg.qr(a)
        q = q * jnp.sign(jnp.diagonal(r))
        if rows < cols:
            q = q.T
        return self.config["gain"] * q.reshape(shape)


_CLASSES: dict[str, type[Initializer]] = {
    c.__name__: c
    for c in (
        Zeros,
        Ones,
        Constant,
        RandomUniform,
        RandomNormal,
        TruncatedNormal,
        Identity,
        VarianceScaling,
        GlorotUniform,
        GlorotNormal,
        HeUniform,
        HeNormal,
        LeCunUniform,
        LeCunNormal,
        Orthogonal,
    )
}


def get(identifier: Any) -> Initializer:
    """An initializer from a tfjs name ('glorotNormal', 'zeros'), a Keras name
    ('glorot_normal'), a serialized `{"class_name", "config"}` or an Initializer.

    >>> get("he_normal").getConfig()
    {'scale': 2.0, 'mode': 'fan_in', 'distribution': 'normal', 'seed': None}
    """
    if isinstance(identifier, Initializer):
        return identifier
    if isinstance(identifier, Mapping) and "class_name" in identifier:
        cls = _CLASSES.get(identifier["class_name"])
        if cls is None:
            raise ValueError(f"Unknown initializer: {identifier['class_name']}")
        given = identifier.get("config") or {}
        if not isinstance(given, Mapping):
            raise ValueError(f"The config of a {cls.__name__} must be a dict, got {given!r:.60}")
        config = {k: v for k, v in given.items() if isinstance(k, str) and camel(k) in cls._KEYS}
        return cls(config)
    if isinstance(identifier, str):
        name = camel(identifier)
        name = name[:1].upper() + name[1:]
        name = {"LecunNormal": "LeCunNormal", "LecunUniform": "LeCunUniform"}.get(name, name)
        if name in _CLASSES:
            return _CLASSES[name]()
    raise ValueError(f"Unknown initializer: {identifier}")


def serialize(init: Initializer) -> dict[str, Any]:
    """Keras's `{"class_name", "config"}` as tfjs saves it."""
    return {"class_name": init.getClassName(), "config": init.getConfig()}


InitializerT = TypeVar("InitializerT", bound=Initializer)


def _factory(cls: type[InitializerT]) -> Callable[..., InitializerT]:
    def make(config: Mapping[str, Any] | None = None, /, **kwargs: Any) -> InitializerT:
        return cls(config, **kwargs)

    make.__doc__ = f"tfjs's `tf.initializers.{cls.__name__[:1].lower()}{cls.__name__[1:]}`."
    return make


zeros = _factory(Zeros)
ones = _factory(Ones)
constant = _factory(Constant)
randomUniform = random_uniform = _factory(RandomUniform)
randomNormal = random_normal = _factory(RandomNormal)
truncatedNormal = truncated_normal = _factory(TruncatedNormal)
identity = _factory(Identity)
varianceScaling = variance_scaling = _factory(VarianceScaling)
glorotUniform = glorot_uniform = _factory(GlorotUniform)
glorotNormal = glorot_normal = _factory(GlorotNormal)
heUniform = he_uniform = _factory(HeUniform)
heNormal = he_normal = _factory(HeNormal)
leCunUniform = lecun_uniform = _factory(LeCunUniform)
leCunNormal = lecun_normal = _factory(LeCunNormal)
orthogonal = _factory(Orthogonal)

__all__ = [
    "Constant",
    "GlorotNormal",
    "GlorotUniform",
    "HeNormal",
    "HeUniform",
    "Identity",
    "Initializer",
    "LeCunNormal",
    "LeCunUniform",
    "Ones",
    "Orthogonal",
    "RandomNormal",
    "RandomUniform",
    "TruncatedNormal",
    "VarianceScaling",
    "Zeros",
    "constant",
    "get",
    "glorotNormal",
    "glorotUniform",
    "glorot_normal",
    "glorot_uniform",
    "heNormal",
    "heUniform",
    "he_normal",
    "he_uniform",
    "identity",
    "leCunNormal",
    "leCunUniform",
    "lecun_normal",
    "lecun_uniform",
    "ones",
    "orthogonal",
    "randomNormal",
    "randomUniform",
    "random_normal",
    "random_uniform",
    "serialize",
    "truncatedNormal",
    "truncated_normal",
    "varianceScaling",
    "variance_scaling",
    "zeros",
]


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
