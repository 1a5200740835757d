"""An edition's translations are complete: every card text, name and printed string of the
source has its text in the edition's catalogue.

What the catalogue lacks in the game's data was noted when it was laid over the source
(source/edition.py); here the game's templates are read for their `_("…")` literals (with
Babel's Jinja extractor, the way gettext tools find them), each one looked up in `text:`.
A `_()` of a value (`_(card.timing)`) is checked when the faces are made, in `pnp validate`
as in `pnp build`.
"""
from __future__ import annotations

import functools
import io
from dataclasses import replace
from pathlib import Path

from jinja2.ext import babel_extract

from generator.errors import Problem
from generator.source.edition import kept_marks, marks_lost, needs_translation
from generator.source.game import Game
from generator.source.project import Project
from generator.source.yamlsrc import line_at

JINJA_OPTIONS = {"trim_blocks": "true", "lstrip_blocks": "true", "extensions": "jinja2.ext.i18n"}


CARD_WORDS = ("_", "gettext")      # a card template's functions for the game's own words
PAGE_ONE_WORDS = ("game_text",)    # page 1's (info.html): its _() gives the engine's words, not the game's


def template_literals(path: Path, keywords: tuple[str, ...] = CARD_WORDS) -> list[tuple[int, str]]:
    """(line, text) of each constant string a template passes to one of `keywords`."""
    return list(_literals(path.read_bytes(), keywords))


@functools.lru_cache(maxsize=256)
def _literals(source: bytes, keywords: tuple[str, ...]) -> tuple[tuple[int, str], ...]:
    """Extracted once a process for each template's content: a build of an edition asks three times
    (its warning of translations to review, its validation, and the review notes that counts), and
    `pnp watch` again at every save."""
    found = babel_extract(io.BytesIO(source), keywords, [], JINJA_OPTIONS)
    return tuple((line, message) for line, _, message, _ in found if isinstance(message, str))


def game_templates(project: Project, game: Game) -> list[tuple[Path, tuple[str, ...]]]:
    """Every template in the folders of the game's face and back templates (includes too), and the
    game's own page 1 (templates/<game>/info.html), each with the functions that take its game text."""
    folders = set()
    for deck in game.decks.values():
        for name in (deck.spec.face, deck.spec.back):
            path = project.template(name) if name else None
            if path is not None and path.is_relative_to(project.templates.resolve()):
                folders.add(path.parent)
    page_one = project.template(f"{game.id}/info.html")
    paths = set(p for folder in folders for p in folder.rglob("*.html")) | ({page_one} if page_one else set())
    return [(p, PAGE_ONE_WORDS if p == page_one else CARD_WORDS) for p in sorted(paths)]


def translation_checks(project: Project, game: Game) -> list[Problem]:
    """The edition's missing translations, template literals included; updates its coverage."""
    if game.is_source:
        return []
    problems = list(game.missing) + review_notes(project, game)
    seen = set()
    for path, words in game_templates(project, game):
        for line, text in template_literals(path, words):
            if not needs_translation(text, game.languages[0]) or text in seen:
                continue
            seen.add(text)
            found = text in game.text
            game.coverage["strings"][1] += 1
            game.coverage["strings"][0] += int(found)
            if not found:
                problems.append(Problem(project.display(path), line, f"{words[0]}({text!r}): no {game.language} "
                                        "translation under text:", f"add it to {game.catalogue}"))
            elif kept_marks(text) != kept_marks(game.text[text]):
                problems.append(marks_lost(text, game.language, game.catalogue,
                                           line_at(game.files.get(game.catalogue), ("text", text))[1],
                                           f"{words[0]}({text!r})"))
    return list(dict.fromkeys(problems))        # (a text pieces.yaml prints too was checked with the data)


def template_strings(project: Project, game: Game) -> list[str]:
    """The `_()` literals of the game's templates (`game_text()` of its page 1), in file order, once each."""
    return list(dict.fromkeys(text for path, words in game_templates(project, game)
                              for _, text in template_literals(path, words)))


REVIEW = "review "      # how a note of an entry to review starts


def to_review(problems: list[Problem]) -> list[Problem]:
    """The notes of entries to review (not, say, a text of a card no pack prints, still to translate)."""
    return [p for p in problems if p.note and p.message.startswith(REVIEW)]


def review_notes(project: Project, game: Game) -> list[Problem]:
    """The edition's entries to review (validate counts them, --verbose lists them): those its
    catalogue lists under `review:`, and those whose source text changed since `pnp translate`
    recorded it (under `sources:`) without the command being run since."""
    from generator.source.catalogue import entries, source_hash
    raw = game.files.get(game.catalogue)
    if game.is_source or not isinstance(raw, dict):
        return []
    listed = [r for r in raw.get("review") or [] if isinstance(r, str)]
    notes = [Problem(game.catalogue, line_at(raw, ("review", i))[1], f"{REVIEW}{name}: its source text changed "
                     "since it was translated; check the translation, then delete this line") for i, name in
             enumerate(listed)]
    recorded = raw.get("sources") or {}
    for entry in entries(game.origin, template_strings(project, game), game.language):
        known = recorded.get(entry.name) if isinstance(recorded, dict) else None
        if known is not None and known != source_hash(entry.source) and entry.name not in listed:
            notes.append(Problem(game.catalogue, line_at(raw, entry.key)[1], f"{REVIEW}{entry.name}: "   # the entry
                                 f"its source text changed since it was translated (run ./pnp translate "
                                 f"{game.id} --lang {game.language} to list it under review:)"))
    return [replace(n, note=True) for n in notes]


def coverage_line(game: Game) -> str:
    """e.g. "en: 128/128 card texts, 54/54 strings"."""
    parts = [f"{done}/{total} {kind}" for kind, (done, total) in game.coverage.items()]
    return f"{game.language}: {', '.join(parts)}"
