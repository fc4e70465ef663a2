"""Port of boston-housing/data.js, with synthetic data of the dataset's shape.

https://github.com/tensorflow/tfjs-examples/blob/master/boston-housing/data.js

The original downloads four CSV files (333 training and 173 test rows of 12 features, one
price each). This port makes rows of the same shapes from a seeded mulberry32 generator
(the one tests/reference/gen_boston.js uses), with prices a noisy linear function of the
features, so it runs offline and tfjs can be fed the very same numbers.
"""

import math
import random

NUM_TRAIN, NUM_TEST, NUM_FEATURES = 333, 173, 12


def mulberry32(seed):
    """The seeded uniform generator in [0, 1) of tests/reference/mulberry32.js."""
    state = [seed & 0xFFFFFFFF]

    def imul(a, b):
        return (a * b) & 0xFFFFFFFF

    def draw():
        state[0] = (state[0] + 0x6D2B79F5) & 0xFFFFFFFF
        s = state[0]
        t = imul(s ^ (s >> 15), 1 | s)
        t = ((t + imul(t ^ (t >> 7), 61 | t)) & 0xFFFFFFFF) ^ t
        return ((t ^ (t >> 14)) & 0xFFFFFFFF) / 4294967296

    return draw


def loadCsv(rows, cols, draw):
    """Stands in for the CSV download: `rows` rows of `cols` features, column j in
    [0, scale_j) with scale_j = 1 + 10 * (7j mod 5)."""
    return [[draw() * (1 + 10 * ((j * 7) % 5)) for j in range(cols)] for _ in range(rows)]


def prices(features, draw):
    """A price per row: 22 + a fixed linear function of the features + uniform noise."""
    out = []
    for row in features:
        price = 22.0
        for j in range(NUM_FEATURES):
            price += (0.5 - ((j * 3) % 7) / 7) * (row[j] / (1 + 10 * ((j * 7) % 5)) - 0.5) * 10
        out.append([price + 3 * (draw() - 0.5)])
    return out


class BostonHousingDataset:
    """Helper class to handle loading training and test data."""

    def __init__(self):
        # Arrays to hold the data.
        self.trainFeatures = None
        self.trainTarget = None
        self.testFeatures = None
        self.testTarget = None

    @property
    def numFeatures(self):
        # If numFeatures is accessed before the data is loaded, raise an error.
        if self.trainFeatures is None:
            raise RuntimeError('\'loadData()\' must be called before numFeatures')
        return len(self.trainFeatures[0])

    async def loadData(self, seed=506):
        """Loads training and test data."""
        draw = mulberry32(seed)
        self.trainFeatures = loadCsv(NUM_TRAIN, NUM_FEATURES, draw)
        self.trainTarget = prices(self.trainFeatures, draw)
        self.testFeatures = loadCsv(NUM_TEST, NUM_FEATURES, draw)
        self.testTarget = prices(self.testFeatures, draw)

        shuffle(self.trainFeatures, self.trainTarget)
        shuffle(self.testFeatures, self.testTarget)


featureDescriptions = [
    'Crime rate', 'Land zone size', 'Industrial proportion', 'Next to river',
    'Nitric oxide concentration', 'Number of rooms per house', 'Age of housing',
    'Distance to commute', 'Distance to highway', 'Tax rate', 'School class size',
    'School drop-out rate'
]  # fmt: skip


def shuffle(data, target):
    """Shuffles data and target (maintaining alignment) using Fisher-Yates algorithm."""
    counter = len(data)
    temp = 0
    index = 0
    while counter > 0:
        index = math.floor(random.random() * counter)
        counter -= 1
        # data:
        temp = data[counter]
        data[counter] = data[index]
        data[index] = temp
        # target:
        temp = target[counter]
        target[counter] = target[index]
        target[index] = temp
