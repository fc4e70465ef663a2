"""Port of tfjs-examples' mnist-core: a small convolutional network trained with tfjs ops.

Original: https://github.com/tensorflow/tfjs-examples/tree/master/mnist-core
(`data.js` -> `data.py`, `model.js` -> `model.py`, `index.js` -> `index.py`; `ui.py` stands in
for the browser UI). Run it with `python -m examples.mnist_core.index`.
"""
