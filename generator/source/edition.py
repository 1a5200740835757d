"""A game in one of its other languages: the source data with i18n/<lang>.yaml laid over it.

Only text changes: deck, colour and piece names, the card fields of type text and rich, the
title, keywords and every other printed string (pieces.yaml texts, pack variants, supplies,
template literals through `_()`), looked up in the catalogue's `text:` by their exact source
text. Ids, numbers, copies and everything derived are the source's. A translation the
catalogue lacks is recorded as a problem at the line of the text in the source data (the
validator reports them), and counted in the edition's coverage.
"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import fields, is_dataclass, replace
from typing import Any

from pydantic import BaseModel

from generator.errors import Problem
from generator.source.game import Card, Deck, Game
from generator.source.yamlsrc import line_at

EXPRESSION = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
# pieces.yaml keys whose strings are printed (and so translated)
PRINTED_KEYS = {"text", "label", "title", "lines", "header", "cells", "rows", "labels", "sublabels"}


class MissingText(ValueError):
    pass


SPACELESS = ("zh", "ja", "ko")      # source languages whose words are not in Latin letters


def needs_translation(text: str, source: str = "") -> bool:
    """True when a string has words: letters outside {{ expressions }} and {placeholders}.
    Numbers, signs, emoji and pure expressions read the same in every language; so, in data
    written in Chinese, Japanese or Korean, do runs of Latin letters (roman numerals, "A4", ids)."""
    bare = PLACEHOLDER.sub("", EXPRESSION.sub("", text))
    letters = [c for c in bare if unicodedata.category(c).startswith("L")]
    if source.split("-")[0] in SPACELESS:
        return any(ord(c) > 0x24F for c in letters)        # beyond Latin Extended-B
    return bool(letters)


def _spaceless(lang: str) -> bool:
    return lang.split("-")[0] in SPACELESS


def script_runs(text: str, source: str, lang: str) -> list[str]:
    """The runs of letters beyond Latin in a text, when the data is written in Chinese,
    Japanese or Korean and the edition is not (else nothing can be told apart: [])."""
    if not _spaceless(source) or _spaceless(lang):
        return []
    runs, current = [], []
    for char in text:
        if ord(char) > 0x24F and unicodedata.category(char).startswith("L"):
            current.append(char)
        elif current:
            runs.append("".join(current))
            current = []
    if current:
        runs.append("".join(current))
    return list(dict.fromkeys(runs))


def _texts(value: Any):
    """Every string in a loaded catalogue."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from _texts(item)


def kept_marks(text: str) -> tuple[list[str], list[str]]:
    """The parts a translation must keep: {placeholders} and {{ expressions }}."""
    return sorted(PLACEHOLDER.findall(EXPRESSION.sub("", text))), sorted(EXPRESSION.findall(text))


def marks_lost(source: str, lang: str, file: str, line: int | None, what: str) -> Problem:
    """A translation that does not keep its source's {placeholders} and {{ expressions }} (kept_marks)."""
    names, expressions = kept_marks(source)
    kept = ", ".join([f"{{{n}}}" for n in names] + expressions) or "no placeholders"
    return Problem(file, line, f"{what}: the {lang} text must keep {kept} as the source has them", "translate only the words")


class Overlay:
    """Lays one catalogue over a loaded source game, noting what it lacks."""

    def __init__(self, game: Game, lang: str, catalogue, display: str, raw):
        self.game, self.lang, self.cat, self.display, self.raw = game, lang, catalogue, display, raw
        self.missing: list[Problem] = []
        self.counts = {"card texts": [0, 0], "strings": [0, 0]}
        self.game_file = f"cards/{game.id}/game.yaml"
        self.source = game.languages[0]

    def lack(self, file: str, line: int | None, message: str) -> None:
        self.missing.append(Problem(file, line, f"{message}: no {self.lang} translation",
                                    f"add it to {self.display}"))

    def count(self, kind: str, found: bool) -> None:
        self.counts[kind][1] += 1
        self.counts[kind][0] += int(found)

    def string(self, text: Any, file: str, loc: tuple, what: str, table: dict | None = None,
               key: Any = None) -> Any:
        """A string's translation: from `table[key]` (decks:, colours: …) or else `text:`."""
        if not isinstance(text, str):
            return text
        found = table.get(key) if table is not None else None
        if found is None:
            found = self.cat.text.get(text)
        if found is None and not needs_translation(text, self.source):
            return text
        self.count("strings", found is not None)
        if found is None:
            self.lack(file, line_at(self.game.files.get(file), loc)[1], f"{what} {text!r}")
            return text
        self.check_marks(text, found, ("text", text) if table is None or key not in table else None, what)
        return found

    def check_marks(self, source: str, found: str, loc: tuple | None, what: str) -> None:
        if kept_marks(source) != kept_marks(found):
            self.missing.append(marks_lost(source, self.lang, self.display, line_at(self.raw, loc)[1] if loc else None,
                                           what))

    # --- the parts of a game ------------------------------------------------------------
    def spec(self):
        spec, cat = self.game.spec, self.cat
        update: dict[str, Any] = {"language": self.lang}
        update["title"] = self._field(spec.title, cat.title, ("title",), "title")
        if spec.subtitle:
            update["subtitle"] = self._field(spec.subtitle, cat.subtitle, ("subtitle",), "subtitle")
        if spec.description:
            update["description"] = self.string(spec.description, self.game_file, ("description",), "description")
        if spec.source:          # page 1 credits it: translated like the description
            update["source"] = self.string(spec.source, self.game_file, ("source",), "source")
        if spec.keywords:        # one entry of the catalogue, counted as one string (as translate counts it)
            self.count("strings", cat.keywords is not None)
        if cat.keywords is not None:
            update["keywords"] = list(cat.keywords)
        elif spec.keywords:
            self.lack(self.game_file, line_at(self.game.files[self.game_file], ("keywords",))[1],
                      "keywords")
        update["player_colours"] = [
            c.model_copy(update={"name": self.string(c.name, self.game_file, ("player_colours", i, "name"),
                                                     f"player colour '{c.id}'", cat.colours, c.id)})
            for i, c in enumerate(spec.player_colours)]
        update["packs"] = [self._pack(p, i) for i, p in enumerate(spec.packs)]
        supplies = getattr(spec, "supplies", None)        # game.yaml's household items, when the game has them
        if supplies:
            update["supplies"] = [self.string(s, self.game_file, ("supplies", i), "supplies")
                                  for i, s in enumerate(supplies)]
        return spec.model_copy(update=update)

    def _field(self, source: str, found: str | None, loc: tuple, what: str) -> str:
        if found is None and not needs_translation(source, self.source):
            return source        # a Latin title in Chinese data ("Demo"): `pnp translate` asks for none either
        self.count("strings", found is not None)
        if found is None:
            self.lack(self.game_file, line_at(self.game.files[self.game_file], loc)[1], what)
            return source
        return found

    def _pack(self, pack, index: int):
        update = {}
        for key in ("variant", "name"):
            value = getattr(pack, key)
            if value:
                update[key] = self.string(value, self.game_file, ("packs", index, key), f"pack {pack.key}: {key}")
        return pack.model_copy(update=update)

    def decks(self) -> dict[str, Deck]:
        out = {}
        for deck_id, deck in self.game.decks.items():
            name = self.string(deck.spec.name, deck.file, ("deck", "name"), f"deck '{deck_id}': name",
                               self.cat.decks, deck_id)
            texts = {f for f, spec in deck.spec.fields.items() if spec.type in ("text", "rich")}
            cards = [self._card(deck, card, texts) for card in deck.cards]
            out[deck_id] = Deck(deck.spec.model_copy(update={"name": name}), cards, deck.file)
        for deck_id, cards in self.cat.cards.items():
            self._unknown_cards(deck_id, cards)
        return out

    def _card(self, deck: Deck, card: Card, texts: set[str]) -> Card:
        # the catalogue's text, else the spreadsheet's `field@lang` column
        catalogued = {k: v for k, v in self.cat.cards.get(deck.id, {}).get(card.id, {}).items() if v is not None}
        given = {**card.translations.get(self.lang, {}), **catalogued}
        text_at, translated_at = None, {}
        fields = dict(card.fields)
        for name in sorted(texts):
            value = card.fields.get(name)
            if not isinstance(value, str) or not needs_translation(value, self.source):
                continue
            found = given.get(name)
            self.count("card texts", found is not None)
            where = f"card '{card.uid}': {name}"
            entry = line_at(self.raw, ("cards", deck.id, card.id, name))[1]     # its catalogue line
            source = (card.file, self.game.files[deck.file]["cards"][card.index].line_of(name))  # (a spreadsheet row)
            if found is None:
                if card.printed:
                    self.lack(*source, where)
                else:       # designed, not printed (copies: 0): a note at its catalogue entry, to do
                    self.missing.append(Problem(self.display, entry, f"{where}: no {self.lang} translation yet (no "
                                                "pack prints the card: copies 0)", note=True))
                continue
            self.check_marks(value, found, ("cards", deck.id, card.id, name), where)
            fault = deck.spec.fields[name].line_fault(found)        # as the source's own text
            if fault:
                at = (self.display, entry) if name in catalogued else source
                self.missing.append(Problem(*at, f"{where}: {fault}"))
            fields[name] = found
            if name in catalogued:
                text_at = (self.display, line_at(self.raw, ("cards", deck.id, card.id))[1])
                translated_at[name] = entry
        return replace(card, fields=fields, text_at=text_at, translated_at=translated_at)

    def _unknown_cards(self, deck_id: str, cards: dict) -> None:
        deck = self.game.decks.get(deck_id)
        if deck is None:
            self.missing.append(Problem(self.display, line_at(self.raw, ("cards", deck_id))[1],
                                        f"cards: no deck '{deck_id}'", f"decks: {', '.join(self.game.decks)}"))
            return
        ids = {c.id: c for c in deck.cards}
        for card_id, given in cards.items():
            if card_id not in ids:
                self.missing.append(Problem(self.display, line_at(self.raw, ("cards", deck_id, card_id))[1],
                                            f"cards.{deck_id}: no card '{card_id}' in that deck",
                                            f"a card given a new id? ./pnp translate {self.game.id} --lang {self.lang} "
                                            "moves its translation to that id"))
                continue
            for name in given:
                if deck.spec.fields.get(name) is None or deck.spec.fields[name].type not in ("text", "rich"):
                    self.missing.append(Problem(self.display, line_at(self.raw, ("cards", deck_id, card_id, name))[1],
                                                f"cards.{deck_id}.{card_id}: '{name}' is not a text field of "
                                                f"deck '{deck_id}'"))

    def pieces(self) -> dict:
        file = f"cards/{self.game.id}/{self.game.spec.pieces}"
        out = {}
        for index, (piece_id, piece) in enumerate(self.game.pieces.items()):
            loc = ("pieces", index)
            name = self.string(piece.name, file, loc + ("name",), f"piece '{piece_id}': name", self.cat.pieces,
                               piece_id)
            update = {"name": name}
            for key in ("elements", "back"):
                if getattr(piece, key) is not None:
                    update[key] = [self._element(el, file, loc + (key, i), f"piece '{piece_id}'")
                                   for i, el in enumerate(getattr(piece, key))]
            out[piece_id] = piece.model_copy(update=update)
        return out

    def _element(self, el: BaseModel, file: str, loc: tuple, what: str) -> BaseModel:
        update = {}
        for key, value in el:
            if key == "elements" and isinstance(value, list):
                update[key] = [self._element(e, file, loc + (key, i), what) for i, e in enumerate(value)]
            elif key == "marks" and isinstance(value, list):
                update[key] = [self._element(m, file, loc + (key, i), what) for i, m in enumerate(value)]
            elif key in PRINTED_KEYS:
                update[key] = self._printed(value, file, loc + (_alias(el, key),), what)
        return el.model_copy(update=update)

    def _printed(self, value: Any, file: str, loc: tuple, what: str) -> Any:
        if isinstance(value, str):
            return self.string(value, file, loc, what)
        if isinstance(value, list):
            return [self._printed(v, file, loc + (i,), what) for i, v in enumerate(value)]
        return value

    def tables(self) -> dict[str, list[Card]]:
        """Table rows' text fields, through `text:` (a map's station names …)."""
        out = {}
        for table_id, rows in self.game.tables.items():
            raw = self.game.files[rows[0].file]
            kinds = {n: s.get("type") for n, s in raw["table"].get("fields", {}).items()}
            new_rows = []
            for row in rows:
                fields = dict(row.fields)
                for name, value in row.fields.items():
                    if kinds.get(name) in ("text", "rich"):
                        fields[name] = self.string(value, row.file, ("rows", row.index, name),
                                                   f"{table_id} row '{row.id}': {name}")
                new_rows.append(replace(row, fields=fields))
            out[table_id] = new_rows
        return out


def _alias(el: BaseModel, key: str) -> str:
    info = type(el).model_fields.get(key)
    return info.alias if info is not None and info.alias else key


def apply_catalogue(game: Game, lang: str, catalogue, display: str, raw) -> Game:
    """The edition of `game` in `lang`, with what its catalogue lacks in .missing."""
    overlay = Overlay(game, lang, catalogue, display, raw)
    spec = overlay.spec()
    decks = overlay.decks()
    pieces = overlay.pieces()
    tables = overlay.tables()
    edition = replace(game, spec=spec, decks=decks, pieces=pieces, tables=tables, language=lang,
                      text={k: v for k, v in catalogue.text.items() if v is not None}, catalogue=display, missing=overlay.missing,
                      coverage=overlay.counts, files={**game.files, display: raw}, origin=game,
                      quoted="\n".join(_texts(raw)))
    for deck in decks.values():
        deck.game = edition
    return edition


def localise(value: Any, game: Game) -> Any:
    """What the rules module derived from the source data, for an edition: the same numbers,
    each row or card replaced by the edition's (translated) one, and each string the
    catalogue's `text:` translates in its translation. Mapping keys stay as they are (they
    are looked up by raw values such as enum ids)."""
    if game.is_source:
        return value
    rows = {(c.deck, c.id): c for deck in game.decks.values() for c in deck.cards}
    rows.update({(r.deck, r.id): r for table in game.tables.values() for r in table})
    return _localised(value, game.text, rows)


def _localised(value: Any, text: dict, rows: dict) -> Any:
    if isinstance(value, str):
        return text.get(value, value)
    if isinstance(value, Card):
        return rows.get((value.deck, value.id), value)
    if isinstance(value, dict):
        return {k: _localised(v, text, rows) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        items = [_localised(v, text, rows) for v in value]
        return type(value)(items) if type(value) in (list, tuple) else value
    if is_dataclass(value) and not isinstance(value, type):
        changes = {f.name: _localised(getattr(value, f.name), text, rows) for f in fields(value) if f.init}
        try:
            return replace(value, **changes)
        except (TypeError, ValueError):         # a dataclass that will not be rebuilt: left as it is
            return value
    return value
