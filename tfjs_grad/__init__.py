"""tfjs_grad: TensorFlow.js's gradient and training API on JAX.

>>> import tfjs_grad as tf
>>> tf.grad(lambda x: x ** 2)(tf.tensor1d([1, 2, 3])).tolist()
[2.0, 4.0, 6.0]
"""

from . import io, losses, train
from ._tensors import ones, random_normal, randomNormal, scalar, tensor, tensor1d, tensor2d, zeros
from .functional import functionalize, get_state, set_state
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
from .jit import jit, jit_loop
from .losses import Reduction
from .memory import Memory, dispose, keep, memory, tidy
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
    "jit",
    "jit_loop",
    "set_state",
    "train",
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
    "ones",
    "random_normal",
    "randomNormal",
    "registered_variables",
    "registeredVariables",
    "scalar",
    "stop_gradient",
    "stopGradient",
    "tensor",
    "tensor1d",
    "tensor2d",
    "value_and_grad",
    "value_and_grads",
    "valueAndGrad",
    "valueAndGrads",
    "variable",
    "variable_grads",
    "variableGrads",
    "zeros",
]
