"""Port of snake-dqn/utils.js: random integers and an argument check.

https://github.com/tensorflow/tfjs-examples/blob/master/snake-dqn/utils.js

>>> from examples.snake_dqn.utils import getRandomInteger
>>> 3 <= getRandomInteger(3, 5) < 5
True
"""

import math
import random


def getRandomInteger(min, max):
    """A random integer >= min and < max, drawn with one `random.random()` (JS's Math.random)."""
    return math.floor((max - min) * random.random()) + min


def getRandomIntegers(min, max, numIntegers):
    """`numIntegers` random integers >= min and < max."""
    output = []
    for _ in range(numIntegers):
        output.append(math.floor((max - min) * random.random()) + min)
    return output


def assertPositiveInteger(x, name=None):
    """Raise unless x is a positive integer (an int, or a float with an integer value, as
    JavaScript's `Number.isInteger` accepts)."""
    if not (isinstance(x, (int, float)) and not isinstance(x, bool) and float(x).is_integer()):
        raise ValueError(
            f"Expected {name} to be an integer, but received {x}")
    if not (x > 0):
        raise ValueError(
            f"Expected {name} to be a positive number, but received {x}")
