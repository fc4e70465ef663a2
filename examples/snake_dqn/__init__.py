"""Port of tfjs-examples' snake-dqn: a deep-Q network learns to play snake.

Original: https://github.com/tensorflow/tfjs-examples/tree/master/snake-dqn
(`utils.js`, `snake_game.js`, `replay_memory.js`, `dqn.js`, `agent.js` and `train.js`, each
as the Python module of the same name). Train a little in a terminal with
`python -m examples.snake_dqn.train --help` (README.md gives a short command line).
"""
