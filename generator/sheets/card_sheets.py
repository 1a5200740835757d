"""A pack's decks as sheets: card fronts on a grid with crop marks, backs mirrored for duplex,
or gutter-fold sheets with fronts and backs side by side. With shared sheets a deck's last sheet
takes the next deck's cards: the same size on the same grid, another size in strips below."""
from __future__ import annotations

from dataclasses import dataclass, field

from generator.errors import PnpError, Problem
from generator.geometry import (MIN_MARGIN, PAPERS, CardGrid, FoldGrid, Mark, Strip, StripGrid, area_grid,
                                back_placement, card_grid, fold_grid, open_bleeds, strip_grid)
from generator.sheets import cutters
from generator.render.cards import Rendered
from generator.sheets.impose import Imposer, slot_label
from generator.sheets.sections import Body, Section, back_run, chunks, run_for
from generator.source.game import Card, Game
from generator.source.options import PrintOptions
from generator.source.schema import PackSpec
from generator.source.yamlsrc import line_at


@dataclass
class PlannedSheet:
    """One card sheet before it is imposed: where its slots are and which copies fill them."""
    grid: CardGrid | StripGrid | FoldGrid
    chunk: list                       # (section, card, copy) per slot, in slot order
    run: str
    two_sided: bool
    number: int                       # the sheet's number in its first deck group
    strips: list = field(default_factory=list)     # its cards as geometry.Strip, one per card size
    fold: bool = False


class CardSheets:
    def __init__(self, game: Game, rendered: Rendered, faces: dict, options: PrintOptions):
        self.game, self.rendered, self.faces, self.options = game, rendered, faces, options
        self._slot_memo: dict = {}

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

    def impose(self, imposer: Imposer, body: Body, groups: list[list[Section]], paper: str) -> list:
        """Add the sheets of the groups of one run, each sheet filled before the next starts; returns
        the back sheets still to add (at the end, with --duplex none)."""
        deferred = []
        for sheet in self._plan(groups, paper):
            if sheet.fold:
                body.add({**self._fold_sheet(imposer, sheet.grid, sheet.chunk), **_owners(sheet.chunk),
                          "sheet": sheet.number}, *_sections(sheet.chunk), run=sheet.run)
                continue
            entry = self._card_sheet(imposer, sheet.grid, sheet.chunk, "face")
            front = body.add({**entry, **_owners(sheet.chunk), "sheet": sheet.number}, *_sections(sheet.chunk),
                             run=sheet.run)
            if not sheet.two_sided:
                continue

            def make_back(sheet=sheet, front=front):
                entry = self._card_sheet(imposer, sheet.grid, sheet.chunk, "back")
                body.add({**entry, **_owners(sheet.chunk), "sheet": sheet.number, "front_page": front},
                         *_sections(sheet.chunk), run=back_run(self.options.duplex))
            if self.options.duplex == "none":
                deferred.append(make_back)
            else:
                make_back()
        return deferred

    def _plan(self, groups: list[list[Section]], paper: str) -> list["PlannedSheet"]:
        """Every sheet of the groups, in order. With shared sheets a group's last sheet, when it has
        room, takes the next group's cards (another card size, the same stock and sidedness) in strips
        below its own (geometry.strip_grid), so a trimmer still cuts it."""
        planned: list[PlannedSheet] = []
        for group in groups:
            first = self.game.decks[group[0].id]
            items = [(section, card, copy) for section in group for card, copy in section.items]
            two_sided, run, where = group[0].two_sided, group[0].run, _size_at(self.game, first)
            if two_sided and self.options.duplex == "gutterfold":
                grid = fold_grid(paper, first.trim, first.bleed, where=where)
                planned += [PlannedSheet(grid, chunk, run, two_sided, n, [], fold=True)
                            for n, chunk in enumerate(chunks(items, grid.per_sheet), 1)]
                continue
            grid = self._grid(paper, first, where)
            if planned and self._can_join(planned[-1], group):
                items = items[self._join(planned, first, items):]
            for n, chunk in enumerate(chunks(items, grid.per_sheet), 1):
                planned.append(PlannedSheet(grid, chunk, run, two_sided, n,
                                            [Strip(first.trim, first.bleed, len(chunk))]))
        return planned

    def _can_join(self, last: "PlannedSheet", group: list[Section]) -> bool:
        if self.options.sheets != "shared" or self.options.cutter or last.fold:
            return False
        theirs = self.game.decks[last.chunk[0][0].id]
        ours = self.game.decks[group[0].id]
        return (last.run, last.two_sided, theirs.spec.stock) == (group[0].run, group[0].two_sided, ours.spec.stock)

    def _join(self, planned: list["PlannedSheet"], deck, items) -> int:
        """Put as many rows of `items` as fit below the last sheet's strips; how many cards it took."""
        last = planned[-1]
        fit = max(1, int((last.grid.page[0] - 2 * MIN_MARGIN) // deck.trim[0]))
        cols = min(fit, len(items))
        for rows in range(-(-len(items) // cols), 0, -1):
            taken = min(len(items), rows * cols)
            strips = last.strips + [Strip(deck.trim, deck.bleed, taken)]
            grid = strip_grid(last.grid.paper, last.grid.page, strips)
            if grid is not None:
                planned[-1] = PlannedSheet(grid, last.chunk + items[:taken], last.run, last.two_sided, last.number,
                                           strips)
                return taken
        return 0

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
        rendered, faces, decks = self.rendered, self.faces, self.game.decks
        printed_side = "back" if side == "back" else "front"
        for (trim, clip, rotation, trim_mm, clip_mm), (section, card, copy) in zip(self._slots(grid, len(chunk), side),
                                                                                  chunk):
            deck = decks[section.id]
            deck_id = deck.id
            key = rendered.key_of(faces[(deck_id, card.id, side)])        # waits for a face still being drawn
            placements.append((key, rendered.lazy(key), trim, clip, deck.bleed, slot_label(deck_id, card, side)))
            rotations.append(rotation)
            slots.append({"card": card.uid, "component": deck_id, "copy": copy, "side": printed_side,
                          "trim": list(trim_mm), "bleed": list(clip_mm), "rotation": rotation})
        crop = side == "face" and not self.options.cutter
        imposer.place(page, placements, marks=grid.marks(len(chunk)) if crop else (),
                      page_size=grid.page, rotations=rotations)
        role = ("cards-front" if side == "face" else "cards-back") if chunk[0][0].two_sided else "cards"
        entry = {"role": role, "size": list(grid.page), "slots": slots}
        if self.options.cutter and side == "face":
            entry.update(self._registration(imposer, page, grid))
        return entry

    def _slots(self, grid: CardGrid, used: int, side: str) -> list[tuple]:
        """(trim, clip, rotation, trim as listed, clip as listed) of the first `used` slots on one
        side, worked out once per grid, count and side: every full sheet of a deck is the same."""
        key = (id(grid), used, side)
        if key not in self._slot_memo:
            out = []
            for slot in open_bleeds(list(grid.slots[:used]), grid.outer_bleed):    # full bleed beside an empty slot
                trim, clip, rotation = slot.trim, slot.bleed, 0
                if side == "back":
                    trim, rotation = back_placement(slot.trim, grid.page, self.options.duplex, self.options.back_offset)
                    clip, _ = back_placement(slot.bleed, grid.page, self.options.duplex, self.options.back_offset)
                out.append((trim, clip, rotation, trim.as_list(), clip.as_list()))
            self._slot_memo[key] = (grid, out)         # the grid kept alive: its id stays its own
        return self._slot_memo[key][1]

    def _fold_sheet(self, imposer: Imposer, grid: FoldGrid, chunk) -> dict:
        """Fronts left of the fold, backs mirrored on the right: fold, glue, cut."""
        page = imposer.new_page(grid.page)
        placements, slots = [], []
        for front_slot, back_slot, (section, card, copy) in zip(grid.fronts, grid.backs, chunk):
            deck = self.game.decks[section.id]
            for side, slot in (("face", front_slot), ("back", back_slot)):
                face = self.faces[(deck.id, card.id, side)]
                key = self.rendered.key_of(face)
                placements.append((key, self.rendered.lazy(key), slot.trim, slot.bleed, deck.bleed,
                                   slot_label(deck.id, card, side)))
                slots.append({"card": card.uid, "component": deck.id, "copy": copy,
                              "side": "front" if side == "face" else "back",
                              "trim": slot.trim.as_list(), "bleed": slot.bleed.as_list(), "rotation": 0})
        fold = Mark(grid.fold_x, MIN_MARGIN, grid.fold_x, grid.page[1] - MIN_MARGIN)
        imposer.place(page, placements, marks=grid.marks(len(chunk)), page_size=grid.page, fold=fold)
        return {"role": "cards-fold", "size": list(grid.page), "fold_x": round(grid.fold_x, 3), "slots": slots}


def _sections(chunk) -> list[Section]:
    """The decks on one sheet, in slot order."""
    seen: list[Section] = []
    last = None
    for section, _, _ in chunk:
        if section is not last and not any(section is s for s in seen):    # (a sheet's slots run deck by deck)
            seen.append(section)
        last = section
    return seen


def _owners(chunk) -> dict:
    """Which decks a sheet holds, for the manifest: `component` is the first, `components` every one."""
    ids = [s.id for s in _sections(chunk)]
    return {"component": ids[0], "components": ids}


def _size_at(game: Game, deck) -> tuple[str, int | None]:
    """Where a deck's card size is set: its own `deck: size:`, else game.yaml's `card: size:`."""
    raw = game.files.get(deck.file)
    spec = raw.get("deck") if isinstance(raw, dict) else None
    if isinstance(spec, dict) and spec.get("size") is not None:
        return deck.file, line_at(raw, ("deck", "size"))[1]
    game_file = f"cards/{game.id}/game.yaml"
    return game_file, line_at(game.files.get(game_file), ("card", "size"))[1]
