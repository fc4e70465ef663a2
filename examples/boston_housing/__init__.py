"""Port of tfjs-examples/boston-housing: linear and MLP regression trained with model.fit."""
