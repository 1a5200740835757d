"""A loaded game: its specs, cards, pieces, claims, packs and rules module."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from generator.source.schema import ClaimSpec, DeckSpec, GameSpec, PackSpec, PieceSpec, size_mm


@dataclass
class Card:
    deck: str
    id: str
    fields: dict[str, Any]
    copies: int | dict[int, int]
    file: str
    line: int
    index: int  # position in its deck file
    # a spreadsheet row's `field@lang` cells, {lang: {field: text}}: an edition's text beside the source
    translations: dict[str, dict[str, str]] = field(default_factory=dict, repr=False, compare=False)
    # an edition's card whose text its catalogue gives: that entry (file, line), where a problem with
    # the text it prints is mended (the source row is where its data is)
    text_at: tuple[str, int | None] | None = field(default=None, repr=False, compare=False)
    # and the catalogue's line of each field whose text it gives
    translated_at: dict[str, int | None] = field(default_factory=dict, repr=False, compare=False)
    # "deck/card": made with the card (the sheets, the manifest and the records ask for every card;
    # a cached_property took a lock on each card's first ask)
    uid: str = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        self.uid = f"{self.deck}/{self.id}"

    @property
    def printed(self) -> bool:
        """False for a card designed but in no pack (`copies: 0`, or 0 for every player count)."""
        return any(self.copies.values()) if isinstance(self.copies, dict) else self.copies > 0

    def copies_for(self, players: int) -> int:
        if isinstance(self.copies, dict):
            return self.copies.get(players, 0)
        return self.copies

    def __getattr__(self, name: str) -> Any:  # lets templates write card.name
        try:
            return self.__dict__["fields"][name]
        except KeyError:
            raise AttributeError(name) from None


@dataclass
class Deck:
    spec: DeckSpec
    cards: list[Card]
    file: str
    game: "Game" = field(repr=False, default=None)

    @property
    def id(self) -> str:
        return self.spec.id

    @property
    def trim(self) -> tuple[float, float]:
        return size_mm(self.spec.size or self.game.spec.card.size)

    @property
    def bleed(self) -> float:
        return self.spec.bleed if self.spec.bleed is not None else self.game.spec.card.bleed

    @property
    def safe(self) -> float:
        return self.spec.safe if self.spec.safe is not None else self.game.spec.card.safe

    @property
    def corner_radius(self) -> float:
        """Never more than half the card's shorter side (a 15 mm radius on a mini card is a circle's worth)."""
        radius = self.spec.corner_radius if self.spec.corner_radius is not None else self.game.spec.card.corner_radius
        return min(radius, min(self.trim) / 2)

    def card(self, card_id: str) -> Card:
        return next(c for c in self.cards if c.id == card_id)


@dataclass
class Game:
    id: str
    folder: Path
    spec: GameSpec
    decks: dict[str, Deck]
    pieces: dict[str, PieceSpec]
    claims: list[ClaimSpec]
    rules: ModuleType | None
    files: dict[str, Any] = field(default_factory=dict)  # display name -> loaded YAML (for lines)
    data: dict[str, Any] = field(default_factory=dict)   # the game's extra data files, by file name
    tables: dict[str, list[Card]] = field(default_factory=dict)  # typed rows, by table id
    derived: dict[str, Any] = field(default_factory=dict)
    derived_source: dict[str, Any] = field(default_factory=dict)   # as derive() gave it (claims, check())
    language: str = ""         # this edition's language ("" until load_game sets it)
    text: dict[str, str] = field(default_factory=dict)   # source text -> this edition's (the `text:` catalogue)
    catalogue: str | None = None       # the edition's i18n/<lang>.yaml as displayed, None for the source
    missing: list = field(default_factory=list)          # Problems: translations the catalogue lacks
    coverage: dict[str, list[int]] = field(default_factory=dict)  # "card texts"/"strings" -> [translated, total]
    origin: "Game | None" = field(default=None, repr=False)  # an edition's source-language game
    quoted: str = field(default="", repr=False)   # every text of the edition's catalogue, for untranslated()
    # pack key -> {piece id: copies in that pack}: the counts game.yaml gives, as validate (pack_checks)
    # resolved them; empty until then
    piece_counts: dict[str, dict[str, int]] = field(default_factory=dict, repr=False, compare=False)

    @property
    def data_game(self) -> "Game":
        """The game in its data's language: what the rules module derives from and checks, so
        every edition prints the same numbers (a rule may read its numbers out of card text)."""
        return self.origin or self

    @property
    def languages(self) -> list[str]:
        return list(self.spec.languages or [self.spec.language])

    @property
    def is_source(self) -> bool:
        return self.catalogue is None

    @property
    def name_suffix(self) -> str:
        """What output names carry for this edition: "-en" when the game has several languages."""
        return f"-{self.language}" if len(self.languages) > 1 else ""

    def untranslated(self, printed: str) -> list[str]:
        """Runs of the source's script (hanzi, kana, hangul) an edition in another script is
        about to print though its catalogue has no such text: words that missed translation
        (a template literal not in _(), a string inside an expression). A name meant to show
        both scripts is fine once the catalogue holds it."""
        return [run for run in self.source_runs(printed) if run not in self.quoted]

    def source_runs(self, printed: str) -> list[str]:
        """The runs of the source's script in a text this edition prints: what untranslated()
        looks up in the catalogue (none in the source edition)."""
        from generator.source.edition import script_runs
        return [] if self.is_source else script_runs(printed, self.languages[0], self.language)

    def entry_holding(self, char: str) -> tuple[str, int | None] | None:
        """In an edition, the catalogue entry whose translation holds `char` (the first, in file order):
        where a character no bundled font draws came from and is mended, rather than the source line
        of the card or piece that printed it. None in the source edition or when no entry holds it."""
        from generator.source.yamlsrc import line_at
        raw = None if self.is_source else self.files.get(self.catalogue)

        def find(node, path: tuple):
            if isinstance(node, str):
                return path if char in node else None
            items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
            for key, child in items:
                if path == () and key in ("review", "sources"):
                    continue
                found = find(child, path + (key,))
                if found is not None:
                    return found
            return None
        path = find(raw, ()) if isinstance(raw, dict) else None
        return None if path is None else (self.catalogue, line_at(raw, path)[1])

    def translate(self, text: Any) -> Any:
        """`_` in templates: a source-language string in this edition's language. A string
        the catalogue lacks is an error (its template line is reported), never silently
        printed in the source language."""
        from generator.source.edition import MissingText, needs_translation
        if self.is_source or not isinstance(text, str):
            return text
        if text in self.text:
            return self.text[text]
        if not needs_translation(text, self.languages[0]):          # numbers, signs, icons read the same
            return text
        raise MissingText(f"no {self.language} translation of {text!r} under text: in {self.catalogue}")

    @property
    def packs(self) -> list[PackSpec]:
        return self.spec.packs

    def pack(self, players: int) -> PackSpec:
        return next(p for p in self.spec.packs if p.players == players and not p.optional)

    def player_colour(self, colour_id: str):
        return next(c for c in self.spec.player_colours if c.id == colour_id)

    def pack_cards(self, pack: PackSpec, deck_id: str) -> list[tuple[Card, int]]:
        """The cards of one deck in a pack, with their copy counts (zero-count cards left out)."""
        entry = pack.decks[deck_id]
        chosen = []
        for card in self.decks[deck_id].cards:
            if all(card.fields.get(key) in allowed for key, allowed in entry.where.items()):
                copies = card.copies_for(pack.players)
                if copies:
                    chosen.append((card, copies))
        return chosen
