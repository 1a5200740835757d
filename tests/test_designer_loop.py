"""Issue 37, the designer's loop: `validate` means it builds (every expression evaluated, every
face rendered, every pack made in memory), a language without its rulebook, spreadsheet cards
located in the spreadsheet, each error said once in a game of two languages."""
from __future__ import annotations

import itertools
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import pikepdf
import yaml
from PIL import Image

from tests.conftest import pnp, seed_store


@pytest.fixture
def demo(tmp_path) -> Path:
    """A project with the scaffold's game (a CSV deck with one picture, a board, a rulebook)."""
    project = tmp_path / "demo-project"
    assert pnp(project, "new", "demo").exit_code == 0
    return project


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    """The scaffold game validated once in this module, in English and then in a French edition filled
    as fill() fills it: every pack's faces, boards and rulebook pages of both drawn into its store, read only."""
    project = tmp_path_factory.mktemp("demo-store") / "demo-project"
    assert pnp(project, "new", "demo").exit_code == 0
    result = pnp(project, "validate", "demo")
    assert result.exit_code == 0, result.output
    two_languages(project)
    assert pnp(project, "translate", "demo", "--lang", "fr").exit_code == 0
    fill(project)
    result = pnp(project, "validate", "demo", "--lang", "fr")
    assert result.exit_code == 0, result.output
    return SimpleNamespace(project=project)


@pytest.fixture
def seeded(demo, demo_store):
    """`demo` whose store starts with what demo_store drew (seed_store: its packs are made and preflighted
    anew): for a test whose builds or validations draw anew what it edits, or only set the scene."""
    seed_store(demo, [demo_store])
    return demo


def edit(project: Path, name: str, old: str, new: str) -> None:
    path = project / "cards/demo" / name
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def lines(result) -> list[str]:
    return result.output.strip().splitlines()


def french(project: Path) -> None:
    """The demo game in two languages, its French catalogue empty."""
    edit(project, "game.yaml", "language: en\n", "languages: [en, fr]\n")
    (project / "cards/demo/i18n").mkdir()
    (project / "cards/demo/i18n/fr.yaml").write_text("language: fr\n", encoding="utf-8")


# --- validate means it builds -----------------------------------------------------------------

@pytest.mark.usefixtures("seeded")
def test_validate_evaluates_board_text(demo):
    edit(demo, "pieces.yaml", "First to {{ derived.goal }} points wins", "First to {{ game.folder }} points wins")
    result = pnp(demo, "validate", "demo")
    assert result.exit_code == 1
    assert lines(result) == ["cards/demo/pieces.yaml:11: piece score-board: text: First to {{ game.folder }} points "
                             "wins: 'dict object' has no attribute 'folder'"]
    assert not (demo / "build/demo").exists() or not list((demo / "build/demo").glob("*.pdf"))


@pytest.mark.usefixtures("seeded")
def test_validate_refuses_text_that_does_not_fit_its_box(demo):
    edit(demo, "goods.yaml", "effect: {type: rich, required: false, max_length: 80}",
         "effect: {type: rich, required: false}")
    edit(demo, "goods.csv", "Each opponent moves back 1 space.", "Each opponent moves back 1 space. " * 12)
    result = pnp(demo, "validate", "demo")
    assert result.exit_code == 1
    assert lines(result) == ["cards/demo/goods.csv:5: goods/jade (face): text does not fit its box in "
                             "demo/good.html even at 76 % size (hint: shorten the text)"]


def test_validate_refuses_a_picture_under_its_dpi(demo):
    Image.new("RGB", (60, 40), "red").save(demo / "cards/demo/art/lantern.png")
    result = pnp(demo, "validate", "demo")
    assert result.exit_code == 1
    assert lines(result) == ["cards/demo/goods.csv:2: goods/lantern: picture art/lantern.png prints at 30 dpi "
                             "(60 × 40 px show); a print needs 300 (hint: use a larger picture, or build with "
                             "--draft to playtest with it)"]


def test_validate_of_a_good_game_builds_nothing_and_says_valid(demo):
    result = pnp(demo, "validate", "demo")
    assert result.exit_code == 0 and result.output == "demo: valid (0 notes)\n"
    assert not list(demo.glob("build/demo/*.pdf"))
    built = pnp(demo, "build", "demo", "--players", "2", "--paper", "a4")
    assert "demo: rendered 0 faces," in built.output          # validate drew them into the cache


# --- a language without its rulebook; spreadsheet cards; each error once ----------------------------

def test_a_language_without_its_rulebook_is_an_error_naming_the_file(demo):
    french(demo)
    result = pnp(demo, "validate", "demo", "--lang", "fr")
    assert result.exit_code == 1
    assert ("cards/demo/rulebook/fr.md: the fr rulebook is missing: game.yaml lists fr among its languages and "
            "rulebook/ has en.md (hint: write it, e.g. start from the stub `./pnp translate demo --lang fr` "
            "writes)") in lines(result)


def test_a_csv_cards_translation_error_names_the_csv_row(demo):
    french(demo)
    result = pnp(demo, "validate", "demo", "--lang", "fr")
    assert ("cards/demo/goods.csv:4: card 'goods/silk': name: no fr translation "
            "(hint: add it to cards/demo/i18n/fr.yaml)") in lines(result)
    assert not [line for line in lines(result) if line.startswith("cards/demo/goods.yaml:") and "goods/" in line]


def test_a_word_too_long_for_the_card_is_said_at_the_card_not_by_the_packs_preflight(demo):
    """A name in a box that neither wraps nor clips it runs past the card's safe area: said when the face
    is drawn, at the card's line, before any sheet (preflight found its glyphs over the next card)."""
    edit(demo, "cards.yaml", "name: {type: text, max_length: 14}", "name: {type: text}")
    edit(demo, "cards.yaml", "name: Spark,", "name: Supercalifragilisticexpialidocious,")
    rows = (demo / "cards/demo/cards.yaml").read_text(encoding="utf-8").splitlines()
    line = next(n for n, row in enumerate(rows, 1) if "id: spark" in row)
    for command in (("validate", "demo"), ("build", "demo", "--only", "actions/spark")):
        result = pnp(demo, *command)
        assert result.exit_code == 1, result.output
        assert lines(result) == [
            f"cards/demo/cards.yaml:{line}: actions/spark (face): the text “Supercalifragilisticexpialidocious” runs "
            "past the card's 3 mm safe area in demo/card.html (hint: shorten the text, or let its box wrap it)"], command


def test_a_csv_cards_data_error_names_the_csv_row(demo):
    edit(demo, "goods.csv", "silk,Silk,2,,", "silk,Silk,2,{nope},")
    result = pnp(demo, "validate", "demo")
    assert result.exit_code == 1
    assert lines(result) == ["cards/demo/goods.csv:4: card 'silk': effect: {nope} names no field of this card "
                             "(hint: fields: art, effect, name, value)"]


def test_a_two_language_games_error_is_said_once(demo):
    french(demo)
    edit(demo, "goods.csv", "jade,Jade,5,", "jade,Jade,X,")
    result = pnp(demo, "validate", "demo")
    assert result.exit_code == 1
    assert lines(result) == ["cards/demo/goods.csv:5:value: expected a whole number, got 'X'"]


# --- translations that keep up ---------------------------------------------------------------------

def two_languages(project: Path) -> None:
    """The demo game with a French edition listed, no catalogue yet."""
    edit(project, "game.yaml", "language: en\n", "languages: [en, fr]\n")


def fill(project: Path) -> None:
    """A translator's work: each empty entry of fr.yaml given "FR " and its source text (the
    comment above it; under text:, the key), keywords as in the source; the rulebook's title too."""
    path = project / "cards/demo/i18n/fr.yaml"
    out, comment, section = [], None, None
    for line in path.read_text(encoding="utf-8").splitlines():
        stripped = line.strip()
        if not line.startswith(" ") and stripped.endswith(":"):
            section = stripped[:-1]
        if stripped.startswith("# ") and not line.startswith("# yaml") and out and not out[-1].startswith("#"):
            # a source text of several lines has a comment line each
            comment = f"{comment}\n{stripped[2:]}" if comment and out[-1].lstrip().startswith("# ") else stripped[2:]
        elif stripped.startswith("# "):
            comment = stripped[2:] if out and out[0].startswith("# yaml") and len(out) > 5 else None
        elif stripped.endswith(":") and comment is not None:
            line += f" {comment}" if stripped == "keywords:" else f" {json.dumps('FR ' + comment)}"
            comment = None
        elif section == "text" and line.startswith("  ") and stripped.endswith(":"):
            (source,) = yaml.safe_load(stripped)
            line += f" {json.dumps('FR ' + source)}"
        else:
            comment = None
        out.append(line)
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    rulebook = project / "cards/demo/rulebook/fr.md"          # and the rulebook's stub, translated
    if rulebook.is_file():
        rulebook.write_text(rulebook.read_text(encoding="utf-8").replace("\n# ", "\n# FR ", 1), encoding="utf-8")


def test_translate_writes_every_entry_to_fill_in_and_a_rulebook_stub(demo):
    two_languages(demo)
    result = pnp(demo, "translate", "demo", "--lang", "fr")
    assert result.exit_code == 0, result.output
    assert result.output == ("wrote cards/demo/i18n/fr.yaml (34 new entries, 34 to translate, 0 to review)\n"
                             "wrote cards/demo/rulebook/fr.md (the en rulebook, to translate in place)\n")
    text = (demo / "cards/demo/i18n/fr.yaml").read_text(encoding="utf-8")
    assert "    spark:\n      # **Draw** 1 card.\n      effect:\n      # Spark\n      name:\n" in text
    assert "    lantern:\n      # **Score** {value}.\n      # Then Draw 1 card.\n      effect:\n" in text   # the CSV cell's line break
    assert "text:\n  Demo · Score board:\n  First to {{ derived.goal }} points wins:\n" in text
    listed = pnp(demo, "list", "demo")
    assert "  language fr: 0/16 card texts, 0/18 strings\n" in listed.output
    result = pnp(demo, "validate", "demo", "--lang", "fr")
    assert result.exit_code == 1
    assert ("cards/demo/cards.yaml:16: card 'actions/spark': name: no fr translation "
            "(hint: add it to cards/demo/i18n/fr.yaml)") in lines(result)
    assert [line for line in lines(result) if "rulebook" in line] == [      # the stub is there, not translated yet
        "cards/demo/rulebook/fr.md:1: the fr rulebook is still the en text, word for word (hint: translate it in "
        "place (./pnp translate copied it to start from))"]


@pytest.mark.usefixtures("seeded")
def test_translate_keeps_translations_and_lists_changed_sources_for_review(demo):
    two_languages(demo)
    assert pnp(demo, "translate", "demo", "--lang", "fr").exit_code == 0
    fill(demo)
    valid = pnp(demo, "validate", "demo", "--lang", "fr")
    assert valid.output == "demo: fr: 16/16 card texts, 18/18 strings\ndemo (fr): valid (0 notes)\n", valid.output
    assert "  language fr: 16/16 card texts, 18/18 strings\n" in pnp(demo, "list", "demo").output
    edit(demo, "cards.yaml", "name: Spark,", "name: Flare,")
    before = pnp(demo, "validate", "demo", "--lang", "fr", "--verbose")
    assert before.exit_code == 0
    assert (": note: review cards.actions.spark.name: its source text changed since it was translated (run "
            "./pnp translate demo --lang fr to list it under review:)") in before.output
    assert "demo: fr: 16/16 card texts, 18/18 strings, 1 to review\n" in before.output
    again = pnp(demo, "translate", "demo", "--lang", "fr")
    assert again.output == "wrote cards/demo/i18n/fr.yaml (0 new entries, 0 to translate, 1 to review)\n"
    text = (demo / "cards/demo/i18n/fr.yaml").read_text(encoding="utf-8")
    assert "      # Flare\n      name: FR Spark\n" in text              # kept, to be checked
    assert "review:\n  - cards.actions.spark.name\n" in text
    after = pnp(demo, "validate", "demo", "--lang", "fr", "--verbose")
    line = next(n for n in lines(after) if "note: review" in n)
    assert line == (f"cards/demo/i18n/fr.yaml:{text.splitlines().index('  - cards.actions.spark.name') + 1}: note: "
                    "review cards.actions.spark.name: its source text changed since it was translated; check the "
                    "translation, then delete this line")
    assert "demo: fr: 16/16 card texts, 18/18 strings, 1 to review" in after.output
    path = demo / "cards/demo/i18n/fr.yaml"
    path.write_text(text.replace("  - cards.actions.spark.name\n", ""), encoding="utf-8")     # checked
    assert "review:\nsources:" in path.read_text(encoding="utf-8")      # its last line deleted, as the header says
    checked = pnp(demo, "validate", "demo", "--lang", "fr")
    assert checked.exit_code == 0 and checked.output == "demo: fr: 16/16 card texts, 18/18 strings\ndemo (fr): valid (0 notes)\n"
    assert pnp(demo, "build", "demo", "--lang", "fr", "--players", "2", "--paper", "a4").exit_code == 0


@pytest.mark.usefixtures("seeded")
def test_a_card_given_a_new_id_keeps_its_translation(demo):
    """Renaming a card's id (its texts the same) carries its translation to the new id: the text is
    the one translated, so nothing is left to translate or review."""
    two_languages(demo)
    assert pnp(demo, "translate", "demo", "--lang", "fr").exit_code == 0
    fill(demo)
    edit(demo, "cards.yaml", "{id: step,", "{id: stride,")
    stale = pnp(demo, "validate", "demo", "--lang", "fr")
    assert stale.exit_code == 1 and "cards.actions: no card 'step' in that deck" in stale.output
    again = pnp(demo, "translate", "demo", "--lang", "fr")
    assert again.output == "wrote cards/demo/i18n/fr.yaml (0 new entries, 0 to translate, 0 to review)\n"
    catalogue = yaml.safe_load((demo / "cards/demo/i18n/fr.yaml").read_text(encoding="utf-8"))
    assert catalogue["cards"]["actions"]["stride"] == {"name": "FR Step", "effect": "FR Move your pawn 2 spaces on."}
    assert "step" not in catalogue["cards"]["actions"]
    valid = pnp(demo, "validate", "demo", "--lang", "fr")
    assert valid.exit_code == 0 and valid.output.endswith("demo (fr): valid (0 notes)\n"), valid.output


def test_two_cards_renamed_at_once_keep_each_its_own_translation(demo):
    """Renamed together, two cards with one text alike take each its own translation: a card is
    matched on all its texts, not text by text. A translation written as '' is still to translate."""
    two_languages(demo)
    edit(demo, "cards.yaml", "effect: Each opponent moves 1 space back.", "effect: Move your pawn 2 spaces on.")
    assert pnp(demo, "translate", "demo", "--lang", "fr").exit_code == 0
    fill(demo)
    path = demo / "cards/demo/i18n/fr.yaml"
    text = path.read_text(encoding="utf-8")
    step = text.index("    step:\n")
    mine = 'effect: "FR Move your pawn 2 spaces on."'
    at = text.index(mine, step)
    path.write_text(text[:at] + "effect: FR step's own words" + text[at + len(mine):], encoding="utf-8")
    edit(demo, "cards.yaml", "{id: step,", "{id: stride,")
    edit(demo, "cards.yaml", "{id: storm,", "{id: gale,")
    again = pnp(demo, "translate", "demo", "--lang", "fr")
    assert again.output == "wrote cards/demo/i18n/fr.yaml (0 new entries, 0 to translate, 0 to review)\n"
    cards = yaml.safe_load(path.read_text(encoding="utf-8"))["cards"]["actions"]
    assert cards["stride"] == {"name": "FR Step", "effect": "FR step's own words"}
    assert cards["gale"] == {"name": "FR Storm", "effect": "FR Move your pawn 2 spaces on."}
    path.write_text(re.sub(r'name: "?FR Spark"?\n', "name: ''\n", path.read_text(encoding="utf-8")), encoding="utf-8")
    blank = pnp(demo, "validate", "demo", "--lang", "fr")
    assert blank.exit_code == 1 and "card 'actions/spark': name: no fr translation" in blank.output, blank.output


@pytest.mark.usefixtures("seeded")
def test_a_spreadsheet_column_name_at_lang_is_that_languages_text(demo):
    from generator.source.load import load_game
    from generator.source.project import Project
    two_languages(demo)
    sheet = demo / "cards/demo/goods.csv"
    rows = sheet.read_text(encoding="utf-8").replace("copies 3p\n", "copies 3p,name@fr\n", 1)
    rows = rows.replace(",1,1\nsilk", ",1,1,Lanterne\nsilk").replace(",,,1,1\n", ",,,1,1,Soie\n")
    sheet.write_text(rows.replace(",1,2\n", ",1,2,Jade FR\n"), encoding="utf-8")
    assert pnp(demo, "translate", "demo", "--lang", "fr").exit_code == 0
    catalogue = (demo / "cards/demo/i18n/fr.yaml").read_text(encoding="utf-8")
    assert "cards.goods.jade.name" not in catalogue and "cards.goods.jade.effect" in catalogue
    fill(demo)
    assert pnp(demo, "validate", "demo", "--lang", "fr").exit_code == 0
    goods = load_game(Project.at(demo), "demo", "fr", rules=False).decks["goods"]
    assert [c.fields["name"] for c in goods.cards] == ["Lanterne", "Soie", "Jade FR"]
    path = demo / "cards/demo/i18n/fr.yaml"          # the catalogue's own text for one of them, which wins
    path.write_text(path.read_text(encoding="utf-8").replace("    jade:\n", "    jade:\n      name: Jade du catalogue\n", 1),
                    encoding="utf-8")
    assert pnp(demo, "translate", "demo", "--lang", "fr").exit_code == 0        # and stays
    goods = load_game(Project.at(demo), "demo", "fr", rules=False).decks["goods"]
    assert [c.fields["name"] for c in goods.cards] == ["Lanterne", "Soie", "Jade du catalogue"]
    edit(demo, "goods.csv", "name@fr", "value@fr")
    wrong = pnp(demo, "validate", "demo")
    assert lines(wrong) == ["cards/demo/goods.csv:1:value@fr: column 'value@fr': 'value' is not a text field of "
                            "goods (hint: a translation column is a text field's name, @, a language: effect@en, "
                            "name@en)"]


# --- words a newcomer understands ------------------------------------------------------------------

def test_help_and_help_command(demo):
    from click.testing import CliRunner
    from generator.commands.cli import main
    runner = CliRunner()
    assert runner.invoke(main, ["help"]).output == runner.invoke(main, ["--help"]).output
    assert runner.invoke(main, ["help", "build"]).output == runner.invoke(main, ["build", "--help"]).output
    assert runner.invoke(main, ["help", "assets", "add"]).output == runner.invoke(main, ["assets", "add", "--help"]).output
    wrong = runner.invoke(main, ["help", "bild"])
    assert wrong.exit_code == 2 and "Error: No such command 'bild' (did you mean build?)." in wrong.output


def test_the_launcher_run_from_another_folder_takes_its_own_project(tmp_path):
    from generator.commands.newgame import new_project
    demo = tmp_path / "demo"
    new_project(demo, "demo")                   # with its own ./pnp
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    run = subprocess.run([str(demo / "pnp"), "list"], cwd=elsewhere, capture_output=True, text=True,
                         env={**os.environ, "PNP_SERVER": "0"})
    assert run.returncode == 0 and run.stdout.startswith("demo: Demo\n"), run.stderr
    usage = subprocess.run([str(demo / "pnp"), "bild"], cwd=elsewhere, capture_output=True, text=True,
                           env={**os.environ, "PNP_SERVER": "0"})
    assert usage.stderr.startswith("Usage: ./pnp [OPTIONS] COMMAND [ARGS]...\nTry './pnp --help' for help.")


YAML_MISTAKES = [
    ("reference.yaml", "  name: Quick reference\n", "  name: Quick reference: one per player\n",
     "cards/demo/reference.yaml:5: invalid YAML: mapping values are not allowed in this context (hint: a colon "
     "followed by a space inside unquoted text ends a key: put the text in quotes, e.g. effect: \"Choose one: draw "
     "or score\")"),
    ("reference.yaml", "  name: Quick reference\n", "  name: \"Quick reference\n",
     "cards/demo/reference.yaml:5: invalid YAML: found unexpected end of stream (hint: a quote opened on this line "
     "is not closed: end the text with the same quote mark)"),
    ("cards.yaml", "  - {id: step", "    - {id: step",
     "cards/demo/cards.yaml:17: invalid YAML: did not find expected '-' indicator (hint: a list item is indented "
     "differently from the others, or one lacks its `- `: start each item with `- ` at the same indentation)"),
    ("cards.yaml", "effect: \"**Draw** 1 card.\"", "effect: **Draw** 1 card.",
     "cards/demo/cards.yaml:16: invalid YAML: did not find expected alphabetic or numeric character (hint: text "
     "that starts with * or & (like **bold**) needs quotes: effect: \"**Draw** 1 card.\")"),
    ("reference.yaml", "  id: reference\n", "  id: reference\n   size: 3\n",
     "cards/demo/reference.yaml:5: invalid YAML: mapping values are not allowed in this context (hint: this line "
     "is indented deeper than the key above it, or the line above lacks its value: keep the keys of one mapping "
     "at the same number of spaces)"),
]


@pytest.mark.parametrize("name,old,new,message", YAML_MISTAKES, ids=[m[3][30:70] for m in YAML_MISTAKES])
def test_yaml_mistakes_say_the_likely_cause_and_fix(demo, name, old, new, message):
    edit(demo, name, old, new)
    result = pnp(demo, "validate", "demo")
    assert result.exit_code == 1 and lines(result) == [message]


def test_the_progress_bar_ends_before_an_error_or_the_ctrl_c_notice(monkeypatch):
    import click
    from click.testing import CliRunner
    from generator.commands import cli
    from generator.errors import PnpError, Problem
    events = []

    class Bar:
        def stop(self):
            events.append("bar stopped")

    def command(error):
        @click.command()
        @cli.handles_problems
        def run():
            cli._LIVE.append(Bar())
            raise error
        return run
    monkeypatch.setattr(click, "echo", lambda message="", err=False, **_: events.append(message))
    CliRunner().invoke(command(PnpError(Problem("cards/x.yaml", 3, "bad"))))
    assert events == ["bar stopped", "cards/x.yaml:3: bad"]
    events.clear()
    CliRunner().invoke(command(KeyboardInterrupt()))
    assert events == ["bar stopped", "interrupted; earlier outputs are unchanged"]


def test_a_shop_export_says_left_out_pieces_in_one_line():
    from types import SimpleNamespace
    from generator.export.shops import left_out_lines
    pieces = [SimpleNamespace(id=f"token-{i}", name=f"Token {i}") for i in range(18)]
    why = "The Game Crafter prints no board or token: print it from the pack"
    assert left_out_lines("g", [(p, why) for p in pieces]) == [
        f"g: left out 18 pieces (token-0, token-1, token-2, …): {why}; counts.csv lists each"]


def test_the_scaffold_says_in_each_file_what_names_the_sample_deck(demo):
    folder = demo / "cards/demo"
    for name in ("cards.yaml", "rules.py", "claims.yaml", "rulebook/en.md", "game.yaml"):
        text = (folder / name).read_text(encoding="utf-8")
        assert "sample deck" in text, name
    assert "./pnp new GAME --empty" in (folder / "cards.yaml").read_text(encoding="utf-8")


def test_new_empty_starts_without_the_sample(tmp_path):
    project = tmp_path / "blank"
    made = pnp(project, "new", "blank", "--empty")
    assert made.exit_code == 0, made.output
    assert sorted(p.name for p in (project / "cards/blank").iterdir()) == ["cards.yaml", "game.yaml", "rules.py"]
    assert pnp(project, "validate", "blank").output == "blank: valid (0 notes)\n"
    built = pnp(project, "build", "blank", "--paper", "a4")
    assert built.exit_code == 0 and "wrote build/blank/blank-2p-a4.pdf (3 pages, 1 card; preflight ok)" in built.output


# --- the engine's words follow the reader's locale ---------------------------------------------------

@pytest.mark.parametrize("environ,expected", [
    ({"LANG": "en_GB.UTF-8"}, "en-GB"), ({"LC_ALL": "zh_CN.UTF-8", "LANG": "en_US.UTF-8"}, "zh-CN"),
    ({"LANG": "C.UTF-8"}, None), ({}, None), ({"LC_MESSAGES": "fr_FR@euro"}, "fr-FR")])
def test_the_readers_language_is_read_from_the_locale(environ, expected):
    from generator.source.i18n import reader_language
    assert reader_language(environ) == expected


def test_an_english_reader_gets_english_words_and_editions(tmp_path, monkeypatch):
    from tests.conftest import make_project
    from tests.pdfcheck import page_text
    project = make_project(tmp_path / "p", ["seven-nights"])
    calibrated = pnp(project, "calibrate")                          # C locale: English
    assert calibrated.exit_code == 0
    assert "Printer calibration" in page_text(project / "build/calibration-a4-long.pdf", 1)
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert pnp(project, "calibrate").exit_code == 0
    assert "打印机校准" in page_text(project / "build/calibration-a4-long.pdf", 1)
    assert "deck  lanterns           灯牌 (5 designs" in pnp(project, "list").output
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    listed = pnp(project, "list")
    assert listed.output.startswith("seven-nights: Firefly Bride: Seven Nights, One Lamp (zh-Hans, en)\n")
    assert "deck  lanterns           Lantern cards (5 designs" in listed.output
    from click.testing import CliRunner
    from generator.commands.cli import main
    proof = CliRunner().invoke(main, ["--project", str(project), "build", "seven-nights", "--only", "lanterns/ember"])
    assert proof.output == "wrote build/seven-nights/cards/lanterns-ember-en.pdf and its .png (rendered)\n"
    reprint = pnp(project, "reprint", "seven-nights")
    assert reprint.exit_code == 1 and "no earlier build of this game in en is recorded" in reprint.output


# --- tuck boxes --------------------------------------------------------------------------------------

def _boxed(demo: Path, show: str = "") -> None:
    """The demo with tuck boxes, its goods deck given a back of each card's own (like a character's
    other side)."""
    edit(demo, "game.yaml", "\npacks:", f"\ntuck_boxes: {{{show}}}\npacks:")
    edit(demo, "goods.yaml", "back: demo/card-back.html", "back: demo/good-back.html")
    (demo / "templates/demo/good-back.html").write_text(
        '<div class="bleed back"></div>\n<div class="trim"><div class="centre back-title">{{ card.name }}</div></div>\n',
        encoding="utf-8")


def _box_pages(demo: Path, name: str = "demo-2p-a4"):
    from generator.check.pdfread import walk
    manifest = json.loads((demo / f"build/demo/{name}.json").read_text())
    pdf = pikepdf.open(demo / f"build/demo/{name}.pdf")
    return {tuple(e["box"]["decks"]): (e, [p.label for p in walk(pdf.pages[e["number"] - 1])[0]])
            for e in manifest["pages"] if e["role"] == "tuck-box"}


@pytest.mark.usefixtures("seeded")
def test_page_1_names_tuck_boxes_as_boxes(demo):
    from tests.pdfcheck import page_text
    _boxed(demo)
    assert pnp(demo, "build", "demo", "--players", "2", "--paper", "a4").exit_code == 0
    first = " ".join(page_text(demo / "build/demo/demo-2p-a4.pdf", 1).split())
    assert "Tuck box: Action cards 1" in first and "Tuck box: Goods 1" in first


@pytest.mark.usefixtures("seeded")
def test_a_box_shows_the_decks_shared_back_or_a_chosen_face_never_card_1s_own_back(demo):
    _boxed(demo)
    assert pnp(demo, "build", "demo", "--players", "2", "--paper", "a4").exit_code == 0
    boxes = _box_pages(demo)
    assert boxes[("actions",)][1] == ["actions back"]            # every action card shares its back
    assert boxes[("goods",)][1] == []                            # each good has its own: none stands for all
    game = demo / "cards/demo/game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace("tuck_boxes: {}", "tuck_boxes: {show: {goods: jade}}"),
                    encoding="utf-8")
    assert pnp(demo, "build", "demo", "--players", "2", "--paper", "a4").exit_code == 0
    assert _box_pages(demo)[("goods",)][1] == ["goods/jade face"]
    game.write_text(game.read_text(encoding="utf-8").replace("{goods: jade}", "{goods: pearl}"), encoding="utf-8")
    wrong = pnp(demo, "validate", "demo")
    assert lines(wrong) == [f"cards/demo/game.yaml:{_line(game, 'tuck_boxes')}: tuck_boxes: show: deck 'goods' has "
                            "no card 'pearl'"]


def _line(path: Path, start: str) -> int:
    return next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if line.startswith(start))


@pytest.mark.usefixtures("seeded")
def test_cutter_writes_the_tuck_boxes_cut_lines(demo):
    _boxed(demo)
    built = pnp(demo, "build", "demo", "--players", "2", "--paper", "a4", "--cutter", "silhouette")
    assert built.exit_code == 0, built.output
    wrote = next(line for line in lines(built) if line.startswith("wrote build/demo/demo-2p-a4-silhouette"))
    assert wrote.endswith("; preflight ok); its cut files in build/demo/demo-2p-a4-silhouette-cut/"), wrote
    entry, _ = _box_pages(demo, "demo-2p-a4-silhouette")[("actions",)]
    area = entry["cut_area"]
    assert all(area[0] <= x <= area[0] + area[2] and area[1] <= y <= area[1] + area[3] for x, y in entry["outline"])
    svg = (demo / f"build/demo/demo-2p-a4-silhouette-cut/page-{entry['number']:02d}.svg").read_text()
    points = " ".join(f"{x:g},{y:g}" for x, y in entry["outline"])
    assert f'<polygon points="{points}"/>' in svg and '<g id="registration"' in svg
    assert (demo / f"build/demo/demo-2p-a4-silhouette-cut/page-{entry['number']:02d}.dxf").is_file()


# --- watch: what the designer looks at first ---------------------------------------------------------

@pytest.mark.usefixtures("seeded")
def test_watch_rebuilds_the_pack_last_built_first_and_says_so(demo):
    from tests.test_rebuilds import _read_until
    assert pnp(demo, "build", "demo", "--players", "3", "--paper", "letter").exit_code == 0
    proc = subprocess.Popen([sys.executable, "-m", "generator", "--project", str(demo), "watch", "demo", "--jobs", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1,
                            env={**os.environ, "PNP_SERVER": "0"})
    said: list = []
    try:
        assert _read_until(proc, "demo:", said) == "demo: building every pack before the watch starts …\n"
        _read_until(proc, "watching", said)
        edit(demo, "cards.yaml", "name: Spark,", "name: Flare,")
        line = _read_until(proc, "changed;", said)
        assert line == "demo: changed; rebuilding the 3p letter pack first, then the rest\n"
        ready = _read_until(proc, "ready in", said)
        assert ready.startswith("demo: 3p letter ready in ") and ready.endswith(
            " s — wrote build/demo/demo-3p-letter.pdf, build/demo/demo-rules-letter.pdf, "
            "build/demo/cards/actions-spark.pdf\n")
        rest = _read_until(proc, "rebuilt in", said)
        assert rest.startswith("demo: the rest rebuilt in ") and "1 face re-rendered: actions/spark (face)" in rest
    finally:
        proc.terminate()
        proc.wait(10)
    assert "Traceback" not in "".join(said)


def test_make_kit_says_what_it_does_and_make_test_is_for_contributors():
    from tests.conftest import ROOT
    run = subprocess.run(["make", "-n", "-B", "kit", "test"], cwd=ROOT, capture_output=True, text=True)
    out = run.stdout
    pip = out.index("pip install -q --disable-pip-version-check -e .")
    assert out.rindex("make kit: installing pnp's Python libraries", 0, pip) < pip
    assert "make kit: building every shipped game's kits into build/" in out
    assert "make test: the whole test suite, for contributors to pnp (twelve to fifteen minutes on a 2-core machine;" in out
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`make test` is for contributors" in readme and "terminal of its own" in readme


# --- a changelog; the engine version a game is written for -------------------------------------------

@pytest.mark.parametrize("spec,version,holds", [
    (">=0.2", "0.2.0", True), (">=0.2", "0.1.9", False), (">=0.2, <0.3", "0.3.0", False), ("0.2", "0.2.0", True),
    ("~=0.2", "0.9.1", True), ("~=0.2", "1.0.0", False), ("~=0.2.1", "0.3.0", False), ("0.x", "0.2.0", None),
    ("", "0.2.0", None)])
def test_engine_ranges(spec, version, holds):
    from generator.source.engine import satisfies
    assert satisfies(spec, version) is holds


@pytest.mark.parametrize("spec,message", [
    (">=9.0", "cards/demo/game.yaml:{line}: this game is written for pnp >=9.0; this pnp is {version} (hint: update "
              "pnp (git pull in the pnp folder, then make kit))"),
    ("<0.2", "cards/demo/game.yaml:{line}: this game is written for pnp <0.2; this pnp is {version} (hint: "
             "CHANGELOG.md says what changed since and how to move the game; then update engine:)"),
    ("0.x", "cards/demo/game.yaml:{line}: engine: '0.x' is not a range of pnp versions (hint: write it like "
            "\">=0.2\" or \">=0.2, <0.3\")"),
])
def test_a_game_written_for_another_pnp_says_so_first(demo, spec, message):
    from generator import __version__
    game = demo / "cards/demo/game.yaml"
    text = game.read_text(encoding="utf-8")
    assert 'engine: ">=0.2"' in text                     # ./pnp new states the version it wrote for
    game.write_text(text.replace('engine: ">=0.2"', f'engine: "{spec}"') + "unknown_key_of_a_later_pnp: 1\n",
                    encoding="utf-8")
    result = pnp(demo, "validate", "demo")
    assert result.exit_code == 1
    assert lines(result) == [message.format(line=_line(game, "engine:"), version=__version__)]


def test_the_changelog_names_this_version_and_every_game_key():
    import tomllib
    from generator import __version__
    from generator.source.schema import CatalogueFile, DeckSpec, FieldSpec, GameSpec, RulebookSpec, TuckBoxSpec
    from tests.conftest import ROOT
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"] == __version__
    releases = [line.split("]")[0][4:] for line in text.splitlines() if line.startswith("## [")
                and line != "## [Unreleased]"]           # what the next version holds, on top
    assert releases[0] == __version__ and "https://keepachangelog.com" in text
    for model in (GameSpec, DeckSpec, CatalogueFile, TuckBoxSpec, RulebookSpec, FieldSpec):
        assert not [key for key in model.model_fields if f"`{key}" not in text and f" {key}" not in text], model
    flat = " ".join(text.split())
    assert "**Migration:** `game.spec.title` is now `game.title` (drop `.spec.` everywhere)" in flat


@pytest.mark.usefixtures("seeded")
def test_validate_preflights_every_pack_it_makes_in_memory(demo, monkeypatch):
    from generator.sheets import kit
    from generator.sheets.pack import check_pack
    from generator.errors import PnpError
    checked = []

    def spy(project, game, pack, paper, pdf, manifest, options=None, name=None):
        checked.append((pack.key if pack else name, paper))
        if len(checked) == 1:           # the first one, made to lie about its pages
            with pytest.raises(PnpError) as refused:
                check_pack(project, game, pack, paper, pdf, {**manifest, "pages": manifest["pages"][1:]})
            assert str(refused.value).startswith("build/demo/demo-2p-a4.pdf: preflight: the PDF has ")
        return check_pack(project, game, pack, paper, pdf, manifest, name=name)
    monkeypatch.setattr(kit, "check_pack", spy)
    assert pnp(demo, "validate", "demo").exit_code == 0
    assert checked == [("2p", "a4"), ("2p", "letter"), ("3p", "a4"), ("3p", "letter"),
                       ("demo-rules-a4", "a4"), ("demo-rules-letter", "letter")]
    assert not (demo / "build/demo").exists() or not list((demo / "build/demo").glob("*.pdf"))


def test_a_translated_one_line_text_with_a_line_break_is_refused_as_the_source_would_be(demo):
    two_languages(demo)
    assert pnp(demo, "translate", "demo", "--lang", "fr").exit_code == 0
    fill(demo)
    path = demo / "cards/demo/i18n/fr.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace('      name: "FR Spark"\n', '      name: "FR\\nSpark"\n'), encoding="utf-8")
    line = text.splitlines().index('      name: "FR Spark"') + 1
    result = pnp(demo, "validate", "demo", "--lang", "fr")
    assert result.exit_code == 1
    assert lines(result) == [f"cards/demo/i18n/fr.yaml:{line}: card 'actions/spark': name: expected one line of text "
                             "(use a 'rich' field for paragraphs)"]


@pytest.mark.usefixtures("seeded")
def test_a_keyword_added_puts_the_translated_keywords_under_review(demo):
    """The keywords are one entry, a list: a word added to game.yaml's list leaves the edition's list
    as the translator wrote it, to check like any entry whose source changed."""
    two_languages(demo)
    assert pnp(demo, "translate", "demo", "--lang", "fr").exit_code == 0
    fill(demo)
    edit(demo, "game.yaml", "keywords: [Draw, Score]", "keywords: [Draw, Score, Move]")
    path = demo / "cards/demo/i18n/fr.yaml"
    line = path.read_text(encoding="utf-8").splitlines().index("keywords: [Draw, Score]") + 1
    valid = pnp(demo, "validate", "demo", "--lang", "fr", "--verbose")
    assert valid.exit_code == 0, valid.output
    assert [n for n in lines(valid) if "note:" in n] == [
        f"cards/demo/i18n/fr.yaml:{line}: note: review keywords: its source text changed since it was translated "
        "(run ./pnp translate demo --lang fr to list it under review:)"]
    again = pnp(demo, "translate", "demo", "--lang", "fr")
    assert again.output == "wrote cards/demo/i18n/fr.yaml (0 new entries, 0 to translate, 1 to review)\n"
    text = path.read_text(encoding="utf-8")
    assert "# [Draw, Score, Move]\nkeywords: [Draw, Score]\n" in text and "review:\n  - keywords\n" in text


@pytest.mark.usefixtures("seeded")
def test_a_card_no_pack_prints_needs_no_translation_to_build(demo):
    """`copies: 0` is a card designed, not printed: its missing translation is a note at its catalogue
    entry (still to do, so not counted translated), not a refusal, and the edition builds."""
    two_languages(demo)
    assert pnp(demo, "translate", "demo", "--lang", "fr").exit_code == 0
    fill(demo)
    edit(demo, "cards.yaml", "copies: {2: 2, 3: 3}}\n  - {id: step", "copies: 0}\n  - {id: step")     # spark
    edit(demo, "game.yaml", "actions: {count: 10}", "actions: {count: 8}")
    edit(demo, "game.yaml", "actions: {count: 14}", "actions: {count: 11}")
    edit(demo, "claims.yaml", "claimed: 14", "claimed: 11")
    path = demo / "cards/demo/i18n/fr.yaml"
    text = path.read_text(encoding="utf-8")
    assert '      name: "FR Spark"\n' in text
    path.write_text(text.replace('      name: "FR Spark"\n', "      name:\n"), encoding="utf-8")
    line = text.splitlines().index('      name: "FR Spark"') + 1
    result = pnp(demo, "validate", "demo", "--lang", "fr", "--verbose")
    assert result.exit_code == 0, result.output
    assert lines(result) == [
        f"cards/demo/i18n/fr.yaml:{line}: note: card 'actions/spark': name: no fr translation yet (no pack prints "
        "the card: copies 0)", "demo: fr: 15/16 card texts, 18/18 strings", "demo (fr): valid (1 note)"]
    built = pnp(demo, "build", "demo", "--lang", "fr", "--players", "2", "--paper", "a4")
    assert built.exit_code == 0, built.output
    again = pnp(demo, "translate", "demo", "--lang", "fr")           # the empty entry is not a new one
    assert again.output == "wrote cards/demo/i18n/fr.yaml (0 new entries, 1 to translate, 0 to review)\n"


def test_translate_keeps_a_shipped_catalogue_whole(tmp_path):
    """Every entry of seven-nights' English catalogue is kept: those the data shows, and the values its
    templates pass to _() (which no reading of the data finds) under a comment saying so."""
    from tests.conftest import make_project
    project = make_project(tmp_path / "p", ["seven-nights"])
    path = project / "cards/seven-nights/i18n/en.yaml"
    before = yaml.safe_load(path.read_text(encoding="utf-8"))
    result = pnp(project, "translate", "seven-nights", "--lang", "en")
    assert result.output == ("wrote cards/seven-nights/i18n/en.yaml (0 new entries, 0 to translate, 0 to review, "
                             "20 kept that the data does not show)\n")
    after = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert after["text"] == before["text"] and after["decks"] == before["decks"] and after["title"] == before["title"]
    assert "  # Not in the data as ./pnp translate reads it" in path.read_text(encoding="utf-8")


SHIPPED = ("cephiro-pillar", "reverse-wizard", "seven-nights")


@pytest.mark.parametrize("game_id", SHIPPED)
def test_a_shipped_catalogue_records_the_source_of_every_entry_and_none_is_stale(game_id):
    """Each shipped catalogue is as `pnp translate` keeps it: `sources:` records every keyed entry's
    source text, none differs from the data, and the command run again writes the same bytes (the
    translator's glossary on top kept)."""
    from generator.check.translations import review_notes, template_strings
    from generator.source.catalogue import entries, notes, render, updated
    from generator.source.load import load_game
    from generator.source.project import Project
    from tests.conftest import ROOT
    project = Project.at(ROOT)
    path = ROOT / "cards" / game_id / "i18n/en.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    source = load_game(project, game_id, rules=False)
    literals = template_strings(project, source)
    keyed = {e.name for e in entries(source, literals, "en") if e.key[0] != "text"}
    assert keyed and set(raw["sources"]) == keyed and raw["review"] == []
    assert review_notes(project, load_game(project, game_id, "en", rules=False)) == []
    command = f"./pnp translate {game_id} --lang en"
    merged = updated(raw, "en", source, literals)
    text = path.read_text(encoding="utf-8")
    assert "Glossary" in text and render(merged.catalogue, source, entries(source, literals, "en"), command,
                                         merged.kept, notes(text, source, "en", command)) == text


def test_a_shipped_cards_chinese_text_edited_makes_validate_name_its_english_entry_out_of_date(tmp_path, nights_built):
    from tests.conftest import make_project, seed_store
    project = make_project(tmp_path / "p", ["seven-nights"])
    seed_store(project, [nights_built])         # validate makes every pack: its faces from the session's store
    path = project / "cards/seven-nights/guards.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("name: 弓手,", "name: 神弓手,"), encoding="utf-8")
    result = pnp(project, "validate", "seven-nights", "--lang", "en", "--verbose")
    assert result.exit_code == 0, result.output
    catalogue = (project / "cards/seven-nights/i18n/en.yaml").read_text(encoding="utf-8").splitlines()
    archer = catalogue.index("    archer:", catalogue.index("  guards:", catalogue.index("cards:")))
    line = next(i for i in range(archer, len(catalogue)) if catalogue[i].startswith("      name: ")) + 1   # the entry
    assert [n for n in lines(result) if "note:" in n] == [
        f"cards/seven-nights/i18n/en.yaml:{line}: note: review cards.guards.archer.name: its source text changed "
        "since it was translated (run ./pnp translate seven-nights --lang en to list it under review:)"]



def test_a_build_says_an_edition_prints_a_translation_whose_source_changed(tmp_path):
    """The Chinese text of a translated card edited: the English edition is up to date (its data did
    not change) and prints the old translation, and the build says so each time until it is updated."""
    from tests.test_languages import GAME, bilingual_project
    project = bilingual_project(tmp_path / "project")
    assert pnp(project, "translate", GAME, "--lang", "en").exit_code == 0       # records each entry's source
    build = ("build", GAME, "--players", "3", "--paper", "a4")
    assert pnp(project, *build, every_language=True).exit_code == 0
    goods = project / f"cards/{GAME}/goods.yaml"
    goods.write_text(goods.read_text(encoding="utf-8").replace("name: 福袋,", "name: 福袋子,"), encoding="utf-8")
    warning = (f"warning: {GAME} (en): 1 translation to review: the source text changed since, and this edition "
               f"prints the old translation until it is updated (./pnp validate {GAME} --lang en --verbose lists them)")
    for up_to_date in (f"{GAME} (en): up to date", f"{GAME}: up to date"):     # the edition, then the game
        result = pnp(project, *build, every_language=True)
        assert result.exit_code == 0, result.output
        assert warning in lines(result) and up_to_date in result.output


# --- a scaffold a second language can translate -----------------------------------------------------

CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def in_english_words(path: Path) -> None:
    """A translator's work in English words only: each empty entry of the catalogue (a key with nothing
    under it) given "Word" and the placeholders and expressions of its source (the comment above it;
    under text:, the key itself); the keywords two English words."""
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    for index, line in enumerate(lines):
        key = re.fullmatch(r"(\s*)(.+?):\s*", line)
        after = next((n for n in lines[index + 1:] if n.strip() and not n.lstrip().startswith("#")), "")
        if key and not line.lstrip().startswith("#") and _indent(after) <= _indent(line) \
                and key.group(2) not in ("review", "sources"):
            above = list(itertools.takewhile(lambda n: n.lstrip().startswith("# "), reversed(lines[:index])))
            source = "\n".join(n.strip()[2:] for n in reversed(above)) if above else key.group(2)
            marks = re.findall(r"\{\{.*?\}\}|\{\w+\}", source)
            line += " [Draw, Score]" if key.group(2) == "keywords" else " " + json.dumps(" ".join(["Word", *marks]))
        out.append(line)
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def test_a_character_no_font_draws_in_a_translation_is_reported_at_its_catalogue_entry(tmp_path):
    """A board label's, a reference card's (`text:` entries) and the subtitle's translation with a character
    no bundled font has: each said at the catalogue line the translator mends, not at the Chinese data's
    line or the engine's page 1 template."""
    project = tmp_path / "zh-project"
    assert pnp(project, "new", "demo", "--lang", "zh-Hans").exit_code == 0
    edit(project, "game.yaml", "language: zh-Hans\n", "languages: [zh-Hans, en]\n")
    assert pnp(project, "translate", "demo", "--lang", "en").exit_code == 0
    catalogue = project / "cards/demo/i18n/en.yaml"
    in_english_words(catalogue)
    (project / "cards/demo/rulebook/en.md").write_text("# {{ game.title }}\n\nFirst to {{ derived.goal }} points.\n",
                                                      encoding="utf-8")
    text = catalogue.read_text(encoding="utf-8").splitlines()
    board, card = text.index('  Demo · 计分板: "Word"') + 1, text.index('  打出 1 张行动牌并执行。: "Word"') + 1
    subtitle = text.index('subtitle: "Word"') + 1                          # printed by page 1 only
    missing = "character '\U00020000' (U+20000 CJK UNIFIED IDEOGRAPH-20000) is in no bundled font"
    for line, what in ((board, f"piece score-board: text: {missing}"),
                       (card, f"reference/turn (face): {missing} and has no icon"),
                       (subtitle, f"page 1: {missing}")):
        lines_now = list(text)
        lines_now[line - 1] = lines_now[line - 1].replace('"Word"', '"Word \U00020000"')
        catalogue.write_text("\n".join(lines_now) + "\n", encoding="utf-8")
        result = pnp(project, "validate", "demo", "--lang", "en")
        assert result.exit_code == 1, result.output
        assert lines(result) == [f"cards/demo/i18n/en.yaml:{line}: {what}"]
    (project / "cards/demo/rulebook/en.md").write_text("# {{ game.title }}\n\n{{ game.subtitle }}\n", encoding="utf-8")
    result = pnp(project, "validate", "demo", "--lang", "en")            # the rulebook prints it too
    assert lines(result) == [f"cards/demo/i18n/en.yaml:{subtitle}: {missing} and has no icon"], result.output


def test_a_proof_of_a_card_no_pack_prints_names_its_text_to_translate(tmp_path):
    """`--only` draws a card no pack prints: in an edition in another script, its untranslated name is
    said as the catalogue entry to fill, not as words to wrap in _() in the template."""
    project = tmp_path / "zh-project"
    assert pnp(project, "new", "demo", "--lang", "zh-Hans").exit_code == 0
    edit(project, "game.yaml", "language: zh-Hans\n", "languages: [zh-Hans, en]\n")
    assert pnp(project, "translate", "demo", "--lang", "en").exit_code == 0
    in_english_words(project / "cards/demo/i18n/en.yaml")
    (project / "cards/demo/rulebook/en.md").write_text("# {{ game.title }}\n", encoding="utf-8")
    rows = (project / "cards/demo/cards.yaml").read_text(encoding="utf-8").splitlines()
    spark = next(row for row in rows if "id: spark" in row)
    edit(project, "cards.yaml", spark, spark.replace("copies: {2: 2, 3: 3}}", "copies: 0}"))
    edit(project, "game.yaml", "actions: {count: 10}", "actions: {count: 8}")
    edit(project, "game.yaml", "actions: {count: 14}", "actions: {count: 11}")
    edit(project, "claims.yaml", "claimed: 14", "claimed: 11")
    catalogue = project / "cards/demo/i18n/en.yaml"
    text = catalogue.read_text(encoding="utf-8")
    catalogue.write_text(text.replace('    spark:\n      # **抽牌** 1 张。\n      effect: "Word"\n      # 火花\n      name: "Word"\n',
                                      '    spark:\n      # **抽牌** 1 张。\n      effect: "Word"\n      # 火花\n      name:\n'),
                         encoding="utf-8")
    assert pnp(project, "validate", "demo", "--lang", "en").exit_code == 0
    proof = pnp(project, "build", "demo", "--lang", "en", "--only", "actions/spark")
    assert proof.exit_code == 1
    assert lines(proof) == [f"cards/demo/cards.yaml:{rows.index(spark) + 1}: actions/spark (face): name: no en "
                            "translation (hint: add it to cards/demo/i18n/en.yaml)"]


def test_english_added_to_a_chinese_scaffold_prints_no_chinese_on_its_cards(tmp_path):
    """Every fixed word of the zh-Hans scaffold's templates is in _(): `pnp translate` asks for it, and
    once each entry is translated the English cards carry no Chinese character (read back from the PDF's
    card pages)."""
    project = tmp_path / "zh-project"
    assert pnp(project, "new", "demo", "--lang", "zh-Hans").exit_code == 0
    edit(project, "game.yaml", "language: zh-Hans\n", "languages: [zh-Hans, en]\n")
    assert pnp(project, "translate", "demo", "--lang", "en").exit_code == 0
    in_english_words(project / "cards/demo/i18n/en.yaml")
    (project / "cards/demo/rulebook/en.md").write_text("# {{ game.title }}\n\nFirst to {{ derived.goal }} points.\n",
                                                      encoding="utf-8")
    result = pnp(project, "build", "demo", "--lang", "en", "--players", "2", "--paper", "a4")
    assert result.exit_code == 0, result.output
    pack = project / "build/demo/demo-2p-a4-en"
    pages = [p["number"] for p in json.loads(pack.with_suffix(".json").read_text())["pages"]
             if p["role"].startswith("cards")]
    texts = [subprocess.run(["pdftotext", "-f", str(n), "-l", str(n), f"{pack}.pdf", "-"], capture_output=True,
                            text=True, check=True).stdout for n in pages]
    assert len(texts) >= 3 and "1. Word 3\n" in "".join(texts)        # the reference card, its number kept
    assert [CJK.findall(text) for text in texts] == [[]] * len(texts)
