"""examples/snake_dqn trains like tfjs 4.22, and its target network stays its own.

`tests/reference/gen_snake.js` runs the example's training (epsilon-greedy play into the
replay memory, `trainOnReplayBatch` steps with `tf.variableGrads` and Adam, a sync of the
target network) with the real tfjs and writes `snake_dqn.json`. Its random draws are
reproducible here: JS's `Math.random` is mulberry32 from a seed (`_MathRandom` below gives
the same doubles to `random.random`), the weights are set per layer from mulberry32 streams,
and tfjs's dropout masks are recorded and handed to the port through `jax.random.bernoulli`,
the draw tfjs_grad's dropout layer makes. The port itself runs unchanged.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path
from types import SimpleNamespace

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfjs_grad as tf
from examples.snake_dqn import train as train_module
from examples.snake_dqn.agent import SnakeGameAgent
from examples.snake_dqn.dqn import copyWeights, createDeepQNetwork
from examples.snake_dqn.replay_memory import ReplayMemory
from examples.snake_dqn.snake_game import SnakeGame, getStateTensor

REFERENCE = Path(__file__).parent / "reference"
_MASK32 = np.uint64(0xFFFFFFFF)


def _mulberry32(seed: int, n: int, start: int = 0) -> np.ndarray:
    """Draws start+1 .. start+n of tests/reference/mulberry32.js's generator, as doubles
    (its state only advances by a constant, so every draw can be computed at once)."""
    k = np.arange(start + 1, start + n + 1, dtype=np.uint64)
    state = (np.uint64(seed & 0xFFFFFFFF) + k * np.uint64(0x6D2B79F5)) & _MASK32
    t = ((state ^ (state >> np.uint64(15))) * (state | np.uint64(1))) & _MASK32
    t = ((t + (((t ^ (t >> np.uint64(7))) * (t | np.uint64(61))) & _MASK32)) & _MASK32) ^ t
    return ((t ^ (t >> np.uint64(14))) & _MASK32).astype(np.float64) / 2.0**32


def test_mulberry32_gives_the_js_generators_draws():
    # node -e "const g=require('./tests/reference/mulberry32').mulberry32(11);
    #          console.log([g(), g(), g()])"
    np.testing.assert_array_equal(
        _mulberry32(11, 3), [0.5115870486479253, 0.5299464082345366, 0.6081185641232878]
    )
    np.testing.assert_array_equal(_mulberry32(11, 2, start=1), _mulberry32(11, 3)[1:])


class _MathRandom:
    """`random.random` replaced by JS's `Math.random` of the generator: mulberry32(seed)."""

    def __init__(self, seed: int):
        self.seed, self.draws, self.values = seed, 0, np.empty(0)

    def __call__(self) -> float:
        if self.draws == len(self.values):
            self.values = np.concatenate([self.values, _mulberry32(self.seed, 1024, self.draws)])
        self.draws += 1
        return float(self.values[self.draws - 1])


def _kind(variable) -> str:
    return re.sub(r"_\d+$", "", variable.name.split("/")[-1])


def _layer_of(model, variable) -> int:
    return next(
        i for i, layer in enumerate(model.layers) if any(w is variable for w in layer.weights)
    )


def _weight_names(model) -> list[list]:
    return [[_layer_of(model, w), _kind(w)] for w in model.weights]


def _initialise(model, which: int, ref: dict) -> None:
    """The weights gen_snake.js sets (its header says how they are drawn)."""
    for i, layer in enumerate(model.layers):
        values = []
        for w in layer.weights:
            kind, shape = _kind(w), list(w.shape)
            size = int(np.prod(shape))
            seed = ref["weight_seed"] + 100 * which + 10 * i + ref["kinds"].index(kind)
            u = _mulberry32(seed, size)
            fan_in = size / shape[-1] if len(shape) > 1 else 1
            scaled = {
                "kernel": (2 * u - 1) * np.sqrt(3 / fan_in),
                "bias": (u - 0.5) / 10,
                "gamma": 1 + (u - 0.5) / 5,
                "beta": (u - 0.5) / 5,
                "moving_mean": (u - 0.5) / 5,
                "moving_variance": 1 + u / 2,
            }[kind]
            values.append(np.float32(scaled).reshape(shape))
        if values:
            layer.setWeights(values)


def _check_summary(value, want: dict, rtol: float, what: str) -> None:
    """A weight (or gradient) against gen_snake.js's summary of tfjs's: its sum, norm and
    eight picked values, with tolerances relative to the tensor's own scale."""
    flat = np.ravel(np.asarray(value, np.float64))
    assert list(np.shape(value)) == want["shape"], what
    norm = float(np.linalg.norm(flat))
    scale = want["norm"] / np.sqrt(flat.size)  # root mean square
    np.testing.assert_allclose(norm, want["norm"], rtol=rtol, err_msg=f"{what}: norm")
    np.testing.assert_allclose(flat.sum(), want["sum"], rtol=rtol, atol=rtol * want["norm"],
                               err_msg=f"{what}: sum")  # fmt: skip
    picks = flat[[int(flat.size * (k + 0.5) / 8) for k in range(8)]]
    np.testing.assert_allclose(picks, want["picks"], rtol=rtol, atol=rtol * scale,
                               err_msg=f"{what}: picks")  # fmt: skip
    if "full" in want:
        np.testing.assert_allclose(flat, want["full"], rtol=rtol, atol=rtol * scale,
                                   err_msg=f"{what}: values")  # fmt: skip


@pytest.fixture(scope="module")
def ref() -> dict:
    return json.loads((REFERENCE / "snake_dqn.json").read_text())


def test_snake_dqn_trains_like_tfjs(ref, monkeypatch, capsys):
    setup = SimpleNamespace(**ref["setup"])
    math_random = _MathRandom(ref["math_seed"])
    monkeypatch.setattr(random, "random", math_random)

    masks = list(ref["dropout_masks"])

    def bernoulli(key, p=0.5, shape=None, *rest):
        assert (p, tuple(shape), rest) == (0.75, (setup.batchSize, 100), ())
        assert masks, "the port drew more dropout masks than tfjs did"
        return jnp.asarray(np.array(list(masks.pop(0))) == "1").reshape(shape)

    monkeypatch.setattr(jax.random, "bernoulli", bernoulli)

    game = SnakeGame(SimpleNamespace(
        height=setup.height, width=setup.width, numFruits=setup.numFruits,
        initLen=setup.initLen))  # fmt: skip
    agent = SnakeGameAgent(game, SimpleNamespace(
        replayBufferSize=setup.replayBufferSize, epsilonInit=setup.epsilonInit,
        epsilonFinal=setup.epsilonFinal, epsilonDecayFrames=setup.epsilonDecayFrames,
        learningRate=setup.learningRate))  # fmt: skip
    online, target = agent.onlineNetwork, agent.targetNetwork
    # tfjs's weight order: trainable weights first, unless the whole model is frozen.
    assert _weight_names(online) == ref["weight_names"]["online"]
    assert _weight_names(target) == ref["weight_names"]["target"]
    target.trainable = True
    assert _weight_names(target) == ref["weight_names"]["target_trainable"]
    target.trainable = False
    _initialise(online, 0, ref)
    _initialise(target, 1, ref)

    frames, greedy = [], []
    real_predict, real_play = online.predict, agent.playStep

    def predict(x, *args, **kwargs):  # playStep's greedy action
        out = real_predict(x, *args, **kwargs)
        greedy.append(np.ravel(out))
        return out

    def play_step():
        before = len(greedy)
        out = real_play()
        memory = agent.replayMemory
        reward = memory.buffer[(memory.index - 1) % memory.maxLen][2]
        q = greedy[-1] if len(greedy) > before else None
        frames.append([out.action, reward, out.done, q])
        return out

    monkeypatch.setattr(online, "predict", predict)
    monkeypatch.setattr(agent, "playStep", play_step)

    steps, real_variable_grads, real_train = [], tf.variableGrads, agent.trainOnReplayBatch

    def variable_grads(f, *args):
        result = real_variable_grads(f, *args)
        steps.append({"loss": float(result.value),
                      "grads": {k: np.asarray(g) for k, g in result.grads.items()}})  # fmt: skip
        return result

    def train_on_replay_batch(batchSize, gamma, optimizer):
        real_train(batchSize, gamma, optimizer)
        steps[-1]["sample"] = agent.replayMemory.bufferIndices_[:batchSize]

    monkeypatch.setattr(tf, "variableGrads", variable_grads)
    monkeypatch.setattr(agent, "trainOnReplayBatch", train_on_replay_batch)

    syncs, probe_states = [], []

    def copy_weights(dest, src):
        probe_states[:] = probe_states or [e[0] for e in agent.replayMemory.buffer[:4]]
        sync = {"frame": agent.frameCount, "probe_target_before": probe(target, probe_states)}
        copyWeights(dest, src)
        sync["probe_online"] = probe(online, probe_states)
        sync["probe_target_after"] = probe(target, probe_states)
        syncs.append(sync)

    def probe(model, states):
        predict_fn = real_predict if model is online else model.predict
        return np.asarray(predict_fn(getStateTensor(states, game.height, game.width)))

    monkeypatch.setattr(train_module, "copyWeights", copy_weights)

    training = train_module.train(
        agent,
        setup.batchSize,
        setup.gamma,
        setup.learningRate,
        setup.cumulativeRewardThreshold,
        setup.maxNumFrames,
        setup.syncEveryFrames,
        None,
    )
    asyncio.run(training)

    # The games: the same actions (greedy ones from the same Q values), rewards and ends.
    assert math_random.draws == ref["math_draws"]
    assert len(frames) == len(ref["frames"])
    for n, (got, want) in enumerate(zip(frames, ref["frames"])):
        assert got[:3] == want[:3], f"frame {n + 1}"
        assert (got[3] is None) == (want[3] is None), f"frame {n + 1}: greedy or random"
        if want[3] is not None:
            np.testing.assert_allclose(got[3], want[3], rtol=1e-4, atol=1e-5,
                                       err_msg=f"frame {n + 1}: Q values")  # fmt: skip
    assert masks == []

    # The training steps: batches, losses, gradients of the online network only.
    assert len(steps) == len(ref["steps"])
    names = [w.name for w in online.trainableWeights]
    for n, (got, want) in enumerate(zip(steps, ref["steps"])):
        assert got["sample"] == want["sample"], f"step {n + 1}"
        np.testing.assert_allclose(got["loss"], want["loss"], rtol=1e-4, err_msg=f"step {n + 1}")
        assert list(got["grads"]) == names  # the target network is not trainable
        for name, summary in zip(names, want["grads"], strict=True):
            _check_summary(got["grads"][name], summary, 1e-3, f"step {n + 1}: d{name}")

    # The sync: the target network takes the online network's weights and keeps them.
    assert [s["frame"] for s in syncs] == [s["frame"] for s in ref["syncs"]]
    for got, want in zip(syncs, ref["syncs"]):
        for key in ("probe_target_before", "probe_online", "probe_target_after"):
            np.testing.assert_allclose(got[key], want[key], rtol=1e-4, atol=1e-5, err_msg=key)
        np.testing.assert_allclose(got["probe_target_after"], got["probe_online"], rtol=1e-6)
    final = ref["final"]
    assert agent.frameCount == final["frame_count"]
    assert agent.epsilon == final["epsilon"]
    np.testing.assert_allclose(probe(online, probe_states), final["probe_online"],
                               rtol=1e-4, atol=1e-5)  # fmt: skip
    np.testing.assert_allclose(probe(target, probe_states), final["probe_target"],
                               rtol=1e-4, atol=1e-5)  # fmt: skip
    np.testing.assert_allclose(probe(target, probe_states), syncs[-1]["probe_target_after"],
                               rtol=1e-6)  # fmt: skip
    for model, summaries, name in ((online, final["online"], "online"),
                                   (target, final["target"], "target")):  # fmt: skip
        assert len(model.weights) == len(summaries)
        for w, summary in zip(model.weights, summaries):
            assert [_layer_of(model, w), _kind(w)] == [summary["layer"], summary["kind"]]
            _check_summary(w.read(), summary, 1e-4, f"{name}: {w.name}")

    # train.js's lines, but for the frames per second.
    out = capsys.readouterr().out.splitlines()
    assert [re.sub(r" \([^()]* frames/s\)$", "", line) for line in out] == ref["log"]


def _by_layer(model) -> np.ndarray:
    """All of a model's weight values, layer by layer (each layer in its own order)."""
    return np.concatenate([np.ravel(w) for layer in model.layers for w in layer.getWeights()])


def test_target_network_is_independent_of_the_online_network_after_copyWeights():
    """copyWeights gives the frozen target network the online network's values, not its
    Variables: training the online network (variableGrads + applyGradients, batch norm's
    moving statistics written in training mode) leaves the target as it was copied."""
    random.seed(5)
    game = SnakeGame(SimpleNamespace(height=7, width=7, numFruits=1, initLen=2))
    agent = SnakeGameAgent(game, SimpleNamespace(
        replayBufferSize=8, epsilonInit=1, epsilonFinal=1, epsilonDecayFrames=1,
        learningRate=0.01))  # fmt: skip
    online, target = agent.onlineNetwork, agent.targetNetwork
    for _ in range(8):
        agent.playStep()
    copyWeights(target, online)
    assert target.trainable is False and online.trainable is True
    assert not {id(w) for w in target.weights} & {id(w) for w in online.weights}
    copied = [np.asarray(w) for w in online.getWeights()]
    as_copied = _by_layer(target)
    np.testing.assert_array_equal(as_copied, _by_layer(online))
    probe = getStateTensor([e[0] for e in agent.replayMemory.buffer[:4]], 7, 7)
    before = np.asarray(target.predict(probe))
    np.testing.assert_allclose(before, np.asarray(online.predict(probe)), rtol=1e-6)

    optimizer = tf.train.adam(0.01)
    for _ in range(2):
        agent.trainOnReplayBatch(4, 0.99, optimizer)

    moved = [not np.allclose(np.asarray(w), c) for w, c in zip(online.getWeights(), copied)]
    assert all(moved)  # every trainable weight, and batch norm's moving statistics
    assert not any(w.trainable for layer in target.layers for w in layer.weights)
    np.testing.assert_array_equal(_by_layer(target), as_copied)
    np.testing.assert_array_equal(np.asarray(target.predict(probe)), before)
    assert not np.allclose(np.asarray(online.predict(probe)), before)


def test_copyWeights_without_the_trainable_workaround_fails_on_the_order():
    """Why dqn.js's copyWeights flips `trainable`: a frozen model lists its weights layer by
    layer, so a plain setWeights(getWeights()) from a trainable one mismatches shapes."""
    online, target = createDeepQNetwork(7, 7, 3), createDeepQNetwork(7, 7, 3)
    target.trainable = False
    with pytest.raises(ValueError, match="not compatible"):
        target.setWeights(online.getWeights())
    copyWeights(target, online)
    assert target.trainable is False


def test_replay_memory_samples_without_replacement_like_tfjs_shuffle():
    random.seed(3)
    memory = ReplayMemory(5)
    for item in range(7):
        memory.append(item)
    assert (memory.length, memory.index, memory.buffer) == (5, 2, [5, 6, 2, 3, 4])
    batch = memory.sample(5)
    assert sorted(batch) == [2, 3, 4, 5, 6]
    with pytest.raises(ValueError, match=r"batchSize \(6\) exceeds buffer length \(5\)"):
        memory.sample(6)
