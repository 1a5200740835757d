"""The rulebook component: Markdown + expressions per pack, read back from the built PDFs; booklet
imposition order and marks read back from the PDF's geometry; mistakes as one-line file:line errors."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pikepdf
import pytest

from generator.check.pdfread import walk
from generator.geometry import MIN_MARGIN
from generator.sheets.booklet import booklet_slots, impose, pages_slots
from tests.conftest import ROOT, pnp, seed_store

GAME = "night-market"
RULEBOOK = f"cards/{GAME}/rulebook/zh-Hans.md"


def _project(target: Path) -> Path:
    """The docs fixture game with the rulebook fixture and a supplies line."""
    shutil.copytree(ROOT / "tests/fixtures/docs-game", target)
    for shared in ("fonts", "icons"):
        (target / shared).symlink_to(ROOT / shared)
    (target / RULEBOOK).parent.mkdir()
    shutil.copy(ROOT / "tests/fixtures/rulebook/zh-Hans.md", target / RULEBOOK)
    game = target / f"cards/{GAME}/game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace(
        "packs:\n", "supplies: [一支铅笔，记下每人的铜钱]\npacks:\n"), encoding="utf-8")
    return target


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    project = _project(tmp_path_factory.mktemp("rulebook") / "p")
    result = pnp(project, "build", GAME, "--paper", "a4")
    assert result.exit_code == 0, result.output
    return project


@pytest.fixture
def seeded(tmp_path, built) -> Path:
    """A fresh project of the game whose store starts with what the module's build drew (seed_store:
    packs made anew), for a test whose first build only sets the scene."""
    project = _project(tmp_path / "p")
    seed_store(project, [SimpleNamespace(project=built)])
    return project


def _text(pdf: Path, first: int | None = None, last: int | None = None) -> str:
    args = ["pdftotext", "-layout"] + (["-f", str(first), "-l", str(last)] if first else []) + [str(pdf), "-"]
    return subprocess.run(args, check=True, capture_output=True, text=True).stdout


def _rulebook_pages(manifest: dict) -> list[int]:
    return [p["number"] for p in manifest["pages"] if p["role"] == "rulebook"]


def _manifest(project: Path, name: str) -> dict:
    return json.loads((project / "build" / GAME / f"{name}.json").read_text(encoding="utf-8"))


# --- imposition: pure order, then read back from a PDF -------------------------------------------

def _order(slots) -> list[tuple]:
    return [(s.sheet, s.side, s.position, s.page) for s in slots]


def test_booklet_order_for_5_8_and_12_pages():
    assert _order(booklet_slots(8)) == [
        (1, "front", "left", 8), (1, "front", "right", 1), (1, "back", "left", 2), (1, "back", "right", 7),
        (2, "front", "left", 6), (2, "front", "right", 3), (2, "back", "left", 4), (2, "back", "right", 5)]
    # 5 pages pad to 8: pages 6, 7 and 8 are blank
    assert _order(booklet_slots(5)) == [
        (1, "front", "left", None), (1, "front", "right", 1), (1, "back", "left", 2), (1, "back", "right", None),
        (2, "front", "left", None), (2, "front", "right", 3), (2, "back", "left", 4), (2, "back", "right", 5)]
    twelve = booklet_slots(12)
    assert len(twelve) == 12 and {s.sheet for s in twelve} == {1, 2, 3}
    assert _order(twelve)[:2] == [(1, "front", "left", 12), (1, "front", "right", 1)]
    assert _order(twelve)[8:] == [(3, "front", "left", 8), (3, "front", "right", 5),
                                  (3, "back", "left", 6), (3, "back", "right", 7)]
    assert [s.page for s in pages_slots(3)] == [1, 2, 3] and [s.side for s in pages_slots(3)] == ["front", "back", "front"]


def _source(pages: int) -> pikepdf.Pdf:
    pdf = pikepdf.new()
    for _ in range(pages):
        pdf.add_blank_page(page_size=(148 * 72 / 25.4, 210 * 72 / 25.4))
    return pdf


@pytest.mark.parametrize("pages, sheets", [(5, 2), (8, 2), (12, 3)])
@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_booklet_sheets_read_back_from_the_pdf(pages, sheets, paper):
    out = pikepdf.new()
    entries = impose(out, _source(pages), paper, "booklet", (148.0, 210.0))
    assert len(out.pages) == 2 * sheets == len(entries)
    expected = {(s.sheet, s.side, s.position): s.page for s in booklet_slots(pages)}
    for index, page in enumerate(out.pages):
        sheet, side = index // 2 + 1, ("front", "back")[index % 2]
        w, h = (float(v) * 25.4 / 72 for v in page.mediabox[2:])
        assert w > h                                    # landscape: two pages side by side
        placed, segments = walk(page)
        found = {}
        for item in placed:
            position = "left" if item.rect.x + item.rect.w / 2 < w / 2 else "right"
            found[position] = int(item.label.rsplit(" ", 1)[1])
            assert abs(item.rect.w / item.rect.h - 148 / 210) < 1e-3        # the page's shape, not stretched
            r = item.rect
            assert r.x >= MIN_MARGIN and r.y >= MIN_MARGIN and r.x + r.w <= w - MIN_MARGIN and r.y + r.h <= h - MIN_MARGIN
        want = {pos: expected[(sheet, side, pos)] for pos in ("left", "right") if expected[(sheet, side, pos)]}
        assert found == want, (sheet, side)
        if side == "front":
            fold = w / 2                                # the pages meet on the sheet's middle
            for item in placed:
                assert abs(item.rect.x + item.rect.w - fold) < 0.01 or abs(item.rect.x - fold) < 0.01
            assert len(segments) == 6                  # two fold marks, four staple marks
            for seg in segments:                        # outside every page
                for item in placed:
                    r = item.rect
                    inside = (max(seg.x1, seg.x2) > r.x + 0.01 and min(seg.x1, seg.x2) < r.x + r.w - 0.01
                              and max(seg.y1, seg.y2) > r.y + 0.01 and min(seg.y1, seg.y2) < r.y + r.h - 0.01)
                    assert not inside, seg
            verticals = [s for s in segments if abs(s.x1 - s.x2) < 1e-6]
            assert len(verticals) == 2 and all(abs(s.x1 - fold) < 0.01 for s in verticals)
        else:
            assert segments == []


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_pages_imposition_puts_one_page_a_side_at_full_size(paper):
    out = pikepdf.new()
    entries = impose(out, _source(3), paper, "pages", (148.0, 210.0))
    assert [(e["sheet"], e["side"]) for e in entries] == [(1, "front"), (1, "back"), (2, "front")]
    for number, page in enumerate(out.pages, 1):
        w, h = (float(v) * 25.4 / 72 for v in page.mediabox[2:])
        placed, segments = walk(page)
        assert len(placed) == 1 and placed[0].label == f"rulebook page {number}" and segments == []
        r = placed[0].rect
        assert h > w and abs(r.w - 148) < 0.01 and abs(r.h - 210) < 0.01           # not reduced
        assert abs(r.x - (w - r.w) / 2) < 0.01 and abs(r.y - (h - r.h) / 2) < 0.01   # centred


# --- the built packs -------------------------------------------------------------------------

@pytest.mark.parametrize("players, goods, coins", [(2, 12, 12), (3, 16, 18), (4, 18, 24)])
def test_each_pack_holds_its_own_setup(built, players, goods, coins):
    manifest = _manifest(built, f"{GAME}-{players}p-a4")
    rulebook = next(c for c in manifest["components"] if c["kind"] == "rulebook")
    assert rulebook["imposition"] == "booklet" and rulebook["paper"] == "plain" and rulebook["duplex"] == "short"
    numbers = _rulebook_pages(manifest)
    assert numbers == list(range(rulebook["pages"][0], rulebook["pages"][1] + 1)) and len(numbers) % 2 == 0
    text = _text(built / "build" / GAME / f"{GAME}-{players}p-a4.pdf", numbers[0], numbers[-1])
    assert f"2.1 {players} 人" in text
    assert f"洗匀 {goods} 张货品牌" in text
    assert "每人 6 枚铜钱" in text and f"共 {coins} 枚" in text
    others = {2: 12, 3: 16, 4: 18}
    for n, count in others.items():
        if n != players:
            assert f"{n} 人：货品牌" not in text and f"2.1 {n} 人" not in text
    assert "先到 25 文者胜" in text and "内容" in text


def test_page_one_lists_the_rulebook_and_the_supplies(built):
    manifest = _manifest(built, f"{GAME}-3p-a4")
    rulebook = next(c for c in manifest["components"] if c["kind"] == "rulebook")
    page1 = _text(built / "build" / GAME / f"{GAME}-3p-a4.pdf", 1, 1)
    assert f"{rulebook['pages'][0]}–{rulebook['pages'][1]}" in page1
    assert "规则书" in page1 and "普通纸" in page1 and "沿短边翻转" in page1
    assert "对折" in page1 and "订书钉" in page1
    assert "你还需要" in page1 and "一支铅笔，记下每人的铜钱" in page1


def test_bookmarks_nest_the_rulebooks_headings(built):
    pdf = pikepdf.open(built / "build" / GAME / f"{GAME}-3p-a4.pdf")
    with pdf.open_outline() as tree:
        book = next(item for item in tree.root if item.title == "规则书")
        titles = [c.title for c in book.children[0].children]
    assert titles == ["1 配件", "2 准备", "3 一轮", "4 结束"]


def test_standalone_rules_cover_every_player_count(built):
    pdf = built / "build" / GAME / f"{GAME}-rules-a4.pdf"
    text = _text(pdf)
    for players, goods in ((2, 12), (3, 16), (4, 18)):
        assert f"2.{players - 1} {players} 人" in text and f"洗匀 {goods} 张货品牌" in text
    manifest = _manifest(built, f"{GAME}-rules-a4")
    assert all(p["role"] == "rulebook" for p in manifest["pages"]) and len(manifest["pages"]) % 2 == 0
    result = pnp(built, "preflight", str(pdf))
    assert result.exit_code == 0, result.output


def test_a_changed_rules_constant_changes_the_printed_text(seeded):
    project = seeded
    rules = project / f"cards/{GAME}/rules.py"
    rules.write_text(rules.read_text(encoding="utf-8").replace("GOAL = 25", "GOAL = 31"), encoding="utf-8")
    result = pnp(project, "build", GAME, "--players", "3", "--paper", "a4")
    assert result.exit_code == 0, result.output
    text = _text(project / "build" / GAME / f"{GAME}-rules-a4.pdf")
    assert "先到 31 文者胜" in text and "25 文" not in text
    again = pnp(project, "build", GAME, "--players", "3", "--paper", "a4")
    assert "up to date" in again.output
    book = project / RULEBOOK
    book.write_text(book.read_text(encoding="utf-8").replace("先到 {{ derived.goal }} 文者胜", "先到 {{ derived.goal }} 文的人赢"),
                    encoding="utf-8")
    third = pnp(project, "build", GAME, "--players", "3", "--paper", "a4")
    assert "up to date" not in third.output and "先到 31 文的人赢" in _text(project / "build" / GAME / f"{GAME}-rules-a4.pdf")


@pytest.mark.parametrize("line, text, message", [
    (3, "<div>raw</div>", "raw HTML is not allowed in a rulebook"),
    (3, "平局时 <b>都</b> 赢", "raw HTML is not allowed in a rulebook"),           # inside a paragraph
    (3, "see ![a card](card.png)", "images are not allowed in a rulebook"),
    (3, "#### too deep", "heading level jumps from 1 to 4"),
    (3, "```", "code fence ``` is never closed"),
    (3, "先到 {{ derived.nothing_here }} 文", "expression error: "),
    (3, "{{ figure('card', 'goods/no-such-card') }}", "expression error: figure: no card 'goods/no-such-card'"),
    (3, "{% for x in packs %}", "template error: "),
    (3, "{{ '得分 {value}' | rich }}", "expression error: {value} is a card's field: write `| rich(card)` with the card "
                                     "the text is from, to print its value"),
    (3, "a NUL \x00 in the text", "a NUL byte (U+0000) in the text (hint: delete it: a text file holds none"),
    (3, "an escape \x1b[2J code", "an escape character (U+001B) in the text (hint: delete it"),
])
def test_a_broken_rulebook_is_one_line_and_writes_nothing(tmp_path, line, text, message):
    project = _project(tmp_path / "p")
    book = project / RULEBOOK
    lines = book.read_text(encoding="utf-8").split("\n")
    lines.insert(line - 1, text + "\n")
    book.write_text("\n".join(lines), encoding="utf-8")
    result = pnp(project, "build", GAME, "--paper", "a4")
    assert result.exit_code == 1, result.output
    errors = [l for l in result.output.splitlines() if l.strip()]
    assert len(errors) == 1, result.output
    assert errors[0].startswith(f"{RULEBOOK}:{line}: {message}"), errors[0]
    assert not list((project / "build").glob(f"{GAME}/*.pdf"))
    assert pnp(project, "validate", GAME).exit_code == 1


def test_a_tag_on_a_paragraphs_second_line_is_said_at_that_line():
    from generator.source.rulebook import markdown_problems
    source = "# 标题\n\n第一行，\n第二行 <i>斜体</i>。\n\n下一段。\n"
    assert [(p.line, p.message) for p in markdown_problems(source, RULEBOOK)] == [
        (4, "raw HTML is not allowed in a rulebook")]


@pytest.mark.parametrize("text, message", [
    ("x" * 400, "cards/night-market/rulebook/zh-Hans.md:3: rulebook page 1: the text “xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx” "
                "runs outside the page's safe area"),
    ("埃及 𓀀 文", "cards/night-market/rulebook/zh-Hans.md:3: character"),
])
def test_text_outside_the_safe_area_or_without_a_glyph_stops_the_build(tmp_path, text, message):
    project = _project(tmp_path / "p")
    book = project / RULEBOOK
    lines = book.read_text(encoding="utf-8").split("\n")
    lines.insert(2, text + "\n")
    book.write_text("\n".join(lines), encoding="utf-8")
    result = pnp(project, "build", GAME, "--paper", "a4")
    assert result.exit_code == 1, result.output
    errors = [l for l in result.output.splitlines() if l.strip() and "rendered" not in l]
    assert len(errors) == 1 and errors[0].startswith(message), result.output
    assert not list((project / "build").glob(f"{GAME}/*.pdf"))


def test_the_scaffold_has_a_rulebook_that_builds(tmp_path):
    project = tmp_path / "fresh"
    assert pnp(project, "new", "river-crossing", "--title", "过河", "--lang", "zh-Hans").exit_code == 0
    assert (project / "cards/river-crossing/rulebook/zh-Hans.md").is_file()
    result = pnp(project, "build", "river-crossing", "--paper", "a4")
    assert result.exit_code == 0, result.output
    text = _text(project / "build/river-crossing/river-crossing-rules-a4.pdf")
    assert "先到 30 分" in text and "洗匀 10 张行动牌" in text and "洗匀 14 张行动牌" in text
    three = _text(project / "build/river-crossing/river-crossing-3p-a4.pdf", 2, 3)
    assert "洗匀 14 张行动牌" in three and "洗匀 10 张行动牌" not in three


def test_a_card_text_the_rulebook_quotes_has_its_placeholders_filled_from_its_card(tmp_path):
    """The scaffold's rulebook quotes its first card's effect with `| rich(card)`: a {value} in it
    prints that card's value, as the card's face does (not the placeholder as written)."""
    project = tmp_path / "fresh"
    assert pnp(project, "new", "river-crossing", "--lang", "zh-Hans").exit_code == 0
    cards = project / "cards/river-crossing/cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace('effect: "**抽牌** 1 张。"', 'effect: "前进 {value} 格。"'),
                     encoding="utf-8")
    result = pnp(project, "build", "river-crossing", "--players", "2", "--paper", "a4")
    assert result.exit_code == 0, result.output
    text = _text(project / "build/river-crossing/river-crossing-rules-a4.pdf")
    assert "照做：前进 1 格。" in text and "{value}" not in text


def _figures_drawn(pdf: pikepdf.Pdf) -> bytes:
    """Every content stream under the rulebook pages' figures (the forms named /PnpFig…)."""
    out, seen = [], set()

    def under(form):
        if form.objgen not in seen:
            seen.add(form.objgen)
            out.append(form.read_bytes())
            for inner in form.get("/Resources", {}).get("/XObject", {}).values():
                if inner.get("/Subtype") == "/Form":
                    under(inner)
    for page in pdf.pages:
        for placed in page.obj.get("/Resources", {}).get("/XObject", {}).values():
            for name, form in placed.get("/Resources", {}).get("/XObject", {}).items():
                if name.startswith("/PnpFig"):
                    under(form)
    return b"\n".join(out)


def test_an_ink_saver_rulebook_draws_its_piece_figures_ink_saver_too(seeded):
    """--ink-saver draws boards without fills, and the rulebook's card figures followed it; its piece
    figures did not: the market board's background was filled in the ink-saver rulebook."""
    project = seeded
    background = b"\n.992157 .964706 .890196 rg"       # the board's #fdf6e3, as reportlab writes it
    drawn = {}
    for options in [(), ("--ink-saver",)]:
        result = pnp(project, "build", GAME, "--paper", "a4", "--players", "3", *options)
        assert result.exit_code == 0, result.output
        with pikepdf.open(project / f"build/{GAME}/{GAME}-rules-a4{'-inksaver' if options else ''}.pdf") as pdf:
            drawn[options] = _figures_drawn(pdf)
    assert background in drawn[()]
    assert drawn[("--ink-saver",)] and background not in drawn[("--ink-saver",)]


def test_the_rulebooks_helper_draws_no_figure_again(tmp_path, monkeypatch):
    """An edition's rulebooks are laid out by two processes (lay_out_beside: a forked helper takes half).
    Every figure they show, a card's face or a piece, is drawn (or found in the store) before the
    helper starts: the helper drew its own again beside the build (a face alone in its document
    costs ~0.2 s). Here the helper's share runs in this process, where what it draws is seen."""
    from generator import processes
    from generator.render.cards import CardRenderer
    from generator.render.pieces import PieceDrawer
    from generator.sheets.kit import build_game
    from generator.source.assets import Assets
    from generator.source.project import Project, isolate_fonts
    project = Project.at(_project(tmp_path / "p"))
    isolate_fonts(project)
    drawn, helper_drew = [], []
    render_group, draw_copy = CardRenderer._render_group, PieceDrawer._draw_copy

    def rendering(self, faces, *args):
        drawn.extend(face.label for face in faces)
        return render_group(self, faces, *args)

    def drawing(self, item, *args):
        drawn.append(item.piece.id)
        return draw_copy(self, item, *args)

    class InProcess:
        def __init__(self, work):
            before = list(drawn)
            self.data = work()
            helper_drew.append((before, drawn[len(before):]))

        def result(self):
            return self.data

        def stop(self):
            pass
    monkeypatch.setattr(CardRenderer, "_render_group", rendering)
    monkeypatch.setattr(PieceDrawer, "_draw_copy", drawing)
    monkeypatch.setattr(processes, "Helper", InProcess)
    build_game(project, Assets(project), GAME, None, ["a4"], say=lambda _: None, jobs=2)
    (before, theirs), = helper_drew
    assert theirs == [], theirs
    assert before.count("market-board") >= 2, before      # its figure names the pack: one a rulebook
