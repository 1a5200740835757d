"""Print fidelity: preflight on every pack and duplex mode, each preflight check against a PDF
broken on purpose, card sizes, tiled boards, back offset and calibration, ink saver."""
from __future__ import annotations

import json
import shutil
import tomllib
import subprocess
from pathlib import Path

import pikepdf
import pytest

from generator.geometry import Rect, back_placement, card_grid
from generator.check.pdfread import walk
from generator.source.schema import CARD_SIZES
from tests.conftest import GAMES, ROOT, built, make_project, pnp, seed_store
from tests.pdfcheck import card_pages, page_text

MODES = ["short", "none", "gutterfold"]
# Each mode is built on one paper: a mode places a paper's grid of sheets the same way on either
# (both papers' grids are proved by the default mode's session builds and by the card-size tests).
MODE_PAPER = {"short": "a4", "none": "letter", "gutterfold": "letter"}
PAPER_MM = {"a4": [210.0, 297.0], "letter": [215.9, 279.4]}


@pytest.fixture(scope="module")
def every_mode(tmp_path_factory):
    """All shipped games, every pack, built in the three non-default duplex modes (each on its paper,
    MODE_PAPER), in the games' source language (a mode places sheets; the English editions' text
    does not change where).
    (The default, long edge, is built in every language by the session fixtures, whose store of
    faces, boards and rulebook pages this project starts from: a mode imposes them, it does not draw
    them.) Each build preflights itself."""
    project = make_project(tmp_path_factory.mktemp("modes"))
    seed_store(project, [built(tmp_path_factory, game) for game in GAMES])
    outputs = {}
    for mode in MODES:
        outputs[mode] = ""
        for game in GAMES:      # one game at a time: a build of every game reports one line per game
            result = pnp(project, "build", game, "--duplex", mode, "--paper", MODE_PAPER[mode])
            assert result.exit_code == 0, result.output
            outputs[mode] += result.output
    return project, outputs


@pytest.mark.parametrize("mode", MODES)
def test_every_pack_passes_preflight_in_every_mode(every_mode, mode):
    project, outputs = every_mode
    written = [l for l in outputs[mode].splitlines() if l.startswith("wrote ")]
    packs = [l for l in written if "-rules-" not in l]           # the standalone rulebooks are written too
    assert len(packs) == sum(len(_packs(g)) for g in GAMES)
    assert all(l.endswith("preflight ok)") for l in written)
    pdfs = sorted(project.glob(f"build/*/*-{mode}-*.pdf"))     # <pack>-<paper>-<mode>-<language>.pdf
    assert len(pdfs) == len(packs)
    # Each pack was preflighted by the build that wrote it (its "preflight ok" above); the standalone
    # command is run on one real pack of each game in this mode (the largest: most sheets to check).
    for game in GAMES:
        pdf = max((p for p in pdfs if p.parent.name == game), key=lambda p: p.stat().st_size)
        result = pnp(project, "preflight", str(pdf))
        assert result.exit_code == 0 and result.output.strip().endswith("— ok"), result.output


def _packs(game):
    from generator.source.load import load_game
    from generator.source.project import Project
    return [p.key for p in load_game(Project.at(ROOT), game).packs]


def test_short_edge_backs_are_turned(every_mode):
    project, _ = every_mode
    manifest = json.loads((project / "build/cephiro-pillar/cephiro-pillar-4p-a4-short-zh-Hans.json").read_text())
    pdf = pikepdf.open(project / "build/cephiro-pillar/cephiro-pillar-4p-a4-short-zh-Hans.pdf")
    pages = {e["number"]: (e, p) for e, p, _ in card_pages(pdf, manifest)}
    backs = [n for n, (e, _) in pages.items() if e["role"] == "cards-back"]
    assert backs
    for number in backs:
        entry, placed = pages[number]
        _, front_placed = pages[entry["front_page"]]
        for f, b in zip(front_placed, placed):
            assert b.rotation == 180
            assert abs(b.trim.x - f.trim.x) < 0.01 and abs(b.trim.y - (297 - f.trim.y - f.trim.h)) < 0.01


def test_no_duplex_puts_every_back_after_every_front(every_mode):
    project, _ = every_mode
    manifest = json.loads((project / "build/reverse-wizard/reverse-wizard-4p-letter-none-zh-Hans.json").read_text())
    roles = [e["role"] for e in manifest["pages"]]
    last_front = max(i for i, r in enumerate(roles) if r == "cards-front")
    first_back = min(i for i, r in enumerate(roles) if r in ("cards-back", "board-back"))
    assert last_front < first_back and roles[-1] in ("cards-back", "board-back")
    runs = {r["run"]: r["pages"] for r in manifest["runs"]}
    assert runs["backs"][1] == len(roles) and runs["fronts"][0] == runs["rules"][1] + 1     # after page 1 and the rulebook
    fronts = [e["number"] for e in manifest["pages"] if e["role"] == "cards-front"]
    backs = [e["front_page"] for e in manifest["pages"] if e["role"] == "cards-back"]
    assert backs == fronts      # back n is printed behind front n


def test_gutterfold_backs_mirror_across_a_clear_fold(every_mode):
    project, _ = every_mode
    manifest = json.loads((project / "build/seven-nights/seven-nights-6p-letter-gutterfold-zh-Hans.json").read_text())
    pdf = pikepdf.open(project / "build/seven-nights/seven-nights-6p-letter-gutterfold-zh-Hans.pdf")
    folds = [e for e in manifest["pages"] if e["role"] == "cards-fold"]
    assert folds and not [e for e in manifest["pages"] if e["role"] in ("cards-back", "cards-front")]
    for entry in folds:
        fold = entry["fold_x"]
        placed, segments = walk(pdf.pages[entry["number"] - 1])
        for front, back in zip(placed[0::2], placed[1::2]):
            assert abs(back.trim.x - (2 * fold - front.trim.x - front.trim.w)) < 0.01
            for item in (front, back):       # the fold keeps 5 mm from every bleed
                assert item.clip.x + item.clip.w <= fold - 5 + 0.01 or item.clip.x >= fold + 5 - 0.01
        assert any(abs(s.x1 - fold) < 0.01 and abs(s.x2 - fold) < 0.01 for s in segments)   # the fold line


# --- each preflight check, against a PDF broken on purpose ----------------------------------

@pytest.fixture
def pack_copy(cephiro_built, tmp_path):
    """A writable copy of a built pack and its manifest."""
    for ext in ("pdf", "json"):
        shutil.copy(cephiro_built.folder / f"cephiro-pillar-3p-a4-zh-Hans.{ext}", tmp_path / f"pack.{ext}")
    return tmp_path / "pack.pdf"


def _break(path: Path, change) -> None:
    pdf = pikepdf.open(path, allow_overwriting_input=True)
    manifest = json.loads(path.with_suffix(".json").read_text())
    change(pdf, manifest)
    pdf.save(path)


def _preflight(cephiro, path: Path):
    result = pnp(cephiro, "preflight", str(path))
    assert result.exit_code == 1, result.output
    return result.output


def _rewrite(page: pikepdf.Page, old: bytes, new: bytes, count: int = 1) -> None:
    streams = page.Contents if isinstance(page.Contents, pikepdf.Array) else [page.Contents]
    for stream in streams:
        data = stream.read_bytes()
        if old in data:
            stream.write(data.replace(old, new, count))
            return
    raise AssertionError(f"{old!r} not in the page")


def _first_card(manifest, role="cards-front"):
    return next(e for e in manifest["pages"] if e["role"] == role)


def _first_page(path: Path, role="cards-front") -> int:
    """The page number preflight names for the first card sheet of ``role``, read from the manifest."""
    return _first_card(json.loads(path.with_suffix(".json").read_text()), role)["number"]


def test_preflight_finds_a_card_of_the_wrong_size(cephiro, pack_copy):
    def change(pdf, manifest):
        entry = _first_card(manifest)
        _rewrite(pdf.pages[entry["number"] - 1], b" cm /P0 Do", b" cm 1.002 0 0 1.002 0 0 cm /P0 Do")
    _break(pack_copy, change)
    out = _preflight(cephiro, pack_copy)
    page = _first_page(pack_copy)
    assert f"page {page}, card power/red-1 (copy 1, front): trim 63.13 × 88.18 mm, declared 63 × 88 mm" in out


def test_preflight_finds_a_back_off_its_mirror(cephiro, pack_copy):
    def change(pdf, manifest):
        entry = _first_card(manifest, "cards-back")
        _rewrite(pdf.pages[entry["number"] - 1], b" cm /P0 Do", b" cm 1 0 0 1 2.835 0 cm /P0 Do")
    _break(pack_copy, change)
    out = _preflight(cephiro, pack_copy)
    page = _first_page(pack_copy, "cards-back")
    assert f"page {page}, card power/red-1 (copy 1, back): at (137.50" in out and "the long-edge mirror of its front is" \
        in out


def test_preflight_finds_a_crop_mark_on_a_card(cephiro, pack_copy):
    def change(pdf, manifest):
        entry = _first_card(manifest)
        stream = pikepdf.Stream(pdf, b"q 0.3 w 0 0 0 RG 60 700 m 120 700 l S Q")
        page = pdf.pages[entry["number"] - 1]
        page.Contents = pikepdf.Array([page.Contents, stream]) if not isinstance(page.Contents, pikepdf.Array) \
            else page.Contents + [stream]
    _break(pack_copy, change)
    out = _preflight(cephiro, pack_copy)
    page = _first_page(pack_copy)
    assert f"page {page}, card power/red-1 (copy 1, front): a crop mark enters its trim area" in out


def test_preflight_finds_a_font_that_is_not_embedded(cephiro, pack_copy):
    def change(pdf, manifest):
        for obj in pdf.objects:
            if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == "/FontDescriptor" and "/FontFile2" in obj:
                del obj["/FontFile2"]
                return
    _break(pack_copy, change)
    assert "is not embedded" in _preflight(cephiro, pack_copy)


def test_preflight_finds_a_glyph_the_font_does_not_have(cephiro, pack_copy):
    def change(pdf, manifest):
        for obj in pdf.objects:
            if isinstance(obj, pikepdf.Stream) and obj.get("/Subtype") == "/Form" and "/PnpId" in obj:
                data = obj.read_bytes()
                start = data.index(b"<", data.index(b"BT"))
                obj.write(data[:start] + b"<FFF0>" + data[data.index(b">", start) + 1:])
                return
    _break(pack_copy, change)
    assert "glyphs drawn that the font does not have (ids 65520)" in _preflight(cephiro, pack_copy)


def test_preflight_finds_a_low_resolution_image(cephiro, pack_copy):
    def change(pdf, manifest):
        entry = next(e for e in manifest["pages"] if e["role"] == "board")
        page = pdf.pages[entry["number"] - 1]
        image = pikepdf.Stream(pdf, bytes([200]) * (40 * 40 * 3), Type=pikepdf.Name.XObject,
                               Subtype=pikepdf.Name.Image, Width=40, Height=40, ColorSpace=pikepdf.Name.DeviceRGB,
                               BitsPerComponent=8)
        page.Resources.XObject = page.Resources.get("/XObject", pikepdf.Dictionary())
        page.Resources.XObject.Lowres = image
        stream = pikepdf.Stream(pdf, b"q 85.04 0 0 85.04 100 100 cm /Lowres Do Q")
        page.Contents = pikepdf.Array([page.Contents, stream])
    _break(pack_copy, change)
    out = _preflight(cephiro, pack_copy)
    assert "image 40 × 40 px printed 30.0 × 30.0 mm = 34 dpi (needs 300)" in out


def test_preflight_finds_a_single_board_without_trim_box(cephiro, pack_copy):
    def change(pdf, manifest):
        entry = next(e for e in manifest["pages"] if e.get("components") == ["trial-map"])
        del pdf.pages[entry["number"] - 1].obj["/TrimBox"]
    _break(pack_copy, change)
    assert "trial-map: a single board without TrimBox" in _preflight(cephiro, pack_copy)


def test_good_pack_passes_with_a_report(cephiro, pack_copy):
    result = pnp(cephiro, "preflight", str(pack_copy))
    assert result.exit_code == 0
    assert "25 pages, 64 cards" in result.output and "fonts embedded, 0 images — ok" in result.output


# --- card sizes -------------------------------------------------------------------------------

@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_every_card_size_preset_lays_out_and_passes_preflight(tmp_path, paper):
    project = tmp_path / "sizes"
    shutil.copytree(ROOT / "tests/fixtures/sizes", project)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / shared)
    result = pnp(project, "build", "sizes", "--paper", paper, "--sheets", "per-deck")     # each size on its own grid
    assert result.exit_code == 0, result.output
    manifest = json.loads((project / f"build/sizes/sizes-1p-{paper}-per-deck.json").read_text())
    for name, (w, h) in list(CARD_SIZES.items()) + [("custom", (80, 50))]:
        component = next(c for c in manifest["components"] if c["id"] == name)
        assert component["trim_mm"] == [w, h]
        grid = card_grid(paper, (w, h), 3)
        fronts = [e for e in manifest["pages"] if name in e.get("components", []) and e["role"] == "cards-front"]
        assert len(fronts) == -(-10 // grid.per_sheet)
        assert sorted(fronts[0]["size"]) == sorted(PAPER_MM[paper])
        for slot in fronts[0]["slots"]:
            x, y, sw, sh = slot["trim"]
            pw, ph = fronts[0]["size"]
            assert x >= 5 and y >= 5 and x + sw <= pw - 5 and y + sh <= ph - 5


def test_a_card_too_large_for_the_paper_is_a_clear_error(tmp_path):
    project = tmp_path / "sizes"
    shutil.copytree(ROOT / "tests/fixtures/sizes", project)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / shared)
    path = project / "cards/sizes/custom.yaml"
    path.write_text(path.read_text().replace("{width: 80, height: 50}", "{width: 250, height: 300}"))
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "size:" in text)
    for command in (("validate", "sizes"), ("build", "sizes", "--paper", "a4")):     # found before any face renders
        result = pnp(project, *command)
        assert result.exit_code == 1
        assert f"cards/sizes/custom.yaml:{line}: cards of 250 × 300 mm do not fit on a4 with 5 mm margins" \
            in result.output
        assert "rendered" not in result.output


def test_a_card_that_fits_one_paper_only_is_said_at_its_size_line(tmp_path):
    """63 × 276 mm cards fit A4 (287 mm inside the margins) but not Letter: validate, which makes both,
    says so at the deck's size line; a build on A4 is fine."""
    project = tmp_path / "sizes"
    shutil.copytree(ROOT / "tests/fixtures/sizes", project)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / shared)
    path = project / "cards/sizes/custom.yaml"
    path.write_text(path.read_text().replace("{width: 80, height: 50}", "{width: 63, height: 276}"))
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if "size:" in text)
    result = pnp(project, "validate", "sizes")
    assert result.exit_code == 1
    assert f"cards/sizes/custom.yaml:{line}: cards of 63 × 276 mm do not fit on letter with 5 mm margins" \
        in result.output, result.output
    assert pnp(project, "build", "sizes", "--paper", "a4").exit_code == 0


# --- boards larger than a sheet -----------------------------------------------------------

def test_time_wheel_is_tiled_with_overlap_and_numbers(wizard_built):
    manifest = wizard_built.manifest(4, "a4")
    tiles = [e for e in manifest["pages"] if e["role"] == "board-tile"]
    assert len(tiles) == 4
    areas = [e["pieces"][0]["tile"]["area"] for e in tiles]
    assert areas[0][0] == 0 and abs(areas[1][0] - (areas[0][2] - 10)) < 0.01      # 10 mm overlap
    assert abs(areas[1][0] + areas[1][2] - 320) < 0.01 and abs(areas[2][1] + areas[2][3] - 320) < 0.01
    path = wizard_built.folder / manifest["file"]
    for n, entry in enumerate(tiles, 1):
        assert f"拼接块 {n} / 4" in page_text(path, entry["number"])


# --- back offset and calibration ------------------------------------------------------------

def test_back_offset_shifts_every_back_and_still_passes(cephiro, cephiro_built):
    seed_store(cephiro, [cephiro_built])        # its faces and boards from the session's build
    result = pnp(cephiro, "build", "cephiro-pillar", "--players", "2", "--paper", "a4", "--back-offset", "1.5,-0.5")
    assert result.exit_code == 0, result.output
    manifest = json.loads((cephiro / "build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.json").read_text())
    assert manifest["print"]["back_offset_mm"] == [1.5, -0.5]
    pages = {e["number"]: e for e in manifest["pages"]}
    back = next(e for e in manifest["pages"] if e["role"] == "cards-back")
    front = pages[back["front_page"]]
    fx, fy, fw, fh = front["slots"][0]["trim"]
    bx, by, _, _ = back["slots"][0]["trim"]
    assert abs(bx - (210 - fx - fw + 1.5)) < 0.001 and abs(by - (fy - 0.5)) < 0.001


def test_calibration_sheet_and_saved_printer(cephiro, cephiro_built):
    seed_store(cephiro, [cephiro_built])        # its faces and boards from the session's build
    result = pnp(cephiro, "calibrate", "--paper", "letter", "--lang", "zh-Hans")
    assert result.exit_code == 0
    sheet = pikepdf.open(cephiro / "build/calibration-letter-long.pdf")
    assert len(sheet.pages) == 2
    text = page_text(cephiro / "build/calibration-letter-long.pdf", 1)
    assert "打印机校准" in text and "--offset X,Y" in text.replace(" ", " ")
    result = pnp(cephiro, "calibrate", "--printer", "office", "--offset", "0.8,-1.2")
    assert result.exit_code == 0 and "saved back offset 0.8,-1.2 mm for printer 'office'" in result.output
    saved = tomllib.loads((cephiro / "pnp.toml").read_text())
    assert saved == {"printers": {"office": {"back_offset": [0.8, -1.2], "duplex": "long"}},
                     "print": {"printer": "office"}}
    assert pnp(cephiro, "build", "cephiro-pillar", "--players", "2", "--paper", "letter").exit_code == 0
    manifest = json.loads((cephiro / "build/cephiro-pillar/cephiro-pillar-2p-letter-zh-Hans.json").read_text())
    assert manifest["print"]["back_offset_mm"] == [0.8, -1.2] and manifest["print"]["printer"] == "office"
    result = pnp(cephiro, "build", "cephiro-pillar", "--players", "2", "--printer", "lab")
    assert result.exit_code == 1 and "no printer 'lab' in pnp.toml" in result.output


def test_calibration_scale_reads_the_correction():
    """The printer misplaces the back by e; the cross then shows at a front position whose
    scale label is −e, the offset that cancels it — for both flips and both papers."""
    from generator.sheets.calibrate import correction_per_mm
    for page in ((210.0, 297.0), (215.9, 279.4)):
        for duplex in ("long", "short"):
            (xx, _), (_, yy) = correction_per_mm(page, duplex)
            cx, cy = page[0] / 2, page[1] / 2
            behind, _ = back_placement(Rect(cx, cy, 0, 0), page, duplex)
            for error in ((0.5, 0.0), (0.0, -1.5), (2.0, 1.0)):
                # the front point the misprinted cross lies behind: M(c + s) = M(c) + e
                for sx in (-3, -2.5, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5, 3):
                    for sy in (-3, -2.5, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 2.5, 3):
                        seen, _ = back_placement(Rect(cx + sx, cy + sy, 0, 0), page, duplex)
                        if abs(seen.x - behind.x - error[0]) < 1e-9 and abs(seen.y - behind.y - error[1]) < 1e-9:
                            assert (sx * xx, sy * yy) == (-error[0], -error[1])


# --- ink saver ------------------------------------------------------------------------------

def test_ink_saver_drops_the_fills(cephiro, cephiro_built, tmp_path):
    seed_store(cephiro, [cephiro_built])        # the inked faces from the session's build
    assert pnp(cephiro, "build", "cephiro-pillar", "--players", "2", "--paper", "a4", "--ink-saver").exit_code == 0
    inked = []
    # the same pack printed normally: the session's build of it
    for folder, name in ((cephiro_built.folder, "cephiro-pillar-2p-a4-zh-Hans.pdf"),
                         (cephiro / "build/cephiro-pillar", "cephiro-pillar-2p-a4-inksaver-zh-Hans.pdf")):
        manifest = json.loads((folder / name).with_suffix(".json").read_text())
        sheet = str(next(e["number"] for e in manifest["pages"] if e["role"] == "cards-front"))   # the first card sheet
        subprocess.run(["pdftoppm", "-r", "20", "-gray", "-f", sheet, "-l", sheet,
                        str(folder / name), str(tmp_path / name)], check=True)
        data = next(tmp_path.glob(f"{name}*.pgm")).read_bytes()
        pixels = data.split(b"\n", 3)[3]
        inked.append(sum(1 for v in pixels if v < 200) / len(pixels))
    normal, saver = inked
    assert normal > 0.15 and saver < normal / 4, (normal, saver)
