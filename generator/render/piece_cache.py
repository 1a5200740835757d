"""Drawn boards, maps and tokens, cached like card faces (render/cache.py).

One drawing is one call of PieceDrawer.draw_sheets: a run of piece sheets. Its direct key covers
what is known before it draws: the drawing code (these sources, reportlab's and svglib's versions),
the engine's own words (generator/locale), the sheets themselves (every placement, and the piece's
whole spec with its elements), the pack, the expression context (the game, its derived values and
its decks, as plain data), the edition's translations, the ink saver, and the bytes of every
bundled font. What the drawing reads while it draws — the icons' SVG files — is recorded with its hash
beside the entry, so an edited icon redraws exactly the drawings that placed it, and nothing else.
"""
from __future__ import annotations

import hashlib
import json

from generator.fingerprint import engine_fingerprint
from generator.render.cache import FaceCache, FileHashes, absolute_name, relative_name
from generator.source import reads
from generator.source.context import pack_data



class PieceCache:
    def __init__(self, assets, game, ink_saver: bool):
        self.project = assets.project
        self.store = FaceCache(self.project, "pieces")
        self.hashes = FileHashes(self.project)
        parts = [engine_fingerprint(), game.language, repr(ink_saver), _json(game.text).decode(), game.quoted]
        parts += [f"{font.path.name}:{self.hashes.of(font.path)}" for font in assets.fonts]
        self.fixed = hashlib.sha256("|".join(parts).encode()).hexdigest()

    def draw(self, sheets, pack, context: dict, draw) -> bytes:
        """The drawing's PDF bytes, from the cache when every file it read is unchanged, else `draw()`."""
        direct = self._direct(sheets, pack, context)
        root = self.project.root
        hit = self.store.get_bytes(direct, lambda name: self.hashes.current(absolute_name(root, name)))
        if hit is not None:
            _, data, inputs = hit
            for name, sha in inputs.items():            # the build's stamp still covers them
                reads.note_hash(absolute_name(root, name), sha)
            return data
        with reads.recording() as log:
            data = draw()
        self.store.put(direct, {relative_name(root, path): sha for path, sha in log.files.items()}, data)
        return data

    def _direct(self, sheets, pack, context: dict) -> str:
        digest = hashlib.sha256(self.fixed.encode())
        digest.update(repr(sheets).encode())
        digest.update(_json(pack_data(pack)))
        digest.update(_json(context))
        return digest.hexdigest()


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
