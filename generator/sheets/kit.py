"""`pnp build`: validate, render every face once (or take it from the cache), then write each
pack × paper. Gather, then write: nothing is written until the game has loaded and
validated, and each file is written atomically after its preflight.
"""
from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Callable

from generator.source.assets import Assets
from generator.atomic import write_atomic
from generator.errors import PnpError, Problem, errors_only
from generator.source.game import Game
from generator.geometry import PAPERS
from generator.source.load import load_game
from generator.source.options import PrintOptions
from generator.sheets.pack import PackBuilder, write_pack
from generator.source.project import Project
from generator.render.cards import CardRenderer, Face
from generator.check.validate import validate

FACES_RECORD = ".faces.json"


def plural(n: int, noun: str) -> str:
    """The terminal's English: "1 face", "2 faces"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"     # build/<game>/: the face keys of the last build, for `pnp reprint`


@dataclass
class Checked:
    game: Game
    notes: list[Problem] = field(default_factory=list)


def check_game(project: Project, assets: Assets, game_id: str, lang: str | None = None) -> Checked:
    """Load one edition (default: the source language) and validate it; raise PnpError with
    every error, return the notes."""
    game = load_game(project, game_id, lang)
    problems = validate(project, game, assets.edition(game.spec.language))
    errors = errors_only(problems)
    if not errors and not game.is_source:
        errors = face_checks(project, assets, game)
    if errors:
        raise PnpError(errors)
    return Checked(game, [p for p in problems if p.note])


def face_checks(project: Project, assets: Assets, game: Game) -> list[Problem]:
    """Every card's templates run in this edition (no WeasyPrint): a `_()` of a value the
    catalogue lacks, e.g. an enum value, is reported at its template line."""
    renderer = CardRenderer(project, assets.edition(game.spec.language), game)
    problems, seen = [], set()
    for deck in game.decks.values():
        for card in deck.cards:
            for side in ("face", "back") if deck.spec.back else ("face",):
                try:
                    renderer.face(deck, card, side)
                except PnpError as exc:
                    for problem in exc.problems:      # once, at the first card it shows on
                        cause = problem.message.split(": ", 1)[-1]
                        if cause not in seen:
                            seen.add(cause)
                            problems.append(problem)
    return problems


def select_packs(game: Game, players: list[int] | None):
    if not players:
        return list(game.packs)            # the full build includes the optional extras
    offered = {p.players for p in game.packs if not p.optional}
    missing = [n for n in players if n not in offered]
    if missing:
        raise PnpError(Problem(f"cards/{game.id}/game.yaml", None,
                               f"no pack for {', '.join(map(str, missing))} players (packs: {sorted(offered)})"))
    return [p for p in game.packs if p.players in players and not p.optional]


def pick_pack(game: Game, players: int | None):
    """The standard pack for this many players, or without a count the largest one: the
    set of cards that has every card a designer prints (for a reprint or a shop order)."""
    standard = [p for p in game.packs if not p.optional]
    if players is None:
        return max(standard, key=lambda p: (sum(e.count for e in p.decks.values()), p.players))
    pack = next((p for p in standard if p.players == players), None)
    if pack is None:
        raise PnpError(Problem(f"cards/{game.id}/game.yaml", None, f"no pack for {players} players "
                               f"(packs: {sorted(p.players for p in standard)})"))
    return pack


def faces_for(game: Game, renderer: CardRenderer, packs) -> dict[tuple[str, str, str], Face]:
    """The faces (and backs) of every card the packs hold, by (deck, card, side)."""
    faces = {}
    for deck in game.decks.values():
        used = {card.id for pack in packs if deck.id in pack.decks for card, _ in game.pack_cards(pack, deck.id)}
        for card in deck.cards:
            if card.id not in used:
                continue
            faces[(deck.id, card.id, "face")] = renderer.face(deck, card, "face")
            if deck.spec.back:
                faces[(deck.id, card.id, "back")] = renderer.face(deck, card, "back")
    return faces


def keys_by_card(faces: dict) -> dict[str, dict[str, str]]:
    """{"deck/card": {"face": key, "back": key}} for faces by (deck, card, side)."""
    out: dict[str, dict[str, str]] = {}
    for (deck, card, side), face in faces.items():
        out.setdefault(f"{deck}/{card}", {})[side] = face.key
    return out


def read_record(project: Project, game_id: str) -> dict:
    """{"cards": {uid: {side: face key}}, "packs": [player counts built]} of the builds so far."""
    path = project.build / game_id / FACES_RECORD
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return {"cards": {}, "packs": []}
    return record if "cards" in record else {"cards": {}, "packs": []}


def record_key(game: Game) -> str:
    """Where .faces.json keeps an edition's faces: "cards" for the source language (as before
    games had languages), "cards-<lang>" for each other one."""
    return "cards" if game.is_source else f"cards-{game.language}"


def record_faces(project: Project, game: Game, faces: dict, packs) -> None:
    """Remember which face each card had and which packs were built, so `pnp reprint` can
    tell what changed since, in the pack the designer printed."""
    record = read_record(project, game.id)
    cards = record.setdefault(record_key(game), {})
    for uid, sides in keys_by_card(faces).items():
        cards.setdefault(uid, {}).update(sides)
    record["packs"] = sorted(set(record["packs"]) | {p.players for p in packs if not p.optional})
    write_atomic(project.build / game.id / FACES_RECORD,
                 (json.dumps(record, indent=1, sort_keys=True) + "\n").encode())


STALE_SECONDS = 3600


def sweep_stale(folder) -> None:
    """Remove temporary files a killed build left behind. Only old ones: a younger one may
    belong to a build running right now beside this one."""
    now = time.time()
    for tmp in folder.glob(".*.tmp") if folder.is_dir() else []:
        try:
            if now - tmp.stat().st_mtime > STALE_SECONDS:
                tmp.unlink()
        except OSError:
            pass


def editions(project: Project, game_id: str, lang: str | None = None) -> list[str]:
    """The languages to build: `lang`, or every language the game has."""
    from generator.source.load import game_languages
    languages = game_languages(project, game_id)
    if lang is None:
        return languages
    if lang not in languages:
        raise PnpError(Problem(f"cards/{game_id}/game.yaml", None,
                               f"no {lang} edition (languages: {', '.join(languages)})"))
    return [lang]


def build_game(project: Project, assets: Assets, game_id: str, players: list[int] | None = None,
               papers: list[str] | None = None, say: Callable[[str], None] = print,
               options: PrintOptions = PrintOptions(), jobs: int = 1, progress=None,
               lang: str | None = None) -> tuple[list[str], list[str]]:
    """Build the packs of one edition (default: the source language); return the files
    written and the faces rendered (not from the cache)."""
    game = check_game(project, assets, game_id, lang).game
    assets = assets.edition(game.spec.language)
    label = f"{game_id} ({game.language})" if len(game.languages) > 1 else game_id
    packs = select_packs(game, players)
    sweep_stale(project.build / game_id)
    renderer = CardRenderer(project, assets, game, ink_saver=options.ink_saver)
    faces = faces_for(game, renderer, packs)
    rendered = renderer.render(list(faces.values()), jobs=jobs,
                               progress=progress(label, len(faces)) if progress else None)
    cached = len({f.key for f in faces.values()}) - len(rendered.fresh)
    say(f"{label}: rendered {plural(len(rendered.fresh), 'face')}, {cached} from the cache")
    builder = PackBuilder(project, assets, game, rendered, faces, options)
    written = []
    for pack in packs:
        for paper in papers or list(PAPERS):
            pdf, manifest = builder.build(pack, paper)
            path, report = write_pack(project, game, pack, paper, pdf, manifest, options)
            say(f"wrote {path} ({plural(len(manifest['pages']), 'page')}, {plural(report.cards, 'card')}; preflight ok)")
            written.append(path)
    if not options.ink_saver:
        record_faces(project, game, faces, packs)
    return written, rendered.fresh
