"""Rules of __TITLE__: every number the kit prints is computed here.

derive(game) returns the values templates and boards use as `derived`; check(game, derived)
returns the problems that must stop a build (a list of strings).
"""

GOAL = 30            # Rules 3.2: the first to 30 points wins


def derive(game) -> dict:
    deck = game.decks["actions"]       # the sample deck (cards.yaml): rename it here with the deck
    players = sorted(p.players for p in game.packs)
    return {
        "goal": GOAL,
        "deck_size": {n: sum(card.copies_for(n) for card in deck.cards) for n in players},
        "hand_size": 3,
    }


def check(game, derived: dict) -> list[str]:
    problems = []
    for players, size in derived["deck_size"].items():     # Rules 2.1: deal everyone a full hand
        if size < players * derived["hand_size"]:
            problems.append(f"{players} players need at least {players * derived['hand_size']} action "
                            f"cards to deal, the deck has {size}")
    return problems
