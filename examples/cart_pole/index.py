"""Port of cart-pole/index.js: the policy network and its REINFORCE training.

https://github.com/tensorflow/tfjs-examples/blob/master/cart-pole/index.js

Each step samples an action from the policy and records the gradient of the sigmoid
cross-entropy that makes that action more likely (`getGradientsAndSaveActions`: the sampled
action is read back as a Python number inside the function given to `tf.variableGrads`, so
tfjs_grad runs that function on real numbers, once per call, as tfjs does). After a round of games,
discounted and normalised rewards scale those gradients, and the optimizer applies their
average. The original's `SaveablePolicyNetwork` (browser IndexedDB storage) is not ported.
"""

import tfjs_grad as tf

from .ui import maybeRenderDuringTraining, onGameEnd


class PolicyNetwork:
    """Maps the cart-pole's state to the logit of pushing left."""

    def __init__(self, hiddenLayerSizesOrModel):
        if isinstance(hiddenLayerSizesOrModel, tf.LayersModel):
            self.policyNet = hiddenLayerSizesOrModel
        else:
            self.createPolicyNetwork(hiddenLayerSizesOrModel)

    def createPolicyNetwork(self, hiddenLayerSizes):
        """Elu dense layers of the given sizes (an int or a list), then one linear unit."""
        if not isinstance(hiddenLayerSizes, list):
            hiddenLayerSizes = [hiddenLayerSizes]
        self.policyNet = tf.sequential()
        for i, hiddenLayerSize in enumerate(hiddenLayerSizes):
            self.policyNet.add(tf.layers.dense({
                'units': hiddenLayerSize,
                'activation': 'elu',
                # `inputShape` is required only for the first layer.
                'inputShape': [4] if i == 0 else None
            }))
        # The last layer has only one unit. The single output number will be
        # converted to a probability of selecting the leftward-force action.
        self.policyNet.add(tf.layers.dense({'units': 1}))

    async def train(
            self, cartPoleSystem, optimizer, discountRate, numGames, maxStepsPerGame):
        """Play `numGames` games of at most `maxStepsPerGame` steps, then apply one
        reward-weighted gradient update; returns the number of steps of each game."""
        allGradients = {}
        allRewards = []
        gameSteps = []
        onGameEnd(0, numGames)
        for i in range(numGames):
            cartPoleSystem.setRandomState()
            gameRewards = []
            gameGradients = {}
            for _ in range(maxStepsPerGame):

                def gradientsOfStep():
                    inputTensor = cartPoleSystem.getStateTensor()
                    return self.getGradientsAndSaveActions(inputTensor).grads
                gradients = tf.tidy(gradientsOfStep)

                self.pushGradients(gameGradients, gradients)
                action = self.currentActions_[0]
                isDone = cartPoleSystem.update(action)

                await maybeRenderDuringTraining(cartPoleSystem)

                if isDone:
                    gameRewards.append(0)
                    break
                else:
                    gameRewards.append(1)
            onGameEnd(i + 1, numGames)
            gameSteps.append(len(gameRewards))
            self.pushGradients(allGradients, gameGradients)
            allRewards.append(gameRewards)
            await tf.nextFrame()

        def applyScaledGradients():
            normalizedRewards = discountAndNormalizeRewards(allRewards, discountRate)
            optimizer.applyGradients(
                scaleAndAverageGradients(allGradients, normalizedRewards))
        tf.tidy(applyScaledGradients)
        tf.dispose(allGradients)
        return gameSteps

    def getGradientsAndSaveActions(self, inputTensor):
        """Sample an action for `inputTensor`, keep it in `currentActions_`, and return
        `tf.variableGrads` of the cross-entropy that favours it."""

        def f():
            def lossOfSampledActions():
                [logits, actions] = self.getLogitsAndActions(inputTensor)
                self.currentActions_ = actions.dataSync()
                labels = tf.sub(1, tf.tensor2d(self.currentActions_, actions.shape))
                return tf.losses.sigmoidCrossEntropy(labels, logits).asScalar()
            return tf.tidy(lossOfSampledActions)
        return tf.variableGrads(f)

    def getCurrentActions(self):
        """The actions sampled by the last `getGradientsAndSaveActions`."""
        return self.currentActions_

    def getLogitsAndActions(self, inputs):
        """`[logits, actions]` for a `[batchSize, 4]` batch of states: the policy's logits
        `[batchSize, 1]` and actions sampled from them `[batchSize, 1]` (0: left)."""

        def logitsAndActions():
            logits = self.policyNet.predict(inputs)

            leftProb = tf.sigmoid(logits)
            leftRightProbs = tf.concat([leftProb, tf.sub(1, leftProb)], 1)
            actions = tf.multinomial(leftRightProbs, 1, None, True)
            return [logits, actions]
        return tf.tidy(logitsAndActions)

    def getActions(self, inputs):
        """Sampled actions for a `[batchSize, 4]` batch of states, as a flat numpy array."""
        return self.getLogitsAndActions(inputs)[1].dataSync()

    def pushGradients(self, record, gradients):
        """Append each variable's gradient in `gradients` to its list in `record`."""
        for key in gradients:
            if key in record:
                record[key].append(gradients[key])
            else:
                record[key] = [gradients[key]]


def discountRewards(rewards, discountRate):
    """Each reward plus the discounted rewards after it, as a 1-D tensor."""
    discountedBuffer = tf.buffer([len(rewards)])
    prev = 0
    for i in range(len(rewards) - 1, -1, -1):
        current = discountRate * prev + rewards[i]
        discountedBuffer.set(current, i)
        prev = current
    return discountedBuffer.toTensor()


def discountAndNormalizeRewards(rewardSequences, discountRate):
    """Discount each game's rewards, then standardise them with the mean and standard
    deviation over all games; a list of 1-D tensors."""

    def discountAndNormalize():
        discounted = []
        for sequence in rewardSequences:
            discounted.append(discountRewards(sequence, discountRate))
        concatenated = tf.concat(discounted)
        mean = tf.mean(concatenated)
        std = tf.sqrt(tf.mean(tf.square(concatenated.sub(mean))))
        normalized = [rs.sub(mean).div(std) for rs in discounted]
        return normalized
    return tf.tidy(discountAndNormalize)


def scaleAndAverageGradients(allGradients, normalizedRewards):
    """Per variable: every step's gradient times its game's normalised reward, averaged over
    all steps of all games."""

    def scaleAndAverage():
        gradients = {}
        for varName in allGradients:

            def scaleAndAverageOfVar(varName=varName):
                varGradients = [
                    tf.stack(varGameGradients) for varGameGradients in allGradients[varName]]
                expandedDims = []
                for _ in range(varGradients[0].ndim - 1):
                    expandedDims.append(1)
                reshapedNormalizedRewards = [
                    rs.reshape(list(rs.shape) + expandedDims) for rs in normalizedRewards]
                for g in range(len(varGradients)):
                    varGradients[g] = varGradients[g].mul(reshapedNormalizedRewards[g])
                return tf.mean(tf.concat(varGradients, 0), 0)
            gradients[varName] = tf.tidy(scaleAndAverageOfVar)
        return gradients
    return tf.tidy(scaleAndAverage)
