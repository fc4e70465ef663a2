"""The MLP workloads and every way of training them, each written as its users write it.

Same initial values and data everywhere: `problem()` draws them once from a seeded numpy
generator; the Node workers read them from the raw float32 files `write_problem` makes.
Step g trains on batch g % K in every variant; variants in one process share the data.
"""

from __future__ import annotations

import itertools
import json
import pathlib
from typing import Any, NamedTuple

import numpy as np
from _harness import Runner, stepper

WORKLOADS: dict[str, dict[str, Any]] = {
    "tiny": {"sizes": [32, 64, 64, 1], "batch": 32, "loss": "mse"},
    "medium": {"sizes": [512, 1024, 1024, 10], "batch": 256, "loss": "xent"},
}
K = 100  # batches held in memory; also the steps per call of the loop variants
LEARNING_RATE, BETA1, BETA2, EPSILON = 1e-3, 0.9, 0.999, 1e-7


def problem(workload: str) -> tuple[dict[str, Any], dict[str, np.ndarray], np.ndarray, np.ndarray]:
    """(spec, initial weights {w0, b0, ...}, xs [K, batch, in], ys [K, batch, out])."""
    spec = WORKLOADS[workload]
    rng = np.random.default_rng(0)
    sizes = spec["sizes"]
    init = {}
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        init[f"w{i}"] = (rng.standard_normal((a, b)) / np.sqrt(a)).astype(np.float32)
        init[f"b{i}"] = np.zeros(b, np.float32)
    xs = rng.standard_normal((K, spec["batch"], sizes[0])).astype(np.float32)
    if spec["loss"] == "mse":
        ys = rng.standard_normal((K, spec["batch"], 1)).astype(np.float32)
    else:
        labels = rng.integers(0, sizes[-1], (K, spec["batch"]))
        ys = np.eye(sizes[-1], dtype=np.float32)[labels]
    return spec, init, xs, ys


def write_problem(workload: str, directory: pathlib.Path) -> None:
    """Write `problem(workload)` as meta.json + raw little-endian float32 files."""
    spec, init, xs, ys = problem(workload)
    meta: dict[str, Any] = {"sizes": spec["sizes"], "loss": spec["loss"], "arrays": {}}
    for name, array in {**init, "xs": xs, "ys": ys}.items():
        (directory / f"{name}.f32").write_bytes(array.astype("<f4").tobytes())
        meta["arrays"][name] = {"file": f"{name}.f32", "shape": list(array.shape)}
    (directory / "meta.json").write_text(json.dumps(meta))


class Data(NamedTuple):
    """A workload in one runtime: spec, initial weights, stacked and per-step batches."""

    spec: dict[str, Any]
    init: dict[str, np.ndarray]
    xs: Any
    ys: Any
    batches: list[tuple[Any, Any]]

    @property
    def layers(self) -> int:
        return len(self.spec["sizes"]) - 1


def load(workload: str, variant: str) -> Data:
    """The workload's data as torch tensors (variants "torch@THREADS") or JAX arrays."""
    spec, init, xs, ys = problem(workload)
    if variant.startswith("torch"):
        import torch

        xs, ys = torch.from_numpy(xs), torch.from_numpy(ys)
    else:
        import jax.numpy as jnp

        xs, ys = jnp.asarray(xs), jnp.asarray(ys)
    return Data(spec, init, xs, ys, list(zip(xs, ys)))


def build(variant: str, data: Data) -> Runner:
    """One variant with its own model and optimizer state."""
    if variant.startswith("torch"):
        return _torch(data, threads=int(variant.partition("@")[2] or 1))
    if variant.startswith("baseline"):
        return _baseline(data, loop=variant == "baseline_loop")
    return _tfjs_grad(data, variant)


def runtime(variant: str) -> str:
    """One line naming the library versions and settings a variant runs with."""
    if variant.startswith("torch"):
        import torch

        threads = torch.get_num_threads()
        return f"torch {torch.__version__} eager, {threads} thread{'s' * (threads > 1)}"
    import jax

    return f"jax {jax.__version__}, {jax.default_backend()} backend"


def _jax_runner(step: Any, per_call: int = 1) -> Runner:
    import jax

    def sync(value: Any) -> float:
        value = jax.block_until_ready(value)
        return float(value[-1] if per_call > 1 else value)

    def losses(value: Any) -> list[float]:
        return [float(v) for v in np.asarray(value).reshape(-1)]

    return stepper(step, sync, losses, per_call)


def _baseline(data: Data, loop: bool) -> Runner:
    """The canonical hand-written JAX step: a params pytree, optax.adam, donated state."""
    import functools

    import jax
    import jax.numpy as jnp
    import optax

    def loss_fn(params, x, y):
        h = x
        for i in range(data.layers):
            h = h @ params[f"w{i}"] + params[f"b{i}"]
            if i < data.layers - 1:
                h = jax.nn.relu(h)
        if data.spec["loss"] == "mse":
            return jnp.mean((h - y) ** 2)
        return optax.softmax_cross_entropy(h, y).mean()

    tx = optax.adam(LEARNING_RATE, b1=BETA1, b2=BETA2, eps=EPSILON)
    params = {name: jnp.asarray(value) for name, value in data.init.items()}
    state = {"params": params, "opt_state": tx.init(params)}

    def update(params, opt_state, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    if not loop:
        train_step = jax.jit(update, donate_argnums=(0, 1))
        batches = itertools.cycle(data.batches)

        def step():
            state["params"], state["opt_state"], loss = train_step(
                state["params"], state["opt_state"], *next(batches)
            )
            return loss

        return _jax_runner(step)

    @functools.partial(jax.jit, donate_argnums=(0, 1))
    def train_k_steps(params, opt_state, xs, ys):
        def body(carry, batch):
            params, opt_state, loss = update(*carry, *batch)
            return (params, opt_state), loss

        (params, opt_state), losses = jax.lax.scan(body, (params, opt_state), (xs, ys))
        return params, opt_state, losses

    def step_k():
        state["params"], state["opt_state"], losses = train_k_steps(
            state["params"], state["opt_state"], data.xs, data.ys
        )
        return losses

    return _jax_runner(step_k, per_call=K)


def _tfjs_grad(data: Data, variant: str) -> Runner:
    """The loop a tfjs user ports: tf.variable weights, operators, tf.losses, minimize."""
    import jax

    import tfjs_grad as tf

    relu = getattr(tf, "relu", jax.nn.relu)
    w = [tf.variable(tf.tensor(data.init[f"w{i}"])) for i in range(data.layers)]
    b = [tf.variable(tf.tensor(data.init[f"b{i}"])) for i in range(data.layers)]

    def predict(x):
        h = x
        for i in range(data.layers):
            h = h @ w[i] + b[i]
            if i < data.layers - 1:
                h = relu(h)
        return h

    if data.spec["loss"] == "mse":

        def loss_fn(x, y):
            return tf.losses.mean_squared_error(y, predict(x))
    else:

        def loss_fn(x, y):
            return tf.losses.softmax_cross_entropy(y, predict(x))

    optimizer = tf.train.adam(LEARNING_RATE, BETA1, BETA2, EPSILON)
    hidden_means: list[float] = []

    def loss_with_a_read(x, y):
        # a value read in the middle of f, as a tfjs user logs one: the tape runs the
        # forward program so far, then goes on recording
        hidden_means.append(float(relu(x @ w[0] + b[0]).mean()))
        del hidden_means[:-1]
        return loss_fn(x, y)

    def train_step(x, y):
        return optimizer.minimize(lambda: loss_fn(x, y), True)

    def train_step_reading(x, y):
        return optimizer.minimize(lambda: loss_with_a_read(x, y), True)

    if variant == "jit_loop":
        train_k_steps = tf.jit_loop(train_step)
        return _jax_runner(lambda: train_k_steps(data.xs, data.ys), per_call=K)
    batches = itertools.cycle(data.batches)
    if variant == "tf.jit":
        compiled = tf.jit(train_step)
        return _jax_runner(lambda: compiled(*next(batches)))
    if variant == "eager_read":
        return _jax_runner(lambda: tf.tidy(lambda: train_step_reading(*next(batches))))
    if variant != "eager":
        raise ValueError(f"unknown variant {variant!r}")
    return _jax_runner(lambda: tf.tidy(lambda: train_step(*next(batches))))


def _torch(data: Data, threads: int) -> Runner:
    """The same model as a PyTorch user writes it: nn.Sequential, torch.optim.Adam, eager."""
    import torch

    torch.set_num_threads(threads)
    layers: list[torch.nn.Module] = []
    for i in range(data.layers):
        linear = torch.nn.Linear(*data.init[f"w{i}"].shape)
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(data.init[f"w{i}"].T.copy()))
            linear.bias.copy_(torch.from_numpy(data.init[f"b{i}"]))
        layers += [linear, torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers[:-1])
    functional = torch.nn.functional
    loss_fn = functional.mse_loss if data.spec["loss"] == "mse" else functional.cross_entropy
    optimizer = torch.optim.Adam(
        model.parameters(), lr=LEARNING_RATE, betas=(BETA1, BETA2), eps=EPSILON
    )
    batches = itertools.cycle(data.batches)

    def step():
        x, y = next(batches)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        return loss

    return stepper(step, sync=lambda v: v.item(), losses=lambda v: [v.item()])
