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

restoreCheckpoint = restore_checkpoint
saveCheckpoint = save_checkpoint
tfjsAdadelta = tfjs_adadelta
tfjsAdagrad = tfjs_adagrad
tfjsAdam = tfjs_adam
tfjsAdamax = tfjs_adamax
tfjsMomentum = tfjs_momentum
tfjsRmsprop = tfjs_rmsprop
tfjsSgd = tfjs_sgd

__all__ = [
    "adadelta",
    "AdadeltaOptimizer",
    "adagrad",
    "AdagradOptimizer",
    "adam",
    "adamax",
    "AdamaxOptimizer",
    "AdamOptimizer",
    "from_optax",
    "fromOptax",
    "momentum",
    "MomentumOptimizer",
    "NamedTensor",
    "Optimizer",
    "restore_checkpoint",
    "restoreCheckpoint",
    "rmsprop",
    "RMSPropOptimizer",
    "save_checkpoint",
    "saveCheckpoint",
    "sgd",
    "SGDOptimizer",
    "tfjs_adadelta",
    "tfjs_adagrad",
    "tfjs_adam",
    "tfjs_adamax",
    "tfjs_momentum",
    "tfjs_rmsprop",
    "tfjs_sgd",
    "tfjsAdadelta",
    "tfjsAdagrad",
    "tfjsAdam",
    "tfjsAdamax",
    "tfjsMomentum",
    "tfjsRmsprop",
    "tfjsSgd",
]


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
