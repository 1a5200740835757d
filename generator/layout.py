"""Where things go on a sheet of paper. Millimetres, origin at the page's top-left.

A card grid keeps every trim at least MIN_MARGIN from the paper's edge. Between
cards it leaves a gutter of up to two bleeds, so each card keeps its own bleed,
when the paper has room for that and for crop marks outside the grid; otherwise
the cards butt and share a cut line. Crop marks sit in the margin, outside every
card's bleed, on the extension of each cut line.
"""
from __future__ import annotations

from dataclasses import dataclass

from generator.errors import PnpError, Problem

PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
MIN_MARGIN = 5.0        # mm of paper around every trim: most printers cannot print closer
MARK_ROOM = 10.0        # mm the grid would like outside its trim: bleed + gap + a visible crop mark
MARK_GAP = 1.0          # mm between a card's bleed and its crop mark
MIN_MARK = 4.0          # shortest useful crop mark
MIN_GUTTER = 2.0        # a narrower strip between two cuts is not worth the second cut
MAX_MARK = 8.0          # crop marks are short ticks, not lines across the sheet


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float

    def grown(self, left: float, top: float, right: float, bottom: float) -> "Rect":
        return Rect(self.x - left, self.y - top, self.w + left + right, self.h + top + bottom)

    def mirrored(self, page_width: float) -> "Rect":
        """The same rectangle seen from the back of a sheet turned over its long (vertical) edge."""
        return Rect(page_width - self.x - self.w, self.y, self.w, self.h)

    def as_list(self, digits: int = 3) -> list[float]:
        return [round(v, digits) for v in (self.x, self.y, self.w, self.h)]


@dataclass(frozen=True)
class Slot:
    row: int
    col: int
    trim: Rect
    bleed: Rect            # the part of the card's bleed this sheet prints (clipped between cards)


@dataclass(frozen=True)
class Mark:
    x1: float
    y1: float
    x2: float
    y2: float


@dataclass(frozen=True)
class CardGrid:
    paper: str
    page: tuple[float, float]
    cols: int
    rows: int
    slots: tuple[Slot, ...]
    outer_bleed: tuple[float, float]
    gutter: tuple[float, float]

    @property
    def per_sheet(self) -> int:
        return self.cols * self.rows

    def marks(self, used: int) -> tuple[Mark, ...]:
        """Crop marks for the cut lines of the first `used` slots."""
        return tuple(_crop_marks(self.page[0], self.page[1], list(self.slots[:used]), *self.outer_bleed))


def _axis(paper: float, count: int, trim: float, bleed: float) -> tuple[float, float, float, float]:
    """Gutter, margin, inner bleed and outer bleed along one axis."""
    spare = paper - count * trim
    if spare < 2 * MIN_MARGIN:
        raise ValueError
    gutter = 0.0
    if count > 1:
        gutter = min(2 * bleed, max(0.0, (spare - 2 * MARK_ROOM) / (count - 1)))
        gutter = gutter if gutter >= MIN_GUTTER else 0.0
    margin = (spare - (count - 1) * gutter) / 2
    outer = max(0.0, min(bleed, margin - MARK_GAP - MIN_MARK))
    return gutter, margin, gutter / 2, outer


def card_grid(paper: str, trim: tuple[float, float], bleed: float, cols: int | None = None,
              rows: int | None = None, where: tuple[str, int | None] = ("", None)) -> CardGrid:
    """The grid for a card size: as many cards as fit with MIN_MARGIN all round."""
    pw, ph = PAPERS[paper]
    w, h = trim
    cols = cols or max(1, int((pw - 2 * MIN_MARGIN) // w))
    rows = rows or max(1, int((ph - 2 * MIN_MARGIN) // h))
    try:
        gx, mx, ix, ox = _axis(pw, cols, w, bleed)
        gy, my, iy, oy = _axis(ph, rows, h, bleed)
    except ValueError:
        raise PnpError(Problem(*where, f"{cols} × {rows} cards of {w:g} × {h:g} mm do not fit on {paper} "
                               f"with {MIN_MARGIN:g} mm margins")) from None
    slots = []
    for r in range(rows):
        for c in range(cols):
            trim_rect = Rect(mx + c * (w + gx), my + r * (h + gy), w, h)
            left = ox if c == 0 else ix
            right = ox if c == cols - 1 else ix
            top = oy if r == 0 else iy
            bottom = oy if r == rows - 1 else iy
            slots.append(Slot(r, c, trim_rect, trim_rect.grown(left, top, right, bottom)))
    return CardGrid(paper, (pw, ph), cols, rows, tuple(slots), (ox, oy), (gx, gy))


def _crop_marks(pw: float, ph: float, slots: list[Slot], ox: float, oy: float) -> list[Mark]:
    """Marks on every cut line, in the margins, stopping MARK_GAP short of the bleed."""
    left = min(s.trim.x for s in slots)
    right = max(s.trim.x + s.trim.w for s in slots)
    top = min(s.trim.y for s in slots)
    bottom = max(s.trim.y + s.trim.h for s in slots)
    xs = sorted({round(v, 4) for s in slots for v in (s.trim.x, s.trim.x + s.trim.w)})
    ys = sorted({round(v, 4) for s in slots for v in (s.trim.y, s.trim.y + s.trim.h)})
    marks = []
    for x in xs:
        end = top - oy - MARK_GAP
        marks.append(Mark(x, max(0.5, end - MAX_MARK), x, end))
        start = bottom + oy + MARK_GAP
        marks.append(Mark(x, start, x, min(ph - 0.5, start + MAX_MARK)))
    for y in ys:
        end = left - ox - MARK_GAP
        marks.append(Mark(max(0.5, end - MAX_MARK), y, end, y))
        start = right + ox + MARK_GAP
        marks.append(Mark(start, y, min(pw - 0.5, start + MAX_MARK), y))
    return marks


# --- boards, maps and tokens -----------------------------------------------------------

@dataclass(frozen=True)
class Placement:
    item: object           # whatever is being placed (the packer does not look inside)
    rect: Rect             # where it lands on the sheet (already scaled)
    rotated: bool = False
    scale: float = 1.0     # < 1 for a piece larger than the sheet, printed reduced


@dataclass
class PieceSheet:
    page: tuple[float, float]
    placements: list[Placement]


def orientation_for(size: tuple[float, float], paper: str) -> tuple[float, float]:
    """The page (portrait or landscape) a piece of this size fits, or portrait."""
    pw, ph = PAPERS[paper]
    w, h = size
    fits = lambda W, H: w <= W - 2 * MIN_MARGIN and h <= H - 2 * MIN_MARGIN
    if fits(pw, ph):
        return (pw, ph)
    if fits(ph, pw):
        return (ph, pw)
    return (pw, ph)


SCALE_NOTE = 8.0        # mm kept free under a scaled piece for the note that says so


def fits_sheet(size: tuple[float, float], paper: str) -> bool:
    pw, ph = PAPERS[paper]
    w, h = size
    return (w <= pw - 2 * MIN_MARGIN and h <= ph - 2 * MIN_MARGIN) or (
        w <= ph - 2 * MIN_MARGIN and h <= pw - 2 * MIN_MARGIN)


def scaled_alone(item, size: tuple[float, float], paper: str) -> PieceSheet:
    """A piece larger than any sheet, reduced to fit one (its own) page."""
    pw, ph = PAPERS[paper]
    w, h = size
    best = None
    for page in ((pw, ph), (ph, pw)):
        scale = min((page[0] - 2 * MIN_MARGIN) / w, (page[1] - 2 * MIN_MARGIN - SCALE_NOTE) / h)
        if best is None or scale > best[0]:
            best = (scale, page)
    scale, page = best
    rect = Rect((page[0] - w * scale) / 2, MIN_MARGIN, w * scale, h * scale)
    return PieceSheet(page, [Placement(item, rect, scale=scale)])


def pack_pieces(items: list[tuple[object, tuple[float, float], bool, float]], paper: str) -> list[PieceSheet]:
    """Shelf-pack pieces (item, (w, h), own_page, gap) onto sheets in order.

    A piece too large for any sheet is printed alone, reduced to fit (the note on the
    page says by how much)."""
    sheets: list[PieceSheet] = []
    current: PieceSheet | None = None
    shelf_y = shelf_h = cursor_x = shelf_gap = 0.0
    for item, (w, h), own_page, gap in items:
        if not fits_sheet((w, h), paper):
            sheets.append(scaled_alone(item, (w, h), paper))
            current = None
            continue
        page = orientation_for((w, h), paper)
        pw, ph = page
        usable_w = pw - 2 * MIN_MARGIN
        new_sheet = current is None or own_page or current.page != page
        if not new_sheet:
            if cursor_x + w > MIN_MARGIN + usable_w + 1e-6:      # next shelf
                shelf_y += shelf_h + max(gap, shelf_gap)
                cursor_x, shelf_h = MIN_MARGIN, 0.0
            if shelf_y + h > ph - MIN_MARGIN + 1e-6:
                new_sheet = True
        if new_sheet:
            current = PieceSheet(page, [])
            sheets.append(current)
            shelf_y, shelf_h, cursor_x, shelf_gap = MIN_MARGIN, 0.0, MIN_MARGIN, 0.0
        current.placements.append(Placement(item, Rect(cursor_x, shelf_y, w, h)))
        cursor_x += w + gap
        shelf_h, shelf_gap = max(shelf_h, h), max(shelf_gap, gap)
        if own_page:
            current = None
    for sheet in sheets:
        if all(p.scale == 1.0 for p in sheet.placements):
            _centre(sheet)
    return sheets


def mirrored_sheet(sheet: PieceSheet, flip) -> PieceSheet:
    """The back of a sheet of two-sided pieces: each piece at its long-edge mirror position."""
    return PieceSheet(sheet.page, [Placement(flip(p.item), p.rect.mirrored(sheet.page[0]), p.rotated, p.scale)
                                   for p in sheet.placements])


def _centre(sheet: PieceSheet) -> None:
    """Centre the packed block on the page so both margins are equal."""
    if not sheet.placements:
        return
    left = min(p.rect.x for p in sheet.placements)
    right = max(p.rect.x + p.rect.w for p in sheet.placements)
    top = min(p.rect.y for p in sheet.placements)
    bottom = max(p.rect.y + p.rect.h for p in sheet.placements)
    dx = (sheet.page[0] - (right - left)) / 2 - left
    dy = (sheet.page[1] - (bottom - top)) / 2 - top
    sheet.placements = [Placement(p.item, Rect(p.rect.x + dx, p.rect.y + dy, p.rect.w, p.rect.h), p.rotated)
                        for p in sheet.placements]
