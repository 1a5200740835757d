"""Shared sheets: decks of one card size and stock fill each other's free slots, each slot with its own back."""
from __future__ import annotations

import json
from collections import Counter

import pikepdf

from tests.conftest import make_project, pnp
from tests.pdfcheck import card_pages


def _fronts(manifest):
    return [e for e in manifest["pages"] if e["role"] in ("cards-front", "cards", "cards-fold")]


def _cards(manifest):
    return Counter(s["card"] for e in _fronts(manifest) for s in e["slots"] if s["side"] == "front")


def _build(project, game, *args):
    result = pnp(project, "build", game, *args)
    assert result.exit_code == 0, result.output


def test_decks_share_sheets_and_keep_their_backs(tmp_path):
    project = make_project(tmp_path / "p", ["cephiro-pillar"])
    _build(project, "cephiro-pillar", "--players", "3", "--paper", "a4")
    _build(project, "cephiro-pillar", "--players", "3", "--paper", "a4", "--sheets", "per-deck")
    folder = project / "build/cephiro-pillar"
    shared = json.loads((folder / "cephiro-pillar-3p-a4-zh-Hans.json").read_text())
    alone = json.loads((folder / "cephiro-pillar-3p-a4-per-deck-zh-Hans.json").read_text())
    assert _cards(shared) == _cards(alone)
    # 24 power + 8 trials + 30 oaths = 62 cards: 7 sheets of 9 shared, 3 + 1 + 4 = 8 per deck (+ the reference)
    assert (len(_fronts(shared)), len(_fronts(alone))) == (8, 9)
    assert shared["print"]["sheets"] == "shared" and alone["print"]["sheets"] == "per-deck"
    assert all(len(e["components"]) == 1 for e in _fronts(alone))
    mixed = [e for e in _fronts(shared) if len(e["components"]) > 1]
    assert mixed and all(e["components"] == list(dict.fromkeys(s["component"] for s in e["slots"])) for e in mixed)
    # every back slot holds the back of the deck whose front it mirrors (read from the PDF)
    by_number = {e["number"]: e for e in shared["pages"]}
    pdf = pikepdf.open(folder / shared["file"])
    backs = list(card_pages(pdf, shared, roles=("cards-back",)))
    assert any(len(entry["components"]) > 1 for entry, _, _ in backs)
    for entry, placed, _ in backs:
        front = by_number[entry["front_page"]]
        assert [s["component"] for s in entry["slots"]] == [s["component"] for s in front["slots"]]
        assert [p.label for p in placed] == [f"{s['component']} back" for s in entry["slots"]]


def test_gutterfold_sheets_are_shared_without_mixing_sizes_or_stock(tmp_path):
    project = make_project(tmp_path / "p", ["reverse-wizard"])
    _build(project, "reverse-wizard", "--players", "3", "--paper", "letter", "--duplex", "gutterfold")
    manifest = json.loads((project / "build/reverse-wizard/reverse-wizard-3p-letter-gutterfold-zh-Hans.json").read_text())
    decks = {c["id"]: c for c in manifest["components"] if c["kind"] == "deck"}
    pdf = pikepdf.open(project / "build/reverse-wizard" / manifest["file"])
    mixed = 0
    for entry, placed, _ in card_pages(pdf, manifest, roles=("cards-fold", "cards")):
        sizes = {tuple(decks[s["component"]]["trim_mm"]) for s in entry["slots"]}
        runs = {decks[s["component"]]["run"] for s in entry["slots"]}
        assert len(sizes) == 1 and len(runs) == 1, entry["number"]
        mixed += len(entry["components"]) > 1
        if entry["role"] == "cards-fold":
            labels = [p.label for p in placed]
            assert labels[1::2] == [f"{s['component']} back" for s in entry["slots"] if s["side"] == "back"]
    assert mixed >= 1
