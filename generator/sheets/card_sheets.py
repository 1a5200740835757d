"""A pack's decks as sheets: card fronts on a grid with crop marks, backs mirrored for duplex,
or gutter-fold sheets with fronts and backs side by side."""
from __future__ import annotations

from generator.errors import PnpError, Problem
from generator.geometry import (MIN_MARGIN, PAPERS, CardGrid, FoldGrid, Mark, area_grid, back_placement, card_grid,
                                fold_grid)
from generator.sheets import cutters
from generator.render.cards import Rendered
from generator.sheets.impose import Imposer
from generator.sheets.sections import Body, Section, back_run, chunks, run_for
from generator.source.game import Card, Game
from generator.source.options import PrintOptions
from generator.source.schema import PackSpec


class CardSheets:
    def __init__(self, game: Game, rendered: Rendered, faces: dict, options: PrintOptions):
        self.game, self.rendered, self.faces, self.options = game, rendered, faces, options

    def sections(self, pack: PackSpec, only: set[str] | None = None) -> list[Section]:
        sections = []
        for deck_id, deck in self.game.decks.items():
            if deck_id not in pack.decks:
                continue
            items = [(card, copy) for card, copies in self.game.pack_cards(pack, deck_id)
                     for copy in range(1, copies + 1) if only is None or card.uid in only]
            if items:
                two_sided = deck.spec.back is not None
                sections.append(Section(deck_id, deck.spec.name, "deck",
                                        run_for(two_sided, deck.spec.stock, self.options.duplex),
                                        len(items), items, two_sided))
        return sections

    def groups(self, sections: list[Section]) -> list[list[Section]]:
        """Decks that share sheets: consecutive decks of one card size, bleed, stock and sidedness (so every
        slot keeps its own back and no sheet mixes card stock with paper). One deck each with --sheets per-deck."""
        groups: list[list[Section]] = []
        for section in sections:
            if groups and self.options.sheets == "shared" and self._key(groups[-1][0]) == self._key(section):
                groups[-1].append(section)
            else:
                groups.append([section])
        return groups

    def _key(self, section: Section) -> tuple:
        deck = self.game.decks[section.id]
        return (tuple(deck.trim), deck.bleed, deck.spec.stock, section.two_sided)

    def impose(self, imposer: Imposer, body: Body, group: list[Section], paper: str) -> list:
        """Add the sheets of a group of decks, each sheet filled before the next starts; returns the
        back sheets still to add (at the end, with --duplex none)."""
        first = self.game.decks[group[0].id]
        items = [(section, card, copy) for section in group for card, copy in section.items]
        two_sided = group[0].two_sided
        where = (first.file, None)
        if two_sided and self.options.duplex == "gutterfold":
            grid = fold_grid(paper, first.trim, first.bleed, where=where)
            for sheet_no, chunk in enumerate(chunks(items, grid.per_sheet), 1):
                body.add({**self._fold_sheet(imposer, grid, chunk), **_owners(chunk), "sheet": sheet_no},
                         *_sections(chunk), run=group[0].run)
            return []
        grid = self._grid(paper, first, where)
        deferred = []
        for sheet_no, chunk in enumerate(chunks(items, grid.per_sheet), 1):
            entry = self._card_sheet(imposer, grid, chunk, "face")
            front = body.add({**entry, **_owners(chunk), "sheet": sheet_no}, *_sections(chunk), run=group[0].run)
            if not two_sided:
                continue

            def make_back(chunk=chunk, front=front, sheet_no=sheet_no):
                entry = self._card_sheet(imposer, grid, chunk, "back")
                body.add({**entry, **_owners(chunk), "sheet": sheet_no, "front_page": front}, *_sections(chunk),
                         run=back_run(self.options.duplex))
            if self.options.duplex == "none":
                deferred.append(make_back)
            else:
                make_back()
        return deferred

    def _grid(self, paper: str, deck, where) -> CardGrid:
        if not self.options.cutter:
            return card_grid(paper, deck.trim, deck.bleed, where=where)
        cutter = cutters.CUTTERS[self.options.cutter]
        best, error = None, None
        pw, ph = PAPERS[paper]
        for page in ((pw, ph), (ph, pw)):          # portrait first; landscape when it holds more
            try:
                grid = area_grid(page, cutters.cut_area(cutter, page), deck.trim, deck.bleed, paper)
            except ValueError as exc:
                error = exc
                continue
            if best is None or grid.per_sheet > best.per_sheet:
                best = grid
        if best is None:
            raise PnpError(Problem(*where, f"{error} of {cutter.name} on {paper}",
                                   "choose a smaller card size, or print without --cutter"))
        return best

    def _registration(self, imposer: Imposer, page, grid: CardGrid) -> dict:
        """A cutter sheet's marks, drawn on the fronts (the machine reads the printed side)."""
        cutter = cutters.CUTTERS[self.options.cutter]
        shapes = cutters.registration(cutter, grid.page)
        imposer.append_content(page, cutters.pdf_ops(shapes, grid.page[1]))
        return {"cutter": cutter.id, "cut_area": cutters.cut_area(cutter, grid.page).as_list(),
                "registration": [s.as_list() for s in shapes]}

    def _card_sheet(self, imposer: Imposer, grid: CardGrid, chunk: list[tuple[Section, Card, int]], side: str) -> dict:
        page = imposer.new_page(grid.page)
        placements, slots, rotations = [], [], []
        for slot, (section, card, copy) in zip(grid.slots, chunk):
            deck = self.game.decks[section.id]
            trim, clip, rotation = slot.trim, slot.bleed, 0
            if side == "back":
                trim, rotation = back_placement(slot.trim, grid.page, self.options.duplex, self.options.back_offset)
                clip, _ = back_placement(slot.bleed, grid.page, self.options.duplex, self.options.back_offset)
            face = self.faces[(deck.id, card.id, side)]
            label = card.uid if side == "face" else f"{deck.id} back"   # one back design serves many cards
            placements.append((face.key, self.rendered.pages[face.key], trim, clip, deck.bleed, label))
            rotations.append(rotation)
            slots.append({"card": card.uid, "component": deck.id, "copy": copy,
                          "side": "back" if side == "back" else "front",
                          "trim": trim.as_list(), "bleed": clip.as_list(), "rotation": rotation})
        crop = side == "face" and not self.options.cutter
        imposer.place(page, placements, marks=grid.marks(len(chunk)) if crop else (),
                      page_size=grid.page, rotations=rotations)
        role = ("cards-front" if side == "face" else "cards-back") if chunk[0][0].two_sided else "cards"
        entry = {"role": role, "size": list(grid.page), "slots": slots}
        if self.options.cutter and side == "face":
            entry.update(self._registration(imposer, page, grid))
        return entry

    def _fold_sheet(self, imposer: Imposer, grid: FoldGrid, chunk) -> dict:
        """Fronts left of the fold, backs mirrored on the right: fold, glue, cut."""
        page = imposer.new_page(grid.page)
        placements, slots = [], []
        for front_slot, back_slot, (section, card, copy) in zip(grid.fronts, grid.backs, chunk):
            deck = self.game.decks[section.id]
            for side, slot in (("face", front_slot), ("back", back_slot)):
                face = self.faces[(deck.id, card.id, side)]
                label = card.uid if side == "face" else f"{deck.id} back"
                placements.append((face.key, self.rendered.pages[face.key], slot.trim, slot.bleed, deck.bleed, label))
                slots.append({"card": card.uid, "component": deck.id, "copy": copy,
                              "side": "front" if side == "face" else "back",
                              "trim": slot.trim.as_list(), "bleed": slot.bleed.as_list(), "rotation": 0})
        fold = Mark(grid.fold_x, MIN_MARGIN, grid.fold_x, grid.page[1] - MIN_MARGIN)
        imposer.place(page, placements, marks=grid.marks(len(chunk)), page_size=grid.page, fold=fold)
        return {"role": "cards-fold", "size": list(grid.page), "fold_x": round(grid.fold_x, 3), "slots": slots}


def _sections(chunk) -> list[Section]:
    """The decks on one sheet, in slot order."""
    seen: list[Section] = []
    for section, _, _ in chunk:
        if not any(section is s for s in seen):
            seen.append(section)
    return seen


def _owners(chunk) -> dict:
    """Which decks a sheet holds, for the manifest: `component` is the first, `components` every one."""
    ids = [s.id for s in _sections(chunk)]
    return {"component": ids[0], "components": ids}
