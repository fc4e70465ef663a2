"""Sizes no tensor can have are refused before anything is allocated (issue 19, item 7).

Every op whose result's size comes from an argument (a shape, a depth, reps, paddings, a
count) checks it with `ops._checks.check_size`: a ValueError (TypeError for an argument of
the wrong kind) naming the op and the argument, never an OverflowError, a MemoryError, an
XLA RESOURCE_EXHAUSTED or a minutes-long allocation. A new allocating op adds one line to
CASES: the call, as the user writes it, and the start of the message it must raise.
"""

from __future__ import annotations

import math

import jax
import numpy as np
import pytest

import tfjs_grad as tf
from tfjs_grad.ops import _checks

HUGE = 2**40  # 4 TiB of float32
JUST_OVER = 2**31  # one element more than a tensor holds
INF = math.inf
INDEX = np.zeros([1], np.int32)
ROWS = np.zeros([4, 1], np.int32)  # denseBincount counts per row
X3 = np.ones([1, 2, 1], np.float32)

CASES = [
    (lambda: tf.zeros([HUGE]), "Argument 'shape' passed to 'zeros'"),
    (lambda: tf.zeros([2**20, 2**20, 2**20]), "Argument 'shape' passed to 'zeros'"),
    (lambda: tf.ones([JUST_OVER]), "Argument 'shape' passed to 'ones'"),
    (lambda: tf.ones([JUST_OVER], "int32"), "Argument 'shape' passed to 'ones'"),
    (lambda: tf.fill([HUGE], 3), "Argument 'shape' passed to 'fill'"),
    (lambda: tf.fill([JUST_OVER], True), "Argument 'shape' passed to 'fill'"),
    (lambda: tf.buffer([HUGE]), "Argument 'shape' passed to 'buffer'"),
    (lambda: tf.buffer([JUST_OVER], "int32"), "Argument 'shape' passed to 'buffer'"),
    (lambda: tf.range(0, 1e15), "Argument 'stop' passed to 'range'"),
    (lambda: tf.range(0, INF), "Argument 'stop' passed to 'range'"),
    (lambda: tf.range(0, 1, 1e-15), "Argument 'stop' passed to 'range'"),
    (lambda: tf.range(0, JUST_OVER, 1, "int32"), "Argument 'stop' passed to 'range'"),
    (lambda: tf.linspace(0, 1, HUGE), "Argument 'num' passed to 'linspace'"),
    (lambda: tf.linspace(0, 1, INF), "Argument 'num' passed to 'linspace'"),
    (lambda: tf.oneHot([0], INF), "Argument 'depth' passed to 'oneHot'"),
    (lambda: tf.oneHot([0], float("nan")), "Argument 'depth' passed to 'oneHot'"),
    (lambda: tf.oneHot(tf.zeros([2**16], "int32"), 2**16), "Argument 'depth' passed to 'oneHot'"),
    (lambda: tf.leakyRelu(tf.tensor([1.0]), [HUGE]), "Argument 'alpha' passed to 'leakyRelu'"),
    (lambda: tf.leakyRelu([1.0], np.ones(HUGE // 2**30)), "Argument 'alpha' passed to 'leakyRelu'"),
    (lambda: tf.tile(tf.tensor([1.0]), [JUST_OVER]), "Argument 'reps' passed to 'tile'"),
    (lambda: tf.tile(tf.ones([2, 2]), [2**16, 2**16]), "Argument 'reps' passed to 'tile'"),
    (lambda: tf.tile(tf.tensor([1.0]), [INF]), "Argument 'reps' passed to 'tile'"),
    (lambda: tf.pad(tf.tensor([1.0]), [[0, HUGE]]), "Argument 'paddings' passed to 'pad'"),
    (lambda: tf.randomUniform([HUGE]), "Argument 'shape' passed to 'randomUniform'"),
    (lambda: tf.randomNormal([JUST_OVER]), "Argument 'shape' passed to 'randomNormal'"),
    (lambda: tf.truncatedNormal([HUGE]), "Argument 'shape' passed to 'truncatedNormal'"),
    (lambda: tf.multinomial([0.0, 1.0], HUGE), "Argument 'numSamples' passed to 'multinomial'"),
    (lambda: tf.multinomial([0.0, 1.0], INF), "Argument 'numSamples' passed to 'multinomial'"),
    (lambda: tf.util.createShuffledIndices(HUGE), "Argument 'n' passed to 'createShuffledIndices'"),
    (lambda: tf.broadcastTo(tf.tensor([1.0]), [HUGE]), "Argument 'shape' passed to 'broadcastTo'"),
    (lambda: tf.scatterND([[0]], [1.0], [HUGE]), "Argument 'shape' passed to 'scatterND'"),
    (
        lambda: tf.sparseToDense([0], [1.0], [HUGE]),
        "Argument 'outputShape' passed to 'sparseToDense'",
    ),
    (lambda: tf.bincount(INDEX, [], HUGE), "Argument 'size' passed to 'bincount'"),
    (
        lambda: tf.denseBincount(ROWS, [], JUST_OVER // 2),
        "Argument 'size' passed to 'denseBincount'",
    ),
    (lambda: tf.pad1d(tf.tensor([1.0]), [0, HUGE]), "Argument 'paddings' passed to 'pad'"),
    (
        lambda: tf.spaceToBatchND(X3, [1], [[0, HUGE]]),
        "Argument 'paddings' passed to 'spaceToBatchND'",
    ),
]


def _name(case) -> str:
    return case[1].split("passed to ")[1].strip("'")


@pytest.mark.parametrize(
    "call, message", CASES, ids=[f"{i}-{_name(c)}" for i, c in enumerate(CASES)]
)
def test_an_impossible_size_raises_naming_the_op_and_the_argument(call, message):
    with pytest.raises((ValueError, TypeError)) as info:
        call()
    assert str(info.value).startswith(message), str(info.value)


@pytest.mark.parametrize(
    "call, message", CASES, ids=[f"{i}-{_name(c)}" for i, c in enumerate(CASES)]
)
def test_an_impossible_size_is_refused_while_jax_traces_too(call, message):
    with pytest.raises((ValueError, TypeError)) as info:
        jax.jit(lambda: call())()
    assert str(info.value).startswith(message), str(info.value)


def test_the_limit_is_the_int32_element_count():
    assert _checks.check_size(_checks.MAX_ELEMENTS, "zeros", "shape") == 2**31 - 1
    with pytest.raises(ValueError, match="at most 2147483647 elements"):
        _checks.check_size(_checks.MAX_ELEMENTS + 1, "zeros", "shape")


def test_bytes_beyond_the_devices_memory_are_refused(monkeypatch):
    monkeypatch.setattr(_checks, "_memory_budget", lambda: 1000)
    assert tf.zeros([250]).shape == (250,)
    with pytest.raises(ValueError, match=r"'zeros' .* 1004 bytes of float32, more than the"):
        tf.zeros([251])
    with pytest.raises(ValueError, match=r"'buffer' .* 2000 bytes of int32"):
        tf.buffer([500], "int32")


def test_sizes_within_the_limit_still_work():
    assert tf.oneHot([0, 1], 3).shape == (2, 3)
    assert tf.tile(tf.ones([2]), [3]).shape == (6,)
    assert tf.pad(tf.ones([2]), [[1, 2]]).shape == (5,)
    assert tf.range(0, 5).shape == (5,)
    assert tf.linspace(0, 1, 3).shape == (3,)
    assert tf.leakyRelu([-1.0], np.float32(0.5)).tolist() == [-0.5]
    assert tf.leakyRelu([-1.0], tf.scalar(0.5)).tolist() == [-0.5]
    assert tf.multinomial([0.0, 1.0], 3, seed=0).shape == (3,)
    assert tf.zeros([0, HUGE]).shape == (0, HUGE)  # no elements: nothing to allocate
