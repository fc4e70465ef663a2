"""Port of fashion-mnist-vae/data.js, with synthetic images instead of the dataset file.

https://github.com/tensorflow/tfjs-examples/blob/master/fashion-mnist-vae/data.js

The original reads Fashion-MNIST's `train-images-idx3-ubyte` (60000 images of 28x28 bytes)
and previews images in the terminal with jimp and terminal-image. This port keeps the
constants and `batchImages`; `loadImages` makes `NUM_IMAGES` images of seeded mulberry32
pixels in [0, 1) (the generator tests/reference/gen_fashion_mnist_vae.js uses) and shuffles
them with `tf.util.shuffle` as the original does; `previewImage` prints the image as
characters.
"""

import numpy as np

import tfjs_grad as tf

from ..boston_housing.data import mulberry32

DATASET_PATH = './dataset'
TRAIN_IMAGES_FILE = 'train-images-idx3-ubyte'
IMAGE_HEADER_MAGIC_NUM = 2051
IMAGE_HEADER_BYTES = 16
IMAGE_HEIGHT = 28
IMAGE_WIDTH = 28
IMAGE_CHANNELS = 1
IMAGE_FLAT_SIZE = IMAGE_HEIGHT * IMAGE_WIDTH * IMAGE_CHANNELS
NUM_IMAGES = 1000  # the synthetic stand-in's size


async def loadImages(filepath, seed=2019):
    """Stands in for reading the images file at `filepath`: NUM_IMAGES images of
    IMAGE_HEIGHT * IMAGE_WIDTH pixels in [0, 1), shuffled. Returns a list of float32 arrays."""
    draw = mulberry32(seed)
    recordBytes = IMAGE_HEIGHT * IMAGE_WIDTH

    images = []
    for _ in range(NUM_IMAGES):
        array = np.zeros(recordBytes, np.float32)
        for i in range(recordBytes):
            array[i] = draw()
        images.append(array)

    tf.util.shuffle(images)
    return images


def batchImages(imagesData):
    """Take an array of images (represented as typedarrays) and return
    a tensor representing them (Tensor3d)."""
    numImages = len(imagesData)
    flat = []
    for i in range(numImages):
        image = imagesData[i]
        for j in range(len(image)):
            flat.append(image[j])

    batchedTensor = (
        tf.tensor3d(flat, [numImages, IMAGE_WIDTH, IMAGE_HEIGHT], 'float32'))

    return batchedTensor


async def previewImage(imageData):
    """Preview an image on the console (as characters, darkest to lightest)."""
    shades = ' .:-=+*#%@'
    for i in range(IMAGE_HEIGHT):
        row = imageData[i * IMAGE_WIDTH:(i + 1) * IMAGE_WIDTH]
        print(''.join(shades[min(int(v * len(shades)), len(shades) - 1)] for v in row))
