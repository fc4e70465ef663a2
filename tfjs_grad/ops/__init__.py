"""tfjs's ops on JAX, one module per group of `OPS.md`; every name is also `tf.<name>`.

`tf.util.createShuffledIndices` and `tf.util.shuffle` live in `tfjs_grad.util`, as in tfjs.

Names equal to Python builtins (`abs`, `max`, `min`, `pow`, `range`, `slice`, `sum`,
`print`) are defined with a trailing underscore and exported here under tfjs's name; they
are left out of `__all__` so that `from tfjs_grad import *` never shadows a builtin.
"""

from . import _opsshapes
from ._opsshapes import *  # noqa: F403
from .activations import (
    elu,
    leaky_relu,
    leakyRelu,
    log_softmax,
    logSoftmax,
    relu,
    sigmoid,
    softmax,
    softplus,
    tanh,
)
from .arithmetic import (
    abs_,
    add,
    clip_by_value,
    clipByValue,
    cos,
    div,
    exp,
    log,
    maximum,
    minimum,
    mul,
    neg,
    pow_,
    sign,
    sin,
    sqrt,
    square,
    squared_difference,
    squaredDifference,
    sub,
)
from .convolution import conv2d
from .creation import (
    fill,
    linspace,
    multinomial,
    one_hot,
    oneHot,
    ones,
    ones_like,
    onesLike,
    random_normal,
    random_uniform,
    randomNormal,
    randomUniform,
    range_,
    scalar,
    tensor,
    tensor1d,
    tensor2d,
    tensor3d,
    tensor4d,
    truncated_normal,
    truncatedNormal,
    zeros,
    zeros_like,
    zerosLike,
)
from .linalg import dot, mat_mul, matMul, outer_product, outerProduct
from .logic import (
    equal,
    greater,
    greater_equal,
    greaterEqual,
    less,
    less_equal,
    lessEqual,
    logical_and,
    logical_not,
    logical_or,
    logicalAnd,
    logicalNot,
    logicalOr,
    not_equal,
    notEqual,
    where,
)
from .pooling import avg_pool, avgPool, max_pool, maxPool
from .reductions import (
    Moments,
    arg_max,
    arg_min,
    argMax,
    argMin,
    log_sum_exp,
    logSumExp,
    max_,
    mean,
    min_,
    moments,
    prod,
    sum_,
)
from .shapes import (
    concat,
    expand_dims,
    expandDims,
    gather,
    pad,
    reshape,
    slice_,
    split,
    squeeze,
    stack,
    tile,
    transpose,
    unstack,
)
from .utilities import (
    TensorBuffer,
    buffer,
    cast,
    dispose,
    next_frame,
    nextFrame,
    print_,
)

# isort: split
# -- OPS2.md's convolution, pooling, normalization, fused, spectral, signal and image ops
# (convolution.py, pooling.py, normalization.py; the sub-namespaces fused, spectral, signal,
# image are modules of their own)
from . import fused as fused
from . import image as image
from . import signal as signal
from . import spectral as spectral
from .convolution import (
    conv1d,
    conv2d_transpose,
    conv2dTranspose,
    conv3d,
    conv3d_transpose,
    conv3dTranspose,
    depthwise_conv2d,
    depthwiseConv2d,
    dilation2d,
    separable_conv2d,
    separableConv2d,
)
from .normalization import (
    batch_norm,
    batch_norm2d,
    batch_norm3d,
    batch_norm4d,
    batchNorm,
    batchNorm2d,
    batchNorm3d,
    batchNorm4d,
    local_response_normalization,
    localResponseNormalization,
    moving_average,
    movingAverage,
)
from .pooling import (
    MaxPoolWithArgmax,
    avg_pool3d,
    avgPool3d,
    max_pool3d,
    max_pool_with_argmax,
    maxPool3d,
    maxPoolWithArgmax,
    pool,
)
from .spectral import fft, ifft, irfft, rfft

# -- end of OPS2.md's nn ops
# -- opsmath (OPS2.md's math tables): unary.py, binary.py, scans.py (reductions and scans),
# creation2.py, random_ops.py, math_ops.py (tf.math), sparse.py (tf.sparse), ragged.py
# isort: split
from . import binary as _binary
from . import creation2 as _creation2
from . import math_ops as math_ops
from . import ragged as _ragged
from . import random_ops as _random_ops
from . import scans as _scans
from . import sparse as sparse
from . import unary as _unary
from .binary import *  # noqa: F403
from .creation2 import *  # noqa: F403
from .ragged import *  # noqa: F403
from .random_ops import *  # noqa: F403
from .scans import *  # noqa: F403
from .unary import *  # noqa: F403
from .unary import is_nan as is_nan

# -- end of opsmath's imports

abs = abs_
max = max_
min = min_
pow = pow_
print = print_
range = range_
slice = slice_
sum = sum_

__all__ = [
    "Moments",
    "TensorBuffer",
    "add",
    "arg_max",
    "arg_min",
    "argMax",
    "argMin",
    "avg_pool",
    "avgPool",
    "buffer",
    "cast",
    "clip_by_value",
    "clipByValue",
    "concat",
    "conv2d",
    "cos",
    "dispose",
    "div",
    "dot",
    "elu",
    "equal",
    "exp",
    "expand_dims",
    "expandDims",
    "fill",
    "gather",
    "greater",
    "greater_equal",
    "greaterEqual",
    "leaky_relu",
    "leakyRelu",
    "less",
    "less_equal",
    "lessEqual",
    "linspace",
    "log",
    "log_softmax",
    "log_sum_exp",
    "logical_and",
    "logical_not",
    "logical_or",
    "logicalAnd",
    "logicalNot",
    "logicalOr",
    "logSoftmax",
    "logSumExp",
    "mat_mul",
    "matMul",
    "max_pool",
    "maximum",
    "maxPool",
    "mean",
    "minimum",
    "moments",
    "mul",
    "multinomial",
    "neg",
    "next_frame",
    "nextFrame",
    "not_equal",
    "notEqual",
    "one_hot",
    "oneHot",
    "ones",
    "ones_like",
    "onesLike",
    "outer_product",
    "outerProduct",
    "pad",
    "prod",
    "random_normal",
    "random_uniform",
    "randomNormal",
    "randomUniform",
    "relu",
    "reshape",
    "scalar",
    "sigmoid",
    "sign",
    "sin",
    "softmax",
    "softplus",
    "split",
    "sqrt",
    "square",
    "squared_difference",
    "squaredDifference",
    "squeeze",
    "stack",
    "sub",
    "tanh",
    "tensor",
    "tensor1d",
    "tensor2d",
    "tensor3d",
    "tensor4d",
    "tile",
    "transpose",
    "truncated_normal",
    "truncatedNormal",
    "unstack",
    "where",
    "zeros",
    "zeros_like",
    "zerosLike",
]
__all__.extend(_opsshapes.__all__)  # OPS2.md groups of helper opsshapes (see _opsshapes.py)
# OPS2.md's nn ops (the block above)
__all__ += [
    "fft",
    "ifft",
    "irfft",
    "rfft",
    "MaxPoolWithArgmax",
    "avg_pool3d",
    "avgPool3d",
    "batch_norm",
    "batch_norm2d",
    "batch_norm3d",
    "batch_norm4d",
    "batchNorm",
    "batchNorm2d",
    "batchNorm3d",
    "batchNorm4d",
    "conv1d",
    "conv2d_transpose",
    "conv2dTranspose",
    "conv3d",
    "conv3d_transpose",
    "conv3dTranspose",
    "depthwise_conv2d",
    "depthwiseConv2d",
    "dilation2d",
    "local_response_normalization",
    "localResponseNormalization",
    "max_pool3d",
    "max_pool_with_argmax",
    "maxPool3d",
    "maxPoolWithArgmax",
    "moving_average",
    "movingAverage",
    "pool",
    "separable_conv2d",
    "separableConv2d",
]

# -- opsmath: builtin names (all, any, complex, round) are attributes only, as above; so is
# is_nan, whose camelCase is isNaN (the alias rule would give isNan).
all = _scans.all_
any = _scans.any_
complex = _creation2.complex_
round = _unary.round_
# (spelled out, not a comprehension, so that type checkers see these ops as tf.<name>)
__all__ += _unary.__all__
__all__ += _binary.__all__
__all__ += _scans.__all__
__all__ += _creation2.__all__
__all__ += _random_ops.__all__
__all__ += _ragged.__all__
__all__.remove("is_nan")
__all__.remove("round_")
__all__.remove("all_")
__all__.remove("any_")
__all__.remove("complex_")

# tfjs's builtin-named ops and sub-namespaces: attributes of tf.ops, listed by dir() too.
_ATTRIBUTES_ONLY = ["abs", "all", "any", "complex", "is_nan", "max", "min", "pow", "print"]
_ATTRIBUTES_ONLY += ["range", "round", "slice", "sum", "fused", "image", "math_ops", "signal"]
_ATTRIBUTES_ONLY += ["sparse", "spectral"]


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted({*__all__, *_ATTRIBUTES_ONLY})
