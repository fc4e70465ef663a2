"""Terminal stand-ins for the browser UI (ui.js) that mnist-core imports."""


def isTraining():
    """Announce that training started."""
    print("Training...")


def trainingLog(cost, iteration):
    """Report the cost of one training step (`cost` is what `dataSync()` gave)."""
    print(f"step {iteration}: cost {float(cost[0]):.5f}")


def showTestResults(batch, predictions, labels):
    """Report how many test examples the model classified right."""
    right = sum(p == label for p, label in zip(predictions, labels))
    print(f"test accuracy: {right}/{len(labels)}")
