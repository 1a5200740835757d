"""`pnp build --all` and `--shard I/N`: a failed game among good ones stops only itself, and the
shards of a catalogue together hold every game exactly once, balanced by recorded build times."""
from __future__ import annotations

import json
import random
import re
import shutil

import pytest

from generator.commands.many import COST, parse_shard, read_costs, shard
from tests.conftest import make_project, pnp

GAMES = [f"game-{i:03d}" for i in range(37)]


@pytest.mark.parametrize("total", [1, 2, 3, 4, 7, 40])
@pytest.mark.parametrize("with_costs", [False, True])
def test_shards_hold_every_game_exactly_once(total, with_costs):
    rng = random.Random(total)
    costs = {g: rng.uniform(1, 60) for g in GAMES if rng.random() < 0.8} if with_costs else {}
    shares = [shard(GAMES, i, total, costs) for i in range(1, total + 1)]
    held = [g for share in shares for g in share]
    assert sorted(held) == GAMES and len(held) == len(set(held))
    assert all(share == sorted(share) for share in shares)
    assert shares == [shard(list(reversed(GAMES)), i, total, dict(costs)) for i in range(1, total + 1)]  # stable
    if with_costs and total <= len(GAMES):
        typical = sorted(costs.values())[len(costs) // 2]
        loads = [sum(costs.get(g, typical) for g in share) for share in shares]
        assert max(loads) - min(loads) <= max(costs.values())     # greedy, largest first: within one game


def test_without_costs_shares_differ_by_at_most_one_game():
    sizes = [len(shard(GAMES, i, 4, {})) for i in range(1, 5)]
    assert sorted(sizes) == [9, 9, 9, 10]


@pytest.mark.parametrize("value,message", [("2/4", None), ("0/4", "0/4: I must be between 1 and N"),
                                           ("5/4", "5/4: I must be between 1 and N"),
                                           ("x", "expected I/N like 2/4, got 'x'")])
def test_shard_values(value, message):
    if message is None:
        assert parse_shard(value) == (2, 4)
    else:
        with pytest.raises(ValueError, match=re.escape(message)):
            parse_shard(value)


@pytest.fixture(scope="module")
def catalogue(tmp_path_factory):
    """Three scaffold games, one of them broken (a card without an id)."""
    project = make_project(tmp_path_factory.mktemp("catalogue"), [])
    for name in ("alpha", "broken", "gamma"):
        assert pnp(project, "new", name).exit_code == 0
    with (project / "cards/broken/cards.yaml").open("a", encoding="utf-8") as handle:
        handle.write("  - {oops: 1}\n")
    return project


def test_all_builds_the_good_games_and_reports_the_failed_one(catalogue):
    result = pnp(catalogue, "build", "--all", "--paper", "a4")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    failed = [i for i, l in enumerate(lines) if re.fullmatch(r"\[[123]/3\] broken: failed \(1 problem\)", l)]
    assert len(failed) == 1
    last = len((catalogue / "cards/broken/cards.yaml").read_text(encoding="utf-8").splitlines())   # the card added
    assert lines[failed[0] + 1] == f"cards/broken/cards.yaml:{last}: cards[5]: 'id' is missing"
    built = [l for l in lines if re.fullmatch(r"\[[123]/3\] (alpha|gamma): built in [0-9.]+ s \(3 PDFs\)", l)]
    assert len(built) == 2 and len(lines) == 5
    assert lines[-1] == "3 games: 2 built, 0 up to date, 1 failed (broken)"
    for game in ("alpha", "gamma"):
        assert (catalogue / f"build/{game}/{game}-2p-a4.pdf").is_file()
        assert json.loads((catalogue / f"build/{game}/{COST}").read_text())["seconds"] > 0
    assert not list((catalogue / "build").glob("broken/*.pdf"))
    again = pnp(catalogue, "build", "--paper", "a4")          # no game named: the same as --all
    assert again.exit_code == 1
    assert again.output.splitlines()[-1] == "3 games: 0 built, 2 up to date, 1 failed (broken)"
    assert "[1/3] alpha: up to date (3 PDFs)" in again.output.splitlines()


def test_shards_of_the_cli_cover_the_catalogue_once(catalogue):
    costs = read_costs(catalogue / "build", ["alpha", "broken", "gamma"])
    named = []
    for index in (1, 2):
        result = pnp(catalogue, "build", "--shard", f"{index}/2", "--paper", "a4")
        first = result.output.splitlines()[0]
        match = re.fullmatch(rf"shard {index}/2: \d games? \((.*)\)", first)
        assert match, first
        share = match.group(1).split(", ")
        assert share == shard(["alpha", "broken", "gamma"], index, 2, costs)
        named += share
        assert result.exit_code == (1 if "broken" in share else 0)
    assert sorted(named) == ["alpha", "broken", "gamma"]


def test_all_and_a_game_or_a_bad_shard_are_usage_errors(catalogue):
    result = pnp(catalogue, "build", "alpha", "--all")
    assert result.exit_code == 2 and "--all builds every game (or a share of them): name no GAME" in result.output
    result = pnp(catalogue, "build", "--shard", "3/2")
    assert result.exit_code == 2 and "3/2: I must be between 1 and N" in result.output


def test_the_site_of_a_catalogue_leaves_out_what_it_cannot_show(catalogue):
    """Built games are shelved; one not built is left out with a line; one whose data broke after
    its build is left out with its problem, and the command exits 1 having written the others."""
    assert pnp(catalogue, "build", "--all", "--paper", "a4").output.splitlines()[-1].endswith("1 failed (broken)")
    game_file = catalogue / "cards/gamma/game.yaml"
    text = game_file.read_text(encoding="utf-8")
    game_file.write_text(text.replace("title:", "titel:"), encoding="utf-8")
    try:
        result = pnp(catalogue, "site")
    finally:
        game_file.write_text(text, encoding="utf-8")
    lines = result.output.splitlines()
    assert result.exit_code == 1
    assert "broken: nothing built yet, left out (run pnp build broken)" in lines
    assert "wrote build/site/index.html (1 game, 1 printables page; open it in a browser)" in lines
    assert any(l.startswith("cards/gamma/game.yaml:") and "titel" in l for l in lines), lines
    shelf = (catalogue / "build/site/index.html").read_text(encoding="utf-8")
    assert 'data-game="alpha"' in shelf and 'data-game="gamma"' not in shelf
    assert pnp(catalogue, "site").exit_code == 0
    assert 'data-game="gamma"' in (catalogue / "build/site/index.html").read_text(encoding="utf-8")
    site = catalogue / "build/site"
    first = {p.relative_to(site): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()}
    shutil.rmtree(site)
    assert pnp(catalogue, "site").exit_code == 0          # the same builds give the same site, byte for byte
    assert {p.relative_to(site): p.read_bytes() for p in sorted(site.rglob("*")) if p.is_file()} == first
    assert (site / "alpha/files/alpha-2p-a4.pdf").stat().st_ino == (catalogue / "build/alpha/alpha-2p-a4.pdf").stat().st_ino


def test_a_game_whose_build_dies_without_a_word_is_reported(tmp_path):
    project = make_project(tmp_path / "project", [])
    assert pnp(project, "new", "crash").exit_code == 0
    rules = project / "cards/crash/rules.py"
    rules.write_text("import os\nos._exit(9)\n" + rules.read_text(encoding="utf-8"), encoding="utf-8")
    result = pnp(project, "build", "--all", "--paper", "a4")
    assert result.exit_code == 1
    assert result.output.splitlines() == ["[1/1] crash: failed (1 problem)",
                                          "cards/crash: its build ended with status 9 and no message",
                                          "1 game: 0 built, 0 up to date, 1 failed (crash)"]


def test_the_site_never_writes_or_deletes_through_a_link(tmp_path):
    """build/site/ and its folders are pnp's own: a folder of the site that is a link to elsewhere stops
    `pnp site` before anything is written, and what the link leads to is untouched; a stray link
    inside the site (to a file or a folder) is removed as a link, never followed."""
    project = make_project(tmp_path / "project", [])
    assert pnp(project, "new", "alpha").exit_code == 0
    assert pnp(project, "build", "alpha", "--paper", "a4").exit_code == 0
    assert pnp(project, "site").exit_code == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "keep.pdf").write_bytes(b"mine")
    files = project / "build/site/alpha/files"
    shutil.rmtree(files)
    files.symlink_to(elsewhere, target_is_directory=True)
    result = pnp(project, "site")
    assert result.exit_code == 1
    assert result.output == ("build/site/alpha/files: is a symbolic link; pnp writes and deletes its outputs only in "
                             "folders of its own (hint: remove the link; pnp makes the folder again)\n")
    assert sorted(p.name for p in elsewhere.iterdir()) == ["keep.pdf"]
    files.unlink()
    assert pnp(project, "site").exit_code == 0
    (project / "build/site/stray-folder").symlink_to(elsewhere, target_is_directory=True)
    (project / "build/site/stray-file.pdf").symlink_to(elsewhere / "keep.pdf")
    assert pnp(project, "site").exit_code == 1          # a linked folder in the site: refused, named
    (project / "build/site/stray-folder").unlink()
    assert pnp(project, "site").exit_code == 0          # the stray file link: removed as a link
    assert not (project / "build/site/stray-file.pdf").is_symlink()
    assert (elsewhere / "keep.pdf").read_bytes() == b"mine"


def test_a_title_and_description_are_text_on_the_site_never_markup(tmp_path):
    project = make_project(tmp_path / "project", [])
    assert pnp(project, "new", "alpha", "--title", "A <b>bold</b> & \"quoted\" game").exit_code == 0
    game = project / "cards/alpha/game.yaml"
    text = re.sub(r"(?m)^description:.*$", 'description: "<script>alert(1)</script> & more"',
                  game.read_text(encoding="utf-8"))
    assert "<script>" in text
    game.write_text(text, encoding="utf-8")
    assert pnp(project, "build", "alpha", "--paper", "a4").exit_code == 0
    assert pnp(project, "site").exit_code == 0
    for page in (project / "build/site").rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert "<script>alert" not in html and "<b>bold</b>" not in html, page
    shelf = (project / "build/site/index.html").read_text(encoding="utf-8")
    assert "A &lt;b&gt;bold&lt;/b&gt; &amp;" in shelf
