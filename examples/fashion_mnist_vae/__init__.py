"""Port of tfjs-examples/fashion-mnist-vae: a variational autoencoder with a custom sampling
layer and a custom loss, trained with optimizer.minimize."""
