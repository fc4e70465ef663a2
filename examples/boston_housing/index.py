"""Port of boston-housing/index.js: linear regression and two MLPs trained with model.fit.

https://github.com/tensorflow/tfjs-examples/blob/master/boston-housing/index.js

    python -m examples.boston_housing.index [linear|1hidden|2hidden]
"""

import asyncio
import sys

import tfjs_grad as tf

from . import normalization, ui
from .data import BostonHousingDataset, featureDescriptions

# Some hyperparameters for model training.
NUM_EPOCHS = 200
BATCH_SIZE = 40
LEARNING_RATE = 0.01

bostonData = BostonHousingDataset()
tensors = {}


def arraysToTensors():
    """Convert loaded data into tensors and creates normalized versions of the features."""
    tensors['rawTrainFeatures'] = tf.tensor2d(bostonData.trainFeatures)
    tensors['trainTarget'] = tf.tensor2d(bostonData.trainTarget)
    tensors['rawTestFeatures'] = tf.tensor2d(bostonData.testFeatures)
    tensors['testTarget'] = tf.tensor2d(bostonData.testTarget)
    # Normalize mean and standard deviation of data.
    stats = normalization.determineMeanAndStddev(tensors['rawTrainFeatures'])
    dataMean, dataStd = stats.dataMean, stats.dataStd

    tensors['trainFeatures'] = normalization.normalizeTensor(
        tensors['rawTrainFeatures'], dataMean, dataStd)
    tensors['testFeatures'] = normalization.normalizeTensor(
        tensors['rawTestFeatures'], dataMean, dataStd)


def linearRegressionModel():
    """Builds and returns Linear Regression Model."""
    model = tf.sequential()
    model.add(tf.layers.dense({'inputShape': [bostonData.numFeatures], 'units': 1}))

    model.summary()
    return model


def multiLayerPerceptronRegressionModel1Hidden():
    """Builds and returns Multi Layer Perceptron Regression Model with 1 hidden layer."""
    model = tf.sequential()
    model.add(tf.layers.dense({
        'inputShape': [bostonData.numFeatures],
        'units': 50,
        'activation': 'sigmoid',
        'kernelInitializer': 'leCunNormal'
    }))
    model.add(tf.layers.dense({'units': 1}))

    model.summary()
    return model


def multiLayerPerceptronRegressionModel2Hidden():
    """Builds and returns Multi Layer Perceptron Regression Model with 2 hidden layers."""
    model = tf.sequential()
    model.add(tf.layers.dense({
        'inputShape': [bostonData.numFeatures],
        'units': 50,
        'activation': 'sigmoid',
        'kernelInitializer': 'leCunNormal'
    }))
    model.add(tf.layers.dense(
        {'units': 50, 'activation': 'sigmoid', 'kernelInitializer': 'leCunNormal'}))
    model.add(tf.layers.dense({'units': 1}))

    model.summary()
    return model


def describeKernelElements(kernel):
    """Describe the current linear weights for a human to read."""
    assert len(kernel) == 12, f"kernel must be a array of length 12, got {len(kernel)}"
    outList = []
    for idx in range(len(kernel)):
        outList.append({'description': featureDescriptions[idx], 'value': kernel[idx]})
    return outList


async def run(model, modelName, weightsIllustration):
    """Compiles `model` and trains it using the train data and runs model against test
    data. Issues a callback to update the UI after each epoch."""
    model.compile(
        {'optimizer': tf.train.sgd(LEARNING_RATE), 'loss': 'meanSquaredError'})

    trainLogs = []

    ui.updateStatus('Starting training process...')

    async def onEpochEnd(epoch, logs):
        await ui.updateModelStatus(
            f"Epoch {epoch + 1} of {NUM_EPOCHS} completed.", modelName)
        trainLogs.append(logs)

        if weightsIllustration:
            kernelAsArr = await model.layers[0].getWeights()[0].data()
            weightsList = describeKernelElements(kernelAsArr)
            ui.updateWeightDescription(weightsList)

    await model.fit(tensors['trainFeatures'], tensors['trainTarget'], {
        'batchSize': BATCH_SIZE,
        'epochs': NUM_EPOCHS,
        'validationSplit': 0.2,
        'callbacks': {
            'onEpochEnd': onEpochEnd
        }
    })

    ui.updateStatus('Running on test data...')
    result = model.evaluate(
        tensors['testFeatures'], tensors['testTarget'], {'batchSize': BATCH_SIZE})
    testLoss = result.dataSync()[0]

    trainLoss = trainLogs[len(trainLogs) - 1]['loss']
    valLoss = trainLogs[len(trainLogs) - 1]['val_loss']
    await ui.updateModelStatus(
        f"Final train-set loss: {trainLoss:.4f}\n"
        f"Final validation-set loss: {valLoss:.4f}\n"
        f"Test-set loss: {testLoss:.4f}",
        modelName)
    return trainLogs, float(testLoss)


def computeBaseline():
    avgPrice = tensors['trainTarget'].mean()
    print(f"Average price: {avgPrice.dataSync()}")
    baseline = tensors['testTarget'].sub(avgPrice).square().mean()
    print(f"Baseline loss: {baseline.dataSync()}")
    baselineMsg = f"Baseline loss (meanSquaredError) is {baseline.dataSync()[0]:.2f}"
    ui.updateBaselineStatus(baselineMsg)
    return float(baseline.dataSync()[0])


async def main(which='linear'):
    await bostonData.loadData()
    ui.updateStatus('Data loaded, converting to tensors')
    arraysToTensors()
    ui.updateStatus(
        'Data is now available as tensors.\n'
        'Click a train button to begin.')
    ui.updateBaselineStatus('Estimating baseline loss')
    computeBaseline()
    await ui.setup()
    build = {'linear': linearRegressionModel,
             '1hidden': multiLayerPerceptronRegressionModel1Hidden,
             '2hidden': multiLayerPerceptronRegressionModel2Hidden}[which]
    await run(build(), which, which == 'linear')


if __name__ == '__main__':
    asyncio.run(main(*sys.argv[1:2]))
