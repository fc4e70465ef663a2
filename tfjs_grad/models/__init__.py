"""`tf.sequential`, `tf.model`, `tf.loadLayersModel` and `tf.models.modelFromJSON`."""

from .functional import LayersModel, model
from .saving import load_layers_model, model_from_json, save_model
from .sequential import Sequential, sequential

modelFromJSON = model_from_json
loadLayersModel = load_layers_model

__all__ = [
    "LayersModel",
    "Sequential",
    "load_layers_model",
    "loadLayersModel",
    "model",
    "model_from_json",
    "modelFromJSON",
    "save_model",
    "sequential",
]


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
