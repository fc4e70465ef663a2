"""Stand-in for boston-housing/ui.js: prints where the page shows text."""


def updateStatus(message):
    print(message)


def updateBaselineStatus(message):
    print(message)


async def updateModelStatus(message, modelName):
    print(f"[{modelName}] {message}")


def updateWeightDescription(weightsList):
    for item in weightsList:
        print(f"  {item['description']}: {item['value']:.4f}")


async def setup():
    pass
