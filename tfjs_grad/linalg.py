"""`tf.linalg`: tfjs's linear algebra namespace (bandPart, gramSchmidt, qr).

>>> import tfjs_grad as tf
>>> tf.linalg.bandPart is tf.linalg.band_part
True
"""

from .ops.decompositions import band_part, bandPart, gram_schmidt, gramSchmidt, qr

__all__ = ["band_part", "bandPart", "gram_schmidt", "gramSchmidt", "qr"]


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
