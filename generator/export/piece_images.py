"""Boards, maps and tokens as images: each piece once (the first player's colour for per-player ones),
front and back, for the gallery and Tabletop Simulator."""
from __future__ import annotations

from dataclasses import dataclass

from generator.check.validate import context as expression_context
from generator.export.raster import Frame, draw_pages
from generator.geometry import Placement, PieceSheet, Rect
from generator.source.assets import Assets
from generator.source.game import Game


@dataclass(frozen=True)
class PieceImage:
    piece: object              # the piece's spec (id, name, size, back …)
    side: str                  # "front" or "back"
    png: bytes
    player: int = 0            # which player's colour (per-player pieces with every_colour)


def piece_images(assets: Assets, game: Game, pack, longest_px: int | None = None, dpi: float | None = None,
                 every_colour: bool = False) -> list[PieceImage]:
    """Every piece the pack holds, its longer side `longest_px` pixels (or at `dpi`); a per-player
    piece in the first player's colour, or with `every_colour` once per player of the pack."""
    counts = game.piece_counts.get(pack.key, {})
    wanted = [p for p in game.pieces.values() if counts.get(p.id)]
    if not wanted:
        return []
    from generator.render.pieces import PieceCopy, PieceDrawer
    drawer = PieceDrawer(assets, game)
    colours = game.spec.player_colours
    sheets, sides = [], []
    for piece in wanted:
        players = range(pack.players if every_colour else 1) if piece.per_player and colours else [None]
        for index in players:
            for side in ("front", "back") if piece.back is not None else ("front",):
                copy = PieceCopy(piece, 1, colours[index] if index is not None else None, side)
                w, h = copy.size
                sheets.append(PieceSheet((w, h), [Placement(copy, Rect(0, 0, w, h))]))
                sides.append((piece, side, index or 0))
    pdf = drawer.draw_sheets(sheets, pack, expression_context(game))
    frames = [Frame.at_dpi(s.page, dpi or longest_px / max(s.page) * 25.4) for s in sheets]
    images = draw_pages(pdf, frames, dpi=dpi)
    return [PieceImage(piece, side, png, player) for (piece, side, player), png in zip(sides, images)]
