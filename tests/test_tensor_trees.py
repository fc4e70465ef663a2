"""`wrap_tree`/`unwrap_tree` (what tf.jit hands back and takes): every Tensor and array
in lists, tuples, NamedTuples and dicts, other objects and key order left alone."""

import collections
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import tfjs_grad as tf
from tfjs_grad._tensor import Tensor, unwrap_tree, wrap_tree


class Pair(NamedTuple):
    a: object
    b: object


class Row(tuple):
    """A tuple subclass that is not a NamedTuple."""


def test_containers_keep_their_kinds_and_order_and_leaves_become_tensors():
    a, b = jnp.arange(3.0), jnp.ones((2,))
    tree = {
        "z": [a, 1.5, "text", None],
        "a": (b, Pair(a, 2)),
        "o": collections.OrderedDict(k=b),
        "r": Row([a]),
    }
    out = wrap_tree(tree)
    assert list(out) == ["z", "a", "o", "r"]
    assert type(out["z"]) is list and out["z"][1:] == [1.5, "text", None]
    assert type(out["a"]) is tuple and type(out["a"][1]) is Pair and out["a"][1].b == 2
    assert type(out["o"]) is collections.OrderedDict and type(out["r"]) is Row
    leaves = [out["z"][0], out["a"][0], out["a"][1].a, out["o"]["k"], out["r"][0]]
    assert all(type(t) is Tensor for t in leaves)
    back = unwrap_tree(out)
    assert back["z"][0] is a and back["a"][1].a is a and back["o"]["k"] is b
    assert back["z"][1:] == [1.5, "text", None] and back["a"][1].b == 2
    assert not any(isinstance(x, Tensor) for x in jax.tree.leaves(back))


def test_a_tree_without_arrays_comes_back_as_itself():
    tree = ([1, 2], (3, "x"), {"k": None})
    assert wrap_tree(tree) is tree and unwrap_tree(tree) is tree


def test_variables_and_tensors_unwrap_to_their_values_tfjs_style():
    v = tf.variable(tf.tensor([1.0, 2.0]))
    t = tf.tensor([[3.0]])
    out = unwrap_tree([v, (t, t.square())])
    np.testing.assert_array_equal(out[0], [1.0, 2.0])
    np.testing.assert_array_equal(out[1][1], [[9.0]])
    assert wrap_tree([t])[0] is t  # already a Tensor: kept
    v.dispose()


def test_tracers_under_jax_transforms_are_leaves_too():
    def f(x):
        wrapped = wrap_tree({"y": [x * 2]})
        assert type(wrapped["y"][0]) is Tensor
        return unwrap_tree(wrapped)["y"][0].sum()

    np.testing.assert_allclose(jax.grad(f)(jnp.ones(3)), [2.0, 2.0, 2.0])
    np.testing.assert_allclose(
        jax.vmap(lambda x: unwrap_tree(wrap_tree((x,)))[0])(jnp.eye(2)), np.eye(2)
    )
