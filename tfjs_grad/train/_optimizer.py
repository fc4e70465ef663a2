"""The tfjs `Optimizer` interface over any optax transformation.

State lives in Variables (so `tf.jit` threads it like any other state): an int32
`iterations` counter and one Variable per leaf of the optax state. The optax state is
built over the dict `{variable name: value}` of every variable this optimizer has
seen; a call that leaves some variables out (no gradient, or None) gives the
transformation zeros for them, then keeps their values and their slots exactly as they
were (every subtree keyed by variable names is merged per name). Counters and other
per-optimizer state advance on every call, as tfjs's do.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax.core import Tracer

from .. import _store
from .._tensors import ArrayLike, convert, dtype_name
from ..gradients import VariableGrads, variable_grads
from ..variables import Variable, lookup_variable, registered_variables, variable

_optimizer_ids = itertools.count()


class NamedTensor(NamedTuple):
    """A `{name, tensor}` pair, as tfjs's `NamedTensor`."""

    name: str
    tensor: Any


def _is_variable(x: Any) -> bool:
    return isinstance(x, Variable)


def _keyed_by(names: Sequence[str]) -> Callable[[Any], bool]:
    wanted = set(names)
    return lambda x: isinstance(x, dict) and len(x) == len(wanted) and set(x) == wanted


def _select_present(new: Any, old: Any, names: Sequence[str], present: Sequence[bool]) -> Any:
    """new state, except that entries of absent variables keep their old values."""
    keep = {n for n, p in zip(names, present) if not p}
    if not keep:
        return new
    return jax.tree.map(
        lambda n, o: {k: (o[k] if k in keep else n[k]) for k in n} if isinstance(n, dict) else n,
        new,
        old,
        is_leaf=_keyed_by(names),
    )


def _update(
    tx: optax.GradientTransformation,
    names: tuple[str, ...],
    present: tuple[bool, ...],
    params: dict[str, Any],
    grads: dict[str, Any],
    state: Any,
) -> tuple[dict[str, Any], Any]:
    updates: Any
    updates, new_state = tx.update(grads, state, params)
    new_params: Any = optax.apply_updates(
        {n: params[n] for n, p in zip(names, present) if p},
        {n: updates[n] for n, p in zip(names, present) if p},
    )
    return new_params, _select_present(new_state, state, names, present)


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
    _config_keys: tuple[str, ...] = ()
    # (state field, tfjs slot suffix) in getWeights order; None for a wrapped optax state.
    _slots: tuple[tuple[str, str], ...] | None = None

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
        self._names: tuple[str, ...] = ()
        self._state: Any = None  # the optax state's structure, with Variables as leaves
        self._state_leaves: list[Variable] = []
        self._state_def: Any = None
        self._compiled: dict[tuple[Any, ...], Callable[..., Any]] = {}
        self._disposed = False

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
        value, grads = self.compute_gradients(f, var_list)
        if var_list is None:
            self.apply_gradients(grads)
        else:
            self.apply_gradients([NamedTensor(v.name, grads.get(v.name)) for v in var_list])
        return value if return_cost else None

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
        for name, g in _entries(variable_gradients):
            var = lookup_variable(name)
            if var is None:
                raise ValueError(
                    f"apply_gradients: no live Variable named '{name}' (got a gradient for it)"
                )
            targets.append(var)
            if g is not None:
                grads[name] = _checked_gradient(name, g, var)
        with _store.LOCK:  # one step at a time: threads sharing variables lose no update
            self._ensure_state(targets)
            self._step(grads)

    # -- state ------------------------------------------------------------------------
    def _ensure_state(self, targets: Sequence[Variable]) -> None:
        new = [v for v in dict.fromkeys(targets) if v.name not in self._names]
        if not new:
            return
        names = self._names + tuple(v.name for v in new)
        variables = [lookup_variable(n) for n in names]
        buffers = [v._buffer for v in variables]  # type: ignore[union-attr]
        if all(b is not None for b in buffers):
            # State starts from the variables' concrete values, even inside tf.jit, so the
            # new slots are real Variables at once and the compiled step takes them as
            # inputs (one compile, not one with and one without the optimizer state).
            with jax.ensure_compile_time_eval(), _store.detached():
                self._build_state(names, dict(zip(names, buffers)))
        else:  # variables born in this very trace: their state is born traced too
            self._build_state(names, {n: v.read() for n, v in zip(names, variables)})  # type: ignore[union-attr]

    def _build_state(self, names: tuple[str, ...], params: dict[str, Any]) -> None:
        fresh = self._tx.init(params)

        def build(path: Any, fresh: Any, old: Any = None) -> Any:
            # Keep the Variables of state already held; make new ones for the rest.
            label = _path_label(path)
            if isinstance(fresh, dict) and set(fresh) == set(names):
                old = old if isinstance(old, dict) else {}
                return {
                    n: old[n] if n in old else self._slot(f"{n}/{label}", fresh[n]) for n in names
                }
            return old if old is not None else self._slot(label, fresh)

        trees = (fresh,) if self._state is None else (fresh, self._state)
        state = jax.tree_util.tree_map_with_path(build, *trees, is_leaf=_keyed_by(names))
        self._names, self._state = names, state
        self._state_leaves, self._state_def = jax.tree.flatten(state, is_leaf=_is_variable)

    def _slot(self, label: str, init: Any) -> Any:
        if not isinstance(init, (jax.Array, Tracer)):
            return jax.tree_util.tree_map_with_path(
                lambda path, leaf: self._slot(f"{label}/{_path_label(path)}", leaf), init
            )
        return variable(init, trainable=False, name=f"{self._prefix}/{label}")

    def _step(self, grads: dict[str, Any]) -> None:
        names = self._names
        present = tuple(n in grads for n in names)
        variables = [lookup_variable(n) for n in names]
        params = [v.read() for v in variables]  # type: ignore[union-attr]
        given = [grads[n] for n in names if n in grads]
        state = [v.read() for v in self._state_leaves]
        count = self._iterations.read()
        traced = _store.current() is not None or any(
            isinstance(x, Tracer) for x in (*params, *given, *state)
        )
        if traced:
            update = self._update_fn(names, present)
        else:
            key = (names, present, self._state_def)
            if key not in self._compiled:
                self._compiled[key] = jax.jit(self._update_fn(names, present))
            update = self._compiled[key]
        new_params, new_state, new_count = update(params, given, state, count)
        for var, value in zip((v for v, p in zip(variables, present) if p), new_params):
            var._write(value)  # type: ignore[union-attr]
        for var, value in zip(self._state_leaves, new_state):
            var._write(value)
        self._iterations._write(new_count)

    def _update_fn(self, names: tuple[str, ...], present: tuple[bool, ...]) -> Callable[..., Any]:
        """The whole step as a function of flat lists of arrays (what gets compiled)."""
        tx, state_def = self._tx, self._state_def

        def update(params: list[Any], given: list[Any], state: list[Any], count: Any) -> Any:
            by_name = dict(zip(names, params))
            supplied = iter(given)
            grads = {
                n: next(supplied) if p else jnp.zeros_like(by_name[n])
                for n, p in zip(names, present)
            }
            old = jax.tree.unflatten(state_def, state)
            new_params, new_state = _update(tx, names, present, by_name, grads, old)
            new_present = [new_params[n] for n, p in zip(names, present) if p]
            return new_present, jax.tree.leaves(new_state), count + 1

        return update

    # -- weights and config -----------------------------------------------------------
    def _slot_fields(self) -> tuple[tuple[str, str], ...] | None:
        return self._slots

    def _weight_variables(self) -> dict[str, Variable]:
        """getWeights's names -> slot Variables, in tfjs's order (slot groups, then variables)."""
        fields = self._slot_fields()
        if self._state is None:
            return {}
        if fields is None:  # a wrapped optax state: every leaf, named by its path
            leaves = jax.tree.leaves(self._state, is_leaf=_is_variable)
            return {v.name.removeprefix(self._prefix + "/"): v for v in leaves}
        return {
            f"{name}/{suffix}": getattr(self._state, field)[name]
            for field, suffix in fields
            for name in self._names
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
        weights = [NamedTensor("iter", jnp.array(self._iterations.read(), jnp.int32))]
        weights += [NamedTensor(n, v.value) for n, v in self._weight_variables().items()]
        return weights

    def set_weights(self, weights: Sequence[Any]) -> None:
        """Load `get_weights()` output (the `iter` entry first) into this optimizer.

        Everything is checked before anything changes.
        """
        self._check_alive()
        entries = _entries(weights)
        if not entries or entries[0][0] != "iter":
            raise ValueError("set_weights: the first entry must be 'iter'")
        iterations = int(convert(entries[0][1], argument="weights[0]", fn="setWeights"))
        slots = entries[1:]
        fields = self._slot_fields()
        if slots and fields == ():
            raise ValueError(f"{self.class_name} optimizer does not have settable weights.")
        if slots and fields:
            live = registered_variables()
            owners = list(dict.fromkeys(label.rsplit("/", 1)[0] for label, _ in slots))
            missing = [n for n in owners if n not in live]
            if missing:
                raise ValueError(f"set_weights: no live Variable named '{missing[0]}'")
            self._ensure_state([live[n] for n in owners])
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
        return {key: getattr(self, "_" + key) for key in self._config_keys}

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Optimizer:
        """`cls(*config values in tfjs's key order)`."""
        return cls(*(config.get(key) for key in cls._config_keys))  # type: ignore[arg-type]

    def get_class_name(self) -> str:
        return self.class_name

    def dispose(self) -> None:
        """Dispose the optimizer's state Variables; the optimizer cannot be used after."""
        if self._disposed:
            return
        self._disposed = True
        self._iterations.dispose()
        for var in jax.tree.leaves(self._state, is_leaf=_is_variable):
            var.dispose()
        self._state = None

    def _check_alive(self) -> None:
        if self._disposed:
            raise ValueError(f"This {self.class_name} optimizer was disposed.")

    def __repr__(self) -> str:
        return f"<tf.train.{self.class_name} {self.get_config()}>"

    computeGradients = compute_gradients
    applyGradients = apply_gradients
    getWeights = get_weights
    setWeights = set_weights
    getConfig = get_config
    fromConfig = from_config
    getClassName = get_class_name


def _path_label(path: Any) -> str:
    """'m', 'inner_state/0/mu', ... from a pytree key path."""
    parts = []
    for key in path:
        for attr in ("name", "key", "idx"):
            if hasattr(key, attr):
                parts.append(str(getattr(key, attr)))
                break
    return "/".join(parts) or "state"


def _checked_gradient(name: str, g: Any, var: Variable) -> Any:
    if not (isinstance(g, (jax.Array, Tracer)) and g.dtype == var.dtype):
        g = convert(g, argument=f"gradients['{name}']", fn="applyGradients")
    if tuple(g.shape) != var.shape:
        raise ValueError(
            f"apply_gradients: the gradient for '{name}' has shape {tuple(g.shape)}, "
            f"but the variable has shape {var.shape}"
        )
    if not jnp.issubdtype(var.dtype, jnp.inexact):
        raise ValueError(
            f"apply_gradients: Variable '{name}' has dtype {dtype_name(var.dtype)}; "
            "only float variables can be updated"
        )
    return g.astype(var.dtype)


def _entries(gradients: Any) -> list[tuple[str, Any]]:
    """Normalise `{name: g}` or `[{name, tensor}]` / `[NamedTensor]` to (name, g) pairs."""
    if isinstance(gradients, VariableGrads):
        gradients = gradients.grads
    if isinstance(gradients, Mapping):
        return [(str(k), v) for k, v in gradients.items()]
    if isinstance(gradients, (list, tuple)):
        out = []
        for i, item in enumerate(gradients):
            if isinstance(item, NamedTensor) or (
                isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], str)
            ):
                out.append((item[0], item[1]))
            elif isinstance(item, Mapping) and "name" in item:
                out.append((item["name"], item.get("tensor")))
            else:
                raise TypeError(
                    f"Argument 'variable_gradients[{i}]' must be a NamedTensor or "
                    "{'name': ..., 'tensor': ...}"
                )
        return out
    raise TypeError(
        "Argument 'variable_gradients' must be a dict name -> gradient or a list of "
        f"NamedTensor, but got '{type(gradients).__name__}'"
    )


def from_optax(transformation: optax.GradientTransformation) -> Optimizer:
    """Any optax transformation behind tfjs's Optimizer interface.

    Partial updates: a variable without a gradient in a call keeps its value and every
    state entry keyed by its name (moments, accumulators); state that is not per
    variable (step counts, schedules' counters) advances on every call, as tfjs's
    counters do. Transformations that mix variables (e.g. `clip_by_global_norm`) see
    zeros for the absent ones.

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
