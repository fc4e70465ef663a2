"""Port of snake-dqn/train.js: the training loop and its command line.

https://github.com/tensorflow/tfjs-examples/blob/master/snake-dqn/train.js

    python -m examples.snake_dqn.train [--help]

The original runs under Node with tfjs-node (`--gpu` picks tfjs-node-gpu) and can write
TensorBoard logs with `tf.node.summaryFileWriter` (`--logDir`); both are tfjs-node's and are
left out here. The online network is saved with `model.save('file://...')` as in the original.
"""

import argparse
import asyncio
import functools
import json
import math
import os
import time
from types import SimpleNamespace

import tfjs_grad as tf

from .agent import SnakeGameAgent
from .dqn import copyWeights
from .snake_game import SnakeGame


class MovingAverager:
    """The average of the last `bufferLength` appended values (a slot not yet filled
    counts as 0, as JavaScript's `null + x` does)."""

    def __init__(self, bufferLength):
        self.buffer = []
        for _ in range(bufferLength):
            self.buffer.append(None)

    def append(self, x):
        self.buffer.pop(0)
        self.buffer.append(x)

    def average(self):
        return functools.reduce(
            lambda x, prev: (x or 0) + (prev or 0), self.buffer) / len(self.buffer)


async def train(
        agent, batchSize, gamma, learningRate, cumulativeRewardThreshold,
        maxNumFrames, syncEveryFrames, savePath):
    """Train `agent` until the average cumulative reward of its last 100 games reaches
    `cumulativeRewardThreshold` or `maxNumFrames` frames are played (checked when a game
    ends); every `syncEveryFrames` frames the target network gets the online network's
    weights, and `savePath` (unless None) gets the online network at each new best."""
    for _ in range(agent.replayBufferSize):
        agent.playStep()

    # Moving averager: cumulative reward across 100 most recent 100 episodes.
    rewardAverager100 = MovingAverager(100)
    # Moving averager: fruits eaten across 100 most recent 100 episodes.
    eatenAverager100 = MovingAverager(100)

    optimizer = tf.train.adam(learningRate)
    tPrev = time.time() * 1e3
    frameCountPrev = agent.frameCount
    averageReward100Best = -math.inf
    while True:
        agent.trainOnReplayBatch(batchSize, gamma, optimizer)
        step = agent.playStep()
        cumulativeReward, done, fruitsEaten = step.cumulativeReward, step.done, step.fruitsEaten
        if done:
            t = time.time() * 1e3
            framesPerSecond = \
                (agent.frameCount - frameCountPrev) / max(t - tPrev, 1e-9) * 1e3
            tPrev = t
            frameCountPrev = agent.frameCount

            rewardAverager100.append(cumulativeReward)
            eatenAverager100.append(fruitsEaten)
            averageReward100 = rewardAverager100.average()
            averageEaten100 = eatenAverager100.average()

            print(
                f"Frame #{agent.frameCount}: "
                f"cumulativeReward100={averageReward100:.1f}; "
                f"eaten100={averageEaten100:.2f} "
                f"(epsilon={agent.epsilon:.3f}) "
                f"({framesPerSecond:.1f} frames/s)")
            if (averageReward100 >= cumulativeRewardThreshold or
                    agent.frameCount >= maxNumFrames):
                # TODO(cais): Save online network.
                break
            if averageReward100 > averageReward100Best:
                averageReward100Best = averageReward100
                if savePath is not None:
                    if not os.path.exists(savePath):
                        os.makedirs(savePath)
                    await agent.onlineNetwork.save(f"file://{savePath}")
                    print(f"Saved DQN to {savePath}")
        if agent.frameCount % syncEveryFrames == 0:
            copyWeights(agent.targetNetwork, agent.onlineNetwork)
            print('Sync\'ed weights from online network to target network')


def parseArguments(argv=None):
    """The command line's options, with the original's names and defaults."""
    parser = argparse.ArgumentParser(
        description='Training script for a DQN that plays the snake game'
    )
    parser.add_argument(
        '--height', type=int, default=9,
        help='Height of the game board.')
    parser.add_argument(
        '--width', type=int, default=9,
        help='Width of the game board.')
    parser.add_argument(
        '--numFruits', type=int, default=1,
        help='Number of fruits present on the board at any given time.')
    parser.add_argument(
        '--initLen', type=int, default=2,
        help='Initial length of the snake, in number of squares.')
    parser.add_argument(
        '--cumulativeRewardThreshold', type=float, default=100,
        help='Threshold for cumulative reward (its moving '
        'average) over the 100 latest games. Training stops as soon as this '
        'threshold is reached (or when --maxNumFrames is reached).')
    parser.add_argument(
        '--maxNumFrames', type=float, default=1e6,
        help='Maximum number of frames to run durnig the training. '
        'Training ends immediately when this frame count is reached.')
    parser.add_argument(
        '--replayBufferSize', type=int, default=int(1e4),
        help='Length of the replay memory buffer.')
    parser.add_argument(
        '--epsilonInit', type=float, default=0.5,
        help='Initial value of epsilon, used for the epsilon-greedy algorithm.')
    parser.add_argument(
        '--epsilonFinal', type=float, default=0.01,
        help='Final value of epsilon, used for the epsilon-greedy algorithm.')
    parser.add_argument(
        '--epsilonDecayFrames', type=int, default=int(1e5),
        help='Number of frames of game over which the value of epsilon '
        'decays from epsilonInit to epsilonFinal')
    parser.add_argument(
        '--batchSize', type=int, default=64,
        help='Batch size for DQN training.')
    parser.add_argument(
        '--gamma', type=float, default=0.99,
        help='Reward discount rate.')
    parser.add_argument(
        '--learningRate', type=float, default=1e-3,
        help='Learning rate for DQN training.')
    parser.add_argument(
        '--syncEveryFrames', type=int, default=int(1e3),
        help='Frequency at which weights are sync\'ed from the online network '
        'to the target network.')
    parser.add_argument(
        '--savePath', type=str, default='./models/dqn',
        help='File path to which the online DQN will be saved after training.')
    return parser.parse_args(argv)


async def main(argv=None):
    args = parseArguments(argv)
    print(f"args: {json.dumps(vars(args), indent=2)}")

    game = SnakeGame(SimpleNamespace(
        height=args.height,
        width=args.width,
        numFruits=args.numFruits,
        initLen=args.initLen
    ))
    agent = SnakeGameAgent(game, SimpleNamespace(
        replayBufferSize=args.replayBufferSize,
        epsilonInit=args.epsilonInit,
        epsilonFinal=args.epsilonFinal,
        epsilonDecayFrames=args.epsilonDecayFrames,
        learningRate=args.learningRate
    ))

    await train(
        agent, args.batchSize, args.gamma, args.learningRate,
        args.cumulativeRewardThreshold, args.maxNumFrames,
        args.syncEveryFrames, args.savePath)


if __name__ == "__main__":
    asyncio.run(main())
