"""`tf.serialization`: the registry that lets saved models name user classes.

A custom layer written as in tfjs sets `className` and is registered with
`registerClass`; `tf.loadLayersModel` and `tf.models.modelFromJSON` then build it from
its saved config (`cls.fromConfig(config)`, by default `cls(config)`).

>>> import tfjs_grad as tf
>>> SerializationMap.getMap().classNameMap["Dense"][0].__name__
'Dense'
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

from .layers.base import Layer, registered_class, registered_names
from .layers.base import register_class as register_layer_class

__all__ = ["SerializationMap", "registerClass", "register_class"]

C = TypeVar("C", bound=type)


def registerClass(cls: C, pkg: str | None = None, name: str | None = None) -> C:  # noqa: N802
    """tfjs's `tf.serialization.registerClass(cls)`: saved models whose `class_name` is
    `cls.className` load as `cls`. Returns `cls` (so it also works as a decorator).
    `pkg` and `name` are accepted as tfjs takes them; as there, loading goes by className.

    >>> import tfjs_grad as tf
    >>> class Twice(tf.layers.Layer):
    ...     className = "Twice"
    ...     def call(self, inputs, kwargs):
    ...         return inputs.mul(2)
    >>> registerClass(Twice) is Twice
    True
    """
    class_name = getattr(cls, "className", None)
    if class_name is None:
        raise ValueError(
            "Class being registered does not have the static className property defined."
        )
    if not isinstance(class_name, str):
        raise ValueError(
            f"className is required to be a string, but got type {type(class_name).__name__}"
        )
    if not class_name:
        raise ValueError(
            "Class being registered has an empty-string as its className, which is disallowed."
        )
    layer_class: Any = cls
    if not (isinstance(layer_class, type) and issubclass(layer_class, Layer)):
        raise TypeError(f"registerClass takes a tf.layers.Layer subclass, got {cls!r:.80}")
    register_layer_class(layer_class)
    return cls


register_class = registerClass


class SerializationMap:
    """tfjs's `SerializationMap`: `getMap().classNameMap[name]` is `[cls, cls.fromConfig]`;
    `SerializationMap.register(cls)` is `registerClass(cls)`."""

    _instance: ClassVar[SerializationMap | None] = None

    @classmethod
    def getMap(cls) -> SerializationMap:  # noqa: N802
        if cls._instance is None:
            cls._instance = cls()
        return cls._instance

    @property
    def classNameMap(self) -> dict[str, list[Any]]:  # noqa: N802
        found = {name: registered_class(name) for name in registered_names()}
        return {name: [c, c.fromConfig] for name, c in found.items() if c is not None}

    @staticmethod
    def register(layer_class: type[Layer]) -> None:
        registerClass(layer_class)
