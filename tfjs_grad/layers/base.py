"""`Layer`, the symbolic tensors of the functional API, and the graph nodes between them.

A layer is called two ways, as in tfjs. `layer.apply(array)` computes (building the
layer's weights from the input's shape on first use). `layer.apply(symbolic)` records a
`Node` joining the input `SymbolicTensor`s to new output ones, whose shapes (None for
unknown sizes) the layer infers; `tf.model` later runs those nodes. Weights are
`tf.Variable`s named `<layer>/<weight>`, made unique for the life of the process as tfjs
does (`twin/kernel`, then `twin/kernel_1`); `original_name(v)` keeps the unsuffixed name.
"""

from __future__ import annotations

import inspect
import itertools
import json
import math
import weakref
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from contextvars import ContextVar
from typing import Any, ClassVar, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from .. import _store, _tape
from .. import constraints as _constraints
from .. import initializers as _initializers
from .. import regularizers as _regularizers
from .._config import REQUIRED, camel, merge, snake
from .._tensor import Tensor, map_leaves, unwrap, wrap, wrap_tree
from .._tensors import convert, dtype_name
from ..ops import _checks
from ..variables import Variable, lookup_variable

Shape = tuple[int | None, ...]

_class_counts: defaultdict[str, int] = defaultdict(int)
_tensor_names: dict[str, int] = {}
_original: weakref.WeakKeyDictionary[Variable, str] = weakref.WeakKeyDictionary()
_symbolic_ids = itertools.count()
_classes: dict[str, type[Layer]] = {}


def registered_class(class_name: str) -> type[Layer] | None:
    """The layer class saved models call `class_name`."""
    return _classes.get(class_name)


def registered_names() -> list[str]:
    """Every class name saved models may use."""
    return list(_classes)


def register_class(cls: type[Layer], name: str | None = None) -> None:
    """Make saved models' `name` (default: `cls.className`) load as `cls`."""
    _classes[name or cls.className] = cls


# A subclass overriding one spelling of these is seen under both (tfjs's camelCase, Keras's
# snake_case), whichever the framework or the user calls.
_SPELLINGS = (
    ("computeOutputShape", "compute_output_shape"),
    ("getConfig", "get_config"),
    ("computeMask", "compute_mask"),
    ("getClassName", "get_class_name"),
)


def _is_user_code(obj: Any) -> bool:
    module = getattr(obj, "__module__", None) or ""
    return not (module == "tfjs_grad" or module.startswith("tfjs_grad."))


def _call_style(call: Callable[..., Any]) -> tuple[str, bool]:
    """How a layer's `call` takes what tfjs passes in `kwargs`: `"dict"` (tfjs's
    `call(inputs, kwargs)`), `"keywords"` (`training=`, `**kwargs`) or `"inputs"` (nothing
    more); and whether it takes `mask`."""
    params = list(inspect.signature(call).parameters.values())[2:]  # after self, inputs
    named = {p.name for p in params if p.kind is not inspect.Parameter.VAR_POSITIONAL}
    any_keyword = any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params)
    if any_keyword or "training" in named or "mask" in named:
        return "keywords", any_keyword or "mask" in named
    positional = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
    if params and params[0].kind in (*positional, inspect.Parameter.VAR_POSITIONAL):
        return "dict", True
    return "inputs", False


def takes_config(init: Callable[..., Any]) -> bool:
    """Whether a layer's `__init__` takes a config positionally. JavaScript drops the
    arguments a constructor does not declare, so tfjs's `new cls(config)` builds a layer whose
    `constructor() { super({}); }` takes none; such a class is built here with no argument."""
    kinds = (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.VAR_POSITIONAL,
    )
    params = list(inspect.signature(init).parameters.values())[1:]  # after self
    return any(p.kind in kinds for p in params)


def deserialize_layer(layer: Any, what: str) -> Layer:
    """A Layer as given, or made from its saved `{class_name, config}` (`what` names the
    argument in the error)."""
    if isinstance(layer, Layer):
        return layer
    if isinstance(layer, Mapping) and "class_name" in layer:
        cls = registered_class(layer["class_name"])
        if cls is None:
            raise ValueError(f"Unknown layer: {layer['class_name']}")
        return cls.from_config(layer.get("config") or {})
    raise ValueError(f"{what} must be a Layer, got {type(layer).__name__}")


def unique_layer_name(class_name: str) -> str:
    """tfjs's auto name: `<snake_case class>_<Class><n>`, one counter per class."""
    _class_counts[class_name] += 1
    return f"{snake(class_name)}_{class_name}{_class_counts[class_name]}"


def unique_prefix_name(prefix: str) -> str:
    """tfjs's `getUid(prefix)`: `input1`, `model2`, ..."""
    _class_counts[prefix] += 1
    return f"{prefix}{_class_counts[prefix]}"


def positive_integer(value: Any, name: str) -> int:
    """tfjs's `assertPositiveInteger`: `value` as an int, else its ValueError.

    >>> positive_integer(3, "units")
    3
    >>> positive_integer(3.7, "units")
    Traceback (most recent call last):
    ValueError: Expected units to be a positive integer, but got 3.7.
    """
    if (
        isinstance(value, (bool, np.bool_))
        or not isinstance(value, (int, float, np.integer, np.floating))
        or not math.isfinite(value)
        or not float(value).is_integer()
        or value <= 0
    ):
        try:
            got = json.dumps(value)
        except (TypeError, ValueError):
            got = repr(value)
        raise ValueError(f"Expected {name} to be a positive integer, but got {got}.")
    return int(value)


WeightCheck = Callable[["Layer", str, tuple[int, ...], str], None]
weight_check: ContextVar[WeightCheck | None] = ContextVar("weight_check", default=None)
"""Called as `check(layer, name, shape, dtype)` before each weight is allocated (a loader
checks the weights against the file it will fill them from)."""


def unique_weight_name(name: str) -> str:
    """tfjs's `getUniqueTensorName`: a reused name gets `_1`, `_2`, ... for good."""
    while True:
        index = _tensor_names.get(name, 0)
        _tensor_names[name] = index + 1
        candidate = f"{name}_{index}" if index else name
        if index:
            _tensor_names[candidate] = 1
        if lookup_variable(candidate) is None:
            return candidate


def original_name(v: Variable) -> str:
    """The name a layer gave a weight before uniquifying (tfjs's `originalName`)."""
    return _original.get(v, v.name)


def js_shape(shape: Sequence[int | None] | None) -> str:
    """A shape as tfjs's JSON.stringify prints it: `[null,4]`."""
    if shape is None:
        return "null"
    return "[" + ",".join("null" if d is None else str(d) for d in shape) + "]"


class SymbolicTensor:
    """The placeholder a functional model passes between layers: a shape, a dtype and the
    layer output it stands for (tfjs's `SymbolicTensor`)."""

    def __init__(
        self,
        shape: Sequence[int | None],
        dtype: str,
        source_layer: Layer,
        node_index: int,
        tensor_index: int,
        name: str,
    ):
        self.shape: list[int | None] = list(shape)
        self.dtype = dtype
        self.sourceLayer = self.source_layer = source_layer
        self.nodeIndex = self.node_index = node_index
        self.tensorIndex = self.tensor_index = tensor_index
        self.name = name
        self.id = next(_symbolic_ids)

    @property
    def rank(self) -> int:
        return len(self.shape)

    def __repr__(self) -> str:
        return f"SymbolicTensor(name={self.name}, shape={js_shape(self.shape)}, dtype={self.dtype})"


class Node:
    """One call of a layer on symbolic tensors: which outputs feed it, what it made."""

    def __init__(
        self,
        outbound_layer: Layer,
        input_tensors: list[SymbolicTensor],
        output_tensors: list[SymbolicTensor],
        kwargs: Mapping[str, Any],
    ):
        self.outboundLayer = self.outbound_layer = outbound_layer
        self.inputTensors = self.input_tensors = input_tensors
        self.outputTensors = self.output_tensors = output_tensors
        self.inboundLayers = self.inbound_layers = [t.sourceLayer for t in input_tensors]
        self.nodeIndices = self.node_indices = [t.nodeIndex for t in input_tensors]
        self.tensorIndices = self.tensor_indices = [t.tensorIndex for t in input_tensors]
        self.inputShapes = self.input_shapes = [list(t.shape) for t in input_tensors]
        self.outputShapes = self.output_shapes = [list(t.shape) for t in output_tensors]
        self.callArgs = self.call_args = dict(kwargs)
        self.id = next(_symbolic_ids)


def _as_list(x: Any) -> list[Any]:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def as_tensors(tree: Any) -> Any:
    """`tree` with each array wrapped in a `tf.Tensor` (recorded by the enclosing tidy):
    what a layer's or model's concrete `apply` hands back, as tfjs's does."""
    return map_leaves(lambda a: a if isinstance(a, Tensor) else wrap(a), tree)


def _is_symbolic(x: Any) -> bool:
    return isinstance(x, SymbolicTensor) or (
        isinstance(x, (list, tuple)) and any(isinstance(t, SymbolicTensor) for t in x)
    )


# Unknown sizes are replaced by these while a layer's output shape is inferred: sizes that
# differ between the two runs are unknown in the output.
_PROBES = (97, 103)


def _probe_shape(shape: Sequence[int | None], probe: int) -> tuple[int, ...]:
    return tuple(probe if d is None else int(d) for d in shape)


_LAYER_DTYPES = ("float32", "int32", "bool")


def _layer_dtype(layer: str, key: str, dtype: Any) -> str | None:
    """A layer's `dtype` must be one tfjs layers have: float32 (what they compute in), or
    int32/bool for what an input layer receives; anything else is refused, not ignored."""
    if dtype is None:
        return None
    try:
        name = dtype if isinstance(dtype, str) else np.dtype(dtype).name
    except TypeError:
        name = repr(dtype)
    if name not in _LAYER_DTYPES:
        raise ValueError(
            f"Layer '{layer}': {key} '{name}' is not supported: tfjs layers compute in float32 "
            f"and accept one of {list(_LAYER_DTYPES)} (cast the data, or use plain JAX for "
            "other precisions)"
        )
    return name


def output_dtype(dtype: Any) -> str:
    return dtype_name(dtype) if np.dtype(dtype).name in ("float32", "int32", "bool") else "float32"


class Layer:
    """Base class of every layer (tfjs's `tf.layers.Layer`).

    Subclasses list their config keys and defaults in `_KEYS` (camelCase), make their
    weights in `build(input_shape)` with `add_weight`, compute in `call(inputs, training)`
    on arrays, and serialize with `get_config()` (Keras's snake_case keys).
    """

    _BASE_KEYS: ClassVar[dict[str, Any]] = {
        "name": None,
        "trainable": True,
        "inputShape": None,
        "batchInputShape": None,
        "batchSize": None,
        "dtype": None,
        "inputDType": None,
        "weights": None,
    }
    _KEYS: ClassVar[dict[str, Any]] = {}
    className: ClassVar[str] = "Layer"
    # tfjs's `supportsMasking` of the class: its computeMask passes the input mask on.
    _SUPPORTS_MASKING: ClassVar[bool] = False
    # Whether `call` takes a `mask` keyword (the mask tfjs hands a layer in `kwargs.mask`).
    _USES_MASK: ClassVar[bool] = False

    # How `call` is called (see `_call_style`), and whether it is given Tensors (a
    # subclass written outside tfjs_grad, as in tfjs) or arrays (the built-in layers).
    _CALL_STYLE: ClassVar[tuple[str, bool]] = ("keywords", False)
    _TENSOR_CALL: ClassVar[bool] = False
    # Whether the config may hold keys the layer does not list (tfjs ignores them; the
    # built-in layers refuse them).
    _OPEN_CONFIG: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        user = _is_user_code(cls)
        if "className" in cls.__dict__ and not user:  # users call registerClass, as in tfjs
            _classes[cls.className] = cls
        own = cls.__dict__
        for camel_name, snake_name in _SPELLINGS:
            if camel_name in own and snake_name not in own:
                setattr(cls, snake_name, own[camel_name])
            elif snake_name in own and camel_name not in own:
                setattr(cls, camel_name, own[snake_name])
        cls._CALL_STYLE = _call_style(cls.call)
        cls._TENSOR_CALL = _is_user_code(cls.call)
        cls._OPEN_CONFIG = cls._OPEN_CONFIG or user

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        keys = {**self._BASE_KEYS, **self._KEYS}
        if self._OPEN_CONFIG:  # tfjs keeps what it does not know (a subclass reads it)
            given = {camel(k) for k in [*(config or {}), *kwargs]}
            keys.update({k: None for k in given if k not in keys})
        args = merge(config, kwargs, keys, self.className)
        self._args = args
        name = args["name"]
        self.name: str = name if name else unique_layer_name(self.getClassName())
        self._trainable = True if args["trainable"] is None else bool(args["trainable"])
        self.batchInputShape: list[int | None] | None = None
        self.dtype: str | None = None
        for key in ("dtype", "inputDType"):
            args[key] = _layer_dtype(self.name, key, args[key])
        if args["batchInputShape"] is not None or args["inputShape"] is not None:
            if args["batchInputShape"] is not None:
                shape = list(args["batchInputShape"])
            else:
                shape = [args["batchSize"], *args["inputShape"]]
            self.batchInputShape = shape
            self.dtype = args["dtype"] or args["inputDType"] or "float32"
        elif args["dtype"] is not None:
            self.dtype = args["dtype"]
        self._initial_weights = args["weights"]
        self.built = False
        self.inboundNodes: list[Node] = []
        self.outboundNodes: list[Node] = []
        self._trainable_weights: list[Variable] = []
        self._non_trainable_weights: list[Variable] = []
        self._regularized: list[tuple[Variable, _regularizers.Regularizer]] = []
        self._constraints: list[tuple[Variable, _constraints.Constraint]] = []
        self.inputSpec: list[dict[str, Any]] | None = None
        self.supportsMasking: bool = self._SUPPORTS_MASKING
        # A wrapper building this layer names its weights under its own scope (tfjs's
        # nameScope): `time_distributed/kernel`, `bidirectional/forward_lstm/kernel`.
        self._weight_scope: str | None = None
        self._callHook: Callable[[Any, Any], None] | None = None

    def scope_weights(self, scope: str | None) -> None:
        """Name the weights this layer makes `<scope>/<name>` (a layer built by another,
        as under tfjs's nameScope: a wrapper's or an RNN's cell)."""
        self._weight_scope = scope

    stateful: bool = False  # tfjs's: whether the layer carries states from call to call

    def resetStates(self, states: Any = None) -> None:  # noqa: N802 (tfjs's name)
        """Only stateful layers (stateful RNNs, a bidirectional over one) have states."""
        del states
        raise AttributeError("Cannot call the resetStates() method of a non-stateful Layer object.")

    reset_states = resetStates

    # -- names and config ------------------------------------------------------------
    def getClassName(self) -> str:
        return self.className

    get_class_name = getClassName

    def get_config(self) -> dict[str, Any]:
        """Keras-style config, as tfjs writes it into model.json."""
        config: dict[str, Any] = {"name": self.name, "trainable": self.trainable}
        if self.batchInputShape is not None:
            config["batch_input_shape"] = list(self.batchInputShape)
        if self.dtype is not None:
            config["dtype"] = self.dtype
        return config

    getConfig = get_config

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Layer:
        """A layer from its saved config; keys tfjs saves but this layer ignores are dropped
        (a user's subclass gets them all, camelCased, as tfjs's `new cls(config)`)."""
        if cls._OPEN_CONFIG:
            if not takes_config(cls.__init__):
                return cls()
            return cls({camel(k): v for k, v in config.items()})
        keys = {**cls._BASE_KEYS, **cls._KEYS}
        return cls({k: v for k, v in config.items() if camel(k) in keys})

    fromConfig = from_config

    # -- weights -----------------------------------------------------------------------
    @property
    def trainable(self) -> bool:
        return self._trainable

    @trainable.setter
    def trainable(self, value: bool) -> None:
        self._trainable = bool(value)
        for w in self._trainable_weights:
            w.trainable = self._trainable

    def add_weight(
        self,
        name: str,
        shape: Sequence[Any],
        dtype: Any = None,
        initializer: Any = None,
        regularizer: Any = None,
        trainable: bool | None = None,
        constraint: Any = None,
    ) -> Variable:
        """A new weight `<layer>/<name>` (a tf.Variable), initialized and registered; the
        arguments in tfjs's `addWeight` order (dtype float32, initializer zeros, trainable
        by default). A regularizer's penalty joins the loss `fit` minimizes."""
        dtype = dtype or "float32"
        trainable = True if trainable is None else bool(trainable)
        full = f"{self._weight_scope or self.name}/{name}"
        if any(original_name(w) == full for w in self._all_weights()):
            raise ValueError(f"Duplicate weight name {name} for layer {self.name}")
        init = _initializers.get("zeros" if initializer is None else initializer)
        try:
            dims = _checks.sized_shape(shape, "addWeight", dtype, argument=f"shape of {name}")
        except (TypeError, ValueError) as error:
            raise ValueError(f"Layer '{self.name}': {error}") from None
        check = weight_check.get()
        if check is not None:
            check(self, full, dims, np.dtype(dtype).name)
        value = init.apply(list(dims), dtype)
        var = Variable(
            value, trainable=trainable and self._trainable, name=unique_weight_name(full)
        )
        _original[var] = full
        (self._trainable_weights if trainable else self._non_trainable_weights).append(var)
        reg = _regularizers.get(regularizer)
        if reg is not None:
            self._regularized.append((var, reg))
        con = _constraints.get(constraint)
        if con is not None:
            self._constraints.append((var, con))
        return var

    addWeight = add_weight

    def _all_weights(self) -> list[Variable]:
        return [*self._trainable_weights, *self._non_trainable_weights]

    @property
    def trainableWeights(self) -> list[Variable]:
        if not self._trainable:
            return []
        return [w for w in self._trainable_weights if w.trainable]

    @property
    def nonTrainableWeights(self) -> list[Variable]:
        if not self._trainable:
            return [*self._trainable_weights, *self._non_trainable_weights]
        return [w for w in self._trainable_weights if not w.trainable] + list(
            self._non_trainable_weights
        )

    @property
    def weights(self) -> list[Variable]:
        return self.trainableWeights + self.nonTrainableWeights

    trainable_weights = trainableWeights
    non_trainable_weights = nonTrainableWeights

    def getWeights(self, trainableOnly: bool = False) -> list[Tensor]:
        """The current values of `weights` (or only the trainable ones), as `tf.Tensor`s."""
        weights = self.trainableWeights if trainableOnly else self.weights
        return as_tensors([w.raw() for w in weights])

    get_weights = getWeights

    def setWeights(self, weights: Sequence[Any]) -> None:
        """Assign `weights` (arrays, in `weights` order) to the layer's weights."""
        set_weight_values(self.weights, weights, self.name)

    set_weights = setWeights

    def countParams(self) -> int:
        """How many numbers the layer's weights hold."""
        if not self.built:
            raise ValueError(
                f"You tried to call countParams() on {self.name}, but the layer is not built "
                "yet. Build it first by calling build(batchInputShape)."
            )
        return sum(int(np.prod(w.shape)) for w in self.weights)

    count_params = countParams

    def regularization_losses(self) -> list[Any]:
        """The penalty of each regularized weight at its current value (for `fit`)."""
        return [reg.apply(v.raw()) for v, reg in self._regularized]

    def apply_constraints(self) -> None:
        """Project the constrained weights (tfjs's fit does this after each step)."""
        for v, con in self._constraints:
            v.assign(con.apply(v.raw()))

    # -- building and shapes ----------------------------------------------------------
    def build(self, input_shape: Any) -> None:
        """Make the weights for inputs of this shape (None for the batch axis)."""
        self.built = True

    def _maybe_build(self, input_shape: Any) -> None:
        if not self.built:
            self.build(input_shape)
            self.built = True
            if self._initial_weights is not None:
                self.setWeights(self._initial_weights)
                self._initial_weights = None

    def compute_output_shape(self, input_shape: Any) -> Any:
        """Output shape(s) for an input shape; None where the size is unknown.

        The default runs `call` on abstract inputs twice, with two sizes for each unknown
        size, and calls an output size unknown where the runs disagree.
        """
        shapes = input_shape if _is_shape_list(input_shape) else [input_shape]
        dtypes = getattr(self, "_probe_dtypes", None) or ["float32"] * len(shapes)
        runs = []
        for probe in _PROBES:
            specs = [
                jax.ShapeDtypeStruct(_probe_shape(s, probe), jnp.dtype(dt))
                for s, dt in zip(shapes, dtypes)
            ]
            arg = specs if _is_shape_list(input_shape) else specs[0]
            with _store.own_trace():  # shapes only: no Variable value is baked anywhere
                runs.append(jax.eval_shape(lambda x: self.run_call(x, False), arg))
        first, second = (jax.tree_util.tree_leaves(r) for r in runs)
        merged = [
            [a if a == b else None for a, b in zip(x.shape, y.shape)] for x, y in zip(first, second)
        ]
        self._probe_out_dtypes = [output_dtype(x.dtype) for x in first]
        if isinstance(runs[0], (list, tuple)):
            return merged
        return merged[0]

    computeOutputShape = compute_output_shape

    @property
    def outputShape(self) -> list[int | None] | list[list[int | None]]:
        """The output shape of the layer's calls on symbolic tensors (all must agree)."""
        if not self.inboundNodes:
            raise ValueError(
                f"The layer {self.name} has never been called and thus has no defined output shape."
            )
        shapes = {repr(n.outputShapes) for n in self.inboundNodes}
        if len(shapes) != 1:
            raise ValueError(
                f"The layer {self.name} has multiple inbound nodes with different output "
                "shapes. Hence the notion of 'output shape' is ill-defined for the layer."
            )
        out = self.inboundNodes[0].outputShapes
        return out[0] if len(out) == 1 else out

    output_shape = outputShape

    @property
    def inputShape(self) -> list[int | None] | list[list[int | None]]:
        if not self.inboundNodes:
            raise ValueError(f"The layer {self.name} is not connected, no input to return.")
        shapes = self.inboundNodes[0].inputShapes
        return shapes[0] if len(shapes) == 1 else shapes

    input_shape = inputShape

    @property
    def input(self) -> SymbolicTensor | list[SymbolicTensor]:
        """The symbolic input(s) of the layer's one call (tfjs's `layer.input`)."""
        if len(self.inboundNodes) > 1:
            raise AttributeError(
                f'Layer {self.name} has multiple inbound nodes, hence the notion of "layer '
                'input" is ill-defined. Use `getInputAt(nodeIndex)` instead.'
            )
        if not self.inboundNodes:
            raise AttributeError(f"Layer {self.name} is not connected, no input to return.")
        tensors = self.inboundNodes[0].inputTensors
        return tensors[0] if len(tensors) == 1 else list(tensors)

    @property
    def output(self) -> SymbolicTensor | list[SymbolicTensor]:
        """The symbolic output(s) of the layer's one call (tfjs's `layer.output`)."""
        if not self.inboundNodes:
            raise AttributeError(f"Layer {self.name} has no inbound nodes.")
        if len(self.inboundNodes) > 1:
            raise AttributeError(
                f'Layer {self.name} has multiple inbound nodes, hence the notion of "layer '
                'output" is ill-defined. Use `getOutputAt(nodeIndex)` instead.'
            )
        tensors = self.inboundNodes[0].outputTensors
        return tensors[0] if len(tensors) == 1 else list(tensors)

    def check_input_spec(self, shapes: Sequence[Sequence[int | None]]) -> None:
        """tfjs's assertInputCompatibility against `inputSpec`."""
        if self.inputSpec is None:
            return
        for index, (spec, shape) in enumerate(zip(self.inputSpec, shapes)):
            rank = len(shape)
            ndim = spec.get("ndim")
            if ndim is not None and rank != ndim:
                raise ValueError(
                    f"Input {index} is incompatible with layer {self.name}: expected ndim="
                    f"{ndim}, found ndim={rank}"
                )
            expected = spec.get("shape")
            if expected is not None and any(
                e is not None and d is not None and e != d for e, d in zip(expected, shape)
            ):
                raise ValueError(
                    f"Input {index} is incompatible with layer {self.name}: expected shape="
                    f"{','.join('' if e is None else str(e) for e in expected)}, found shape="
                    f"{','.join(str(d) for d in shape)}."
                )
            if spec.get("minNDim") is not None and rank < spec["minNDim"]:
                raise ValueError(
                    f"Input {index} is incompatible with layer {self.name}: expected min_ndim="
                    f"{spec['minNDim']}, found ndim={rank}."
                )
            for axis, value in (spec.get("axes") or {}).items():
                got = shape[axis if axis >= 0 else rank + axis]
                if value is not None and got is not None and got != value:
                    raise ValueError(
                        f"Input {index} is incompatible with layer {self.name}: expected axis "
                        f"{axis} of input shape to have value {value} but got shape "
                        f"{','.join(str(d) for d in shape)}."
                    )

    # -- masks ------------------------------------------------------------------------
    @property
    def supports_masking(self) -> bool:
        return self.supportsMasking

    @supports_masking.setter
    def supports_masking(self, value: bool) -> None:
        self.supportsMasking = bool(value)

    def compute_mask(self, inputs: Any, mask: Any = None) -> Any:
        """tfjs's `computeMask(inputs, mask)`: the mask of this layer's output (None for
        none) given its inputs and their mask(s). A layer without masking support raises
        tfjs's TypeError when it is passed a mask.

        >>> import numpy as np
        >>> import tfjs_grad as tf
        >>> emb = tf.layers.embedding(inputDim=4, outputDim=2, maskZero=True)
        >>> np.asarray(emb.computeMask(np.array([[2, 0, 1]]))).tolist()
        [[True, False, True]]
        """
        arrays = self._convert_inputs(inputs)
        return as_tensors(self._compute_mask(arrays, convert_mask(mask, self.name)))

    computeMask = compute_mask

    def _compute_mask(self, inputs: Any, mask: Any) -> Any:
        """`compute_mask` on arrays (`inputs` and `mask` a list where the executor passes
        one per input); the default passes `mask` on when the layer supports masking."""
        if not self.supportsMasking:
            if any(m is not None for m in _as_list(mask)):
                raise TypeError(
                    f"Layer {self.name} does not support masking, but was passed an inputMask."
                )
            return None
        return mask

    # -- calling ----------------------------------------------------------------------
    def call(self, inputs: Any, training: bool = False) -> Any:
        """The computation on arrays (`inputs`: one array, or a list for several). Layers
        with `_USES_MASK` also take `mask=` (None, or the mask tfjs passes in kwargs)."""
        return inputs

    def setCallHook(self, callHook: Callable[[Any, Any], None]) -> None:
        """tfjs's `setCallHook`: a function of `(inputs, kwargs)` that `invokeCallHook` calls.

        >>> import tfjs_grad as tf
        >>> layer, seen = tf.layers.Layer({}), []
        >>> layer.setCallHook(lambda inputs, kwargs: seen.append(kwargs))
        >>> layer.invokeCallHook(None, {"training": True})
        >>> seen
        [{'training': True}]
        """
        self._callHook = callHook

    def clearCallHook(self) -> None:
        """tfjs's `clearCallHook`: `invokeCallHook` does nothing again."""
        self._callHook = None

    def invokeCallHook(self, inputs: Any, kwargs: Any) -> None:
        """tfjs's `invokeCallHook(inputs, kwargs)`, which a custom layer's `call` may make:
        calls the hook set with `setCallHook`, if any."""
        if self._callHook is not None:
            self._callHook(inputs, kwargs)

    set_call_hook, clear_call_hook, invoke_call_hook = setCallHook, clearCallHook, invokeCallHook

    def apply(
        self, inputs: Any, kwargs: Mapping[str, Any] | None = None, *, training: Any = None
    ) -> Any:
        """Compute on arrays, or record a call on symbolic tensors (tfjs's `layer.apply`).

        `training` (keyword, or `{'training': True}` as tfjs passes it) selects the
        training-mode behaviour of dropout and batch normalization. `{'mask': m}` on arrays
        is the mask tfjs's kwargs give the layers that read one (recurrent layers, their
        wrappers, softmax).
        """
        options = dict(kwargs or {})
        if training is not None:
            options["training"] = training
        if _is_symbolic(inputs):
            return self._apply_symbolic(inputs, options)
        mask = convert_mask(options.get("mask"), self.name)
        return as_tensors(
            self._apply_concrete(inputs, bool(options.get("training") or False), mask)
        )

    __call__ = apply

    def _convert_inputs(self, inputs: Any) -> Any:
        if isinstance(inputs, (list, tuple)):
            return [convert(x, argument="inputs", fn=self.name) for x in inputs]
        return convert(inputs, argument="inputs", fn=self.name)

    def _apply_concrete(self, inputs: Any, training: bool, mask: Any = None) -> Any:
        arrays = self._convert_inputs(inputs)
        shapes = [tuple(a.shape) for a in _as_list(arrays)]
        self._maybe_build(
            [list(s) for s in shapes] if isinstance(arrays, list) else list(shapes[0])
        )
        self.check_input_spec(shapes)
        tape = _tape.active()
        if tape is not None and any(_tape.is_lazy(w.raw()) for w in self.weights):
            # Layers compute with jnp and lax, which the eager tape cannot record (and lax
            # takes arrays only): the gradient call goes on on a JAX trace from here, where
            # the weights read as tracers.
            tape.stage(f"layer '{self.name}' computes with JAX on its weights")
        return self.run_call(arrays, training, mask)

    def run_call(self, inputs: Any, training: bool = False, mask: Any = None) -> Any:
        """`call` on arrays, as the class takes them: Tensors in (and arrays out) for a
        subclass written as in tfjs, the tfjs `kwargs` as a dict or as keywords."""
        if self._TENSOR_CALL:
            inputs, mask = wrap_tree(inputs), wrap_tree(mask)
        style, takes_mask = self._CALL_STYLE
        given_mask = mask is not None and (takes_mask or self._USES_MASK)
        if style == "dict":
            kwargs = {"training": training, **({"mask": mask} if given_mask else {})}
            out = self.call(inputs, kwargs)  # type: ignore[call-arg]
        elif style == "inputs":
            out = self.call(inputs)  # type: ignore[call-arg]
        elif given_mask:
            out = self.call(inputs, training=training, mask=mask)  # type: ignore[call-arg]
        else:
            out = self.call(inputs, training=training)
        return map_leaves(unwrap, out) if self._TENSOR_CALL else out

    def _apply_symbolic(self, inputs: Any, options: Mapping[str, Any]) -> Any:
        tensors = _as_list(inputs)
        if not all(isinstance(t, SymbolicTensor) for t in tensors):
            raise ValueError(
                f"Layer {self.name} was called with a mix of symbolic and concrete inputs"
            )
        several = isinstance(inputs, (list, tuple))
        shapes = [list(t.shape) for t in tensors]
        shape_arg: Any = shapes if several else shapes[0]
        self._maybe_build(shape_arg)
        self.check_input_spec(shapes)
        self._probe_dtypes = [t.dtype for t in tensors]
        out_shape = self.compute_output_shape(shape_arg)
        out_dtypes = getattr(self, "_probe_out_dtypes", None) or ["float32"]
        multi = _is_shape_list(out_shape)
        out_shapes = out_shape if multi else [out_shape]
        node_index = len(self.inboundNodes)
        outputs = [
            SymbolicTensor(
                s,
                out_dtypes[i] if i < len(out_dtypes) else "float32",
                self,
                node_index,
                i,
                f"{self.name}/{self.name}" if not multi else f"{self.name}/{self.name}_{i}",
            )
            for i, s in enumerate(out_shapes)
        ]
        node = Node(self, tensors, outputs, options)
        self.inboundNodes.append(node)
        for t in tensors:
            t.sourceLayer.outboundNodes.append(node)
        return outputs if multi else outputs[0]

    def dispose(self) -> dict[str, int]:
        """Dispose of the layer's weights (tfjs's `layer.dispose()`)."""
        count = 0
        for w in self._all_weights():
            if not w.is_disposed:
                w.dispose()
                count += 1
        return {"refCountAfterDispose": 0, "numDisposedVariables": count}

    def __repr__(self) -> str:
        return f"{self.getClassName()}(name={self.name})"


def output_mask(layer: Layer, inputs: Any, mask: Any) -> Any:
    """The mask of `layer`'s output on arrays: its own `_compute_mask`, or the public
    `computeMask`/`compute_mask` a subclass written as in tfjs overrides (given Tensors)."""
    for name in ("computeMask", "compute_mask"):
        if getattr(type(layer), name) is not getattr(Layer, name):
            out = getattr(layer, name)(as_tensors(inputs), as_tensors(mask))
            return convert_mask(out, layer.name)
    return layer._compute_mask(inputs, mask)


def convert_mask(mask: Any, fn: str) -> Any:
    """A mask as arrays: None, one tensor-like, or a list of them (None kept)."""
    if mask is None:
        return None
    if isinstance(mask, (list, tuple)):
        return [None if m is None else convert(m, argument="mask", fn=fn) for m in mask]
    return convert(mask, argument="mask", fn=fn)


def exactly_one(inputs: Any, what: str = "tensor") -> Any:
    """tfjs's getExactlyOneTensor: the one array of `inputs` (a list of one, or itself)."""
    if isinstance(inputs, (list, tuple)):
        if len(inputs) != 1:
            raise ValueError(f"Expected exactly 1 {what}; got {len(inputs)}")
        return inputs[0]
    return inputs


def _is_shape_list(shape: Any) -> bool:
    return (
        isinstance(shape, (list, tuple)) and len(shape) > 0 and isinstance(shape[0], (list, tuple))
    )


def set_weight_values(targets: Sequence[Variable], values: Sequence[Any], owner: str) -> None:
    """Assign values to Variables after checking the count and every shape (tfjs's words)."""
    values = list(values)
    if len(values) != len(targets):
        raise ValueError(
            f'You called setWeights(weights) on layer "{owner}" with a weight list of length '
            f"{len(values)}, but the layer was expecting {len(targets)} weights. Provided "
            f"weights: {[tuple(np.shape(v)) for v in values]}..."
        )
    arrays = []
    for var, value in zip(targets, values):
        array = convert(value, argument="weights", fn="setWeights")
        if tuple(array.shape) != tuple(var.shape):
            raise ValueError(
                f"Layer weight shape {','.join(map(str, var.shape))} not compatible with "
                f"provided weight shape {','.join(map(str, array.shape))}"
            )
        arrays.append(array.astype(var.dtype))
    for var, array in zip(targets, arrays):
        var.assign(array)


class InputLayer(Layer):
    """The entry of a functional model: holds a batch input shape (tfjs's `InputLayer`)."""

    className = "InputLayer"
    _KEYS: ClassVar[dict[str, Any]] = {"sparse": False}

    def __init__(self, config: Mapping[str, Any] | None = None, /, **kwargs: Any):
        config = dict(config or {}, **kwargs)
        if not config.get("name"):
            config["name"] = unique_prefix_name("input")
        super().__init__(config)
        if self.batchInputShape is None:
            raise ValueError(
                "An InputLayer should be passed either a `batchInputShape` or an `inputShape`."
            )
        self.sparse = bool(self._args["sparse"])
        self.built = True
        out = SymbolicTensor(self.batchInputShape, self.dtype or "float32", self, 0, 0, self.name)
        self.inboundNodes.append(Node(self, [], [out], {}))
        self.inboundNodes[0].inputShapes = [list(self.batchInputShape)]

    def get_config(self) -> dict[str, Any]:
        return {
            "batch_input_shape": list(self.batchInputShape or []),
            "dtype": self.dtype,
            "sparse": self.sparse,
            "name": self.name,
        }

    def apply(
        self, inputs: Any, kwargs: Mapping[str, Any] | None = None, *, training: Any = None
    ) -> Any:
        raise ValueError(f"Cannot call apply() on InputLayer {self.name}")

    __call__ = apply


def input(  # noqa: A001  (tfjs's name)
    config: Mapping[str, Any] | None = None,
    /,
    *,
    shape: Sequence[int | None] | None = None,
    batchShape: Sequence[int | None] | None = None,
    name: str | None = None,
    dtype: str | None = None,
    sparse: bool | None = None,
    **snake_case: Any,
) -> SymbolicTensor:
    """`tf.input({shape})`: the symbolic input of a functional model.

    >>> import tfjs_grad as tf
    >>> x = tf.input(shape=[4])
    >>> x.shape
    [None, 4]
    """
    args = dict(config or {})
    for key, value in (
        ("shape", shape),
        ("batchShape", batchShape),
        ("name", name),
        ("dtype", dtype),
        ("sparse", sparse),
    ):
        if value is not None:
            args[key] = value
    if "batch_shape" in snake_case:
        args["batchShape"] = snake_case.pop("batch_shape")
    if snake_case:
        raise ValueError(f"Unknown config keys for input: {sorted(snake_case)}")
    if args.get("shape") is None and args.get("batchShape") is None:
        raise ValueError(
            "Please provide to Input either a `shape` or a `batchShape` argument. Note that "
            "`shape` does not include the batch dimension."
        )
    if args.get("shape") is not None and args.get("batchShape") is not None:
        raise ValueError(
            "Please provide either a `shape` or `batchShape` argument to Input, but not both."
        )
    batch = args.get("batchShape") or [None, *args["shape"]]
    layer = InputLayer(
        batchInputShape=list(batch),
        name=args.get("name"),
        dtype=args.get("dtype") or "float32",
        sparse=bool(args.get("sparse")),
    )
    return layer.inboundNodes[0].outputTensors[0]


L = TypeVar("L", bound="Layer")


def layer_factory(cls: type[L]) -> Callable[..., L]:
    """The `tf.layers.<name>(config)` function of a layer class."""

    def make(config: Mapping[str, Any] | None = None, /, **kwargs: Any) -> L:
        return cls(config, **kwargs)

    make.__name__ = cls.__name__[:1].lower() + cls.__name__[1:]
    make.__annotations__ = {**make.__annotations__, "return": cls}  # help() names the class
    make.__doc__ = factory_doc(cls, make.__name__)
    return make


def factory_doc(cls: type[Layer], name: str) -> str:
    """The docstring of `tf.layers.<name>`: what the class does, then its config keys and
    their defaults, read from the class's `_KEYS` table (one table, no list to keep).

    >>> print(factory_doc(Layer, "layer").splitlines()[0])
    tfjs's `tf.layers.layer(config)`: a new `Layer` layer.
    """
    summary = (cls.__doc__ or "").strip().split("\n\n")[0].replace("\n", " ")
    lines = [f"tfjs's `tf.layers.{name}(config)`: a new `{cls.__name__}` layer."]
    if summary:
        lines += ["", summary]
    lines += ["", "Config (a dict, keywords or both; camelCase keys, snake_case accepted):"]
    for key, default in cls._KEYS.items():
        lines.append(f"    {key}: " + ("required" if default is REQUIRED else repr(default)))
    lines += ["", "Every layer also takes " + ", ".join(cls._BASE_KEYS) + "."]
    return "\n".join(lines) + "\n"
