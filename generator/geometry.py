"""Where things go on a sheet of paper. Millimetres, origin at the page's top-left.

A card grid keeps every trim at least MIN_MARGIN from the paper's edge. Between
cards it leaves a gutter of up to two bleeds, so each card keeps its own bleed,
when the paper has room for that and for crop marks outside the grid; otherwise
the cards butt and share a cut line. Crop marks sit in the margin, outside every
card's bleed, on the extension of each cut line.
"""
from __future__ import annotations

import functools

from dataclasses import dataclass

from generator.errors import PnpError, Problem

PT = 72 / 25.4   # points per millimetre: the engine works in mm and converts only for PDF libraries


def pt(mm: float) -> float:
    return round(mm * PT, 4)


def operand(value: float) -> str:
    """A number as a content stream writes it: four decimals at most, no trailing zeros, no -0."""
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
MIN_MARGIN = 5.0        # mm of paper around every trim: most printers cannot print closer
BOX_PLAY = 1.0          # mm of room a tuck box leaves beyond its cards each way, so the deck slides
MAX_BOX_DEPTH = 100.0   # mm: a tuck box deeper than ~300 cards does not close; such a deck is split


def box_depth(cards: int, stock_mm: float) -> float:
    """How deep a tuck box for `cards` cards of `stock_mm` each is (mm), at least 5."""
    return max(5.0, cards * stock_mm + BOX_PLAY)
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
        """Crop marks for the cut lines of the first `used` slots (worked out once per count: every
        full sheet of a deck has the same)."""
        known = self.__dict__.setdefault("_marks", {})      # frozen: its fields, not this memo
        if used not in known:
            known[used] = tuple(_crop_marks(self.page[0], self.page[1], list(self.slots[:used]), *self.outer_bleed))
        return known[used]


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
              rows: int | None = None, where: tuple[str, int | None] = ("", None),
              landscape: bool | None = None) -> CardGrid:
    """The grid for a card size: as many cards as fit with MIN_MARGIN all round, on the
    page orientation that holds more (portrait on a tie)."""
    options = [False, True] if landscape is None else [landscape]
    best, error = None, None
    for turned in options:
        try:
            grid = _grid(paper, trim, bleed, cols, rows, turned)
        except ValueError as exc:
            error = exc
            continue
        if best is None or grid.per_sheet > best.per_sheet:
            best = grid
    if best is None:
        w, h = trim
        raise PnpError(Problem(*where, f"cards of {w:g} × {h:g} mm do not fit on {paper} with "
                               f"{MIN_MARGIN:g} mm margins", "choose a smaller card size or a larger paper")) from error
    return best


def _grid(paper, trim, bleed, cols, rows, landscape) -> CardGrid:
    pw, ph = PAPERS[paper]
    if landscape:
        pw, ph = ph, pw
    w, h = trim
    cols = cols or int((pw - 2 * MIN_MARGIN) // w)
    rows = rows or int((ph - 2 * MIN_MARGIN) // h)
    if cols < 1 or rows < 1:
        raise ValueError("does not fit")
    gx, mx, ix, ox = _axis(pw, cols, w, bleed)
    gy, my, iy, oy = _axis(ph, rows, h, bleed)
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


# --- cards of several sizes on one sheet ----------------------------------------------------

STRIP_SPLIT = 1.0        # mm between the crop marks of two strips, where the cut across goes


@dataclass(frozen=True)
class Strip:
    """`count` cards of one size, in rows across the sheet."""
    trim: tuple[float, float]
    bleed: float
    count: int


@dataclass(frozen=True)
class StripGrid:
    """Cards of several sizes on one sheet, in horizontal strips of one size each, so a guillotine
    cuts it: across the sheet between two strips first, then each strip like a grid. Between two
    strips lie both strips' bleed and room for both strips' crop marks."""
    paper: str
    page: tuple[float, float]
    slots: tuple[Slot, ...]
    strips: tuple[tuple[int, int, float, float, float], ...]  # first slot, count, outer bleed x, above, below
    across: tuple[float, ...] = ()          # y of the cut between two strips, the first cut to make

    @property
    def per_sheet(self) -> int:
        return len(self.slots)

    @property
    def outer_bleed(self) -> tuple[float, float]:
        """The bleed every strip can keep at its outer edges (see open_bleeds)."""
        return min(s[2] for s in self.strips), min(min(s[3], s[4]) for s in self.strips)

    def marks(self, used: int) -> tuple[Mark, ...]:
        """Each strip's own crop marks, those between two strips in its half of the gap (so each
        keeps its marks after the cut across), and a mark in both margins for that cut."""
        marks, last = [], len(self.strips) - 1
        for index, (first, count, ox, above, below) in enumerate(self.strips):
            slots = list(self.slots[first:min(first + count, used)])
            if slots:
                reach = (MAX_MARK if index == 0 else MIN_MARK, MAX_MARK if index == last else MIN_MARK)
                marks += _crop_marks(self.page[0], self.page[1], slots, ox, above, below, reach)
        used_slots = self.slots[:used]
        left = min(s.bleed.x for s in used_slots) - MARK_GAP
        right = max(s.bleed.x + s.bleed.w for s in used_slots) + MARK_GAP
        for y in self.across:
            marks += [Mark(max(0.5, left - MAX_MARK), y, left, y), Mark(right, y, min(self.page[0] - 0.5, right + MAX_MARK), y)]
        return tuple(marks)


def strip_grid(paper: str, page: tuple[float, float], strips: list[Strip]) -> StripGrid | None:
    """The strips stacked top to bottom and centred, each as many cards a row as fit; None when
    they do not fit on the page with MIN_MARGIN all round."""
    pw, ph = page
    blocks = []
    for strip in strips:
        w, h = strip.trim
        fit = int((pw - 2 * MIN_MARGIN) // w)
        if fit < 1 or strip.count < 1:
            return None
        cols = min(fit, strip.count)
        rows = -(-strip.count // cols)
        gy = 2 * strip.bleed if 2 * strip.bleed >= MIN_GUTTER else 0.0
        blocks.append((strip, cols, rows, gy, rows * h + (rows - 1) * gy))
    # between two strips: both bleeds, and each strip's crop marks in its own half
    gaps = [a.bleed + b.bleed + 2 * (MARK_GAP + MIN_MARK) + STRIP_SPLIT for a, b in zip(strips, strips[1:])]
    spare = ph - sum(b[4] for b in blocks) - sum(gaps)
    # a shared sheet is never worse than a fresh one: its first and last strip keep their full
    # bleed and a crop mark at the paper's edge, as well as the printer's margin
    room = max(MIN_MARGIN, strips[0].bleed + MARK_GAP + MIN_MARK) + max(MIN_MARGIN, strips[-1].bleed + MARK_GAP
                                                                          + MIN_MARK)
    if spare < room:
        return None
    y, slots, info, across = spare / 2, [], [], []
    for index, (strip, cols, rows, gy, height) in enumerate(blocks):
        w, h = strip.trim
        try:
            gx, mx, ix, ox = _axis(pw, cols, w, strip.bleed)
        except ValueError:
            return None
        edge = max(0.0, min(strip.bleed, spare / 2 - MARK_GAP - MIN_MARK))    # as a grid's, at the paper
        above = edge if index == 0 else strip.bleed
        below = edge if index == len(blocks) - 1 else strip.bleed
        first = len(slots)
        for n in range(strip.count):
            r, c = divmod(n, cols)
            rect = Rect(mx + c * (w + gx), y + r * (h + gy), w, h)
            slots.append(Slot(r, c, rect, rect.grown(ox if c == 0 else ix, above if r == 0 else gy / 2,
                                                     ox if c == cols - 1 else ix, below if r == rows - 1 else gy / 2)))
        info.append((first, strip.count, ox, above, below))
        if index < len(gaps):
            across.append(y + height + gaps[index] / 2)
        y += height + (gaps[index] if index < len(gaps) else 0.0)
    return StripGrid(paper, page, tuple(slots), tuple(info), tuple(across))


FOLD_CLEAR = 5.0        # mm between a gutter-fold sheet's fold line and the nearest bleed


@dataclass(frozen=True)
class FoldGrid:
    """Fronts in the left half, each back at its mirror image in the right half; fold down the middle."""
    paper: str
    page: tuple[float, float]
    fronts: tuple[Slot, ...]
    backs: tuple[Slot, ...]
    fold_x: float

    @property
    def per_sheet(self) -> int:
        return len(self.fronts)

    def marks(self, used: int) -> tuple[Mark, ...]:
        slots = list(self.fronts[:used]) + list(self.backs[:used])
        ox = max(self.fronts[0].trim.x - self.fronts[0].bleed.x, 0)
        oy = max(self.fronts[0].trim.y - self.fronts[0].bleed.y, 0)
        marks = _crop_marks(self.page[0], self.page[1], slots, ox, oy)
        # keep the strip around the fold clear: only the outer ticks of each cut line remain
        return tuple(m for m in marks if not (min(m.x1, m.x2) < self.fold_x + FOLD_CLEAR
                                              and max(m.x1, m.x2) > self.fold_x - FOLD_CLEAR))


def fold_grid(paper: str, trim: tuple[float, float], bleed: float,
              where: tuple[str, int | None] = ("", None)) -> FoldGrid:
    best = None
    for landscape in (False, True):
        pw, ph = PAPERS[paper]
        if landscape:
            pw, ph = ph, pw
        w, h = trim
        fold = pw / 2
        room = fold - FOLD_CLEAR - bleed - MIN_MARGIN        # trim may run from the margin to here
        cols = int(room // w)
        if cols < 1:
            continue
        try:
            gy, my, iy, oy = _axis(ph, max(1, int((ph - 2 * MIN_MARGIN) // h)), h, bleed)
        except ValueError:
            continue
        rows = max(1, int((ph - 2 * MIN_MARGIN) // h))
        right = fold - FOLD_CLEAR - bleed                    # the front block's right trim edge
        fronts, backs = [], []
        for r in range(rows):
            for c in range(cols):
                x = right - (cols - c) * w
                trim_rect = Rect(x, my + r * (h + gy), w, h)
                top = oy if r == 0 else iy
                bottom = oy if r == rows - 1 else iy
                left = min(bleed, x - MIN_MARGIN + bleed) if c == 0 else 0.0
                rght = bleed if c == cols - 1 else 0.0
                bleed_rect = trim_rect.grown(left, top, rght, bottom)
                fronts.append(Slot(r, c, trim_rect, bleed_rect))
                backs.append(Slot(r, cols - 1 - c, trim_rect.mirrored(pw), bleed_rect.mirrored(pw)))
        grid = FoldGrid(paper, (pw, ph), tuple(fronts), tuple(backs), fold)
        if best is None or grid.per_sheet > best.per_sheet:
            best = grid
    if best is None:
        raise PnpError(Problem(*where, f"cards of {trim[0]:g} × {trim[1]:g} mm do not fit a gutter-fold "
                               f"sheet of {paper}"))
    return best


def open_bleeds(slots: list[Slot], reach: tuple[float, float]) -> list[Slot]:
    """The used slots of a sheet, each side that no used card borders given `reach` (x, y) of bleed:
    cards butted on a full grid share 0 mm between them, and one beside an empty slot would print
    no bleed there at all. `reach` is the bleed the grid keeps at its outer edges, so the crop marks
    (outside the used block) stay clear of it."""
    return list(_open_bleeds(tuple(slots), tuple(reach)))


@functools.lru_cache(maxsize=256)       # every full sheet of a deck asks the same (5,000 cards: 556 sheets)
def _open_bleeds(slots: tuple[Slot, ...], reach: tuple[float, float]) -> tuple[Slot, ...]:
    def borders(a: Slot, b: Slot, side: str) -> bool:
        ta, tb, near = a.trim, b.trim, min(a.trim.w, a.trim.h)
        if side in ("left", "right"):
            overlap = tb.y < ta.y + ta.h - 0.01 and ta.y < tb.y + tb.h - 0.01
            gap = ta.x - (tb.x + tb.w) if side == "left" else tb.x - (ta.x + ta.w)
        else:
            overlap = tb.x < ta.x + ta.w - 0.01 and ta.x < tb.x + tb.w - 0.01
            gap = ta.y - (tb.y + tb.h) if side == "top" else tb.y - (ta.y + ta.h)
        return overlap and -0.01 <= gap < near

    opened = []
    for slot in slots:
        t, b = slot.trim, slot.bleed
        sides = {"left": t.x - b.x, "top": t.y - b.y, "right": b.x + b.w - t.x - t.w, "bottom": b.y + b.h - t.y - t.h}
        for side in sides:
            if not any(other is not slot and borders(slot, other, side) for other in slots):
                sides[side] = max(sides[side], reach[0] if side in ("left", "right") else reach[1])
        opened.append(Slot(slot.row, slot.col, t, t.grown(sides["left"], sides["top"], sides["right"], sides["bottom"])))
    return tuple(opened)


def _crop_marks(pw: float, ph: float, slots: list[Slot], ox: float, oy: float,
                oy_bottom: float | None = None, reach: tuple[float, float] = (MAX_MARK, MAX_MARK)) -> list[Mark]:
    """Marks on every cut line, in the margins, stopping MARK_GAP short of the bleed (`oy` above
    the cards, `oy_bottom` below them when it differs; `reach`: how long the marks above and below
    may be, shorter between two strips)."""
    oy_bottom = oy if oy_bottom is None else oy_bottom
    left = min(s.trim.x for s in slots)
    right = max(s.trim.x + s.trim.w for s in slots)
    top = min(s.trim.y for s in slots)
    bottom = max(s.trim.y + s.trim.h for s in slots)
    xs = sorted({round(v, 4) for s in slots for v in (s.trim.x, s.trim.x + s.trim.w)})
    ys = sorted({round(v, 4) for s in slots for v in (s.trim.y, s.trim.y + s.trim.h)})
    marks = []
    for x in xs:
        end = top - oy - MARK_GAP
        marks.append(Mark(x, max(0.5, end - reach[0]), x, end))
        start = bottom + oy_bottom + MARK_GAP
        marks.append(Mark(x, start, x, min(ph - 0.5, start + reach[1])))
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
    rotation: int = 0      # 180 for backs of a short-edge flip
    scale: float = 1.0     # < 1 for a piece larger than the sheet, printed reduced
    tile: "Tile | None" = None


@dataclass
class PieceSheet:
    page: tuple[float, float]
    placements: list[Placement]
    fold_x: float | None = None         # gutter-fold sheets: where the fold runs (mm from the left)
    cutter: object = None               # a cutting machine's sheet: its sheets/cutters.Cutter


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


def pack_pieces(items: list[tuple[object, tuple[float, float], bool, float]], paper: str,
                page_size: tuple[float, float] | None = None, area: Rect | None = None) -> list[PieceSheet]:
    """Shelf-pack pieces (item, (w, h), own_page, gap) onto sheets in order, inside MIN_MARGIN of
    the page or inside `area` (a cutting machine's, on a `page_size` page).

    A piece too large for any sheet is printed alone, reduced to fit (the note on the
    page says by how much)."""
    sheets: list[PieceSheet] = []
    current: PieceSheet | None = None
    shelf_y = shelf_h = cursor_x = shelf_gap = 0.0
    for item, (w, h), own_page, gap in items:
        page = page_size or orientation_for((w, h), paper)
        pw, ph = page
        region = area or Rect(MIN_MARGIN, MIN_MARGIN, pw - 2 * MIN_MARGIN, ph - 2 * MIN_MARGIN)
        new_sheet = current is None or own_page or current.page != page
        if not new_sheet:
            if cursor_x + w > region.x + region.w + 1e-6:      # next shelf
                shelf_y += shelf_h + max(gap, shelf_gap)
                cursor_x, shelf_h = region.x, 0.0
            if shelf_y + h > region.y + region.h + 1e-6:
                new_sheet = True
        if new_sheet:
            current = PieceSheet(page, [])
            sheets.append(current)
            shelf_y, shelf_h, cursor_x, shelf_gap = region.y, 0.0, region.x, 0.0
        current.placements.append(Placement(item, Rect(cursor_x, shelf_y, w, h)))
        cursor_x += w + gap
        shelf_h, shelf_gap = max(shelf_h, h), max(shelf_gap, gap)
        if own_page:
            current = None
    for sheet in sheets:
        if all(p.scale == 1.0 for p in sheet.placements):
            _centre(sheet, area)
    return sheets


def _centre(sheet: PieceSheet, area: Rect | None = None) -> None:
    """Centre the packed block on the page (or in `area`) so both margins are equal."""
    if not sheet.placements:
        return
    left = min(p.rect.x for p in sheet.placements)
    right = max(p.rect.x + p.rect.w for p in sheet.placements)
    top = min(p.rect.y for p in sheet.placements)
    bottom = max(p.rect.y + p.rect.h for p in sheet.placements)
    x0, y0, w, h = (area.x, area.y, area.w, area.h) if area else (0.0, 0.0, *sheet.page)
    dx = x0 + (w - (right - left)) / 2 - left
    dy = y0 + (h - (bottom - top)) / 2 - top
    sheet.placements = [Placement(p.item, Rect(p.rect.x + dx, p.rect.y + dy, p.rect.w, p.rect.h), p.rotation)
                        for p in sheet.placements]


# --- boards larger than a sheet: tiles -------------------------------------------------

TILE_OVERLAP = 10.0     # mm each tile repeats of its neighbour, to glue over
TILE_NOTE = 14.0        # mm kept under the tile for its number and the assembly diagram


@dataclass(frozen=True)
class Tile:
    number: int            # 1-based, row by row
    row: int
    col: int
    rows: int
    cols: int
    area: Rect             # the part of the piece this tile shows, in the piece's own mm
    page: tuple[float, float]
    at: Rect               # where that part lands on the page


def tiles(size: tuple[float, float], paper: str) -> list[Tile]:
    """Cut a piece into page-sized tiles that overlap by TILE_OVERLAP, on the orientation
    that needs fewer sheets."""
    w, h = size
    best = None
    for landscape in (False, True):
        pw, ph = PAPERS[paper]
        if landscape:
            pw, ph = ph, pw
        aw, ah = pw - 2 * MIN_MARGIN, ph - 2 * MIN_MARGIN - TILE_NOTE
        cols = max(1, -(-(w - TILE_OVERLAP) // (aw - TILE_OVERLAP)))
        rows = max(1, -(-(h - TILE_OVERLAP) // (ah - TILE_OVERLAP)))
        cols, rows = int(cols), int(rows)
        if best is None or cols * rows < best[0] * best[1]:
            best = (cols, rows, (pw, ph), aw, ah)
    cols, rows, page, aw, ah = best
    # spread the pieces evenly: every tile shows the same share, overlaps exactly TILE_OVERLAP
    tw = (w + (cols - 1) * TILE_OVERLAP) / cols
    th = (h + (rows - 1) * TILE_OVERLAP) / rows
    out = []
    for r in range(rows):
        for c in range(cols):
            area = Rect(c * (tw - TILE_OVERLAP), r * (th - TILE_OVERLAP), tw, th)
            at = Rect((page[0] - tw) / 2, MIN_MARGIN, tw, th)
            out.append(Tile(r * cols + c + 1, r, c, rows, cols, area, page, at))
    return out


# --- duplex: where a back goes -----------------------------------------------------------

DUPLEX_MODES = ("long", "short", "none", "gutterfold")


def back_placement(rect: Rect, page: tuple[float, float], duplex: str,
                   offset: tuple[float, float] = (0.0, 0.0)) -> tuple[Rect, int]:
    """Where the back of something at `rect` goes on the back page, and its rotation.

    The printer turns the sheet over the paper's long edge ("long") or its short edge
    ("short"). For a portrait page a long-edge flip mirrors left–right; a landscape page
    is turned onto portrait paper by the driver, so there it mirrors top–bottom. With a
    short-edge flip the driver prints the back upside down compared with a long-edge one,
    so the back page is the long-edge back page turned 180°. `offset` (mm) is the
    printer's measured back-side registration error, corrected by shifting the back.
    "none" prints backs on separate sheets for a manual long-edge re-feed.
    """
    w, h = page
    landscape = w > h
    mode = "long" if duplex == "none" else duplex
    left_right = (mode == "long") != landscape
    moved = Rect(w - rect.x - rect.w, rect.y, rect.w, rect.h) if left_right else \
        Rect(rect.x, h - rect.y - rect.h, rect.w, rect.h)
    dx, dy = offset
    return Rect(moved.x + dx, moved.y + dy, moved.w, moved.h), (180 if mode == "short" else 0)


CUT_BLEED = 1.0         # mm of bleed a cutter sheet keeps at least: the machine's registration is ±0.5 mm


def area_grid(page: tuple[float, float], area: Rect, trim: tuple[float, float], bleed: float,
              paper: str = "") -> CardGrid:
    """A card grid inside `area` (a cutting machine's print-and-cut zone), bleeds included. Each card
    keeps its full bleed when that holds as many cards as butting them (shared cut lines) would;
    the outer bleed shrinks to CUT_BLEED when that makes one more row or column fit. No crop marks:
    the machine cuts, and marks near its registration marks would confuse its sensor."""
    w, h = trim
    least = min(bleed, CUT_BLEED)
    best = None
    for gutter in (2 * bleed, 0.0):
        cols = int((area.w - 2 * least + gutter) // (w + gutter))
        rows = int((area.h - 2 * least + gutter) // (h + gutter))
        if cols >= 1 and rows >= 1 and (best is None or cols * rows > best[0] * best[1]):
            best = (cols, rows, gutter)
    if best is None:
        raise ValueError(f"cards of {w:g} × {h:g} mm do not fit the {area.w:.1f} × {area.h:.1f} mm cutting area")
    cols, rows, gutter = best
    span_w, span_h = cols * w + (cols - 1) * gutter, rows * h + (rows - 1) * gutter
    x0, y0 = area.x + (area.w - span_w) / 2, area.y + (area.h - span_h) / 2
    ox, oy = min(bleed, (area.w - span_w) / 2), min(bleed, (area.h - span_h) / 2)
    inner = gutter / 2
    slots = []
    for r in range(rows):
        for c in range(cols):
            trim_rect = Rect(x0 + c * (w + gutter), y0 + r * (h + gutter), w, h)
            left = ox if c == 0 else inner
            right = ox if c == cols - 1 else inner
            top = oy if r == 0 else inner
            bottom = oy if r == rows - 1 else inner
            slots.append(Slot(r, c, trim_rect, trim_rect.grown(left, top, right, bottom)))
    return CardGrid(paper, page, cols, rows, tuple(slots), (ox, oy), (gutter, gutter))
