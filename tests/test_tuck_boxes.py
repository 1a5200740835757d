"""Tuck boxes: sized from the cards they hold, measured back from the printed fold and cut lines."""
from __future__ import annotations

import json

import pikepdf
import pytest

from generator.check.pdfread import walk
from generator.sheets.tuck_boxes import GLUE, PLAY
from tests.conftest import built, make_project, pnp, seed_store

STOCK = 0.32


@pytest.fixture(scope="module")
def boxed(tmp_path_factory):
    project = make_project(tmp_path_factory.mktemp("box") / "p", ["cephiro-pillar"])
    seed_store(project, [built(tmp_path_factory, "cephiro-pillar")])   # faces, boards, pages: the boxes are what is new
    game = project / "cards/cephiro-pillar/game.yaml"
    game.write_text(game.read_text().replace("\npacks:", "\ntuck_boxes:\n  groups: [[power, trials], [oaths]]\npacks:", 1))
    result = pnp(project, "build", "cephiro-pillar", "--players", "4", "--paper", "a4")
    assert result.exit_code == 0, result.output
    folder = project / "build/cephiro-pillar"
    return json.loads((folder / "cephiro-pillar-4p-a4-zh-Hans.json").read_text()), pikepdf.open(folder / "cephiro-pillar-4p-a4-zh-Hans.pdf")


def _lines(page):
    """Vertical and horizontal strokes on the page, in mm from its top-left."""
    _, segments = walk(page)
    vertical = sorted({round(s.x1, 2) for s in segments if abs(s.x1 - s.x2) < 0.01 and abs(s.y1 - s.y2) > 1})
    horizontal = sorted({round(s.y1, 2) for s in segments if abs(s.y1 - s.y2) < 0.01 and abs(s.x1 - s.x2) > 1})
    return vertical, horizontal


def test_each_panel_is_the_card_size_plus_the_decks_thickness(boxed):
    manifest, pdf = boxed
    boxes = [e for e in manifest["pages"] if e["role"] == "tuck-box"]
    # 4 players: 32 power + 8 trials in one box, 36 oaths in the other (63 × 88 mm cards)
    assert [(e["box"]["decks"], e["box"]["cards"]) for e in boxes] == [(["power", "trials"], 40), (["oaths"], 36)]
    for entry in boxes:
        cards = entry["box"]["cards"]
        vertical, horizontal = _lines(pdf.pages[entry["number"] - 1])
        # the net's columns: front | side | back | side | glue, read from the printed lines
        x0 = vertical[0]
        xs = [x - x0 for x in vertical]
        width, depth = 63 + PLAY, cards * STOCK + PLAY
        expected = [0, width, width + depth, 2 * width + depth, 2 * width + 2 * depth, 2 * width + 2 * depth + GLUE]
        for want in expected:
            assert any(abs(x - want) <= 0.1 for x in xs), (want, xs)
        panels = entry["box"]["panels"]
        assert abs(panels["front"][2] - width) <= 0.1 and abs(panels["side-left"][2] - depth) <= 0.1
        assert abs(panels["front"][3] - (88 + PLAY)) <= 0.1
        front_top, front_bottom = panels["front"][1], panels["front"][1] + panels["front"][3]
        for y in (front_top, front_bottom, front_top - depth, front_bottom + depth):
            assert any(abs(h - y) <= 0.1 for h in horizontal), (y, horizontal)
        # the whole net lies on the paper, inside its margins
        w, h = entry["size"]
        assert vertical[0] >= 5 - 0.01 and vertical[-1] <= w - 5 + 0.01
        assert horizontal[0] >= 5 - 0.01 and horizontal[-1] <= h - 5 + 0.01


def test_the_box_shows_the_decks_back_on_its_back_panel(boxed):
    manifest, pdf = boxed
    entry = next(e for e in manifest["pages"] if e["role"] == "tuck-box")
    placed, _ = walk(pdf.pages[entry["number"] - 1])
    assert [p.label for p in placed] == ["power back"]
    x, y, w, h = entry["box"]["panels"]["back"]
    trim = placed[0].trim
    assert abs(trim.x - (x + PLAY / 2)) <= 0.01 and abs(trim.y - (y + PLAY / 2)) <= 0.01
    assert abs(trim.w - 63) <= 0.01 and abs(trim.h - 88) <= 0.01
    contents = next(c for c in manifest["components"] if c["id"] == "box-oaths")
    assert contents["kind"] == "box" and contents["cards"] == 36
