"""`help(tf.layers.<name>)` lists the layer's config keys and defaults, generated from the
class's `_KEYS` table (issue #37): every factory, every key, nothing written by hand."""

from __future__ import annotations

import inspect

import pytest

import tfjs_grad as tf
from tfjs_grad.layers import Layer

FACTORIES = sorted(
    name
    for name in dir(tf.layers)
    if "_" not in name
    and name[:1].islower()
    and callable(getattr(tf.layers, name))
    and "tf.layers." in (getattr(tf.layers, name).__doc__ or "")
    and "Config (" in (getattr(tf.layers, name).__doc__ or "")
)


def test_every_layer_factory_documents_its_config():
    assert len(FACTORIES) >= 50
    for name in FACTORIES:
        layer_class = type(_instance_or_class(name))
        doc = getattr(tf.layers, name).__doc__
        for key in {**layer_class._BASE_KEYS, **layer_class._KEYS}:
            assert key in doc, f"tf.layers.{name}: {key} missing from its docstring"
        assert inspect.getdoc(getattr(tf.layers, name)).startswith("tfjs's `tf.layers.")


def _instance_or_class(name):
    # the factory's class, found by the name its docstring gives (no layer is built)
    doc = getattr(tf.layers, name).__doc__
    class_name = doc.split("a new `", 1)[1].split("`", 1)[0]
    found = getattr(tf.layers, class_name)
    assert issubclass(found, Layer)
    return found.__new__(found)


REQUIRED_FILLED = {
    "dense": {"units": 3},
    "lstm": {"units": 3},
    "conv2d": {"filters": 2, "kernelSize": 3},
    "simpleRNN": {"units": 3},
}


@pytest.mark.parametrize("name", sorted(REQUIRED_FILLED))
def test_defaults_shown_are_the_defaults_a_layer_gets(name):
    doc = getattr(tf.layers, name).__doc__
    shown = {}
    for line in doc.split("Config (", 1)[1].split("Every layer", 1)[0].splitlines()[1:]:
        if line.strip():
            key, text = line.strip().split(": ", 1)
            shown[key] = text
    assert {k for k, v in shown.items() if v == "required"} == set(REQUIRED_FILLED[name])
    layer = getattr(tf.layers, name)(REQUIRED_FILLED[name])
    checked = 0
    for key, text in shown.items():
        value = getattr(layer, key, None)
        if isinstance(value, (bool, int, float)) and text not in ("required", "None"):
            assert repr(value) == text, f"{name}.{key}: the layer has {value!r}, help says {text}"
            checked += 1
    assert checked >= 1
