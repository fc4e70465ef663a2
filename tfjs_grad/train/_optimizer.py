"""The tfjs `Optimizer` interface over any optax transformation.

State lives in Variables (so `tf.jit` threads it like any other state): an int32
`iterations` counter and one Variable per leaf of the optax state, which is built over
the dict `{variable name: value}` of the Variables this optimizer tracks. Slots belong
to the Variable *object*: a tracked Variable that was disposed (or collected) loses its
slots at the next use, and a new Variable that reuses its name starts fresh.

A call that leaves some tracked variables out (no gradient, or None) gives the
transformation zeros for them, then keeps their values and their slots exactly as they
were (every dict keyed by the tracked names holds per-variable state). Counters and
other shared state advance on every call, as tfjs's do. Every update and every new state
entry is checked against the shape and dtype it replaces before anything is written.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal, overload

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.core import Tracer

from .. import _scope, _store, _trace
from .._jax_internals import tracing
from .._tensor import Tensor
from .._tensors import ArrayLike, convert
from ..gradients import LossProgram, VariableGrads, loss_gradients, loss_program, variable_grads
from ..variables import (
    Variable,
    commit_all,
    epoch,
    gather,
    lookup_variable,
    registered_variables,
    variable,
    variable_by_uid,
    write,
)
from . import _hyperparams, _state, _step
from ._describe import describe
from ._validation import (
    NamedTensor,
    checked_gradient,
    entries,
    iteration_count,
)

_optimizer_ids = itertools.count()
_state_ids: set[int] = set()  # Variable.id of every Variable made to hold optimizer state
_FUSED_MAX = 64  # fused minimize plans kept per optimizer


def is_optimizer_state(var: Variable) -> bool:
    """Whether `var` was made by an optimizer for its state (iterations, slots): what
    `tf.io.save_weights` leaves out by default, as tfjs's `model.save` does.

    >>> import tfjs_grad as tf
    >>> from tfjs_grad.train._optimizer import is_optimizer_state
    >>> w = tf.variable(tf.ones([2]), name="doc_state_w")
    >>> opt = tf.train.adam(0.1)
    >>> opt.minimize(lambda: (w * w).sum())
    >>> slots = [v for v in tf.registered_variables().values() if "doc_state_w/" in v.name]
    >>> is_optimizer_state(w), [is_optimizer_state(v) for v in slots]
    (False, [True, True])
    >>> w.dispose(); opt.dispose()
    """
    return var.id in _state_ids


def _is_variable(x: Any) -> bool:
    return isinstance(x, Variable)


class _ClassName:
    """`Cls.className` and `instance.className`: the class's `class_name`."""

    def __get__(self, obj: Any, cls: type) -> str:
        return cls.class_name  # type: ignore[attr-defined]


class Optimizer:
    """Base class of the tfjs optimizers; `from_optax` wraps any optax transformation.

    >>> import optax, tfjs_grad as tf
    >>> w = tf.variable(tf.tensor1d([1, 2]), name="doc_opt_w")
    >>> opt = tf.train.from_optax(optax.sgd(0.1))
    >>> float(opt.minimize(lambda: (w ** 2).sum(), return_cost=True))
    5.0
    >>> w.value.tolist(), opt.iterations
    ([0.800000011920929, 1.600000023841858], 1)
    >>> w.dispose(); opt.dispose()
    """

    class_name = "Optimizer"
    className = _ClassName()  # tfjs's static `className`, following class_name
    _config_keys: tuple[str, ...] = ()
    # (state field, tfjs slot suffix) in getWeights order; None for a wrapped optax state.
    _slots: tuple[tuple[str, str], ...] | None = None
    # Path parts left out of state Variables' names (tfjs optimizers drop the wrapper's).
    _label_skips: frozenset[str] = frozenset()
    _learningRate: Any = None  # the rate as last given in Python (None: only in the state)

    def __init__(self, transformation: optax.GradientTransformation):
        if not isinstance(transformation, optax.GradientTransformation):
            raise TypeError(
                "Argument 'transformation' must be an optax.GradientTransformation, "
                f"but got '{type(transformation).__name__}'"
            )
        self._tx = transformation
        self._prefix = f"{self.class_name.lower()}_{next(_optimizer_ids)}"
        self._iterations = variable(
            jnp.asarray(np.int32(0)), trainable=False, name=f"{self._prefix}/iter"
        )
        self._layout = _state.StateLayout()
        _state_ids.add(self._iterations.id)
        self._compiled: dict[tuple[Any, ...], Callable[..., Any]] = {}
        # fused minimize plans by what decides them (see _minimize_in_one_program)
        self._fused: dict[tuple[Any, ...], tuple[Any, Any]] = {}
        self._rate_nodes: tuple[int, list[Any]] = (-1, [])
        self._disposed = False
        # Shared state (counters, the learning rate) exists from the start, as tfjs's
        # does; a transformation tied to particular parameter names builds it later.
        try:
            with jax.ensure_compile_time_eval(), _store.detached():
                empty = self._tx.init({})
        except Exception:
            return
        with jax.ensure_compile_time_eval(), _store.detached():
            self._restructure([], lambda: {}, fresh=empty)

    # -- the tfjs interface -----------------------------------------------------------
    @property
    def iterations(self) -> Any:
        """Applied steps so far (an array while traced inside `tf.jit`)."""
        value = self._iterations.raw()
        return value if isinstance(value, Tracer) else int(value)

    @overload
    def minimize(
        self,
        f: Callable[[], ArrayLike],
        return_cost: Literal[True],
        var_list: Sequence[Variable] | None = None,
    ) -> Tensor: ...
    @overload
    def minimize(
        self,
        f: Callable[[], ArrayLike],
        return_cost: Literal[False] = False,
        var_list: Sequence[Variable] | None = None,
    ) -> None: ...
    @overload
    def minimize(
        self,
        f: Callable[[], ArrayLike],
        return_cost: bool = False,
        var_list: Sequence[Variable] | None = None,
    ) -> Tensor | None: ...
    def minimize(
        self,
        f: Callable[[], ArrayLike],
        return_cost: bool = False,
        var_list: Sequence[Variable] | None = None,
    ) -> Tensor | None:
        """Compute gradients of `f` and apply them; return the cost (a Tensor) when asked.

        >>> import tfjs_grad as tf
        >>> x = tf.variable(tf.tensor1d([2, 2]), name="doc_min_x")
        >>> opt = tf.train.sgd(0.25)
        >>> opt.minimize(lambda: (x ** 2).sum())
        >>> x.value.tolist()
        [1.0, 1.0]
        >>> x.dispose(); opt.dispose()
        """
        self._check_alive()
        if _store.current() is None and not tracing():
            loss = loss_program(f, var_list)
            key = _trace.program_key(loss.program)
            distinct = var_list is None or len({id(v) for v in var_list}) == len(var_list)
            if key is not None and distinct and not loss.program.write_uids:
                value = self._minimize_in_one_program(loss, key, var_list)
                return _scope.track(value) if return_cost else None
            value, grads = loss_gradients(loss)
        else:
            value, grads = self.compute_gradients(f, var_list)
        value = _scope.track(value)
        if var_list is None:
            self.apply_gradients(grads)
        else:
            self.apply_gradients([NamedTensor(v.name, grads.get(v.name)) for v in var_list])
        return value if return_cost else None

    def _minimize_in_one_program(
        self, loss: LossProgram, key: Any, var_list: Sequence[Variable] | None
    ) -> Any:
        """An eager `minimize` as one compiled program: the loss's vjp and the update, with
        the replaced buffers donated (what `apply_gradients(compute_gradients(f))` does,
        without a second dispatch or the gradients crossing back to Python)."""
        program = loss.program
        targets = loss.connected if var_list is None else var_list
        with _store.LOCK:
            saved = self._layout
            try:
                tracked = self._ensure_state(targets, self._tracked())
                layout = self._layout
                donate = _store.donation_allowed()
                # The plan depends on these alone (the layout's version names the tracked
                # Variables and the state; `key` holds which inputs are connected): worked
                # out once per layout, not on every step.
                plan_key = (key, layout.version, donate, program.needed, loss.trainable_ids)
                found = self._fused.get(plan_key)
                if found is None:
                    fused = _step.plan_fused_step(loss, tracked, layout, self._iterations)
                    run_key = ("minimize", key, layout.version, fused.has_grad, fused.plan, donate)
                    if len(self._fused) >= _FUSED_MAX:
                        self._fused.clear()
                    found = self._fused[plan_key] = (run_key, fused)
                run_key, fused = found
                run = _trace.cached(
                    run_key,
                    lambda: _step.fused_step(self._update_fn(fused.has_grad), program, fused.plan),
                    donate=(0,) if donate else (),
                    source=program.source,
                )
                written, read = fused.variables(loss.trainable, tracked, layout, self._iterations)
                since = epoch()
                donated, kept, shared = gather(written, read, donate)
                new, value = run(donated, kept, program.consts)
                if not donate:  # a failure at run time must show before the commit
                    jax.block_until_ready((value, new))
            except BaseException:
                self._roll_back(saved)
                raise
            commit_all(written, new, shared, since)
        return value

    def compute_gradients(
        self, f: Callable[[], ArrayLike], var_list: Sequence[Variable] | None = None
    ) -> VariableGrads:
        """`tf.variable_grads(f, var_list)`."""
        return variable_grads(f, var_list)

    def apply_gradients(self, variable_gradients: Any) -> None:
        """Apply `{name: gradient}` or `[NamedTensor(name, gradient), ...]`.

        None entries are skipped; variables absent from the gradients are not touched,
        nor are their slots. Everything is checked before anything changes.

        >>> import tfjs_grad as tf
        >>> a = tf.variable(tf.tensor1d([1, 1]), name="doc_apply_a")
        >>> b = tf.variable(tf.tensor1d([1, 1]), name="doc_apply_b")
        >>> opt = tf.train.sgd(0.5)
        >>> opt.apply_gradients([tf.NamedTensor("doc_apply_a", tf.tensor1d([1, 2])),
        ...                      {"name": "doc_apply_b", "tensor": None}])
        >>> a.value.tolist(), b.value.tolist(), opt.iterations
        ([0.5, 0.0], [1.0, 1.0], 1)
        >>> a.dispose(); b.dispose(); opt.dispose()
        """
        self._check_alive()
        targets: list[Variable] = []
        grads: dict[str, Any] = {}
        for name, g in entries(variable_gradients, "variable_gradients", "applyGradients"):
            var = lookup_variable(name)
            if var is None:
                raise ValueError(
                    f"apply_gradients: no live Variable named '{name}' (got a gradient for it)"
                )
            targets.append(var)
            if g is not None:
                grads[name] = checked_gradient(name, g, var)
        with _store.LOCK:  # one step at a time: threads sharing variables lose no update
            tracked = self._tracked()
            with self._transaction():
                self._step(self._ensure_state(targets, tracked), grads)

    # -- the learning rate ------------------------------------------------------------
    @property
    def learning_rate(self) -> Any:
        """The learning rate the next step uses; assigning it is `set_learning_rate`.

        >>> import tfjs_grad as tf
        >>> opt = tf.train.adam(0.1)
        >>> opt.learning_rate
        0.1
        >>> opt.learning_rate = 0.05
        >>> opt.learning_rate, opt.get_config()["learningRate"]
        (0.05, 0.05)
        >>> opt.dispose()
        """
        self._check_alive()
        if callable(self._learningRate):
            return self._learningRate  # a schedule: optax evaluates it at every step
        value = self._rate_variable("learningRate").raw()
        if isinstance(value, Tracer):
            return value
        given = self._learningRate
        if given is not None and float(np.float32(given)) == float(value):
            return given
        return float(value)

    @learning_rate.setter
    def learning_rate(self, learning_rate: float) -> None:
        self.set_learning_rate(learning_rate)

    def set_learning_rate(self, learning_rate: float) -> None:
        """Use `learning_rate` from the next step on (inside `tf.jit` too, no retrace).

        It may be a traced scalar inside a compiled step. A wrapped optax transformation
        needs a learning rate in its state: build it with `optax.inject_hyperparams`.

        >>> import tfjs_grad as tf
        >>> w = tf.variable(tf.tensor1d([1.0]), name="doc_set_lr_w")
        >>> opt = tf.train.sgd(0.5)
        >>> opt.set_learning_rate(0.25)
        >>> opt.apply_gradients({"doc_set_lr_w": tf.tensor1d([1.0])})
        >>> w.value.tolist()
        [0.75]
        >>> w.dispose(); opt.dispose()
        """
        self._check_alive()
        value = _hyperparams.new_learning_rate(learning_rate, "setLearningRate")
        slot = self._rate_variable("setLearningRate")
        write(slot, jnp.asarray(value, slot.dtype))
        self._learningRate = value if isinstance(value, (int, float)) else None

    def _rate_variable(self, fn: str) -> Variable:
        """The state Variable that holds the learning rate, or a ValueError saying why not."""
        where = f"{fn}: this {self.class_name} optimizer"
        if self._layout.treedef is None:
            raise ValueError(f"{where} has no state before its first step")
        version, nodes = self._rate_nodes
        if version != self._layout.version:
            nodes = _hyperparams.learning_rate_nodes(self._layout.state(), _is_variable)
            self._rate_nodes = (self._layout.version, nodes)
        if not nodes:
            raise ValueError(
                f"{where} keeps no learning rate in its optax state; build the "
                "transformation with optax.inject_hyperparams, e.g. tf.train.from_optax("
                "optax.inject_hyperparams(optax.adam)(learning_rate=0.01))"
            )
        if len(nodes) > 1:
            raise ValueError(
                f"{where} holds {len(nodes)} learning rates (several inject_hyperparams); "
                "set them in their transformations"
            )
        if _hyperparams.is_scheduled(nodes[0]):
            raise ValueError(
                f"{where} takes its learning rate from an optax schedule, evaluated at every "
                "step; build the optimizer with a number to set the rate"
            )
        return nodes[0].hyperparams["learning_rate"]

    # -- state ------------------------------------------------------------------------
    def _tracked(self) -> list[Variable]:
        """The tracked Variables, after dropping the slots of any that died."""
        variables = [variable_by_uid(uid) for uid in self._layout.uids]
        live = [v for v in variables if v is not None and not v.is_disposed]
        if len(live) < len(variables):
            with jax.ensure_compile_time_eval(), _store.detached():
                self._restructure(live, lambda: _state.initial_values(live))
        return live

    def _ensure_state(
        self, targets: Sequence[Variable], tracked: list[Variable] | None = None
    ) -> list[Variable]:
        """Track `targets` too (fresh slots for the new ones); returns every tracked Variable.

        `tracked` is `self._tracked()` when the caller has it already."""
        tracked = self._tracked() if tracked is None else tracked
        known = set(self._layout.uids)
        new = [v for v in dict.fromkeys(targets) if v.id not in known]
        if not new and self._layout.treedef is not None:
            return tracked
        variables = tracked + new
        values = _state.initial_values(variables)
        if all(not isinstance(x, Tracer) for x in values.values()):
            # State starts from the variables' concrete values, even inside tf.jit, so the
            # new slots are real Variables at once and the compiled step takes them as
            # inputs (one compile, not one with and one without the optimizer state).
            with jax.ensure_compile_time_eval(), _store.detached():
                self._restructure(variables, lambda: values)
        else:  # variables born in this very trace: their state is born traced too
            self._restructure(variables, lambda: values)
        return variables

    def _restructure(
        self,
        variables: list[Variable],
        values: Callable[[], dict[str, Any]],
        fresh: Any = None,
    ) -> None:
        """Rebuild the state over `variables` (see `_state.rebuilt`)."""
        self._layout = _state.rebuilt(
            self._layout,
            self._tx,
            variables,
            values,
            fresh,
            slot=self._slot,
            label_of=self._label,
            where=self.class_name,
            skips=self._label_skips,
        )
        self._compiled = {}

    def _slot(self, label: str, init: Any) -> Variable:
        slot = variable(init, trainable=False, name=f"{self._prefix}/{label}")
        _state_ids.add(slot.id)
        return slot

    def _label(self, var: Variable) -> str:
        return var.name.removeprefix(self._prefix + "/")

    @contextlib.contextmanager
    def _transaction(self) -> Iterator[None]:
        """On an error, go back to the current layout, disposing slots made since."""
        saved = self._layout
        try:
            yield
        except BaseException:
            self._roll_back(saved)
            raise

    def _roll_back(self, saved: _state.StateLayout) -> None:
        """Go back to the `saved` layout, disposing the slots made since."""
        _state.discard_since(self._layout, saved)
        if self._layout is not saved:
            self._layout = saved
            self._compiled = {}

    def _step(self, tracked: list[Variable], grads: dict[str, Any]) -> None:
        layout = self._layout
        has_grad = tuple(n in grads for n in layout.names)
        params = [v.raw() for v in tracked]
        supplied = [grads[n] for n in layout.names if n in grads]
        state = [v.raw() for v in layout.leaves]
        count = self._iterations.raw()
        traced = _store.current() is not None or any(
            isinstance(x, Tracer) for x in (*params, *supplied, *state)
        )
        if traced:
            update = self._update_fn(has_grad)
        else:
            key = (layout.version, has_grad)
            update = self._compiled.get(key)
            if update is None:
                update = self._compiled[key] = jax.jit(self._update_fn(has_grad))
        new_params, new_state, new_count = update(params, supplied, state, count)
        for var, value in zip((v for v, g in zip(tracked, has_grad) if g), new_params):
            write(var, value)
        # An entry the update left as it was (a constant learning rate) is written back
        # only with several devices, where the step's result is what replicates it across
        # them. With one, it stays an input the compiled step reads: a donated buffer
        # returned unchanged cost a tiny step about 0.7 us more than one it only reads.
        rewrite = jax.device_count() > 1
        for var, value, before in zip(layout.leaves, new_state, state):
            if rewrite or value is not before:
                write(var, value)
        write(self._iterations, new_count)

    def _update_fn(self, has_grad: tuple[bool, ...]) -> Callable[..., Any]:
        """The whole step as a function of flat lists of arrays (what gets compiled)."""
        labels = [self._label(v) for v in self._layout.leaves]
        return _step.update_fn(self._tx, self._layout, has_grad, labels)

    # -- weights and config -----------------------------------------------------------
    def _slot_fields(self) -> tuple[tuple[str, str], ...] | None:
        return self._slots

    def _weight_variables(self) -> dict[str, Variable]:
        """getWeights's names -> state Variables: every leaf for a wrapped optax state,
        else tfjs's slot groups in order, each over the tracked variables in order."""
        by_label = {self._label(v): v for v in self._layout.leaves}
        fields = self._slot_fields()
        if fields is None:
            return by_label
        return {
            f"{name}/{suffix}": by_label[f"{name}/{field}"]
            for field, suffix in fields
            for name in self._layout.names
        }

    def get_weights(self) -> list[NamedTensor]:
        """`[NamedTensor('iter', ...), NamedTensor('<variable>/<slot>', ...), ...]`.

        >>> import tfjs_grad as tf
        >>> w = tf.variable(tf.tensor1d([1, 2]), name="doc_weights_w")
        >>> opt = tf.train.adam(0.1)
        >>> opt.minimize(lambda: (w ** 2).sum())
        >>> [name for name, _ in opt.get_weights()]
        ['iter', 'doc_weights_w/m', 'doc_weights_w/v']
        >>> fresh = tf.train.adam(0.1)
        >>> fresh.set_weights(opt.get_weights())
        >>> fresh.iterations
        1
        >>> w.dispose(); opt.dispose(); fresh.dispose()
        """
        self._check_alive()
        self._tracked()
        weights = [NamedTensor("iter", jnp.array(self._iterations.raw(), jnp.int32))]
        weights += [NamedTensor(n, v.value) for n, v in self._weight_variables().items()]
        return weights

    def set_weights(self, weights: Sequence[Any]) -> None:
        """Load `get_weights()` output (the `iter` entry first) into this optimizer.

        Slots are matched to live Variables by name. Everything is checked before
        anything changes.
        """
        self._check_alive()
        given = entries(weights, "weights", "setWeights")
        if not given or given[0][0] != "iter":
            raise ValueError("set_weights: the first entry must be 'iter'")
        iterations = iteration_count(given[0][1])
        slots = given[1:]
        fields = self._slot_fields()
        if slots and fields == ():
            raise ValueError(f"{self.class_name} optimizer does not have settable weights.")
        self._tracked()
        with self._transaction():
            if slots:
                self._ensure_state(self._weight_owners([label for label, _ in slots]))
            targets = self._weight_variables()
            checked = []
            for label, tensor in slots:
                slot = targets.get(label)
                if slot is None:
                    raise ValueError(f"set_weights: this optimizer has no weight named '{label}'")
                array = convert(tensor, argument=label, fn="setWeights")
                if array.shape != slot.shape:
                    raise ValueError(
                        f"set_weights: '{label}' has shape {array.shape}, expected {slot.shape}"
                    )
                checked.append((slot, array.astype(slot.dtype)))
        for slot, array in checked:
            write(slot, array, owned=False)
        write(self._iterations, jnp.asarray(iterations, jnp.int32))
        self._after_set_weights(iterations)

    def _weight_owners(self, labels: list[str]) -> list[Variable]:
        """The live Variables that weights named `<variable>/<slot>` belong to."""
        live = registered_variables()
        fields = self._slot_fields()
        shared = {self._label(e.var) for e in self._layout.entries if e.owner == _state.SHARED}
        owners = []
        for label in labels:
            if fields is not None:
                suffixes = [s for _, s in fields if label.endswith("/" + s)]
                names = [label[: -len(s) - 1] for s in suffixes]
            elif label in shared:
                continue
            else:
                names = [n for n in live if label.startswith(n + "/")]
            if not names:
                raise ValueError(f"set_weights: this optimizer has no weight named '{label}'")
            name = max(names, key=len)
            if name not in live:
                raise ValueError(f"set_weights: no live Variable named '{name}'")
            owners.append(live[name])
        return owners

    def _after_set_weights(self, iterations: int) -> None:
        """Hook: derive per-optimizer counters from `iterations` (Adam's beta powers)."""

    def get_config(self) -> dict[str, Any]:
        """The constructor arguments, under tfjs's keys, in tfjs's order.

        >>> import tfjs_grad as tf
        >>> config = tf.train.adam(0.01).get_config()
        >>> config
        {'learningRate': 0.01, 'beta1': 0.9, 'beta2': 0.999, 'epsilon': 1e-07}
        >>> tf.train.AdamOptimizer.from_config(config).get_config() == config
        True
        """
        config = {key: getattr(self, "_" + key) for key in self._config_keys}
        if "learningRate" in config and not self._disposed:
            rate = self.learning_rate
            config["learningRate"] = self._learningRate if isinstance(rate, Tracer) else rate
        return config

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Optimizer:
        """`cls(*config values in tfjs's key order)`; missing keys take the defaults.

        >>> import tfjs_grad as tf
        >>> tf.train.RMSPropOptimizer.from_config({"learningRate": 0.1}).get_config()
        {'learningRate': 0.1, 'decay': 0.9, 'momentum': 0.0, 'epsilon': 1e-07, 'centered': False}
        """
        if not cls._config_keys:
            raise TypeError(
                "fromConfig: a wrapped optax transformation has no config; "
                "use tf.train.from_optax(transformation)"
            )
        if not isinstance(config, Mapping):
            raise TypeError(
                f"Argument 'config' passed to 'fromConfig' must be a dict with keys "
                f"{', '.join(cls._config_keys)}, but got '{type(config).__name__}'"
            )
        unknown = [key for key in config if key not in cls._config_keys]
        if unknown:
            raise ValueError(
                f"fromConfig: {cls.class_name} has no config key {unknown[0]!r} "
                f"(its keys: {', '.join(cls._config_keys)})"
            )
        return cls(*(config.get(key) for key in cls._config_keys))  # type: ignore[arg-type]

    def get_class_name(self) -> str:
        return self.class_name

    def dispose(self) -> None:
        """Dispose the optimizer's state Variables; the optimizer cannot be used after."""
        if self._disposed:
            return
        self._disposed = True
        self._iterations.dispose()
        for var in self._layout.leaves:
            var.dispose()
        self._layout = _state.StateLayout()
        self._compiled = {}
        self._fused = {}

    def _check_alive(self) -> None:
        if self._disposed:
            raise ValueError(f"This {self.class_name} optimizer was disposed.")

    def __repr__(self) -> str:
        """tfjs optimizers show their config; a wrapped optax one what it is made of.

        >>> import optax, tfjs_grad as tf
        >>> tf.train.from_optax(optax.adam(1e-3))
        <tf.train.from_optax(chain(scale_by_adam, scale)) iterations=0>
        """
        wrapped = not self._config_keys
        what = f"from_optax({describe(self._tx)})" if wrapped else self.class_name
        if self._disposed:
            return f"<tf.train.{what} (disposed)>"
        state = f"iterations={self.iterations}" if wrapped else self.get_config()
        return f"<tf.train.{what} {state}>"

    computeGradients = compute_gradients
    applyGradients = apply_gradients
    getWeights = get_weights
    setWeights = set_weights
    getConfig = get_config
    fromConfig = from_config
    getClassName = get_class_name
    setLearningRate = set_learning_rate
    learningRate = learning_rate


class TfjsOptimizer(Optimizer):
    """A tfjs optimizer: its optax state is `inject_hyperparams`'s around the tfjs update,
    so every counter in it counts applied steps, and its slots have tfjs's names."""

    _label_skips = frozenset({"inner_state", "hyperparams"})

    def _after_set_weights(self, iterations: int) -> None:
        for entry in self._layout.entries:
            var = entry.var
            if entry.owner == _state.SHARED and self._label(var).rsplit("/", 1)[-1] == "count":
                write(var, jnp.asarray(iterations, var.dtype))

    def _write_shared(self, label: str, value: Any) -> None:
        """Write shared state entry `label` (e.g. 'acc_betas')."""
        var = next(v for v in self._layout.leaves if self._label(v) == label)
        write(var, jnp.asarray(value, var.dtype))


# -- an optimizer's state, for the rest of the package (checkpoints) ---------------------
def check_usable(opt: Optimizer) -> None:
    """Raise the 'was disposed' ValueError if `opt` was disposed."""
    opt._check_alive()


def owned_variables(opt: Optimizer) -> dict[str, Variable]:
    """label -> Variable for all of `opt`'s state: 'iter', then each state entry (after
    dropping the slots of tracked Variables that died)."""
    opt._tracked()
    return {opt._label(v): v for v in (opt._iterations, *opt._layout.leaves)}


def tracked_names(opt: Optimizer) -> tuple[str, ...]:
    """The names of the live Variables `opt` keeps state for, in state order."""
    opt._tracked()
    return opt._layout.names


def track(opt: Optimizer, variables: Sequence[Variable]) -> None:
    """Keep state for `variables` too (fresh slots for new ones)."""
    opt._ensure_state(variables)


def transaction(opt: Optimizer) -> contextlib.AbstractContextManager[None]:
    """A context that, on an error, returns `opt` to its state layout at entry, disposing
    the slots made since."""
    opt._tracked()
    return opt._transaction()


def running_product(factor: float, steps: int) -> np.float32:
    """float32(factor) multiplied by float32(factor) `steps` times, rounding as tfjs does
    at every step (its running `beta^t` products)."""
    product = np.float32(factor)
    remaining = steps
    while remaining > 0 and product != 0:
        chunk = min(remaining, 1 << 20)
        factors = np.full(chunk + 1, np.float32(factor))
        factors[0] = product
        product = np.float32(np.multiply.accumulate(factors, dtype=np.float32)[-1])
        remaining -= chunk
    return product


def from_optax(transformation: optax.GradientTransformation) -> Optimizer:
    """Any optax transformation behind tfjs's Optimizer interface.

    Partial updates: a variable without a gradient in a call keeps its value and every
    state entry keyed by its name (moments, accumulators); state that is not per
    variable (step counts, schedules' counters) advances on every call, as tfjs's
    counters do. Transformations that mix variables (e.g. `clip_by_global_norm`) see
    zeros for the absent ones. To change the learning rate between steps, build the
    transformation with `optax.inject_hyperparams`.

    >>> import optax, tfjs_grad as tf
    >>> w = tf.variable(tf.tensor1d([1, -1]), name="doc_from_optax_w")
    >>> opt = tf.train.from_optax(optax.chain(optax.clip_by_global_norm(1.0), optax.adam(0.1)))
    >>> opt.minimize(lambda: (w ** 2).sum())
    >>> [round(x, 3) for x in w.value.tolist()]
    [0.9, -0.9]
    >>> w.dispose(); opt.dispose()
    """
    return Optimizer(transformation)


fromOptax = from_optax
