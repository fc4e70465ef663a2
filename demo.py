"""Train a digits classifier the TensorFlow.js way, on JAX.

The model is two `tf.variable` weight matrices and their biases; each step is
`optimizer.minimize(loss)` with `tf.train.adam`, compiled with `tf.jit`. The data set is
scikit-learn's `load_digits` (1,797 8x8 images, shipped with the package: no download).

    make demo          # or: .venv/bin/python demo.py
    .venv/bin/python demo.py --epochs 3 --output /tmp/curve.png   # a short run

Prints the held-out accuracy and writes loss_curve.png (loss and accuracy curves), or the
file `--output` names. `--epochs` (default 40) sets the length of the run; the full run exits
with an error if its held-out accuracy is below 0.95, a shorter one only reports it
(tests/test_readme_and_demo.py runs it that way).
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import matplotlib
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from tqdm import tqdm

import tfjs_grad as tf

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

EPOCHS = 40
BATCH = 64
HIDDEN = 128
LEARNING_RATE = 0.005
TARGET_ACCURACY = 0.95


def load_data() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    x, y = load_digits(return_X_y=True)
    x = (x / 16.0).astype(np.float32)  # pixel values are 0..16
    return train_test_split(x, y, test_size=0.25, random_state=0, stratify=y)


def main(epochs: int = EPOCHS, output: str = "loss_curve.png") -> None:
    start = time.perf_counter()
    x_train, x_test, y_train, y_test = load_data()
    onehot_train = np.eye(10, dtype=np.float32)[y_train]

    # const w1 = tf.variable(tf.randomNormal([64, 128], 0, Math.sqrt(2 / 64))); ...
    w1 = tf.variable(tf.random_normal([64, HIDDEN], 0, np.sqrt(2 / 64), seed=0), name="w1")
    b1 = tf.variable(tf.zeros([HIDDEN]), name="b1")
    w2 = tf.variable(tf.random_normal([HIDDEN, 10], 0, np.sqrt(1 / HIDDEN), seed=1), name="w2")
    b2 = tf.variable(tf.zeros([10]), name="b2")

    def model(x: jax.Array) -> jax.Array:
        return jax.nn.relu(x @ w1 + b1) @ w2 + b2

    optimizer = tf.train.adam(LEARNING_RATE)

    @tf.jit
    def train_step(x: jax.Array, labels: jax.Array) -> jax.Array:
        loss = lambda: tf.losses.softmax_cross_entropy(labels, model(x))  # noqa: E731
        return optimizer.minimize(loss, return_cost=True)  # type: ignore[return-value]

    # Evaluation reads the Variables too, so it is compiled with tf.jit as well: a plain
    # jax.jit would bake the weights of its first call into the program as constants.
    @tf.jit
    def accuracy(x: jax.Array, y: jax.Array) -> jax.Array:
        return jnp.mean(jnp.argmax(model(x), axis=-1) == y)

    rng = np.random.default_rng(0)
    batches_per_epoch = len(x_train) // BATCH
    step_losses: list[float] = []
    epoch_losses: list[float] = []
    train_acc: list[float] = []
    test_acc: list[float] = []
    with tqdm(total=epochs * batches_per_epoch, desc="training", unit="step") as bar:
        for epoch in range(1, epochs + 1):
            order = rng.permutation(len(x_train))
            costs = []
            for k in range(batches_per_epoch):
                idx = order[k * BATCH : (k + 1) * BATCH]
                costs.append(train_step(x_train[idx], onehot_train[idx]))
                bar.update()
            costs = np.asarray(jnp.stack(costs))  # one device-to-host copy per epoch
            step_losses.extend(costs.tolist())
            epoch_losses.append(float(costs.mean()))
            train_acc.append(float(accuracy(x_train, y_train)))
            test_acc.append(float(accuracy(x_test, y_test)))
            bar.set_postfix(
                epoch=epoch, loss=f"{epoch_losses[-1]:.4f}", test_acc=f"{test_acc[-1]:.3f}"
            )

    final = test_acc[-1]
    print(f"steps: {optimizer.iterations}, compiled train_step traced {train_step.trace_count}x")
    print(f"test accuracy: {final:.4f} on {len(x_test)} held-out digits")

    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(11, 4))
    steps = np.arange(1, len(step_losses) + 1)
    epoch_ends = np.arange(1, epochs + 1) * batches_per_epoch
    ax_loss.plot(steps, step_losses, alpha=0.35, label="per step (batch of 64)")
    ax_loss.plot(epoch_ends, epoch_losses, marker="o", markersize=3, label="epoch mean")
    ax_loss.set_yscale("log")
    ax_loss.set_title("Training loss (softmax cross-entropy)")
    ax_loss.set_xlabel("optimizer step")
    ax_loss.set_ylabel("loss (log scale)")
    ax_loss.legend()
    epoch_numbers = np.arange(1, epochs + 1)
    ax_acc.plot(epoch_numbers, train_acc, label="train")
    ax_acc.plot(epoch_numbers, test_acc, label="test (held out)")
    ax_acc.axhline(
        TARGET_ACCURACY, color="gray", linestyle=":", label=f"target {TARGET_ACCURACY:.2f}"
    )
    ax_acc.set_title("Accuracy")
    ax_acc.set_xlabel("epoch")
    ax_acc.set_ylabel("accuracy")
    ax_acc.set_ylim(0.8, 1.005)
    ax_acc.legend(loc="lower right")
    fig.suptitle("tfjs_grad: MLP on scikit-learn digits, tf.train.adam under tf.jit")
    fig.tight_layout()
    fig.savefig(output, dpi=120)
    print(f"wrote {output} ({time.perf_counter() - start:.1f} s in all)")
    if epochs >= EPOCHS and final < TARGET_ACCURACY:
        raise SystemExit(f"test accuracy {final:.4f} is below {TARGET_ACCURACY}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="Train the digits MLP tfjs-style.")
    parser.add_argument("--epochs", type=int, default=EPOCHS, help=f"default {EPOCHS}")
    parser.add_argument("--output", default="loss_curve.png", help="where the plot goes")
    args = parser.parse_args()
    if args.epochs < 1:
        parser.error("--epochs must be at least 1")
    main(args.epochs, args.output)
