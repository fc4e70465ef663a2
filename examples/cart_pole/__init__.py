"""Port of tfjs-examples' cart-pole: a policy network learns to balance a pole by REINFORCE.

Original: https://github.com/tensorflow/tfjs-examples/tree/master/cart-pole
(`cart_pole.js` -> `cart_pole.py`, `index.js` -> `index.py`, with `tf.sequential` and
`tf.layers.dense` as in tfjs; `ui.py` stands in for the browser UI).
Run it with `python -m examples.cart_pole`.
"""
