"""`pnp new GAME`: a working game folder to start from.

It writes cards/<game>/ (game.yaml, a small deck with a shared back, a deck read from a CSV
file with one card's own picture, a quick-reference card, a board and pawns, a rules module
with one claim, a rulebook with expressions) and templates/<game>/ from the files in
generator/scaffold/<lang>/ (English or Chinese: the same game written in each), with the game's id and title
filled in. The result validates and builds
as created. A project without fonts/ and icons/ gets the bundled ones from this checkout.
"""
from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

from generator import __version__
from generator.errors import PnpError, Problem

SCAFFOLD = Path(__file__).resolve().parent.parent / "scaffold"
CHECKOUT = Path(__file__).resolve().parent.parent.parent        # fonts/ and icons/ of this repository
PICTURES = (".png", ".jpg", ".jpeg", ".webp")        # copied as they are; every other file has its names filled in
GAME_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")


SCAFFOLD_LANGUAGES = ("en", "zh-Hans")       # scaffold/<lang>/: the same game written in each


def check_id(game_id: str) -> None:
    if not GAME_ID.match(game_id):
        raise PnpError(Problem(game_id, None, "a game id is lower-case letters, digits and '-'",
                               "for example: river-crossing"))


def check_title(title: str) -> str:
    if not title.strip() or any(not c.isprintable() for c in title):
        raise PnpError(Problem("--title", None, f"a title is one line of printable text, got {title!r}"))
    return title


_YAML_TITLE_OR_TEXT = re.compile(r"^(\s*title:[ \t]*)__TITLE__(?=[ \t]*$)|__TITLE__", re.M)


def fill_title(text: str, suffix: str, title: str) -> str:
    """The scaffold's __TITLE__ replaced by the title as each kind of file writes it: a YAML value
    by a YAML emitter (`Catan: Seafarers` is quoted, `Blood Bowl #2` keeps its #), inside a YAML
    "string" or a Python docstring with its quotes and backslashes escaped, in a CSS comment
    without an end of comment."""
    if suffix == ".yaml":
        import json

        import yaml
        scalar = yaml.safe_dump(title, allow_unicode=True, width=1 << 20).removesuffix("\n...\n").strip()
        inside = json.dumps(title, ensure_ascii=False)[1:-1]          # in a "…" string, or a # comment
        # one pass, so a title that itself says __TITLE__ is not filled in twice
        return _YAML_TITLE_OR_TEXT.sub(lambda m: m.group(1) + scalar if m.group(1) is not None else inside, text)
    if suffix == ".py":
        return text.replace("__TITLE__", title.replace("\\", "\\\\").replace('"', '\\"'))
    if suffix == ".css":
        return text.replace("__TITLE__", title.replace("*/", "* /"))
    return text.replace("__TITLE__", title)


EMPTY_WORDS = {"en": {"__RED__": "Red", "__BLUE__": "Blue", "__DECK__": "Cards", "__FIRST__": "First card"},
               "zh-Hans": {"__RED__": "红", "__BLUE__": "蓝", "__DECK__": "卡牌", "__FIRST__": "第一张牌"}}
SHARED_WITH_EMPTY = ("templates/card-back.html", "templates/cards.css")   # from the language's scaffold


def _sources(lang: str, empty: bool) -> list[tuple[Path, str]]:
    """(scaffold file, its path under cards/ or templates/ of the game) to copy."""
    scaffold = SCAFFOLD / lang
    chosen = [SCAFFOLD / "empty"] if empty else [scaffold]
    files = [(p, p.relative_to(root).as_posix()) for root in chosen
             for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts]
    return files + ([(scaffold / name, name) for name in SHARED_WITH_EMPTY] if empty else [])


def new_game(root: Path, game_id: str, title: str | None = None, lang: str = "en", empty: bool = False) -> list[str]:
    check_id(game_id)
    title = check_title(title) if title is not None else game_id.replace("-", " ").title()
    cards, templates = root / "cards" / game_id, root / "templates" / game_id
    for folder in (cards, templates):
        if folder.exists():
            raise PnpError(Problem(str(folder.relative_to(root)), None, "already exists; ./pnp new never overwrites"))
    written = []
    for shared in ("fonts", "icons"):
        if not (root / shared).is_dir():
            if not (CHECKOUT / shared).is_dir():
                raise PnpError(Problem(shared, None, "this project has no fonts/ or icons/ and none were found to copy",
                                       "run ./pnp new inside a project that has them"))
            shutil.copytree(CHECKOUT / shared, root / shared)
            written.append(f"{shared}/")
    if lang not in SCAFFOLD_LANGUAGES:
        raise PnpError(Problem(lang, None, f"./pnp new writes games in {' or '.join(SCAFFOLD_LANGUAGES)}"))
    major, minor = __version__.split(".")[:2]
    values = {"__GAME__": game_id, "__LANG__": lang, "__ENGINE__": f">={major}.{minor}", **EMPTY_WORDS[lang]}
    # (a __pycache__ Python left beside the scaffold's rules.py is not part of it)
    for path, name in _sources(lang, empty):
        folder, _, rest = name.partition("/")
        out = (cards if folder == "cards" else templates) / rest
        out.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix in PICTURES:
            out.write_bytes(path.read_bytes())
        else:
            text = path.read_text(encoding="utf-8")
            for key, value in values.items():
                text = text.replace(key, value)
            out.write_text(fill_title(text, path.suffix, title), encoding="utf-8")     # the title last: it may say __GAME__
        written.append(str(out.relative_to(root)))
    schemas = root / "schemas"
    if not schemas.is_dir():
        from generator.source.jsonschema import write_schemas
        written += [str(p.relative_to(root)) for p in write_schemas(schemas)]
    return written


def new_project(folder: Path, game_id: str, title: str | None = None, lang: str = "en",
                empty: bool = False) -> list[str]:
    """A project folder around a new game: cards/, templates/, fonts/, icons/, schemas/, a
    .gitignore for build/, and ./pnp running the pnp that made it."""
    if folder.exists() and any(folder.iterdir()):
        raise PnpError(Problem(folder.name, None, "already exists and is not empty; ./pnp new never overwrites",
                               "pick another name, or run pnp new inside the project to add a game"))
    check_id(game_id)                  # before anything is made
    if title is not None:
        check_title(title)
    (folder / "cards").mkdir(parents=True, exist_ok=True)
    written = new_game(folder, game_id, title, lang, empty)
    (folder / ".gitignore").write_text("build/\n", encoding="utf-8")
    written.append(".gitignore")
    installed = Path(sys.executable).parent / "pnp"
    if installed.is_file():
        launcher = folder / "pnp"
        launcher.write_text(f'#!/bin/sh\n# This project\'s pnp: the one installed at {installed.parent}.\n'
                            '# Run from outside any project, it takes the one it lives in.\n'
                            'here=$(cd "$(dirname "$0")" && pwd)\n'
                            f'PNP_LAUNCHER_PROJECT="$here" exec "{installed}" "$@"\n', encoding="utf-8")
        launcher.chmod(0o755)
        written.append("pnp")
    return written
