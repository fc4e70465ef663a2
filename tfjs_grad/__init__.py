"""tfjs_grad: TensorFlow.js's gradient and training API on JAX.

>>> import tfjs_grad as tf
>>> tf.grad(lambda x: x ** 2)(tf.tensor1d([1, 2, 3])).tolist()
[2.0, 4.0, 6.0]
"""

from . import (
    constraints,
    initializers,
    io,
    layers,
    linalg,  # opsshapes: tf.linalg (bandPart, gramSchmidt, qr)
    losses,
    models,
    ops,
    regularizers,
    train,
    util,
)
from .functional import functionalize, get_state, getState, set_state, setState
from .gradients import (
    ValueAndGrad,
    ValueAndGrads,
    VariableGrads,
    custom_grad,
    customGrad,
    grad,
    grads,
    stop_gradient,
    stopGradient,
    value_and_grad,
    value_and_grads,
    valueAndGrad,
    valueAndGrads,
    variable_grads,
    variableGrads,
)
from .jit import jit, jit_loop, jitLoop
from .layers.base import input as input
from .losses import Reduction
from .memory import Memory, dispose, keep, memory, tidy
from .models import LayersModel, Sequential, load_layers_model, loadLayersModel, model, sequential
from .ops import *  # noqa: F403  (the ops are tf.<name>, as in tfjs; see ops.__all__)

# tfjs names that equal Python builtins: attributes of tf, never star-exported.
from .ops import abs as abs
from .ops import max as max
from .ops import min as min
from .ops import pow as pow
from .ops import print as print
from .ops import range as range
from .ops import slice as slice
from .ops import sum as sum
from .train import NamedTensor, Optimizer
from .variables import (
    Variable,
    dispose_variables,
    disposeVariables,
    registered_variables,
    registeredVariables,
    variable,
)

__all__ = [
    "Reduction",
    "io",
    "linalg",  # opsshapes
    "losses",
    "Memory",
    "dispose",
    "keep",
    "memory",
    "tidy",
    "NamedTensor",
    "Optimizer",
    "functionalize",
    "get_state",
    "getState",
    "jit",
    "jit_loop",
    "jitLoop",
    "set_state",
    "setState",
    "ops",
    "train",
    "util",
    "Variable",
    "ValueAndGrad",
    "ValueAndGrads",
    "VariableGrads",
    "custom_grad",
    "customGrad",
    "dispose_variables",
    "disposeVariables",
    "grad",
    "grads",
    "registered_variables",
    "registeredVariables",
    "stop_gradient",
    "stopGradient",
    "value_and_grad",
    "value_and_grads",
    "valueAndGrad",
    "valueAndGrads",
    "variable",
    "variable_grads",
    "variableGrads",
]
__all__ += ops.__all__
__all__ += [  # layers and models
    "constraints",
    "initializers",
    "layers",
    "models",
    "regularizers",
    "LayersModel",
    "Sequential",
    "loadLayersModel",
    "load_layers_model",
    "model",
    "sequential",
]

# training (models/_training.py): tf.callbacks, tf.metrics
from . import callbacks, metrics  # noqa: E402

__all__ += ["callbacks", "metrics"]
