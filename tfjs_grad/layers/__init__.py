"""`tf.layers`: tfjs's layer factories, `tf.layers.<name>(config)`.

Each takes tfjs's config (a dict, keywords or both; camelCase keys, snake_case accepted)
and returns a `Layer`. snake_case names (`batch_normalization`) are aliases.

>>> import tfjs_grad as tf
>>> tf.layers.dense({"units": 3, "use_bias": False}).useBias
False
"""

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

dense = layer_factory(Dense)
activation = layer_factory(Activation)
dropout = layer_factory(Dropout)
spatialDropout1d = spatial_dropout1d = layer_factory(SpatialDropout1D)
flatten = layer_factory(Flatten)
reshape = layer_factory(Reshape)
permute = layer_factory(Permute)
repeatVector = repeat_vector = layer_factory(RepeatVector)
conv1d = layer_factory(Conv1D)
conv2d = layer_factory(Conv2D)
conv3d = layer_factory(Conv3D)
conv2dTranspose = conv2d_transpose = layer_factory(Conv2DTranspose)
depthwiseConv2d = depthwise_conv2d = layer_factory(DepthwiseConv2D)
separableConv2d = separable_conv2d = layer_factory(SeparableConv2D)
maxPooling1d = max_pooling1d = layer_factory(MaxPooling1D)
maxPooling2d = max_pooling2d = layer_factory(MaxPooling2D)
averagePooling1d = average_pooling1d = layer_factory(AveragePooling1D)
averagePooling2d = average_pooling2d = layer_factory(AveragePooling2D)
globalAveragePooling1d = global_average_pooling1d = layer_factory(GlobalAveragePooling1D)
globalAveragePooling2d = global_average_pooling2d = layer_factory(GlobalAveragePooling2D)
globalMaxPooling1d = global_max_pooling1d = layer_factory(GlobalMaxPooling1D)
globalMaxPooling2d = global_max_pooling2d = layer_factory(GlobalMaxPooling2D)
batchNormalization = batch_normalization = layer_factory(BatchNormalization)
layerNormalization = layer_normalization = layer_factory(LayerNormalization)
embedding = layer_factory(Embedding)
simpleRNN = simple_rnn = layer_factory(SimpleRNN)
lstm = layer_factory(LSTM)
gru = layer_factory(GRU)
rnn = layer_factory(RNN)
simpleRNNCell = simple_rnn_cell = layer_factory(SimpleRNNCell)
lstmCell = lstm_cell = layer_factory(LSTMCell)
gruCell = gru_cell = layer_factory(GRUCell)
stackedRNNCells = stacked_rnn_cells = layer_factory(StackedRNNCells)
bidirectional = layer_factory(Bidirectional)
timeDistributed = time_distributed = layer_factory(TimeDistributed)
concatenate = layer_factory(Concatenate)
add = layer_factory(Add)
multiply = layer_factory(Multiply)
average = layer_factory(Average)
maximum = layer_factory(Maximum)
minimum = layer_factory(Minimum)
inputLayer = input_layer = layer_factory(InputLayer)
maxPool1d = max_pool1d = maxPooling1d
maxPool2d = max_pool2d = maxPooling2d
avgPool1d = avg_pool1d = averagePooling1d
avgPool2d = avg_pool2d = averagePooling2d
avgPooling1d = avg_pooling1d = averagePooling1d
avgPooling2d = avg_pooling2d = averagePooling2d
globalMaxPool1d = global_max_pool1d = globalMaxPooling1d
globalMaxPool2d = global_max_pool2d = globalMaxPooling2d


# advanced activations, noise, padding, masking (tfjs's names)
reLU = re_lu = layer_factory(ReLU)
leakyReLU = leaky_re_lu = layer_factory(LeakyReLU)
prelu = layer_factory(PReLU)
elu = layer_factory(ELU)
thresholdedReLU = thresholded_re_lu = layer_factory(ThresholdedReLU)
softmax = layer_factory(Softmax)
gaussianNoise = gaussian_noise = layer_factory(GaussianNoise)
gaussianDropout = gaussian_dropout = layer_factory(GaussianDropout)
alphaDropout = alpha_dropout = layer_factory(AlphaDropout)
zeroPadding2d = zero_padding2d = layer_factory(ZeroPadding2D)
cropping2D = cropping2d = layer_factory(Cropping2D)
upSampling2d = up_sampling2d = layer_factory(UpSampling2D)
masking = layer_factory(Masking)
rescaling = layer_factory(Rescaling)
dot = layer_factory(Dot)

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
