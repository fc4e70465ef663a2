"""The tfjs-examples ports in examples/ train like tfjs 4.22 itself.

Each test replays a fixture written by a Node script in tests/reference/ (gen_polynomial.js,
gen_mnist_core.js, gen_cart_pole.js, gen_boston.js, gen_antirectifier.js,
gen_fashion_mnist_vae.js) that runs the same program with the real tfjs. tfjs's and
JAX's random generators differ, so every random draw tfjs made is recorded there and fed to the
port here, through the very calls the port makes (`random.random` for JS's `Math.random`,
`tf.randomUniform`, `tf.randomNormal`, `tf.util.createShuffledIndices`, `tf.multinomial`);
the ports themselves are run unchanged.
"""

from __future__ import annotations

import asyncio
import base64
import importlib
import json
import random
import sys
import types
from pathlib import Path

import numpy as np
import pytest

import tfjs_grad as tf

REFERENCE = Path(__file__).parent / "reference"


def _fixture(name: str) -> dict:
    return json.loads((REFERENCE / name).read_text())


def _fresh(module: str):
    """The port's module, executed afresh: new Variables and optimizer, as a new page load."""
    if module in sys.modules:
        return importlib.reload(sys.modules[module])
    return importlib.import_module(module)


class _Replay:
    """A stand-in for a random source that hands out tfjs's draws in order."""

    def __init__(self, values, what: str):
        self.values, self.what, self.used = list(values), what, 0

    def __call__(self, *args):
        if self.used == len(self.values):
            raise AssertionError(f"the port drew more {self.what} than tfjs did")
        self.used += 1
        return self.values[self.used - 1]

    @property
    def left(self) -> int:
        return len(self.values) - self.used


def test_polynomial_regression_core_trains_like_tfjs(monkeypatch, capsys):
    ref = _fixture("polynomial.json")
    n, sigma = ref["num_points"], ref["sigma"]
    math_random = _Replay(ref["math_random"], "Math.random() numbers")
    monkeypatch.setattr(random, "random", math_random)

    def random_uniform(shape, minval=0, maxval=1, *rest):
        assert (list(shape), minval, maxval, rest) == ([n], -1, 1, ())
        return tf.tensor1d(ref["random_uniform"])

    def random_normal(shape, mean=0, stddev=1, *rest):
        assert (list(shape), mean, stddev, rest) == ([n], 0, sigma, ())
        return tf.tensor1d(ref["random_normal"])

    monkeypatch.setattr(tf, "randomUniform", random_uniform)
    monkeypatch.setattr(tf, "randomNormal", random_normal)
    index = _fresh("examples.polynomial_regression_core.index")
    assert math_random.left == 0
    assert [float(v) for v in (index.a, index.b, index.c, index.d)] == [
        float(np.float32(v)) for v in ref["math_random"]
    ]

    real_generate_data, data, losses = index.generateData, [], []

    def mean_squared_error():
        return float(index.loss(index.predict(data[0].xs), data[0].ys))

    def generate_data(*args):
        data.append(real_generate_data(*args))
        losses.append(mean_squared_error())  # before training
        return data[0]

    real_next_frame = tf.nextFrame

    def next_frame():  # the training loop awaits this after every step
        losses.append(mean_squared_error())
        return real_next_frame()

    monkeypatch.setattr(index, "generateData", generate_data)
    monkeypatch.setattr(tf, "nextFrame", next_frame)
    asyncio.run(index.learnCoefficients())

    np.testing.assert_array_equal(data[0].xs, np.float32(ref["random_uniform"]))
    np.testing.assert_allclose(data[0].ys, ref["ys"], rtol=1e-6, atol=1e-7)
    assert len(losses) == ref["num_iterations"] + 1 == 76
    np.testing.assert_allclose(losses, ref["losses"], rtol=1e-5, atol=0)
    trained = [float(v) for v in (index.a, index.b, index.c, index.d)]
    np.testing.assert_allclose(trained, [ref["coefficients"][k] for k in "abcd"], rtol=1e-5)
    assert "#trained .coeff: a=" in capsys.readouterr().out


def _float32(encoded: str, shape) -> np.ndarray:
    return np.frombuffer(base64.b64decode(encoded), "<f4").reshape(shape)


def _mnist_core(monkeypatch, ref: dict):
    """The mnist-core port, fresh, drawing tfjs's initial weights and shuffled indices."""
    indices = _Replay(
        [
            (ref["num_train"], ref["train_indices"]),
            (ref["num_elements"] - ref["num_train"], ref["test_indices"]),
        ],
        "shuffled index arrays",
    )

    def create_shuffled_indices(n):
        expected_n, values = indices()
        assert n == expected_n
        return np.array(values, np.uint32)

    stddevs = {"conv1": 0.1, "conv2": 0.1, "fc": 1 / 28}
    weights = _Replay(list(stddevs), "randomNormal tensors")

    def random_normal(shape, mean=0, stddev=1, *rest):
        name = weights()
        assert (list(shape), mean, stddev, rest) == (ref["shapes"][name], 0, stddevs[name], ())
        return tf.tensor(_float32(ref["init"][name], shape))

    monkeypatch.setattr(tf.util, "createShuffledIndices", create_shuffled_indices)
    monkeypatch.setattr(tf, "randomNormal", random_normal)
    model = _fresh("examples.mnist_core.model")
    assert weights.left == 0
    np.testing.assert_array_equal(model.fullyConnectedBias, _float32(ref["init"]["fc_bias"], [10]))
    return model, _fresh("examples.mnist_core.index")


def _mnist_weights(model) -> dict:
    return {
        "conv1": model.conv1Weights,
        "conv2": model.conv2Weights,
        "fc": model.fullyConnectedWeights,
        "fc_bias": model.fullyConnectedBias,
    }


def test_mnist_core_trains_like_tfjs(monkeypatch, capsys):
    ref = _fixture("mnist_core/mnist_core.json")
    model, index = _mnist_core(monkeypatch, ref)
    monkeypatch.setattr(model, "TRAIN_STEPS", ref["train_steps"])
    costs, shown = [], []
    monkeypatch.setattr(index.ui, "trainingLog", lambda cost, i: costs.append((i, *cost)))
    monkeypatch.setattr(
        index.ui, "showTestResults", lambda batch, p, labels: shown.append((p, labels))
    )

    asyncio.run(index.mnist())

    assert [i for i, _ in costs] == list(range(ref["train_steps"]))
    np.testing.assert_allclose([c for _, c in costs], ref["costs"], rtol=1e-3)
    [(predictions, labels)] = shown
    assert labels == ref["test_labels"] and len(labels) == ref["test_examples"]
    assert predictions == ref["test_predictions"]
    for name, var in _mnist_weights(model).items():
        final = _float32(ref["final"][name], ref["shapes"][name])
        np.testing.assert_allclose(var.value, final, rtol=1e-3, atol=1e-5, err_msg=name)
    fetched = ref["train_steps"] * ref["batch_size"]
    assert index.data.shuffledTrainIndex == fetched % ref["num_train"]


def test_mnist_core_step_under_tf_jit_warns_and_reuses_its_batch(monkeypatch):
    """The loop's step compiled as written: the batch fetched inside it while tracing is baked
    into the program, every later call trains on that batch again (tfjs would move on), and
    tf.jit says so."""
    ref = _fixture("mnist_core/mnist_core.json")
    model, index = _mnist_core(monkeypatch, ref)
    asyncio.run(index.load())
    data, fetches = index.data, []
    real_next_train_batch = data.nextTrainBatch

    def next_train_batch(batch_size):
        fetches.append(batch_size)
        return real_next_train_batch(batch_size)

    monkeypatch.setattr(data, "nextTrainBatch", next_train_batch)

    @tf.jit
    def trainStep():
        def lossOfNextBatch():
            batch = data.nextTrainBatch(model.BATCH_SIZE)
            return model.loss(batch.labels, model.model(batch.xs))

        return model.optimizer.minimize(lossOfNextBatch, True)

    with pytest.warns(UserWarning, match="baked into the compiled program"):
        trainStep()
    fetched_while_tracing = len(fetches)
    data.shuffledTrainIndex -= model.BATCH_SIZE  # rebuild the last batch fetched, eagerly
    baked = real_next_train_batch(model.BATCH_SIZE)
    following = real_next_train_batch(model.BATCH_SIZE)
    on_baked = float(model.loss(baked.labels, model.model(baked.xs)))
    on_following = float(model.loss(following.labels, model.model(following.xs)))

    second = float(trainStep())
    assert len(fetches) == fetched_while_tracing
    np.testing.assert_allclose(second, on_baked, rtol=1e-5)
    assert not np.isclose(second, on_following, rtol=1e-4)


def test_mnist_core_step_under_tf_jit_with_the_batch_as_argument_trains_like_tfjs(monkeypatch):
    ref = _fixture("mnist_core/mnist_core.json")
    model, index = _mnist_core(monkeypatch, ref)
    asyncio.run(index.load())

    @tf.jit
    def trainStep(xs, labels):
        return model.optimizer.minimize(lambda: model.loss(labels, model.model(xs)), True)

    costs, traces = [], []
    for _ in range(ref["train_steps"]):
        batch = index.data.nextTrainBatch(model.BATCH_SIZE)
        costs.append(float(trainStep(batch.xs, batch.labels)))
        traces.append(trainStep.trace_count)
    np.testing.assert_allclose(costs, ref["costs"], rtol=1e-3)
    assert traces == traces[:1] * len(traces)  # traced on the first call only


@pytest.mark.filterwarnings("ignore:'PolicyNetwork.getGradientsAndSaveActions.<locals>.f' reads")
def test_cart_pole_trains_like_tfjs(monkeypatch):
    """REINFORCE on the cart-pole: the port reads each sampled action back as a number inside
    the function given to tf.variableGrads; with tfjs's random states and sampled actions it
    plays the same games and makes the same updates."""
    ref = _fixture("cart_pole.json")
    math_random = _Replay(ref["math_random"], "Math.random() numbers")
    monkeypatch.setattr(random, "random", math_random)
    steps = _Replay([s for r in ref["rounds"] for s in r["steps"]], "actions")
    real_multinomial = tf.multinomial

    def multinomial(logits, numSamples, seed=None, normalized=False):
        real_multinomial(logits, numSamples, seed, normalized)  # (f runs once: every draw is read)
        step = steps()
        assert (numSamples, seed, normalized) == (1, None, True)
        return tf.tensor2d([[step["action"]]], [1, 1], "int32")

    monkeypatch.setattr(tf, "multinomial", multinomial)
    index = _fresh("examples.cart_pole.index")
    cart_pole = _fresh("examples.cart_pole.cart_pole")
    states, left_probs = [], []
    real_state_tensor = cart_pole.CartPole.getStateTensor

    def get_state_tensor(self):
        states.append([self.x, self.xDot, self.theta, self.thetaDot])
        state = real_state_tensor(self)
        left_probs.append(float(tf.sigmoid(policyNet.policyNet.predict(state))[0, 0]))
        return state

    monkeypatch.setattr(cart_pole.CartPole, "getStateTensor", get_state_tensor)
    policyNet = index.PolicyNetwork(ref["hidden_layer_sizes"])
    # tfjs's initial weights (its glorotNormal draws), set as a tfjs user would
    policyNet.policyNet.setWeights(
        [np.reshape(np.float32(w["values"]), w["shape"]) for w in ref["init"]]
    )
    weights = policyNet.policyNet.weights
    for var, expected in zip(weights, ref["init"], strict=True):
        np.testing.assert_array_equal(var.value, np.reshape(expected["values"], expected["shape"]))
    cartPole = cart_pole.CartPole()
    optimizer = tf.train.adam(ref["learning_rate"])
    applied = []  # copies: the port's tidy frees the gradients it applied
    real_apply = optimizer.applyGradients

    def apply_gradients(grads):
        applied.append({name: np.array(g) for name, g in grads.items()})
        return real_apply(grads)

    monkeypatch.setattr(optimizer, "applyGradients", apply_gradients)

    for expected in ref["rounds"]:
        played = len(states)
        gameSteps = asyncio.run(
            policyNet.train(
                cartPole,
                optimizer,
                ref["discount_rate"],
                ref["num_games"],
                ref["max_steps_per_game"],
            )
        )
        assert gameSteps == expected["game_steps"]
        np.testing.assert_allclose(
            states[played:], [s["state"] for s in expected["steps"]], rtol=1e-12, atol=1e-15
        )
        np.testing.assert_allclose(
            left_probs[played:], [s["left_prob"] for s in expected["steps"]], rtol=1e-5
        )
        grads = applied[-1]
        assert list(grads) == [v.name for v in weights]
        for var, want in zip(weights, expected["gradients"], strict=True):
            np.testing.assert_allclose(
                grads[var.name],
                np.reshape(want["values"], want["shape"]),
                rtol=1e-4,
                atol=1e-6,
                err_msg=var.name,
            )
        for var, want in zip(weights, expected["weights"], strict=True):
            np.testing.assert_allclose(
                var.value,
                np.reshape(want["values"], want["shape"]),
                rtol=1e-5,
                atol=1e-6,
                err_msg=var.name,
            )
    assert (math_random.left, steps.left) == (0, 0)
    lengths = [n for r in ref["rounds"] for n in r["game_steps"]]
    assert max(lengths) == ref["max_steps_per_game"] > min(lengths)  # games capped and lost


def test_boston_housing_fits_like_tfjs(monkeypatch, capsys):
    """examples/boston_housing (model.fit with validationSplit and tfjs's shuffling, then
    evaluate) against tfjs 4.22 on the same synthetic data, weights and Math.random draws."""
    ref = _fixture("boston.json")
    math_random = _Replay(ref["math_random"], "Math.random() draws")
    monkeypatch.setattr(random, "random", math_random)
    index = _fresh("examples.boston_housing.index")
    monkeypatch.setattr(index, "NUM_EPOCHS", ref["num_epochs"])
    asyncio.run(index.bostonData.loadData())
    index.arraysToTensors()
    baseline = index.computeBaseline()
    np.testing.assert_allclose(baseline, ref["baseline_loss"], rtol=1e-6)
    builders = {"linear": index.linearRegressionModel,
                "2hidden": index.multiLayerPerceptronRegressionModel2Hidden}  # fmt: skip
    for name, expected in ref["models"].items():
        model = builders[name]()
        model.setWeights([np.asarray(w, np.float32) for w in expected["init"]])
        logs, test_loss = asyncio.run(index.run(model, name, name == "linear"))
        for key in ("loss", "val_loss"):
            np.testing.assert_allclose([log[key] for log in logs],
                                       [log[key] for log in expected["logs"]],
                                       rtol=2e-5, err_msg=f"{name}: {key}")  # fmt: skip
        assert list(logs[0]) == list(expected["logs"][0])  # val_loss first, as tfjs
        np.testing.assert_allclose(test_loss, expected["test_loss"], rtol=2e-5)
    assert math_random.left == 0
    assert "Test-set loss" in capsys.readouterr().out


def test_custom_layer_demo_draws_like_tfjs():
    """examples/custom_layer (the Antirectifier and index.js's demo) against tfjs 4.22 on the
    same picture: the layer's output, and the bytes drawn on both canvases."""
    ref = _fixture("antirectifier.json")
    ui = _fresh("examples.custom_layer.ui")
    index = _fresh("examples.custom_layer.index")
    cat = ui.document.getElementById("cat")
    assert (cat.width, cat.height, cat.data.tolist()) == (
        ref["image"]["width"],
        ref["image"]["height"],
        ref["image"]["data"],
    )
    img = tf.browser.fromPixels(cat).toFloat().expandDims(0)
    output = index.antirectifier().apply(img)
    assert list(output.shape) == ref["output"]["shape"]
    np.testing.assert_allclose(
        output.dataSync(), ref["output"]["values"], rtol=1e-5, atol=1e-4
    )  # pixel values up to 255
    index.customLayerDemo()
    for element, want in zip(("output_image_1", "output_image_2"), ref["canvases"]):
        [canvas] = ui.document.getElementById(element).children
        assert (canvas.width, canvas.height) == (want["width"], want["height"])
        assert canvas.imageData.data.bytes.tolist() == want["data"], element


def test_antirectifier_saves_and_loads_with_tfjs_model_json():
    """The registered Antirectifier class: tfjs's model.json of conv2d + Antirectifier loads
    here, and the same model built here writes the layer as tfjs does."""
    ref = _fixture("antirectifier.json")
    custom_layer = _fresh("examples.custom_layer.custom_layer")
    loaded = tf.models.modelFromJSON(ref["model_json"])
    assert type(loaded.layers[1]).__name__ == "Antirectifier"
    assert list(loaded.outputs[0].shape) == ref["output_shape"]
    model = tf.sequential({"layers": [
        tf.layers.conv2d({"inputShape": [5, 6, 3], "filters": 2, "kernelSize": 2}),
        custom_layer.antirectifier(),
    ]})  # fmt: skip
    assert list(model.outputs[0].shape) == ref["output_shape"]
    written = model.toJSON(None, False)["config"]["layers"][1]
    assert written["class_name"] == "Antirectifier"
    assert written["config"]["trainable"] is True
    x = tf.randomUniform([2, 5, 6, 3])
    np.testing.assert_allclose(
        tf.models.modelFromJSON(model.toJSON(None, False)).predict(x).shape, [2, 4, 5, 4]
    )


def _vae_training(monkeypatch, ref):
    """Runs examples/fashion_mnist_vae's train() on the fixture's images, initial weights and
    epsilons; returns (losses, previews, final weights)."""
    sizes = ref["sizes"]
    data = _fresh("examples.fashion_mnist_vae.data")
    model = _fresh("examples.fashion_mnist_vae.model")
    train = _fresh("examples.fashion_mnist_vae.train")
    monkeypatch.setattr(data, "IMAGE_HEIGHT", sizes["imageHeight"])
    monkeypatch.setattr(data, "IMAGE_WIDTH", sizes["imageWidth"])
    monkeypatch.setattr(data, "NUM_IMAGES", sizes["numImages"])
    math_random = _Replay(ref["math_random"], "Math.random() draws")
    monkeypatch.setattr(random, "random", math_random)
    images = asyncio.run(data.loadImages("unused"))
    assert math_random.left == 0
    # tfjs draws ZLayer's epsilon once per output of the nested encoder; the port draws it
    # once per step, and gets the draw that reached tfjs's decoder
    epsilons = _Replay([ref["epsilons"][k] for k in ref["used"]], "epsilons")

    def random_normal(shape, mean=0, stddev=1, *rest):
        assert (mean, stddev, rest) == (0, 1.0, ())
        return tf.tensor(epsilons(), shape)

    monkeypatch.setattr(tf, "randomNormal", random_normal)
    monkeypatch.setattr(train, "epochs", sizes["epochs"])
    monkeypatch.setattr(train, "batchSize", sizes["batchSize"])
    losses, previews, built = [], [], []

    def vae(encoder, decoder):
        vaeModel = model.vae(encoder, decoder)
        vaeModel.setWeights([np.reshape(np.asarray(w, np.float32), s)
                             for w, s in zip(ref["init"], ref["weight_shapes"])])  # fmt: skip
        built.append(vaeModel)
        return vaeModel

    def vaeLoss(*args):
        loss = model.vaeLoss(*args)
        losses.append(float(loss.dataSync()[0]))
        return loss

    async def previewImage(imageData):
        previews.append(np.asarray(imageData).tolist())

    monkeypatch.setattr(train, "vae", vae)
    monkeypatch.setattr(train, "vaeLoss", vaeLoss)
    monkeypatch.setattr(train, "previewImage", previewImage)
    vaeOpts = types.SimpleNamespace(originalDim=sizes["imageHeight"] * sizes["imageWidth"],
                                    intermediateDim=sizes["intermediateDim"],
                                    latentDim=sizes["latentDim"])  # fmt: skip
    return train, images, vaeOpts, losses, previews, built, epsilons


def test_fashion_mnist_vae_trains_like_tfjs(monkeypatch, capsys, tmp_path):
    """examples/fashion_mnist_vae (ZLayer's sampling, the custom vaeLoss, optimizer.minimize
    over batches) against tfjs 4.22: same images, initial weights and epsilons."""
    ref = _fixture("fashion_mnist_vae.json")
    train, images, vaeOpts, losses, previews, built, epsilons = _vae_training(monkeypatch, ref)
    asyncio.run(train.train(images, vaeOpts, str(tmp_path), None))
    assert epsilons.left == 0
    np.testing.assert_allclose(losses, ref["losses"], rtol=1e-5)
    np.testing.assert_allclose(previews, ref["previews"], rtol=1e-5, atol=1e-6)
    [vaeModel] = built
    named = [w.name if w.name.startswith("z_") else w.name.split("/")[-1]
             for w in vaeModel.weights]  # fmt: skip
    assert named == [n if n.startswith("z_") else n.split("/")[-1] for n in ref["weight_names"]]
    for got, want, name in zip(vaeModel.getWeights(), ref["final"], ref["weight_names"]):
        np.testing.assert_allclose(np.ravel(got.dataSync()), want, rtol=1e-5, atol=1e-6,
                                   err_msg=name)  # fmt: skip
    out = capsys.readouterr().out
    assert "Loss:" in out and "Saving decoder to file://" in out
    decoder = tf.loadLayersModel(f"file://{tmp_path}/decoder/model.json")
    np.testing.assert_allclose(decoder.predict(tf.zeros([1, vaeOpts.latentDim])).dataSync(),
                               ref["previews"][-1], rtol=1e-5, atol=1e-6)  # fmt: skip
