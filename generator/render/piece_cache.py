"""Drawn boards, maps and tokens, cached like card faces (render/cache.py).

One drawing is one call of PieceDrawer.draw_sheets: a run of piece sheets. Its direct key covers
what is known before it draws: the drawing code (these sources, reportlab's and svglib's versions),
the engine's own words (generator/locale), the sheets themselves (every placement, and the piece's
whole spec with its elements), the pack, the expression context (the game and its derived values,
as plain data), the edition's translations, the ink saver, and the bytes of every bundled font.
What the drawing reads while it draws is recorded with its hash beside the entry: the icons' SVG
files, and each deck and table of the context that an expression reads (as a card's template memo
does for all decks at once, render/template_memo.py). An edited icon redraws exactly the drawings
that placed it; an edited card, only the drawings whose expressions read its deck.
An edition in another script also records each text it drew that holds words of the source's
script (a name printed in both): the check for untranslated words passed on them, and is made
again on a hit against today's catalogue. The catalogue as a whole is not in the key, so a card's
translation redraws no board that does not print it.
"""
from __future__ import annotations

import hashlib
import json

from generator.fingerprint import engine_fingerprint
from generator.render.cache import FaceCache, FileHashes, absolute_name, relative_name
from generator.render.template_memo import WATCHED, Watched
from generator.source import reads
from generator.source.context import pack_data



class PieceCache:
    def __init__(self, assets, game, ink_saver: bool):
        self.project = assets.project
        self.store = FaceCache(self.project, "pieces")
        self.hashes = FileHashes(self.project)
        self.game = game
        self._drawn_words: set[str] | None = None    # while drawing: texts whose check read the catalogue
        parts = [engine_fingerprint(), game.language, repr(ink_saver), _json(game.text).decode()]
        parts += [f"{font.path.name}:{self.hashes.of(font.path)}" for font in assets.fonts]
        self.fixed = hashlib.sha256("|".join(parts).encode()).hexdigest()
        self._parts: dict[int, tuple[object, str]] = {}      # id of a watched part -> (the part, its hash)

    def draw(self, sheets, pack, context: dict, draw) -> bytes:
        """The drawing's PDF bytes, from the cache when every file and watched part of the context it
        read is unchanged, else `draw(context)` with the watched parts noting what it reads."""
        direct = self._direct(sheets, pack, context)
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
            for name, sha in inputs.items():            # the build's stamp still covers them
                if name[0] not in "@?":
                    reads.note_hash(absolute_name(root, name), sha)
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

    def _direct(self, sheets, pack, context: dict) -> str:
        digest = hashlib.sha256(self.fixed.encode())
        digest.update(repr(sheets).encode())
        digest.update(_json(pack_data(pack)))
        digest.update(_json({k: v for k, v in context.items() if k not in WATCHED}))
        return digest.hexdigest()

    def _part_hash(self, part) -> str:
        """A watched part's hash, once a build (the part is held, so its id stays its own); "-" for
        one the context does not have (an expression looked for it in vain)."""
        if part is _ABSENT:
            return "-"
        known = self._parts.get(id(part))
        if known is None:
            known = self._parts[id(part)] = (part, hashlib.sha256(_json(part)).hexdigest())
        return known[1]


_ABSENT = object()


def _part(context: dict, name: str):
    """A watched part by its name: "decks" (all of them) or "decks/oaths" (one deck)."""
    top, _, key = name.partition("/")
    part = context.get(top, _ABSENT)
    if key and isinstance(part, dict):
        return part.get(key, _ABSENT)
    return _ABSENT if key else part


class _ByKey(Watched):
    """A watched part that notes which of its entries an expression reads (`decks.oaths`: that deck
    alone), and the whole part when one walks, counts or prints it."""

    def __getitem__(self, key):
        self._seen.add(f"{self._name}/{key}")
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        self._seen.add(f"{self._name}/{key}")
        return dict.get(self, key, default)

    def __contains__(self, key):
        self._seen.add(f"{self._name}/{key}")
        return dict.__contains__(self, key)


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
