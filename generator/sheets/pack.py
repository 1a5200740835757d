"""One pack: the PDF (and its JSON manifest) for one player count on one paper.

Pages come in print runs, each printed with one setting (page 1 says which):
  duplex  card stock, two-sided: each sheet of card fronts followed by its backs
          (duplex long / short), or gutter-fold sheets with fronts and backs side by side;
  fronts / backs   with --duplex none: fronts first, backs at the end for a manual re-feed;
  card    card stock, one-sided: boards, tokens, single-sided cards;
  paper   plain paper: maps, score sheets, reference cards.
"""
from __future__ import annotations

import functools
import io
import json
import re
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import pikepdf
from pikepdf import Dictionary, Name, OutlineItem

from generator import __version__
from generator.source.assets import Assets
from generator.atomic import commit, stage
from generator.errors import PnpError, Problem
from generator.render.fontmerge import merge_fonts
from generator.source.game import Card, Game
from generator.geometry import pt
from generator.sheets.impose import Imposer
from generator.geometry import (FOLD_CLEAR, MIN_MARGIN, PAPERS, CardGrid, FoldGrid, Mark, back_placement, card_grid,
                              fits_sheet, fold_grid, pack_pieces, scaled_alone, tiles)
from generator.geometry import Placement, PieceSheet
from generator.source.options import PrintOptions
from generator.source.project import Project
from generator.render.cards import Rendered
from generator.render.info import InfoPage
from generator.source.schema import PackSpec
from generator.check.preflight import MIN_DPI
from generator.check.validate import context as expression_context

if TYPE_CHECKING:
    from generator.check.preflight import Report

RUNS = ("duplex", "fronts", "card", "paper", "backs")


@dataclass
class Section:
    """A component in a pack: a deck's cards or a piece's copies, and the pages they are on."""
    id: str
    name: str
    kind: str                  # "deck" or "piece"
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

    def add(self, entry: dict, *sections: Section, run: str) -> int:
        self.entries.append({**entry, "run": run})
        for section in sections:
            section.pages.append(len(self.entries))
        return len(self.entries)


def pack_name(game: Game, pack: PackSpec, paper: str, options: PrintOptions = PrintOptions(),
              name_key: str | None = None) -> str:
    return f"{game.id}-{name_key or pack.key}-{paper}{options.suffix}"


class PackBuilder:
    def __init__(self, project: Project, assets: Assets, game: Game, rendered: Rendered, faces: dict,
                 options: PrintOptions = PrintOptions()):
        self.project, self.assets, self.game = project, assets, game
        self.rendered, self.faces = rendered, faces     # faces: (deck, card id, side) -> Face
        self.options = options

    @functools.cached_property
    def info(self) -> InfoPage:
        return InfoPage(self.project, self.assets, self.game)

    @functools.cached_property
    def pieces(self):
        """The board drawer; reportlab is only loaded for a game that has pieces."""
        from generator.render.pieces import PieceDrawer
        return PieceDrawer(self.assets, self.game, ink_saver=self.options.ink_saver)

    def build(self, pack: PackSpec, paper: str, only: set[str] | None = None, changes: list | None = None,
              removed: list | None = None, reprint_of: str | None = None) -> tuple[bytes, dict]:
        """The pack as PDF bytes and its manifest. With `only` (card uids) it is a reprint:
        just those cards, every copy, no boards, and page 1 lists `changes`."""
        self.reprint = {"changes": changes or [], "removed": removed or [], "since": reprint_of} if only else None
        sections = self._deck_sections(pack, only)
        if only is None:
            sections += self._piece_sections(pack)
        body = Body(pikepdf.new())
        imposer = Imposer(body.pdf)
        deferred = []                     # back pages printed at the end (--duplex none)
        for run in RUNS[:-1]:
            for section in (s for s in sections if s.run == run and s.kind == "deck"):
                deferred += self._impose_deck(imposer, body, section, paper)
            pieces = [s for s in sections if s.run == run and s.kind == "piece"]
            if pieces:
                deferred += self._draw_pieces(body, pieces, paper, pack)
        for make_back in deferred:
            make_back()
        merge_fonts(body.pdf, self.assets)   # one program per font
        sections.sort(key=lambda s: s.first_page)
        info, runs = self._info(pack, paper, sections, body)
        out = pikepdf.new()
        out.pages.extend(info.pages)
        out.pages.extend(body.pdf.pages)
        if self.options.draft:
            mark_draft(out, self.assets)
        offset = len(info.pages)
        self._outline(out, sections, offset)
        self._metadata(out, pack, paper)
        buffer = io.BytesIO()
        out.save(buffer, deterministic_id=True, compress_streams=True,
                 object_stream_mode=pikepdf.ObjectStreamMode.generate)
        return buffer.getvalue(), self._manifest(pack, paper, sections, body, offset, runs)

    def _back_run(self) -> str:
        return "backs" if self.options.duplex == "none" else "duplex"

    def _run(self, two_sided: bool, stock: str) -> str:
        if two_sided:
            return {"long": "duplex", "short": "duplex", "none": "fronts", "gutterfold": "card"}[self.options.duplex]
        return "card" if stock == "card" else "paper"

    # --- cards --------------------------------------------------------------------------
    def _deck_sections(self, pack: PackSpec, only: set[str] | None = None) -> list[Section]:
        sections = []
        for deck_id, deck in self.game.decks.items():
            if deck_id not in pack.decks:
                continue
            items = [(card, copy) for card, copies in self.game.pack_cards(pack, deck_id)
                     for copy in range(1, copies + 1) if only is None or card.uid in only]
            if items:
                two_sided = deck.spec.back is not None
                sections.append(Section(deck_id, deck.spec.name, "deck", self._run(two_sided, deck.spec.stock),
                                        len(items), items, two_sided))
        return sections

    def _impose_deck(self, imposer: Imposer, body: Body, section: Section, paper: str) -> list:
        deck = self.game.decks[section.id]
        where = (deck.file, None)
        if section.two_sided and self.options.duplex == "gutterfold":
            grid = fold_grid(paper, deck.trim, deck.bleed, where=where)
            for sheet_no, chunk in enumerate(_chunks(section.items, grid.per_sheet), 1):
                body.add({**self._fold_sheet(imposer, grid, deck, chunk), "component": deck.id, "sheet": sheet_no},
                         section, run=section.run)
            return []
        grid = card_grid(paper, deck.trim, deck.bleed, where=where)
        deferred = []
        for sheet_no, chunk in enumerate(_chunks(section.items, grid.per_sheet), 1):
            entry = self._card_sheet(imposer, grid, deck, chunk, "face")
            front = body.add({**entry, "component": deck.id, "sheet": sheet_no}, section, run=section.run)
            if not section.two_sided:
                continue

            def make_back(chunk=chunk, front=front, sheet_no=sheet_no):
                entry = self._card_sheet(imposer, grid, deck, chunk, "back")
                body.add({**entry, "component": deck.id, "sheet": sheet_no, "front_page": front}, section,
                         run=self._back_run())
            if self.options.duplex == "none":
                deferred.append(make_back)
            else:
                make_back()
        return deferred

    def _card_sheet(self, imposer: Imposer, grid: CardGrid, deck, chunk: list[tuple[Card, int]], side: str) -> dict:
        page = imposer.new_page(grid.page)
        placements, slots, rotations = [], [], []
        for slot, (card, copy) in zip(grid.slots, chunk):
            trim, clip, rotation = slot.trim, slot.bleed, 0
            if side == "back":
                trim, rotation = back_placement(slot.trim, grid.page, self.options.duplex, self.options.back_offset)
                clip, _ = back_placement(slot.bleed, grid.page, self.options.duplex, self.options.back_offset)
            face = self.faces[(deck.id, card.id, side)]
            label = card.uid if side == "face" else f"{deck.id} back"   # one back design serves many cards
            placements.append((face.key, self.rendered.pages[face.key], trim, clip, deck.bleed, label))
            rotations.append(rotation)
            slots.append({"card": card.uid, "copy": copy, "side": "back" if side == "back" else "front",
                          "trim": trim.as_list(), "bleed": clip.as_list(), "rotation": rotation})
        imposer.place(page, placements, marks=grid.marks(len(chunk)) if side == "face" else (),
                      page_size=grid.page, rotations=rotations)
        role = ("cards-front" if side == "face" else "cards-back") if deck.spec.back else "cards"
        return {"role": role, "size": list(grid.page), "slots": slots}

    def _fold_sheet(self, imposer: Imposer, grid: FoldGrid, deck, chunk) -> dict:
        """Fronts left of the fold, backs mirrored on the right: fold, glue, cut."""
        page = imposer.new_page(grid.page)
        placements, slots = [], []
        for front_slot, back_slot, (card, copy) in zip(grid.fronts, grid.backs, chunk):
            for side, slot in (("face", front_slot), ("back", back_slot)):
                face = self.faces[(deck.id, card.id, side)]
                label = card.uid if side == "face" else f"{deck.id} back"
                placements.append((face.key, self.rendered.pages[face.key], slot.trim, slot.bleed, deck.bleed, label))
                slots.append({"card": card.uid, "copy": copy, "side": "front" if side == "face" else "back",
                              "trim": slot.trim.as_list(), "bleed": slot.bleed.as_list(), "rotation": 0})
        fold = Mark(grid.fold_x, MIN_MARGIN, grid.fold_x, grid.page[1] - MIN_MARGIN)
        imposer.place(page, placements, marks=grid.marks(len(chunk)), page_size=grid.page, fold=fold)
        return {"role": "cards-fold", "size": list(grid.page), "fold_x": round(grid.fold_x, 3), "slots": slots}

    # --- boards, maps, tokens -----------------------------------------------------------
    def _piece_sections(self, pack: PackSpec) -> list[Section]:
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
            sections.append(Section(piece_id, piece.name, "piece", self._run(two_sided, piece.stock), count,
                                    copies, two_sided))
        return sections

    def _piece_sheets(self, sections: list[Section], paper: str) -> list[PieceSheet]:
        """Sheets for the run's pieces: packed together; one larger than a sheet is tiled
        (or, with --fit, reduced onto one sheet)."""
        sheets, batch = [], []
        for copy in (c for s in sections for c in s.items):
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

    def _draw_pieces(self, body: Body, sections: list[Section], paper: str, pack: PackSpec) -> list:
        two_sided = sections[0].two_sided
        if two_sided and self.options.duplex == "gutterfold":
            sheets = self._fold_piece_sheets(sections, paper)
        else:
            sheets = self._piece_sheets(sections, paper)
        backs = [self._back_sheet(s) for s in sheets] if two_sided and self.options.duplex != "gutterfold" else []
        order = sheets if self.options.duplex == "none" or not backs else [x for pair in zip(sheets, backs) for x in pair]
        context = expression_context(self.game)
        by_id = {s.id: s for s in sections}
        drawn = pikepdf.open(io.BytesIO(self.pieces.draw_sheets(order, pack, context)))
        body.keep.append(drawn)
        numbers = {}
        for sheet, page in zip(order, drawn.pages):
            numbers[id(sheet)] = self._add_piece_page(body, sheet, page, by_id, numbers)
        if self.options.duplex != "none" or not backs:
            return []
        drawn_backs = pikepdf.open(io.BytesIO(self.pieces.draw_sheets(backs, pack, context)))
        body.keep.append(drawn_backs)

        def make_backs():
            for front, back, page in zip(sheets, backs, drawn_backs.pages):
                self._add_piece_page(body, back, page, by_id, numbers, front_page=numbers[id(front)])
        return [make_backs]

    def _add_piece_page(self, body: Body, sheet: PieceSheet, page, by_id, numbers, front_page=None) -> int:
        body.pdf.pages.append(page)
        if len(sheet.placements) == 1:      # one piece on the page: its trim is the page's trim box
            rect = sheet.placements[0].rect
            box = pikepdf.Array([pt(rect.x), pt(sheet.page[1] - rect.y - rect.h),
                                 pt(rect.x + rect.w), pt(sheet.page[1] - rect.y)])
            body.pdf.pages[-1].obj.TrimBox = box
            body.pdf.pages[-1].obj.BleedBox = box
        placed = []
        for p in sheet.placements:
            entry = {"piece": p.item.piece.id, "copy": p.item.copy, "side": p.item.side, "trim": p.rect.as_list(),
                     "rotation": p.rotation}
            if p.scale != 1.0:
                entry["scale"] = round(p.scale, 4)
            if p.tile is not None:
                entry["tile"] = {"number": p.tile.number, "of": p.tile.rows * p.tile.cols,
                                 "area": p.tile.area.as_list()}
            placed.append(entry)
        owners = [by_id[i] for i in dict.fromkeys(p["piece"] for p in placed)]
        sides = {p["side"] for p in placed}
        role = "board-tile" if placed[0].get("tile") else ("board-back" if sides == {"back"} else "board")
        entry = {"role": role, "size": list(sheet.page), "components": [o.id for o in owners], "pieces": placed}
        if front_page is not None or role == "board-back":
            entry["front_page"] = front_page if front_page is not None else len(body.entries)
        if getattr(sheet, "fold_x", None):
            entry["fold_x"] = round(sheet.fold_x, 3)
        run = self._back_run() if role == "board-back" else owners[0].run
        return body.add(entry, *owners, run=run)

    def _back_sheet(self, sheet: PieceSheet) -> PieceSheet:
        placements = []
        for p in sheet.placements:
            rect, rotation = back_placement(p.rect, sheet.page, self.options.duplex, self.options.back_offset)
            placements.append(replace(p, item=replace(p.item, side="back"), rect=rect, rotation=rotation))
        return PieceSheet(sheet.page, placements)

    def _fold_piece_sheets(self, sections: list[Section], paper: str) -> list[PieceSheet]:
        """Two-sided pieces for gutter-fold: fronts packed left of the fold, backs mirrored right."""
        pw, ph = PAPERS[paper]
        half = (pw / 2 - FOLD_CLEAR + MIN_MARGIN, ph)
        items = [(c, c.size, False, c.piece.gap) for s in sections for c in s.items]
        sheets = []
        for left in pack_pieces(items, paper, page_size=half):
            placements = list(left.placements)
            for p in left.placements:
                placements.append(replace(p, item=replace(p.item, side="back"), rect=p.rect.mirrored(pw)))
            sheet = PieceSheet((pw, ph), placements)
            sheet.fold_x = pw / 2
            sheets.append(sheet)
        return sheets

    # --- page 1, bookmarks, metadata, manifest ------------------------------------------
    def _info(self, pack: PackSpec, paper: str, sections: list[Section], body: Body):
        info_count = 1
        for _ in range(3):          # the info page count shifts every page number: settle it
            runs = _runs(body.entries, info_count)
            pdf = self.info.render(pack, paper, sections, runs, info_count, len(body.entries), self.options,
                                   self.reprint)
            if len(pdf.pages) == info_count:
                break
            info_count = len(pdf.pages)
        return pdf, runs

    def _outline(self, out: pikepdf.Pdf, sections: list[Section], offset: int) -> None:
        with out.open_outline() as outline:
            outline.root.append(OutlineItem("内容与打印说明", 0))
            for section in sections:
                outline.root.append(OutlineItem(f"{section.name} ×{section.count}", offset + section.first_page - 1))

    def _metadata(self, out: pikepdf.Pdf, pack: PackSpec, paper: str) -> None:
        title = f"{self.game.spec.title} · {pack.players} 人 · {paper.upper()}"
        out.docinfo = out.make_indirect(Dictionary(Title=title, Producer=f"pnp {__version__}", Creator="pnp"))
        out.Root.PageMode = Name.UseOutlines
        duplex = {"long": Name.DuplexFlipLongEdge, "short": Name.DuplexFlipShortEdge}.get(self.options.duplex,
                                                                                           Name.Simplex)
        out.Root.ViewerPreferences = Dictionary(PrintScaling=Name("/None"), Duplex=duplex)

    def _manifest(self, pack: PackSpec, paper: str, sections: list[Section], body: Body, offset: int,
                  runs: list[dict]) -> dict:
        pages = [{"number": n + 1, "role": "info"} for n in range(offset)]
        for number, entry in enumerate(body.entries, 1):
            entry = dict(entry)
            if "front_page" in entry:
                entry["front_page"] += offset
            pages.append({"number": offset + number, **entry})
        components = []
        for section in sections:
            item = {"id": section.id, "name": section.name, "kind": section.kind, "count": section.count,
                    "run": section.run, "pages": [offset + section.first_page, offset + section.last_page]}
            if section.kind == "deck":
                deck = self.game.decks[section.id]
                counts: dict[str, int] = {}
                for card, _ in section.items:
                    counts[card.uid] = counts.get(card.uid, 0) + 1
                item.update(trim_mm=list(deck.trim), bleed_mm=deck.bleed,
                            cards=[{"id": uid, "copies": n} for uid, n in counts.items()])
            else:
                piece = self.game.pieces[section.id]
                item["size_mm"] = [piece.size.width, piece.size.height]
            components.append(item)
        o = self.options
        extra = {"reprint": self.reprint} if self.reprint else {}
        return {**extra, "game": self.game.id, "title": self.game.spec.title, "pack": pack.key, "players": pack.players,
                "variant": pack.variant, "paper": paper, "page_size_mm": list(PAPERS[paper]),
                "file": pack_name(self.game, pack, paper, o, "reprint" if self.reprint else None) + ".pdf",
                "units": "mm, origin top-left of the page",
                "print": {"duplex": o.duplex, "back_offset_mm": list(o.back_offset), "ink_saver": o.ink_saver,
                          "fit": o.fit, "printer": o.printer},
                "components": components,
                "runs": [{"run": r["run"], "pages": [r["first"], r["last"]], "settings": r["title"]} for r in runs],
                "pages": pages}


RUN_TITLES = {"duplex": "双面 · 200–250 g 卡纸", "fronts": "正面 · 200–250 g 卡纸", "card": "单面 · 200–250 g 卡纸",
              "paper": "单面 · 普通纸", "backs": "背面 · 放回已印正面的卡纸"}


def _runs(entries: list[dict], info_count: int) -> list[dict]:
    """Page ranges of the print runs (after the info pages), in RUNS order."""
    runs = []
    for run in RUNS:
        pages = [n for n, e in enumerate(entries, 1) if e["run"] == run]
        if pages:
            runs.append({"run": run, "title": RUN_TITLES[run], "first": info_count + min(pages),
                         "last": info_count + max(pages)})
    return runs


DRAFT_PAGE_1 = "DRAFT - playtest print, not for a print shop"


def mark_draft(pdf: pikepdf.Pdf, assets: Assets) -> None:
    """--draft: page 1 says so at its top in large type, every other page in its top margin
    (left corner: no crop mark runs there). Drawn into each page's own content, not as a placed
    form, which preflight would count as a card."""
    from reportlab.pdfgen.canvas import Canvas

    from generator.render.pen import register_fonts
    register_fonts(assets)
    marks = {}
    for number, page in enumerate(pdf.pages):
        width, height = float(page.mediabox[2]), float(page.mediabox[3])
        key = (width, height, number == 0)
        if key not in marks:
            buffer = io.BytesIO()
            canvas = Canvas(buffer, pagesize=(width, height), invariant=1, pageCompression=0)
            canvas.setFillColorRGB(0.75, 0.1, 0.1)
            canvas.setFont(assets.fonts[0].name, 14 if number == 0 else 6)
            canvas.drawString(pt(2 if number else 10), height - pt(3.2 if number else 9),
                              DRAFT_PAGE_1 if number == 0 else "DRAFT")
            canvas.save()
            with pikepdf.open(io.BytesIO(buffer.getvalue())) as drawn:
                mark = drawn.pages[0]
                # reportlab's canvas opens with its default font set (and no text in it): left out
                content = re.sub(rb"BT /F1 [\d.]+ Tf [\d.]+ TL ET", b"", mark.obj.Contents.read_bytes())
                font_name = re.search(rb"(/F[^ /]+) [\d.]+ Tf", content).group(1)
                marks[key] = (pdf.copy_foreign(mark.Resources.Font[font_name.decode()]),
                              content.replace(font_name + b" ", b"/PnpDraft "))
        font, content = marks[key]
        if "/Resources" not in page.obj:
            page.obj.Resources = Dictionary()
        if "/Font" not in page.obj.Resources:
            page.obj.Resources.Font = Dictionary()
        page.obj.Resources.Font[Name("/PnpDraft")] = font
        page.contents_add(pikepdf.Stream(pdf, b"q\n"), prepend=True)
        page.contents_add(pikepdf.Stream(pdf, b"\nQ\nq\n" + content + b"\nQ\n"))


def _chunks(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def write_pack(project: Project, game: Game, pack: PackSpec, paper: str, pdf: bytes, manifest: dict,
               options: PrintOptions = PrintOptions(), name_key: str | None = None) -> tuple[str, "Report"]:
    """Write the pack and its manifest, but only if the written file passes preflight: both
    go to temporary files first, are checked, and only then replace the previous ones."""
    from generator.check.preflight import preflight
    folder = project.build / game.id
    name = pack_name(game, pack, paper, options, name_key)
    staged = {}
    try:
        for ext, data in (("pdf", pdf), ("json", (json.dumps(manifest, ensure_ascii=False, indent=1) + "\n").encode())):
            staged[ext] = stage(folder / f"{name}.{ext}", data)
        report = preflight(staged["pdf"], staged["json"], display=project.display(folder / f"{name}.pdf"))
        if options.draft:       # a playtest print: too-coarse pictures are warnings (kept in report.findings)
            errors = [f for f in report.findings if not f.endswith(f"dpi (needs {MIN_DPI})")]
            if errors:
                raise PnpError([Problem(report.file, None, f"preflight: {f}") for f in errors])
            report.findings = [f"preflight: {f}" for f in report.findings]
        elif not report.ok:
            raise PnpError([Problem(report.file, None, f"preflight: {f}") for f in report.findings])
        for ext, tmp in staged.items():
            commit(tmp, folder / f"{name}.{ext}")
        staged = {}
    finally:
        for tmp in staged.values():
            tmp.unlink(missing_ok=True)
    return project.display(folder / f"{name}.pdf"), report
