"""`tf.layers`: tfjs's layer factories, `tf.layers.<name>(config)`.

Each takes tfjs's config (a dict, keywords or both; camelCase keys, snake_case accepted)
and returns a `Layer`. snake_case names (`batch_normalization`) are aliases.

>>> import tfjs_grad as tf
>>> tf.layers.dense({"units": 3, "use_bias": False}).useBias
False
"""

from typing import TYPE_CHECKING, cast

from .advanced_activations import ELU, LeakyReLU, PReLU, ReLU, Softmax, ThresholdedReLU
from .base import InputLayer, Layer, Node, SymbolicTensor, input, layer_factory
from .convolutional import (
    Conv1D,
    Conv2D,
    Conv2DTranspose,
    Conv3D,
    DepthwiseConv2D,
    SeparableConv2D,
)
from .core import (
    Activation,
    Dense,
    Dropout,
    Flatten,
    Masking,
    Permute,
    RepeatVector,
    Rescaling,
    Reshape,
    SpatialDropout1D,
)
from .embeddings import (
    Embedding,
)
from .merge import (
    Add,
    Average,
    Concatenate,
    Dot,
    Maximum,
    Minimum,
    Multiply,
)
from .noise import AlphaDropout, GaussianDropout, GaussianNoise
from .normalization import (
    BatchNormalization,
    LayerNormalization,
)
from .padding import Cropping2D, UpSampling2D, ZeroPadding2D
from .pooling import (
    AveragePooling1D,
    AveragePooling2D,
    GlobalAveragePooling1D,
    GlobalAveragePooling2D,
    GlobalMaxPooling1D,
    GlobalMaxPooling2D,
    MaxPooling1D,
    MaxPooling2D,
)
from .recurrent import (
    GRU,
    LSTM,
    SimpleRNN,
)
from .rnn_cells import (
    RNN,
    GRUCell,
    LSTMCell,
    SimpleRNNCell,
    StackedRNNCells,
)
from .wrappers import (
    Bidirectional,
    TimeDistributed,
)

if TYPE_CHECKING:  # each factory's config keys, for type checkers (see configs.py)
    from . import configs

dense = cast("configs.DenseFactory", layer_factory(Dense))
activation = cast("configs.ActivationFactory", layer_factory(Activation))
dropout = cast("configs.DropoutFactory", layer_factory(Dropout))
spatialDropout1d = spatial_dropout1d = cast(
    "configs.SpatialDropout1DFactory", layer_factory(SpatialDropout1D)
)
flatten = cast("configs.FlattenFactory", layer_factory(Flatten))
reshape = cast("configs.ReshapeFactory", layer_factory(Reshape))
permute = cast("configs.PermuteFactory", layer_factory(Permute))
repeatVector = repeat_vector = cast("configs.RepeatVectorFactory", layer_factory(RepeatVector))
conv1d = cast("configs.Conv1DFactory", layer_factory(Conv1D))
conv2d = cast("configs.Conv2DFactory", layer_factory(Conv2D))
conv3d = cast("configs.Conv3DFactory", layer_factory(Conv3D))
conv2dTranspose = conv2d_transpose = cast(
    "configs.Conv2DTransposeFactory", layer_factory(Conv2DTranspose)
)
depthwiseConv2d = depthwise_conv2d = cast(
    "configs.DepthwiseConv2DFactory", layer_factory(DepthwiseConv2D)
)
separableConv2d = separable_conv2d = cast(
    "configs.SeparableConv2DFactory", layer_factory(SeparableConv2D)
)
maxPooling1d = max_pooling1d = cast("configs.MaxPooling1DFactory", layer_factory(MaxPooling1D))
maxPooling2d = max_pooling2d = cast("configs.MaxPooling2DFactory", layer_factory(MaxPooling2D))
averagePooling1d = average_pooling1d = cast(
    "configs.AveragePooling1DFactory", layer_factory(AveragePooling1D)
)
averagePooling2d = average_pooling2d = cast(
    "configs.AveragePooling2DFactory", layer_factory(AveragePooling2D)
)
globalAveragePooling1d = global_average_pooling1d = cast(
    "configs.GlobalAveragePooling1DFactory", layer_factory(GlobalAveragePooling1D)
)
globalAveragePooling2d = global_average_pooling2d = cast(
    "configs.GlobalAveragePooling2DFactory", layer_factory(GlobalAveragePooling2D)
)
globalMaxPooling1d = global_max_pooling1d = cast(
    "configs.GlobalMaxPooling1DFactory", layer_factory(GlobalMaxPooling1D)
)
globalMaxPooling2d = global_max_pooling2d = cast(
    "configs.GlobalMaxPooling2DFactory", layer_factory(GlobalMaxPooling2D)
)
batchNormalization = batch_normalization = cast(
    "configs.BatchNormalizationFactory", layer_factory(BatchNormalization)
)
layerNormalization = layer_normalization = cast(
    "configs.LayerNormalizationFactory", layer_factory(LayerNormalization)
)
embedding = cast("configs.EmbeddingFactory", layer_factory(Embedding))
simpleRNN = simple_rnn = cast("configs.SimpleRNNFactory", layer_factory(SimpleRNN))
lstm = cast("configs.LSTMFactory", layer_factory(LSTM))
gru = cast("configs.GRUFactory", layer_factory(GRU))
rnn = cast("configs.RNNFactory", layer_factory(RNN))
simpleRNNCell = simple_rnn_cell = cast("configs.SimpleRNNCellFactory", layer_factory(SimpleRNNCell))
lstmCell = lstm_cell = cast("configs.LSTMCellFactory", layer_factory(LSTMCell))
gruCell = gru_cell = cast("configs.GRUCellFactory", layer_factory(GRUCell))
stackedRNNCells = stacked_rnn_cells = cast(
    "configs.StackedRNNCellsFactory", layer_factory(StackedRNNCells)
)
bidirectional = cast("configs.BidirectionalFactory", layer_factory(Bidirectional))
timeDistributed = time_distributed = cast(
    "configs.TimeDistributedFactory", layer_factory(TimeDistributed)
)
concatenate = cast("configs.ConcatenateFactory", layer_factory(Concatenate))
add = cast("configs.AddFactory", layer_factory(Add))
multiply = cast("configs.MultiplyFactory", layer_factory(Multiply))
average = cast("configs.AverageFactory", layer_factory(Average))
maximum = cast("configs.MaximumFactory", layer_factory(Maximum))
minimum = cast("configs.MinimumFactory", layer_factory(Minimum))
inputLayer = input_layer = cast("configs.InputLayerFactory", layer_factory(InputLayer))
maxPool1d = max_pool1d = maxPooling1d
maxPool2d = max_pool2d = maxPooling2d
avgPool1d = avg_pool1d = averagePooling1d
avgPool2d = avg_pool2d = averagePooling2d
avgPooling1d = avg_pooling1d = averagePooling1d
avgPooling2d = avg_pooling2d = averagePooling2d
globalMaxPool1d = global_max_pool1d = globalMaxPooling1d
globalMaxPool2d = global_max_pool2d = globalMaxPooling2d


# advanced activations, noise, padding, masking (tfjs's names)
reLU = re_lu = cast("configs.ReLUFactory", layer_factory(ReLU))
leakyReLU = leaky_re_lu = cast("configs.LeakyReLUFactory", layer_factory(LeakyReLU))
prelu = cast("configs.PReLUFactory", layer_factory(PReLU))
elu = cast("configs.ELUFactory", layer_factory(ELU))
thresholdedReLU = thresholded_re_lu = cast(
    "configs.ThresholdedReLUFactory", layer_factory(ThresholdedReLU)
)
softmax = cast("configs.SoftmaxFactory", layer_factory(Softmax))
gaussianNoise = gaussian_noise = cast("configs.GaussianNoiseFactory", layer_factory(GaussianNoise))
gaussianDropout = gaussian_dropout = cast(
    "configs.GaussianDropoutFactory", layer_factory(GaussianDropout)
)
alphaDropout = alpha_dropout = cast("configs.AlphaDropoutFactory", layer_factory(AlphaDropout))
zeroPadding2d = zero_padding2d = cast("configs.ZeroPadding2DFactory", layer_factory(ZeroPadding2D))
cropping2D = cropping2d = cast("configs.Cropping2DFactory", layer_factory(Cropping2D))
upSampling2d = up_sampling2d = cast("configs.UpSampling2DFactory", layer_factory(UpSampling2D))
masking = cast("configs.MaskingFactory", layer_factory(Masking))
rescaling = cast("configs.RescalingFactory", layer_factory(Rescaling))
dot = cast("configs.DotFactory", layer_factory(Dot))

__all__ = [
    "Activation",
    "Add",
    "AlphaDropout",
    "Average",
    "AveragePooling1D",
    "AveragePooling2D",
    "BatchNormalization",
    "Bidirectional",
    "Concatenate",
    "Conv1D",
    "Conv2D",
    "Conv2DTranspose",
    "Conv3D",
    "Cropping2D",
    "Dense",
    "DepthwiseConv2D",
    "Dot",
    "Dropout",
    "ELU",
    "Embedding",
    "Flatten",
    "GRU",
    "GRUCell",
    "GaussianDropout",
    "GaussianNoise",
    "GlobalAveragePooling1D",
    "GlobalAveragePooling2D",
    "GlobalMaxPooling1D",
    "GlobalMaxPooling2D",
    "InputLayer",
    "LSTM",
    "LSTMCell",
    "Layer",
    "LayerNormalization",
    "LeakyReLU",
    "Masking",
    "MaxPooling1D",
    "MaxPooling2D",
    "Maximum",
    "Minimum",
    "Multiply",
    "Node",
    "PReLU",
    "Permute",
    "RNN",
    "ReLU",
    "RepeatVector",
    "Rescaling",
    "Reshape",
    "SeparableConv2D",
    "SimpleRNN",
    "SimpleRNNCell",
    "Softmax",
    "SpatialDropout1D",
    "StackedRNNCells",
    "SymbolicTensor",
    "ThresholdedReLU",
    "TimeDistributed",
    "UpSampling2D",
    "ZeroPadding2D",
    "activation",
    "add",
    "alphaDropout",
    "alpha_dropout",
    "average",
    "averagePooling1d",
    "averagePooling2d",
    "average_pooling1d",
    "average_pooling2d",
    "avgPool1d",
    "avgPool2d",
    "avgPooling1d",
    "avgPooling2d",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pooling1d",
    "avg_pooling2d",
    "batchNormalization",
    "batch_normalization",
    "bidirectional",
    "concatenate",
    "conv1d",
    "conv2d",
    "conv2dTranspose",
    "conv2d_transpose",
    "conv3d",
    "cropping2D",
    "cropping2d",
    "dense",
    "depthwiseConv2d",
    "depthwise_conv2d",
    "dot",
    "dropout",
    "elu",
    "embedding",
    "flatten",
    "gaussianDropout",
    "gaussianNoise",
    "gaussian_dropout",
    "gaussian_noise",
    "globalAveragePooling1d",
    "globalAveragePooling2d",
    "globalMaxPool1d",
    "globalMaxPool2d",
    "globalMaxPooling1d",
    "globalMaxPooling2d",
    "global_average_pooling1d",
    "global_average_pooling2d",
    "global_max_pool1d",
    "global_max_pool2d",
    "global_max_pooling1d",
    "global_max_pooling2d",
    "gru",
    "gruCell",
    "gru_cell",
    "input",
    "inputLayer",
    "input_layer",
    "layerNormalization",
    "layer_normalization",
    "leakyReLU",
    "leaky_re_lu",
    "lstm",
    "lstmCell",
    "lstm_cell",
    "masking",
    "maxPool1d",
    "maxPool2d",
    "maxPooling1d",
    "maxPooling2d",
    "max_pool1d",
    "max_pool2d",
    "max_pooling1d",
    "max_pooling2d",
    "maximum",
    "minimum",
    "multiply",
    "permute",
    "prelu",
    "reLU",
    "re_lu",
    "repeatVector",
    "repeat_vector",
    "rescaling",
    "reshape",
    "rnn",
    "separableConv2d",
    "separable_conv2d",
    "simpleRNN",
    "simpleRNNCell",
    "simple_rnn",
    "simple_rnn_cell",
    "softmax",
    "spatialDropout1d",
    "spatial_dropout1d",
    "stackedRNNCells",
    "stacked_rnn_cells",
    "thresholdedReLU",
    "thresholded_re_lu",
    "timeDistributed",
    "time_distributed",
    "upSampling2d",
    "up_sampling2d",
    "zeroPadding2d",
    "zero_padding2d",
]


def __dir__() -> list[str]:  # the public names only, not the module's imports
    return sorted(__all__)
