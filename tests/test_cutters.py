"""Cutting machines: registration marks, the cutting area and cut files that follow every trim.

Everything is read back: trims from the PDF's placed cards (/PnpTrim), marks from the strokes and
fills on the page, cut paths from the SVG and DXF files beside the pack.
"""
from __future__ import annotations

import io
import json
import re
import subprocess

import ezdxf
import pikepdf
import pytest

from generator.check.pdfread import walk
from generator.geometry import Rect
from tests.conftest import built, make_project, pnp, seed_store

TOL = 0.01


def _build(project, game, *args) -> None:
    result = pnp(project, "build", game, *args)
    assert result.exit_code == 0, result.output


def _svg_cuts(text: str) -> list[tuple[Rect, float]]:
    cut = text.split('<g id="cut"')[1]
    found = []
    for m in re.finditer(r'<rect x="([-\d.]+)" y="([-\d.]+)" width="([\d.]+)" height="([\d.]+)"(?: rx="([\d.]+)")?', cut):
        found.append((Rect(*(float(m.group(i)) for i in range(1, 5))), float(m.group(5) or 0)))
    return found


def _svg_marks(text: str) -> tuple[list[tuple], list[Rect]]:
    marks = text.split('<g id="registration"')[1].split("</g>")[0]
    lines = [tuple(float(v) for v in m.groups()) for m in
             re.finditer(r'<line x1="([-\d.]+)" y1="([-\d.]+)" x2="([-\d.]+)" y2="([-\d.]+)"', marks)]
    boxes = [Rect(*(float(v) for v in m.groups())) for m in
             re.finditer(r'<rect x="([-\d.]+)" y="([-\d.]+)" width="([\d.]+)" height="([\d.]+)"', marks)]
    return lines, boxes


def _close(a: Rect, b: Rect, tol: float = TOL) -> bool:
    return all(abs(x - y) <= tol for x, y in zip((a.x, a.y, a.w, a.h), (b.x, b.y, b.w, b.h)))


def _inside(inner: Rect, outer: Rect) -> bool:
    return (inner.x >= outer.x - TOL and inner.y >= outer.y - TOL and inner.x + inner.w <= outer.x + outer.w + TOL
            and inner.y + inner.h <= outer.y + outer.h + TOL)


def _check_pack(folder, name: str, radius: float) -> int:
    manifest = json.loads((folder / f"{name}.json").read_text())
    pdf = pikepdf.open(folder / f"{name}.pdf")
    sheets = [e for e in manifest["pages"] if "registration" in e and "slots" in e]
    assert sheets, "no cutter sheet"
    for entry in sheets:
        boxes: list[Rect] = []
        placed, segments = walk(pdf.pages[entry["number"] - 1], boxes)
        page = pdf.pages[entry["number"] - 1]
        pw, ph = (float(v) * 25.4 / 72 for v in page.mediabox[2:])
        svg = (folder / f"{name}-cut" / f"page-{entry['number']:02d}.svg").read_text()
        assert f'viewBox="0 0 {pw:g} {ph:g}"'.replace(".0 ", " ") in svg or f"{pw:.1f}" in svg
        cuts = _svg_cuts(svg)
        # one cut path per printed card, equal to the trim read back from the PDF
        assert len(cuts) == len(placed) == len(entry["slots"])
        for (cut, rx), item in zip(cuts, placed):
            assert _close(cut, item.trim), (cut, item.trim)
            assert abs(rx - radius) <= TOL
        # the marks in the SVG are the marks printed on the page, in the same frame
        lines, mark_boxes = _svg_marks(svg)
        printed = [(s.x1, s.y1, s.x2, s.y2) for s in segments]
        for line in lines:
            assert any(all(abs(a - b) <= TOL for a, b in zip(line, p)) for p in printed), line
        assert len(mark_boxes) == len(boxes) and all(_close(a, b) for a, b in zip(mark_boxes, boxes))
        # marks on the paper, clear of every card; every card (bleed included) inside the cutting area
        area = Rect(*entry["cut_area"])
        paper = Rect(0, 0, pw, ph)
        for x1, y1, x2, y2 in lines:
            assert _inside(Rect(min(x1, x2), min(y1, y2), abs(x2 - x1), abs(y2 - y1)), paper)
        for box in boxes:
            assert _inside(box, paper) and not _inside(box, area)
        for item in placed:
            assert _inside(item.clip or item.rect, area)
        # the DXF holds the same outlines (y up from the page's bottom edge)
        doc = ezdxf.read(io.StringIO((folder / f"{name}-cut" / f"page-{entry['number']:02d}.dxf").read_text()))
        polylines = [e for e in doc.modelspace() if e.dxftype() == "LWPOLYLINE" and e.dxf.layer == "CUT"]
        assert len(polylines) == len(cuts)
        for poly, (cut, _) in zip(polylines, cuts):
            xs = [p[0] for p in poly.get_points("xy")]
            ys = [p[1] for p in poly.get_points("xy")]
            assert abs(min(xs) - cut.x) <= TOL and abs(max(xs) - (cut.x + cut.w)) <= TOL
            assert abs(min(ys) - (ph - cut.y - cut.h)) <= TOL and abs(max(ys) - (ph - cut.y)) <= TOL
            assert poly.closed and (any(abs(b) > 0 for *_, b in poly.get_points("xyb")) == (radius > 0))
    return len(sheets)


def _svg_circles(text: str) -> list[tuple[float, float, float]]:
    cut = text.split('<g id="cut"')[1]
    return [tuple(float(v) for v in m.groups())
            for m in re.finditer(r'<circle cx="([-\d.]+)" cy="([-\d.]+)" r="([\d.]+)"', cut)]


def _check_piece_sheets(folder, name: str) -> int:
    """Tokens and small boards on cutter sheets: each piece inside the cutting area at its own size,
    one cut path per piece in the SVG and the DXF (a circle for a round one), the sheet's marks printed."""
    manifest = json.loads((folder / f"{name}.json").read_text())
    pdf = pikepdf.open(folder / f"{name}.pdf")
    pieces = {c["id"]: c for c in manifest["components"] if c["kind"] == "piece"}
    sheets = [e for e in manifest["pages"] if "registration" in e and "pieces" in e]
    for entry in sheets:
        boxes: list[Rect] = []
        _, segments = walk(pdf.pages[entry["number"] - 1], boxes)
        area, ph = Rect(*entry["cut_area"]), entry["size"][1]
        svg = (folder / f"{name}-cut" / f"page-{entry['number']:02d}.svg").read_text()
        rects, circles = _svg_cuts(svg), _svg_circles(svg)
        assert len(rects) + len(circles) == len(entry["pieces"])
        round_ = [p for p in entry["pieces"] if pieces[p["piece"]]["shape"] == "circle"]
        square = [p for p in entry["pieces"] if pieces[p["piece"]]["shape"] != "circle"]
        for placed, (cut, rx) in zip(square, rects):
            trim = Rect(*placed["trim"])
            assert _close(cut, trim) and rx == 0 and _inside(trim, area)
            assert [round(v, 2) for v in (trim.w, trim.h)] == [round(v, 2) for v in pieces[placed["piece"]]["size_mm"]]
        for placed, (cx, cy, r) in zip(round_, circles):
            x, y, w, h = placed["trim"]
            assert abs(cx - (x + w / 2)) <= TOL and abs(cy - (y + h / 2)) <= TOL and abs(r - min(w, h) / 2) <= TOL
            assert _inside(Rect(x, y, w, h), area)
        lines, mark_boxes = _svg_marks(svg)
        printed = [(s.x1, s.y1, s.x2, s.y2) for s in segments]
        assert lines and all(any(all(abs(a - b) <= TOL for a, b in zip(line, p)) for p in printed) for line in lines)
        assert all(any(_close(a, b) for b in boxes) for a in mark_boxes)
        doc = ezdxf.read(io.StringIO((folder / f"{name}-cut" / f"page-{entry['number']:02d}.dxf").read_text()))
        dxf_circles = [e for e in doc.modelspace() if e.dxftype() == "CIRCLE" and e.dxf.layer == "CUT"]
        assert [(round(c.dxf.center.x, 2), round(ph - c.dxf.center.y, 2), round(c.dxf.radius, 2)) for c in dxf_circles] \
            == [(round(cx, 2), round(cy, 2), round(r, 2)) for cx, cy, r in circles]
    return len(sheets)


def test_tokens_go_on_cutter_sheets_with_their_outlines_to_cut(cephiro_cutters):
    project = cephiro_cutters
    _build(project, "cephiro-pillar", "--players", "2", "--paper", "a4", "--cutter", "silhouette")
    name = "cephiro-pillar-2p-a4-silhouette-zh-Hans"
    assert _check_piece_sheets(project / "build/cephiro-pillar", name) >= 1
    manifest = json.loads((project / f"build/cephiro-pillar/{name}.json").read_text())
    cut = {p["piece"] for e in manifest["pages"] if "cuts" in e for p in e["pieces"]}
    area = Rect(*next(e for e in manifest["pages"] if "cuts" in e)["cut_area"])
    for c in (c for c in manifest["components"] if c["kind"] == "piece"):
        w, h = c["size_mm"]
        assert (c["id"] in cut) == (w <= area.w and h <= area.h), c["id"]   # what fits the machine goes on it
    assert {"host-marker", "mana-token"} <= cut
    # page 1 tells the machine's way to cut, not the crop marks' (a cutter sheet has none)
    first = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(project / f"build/cephiro-pillar/{name}.pdf"), "-"],
                           capture_output=True, text=True, check=True).stdout.replace("\n", "")
    assert "定位标记" in first and "配件页" in first and "页边的短黑线" not in first


@pytest.fixture(scope="module")
def cephiro_cutters(tmp_path_factory):
    """One project for every cutter × paper: the faces, boards and rulebook pages from the session's
    build of the game (a cutter lays out sheets, it draws no face), the sheets differ."""
    project = make_project(tmp_path_factory.mktemp("cut") / "p", ["cephiro-pillar"])
    seed_store(project, [built(tmp_path_factory, "cephiro-pillar")])
    return project


@pytest.mark.parametrize("cutter", ["silhouette", "cricut"])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_cut_files_follow_the_printed_trims(cephiro_cutters, cutter, paper):
    project = cephiro_cutters
    _build(project, "cephiro-pillar", "--players", "2", "--paper", paper, "--cutter", cutter)
    folder = project / "build/cephiro-pillar"
    assert _check_pack(folder, f"cephiro-pillar-2p-{paper}-{cutter}-zh-Hans", 0.0) >= 5


def test_cut_files_are_reproducible(cephiro_cutters):
    project, name = cephiro_cutters, "cephiro-pillar-2p-a4-silhouette-zh-Hans"
    folder = project / "build/cephiro-pillar"
    _build(project, "cephiro-pillar", "--players", "2", "--paper", "a4", "--cutter", "silhouette")
    before = {p.name: p.read_bytes() for p in (folder / f"{name}-cut").iterdir()}
    (folder / ".stamp.json").unlink()
    _build(project, "cephiro-pillar", "--players", "2", "--paper", "a4", "--cutter", "silhouette")
    assert {p.name: p.read_bytes() for p in (folder / f"{name}-cut").iterdir()} == before


def test_rounded_corners_reach_the_cut_files(tmp_path, cephiro_built):
    project = make_project(tmp_path / "p", ["cephiro-pillar"])
    seed_store(project, [cephiro_built])        # its boards and pages from the session's build (faces with corners: drawn)
    game = project / "cards/cephiro-pillar/game.yaml"
    game.write_text(re.sub(r"(\ncard:\n)", r"\1  corner_radius: 3\n", game.read_text(), count=1))
    assert "corner_radius: 3" in game.read_text()
    _build(project, "cephiro-pillar", "--players", "2", "--paper", "letter", "--cutter", "cricut")
    folder = project / "build/cephiro-pillar"
    assert _check_pack(folder, "cephiro-pillar-2p-letter-cricut-zh-Hans", 3.0) >= 5
    manifest = json.loads((folder / "cephiro-pillar-2p-letter-cricut-zh-Hans.json").read_text())
    radii = {c["id"]: c["corner_radius_mm"] for c in manifest["components"] if c["kind"] == "deck"}
    assert radii == {"power": 3.0, "trials": 3.0, "oaths": 3.0, "reference": 3.0}


def test_a_cutter_sheet_cannot_be_gutter_folded(tmp_path):
    project = make_project(tmp_path / "p", ["cephiro-pillar"])
    result = pnp(project, "build", "cephiro-pillar", "--players", "2", "--cutter", "cricut", "--duplex", "gutterfold")
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == ("--cutter: a cutter sheet cannot be folded: use --duplex long, "
                                                      "short or none with --cutter")
    assert not (project / "build").exists() or not list((project / "build").rglob("*.pdf"))
