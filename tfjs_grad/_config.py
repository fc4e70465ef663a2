"""Config objects shared by layers, initializers, regularizers and constraints.

tfjs takes a config object with camelCase keys; here a dict, keyword arguments or both,
with snake_case accepted too. Saved models (model.json) use Keras's snake_case keys and
`{"class_name", "config"}` objects; `pythonic` and `camel` convert between the two.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()
"""A default meaning: the key must be given."""


def camel(key: str) -> str:
    """`use_bias` -> `useBias` (camelCase keys are unchanged).

    >>> camel("batch_input_shape"), camel("useBias")
    ('batchInputShape', 'useBias')
    """
    return re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), key)


def snake(name: str) -> str:
    """tfjs's `toSnakeCase`: `useBias` -> `use_bias`, `Conv2D` -> `conv2d`.

    >>> snake("BatchNormalization"), snake("Conv2DTranspose"), snake("SimpleRNN")
    ('batch_normalization', 'conv2d_transpose', 'simple_rnn')
    """
    s = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


def merge(
    config: Mapping[str, Any] | None, kwargs: Mapping[str, Any], keys: Mapping[str, Any], what: str
) -> dict[str, Any]:
    """One camelCase config from a dict and keywords, defaults filled in, unknown keys refused.

    >>> merge({"use_bias": False}, {"units": 3}, {"units": REQUIRED, "useBias": True}, "dense")
    {'units': 3, 'useBias': False}
    """
    if config is not None and not isinstance(config, Mapping):
        raise TypeError(f"The config passed to {what} must be a dict, got {type(config).__name__}")
    given: dict[str, Any] = {}
    for source in (config or {}, kwargs):
        for key, value in source.items():
            name = camel(key)
            if name not in keys:
                raise ValueError(
                    f"Unknown config key '{key}' for {what}; expected one of "
                    f"{', '.join(sorted(keys))}"
                )
            given[name] = value
    out: dict[str, Any] = {}
    for key, default in keys.items():
        value = given.get(key, default)
        if value is REQUIRED:
            raise ValueError(f"{what} requires the config key '{key}'")
        out[key] = value
    return out


def serialized(class_name: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """Keras's `{"class_name": ..., "config": ...}` form."""
    return {"class_name": class_name, "config": dict(config)}
