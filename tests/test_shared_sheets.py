"""Shared sheets: decks of one card size and stock fill each other's free slots, each slot with its own back."""
from __future__ import annotations

import json
import shutil
from collections import Counter, defaultdict

import pikepdf

from generator.geometry import Rect, back_placement
from tests.conftest import ROOT, make_project, pnp, seed_store
from tests.pdfcheck import card_pages


def _fronts(manifest):
    return [e for e in manifest["pages"] if e["role"] in ("cards-front", "cards", "cards-fold")]


def _cards(manifest):
    return Counter(s["card"] for e in _fronts(manifest) for s in e["slots"] if s["side"] == "front")


def _build(project, game, *args):
    result = pnp(project, "build", game, *args)
    assert result.exit_code == 0, result.output


def test_decks_share_sheets_and_keep_their_backs(tmp_path, cephiro_built):
    project = make_project(tmp_path / "p", ["cephiro-pillar"])
    seed_store(project, [cephiro_built])        # faces, boards and pages from the session's build: this lays out sheets
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


def test_gutterfold_sheets_are_shared_without_mixing_sizes_or_stock(tmp_path, wizard_built):
    project = make_project(tmp_path / "p", ["reverse-wizard"])
    seed_store(project, [wizard_built])         # faces, boards and pages from the session's build: this lays out sheets
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


def test_decks_of_other_sizes_share_a_sheet_in_strips_a_trimmer_cuts(tmp_path):
    """The fixture's eight decks of eight card sizes (10 cards each, one stock): a deck's last sheet takes
    the next deck's cards in strips below its own. Read back from the PDF: every size on a sheet keeps to a
    band of its own, a cut across the sheet between two bands touches no card nor its bleed, and every back
    lies behind its own front."""
    project = tmp_path / "sizes"
    shutil.copytree(ROOT / "tests/fixtures/sizes", project)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / shared)
    _build(project, "sizes", "--paper", "a4")
    _build(project, "sizes", "--paper", "a4", "--sheets", "per-deck")
    folder = project / "build/sizes"
    shared = json.loads((folder / "sizes-1p-a4.json").read_text())
    alone = json.loads((folder / "sizes-1p-a4-per-deck.json").read_text())
    assert _cards(shared) == _cards(alone)
    assert len(_fronts(shared)) < len(_fronts(alone))
    pdf = pikepdf.open(folder / shared["file"])
    by_number = {e["number"]: e for e in shared["pages"]}
    mixed = 0
    for entry, placed, marks in card_pages(pdf, shared, roles=("cards-front",)):
        bands = defaultdict(list)                       # card size -> the bleed boxes of its cards
        for slot, item in zip(entry["slots"], placed):
            assert [round(v, 2) for v in item.trim.as_list()] == [round(v, 2) for v in slot["trim"]]
            bands[(round(item.trim.w, 1), round(item.trim.h, 1))].append(item.clip)
        mixed += len(bands) > 1
        spans = sorted((min(c.y for c in clips), max(c.y + c.h for c in clips)) for clips in bands.values())
        for (_, bottom), (top, _) in zip(spans, spans[1:]):
            assert bottom < top, entry["number"]                 # a clear cut line between two strips
            middle = (bottom + top) / 2
            # the cut across is marked in the margins, and no strip's crop mark reaches past it
            assert any(abs(m.y1 - middle) < 0.01 and abs(m.y2 - middle) < 0.01 for m in marks), entry["number"]
            for m in marks:
                if m.x1 == m.x2 and bottom < max(m.y1, m.y2) and min(m.y1, m.y2) < top:
                    assert max(m.y1, m.y2) < middle or min(m.y1, m.y2) > middle, (entry["number"], m)
    assert mixed >= 2
    for manifest in (shared, alone):
        _no_card_without_bleed(pikepdf.open(folder / manifest["file"]), manifest)
    for entry, placed, _ in card_pages(pdf, shared, roles=("cards-back",)):
        front = by_number[entry["front_page"]]
        for slot, back in zip(front["slots"], placed):          # a long-edge flip of a portrait or landscape sheet
            expected, _ = back_placement(Rect(*slot["trim"]), tuple(front["size"]), "long")
            assert all(abs(a - b) < 0.01 for a, b in zip(back.trim.as_list(), expected.as_list()))


def _no_card_without_bleed(pdf, manifest) -> None:
    """Read from the PDF: a card side that no other card borders prints as much bleed as the sheet keeps
    at the paper's edge (cards butted on a full grid share the cut line; one beside an empty slot must
    not stop at it)."""
    checked = 0
    for entry, placed, _ in card_pages(pdf, manifest, roles=("cards-front", "cards-back")):
        sides = [(item, side, bleed) for item in placed for side, bleed in _bleeds(item)
                 if not any(_borders(item.trim, other.trim, side) for other in placed if other is not item)]
        edge = {axis: min([b for i, s, b in sides if s in names and _outermost(i, s, placed)] or [0.0])
                for axis, names in (("x", ("left", "right")), ("y", ("top", "bottom")))}
        for item, side, bleed in sides:
            floor = edge["x" if side in ("left", "right") else "y"]
            checked += 1
            assert bleed >= min(floor, 3.0) - 0.01, (entry["number"], item.label, side, round(bleed, 2), floor)
    assert checked


def _bleeds(item):
    t, c = item.trim, item.clip
    return (("left", t.x - c.x), ("right", c.x + c.w - t.x - t.w), ("top", t.y - c.y),
            ("bottom", c.y + c.h - t.y - t.h))


def _outermost(item, side, placed) -> bool:
    """The card reaches the sheet's edge of cards on this side (its bleed faces the paper's margin)."""
    edge = {"left": lambda p: p.trim.x, "top": lambda p: p.trim.y,
            "right": lambda p: -(p.trim.x + p.trim.w), "bottom": lambda p: -(p.trim.y + p.trim.h)}[side]
    return abs(edge(item) - min(edge(p) for p in placed)) < 0.01


def _borders(a, b, side) -> bool:
    if side in ("left", "right"):
        overlap = b.y < a.y + a.h - 0.01 and a.y < b.y + b.h - 0.01
        gap = a.x - (b.x + b.w) if side == "left" else b.x - (a.x + a.w)
    else:
        overlap = b.x < a.x + a.w - 0.01 and a.x < b.x + b.w - 0.01
        gap = a.y - (b.y + b.h) if side == "top" else b.y - (a.y + a.h)
    return overlap and -0.01 <= gap < min(a.w, a.h)       # a neighbour: they share the gutter between them
