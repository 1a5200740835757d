"""The rulebook's pages on sheets of paper.

booklet  two pages a side on a landscape sheet, in saddle-stitch order: the page count padded to a
         multiple of 4 with blank pages; printed duplex, flipped on the short edge; the stack folded
         in the middle and stapled on the fold. Fold and staple marks sit outside the pages.
pages    one page a sheet side, centred on a portrait sheet.
Pages are scaled down only as far as the sheet needs to keep them inside the printable area
(MIN_MARGIN) with room for the marks.
"""
from __future__ import annotations

from dataclasses import dataclass

import pikepdf

from generator.geometry import MIN_MARGIN, PAPERS, Mark, Rect
from generator.sheets.impose import Imposer

MARK = 4.0                  # mm: length of a fold or staple mark
MARK_GAP = 1.0              # mm between a mark and the pages
BAND = MIN_MARGIN + MARK + MARK_GAP


@dataclass(frozen=True)
class Slot:
    """Where one source page goes: sheet (1-based), side ("front"/"back"), position ("left"/"right"/"centre")."""
    page: int | None        # 1-based source page; None for a blank pad page
    sheet: int
    side: str
    position: str


def booklet_slots(pages: int) -> list[Slot]:
    """Saddle-stitch order for `pages` source pages. Sheet s (of n = padded/4) carries on its front
    the pages padded-2s+2 (left) and 2s-1 (right), on its back 2s (left) and padded-2s+1 (right):
    folded and nested, the pages read 1, 2, 3 … Pages past the end are blanks."""
    padded = max(4, -(-pages // 4) * 4)
    slots = []
    for s in range(1, padded // 4 + 1):
        for side, left, right in (("front", padded - 2 * s + 2, 2 * s - 1), ("back", 2 * s, padded - 2 * s + 1)):
            slots.append(Slot(left if left <= pages else None, s, side, "left"))
            slots.append(Slot(right if right <= pages else None, s, side, "right"))
    return slots


def pages_slots(pages: int) -> list[Slot]:
    """One page a sheet side: page 2k-1 on sheet k's front, page 2k on its back."""
    return [Slot(n, (n + 1) // 2, "front" if n % 2 else "back", "centre") for n in range(1, pages + 1)]


@dataclass(frozen=True)
class SheetLayout:
    size: tuple[float, float]          # the sheet, mm
    scale: float
    rects: dict[str, Rect]             # position -> where the page lands
    marks: tuple[Mark, ...]


def layout(paper: str, page: tuple[float, float], imposition: str) -> SheetLayout:
    pw, ph = PAPERS[paper]
    w, h = page
    if imposition == "pages":
        scale = min(1.0, (pw - 2 * MIN_MARGIN) / w, (ph - 2 * MIN_MARGIN) / h)
        sw, sh = w * scale, h * scale
        return SheetLayout((pw, ph), scale, {"centre": Rect((pw - sw) / 2, (ph - sh) / 2, sw, sh)}, ())
    W, H = ph, pw                                  # landscape
    scale = min(1.0, (W - 2 * BAND) / (2 * w), (H - 2 * BAND) / h)
    sw, sh = w * scale, h * scale
    x, y = (W - 2 * sw) / 2, (H - sh) / 2
    rects = {"left": Rect(x, y, sw, sh), "right": Rect(x + sw, y, sw, sh)}
    fold = W / 2
    marks = [Mark(fold, y - MARK_GAP - MARK, fold, y - MARK_GAP),                # fold: above and below
             Mark(fold, y + sh + MARK_GAP, fold, y + sh + MARK_GAP + MARK)]
    for at in (y + sh / 4, y + 3 * sh / 4):                                       # staples: beside the pages
        marks += [Mark(x - MARK_GAP - MARK, at, x - MARK_GAP, at),
                  Mark(x + 2 * sw + MARK_GAP, at, x + 2 * sw + MARK_GAP + MARK, at)]
    return SheetLayout((W, H), scale, rects, tuple(marks))


def impose(out: pikepdf.Pdf, source: pikepdf.Pdf, paper: str, imposition: str, page: tuple[float, float]
           ) -> list[dict]:
    """Append the sheets to `out`; one manifest entry per sheet side (sheet_entries). Each placed
    page is a form labelled "rulebook page N" so the result can be read back."""
    sheet = layout(paper, page, imposition)
    imposer = Imposer(out)
    for number, side, here in _sides(imposition, len(source.pages)):
        target = imposer.new_page(sheet.size)
        placed = [(f"rulebook-{s.page}", source.pages[s.page - 1], sheet.rects[s.position],
                   sheet.rects[s.position], 0.0, f"rulebook page {s.page}") for s in here if s.page]
        _place_scaled(imposer, target, placed, sheet, marks=side == "front")
    return sheet_entries(paper, imposition, page, len(source.pages))


def sheet_entries(paper: str, imposition: str, page: tuple[float, float], pages: int) -> list[dict]:
    """The manifest entry of each sheet side impose() appends for a rulebook of `pages` pages."""
    sheet = layout(paper, page, imposition)
    return [{"role": "rulebook", "size": list(sheet.size), "sheet": number, "side": side,
             "scale": round(sheet.scale, 4),
             "slots": [{"page": s.page, "position": s.position, "rect": sheet.rects[s.position].as_list()}
                       for s in here]}
            for number, side, here in _sides(imposition, pages)]


def _sides(imposition: str, pages: int) -> list[tuple[int, str, list[Slot]]]:
    """(sheet number, side, its slots) of every sheet side, in print order."""
    slots = (booklet_slots if imposition == "booklet" else pages_slots)(pages)
    sides = sorted({(s.sheet, s.side) for s in slots}, key=lambda k: (k[0], k[1] != "front"))
    return [(number, side, [s for s in slots if (s.sheet, s.side) == (number, side)]) for number, side in sides]


def _place_scaled(imposer: Imposer, target, placed, sheet: SheetLayout, marks: bool) -> None:
    """Like Imposer.place, for pages drawn at `sheet.scale` (the imposer places at full size)."""
    from generator.sheets.impose import MARK_WIDTH, segment
    from generator.geometry import operand, pt
    ph = sheet.size[1]
    xobjects = target.Resources.XObject
    ops = []
    for index, (key, page, rect, _, _, label) in enumerate(placed):
        name = f"/R{index}"
        xobjects[name] = imposer.form(key, page, 0.0, label)
        ops.append(f"q {operand(sheet.scale)} 0 0 {operand(sheet.scale)} {operand(pt(rect.x))} "
                   f"{operand(pt(ph - rect.y - rect.h))} cm {name} Do Q")
    if marks and sheet.marks:          # on the front of each sheet: the side that is folded outwards
        ops.append(f"q {MARK_WIDTH} w 0 0 0 RG 0 J")
        for m in sheet.marks:
            ops.append(segment(m, ph))
        ops.append("Q")
    imposer._append_content(target, "\n".join(ops))
