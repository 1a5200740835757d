"""Issue 37, the designer's loop: `validate` means it builds (every expression evaluated, every
face rendered, every pack made in memory), a language without its rulebook, spreadsheet cards
located in the spreadsheet, each error said once in a game of two languages."""
from __future__ import annotations

from pathlib import Path

import pytest
from PIL import Image

from tests.conftest import pnp


@pytest.fixture
def demo(tmp_path) -> Path:
    """A project with the scaffold's game (a CSV deck with one picture, a board, a rulebook)."""
    project = tmp_path / "demo-project"
    assert pnp(project, "new", "demo").exit_code == 0
    return project


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

def test_validate_evaluates_board_text(demo):
    edit(demo, "pieces.yaml", "First to {{ derived.goal }} points wins", "First to {{ game.folder }} points wins")
    result = pnp(demo, "validate", "demo")
    assert result.exit_code == 1
    assert lines(result) == ["cards/demo/pieces.yaml:11: piece score-board: text: First to {{ game.folder }} points "
                             "wins: 'dict object' has no attribute 'folder'"]
    assert not (demo / "build/demo").exists() or not list((demo / "build/demo").glob("*.pdf"))


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
