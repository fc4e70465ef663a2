"""Terminal stand-ins for the browser UI (ui.js) that polynomial-regression-core imports.

The original draws plots in a web page; these print one line each, so that index.py keeps the
original's calls.
"""

import numpy as np


def renderCoefficients(container, coeff):
    """Print the four coefficients under the heading `container`."""
    values = ", ".join(f"{name}={float(getattr(coeff, name)):.4f}" for name in "abcd")
    print(f"{container}: {values}")


async def plotData(container, xs, ys):
    """Describe the data set that the page would plot."""
    print(f"{container}: {np.size(xs)} points, y in [{np.min(ys):.3f}, {np.max(ys):.3f}]")


async def plotDataAndPredictions(container, xs, ys, preds):
    """Describe how far the predictions that the page would plot are from the data."""
    error = float(np.mean((np.asarray(preds) - np.asarray(ys)) ** 2))
    print(f"{container}: mean squared error of the predictions {error:.5f}")
