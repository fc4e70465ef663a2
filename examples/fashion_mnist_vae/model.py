"""Port of fashion-mnist-vae/model.js, line by line.

https://github.com/tensorflow/tfjs-examples/blob/master/fashion-mnist-vae/model.js

This file implements the code for a multilayer perceptron based variational
autoencoder and is a port of this code
https://github.com/keras-team/keras/blob/master/examples/variational_autoencoder.py

See this tutorial for a description of how autoencoders work.
https://blog.keras.io/building-autoencoders-in-keras.html
"""

import tfjs_grad as tf


def encoder(opts):
    """The encoder portion of the model: `opts` has originalDim, intermediateDim and
    latentDim. Returns the encoder model (tf.LayersModel)."""
    originalDim, intermediateDim, latentDim = (
        opts.originalDim, opts.intermediateDim, opts.latentDim)

    inputs = tf.input({'shape': [originalDim], 'name': 'encoder_input'})
    x = (tf.layers.dense({'units': intermediateDim, 'activation': 'relu'})
                  .apply(inputs))
    zMean = tf.layers.dense({'units': latentDim, 'name': 'z_mean'}).apply(x)
    zLogVar = (
        tf.layers.dense({'units': latentDim, 'name': 'z_log_var'}).apply(x))

    z = (
        ZLayer({'name': 'z', 'outputShape': [latentDim]}).apply([zMean, zLogVar]))

    enc = tf.model({
        'inputs': inputs,
        'outputs': [zMean, zLogVar, z],
        'name': 'encoder',
    })

    # console.log('Encoder Summary');
    # enc.summary();
    return enc


class ZLayer(tf.layers.Layer):
    """This layer implements the 'reparameterization trick' described in
    https://blog.keras.io/building-autoencoders-in-keras.html.

    The implementation is in the call method.
    Instead of sampling from Q(z|X):
       sample epsilon = N(0,I)
       z = z_mean + sqrt(var) * epsilon
    """

    def __init__(self, config):
        super().__init__(config)

    def computeOutputShape(self, inputShape):
        tf.util.assert_(len(inputShape) == 2 and isinstance(inputShape[0], list),
                        lambda: f"Expected exactly 2 input shapes. But got: {inputShape}")
        return inputShape[0]

    def call(self, inputs, kwargs):
        """The actual computation performed by an instance of ZLayer: given z_mean and
        z_log_var, z_mean + sqrt(exp(z_log_var)) * epsilon, where epsilon is a random
        vector that follows the unit normal distribution (N(0, I))."""
        [zMean, zLogVar] = inputs
        batch = zMean.shape[0]
        dim = zMean.shape[1]

        mean = 0
        std = 1.0
        # sample epsilon = N(0, I)
        epsilon = tf.randomNormal([batch, dim], mean, std)

        # z = z_mean + sqrt(var) * epsilon
        return zMean.add(zLogVar.mul(0.5).exp().mul(epsilon))

    className = 'ZLayer'


tf.serialization.registerClass(ZLayer)


def decoder(opts):
    """The decoder portion of the model (opts: originalDim, intermediateDim, latentDim)."""
    originalDim, intermediateDim, latentDim = (
        opts.originalDim, opts.intermediateDim, opts.latentDim)

    # The decoder model has a linear topology and hence could be constructed
    # with `tf.sequential()`. But we use the functional-model API (i.e.,
    # `tf.model()`) here nonetheless, for consistency with the encoder model
    # (see `encoder()` above).
    input = tf.input({'shape': [latentDim]})
    y = tf.layers.dense({
        'units': intermediateDim,
        'activation': 'relu'
    }).apply(input)
    y = tf.layers.dense({
        'units': originalDim,
        'activation': 'sigmoid'
    }).apply(y)
    dec = tf.model({'inputs': input, 'outputs': y})

    # console.log('Decoder Summary');
    # dec.summary();
    return dec


def vae(encoder, decoder):
    """The combined encoder-decoder pipeline (returns the vae tf.Model)."""
    inputs = encoder.inputs
    encoderOutputs = encoder.apply(inputs)
    encoded = encoderOutputs[2]
    decoderOutput = decoder.apply(encoded)
    v = tf.model({
        'inputs': inputs,
        'outputs': [decoderOutput, *encoderOutputs],
        'name': 'vae_mlp',
    })

    # console.log('VAE Summary');
    # v.summary();
    return v


def vaeLoss(inputs, outputs, vaeOpts=None):
    """The custom loss function for VAE: `inputs` the encoder inputs (a batched image
    tensor), `outputs` the vae outputs, [decoderOutput, *encoderOutputs]."""
    def body():
        originalDim = inputs.shape[1]
        decoderOutput = outputs[0]
        zMean = outputs[1]
        zLogVar = outputs[2]

        # First we compute a 'reconstruction loss' terms. The goal of minimizing
        # this term is to make the model outputs match the input data.
        reconstructionLoss = (
            tf.losses.meanSquaredError(inputs, decoderOutput).mul(originalDim))

        # binaryCrossEntropy can be used as an alternative loss function
        # reconstructionLoss =
        #  tf.metrics.binaryCrossentropy(inputs, decoderOutput).mul(originalDim)

        # Next we compute the KL-divergence between zLogVar and zMean, minimizing
        # this term aims to make the distribution of latent variable more normally
        # distributed around the center of the latent space.
        klLoss = zLogVar.add(1).sub(zMean.square()).sub(zLogVar.exp())
        klLoss = klLoss.sum(-1).mul(-0.5)

        return reconstructionLoss.add(klLoss).mean()
    return tf.tidy(body)
