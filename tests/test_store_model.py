"""A model-based test of the store: random interleavings of compiled and eager steps,
assignments, aliases taken in every public way (also inside `tf.tidy`, and of arrays the
user made), disposal, new Variables, trainable toggles, failing steps, and
`jax_debug_nans` switched on and off (with steps that make a NaN, which must raise
FloatingPointError and change nothing). After every action, each held alias and each
live Variable must read what a plain-Python model of the same actions predicts.
"""

from __future__ import annotations

import copy

import jax
import jax.numpy as jnp
import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

import tfjs_grad as tf

ALIASES = {
    "value": lambda v: v.value,
    "read": lambda v: v.read(),
    "tensor": lambda v: tf.tensor(v),
    "slice": lambda v: v[:],
    "ellipsis": lambda v: v[...],
    "jnp.asarray": lambda v: jnp.asarray(v),
    "np.asarray": lambda v: np.asarray(v),
    "get_state": lambda v: tf.get_state([v])[v.name],
    "operator": lambda v: v + 0,
}

LR = 0.25  # sgd on sum(v**2): v <- v - LR * 2v = v / 2, exact in float32


def _affine(*vs):
    for v in vs:
        v.assign(v * 2 + 1)


class _Boom(Exception):
    pass


def _raise(_):
    raise _Boom("failing step")


class StoreModel(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        tf.dispose_variables()
        self.opt = tf.train.sgd(LR)
        self.affine = tf.jit(_affine)
        self.train = tf.jit(self._minimize)

        @tf.jit
        def failing(*vs):
            _affine(*vs)
            jax.debug.callback(_raise, vs[0].read())

        self.failing = failing
        self.nan_assign = tf.jit(self._nan_assign)
        self.nan_opt = tf.train.adam(0.1)
        self.model: dict[str, np.ndarray] = {}  # name -> expected value
        self.variables: dict[str, tf.Variable] = {}
        self.trainable: dict[str, bool] = {}
        self.aliases: list[tuple[object, np.ndarray, str]] = []
        self.count = 0
        self.debug_nans = False
        jax.config.update("jax_debug_nans", False)
        for _ in range(2):
            self._new(np.arange(3, dtype=np.float32) + self.count)

    def _minimize(self, *vs):
        return self.opt.minimize(lambda: sum((v**2).sum() for v in vs), False, list(vs))

    def _new(self, value: np.ndarray, source=None) -> None:
        name = f"m{self.count}"
        self.count += 1
        self.variables[name] = tf.variable(value if source is None else source, name=name)
        self.model[name] = np.array(value, np.float32)
        self.trainable[name] = True

    def _live(self) -> list[tf.Variable]:
        return [self.variables[n] for n in sorted(self.variables)]

    def _any(self, data) -> str:
        return data.draw(st.sampled_from(sorted(self.variables)))

    # -- steps ------------------------------------------------------------------
    @precondition(lambda self: self.variables)
    @rule()
    def compiled_affine(self):
        self.affine(*self._live())
        for n in self.variables:
            self.model[n] = self.model[n] * 2 + 1

    @precondition(lambda self: self.variables)
    @rule()
    def eager_affine(self):
        _affine(*self._live())
        for n in self.variables:
            self.model[n] = self.model[n] * 2 + 1

    @precondition(lambda self: any(self.trainable.values()))
    @rule(compiled=st.booleans())
    def train(self, compiled):
        (self.train if compiled else self._minimize)(*self._live())
        for n in self.variables:
            if self.trainable[n]:
                self.model[n] = self.model[n] / 2

    @precondition(lambda self: self.variables)
    @rule()
    def failing_step(self):
        try:
            jax.block_until_ready(self.failing(*self._live()))
        except Exception as error:  # the callback's error, wrapped by XLA
            assert "failing step" in str(error)
        else:  # pragma: no cover
            raise AssertionError("the failing step did not fail")

    @rule()
    def toggle_debug_nans(self):
        self.debug_nans = not self.debug_nans
        jax.config.update("jax_debug_nans", self.debug_nans)

    @precondition(lambda self: self.debug_nans and any(self.trainable.values()))
    @rule(compiled=st.booleans())
    def nan_step(self, compiled):
        """With jax_debug_nans on, a step that makes a NaN raises FloatingPointError and
        changes nothing (the buffers it was given are not donated)."""
        vs = self._live()
        step = self.nan_assign if compiled else self._nan_minimize
        try:
            step(*vs)
        except FloatingPointError:
            pass
        else:  # pragma: no cover
            raise AssertionError("the NaN step did not raise FloatingPointError")

    @staticmethod
    def _nan_assign(*vs):
        for v in vs:
            v.assign(jnp.log(-(v**2) - 1))

    def _nan_minimize(self, *vs):
        # Adam, whose slots and counter the step also holds; a finite loss, a NaN gradient
        self.nan_opt.minimize(lambda: sum(jnp.sqrt(v * 0).sum() for v in vs), False, list(vs))

    # -- assignments and aliases ----------------------------------------------
    @precondition(lambda self: self.variables)
    @rule(data=st.data(), value=st.integers(-8, 8))
    def assign_number(self, data, value):
        name = self._any(data)
        self.variables[name].assign(tf.tensor1d([value] * 3))
        self.model[name] = np.full(3, value, np.float32)

    @precondition(lambda self: len(self.variables) >= 2)
    @rule(data=st.data())
    def assign_from_another(self, data):
        a, b = self._any(data), self._any(data)
        self.variables[b].assign(self.variables[a])
        self.model[b] = self.model[a].copy()

    @precondition(lambda self: self.variables)
    @rule(data=st.data(), how=st.sampled_from(sorted(ALIASES)))
    def take_alias(self, data, how):
        name = self._any(data)
        alias = ALIASES[how](self.variables[name])
        self.aliases.append((alias, self.model[name].copy(), f"{how}({name})"))

    @precondition(lambda self: self.variables)
    @rule(data=st.data(), how=st.sampled_from(sorted(ALIASES)))
    def take_alias_in_tidy(self, data, how):
        """An alias returned from a tf.tidy is the caller's: the tidy frees none of it."""
        name = self._any(data)
        alias = tf.tidy(lambda: ALIASES[how](self.variables[name]))
        self.aliases.append((alias, self.model[name].copy(), f"tidy {how}({name})"))

    @precondition(lambda self: self.variables)
    @rule(data=st.data(), how=st.sampled_from(sorted(ALIASES)))
    def take_alias_in_tidy_and_drop_it(self, data, how):
        """Aliases made and dropped inside a tidy: it frees its own arrays, never the
        Variable's buffer or an array the user made."""
        name = self._any(data)
        tf.tidy(lambda: [ALIASES[how](self.variables[name]), None][1])

    @precondition(lambda self: len(self.variables) < 5)
    @rule(value=st.integers(-4, 4))
    def new_from_given_array(self, value):
        """`mine` stays the user's: a Variable made from it, aliased in a tidy and then
        assigned or stepped, never frees it."""
        mine = jnp.asarray(np.full(3, value, np.float32))
        self._new(np.full(3, value, np.float32), source=mine)
        self.aliases.append((mine, np.full(3, value, np.float32), f"mine {value}"))

    @precondition(lambda self: self.variables)
    @rule(data=st.data())
    def alias_of_given_array(self, data):
        given = jnp.asarray(np.full(3, 5.0, np.float32))
        name = self._any(data)
        self.variables[name].assign(given)
        self.model[name] = np.full(3, 5.0, np.float32)
        self.aliases.append((given, self.model[name].copy(), f"given->{name}"))

    # -- lifecycle -------------------------------------------------------------
    @precondition(lambda self: len(self.variables) < 5)
    @rule(value=st.integers(-4, 4))
    def new_variable(self, value):
        self._new(np.full(3, value, np.float32))

    @precondition(lambda self: self.variables and len(self.variables) < 5)
    @rule(data=st.data())
    def new_from_another(self, data):
        name = self._any(data)
        self._new(self.model[name].copy(), source=self.variables[name])

    @precondition(lambda self: self.variables and len(self.variables) < 5)
    @rule(data=st.data(), how=st.sampled_from(["copy", "deepcopy", "in a list", "in a dict"]))
    def copy_a_variable(self, data, how):
        """A copy is a new, independent Variable (a DQN's target network is made so)."""
        name = self._any(data)
        source = self.variables[name]
        if how == "copy":
            made = [copy.copy(source)]
        elif how == "deepcopy":
            made = [copy.deepcopy(source)]
        elif how == "in a list":  # the same Variable twice: one copy, twice
            pair = copy.deepcopy([source, source])
            assert pair[0] is pair[1]
            made = pair[:1]
        else:
            made = list(copy.deepcopy({"model": {"w": source}})["model"].values())
        for twin in made:
            assert twin is not source and twin.name != source.name
            label = f"m{self.count}"
            self.count += 1
            self.variables[label] = twin
            self.model[label] = self.model[name].copy()
            self.trainable[label] = twin.trainable
            assert twin.trainable == self.trainable[name]

    @precondition(lambda self: len(self.variables) > 1)
    @rule(data=st.data())
    def dispose(self, data):
        name = self._any(data)
        self.variables.pop(name).dispose()
        del self.model[name], self.trainable[name]

    @precondition(lambda self: self.variables)
    @rule(data=st.data())
    def toggle_trainable(self, data):
        name = self._any(data)
        self.trainable[name] = not self.trainable[name]
        self.variables[name].trainable = self.trainable[name]

    # -- what must hold after every action ----------------------------------------
    @invariant()
    def every_alias_and_variable_reads_the_model(self):
        for alias, expected, label in self.aliases:
            np.testing.assert_array_equal(np.asarray(alias), expected, err_msg=label)
        for name, v in self.variables.items():
            np.testing.assert_array_equal(np.asarray(v.read()), self.model[name], err_msg=name)

    def teardown(self):
        jax.config.update("jax_debug_nans", False)
        tf.dispose_variables()


StoreModel.TestCase.settings = settings(
    max_examples=25,
    stateful_step_count=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_store_model = StoreModel.TestCase
