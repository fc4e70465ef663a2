"""Port of snake-dqn/agent.js: the agent that plays the game and trains its deep-Q network.

https://github.com/tensorflow/tfjs-examples/blob/master/snake-dqn/agent.js

It acts epsilon-greedily on the online network's Q values, stores every step in its replay
memory, and trains the online network on replayed batches towards the targets
`reward + gamma * max Q` that the target network (frozen: `trainable = False`) gives for
the next state. `train.py` refreshes the target from the online network with `dqn.copyWeights`.
"""

import random
from types import SimpleNamespace

import tfjs_grad as tf

from .dqn import createDeepQNetwork
from .replay_memory import ReplayMemory
from .snake_game import ALL_ACTIONS, NUM_ACTIONS, getRandomAction, getStateTensor
from .utils import assertPositiveInteger


class SnakeGameAgent:
    """Plays `game` and learns from it.

    `config` (a SimpleNamespace) gives `replayBufferSize`, `epsilonInit`, `epsilonFinal`,
    `epsilonDecayFrames` (the frames over which epsilon falls linearly from `epsilonInit`
    to `epsilonFinal`) and `learningRate`.
    """

    def __init__(self, game, config):
        assertPositiveInteger(config.epsilonDecayFrames)

        self.game = game

        self.epsilonInit = config.epsilonInit
        self.epsilonFinal = config.epsilonFinal
        self.epsilonDecayFrames = config.epsilonDecayFrames
        self.epsilonIncrement_ = (self.epsilonFinal - self.epsilonInit) / \
            self.epsilonDecayFrames

        self.onlineNetwork = \
            createDeepQNetwork(game.height, game.width, NUM_ACTIONS)
        self.targetNetwork = \
            createDeepQNetwork(game.height, game.width, NUM_ACTIONS)
        # Only copyWeights changes the target network's weights.
        self.targetNetwork.trainable = False

        self.optimizer = tf.train.adam(config.learningRate)

        self.replayBufferSize = config.replayBufferSize
        self.replayMemory = ReplayMemory(config.replayBufferSize)
        self.frameCount = 0
        self.reset()

    def reset(self):
        self.cumulativeReward_ = 0
        self.fruitsEaten_ = 0
        self.game.reset()

    def playStep(self):
        """Play one step of the game; returns a SimpleNamespace with `action`,
        `cumulativeReward`, `done` and `fruitsEaten` (the game restarts when done)."""
        self.epsilon = self.epsilonFinal if self.frameCount >= self.epsilonDecayFrames else \
            self.epsilonInit + self.epsilonIncrement_ * self.frameCount
        self.frameCount += 1

        # The epsilon-greedy algorithm.
        action = None
        state = self.game.getState()
        if random.random() < self.epsilon:
            # Pick an action at random.
            action = getRandomAction()
        else:
            # Greedily pick an action based on online DQN output.
            def greedyAction():
                nonlocal action
                stateTensor = \
                    getStateTensor(state, self.game.height, self.game.width)
                action = ALL_ACTIONS[
                    self.onlineNetwork.predict(stateTensor).argMax(-1).dataSync()[0]]
            tf.tidy(greedyAction)

        step = self.game.step(action)
        nextState, reward, done, fruitEaten = step.state, step.reward, step.done, step.fruitEaten

        self.replayMemory.append([state, action, reward, done, nextState])

        self.cumulativeReward_ += reward
        if fruitEaten:
            self.fruitsEaten_ += 1
        output = SimpleNamespace(
            action=action,
            cumulativeReward=self.cumulativeReward_,
            done=done,
            fruitsEaten=self.fruitsEaten_
        )
        if done:
            self.reset()
        return output

    def trainOnReplayBatch(self, batchSize, gamma, optimizer):
        """One step of `optimizer` on the mean squared error between the online network's
        Q values of a replayed batch's actions and their targets."""
        # Get a batch of examples from the replay buffer.
        batch = self.replayMemory.sample(batchSize)

        def lossFunction():
            def lossOfBatch():
                stateTensor = getStateTensor(
                    [example[0] for example in batch], self.game.height, self.game.width)
                actionTensor = tf.tensor1d(
                    [example[1] for example in batch], 'int32')
                qs = self.onlineNetwork.apply(stateTensor, {'training': True}) \
                    .mul(tf.oneHot(actionTensor, NUM_ACTIONS)).sum(-1)

                rewardTensor = tf.tensor1d([example[2] for example in batch])
                nextStateTensor = getStateTensor(
                    [example[4] for example in batch], self.game.height, self.game.width)
                nextMaxQTensor = \
                    self.targetNetwork.predict(nextStateTensor).max(-1)
                doneMask = tf.scalar(1).sub(
                    tf.tensor1d([example[3] for example in batch]).asType('float32'))
                targetQs = \
                    rewardTensor.add(nextMaxQTensor.mul(doneMask).mul(gamma))
                return tf.losses.meanSquaredError(targetQs, qs)
            return tf.tidy(lossOfBatch)

        # The gradients of the loss with respect to the online network's weights
        # (the target network's are not trainable).
        grads = tf.variableGrads(lossFunction)
        optimizer.applyGradients(grads.grads)
        tf.dispose(grads)
