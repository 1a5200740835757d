"""Drawn boards, maps and tokens, cached like card faces (render/cache.py).

One drawing is one copy of a piece, one side, alone on its page (PieceDrawer.draw_copy): the sheets
of every pack place it as a form, so a board that every pack and paper prints is drawn once. Its
direct key covers what is known before it draws: the drawing code (the engine's fingerprint), the
copy's identity (the piece's whole spec with its elements and the side; the copy number, its
player's colour and the pack where the piece's expressions name them), the expression context
(the game and its derived values, as plain data), the edition's language, the ink saver, the
characters that have an icon, and every bundled font (its family, weight and bytes).
What the drawing reads while it draws is recorded with its hash beside the entry: the icons' SVG
files, and each deck and table of the context that an expression reads (as a card's template memo
does for all decks at once, render/template_memo.py): a deck whole when an expression walks it, only
one field of its cards when it reads that field by a card's place (`decks.trials[index].name`), only
its count when it counts it. An edited icon redraws exactly the drawings that placed it; an edited
card, only the drawings whose expressions read its deck (or the field that changed).
An edition in another script also records each text it drew that holds words of the source's
script (a name printed in both): the check for untranslated words passed on them, and is made
again on a hit against today's catalogue. The catalogue as a whole is not in the key, so a card's
translation redraws no board that does not print it.
"""
from __future__ import annotations

import hashlib
import json
from typing import NamedTuple

from generator.fingerprint import engine_fingerprint
from generator.render.cache import FaceCache, FileHashes, absolute_name, note_inputs, relative_name
from generator.render.template_memo import WATCHED, Watched
from generator.source import reads



class PieceCache:
    def __init__(self, assets, game, ink_saver: bool):
        self.project = assets.project
        self.store = FaceCache(self.project, "pieces")
        self.hashes = FileHashes(self.project)
        self.game = game
        self._drawn_words: set[str] | None = None    # while drawing: texts whose check read the catalogue
        # which characters have an icon decides how a text is split into icons (an icon file added for a
        # character a board prints as text draws it as the icon), as in a face's key (render/cards.py)
        parts = [engine_fingerprint(), game.language, repr(ink_saver), _json(game.text).decode(),
                 repr(assets.icon_names)]
        # each font's family and weight too: they decide which file a bold text is drawn with, and the
        # names the drawing registers its fonts under (fonts/fonts.yaml)
        parts += [f"{font.family}:{font.weight}:{font.path.name}:{self.hashes.of(font.path)}"
                  for font in assets.fonts]
        self.fixed = hashlib.sha256("|".join(parts).encode()).hexdigest()
        self._parts: dict[int, tuple[object, str]] = {}      # id of a watched part -> (the part, its hash)

    def draw(self, ident: str, context: dict, draw) -> bytes:
        """The drawing's PDF bytes, from the cache when every file and watched part of the context it
        read is unchanged, else `draw(context)` with the watched parts noting what it reads. `ident`
        is what decides the drawing besides the context (render/pieces.py: the piece copy's)."""
        direct = self._direct(ident, context)
        root = self.project.root

        def current(name: str) -> str | None:
            if name.startswith("@"):
                return self._part_hash(_part(context, name[1:]))
            if name.startswith("?"):
                return "-" if self.game.untranslated(name[1:]) else "ok"
            return self.hashes.current(absolute_name(root, name))
        hit = self.store.get_bytes(direct, current)
        if hit is not None:
            _, data, inputs = hit
            note_inputs(root, inputs)
            return data
        seen: set[str] = set()
        watched = {**context, **{name: _ByKey(context[name], name, seen) for name in WATCHED if name in context}}
        self._drawn_words = set()
        try:
            with reads.recording() as log:
                data = draw(watched)
            words = self._drawn_words
        finally:
            self._drawn_words = None
        inputs = {relative_name(root, path): sha for path, sha in log.files.items()}
        inputs.update({f"@{name}": self._part_hash(_part(context, name)) for name in seen})
        inputs.update({f"?{text}": "ok" for text in words})
        self.store.put(direct, inputs, data)
        return data

    def drew_text(self, text: str) -> None:
        """A text the drawing prints, after its check for untranslated words passed."""
        if self._drawn_words is not None and self.game.source_runs(text):
            self._drawn_words.add(text)

    def _direct(self, ident: str, context: dict) -> str:
        digest = hashlib.sha256(self.fixed.encode())
        digest.update(ident.encode())
        digest.update(_json({k: v for k, v in context.items() if k not in WATCHED}))
        return digest.hexdigest()

    def _part_hash(self, part) -> str:
        """A watched part's hash, once a build (the part is held, so its id stays its own); "-" for
        one the context does not have (an expression looked for it in vain)."""
        if part is _ABSENT:
            return "-"
        ident = (id(part.cards), part.field) if isinstance(part, _Field) else id(part)
        known = self._parts.get(ident)
        if known is None:
            value = part.values() if isinstance(part, _Field) else part
            known = self._parts[ident] = (part, hashlib.sha256(_json(value)).hexdigest())
        return known[1]


_ABSENT = object()


class _Field(NamedTuple):
    """One field of every card of a deck (or row of a table), in order."""
    cards: list
    field: str

    def values(self) -> list | int:
        if self.field == COUNT:
            return len(self.cards)
        return [card.get(self.field, _MISSING) if isinstance(card, dict) else _MISSING for card in self.cards]


COUNT = "#"                     # the "field" that stands for how many cards a deck has


_MISSING = "<no such field>"


def _part(context: dict, name: str):
    """A watched part by its name: "decks" (all of them), "decks/oaths" (one deck) or
    "decks/oaths/name" (that field of each of its cards)."""
    top, _, rest = name.partition("/")
    key, _, field = rest.partition("/")
    part = context.get(top, _ABSENT)
    if not rest:
        return part
    part = part.get(key, _ABSENT) if isinstance(part, dict) else _ABSENT
    if not field or part is _ABSENT:
        return part
    return _Field(part, field) if isinstance(part, list) else _ABSENT


class _ByKey(Watched):
    """A watched part that notes which of its entries an expression reads (`decks.oaths`: that deck
    alone), and the whole part when one walks, counts or prints it."""

    def __getitem__(self, key):
        return _entry(dict.__getitem__(self, key), f"{self._name}/{key}", self._seen)

    def get(self, key, default=None):
        if dict.__contains__(self, key):
            return self[key]
        self._seen.add(f"{self._name}/{key}")
        return default

    def __contains__(self, key):           # (the expressions' getattr asks first): how many it has
        cards = isinstance(dict.get(self, key), list)
        self._seen.add(f"{self._name}/{key}/{COUNT}" if cards else f"{self._name}/{key}")
        return dict.__contains__(self, key)


def _entry(value, name: str, seen: set):
    """A deck (or table) an expression reached: watched card by card when it is a list of cards,
    else noted whole at once."""
    if isinstance(value, list):
        return _Cards(value, name, seen)
    seen.add(name)
    return value


def _noting_whole(method: str):
    def whole(self, *args, **kwargs):
        self._seen.add(self._name)
        return getattr(super(type(self), self), method)(*args, **kwargs)
    return whole


class _Cards(list):
    """A deck an expression reached. Reading a field of one card by its place (`decks.trials[2].name`,
    as a board's station list does) notes that field of every card, in order: a card's other fields
    redraw nothing. Anything else (walking it, counting it, printing a card) notes the whole deck."""

    def __init__(self, cards: list, name: str, seen: set):
        super().__init__(cards)
        self._name, self._seen = name, seen

    def __len__(self):
        self._seen.add(f"{self._name}/{COUNT}")
        return list.__len__(self)

    def __getitem__(self, index):
        item = list.__getitem__(self, index)
        if isinstance(index, int) and isinstance(item, dict):
            return _Card(item, self._name, self._seen)
        self._seen.add(self._name)
        return item


class _Card(dict):
    def __init__(self, card: dict, deck: str, seen: set):
        super().__init__(card)
        self._name, self._seen = deck, seen

    def __getitem__(self, field):
        self._seen.add(f"{self._name}/{field}")
        return dict.__getitem__(self, field)

    def get(self, field, default=None):
        self._seen.add(f"{self._name}/{field}")
        return dict.get(self, field, default)

    def __contains__(self, field):          # (the expressions' getattr asks first)
        self._seen.add(f"{self._name}/{field}")
        return dict.__contains__(self, field)


for _method in ("__iter__", "__contains__", "__reversed__", "__repr__", "__str__", "__eq__", "__ne__",
                "__lt__", "__le__", "__gt__", "__ge__", "__add__", "__mul__", "__rmul__", "index", "count", "copy"):
    setattr(_Cards, _method, _noting_whole(_method))
for _method in ("__iter__", "__len__", "__repr__", "__str__", "__eq__", "__ne__", "__or__",
                "__ror__", "keys", "values", "items", "copy"):
    setattr(_Card, _method, _noting_whole(_method))
_Cards.__hash__ = _Card.__hash__ = None


def _json(value) -> bytes:
    """Plain data as canonical JSON; a function in the context (the translator `_`) is decided by
    the catalogue, which the fixed part of the key covers."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=_other).encode()


def _other(value):
    if callable(value):
        return "<function>"
    if isinstance(value, (set, frozenset)):
        return sorted(map(repr, value))
    return repr(value)
