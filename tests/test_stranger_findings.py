"""What a stranger found making a game from the docs alone (2026-12-06): a brace typo in the
rulebook is said as the template error it is, and a deck or piece that no pack lists is an error,
not a kit printed short without a word."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import pnp


@pytest.fixture
def demo(tmp_path) -> Path:
    """A project with the scaffold's game (two packs, a board, pawns, a rulebook)."""
    project = tmp_path / "demo-project"
    assert pnp(project, "new", "demo").exit_code == 0
    return project


def edit(project: Path, name: str, old: str, new: str) -> None:
    path = project / "cards/demo" / name
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def line_of(project: Path, name: str, text: str) -> int:
    lines = (project / "cards/demo" / name).read_text(encoding="utf-8").splitlines()
    return next(n for n, line in enumerate(lines, 1) if text in line)


def test_a_brace_typo_inside_bold_text_is_the_template_error_not_an_emphasis_marker(demo):
    edit(demo, "rulebook/en.md", "**{{ derived.goal }} points**", "**{{ derived.goal } points**")
    result = pnp(demo, "validate", "demo")
    assert result.exit_code == 1
    line = line_of(demo, "rulebook/en.md", "{{ derived.goal } points")
    assert result.output.strip() == f"cards/demo/rulebook/en.md:{line}: template error: unexpected '}}'"


def test_a_deck_and_a_piece_no_pack_lists_are_errors_naming_where_they_are_listed(demo):
    edit(demo, "game.yaml", "      goods: {count: 3}\n", "")
    edit(demo, "game.yaml", "      goods: {count: 4}\n", "")
    edit(demo, "game.yaml", "pieces: {score-board: 1, pawn: 2}", "pieces: {score-board: 1}")
    edit(demo, "game.yaml", "pieces: {score-board: 1, pawn: 3}", "pieces: {score-board: 1}")
    result = pnp(demo, "build", "demo")
    assert result.exit_code == 1
    decks_line = line_of(demo, "game.yaml", "decks: [")
    pawn_line = line_of(demo, "pieces.yaml", "id: pawn")
    assert result.output.strip().splitlines() == [
        f"cards/demo/game.yaml:{decks_line}: deck 'goods' (goods.yaml) is in no pack, so nothing prints it "
        "(hint: give it a count in each pack that holds it (packs: … decks: goods: {count: …}), "
        "or take goods.yaml out of decks:)",
        f"cards/demo/pieces.yaml:{pawn_line}: piece 'pawn' is in no pack, so nothing prints it "
        "(hint: give it a count in each pack that holds it (packs: … pieces: {pawn: …}), or remove it)"]
    assert not (demo / "build/demo").exists() or not list((demo / "build/demo").glob("*.pdf"))


def test_an_internal_error_says_where_minus_v_goes(demo, monkeypatch):
    from generator.source import load

    def bug(*_, **__):
        raise RuntimeError("a bug")
    monkeypatch.setattr(load, "load_game", bug)
    result = pnp(demo, "list")
    assert result.exit_code == 3
    assert result.output == ("internal error: RuntimeError: a bug (for details run it again as `./pnp -v list …`, "
                             "and please report it)\n")


def test_a_language_without_its_catalogue_points_at_pnp_translate(demo):
    edit(demo, "game.yaml", "language: en", "language: en\nlanguages: [en, fr]")
    result = pnp(demo, "build", "demo", "--lang", "fr")
    assert result.exit_code == 1
    assert result.output.strip() == ("cards/demo/i18n/fr.yaml: the fr edition has no catalogue "
                                     "(hint: ./pnp translate demo --lang fr writes it, with every source text to translate)")


def test_a_negative_piece_count_says_what_a_count_may_be(demo):
    edit(demo, "game.yaml", "pieces: {score-board: 1, pawn: 2}", "pieces: {score-board: 1, pawn: -1}")
    result = pnp(demo, "validate", "demo")
    assert result.exit_code == 1
    line = line_of(demo, "game.yaml", "pawn: -1")
    # one line: the rulebook, which names the pack's pawns, is not read until the packs are sound
    assert result.output.strip() == f"cards/demo/game.yaml:{line}: 2-player pack: pawn: count must be a whole number, " \
        "0 or more, got -1"
