"""The public surface as tfjs code expects it: every name in camelCase too (result fields
included), and None in an optional positional slot meaning the default, as JS's
`undefined` does.
"""

from __future__ import annotations

import inspect
import re
import types

import jax.numpy as jnp
import numpy as np
import optax
import pytest
from op_fixtures import snake

import tfjs_grad as tf

MODULES = (tf, tf.train, tf.losses, tf.io, tf.util)


def _camel(name: str) -> str:
    return re.sub(r"_([a-z0-9])", lambda m: m.group(1).upper(), name.rstrip("_"))


def _public(module: types.ModuleType) -> list[tuple[str, object]]:
    names = getattr(module, "__all__", None) or [n for n in dir(module) if not n.startswith("_")]
    return [
        (name, getattr(module, name))
        for name in names
        if not isinstance(getattr(module, name), types.ModuleType)
    ]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_every_snake_case_name_has_its_camel_case_alias(module):
    # tfjs's acronyms (batchToSpaceND, basicLSTMCell): the camelCase name is found by OPS2.md's
    # naming rule (op_fixtures.snake) rather than a plain camel-casing of the alias
    camel = {snake(n): getattr(module, n) for n in dir(module) if "_" not in n.strip("_")}
    missing = [
        f"{module.__name__}.{name} -> {_camel(name)}"
        for name, obj in _public(module)
        if "_" in name.strip("_")
        and getattr(module, _camel(name), None) is not obj
        and camel.get(name) is not obj
    ]
    assert not missing


def test_public_classes_and_results_have_camel_case_members():
    w = tf.variable(tf.tensor1d([1.0]), name="w")
    opt = tf.train.adam(0.1)
    opt.minimize(lambda: (w**2).sum())
    samples = {
        "Variable": w,
        "Tensor": tf.ones([2]),
        "Optimizer": opt,
        "Memory": tf.memory(),
        "TensorBuffer": tf.buffer([2]),
        "Jitted": tf.jit(lambda: w * 1),
        "ValueAndGrad": tf.value_and_grad(lambda x: x * 2)(tf.scalar(1.0)),
        "VariableGrads": tf.variable_grads(lambda: (w**2).sum()),
    }
    missing = []
    for label, obj in samples.items():
        # tfjs's acronyms (batchToSpaceND, isNaN): OPS2.md's naming rule finds the camelCase
        # member, as for the modules above
        camel = {snake(n) for n in dir(obj) if "_" not in n.strip("_")}
        for name in dir(obj):
            if name.startswith("_") or "_" not in name:
                continue
            if name in ("class_name",) and hasattr(obj, "className"):
                continue
            if not hasattr(obj, _camel(name)) and name not in camel:
                missing.append(f"{label}.{name}")
    assert not missing
    assert tf.memory().numTensors == tf.memory().num_tensors
    assert tf.train.AdamOptimizer.className == opt.className == "Adam"


# -- None in an optional positional slot is the default ----------------------------------------
# The ops and losses have their own walk over every op and loss (tests/test_ops.py,
# tests/test_losses.py); this covers the rest of the public API.


def _w():
    return tf.variable(tf.tensor1d([1.0, 2.0]), name="w")


def _same(a, b):
    if isinstance(a, optax.GradientTransformation):
        params = {"p": jnp.array([1.0, -2.0])}
        grads = {"p": jnp.array([0.5, 0.25])}
        ua, _ = a.update(grads, a.init(params), params)
        ub, _ = b.update(grads, b.init(params), params)
        np.testing.assert_array_equal(ua["p"], ub["p"])
    elif isinstance(a, (list, tuple)) and not hasattr(a, "_fields"):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif hasattr(a, "_fields"):
        _same(tuple(a), tuple(b))
    elif isinstance(a, dict):
        assert a.keys() == b.keys()
        for k in a:
            _same(a[k], b[k])
    elif isinstance(a, tf.Variable):
        assert (a.trainable, a.dtype, a.shape) == (b.trainable, b.dtype, b.shape)
        np.testing.assert_array_equal(a.value, b.value)
    elif isinstance(a, tf.train.Optimizer):
        assert a.get_config() == b.get_config()
    else:
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


# (function, required positional arguments, how to undo what a call made)
CALLS = {
    "variable": (lambda: tf.variable, lambda: (tf.tensor1d([1.0]),)),
    "Variable": (lambda: tf.Variable, lambda: (tf.tensor1d([1.0]),)),
    "train.momentum": (lambda: tf.train.momentum, lambda: (0.1, 0.9)),
    "train.adagrad": (lambda: tf.train.adagrad, lambda: (0.1,)),
    "train.adadelta": (lambda: tf.train.adadelta, lambda: ()),
    "train.adam": (lambda: tf.train.adam, lambda: ()),
    "train.adamax": (lambda: tf.train.adamax, lambda: ()),
    "train.rmsprop": (lambda: tf.train.rmsprop, lambda: (0.1,)),
    "train.tfjs_momentum": (lambda: tf.train.tfjs_momentum, lambda: (0.1, 0.9)),
    "train.tfjs_adagrad": (lambda: tf.train.tfjs_adagrad, lambda: (0.1,)),
    "train.tfjs_adadelta": (lambda: tf.train.tfjs_adadelta, lambda: ()),
    "train.tfjs_adam": (lambda: tf.train.tfjs_adam, lambda: ()),
    "train.tfjs_adamax": (lambda: tf.train.tfjs_adamax, lambda: ()),
    "train.tfjs_rmsprop": (lambda: tf.train.tfjs_rmsprop, lambda: (0.1,)),
}


def _optional_positions(fn) -> list[int]:
    params = list(inspect.signature(fn).parameters.values())
    if params and params[0].name == "self":
        params = params[1:]
    return [
        i
        for i, p in enumerate(params)
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        and p.default is not inspect.Parameter.empty
        and p.default is not None  # None is already the default there
    ]


@pytest.mark.parametrize("label", sorted(CALLS))
def test_none_in_every_optional_slot_means_the_default(label):
    get_fn, required = CALLS[label]
    fn = get_fn()
    target = fn.__init__ if inspect.isclass(fn) else fn
    positions = [i for i in _optional_positions(target) if i >= len(required())]
    assert positions, label
    for i in positions:
        reference = fn(*required())
        args = list(required()) + [None] * (i + 1 - len(required()))
        result = fn(*args)
        _same(result, reference)
        for obj in (result, reference):
            if isinstance(obj, tf.train.Optimizer):
                obj.dispose()


def test_minimize_and_checkpoints_take_none_for_their_defaults(tmp_path):
    w = _w()
    opt = tf.train.sgd(0.5)
    assert opt.minimize(lambda: (w**2).sum(), None, None) is None
    np.testing.assert_allclose(w.value, [0.0, 0.0])
    step = tf.train.save_checkpoint(str(tmp_path), [w], None, None)
    w.assign(tf.tensor1d([5.0, 5.0]))
    assert tf.train.restore_checkpoint(str(tmp_path), [w], None, None) == step
    np.testing.assert_allclose(w.value, [0.0, 0.0])


def test_every_public_function_with_optional_slots_is_walked_here_or_by_its_module():
    covered_elsewhere = set(tf.ops.__all__) | set(tf.losses.__all__)
    here = {label.split(".")[-1] for label in CALLS} | {"sgd", "tfjs_sgd"}
    here |= {_camel(name) for name in here}  # aliases are the same objects
    here |= {"minimize", "save_checkpoint", "restore_checkpoint", "saveCheckpoint"}
    here |= {"restoreCheckpoint"}
    unwalked = []
    for module in MODULES:
        for name, obj in _public(module):
            targets = [obj]
            if inspect.isclass(obj):
                if issubclass(obj, tuple) or obj.__module__.startswith("enum"):
                    continue  # result types and enums: nothing to call with defaults
                targets = [obj.__init__] + [
                    getattr(obj, m) for m in ("minimize",) if hasattr(obj, m)
                ]
            for fn in targets:
                try:
                    positions = _optional_positions(fn)
                except (TypeError, ValueError):
                    continue
                if positions and name not in here and name not in covered_elsewhere:
                    if not name.endswith("Optimizer") and name != "TensorBuffer":
                        unwalked.append(f"{module.__name__}.{name}")
    assert not unwalked
