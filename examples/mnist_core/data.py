"""Port of mnist-core/data.js: a data set of 28x28 grayscale images with one-hot labels, served
in batches through shuffled indices.

https://github.com/tensorflow/tfjs-examples/blob/master/mnist-core/data.js

The original downloads MNIST as a PNG sprite and decodes it in a canvas; this port reads the
same pixels as raw bytes (`MNIST_IMAGES_SPRITE_PATH`: one byte per pixel, 784 per image;
`MNIST_LABELS_PATH`: ten one-hot bytes per image). By default these are the 300 synthetic
images with MNIST's shapes that tests/reference/gen_mnist_core.js writes; MNIST converted to
the same two files trains the same way, with `NUM_DATASET_ELEMENTS` edited to 65000.
"""

import math
from pathlib import Path
from types import SimpleNamespace

import numpy as np

import tfjs_grad as tf

IMAGE_SIZE = 784
NUM_CLASSES = 10
NUM_DATASET_ELEMENTS = 300

TRAIN_TEST_RATIO = 5 / 6

NUM_TRAIN_ELEMENTS = math.floor(TRAIN_TEST_RATIO * NUM_DATASET_ELEMENTS)
NUM_TEST_ELEMENTS = NUM_DATASET_ELEMENTS - NUM_TRAIN_ELEMENTS

_DATA_DIR = Path(__file__).resolve().parents[2] / 'tests' / 'reference' / 'mnist_core'
MNIST_IMAGES_SPRITE_PATH = _DATA_DIR / 'images.u8'
MNIST_LABELS_PATH = _DATA_DIR / 'labels.u8'


class MnistData:
    """Loads the data set, then hands out shuffled training and test batches."""

    def __init__(self):
        self.shuffledTrainIndex = 0
        self.shuffledTestIndex = 0

    async def load(self):
        """Read the images and labels, and draw the shuffled order of each split."""
        pixels = np.fromfile(MNIST_IMAGES_SPRITE_PATH, np.uint8, NUM_DATASET_ELEMENTS * IMAGE_SIZE)
        self.datasetImages = (pixels / 255).astype(np.float32)

        self.datasetLabels = np.fromfile(
            MNIST_LABELS_PATH, np.uint8, NUM_DATASET_ELEMENTS * NUM_CLASSES)

        self.trainIndices = tf.util.createShuffledIndices(NUM_TRAIN_ELEMENTS)
        self.testIndices = tf.util.createShuffledIndices(NUM_TEST_ELEMENTS)

        self.trainImages = self.datasetImages[0:IMAGE_SIZE * NUM_TRAIN_ELEMENTS]
        self.testImages = self.datasetImages[IMAGE_SIZE * NUM_TRAIN_ELEMENTS:]
        self.trainLabels = self.datasetLabels[0:NUM_CLASSES * NUM_TRAIN_ELEMENTS]
        self.testLabels = self.datasetLabels[NUM_CLASSES * NUM_TRAIN_ELEMENTS:]

    def nextTrainBatch(self, batchSize):
        """The next `batchSize` training examples in shuffled order (wrapping around)."""

        def index():
            self.shuffledTrainIndex = (self.shuffledTrainIndex + 1) % len(self.trainIndices)
            return self.trainIndices[self.shuffledTrainIndex]
        return self.nextBatch(
            batchSize, [self.trainImages, self.trainLabels], index)

    def nextTestBatch(self, batchSize):
        """The next `batchSize` test examples in shuffled order (wrapping around)."""

        def index():
            self.shuffledTestIndex = (self.shuffledTestIndex + 1) % len(self.testIndices)
            return self.testIndices[self.shuffledTestIndex]
        return self.nextBatch(batchSize, [self.testImages, self.testLabels], index)

    def nextBatch(self, batchSize, data, index):
        """`.xs` (float32 `[batchSize, 784]`) and `.labels` (int32 `[batchSize, 10]`) of the
        examples that `index()` picks from `data` (images, labels)."""
        batchImagesArray = np.zeros(batchSize * IMAGE_SIZE, np.float32)
        batchLabelsArray = np.zeros(batchSize * NUM_CLASSES, np.uint8)

        for i in range(batchSize):
            idx = int(index())

            image = data[0][idx * IMAGE_SIZE:idx * IMAGE_SIZE + IMAGE_SIZE]
            batchImagesArray[i * IMAGE_SIZE:(i + 1) * IMAGE_SIZE] = image

            label = data[1][idx * NUM_CLASSES:idx * NUM_CLASSES + NUM_CLASSES]
            batchLabelsArray[i * NUM_CLASSES:(i + 1) * NUM_CLASSES] = label

        xs = tf.tensor2d(batchImagesArray, [batchSize, IMAGE_SIZE])
        labels = tf.tensor2d(batchLabelsArray, [batchSize, NUM_CLASSES])

        return SimpleNamespace(xs=xs, labels=labels)
