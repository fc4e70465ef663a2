"""`model.fit` on the tiny MLP (32-64-64-1, relu, MSE, Adam 1e-3): one step = one epoch.

The data is `_mlp.problem("tiny")`'s 100 batches of 32 as one dataset of 3,200 samples;
an epoch is 100 batches in order (shuffle off, so every runtime follows the same losses)
and its loss is the epoch's size-weighted mean of the batch losses, as tfjs logs it.
The medium MLP (512-1024-1024-10, 100 batches of 256) runs fit and baseline_fit only, as a
classifier written the tfjs way: a softmax output and 'categoricalCrossentropy'.

  fit           tfjs_grad as a tfjs user writes it: `tf.sequential` of `tf.layers.dense`,
                `model.compile({optimizer: tf.train.adam(...), loss: 'meanSquaredError'})`,
                `model.fit(x, y, {epochs: 1, batchSize: 32, shuffle: false, verbose: 0})`
  baseline_fit  the loop a JAX user writes: `jax.jit(step, donate_argnums=(0, 1, 2))` over a
                params dict and `optax.adam` state, batches sliced from the arrays on
                device, the epoch's loss summed inside the step
  baseline_scan the same step as the body of one `jax.lax.scan` over the epoch's 100
                batches, one jitted call (and dispatch) per epoch
  keras_fit     Keras 3 on the JAX backend as a Keras user writes it: `keras.Sequential`
                of `keras.layers.Dense`, `compile(optimizer=keras.optimizers.Adam(...),
                loss="mean_squared_error")`, `fit(x, y, epochs=1, batch_size=32,
                shuffle=False, verbose=0)` on the numpy arrays
  keras_fit_spe the same with `compile(..., steps_per_execution=100)`: a whole epoch per
                dispatch, Keras's own answer to per-batch overhead
  tfjs-cpu/wasm tfjs 4.22's `model.fit` in Node, the same model, weights and data
                (benchmarks/node/fit.js)

The Keras rows run only where keras is importable (the `bench` extra), in the same worker
as fit and with the same JAX; the worker sets KERAS_BACKEND=jax before importing it.
Keras's Adam adds epsilon to sqrt(v) before the bias correction (tfjs and optax after it),
so its losses agree within the other runtimes' tolerance (3e-4 relative over 3 epochs).
"""

from __future__ import annotations

import importlib.util
import os
from typing import Any

import _mlp
import numpy as np
from _harness import Runner

BATCH = 32
BATCHES_PER_EPOCH = 100


def dataset(workload: str = "tiny") -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """(initial weights, x, y) from the MLP problem: tiny's x is [3200, 32], y [3200, 1];
    medium's x [25600, 512], y one-hot [25600, 10]."""
    _, init, xs, ys = _mlp.problem(workload)
    return init, xs.reshape(-1, xs.shape[-1]), ys.reshape(-1, ys.shape[-1])


def _is_classifier(workload: str) -> bool:
    """medium classifies: a softmax output and categorical cross-entropy (tfjs's way)."""
    return _mlp.WORKLOADS[workload]["loss"] == "xent"


def _fit_runner(workload: str = "tiny") -> Runner:
    import tfjs_grad as tf

    init, x, y = dataset(workload)
    sizes = _mlp.WORKLOADS[workload]["sizes"]
    output = "softmax" if _is_classifier(workload) else "linear"
    layers = []
    for i, units in enumerate(sizes[1:]):
        config: dict[str, Any] = {"units": units}
        config["activation"] = "relu" if i < len(sizes) - 2 else output
        if i == 0:
            config["inputShape"] = [sizes[0]]
        layers.append(tf.layers.dense(config))
    model = tf.sequential({"layers": layers})
    model.setWeights([init[f"{k}{i}"] for i in range(len(sizes) - 1) for k in "wb"])
    optimizer = tf.train.adam(_mlp.LEARNING_RATE, _mlp.BETA1, _mlp.BETA2, _mlp.EPSILON)
    loss = "categoricalCrossentropy" if _is_classifier(workload) else "meanSquaredError"
    model.compile({"optimizer": optimizer, "loss": loss})
    xs, ys = tf.tensor(x), tf.tensor(y)
    batch = _mlp.WORKLOADS[workload]["batch"]
    args = {"epochs": 1, "batchSize": batch, "shuffle": False, "verbose": 0}

    def run(n: int) -> Any:
        history = None
        for _ in range(n):
            history = model.fit(xs, ys, args)
        return history

    def trace(n: int) -> list[float]:
        return [model.fit(xs, ys, args).history["loss"][0] for _ in range(n)]

    return Runner(run=run, sync=lambda h: h.history["loss"][-1], trace=trace)


def _baseline_runner(scan: bool = False, workload: str = "tiny") -> Runner:
    """The hand-written epoch: one jitted step per batch, or (scan) the whole epoch as one
    `jax.lax.scan` over the batches in one jitted call."""
    import functools

    import jax
    import jax.numpy as jnp
    import optax

    init, x, y = dataset(workload)
    layers = len(_mlp.WORKLOADS[workload]["sizes"]) - 1
    xs, ys = jnp.asarray(x), jnp.asarray(y)
    batch = _mlp.WORKLOADS[workload]["batch"]
    batches = x.shape[0] // batch
    classifier = _is_classifier(workload)

    def loss_fn(params, xb, yb):
        h = xb
        for i in range(layers):
            h = h @ params[f"w{i}"] + params[f"b{i}"]
            if i < layers - 1:
                h = jax.nn.relu(h)
        if classifier:  # tfjs-layers' categorical cross-entropy of the softmax's output:
            p = jax.nn.softmax(h)  # renormalized, clipped at its epsilon
            p = jnp.clip(p / jnp.sum(p, axis=-1, keepdims=True), 1e-7, 1 - 1e-7)
            return jnp.mean(-jnp.sum(yb * jnp.log(p), axis=-1))
        return jnp.mean((h - yb) ** 2)

    tx = optax.adam(_mlp.LEARNING_RATE, b1=_mlp.BETA1, b2=_mlp.BETA2, eps=_mlp.EPSILON)
    params = {name: jnp.asarray(value) for name, value in init.items()}
    state = {"params": params, "opt_state": tx.init(params)}

    @functools.partial(jax.jit, donate_argnums=(0, 1, 2))
    def step(params, opt_state, total, xs, ys, start):
        xb = jax.lax.dynamic_slice_in_dim(xs, start, batch)
        yb = jax.lax.dynamic_slice_in_dim(ys, start, batch)
        loss, grads = jax.value_and_grad(loss_fn)(params, xb, yb)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, total + loss * batch

    def scan_body(carry, batch):
        params, opt_state = carry
        loss, grads = jax.value_and_grad(loss_fn)(params, *batch)
        updates, opt_state = tx.update(grads, opt_state, params)
        return (optax.apply_updates(params, updates), opt_state), loss

    @functools.partial(jax.jit, donate_argnums=(0, 1))
    def scan_epoch(params, opt_state, xs, ys):
        stacked = (xs.reshape(batches, batch, -1), ys.reshape(batches, batch, -1))
        (params, opt_state), losses = jax.lax.scan(scan_body, (params, opt_state), stacked)
        return params, opt_state, jnp.sum(losses) * batch

    def epoch() -> Any:
        if scan:
            state["params"], state["opt_state"], total = scan_epoch(
                state["params"], state["opt_state"], xs, ys
            )
            return total
        total = jnp.zeros((), jnp.float32)
        for b in range(batches):
            state["params"], state["opt_state"], total = step(
                state["params"], state["opt_state"], total, xs, ys, b * batch
            )
        return total

    def run(n: int) -> Any:
        total = None
        for _ in range(n):
            total = epoch()
        return total

    def sync(total: Any) -> float:
        return float(total) / (batches * batch)

    return Runner(run=run, sync=sync, trace=lambda n: [sync(epoch()) for _ in range(n)])


KERAS_VARIANTS = {"keras_fit": 1, "keras_fit_spe": BATCHES_PER_EPOCH}  # steps_per_execution


def keras_missing() -> str | None:
    """Why the Keras rows cannot run, or None."""
    if importlib.util.find_spec("keras") is None:
        return "keras is not installed: pip install -e '.[bench]'"
    return None


def _keras_runner(steps_per_execution: int) -> Runner:
    os.environ["KERAS_BACKEND"] = "jax"
    import keras

    if keras.backend.backend() != "jax":
        raise RuntimeError(f"keras runs on {keras.backend.backend()}, not jax")
    init, x, y = dataset()
    sizes = _mlp.WORKLOADS["tiny"]["sizes"]
    model = keras.Sequential([keras.Input((sizes[0],))])
    for i, units in enumerate(sizes[1:]):
        model.add(keras.layers.Dense(units, activation="relu" if i < len(sizes) - 2 else None))
    model.set_weights([init[f"{k}{i}"] for i in range(len(sizes) - 1) for k in "wb"])
    optimizer = keras.optimizers.Adam(
        _mlp.LEARNING_RATE, beta_1=_mlp.BETA1, beta_2=_mlp.BETA2, epsilon=_mlp.EPSILON
    )
    model.compile(
        optimizer=optimizer, loss="mean_squared_error", steps_per_execution=steps_per_execution
    )
    args = {"epochs": 1, "batch_size": BATCH, "shuffle": False, "verbose": 0}

    def run(n: int) -> Any:
        history = None
        for _ in range(n):
            history = model.fit(x, y, **args)
        return history

    def trace(n: int) -> list[float]:
        return [model.fit(x, y, **args).history["loss"][0] for _ in range(n)]

    return Runner(run=run, sync=lambda h: h.history["loss"][-1], trace=trace)


def python_runners(workload: str = "tiny") -> tuple[dict[str, Runner], dict[str, Any]]:
    """fit and its hand-written twin on `workload`; on tiny also lax.scan and Keras."""
    import jax

    runners = {"baseline_fit": _baseline_runner(workload=workload)}
    if workload == "tiny":
        runners["baseline_scan"] = _baseline_runner(scan=True)
    runners["fit"] = _fit_runner(workload)
    detail = f"jax {jax.__version__}"
    if workload == "tiny" and keras_missing() is None:
        for name, steps_per_execution in KERAS_VARIANTS.items():
            runners[name] = _keras_runner(steps_per_execution)
        import keras

        detail += f", keras {keras.__version__}"
    return runners, {"detail": detail}


def write_problem(directory: Any) -> None:
    """The Node worker's inputs: weights and the dataset as raw float32 (+ meta.json)."""
    import json

    init, x, y = dataset()
    meta: dict[str, Any] = {"sizes": _mlp.WORKLOADS["tiny"]["sizes"], "batch": BATCH, "arrays": {}}
    for name, array in {**init, "x": x, "y": y}.items():
        (directory / f"{name}.f32").write_bytes(array.astype("<f4").tobytes())
        meta["arrays"][name] = {"file": f"{name}.f32", "shape": list(array.shape)}
    (directory / "meta.json").write_text(json.dumps(meta))
