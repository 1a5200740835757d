"""Whole packs as store values (generator/sheets/pack_store.py): after an edit, a pack whose parts are all
unchanged is taken from the store, not made; one that holds the edit is made; an edit undone takes every
pack; page 1 (drawn over the imposition) is checked on its own; a damaged entry is made again. Every time,
the files are byte for byte those a cold build writes."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.conftest import pnp
from tests.test_rebuild_sequences import GAME, _outputs, _project

CARD = ("cards/night-market/stalls.yaml", "motto: 红红火火", "motto: 红红火火火")     # no board or rulebook shows it


def _build(project: Path) -> str:
    result = pnp(project, "build", GAME, "--players", "3", "--lang", "zh-Hans")
    assert result.exit_code == 0, result.output
    return result.output


def _kept(project: Path) -> set[str]:
    """The packs the store holds (one PDF each)."""
    return {p.name for p in (project / "build/.cache/packs").rglob("*.pdf")}


def _edit(project: Path, name: str, old: str, new: str) -> None:
    path = project / name
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _cold(project: Path, target: Path) -> dict[str, bytes]:
    shutil.copytree(project, target, symlinks=True, ignore=shutil.ignore_patterns("build"))
    _build(target)
    return _outputs(target)


@pytest.fixture(scope="module")
def built_once(tmp_path_factory) -> Path:
    """The game in two languages, built cold once for this module (3 players, both papers, zh-Hans)."""
    project = _project(tmp_path_factory.mktemp("store") / "project")
    _build(project)
    return project


@pytest.fixture
def copied(built_once, tmp_path) -> Path:
    """A copy of the module's built project, store and all: as after its first build."""
    return Path(shutil.copytree(built_once, tmp_path / "project", symlinks=True))


def test_a_card_edit_makes_the_packs_holding_it_and_takes_the_rest_and_undone_takes_every_pack(copied, tmp_path):
    project = copied
    first, kept = _outputs(project), _kept(project)
    packs = sorted(name for name in first if name.endswith(".pdf"))
    assert packs == [f"{GAME}-3p-a4-zh-Hans.pdf", f"{GAME}-3p-letter-zh-Hans.pdf",
                     f"{GAME}-rules-a4-zh-Hans.pdf", f"{GAME}-rules-letter-zh-Hans.pdf"]
    assert len(kept) == 4

    _edit(project, *CARD)
    _build(project)
    assert len(_kept(project) - kept) == 2          # the 3-player pack on both papers; the rules taken
    edited = _outputs(project)
    assert [n for n in packs if edited[n] != first[n]] == packs[:2]
    assert edited == _cold(project, tmp_path / "cold")

    _edit(project, CARD[0], CARD[2], CARD[1])        # undone: every pack is in the store
    after = _kept(project)
    _build(project)
    assert _kept(project) == after
    assert _outputs(project) == first


def test_page_one_is_checked_on_its_own(copied, tmp_path):
    """A game's info.html is read by page 1 only: its edit is not in a pack's key, and the pack is
    made again because its page 1 is another page."""
    project = copied
    info = project / "templates" / GAME / "info.html"
    info.write_text("<p>Market note one</p>", encoding="utf-8")
    _build(project)
    kept = _kept(project)
    info.write_text("<p>Market note two</p>", encoding="utf-8")
    _build(project)
    assert len(_kept(project) - kept) == 2          # the packs with a page 1; the rules have none
    page_one = PdfReader(project / "build" / GAME / f"{GAME}-3p-a4-zh-Hans.pdf").pages[0].extract_text()
    assert "Market note two" in page_one and "Market note one" not in page_one
    assert _outputs(project) == _cold(project, tmp_path / "cold")


def test_a_damaged_entry_is_made_again(copied):
    project = copied
    first = _outputs(project)
    _edit(project, *CARD)
    _build(project)
    store = project / "build/.cache"
    damaged = [p for kind in ("packs", "pack-records") for p in (store / kind).rglob("*") if p.is_file()]
    assert len(damaged) >= 12       # six packs kept: a PDF, a record and their manifests
    for path in damaged:
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    _edit(project, CARD[0], CARD[2], CARD[1])
    output = _build(project)
    assert output.count("preflight ok") == 4
    assert _outputs(project) == first
    assert len(_kept(project)) >= 4


def test_the_store_keeps_the_newest_packs_of_each_file(copied):
    from generator.sheets.pack_store import KEEP
    project = copied
    for n in range(KEEP + 2):                       # every edit makes the two 3-player packs anew
        _edit(project, CARD[0], "motto: 红红火火" + "火" * n, "motto: 红红火火" + "火" * (n + 1))
        _build(project)
    # four files (3p and rules, two papers): the rules kept once each, the packs KEEP each
    assert len(_kept(project)) == 2 + 2 * KEEP
    _edit(project, CARD[0], "motto: 红红火火" + "火" * (KEEP + 2), "motto: 红红火火" + "火" * (KEEP + 1))
    before = _kept(project)
    _build(project)                                  # the one before: still kept, taken
    assert _kept(project) == before
