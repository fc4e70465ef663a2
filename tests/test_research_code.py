"""Issue 33: research code written the way a JAX user writes it (jnp, jax.nn, optax, lax
through jnp.asarray), run inside every call of tfjs_grad's API that runs user code.

Each program is a function of (x, *params). It runs in every context (eagerly on Tensors
and Variables, in the f of every gradient function, in `minimize` eagerly and under
`tf.jit`, under an outer `jax.jit` / `jax.vmap`, as `tf.customGrad`'s f), and every value
and gradient is compared with `jax.value_and_grad` of the same program on raw jnp arrays.
Every test also checks that f ran exactly once per call (a compiled step runs it once,
while tracing, and not again for same-shaped inputs), that no warning about the eager
tape was emitted, and that `v.value` inside f is a JAX value (API.md, "Plain JAX inside
the library's calls").
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import warnings
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest
from jax import lax

import tfjs_grad as tf

RTOL, ATOL = 1e-5, 1e-6
LR = 0.1
CALLS = 3  # calls in a row, each with new inputs

_LABELS = jnp.array([0, 2], dtype=jnp.int32)
_TARGETS = jnp.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0]], dtype=jnp.float32)


# -- the programs: (tf side, raw side); where both are the same code, raw is the same
# -- function applied to jnp arrays ---------------------------------------------------
def activations(x, w):  # x (3,), w (3,)
    return (
        jnp.sum(jax.nn.relu(w) * x)
        + jnp.sum(jax.nn.gelu(w * x))
        + jnp.sum(jax.nn.sigmoid(w)) * jnp.mean(jax.nn.softplus(x))
        + jnp.sum(jax.nn.silu(w - x))
    )


def reshapes(x, w):  # x (2, 3), w (6,)
    m = jnp.reshape(w, (3, 2))
    t = jnp.transpose(m)
    flat = jnp.ravel(t * x)
    col = jnp.squeeze(jnp.reshape(flat, (1, 6, 1)), axis=(0, 2))
    return jnp.sum(col * jnp.ravel(w)) + jnp.sum(jnp.squeeze(jnp.reshape(m, (1, 3, 2))) ** 2)


def optax_losses(x, w):  # x (2, 3), w (3, 3)
    logits = jnp.dot(x, w)
    ce = optax.softmax_cross_entropy_with_integer_labels(logits, _LABELS)
    bce = optax.sigmoid_binary_cross_entropy(logits, _TARGETS)
    return (
        jnp.mean(ce)
        + jnp.mean(bce)
        + jnp.sum(optax.l2_loss(logits, _TARGETS))
        + 0.1 * jnp.sum(optax.l2_loss(w))
    )


def where_clip(x, w):  # x (2, 3), w (3,)
    h = x * w
    leaky = jnp.where(h > 0, h, 0.1 * h)
    return (
        jnp.sum(jnp.clip(leaky, -0.3, 0.4) ** 2)
        + jnp.sum(jnp.where(w > 0.0, jnp.sin(w), w**2))
        + jnp.sum(jnp.clip(w, max=0.5))
    )


def log_softmax(x, w):  # x (2, 3), w (3, 3)
    logits = jnp.dot(x, w)
    return (
        jnp.sum(jax.nn.logsumexp(logits, axis=1))
        - jnp.sum(jax.nn.log_softmax(logits, axis=-1) * _TARGETS)
        + jax.nn.logsumexp(w)
    )


def lax_calls(x, w):  # x (2, 3), w (3, 4)
    a = lax.dot_general(jnp.asarray(x), jnp.asarray(w), (((1,), (0,)), ((), ())))
    img = jnp.reshape(a, (1, 1, 2, 4))
    kernel = jnp.reshape(jnp.asarray(w)[:2, :2], (1, 1, 2, 2))
    conv = lax.conv_general_dilated(img, kernel, (1, 1), "VALID")
    return jnp.sum(jnp.tanh(a)) + 0.1 * jnp.sum(lax.square(conv))


def mixed(x, w, b):  # x (2, 3), w (3, 4), b (4,)
    h = x.matMul(w).add(b)
    s = jnp.sum(jax.nn.relu(h), axis=0)
    return tf.square(s).mean().add(tf.mean(h))


def mixed_raw(x, w, b):
    h = x @ w + b
    s = jnp.sum(jax.nn.relu(h), axis=0)
    return jnp.mean(s**2) + jnp.mean(h)


def sandwich(x, w, b):  # tf ops, a jnp call, tf ops, another jnp call
    h = x.matMul(w).tanh()
    u = jnp.cumsum(h, axis=1)
    z = tf.mul(u, 0.5).add(b).sigmoid()
    return jnp.mean(jnp.square(z - 0.3))


def sandwich_raw(x, w, b):
    u = jnp.cumsum(jnp.tanh(x @ w), axis=1)
    z = jax.nn.sigmoid(u * 0.5 + b)
    return jnp.mean(jnp.square(z - 0.3))


def branch(x, w):  # a value read after a jnp call, then more ops: x (2, 3), w (3, 2)
    h = jnp.tanh(x @ w)
    if float(jnp.sum(h)) > 0:
        return tf.sum(tf.square(h)).mul(0.5)
    return jnp.mean(jnp.exp(h))


def branch_raw(x, w, positive):
    h = jnp.tanh(x @ w)
    return 0.5 * jnp.sum(h**2) if positive else jnp.mean(jnp.exp(h))


@dataclasses.dataclass(frozen=True)
class Program:
    name: str
    fn: Callable[..., Any]  # what the user writes against tfjs_grad
    raw: Callable[..., Any]  # the same program on jnp arrays (the reference)
    x_shape: tuple[int, ...]
    p_shapes: tuple[tuple[int, ...], ...]
    value_dependent: bool = False  # Python branches on a value: eager contexts only

    def reference(self, x, *ps) -> Callable[..., Any]:
        """A traceable raw function giving the same numbers as fn at these inputs."""
        if self.name != "branch":
            return self.raw
        positive = float(jnp.sum(jnp.tanh(jnp.asarray(x) @ jnp.asarray(ps[0])))) > 0
        return lambda x, w: branch_raw(x, w, positive)

    def inputs(self, k: int) -> tuple[np.ndarray, list[np.ndarray]]:
        """The k-th call's inputs (float32, small, new numbers every k)."""
        rng = np.random.default_rng(1000 + 17 * k + len(self.name))
        x = (0.8 * rng.normal(size=self.x_shape)).astype(np.float32)
        ps = [(0.6 * rng.normal(size=s)).astype(np.float32) for s in self.p_shapes]
        if self.name == "branch":  # x @ w > 0 on even calls, < 0 on odd calls
            x = np.abs(x) * (1.0 if k % 2 == 0 else -1.0)
            ps = [np.abs(p) + 0.1 for p in ps]
        return x, ps


PROGRAMS = [
    Program("activations", activations, activations, (3,), ((3,),)),
    Program("reshapes", reshapes, reshapes, (2, 3), ((6,),)),
    Program("optax_losses", optax_losses, optax_losses, (2, 3), ((3, 3),)),
    Program("where_clip", where_clip, where_clip, (2, 3), ((3,),)),
    Program("log_softmax", log_softmax, log_softmax, (2, 3), ((3, 3),)),
    Program("lax_calls", lax_calls, lax_calls, (2, 3), ((3, 4),)),
    Program("mixed", mixed, mixed_raw, (2, 3), ((3, 4), (4,))),
    Program("sandwich", sandwich, sandwich_raw, (2, 3), ((3, 4), (4,))),
    Program("branch", branch, None, (2, 3), ((3, 2),), value_dependent=True),
]


# -- helpers ----------------------------------------------------------------------------
def _close(actual, expected, what: str = "") -> None:
    np.testing.assert_allclose(
        np.asarray(actual), np.asarray(expected), rtol=RTOL, atol=ATOL, err_msg=what
    )


def _reference(prog: Program, x, ps) -> tuple[Any, list[Any]]:
    """jax.value_and_grad of the raw program with respect to x and every parameter."""
    x, ps = jnp.asarray(x), [jnp.asarray(p) for p in ps]
    raw = prog.reference(x, *ps)
    if raw is prog.raw:  # one compiled reference per program
        value, grads = _value_and_grads(raw, 1 + len(ps))(x, *ps)
    else:
        value, grads = jax.value_and_grad(raw, argnums=tuple(range(1 + len(ps))))(x, *ps)
    return value, list(grads)


@functools.cache
def _value_and_grads(raw: Callable[..., Any], n_args: int) -> Callable[..., Any]:
    return jax.jit(jax.value_and_grad(raw, argnums=tuple(range(n_args))))


class Runs:
    """Counts the runs of the user's f; each call must add exactly `per_call` runs."""

    def __init__(self) -> None:
        self.n = 0

    def call(self, fn: Callable[..., Any], *args: Any, expected: int = 1) -> Any:
        before = self.n
        out = fn(*args)
        assert self.n - before == expected, f"f ran {self.n - before} times in one call"
        return out


class ValueTypes:
    """Records the type of every Variable's .value seen inside f."""

    def __init__(self) -> None:
        self.bad: list[str] = []

    def check(self, variables) -> None:
        for v in variables:
            value = v.value
            if not isinstance(value, (jax.Array, jax.core.Tracer)):
                self.bad.append(f"{v.name}: {type(value).__module__}.{type(value).__qualname__}")

    def assert_clean(self) -> None:
        assert not self.bad, f"v.value inside f was not a JAX value: {self.bad}"


@contextlib.contextmanager
def no_tape_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    about_tape = [str(w.message) for w in caught if "tape" in str(w.message).lower()]
    assert not about_tape, f"warnings about the tape: {about_tape}"


def _variables(prog: Program, ctx: str, ps) -> list[Any]:
    return [tf.variable(tf.tensor(p), True, f"rc_{prog.name}_{ctx}_{i}") for i, p in enumerate(ps)]


def _tensors(x, ps) -> list[Any]:
    return [tf.tensor(x), *[tf.tensor(p) for p in ps]]


def _of_first_param(prog: Program, runs: Runs, x, ps) -> Callable[[Any], Any]:
    """The user's f of the first parameter, the other inputs fixed Tensors."""
    xt, rest = tf.tensor(x), [tf.tensor(p) for p in ps[1:]]

    def f(w):
        runs.n += 1
        return prog.fn(xt, w, *rest)

    return f


def _dispose(vs) -> None:
    for v in vs:
        v.dispose()


@pytest.fixture(autouse=True)
def _first_calls():
    """Every test sees the first call of its functions: what the library remembers about a
    function definition (by its code) after an earlier test is forgotten, so no test's
    outcome depends on which ran before it (the user functions here share code objects
    across programs)."""
    from tfjs_grad import _tape

    remembered = getattr(_tape, "_traced_only", None)
    if isinstance(remembered, set):
        remembered.clear()
    yield


# -- the contexts -----------------------------------------------------------------------
def ctx_eager_tensors(prog: Program) -> None:
    runs = Runs()

    def f(*args):
        runs.n += 1
        return prog.fn(*args)

    for k in range(CALLS):
        x, ps = prog.inputs(k)
        out = runs.call(f, *_tensors(x, ps))
        _close(out, _reference(prog, x, ps)[0], f"value, call {k}")


def ctx_eager_variables(prog: Program) -> None:
    x, ps = prog.inputs(0)
    vs = _variables(prog, "eager", ps)
    runs = Runs()

    def f(x):
        runs.n += 1
        return prog.fn(x, *vs)

    for k in range(CALLS):
        x, ps = prog.inputs(k)
        for v, p in zip(vs, ps):
            v.assign(tf.tensor(p))
        out = runs.call(f, tf.tensor(x))
        _close(out, _reference(prog, x, ps)[0], f"value, call {k}")
    _dispose(vs)


def ctx_grad(prog: Program) -> None:
    runs = Runs()
    for k in range(CALLS):
        x, ps = prog.inputs(k)
        f = _of_first_param(prog, runs, x, ps)
        g = runs.call(tf.grad(f), tf.tensor(ps[0]))
        assert isinstance(g, tf.Tensor)
        _close(g, _reference(prog, x, ps)[1][1], f"grad, call {k}")


def ctx_grads(prog: Program) -> None:
    runs = Runs()

    def f(*args):
        runs.n += 1
        return prog.fn(*args)

    for k in range(CALLS):
        x, ps = prog.inputs(k)
        gs = runs.call(tf.grads(f), _tensors(x, ps))
        want = _reference(prog, x, ps)[1]
        assert len(gs) == len(want)
        for i, (g, w) in enumerate(zip(gs, want)):
            _close(g, w, f"grad {i}, call {k}")


def ctx_value_and_grad(prog: Program) -> None:
    runs = Runs()
    for k in range(CALLS):
        x, ps = prog.inputs(k)
        f = _of_first_param(prog, runs, x, ps)
        value, g = runs.call(tf.valueAndGrad(f), tf.tensor(ps[0]))
        want_value, want = _reference(prog, x, ps)
        _close(value, want_value, f"value, call {k}")
        _close(g, want[1], f"grad, call {k}")


def ctx_value_and_grads(prog: Program) -> None:
    runs = Runs()

    def f(*args):
        runs.n += 1
        return prog.fn(*args)

    for k in range(CALLS):
        x, ps = prog.inputs(k)
        value, gs = runs.call(tf.valueAndGrads(f), _tensors(x, ps))
        want_value, want = _reference(prog, x, ps)
        _close(value, want_value, f"value, call {k}")
        for i, (g, w) in enumerate(zip(gs, want)):
            _close(g, w, f"grad {i}, call {k}")


def _variable_grads(prog: Program, read_value: bool) -> None:
    x, ps = prog.inputs(0)
    vs = _variables(prog, "vg_value" if read_value else "vg_var", ps)
    runs, types = Runs(), ValueTypes()

    def loss_of(xt):
        def loss():
            runs.n += 1
            types.check(vs)
            return prog.fn(xt, *[v.value if read_value else v for v in vs])

        return loss

    for k in range(CALLS):
        x, ps = prog.inputs(k)
        for v, p in zip(vs, ps):  # assigned outside f between calls
            v.assign(tf.tensor(p))
        value, grads = runs.call(tf.variableGrads, loss_of(tf.tensor(x)))
        want_value, want = _reference(prog, x, ps)
        _close(value, want_value, f"value, call {k}")
        assert set(grads) == {v.name for v in vs}
        for v, w in zip(vs, want[1:]):
            _close(grads[v.name], w, f"grad of {v.name}, call {k}")
    types.assert_clean()
    _dispose(vs)


def ctx_variable_grads_value(prog: Program) -> None:
    _variable_grads(prog, read_value=True)


def ctx_variable_grads_variable(prog: Program) -> None:
    _variable_grads(prog, read_value=False)


def _minimize(prog: Program, read_value: bool, compiled: bool) -> None:
    _, ps = prog.inputs(0)
    tag = ("jit_" if compiled else "") + ("min_value" if read_value else "min_var")
    vs = _variables(prog, tag, ps)
    opt = tf.train.sgd(LR)
    runs, types = Runs(), ValueTypes()

    def loss(xt):
        runs.n += 1
        types.check(vs)
        return prog.fn(xt, *[v.value if read_value else v for v in vs])

    def step(xt):
        return opt.minimize(lambda: loss(xt), True)

    if compiled:
        step = tf.jit(step)
    params = [jnp.asarray(p) for p in ps]
    for k in range(CALLS):
        x, _ = prog.inputs(k)
        # tf.jit traces the step once: f runs on the first call only
        cost = runs.call(step, tf.tensor(x), expected=0 if compiled and k else 1)
        value, grads = _reference(prog, x, params)
        params = [p - LR * g for p, g in zip(params, grads[1:])]
        _close(cost, value, f"cost, step {k}")
        for v, p in zip(vs, params):
            _close(v.value, p, f"{v.name} after step {k}")
    assert opt.iterations == CALLS
    types.assert_clean()
    _dispose(vs)
    opt.dispose()


def ctx_minimize_value(prog: Program) -> None:
    _minimize(prog, read_value=True, compiled=False)


def ctx_minimize_variable(prog: Program) -> None:
    _minimize(prog, read_value=False, compiled=False)


def ctx_jit_minimize_value(prog: Program) -> None:
    _minimize(prog, read_value=True, compiled=True)


def ctx_jit_minimize_variable(prog: Program) -> None:
    _minimize(prog, read_value=False, compiled=True)


def ctx_grad_under_jax_jit(prog: Program) -> None:
    runs = Runs()

    def f(x, w, *rest):
        runs.n += 1
        return prog.fn(x, w, *rest)

    @jax.jit
    def train_grad(x, w, *rest):  # x a Tensor, the parameters raw arrays
        return tf.grad(lambda w: f(x, w, *rest))(w)

    for k in range(CALLS):
        x, ps = prog.inputs(k)
        # jax.jit traces once: f runs on the first call only
        args = [tf.tensor(x), *[jnp.asarray(p) for p in ps]]
        g = runs.call(train_grad, *args, expected=0 if k else 1)
        _close(g, _reference(prog, x, ps)[1][1], f"grad, call {k}")


@functools.cache
def _per_example_grads(raw: Callable[..., Any], n_rest: int) -> Callable[..., Any]:
    """jax.grad of raw in its second argument, vmapped over it (compiled once a program)."""
    return jax.jit(jax.vmap(jax.grad(raw, argnums=1), (None, 0, *[None] * n_rest)))


def ctx_grad_under_jax_vmap(prog: Program) -> None:
    runs = Runs()
    for k in range(CALLS):
        x, ps = prog.inputs(k)
        _, ps2 = prog.inputs(k + 10)
        batch = jnp.stack([jnp.asarray(ps[0]), jnp.asarray(ps2[0])])
        g = runs.call(jax.vmap(tf.grad(_of_first_param(prog, runs, x, ps))), batch)
        rest = [jnp.asarray(p) for p in ps[1:]]
        want = _per_example_grads(prog.reference(x, *ps), len(rest))(jnp.asarray(x), batch, *rest)
        _close(g, want, f"per-example grads, call {k}")


def ctx_custom_grad(prog: Program) -> None:
    runs = Runs()

    def forward(*inputs_and_save):
        *inputs, save = inputs_and_save
        runs.n += 1
        save(list(inputs))

        def grad_func(dy, saved):
            arrays = [jnp.asarray(s) for s in saved]
            raw = prog.reference(*arrays)
            grads = jax.grad(raw, argnums=tuple(range(len(arrays))))(*arrays)
            return [dy * g for g in grads]

        return {"value": prog.fn(*inputs), "gradFunc": grad_func}

    g = tf.customGrad(forward)
    for k in range(CALLS):
        x, ps = prog.inputs(k)
        value, gs = runs.call(tf.valueAndGrads(g), _tensors(x, ps))
        want_value, want = _reference(prog, x, ps)
        _close(value, want_value, f"value, call {k}")
        for i, (gi, w) in enumerate(zip(gs, want)):
            _close(gi, w, f"grad {i}, call {k}")


CONTEXTS = {
    "eager_tensors": ctx_eager_tensors,
    "eager_variables": ctx_eager_variables,
    "grad": ctx_grad,
    "grads": ctx_grads,
    "value_and_grad": ctx_value_and_grad,
    "value_and_grads": ctx_value_and_grads,
    "variable_grads_value": ctx_variable_grads_value,
    "variable_grads_variable": ctx_variable_grads_variable,
    "minimize_value": ctx_minimize_value,
    "minimize_variable": ctx_minimize_variable,
    "jit_minimize_value": ctx_jit_minimize_value,
    "jit_minimize_variable": ctx_jit_minimize_variable,
    "grad_under_jax_jit": ctx_grad_under_jax_jit,
    "grad_under_jax_vmap": ctx_grad_under_jax_vmap,
    "custom_grad": ctx_custom_grad,
}
# value-dependent Python cannot be traced: tfjs runs f eagerly, so the eager contexts only
_TRACED = {
    "jit_minimize_value",
    "jit_minimize_variable",
    "grad_under_jax_jit",
    "grad_under_jax_vmap",
    "custom_grad",
}

PAIRS = [
    pytest.param(prog, ctx, id=f"{prog.name}-{ctx}")
    for prog in PROGRAMS
    for ctx in CONTEXTS
    if not (prog.value_dependent and ctx in _TRACED)
]


@pytest.mark.parametrize(("prog", "ctx"), PAIRS)
def test_program_in_context(prog: Program, ctx: str):
    with no_tape_warnings():
        CONTEXTS[ctx](prog)


# -- adversarial extras -------------------------------------------------------------------
def _refusal(fn, *args) -> str:
    with pytest.raises((TypeError, ValueError)) as caught:
        fn(*args)
    return str(caught.value)


def test_lax_handed_a_tensor_says_to_use_jnp_asarray():
    t = tf.tensor1d([1.0, -2.0, 3.0])
    v = tf.variable(tf.tensor1d([0.5, 1.5, -1.0]), True, "rc_lax_refusal")
    messages = {
        "tensor": _refusal(lambda a: lax.add(a, a), t),
        "variable": _refusal(lambda a: lax.add(a, a), v),
        "in tf.grad's f": _refusal(tf.grad(lambda x: jnp.sum(lax.add(x, x))), t),
        "under jax.jit": _refusal(jax.jit(lambda x: lax.add(x, x)), t),
    }
    for where, message in messages.items():
        assert "jnp.asarray" in message, f"{where}: {message}"
    # the array is what lax takes
    _close(lax.add(jnp.asarray(t), v.value), [1.5, -0.5, 2.0])
    v.dispose()


@pytest.mark.parametrize("compiled", [False, True], ids=["eager", "tf_jit"])
def test_a_variable_assigned_in_f_after_a_jnp_call(compiled: bool):
    """A non-trainable running statistic written inside minimize's f from jnp values (no
    gradient question: the loss does not read it); the step and the write both apply."""
    w0 = np.asarray([0.4, -0.7, 1.1], np.float32)
    w = tf.variable(tf.tensor(w0), True, f"rc_assign_w_{compiled}")
    stat = tf.variable(tf.zeros([3]), False, f"rc_assign_stat_{compiled}")
    opt = tf.train.sgd(LR)
    runs, types = Runs(), ValueTypes()

    def loss(xt):
        runs.n += 1
        types.check([w, stat])
        h = jnp.tanh(w * xt)
        stat.assign(stat.value + jnp.tanh(w.value))
        return jnp.sum(h**2) + tf.sum(w).mul(0.1)

    def step(xt):
        return opt.minimize(lambda: loss(xt), True)

    if compiled:
        step = tf.jit(step)

    def raw(w, x):
        return jnp.sum(jnp.tanh(w * x) ** 2) + 0.1 * jnp.sum(w)

    wr, sr = jnp.asarray(w0), jnp.zeros(3)
    with no_tape_warnings():
        for k in range(CALLS):
            x = np.asarray([1.0, 0.5, -0.25], np.float32) * (k + 1)
            cost = runs.call(step, tf.tensor(x), expected=0 if compiled and k else 1)
            value, g = jax.value_and_grad(raw)(wr, jnp.asarray(x))
            sr = sr + jnp.tanh(wr)
            wr = wr - LR * g
            _close(cost, value, f"cost, step {k}")
            _close(w.value, wr, f"w after step {k}")
            _close(stat.value, sr, f"stat after step {k}")
    types.assert_clean()
    w.dispose()
    stat.dispose()
    opt.dispose()


def test_a_variable_created_in_f_after_a_jnp_call():
    w0 = np.asarray([0.3, -1.2, 0.8], np.float32)
    w = tf.variable(tf.tensor(w0), True, "rc_create_w")
    runs, made = Runs(), []

    def loss():
        runs.n += 1
        h = jax.nn.softplus(w.value)
        made.append(tf.variable(jnp.tanh(h), False, f"rc_created_{len(made)}"))
        return jnp.sum(h * w)

    with no_tape_warnings():
        for k in range(CALLS):
            value, grads = runs.call(tf.variableGrads, loss)
            want_value, want = jax.value_and_grad(lambda a: jnp.sum(jax.nn.softplus(a) * a))(
                jnp.asarray(w0)
            )
            _close(value, want_value, f"value, call {k}")
            assert set(grads) == {w.name}
            _close(grads[w.name], want, f"grad, call {k}")
    assert [v.name for v in made] == [f"rc_created_{k}" for k in range(CALLS)]
    live = tf.registered_variables()
    for v in made:
        assert live.get(v.name) is v
        assert not v.trainable
        _close(v.value, jnp.tanh(jax.nn.softplus(jnp.asarray(w0))), v.name)
        assert isinstance(v.value, jax.Array)
    for v in made:
        v.dispose()
    w.dispose()
