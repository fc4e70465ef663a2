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
import functools
import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.core import Tracer
from jax.tree_util import DictKey, GetAttrKey

from .. import _scope, _store, _trace
from .._jax_internals import tracing
from .._tensors import ArrayLike, convert, dtype_name
from ..gradients import LossProgram, VariableGrads, loss_gradients, loss_program, variable_grads
from ..variables import Variable, lookup_variable, registered_variables, variable, variable_by_uid
from . import _hyperparams
from ._describe import describe

_optimizer_ids = itertools.count()
_state_ids: set[int] = set()  # Variable.id of every Variable made to hold optimizer state


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


_layout_ids = itertools.count(1)


class NamedTensor(NamedTuple):
    """A `{name, tensor}` pair, as tfjs's `NamedTensor`."""

    name: str
    tensor: Any


class _FusedPlan(NamedTuple):
    """Where a fused eager step finds each array (static: part of its cache key).

    Positions are (donated?, index) into the donated or the kept list."""

    xs: tuple[tuple[bool, int] | None, ...]  # the loss's inputs (None: not needed)
    params: tuple[tuple[bool, int], ...]  # every tracked Variable, in state order
    grads: tuple[int, ...]  # per present Variable: its gradient among the loss's
    leaves: tuple[int, int]  # the state leaves' range in the donated list (then iter)


class _Layout(NamedTuple):
    """Which Variables an optimizer tracks, and the Variables holding its optax state."""

    uids: tuple[int, ...] = ()  # the tracked Variables, by identity
    names: tuple[str, ...] = ()  # their names: the keys of the optax params and state
    leaves: tuple[Variable, ...] = ()  # the optax state's leaves, in flattening order
    owners: tuple[int, ...] = ()  # per leaf: index into `names`, or -1 for shared state
    paths: tuple[Any, ...] = ()  # per leaf: its key path in the optax state
    treedef: Any = None  # the optax state's structure; None until it is built
    version: int = 0  # names the layout in the compile cache


def _is_variable(x: Any) -> bool:
    return isinstance(x, Variable)


def _shape_and_dtype(x: Any) -> tuple[tuple[int, ...], Any]:
    return tuple(jnp.shape(x)), jnp.result_type(x)


def _aval_text(shape: tuple[int, ...], dtype: Any) -> str:
    return f"{dtype_name(dtype)}{list(shape)}"


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
        _state_ids.add(self._iterations.id)
        self._layout = _Layout()
        self._compiled: dict[tuple[Any, ...], Callable[..., Any]] = {}
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
        value = self._iterations.read()
        return value if isinstance(value, Tracer) else int(value)

    def minimize(
        self,
        f: Callable[[], ArrayLike],
        return_cost: bool = False,
        var_list: Sequence[Variable] | None = None,
    ) -> jax.Array | None:
        """Compute gradients of `f` and apply them; return the cost when asked.

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
        targets = list(var_list) if var_list is not None else loss.connected
        with _store.LOCK:
            tracked = self._tracked()
            saved = self._layout
            try:
                variables = self._ensure_state(targets, tracked)
                layout = self._layout
                graded = {v._uid: i for i, v in enumerate(loss.connected)}
                present = tuple(v._uid in graded for v in variables)
                written = [v for v, p in zip(variables, present) if p]
                written += [*layout.leaves, self._iterations]
                where = {v._uid: (True, i) for i, v in enumerate(written)}
                read: list[Variable] = []

                def place(var: Variable) -> tuple[bool, int]:
                    if var._uid not in where:
                        where[var._uid] = (False, len(read))
                        read.append(var)
                    return where[var._uid]

                plan = _FusedPlan(
                    xs=tuple(
                        place(v) if n else None for v, n in zip(loss.trainable, program.needed)
                    ),
                    params=tuple(place(v) for v in variables),
                    grads=tuple(graded[v._uid] for v, p in zip(variables, present) if p),
                    leaves=(sum(present), sum(present) + len(layout.leaves)),
                )
                run = _trace.cached(
                    ("minimize", key, layout.version, present, plan),
                    lambda: self._fused_step(program, present, plan),
                    donate=(0,),
                )
                donated = [var._lend() for var in written]
                value, new = run(donated, [var._peek() for var in read], program.consts)
            except BaseException:
                self._roll_back(saved)
                raise
            for var, array in zip(written, new):
                var._commit(array)
        return value

    def _fused_step(
        self, program: _trace.Program, present: tuple[bool, ...], plan: _FusedPlan
    ) -> Callable[..., Any]:
        update = self._update_fn(present)
        jaxpr, connected = program.jaxpr, program.connected

        def step(donated: list[Any], kept: list[Any], consts: list[Any]) -> Any:
            def pick(at: tuple[bool, int]) -> Any:
                return donated[at[1]] if at[0] else kept[at[1]]

            xs = [None if at is None else pick(at) for at in plan.xs]
            value, grads, _ = _trace.vjp_of_program(jaxpr, connected, False, consts, xs, None)
            first, last = plan.leaves
            new_params, new_state, new_count = update(
                [pick(at) for at in plan.params],
                [grads[i] for i in plan.grads],
                donated[first:last],
                donated[last],
            )
            return value, [*new_params, *new_state, new_count]

        return step

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
        for name, g in _entries(variable_gradients, "variable_gradients", "applyGradients"):
            var = lookup_variable(name)
            if var is None:
                raise ValueError(
                    f"apply_gradients: no live Variable named '{name}' (got a gradient for it)"
                )
            targets.append(var)
            if g is not None:
                grads[name] = _checked_gradient(name, g, var)
        with _store.LOCK:  # one step at a time: threads sharing variables lose no update
            tracked = self._tracked()
            saved = self._layout
            try:
                self._step(self._ensure_state(targets, tracked), grads)
            except BaseException:
                self._roll_back(saved)
                raise

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
        value = self._rate_variable("learningRate").read()
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
        slot._write(jnp.asarray(value, slot.dtype))
        self._learningRate = value if isinstance(value, (int, float)) else None

    def _rate_variable(self, fn: str) -> Variable:
        """The state Variable that holds the learning rate, or a ValueError saying why not."""
        where = f"{fn}: this {self.class_name} optimizer"
        if self._layout.treedef is None:
            raise ValueError(f"{where} has no state before its first step")
        version, nodes = self._rate_nodes
        if version != self._layout.version:
            nodes = _hyperparams.learning_rate_nodes(self._state(), _is_variable)
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
    def _state(self) -> Any:
        """The optax state's structure with its Variables as leaves."""
        layout = self._layout
        return None if layout.treedef is None else jax.tree.unflatten(layout.treedef, layout.leaves)

    def _tracked(self) -> list[Variable]:
        """The tracked Variables, after dropping the slots of any that died."""
        variables = [variable_by_uid(uid) for uid in self._layout.uids]
        live = [v for v in variables if v is not None and not v.is_disposed]
        if len(live) < len(variables):
            with jax.ensure_compile_time_eval(), _store.detached():
                self._restructure(live, lambda: _initial_values(live))
        return live

    def _ensure_state(
        self, targets: Sequence[Variable], tracked: list[Variable] | None = None
    ) -> list[Variable]:
        """Track `targets` too (fresh slots for the new ones); returns every tracked Variable.

        `tracked` is `self._tracked()` when the caller has it already."""
        tracked = self._tracked() if tracked is None else tracked
        known = set(self._layout.uids)
        new = [v for v in dict.fromkeys(targets) if v._uid not in known]
        if not new and self._layout.treedef is not None:
            return tracked
        variables = tracked + new
        values = _initial_values(variables)
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
        """Rebuild the state over `variables`: entries that stay keep their Variables,
        new entries get Variables holding `tx.init`'s values, the rest are disposed."""
        names = tuple(v.name for v in variables)
        uids = tuple(v._uid for v in variables)
        if fresh is None:
            avals = {n: jax.ShapeDtypeStruct(v.shape, v.dtype) for n, v in zip(names, variables)}
            shapes = jax.eval_shape(self._tx.init, avals)
        else:
            shapes = fresh
        flat, treedef = jax.tree_util.tree_flatten_with_path(shapes)
        paths = [path for path, _ in flat]
        owners = _owners(shapes, paths, names)
        # A leaf is the same entry as before when its path and its owner's identity are.
        before = self._layout
        old = {
            (before.uids[o] if o >= 0 else -1, path): var
            for var, o, path in zip(before.leaves, before.owners, before.paths)
        }
        keys = [(uids[o] if o >= 0 else -1, path) for path, o in zip(paths, owners)]
        for key, (_, aval) in zip(keys, flat):
            kept = old.get(key)
            if kept is not None and _shape_and_dtype(aval) != (kept.shape, kept.dtype):
                raise ValueError(
                    f"{self.class_name}: state entry '{self._label(kept)}' is "
                    f"{_aval_text(kept.shape, kept.dtype)}, but the transformation now makes "
                    f"it {_aval_text(*_shape_and_dtype(aval))}; give optax.inject_hyperparams "
                    "a hyperparam_dtype"
                )
        if any(key not in old for key in keys):
            init = fresh if fresh is not None else self._tx.init(values())
            init_leaves = jax.tree.leaves(init)
        else:
            init_leaves = [None] * len(keys)
        leaves: list[Variable] = []
        try:
            for key, path, owner, value in zip(keys, paths, owners, init_leaves):
                label = _label(path, owner, names, self._label_skips)
                leaves.append(old[key] if key in old else self._slot(label, value))
        except BaseException:  # e.g. a name taken: nothing changes
            for var in leaves:
                if all(var is not kept for kept in before.leaves):
                    var.dispose()
            raise
        kept = {id(v) for v in leaves}
        for var in before.leaves:
            if id(var) not in kept:
                var.dispose()
        self._layout = _Layout(
            uids, names, tuple(leaves), tuple(owners), tuple(paths), treedef, next(_layout_ids)
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

    def _roll_back(self, saved: _Layout) -> None:
        kept = {id(v) for v in saved.leaves}
        for var in self._layout.leaves:
            if id(var) not in kept:
                var.dispose()
        if self._layout is not saved:
            self._layout = saved
            self._compiled = {}

    def _step(self, variables: list[Variable], grads: dict[str, Any]) -> None:
        layout = self._layout
        present = tuple(n in grads for n in layout.names)
        params = [v.read() for v in variables]
        given = [grads[n] for n in layout.names if n in grads]
        state = [v.read() for v in layout.leaves]
        count = self._iterations.read()
        traced = _store.current() is not None or any(
            isinstance(x, Tracer) for x in (*params, *given, *state)
        )
        if traced:
            update = self._update_fn(present)
        else:
            key = (layout.version, present)
            update = self._compiled.get(key)
            if update is None:
                update = self._compiled[key] = jax.jit(self._update_fn(present))
        new_params, new_state, new_count = update(params, given, state, count)
        for var, value in zip((v for v, p in zip(variables, present) if p), new_params):
            var._write(value)
        for var, value in zip(layout.leaves, new_state):
            var._write(value)
        self._iterations._write(new_count)

    def _update_fn(self, present: tuple[bool, ...]) -> Callable[..., Any]:
        """The whole step as a function of flat lists of arrays (what gets compiled)."""
        layout = self._layout
        tx, treedef, names = self._tx, layout.treedef, layout.names
        chosen = [n for n, p in zip(names, present) if p]
        frozen = {i for i, o in enumerate(layout.owners) if o >= 0 and not present[o]}
        labels = [self._label(v) for v in layout.leaves]

        def update(params: list[Any], given: list[Any], state: list[Any], count: Any) -> Any:
            by_name = dict(zip(names, params))
            supplied = iter(given)
            grads = {
                n: next(supplied) if p else jnp.zeros_like(by_name[n])
                for n, p in zip(names, present)
            }
            updates: Any
            updates, new_state = tx.update(grads, jax.tree.unflatten(treedef, state), by_name)
            _check_updates(updates, by_name, chosen)
            new_leaves = _checked_state(new_state, treedef, state, labels)
            new_leaves = [
                old if i in frozen else new for i, (new, old) in enumerate(zip(new_leaves, state))
            ]
            new_params: Any = optax.apply_updates(
                {n: by_name[n] for n in chosen}, {n: updates[n] for n in chosen}
            )
            return [new_params[n] for n in chosen], new_leaves, count + 1

        return update

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
        weights = [NamedTensor("iter", jnp.array(self._iterations.read(), jnp.int32))]
        weights += [NamedTensor(n, v.value) for n, v in self._weight_variables().items()]
        return weights

    def set_weights(self, weights: Sequence[Any]) -> None:
        """Load `get_weights()` output (the `iter` entry first) into this optimizer.

        Slots are matched to live Variables by name. Everything is checked before
        anything changes.
        """
        self._check_alive()
        entries = _entries(weights, "weights", "setWeights")
        if not entries or entries[0][0] != "iter":
            raise ValueError("set_weights: the first entry must be 'iter'")
        iterations = _iteration_count(entries[0][1])
        slots = entries[1:]
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
            slot._write(array, owned=False)
        self._iterations._write(jnp.asarray(iterations, jnp.int32))
        self._after_set_weights(iterations)

    def _weight_owners(self, labels: list[str]) -> list[Variable]:
        """The live Variables that weights named `<variable>/<slot>` belong to."""
        live = registered_variables()
        fields = self._slot_fields()
        shared = {self._label(v) for v, o in zip(self._layout.leaves, self._layout.owners) if o < 0}
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
        self._layout = _Layout()
        self._compiled = {}

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
        for var, owner in zip(self._layout.leaves, self._layout.owners):
            if owner < 0 and self._label(var).rsplit("/", 1)[-1] == "count":
                var._write(jnp.asarray(iterations, var.dtype))

    def _write_shared(self, label: str, value: Any) -> None:
        """Write shared state entry `label` (e.g. 'acc_beta1')."""
        var = next(v for v in self._layout.leaves if self._label(v) == label)
        var._write(jnp.asarray(value, var.dtype))


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


def _initial_values(variables: Sequence[Variable]) -> dict[str, Any]:
    """The values to initialise state from: concrete buffers where they exist."""
    out = {}
    for v in variables:
        # TODO(lead): a Variable protocol method for "the concrete value, if any" (the
        # only read of `_buffer` outside variables.py/jit.py).
        buffer = v._buffer
        out[v.name] = buffer if buffer is not None else v.read()
    return out


def _owners(shapes: Any, paths: list[Any], names: tuple[str, ...]) -> list[int]:
    """Per leaf path: the index of the variable it belongs to, or -1 for shared state.

    Per-variable state is every dict keyed by exactly the tracked names, except the
    hyperparameter dicts of `optax.inject_hyperparams` (a variable could be called
    'learning_rate').
    """
    wanted = set(names)
    if not wanted:
        return [-1] * len(paths)
    keyed = lambda x: isinstance(x, dict) and set(x) == wanted  # noqa: E731
    nodes = jax.tree_util.tree_flatten_with_path(shapes, is_leaf=keyed)[0]
    per_variable = {
        path
        for path, node in nodes
        if keyed(node)
        and not (
            path
            and isinstance(path[-1], GetAttrKey)
            and path[-1].name in ("hyperparams", "hyperparams_states")
        )
    }
    index = {n: i for i, n in enumerate(names)}
    owners = []
    for path in paths:
        owner = -1
        for i in range(len(path)):
            if path[:i] in per_variable and isinstance(path[i], DictKey):
                owner = index[path[i].key]
                break
        owners.append(owner)
    return owners


def _path_parts(path: Any) -> list[str]:
    parts = []
    for key in path:
        for attr in ("name", "key", "idx"):
            if hasattr(key, attr):
                parts.append(str(getattr(key, attr)))
                break
    return parts


def _label(path: Any, owner: int, names: tuple[str, ...], skips: frozenset[str]) -> str:
    """A state leaf's label: '<variable>/<path>' for per-variable state, else '<path>'."""
    parts = _path_parts(path)
    if owner >= 0:
        at = next(i for i, k in enumerate(path) if isinstance(k, DictKey) and k.key == names[owner])
        parts = parts[:at] + parts[at + 1 :]
    parts = [p for p in parts if p not in skips]
    label = "/".join(parts) or "state"
    return f"{names[owner]}/{label}" if owner >= 0 else label


def _check_updates(updates: Any, params: dict[str, Any], chosen: list[str]) -> None:
    if not isinstance(updates, Mapping) or any(n not in updates for n in chosen):
        raise ValueError(
            "apply_gradients: the optax transformation returned updates that are not a "
            "dict keyed by the variables' names (nothing was changed)"
        )
    for n in chosen:
        u, p = updates[n], params[n]
        if not hasattr(u, "shape") and not isinstance(u, (int, float)):
            raise ValueError(
                f"apply_gradients: the optax transformation's update for Variable '{n}' is a "
                f"'{type(u).__name__}', not an array (nothing was changed)"
            )
        shape, dtype = _shape_and_dtype(u)
        if shape != tuple(p.shape):
            raise ValueError(
                f"apply_gradients: the optax transformation's update for Variable '{n}' has "
                f"shape {shape}, but the Variable has shape {tuple(p.shape)} "
                "(nothing was changed)"
            )
        if not jnp.can_cast(dtype, p.dtype, casting="same_kind"):
            raise ValueError(
                f"apply_gradients: the optax transformation's update for Variable '{n}' has "
                f"dtype {dtype_name(dtype)}, which does not cast to the Variable's "
                f"{dtype_name(p.dtype)} (nothing was changed)"
            )


def _checked_state(new_state: Any, treedef: Any, old: list[Any], labels: list[str]) -> list[Any]:
    leaves, new_def = jax.tree.flatten(new_state)
    if new_def != treedef:
        raise ValueError(
            "apply_gradients: the optax transformation changed the structure of its state "
            f"(from {treedef} to {new_def}); nothing was changed"
        )
    for label, new, before in zip(labels, leaves, old):
        if _shape_and_dtype(new) != _shape_and_dtype(before):
            raise ValueError(
                f"apply_gradients: the optax transformation turned its state entry '{label}' "
                f"from {_aval_text(*_shape_and_dtype(before))} into "
                f"{_aval_text(*_shape_and_dtype(new))}; state keeps its shapes and dtypes "
                "(nothing was changed)"
            )
    return leaves


def _checked_gradient(name: str, g: Any, var: Variable) -> Any:
    if not (isinstance(g, (jax.Array, Tracer)) and g.dtype == var.dtype):
        g = convert(g, argument=f"gradients['{name}']", fn="applyGradients")
    if tuple(g.shape) != var.shape:
        raise ValueError(
            f"apply_gradients: the gradient for '{name}' has shape {tuple(g.shape)}, "
            f"but the variable has shape {var.shape}"
        )
    if not _is_inexact(var.dtype):
        raise ValueError(
            f"apply_gradients: Variable '{name}' has dtype {dtype_name(var.dtype)}; "
            "only float variables can be updated"
        )
    return g if g.dtype == var.dtype else g.astype(var.dtype)


@functools.cache
def _is_inexact(dtype: Any) -> bool:
    return bool(jnp.issubdtype(dtype, jnp.inexact))


def _iteration_count(value: Any) -> int:
    array = np.asarray(convert(value, argument="weights[0]", fn="setWeights"))
    if array.ndim != 0 or not np.isfinite(array) or array != np.floor(array) or array < 0:
        raise ValueError(
            f"set_weights: 'iter' must be a non-negative whole number, but got {array.tolist()}"
        )
    if array >= 2**31:
        raise ValueError(f"set_weights: 'iter' is {int(array)}, more than an int32 holds")
    return int(array)


def _entries(items: Any, argument: str, fn: str) -> list[tuple[str, Any]]:
    """Normalise `{name: x}` or `[{name, tensor}]` / `[NamedTensor]` to (name, x) pairs;
    a name given twice is an error."""
    if isinstance(items, VariableGrads):
        items = items.grads
    if isinstance(items, Mapping):
        out = [(k, v) for k, v in items.items()]
    elif isinstance(items, (list, tuple)):
        out = []
        for i, item in enumerate(items):
            if isinstance(item, NamedTensor) or (isinstance(item, tuple) and len(item) == 2):
                out.append((item[0], item[1]))
            elif isinstance(item, Mapping) and "name" in item:
                out.append((item["name"], item.get("tensor")))
            else:
                raise TypeError(
                    f"Argument '{argument}[{i}]' passed to '{fn}' must be a NamedTensor or "
                    "{'name': ..., 'tensor': ...}"
                )
    else:
        raise TypeError(
            f"Argument '{argument}' passed to '{fn}' must be a dict name -> tensor or a list "
            f"of NamedTensor, but got '{type(items).__name__}'"
        )
    seen: set[str] = set()
    for name, _ in out:
        if not isinstance(name, str):
            raise TypeError(
                f"Argument '{argument}' passed to '{fn}' must name each entry with a string, "
                f"but got '{type(name).__name__}'"
            )
        if name in seen:
            raise ValueError(f"{fn}: '{name}' appears twice in '{argument}'")
        seen.add(name)
    return out


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
