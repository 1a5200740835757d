"""What a pack is made of while it is assembled: its sections (one per deck or piece) and its body pages.

Pages come in print runs, each printed with one setting (page 1 says which):
  duplex  card stock, two-sided: each sheet of card fronts followed by its backs
          (duplex long / short), or gutter-fold sheets with fronts and backs side by side;
  fronts / backs   with --duplex none: fronts first, backs at the end for a manual re-feed;
  card    card stock, one-sided: boards, tokens, single-sided cards;
  paper   plain paper: maps, score sheets, reference cards;
  rules   plain paper: the rulebook (a booklet: duplex, flipped on the short edge).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import pikepdf

RUNS = ("rules", "duplex", "fronts", "card", "paper", "backs")


@dataclass
class Section:
    """A component in a pack: a deck's cards or a piece's copies, and the pages they are on."""
    id: str
    name: str
    kind: str                  # "deck", "piece" or "rulebook"
    run: str
    count: int
    items: list = field(default_factory=list)        # (card, copy) or PieceCopy
    two_sided: bool = False
    pages: list[int] = field(default_factory=list)   # page numbers in the body (1-based)

    @property
    def first_page(self) -> int:
        return min(self.pages)

    @property
    def last_page(self) -> int:
        return max(self.pages)


@dataclass
class Body:
    """The pages after the info page, as they are made, with their manifest entries."""
    pdf: pikepdf.Pdf
    entries: list[dict] = field(default_factory=list)
    keep: list = field(default_factory=list)          # source PDFs that must stay open
    imposer: object = None                            # what imposed its sheets (sheets/sheet_cache.py)

    def add(self, entry: dict, *sections: Section, run: str) -> int:
        self.entries.append({**entry, "run": run})
        for section in sections:
            section.pages.append(len(self.entries))
        return len(self.entries)


def run_for(two_sided: bool, stock: str, duplex: str) -> str:
    """The print run a component's pages belong to."""
    if two_sided:
        return {"long": "duplex", "short": "duplex", "none": "fronts", "gutterfold": "card"}[duplex]
    return "card" if stock == "card" else "paper"


def back_run(duplex: str) -> str:
    """Backs follow their fronts, except with --duplex none, where they are printed last."""
    return "backs" if duplex == "none" else "duplex"


def chunks(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)]
