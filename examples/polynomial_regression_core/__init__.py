"""Port of tfjs-examples' polynomial-regression-core: a cubic fitted with four scalar Variables.

Original: https://github.com/tensorflow/tfjs-examples/tree/master/polynomial-regression-core
(`data.js` -> `data.py`, `index.js` -> `index.py`; `ui.py` stands in for the browser UI).
Run it with `python -m examples.polynomial_regression_core.index`.
"""
