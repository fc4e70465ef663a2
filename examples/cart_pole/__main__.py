"""Train the cart-pole policy in a terminal: `python -m examples.cart_pole [--help]`.

Stands in for the training controls of the original's web page (its defaults: hidden layer
128, 20 iterations of 20 games of at most 500 steps, discount rate 0.95, Adam at 0.05); this
driver defaults to a shorter run.
"""

import argparse
import asyncio

import tfjs_grad as tf

from .cart_pole import CartPole
from .index import PolicyNetwork


async def main(args):
    policyNet = PolicyNetwork(args.hidden_layer_sizes)
    cartPole = CartPole()
    optimizer = tf.train.adam(args.learning_rate)
    for iteration in range(args.iterations):
        gameSteps = await policyNet.train(
            cartPole, optimizer, args.discount_rate, args.games, args.max_steps)
        print(f"iteration {iteration + 1}/{args.iterations}: mean steps per game "
              f"{sum(gameSteps) / len(gameSteps):.1f} (max {max(gameSteps)})")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hidden-layer-sizes", type=int, nargs="+", default=[128])
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--max-steps", type=int, default=200)
    parser.add_argument("--discount-rate", type=float, default=0.95)
    parser.add_argument("--learning-rate", type=float, default=0.05)
    asyncio.run(main(parser.parse_args()))
