"""A pack's decks as sheets: card fronts on a grid with crop marks, backs mirrored for duplex,
or gutter-fold sheets with fronts and backs side by side."""
from __future__ import annotations

from generator.geometry import MIN_MARGIN, CardGrid, FoldGrid, Mark, back_placement, card_grid, fold_grid
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

    def impose(self, imposer: Imposer, body: Body, section: Section, paper: str) -> list:
        """Add the deck's sheets; returns the back sheets still to add (at the end, with --duplex none)."""
        deck = self.game.decks[section.id]
        where = (deck.file, None)
        if section.two_sided and self.options.duplex == "gutterfold":
            grid = fold_grid(paper, deck.trim, deck.bleed, where=where)
            for sheet_no, chunk in enumerate(chunks(section.items, grid.per_sheet), 1):
                body.add({**self._fold_sheet(imposer, grid, deck, chunk), "component": deck.id, "sheet": sheet_no},
                         section, run=section.run)
            return []
        grid = card_grid(paper, deck.trim, deck.bleed, where=where)
        deferred = []
        for sheet_no, chunk in enumerate(chunks(section.items, grid.per_sheet), 1):
            entry = self._card_sheet(imposer, grid, deck, chunk, "face")
            front = body.add({**entry, "component": deck.id, "sheet": sheet_no}, section, run=section.run)
            if not section.two_sided:
                continue

            def make_back(chunk=chunk, front=front, sheet_no=sheet_no):
                entry = self._card_sheet(imposer, grid, deck, chunk, "back")
                body.add({**entry, "component": deck.id, "sheet": sheet_no, "front_page": front}, section,
                         run=back_run(self.options.duplex))
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
