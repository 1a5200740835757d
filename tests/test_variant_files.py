"""Print variants never overwrite or pose as the ordinary kit.

A build with a print option writes every file whose bytes the option changes under a name of its own
(the pack's `-inksaver`, `-draft` … suffix), and leaves the files it does not change as the ordinary
build wrote them: the standalone rulebook of an --ink-saver build is `-rules-a4-inksaver.pdf`, the
ordinary rulebook stays byte for byte. `pnp site` offers what the last build of the edition's inputs
wrote, each variant labelled, a draft only with --drafts, a reprint only while it is current. Page 1
counts a rulebook's pages in number, in both engine languages. The game is the scaffold (`pnp new`),
built in its own project."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import make_project, pnp

GAME = "demo"
OLD = "demo: left off the site, not made from the inputs of the edition's last build (make it again to offer it)"
# every print option that changes a pack, as `pnp build` takes it (the back offset: its own test below)
OPTIONS = [("--ink-saver",), ("--draft",), ("--duplex", "short"), ("--duplex", "gutterfold"),
           ("--cutter", "silhouette"), ("--fit",), ("--sheets", "per-deck")]


def _build(project: Path, *args: str) -> str:
    result = pnp(project, "build", GAME, "--paper", "a4", "--jobs", "1", *args)
    assert result.exit_code == 0, result.output
    return result.output


def _files(project: Path) -> dict[str, bytes]:
    """Every file of build/demo/ (a pack's -cut/ folder's too) by its path there; not the records."""
    folder = project / "build" / GAME
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}


@pytest.fixture(scope="module")
def ordinary(tmp_path_factory) -> tuple[Path, dict[str, bytes]]:
    """The scaffold built without options (A4), and its files as that build wrote them."""
    project = make_project(tmp_path_factory.mktemp("variants") / "project", [])
    assert pnp(project, "new", GAME).exit_code == 0
    _build(project)
    files = _files(project)
    assert {f"{GAME}-2p-a4.pdf", f"{GAME}-3p-a4.pdf", f"{GAME}-rules-a4.pdf", f"{GAME}-rules-a4.json"} <= set(files)
    return project, files


def _copy(ordinary, tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(ordinary[0], target, symlinks=True)
    return target


@pytest.mark.parametrize("option", OPTIONS, ids=lambda o: " ".join(o))
def test_a_variant_build_leaves_every_ordinary_file_as_it_was(ordinary, tmp_path, option):
    project = _copy(ordinary, tmp_path)
    output = _build(project, *option)
    after = _files(project)
    for name, data in ordinary[1].items():          # nothing of the ordinary kit is replaced by other bytes
        assert after.get(name) == data, f"{' '.join(option)} changed or removed {name}"
    written = set(re.findall(r"(?:wrote|unchanged) build/demo/(\S+\.pdf)", output))     # made by this build
    suffix = {"--ink-saver": "-inksaver", "--draft": "-draft", "--cutter": "-silhouette", "--fit": "-fit",
              "--sheets": "-per-deck", "--duplex": f"-{option[-1]}"}[option[0]]
    assert {f"{GAME}-2p-a4{suffix}.pdf", f"{GAME}-3p-a4{suffix}.pdf"} <= written
    rules = f"{GAME}-rules-a4-inksaver.pdf" if option == ("--ink-saver",) else f"{GAME}-rules-a4.pdf"
    assert rules in written                       # the rulebook: its own name only where its bytes differ
    if rules in ordinary[1]:                      # made again as it was: left in place, and said so
        assert f"unchanged build/demo/{rules} (" in output, output
    for name in written | {n.replace(".pdf", ".json") for n in written}:
        if name not in ordinary[1]:               # a file of the variant's own: named by its suffix
            assert suffix in name, name
    if option == ("--cutter", "silhouette"):      # the cut files, beside the pack they belong to
        assert any(n.startswith(f"{GAME}-2p-a4-silhouette-cut/") for n in after)
        assert not any(n.startswith(f"{GAME}-2p-a4-cut/") for n in after)


def test_the_ink_saver_rulebook_is_its_own_file_and_a_later_build_keeps_both(ordinary, tmp_path):
    project = _copy(ordinary, tmp_path)
    folder = project / "build" / GAME
    _build(project, "--ink-saver")
    inked = (folder / f"{GAME}-rules-a4-inksaver.pdf").read_bytes()
    assert inked != ordinary[1][f"{GAME}-rules-a4.pdf"]          # its card figures are ink-saver faces
    manifest = json.loads((folder / f"{GAME}-rules-a4-inksaver.json").read_text(encoding="utf-8"))
    assert manifest["file"] == f"{GAME}-rules-a4-inksaver.pdf" and manifest["print"]["ink_saver"] is True
    output = _build(project)                       # the ordinary build again: the variant's files stay
    assert "removed" not in output
    assert (folder / f"{GAME}-rules-a4-inksaver.pdf").read_bytes() == inked
    assert (folder / f"{GAME}-rules-a4.pdf").read_bytes() == ordinary[1][f"{GAME}-rules-a4.pdf"]
    record = json.loads((folder / ".written.json").read_text(encoding="utf-8"))
    assert record[f"{GAME}-rules-a4-inksaver.pdf"]["variant"] == "-inksaver"
    assert record[f"{GAME}-rules-a4.pdf"]["variant"] == ""


def test_a_game_that_gains_a_language_still_loses_its_old_ink_saver_rulebook(ordinary, tmp_path):
    """The sweep still removes a variant's rulebook an earlier build of the same variant wrote under a
    name this one replaces (the record's own case: x-rules-a4-inksaver.pdf → …-inksaver-en.pdf)."""
    from generator.sheets.written import RECORD, Selection, replace_earlier
    build = tmp_path / "build"
    (build / "x").mkdir(parents=True)
    ink = Selection("en", ("a4",), None, "-inksaver", rules_variant="-inksaver")
    plain = Selection("en", ("a4",), None, "")
    for name in ("x-rules-a4.pdf", "x-rules-a4-inksaver.pdf"):
        (build / "x" / name).write_bytes(b"old")
    replace_earlier(build, "x", plain, {"x-rules-a4.pdf": plain.entry(None, False, "a4")})
    replace_earlier(build, "x", ink, {"x-rules-a4-inksaver.pdf": ink.entry(None, False, "a4")})
    assert replace_earlier(build, "x", plain, {"x-rules-a4-en.pdf": plain.entry(None, False, "a4")}) \
        == ["x-rules-a4.pdf"]                      # the ordinary build leaves the ink-saver rulebook
    assert replace_earlier(build, "x", ink, {"x-rules-a4-inksaver-en.pdf": ink.entry(None, False, "a4")}) \
        == ["x-rules-a4-inksaver.pdf"]
    assert set(json.loads((build / "x" / RECORD).read_text())) == {"x-rules-a4-en.pdf", "x-rules-a4-inksaver-en.pdf"}


def test_the_back_offset_leaves_the_rulebook_as_it_was(ordinary, tmp_path):
    project = _copy(ordinary, tmp_path)
    _build(project, "--back-offset", "1,-1")
    rules = (project / "build" / GAME / f"{GAME}-rules-a4.pdf").read_bytes()
    assert rules == ordinary[1][f"{GAME}-rules-a4.pdf"]


def _grey_column(pdf: Path, page: int, x_mm: float, y_mm: tuple[float, float], tmp_path: Path) -> list[int]:
    """The grey values (0 black … 255 white) of the pixels of one page along x = x_mm, at 80 dpi."""
    out = tmp_path / f"{pdf.stem}-{page}"
    subprocess.run(["pdftoppm", "-r", "80", "-gray", "-f", str(page), "-l", str(page), str(pdf), str(out)], check=True)
    raw = next(tmp_path.glob(f"{out.name}*.pgm")).read_bytes()
    width, height = map(int, raw.split(b"\n", 3)[1].split())
    pixels = raw.split(b"\n", 3)[3]
    x = round(x_mm / 25.4 * 80)
    return [pixels[y * width + x] for y in range(round(y_mm[0] / 25.4 * 80), round(y_mm[1] / 25.4 * 80))]


def test_the_ink_saver_card_has_no_box_across_its_art(ordinary, tmp_path):
    """The scaffold's card places its picture in a band as wide as the card (.art): ink saver drew that
    band's outline across the picture and through the cut line between two cards."""
    project = _copy(ordinary, tmp_path)
    _build(project, "--ink-saver", "--players", "2")
    name = f"{GAME}-2p-a4-inksaver"
    manifest = json.loads((project / "build" / GAME / f"{name}.json").read_text(encoding="utf-8"))
    page = next(p for p in manifest["pages"] if p["role"] == "cards-front")
    first, second = page["slots"][0]["trim"], page["slots"][1]["trim"]
    assert abs(first[0] + first[2] - second[0]) < 0.01 and first[1] == second[1]   # side by side, sharing a cut
    column = _grey_column(project / "build" / GAME / f"{name}.pdf", page["number"], second[0],
                          (first[1] + 2, first[1] + first[3] - 2), tmp_path)
    assert min(column) > 235, f"a line crosses the cut between two cards: {sorted(column)[:5]}"
    inked = _grey_column(project / "build" / GAME / f"{name}.pdf", page["number"], first[0] + first[2] / 2,
                         (first[1] + 2, first[1] + first[3] - 2), tmp_path)
    assert min(inked) < 128                        # (the card itself is drawn: its text and picture)


# --- the site ------------------------------------------------------------------------------------

def _rows(project: Path, table: str = "packs") -> list[tuple[str, list[str]]]:
    """(file, tags) of each row of a table of the game's page: packs, rules or reprint."""
    html = (project / "build" / "site" / GAME / "en.html").read_text(encoding="utf-8")
    start = html.find(f'<h2 id="{table}">')
    if start < 0:
        return []
    section = html[start:html.find("<h2", start + 1)]
    rows = []
    for row in re.findall(r"<tr>(.*?)</tr>", section, re.S):
        file = re.search(r"download>([^<]+)</a>", row)
        if file:
            rows.append((file[1], re.findall(r'class="tag">([^<]+)<', row)))
    return rows


def test_the_site_offers_drafts_only_when_asked_and_labels_every_variant(ordinary, tmp_path):
    project = _copy(ordinary, tmp_path)
    _build(project, "--draft", "--players", "2")
    _build(project, "--ink-saver", "--players", "2")
    result = pnp(project, "site")
    assert result.exit_code == 0, result.output
    assert f"{GAME}: left off the site, a draft (pnp site --drafts shows it): {GAME}-2p-a4-draft.pdf" in result.output
    assert _rows(project) == [(f"{GAME}-2p-a4.pdf", []), (f"{GAME}-3p-a4.pdf", []),
                              (f"{GAME}-2p-a4-inksaver.pdf", ["ink saver"])]
    assert _rows(project, "rules") == [(f"{GAME}-rules-a4.pdf", []), (f"{GAME}-rules-a4-inksaver.pdf", ["ink saver"])]
    assert pnp(project, "site", "--drafts").exit_code == 0
    rows = _rows(project)
    assert rows[:2] == [(f"{GAME}-2p-a4.pdf", []), (f"{GAME}-3p-a4.pdf", [])]       # the real packs first
    assert (f"{GAME}-2p-a4-draft.pdf", ["draft"]) in rows


def test_a_draft_alone_is_never_the_2_player_pack(ordinary, tmp_path):
    """The draft the only 2-player A4 pack there: it is not offered as one."""
    project = _copy(ordinary, tmp_path)
    folder = project / "build" / GAME
    _build(project, "--draft", "--players", "2")
    for name in (f"{GAME}-2p-a4.pdf", f"{GAME}-2p-a4.json"):
        (folder / name).unlink()
    assert pnp(project, "site").exit_code == 0
    assert [file for file, _ in _rows(project)] == [f"{GAME}-3p-a4.pdf"]


def test_a_file_whose_name_says_more_than_its_manifest_is_left_off(ordinary, tmp_path):
    """An older engine's draft: its manifest did not say draft. Named -draft, it is not offered unlabelled."""
    project = _copy(ordinary, tmp_path)
    folder = project / "build" / GAME
    _build(project, "--draft", "--players", "2")
    manifest = json.loads((folder / f"{GAME}-2p-a4-draft.json").read_text(encoding="utf-8"))
    del manifest["print"]["draft"]
    (folder / f"{GAME}-2p-a4-draft.json").write_text(json.dumps(manifest), encoding="utf-8")
    result = pnp(project, "site", "--drafts")
    assert result.exit_code == 0
    assert f"its name is not the one its manifest's print settings give: {GAME}-2p-a4-draft.pdf" in result.output
    assert f"{GAME}-2p-a4-draft.pdf" not in [file for file, _ in _rows(project)]


def test_a_reprint_is_offered_only_while_its_cards_are_current(ordinary, tmp_path):
    project = _copy(ordinary, tmp_path)
    cards = project / "cards" / GAME / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    cards.write_text(text.replace('"**Draw** 1 card."', '"**Draw** 2 cards."'), encoding="utf-8")
    _build(project)
    result = pnp(project, "reprint", GAME, "--paper", "a4")
    assert result.exit_code == 0 and f"wrote build/{GAME}/{GAME}-reprint-a4.pdf" in result.output, result.output
    assert pnp(project, "site").exit_code == 0
    assert _rows(project, "reprint") == [(f"{GAME}-reprint-a4.pdf", [])]
    cards.write_text(text, encoding="utf-8")      # the edit reverted and built: the reprint holds old text
    _build(project)
    result = pnp(project, "site")
    assert result.exit_code == 0
    assert f"{OLD}: {GAME}-reprint-a4.pdf" in result.output
    assert _rows(project, "reprint") == []
    assert [file for file, _ in _rows(project)] == [f"{GAME}-2p-a4.pdf", f"{GAME}-3p-a4.pdf"]


def test_a_variant_older_than_the_last_build_is_left_off(ordinary, tmp_path):
    project = _copy(ordinary, tmp_path)
    _build(project, "--ink-saver", "--players", "2")
    game = project / "cards" / GAME / "cards.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace("name: Spark,", "name: Flash,"), encoding="utf-8")
    _build(project)
    result = pnp(project, "site")
    assert result.exit_code == 0
    assert f"{OLD}: {GAME}-2p-a4-inksaver.pdf" in result.output
    assert [file for file, _ in _rows(project)] == [f"{GAME}-2p-a4.pdf", f"{GAME}-3p-a4.pdf"]


# --- page 1 counts pages in number ---------------------------------------------------------------

def _page_one(pdf: Path) -> str:
    return subprocess.run(["pdftotext", "-f", "1", "-l", "1", "-layout", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout


def _rulebook_row(text: str, word: str) -> str:
    return next(line for line in text.splitlines() if line.strip().startswith(word))


def test_page_one_counts_a_one_page_rulebook_as_one_page(ordinary, tmp_path):
    project = _copy(ordinary, tmp_path)
    two = _rulebook_row(_page_one(project / "build" / GAME / f"{GAME}-2p-a4.pdf"), "Rulebook")
    assert re.search(r"\b2 pages\b", two), two
    (project / "cards" / GAME / "rulebook" / "en.md").write_text(
        "# {{ game.title }}\n\n## Play\n\nThe first player to reach {{ derived.goal }} points wins.\n", encoding="utf-8")
    _build(project, "--players", "2")
    manifest = json.loads((project / "build" / GAME / f"{GAME}-2p-a4.json").read_text(encoding="utf-8"))
    assert next(c for c in manifest["components"] if c["kind"] == "rulebook")["count"] == 1
    one = _rulebook_row(_page_one(project / "build" / GAME / f"{GAME}-2p-a4.pdf"), "Rulebook")
    assert re.search(r"\b1 page\b", one) and "1 pages" not in one, one


def test_the_rulebook_page_count_agrees_in_number_in_both_catalogues():
    from generator.source.i18n import translator
    en, zh = translator("en"), translator("zh-Hans")
    count = "%(count)d page", "%(count)d pages"
    assert [en.ngettext(*count, n) % {"count": n} for n in (1, 2)] == ["1 page", "2 pages"]
    assert [zh.ngettext(*count, n) % {"count": n} for n in (1, 2)] == ["1 页", "2 页"]
    info = (Path(__file__).resolve().parent.parent / "generator/templates/base/info.html").read_text(encoding="utf-8")
    assert '_("pages")' not in info                # no bare plural beside a number that may be 1
