"""Port of snake-dqn/snake_game.js: the game, its actions and rewards, and its state as a tensor.

https://github.com/tensorflow/tfjs-examples/blob/master/snake-dqn/snake_game.js

>>> from types import SimpleNamespace
>>> from examples.snake_dqn.snake_game import SnakeGame, getStateTensor
>>> game = SnakeGame(SimpleNamespace(height=9, width=9, numFruits=1, initLen=2))
>>> getStateTensor(game.getState(), game.height, game.width).shape
(1, 9, 9, 2)
"""

from types import SimpleNamespace

import tfjs_grad as tf

from .utils import assertPositiveInteger, getRandomInteger

DEFAULT_HEIGHT = 16
DEFAULT_WIDTH = 16
DEFAULT_NUM_FRUITS = 1
DEFAULT_INIT_LEN = 4

NO_FRUIT_REWARD = -0.2
FRUIT_REWARD = 10
DEATH_REWARD = -10

ACTION_GO_STRAIGHT = 0
ACTION_TURN_LEFT = 1
ACTION_TURN_RIGHT = 2

ALL_ACTIONS = [ACTION_GO_STRAIGHT, ACTION_TURN_LEFT, ACTION_TURN_RIGHT]
NUM_ACTIONS = len(ALL_ACTIONS)


def getRandomAction():
    """A random action among all possible actions: 0, 1 or 2."""
    return getRandomInteger(0, NUM_ACTIONS)


class SnakeGame:
    """The snake on a `height` x `width` board with `numFruits` fruits.

    `args` (a SimpleNamespace, or None for the defaults) may give `height`, `width`,
    `numFruits` and `initLen` (the snake's initial length).
    """

    def __init__(self, args=None):
        if args is None:
            args = SimpleNamespace()
        if getattr(args, 'height', None) is None:
            args.height = DEFAULT_HEIGHT
        if getattr(args, 'width', None) is None:
            args.width = DEFAULT_WIDTH
        if getattr(args, 'numFruits', None) is None:
            args.numFruits = DEFAULT_NUM_FRUITS
        if getattr(args, 'initLen', None) is None:
            args.initLen = DEFAULT_INIT_LEN

        assertPositiveInteger(args.height, 'height')
        assertPositiveInteger(args.width, 'width')
        assertPositiveInteger(args.numFruits, 'numFruits')
        assertPositiveInteger(args.initLen, 'initLen')

        self.height_ = args.height
        self.width_ = args.width
        self.numFruits_ = args.numFruits
        self.initLen_ = args.initLen

        self.reset()

    def reset(self):
        """Reset the state of the game; returns the initial state (see `getState()`)."""
        self.initializeSnake_()
        self.fruitSquares_ = None
        self.makeFruits_()
        return self.getState()

    def step(self, action):
        """Perform a step of the game with `action` (0, 1 or 2).

        Returns a SimpleNamespace with `reward`, `state` (the new state; None when the game
        has ended), `fruitEaten`, and `done`: whether the head went off the board or over
        the snake's body, which ends the game.
        """
        [headY, headX] = self.snakeSquares_[0]

        # The new head; off the board, the game ends.
        done = None
        newHeadY = None
        newHeadX = None

        self.updateDirection_(action)
        if self.snakeDirection_ == 'l':
            newHeadY = headY
            newHeadX = headX - 1
            done = newHeadX < 0
        elif self.snakeDirection_ == 'u':
            newHeadY = headY - 1
            newHeadX = headX
            done = newHeadY < 0
        elif self.snakeDirection_ == 'r':
            newHeadY = headY
            newHeadX = headX + 1
            done = newHeadX >= self.width_
        elif self.snakeDirection_ == 'd':
            newHeadY = headY + 1
            newHeadX = headX
            done = newHeadY >= self.height_

        # Over the snake's body, the game ends too.
        for i in range(1, len(self.snakeSquares_)):
            if (self.snakeSquares_[i][0] == newHeadY and
                    self.snakeSquares_[i][1] == newHeadX):
                done = True

        fruitEaten = False
        if done:
            return SimpleNamespace(reward=DEATH_REWARD, state=None, done=done,
                                   fruitEaten=fruitEaten)

        self.snakeSquares_.insert(0, [newHeadY, newHeadX])

        reward = NO_FRUIT_REWARD
        for i in range(len(self.fruitSquares_)):
            fruitYX = self.fruitSquares_[i]
            if fruitYX[0] == newHeadY and fruitYX[1] == newHeadX:
                reward = FRUIT_REWARD
                fruitEaten = True
                del self.fruitSquares_[i]
                self.makeFruits_()
                break
        if not fruitEaten:
            # The snake grows by one square for each fruit it eats.
            self.snakeSquares_.pop()

        state = self.getState()
        return SimpleNamespace(reward=reward, state=state, done=done, fruitEaten=fruitEaten)

    def updateDirection_(self, action):
        if self.snakeDirection_ == 'l':
            if action == ACTION_TURN_LEFT:
                self.snakeDirection_ = 'd'
            elif action == ACTION_TURN_RIGHT:
                self.snakeDirection_ = 'u'
        elif self.snakeDirection_ == 'u':
            if action == ACTION_TURN_LEFT:
                self.snakeDirection_ = 'l'
            elif action == ACTION_TURN_RIGHT:
                self.snakeDirection_ = 'r'
        elif self.snakeDirection_ == 'r':
            if action == ACTION_TURN_LEFT:
                self.snakeDirection_ = 'u'
            elif action == ACTION_TURN_RIGHT:
                self.snakeDirection_ = 'd'
        elif self.snakeDirection_ == 'd':
            if action == ACTION_TURN_LEFT:
                self.snakeDirection_ = 'r'
            elif action == ACTION_TURN_RIGHT:
                self.snakeDirection_ = 'l'

    @property
    def snakeDirection(self):
        """The current direction of the snake: 'l', 'u', 'r' or 'd'."""
        return self.snakeDirection_

    def initializeSnake_(self):
        # The squares the snake occupies, [y, x] each, head first and tail last.
        self.snakeSquares_ = []

        # A straight, horizontal snake heading right.
        y = getRandomInteger(0, self.height_)
        x = getRandomInteger(self.initLen_ - 1, self.width_)
        for i in range(self.initLen_):
            self.snakeSquares_.append([y, x - i])

        self.snakeDirection_ = 'r'

    def makeFruits_(self):
        """Put new fruits on random unoccupied squares, up to `numFruits` in all."""
        if self.fruitSquares_ is None:
            self.fruitSquares_ = []
        numFruits = self.numFruits_ - len(self.fruitSquares_)
        if numFruits <= 0:
            return

        emptyIndices = []
        for i in range(self.height_):
            for j in range(self.width_):
                emptyIndices.append(i * self.width_ + j)

        occupiedIndices = []
        for yx in self.snakeSquares_:
            occupiedIndices.append(yx[0] * self.width_ + yx[1])
        occupiedIndices.sort()
        for i in range(len(occupiedIndices) - 1, -1, -1):
            del emptyIndices[occupiedIndices[i]]

        for _ in range(numFruits):
            fruitIndex = emptyIndices[getRandomInteger(0, len(emptyIndices))]
            fruitY = fruitIndex // self.width_
            fruitX = fruitIndex % self.width_
            self.fruitSquares_.append([fruitY, fruitX])
            if numFruits > 1:
                emptyIndices.remove(fruitIndex)

    @property
    def height(self):
        return self.height_

    @property
    def width(self):
        return self.width_

    def getState(self):
        """The game's state as plain Python: {'s': the snake's [y, x] squares, head first,
        'f': the fruits' squares}."""
        return {
            "s": self.snakeSquares_[:],
            "f": self.fruitSquares_[:]
        }


def getStateTensor(state, h, w):
    """A state (or a list of states) as a float32 `[numExamples, h, w, 2]` tensor.

    Channel 0 marks the snake (1 for its body, 2 for its head), channel 1 the fruits;
    a None state (a game's end) gives an empty board.
    """
    if not isinstance(state, list):
        state = [state]
    numExamples = len(state)
    buffer = tf.buffer([numExamples, h, w, 2])

    for n in range(numExamples):
        if state[n] is None:
            continue
        for i, yx in enumerate(state[n]['s']):
            buffer.set(2 if i == 0 else 1, n, yx[0], yx[1], 0)

        for yx in state[n]['f']:
            buffer.set(1, n, yx[0], yx[1], 1)
    return buffer.toTensor()
