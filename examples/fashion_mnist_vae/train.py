"""Port of fashion-mnist-vae/train.js: the training loop and its command line.

https://github.com/tensorflow/tfjs-examples/blob/master/fashion-mnist-vae/train.js

    python -m examples.fashion_mnist_vae.train --epochs 2 --batchSize 64 --savePath /tmp/vae

The original runs under Node with tfjs-node (`--gpu` picks tfjs-node-gpu, left out here).
The VAE's loss is custom, so it trains with `optimizer.minimize` over batches made with
lodash's `_.chunk` (a slicing comprehension here). `--logDir` writes TensorBoard logs with
`tf.node.summaryFileWriter` as in the original.
"""

import argparse
import asyncio
import os
import sys
from types import SimpleNamespace

import tfjs_grad as tf

from .data import DATASET_PATH, IMAGE_FLAT_SIZE, TRAIN_IMAGES_FILE, batchImages, loadImages, previewImage
from .model import decoder, encoder, vae, vaeLoss

epochs = None
batchSize = None

INTERMEDIATE_DIM = 512
LATENT_DIM = 2


async def train(images, vaeOpts, savePath, logDir):
    """Train the auto encoder on `images` (flattened images); vaeOpts has originalDim,
    intermediateDim and latentDim. The decoder is saved to `savePath` after training; if
    `logDir` is given, the batch-by-batch loss values are logged there for TensorBoard."""
    encoderModel = encoder(vaeOpts)
    decoderModel = decoder(vaeOpts)
    vaeModel = vae(encoderModel, decoderModel)

    summaryWriter = None
    if logDir is not None:
        print(f"Logging loss values to {logDir}.")
        print(
            f"Use the following command to start the tensorboard backend server:")
        print(f"  tensorboard --logdir {logDir}")
        summaryWriter = tf.node.summaryFileWriter(logDir)

    print('\n** Train Model **\n')

    # Because we use a custom loss function, we will use optimizer.minimize
    # instead of the more typical model.fit. We thus need to define an optimizer
    # and manage batching the data ourselves.

    # Create the optimizer
    optimizer = tf.train.adam()

    # Group the data into batches.
    batches = [images[k:k + batchSize] for k in range(0, len(images), batchSize)]

    # Run the train loop.
    step = 0
    for i in range(epochs):
        print(f"\nEpoch #{i + 1} of {epochs}\n")
        for j in range(len(batches)):
            currentBatchSize = len(batches[j])
            batchedImages = batchImages(batches[j])

            reshaped = (
                batchedImages.reshape([currentBatchSize, vaeOpts.originalDim]))

            # This is the model optimization step. We make a prediction
            # compute loss and return it so that optimizer.minimize can
            # adjust the weights of the model.
            def f():
                nonlocal step
                outputs = vaeModel.apply(reshaped)
                loss = vaeLoss(reshaped, outputs, vaeOpts)
                sys.stdout.write('.')
                if j % 50 == 0:
                    print('\nLoss:', loss.dataSync()[0])
                if summaryWriter is not None:
                    summaryWriter.scalar('loss', loss, step)
                    step += 1

                return loss
            optimizer.minimize(f)
            tf.dispose([batchedImages, reshaped])
        print('')
        # Generate a preview after each epoch
        await generate(decoderModel, vaeOpts.latentDim)

    print('done training')
    await saveDecoder(savePath, decoderModel)


async def generate(decoderModel, latentDimSize):
    """Generate an image from the decoder (tf.LayersModel) and preview it on the console."""
    targetZ = tf.zeros([latentDimSize]).expandDims()
    generated = (decoderModel.predict(targetZ))

    await previewImage(generated.dataSync())
    tf.dispose([targetZ, generated])


async def saveDecoder(savePath, decoderModel):
    decoderPath = os.path.join(savePath, 'decoder')
    os.makedirs(decoderPath, exist_ok=True)
    saveURL = f"file://{decoderPath}"
    print(f"Saving decoder to {saveURL}")
    await decoderModel.save(saveURL)


async def run(savePath, logDir):
    # Load the data
    dataPath = os.path.join(DATASET_PATH, TRAIN_IMAGES_FILE)
    images = await loadImages(dataPath)
    print('Data Loaded', len(images))
    await previewImage(images[5])
    await previewImage(images[50])
    await previewImage(images[500])
    # Start the training.
    vaeOpts = SimpleNamespace(
        originalDim=IMAGE_FLAT_SIZE,
        intermediateDim=INTERMEDIATE_DIM,
        latentDim=LATENT_DIM
    )
    await train(images, vaeOpts, savePath, logDir)


async def main():
    global epochs, batchSize
    parser = argparse.ArgumentParser()
    parser.add_argument('--epochs', type=int, default=100,
                        help='Number of epochs to train the model for')
    parser.add_argument('--batchSize', type=int, default=256,
                        help='Batch size to be used during model training')
    parser.add_argument('--logDir', type=str,
                        help='Directory to which the TensorBoard summaries will be saved '
                             'during training.')
    parser.add_argument('--savePath', type=str, default='./models',
                        help='Directory to which the decoder part of the VAE model will '
                             'be saved after training. If the directory does not exist, it will be '
                             'created.')

    args = parser.parse_args()
    epochs = args.epochs
    batchSize = args.batchSize

    await run(args.savePath, args.logDir)


if __name__ == '__main__':
    asyncio.run(main())
