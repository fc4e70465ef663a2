"""Port of mnist-core/index.js: load the data, train, classify a test batch.

https://github.com/tensorflow/tfjs-examples/blob/master/mnist-core/index.js
"""

import asyncio

from . import model, ui
from .data import MnistData

data = None


async def load():
    """Load the data set into the module's `data`."""
    global data
    data = MnistData()
    await data.load()


async def train():
    """Train the model, logging each step's cost."""
    ui.isTraining()
    await model.train(data, ui.trainingLog)


async def test():
    """Classify one test batch and show the results."""
    testExamples = 50
    batch = data.nextTestBatch(testExamples)
    predictions = model.predict(batch.xs)
    labels = model.classesFromLabel(batch.labels)

    ui.showTestResults(batch, predictions, labels)


async def mnist():
    """Load, train, test."""
    await load()
    await train()
    await test()


if __name__ == "__main__":
    asyncio.run(mnist())
