"""tf.print inside transforms, JS number text, buffers, nextFrame and tf.util's shuffling."""

import asyncio
import collections
import gc
import random
import warnings

import hypothesis.strategies as st
import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given
from test_ops import _REFERENCE

import tfjs_grad as tf
from tfjs_grad.ops import _js


def _printed(capsys):
    return capsys.readouterr().out


# ------------------------------------------------------------------------------------------------
# tf.print


def test_print_eagerly_prints_at_once(capsys):
    tf.print(tf.tensor1d([1, 2]))
    assert _printed(capsys) == "Tensor\n    [1, 2]\n"


def test_print_takes_variables_and_array_likes(capsys):
    tf.print(tf.variable(tf.tensor1d([0.5, -1])))
    tf.print([[True, False]], True)
    tf.print(np.array([3], np.int64))
    assert _printed(capsys) == (
        "Tensor\n    [0.5, -1]\n"
        + _js.tensor_to_string(jnp.array([[True, False]]), True)
        + "\nTensor\n    [3]\n"
    )


def test_print_inside_tf_jit_prints_each_call_in_program_order(capsys):
    v = tf.variable(tf.tensor1d([1, 2]))

    @tf.jit
    def step(x):
        tf.print(v)
        v.assign(v + x)
        tf.print(x)
        tf.print(v)

    step(tf.tensor1d([10, 10]))
    traces = step.trace_count
    step(tf.tensor1d([1, 1]))
    assert step.trace_count == traces
    assert _printed(capsys) == "".join(
        f"Tensor\n    [{a}]\n" for a in ["1, 2", "10, 10", "11, 12", "11, 12", "1, 1", "12, 13"]
    )


def test_print_inside_jax_jit_prints_runtime_values(capsys):
    printing = jax.jit(lambda x: tf.print(x * 2))
    printing(jnp.array([1.0]))
    printing(jnp.array([3.0]))
    assert _printed(capsys) == "Tensor\n    [2]\nTensor\n    [6]\n"


def test_print_inside_gradient_functions_prints_once_per_call(capsys):
    def f(x):
        tf.print(x)
        y = x * x
        tf.print(y)
        return y.sum()

    grad = tf.grad(f)(tf.tensor1d([1, 3]))
    assert grad.tolist() == [2.0, 6.0]
    v = tf.variable(tf.tensor1d([2.0]))
    tf.variable_grads(lambda: f(v))
    tf.train.sgd(0.1).minimize(lambda: f(v))
    assert _printed(capsys) == (
        "Tensor\n    [1, 3]\nTensor\n    [1, 9]\n" + "Tensor\n    [2]\nTensor\n    [4]\n" * 2
    )


def test_print_under_vmap_and_jax_grad(capsys):
    jax.vmap(tf.print)(jnp.array([[1.0], [2.0]]))
    jax.grad(lambda x: (tf.print(x), x**2)[1])(3.0)
    assert _printed(capsys) == "Tensor\n    [1]\nTensor\n    [2]\nTensor\n    3\n"


def test_print_of_a_variable_only_printed_inside_variable_grads(capsys):
    w, shown = tf.variable(tf.scalar(2.0)), tf.variable(tf.tensor1d([7.0]))

    def loss():
        tf.print(shown)
        return w * w

    tf.variable_grads(loss, [w, shown])
    assert _printed(capsys) == "Tensor\n    [7]\n"


# ------------------------------------------------------------------------------------------------
# How JS writes numbers


def test_numbers_are_written_as_javascript_writes_them():
    for case in _REFERENCE["js_numbers"]:
        assert _js.number(float(case["value"])) == case["text"], case


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_javascript_number_text_round_trips(x):
    text = _js.number(x)
    assert float(text.replace("e+", "e")) == x or (x == 0 and text == "0")
    assert not text.endswith(".0") and "e-0" not in text and "e+0" not in text


# ------------------------------------------------------------------------------------------------
# buffer


def test_buffer_values_are_a_writable_numpy_array_of_its_dtype():
    b = tf.buffer([2, 2], "int32")
    b.values[3] = 7
    b.set(-2.9, 0, 0)
    assert b.values.tolist() == [-2, 0, 0, 7]
    assert b.to_tensor().tolist() == [[-2, 0], [0, 7]]
    given_values = np.zeros(4, np.float32)
    shared = tf.buffer([4], "float32", given_values)
    shared.set(1.5, 2)
    assert given_values[2] == 1.5  # like tfjs, the buffer uses the array it was given


@pytest.mark.parametrize("shape", [[2], [64, 64]])
def test_buffer_tensor_is_a_copy(shape):
    b = tf.buffer(shape)
    t = b.to_tensor()
    b.set(5, *[0] * len(shape))
    assert not np.asarray(t).any()  # (jax 0.10.0 aliases an aligned numpy array's memory)


@pytest.mark.parametrize("make", [tf.tensor, tf.variable, lambda a: tf.add(a, 0)])
def test_arrays_made_from_numpy_do_not_see_later_writes_to_it(make):
    given = np.zeros((64, 64), np.float32)
    made = make(given)
    given[0, 0] = 5
    assert not np.asarray(made).any()


def test_buffer_set_out_of_range_raises_instead_of_writing_nowhere():
    with pytest.raises(ValueError, match="Requested out of range element at 3"):
        tf.buffer([3]).set(1.0, 3)


# ------------------------------------------------------------------------------------------------
# nextFrame


def test_next_frame_yields_to_the_event_loop_once():
    order = []

    async def worker(name):
        for i in range(2):
            order.append((name, i))
            await tf.nextFrame()

    async def main():
        await asyncio.gather(worker("a"), worker("b"))

    asyncio.run(main())
    assert order == [("a", 0), ("b", 0), ("a", 1), ("b", 1)]


def test_next_frame_without_await_does_nothing_and_warns_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        tf.next_frame()
        gc.collect()


# ------------------------------------------------------------------------------------------------
# tf.util.shuffle and createShuffledIndices


def test_shuffle_is_reproducible_with_random_seed():
    random.seed(1234)
    first = tf.util.createShuffledIndices(50)
    random.seed(1234)
    assert tf.util.createShuffledIndices(50).tolist() == first.tolist()


def test_shuffle_draws_every_permutation_equally_often():
    random.seed(7)
    counts = collections.Counter()
    for _ in range(6000):
        items = ["a", "b", "c"]
        tf.util.shuffle(items)
        counts["".join(items)] += 1
    assert len(counts) == 6
    assert all(abs(n - 1000) < 150 for n in counts.values())  # ~4.5 sigma


def test_shuffle_moves_whole_rows_of_a_numpy_array():
    rows = np.arange(12).reshape(6, 2)
    tf.util.shuffle(rows)
    assert sorted(rows[:, 0].tolist()) == [0, 2, 4, 6, 8, 10]
    assert (rows[:, 1] == rows[:, 0] + 1).all()


@pytest.mark.parametrize("immutable", [(1, 2), jnp.arange(3), "abc"])
def test_shuffle_rejects_what_it_cannot_change_in_place(immutable):
    with pytest.raises(TypeError, match="shuffle"):
        tf.util.shuffle(immutable)


@pytest.mark.parametrize("bad", [-1, 2.5, "3", True])
def test_create_shuffled_indices_needs_a_count(bad):
    with pytest.raises(ValueError, match="createShuffledIndices"):
        tf.util.create_shuffled_indices(bad)
