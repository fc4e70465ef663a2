"""tfjs's globals: `ready`, the backend, `version`, `env()` flags, `time`, `profile`, `engine()`.

Ported programs call these in their first lines. The backend is JAX's platform ('cpu',
'gpu' or 'tpu'); flags that describe a browser are False, since this is neither a browser
nor Node.

>>> import asyncio
>>> import tfjs_grad as tf
>>> async def main():
...     return await tf.ready()
>>> asyncio.run(main()) is None
True
>>> tf.getBackend() in ("cpu", "gpu", "tpu")
True
>>> tf.env().get("IS_BROWSER")
False
"""

from __future__ import annotations

import importlib.metadata
import time as _time
import warnings
from collections.abc import Callable
from typing import Any

import jax

from ._tensor import _Ready
from .memory import memory
from .variables import Variable, registered_variables

__all__ = [
    "Engine",
    "Environment",
    "disable_deprecation_warnings",
    "disableDeprecationWarnings",
    "enable_debug_mode",
    "enableDebugMode",
    "enable_prod_mode",
    "enableProdMode",
    "engine",
    "env",
    "get_backend",
    "getBackend",
    "profile",
    "ready",
    "set_backend",
    "setBackend",
    "time",
    "version",
]

_TFJS_VERSION = "4.22.0"


def _own_version() -> str:
    try:
        return importlib.metadata.version("tfjs_grad")
    except importlib.metadata.PackageNotFoundError:  # run from a source tree
        return "0.0.0"


# tfjs's `tf.version`: what each part of the library is; the tfjs parts name the release mirrored.
version: dict[str, str] = {
    "tfjs-core": _TFJS_VERSION,
    "tfjs-layers": _TFJS_VERSION,
    "tfjs": _TFJS_VERSION,
    "tfjs_grad": _own_version(),
}


def _debug_hook(on: bool | float) -> None:
    if on:
        warnings.warn(
            "Debugging mode is ON. The output of every math call will be downloaded to CPU "
            "and checked for NaNs. This significantly impacts performance.",
            stacklevel=4,
        )


class Environment:
    """tfjs's `Environment`: evaluated flags, read with `get` and changed with `set`.

    >>> import tfjs_grad as tf
    >>> tf.env().getBool("IS_NODE")
    False
    >>> tf.env().get("WEBGL_VERSION")
    Traceback (most recent call last):
    ValueError: Cannot evaluate flag 'WEBGL_VERSION': no evaluation function found.
    """

    def __init__(self) -> None:
        self._flags: dict[str, bool | float] = {}
        self._registry: dict[str, tuple[Callable[[], bool | float], Any]] = {
            "DEBUG": (lambda: False, _debug_hook),
            "IS_BROWSER": (lambda: False, None),
            "IS_NODE": (lambda: False, None),
            "IS_CHROME": (lambda: False, None),
            "IS_SAFARI": (lambda: False, None),
            "IS_TEST": (lambda: False, None),
            "PROD": (lambda: False, None),
            "TENSORLIKE_CHECK_SHAPE_CONSISTENCY": (lambda: self.getBool("DEBUG"), None),
            "DEPRECATION_WARNINGS_ENABLED": (lambda: True, None),
            "CHECK_COMPUTATION_FOR_ERRORS": (lambda: True, None),
            "ENGINE_COMPILE_ONLY": (lambda: False, None),
        }

    def get(self, flag_name: str) -> bool | float:
        """The flag's value, evaluated on first read."""
        if flag_name not in self._flags:
            if flag_name not in self._registry:
                message = f"Cannot evaluate flag '{flag_name}': no evaluation function found."
                raise ValueError(message)
            self._flags[flag_name] = self._registry[flag_name][0]()
        return self._flags[flag_name]

    def get_bool(self, flag_name: str) -> bool:
        return bool(self.get(flag_name))

    def get_number(self, flag_name: str) -> float:
        return float(self.get(flag_name))

    getBool = get_bool  # noqa: N815 (tfjs's name)
    getNumber = get_number  # noqa: N815 (tfjs's name)

    def set(self, flag_name: str, value: bool | float) -> None:
        """Set a registered flag (and run its hook, as `DEBUG`'s warning)."""
        if flag_name not in self._registry:
            raise ValueError(f"Cannot set flag {flag_name} as it has not been registered.")
        self._flags[flag_name] = value
        hook = self._registry[flag_name][1]
        if hook is not None:
            hook(value)

    def get_flags(self) -> dict[str, bool | float]:
        """The flags evaluated so far (tfjs's `getFlags()` and `features`)."""
        return self._flags

    getFlags = get_flags  # noqa: N815 (tfjs's name)

    @property
    def flags(self) -> dict[str, bool | float]:
        return self._flags

    @property
    def features(self) -> dict[str, bool | float]:
        return self._flags

    def reset(self) -> None:
        """Forget every value set or evaluated."""
        self._flags = {}


_ENV = Environment()


def env() -> Environment:
    """The global `Environment` (tfjs's `tf.env()`)."""
    return _ENV


def enable_prod_mode() -> None:
    """tfjs's `enableProdMode()`: sets the `PROD` flag."""
    _ENV.set("PROD", True)


def enable_debug_mode() -> None:
    """tfjs's `enableDebugMode()`: sets the `DEBUG` flag (with tfjs's warning)."""
    _ENV.set("DEBUG", True)


def disable_deprecation_warnings() -> None:
    """tfjs's `disableDeprecationWarnings()`: clears `DEPRECATION_WARNINGS_ENABLED`."""
    _ENV.set("DEPRECATION_WARNINGS_ENABLED", False)
    warnings.warn("TensorFlow.js deprecation warnings have been disabled.", stacklevel=2)


_BACKENDS = ("cpu", "gpu", "tpu")
_chosen: list[str] = []  # the platform set_backend chose, if any


def ready() -> _Ready:
    """An awaitable that resolves to None once the backend is ready (at once: JAX is)."""
    return _Ready(None)


def get_backend() -> str:
    """The name of the backend arrays are made on: JAX's default platform.

    >>> import tfjs_grad as tf
    >>> tf.get_backend() == tf.getBackend()
    True
    """
    return _chosen[-1] if _chosen else jax.default_backend()


def set_backend(backend_name: str) -> _Ready:
    """Make arrays on `backend_name`'s first device; an awaitable of whether that worked.

    An unknown name raises, as tfjs's `setBackend` does for a backend that was never
    registered; a known platform without a device resolves to False.

    >>> import asyncio
    >>> import tfjs_grad as tf
    >>> async def main():
    ...     return await tf.setBackend(tf.getBackend())
    >>> asyncio.run(main())
    True
    """
    if backend_name not in _BACKENDS:
        raise ValueError(f"Cannot initialize backend {backend_name}, no registration found.")
    try:
        device = jax.devices(backend_name)[0]
    except RuntimeError:  # JAX has no device of that platform here
        return _Ready(False)
    # JAX's own default stays unset (None), so a program's compiled cache stays valid.
    jax.config.update("jax_default_device", None if device == jax.devices()[0] else device)
    _chosen[:] = [backend_name]
    return _Ready(True)


def time(f: Callable[[], Any]) -> _Ready:
    """Run `f` and wait for its arrays; an awaitable of `{'kernelMs', 'wallMs'}` in ms.

    Both numbers are the synced wall time: JAX does not time kernels one by one.
    """
    start = _time.perf_counter()
    jax.block_until_ready(f())
    ms = (_time.perf_counter() - start) * 1000.0
    return _Ready({"kernelMs": ms, "wallMs": ms})


def profile(f: Callable[[], Any]) -> _Ready:
    """Run `f`; an awaitable of what it left allocated, counted by `tf.memory()`.

    `newTensors`/`newBytes` are the change in live arrays; `peakBytes` is the larger of
    the byte counts before and after (JAX does not report the peak in between), and
    `kernels` is empty (no kernel log is kept).
    """
    before = memory()
    result = jax.block_until_ready(f())
    after = memory()
    return _Ready(
        {
            "newBytes": after.num_bytes - before.num_bytes,
            "newTensors": after.num_tensors - before.num_tensors,
            "peakBytes": max(before.num_bytes, after.num_bytes),
            "kernels": [],
            "kernelNames": [],
            "result": result,
        }
    )


class Engine:
    """The part of tfjs's `tf.engine()` that programs read: registered Variables."""

    @property
    def registered_variables(self) -> dict[str, Variable]:
        return registered_variables()

    @property
    def registeredVariables(self) -> dict[str, Variable]:  # noqa: N802 (tfjs's name)
        return registered_variables()

    @property
    def backend_name(self) -> str:
        return get_backend()

    @property
    def backendName(self) -> str:  # noqa: N802 (tfjs's name)
        return get_backend()


_ENGINE = Engine()


def engine() -> Engine:
    """The global `Engine` (tfjs's `tf.engine()`).

    >>> import tfjs_grad as tf
    >>> v = tf.variable(tf.scalar(1.0), name="doc_engine")
    >>> "doc_engine" in tf.engine().registeredVariables
    True
    """
    return _ENGINE


getBackend = get_backend
setBackend = set_backend
enableProdMode = enable_prod_mode
enableDebugMode = enable_debug_mode
disableDeprecationWarnings = disable_deprecation_warnings
