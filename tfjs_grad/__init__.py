"""tfjs_grad: TensorFlow.js's gradient and training API on JAX.

>>> import tfjs_grad as tf
>>> tf.grad(lambda x: x.square())(tf.tensor1d([1, 2, 3])).arraySync()
[2.0, 4.0, 6.0]
"""

from . import (
    browser,
    constraints,
    initializers,
    io,
    layers,
    linalg,  # opsshapes: tf.linalg (bandPart, gramSchmidt, qr)
    losses,
    models,
    ops,
    regularizers,
    serialization,
    train,
    util,
)
from .environment import (
    disable_deprecation_warnings,
    disableDeprecationWarnings,
    enable_debug_mode,
    enable_prod_mode,
    enableDebugMode,
    enableProdMode,
    engine,
    env,
    get_backend,
    getBackend,
    profile,
    ready,
    set_backend,
    setBackend,
    time,
    version,
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

# isort: split
# OPS2.md's sub-namespaces tf.fused, tf.image, tf.signal, tf.spectral (helper opsnn's block)
from .ops import fused as fused
from .ops import image as image
from .ops import signal as signal
from .ops import spectral as spectral
from .train import NamedTensor, Optimizer
from .variables import (
    Variable,
    dispose_variables,
    disposeVariables,
    registered_variables,
    registeredVariables,
    variable,
)

# -- opsmath (OPS2.md math tables): builtin-named ops, is_nan, tf.math, tf.sparse
# isort: split
from .ops import all as all
from .ops import any as any
from .ops import complex as complex
from .ops import is_nan as is_nan
from .ops import math_ops as math
from .ops import round as round
from .ops import sparse as sparse

# -- end of opsmath's block

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
    "browser",
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
    "serialization",
    "LayersModel",
    "Sequential",
    "loadLayersModel",
    "load_layers_model",
    "model",
    "sequential",
]

# training (models/_training.py): tf.callbacks, tf.metrics
from . import callbacks, data, metrics, node  # noqa: E402

__all__ += ["callbacks", "data", "metrics", "node"]
__all__ += ["math", "sparse"]  # opsmath: tf.math, tf.sparse

# -- tf.Tensor (tfjs_grad/_tensor.py, tensor_methods.py): its methods are the ops above, so
# they are attached last; an op module imported above gets its methods for free.
from . import tensor_methods as _tensor_methods  # noqa: E402
from ._tensor import Tensor  # noqa: E402
from ._tensors import TensorLike  # noqa: E402

__all__ += ["Tensor", "TensorLike"]
__all__ += [  # tfjs's globals (environment.py)
    "disable_deprecation_warnings",
    "disableDeprecationWarnings",
    "enable_debug_mode",
    "enableDebugMode",
    "enable_prod_mode",
    "enableProdMode",
    "engine",
    "env",
    "get_backend",
    "getBackend",
    "profile",
    "ready",
    "set_backend",
    "setBackend",
    "time",
    "version",
]
_tensor_methods.attach(__import__(__name__))
