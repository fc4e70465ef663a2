"""Masks (embedding maskZero, masking) through models into RNN layers, against TensorFlow.js
4.22: tests/reference/masks.json (gen_masks.js), plus closed-form checks (a masked tail is
the same as a shorter sequence) and the errors for what is not supported."""

import json
import re
from pathlib import Path

import numpy as np
import pytest

import tfjs_grad as tf
from tfjs_grad.layers.base import original_name

FIXTURE = json.loads((Path(__file__).parent / "reference" / "masks.json").read_text())
CASES = FIXTURE["cases"]
RTOL, ATOL = 1e-4, 1e-5


def _arr(entry, dtype=np.float32):
    return np.asarray(entry["values"], dtype).reshape(entry["shape"])


def _make(factory, config):
    config = dict(config)
    if isinstance(config.get("layer"), dict):
        config["layer"] = _make(config["layer"]["factory"], config["layer"]["config"])
    return getattr(tf.layers, factory)(config)


def _uncounted(name):
    return re.sub(r"\d+", "", name)


def _build(case):
    spec, shape = case["layers"], case["input"]["shape"]
    if case["kind"] == "sequential":
        model = tf.sequential()
        for i, layer in enumerate(spec):
            config = dict(layer["config"], **({"inputShape": shape} if i == 0 else {}))
            model.add(_make(layer["factory"], config))
    else:
        x = tf.input(shape=shape, dtype=case["input"]["dtype"])
        made = {"input": x}
        for layer in spec:
            ins = [made[n] for n in layer["inputs"]]
            made[layer["config"]["name"]] = _make(layer["factory"], layer["config"]).apply(
                ins[0] if len(ins) == 1 else ins
            )
        model = tf.model(inputs=x, outputs=made[spec[-1]["config"]["name"]])
    # auto names count layers per process: compare them without the counter
    assert [_uncounted(original_name(w)) for w in model.weights] == [
        _uncounted(w["name"]) for w in case["weights"]
    ]
    model.setWeights([_arr(w) for w in case["weights"]])
    dtype = np.int32 if case["input"]["dtype"] == "int32" else np.float32
    return model, _arr(case["x"], dtype)


def _outputs(out):
    return [np.asarray(o) for o in (out if isinstance(out, list) else [out])]


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_predict_matches_tfjs(case_id):
    case = CASES[case_id]
    model, x = _build(case)
    got = _outputs(model.predict(x))
    for g, want in zip(got, case["outputs"], strict=True):
        np.testing.assert_allclose(g, _arr(want), rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_weight_gradients_match_tfjs(case_id):
    case = CASES[case_id]
    model, x = _build(case)
    cots = [_arr(c) for c in case["cotangents"]]

    def loss():
        outs = model.apply(x)
        outs = outs if isinstance(outs, list) else [outs]
        return tf.addN([tf.sum(tf.mul(o, c)) for o, c in zip(outs, cots, strict=True)])

    weights = model.trainableWeights
    _, grads = tf.variableGrads(loss, weights)
    assert len(weights) == len(case["grad_weights"])
    for w, name in zip(weights, case["grad_weights"], strict=True):
        assert _uncounted(original_name(w)) == _uncounted(name)
        want = np.asarray(case["grad_weights"][name], np.float32)
        np.testing.assert_allclose(np.asarray(grads[w.name]).ravel(), want, rtol=1e-4, atol=1e-5)


# fit compiles a training step per model (~10 s each here): the fixture has a fit for every
# case, the suite replays one per RNN kind, direction and wrapper, and the graph quirks.
FIT_CASES = [
    "simpleRNN_seq_back",
    "lstm_last",
    "gru_seq",
    "masking_gru",
    "bidirectional_lstm_concat",
    "conv1d_stale_mask_lstm",
    "functional_branches",
]


def test_fit_cases_have_fixture_fits():
    assert all(CASES[c].get("fit") for c in FIT_CASES)


@pytest.mark.parametrize("case_id", FIT_CASES)
def test_fit_matches_tfjs(case_id):
    case = CASES[case_id]
    fit = case["fit"]
    model, x = _build(case)
    model.compile(optimizer=tf.train.sgd(fit["lr"]), loss="meanSquaredError")
    history = model.fit(x, _arr(fit["y"]), epochs=fit["epochs"], batchSize=fit["batchSize"],
                        shuffle=False, verbose=0)  # fmt: skip
    np.testing.assert_allclose(history.history["loss"], fit["loss"], rtol=1e-4, atol=1e-6)
    for w, want in zip(model.weights, fit["weights"], strict=True):
        np.testing.assert_allclose(np.asarray(w.read()).ravel(), want, rtol=1e-4, atol=2e-5)
    loss = model.evaluate(x, _arr(fit["y"]))
    assert np.isfinite(float(np.asarray(loss)))


def test_compute_mask_and_supports_masking_match_tfjs():
    want = FIXTURE["compute_mask"]
    ids = np.asarray([[3, 1, 4, 0, 0], [0, 0, 2, 5, 1], [1, 0, 3, 2, 0], [0, 0, 0, 0, 0]])
    emb = tf.layers.embedding({"inputDim": 6, "outputDim": 3, "maskZero": True})
    mask = emb.computeMask(ids)
    np.testing.assert_array_equal(np.asarray(mask), _arr(want["embedding"], bool))
    assert (tf.layers.embedding(inputDim=6, outputDim=3).computeMask(ids) is None) == want[
        "embedding_no_mask_zero"
    ]
    steps = np.where((ids != 0)[..., None], np.float32(0.5), np.float32(0)).repeat(2, -1)
    np.testing.assert_array_equal(
        np.asarray(tf.layers.masking(maskValue=0).compute_mask(steps)), _arr(want["masking"], bool)
    )
    np.testing.assert_array_equal(
        np.asarray(tf.layers.dense(units=2).computeMask(steps, mask)),
        _arr(want["dense_passes"], bool),
    )
    np.testing.assert_array_equal(
        np.asarray(tf.layers.lstm(units=2, returnSequences=True).computeMask(steps, mask)),
        _arr(want["lstm_seq"], bool),
    )
    assert (tf.layers.lstm(units=2).computeMask(steps, mask) is None) == want["lstm_last"]
    flags = want["supports_masking"]
    assert tf.layers.dense(units=2).supportsMasking == flags["dense"]
    assert tf.layers.flatten().supports_masking == flags["flatten"]
    assert tf.layers.lstm(units=2).supportsMasking == flags["lstm"]
    assert emb.supportsMasking == flags["embedding_mask_zero"]
    assert tf.layers.embedding(inputDim=2, outputDim=2).supportsMasking == flags["embedding"]
    assert tf.layers.conv1d(filters=1, kernelSize=1).supportsMasking == flags["conv1d"]
    assert tf.layers.masking().supportsMasking == flags["masking"]


def test_layer_without_masking_support_raises_tfjs_error():
    mask = np.ones((2, 3), bool)
    with pytest.raises(TypeError) as info:
        tf.layers.flatten(name="flat").computeMask(np.zeros((2, 3, 2), np.float32), mask)
    assert f"TypeError: {info.value}" == FIXTURE["errors"]["flatten_compute_mask"]
    assert tf.layers.flatten().computeMask(np.zeros((2, 3, 2), np.float32)) is None


def _rnn_model(factory, mask_zero, length, **rnn):
    model = tf.sequential()
    emb = {"inputDim": 6, "outputDim": 3, "inputLength": length}
    model.add(tf.layers.embedding(emb, maskZero=mask_zero, embeddingsInitializer="glorotUniform"))
    model.add(getattr(tf.layers, factory)(units=4, **rnn))
    return model


@pytest.mark.parametrize("factory", ["simpleRNN", "lstm", "gru"])
def test_masked_tail_equals_the_shorter_sequence(factory):
    """Closed form: a sequence with zero padding after it gives what the unpadded sequence
    gives (and a zero-padded front the same for goBackwards)."""
    masked = _rnn_model(factory, True, 5)
    plain = _rnn_model(factory, False, 3)
    plain.setWeights(masked.getWeights())
    got = np.asarray(masked.predict(np.array([[3, 1, 4, 0, 0]])))
    want = np.asarray(plain.predict(np.array([[3, 1, 4]])))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    back_masked = _rnn_model(factory, True, 5, goBackwards=True)
    back_plain = _rnn_model(factory, False, 3, goBackwards=True)
    back_plain.setWeights(back_masked.getWeights())
    got = np.asarray(back_masked.predict(np.array([[0, 3, 0, 1, 4]])))
    want = np.asarray(back_plain.predict(np.array([[3, 1, 4]])))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def test_rnn_apply_with_mask_kwarg_equals_model_path():
    model = _rnn_model("lstm", True, 5, returnSequences=True)
    ids = np.array([[3, 1, 4, 0, 0], [0, 2, 0, 5, 1]])
    emb, rnn = model.layers
    x = emb.apply(ids)
    mask = emb.computeMask(ids)
    np.testing.assert_allclose(
        np.asarray(rnn.apply(x, {"mask": mask})), np.asarray(model.predict(ids)), atol=1e-6
    )
    # masked steps repeat the previous output
    out = np.asarray(rnn.apply(x, {"mask": mask}))
    np.testing.assert_array_equal(out[0, 3], out[0, 2])
    np.testing.assert_array_equal(out[1, 0], np.zeros(4, np.float32))
    assert not np.allclose(np.asarray(rnn.apply(x)), out)
    nested = tf.sequential(layers=[model])
    np.testing.assert_allclose(np.asarray(nested.predict(ids)), out, atol=1e-6)


def test_model_compute_mask():
    model = _rnn_model("gru", True, 5, returnSequences=True)
    ids = np.array([[3, 0, 4, 0, 0]])
    (mask,) = model.computeMask(ids)
    np.testing.assert_array_equal(np.asarray(mask), [[True, False, True, False, False]])
    emb = tf.layers.embedding(inputDim=6, outputDim=2, maskZero=True, inputLength=5)
    flat = tf.sequential(layers=[emb, tf.layers.flatten()])
    with pytest.raises(TypeError, match="does not support masking"):
        flat.computeMask(ids)


def test_unsupported_mask_uses_raise():
    ids = np.array([[3, 1, 0]])
    td = tf.sequential(layers=[
        tf.layers.embedding(inputDim=6, outputDim=2, maskZero=True, inputLength=3),
        tf.layers.timeDistributed(layer=tf.layers.softmax()),
    ])  # fmt: skip
    with pytest.raises(NotImplementedError, match="time_distributed.*Softmax"):
        td.predict(ids)
    lstm = tf.layers.lstm(units=2)
    with pytest.raises(ValueError, match="mask of a recurrent layer"):
        lstm.apply(np.zeros((1, 3, 2), np.float32), {"mask": np.ones((1, 4), bool)})


def test_subclass_compute_mask_override_feeds_the_rnn():
    """A layer written as in tfjs (supportsMasking, computeMask overridden) gives the mask."""

    class FirstStepsOnly(tf.layers.Layer):
        className = "FirstStepsOnly"

        def __init__(self, config=None, /, **kwargs):
            super().__init__(config, **kwargs)
            self.supportsMasking = True

        def computeMask(self, inputs, mask=None):
            x = inputs[0] if isinstance(inputs, list) else inputs
            return tf.less(tf.range(0, x.shape[1]).reshape([1, -1]).tile([x.shape[0], 1]), 2)

    x = np.random.default_rng(0).normal(size=(2, 4, 3)).astype(np.float32)
    inp = tf.input(shape=[4, 3])
    rnn = tf.layers.simpleRNN(units=2)
    model = tf.model(inputs=inp, outputs=rnn.apply(FirstStepsOnly().apply(inp)))
    np.testing.assert_allclose(
        np.asarray(model.predict(x)), np.asarray(rnn.apply(x[:, :2])), rtol=1e-5, atol=1e-6
    )
