"""OPS2.md's groups "Shapes, slicing, indexing", "Sorting, searching, counting, sets",
"Async" and "Linear algebra, einsum, RNN cells" (tf.linalg's ops live in tfjs_grad.linalg),
gathered for `tfjs_grad.ops`: one module per part of a group.
"""

from . import asynchronous, blocks, contraction, indexing, ranked, rnn, sorting
from .asynchronous import *  # noqa: F403
from .blocks import *  # noqa: F403
from .contraction import *  # noqa: F403
from .indexing import *  # noqa: F403
from .ranked import *  # noqa: F403
from .rnn import *  # noqa: F403
from .sorting import *  # noqa: F403

__all__ = []
__all__ += asynchronous.__all__
__all__ += blocks.__all__
__all__ += contraction.__all__
__all__ += indexing.__all__
__all__ += ranked.__all__
__all__ += rnn.__all__
__all__ += sorting.__all__
