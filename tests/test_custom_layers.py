"""Custom layers written as in tfjs (and as a JAX user writes them) against tfjs 4.22.

tests/reference/custom_layer.json and layers_models/custom_layer/ come from
tests/reference/gen_custom_layer.js (the same layer in JavaScript, trained with fit).
"""

import json
import re
import shutil
import subprocess
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf

_REFERENCE = Path(__file__).parent / "reference"
_FIXTURE = json.loads((_REFERENCE / "custom_layer.json").read_text())
_HAS_TFJS = (
    shutil.which("node") is not None
    and (_REFERENCE / "node_modules" / "@tensorflow" / "tfjs" / "package.json").exists()
)


def _arr(entry):
    return np.asarray(entry["values"], np.float32).reshape(entry["shape"])


# -- the layer of custom_layer_class.js, ported line by line ---------------------------------
class ScaledTanh(tf.layers.Layer):
    className = "ScaledTanh"

    def __init__(self, config):
        super().__init__(config)
        self.units = config["units"]
        self.l2 = config["l2"]

    def build(self, inputShape):
        last = inputShape[len(inputShape) - 1]
        self.kernel = self.addWeight(
            "kernel",
            [last, self.units],
            "float32",
            tf.initializers.glorotUniform({"seed": 1}),
            tf.regularizers.l2({"l2": self.l2}),
        )
        self.alpha = self.addWeight("alpha", [self.units], "float32", tf.initializers.ones())

    def computeOutputShape(self, inputShape):
        return [inputShape[0], self.units]

    def call(self, inputs, kwargs):
        def body():
            x = inputs[0] if isinstance(inputs, list) else inputs
            energy = x.square().sum(-1, True)
            return x.matMul(self.kernel.read()).tanh().mul(self.alpha.read()).add(energy.mul(0.1))

        return tf.tidy(body)

    def getConfig(self):
        config = super().getConfig()
        config.update({"units": self.units, "l2": self.l2})
        return config


tf.serialization.registerClass(ScaledTanh)


def _build():
    model = tf.sequential()
    model.add(tf.layers.dense({"units": 4, "inputShape": [3], "name": "first"}))
    model.add(ScaledTanh({"units": 2, "l2": 0.05, "name": "scaled"}))
    model.add(tf.layers.dense({"units": 1, "name": "last"}))
    return model


def test_a_tfjs_style_custom_layer_trains_as_in_tfjs():
    model = _build()
    model.setWeights([_arr(w) for w in _FIXTURE["initial_weights"]])
    model.compile({"optimizer": tf.train.sgd(0.1), "loss": "meanSquaredError"})
    x, y = _arr(_FIXTURE["x"]), _arr(_FIXTURE["y"])
    history = model.fit(x, y, {"epochs": 4, "batchSize": 4, "shuffle": False, "verbose": 0})
    np.testing.assert_allclose(history.history["loss"], _FIXTURE["history"]["loss"], rtol=1e-5)
    for got, want in zip(model.getWeights(), _FIXTURE["final_weights"]):
        np.testing.assert_allclose(np.asarray(got), _arr(want), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        np.asarray(model.predict(x)), _arr(_FIXTURE["predictions"]), rtol=1e-5, atol=1e-6
    )
    assert model.getLayer("scaled").outputShape == _FIXTURE["output_shape"]
    # names are unique per process, as in tfjs: another test's "first" makes this "first_1"
    unsuffixed = [re.sub(r"_\d+$", "", w.name) for w in model.weights]
    assert unsuffixed == [w["name"] for w in _FIXTURE["final_weights"]]
    assert (
        model.toJSON(None, False)["config"]["layers"][1]
        == (_FIXTURE["json"]["config"]["layers"][1])
    )


def test_loading_tfjs_saved_custom_layer_model():
    model = tf.loadLayersModel(f"file://{_REFERENCE / 'layers_models/custom_layer/model.json'}")
    layer = model.getLayer("scaled")
    assert isinstance(layer, ScaledTanh) and (layer.units, layer.l2) == (2, 0.05)
    for got, want in zip(model.getWeights(), _FIXTURE["final_weights"]):
        np.testing.assert_allclose(np.asarray(got), _arr(want), rtol=1e-6)
    np.testing.assert_allclose(
        np.asarray(model.predict(_arr(_FIXTURE["x"]))),
        _arr(_FIXTURE["predictions"]),
        rtol=1e-5,
        atol=1e-6,
    )
    again = tf.models.modelFromJSON(model.toJSON(None, False))
    assert isinstance(again.getLayer("scaled"), ScaledTanh)


@pytest.mark.skipif(not _HAS_TFJS, reason="Node or tfjs missing")
def test_tfjs_loads_a_custom_layer_model_saved_here(tmp_path):
    model = _build()
    model.setWeights([_arr(w) for w in _FIXTURE["final_weights"]])
    model.save(f"file://{tmp_path / 'm'}")
    (tmp_path / "x.json").write_text(json.dumps([_FIXTURE["x"]]))
    out = subprocess.run(
        [
            "node",
            str(_REFERENCE / "check_layers_model.js"),
            str(tmp_path / "m"),
            str(tmp_path / "x.json"),
            str(_REFERENCE / "custom_layer_class.js"),
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    report = json.loads(out.stdout.strip().splitlines()[-1])
    np.testing.assert_allclose(
        _arr(report["predictions"][0]), _arr(_FIXTURE["predictions"]), rtol=1e-5, atol=1e-6
    )


# -- the calling conventions ------------------------------------------------------------------
class Recorder(tf.layers.Layer):
    """Records what `call` receives; each subclass takes tfjs's kwargs another way."""

    seen: list

    def call(self, inputs, kwargs):
        self.seen.append((inputs, kwargs))
        return inputs.mul(2)


class Keywords(Recorder):
    def call(self, inputs, training=False):
        self.seen.append((inputs, {"training": training}))
        return inputs.mul(2)


class Anything(Recorder):
    def call(self, inputs, **kwargs):
        self.seen.append((inputs, kwargs))
        return jnp.asarray(inputs) * 2  # an array back is fine too


@pytest.mark.parametrize("cls", [Recorder, Keywords, Anything])
def test_call_gets_tensors_and_the_training_flag_however_it_takes_them(cls):
    layer = cls({"outputShape": [3]})  # a key tfjs ignores
    layer.seen = []
    model = tf.sequential({"layers": [tf.layers.dense({"units": 3, "inputShape": [2]}), layer]})
    model.compile({"optimizer": "sgd", "loss": "meanSquaredError"})
    x = np.ones((4, 2), np.float32)
    model.fit(x, np.zeros((4, 3), np.float32), {"epochs": 1, "verbose": 0})
    model.predict(x)
    tf.grad(lambda t: model.apply(t).sum())(tf.tensor(x))
    assert all(isinstance(inputs, tf.Tensor) for inputs, _ in layer.seen)
    flags = [kwargs["training"] for _, kwargs in layer.seen]
    assert True in flags and False in flags


def test_a_list_input_arrives_as_a_list_of_tensors():
    class Joined(tf.layers.Layer):
        def call(self, inputs, kwargs):
            assert isinstance(inputs, list) and all(isinstance(t, tf.Tensor) for t in inputs)
            return inputs[0].add(inputs[1].mul(10))

        def compute_output_shape(self, input_shape):
            return input_shape[0]

    a, b = tf.input(shape=[2]), tf.input(shape=[2])
    model = tf.model({"inputs": [a, b], "outputs": Joined({}).apply([a, b])})
    out = model.predict([np.ones((1, 2), np.float32), np.full((1, 2), 2, np.float32)])
    np.testing.assert_allclose(np.asarray(out), [[21.0, 21.0]])


def test_add_weight_keywords_and_snake_case_overrides():
    class Scale(tf.layers.Layer):
        def build(self, input_shape):
            self.s = self.add_weight(name="s", shape=[input_shape[-1]], initializer="ones")

        def call(self, inputs, training=False):
            return inputs.mul(self.s)

        def compute_output_shape(self, input_shape):
            return input_shape

        def get_config(self):
            return {**super().get_config(), "extra": 1}

    layer = Scale({"name": "scale"})
    layer.apply(tf.input(shape=[3]))
    assert layer.getConfig()["extra"] == 1 and layer.computeOutputShape([None, 3]) == [None, 3]
    assert layer.outputShape == [None, 3] and layer.inputShape == [None, 3]
    assert isinstance(layer.output, object) and layer.output.shape == [None, 3]
    with pytest.raises(ValueError, match="Duplicate weight name s"):
        layer.addWeight("s", [1])


def test_layer_input_output_errors_as_tfjs():
    layer = tf.layers.dense({"units": 1, "name": "lonely"})
    with pytest.raises(AttributeError, match="Layer lonely has no inbound nodes"):
        _ = layer.output
    with pytest.raises(AttributeError, match="Layer lonely is not connected"):
        _ = layer.input
    layer.apply(tf.input(shape=[2]))
    layer.apply(tf.input(shape=[2]))
    with pytest.raises(AttributeError, match='"layer output" is ill-defined'):
        _ = layer.output


def test_register_class_needs_a_class_name():
    class Nameless(tf.layers.Layer):
        className = ""

    with pytest.raises(ValueError, match="empty-string"):
        tf.serialization.registerClass(Nameless)
    assert tf.serialization.SerializationMap.getMap().classNameMap["ScaledTanh"][0] is ScaledTanh


# -- as a JAX user writes one ---------------------------------------------------------------
class GeluGate(tf.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight("w", [input_shape[-1], 2], initializer="ones")

    def call(self, inputs, training=False):
        x = jnp.asarray(inputs)
        return jax.nn.gelu(x @ self.w.value) * jax.nn.sigmoid(x.sum(-1, keepdims=True))

    def compute_output_shape(self, input_shape):
        return [*input_shape[:-1], 2]


def test_a_jax_custom_layer_fits_as_jax_grad_of_the_raw_program():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 3)).astype(np.float32)
    y = rng.normal(size=(8, 2)).astype(np.float32)
    layer = GeluGate({"inputShape": [3]})
    model = tf.sequential({"layers": [layer]})
    model.compile({"optimizer": tf.train.sgd(0.1), "loss": "meanSquaredError"})
    history = model.fit(x, y, {"epochs": 3, "batchSize": 4, "shuffle": False, "verbose": 0})

    def loss(w, xb, yb):
        out = jax.nn.gelu(xb @ w) * jax.nn.sigmoid(xb.sum(-1, keepdims=True))
        return jnp.mean((out - yb) ** 2)

    w = jnp.ones((3, 2))
    epochs = []
    for _ in range(3):
        losses = []
        for k in range(0, 8, 4):
            value, g = jax.value_and_grad(loss)(w, x[k : k + 4], y[k : k + 4])
            w = w - 0.1 * g
            losses.append(float(value))
        epochs.append(np.mean(losses))
    np.testing.assert_allclose(history.history["loss"], epochs, rtol=1e-5)
    np.testing.assert_allclose(np.asarray(layer.w), np.asarray(w), rtol=1e-5, atol=1e-6)


def test_weight_read_is_a_tensor_inside_call_while_fit_traces():
    class SquaredScale(tf.layers.Layer):
        def build(self, input_shape):
            self.s = self.addWeight("s", [input_shape[-1]], None, tf.initializers.ones())

        def call(self, inputs, kwargs):
            return inputs.mul(self.s.read().square())

    layer = SquaredScale({"inputShape": [2]})
    model = tf.sequential({"layers": [layer]})
    model.compile({"optimizer": tf.train.sgd(0.5), "loss": "meanSquaredError"})
    x = np.array([[1.0, 2.0]], np.float32)
    model.fit(x, np.zeros((1, 2), np.float32), {"epochs": 1, "verbose": 0})
    # loss = mean((x s^2)^2); d/ds = 2 x^2 s^3 (one row, two outputs: mean over 2)
    want = 1 - 0.5 * (2 * x[0] ** 2 * 1.0) * 2 / 2
    assert isinstance(layer.weights[0].read(), tf.Tensor)
    np.testing.assert_allclose(np.asarray(layer.weights[0].read()), want, rtol=1e-6)


class _Doubler(tf.layers.Layer):
    """A tfjs-style layer whose constructor takes no config (`constructor() { super({}); }`)
    and whose call invokes the call hook, as custom-layer's Antirectifier does."""

    className = "Doubler"

    def __init__(self):
        super().__init__({})

    def call(self, inputs, kwargs):
        self.invokeCallHook(inputs, kwargs)
        return inputs.mul(2)


tf.serialization.registerClass(_Doubler)


def test_invoke_call_hook_calls_the_hook_set_as_tfjs():
    layer, seen = _Doubler(), []
    layer.setCallHook(lambda inputs, kwargs: seen.append((inputs, kwargs)))
    out = layer.apply(tf.tensor1d([1, 2]))
    assert out.arraySync() == [2.0, 4.0]
    [(inputs, kwargs)] = seen
    assert isinstance(inputs, tf.Tensor) and inputs.arraySync() == [1.0, 2.0]
    assert isinstance(kwargs, dict)
    layer.clearCallHook()
    layer.apply(tf.tensor1d([3]))
    assert len(seen) == 1


def test_a_layer_whose_constructor_takes_no_config_loads_from_model_json():
    # tfjs's `new cls(config)` drops the argument such a constructor does not declare
    model = tf.sequential(
        {"layers": [tf.layers.dense({"units": 2, "inputShape": [3]}), _Doubler()]}
    )
    again = tf.models.modelFromJSON(model.toJSON(None, False))
    assert isinstance(again.layers[1], _Doubler)
    again.setWeights(model.getWeights())
    x = tf.ones([1, 3])
    np.testing.assert_allclose(again.predict(x).arraySync(), model.predict(x).arraySync())


def test_a_jax_program_through_a_layer_with_a_call_hook():
    layer, calls = _Doubler(), []
    layer.setCallHook(lambda inputs, kwargs: calls.append(1))
    grad = jax.grad(lambda v: jnp.sum(jnp.asarray(layer.apply(tf.tensor(v))) ** 2))
    np.testing.assert_allclose(grad(jnp.array([1.0, -2.0])), [8.0, -16.0])
    assert calls
