"""Boards, maps, tracks and tokens: pieces.yaml elements drawn with reportlab.

A piece is a list of elements (rect, text, icon, line, track, stations, table, ring,
cells, pattern) in millimetres from the piece's top-left corner. Any value may be a
{{ expression }} over game, derived, decks, pack, player and copy; the numbers a
board prints therefore come from the rules module, like the cards'.
"""
from __future__ import annotations

import hashlib
import io
import json
import math
import re
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import pikepdf
from reportlab.pdfgen.canvas import Canvas

from generator.source.assets import Assets
from generator.errors import PnpError, Problem, abbreviate
from generator.source.context import pack_data, plain
from generator.source.i18n import translator
from generator.check.expr import ExprError, evaluate, evaluate_deep
from generator.source.game import Game
from generator.geometry import PT, TILE_OVERLAP, PieceSheet, Placement, operand, pt
from generator.render.pen import ColourError, GlyphError, Pen, colour, register_fonts, registered
from generator.render.piece_cache import PieceCache
from generator.source.schema import PieceSpec, PlayerColour, not_a_colour
from generator.source.yamlsrc import line_at


@dataclass(frozen=True)
class PieceCopy:
    """One printed copy of a piece (side 'front' or 'back' of a two-sided one)."""
    piece: PieceSpec
    copy: int                       # 1-based
    player: PlayerColour | None
    side: str = "front"

    @property
    def size(self) -> tuple[float, float]:
        return self.piece.size.width, self.piece.size.height


class DrawError(ValueError):
    def __init__(self, message: str, at: tuple = ()):
        super().__init__(message)
        self.at = at            # the key it is about, as a path inside the element (for its line)


MAX_MM = 10_000         # no coordinate or size on a board is ten metres
MAX_CELLS = 5_000       # cells, items or copies one element draws
MARGIN = 2.0            # mm around a copy's own drawing: its cut line's stroke lies half outside the piece
# The context names a copy's drawing may read besides the game's (the pack, which copy, whose colour):
# where its piece's YAML never names one, copies that differ only in it are drawn once.
_CONTEXT_NAMES = re.compile(r"\b(pack|copy|player)\b")


def _names_in(value) -> set[str]:
    """The context names (_CONTEXT_NAMES) a piece's texts mention, read in the texts themselves: in
    its JSON a newline or tab before a name is escaped into a letter (`\\ncopy`), which hides the name
    from the pattern's word boundary (an expression over two lines of a YAML block)."""
    if isinstance(value, str):
        return set(_CONTEXT_NAMES.findall(value))
    items = value.items() if isinstance(value, dict) else value if isinstance(value, (list, tuple)) else ()
    found = set()
    for item in items:
        found |= _names_in(item)
    return found


class PieceDrawer:
    def __init__(self, assets: Assets, game: Game, ink_saver: bool = False):
        self.assets, self.game, self.ink_saver = assets, game, ink_saver
        self.file = pieces_file(game)
        self._pieces: dict[str, dict] = {}
        self.t = translator(game.spec.language)       # the engine's notes beside tiled and reduced boards
        self.cache = PieceCache(assets, game, ink_saver)
        self._copies: dict[str, bytes] = {}     # a copy's identity -> its drawing, once a build
        self._frames: dict[str, bytes | None] = {}  # sheets (repr) -> what they add, once a build
        self._specs: dict[str, tuple] = {}      # a piece's id -> its spec as canonical JSON, the names it reads

    def draw_sheets(self, sheets: list[PieceSheet], pack, context: dict) -> bytes:
        """All sheets as one PDF, a page each (sized to the sheet): every piece copy placed from its
        own drawing, then what the sheet adds (a tile's marks, a note, the fold line)."""
        drawings = [[self.draw_copy(p.item, pack, context) for p in sheet.placements] for sheet in sheets]
        return _assembled(sheets, drawings, self.frame(sheets, pack))

    def layout(self, sheets: list[PieceSheet], pack) -> str:
        """The sheets as a drawing of them sees them: each sheet's page, fold and cutter, and each
        placement's place, turn, scale and tile, with its copy named by its identity (which holds
        the piece's spec). repr(sheets) says the same with each piece's model printed whole again
        for every copy: about a tenth of the packs' time in a card edit."""
        return repr([(s.page, s.fold_x, s.cutter, [(self._identity(p.item, pack), p.rect, p.rotation, p.scale, p.tile)
                                                   for p in s.placements]) for s in sheets])

    def frame(self, sheets: list[PieceSheet], pack) -> bytes | None:
        """What the sheets print besides their pieces (_frame), or None when they print nothing else:
        a pack's store key reads it too. Kept in the piece cache like a copy (its notes draw with the
        edition's fonts and icons, and the icon files it placed are its recorded inputs)."""
        ident = self.layout(sheets, pack)
        if ident not in self._frames:
            framed = any(s.fold_x or any(p.tile or p.scale != 1.0 for p in s.placements) for s in sheets)
            key = hashlib.sha256(f"frame\n{ident}".encode()).hexdigest()
            self._frames[ident] = self._whole(self.cache.draw(key, {}, lambda _: self._frame(sheets)), len(sheets),
                                              lambda: self._frame(sheets)) if framed else None
        return self._frames[ident]

    def draw_copy(self, item: PieceCopy, pack, context: dict) -> bytes:
        """One copy of a piece (one side) alone on a page, MARGIN wider than it on every side: drawn
        once a build and kept in the piece cache, so a board every pack and paper prints is drawn
        once an edition, and a tiled board once for all its tiles."""
        ident = self._identity(item, pack)
        if ident not in self._copies:
            self._copies[ident] = self._whole(
                self.cache.draw(ident, context, lambda watched: self._draw_copy(item, pack, watched)), 1,
                lambda: self._draw_copy(item, pack, context))
        return self._copies[ident]

    @staticmethod
    def _whole(data: bytes, pages: int, draw) -> bytes:
        """A stored drawing with the pages it should have, else the drawing made again (an entry
        whose bytes match its recorded hash but that another build, or a person, cut short)."""
        from generator.pdfbytes import open_pdf
        try:
            with open_pdf(data) as pdf:
                if len(pdf.pages) == pages:
                    return data
        except pikepdf.PdfError:
            pass
        return draw()

    def _identity(self, item: PieceCopy, pack) -> str:
        """What decides a copy besides the context: its piece and side, and its copy number, player
        and pack where the piece's expressions name them (a record board that never names the pack
        is the same board in every pack)."""
        spec, named = self._spec_json(item.piece)
        parts = [spec, item.side]
        if "copy" in named:
            parts.append(str(item.copy))
        if "player" in named:
            parts.append(json.dumps(plain(item.player), sort_keys=True, ensure_ascii=False))
        if "pack" in named:
            parts.append(json.dumps(pack_data(pack), sort_keys=True, ensure_ascii=False, default=repr))
        return hashlib.sha256("\n".join(parts).encode()).hexdigest()

    def _spec_json(self, piece: PieceSpec) -> tuple[str, frozenset[str]]:
        """(the piece's spec as canonical JSON, the context names its texts mention)."""
        if piece.id not in self._specs:
            data = self._piece_data(piece)
            self._specs[piece.id] = (json.dumps(data, sort_keys=True, ensure_ascii=False, default=repr),
                                     frozenset(_names_in(data)))
        return self._specs[piece.id]

    def _draw_copy(self, item: PieceCopy, pack, context: dict) -> bytes:
        register_fonts(self.assets)         # once a process, when something is drawn (not for a stored drawing)
        w, h = item.size
        buffer = io.BytesIO()
        canvas = Canvas(buffer, pagesize=((w + 2 * MARGIN) * PT, (h + 2 * MARGIN) * PT), invariant=1,
                        pageCompression=1, initialFontName=registered(self.assets.fonts[0]))
        canvas.translate(MARGIN * PT, MARGIN * PT)
        pen = self._pen(canvas, h)
        self.draw_piece(pen, item, {**context, "pack": pack_data(pack)})
        canvas.showPage()
        canvas.save()
        return _tidied(buffer.getvalue())

    def _pen(self, canvas, page_height: float, origin=(0, 0)) -> Pen:
        return Pen(canvas, self.assets, page_height, origin, self.ink_saver, self._check_words)

    def _check_words(self, text: str) -> None:
        left = self.game.untranslated(text)
        if left:
            raise DrawError(f"the {self.game.language} edition prints {left[0]!r} untranslated (add it to text: "
                            f"in {self.game.catalogue}; inside an expression write _('…'))")
        self.cache.drew_text(text)

    def _frame(self, sheets: list[PieceSheet]) -> bytes:
        """What the sheets print besides their pieces, a page each (a tile's alignment marks,
        diagram and note; a reduced piece's note; the fold line)."""
        register_fonts(self.assets)
        buffer = io.BytesIO()
        canvas = Canvas(buffer, invariant=1, pageCompression=1, initialFontName=registered(self.assets.fonts[0]))
        for sheet in sheets:
            canvas.setPageSize((sheet.page[0] * PT, sheet.page[1] * PT))
            page = self._pen(canvas, sheet.page[1])
            for placement in sheet.placements:
                if placement.tile is not None:
                    if placement.item.side == "front":      # (a back is glued on as its front's marks say)
                        self._tile_marks(page, placement)
                elif placement.scale != 1.0:
                    self._scale_note(page, placement)
            if sheet.fold_x:
                page.line([(sheet.fold_x, 5), (sheet.fold_x, sheet.page[1] - 5)], stroke="#777777", line=0.5, dash=True)
            canvas.showPage()
        canvas.save()
        return buffer.getvalue()

    def _scale_note(self, page: Pen, placement) -> None:
        """Below a piece larger than the sheet, drawn reduced: the scale it is printed at."""
        rect, item = placement.rect, placement.item
        w, h = item.size
        note = self.t.gettext("%(piece)s: printed reduced to %(scale)s%% on one page (full size %(w)s × %(h)s mm)") % {
            "piece": item.piece.name, "scale": f"{placement.scale * 100:.0f}", "w": f"{w:g}", "h": f"{h:g}"}
        page.text(note, rect.x, rect.y + rect.h + 2, size=8, fill="#555555", align="centre", width=rect.w)

    def _tile_marks(self, page: Pen, placement) -> None:
        """Around one tile of a piece larger than the sheet: the alignment marks its neighbours
        share, its outline and an assembly diagram with a note."""
        tile, item = placement.tile, placement.item
        at, area = tile.at, tile.area
        for x, y in _alignment_points(tile):
            px, py = at.x + x - area.x, at.y + y - area.y
            page.circle(px, py, 2.2, stroke="#c0392b", line=0.4)
            page.line([(px - 3.5, py), (px + 3.5, py)], stroke="#c0392b", line=0.4)
            page.line([(px, py - 3.5), (px, py + 3.5)], stroke="#c0392b", line=0.4)
        page.rect(at.x, at.y, at.w, at.h, stroke="#888888", line=0.3, dash=True)
        below = at.y + at.h + 3
        cell = 4.5
        for r in range(tile.rows):
            for c in range(tile.cols):
                current = (r, c) == (tile.row, tile.col)
                page.rect(at.x + c * cell, below + r * cell, cell, cell, fill="#f5b041" if current else "#ffffff",
                          stroke="#555555", line=0.4)
                page.text(str(r * tile.cols + c + 1), at.x + c * cell, below + r * cell + 0.7, size=6,
                          align="centre", width=cell)
        w, h = item.size
        note = self.t.gettext("%(piece)s (%(w)s × %(h)s mm) · tile %(n)d / %(tiles)d, row %(row)d, column %(col)d · "
                              "neighbouring tiles overlap by %(overlap)s mm: align the red ⊕ and glue") % {
            "piece": item.piece.name, "w": f"{w:g}", "h": f"{h:g}", "n": tile.number, "tiles": tile.rows * tile.cols,
            "row": tile.row + 1, "col": tile.col + 1, "overlap": f"{TILE_OVERLAP:g}"}
        page.text(note, at.x + tile.cols * cell + 4, below, size=8, fill="#333333", width=at.w - tile.cols * cell - 4)

    def draw_piece(self, pen: Pen, item: PieceCopy, context: dict) -> None:
        piece = item.piece
        w, h = item.size
        ctx = {**context, "player": plain(item.player), "copy": item.copy, "piece": self._piece_data(piece)}
        elements = piece.elements if item.side == "front" else (piece.back or [])
        key = "elements" if item.side == "front" else "back"
        line = piece_line(self.game, piece.id, "background")
        try:
            background = _c(piece.background, ctx, "background")
        except ExprError as exc:
            raise PnpError(Problem(self.file, line, f"piece {piece.id}: background: {exc}")) from None
        except DrawError as exc:
            raise PnpError(Problem(self.file, line, f"piece {piece.id}: {exc}")) from None
        if piece.shape == "circle":
            pen.circle(w / 2, h / 2, min(w, h) / 2, fill=background)
        else:
            pen.rect(0, 0, w, h, fill=background)
        for index, element in enumerate(elements):
            pen.drawn = []
            try:
                draw_element(pen, element, ctx)
                _inside(pen.drawn, w, h)
            except (ExprError, GlyphError, DrawError, TypeError, ValueError, KeyError) as exc:
                at = getattr(exc, "at", ())
                where = (self.file, piece_line(self.game, piece.id, key, index, *at))
                if isinstance(exc, GlyphError) and exc.char:       # a translation's character: at its entry
                    where = self.game.entry_holding(exc.char) or where
                raise PnpError(Problem(*where, f"piece {piece.id}: {element.type}: {exc}")) from None
        pen.drawn = None
        self._cut_line(pen, piece, w, h)

    def _piece_data(self, piece: PieceSpec) -> dict:
        """A piece as plain data, copied once however many copies are drawn."""
        if piece.id not in self._pieces:
            self._pieces[piece.id] = plain(piece)
        return self._pieces[piece.id]

    def _cut_line(self, pen: Pen, piece: PieceSpec, w: float, h: float) -> None:
        """A thin outline to cut along, and a dashed fold line where the piece folds."""
        if not piece.outline:
            pass
        elif piece.shape == "circle":
            pen.circle(w / 2, h / 2, min(w, h) / 2, stroke="#666666", line=0.4)
        else:
            pen.rect(0, 0, w, h, stroke="#666666", line=0.4)
        if piece.fold == "horizontal":
            pen.line([(0, h / 2), (w, h / 2)], stroke="#888888", line=0.4, dash=True)

def pieces_file(game: Game) -> str:
    """The game's pieces file, as a problem names it."""
    return f"cards/{game.id}/{game.spec.pieces}"


def piece_line(game: Game, piece_id: str, *path) -> int | None:
    """The line of a piece's entry in its file (or of what `path` names inside it), if known."""
    raw = game.files.get(pieces_file(game))
    for position, entry in enumerate((raw or {}).get("pieces") or []):
        if entry.get("id") == piece_id:
            return line_at(raw, ("pieces", position, *path))[1]
    return None


EDGE_TOLERANCE = 0.2    # mm: a stroke's half width may reach past the edge it is drawn on


def _inside(boxes: list, w: float, h: float) -> None:
    """Everything an element drew lies on its piece: text or a shape past the edge would be cut
    off, or print over the next piece on the sheet."""
    for x0, y0, x1, y1 in boxes:
        over = max(-x0, -y0, x1 - w, y1 - h)
        if over > EDGE_TOLERANCE:
            raise DrawError(f"draws {over:.1f} mm outside the piece (at {x0:.1f}, {y0:.1f} to {x1:.1f}, {y1:.1f} mm; "
                            f"the piece is {w:g} × {h:g} mm)")


def _alignment_points(tile) -> list[tuple[float, float]]:
    """Piece coordinates of ⊕ marks in this tile's overlaps; its neighbour prints the same points."""
    area = tile.area
    points = []
    xs_bands = []
    if tile.col > 0:
        xs_bands.append(area.x + TILE_OVERLAP / 2)
    if tile.col < tile.cols - 1:
        xs_bands.append(area.x + area.w - TILE_OVERLAP / 2)
    ys_bands = []
    if tile.row > 0:
        ys_bands.append(area.y + TILE_OVERLAP / 2)
    if tile.row < tile.rows - 1:
        ys_bands.append(area.y + area.h - TILE_OVERLAP / 2)
    step = 40.0
    for x in xs_bands:
        points += [(x, y) for y in _every(step, area.y + 8, area.y + area.h - 8)]
    for y in ys_bands:
        points += [(x, y) for x in _every(step, area.x + 8, area.x + area.w - 8)]
    return points


def _every(step: float, low: float, high: float) -> list[float]:
    """Multiples of step inside [low, high] (shared by neighbours because they are absolute)."""
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) // step) + 1)] if first <= high else []


# --- the primitives -------------------------------------------------------------------------

def draw_element(pen: Pen, element, ctx: dict) -> None:
    if element.when is not None and not evaluate(element.when, ctx):
        return
    DRAW[element.type](pen, element, ctx)


def draw_repeat(pen: Pen, el, ctx):
    if el.items is not None:
        items = _v(el.items, ctx)
        if not isinstance(items, (list, tuple)):
            raise DrawError(f"items must be a list, got {items!r}")
    else:
        items = [None] * _count(max(_i(el.count, ctx, "count"), 0), "repeat")
    _count(len(items), "repeat")
    x0, y0, dx, dy = _n(el.x, ctx), _n(el.y, ctx), _n(el.dx, ctx), _n(el.dy, ctx)
    for index, item in enumerate(items):
        row, col = divmod(index, el.per_row)
        local = {**ctx, "i": index, "item": item}
        inner = pen.at(x0 + col * dx, y0 + row * dy)
        for number, element in enumerate(el.elements):
            try:
                draw_element(inner, element, local)
            except DrawError as exc:        # named at the inner element's line, not the repeat's
                raise DrawError(str(exc), ("elements", number, *exc.at)) from None


def _v(value: Any, ctx: dict) -> Any:
    return plain(evaluate_deep(value, ctx))      # a literal list in the YAML is plain data too


def _n(value: Any, ctx: dict, what: str = "value") -> float:
    result = evaluate(value, ctx)
    try:
        number = float(result) if not isinstance(result, bool) else None
    except (TypeError, ValueError, OverflowError):
        number = None
    if number is None:
        raise DrawError(f"{what}: expected a number, got {abbreviate(repr(result), 80)}")
    if not math.isfinite(number) or abs(number) > MAX_MM:
        raise DrawError(f"{what}: {number:g} is not a usable number (at most ±{MAX_MM:g})")
    return number


def _count(n: int, what: str) -> int:
    """How many cells, items or copies one element draws, capped: a million-cell track is a
    mistake that would take minutes to draw."""
    if n > MAX_CELLS:
        raise DrawError(f"{what}: {n:,} cells; an element draws at most {MAX_CELLS:,}")
    return n


def _i(value: Any, ctx: dict, what: str = "value") -> int:
    number = _n(value, ctx, what)
    if not float(number).is_integer():
        raise DrawError(f"{what}: expected a whole number, got {number}")
    return int(number)


def _s(value: Any, ctx: dict) -> str:
    result = evaluate(value, ctx)
    return "" if result is None else str(result)


def _c(value: Any, ctx: dict, *key) -> Any:
    """A colour key's value (`key`: its path in the element), evaluated and made reportlab's by
    the pen's one check, so a colour an expression gives meets the rule a written one does."""
    result = evaluate(value, ctx)
    try:
        if result is None:      # (to the pen None is no colour; an expression that gives nothing is a mistake)
            raise ColourError(not_a_colour(result))
        return colour(result)
    except ColourError as exc:
        raise DrawError(f"{'.'.join(map(str, key))}: {exc}", key) from None


def draw_rect(pen: Pen, el, ctx):
    pen.rect(_n(el.x, ctx), _n(el.y, ctx), _n(el.w, ctx, "w"), _n(el.h, ctx, "h"),
             fill=_c(el.fill, ctx, "fill"), stroke=_c(el.stroke, ctx, "stroke"), line=el.line,
             radius=_n(el.radius, ctx), dash=el.dash)


def draw_line(pen: Pen, el, ctx):
    points = [(_n(p[0], ctx), _n(p[1], ctx)) for p in _v(el.points, ctx)]
    stroke = _c(el.stroke, ctx, "stroke")
    pen.at(_n(el.x, ctx), _n(el.y, ctx)).line(points, stroke=stroke, line=el.line, dash=el.dash)
    if el.arrow and len(points) >= 2:
        (x1, y1), (x2, y2) = points[-2], points[-1]
        angle = math.atan2(y2 - y1, x2 - x1)
        size = 2.2
        left = (x2 - size * math.cos(angle - 0.45), y2 - size * math.sin(angle - 0.45))
        right = (x2 - size * math.cos(angle + 0.45), y2 - size * math.sin(angle + 0.45))
        pen.at(_n(el.x, ctx), _n(el.y, ctx)).line([left, (x2, y2), right], stroke=stroke, line=el.line)


def draw_text(pen: Pen, el, ctx):
    width = _n(el.w, ctx) if el.w is not None else None
    pen.text(_s(el.text, ctx), _n(el.x, ctx), _n(el.y, ctx), size=_n(el.size, ctx), bold=el.bold,
             fill=_c(el.colour, ctx, "colour"), align=el.align, width=width, rotate=_n(el.rotate, ctx))


def draw_icon(pen: Pen, el, ctx):
    size = _n(el.size, ctx)
    pen.icon(_s(el.icon, ctx), _n(el.x, ctx), _n(el.y, ctx), size, rotate=_n(el.rotate, ctx))


def draw_track(pen: Pen, el, ctx):
    """Numbered cells from `from` to `to`, per_row a row; marked cells filled and labelled."""
    x0, y0 = _n(el.x, ctx), _n(el.y, ctx)
    start, end = _i(el.start, ctx, "from"), _i(el.end, ctx, "to")
    if end < start:
        raise DrawError(f"from {start} is above to {end}")
    _count(end - start + 1, "track")
    cell, row_h, gap = _n(el.cell, ctx), _n(el.row_height, ctx), _n(el.row_gap, ctx)
    text_size = _n(el.text_size, ctx)
    stroke, negative = _c(el.colour, ctx, "colour"), _c(el.negative_fill, ctx, "negative_fill")
    marks, fills = {}, {}       # a value's marks; its fill (the last mark's that has one)
    for number, mark in enumerate(el.marks):
        if mark.when is not None and not evaluate(mark.when, ctx):
            continue
        value = _i(mark.value, ctx, "mark value")
        marks.setdefault(value, []).append(mark)
        if mark.fill:
            fills[value] = _c(mark.fill, ctx, "marks", number, "fill")
    label_rows: dict[int, int] = {}
    for value in range(start, end + 1):
        index = value - start
        row, col = divmod(index, el.per_row)
        x, y = x0 + col * cell, y0 + row * (row_h + gap)
        fill = fills.get(value, "#ffffff" if value >= 0 else negative)
        here = marks.get(value, [])
        pen.rect(x, y, cell, row_h, fill=fill, stroke=stroke, line=0.5)
        icon = min(row_h * 0.42, cell * 0.42)
        icons = [m for m in here if m.icon]
        text_w = cell - (icon + 0.4) * len(icons)
        pen.text(str(value), x, y + (row_h - text_size / PT * 1.1) / 2, size=text_size, fill="#333333",
                 align="centre", width=text_w)
        for number, mark in enumerate(icons):
            pen.icon(_s(mark.icon, ctx), x + cell - (icon + 0.4) * (number + 1), y + 0.4, icon)
        for mark in (m for m in here if m.label):
            # a label under its cell; one close to the previous label drops a line to stay clear
            line = 1 if label_rows.get(index - 1) == 0 or label_rows.get(index - 2) == 0 else 0
            label_rows[index] = line
            size = max(text_size - 2, 6)          # 6 pt: the smallest size preflight accepts by default
            pen.text(_s(mark.label, ctx), x - cell, y + row_h + 0.4 + line * size * 1.3 / PT, size=size,
                     fill="#333333", align="centre", width=3 * cell)


def draw_stations(pen: Pen, el, ctx):
    items = _v(el.items, ctx)
    if not isinstance(items, (list, tuple)) or not items:
        raise DrawError(f"items must be a non-empty list, got {items!r}")
    x0, y0, w, h = _n(el.x, ctx), _n(el.y, ctx), _n(el.w, ctx, "w"), _n(el.h, ctx, "h")
    rows = el.rows
    cols = math.ceil(len(items) / rows)
    r = _n(el.radius, ctx)
    centres = []
    for index in range(len(items)):
        row, col = divmod(index, cols)
        if row % 2:                          # snake: every other row runs back
            col = cols - 1 - col
        cx = x0 + (col + 0.5) * w / cols
        cy = y0 + row * h / rows + r + 2
        centres.append((cx, cy))
    path = [centres[0]]
    for (ax, ay), (bx, by) in zip(centres, centres[1:]):
        if abs(ay - by) > 1e-6:          # a row change runs down the outside of the two stations
            side = r + 6 if ax >= x0 + w / 2 else -(r + 6)
            path += [(ax + side, ay), (bx + side, by)]
        path.append((bx, by))
    fill, stroke = _c(el.fill, ctx, "fill"), _c(el.stroke, ctx, "stroke")
    pen.line(path, stroke=_c(el.path_colour, ctx, "path_colour"), line=5, dash=False)
    pen.line(path, stroke="#ffffff", line=1.2, dash=True)
    size = _n(el.text_size, ctx)
    for index, (item, (cx, cy)) in enumerate(zip(items, centres)):
        local = {**ctx, "item": item, "index": index}
        pen.circle(cx, cy, r, fill=fill, stroke=stroke, line=1.2)
        pen.icon(_s(el.icon, local), cx - r * 0.62, cy - r * 0.62, r * 1.24)
        top = cy + r + 1.5
        top += pen.text(_s(el.title, local), cx - w / cols / 2, top, size=size * 1.25, bold=True,
                        align="centre", width=w / cols)
        for number, line in enumerate(el.lines):
            strong = number in el.strong
            top += pen.text(_s(line, local), cx - w / cols / 2, top, size=size * (1.15 if strong else 1),
                            bold=strong, align="centre", width=w / cols)


def draw_table(pen: Pen, el, ctx):
    x0, y0 = _n(el.x, ctx), _n(el.y, ctx)
    widths = [_n(c, ctx, "column width") for c in el.columns]
    row_h = _n(el.row_height, ctx)
    size = _n(el.text_size, ctx)
    rows = _v(el.rows, ctx)
    if isinstance(rows, int):
        rows = [[""] * len(widths) for _ in range(_count(rows, "table"))]
    if el.row_items is not None:
        items = _v(el.row_items, ctx)
        rows = [[_s(cell, {**ctx, "item": item, "i": i}) for cell in el.cells or []]
                for i, item in enumerate(items)] + list(rows)
    header = [_s(h, ctx) for h in el.header] if el.header else None
    all_rows = ([header] if header else []) + [[_s(c, ctx) for c in row] for row in rows]
    y = y0
    highlight = set(el.highlight_rows)
    header_fill, highlight_fill = _c(el.header_fill, ctx, "header_fill"), _c(el.highlight_fill, ctx, "highlight_fill")
    stroke = _c(el.stroke, ctx, "stroke")
    for number, row in enumerate(all_rows):
        is_header = header is not None and number == 0
        data_index = number - (1 if header else 0)
        x = x0
        for column, (width, value) in enumerate(zip(widths, row)):
            fill = header_fill if is_header else highlight_fill if data_index in highlight else "#ffffff"
            pen.rect(x, y, width, row_h, fill=fill, stroke=stroke, line=0.4)
            if value:
                used = pen.text(value, x + 0.8, y + (row_h - size / PT * 1.15) / 2, size=size,
                                bold=is_header or column in el.bold_columns, align="centre", width=width - 1.6)
                if used > row_h + EDGE_TOLERANCE:         # its second line would print over the cell's edge
                    raise DrawError(f"{value!r} in column {column + 1} takes {used:.1f} mm, more than its row of "
                                    f"{row_h:g} mm: its text is clipped by the cell (widen the column or shorten it)")
            x += width
        y += row_h


def draw_ring(pen: Pen, el, ctx):
    """A ring of cells (a wheel), clockwise from start_angle: an icon, a label and a sublabel each."""
    cx, cy, r_out, r_in = (_n(v, ctx) for v in (el.cx, el.cy, el.outer, el.inner))
    cells = _v(el.cells, ctx)
    labels = [str(c) for c in cells] if isinstance(cells, (list, tuple)) else [""] * _count(int(cells), "ring")
    _count(len(labels), "ring")
    icons = _v(el.icons, ctx) if el.icons is not None else []
    subs = _v(el.sublabels, ctx) if el.sublabels is not None else []
    count = len(labels)
    step = 360 / count
    start = _n(el.start_angle, ctx)
    size, sub_size = _n(el.text_size, ctx), _n(el.sublabel_size, ctx)
    band = r_out - r_in
    highlight = set(_v(el.highlight, ctx))
    fill, highlight_fill = _c(el.fill, ctx, "fill"), _c(el.highlight_fill, ctx, "highlight_fill")
    stroke = _c(el.stroke, ctx, "stroke")
    for index, label in enumerate(labels):
        angle = start - index * step if el.clockwise else start + index * step
        pen.wedge(cx, cy, r_out, r_in, angle - step / 2, step, fill=highlight_fill if index in highlight else fill,
                  stroke=stroke, line=0.8)
        mid = (r_out + r_in) / 2
        tx = cx + mid * math.cos(math.radians(angle))
        ty = cy - mid * math.sin(math.radians(angle))
        width = min(2 * math.pi * mid / count, 2 * band) * 0.9
        icon = icons[index] if index < len(icons) else None
        sub = subs[index] if index < len(subs) else None
        isize = min(band * 0.3, width * 0.4) if icon else 0
        lines = pen.wrap(sub, sub_size, False, width) if sub else []
        height = isize + size / PT * 1.2 + len(lines) * sub_size / PT * 1.32
        top = ty - height / 2
        if icon:
            pen.icon(str(icon), tx - isize / 2, top, isize)
            top += isize
        pen.text(label, tx - width / 2, top, size=size, bold=True, align="centre", width=width)
        top += size / PT * 1.2
        if sub:
            pen.text(str(sub), tx - width / 2, top, size=sub_size, fill="#555555", align="centre", width=width)


def draw_cells(pen: Pen, el, ctx):
    count = _count(_i(el.count, ctx, "count"), "cells")
    cell = _n(el.cell, ctx)
    labels = _v(el.labels, ctx) if el.labels is not None else []
    x0, y0 = _n(el.x, ctx), _n(el.y, ctx)
    stroke = _c(el.stroke, ctx, "stroke")
    for index in range(count):
        row, col = divmod(index, el.per_row)
        x, y = x0 + col * cell, y0 + row * cell
        pen.rect(x, y, cell, cell, fill="#ffffff", stroke=stroke, line=0.5)
        if index < len(labels) and labels[index] not in (None, ""):
            pen.text(str(labels[index]), x, y + 0.6, size=_n(el.text_size, ctx), fill="#777777",
                     align="centre", width=cell)


def draw_pattern(pen: Pen, el, ctx):
    """The player patterns (stripes, dots …) as light strokes over an area."""
    ink = _c(el.colour, ctx, "colour")       # (checked in an ink-saver print too, which leaves it out)
    if pen.ink_saver:
        return
    kind = _s(el.pattern, ctx)
    x0, y0, w, h = _n(el.x, ctx), _n(el.y, ctx), _n(el.w, ctx), _n(el.h, ctx)
    c = pen.c
    pen._mark(x0, y0, x0 + w, y0 + h)
    drawn, pen.drawn = pen.drawn, None      # the strokes below are clipped to that area
    c.saveState()
    clip = c.beginPath()
    px, py = pen.xy(x0, y0 + h)
    clip.rect(px, py, w * PT, h * PT)
    c.clipPath(clip, stroke=0, fill=0)
    c.setStrokeAlpha(el.opacity)
    c.setFillAlpha(el.opacity)
    step = 3.4
    if kind in ("stripes", "zigzag", "diamonds", "checks"):
        n = int((w + h) / step) + 2
        for i in range(n):
            d = i * step
            if kind in ("stripes", "diamonds", "checks"):
                pen.line([(x0 + d, y0), (x0 + d - h, y0 + h)], stroke=ink, line=2.2)
            if kind in ("diamonds", "checks"):
                pen.line([(x0 + d - h, y0), (x0 + d, y0 + h)], stroke=ink, line=2.2)
        if kind == "zigzag":
            for j in range(int(h / step) + 1):
                pts = [(x0 + i * step / 2, y0 + j * step + (step / 2 if i % 2 else 0)) for i in range(int(2 * w / step) + 2)]
                pen.line(pts, stroke=ink, line=1.6)
    elif kind == "dots":
        for i in range(int(w / 3) + 1):
            for j in range(int(h / 3) + 1):
                pen.circle(x0 + 1.5 + i * 3, y0 + 1.5 + j * 3, 0.6, fill=ink)
    elif kind == "waves":
        for j in range(int(h / 3) + 1):
            pts = [(x0 + i * 0.5, y0 + 1.5 + j * 3 + 0.8 * math.sin(i * 0.5 * 2 * math.pi / 6)) for i in range(int(w / 0.5) + 2)]
            pen.line(pts, stroke=ink, line=1.4)
    c.restoreState()
    pen.drawn = drawn


DRAW = {"rect": draw_rect, "line": draw_line, "text": draw_text, "icon": draw_icon, "track": draw_track,
        "stations": draw_stations, "table": draw_table, "ring": draw_ring, "cells": draw_cells,
        "pattern": draw_pattern, "repeat": draw_repeat}


def _assembled(sheets: list[PieceSheet], drawings: list[list[bytes]], frame: bytes | None) -> bytes:
    """The sheets as one PDF: each copy's drawing placed as a form (clipped to its tile, turned for
    a short-edge back, reduced with --fit), under what the frame's page for that sheet draws."""
    from generator.pdfbytes import open_pdf, pdf_bytes
    from generator.render.fontmerge import tidy_fonts
    with ExitStack() as sources:
        out = sources.enter_context(open_pdf(frame) if frame is not None else pikepdf.new())
        if frame is None:
            for sheet in sheets:
                out.add_blank_page(page_size=(pt(sheet.page[0]), pt(sheet.page[1])))
        forms: dict[bytes, pikepdf.Object] = {}
        for sheet, page, copies in zip(sheets, out.pages, drawings):
            ops = []
            for index, (placement, drawing) in enumerate(zip(sheet.placements, copies)):
                if drawing not in forms:        # (kept open: a form's streams are copied when `out` is saved)
                    source = sources.enter_context(open_pdf(drawing))
                    forms[drawing] = out.copy_foreign(source.pages[0].as_form_xobject())
                name = pikepdf.Name(f"/C{index}")
                page.add_resource(forms[drawing], pikepdf.Name.XObject, name)
                ops.append(f"q {_clip(placement, sheet.page[1])}{_matrix(placement, sheet.page[1])} cm {name} Do Q")
            page.contents_add(pikepdf.Stream(out, "\n".join(ops).encode("ascii")), prepend=True)
        if frame is not None:
            tidy_fonts(out)
        return pdf_bytes(out, deterministic_id=True, compress_streams=True)


def _matrix(placement: Placement, sheet_height: float) -> str:
    """Where a copy's drawing goes: its piece's top-left corner on the sheet's point (the drawing's
    page is MARGIN wider on each side), at its scale, turned 180° for a short-edge back."""
    w, h = placement.item.size
    if placement.tile is not None:          # the whole piece, shifted so this tile's area is on the page
        tile, s = placement.tile, 1.0
        if placement.rotation == 180:       # (a short-edge back: its area's top-left at the tile's bottom-right)
            x, top = tile.at.x + tile.at.w + tile.area.x - w, tile.at.y + tile.at.h + tile.area.y - h
        else:
            x, top = tile.at.x - tile.area.x, tile.at.y - tile.area.y
    else:
        x, top, s = placement.rect.x, placement.rect.y, placement.scale
    if placement.rotation == 180:           # its top-left corner at the rect's bottom-right
        return (f"{operand(-s)} 0 0 {operand(-s)} {operand(pt(x + s * (w + MARGIN)))} "
                f"{operand(pt(sheet_height - top + s * MARGIN))}")
    return (f"{operand(s)} 0 0 {operand(s)} {operand(pt(x - s * MARGIN))} "
            f"{operand(pt(sheet_height - top - s * (h + MARGIN)))}")


def _clip(placement: Placement, sheet_height: float) -> str:
    """A tile prints only its part of the piece."""
    if placement.tile is None:
        return ""
    at = placement.tile.at
    x, y, w, h = pt(at.x), pt(sheet_height - at.y - at.h), pt(at.w), pt(at.h)
    return f"{operand(x)} {operand(y)} {operand(w)} {operand(h)} re W n "


def _tidied(data: bytes) -> bytes:
    """reportlab's drawing with its fonts tidied (fontmerge.tidy_fonts: the empty text objects
    that keep Helvetica listed dropped, subsets tagged by their programs) once, as the piece cache
    keeps it: a pack that places it then has nothing to parse in it."""
    from generator.pdfbytes import open_pdf, pdf_bytes
    from generator.render.fontmerge import tidy_fonts
    with open_pdf(data) as pdf:
        tidy_fonts(pdf)
        return pdf_bytes(pdf, deterministic_id=True, compress_streams=True)
