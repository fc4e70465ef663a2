# pyright: strict
"""tfjs user code, as the README writes it, for pyright's strict mode (`make lint` runs
`pyright tests/typing`): every value a tf call returns must have its tfjs type (a Tensor
with its methods, a layer, a model, an optimizer), no `Any` leaking into user code.

It is type-checked only; tests/test_typing.py also runs it.
"""

from __future__ import annotations

import tfjs_grad as tf


def readme_first_example() -> float:
    w = tf.variable(tf.randomNormal([4, 1]))
    b = tf.variable(tf.zeros([1]))
    optimizer = tf.train.adam(0.1)
    xs = tf.randomNormal([8, 4])
    ys = tf.randomNormal([8, 1])

    @tf.jit
    def trainStep(xs: tf.Tensor, ys: tf.Tensor) -> tf.Tensor:
        return optimizer.minimize(lambda: tf.losses.meanSquaredError(ys, xs.matMul(w).add(b)), True)

    loss = trainStep(xs, ys)
    value, grads = tf.variableGrads(lambda: w.square().sum())
    value.print()
    grads[w.name].print()
    return float(loss.dataSync()[0])


def doubled(x: tf.TensorLike) -> tf.Tensor:
    return tf.mul(x, 2)


def method_chains() -> list[float]:
    x = tf.tensor2d([[1, 2], [3, 4]])
    w = tf.tensor2d([[1], [-1]])
    y = x.matMul(w).add(1).relu().mean(0, True)
    z = (x @ w + 1) * 2 - x.sum()
    parts: list[tf.Tensor] = x.split(2)
    total = tf.addN([y, z.mean(0, True), parts[0].sum(1, True)])
    assert doubled([[1.5]]).equal(3).all().arraySync()
    return total.dataSync().tolist()


def gradients() -> tf.Tensor:
    def f(x: tf.Tensor) -> tf.Tensor:
        return x.square().sum()

    g = tf.grad(lambda x: tf.stopGradient(x).mul(x).sum())
    dx = g(tf.tensor1d([1, 2]))
    da, db = tf.grads(lambda a, b: a.mul(b).sum())([tf.tensor1d([2, 3]), tf.tensor1d([4, 5])])
    return tf.grad(f)(dx).add(da).add(db)


def sequential_model() -> float:
    model = tf.sequential()
    model.add(tf.layers.dense({"units": 8, "inputShape": [4], "activation": "relu"}))
    model.add(tf.layers.dense({"units": 1}))
    model.compile({"optimizer": tf.train.sgd(0.1), "loss": "meanSquaredError"})
    xs = tf.randomNormal([16, 4])
    ys = tf.randomNormal([16, 1])
    history = model.fit(xs, ys, {"epochs": 2, "batchSize": 8, "verbose": 0})
    prediction = model.predict(xs)
    assert isinstance(prediction, tf.Tensor)
    prediction.print()
    return float(history.history["loss"][-1])


def functional_model() -> tf.LayersModel:
    inputs = tf.input({"shape": [4]})
    hidden = tf.layers.dense({"units": 3, "activation": "relu"}).apply(inputs)
    outputs = tf.layers.dense({"units": 1}).apply(hidden)
    return tf.model({"inputs": inputs, "outputs": outputs})


def seed_stop_gradient() -> None:
    # /work/shared/seeds/000: tf.stopGradient blocks the gradient of one branch
    x = tf.variable(tf.tensor1d([1, 2, 3]))
    dy_dx = tf.grad(lambda x: x.square())(x)
    dy_dx.print()
    blocked = tf.grad(lambda x: tf.stopGradient(x).square())(x)
    blocked.print()


def more_of_the_api() -> list[float]:
    x = tf.tensor1d([1, 2, 3])
    y = tf.tidy(lambda: x.square().sum().sqrt())
    value, grad = tf.valueAndGrad(lambda t: t.square().sum())(x)
    outcome = tf.valueAndGrads(lambda a, b: a.mul(b).sum())([x, x])
    model = tf.sequential({"layers": [tf.layers.dense({"units": 1, "inputShape": [3]})]})
    model.compile({"optimizer": "adam", "loss": "meanSquaredError", "metrics": ["mse"]})
    evaluated = model.evaluate(tf.ones([2, 3]), tf.ones([2, 1]))
    first = evaluated if isinstance(evaluated, tf.Tensor) else evaluated[0]
    memory = tf.memory()
    kept = tf.keep(tf.zeros([2]))
    tf.dispose(kept)
    return [
        float(y.dataSync()[0]),
        float(value.arraySync()),
        float(grad.sum().dataSync()[0]),
        float(outcome.grads[0].sum().dataSync()[0]),
        float(first.dataSync()[0]),
        float(memory.numTensors),
    ]


def layer_configs() -> list[int | None]:
    # a config dict literal, keywords, both, snake_case keys: each key checked by pyright
    hidden = tf.layers.dense({"units": 3, "activation": "relu", "inputShape": [4]})
    conv = tf.layers.conv2d({"filters": 2, "kernelSize": [3, 3], "padding": "same"})
    cell = tf.layers.lstm(units=2, returnSequences=True, recurrent_initializer="zeros")
    both = tf.layers.dense({"units": 1}, use_bias=False, kernelInitializer="ones")
    config: tf.layers.configs.DenseConfig = {"units": 5, "kernelRegularizer": "l2"}
    return [hidden.units, conv.filters, cell.units, both.units, tf.layers.dense(config).units]


def typed_results() -> list[float]:
    x = tf.tensor1d([1, 5, 3])
    top = tf.topk(x, 2)
    values, indices = x.topk(1)
    seen = tf.unique(tf.tensor1d([3, 1, 3]))
    buffer = tf.buffer([2], "float32")
    buffer.set(4, 1)
    filled = buffer.toTensor().add(1)
    ragged = tf.raggedRange(tf.tensor1d([0, 5], "int32"), [3, 3], [1, -1])
    basis = tf.linalg.gramSchmidt(tf.tensor2d([[3, 4], [1, 0]]))
    vectors = tf.linalg.gramSchmidt([tf.tensor1d([0, 2])])
    return [
        *top.values.add(top.indices).dataSync().tolist(),
        float(values.sub(indices).dataSync()[0]),
        float(seen.indices.sum().dataSync()[0]),
        *filled.dataSync().tolist(),
        float(ragged.rtNestedSplits.max().dataSync()[0]),
        float(basis.abs().sum().dataSync()[0]) + float(vectors[0].sum().dataSync()[0]),
    ]


if __name__ == "__main__":
    readme_first_example()
    method_chains()
    gradients()
    sequential_model()
    functional_model()
    seed_stop_gradient()
    more_of_the_api()
    layer_configs()
    typed_results()
