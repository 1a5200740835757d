"""Red-team of the pack store (sheets/pack_store.py, issue #35), by a reader who did not write it.

The claim: whole packs and standalone rules files are taken from build/.cache/packs (records in
build/.cache/pack-records) when every part's key and page 1 are unchanged. After any sequence of edits of
the inputs and print options, and with store entries damaged, a warm build writes byte for byte what a cold
build of the same inputs writes, prints no stale page, skips no preflight refusal, never crashes and stays
inside build/.

One warm project (the bilingual night-market game with a board and a rulebook, its Chinese edition,
3 players, A4) is built once (module scope) and copied for each case. A case that ends on the first
inputs compares with that first build (a cold build of them); one that ends elsewhere builds cold.

What broke (each a test below, each fixed): a folder of the store linked outside build/ was written
through, and a named pipe in a record's place blocked the build forever (atomic.py); an entry linked to a
file outside build/ was read through the link, and a pipe in an entry's place blocked (FaceCache.read now
reads regular files only, as records are read); rules kept by a --draft build were taken unchecked by a
build without it, and a --draft pack taken back said the draft warnings of another page 1 (a pack or rules
file that passed preflight with warnings is no longer kept: PackStore.keep).
"""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests import damage as harm
from tests.conftest import pnp
from tests.test_rebuild_sequences import _project

GAME = "night-market"
NM = f"cards/{GAME}/"
PLAIN = ("build", GAME, "--players", "3", "--lang", "zh-Hans")
ARGS = (*PLAIN, "--paper", "a4")
PACK, RULES = f"{GAME}-3p-a4-zh-Hans.pdf", f"{GAME}-rules-a4-zh-Hans.pdf"


def _run(project: Path, *args: str) -> str:
    result = pnp(project, *(args or ARGS))
    assert result.exit_code == 0, result.output
    return result.output


def _said(output: str) -> list[str]:
    """The build's lines but the count of faces drawn (a cold build draws them all), with a file it left
    as it found it ("unchanged") said as written (a cold build finds none)."""
    return [re.sub(r"^unchanged ", "wrote ", line) for line in output.splitlines() if "rendered" not in line]


def _outputs(project: Path) -> dict[str, bytes]:
    folder = project / "build" / GAME
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)}


def _cold(project: Path, target: Path, *args: str) -> dict[str, bytes]:
    shutil.copytree(project, target, symlinks=True, ignore=shutil.ignore_patterns("build"))
    _run(target, *args)
    return _outputs(target)


def _force(project: Path) -> None:
    """Past the up-to-date stamps, so that the build meets the store (a pack's bytes are no input)."""
    for stamp in (project / "build" / GAME).glob(".*.json"):
        if stamp.name not in (".faces.json", ".written.json"):
            stamp.unlink()


def _entries(project: Path, kind: str, suffix: str = ".pdf") -> list[Path]:
    return sorted(p for p in (project / "build/.cache" / kind).rglob(f"*{suffix}")
                  if p.is_file() and "by-name" not in p.parts)


@pytest.fixture(scope="module")
def warm(tmp_path_factory) -> tuple[Path, dict[str, bytes]]:
    project = _project(tmp_path_factory.mktemp("warm") / "project")
    _run(project)
    outputs = _outputs(project)
    assert sorted(n for n in outputs if n.endswith(".pdf")) == [PACK, RULES]
    return project, outputs


@pytest.fixture
def made(monkeypatch) -> list[str]:
    """The packs and rules files made (not taken from the store) by the builds of a test, by name."""
    from generator.sheets import kit, pack
    names: list[str] = []
    build, rules = pack.PackBuilder.build, kit.build_rules

    def _build(self, p, paper, *args, **kwargs):
        made = build(self, p, paper, *args, **kwargs)
        if made.passed is None:
            names.append(f"{p.key}-{paper}")
        return made

    def build_rules(game, assets, pages, paper, title):
        names.append(f"rules-{paper}")
        return rules(game, assets, pages, paper, title)
    monkeypatch.setattr(pack.PackBuilder, "build", _build)
    monkeypatch.setattr(kit, "build_rules", build_rules)
    return names


def _copy(warm, tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(warm[0], target, symlinks=True)
    return target


def _sub(name: str, old: str, new: str):
    def edit(p: Path) -> None:
        path = p / name
        text = path.read_text(encoding="utf-8")
        assert old in text, (name, old)
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return edit


def _sources(p: Path) -> dict[Path, bytes]:
    """Every file of the project but build/, through linked folders (fonts/, icons/) too."""
    found = {}
    for base, dirs, files in os.walk(p, followlinks=True):
        dirs[:] = [d for d in dirs if not (Path(base) == p and d == "build")]
        found.update({Path(base) / f: (Path(base) / f).read_bytes() for f in files})
    return found


def _undo(p: Path, before: dict[Path, bytes]) -> None:
    for path, data in _sources(p).items():
        if path not in before:
            path.unlink()
        elif data != before[path]:
            path.write_bytes(before[path])


# --- edits, one after another: warm == cold at the end, and an edit undone takes every file -------------

EDITS = {
    "a card's text": _sub(NM + "stalls.yaml", "motto: 红红火火", "motto: 红红火火火"),
    "a card the rulebook quotes": _sub(NM + "goods.yaml", "name: 走马灯,", "name: 走马灯笼,"),
    "the board's label": _sub(NM + "pieces.yaml", "夜市计分板 · {{ pack.players }} 人", "夜市大计分板 · {{ pack.players }} 人"),
    "rules.py (the rulebook's and the board's number)": _sub(NM + "rules.py", "GOAL = 25", "GOAL = 26"),
    "the rulebook's Markdown": _sub(NM + "rulebook/zh-Hans.md", "货品牌的第一张", "货品牌里的第一张"),
    "game.yaml (the title every page 1 and the rules print)": _sub(NM + "game.yaml", "title: 夜市摊主", "title: 夜市摊主人"),
    "a card template": _sub(f"templates/{GAME}/goods.html", '{{ _("文") }}', '{{ _("文") }}!'),
    "a stylesheet": _sub(f"templates/{GAME}/market.css", ".kind { top: 50mm; font-size: 8pt; color: #7a6a8a; }",
                         ".kind { top: 50mm; font-size: 8pt; color: #aa0000; }"),
    "pnp.toml (short-edge duplex)": lambda p: (p / "pnp.toml").write_text('[print]\nduplex = "short"\n'),
}


# --- more edit kinds: a font, an icon, a picture and a template only page 1 reads ------------------------

def _own_copy(p: Path, folder: str) -> None:
    """The shared folder (a link to the repository's) copied into the project, to edit."""
    target = (p / folder).resolve()
    (p / folder).unlink()
    shutil.copytree(target, p / folder)


def _font(p: Path) -> None:
    _own_copy(p, "fonts")
    (p / "fonts/NotoSansSC-Regular.ttf").write_bytes((p / "fonts/NotoSansSC-Bold.ttf").read_bytes())


def _icon(p: Path) -> None:
    _own_copy(p, "icons")
    path = p / "icons/twemoji/1f3c6.svg"            # the trophy on the board's track
    path.write_text(path.read_text().replace('fill="#FFAC33"', 'fill="#3355FF"', 1))


def _page_one(text: str):
    return lambda p: (p / f"templates/{GAME}/info.html").write_text(f"<p>{text}</p>", encoding="utf-8")


EDITS.update({
    "a font file": _font,
    "an icon the board draws": _icon,
    "a game's info.html (page 1 only)": _page_one("Market note two"),
    "the rulebook's stylesheet": lambda p: (p / f"templates/{GAME}/rulebook.css").write_text(
        "h2 { color: #aa0000; }\n", encoding="utf-8"),
})


ONE_BY_ONE = ["a card the rulebook quotes", "the board's label", "rules.py (the rulebook's and the board's number)",
              "the rulebook's Markdown", "a game's info.html (page 1 only)", "a font file"]


@pytest.mark.parametrize("what", ONE_BY_ONE)
def test_an_edit_builds_what_a_cold_build_writes_and_undone_takes_every_file(warm, tmp_path, made, what):
    project = _copy(warm, tmp_path)
    before = _sources(project)
    EDITS[what](project)
    _run(project)
    edited = _outputs(project)
    assert edited != warm[1] and made, what     # (the edit is printed, by a pack made again)
    assert edited == _cold(project, tmp_path / "cold"), what
    made.clear()
    _undo(project, before)
    _run(project)
    assert _outputs(project) == warm[1], what
    assert made == [], (what, made)             # every file taken from the store


def test_every_edit_kind_one_after_another_then_all_undone(warm, tmp_path):
    """Each edit on top of the ones before, a build after each (so the store holds a pack of every step
    and evicts the oldest); then a cold build of the end; then every edit undone at once."""
    project = _copy(warm, tmp_path)
    before = _sources(project)
    for what in sorted(EDITS):
        EDITS[what](project)
        assert "wrote" in _run(project), what
    assert _outputs(project) == _cold(project, tmp_path / "cold")
    _undo(project, before)
    _run(project)
    assert _outputs(project) == warm[1]


# --- print options between builds: each its own pack, the default then taken as it was ------------------

OPTION_RUNS = {
    "--duplex short": ("--duplex", "short"),
    "--duplex none": ("--duplex", "none"),
    "--ink-saver": ("--ink-saver",),
    "--cutter silhouette": ("--cutter", "silhouette"),
    "--fit": ("--fit",),
    "--draft": ("--draft",),
    "--sheets per-deck": ("--sheets", "per-deck"),
    "--back-offset": ("--back-offset", "0.5,-0.5"),
}


COLD_CHECKED = ("--cutter silhouette", "--draft")     # each built warm, then cold, and compared


def test_every_print_option_in_between_then_the_default_is_taken(warm, tmp_path, made):
    """Each print option built in turn on the store of the ones before; a build with --cutter or --draft
    writes what a cold build with it writes (the default's files stay beside them); then the default is
    taken from the store, byte for byte the first build's. (Once a test of its own for --draft and for
    --cutter, each from the first build's store: the same option builds and assertions, here on a store
    that saw more; the default after --back-offset, which rewrote its file, is made from the store.)"""
    project = _copy(warm, tmp_path)
    for what, extra in OPTION_RUNS.items():
        assert "wrote" in _run(project, *ARGS, *extra), what
        if what in COLD_CHECKED:
            out, cold = _outputs(project), _cold(project, tmp_path / ("cold " + what), *ARGS, *extra)
            assert {n: out.get(n) for n in cold} == cold, what        # (the default's files stay beside them)
    made.clear()
    _run(project)
    out = _outputs(project)
    # seven packs beside the default's: --back-offset writes the default's file (the last build rewrote it)
    assert len([n for n in out if n.startswith(f"{GAME}-3p-") and n.endswith(".pdf")]) == len(OPTION_RUNS)
    assert {n: out[n] for n in warm[1]} == warm[1] and made == []


# --- damaged entries and records: a miss, made again, never printed --------------------------------------

def _each(kind: str, action, suffix: str = ".pdf"):
    def damage(p: Path) -> None:
        entries = _entries(p, kind, suffix)
        assert len(entries) == 2, (kind, entries)           # the pack's and the rules file's
        for entry in entries:
            action(entry)
    return damage


def _pair(kind: str, action, suffix: str = ".pdf"):
    def damage(p: Path) -> None:
        first, second = _entries(p, kind, suffix)
        action(first, second)
    return damage


def _listings(action):
    """Each by-name listing damaged, and the pack entries gone: every file made again and kept, which
    reads and writes its listing."""
    def damage(p: Path) -> None:
        listings = sorted((p / "build/.cache/pack-records/by-name").iterdir())
        assert len(listings) == 2, listings
        for listing in listings:
            action(listing)
        shutil.rmtree(p / "build/.cache/packs")
    return damage


DAMAGE = {
    "pack entries cut": _each("packs", harm.cut),
    "pack entries garbled in place": _each("packs", harm.garble),
    "pack entries emptied": _each("packs", lambda path: path.write_bytes(b"")),
    "pack entries folders": _each("packs", harm.folder),
    "pack entries swapped (the pack's and the rules')": _pair("packs", harm.swap),
    "the pack's entry a symlink to the rules'": _pair("packs", lambda a, b: harm.symlink_to(a, b)),
    "the rules' entry a symlink to the pack's": _pair("packs", lambda a, b: harm.symlink_to(b, a)),
    "pack entries links to a game file and the game's folder": _pair("packs", lambda a, b: (
        harm.symlink_to(a, a.parents[4] / NM / "game.yaml"), harm.symlink_to(b, b.parents[4] / NM))),
    "record manifests links to a game file": _each("pack-records", lambda a: harm.symlink_to(
        a, a.parents[4] / NM / "rules.py"), ".json"),
    "pack entries removed": _each("packs", Path.unlink),
    "pack entry manifests swapped": _pair("packs", harm.swap, ".json"),
    "pack entry manifests garbled": _each("packs", harm.garble, ".json"),
    "pack entry manifests emptied": _each("packs", lambda path: path.write_bytes(b""), ".json"),
    "pack entry manifests of the wrong shape": _each("packs", harm.json_as({"entries": [{"key": "0" * 40}]}), ".json"),
    "records cut": _each("pack-records", harm.cut),
    "records garbled": _each("pack-records", harm.garble),
    "records swapped": _pair("pack-records", harm.swap),
    "records folders": _each("pack-records", harm.folder),
    "record manifests swapped": _pair("pack-records", harm.swap, ".json"),
    "record manifests folders": _each("pack-records", harm.folder, ".json"),
    "by-name listings garbled": _listings(harm.garble),
    "by-name listings folders": _listings(harm.folder),
    "by-name listings of the wrong shape": _listings(harm.json_as({"keys": [1, "../../x", None]})),
    "by-name listings naming keys that are not hex": _listings(harm.json_as(["../../../../cards", "a" * 64 + "/.."])),
    "by-name listings swapped (the pack's and the rules')": lambda p: (
        harm.swap(*sorted((p / "build/.cache/pack-records/by-name").iterdir())), shutil.rmtree(p / "build/.cache/packs")),
    "the by-name folder a file": lambda p: (shutil.rmtree(p / "build/.cache/pack-records/by-name"),
                                            (p / "build/.cache/pack-records/by-name").write_text("x"),
                                            shutil.rmtree(p / "build/.cache/packs")),
    "the folders of pack entries files": _each("packs", lambda a: a.parent.is_dir() and (  # (one may hold both)
        shutil.rmtree(a.parent), a.parent.write_text("x"))),
    "the packs store a file": lambda p: (shutil.rmtree(p / "build/.cache/packs"),
                                         (p / "build/.cache/packs").write_text("x")),
    "the pack-records store a file": lambda p: (shutil.rmtree(p / "build/.cache/pack-records"),
                                                (p / "build/.cache/pack-records").write_text("x")),
    "page 1's entries removed": lambda p: shutil.rmtree(p / "build/.cache/info"),
    "the rulebook's entries removed": lambda p: shutil.rmtree(p / "build/.cache/rulebook"),
}


def test_damage_after_damage_each_a_miss_and_each_build_equals_the_first(warm, tmp_path):
    """Each damage done to the store as the build before left it, then a build: every time the files
    are the first build's (a damaged entry is never printed), and the build says nothing else."""
    project = _copy(warm, tmp_path)
    sources = _sources(project)
    _force(project)
    said = _said(_run(project))
    for what, damage in DAMAGE.items():
        damage(project)
        _force(project)
        assert _said(_run(project)) == said, what
        assert _outputs(project) == warm[1], what
    _force(project)
    _run(project)                               # and what it kept last is whole
    assert _outputs(project) == warm[1]
    assert _sources(project) == sources         # (a link followed never wrote nor removed a game's file)


# --- sequences ---------------------------------------------------------------------------------------------

MOTTO = NM + "stalls.yaml"


def test_more_variants_than_the_store_keeps_then_the_first_again(warm, tmp_path, made):
    """Six edits of one card (the store keeps four packs of a file name): the first inputs again make
    the evicted pack anew, byte for byte the first build's, and the store holds four of that name."""
    from generator.sheets.pack_store import KEEP
    project = _copy(warm, tmp_path)
    before = _sources(project)
    for n in range(1, KEEP + 3):
        _sub(MOTTO, "motto: 红红火火" + "火" * (n - 1) + "}", "motto: 红红火火" + "火" * n + "}")(project)
        _run(project)
    made.clear()
    _undo(project, before)
    _run(project)
    assert made == ["3p-a4"]                    # evicted: made again; the rules taken
    assert _outputs(project) == warm[1]
    listing = json.loads((project / f"build/.cache/pack-records/by-name/{PACK}.json").read_text())
    assert len(listing) == KEEP and len(_entries(project, "packs")) == KEEP + 1


# --- links: the store never writes (nor reads) outside build/ ---------------------------------------------

def _link_out(folder: Path, outside: Path) -> None:
    """`folder` replaced by a link to an empty folder outside the project."""
    target = outside / folder.name
    target.mkdir(parents=True)
    shutil.rmtree(folder)
    folder.symlink_to(target, target_is_directory=True)


@pytest.mark.parametrize("linked", ["each folder of pack entries and records", "the folder of by-name listings",
                                    "the packs store", "the whole store"])
def test_a_store_folder_linked_outside_build_is_not_written_through(warm, tmp_path, linked):
    project, outside = _copy(warm, tmp_path), tmp_path / "outside"
    store = project / "build/.cache"
    folders = {"each folder of pack entries and records":
               [f for kind in ("packs", "pack-records") for f in (store / kind).iterdir() if f.name != "by-name"],
               "the folder of by-name listings": [store / "pack-records/by-name"],
               "the packs store": [store / "packs", store / "pack-records"],
               "the whole store": [store]}[linked]
    for n, folder in enumerate(folders):
        _link_out(folder, outside / str(n))
    if not (store / "packs").is_symlink():
        shutil.rmtree(store / "packs", ignore_errors=True)     # (so that every pack is made and kept)
    _force(project)
    _run(project)
    assert _outputs(project) == warm[1]
    assert [p for p in outside.rglob("*") if p.is_file()] == []
    _force(project)
    _run(project)                                # what it kept, it kept in build/ and takes
    assert _outputs(project) == warm[1]


def test_a_pack_entry_linked_to_a_copy_outside_build_is_not_read(warm, tmp_path, made):
    project, outside = _copy(warm, tmp_path), tmp_path / "outside"
    outside.mkdir()
    for entry in _entries(project, "packs"):
        copy = outside / entry.name
        shutil.copyfile(entry, copy)
        harm.symlink_to(entry, copy)
    _force(project)
    _run(project)
    assert _outputs(project) == warm[1]
    assert sorted(made) == ["3p-a4", "rules-a4"]        # a link is not an entry: made again, kept in build/
    assert not any(entry.is_symlink() for entry in _entries(project, "packs"))


# --- what the build says: a pack taken says what a cold build says -----------------------------------------

def test_a_draft_page_one_taken_back_keeps_its_draft_warning(warm, tmp_path):
    """--draft: page 1 (a game's info.html) shows a picture under 300 dpi, a draft warning; then
    another page 1 without it; then the first again. Its pack is taken from the store, byte for byte
    the cold build's, and the build must say what the cold build says: 1 draft warning."""
    from PIL import Image
    project = _copy(warm, tmp_path)
    Image.new("RGB", (60, 40), (200, 30, 30)).save(project / f"templates/{GAME}/stamp.png")
    coarse = f'<p>Market note</p><img src="templates/{GAME}/stamp.png" style="width: 40mm">'
    draft = (*ARGS, "--draft")
    _page_one(coarse)(project)
    assert "1 draft warning" in _run(project, *draft)
    _page_one("Market note")(project)
    _run(project, *draft)
    _page_one(coarse)(project)
    out = _run(project, *draft)
    cold = tmp_path / "cold"
    shutil.copytree(project, cold, symlinks=True, ignore=shutil.ignore_patterns("build"))
    said, fresh, files = _run(cold, *draft), _outputs(cold), _outputs(project)
    assert {n: files.get(n) for n in fresh} == fresh      # (the default's files beside)
    assert _said(out) == _said(said)


# --- sequences of builds with other commands and selections in between -------------------------------------

def _same_as_cold(project: Path, cold: Path, *args: str, beside: tuple[str, ...] = ()) -> None:
    """The warm project's files are, byte for byte, those a cold build of the same inputs writes (and
    those of another command named `beside`)."""
    fresh = _cold(project, cold, *args)
    warm = _outputs(project)
    assert {n: b for n, b in warm.items() if not n.startswith(beside)} == fresh


CARD = _sub(MOTTO, "motto: 红红火火}", "motto: 红红火火火}")


def test_a_reprint_then_a_build(warm, tmp_path, made):
    project = _copy(warm, tmp_path)
    CARD(project)
    out = _run(project, "reprint", GAME, "--paper", "a4", "--lang", "zh-Hans")
    assert "reprint" in out
    _run(project)
    _same_as_cold(project, tmp_path / "cold", beside=(f"{GAME}-reprint-",))


def test_a_pack_entry_swapped_with_the_same_packs_older_one(warm, tmp_path, made):
    """Two packs of one file (before and after a card edit) trade their entries and records: each is a
    miss, made again from its parts."""
    project = _copy(warm, tmp_path)
    before = _sources(project)
    CARD(project)
    _run(project)
    store = project / "build/.cache"
    new, old = json.loads((store / f"pack-records/by-name/{PACK}.json").read_text())

    def entry(kind: str, key: str) -> Path:
        (found,) = json.loads((store / kind / key[:2] / f"{key}.json").read_text())["entries"]
        return store / kind / found["key"][:2] / f"{found['key']}.pdf"
    harm.swap(entry("pack-records", old), entry("pack-records", new))
    harm.swap(entry("packs", old), entry("packs", new))
    made.clear()
    _undo(project, before)
    _run(project)
    assert _outputs(project) == warm[1] and made == ["3p-a4"]


# --- two editions: an edit in one language takes every pack of the other, undone every pack of both ---------

BOTH = ("build", GAME, "--players", "3", "--paper", "a4")


def test_an_edit_of_one_edition_and_undone_with_both_built(warm, tmp_path, made):
    project = _copy(warm, tmp_path)
    before = _sources(project)
    assert "wrote" in pnp(project, *BOTH, every_language=True).output
    first = _outputs(project)
    assert len([n for n in first if n.endswith(".pdf")]) == 4
    made.clear()
    _sub(NM + "i18n/en.yaml", "Roll ≥ 4: gain 2 coins.", "Roll 4+: gain 2 coins.")(project)
    assert pnp(project, *BOTH, every_language=True).exit_code == 0
    assert made == ["3p-a4"]                    # the English pack; its rules and the Chinese edition taken
    edited = _outputs(project)
    assert [n for n in first if edited[n] != first[n]] == [f"{GAME}-3p-a4-en.pdf"]
    cold = tmp_path / "cold"
    shutil.copytree(project, cold, symlinks=True, ignore=shutil.ignore_patterns("build"))
    assert pnp(cold, *BOTH, every_language=True).exit_code == 0
    assert _outputs(cold) == edited
    made.clear()
    _undo(project, before)
    assert pnp(project, *BOTH, every_language=True).exit_code == 0
    assert _outputs(project) == first and made == []


# --- page 1 never stale: its page numbers follow a rulebook that grows --------------------------------------

def test_page_one_lists_the_rulebook_pages_of_a_rulebook_that_grew(warm, tmp_path):
    project = _copy(warm, tmp_path)
    more = "\n".join(f"## {n} 规则\n\n" + "每位摊主轮流出一张货品牌，然后收钱。" * 20 for n in range(2, 40))
    rulebook = project / NM / "rulebook/zh-Hans.md"
    rulebook.write_text(rulebook.read_text(encoding="utf-8") + "\n" + more + "\n", encoding="utf-8")
    _run(project)
    grown = _outputs(project)
    pages = len(PdfReader(project / "build" / GAME / PACK).pages)
    assert pages > len(PdfReader(warm[0] / "build" / GAME / PACK).pages)
    page_one = PdfReader(project / "build" / GAME / PACK).pages[0].extract_text()
    runs = json.loads(grown[PACK.replace(".pdf", ".json")])["runs"]
    assert f"共 {pages} 页" in page_one and runs[0]["pages"][1] > 3
    for a, b in (run["pages"] for run in runs):
        assert (f"第 {a}–{b} 页" if a != b else f"第 {a} 页") in page_one
    assert grown == _cold(project, tmp_path / "cold")


# --- preflight: a file taken from the store is one a cold build would not refuse --------------------------

def _coarse_figure_in_the_rules_only(p: Path) -> None:
    """The grey stall (in no 3-player pack) gets a 20 × 20 px portrait, and the rulebook shows its card in
    the standalone rules only ({% if not pack %}): no face of the pack has the picture, so only the rules
    file's preflight finds it (under 300 dpi: an error, a warning with --draft)."""
    from PIL import Image
    stalls = p / MOTTO
    stalls.write_text(stalls.read_text(encoding="utf-8").replace(
        "    motto: {type: text}\n", "    motto: {type: text}\n    portrait: {type: image, required: false}\n").replace(
        "motto: 稳如磐石}", "motto: 稳如磐石, portrait: art/grey.png}"), encoding="utf-8")
    (p / NM / "art").mkdir()
    Image.new("RGB", (20, 20), (90, 90, 90)).save(p / NM / "art/grey.png")
    face = p / f"templates/{GAME}/stall.html"
    face.write_text(face.read_text(encoding="utf-8") + "{% if card.portrait %}{{ art(card.portrait) }}{% endif %}\n",
                    encoding="utf-8")
    rulebook = p / NM / "rulebook/zh-Hans.md"
    rulebook.write_text(rulebook.read_text(encoding="utf-8")
                        + '\n{% if not pack %}{{ figure("card", "stalls/stall-grey", "石灯摊位") }}{% endif %}\n',
                        encoding="utf-8")


def test_rules_kept_by_a_draft_build_are_refused_without_draft_as_a_cold_build_refuses_them(warm, tmp_path):
    project = _copy(warm, tmp_path)
    _coarse_figure_in_the_rules_only(project)
    _run(project, *ARGS, "--draft")
    warm_result = pnp(project, *ARGS)
    cold = tmp_path / "cold"
    shutil.copytree(project, cold, symlinks=True, ignore=shutil.ignore_patterns("build"))
    cold_result = pnp(cold, *ARGS)
    assert cold_result.exit_code == 1 and f"{RULES}: preflight: page 2" in cold_result.output
    assert (warm_result.exit_code, _said(warm_result.output)) == (1, _said(cold_result.output))


def test_a_pack_that_became_cards_only_and_back(warm, tmp_path, made):
    """No rulebook and no pieces: the pack is built on its last file (sheets/sheet_cache.py), not a store
    value; with them back it is the store's again, and taken."""
    project = _copy(warm, tmp_path)
    before = _sources(project)
    shutil.rmtree(project / NM / "rulebook")
    _sub(NM + "game.yaml", '    pieces: {market-board: 1, coin: "{{ derived.coins[3] }}", first-marker: 1}\n', "")(project)
    _run(project)
    _same_as_cold(project, tmp_path / "cold")
    made.clear()
    _undo(project, before)
    for path, data in before.items():       # the rulebook's files, removed above (only those: the others
        if not path.exists():               # include fonts/ and icons/, links to the repository's)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    _run(project)
    out = _outputs(project)
    assert {n: out.get(n) for n in warm[1]} == warm[1] and made == []


# --- a named pipe in an entry's place: a miss, never a build that waits forever --------------------------

def _without_waiting(call, fifos: list[Path], seconds: float = 20):
    """call()'s value, made in a thread; a call still waiting after `seconds` fails the test (after the
    pipes are opened and closed for writing until the thread ends: a reader waiting on one sees its end)."""
    import threading
    import time
    done: dict = {}
    thread = threading.Thread(target=lambda: done.update(value=call()), daemon=True)
    thread.start()
    thread.join(seconds)
    waited = thread.is_alive()
    end = time.monotonic() + 30
    while thread.is_alive() and time.monotonic() < end:
        for fifo in fifos:
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass                            # (no reader waits on it, or it is gone)
        thread.join(0.05)
    assert not waited, "the build waited on a named pipe in the store"
    return done.get("value")


def _fifo(path: Path) -> Path:
    path.unlink()
    os.mkfifo(path)
    return path


FIFOS = {
    "by-name listings": lambda p: [_fifo(q) for q in sorted((p / "build/.cache/pack-records/by-name").iterdir())],
    "pack entry manifests": lambda p: [_fifo(q) for q in _entries(p, "packs", ".json")],
    "record manifests": lambda p: [_fifo(q) for q in _entries(p, "pack-records", ".json")],
}


@pytest.mark.parametrize("what", sorted(FIFOS))
def test_a_named_pipe_in_a_records_place_is_a_miss(warm, tmp_path, what):
    project = _copy(warm, tmp_path)
    fifos = FIFOS[what](project)
    shutil.rmtree(project / "build/.cache/info")            # page 1 made again: each pack made and kept
    _force(project)
    result = _without_waiting(lambda: pnp(project, *ARGS), fifos)
    assert result.exit_code == 0, result.output
    assert _outputs(project) == warm[1]


def test_a_named_pipe_in_a_pack_entrys_place_is_a_miss(warm, tmp_path):
    project = _copy(warm, tmp_path)
    fifos = [_fifo(q) for q in _entries(project, "packs")]
    _force(project)
    result = _without_waiting(lambda: pnp(project, *ARGS), fifos, seconds=3)
    assert result.exit_code == 0, result.output
    assert _outputs(project) == warm[1]


def test_a_minimum_text_size_raised_is_refused_warm_as_cold(warm, tmp_path):
    """game.yaml's min_text_pt raised over the board's and the cards' small print: preflight refuses the
    pack. The store holds a pack of these very pages that passed under the old minimum: not taken."""
    project = _copy(warm, tmp_path)
    _sub(NM + "game.yaml", "source: 测试用规则，2026-11", "source: 测试用规则，2026-11\nmin_text_pt: 9")(project)
    warm_result = pnp(project, *ARGS)
    cold = tmp_path / "cold"
    shutil.copytree(project, cold, symlinks=True, ignore=shutil.ignore_patterns("build"))
    cold_result = pnp(cold, *ARGS)
    assert cold_result.exit_code == 1 and "preflight" in cold_result.output and "under" in cold_result.output
    assert (warm_result.exit_code, _said(warm_result.output)) == (1, _said(cold_result.output))
    assert _outputs(project) == warm[1]         # nothing of the refused build written
