"""Print faults a reader finds on the page (issue 36), read back from the built PDFs: Markdown
printed as text, list items run together, type too small, a page no print run lists, words broken
at a card's line end. The preflight checks for each class are tested on packs made to carry one."""
from __future__ import annotations

import json
import re
import shutil

import pypdfium2 as pdfium
import pytest
from jinja2 import Environment

from generator.check.pdfread import MM
from generator.check.preflight import preflight
from generator.source.rulebook import keep_line_ends
from tests.conftest import GAMES, ROOT, built, make_project, pnp, seed_store


def test_a_tag_ending_a_line_of_text_keeps_its_line_break():
    env = Environment(trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)     # as the rulebook's
    source = ("| Fog | {% for f in fogs %}{{ f }} | {% endfor %}\n"
              "|---|{% for f in fogs %}---|{% endfor %}\n"
              "{% for r in rows %}\n"
              "- item {{ r }}{% if r == 2 %} (two){% endif %}\n"
              "{% endfor %}\n"
              "{%- set x = 1 -%}\n"
              "end\n")
    out = env.from_string(keep_line_ends(source)).render(fogs=[0, 1], rows=[1, 2])
    assert out == "| Fog | 0 | 1 | \n|---|---|---|\n- item 1\n- item 2 (two)\nend\n"
    assert keep_line_ends(source).count("\n") == source.count("\n")          # errors keep their lines


def _rules_text(kit, lang: str) -> str:
    document = pdfium.PdfDocument(str(kit.folder / f"{kit.game}-rules-a4-{lang}.pdf"))
    try:
        return "\n".join(page.get_textpage().get_text_range() for page in document)
    finally:
        document.close()


@pytest.mark.parametrize("game", GAMES)
def test_rulebooks_print_no_markdown(tmp_path_factory, game):
    kit = built(tmp_path_factory, game)
    for lang in ("zh-Hans", "en"):
        text = _rules_text(kit, lang)
        assert "|---" not in text and "| :---" not in text and "**" not in text, (game, lang)
        assert not re.search(r"[.。)）]\s?- \S", text), (game, lang)            # list items run together
        doubled = re.search(r"(\([^()]+\)) ?\1|(（[^（）]+）)\2", text)
        assert doubled is None, (game, lang, doubled and doubled.group(0))


def test_seven_nights_tables_and_setup_lists(nights_built):
    en, zh = _rules_text(nights_built, "en"), _rules_text(nights_built, "zh-Hans")
    lines = [line.strip() for line in en.splitlines()]
    assert "Fog 0 1 0 1 2 1 0" in lines                                           # §4 stations and fog
    assert "Kept +1 +2 +3 +4 +5 +6 +7 +8" in lines                                # §4.5 oath score
    assert "5 10 9 8" in lines and "1 6 5 4" in lines                             # §5.2 ceilings
    assert any(line.startswith("Pairing cards: 4 — 🅐 ×2, 🅑 ×2.") or line.startswith("Pairing cards: 4")
               for line in lines)                                                  # §3.2 its own item
    assert "3 players (all solo lamps)" in en
    assert "雾值 0 1 0 1 2 1 0" in [line.strip() for line in zh.splitlines()]


def test_cephiro_oath_table_is_a_table(cephiro_built):
    lines = [line.strip() for line in _rules_text(cephiro_built, "en").splitlines()]
    assert "Card Timing Effect 2" in lines, lines[:40]          # the header row (its cells wrap)


def test_reverse_wizard_xii_list_goes_on_after_its_table(wizard_built):
    """§6.4: the HP table sits inside item 2, so the next item is numbered 3, not 1."""
    document = pdfium.PdfDocument(str(wizard_built.folder / "reverse-wizard-rules-a4-en.pdf"))
    try:
        for page in document:
            text = page.get_textpage()
            found = text.search("You may play any number of cards")
            first = found.get_next()
            if first is None:
                continue
            left, bottom, right, top = text.get_charbox(first[0])
            marker = text.get_text_bounded(left - 20, bottom - 1, left - 0.5, top + 1).strip()
            assert marker == "3.", marker
            return
    finally:
        document.close()
    pytest.fail("§6.4 not found")


def _card_lines(kit, lang: str):
    """(card, the lines of its face's text) for every card front of every pack's A4 file."""
    for path in sorted(kit.folder.glob(f"{kit.game}-*-a4-{lang}.json")):
        manifest = json.loads(path.read_text(encoding="utf-8"))
        if manifest.get("pack") == "rules":
            continue
        document = pdfium.PdfDocument(str(path.with_suffix(".pdf")))
        try:
            for entry in manifest["pages"]:
                if entry["role"] not in ("cards-front", "cards"):
                    continue
                page = document[entry["number"] - 1]
                height, text = page.get_size()[1], page.get_textpage()
                for slot in entry["slots"]:
                    x, y, w, h = slot["trim"]
                    yield slot["card"], text.get_text_bounded(x / MM, height - (y + h) / MM, (x + w) / MM,
                                                              height - y / MM).splitlines()
        finally:
            document.close()


@pytest.mark.parametrize("game", ["cephiro-pillar", "reverse-wizard"])
def test_no_word_is_broken_at_a_card_line_end(tmp_path_factory, game):
    """A line may end in a hyphen only where the English text has one (two-sided), never in a
    hyphen the layout added inside a word (tri-al)."""
    kit = built(tmp_path_factory, game)
    catalogue = (ROOT / "cards" / game / "i18n" / "en.yaml").read_text(encoding="utf-8")
    broken = []
    for card, lines in _card_lines(kit, "en"):
        for line, after in zip(lines, lines[1:]):
            end = re.search(r"(\w+)[-\u2010\u00ad]$", line.rstrip())     # WeasyPrint breaks with U+2010
            start = re.match(r"\s*(\w+)", after)
            if end and start and f"{end.group(1)}-{start.group(1)}" not in catalogue:
                broken.append(f"{card}: {end.group(1)}-/{start.group(1)}")
    assert not broken, broken


# --- the preflight checks, each on a pack made to carry its fault ------------------------------

@pytest.fixture(scope="module")
def nights_4p(tmp_path_factory):
    """One seven-nights pack (English, 4 players, A4): the session's build of the game, which the
    tests copy before they break a copy."""
    return built(tmp_path_factory, "seven-nights").project


def _copy(nights_4p, tmp_path):
    folder = nights_4p / "build" / "seven-nights"
    pdf, listing = tmp_path / "pack.pdf", tmp_path / "pack.json"
    shutil.copy(folder / "seven-nights-4p-a4-en.pdf", pdf)
    return pdf, listing, json.loads((folder / "seven-nights-4p-a4-en.json").read_text(encoding="utf-8"))


def test_a_page_no_print_run_lists_is_a_finding(nights_4p, tmp_path):
    pdf, listing, manifest = _copy(nights_4p, tmp_path)
    last = manifest["runs"][-1]
    last["pages"][1] -= 1                       # the last page is left out of every run
    listing.write_text(json.dumps(manifest), encoding="utf-8")
    number = last["pages"][1] + 1
    findings = preflight(pdf, listing).findings
    assert any(f.startswith(f"page {number} (") and "no print run lists it" in f for f in findings), findings


def test_text_under_the_minimum_is_a_finding_naming_page_and_component(nights_4p, tmp_path):
    pdf, listing, manifest = _copy(nights_4p, tmp_path)
    manifest["print"]["min_text_pt"] = 7
    listing.write_text(json.dumps(manifest), encoding="utf-8")
    findings = [f for f in preflight(pdf, listing).findings if "under the 7 pt minimum" in f]
    assert findings
    marker = next(e for e in manifest["pages"] if e["role"] == "board" and
                  any(p["piece"] == "panic-marker" for p in e["pieces"]))["number"]
    assert any(f.startswith(f"page {marker}, panic-marker: text ") and "prints at 6.0 pt" in f for f in findings), findings


def test_markdown_left_in_the_rulebook_stops_the_build(nights_built, tmp_path):
    project = make_project(tmp_path / "p", ["seven-nights"])
    seed_store(project, [nights_built])         # the faces and boards; the edited rulebook is laid out anew
    book = project / "cards/seven-nights/rulebook/en.md"
    text = book.read_text(encoding="utf-8")
    book.write_text(text.replace("## 4 A night in six steps\n", "## 4 A night in six steps\n\n| Lit | Fog |\n"),
                    encoding="utf-8")
    result = pnp(project, "build", "seven-nights", "--lang", "en", "--players", "4", "--paper", "a4")
    assert result.exit_code == 1
    assert re.search(r"seven-nights-4p-a4-en\.pdf: preflight: page \d+, rulebook page \d+: Markdown table pipes "
                     r"printed as text: '\| Lit \| Fog \|'", result.output), result.output
    assert not list((project / "build").glob("seven-nights/*.pdf"))


def test_a_reduced_figure_says_so_and_is_exempt(cephiro_built):
    """The record board shown in the rulebook is far below its size: its caption says so."""
    text = _rules_text(cephiro_built, "en")
    assert re.search(r"\(shown at \d\d?% of its real size\)", text)
    assert re.search(r"按实物大小的 \d\d?% 显示", _rules_text(cephiro_built, "zh-Hans"))


def test_text_a_hidden_overflow_box_cuts_off_is_found_at_layout():
    from generator.render.cards import clipped_text
    from generator.render.weasy import weasyprint
    font = (ROOT / "fonts/NotoSans-Regular.ttf").as_uri()       # a bundled font (fontconfig has none of its own)
    html = ('<style>@page {{ size: 60mm 40mm; margin: 0 }} @font-face {{ font-family: t; src: url(' + font + ') }} '
            'div {{ overflow: hidden; width: 30mm; height: {h}mm; font: 9pt t }}</style>'
            '<div>Shared fire and a longer header</div>')
    clipped = weasyprint().HTML(string=html.format(h=6)).render().pages[0]           # one line and a half
    whole = weasyprint().HTML(string=html.format(h=20)).render().pages[0]
    assert clipped_text(clipped) == ["longer header"]          # the line under the box's edge
    assert clipped_text(whole) == []


def test_a_table_cell_whose_text_wraps_past_its_row_stops_the_build(tmp_path, nights_built):
    project = make_project(tmp_path / "p", ["seven-nights"])
    seed_store(project, [nights_built])         # the faces and pages; the edited piece is drawn anew
    pieces = project / "cards/seven-nights/pieces.yaml"
    text = pieces.read_text(encoding="utf-8")
    pieces.write_text(text.replace("columns: [10, 7, 8, 8, 10, 9, 13, 17, 17]", "columns: [12, 7, 8, 8, 10, 9, 13, 14, 18]", 1),
                      encoding="utf-8")
    result = pnp(project, "build", "seven-nights", "--lang", "en", "--players", "4", "--paper", "a4")
    assert result.exit_code == 1
    assert re.search(r"cards/seven-nights/pieces\.yaml:\d+: piece score-sheet: .*'Shared fire' in column 8 takes "
                     r"[\d.]+ mm, more than its row of 5\.6 mm: its text is clipped by the cell", result.output), result.output


@pytest.mark.parametrize("game", GAMES)
def test_every_pack_keeps_page_one_to_one_page_and_its_type_readable(tmp_path_factory, game):
    """The English page 1 of a long kit once ran onto a page 2 no print run listed; quick
    references, tokens and rulebook tables printed at 4–5 pt. Read back: one info page, and no
    character under 6 pt outside a component shown reduced."""
    from generator.check.preflight import _reduced_areas
    from generator.check.pdfread import printed_chars
    import pikepdf
    kit = built(tmp_path_factory, game)
    for path in sorted(kit.folder.glob(f"{game}-*-a4-*.json")):
        manifest = json.loads(path.read_text(encoding="utf-8"))
        if manifest["pack"] != "rules":
            assert [e["number"] for e in manifest["pages"] if e["role"] == "info"] == [1], path.name
        document, pdf = pdfium.PdfDocument(str(path.with_suffix(".pdf"))), pikepdf.open(path.with_suffix(".pdf"))
        try:
            for entry in manifest["pages"]:
                page = document[entry["number"] - 1]
                exempt = _reduced_areas(entry, pdf.pages[entry["number"] - 1])
                small = {round(size, 1) for char, size, x, y in printed_chars(page.get_textpage(), page.get_size()[1])
                         if size < 5.95 and not any(r.x <= x <= r.x + r.w and r.y <= y <= r.y + r.h for r in exempt)}
                assert not small, (path.name, entry["number"], small)
        finally:
            document.close()
            pdf.close()
