"""What `{{ expressions }}` and card templates see: plain data built for them.

Numbers, text, lists and mappings copied out of the game — never a Game, a Path, a module or
any other engine object, so an expression can read values but reach nothing (a `Path` would
let it delete or read files; an engine object its methods). One builder for every user:
validate, pieces, cards, packs, gallery and the rulebook; extend it by passing `**extra`.

Names kept from the start: `game.<field>` (game.yaml), `derived`, `decks.<id>` (lists of
cards), `tables.<id>` (lists of rows), `card.<field>`, `deck.<field>`, `player.<field>`,
`pack.<field>`, `piece.<field>`.
"""
from __future__ import annotations

import dataclasses
import enum
import numbers
from typing import Any

from pydantic import BaseModel

from generator.source.game import Card, Game
from generator.source.schema import PackSpec

_PLAIN = (str, int, float, bool, type(None))
_EXACTLY_PLAIN = frozenset(_PLAIN)      # these types themselves, not subclasses of them


def plain(value: Any, _seen: dict | None = None) -> Any:
    """A copy of value made of str, numbers, bools, None, lists, tuples and dicts only.
    Shared parts are copied once (a YAML alias bomb stays as small as its text); anything
    else becomes its text."""
    seen = {} if _seen is None else _seen
    if type(value) is dict and _flat(value):     # a card's fields, mostly: copied as _mapping would,
        found = seen.get(id(value))              # at C speed (5,000 cards: 15 → 5 ms)
        if found is None:
            found = seen[id(value)] = (value, dict(value))
        return found[1]
    if isinstance(value, _PLAIN):
        return _scalar(value)
    key = id(value)
    if key in seen:
        return seen[key][1]
    if isinstance(value, Card):
        result = card_data(value)
    elif isinstance(value, BaseModel):
        result = _mapping(value.model_dump(), seen, value)
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        result = _mapping({f.name: getattr(value, f.name) for f in dataclasses.fields(value)}, seen, value)
    elif isinstance(value, dict):
        result = _mapping(value, seen, value)
    elif isinstance(value, list):
        result = []
        seen[key] = (value, result)         # the original is kept alive, so its id is not reused
        result.extend(plain(v, seen) for v in value)
    elif isinstance(value, tuple):
        result = tuple(plain(v, seen) for v in value)
    elif isinstance(value, (set, frozenset)):
        result = [plain(v, seen) for v in sorted(value, key=repr)]
    elif isinstance(value, enum.Enum):
        result = plain(value.value, seen)
    elif isinstance(value, numbers.Number):
        result = value if isinstance(value, numbers.Rational) else float(value)
    else:
        result = str(value)
    seen[key] = (value, result)
    return result


def _flat(mapping: dict) -> bool:
    """Whether every key is a str and every value a str, int, float, bool or None (exactly)."""
    return all(type(k) is str for k in mapping) and all(type(v) in _EXACTLY_PLAIN for v in mapping.values())


def _mapping(items: dict, seen: dict, original: Any) -> dict:
    out = {}
    seen[id(original)] = (original, out)
    for k, v in items.items():
        out[_key(k, seen)] = plain(v, seen)
    return out


def _key(key: Any, seen: dict) -> Any:
    if isinstance(key, _PLAIN):
        return _scalar(key)
    return plain(key, seen) if isinstance(key, tuple) else str(key)


def _scalar(value):
    # str subclasses (markupsafe's Markup stays: it is text that is already safe)
    if type(value) in (str, int, float, bool) or value is None or type(value).__name__ == "Markup":
        return value
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    return value


def card_data(card: Card) -> dict:
    """A card (or table row) as its fields and its id. A field is never shadowed by an
    engine attribute: `card.deck` or `card.line` is the designer's field of that name."""
    return {**plain(card.fields), "id": card.id}


def pack_data(pack) -> dict:
    data = plain(pack)
    data.update(key=pack.key, label=pack.label)
    return data


def game_context(game: Game, **extra: Any) -> dict:
    """The names every expression over a game sees; `extra` adds pack, player, copy …
    (values given there are made plain too)."""
    base = _cached(game)
    return {**base, **{name: _extra(value) for name, value in extra.items()}}


def plain_context(game: Game, **extra: Any) -> dict:
    """game_context for `extra` values that are plain already (made by plain(), or numbers and
    text): not copied again. Card faces make one for every card of a deck."""
    return {**_cached(game), **extra}


def _extra(value: Any) -> Any:
    return pack_data(value) if isinstance(value, PackSpec) else plain(value)


def _cached(game: Game) -> dict:
    """Copied once per game and derived result (validate evaluates hundreds of counts)."""
    cache = vars(game).get("_plain_context")
    if cache is not None and cache[0] is game.derived:
        return cache[1]
    data = {"game": {**plain(game.spec), "id": game.id},
            "derived": plain(game.derived),
            "decks": {deck_id: [card_data(c) for c in deck.cards] for deck_id, deck in game.decks.items()},
            "tables": {table_id: [card_data(r) for r in rows] for table_id, rows in game.tables.items()}}
    vars(game)["_plain_context"] = (game.derived, data)
    return data
