"""The preflight memo (check/checked.py): a rebuild checks in full exactly the pages whose bytes
changed and the rest by their recorded hashes, reports what a full check reports, and still
catches every fault on a changed page; a damaged record is an empty one."""
from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
from pathlib import Path

import pikepdf
import pytest

from generator.check import preflight as preflight_module
from generator.check.checked import Memo
from generator.sheets.pack import memo_context
from generator.source.project import Project
from tests.conftest import ROOT, pnp

GAME = "night-market"
BUILD = ("build", GAME, "--players", "2", "--paper", "a4")
PACK = f"{GAME}-2p-a4"


@pytest.fixture(scope="module")
def built_fixture(tmp_path_factory) -> Path:
    project = tmp_path_factory.mktemp("memo") / "base"
    shutil.copytree(ROOT / "tests/fixtures/docs-game", project)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / shared)
    result = pnp(project, *BUILD)
    assert result.exit_code == 0, result.output
    return project


@pytest.fixture
def project(built_fixture, tmp_path) -> Path:
    """A copy of the built project, its face cache and preflight record included."""
    return Path(shutil.copytree(built_fixture, tmp_path / "project", symlinks=True))


@pytest.fixture
def spy(monkeypatch):
    """Each preflight a build runs, as (memo, report), and how many pages it walked and measured."""
    seen = {"runs": [], "walked": 0, "measured": 0}
    preflight, walk, measure = preflight_module.preflight, preflight_module.walk, preflight_module._safe_text_on_page

    def counted(name, function):
        def call(*args, **kwargs):
            seen[name] += 1
            return function(*args, **kwargs)
        return call

    def spied(pdf_path, manifest_path=None, display=None, memo=None, foreign=False):
        report = preflight(pdf_path, manifest_path, display, memo, foreign)
        seen["runs"].append((memo, report))
        return report

    monkeypatch.setattr(preflight_module, "preflight", spied)
    monkeypatch.setattr(preflight_module, "walk", counted("walked", walk))
    monkeypatch.setattr(preflight_module, "_safe_text_on_page", counted("measured", measure))
    return seen


def pack(project: Path) -> Path:
    return project / "build" / GAME / f"{PACK}.pdf"


def record(project: Path) -> Path:
    return project / "build/.cache/preflight" / GAME / f"{PACK}.json"


def memo(project: Path) -> Memo:
    return Memo.load(record(project), memo_context(Project.at(project)))


def keyed_pages(path: Path) -> list[int]:
    manifest = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    return [e["number"] for e in manifest["pages"] if e["role"].startswith(("cards", "board")) or e["role"] in ("rulebook", "info")]


def drawn(pdf: pikepdf.Pdf, number: int) -> bytes:
    """What a page draws, decoded: its content and every form under it (not how the memo hashes it)."""
    page = pdf.pages[number - 1]
    contents = page.obj.Contents if isinstance(page.obj.Contents, pikepdf.Array) else [page.obj.Contents]
    out = [stream.read_bytes() for stream in contents]

    def forms(resources):
        for name, xobj in sorted(resources.get("/XObject", {}).items()):
            out.append(name.encode())
            if xobj.get("/Subtype") == "/Form":
                out.append(xobj.read_bytes() + b"".join(bytes(xobj.get(k, pikepdf.Array()).unparse())
                                                        for k in ("/BBox", "/Matrix", "/PnpTrim", "/PnpId")))
                forms(xobj.get("/Resources", {}))
    forms(page.Resources)
    return b"\0".join(out)


def full(path: Path, display: str | None = None):
    return preflight_module.preflight(path, display=display)


def touch_input(project: Path, keep_packs: bool = False) -> None:
    """An input changed in no way that reaches the pack, and the edition's stamp set aside: the build
    runs (is not skipped as up to date). Unless `keep_packs`, the store's whole packs are set aside too,
    so that it makes the same pack again (and preflights it) instead of taking it (sheets/pack_store.py)."""
    cards = project / f"cards/{GAME}/goods.yaml"
    cards.write_text(cards.read_text(encoding="utf-8") + "\n# touched\n", encoding="utf-8")
    for stamp in (project / "build" / GAME).glob(".edition-*.json"):
        stamp.unlink()
    if not keep_packs:
        shutil.rmtree(project / "build/.cache/packs", ignore_errors=True)


def edit(path: Path, change) -> None:
    pdf = pikepdf.open(path, allow_overwriting_input=True)
    change(pdf)
    pdf.save(path)


def form_of(pdf: pikepdf.Pdf, card: str) -> pikepdf.Object:
    return next(o for o in pdf.objects if isinstance(o, pikepdf.Stream) and str(o.get("/PnpId", "")) == card)


# --- a rebuild checks what changed ----------------------------------------------------------------

@pytest.mark.parametrize("old, new, boards", [("name: 走马灯,", "name: 走马灯笼,", 1),   # a glyph the pack had not drawn
                                              ("再翻 1 张", "再翻 2 张", 0)])
def test_a_rebuild_checks_in_full_only_the_pages_that_changed(project, spy, old, new, boards):
    """A card's text: its sheet is checked in full, the other pages taken; its name is also printed
    by the score board's goods table, whose page is then checked in full too."""
    before = pikepdf.open(pack(project))
    before_drawn = {n: drawn(before, n) for n in keyed_pages(pack(project))}
    cards = project / f"cards/{GAME}/goods.yaml"
    text = cards.read_text(encoding="utf-8")
    assert old in text
    cards.write_text(text.replace(old, new, 1), encoding="utf-8")
    result = pnp(project, *BUILD)
    assert result.exit_code == 0, result.output
    after = pikepdf.open(pack(project))
    changed = [n for n in keyed_pages(pack(project)) if drawn(after, n) != before_drawn[n]]
    assert len(changed) == 1 + boards       # the card's sheet (its back is the deck's one back), the board
    (used, report), = spy["runs"]
    assert used.checked == len(changed) and used.reused == len(keyed_pages(pack(project))) - len(changed)
    assert spy["walked"] == 1                 # only the changed card sheet is parsed (walked, measured)
    assert spy["measured"] == 1
    assert report.ok and report == full(pack(project), display=report.file)
    assert (report.pages, report.cards, report.fonts) == (9, 15, full(pack(project)).fonts)


def test_a_board_the_rulebook_shows_changes_only_the_rulebook_page_it_is_on(tmp_path, spy):
    """WeasyPrint gives every rulebook page one resource dictionary: a figure listed there was in
    every page's resources, so a board drawn anew changed every rulebook page and preflight checked
    them all again. Now the figure is on its own page only: that page, and the board's own pages,
    are what changed and what is checked in full; every other rulebook page is taken."""
    from tests.test_rebuild_sequences import GAME as SEQUENCE_GAME, _project
    project = _project(tmp_path / "project")
    sections = "".join(f"\n## {n} 第{n}节\n\n" + "夜市的规则写在这里，一行又一行。" * 60 + "\n" for n in range(2, 10))
    rulebook = project / f"cards/{SEQUENCE_GAME}/rulebook/zh-Hans.md"
    rulebook.write_text(rulebook.read_text(encoding="utf-8") + sections, encoding="utf-8")
    build = ("build", SEQUENCE_GAME, "--players", "3", "--paper", "a4", "--lang", "zh-Hans")
    path = project / f"build/{SEQUENCE_GAME}/{SEQUENCE_GAME}-3p-a4-zh-Hans.pdf"
    assert pnp(project, *build).exit_code == 0
    before = pikepdf.open(path)
    before_drawn = {n: drawn(before, n) for n in keyed_pages(path)}
    pieces = project / f"cards/{SEQUENCE_GAME}/pieces.yaml"
    pieces.write_text(pieces.read_text(encoding="utf-8").replace("size: 12", "size: 11", 1), encoding="utf-8")
    spy["runs"].clear()
    result = pnp(project, *build)
    assert result.exit_code == 0, result.output
    manifest = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    rulebook_pages = [e["number"] for e in manifest["pages"] if e["role"] == "rulebook"]
    changed = [n for n in keyed_pages(path) if drawn(pikepdf.open(path), n) != before_drawn[n]]
    assert len(rulebook_pages) >= 4 and len([n for n in changed if n in rulebook_pages]) == 1
    assert any(n not in rulebook_pages for n in changed)         # the board's own page
    (used, report), = [run for run in spy["runs"] if run[1].file.endswith(path.name)]
    assert used.checked == len(changed) and used.reused == len(keyed_pages(path)) - len(changed)
    assert report.ok and report == full(path, display=report.file)


def test_an_unchanged_pack_is_checked_by_its_hashes_alone(project, spy):
    touch_input(project)
    result = pnp(project, *BUILD)
    assert result.exit_code == 0 and "preflight ok" in result.output, result.output
    (used, report), = spy["runs"]
    assert used.checked == 0 and used.reused == len(keyed_pages(pack(project)))
    assert spy["walked"] == spy["measured"] == 0
    assert report == full(pack(project), display=report.file)


def test_an_unchanged_pack_the_store_kept_is_not_checked_again(project, spy):
    before = pack(project).read_bytes()
    touch_input(project, keep_packs=True)
    result = pnp(project, *BUILD)
    assert result.exit_code == 0 and "preflight ok" in result.output, result.output
    assert spy["runs"] == []                # kept when it passed: taken whole, in the same bytes
    assert pack(project).read_bytes() == before


def test_the_record_is_per_written_file_and_the_preflight_command_uses_none(project, spy):
    result = pnp(project, "build", GAME, "--players", "2", "--duplex", "short")
    assert result.exit_code == 0, result.output
    written = {p.stem for p in (project / "build" / GAME).glob("*.pdf")}
    records = {p.stem for p in (project / "build/.cache/preflight" / GAME).glob("*.json")}
    # a4 (the fixture's), a4 short-edge, letter short-edge: a mode asked for is kept beside the project's
    assert len(written) == 3 and records == written
    assert all(m is not None for m, _ in spy["runs"])
    spy["runs"].clear()
    assert pnp(project, "preflight", str(pack(project))).exit_code == 0
    (used, _), = spy["runs"]
    assert used is None


# --- faults on a changed page are caught ----------------------------------------------------------

def test_a_card_moved_by_a_millimetre_is_caught(project):
    def shift(pdf):
        page = pdf.pages[1]
        data = page.Contents.read_bytes()
        assert b" cm /P0 Do" in data
        page.Contents.write(data.replace(b" cm /P0 Do", b" cm 1 0 0 1 2.835 0 cm /P0 Do", 1))
    edit(pack(project), shift)
    used = memo(project)
    report = preflight_module.preflight(pack(project), memo=used)
    assert any(f.startswith("page 2, card goods/lantern (copy 1, front): trim at (") for f in report.findings)
    assert any(f.startswith("page 3, card goods/lantern (copy 1, back): at (") for f in report.findings)
    assert used.checked == 2            # the sheet, and its back (measured against it)
    assert report.findings == full(pack(project)).findings


def test_a_glyph_the_font_lacks_is_caught_in_a_changed_form(project):
    def missing(pdf):
        form = form_of(pdf, "goods/gift")
        data = form.read_bytes()
        start = data.index(b"<", data.index(b"BT"))
        form.write(data[:start] + b"<FFF0>" + data[data.index(b">", start) + 1:])
    edit(pack(project), missing)
    used = memo(project)
    report = preflight_module.preflight(pack(project), memo=used)
    assert any("glyphs drawn that the font does not have (ids 65520)" in f for f in report.findings)
    assert report.findings == full(pack(project)).findings


def test_recorded_glyphs_count_against_this_files_fonts(project):
    """No form changed, but the file's font program lost its glyphs: the memo's glyph ids are
    checked against the program in this file."""
    from generator.render.fontmerge import _subset

    def shrink(pdf):          # the regular weight, drawn on the cards only in forms
        font = form_of(pdf, "goods/lantern").Resources.Font["/F2"]
        assert str(font.BaseFont).endswith("+Noto-Sans-SC")
        descriptor = font.DescendantFonts[0].FontDescriptor
        descriptor.FontFile2 = pikepdf.Stream(pdf, _subset(ROOT / "fonts/NotoSansSC-Regular.ttf", {1}))
    edit(pack(project), shrink)
    used = memo(project)
    report = preflight_module.preflight(pack(project), memo=used)
    assert used.checked == 0
    assert any("glyphs drawn that the font does not have" in f for f in report.findings)
    assert report.findings == full(pack(project)).findings


def _text_past_the_safe_area(pdf):
    form = form_of(pdf, "goods/lantern")
    data = form.read_bytes()
    moved, n = re.subn(rb"1 0 0 -1 [\d.]+ ([\d.]+) Tm", rb"1 0 0 -1 1 \1 Tm", data, count=1)
    assert n == 1
    form.write(moved)


def test_text_outside_the_safe_area_is_caught_on_a_changed_page(project):
    edit(pack(project), _text_past_the_safe_area)
    used = memo(project)
    report = preflight_module.preflight(pack(project), memo=used)
    assert any(re.match(r"page 2, card goods/lantern \(front\): text '.+' runs [\d.]+ mm outside the 3 mm safe area", f)
               for f in report.findings), report.findings
    assert used.checked == 1
    assert report.findings == full(pack(project)).findings


def test_a_page_with_a_finding_is_never_recorded_as_passed(project, tmp_path):
    """Its trims pass, the safe-area check does not: the page is left out of the record, so the
    next check reads it again and finds the same."""
    edit(pack(project), _text_past_the_safe_area)
    first = Memo(memo_context(Project.at(project)))
    report = preflight_module.preflight(pack(project), memo=first)
    assert any("outside the 3 mm safe area" in f for f in report.findings)
    assert first.checked == len(keyed_pages(pack(project))) and len(first.pages) == first.checked - 1
    first.save(tmp_path / "record.json")
    second = Memo.load(tmp_path / "record.json", first.context)
    again = preflight_module.preflight(pack(project), memo=second)
    assert again.findings == report.findings and second.checked == 1


def test_a_stylesheet_moving_text_past_the_safe_area_stops_the_rebuild(project):
    """Moved by a `transform`, which the face's own check leaves to preflight (it measures the text
    as printed): the memo of the pages checked before must not let it through."""
    kept = record(project).read_bytes()
    css = project / f"templates/{GAME}/market.css"
    text = css.read_text(encoding="utf-8")
    css.write_text(text.replace(".price { position: absolute; left: 5mm;",
                                ".price { position: absolute; left: 5mm; transform: translateX(-4mm);", 1),
                   encoding="utf-8")
    result = pnp(project, *BUILD)
    assert result.exit_code == 1
    assert "page 2, card goods/lantern (front): text '4' runs 1.9 mm outside the 3 mm safe area" in result.output
    assert record(project).read_bytes() == kept          # a failed build records nothing


# --- the safe-area check in a second process -------------------------------------------------------

def _text_past_the_safe_area_on_two_pages(pdf):
    """Text moved out of the safe area on two cards of two pages (their order in the report is page order)."""
    manifest_cards = [str(o.get("/PnpId")) for o in pdf.objects
                      if isinstance(o, pikepdf.Stream) and str(o.get("/PnpId", "")).startswith("goods/")]
    for card in (manifest_cards[0], manifest_cards[-1]):
        form = form_of(pdf, card)
        moved, n = re.subn(rb"1 0 0 -1 [\d.]+ ([\d.]+) Tm", rb"1 0 0 -1 1 \1 Tm", form.read_bytes(), count=1)
        assert n == 1
        form.write(moved)


def test_text_past_the_safe_area_is_found_with_a_memo_as_without(project):
    edit(pack(project), _text_past_the_safe_area_on_two_pages)
    memo = Memo(memo_context(Project.at(project)))
    report = preflight_module.preflight(pack(project), memo=memo)
    assert report.findings == full(pack(project)).findings
    assert len({f.split(",")[0] for f in report.findings if "safe area" in f}) == 2


# --- a damaged record -----------------------------------------------------------------------------

@pytest.mark.parametrize("damage", ["garbage", "folder", "other context", "wrong shapes", "wrong shapes as text",
                                    "forms not JSON"])
def test_a_damaged_record_is_an_empty_one(project, spy, damage):
    path = record(project)
    if damage == "garbage":
        path.write_bytes(b"\x00\xff{not json" * 100)
    elif damage == "folder":
        path.unlink()
        (path / "inside").mkdir(parents=True)
    elif damage == "other context":
        data = json.loads(path.read_bytes())
        path.write_text(json.dumps({**data, "context": "another engine"}))
    else:
        data = json.loads(path.read_bytes())
        form = {"wrong shapes": [["/F1", "/Type0", ["a"]]], "wrong shapes as text": '[["/F1", "/Type0", ["a"]]]',
                "forms not JSON": '[["/F1", "/Type0", [1'}[damage]
        assert data["objects"]
        path.write_text(json.dumps({**data, "pages": {k: "x" for k in data["pages"]},
                                    "forms": {k: form for k in data["forms"]}, "objects": {k: form for k in data["objects"]}}))
    touch_input(project)
    result = pnp(project, *BUILD)
    assert result.exit_code == 0 and "preflight ok" in result.output, result.output
    (used, report), = spy["runs"]
    assert used.checked == len(keyed_pages(pack(project))) and used.reused == 0
    assert report == full(pack(project), display=report.file)
    assert path.is_file()                                 # written again, whole:
    again = memo(project)
    preflight_module.preflight(pack(project), memo=again)
    assert again.checked == 0 and again.reused == len(keyed_pages(pack(project)))


# --- pages proved by their objects' bytes ---------------------------------------------------------
# A pack of card decks only is saved with one cross-reference table (sheets/sheet_cache.py): a page
# whose every object is written as it was when it passed is taken without opening one.

SIZES_BUILD = ("build", "sizes", "--paper", "a4")


@pytest.fixture(scope="module")
def sizes_fixture(tmp_path_factory) -> Path:
    project = tmp_path_factory.mktemp("objects") / "sizes"
    shutil.copytree(ROOT / "tests/fixtures/sizes", project)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / shared)
    result = pnp(project, *SIZES_BUILD)
    assert result.exit_code == 0, result.output
    return project


@pytest.fixture
def sizes(sizes_fixture, tmp_path) -> Path:
    return Path(shutil.copytree(sizes_fixture, tmp_path / "sizes", symlinks=True))


def sizes_pack(project: Path) -> Path:
    return project / "build/sizes/sizes-1p-a4.pdf"


def sizes_memo(project: Path) -> Memo:
    return Memo.load(project / "build/.cache/preflight/sizes/sizes-1p-a4.json", memo_context(Project.at(project)))


def relabel(project: Path, old: str, new: str) -> None:
    cards = project / "cards/sizes/poker.yaml"
    text = cards.read_text(encoding="utf-8")
    assert old in text
    cards.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_unchanged_pages_are_taken_by_their_objects_bytes(sizes, spy):
    path = sizes_pack(sizes)
    before = pikepdf.open(path)
    before_drawn = {n: drawn(before, n) for n in keyed_pages(path)}
    relabel(sizes, "label: 乙", "label: 乙甲")        # no glyph new to the pack, none dropped
    result = pnp(sizes, *SIZES_BUILD)
    assert result.exit_code == 0, result.output
    keyed = keyed_pages(path)
    changed = [n for n in keyed if drawn(pikepdf.open(path), n) != before_drawn[n]]
    assert 0 < len(changed) < len(keyed)
    (used, report), = spy["runs"]
    assert sorted(used.same) == [n for n in keyed if n not in changed]
    assert used.checked == len(changed) and used.reused == len(keyed) - len(changed)
    assert spy["walked"] == spy["measured"] == len(changed)
    assert report.ok and report == full(path, display=report.file)
    assert sorted(used.objects) == keyed            # the changed pages are recorded for the next build


def type0_fonts(path: Path) -> dict[int, bytes]:
    """Each Type0 font's number and the bytes of its program, widths and text map."""
    with pikepdf.open(path) as pdf:
        return {font.objgen[0]: font.DescendantFonts[0].FontDescriptor.FontFile2.read_bytes()
                + font.DescendantFonts[0].W.unparse() + font.ToUnicode.read_bytes()
                for font in pdf.objects if isinstance(font, pikepdf.Dictionary) and font.get("/Subtype") == "/Type0"}


def test_a_re_made_font_leaves_the_other_pages_taken_by_their_objects(sizes, spy):
    """A glyph new to the pack re-makes the pack's subset: the font's own objects change, no
    other object of a kept page does. Such a page is still taken by its objects' bytes, the font
    read as the page reads it (its dictionary less the subset's parts, the widths and text of the
    page's glyphs); only the pages drawn anew are checked in full (it was every page, by its page
    key), and the next build finds the font's new objects recorded."""
    path = sizes_pack(sizes)
    keyed, fonts_before = keyed_pages(path), type0_fonts(path)
    relabel(sizes, "label: 乙", "label: 丙")             # 丙: drawn nowhere in the pack yet
    assert pnp(sizes, *SIZES_BUILD).exit_code == 0
    fonts_after = type0_fonts(path)
    assert fonts_after.keys() == fonts_before.keys() and fonts_after != fonts_before    # the same numbers
    with pikepdf.open(path) as pdf:
        after_drawn = {n: drawn(pdf, n) for n in keyed}
    relabel(sizes, "label: 甲", "label: 甲丙")            # drawn already: the font stays as it is
    assert pnp(sizes, *SIZES_BUILD).exit_code == 0
    assert type0_fonts(path) == fonts_after
    with pikepdf.open(path) as pdf:
        changed = [n for n in keyed if drawn(pdf, n) != after_drawn[n]]
    (remade, first), (again, report) = spy["runs"]
    assert 0 < len(remade.same) == remade.reused < len(keyed) and remade.checked == len(keyed) - remade.reused
    assert 0 < len(changed) < len(keyed)
    assert sorted(again.same) == [n for n in keyed if n not in changed] and again.checked == len(changed)
    assert spy["walked"] == spy["measured"] == remade.checked + again.checked
    assert first.ok and report == full(path, display=report.file)


@pytest.mark.parametrize("record", ["as written", "naming other objects"])
def test_a_font_that_reads_otherwise_for_a_pages_glyphs_leaves_that_page_to_a_full_check(sizes, record):
    """One glyph's width changed in the pack's font, every object keeping its number: a page that
    draws the glyph is checked in full, every other page is still taken by its objects, and the
    report is the full check's. A font's record whose runs do not hold the font (other objects,
    unchanged) does not vouch for it."""
    from generator.check.pdfread import WrittenObjects
    path = sizes_pack(sizes)
    memo_path = sizes / "build/.cache/preflight/sizes/sizes-1p-a4.json"
    recorded = json.loads(memo_path.read_text(encoding="utf-8"))
    drawing: dict = {}                            # (font number, gid) -> the pages that draw it
    for number, page in recorded["objects"].items():
        for font, _, gids in page["glyphs"]:
            for gid in gids:
                drawing.setdefault((font, gid), set()).add(int(number))
    (font, gid), pages = min(drawing.items(), key=lambda item: (len(item[1]), item[0]))
    assert 0 < len(pages) < len(recorded["objects"])

    def wider(pdf):
        widths = pdf.get_object((font, 0)).DescendantFonts[0].W
        widths.append(gid)
        widths.append(pikepdf.Array([777]))       # a later entry for the glyph wins (as viewers read it)
    edit(path, wider)
    if record == "naming other objects":
        written = WrittenObjects(path.read_bytes())
        other = next(n for n, _ in sorted(written.spans) if n != font and written.run_digest(n, n) is not None)
        digest = hashlib.sha256(b"%d-%d:" % (other, other) + written.run_digest(other, other)).hexdigest()[:32]
        recorded["fonts"] = {k: {"runs": [[other, other]], "digest": digest} for k in recorded["fonts"]}
        memo_path.write_text(json.dumps(recorded), encoding="utf-8")
    used = sizes_memo(sizes)
    report = preflight_module.preflight(path, memo=used)
    assert sorted(used.same) == sorted(int(n) for n in recorded["objects"] if int(n) not in pages)
    assert used.checked == len(pages) and report == full(path)


@pytest.mark.parametrize("damage", ["font records", "pages' fonts"])
def test_damaged_font_records_are_passed_over(sizes, spy, damage):
    """A font's record of another shape: each page reads the font afresh for its glyphs, and is
    still taken by its objects. A page's list of fonts of another shape: the page's record is not
    used (the page is keyed). Neither is an error, and the report is the full check's."""
    path = sizes / "build/.cache/preflight/sizes/sizes-1p-a4.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["fonts"] and all(page["fonts"] for page in data["objects"].values())
    if damage == "font records":
        data["fonts"] = {**{k: {"runs": [[9, 2]], "digest": 3} for k in data["fonts"]}, "x": [1]}
    else:
        for page in data["objects"].values():
            page["fonts"] = [["7", None]]
    path.write_text(json.dumps(data), encoding="utf-8")
    before = pikepdf.open(sizes_pack(sizes))
    before_drawn = {n: drawn(before, n) for n in keyed_pages(sizes_pack(sizes))}
    relabel(sizes, "label: 乙", "label: 乙甲")        # no glyph new to the pack
    result = pnp(sizes, *SIZES_BUILD)
    assert result.exit_code == 0 and "preflight ok" in result.output, result.output
    (used, report), = spy["runs"]
    with pikepdf.open(sizes_pack(sizes)) as pdf:
        unchanged = [n for n, was in before_drawn.items() if drawn(pdf, n) == was]
    assert 0 < len(unchanged) < len(before_drawn)
    assert sorted(used.same) == (unchanged if damage == "font records" else [])
    assert used.reused == len(unchanged) and report == full(sizes_pack(sizes), display=report.file)


def _rewrite_in_place(path: Path, old: bytes, new: bytes) -> None:
    """Change the written bytes without moving any object (the cross-reference table stays true)."""
    assert len(old) == len(new)
    data = path.read_bytes()
    assert data.count(old) == 1
    path.write_bytes(data.replace(old, new))


def test_a_kept_object_changed_in_place_is_checked_in_full(sizes):
    """A card's form says its trim lies elsewhere, in the same number of bytes: the page's objects
    no longer have their recorded bytes, its page key differs, and the finding is the full check's."""
    path = sizes_pack(sizes)
    with pikepdf.open(path) as pdf:
        trim = form_of(pdf, "poker/b").PnpTrim.unparse()
    assert trim.startswith(b"[ ") and trim[2:3].isdigit()
    moved = trim[:2] + (b"8" if trim[2:3] == b"9" else b"%d" % (int(trim[2:3]) + 1)) + trim[3:]
    _rewrite_in_place(path, b"/PnpId (poker/b) /PnpTrim " + trim, b"/PnpId (poker/b) /PnpTrim " + moved)
    used = sizes_memo(sizes)
    report = preflight_module.preflight(path, memo=used)
    assert any(f.startswith("page ") and "card poker/b (copy 1, front): trim at (" in f for f in report.findings)
    assert report.findings == full(path).findings
    wrong = {int(f.split()[1].rstrip(",")) for f in report.findings}
    assert not wrong & set(used.same)
    assert used.checked == 2 * len(wrong)          # and their backs, measured against fronts that moved
    assert not wrong & set(used.objects)           # a page with a finding is never recorded


def test_a_file_laid_out_otherwise_is_read_object_by_object():
    """Object streams, an update appended, or a table that does not lead to its objects: no
    object's bytes are known, and the memo falls back to its page keys."""
    from generator.check.pdfread import WrittenObjects
    pdf = pikepdf.new()
    pdf.add_blank_page()
    plain, packed = io.BytesIO(), io.BytesIO()
    pdf.save(plain, object_stream_mode=pikepdf.ObjectStreamMode.disable)
    pdf.save(packed, object_stream_mode=pikepdf.ObjectStreamMode.generate)
    data = plain.getvalue()
    assert WrittenObjects(data).spans and WrittenObjects(data).run_digest(1, 2) is not None
    assert WrittenObjects(packed.getvalue()).spans == {}
    assert WrittenObjects(data + b"\nxref\n0 1\n0000000000 65535 f \ntrailer\n<< /Prev 9 >>\nstartxref\n9\n%%EOF\n").spans == {}
    shifted = data.replace(b"\n1 0 obj", b"\n 1 0 obj", 1)[:len(data)]       # the table now points a byte early
    assert WrittenObjects(shifted).run_digest(1, 1) is None


def test_a_run_of_objects_is_hashed_with_where_each_starts():
    """A run's hash holds its objects' bytes and where each begins; a number the table lacks, or
    an object that is not where the table says, gives none."""
    from generator.check.pdfread import WrittenObjects
    pdf = pikepdf.new()
    pdf.add_blank_page()
    buffer = io.BytesIO()
    pdf.save(buffer, object_stream_mode=pikepdf.ObjectStreamMode.disable)
    data = buffer.getvalue()
    written = WrittenObjects(data)
    count = len(written.spans)
    whole = written.run_digest(1, count)
    assert whole is not None and whole != written.run_digest(1, count - 1)
    assert written.run_digest(1, count + 1) is None and written.run_digest(count + 1, count + 1) is None
    at = data.index(b"/Type /Pages")
    edited = data[:at] + b"/Type /Pagez" + data[at + 12:]        # the same length: the table still true
    assert WrittenObjects(edited).run_digest(1, count) not in (None, whole)
    start, end = written.spans[2, 0]
    moved = data[:start] + b"%" + data[start:end - 1] + data[end:]   # object 2 a byte later, its end cut
    assert WrittenObjects(moved).run_digest(1, count) is None


def test_pictures_on_a_page_taken_by_its_bytes_are_counted_as_found(tmp_path, spy):
    """A page taken by its objects' bytes brings the pictures found on it with it: the report
    counts them and their lowest resolution as a full check does."""
    from tests.test_inputs import make
    project = make(tmp_path / "inputs")
    args = ("build", "inputs", "--players", "2", "--paper", "a4")
    assert pnp(project, *args).exit_code == 0
    goods = project / "cards/inputs/goods.csv"          # the pictures are on the people's sheet
    goods.write_text(goods.read_text(encoding="utf-8").replace("silk,Silk,", "silk,Silks,", 1), encoding="utf-8")
    result = pnp(project, *args)
    assert result.exit_code == 0, result.output
    (_, first), (used, report) = spy["runs"]
    assert used.same and report.images == first.images > 0 and report.lowest_dpi == first.lowest_dpi
    assert any(image for n in used.same for image in used.same[n]["images"])
    assert report == full(project / "build/inputs/inputs-2p-a4.pdf", display=report.file)


def test_a_board_page_is_taken_when_unchanged_and_checked_in_full_when_its_text_shrinks(project, spy):
    """Board pages are in the memo like card pages: after a card edit the board's page is taken; its
    title set below the minimum size changes the page, which is read again and refused."""
    board = next(e["number"] for e in json.loads(pack(project).with_suffix(".json").read_text(encoding="utf-8"))["pages"]
                 if e["role"] == "board" and "market-board" in e["components"])
    cards = project / f"cards/{GAME}/goods.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("再翻 1 张", "再翻 2 张", 1), encoding="utf-8")
    assert pnp(project, *BUILD).exit_code == 0
    (used, _), = spy["runs"]
    assert used.checked == 1 and used.reused == len(keyed_pages(pack(project))) - 1     # the card's sheet alone
    pieces = project / f"cards/{GAME}/pieces.yaml"
    text = pieces.read_text(encoding="utf-8")
    old = '人", size: 12, bold: true'
    assert text.count(old) == 1
    pieces.write_text(text.replace(old, '人", size: 4, bold: true'), encoding="utf-8")
    result = pnp(project, *BUILD)
    assert result.exit_code == 1
    assert f"page {board}, market-board: text '夜市计分板·2人' prints at 4.0 pt, under the 6 pt minimum" in result.output


def test_pages_two_packs_share_are_read_once_a_build(project, spy):
    """A cold build of the 2- and 3-player packs (no records): the sheets the 3-player pack shares
    with the 2-player one (same content, same manifest facts, another file) are taken from what the
    first pack's check passed; the reports equal full checks."""
    shutil.rmtree(project / "build")
    result = pnp(project, "build", GAME, "--players", "2,3", "--paper", "a4", "--jobs", "1")
    assert result.exit_code == 0, result.output
    (first, _), (second, report) = spy["runs"]
    assert first.reused == 0 and first.checked > 0
    assert second.reused > 0
    path = project / "build" / GAME / f"{GAME}-3p-a4.pdf"
    assert report.ok and report == full(path, display=report.file)
