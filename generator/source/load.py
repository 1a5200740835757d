"""Load a game folder: every YAML file validated, every card typed, the rules module imported.

All problems across all files are collected and raised together, so one run shows
every mistake (the MkDocs habit), each as `file:line: message`.
"""
from __future__ import annotations

import importlib.util
import os
import re
import sys
import traceback
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from generator.errors import PnpError, Problem, abbreviate, short_repr
from generator.source import reads
from generator.source.game import Card, Deck, Game
from generator.source.project import Project
from generator.source.edition import apply_catalogue
from generator.source.engine import check_engine
from generator.source.schema import (CARD_KEYS, IMAGE_TYPES, CatalogueFile, ClaimsFile, DeckFile, FieldSpec, GameSpec,
                                     PiecesFile, TableFile, validation_problems)
from generator.source.spreadsheet import PER_COUNT, SHEET_TYPES, TRANSLATED, SheetRow, SheetRows, cell_value, is_sheet, read_sheet
from generator.source.files import read_regular
from generator.source.words import closest
from generator.source.yamlsrc import LocDict, line_at, load_yaml

ID_PATTERN = re.compile(r"[a-z0-9][a-z0-9-]*")     # schema.ID: the same rule as every other id
MAX_ID = 64


def load_game(project: Project, game_id: str, lang: str | None = None, rules: bool = True) -> Game:
    """The game in `lang` (default: its source language, the language of its data), with its rules
    module imported (rules=False: data only, no code of the game runs)."""
    folder = project.cards / game_id
    if not (folder / "game.yaml").is_file():
        known = ", ".join(project.games()) or "none"
        raise PnpError(Problem(project.display(folder), None, f"no game '{game_id}' (games: {known})"))
    problems: list[Problem] = []
    files: dict[str, Any] = {}

    def parse(name: str, model, named_by: str | None = None):
        """`named_by`: the game.yaml key that names the file, where a file that is not there is said."""
        display = project.display(folder / name)
        if named_by and not os.path.lexists(folder / name):
            game_yaml = files[project.display(folder / "game.yaml")]
            problems.append(Problem(project.display(folder / "game.yaml"), game_yaml.line_of(named_by),
                                    f"{named_by}: there is no {name} in {project.display(folder)}/"))
            return None
        if is_sheet(name) or Path(name).suffix.lower() not in (".yaml", ".yml"):
            problems.append(Problem(display, None, f"a {model.__name__.removesuffix('File').lower()} file is YAML "
                                    f"(.yaml); a spreadsheet of cards is named in one: `cards: {name}`"
                                    if is_sheet(name) else f"unsupported file type '{Path(name).suffix or name}' "
                                    f"(files are .yaml; cards may also come from {', '.join(SHEET_TYPES)})"))
            return None
        try:
            data = load_yaml(folder / name, display)
        except PnpError as exc:
            problems.extend(exc.problems)
            return None
        files[display] = data
        if model is GameSpec and isinstance(data, dict):      # before anything else a newer pnp may know
            check_engine(data.get("engine"), display, data.line_of("engine") if "engine" in data else None)
        try:
            return model.model_validate(data)
        except ValidationError as exc:
            problems.extend(validation_problems(exc, data, display, model))
            return None

    spec = parse("game.yaml", GameSpec)
    if spec is None:
        raise PnpError(problems)
    outside = _outside_project(project, folder, spec, files, problems)
    if outside:
        raise PnpError(problems)        # read nothing a game names outside the project
    _distinct_players(spec, files[project.display(folder / "game.yaml")], problems)
    if spec.id != game_id:
        problems.append(Problem(project.display(folder / "game.yaml"), files_line(files, "id"),
                                f"id '{spec.id}' differs from the folder name '{game_id}'"))
    decks: dict[str, Deck] = {}
    for name in spec.decks:
        deck_file = parse(name, DeckFile, "decks")
        if deck_file is None:
            continue
        display = project.display(folder / name)
        if deck_file.deck.id in decks:
            problems.append(Problem(display, None, f"deck id '{deck_file.deck.id}' is used by another deck file"))
            continue
        cards = _load_cards(deck_file.deck.id, deck_file.deck.fields,
                            _rows(folder, files, display, "cards", problems), spec, display, problems,
                            folder=folder)
        decks[deck_file.deck.id] = Deck(deck_file.deck, cards, display)
    tables = {}
    for name in spec.tables:
        table_file = parse(name, TableFile, "tables")
        if table_file is None:
            continue
        display = project.display(folder / name)
        tables[table_file.table.id] = _load_cards(table_file.table.id, table_file.table.fields,
                                                  _rows(folder, files, display, "rows", problems), spec,
                                                  display, problems, "row")
    pieces = {}
    if spec.pieces:
        pieces_file = parse(spec.pieces, PiecesFile, "pieces")
        listed = pieces_file.pieces if pieces_file else []
        _unique_ids(listed, "pieces", "piece", files.get(project.display(folder / spec.pieces)), problems)
        for piece in listed:
            pieces.setdefault(piece.id, piece)
    claims = []
    if spec.claims:
        claims_file = parse(spec.claims, ClaimsFile, "claims")
        claims = claims_file.claims if claims_file else []
        _unique_ids(claims, "claims", "claim", files.get(project.display(folder / spec.claims)), problems)
    data = {}
    for name in spec.data:
        try:
            data[name] = load_yaml(folder / name, project.display(folder / name))
        except PnpError as exc:
            problems.extend(exc.problems)
    rules = _import_rules(project, folder / spec.rules, problems) if rules else None
    game = Game(game_id, folder, spec, decks, pieces, claims, rules, files, data, tables)
    game.language = spec.languages[0]
    for deck in decks.values():
        deck.game = game
    if problems:
        raise PnpError(problems)
    if lang is not None and lang != game.language:
        game = _edition(project, game, lang)
    return game


def _named_files(spec: GameSpec) -> list[tuple[tuple, str]]:
    """Every file game.yaml names, with its key path (for the line)."""
    named = [(("decks", i), n) for i, n in enumerate(spec.decks)]
    named += [(("tables", i), n) for i, n in enumerate(spec.tables)]
    named += [(("data", i), n) for i, n in enumerate(spec.data)]
    named += [((key,), getattr(spec, key)) for key in ("pieces", "claims") if getattr(spec, key)]
    return named + [(("rules",), spec.rules)]


def _outside_project(project: Project, folder: Path, spec: GameSpec, files: dict, problems: list[Problem]) -> bool:
    """A file game.yaml names must be inside the project, after following symbolic links:
    `decks: [../../../../etc/passwd]` is refused before anything reads it."""
    display = project.display(folder / "game.yaml")
    found = False
    for where, name in _named_files(spec):
        if not project.contains(folder / name):
            _, line = line_at(files[display], where)
            problems.append(Problem(display, line, f"{where[0]}: {abbreviate(name)!r} is outside the project folder",
                                    "name files inside the game's folder, like goods.yaml"))
            found = True
    return found


def _unique_ids(items: list, key: str, noun: str, raw, problems: list[Problem]) -> None:
    """Two pieces or two claims with one id: the second would silently replace the first."""
    first: dict[str, int | None] = {}
    for index, item in enumerate(items):
        file, line = line_at(raw, (key, index, "id"))
        if item.id in first:
            problems.append(Problem(file, line, f"{noun} '{item.id}': duplicate id (first used on line "
                                    f"{first[item.id]})"))
        first.setdefault(item.id, line)


def _distinct_players(spec: GameSpec, raw, problems: list[Problem]) -> None:
    """Two player colours with one id (the second is never found), or with one colour or one symbol:
    the docs promise players tell their sets apart by colour, and by symbol without colour."""
    colours = spec.player_colours
    _unique_ids(colours, "player_colours", "player colour", raw, problems)
    for field, same in (("colour", str.lower), ("symbol", lambda s: s.replace("\ufe0f", ""))):
        first: dict[str, tuple[str, int | None]] = {}
        for index, colour in enumerate(colours):
            value = getattr(colour, field)
            file, line = line_at(raw, ("player_colours", index, field))
            if same(value) in first:
                other, at = first[same(value)]
                problems.append(Problem(file, line, f"player colour '{colour.id}': same {field} {value!r} as "
                                        f"player colour '{other}' (line {at})",
                                        "players tell their sets apart by colour, and by symbol without colour"))
            first.setdefault(same(value), (colour.id, line))


def _rows(folder: Path, files: dict, display: str, key: str, problems: list[Problem]):
    """A file's list of cards, or the rows of the spreadsheet it names."""
    data = files[display]
    rows = data[key]
    if not isinstance(rows, str):
        return rows
    sheet = str(Path(display).parent / rows.split("#", 1)[0])
    try:
        rows = data[key] = read_sheet(folder, rows, sheet)
        files[rows.file] = data      # later checks look a card's line up by its file
        return rows
    except PnpError as exc:
        problems.extend(Problem(p.path, p.line or (data.line_of(key) if p.path == display else None), p.message,
                                p.hint, column=p.column) for p in exc.problems)
        return []


def _edition(project: Project, game: Game, lang: str) -> Game:
    """The game in another of its languages, its catalogue validated (what it lacks is
    left to the validator, in game.missing)."""
    game_file = project.display(game.folder / "game.yaml")
    if lang not in game.languages:
        raise PnpError(Problem(game_file, files_line(game.files, "languages") or files_line(game.files, "language"),
                               f"no {lang} edition (languages: {', '.join(game.languages)})",
                               f"add {lang} to languages: and write cards/{game.id}/i18n/{lang}.yaml"))
    path = game.folder / "i18n" / f"{lang}.yaml"
    display = project.display(path)
    if not path.is_file():
        raise PnpError(Problem(display, None, f"the {lang} edition has no catalogue",
                               f"./pnp translate {game.id} --lang {lang} writes it, with every source text to translate"))
    raw = load_yaml(path, display)
    try:
        catalogue = CatalogueFile.model_validate(raw)
    except ValidationError as exc:
        raise PnpError(validation_problems(exc, raw, display, CatalogueFile)) from None
    if catalogue.language != lang:
        raise PnpError(Problem(display, raw.line_of("language"),
                               f"language: '{catalogue.language}' in the file for {lang}"))
    return apply_catalogue(game, lang, catalogue, display, raw)


def game_languages(project: Project, game_id: str) -> list[str]:
    """A game's languages from its game.yaml alone (the full load validates it)."""
    game_file = project.cards / game_id / "game.yaml"
    if not game_file.is_file():
        load_game(project, game_id)          # says which games there are
    data = load_yaml(game_file, project.display(game_file))
    try:
        return list(GameSpec.model_validate(data).languages)
    except ValidationError:
        load_game(project, game_id)          # reports the problems in full
        raise


def files_line(files: dict, key: str) -> int | None:
    for data in files.values():
        if isinstance(data, LocDict) and key in data:
            return data.line_of(key)
    return None


def _load_cards(owner: str, fields: dict[str, FieldSpec], raw_cards, spec: GameSpec, display: str,
                problems: list[Problem], noun: str = "card", folder: Path | None = None) -> list[Card]:
    """Cards of a deck (or rows of a table), each field checked against its declared type."""
    allowed = CARD_KEYS | set(fields)
    players = {pack.players for pack in spec.packs}
    colours = {c.id for c in spec.player_colours}
    cards, seen = [], {}
    meant = _unknown_columns(owner, fields, raw_cards, allowed, noun, problems)
    # a required field with no column at all: once, at the header, not once a row (and not when a
    # misspelt column was just said to be meant for it)
    no_column = {name for name, field in fields.items() if field.required and field.default is None
                 and isinstance(raw_cards, SheetRows) and name not in raw_cards.columns}
    for name in sorted(no_column - meant):
        problems.append(Problem(raw_cards.file, raw_cards.header_line, f"no column '{name}' (a required field)",
                                f"{owner} {noun}s take: {', '.join(sorted(allowed))}"))
    for index, raw in enumerate(raw_cards):
        line = raw_cards.line_of(index)
        if not isinstance(raw, dict):
            problems.append(Problem(display, line, f"{noun}s[{index}]: expected a mapping of fields"))
            continue
        sheet = isinstance(raw, SheetRow)
        if sheet:
            display = raw.file
        card_id = raw.get("id")
        if sheet and isinstance(card_id, int):
            card_id = raw["id"] = str(card_id)
        label = f"{noun} '{card_id}'" if card_id else f"{noun}s[{index}]"
        if card_id is not None and not isinstance(card_id, str):      # YAML read `id: 123` as a number
            problems.append(Problem(display, raw.line_of("id"), f"{noun}s[{index}]: id {card_id!r} is a "
                                    f"{'number' if isinstance(card_id, (int, float)) else type(card_id).__name__}, "
                                    "not text", f"quote it: id: \"{card_id}\" (YAML reads 007 as 7)"))
            continue
        if not isinstance(card_id, str) or not card_id:
            problems.append(Problem(display, line, f"{label}: 'id' is missing"))
            continue
        if len(card_id) > MAX_ID:
            problems.append(Problem(display, raw.line_of("id"), f"{noun} {abbreviate(card_id, 60)!r}: id is "
                                    f"{len(card_id)} characters; at most {MAX_ID}", "ids name output files"))
            continue
        if not ID_PATTERN.fullmatch(card_id):
            problems.append(Problem(display, raw.line_of("id"), f"{noun} {abbreviate(card_id, 60)!r}: id must be "
                                    "lower-case letters, digits and '-'", "ids name output files, so ../ or "
                                    "capitals are not allowed"))
            continue
        if card_id in seen:
            problems.append(Problem(display, raw.line_of("id"),
                                    f"{label}: duplicate id (first used on line {seen[card_id]})"))
            continue
        seen[card_id] = raw.line_of("id")
        for key in raw if not sheet else ():
            if key not in allowed:
                near = closest(str(key), allowed)
                problems.append(Problem(display, raw.line_of(key), f"{label}: unknown key '{key}'" +
                                        (f" — did you mean '{near}'?" if near else ""),
                                        None if near else f"{owner} {noun}s take: {', '.join(sorted(allowed))}"))
        values = {}
        for name, field in fields.items():
            if name not in raw:
                if field.required and field.default is None and name not in no_column:
                    problems.append(Problem(display, line, f"{label}: required key '{name}' is missing"))
                values[name] = field.default
                continue
            value = cell_value(field.type, field.of, field.values, raw[name]) if sheet else raw[name]
            value, error = check_field(field, value, colours)
            if not error and field.type == "image" and value is not None and folder is not None:
                error = _missing_picture(folder, value)
            if error:
                problems.append(_field_problem(raw, display, label, name, error))
            values[name] = value
        copies = raw.get("copies", 1)
        error = _check_copies(copies, players)
        if error:
            problems.append(_field_problem(raw, display, label, "copies", error))
            copies = 0
        cards.append(Card(owner, card_id, values, copies, display, line, index,
                          getattr(raw, "translations", None) or {}))
    return cards


def _unknown_columns(owner: str, fields: dict[str, FieldSpec], raw_cards, allowed: set[str], noun: str,
                     problems: list[Problem]) -> set[str]:
    """A spreadsheet's columns that name no field (a translation column: no text field), each once at
    its header, with the field it is likely a misspelling of; return those fields."""
    if not isinstance(raw_cards, SheetRows):
        return set()
    texts = sorted(n for n, f in fields.items() if f.type in ("text", "rich"))
    meant = set()
    for column in raw_cards.columns:
        translated = TRANSLATED.match(column)
        if translated and translated.group(1) in texts or not column or column in allowed or PER_COUNT.match(column):
            continue
        near = closest(translated.group(1), texts) if translated else closest(column, allowed)
        if near:
            if not translated:
                meant.add(near)
            shown = f"{near}@{translated.group(2)}" if translated else near
            problems.append(Problem(raw_cards.file, raw_cards.header_line,
                                    f'unknown column "{column}" — did you mean "{shown}"?'))
        elif translated:
            problems.append(Problem(raw_cards.file, raw_cards.header_line, f"column '{column}': "
                                    f"'{translated.group(1)}' is not a text field of {owner}",
                                    f"a translation column is a text field's name, @, a language: "
                                    f"{', '.join(f'{n}@en' for n in texts) or 'none here'}", column=column))
        else:
            problems.append(Problem(raw_cards.file, raw_cards.header_line, f'unknown column "{column}"',
                                    f"{owner} {noun}s take: {', '.join(sorted(allowed))}"))
    return meant


def _missing_picture(folder: Path, picture: str) -> str | None:
    path = (folder / picture).resolve()
    if not path.is_relative_to(folder.parent.resolve()):
        return f"{picture} is outside cards/ (keep a game's pictures in its folder, e.g. art/)"
    if not path.is_file():
        return f"no picture {picture} in {folder.name}/ (paths are relative to the game folder)"
    return None


def _field_problem(raw, display: str, label: str, key: str, message: str) -> Problem:
    """`file:line: card 'x': key: message`, or for a spreadsheet's cell `file:row:column: message`."""
    if isinstance(raw, SheetRow):
        return Problem(raw.file, raw.line, message, column=key)
    return Problem(display, raw.line_of(key), f"{label}: {key}: {message}")


def check_field(field: FieldSpec, value: Any, colours: set[str]) -> tuple[Any, str | None]:
    """Convert one card value to its declared type, or say what is wrong with it."""
    kind = field.type
    if value is None:
        return None, None if not field.required else "a value is required"
    if kind in ("text", "rich", "icon"):
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            return value, f"expected text, got {_kind(value)}"
        value = str(value)
        if field.max_length and len(value) > field.max_length:
            return value, f"{len(value)} characters; at most {field.max_length}"
        return value, field.line_fault(value)
    if kind in ("int", "number"):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind == "int" and not float(value).is_integer()):
            return value, f"expected {'a whole number' if kind == 'int' else 'a number'}, got {short_repr(value)}"
        value = int(value) if kind == "int" else float(value)
        if field.min is not None and value < field.min:
            return value, f"{value} is below the minimum {field.min:g}"
        if field.max is not None and value > field.max:
            return value, f"{value} is above the maximum {field.max:g}"
        return value, None
    if kind == "image":
        if not isinstance(value, str) or not value.strip():
            return value, f"expected a picture's path, got {value!r}"
        if Path(value).suffix.lower() not in IMAGE_TYPES:
            return value, f"{value}: unsupported picture type (use {', '.join(IMAGE_TYPES)})"
        return value, None
    if kind == "bool":
        return (value, None) if isinstance(value, bool) else (value, f"expected true or false, got {short_repr(value)}")
    if kind == "enum":
        return (value, None) if value in field.values else (value, f"{short_repr(value)} is not one of {field.values}")
    if kind == "player":
        return (value, None) if isinstance(value, str) and value in colours else (value, f"{short_repr(value)} is not a player colour ({sorted(colours)})")
    if kind == "list":
        if not isinstance(value, list):
            return value, f"expected a list, got {short_repr(value)}"
        item = FieldSpec(type=field.of or "text", min=field.min, max=field.max)
        out = []
        for position, element in enumerate(value):
            converted, error = check_field(item, element, colours)
            if error:
                return value, f"item {position + 1}: {error}"
            out.append(converted)
        return out, None
    return value, f"unknown field type {kind}"


def _kind(value: Any) -> str:
    return "a list" if isinstance(value, list) else "a mapping" if isinstance(value, dict) else type(value).__name__


def _check_copies(copies: Any, players: set[int]) -> str | None:
    if isinstance(copies, bool):
        return "expected a whole number or a mapping of player count to number"
    if isinstance(copies, int):
        return None if 0 <= copies <= 500 else f"{copies} is out of range 0..500"
    if isinstance(copies, dict):
        for key, value in copies.items():
            if key not in players:
                return f"player count {key!r} has no pack (packs: {sorted(players)})"
            if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 500:
                return f"copies for {key} players must be a whole number 0..500"
        return None
    return "expected a whole number or a mapping of player count to number"


MAX_RULES_BYTES = 1_000_000     # a game's rules module is a few hundred lines


def _import_rules(project: Project, path: Path, problems: list[Problem]):
    display = project.display(path)
    if not path.is_file():
        problems.append(Problem(display, None, "rules module not found"))
        return None
    try:
        reads.note(path, read_regular(path, display, MAX_RULES_BYTES))
    except PnpError as exc:
        problems.extend(exc.problems)
        return None
    name = f"pnp_rules_{path.parent.name.replace('-', '_')}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses in the module look themselves up here
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        del sys.modules[name]
        problems.append(Problem(display, exc.lineno, f"syntax error in rules module: {exc.msg}"))
        return None
    except SystemExit as exc:   # exit status 0 with nothing built would look like success
        del sys.modules[name]
        problems.append(Problem(display, rules_line(exc, path), f"rules module called sys.exit({exc.code!r}) "
                                "while loading", "a rules module defines derive(); it must not exit"))
        return None
    except Exception as exc:  # the designer's code: report where it failed, not a traceback
        del sys.modules[name]
        problems.append(Problem(display, rules_line(exc, path), f"rules module failed to load: {exc!r}"))
        return None
    for needed in ("derive",):
        if not callable(getattr(module, needed, None)):
            problems.append(Problem(display, None, f"rules module has no '{needed}(game)' function"))
    return module


def rules_line(exc: BaseException, path: Path) -> int | None:
    """The line in a rules module where an exception was raised (innermost frame there)."""
    line = None
    for frame in traceback.extract_tb(exc.__traceback__):
        if Path(frame.filename).resolve() == path.resolve():
            line = frame.lineno
    return line
