"""Port of snake-dqn/replay_memory.js: the replay buffer of DQN training.

https://github.com/tensorflow/tfjs-examples/blob/master/snake-dqn/replay_memory.js

>>> from examples.snake_dqn.replay_memory import ReplayMemory
>>> memory = ReplayMemory(3)
>>> for item in 'abcd':
...     memory.append(item)
>>> memory.length, sorted(memory.sample(3))
(3, ['b', 'c', 'd'])
"""

import tfjs_grad as tf


class ReplayMemory:
    """A ring buffer of at most `maxLen` items, sampled without replacement."""

    def __init__(self, maxLen):
        self.maxLen = maxLen
        self.buffer = []
        for _ in range(maxLen):
            self.buffer.append(None)
        self.index = 0
        self.length = 0

        self.bufferIndices_ = []
        for i in range(maxLen):
            self.bufferIndices_.append(i)

    def append(self, item):
        """Append an item to the replay buffer, overwriting the oldest one when full."""
        self.buffer[self.index] = item
        self.length = min(self.length + 1, self.maxLen)
        self.index = (self.index + 1) % self.maxLen

    def sample(self, batchSize):
        """`batchSize` items sampled without replacement (`tf.util.shuffle` of the indices)."""
        if batchSize > self.maxLen:
            raise ValueError(
                f"batchSize ({batchSize}) exceeds buffer length ({self.maxLen})")
        tf.util.shuffle(self.bufferIndices_)

        out = []
        for i in range(batchSize):
            out.append(self.buffer[self.bufferIndices_[i]])
        return out
