"""A designer's edits, one after another, on a game in two languages with boards and a rulebook: after
each, only the editions whose printed content changed are built again, and after the whole sequence
every file the build wrote is byte for byte what a cold build of the same input writes.
(tests/test_inputs.py does the same for each input kind of a one-language game, face by face.)"""
from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import pnp
from tests.test_languages import bilingual_project

GAME = "night-market"
RULEBOOK_ZH = """# {{ game.title }}

先到 **{{ derived.goal }} 文**的摊主获胜。

## 1 配件

- {{ decks.goods[0].name }}：货品牌的第一张。

{{ figure("piece", "market-board", "夜市计分板") }}
"""
RULEBOOK_EN = """# {{ game.title }}

The first stallholder to reach **{{ derived.goal }} coins** wins. (The first card's Chinese name has
{{ derived.first_name_length }} characters.)

## 1 Components

- {{ decks.goods[0].name }}: the first goods card.

{{ figure("piece", "market-board", "The market score board") }}
"""
BOTH = {"zh-Hans", "en"}
# (what, file, text, replacement, the editions built again); a list of (text, replacement) and None: all
# of them at once
EDITS = [
    # the English rulebook prints a number rules.py derives from the Chinese name: both editions
    ("card data (Chinese) a derived number reads", "cards/night-market/goods.yaml", "name: 走马灯,", "name: 走马灯笼,",
     BOTH),
    ("card data (Chinese)", "cards/night-market/goods.yaml", "name: 福袋,", "name: 福袋子,", {"zh-Hans"}),
    ("copies (two cards trade one copy)", "cards/night-market/goods.yaml",
     [("copies: {2: 2, 3: 3, 4: 3}}", "copies: {2: 2, 3: 2, 4: 3}}"),
      ("向下取整）。\", copies: {2: 2, 3: 2, 4: 3}}", "向下取整）。\", copies: {2: 2, 3: 3, 4: 3}}")], None, BOTH),
    ("a deck's template (its spec)", "cards/night-market/goods.yaml", "face: night-market/goods.html",
     "face: night-market/goods-plain.html", BOTH),
    ("translation", "cards/night-market/i18n/en.yaml", "turn over 1 more card", "turn over one more card", {"en"}),
    ("card template", "templates/night-market/goods.html", '<div class="panel"></div>',
     '<div class="panel"></div><div class="x"></div>', BOTH),
    ("stylesheet", "templates/night-market/market.css", ".paper { background: white; }",
     ".paper { background: white; }\n.x { color: red; }", BOTH),
    ("rules.py constant", "cards/night-market/rules.py", "GOAL = 25", "GOAL = 26", BOTH),
    ("game.yaml (Chinese subtitle)", "cards/night-market/game.yaml", "2–4 人卖货小游戏", "2–4 人的卖货小游戏", {"zh-Hans"}),
    ("board", "cards/night-market/pieces.yaml", 'text: "夜市计分板 · {{ pack.players }} 人", size: 12',
     'text: "夜市计分板 · {{ pack.players }} 人", size: 11', BOTH),
    ("rulebook (Chinese)", "cards/night-market/rulebook/zh-Hans.md", "货品牌的第一张", "货品牌里的第一张", {"zh-Hans"}),
    ("rulebook (English)", "cards/night-market/rulebook/en.md", "the first goods card", "the goods deck's first card",
     {"en"}),
]


def _project(target: Path) -> Path:
    project = bilingual_project(target)
    rulebook = project / "cards" / GAME / "rulebook"
    rulebook.mkdir()
    (rulebook / "zh-Hans.md").write_text(RULEBOOK_ZH, encoding="utf-8")
    (rulebook / "en.md").write_text(RULEBOOK_EN, encoding="utf-8")
    goods = project / "templates" / GAME / "goods.html"              # a second face template to switch to
    (goods.parent / "goods-plain.html").write_text(goods.read_text(encoding="utf-8").replace(
        '<div class="panel"></div>', '<div class="panel" style="opacity: 0.9"></div>'), encoding="utf-8")
    rules = project / "cards" / GAME / "rules.py"
    text = rules.read_text(encoding="utf-8")
    assert '"goal": GOAL,' in text
    rules.write_text(text.replace('"goal": GOAL,', '"goal": GOAL, "first_name_length": len(goods[0].name),'),
                     encoding="utf-8")
    return project


def _build(project: Path) -> set[str]:
    """Build; the editions built again (not up to date)."""
    result = pnp(project, "build", GAME, "--players", "3", "--paper", "a4", every_language=True)
    assert result.exit_code == 0, result.output
    if result.output.startswith(f"{GAME}: up to date"):      # the whole game's stamp: nothing changed
        return set()
    lines = [line for line in result.output.splitlines() if line.startswith(f"{GAME} (")]
    assert len(lines) == 2, result.output
    return {line[len(GAME) + 2:].split(")")[0] for line in lines if "up to date" not in line}


def _outputs(project: Path) -> dict[str, bytes]:
    folder = project / "build" / GAME
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}


def test_each_edit_rebuilds_the_editions_it_changes_and_the_kit_equals_a_cold_build(tmp_path):
    project = _project(tmp_path / "project")
    assert _build(project) == BOTH
    assert _build(project) == set()
    for what, name, old, new, rebuilt in EDITS:
        path = project / name
        text = path.read_text(encoding="utf-8")
        for find, replace in old if new is None else [(old, new)]:
            assert find in text, (what, find)
            text = text.replace(find, replace, 1)
        path.write_text(text, encoding="utf-8")
        assert _build(project) == rebuilt, what
    incremental = _outputs(project)
    assert any(name.endswith("-en.pdf") for name in incremental) and any("rules" in n for n in incremental)
    cold = tmp_path / "cold"
    shutil.copytree(project, cold, symlinks=True, ignore=shutil.ignore_patterns("build"))
    assert _build(cold) == BOTH
    assert _outputs(cold) == incremental


def test_a_damaged_record_of_builds_is_named_as_damaged_by_reprint(tmp_path):
    """.faces.json (what was built and printed) cut short or replaced: reprint says the record is
    damaged and how to go on, not that there was no earlier build."""
    project = _project(tmp_path / "project")
    assert pnp(project, "build", GAME, "--players", "3", "--paper", "a4", "--lang", "zh-Hans").exit_code == 0
    record = project / "build" / GAME / ".faces.json"
    for damaged in (record.read_bytes()[:40], b"[1, 2]"):
        record.write_bytes(damaged)
        result = pnp(project, "reprint", GAME, "--paper", "a4", "--lang", "zh-Hans")
        assert result.exit_code == 1
        assert result.output == (
            "build/night-market/.faces.json: this record of what was built and printed is damaged (not the JSON a "
            "build writes), so what changed since cannot be told (hint: pass --since REV (a git revision), or delete "
            "the file and build again: every card then counts as printed)\n"), result.output
