"""deck450 has no rules; the validator still checks that all 450 cards are distinct."""
CARDS = 450


def derive(game) -> dict:
    return {"cards": len(game.decks["cards"].cards)}


def check(game, derived: dict) -> list[str]:
    titles = {card.fields["title"] for card in game.decks["cards"].cards}
    if derived["cards"] != CARDS or len(titles) != CARDS:
        return [f"expected {CARDS} distinct cards, found {derived['cards']} ({len(titles)} titles)"]
    return []
