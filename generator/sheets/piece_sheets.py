"""A pack's boards, maps, tracks and tokens as sheets: packed together, tiled when larger than the
paper (or reduced with --fit), backs mirrored for duplex or beside the fold for gutter-fold."""
from __future__ import annotations

import functools
import hashlib
from dataclasses import replace

import pikepdf

from generator.check.validate import context as expression_context
from generator.errors import PnpError, Problem
from generator.pdfbytes import open_pdf
from generator.geometry import (FOLD_CLEAR, MIN_MARGIN, PAPERS, Placement, PieceSheet, Rect, Tile, back_placement,
                                fits_sheet, pack_pieces, pt, scaled_alone, tiles)
from generator.sheets import cutters
from generator.sheets.sections import Body, Section, back_run, run_for
from generator.source.assets import Assets
from generator.source.game import Game
from generator.source.options import PrintOptions
from generator.source.schema import PackSpec


class PieceSheets:
    def __init__(self, assets: Assets, game: Game, options: PrintOptions):
        self.assets, self.game, self.options = assets, game, options

    @functools.cached_property
    def drawer(self):
        """The board drawer; reportlab is only loaded for a game that has pieces."""
        from generator.render.pieces import PieceDrawer
        return PieceDrawer(self.assets, self.game, ink_saver=self.options.ink_saver)

    def sections(self, pack: PackSpec) -> list[Section]:
        counts = self.game.piece_counts[pack.key]
        colours = self.game.spec.player_colours
        sections = []
        for piece_id, piece in self.game.pieces.items():
            count = counts.get(piece_id, 0)
            if not count:
                continue
            from generator.render.pieces import PieceCopy
            each = int(piece.per_player)     # copies per player (True counts as 1)
            copies = [PieceCopy(piece, i + 1, colours[i // each] if each else None) for i in range(count)]
            two_sided = piece.back is not None
            sections.append(Section(piece_id, piece.name, "piece",
                                    run_for(two_sided, piece.stock, self.options.duplex), count, copies, two_sided))
        return sections

    def draw(self, body: Body, sections: list[Section], paper: str, pack: PackSpec) -> list:
        """Add one run's piece sheets; returns the back sheets still to add (with --duplex none)."""
        return [make for group in _by_sides(sections) for make in self._draw(body, group, paper, pack)]

    def _draw(self, body: Body, sections: list[Section], paper: str, pack: PackSpec) -> list:
        sheets, backs, order = self._layout(sections, paper)
        by_id = {s.id: s for s in sections}
        self._add_pages(body, order, pack)
        numbers = {id(sheet): self._add_entry(body, sheet, by_id) for sheet in order}
        if self.options.duplex != "none" or not backs:
            return []

        def make_backs():
            self._add_pages(body, backs, pack)
            for front, back in zip(sheets, backs):
                self._add_entry(body, back, by_id, front_page=numbers[id(front)])
        return [make_backs]

    def _add_pages(self, body: Body, sheets: list[PieceSheet], pack: PackSpec) -> None:
        """The sheets' pages: their drawing's, or, for a pack built on its last file, that file's
        pages of the same drawing (body.imposer, sheets/sheet_cache.py)."""
        def make():
            drawn = open_pdf(self.drawer.draw_sheets(sheets, pack, expression_context(self.game)))
            body.keep.append(drawn)
            for sheet, page in zip(sheets, drawn.pages):
                body.pdf.pages.append(page)
                page = body.pdf.pages[-1]
                if len(sheet.placements) == 1:      # one piece on the page: its trim is the page's trim box
                    rect = sheet.placements[0].rect
                    page.obj.TrimBox = page.obj.BleedBox = pikepdf.Array(
                        [pt(rect.x), pt(sheet.page[1] - rect.y - rect.h), pt(rect.x + rect.w), pt(sheet.page[1] - rect.y)])
                if sheet.cutter is not None:
                    self._registration(body, page, sheet)
        body.imposer.whole_pages(f"pieces {self._drawing_key(sheets, pack)}", len(sheets), make)

    def drawing_keys(self, sections: list[Section], paper: str, pack: PackSpec) -> list[str]:
        """The keys of the drawings one run's sheets are made of (_drawing_key): a pack's store key
        names them by these."""
        keys = []
        for group in _by_sides(sections):
            _, backs, order = self._layout(group, paper)
            separate = self.options.duplex == "none" and backs
            keys += [self._drawing_key(sheets, pack) for sheets in [order] + ([backs] if separate else [])]
        return keys

    def _drawing_key(self, sheets: list[PieceSheet], pack: PackSpec) -> str:
        """What a drawing of sheets is made of, known without assembling it (render/pieces.py
        draw_sheets): each sheet's layout (its pieces' specs, copies, players and places, tiles, fold
        and cutter), the bytes of every copy placed and of what the sheets add (a tile's marks and
        note, the fold line), both from the piece cache."""
        digest = hashlib.sha256(self.drawer.layout(sheets, pack).encode())
        digest.update(hashlib.sha256(self.drawer.frame(sheets, pack) or b"").digest())
        context = expression_context(self.game)
        for placement in (p for sheet in sheets for p in sheet.placements):
            digest.update(hashlib.sha256(self.drawer.draw_copy(placement.item, pack, context)).digest())
        return digest.hexdigest()

    def _layout(self, sections: list[Section], paper: str) -> tuple[list, list, list]:
        """(front sheets, back sheets, the sheets in the order one drawing prints them)."""
        two_sided = sections[0].two_sided
        if two_sided and self.options.duplex == "gutterfold":
            sheets = self._fold_sheets(sections, paper)
        else:
            sheets = self._sheets(sections, paper)
        backs = [self._back_sheet(s) for s in sheets] if two_sided and self.options.duplex != "gutterfold" else []
        order = sheets if self.options.duplex == "none" or not backs else [x for pair in zip(sheets, backs) for x in pair]
        return sheets, backs, order

    def _sheets(self, sections: list[Section], paper: str) -> list[PieceSheet]:
        """Sheets for the run's pieces: packed together; one larger than a sheet is tiled
        (or, with --fit, reduced onto one sheet). With --cutter, the pieces that fit the machine's
        cut area come first, packed inside it, on sheets with its registration marks."""
        copies = [c for s in sections for c in s.items]
        sheets, batch = [], []
        if self.options.cutter:
            machine, copies = self._for_the_cutter(copies, paper)
            sheets += machine
        for copy in copies:
            if fits_sheet(copy.size, paper):
                batch.append((copy, copy.size, copy.piece.own_page, copy.piece.gap))
                continue
            sheets += pack_pieces(batch, paper)
            batch = []
            if self.options.fit:
                sheets.append(scaled_alone(copy, copy.size, paper))
            else:
                sheets += [PieceSheet(t.page, [Placement(copy, t.at, tile=t)]) for t in tiles(copy.size, paper)]
        return sheets + pack_pieces(batch, paper)

    def _for_the_cutter(self, copies: list, paper: str) -> tuple[list[PieceSheet], list]:
        """(cutter sheets of the copies that fit its cut area, the copies left to print as usual)."""
        cutter = cutters.CUTTERS[self.options.cutter]
        page = PAPERS[paper]
        area = cutters.cut_area(cutter, page)
        fits = [c.size[0] <= area.w and c.size[1] <= area.h for c in copies]
        items = [(c, c.size, c.piece.own_page, c.piece.gap) for c, ok in zip(copies, fits) if ok]
        sheets = pack_pieces(items, paper, page_size=page, area=area)
        for sheet in sheets:
            sheet.cutter = cutter
        return sheets, [c for c, ok in zip(copies, fits) if not ok]

    def _add_entry(self, body: Body, sheet: PieceSheet, by_id, front_page=None) -> int:
        """The manifest entry of a sheet's page; its number."""
        placed = [_placed(p) for p in sheet.placements]
        owners = [by_id[i] for i in dict.fromkeys(p["piece"] for p in placed)]
        sides = {p["side"] for p in placed}
        role = "board-tile" if placed[0].get("tile") else ("board-back" if sides == {"back"} else "board")
        entry = {"role": role, "size": list(sheet.page), "components": [o.id for o in owners], "pieces": placed}
        if front_page is not None or role == "board-back":
            entry["front_page"] = front_page if front_page is not None else len(body.entries)
        if sheet.fold_x:
            entry["fold_x"] = round(sheet.fold_x, 3)
        cutter = sheet.cutter
        if cutter is not None:
            shapes = cutters.registration(cutter, sheet.page)
            cuts = [{"trim": p.rect.as_list(), "shape": p.item.piece.shape} for p in sheet.placements]
            entry.update({"cutter": cutter.id, "cut_area": cutters.cut_area(cutter, sheet.page).as_list(),
                          "registration": [s.as_list() for s in shapes], "cuts": cuts})
        run = back_run(self.options.duplex) if role == "board-back" else owners[0].run
        return body.add(entry, *owners, run=run)

    def _registration(self, body: Body, page, sheet: PieceSheet) -> None:
        """A cutter sheet's registration marks, drawn over the page (its cut file reads them from the
        page's manifest entry)."""
        shapes = cutters.registration(sheet.cutter, sheet.page)
        page.contents_add(pikepdf.Stream(body.pdf, b"q\n"), prepend=True)      # the drawing's state, closed
        page.contents_add(pikepdf.Stream(body.pdf, b"\nQ\n" + cutters.pdf_ops(shapes, sheet.page[1]).encode()))

    def _back_sheet(self, sheet: PieceSheet) -> PieceSheet:
        placements = []
        for p in sheet.placements:
            rect, rotation = back_placement(p.rect, sheet.page, self.options.duplex, self.options.back_offset)
            tile = p.tile and self._back_tile(p.tile, p.item.size, sheet.page)
            placements.append(replace(p, item=replace(p.item, side="back"), rect=rect, rotation=rotation, tile=tile))
        return PieceSheet(sheet.page, placements)

    def _back_tile(self, tile: Tile, size: tuple[float, float], page: tuple[float, float]) -> Tile:
        """The back of a tile: the whole piece's back where a small piece's back would go (its rect on
        the front page, as the piece lies there, moved by back_placement), shown through the tile's
        place moved the same way; its area is the part of the back behind the front's area."""
        duplex, offset = self.options.duplex, self.options.back_offset
        w, h = size
        whole, rotation = back_placement(Rect(tile.at.x - tile.area.x, tile.at.y - tile.area.y, w, h), page,
                                         duplex, offset)
        at, _ = back_placement(tile.at, page, duplex, offset)
        if rotation == 180:         # the back drawing turned: its point (u, v) lands at the whole's far corner less it
            x, y = whole.x + w - at.x - at.w, whole.y + h - at.y - at.h
        else:
            x, y = at.x - whole.x, at.y - whole.y
        return replace(tile, at=at, area=Rect(round(x, 6) + 0.0, round(y, 6) + 0.0, at.w, at.h))   # (no -0.0)

    def _fold_sheets(self, sections: list[Section], paper: str) -> list[PieceSheet]:
        """Two-sided pieces for gutter-fold: fronts packed left of the fold, backs mirrored right."""
        pw, ph = PAPERS[paper]
        half = (pw / 2 - FOLD_CLEAR + MIN_MARGIN, ph)
        items = [(c, c.size, False, c.piece.gap) for s in sections for c in s.items]
        room = (half[0] - 2 * MIN_MARGIN, ph - 2 * MIN_MARGIN)
        for copy, (w, h), _, _ in items:
            if w > room[0] + 1e-6 or h > room[1] + 1e-6:
                message = (f"piece {copy.piece.id} ({w:g} × {h:g} mm) has a back and does not fit half a "
                           f"gutter-fold sheet of {paper} ({room[0]:g} × {room[1]:g} mm)")
                raise PnpError(self._problem(copy.piece, message,
                                             "print it with --duplex long or short, or make it smaller"))
        sheets = []
        for left in pack_pieces(items, paper, page_size=half):
            placements = list(left.placements)
            for p in left.placements:
                placements.append(replace(p, item=replace(p.item, side="back"), rect=p.rect.mirrored(pw)))
            sheet = PieceSheet((pw, ph), placements)
            sheet.fold_x = pw / 2
            sheets.append(sheet)
        return sheets

    def _problem(self, piece, message: str, hint: str) -> Problem:
        """A problem at the piece's entry in its pieces file."""
        from generator.render.pieces import piece_line, pieces_file
        return Problem(pieces_file(self.game), piece_line(self.game, piece.id), message, hint)


def _by_sides(sections: list[Section]) -> list[list[Section]]:
    """A run's sections, the two-sided apart from the one-sided (in the order they come): with
    --duplex gutterfold both print on card, in one run, and only the two-sided fold."""
    groups: dict[bool, list[Section]] = {}
    for section in sections:
        groups.setdefault(section.two_sided, []).append(section)
    return list(groups.values())


def _placed(p: Placement) -> dict:
    """A piece's manifest entry on its sheet."""
    entry = {"piece": p.item.piece.id, "copy": p.item.copy, "side": p.item.side, "trim": p.rect.as_list(),
             "rotation": p.rotation}
    if p.scale != 1.0:
        entry["scale"] = round(p.scale, 4)
    if p.tile is not None:
        entry["tile"] = {"number": p.tile.number, "of": p.tile.rows * p.tile.cols, "area": p.tile.area.as_list()}
    return entry
