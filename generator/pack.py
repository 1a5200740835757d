"""One pack: the PDF (and its JSON manifest) for one player count on one paper.

Pages come in three runs so each can be printed with one setting:
  1. two-sided card stock: every sheet of card fronts followed by its backs;
  2. one-sided card stock: boards, tokens and single-sided cards;
  3. plain paper: maps and reference sheets.
Page 1 lists the contents with their counts and pages, the print settings for each
run, a cutting guide and the attributions.
"""
from __future__ import annotations

import io
import json
from dataclasses import dataclass, field, replace

import pikepdf
from pikepdf import Dictionary, Name, OutlineItem

from generator import __version__
from generator.assets import Assets
from generator.atomic import write_atomic
from generator.game import Card, Game
from generator.impose import Imposer, pt
from generator.layout import PAPERS, CardGrid, card_grid, mirrored_sheet, pack_pieces
from generator.project import Project
from generator.render.cards import Rendered
from generator.render.info import render_info
from generator.render.pieces import PieceCopy, PieceDrawer
from generator.schema import PackSpec

RUNS = ("duplex", "card", "paper")
RUN_TITLES = {"duplex": "双面 · 200–250 g 卡纸", "card": "单面 · 200–250 g 卡纸", "paper": "单面 · 普通纸"}


@dataclass
class Section:
    """A component in a pack: a deck's cards or a piece's copies, and the pages they are on."""
    id: str
    name: str
    kind: str                  # "deck" or "piece"
    run: str
    count: int
    items: list = field(default_factory=list)        # (card, copy) or PieceCopy
    pages: list[int] = field(default_factory=list)   # page numbers in the body (1-based)

    @property
    def first_page(self) -> int:
        return min(self.pages)

    @property
    def last_page(self) -> int:
        return max(self.pages)


@dataclass
class Body:
    """The pages after page 1 as they are made, with their manifest entries."""
    pdf: pikepdf.Pdf
    entries: list[dict] = field(default_factory=list)
    keep: list = field(default_factory=list)          # source PDFs that must stay open

    def add(self, entry: dict, *sections: Section) -> None:
        self.entries.append(entry)
        for section in sections:
            section.pages.append(len(self.entries))


def pack_name(game: Game, pack: PackSpec, paper: str) -> str:
    return f"{game.id}-{pack.key}-{paper}"


class PackBuilder:
    def __init__(self, project: Project, assets: Assets, game: Game, rendered: Rendered, faces: dict):
        self.project, self.assets, self.game = project, assets, game
        self.rendered, self.faces = rendered, faces     # faces: (deck, card id, side) -> Face
        self.pieces = PieceDrawer(assets, game)

    def build(self, pack: PackSpec, paper: str) -> tuple[bytes, dict]:
        sections = self._deck_sections(pack) + self._piece_sections(pack)
        body = Body(pikepdf.new())
        imposer = Imposer(body.pdf)
        for run in RUNS:
            for section in (s for s in sections if s.run == run and s.kind == "deck"):
                self._impose_deck(imposer, body, section, paper)
            # a run's pieces are packed together, so small ones share sheets
            self._draw_pieces(body, [s for s in sections if s.run == run and s.kind == "piece"], paper, pack)
        sections.sort(key=lambda s: s.first_page)
        info, runs = self._info(pack, paper, sections, len(body.entries))
        out = pikepdf.new()
        out.pages.extend(info.pages)
        out.pages.extend(body.pdf.pages)
        offset = len(info.pages)
        self._outline(out, sections, offset)
        self._metadata(out, pack, paper)
        buffer = io.BytesIO()
        out.save(buffer, deterministic_id=True, compress_streams=True,
                 object_stream_mode=pikepdf.ObjectStreamMode.generate)
        return buffer.getvalue(), self._manifest(pack, paper, sections, body, offset, runs)

    # --- cards --------------------------------------------------------------------------
    def _deck_sections(self, pack: PackSpec) -> list[Section]:
        sections = []
        for deck_id, deck in self.game.decks.items():
            if deck_id not in pack.decks:
                continue
            cards = self.game.pack_cards(pack, deck_id)
            items = [(card, copy) for card, copies in cards for copy in range(1, copies + 1)]
            if not items:
                continue
            run = "duplex" if deck.spec.back else ("card" if deck.spec.stock == "card" else "paper")
            sections.append(Section(deck_id, deck.spec.name, "deck", run, len(items), items))
        return sections

    def _impose_deck(self, imposer: Imposer, body: Body, section: Section, paper: str) -> None:
        deck = self.game.decks[section.id]
        grid = card_grid(paper, deck.trim, deck.bleed, where=(deck.file, None))
        sides = ["face", "back"] if deck.spec.back else ["face"]
        for sheet_no, start in enumerate(range(0, len(section.items), grid.per_sheet), 1):
            chunk = section.items[start:start + grid.per_sheet]
            for side in sides:
                entry = self._card_sheet(imposer, grid, deck, chunk, side)
                body.add({**entry, "component": deck.id, "sheet": sheet_no}, section)

    def _card_sheet(self, imposer: Imposer, grid: CardGrid, deck, chunk: list[tuple[Card, int]], side: str) -> dict:
        page = imposer.new_page(grid.page)
        placements, slots = [], []
        for slot, (card, copy) in zip(grid.slots, chunk):
            trim, clip = slot.trim, slot.bleed
            if side == "back":       # long-edge flip: the back sits at the mirror image
                trim, clip = trim.mirrored(grid.page[0]), clip.mirrored(grid.page[0])
            face = self.faces[(deck.id, card.id, side)]
            placements.append((face.key, self.rendered.pages[face.key], trim, clip, deck.bleed))
            slots.append({"card": card.uid, "copy": copy, "trim": trim.as_list(), "bleed": clip.as_list()})
        imposer.place(page, placements, marks=grid.marks(len(chunk)) if side == "face" else (), page_size=grid.page)
        role = ("cards-front" if side == "face" else "cards-back") if deck.spec.back else "cards"
        return {"role": role, "size": list(grid.page), "slots": slots}

    # --- boards, maps, tokens -----------------------------------------------------------
    def _piece_sections(self, pack: PackSpec) -> list[Section]:
        counts = self.game.piece_counts[pack.key]
        colours = self.game.spec.player_colours
        sections = []
        for piece_id, piece in self.game.pieces.items():
            count = counts.get(piece_id, 0)
            if not count:
                continue
            each = int(piece.per_player)     # copies per player (True counts as 1)
            copies = [PieceCopy(piece, i + 1, colours[i // each] if each else None) for i in range(count)]
            run = "duplex" if piece.back else ("card" if piece.stock == "card" else "paper")
            sections.append(Section(piece_id, piece.name, "piece", run, count, copies))
        return sections

    def _draw_pieces(self, body: Body, sections: list[Section], paper: str, pack: PackSpec) -> None:
        if not sections:
            return
        items = [(c, c.size, c.piece.own_page, c.piece.gap) for s in sections for c in s.items]
        sheets = pack_pieces(items, paper)
        if sections[0].run == "duplex":       # two-sided pieces: each sheet is followed by its back
            sheets = [s for sheet in sheets for s in (sheet, mirrored_sheet(sheet, lambda c: replace(c, side="back")))]
        context = {"game": self.game, "derived": self.game.derived, "tables": self.game.tables,
                   "decks": {d: deck.cards for d, deck in self.game.decks.items()}}
        drawn = pikepdf.open(io.BytesIO(self.pieces.draw_sheets(sheets, pack, context)))
        body.keep.append(drawn)
        by_id = {s.id: s for s in sections}
        for sheet, page in zip(sheets, drawn.pages):
            body.pdf.pages.append(page)
            if len(sheet.placements) == 1:    # one piece on the page: its trim is the page's trim box
                rect = sheet.placements[0].rect
                box = pikepdf.Array([pt(rect.x), pt(sheet.page[1] - rect.y - rect.h),
                                     pt(rect.x + rect.w), pt(sheet.page[1] - rect.y)])
                body.pdf.pages[-1].obj.TrimBox = box
                body.pdf.pages[-1].obj.BleedBox = box
            placed = [{"piece": p.item.piece.id, "copy": p.item.copy, "side": p.item.side, "trim": p.rect.as_list(),
                       **({"scale": round(p.scale, 4)} if p.scale != 1.0 else {})} for p in sheet.placements]
            owners = [by_id[i] for i in dict.fromkeys(p["piece"] for p in placed)]
            role = "board-back" if placed[0]["side"] == "back" else "board"
            body.add({"role": role, "size": list(sheet.page), "components": [o.id for o in owners],
                      "pieces": placed}, *owners)

    # --- page 1, bookmarks, metadata, manifest ------------------------------------------
    def _info(self, pack: PackSpec, paper: str, sections: list[Section], body_pages: int):
        info_count = 1
        for _ in range(3):          # the info page count shifts every page number: settle it
            runs = _runs(sections, info_count)
            pdf = render_info(self.project, self.assets, self.game, pack, paper, sections, runs, info_count,
                              body_pages)
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
        out.Root.ViewerPreferences = Dictionary(PrintScaling=Name("/None"), Duplex=Name.DuplexFlipLongEdge)

    def _manifest(self, pack: PackSpec, paper: str, sections: list[Section], body: Body, offset: int,
                  runs: list[dict]) -> dict:
        pages = [{"number": n + 1, "role": "info"} for n in range(offset)]
        pages += [{"number": offset + n, **entry} for n, entry in enumerate(body.entries, 1)]
        components = []
        for section in sections:
            item = {"id": section.id, "name": section.name, "kind": section.kind, "count": section.count,
                    "run": section.run, "pages": [offset + section.first_page, offset + section.last_page]}
            if section.kind == "deck":
                counts: dict[str, int] = {}
                for card, _ in section.items:
                    counts[card.uid] = counts.get(card.uid, 0) + 1
                item["cards"] = [{"id": uid, "copies": n} for uid, n in counts.items()]
            components.append(item)
        return {"game": self.game.id, "title": self.game.spec.title, "players": pack.players,
                "variant": pack.variant, "paper": paper, "page_size_mm": list(PAPERS[paper]),
                "file": pack_name(self.game, pack, paper) + ".pdf", "units": "mm, origin top-left of the page",
                "duplex": "long-edge", "components": components,
                "runs": [{"run": r["run"], "pages": [r["first"], r["last"]], "settings": r["title"]} for r in runs],
                "pages": pages}


def _runs(sections: list[Section], info_count: int) -> list[dict]:
    """Page ranges of the print runs (after the info pages)."""
    runs = []
    for run in RUNS:
        pages = [p for s in sections if s.run == run for p in s.pages]
        if pages:
            runs.append({"run": run, "title": RUN_TITLES[run], "first": info_count + min(pages),
                         "last": info_count + max(pages)})
    return runs


def write_pack(project: Project, game: Game, pack: PackSpec, paper: str, pdf: bytes, manifest: dict) -> str:
    folder = project.build / game.id
    name = pack_name(game, pack, paper)
    write_atomic(folder / f"{name}.pdf", pdf)
    write_atomic(folder / f"{name}.json", (json.dumps(manifest, ensure_ascii=False, indent=1) + "\n").encode())
    return project.display(folder / f"{name}.pdf")
