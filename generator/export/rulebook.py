"""The pack's rulebook for an export: its pages in reading order at their own size (sheets/rules_file),
so a print shop's order or a virtual table carries the rules as the printed pack does."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RulebookFile:
    pdf: bytes
    title: str
    pages: int
    size_mm: tuple[float, float]


def pack_rulebook(project, assets, checked, renderer, pack) -> RulebookFile | None:
    """The rulebook of `pack` (None when the game has none), from the edition as validation
    `checked` it (sheets/kit.py Checked: the game and the rulebook it read)."""
    from generator.render.rulebook import RulebookRenderer
    from generator.sheets.rules_file import reading_order
    game = checked.game
    book = RulebookRenderer(project, assets, game, renderer, checked.rulebook)
    if not book.exists:
        return None
    pages = book.render(pack)
    title = book._("Rulebook")
    return RulebookFile(reading_order(game, pages, title), title, pages.count, pages.size)
