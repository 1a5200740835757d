"""The validator: everything that must hold before a kit is printed.

`pnp validate` runs it; `pnp build` runs it first and refuses to print on any error.
Checks, in order: the rules module derives its numbers, the rules' own invariants,
each pack's composition against the declared counts, templates and icons exist,
every character of every card can be printed, and the seed's stated claims against
the computed values (a recorded contradiction is a note, an unexpected one an error).
"""
from __future__ import annotations

import inspect
import re
from typing import TYPE_CHECKING, Any, NamedTuple

from generator.source.assets import Assets, describe_char, icon_hint
from generator.errors import Problem, abbreviate, errors_only
from generator.source.context import game_context
from generator.check.expr import ExprError, evaluate
from generator.check.translations import translation_checks
from generator.source.game import Game
from generator.source.edition import localise
from generator.source.load import rules_line
from generator.source.markup import PLACEHOLDER, TextError, fill_placeholders, plain_text
from generator.source.project import Project
from generator.source.schema import FieldSpec
from generator.source.yamlsrc import line_at


if TYPE_CHECKING:
    from generator.source.rulebook import Rulebook

MAX_PIECE_COPIES = 1000     # far more tokens than any box holds; a larger count is a mistake


class Validation(NamedTuple):
    problems: list[Problem]
    rulebook: "Rulebook | None" = None      # the rulebook checked, each pack's text made: a build lays them out


def validate(project: Project, game: Game, assets: Assets) -> list[Problem]:
    return validated(project, game, assets).problems


def validated(project: Project, game: Game, assets: Assets) -> Validation:
    """Every check, in order, and the rulebook they read."""
    problems = derive(project, game)
    if problems:
        return Validation(problems)
    problems += rules_checks(project, game)
    packs = pack_checks(project, game)
    problems += packs
    problems += template_checks(project, game)
    problems += size_checks(game)
    problems += tuck_box_checks(game)
    problems += text_checks(game, assets)
    problems += claim_checks(game)
    book = None
    if not errors_only(packs):     # the rulebook reads the packs: it would only echo their mistake elsewhere
        found, book = rulebook_checks(project, game, assets)
        problems += found
    problems += translation_checks(project, game)
    return Validation(problems, book)


def rulebook_checks(project: Project, game: Game, assets: Assets) -> tuple[list[Problem], "Rulebook | None"]:
    """The rulebook's Markdown and every expression in it, for each pack and for every player count
    (the standalone rules): a mistake is a problem at its line of the .md file. With no problem,
    the Rulebook checked too, which holds each pack's text."""
    from generator.errors import PnpError
    from generator.source.rulebook import Rulebook, rulebook_file
    from generator.source.i18n import translator
    path = rulebook_file(game)
    if path is None:
        return _rulebook_missing(project, game), None
    untranslated = _rulebook_untranslated(project, game, path)
    if untranslated:
        return untranslated, None
    try:
        book = Rulebook(game, path, project.display(path), assets, translator(game.spec.language).gettext)
        for pack in [*game.packs, None]:
            book.text(pack)
    except PnpError as exc:
        return exc.problems, None
    return [], book


def _rulebook_missing(project: Project, game: Game) -> list[Problem]:
    """A game with a rulebook in one language has one in each language game.yaml lists: an
    edition built without it would print no rules at all."""
    folder = game.folder / "rulebook"
    others = sorted(p.name for p in folder.glob("*.md")) if folder.is_dir() else []
    if not others:
        return []
    missing = folder / f"{game.spec.language}.md"
    return [Problem(project.display(missing), None, f"the {game.spec.language} rulebook is missing: game.yaml "
                    f"lists {game.spec.language} among its languages and rulebook/ has {', '.join(others)}",
                    f"write it, e.g. start from the stub `./pnp translate {game.id} --lang {game.spec.language}` "
                    "writes")]


def _rulebook_untranslated(project: Project, game: Game, path) -> list[Problem]:
    """An edition's rulebook that is still the source language's word for word (the stub `./pnp
    translate` writes is a comment and a copy, to translate in place): its pack would print the rules
    in the other language under this edition's name."""
    if game.is_source:
        return []
    source = path.parent / f"{game.languages[0]}.md"
    try:
        original, text = source.read_text(encoding="utf-8"), path.read_text(encoding="utf-8")
    except (OSError, ValueError):
        return []
    ahead = text.removesuffix(original).strip() if text.endswith(original) else None
    if ahead is None or (ahead and not (ahead.startswith("{#") and ahead.endswith("#}"))):
        return []
    return [Problem(project.display(path), 1, f"the {game.spec.language} rulebook is still the {game.languages[0]} "
                    "text, word for word", "translate it in place (./pnp translate copied it to start from)")]


def context(game: Game, **extra: Any) -> dict:
    """The expression context (source/context.py): plain data, never engine objects; `_` translates."""
    translate = game.translate
    return {**game_context(game, **extra), "_": lambda text: translate(text)}


def derive(project: Project, game: Game) -> list[Problem]:
    path = game.folder / game.spec.rules
    try:
        derived = game.rules.derive(game.data_game)
    except (Exception, SystemExit) as exc:  # the designer's code: say where, not a traceback (nor exit 0)
        return [Problem(project.display(path), rules_line(exc, path), f"derive() failed: {exc!r}")]
    if not isinstance(derived, dict):
        return [Problem(project.display(path), None, "derive() must return a dict of named values")]
    game.derived = localise(derived, game)      # an edition's names and words in its language
    game.derived_source = derived
    return []


def rules_checks(project: Project, game: Game) -> list[Problem]:
    check = getattr(game.rules, "check", None)
    if check is None:
        return []
    path = game.folder / game.spec.rules
    try:
        found = list(check(game.data_game, game.derived_source) or [])
    except (Exception, SystemExit) as exc:
        return [Problem(project.display(path), rules_line(exc, path), f"check() failed: {exc!r}")]
    line = _line_of(check)
    return [f if isinstance(f, Problem) else Problem(project.display(path), line, f"rules check: {f}")
            for f in found]


def _line_of(function) -> int | None:
    """Where a rules module's function starts, to point at it."""
    try:
        return inspect.getsourcelines(function)[1]
    except (OSError, TypeError):
        return None


def pack_checks(project: Project, game: Game) -> list[Problem]:
    """Each pack's decks hold the count it declares; its pieces exist and their counts are numbers."""
    problems = []
    game_file = f"cards/{game.id}/game.yaml"
    game.piece_counts = {}
    for index, pack in enumerate(game.packs):
        problems += _deck_counts(game, pack, index, game_file)
        problems += _piece_counts(game, pack, index, game_file)
    return problems + _in_no_pack(game, game_file)


def _in_no_pack(game: Game, game_file: str) -> list[Problem]:
    """A deck or piece that no pack lists prints nowhere: a deck added without its pack entries
    would leave the kit short without a word."""
    problems = []
    packed = {deck_id for pack in game.packs for deck_id in pack.decks}
    for index, name in enumerate(game.spec.decks):
        for deck in (d for d in game.decks.values() if d.file == f"cards/{game.id}/{name}" and d.id not in packed):
            _, line = line_at(game.files[game_file], ("decks", index))
            problems.append(Problem(game_file, line, f"deck '{deck.id}' ({name}) is in no pack, so nothing prints it",
                                    f"give it a count in each pack that holds it (packs: … decks: {deck.id}: "
                                    f"{{count: …}}), or take {name} out of decks:"))
    packed = {piece_id for pack in game.packs for piece_id in pack.pieces}
    pieces_file = f"cards/{game.id}/{game.spec.pieces}"
    for index, piece_id in enumerate(game.pieces):
        if piece_id not in packed:
            _, line = line_at(game.files.get(pieces_file), ("pieces", index))
            problems.append(Problem(pieces_file, line, f"piece '{piece_id}' is in no pack, so nothing prints it",
                                    f"give it a count in each pack that holds it (packs: … pieces: {{{piece_id}: …}}), "
                                    "or remove it"))
    return problems


def _deck_counts(game: Game, pack, index: int, game_file: str) -> list[Problem]:
    problems = []
    for deck_id, entry in pack.decks.items():
        _, line = line_at(game.files[game_file], ("packs", index, "decks", deck_id))
        if deck_id not in game.decks:
            problems.append(Problem(game_file, line, f"{pack.label}: no deck '{deck_id}'",
                                    f"decks: {', '.join(game.decks)}"))
            continue
        unknown = [f for f in entry.where if f not in game.decks[deck_id].spec.fields]
        for field in unknown:
            problems.append(Problem(game_file, line, f"{pack.label}: deck '{deck_id}' "
                                    f"has no field '{field}' to select by"))
        if unknown:
            continue        # its count would only repeat the same mistake
        held = sum(copies for _, copies in game.pack_cards(pack, deck_id))
        if held != entry.count:
            problems.append(Problem(game_file, line, f"{pack.label}: deck '{deck_id}' holds "
                                    f"{held} cards, the pack declares {entry.count}"))
    return problems


def _piece_counts(game: Game, pack, index: int, game_file: str) -> list[Problem]:
    """Checks the pack's piece counts (numbers or expressions) and records them for the build."""
    problems, counts = [], {}
    for piece_id, count in pack.pieces.items():
        _, line = line_at(game.files[game_file], ("packs", index, "pieces", piece_id))
        if piece_id not in game.pieces:
            problems.append(Problem(game_file, line, f"{pack.label}: no piece '{piece_id}'",
                                    f"pieces: {', '.join(game.pieces)}"))
            continue
        try:
            value = evaluate(count, context(game, pack=pack))
        except ExprError as exc:
            problems.append(Problem(game_file, line, f"{pack.label}: {piece_id}: {exc}"))
            continue
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            problems.append(Problem(game_file, line, f"{pack.label}: {piece_id}: count "
                                    f"must be a whole number, 0 or more, got {value!r}"))
            continue
        if value > MAX_PIECE_COPIES:
            problems.append(Problem(game_file, line, f"{pack.label}: {piece_id}: count {abbreviate(str(value), 40)} "
                                    f"is more than {MAX_PIECE_COPIES} copies of a piece"))
            continue
        piece = game.pieces[piece_id]
        if piece.per_player and value > int(piece.per_player) * len(game.spec.player_colours):
            problems.append(Problem(game_file, line, f"{pack.label}: {value} × {piece_id} "
                                    f"but only {len(game.spec.player_colours)} player colours"))
        counts[piece_id] = value
    game.piece_counts[pack.key] = counts
    return problems


def size_checks(game: Game) -> list[Problem]:
    """A card size no paper holds is found here, before any face renders (the build would find it
    only when it lays the sheets out)."""
    from generator.errors import PnpError
    from generator.geometry import PAPERS, card_grid
    problems = []
    for deck in game.decks.values():
        line = line_at(game.files[deck.file], ("deck", "size"))[1] if deck.file in game.files else None
        where = (deck.file, line)
        errors = []
        for paper in PAPERS:
            try:
                card_grid(paper, deck.trim, deck.bleed, where=where)
            except PnpError as exc:
                errors += exc.problems
        if len(errors) == len(PAPERS):
            problems.append(errors[0])
    return problems


def tuck_box_checks(game: Game) -> list[Problem]:
    """The decks tuck_boxes groups (and, under show:, their cards) exist, and no pack fills a box deeper
    than one can close."""
    from generator.geometry import MAX_BOX_DEPTH, box_depth
    spec, game_file = game.spec.tuck_boxes, f"cards/{game.id}/game.yaml"
    if spec is None:
        return []
    raw = game.files.get(game_file)
    problems = []
    for g, group in enumerate(spec.groups or []):
        for d, deck_id in enumerate(group):
            if deck_id not in game.decks:
                line = line_at(raw, ("tuck_boxes", "groups", g, d))[1] if raw is not None else None
                problems.append(Problem(game_file, line, f"tuck_boxes: no deck '{deck_id}'",
                                        f"decks: {', '.join(game.decks)}"))
    for deck_id, card_id in (spec.show or {}).items():
        deck = game.decks.get(deck_id)
        where = line_at(raw, ("tuck_boxes", "show", deck_id))[1] if raw is not None else None
        if deck is None:
            problems.append(Problem(game_file, where, f"tuck_boxes: show: no deck '{deck_id}'",
                                    f"decks: {', '.join(game.decks)}"))
        elif not any(card.id == card_id for card in deck.cards):
            problems.append(Problem(game_file, where, f"tuck_boxes: show: deck '{deck_id}' has no card '{card_id}'"))
    if problems:
        return problems
    groups = spec.groups or [[d.id] for d in game.decks.values() if d.spec.stock == "card"]
    line = line_at(raw, ("tuck_boxes",))[1] if raw is not None else None
    for pack in game.packs:
        for group in groups:
            cards = sum(copies for deck_id in group if deck_id in pack.decks
                        for _, copies in game.pack_cards(pack, deck_id))
            depth = box_depth(cards, spec.stock_mm)
            if depth > MAX_BOX_DEPTH:
                problems.append(Problem(game_file, line, f"{pack.label}: the tuck box of {' + '.join(group)} would be "
                                        f"{depth:g} mm deep ({cards} cards of {spec.stock_mm:g} mm); the limit is "
                                        f"{MAX_BOX_DEPTH:g} mm", "split the deck over boxes (tuck_boxes: groups) "
                                        "or check stock_mm"))
    return problems


def template_checks(project: Project, game: Game) -> list[Problem]:
    problems = []
    wanted = [(f"cards/{game.id}/game.yaml", "css", css) for css in game.spec.css]
    for deck in game.decks.values():
        wanted += [(deck.file, "face", deck.spec.face)]
        wanted += [(deck.file, "back", deck.spec.back)] if deck.spec.back else []
        wanted += [(deck.file, "css", css) for css in deck.spec.css]
    checked = set()
    for file, key, name in wanted:
        path = project.template(name)
        if path is None:
            where = ("css",) if file.endswith("game.yaml") else ("deck", key)
            _, line = line_at(game.files[file], where) if file in game.files else (file, None)
            problems.append(Problem(file, line, f"template '{name}' not found under templates/"))
        elif path not in checked:
            checked.add(path)
            problems += _page_rule(project, path)
    return problems


_PAGE_RULE = re.compile(r"@page\b", re.I)
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def _page_rule(project: Project, path) -> list[Problem]:
    """A game's own @page rule would resize or re-margin every card's page (each page is the card's
    trim and bleed, set by the engine): one line at the rule, rather than a preflight line per page."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return []            # the render says what is wrong with the file itself
    if "@page" not in text.lower():
        return []
    bare = _CSS_COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text)
    found = _PAGE_RULE.search(bare)
    if found is None:
        return []
    return [Problem(project.display(path), bare.count("\n", 0, found.start()) + 1,
                    "@page: a card's page is its trim and bleed, set by the engine; this rule would change every card",
                    "remove it; a card's size is card.size in game.yaml (or deck.size)")]


def text_checks(game: Game, assets: Assets) -> list[Problem]:
    problems = []
    game_file = f"cards/{game.id}/game.yaml"
    for index, colour in enumerate(game.spec.player_colours):
        if not assets.icon(colour.symbol):
            _, line = line_at(game.files[game_file], ("player_colours", index, "symbol"))
            problems.append(Problem(game_file, line, f"player colour '{colour.id}': symbol: no icon for "
                                    f"{colour.symbol!r}", icon_hint(colour.symbol)))
    owners = [(deck.cards, deck.spec.fields, deck.file, "cards") for deck in game.decks.values()]
    owners += [(rows, _table_fields(game, table_id), rows[0].file, "rows") for table_id, rows in game.tables.items()]
    undrawable = assets.undrawable
    for cards, fields, file, key in owners:
        for card in cards:
            for name, field in fields.items():
                value = card.fields.get(name)
                if value is None:
                    continue
                if field.type in ("text", "rich") and isinstance(value, str) and "{" not in value \
                        and undrawable.search(value) is None:
                    continue    # the usual text: no placeholder to fill, every character drawn (markup
                                # only takes characters away), so no problem and no line to look up
                line = game.files[file][key][card.index].line_of(name)
                # a card kept in a spreadsheet is located in it (card.file), not in its deck file; an
                # edition's text the catalogue gives, at its entry there. Named as the loader and the
                # catalogue's checks name it: by its id in its own file, as deck/card in the catalogue
                # (which holds every deck); a table's row as a row
                if name in card.translated_at:
                    where, label = (game.catalogue, card.translated_at[name]), f"card '{card.uid}'"
                else:
                    where, label = (card.file or file, line), f"{'card' if key == 'cards' else 'row'} '{card.id}'"
                problems += _field_text_problems(card, f"{label}: {name}", field.type, value, assets, *where)
    return problems


def _table_fields(game: Game, table_id: str) -> dict:
    file = game.tables[table_id][0].file
    return {name: FieldSpec.model_validate(spec) for name, spec in game.files[file]["table"].get("fields", {}).items()}


def _field_text_problems(card, where: str, kind, value, assets, file, line) -> list[Problem]:
    """What is wrong with one text or icon field's value; `where` names the card and field."""
    if kind == "icon":
        if not assets.icon(value):
            if str(value).endswith(".svg"):
                return [Problem(file, line, f"{where}: no icon file icons/{value}")]
            return [Problem(file, line, f"{where}: no icon for {value!r}", icon_hint(value))]
        return []
    if kind not in ("text", "rich"):
        return []
    problems = []
    try:
        filled = fill_placeholders(value, card.fields)      # what prints (placeholders filled once)
    except TextError as exc:
        filled = value
        if kind == "rich":
            names = PLACEHOLDER.findall(value)
            problems.append(Problem(file, line, f"{where}: {exc}",
                                    f"fields: {', '.join(sorted(n for n in card.fields if n not in names))}"))
    for char in assets.missing(plain_text(filled)):
        problems.append(Problem(file, line, f"{where}: character {describe_char(char)} is in no bundled "
                                "font and has no icon", f"replace it, or run ./pnp assets add {char} to add it to the fonts"))
    return problems


def claim_checks(game: Game) -> list[Problem]:
    """The claims, against the values derived from the data (in the data's language, as the
    rules document states them), in every edition alike."""
    problems = []
    file = f"cards/{game.id}/{game.spec.claims}"
    raw = game.files.get(file)
    for index, claim in enumerate(game.claims):
        _, line = line_at(raw, ("claims", index, "claimed")) if raw is not None else (file, None)
        try:
            computed = evaluate(claim.computed, context(game, derived=game.derived_source))
        except ExprError as exc:
            problems.append(Problem(file, line, f"claim {claim.id}: cannot compute: {exc}"))
            continue
        holds = same(claim.claimed, computed, claim.tolerance)
        said = f"claim {claim.id} ({claim.source}): the rules document says {show(claim.claimed)}, the rules give {show(computed)}"
        if holds and claim.holds:
            continue
        if not holds and not claim.holds:
            # one line: the resolution, a paragraph in the designer's own words, stays in the file
            problems.append(Problem(file, line, f"{said}; a known difference, resolved in {game.spec.claims}",
                                    note=True))
        elif holds:
            problems.append(Problem(file, line, f"claim {claim.id} now holds ({show(computed)}) but is "
                                    "recorded as a contradiction", "set holds: true and update the docs"))
        else:
            problems.append(Problem(file, line, said, "fix the rules or data, or record the contradiction "
                                    "with holds: false and a resolution"))
    return problems


def same(claimed: Any, computed: Any, tolerance: float = 0) -> bool:
    if isinstance(claimed, dict) and isinstance(computed, dict):
        return set(map(str, claimed)) == set(map(str, computed)) and all(
            same(v, _get(computed, k), tolerance) for k, v in claimed.items())
    if isinstance(claimed, (list, tuple)) and isinstance(computed, (list, tuple)):
        return len(claimed) == len(computed) and all(same(a, b, tolerance) for a, b in zip(claimed, computed))
    if isinstance(claimed, bool) or isinstance(computed, bool):
        return claimed == computed
    if isinstance(claimed, (int, float)) and isinstance(computed, (int, float)):
        return abs(claimed - computed) <= tolerance
    return claimed == computed


def _get(mapping: dict, key: Any) -> Any:
    if key in mapping:
        return mapping[key]
    return next(v for k, v in mapping.items() if str(k) == str(key))


def show(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {show(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(show(v) for v in value) + "]"
    return str(value)
