"""Terminal stand-ins for the hooks of the browser UI (ui.js) that cart-pole's training calls."""


async def maybeRenderDuringTraining(cartPoleSystem):
    """The page may draw the cart-pole here after every step; a terminal draws nothing."""


def onGameEnd(gameCount, totalGames):
    """The page advances a progress bar here; a terminal does not."""
