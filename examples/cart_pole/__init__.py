"""Port of tfjs-examples' cart-pole: a policy network learns to balance a pole by REINFORCE.

Original: https://github.com/tensorflow/tfjs-examples/tree/master/cart-pole
(`cart_pole.js` -> `cart_pole.py`, `index.js` -> `index.py`; `layers.py` stands in for
`tf.sequential` and `tf.layers.dense` with `tf.variable` weights, `ui.py` for the browser UI).
Run it with `python -m examples.cart_pole`.
"""
