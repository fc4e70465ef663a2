"""The seed documents' examples (shared/seeds/), written as they are in JavaScript, line by
line in Python, with the values the documents state (and, where they state none, closed
forms computed here)."""

from __future__ import annotations

import numpy as np
import pytest

import tfjs_grad as tf


@pytest.fixture(autouse=True)
def _fresh_variables():
    yield
    tf.dispose_variables()


# -- tf.stopGradient ---------------------------------------------------------------------


def test_stop_gradient_usage_example(capsys):
    x = tf.variable(tf.tensor1d([1, 2, 3]))
    y = x.square()

    dy_dx = tf.grad(lambda x: x.square())(x)
    dy_dx.print()  # [2, 4, 6]

    z = tf.stopGradient(x).square()
    dz_dx = tf.grad(lambda x: tf.stopGradient(x).square())(x)
    dz_dx.print()  # [0, 0, 0]

    assert capsys.readouterr().out == "Tensor\n    [2, 4, 6]\nTensor\n    [0, 0, 0]\n"
    assert y.arraySync() == [1, 4, 9] and z.arraySync() == [1, 4, 9]
    assert isinstance(dy_dx, tf.Tensor) and isinstance(dz_dx, tf.Tensor)


def test_stop_gradient_inside_a_chain():
    a = tf.tensor1d([1, 2, 3])
    b = a.mul(2)
    c = tf.stopGradient(b).add(1)
    assert c.arraySync() == [3, 5, 7]
    # "the gradient with respect to a for the operation c is zero"
    grad = tf.grad(lambda a: tf.stopGradient(a.mul(2)).add(1))(a)
    assert grad.arraySync() == [0, 0, 0]


def test_stop_gradient_with_an_optimizer_leaves_w_unchanged():
    w = tf.variable(tf.randomNormal([2, 2]))
    x = tf.tensor2d([[1, 2]])
    yTrue = tf.tensor2d([[0, 1]])  # noqa: N806 (the document's name)

    def loss():
        logits = tf.stopGradient(x.matMul(w))
        return tf.losses.meanSquaredError(yTrue, logits)

    before = w.dataSync()
    optimizer = tf.train.sgd(0.01)
    optimizer.minimize(loss)  # w is not updated
    np.testing.assert_array_equal(w.dataSync(), before)


# -- tf.variableGrads --------------------------------------------------------------------


def test_variable_grads_basic_syntax(capsys):
    x = tf.variable(tf.tensor1d([1, 2, 3]))
    y = tf.variable(tf.tensor1d([0.5, 0.5, 0.5]))

    f = lambda: x.square().sum().add(y.square().sum())  # noqa: E731

    value, grads = tf.variableGrads(f)
    print("Function value:", value.dataSync())
    print("Gradients for x:", grads[x.name].dataSync())
    print("Gradients for y:", grads[y.name].dataSync())

    assert value.dataSync().tolist() == [14.75]
    assert grads[x.name].dataSync().tolist() == [2, 4, 6]
    assert grads[y.name].dataSync().tolist() == [1, 1, 1]
    assert value.dataSync().dtype == np.float32
    assert "Function value: [14.75]" in capsys.readouterr().out


def _two_variables():
    a = tf.variable(tf.tensor1d([1, 2]))
    b = tf.variable(tf.tensor1d([3, 4]))
    loss = lambda: a.square().sum().add(b.mul(a).sum())  # noqa: E731
    return a, b, loss


def test_variable_grads_with_several_variables():
    a, b, loss = _two_variables()
    value, grads = tf.variableGrads(loss)
    assert value.arraySync() == 16  # 1 + 4 + 3 + 8
    assert grads[a.name].arraySync() == [5, 8]  # 2a + b
    assert grads[b.name].arraySync() == [1, 2]  # a


def test_variable_grads_update_loop_with_sgd():
    a, b, loss = _two_variables()
    learningRate = 0.1  # noqa: N806
    optimizer = tf.train.sgd(learningRate)

    def step():
        value, grads = tf.variableGrads(loss)
        optimizer.applyGradients(grads)
        return value

    losses = []
    expected_a, expected_b = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    expected = []
    for _i in range(5):
        lossValue = step()  # noqa: N806
        losses.append(float(lossValue.dataSync()[0]))
        expected.append(float(np.sum(expected_a**2) + np.sum(expected_b * expected_a)))
        expected_a, expected_b = (
            expected_a - 0.1 * (2 * expected_a + expected_b),
            expected_b - 0.1 * expected_a,
        )
    np.testing.assert_allclose(losses, expected, rtol=1e-5)


def test_sgd_steps_on_sum_of_squares_print_the_stated_losses():
    # OPS2.md: five applyGradients steps of sgd(0.1) on sum(w^2), w = [1, -2]
    w = tf.variable(tf.tensor1d([1, -2]))
    optimizer = tf.train.sgd(0.1)
    losses = []
    for _ in range(5):
        value, grads = tf.variableGrads(lambda: w.square().sum())
        optimizer.applyGradients(grads)
        losses.append(value.dataSync()[0])
    np.testing.assert_allclose(losses, [5, 3.2, 2.048, 1.31072, 0.8388608], rtol=1e-6)


def test_variable_grads_inside_tidy_frees_its_gradients():
    a, b, loss = _two_variables()
    optimizer = tf.train.sgd(0.1)
    kept = []

    def body():
        value, grads = tf.variableGrads(loss)
        kept.extend([value, *grads.values()])
        optimizer.applyGradients(grads)

    tf.tidy(body)
    assert all(t.isDisposed for t in kept)
    assert not a.isDisposed and not b.isDisposed
    np.testing.assert_allclose(a.dataSync(), [1 - 0.5, 2 - 0.8], rtol=1e-6)


def test_variable_grads_with_branches():
    z = tf.variable(tf.tensor1d([1, -1, 2]))

    def complexLoss():  # noqa: N802
        def body():
            positive = z.relu().sum()
            negative = z.neg().relu().sum()
            return positive.add(negative)

        return tf.tidy(body)

    value, grads = tf.variableGrads(complexLoss)
    assert value.arraySync() == 4
    assert grads[z.name].arraySync() == [1, -1, 1]  # sign(z)


def test_custom_layer_example():
    weights = tf.variable(tf.randomNormal([2, 2]))
    bias = tf.variable(tf.zeros([2]))

    forward = lambda input: input.matMul(weights).add(bias).relu()  # noqa: E731

    def customLoss(input, target):  # noqa: N802
        predictions = forward(input)
        return predictions.sub(target).square().mean()

    input = tf.tensor2d([[1, 2]])
    target = tf.tensor2d([[0.5, 1]])
    optimizer = tf.train.sgd(0.1)

    w, b = weights.dataSync().reshape(2, 2), bias.dataSync()
    value, grads = tf.variableGrads(lambda: customLoss(input, target))
    optimizer.applyGradients(grads)

    # closed form: p = relu(x w + b), L = mean((p - t)^2) over 2 values: dL/dp = p - t where p > 0
    x, t = np.array([[1.0, 2.0]]), np.array([[0.5, 1.0]])
    pre = x @ w + b
    p = np.maximum(pre, 0)
    dp = 2 * (p - t) / 2 * (pre > 0)
    np.testing.assert_allclose(value.arraySync(), np.mean((p - t) ** 2), rtol=1e-5)
    np.testing.assert_allclose(grads[weights.name].arraySync(), x.T @ dp, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(grads[bias.name].arraySync(), dp[0], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(
        weights.dataSync().reshape(2, 2), w - 0.1 * (x.T @ dp), rtol=1e-5, atol=1e-7
    )
