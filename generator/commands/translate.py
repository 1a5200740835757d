"""`pnp translate GAME --lang LANG`: write or bring up to date a language's catalogue
(cards/<game>/i18n/<lang>.yaml, see source/catalogue.py) and, when the game has a rulebook,
a stub of that language's rulebook to translate (a copy of the source language's, untouched
once it exists).
"""
from __future__ import annotations

from pathlib import Path

from generator.atomic import write_atomic
from generator.check.translations import template_strings
from generator.errors import PnpError, Problem
from generator.source.catalogue import entries, notes, render, updated
from generator.source.load import load_game
from generator.source.project import Project
from generator.source.words import count
from generator.source.yamlsrc import load_yaml


def translate(project: Project, game_id: str, lang: str, say=print) -> list[str]:
    game = load_game(project, game_id, rules=False)
    game_file = f"cards/{game_id}/game.yaml"
    if lang == game.languages[0]:
        raise PnpError(Problem(game_file, None, f"{lang} is the language the data is written in: nothing to "
                               "translate", f"name another of its languages ({', '.join(game.languages[1:]) or 'none yet'})"))
    if lang not in game.languages:
        raise PnpError(Problem(game_file, None, f"{lang} is not among the game's languages "
                               f"({', '.join(game.languages)})",
                               f"list it first: languages: [{', '.join([*game.languages, lang])}]"))
    path = game.folder / "i18n" / f"{lang}.yaml"
    display = project.display(path)
    old = load_yaml(path, display) if path.is_file() else {}
    literals = template_strings(project, game)
    merged = updated(old if isinstance(old, dict) else {}, lang, game, literals)
    command = f"./pnp translate {game_id} --lang {lang}"
    own = notes(path.read_text(encoding="utf-8"), game, lang, command) if path.is_file() else []
    text = render(merged.catalogue, game, entries(game, literals, lang), command, merged.kept, own)
    path.parent.mkdir(exist_ok=True)
    write_atomic(path, text.encode("utf-8"))
    left = sum(1 for _ in _empty(merged.catalogue))
    say(f"wrote {display} ({count(merged.added, 'new entry', 'new entries')}, {left} to translate, "
        f"{len(merged.review)} to review" + (f", {len(merged.kept)} kept that the data does not show"
                                              if merged.kept else "") + ")")
    written = [display]
    stub = _rulebook_stub(project, game, lang)
    if stub:
        say(f"wrote {stub} (the {game.languages[0]} rulebook, to translate in place)")
        written.append(stub)
    return written


def _empty(node):
    """The entries of a catalogue not translated yet (empty)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key not in ("review", "sources", "language"):
                yield from _empty(value)
    elif node is None:
        yield node


def _rulebook_stub(project: Project, game, lang: str) -> str | None:
    folder: Path = game.folder / "rulebook"
    source, target = folder / f"{game.languages[0]}.md", folder / f"{lang}.md"
    if not source.is_file() or target.exists():
        return None
    note = (f"{{# The {lang} rulebook: a copy of {source.name} written by `./pnp translate {game.id} --lang {lang}`. "
            "Translate the text in place; keep every {{ }} and {% %} as it is. #}\n")
    write_atomic(target, (note + source.read_text(encoding="utf-8")).encode("utf-8"))
    return project.display(target)
