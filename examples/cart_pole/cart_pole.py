"""Port of cart-pole/cart_pole.js: the cart-pole system, simulated with Euler steps.

https://github.com/tensorflow/tfjs-examples/blob/master/cart-pole/cart_pole.js

Random initial states come from `random.random()` (the original's `Math.random()`); the
physics runs on Python floats, which are JavaScript's doubles.
"""

import math
import random

import tfjs_grad as tf


class CartPole:
    """A cart on a track with a pole hinged on it, pushed left or right by a fixed force."""

    def __init__(self):
        self.gravity = 9.8
        self.massCart = 1.0
        self.massPole = 0.1
        self.totalMass = self.massCart + self.massPole
        self.cartWidth = 0.2
        self.cartHeight = 0.1
        self.length = 0.5
        self.poleMoment = self.massPole * self.length
        self.forceMag = 10.0
        self.tau = 0.02

        self.xThreshold = 2.4
        self.thetaThreshold = 12 / 360 * 2 * math.pi

        self.setRandomState()

    def setRandomState(self):
        """Draw the cart's position and velocity and the pole's angle and angular velocity."""
        self.x = random.random() - 0.5
        self.xDot = (random.random() - 0.5) * 1
        self.theta = (random.random() - 0.5) * 2 * (6 / 360 * 2 * math.pi)
        self.thetaDot = (random.random() - 0.5) * 0.5

    def getStateTensor(self):
        """The state as a `[1, 4]` float32 tensor."""
        return tf.tensor2d([[self.x, self.xDot, self.theta, self.thetaDot]])

    def update(self, action):
        """Advance one time step, pushing right if `action > 0`, else left; True when done."""
        force = self.forceMag if action > 0 else -self.forceMag

        cosTheta = math.cos(self.theta)
        sinTheta = math.sin(self.theta)

        temp = (
            (force + self.poleMoment * self.thetaDot * self.thetaDot * sinTheta) /
            self.totalMass)
        thetaAcc = (self.gravity * sinTheta - cosTheta * temp) / (
            self.length *
            (4 / 3 - self.massPole * cosTheta * cosTheta / self.totalMass))
        xAcc = temp - self.poleMoment * thetaAcc * cosTheta / self.totalMass

        self.x += self.tau * self.xDot
        self.xDot += self.tau * xAcc
        self.theta += self.tau * self.thetaDot
        self.thetaDot += self.tau * thetaAcc

        return self.isDone()

    def isDone(self):
        """Whether the cart left the track or the pole fell past its threshold angle."""
        return (self.x < -self.xThreshold or self.x > self.xThreshold or
                self.theta < -self.thetaThreshold or self.theta > self.thetaThreshold)
