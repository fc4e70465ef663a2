"""`tf.train`: tfjs's seven optimizers (each an optax transformation), and `from_optax`."""

from ._optimizer import NamedTensor, Optimizer, from_optax, fromOptax
from .adadelta import AdadeltaOptimizer, adadelta, tfjs_adadelta
from .adagrad import AdagradOptimizer, adagrad, tfjs_adagrad
from .adam import AdamOptimizer, adam, tfjs_adam
from .adamax import AdamaxOptimizer, adamax, tfjs_adamax
from .checkpoint import restore_checkpoint, save_checkpoint
from .momentum import MomentumOptimizer, momentum, tfjs_momentum
from .rmsprop import RMSPropOptimizer, rmsprop, tfjs_rmsprop
from .sgd import SGDOptimizer, sgd, tfjs_sgd

__all__ = [
    "AdadeltaOptimizer",
    "AdagradOptimizer",
    "AdamOptimizer",
    "AdamaxOptimizer",
    "MomentumOptimizer",
    "NamedTensor",
    "Optimizer",
    "RMSPropOptimizer",
    "SGDOptimizer",
    "adadelta",
    "adagrad",
    "adam",
    "adamax",
    "from_optax",
    "fromOptax",
    "momentum",
    "restore_checkpoint",
    "rmsprop",
    "save_checkpoint",
    "sgd",
    "tfjs_adadelta",
    "tfjs_adagrad",
    "tfjs_adam",
    "tfjs_adamax",
    "tfjs_momentum",
    "tfjs_rmsprop",
    "tfjs_sgd",
]
