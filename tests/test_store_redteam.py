"""Red-team of the build's store and stamps (issue #35): after an edit of any input, or damage to any
entry of build/.cache/ or to a stamp or record, a warm `pnp build` writes byte for byte what a cold build
of the same inputs writes, exits 0 (or with a one-line error), and an edition it calls up to date has
nothing to rebuild.

One warm project of the inputs fixture is built once (module scope) and copied for each case; each case
compares the whole build/<game>/ folder (not dot-files) with a cold build of the same inputs.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from PIL import Image

from tests import damage as harm
from tests.conftest import pnp
from tests.test_inputs import make

GAME = "inputs"
ARGS = ("build", GAME, "--players", "2", "--paper", "a4")


def _build(project: Path) -> str:
    result = pnp(project, *ARGS)
    assert result.exit_code == 0, result.output
    return result.output


def _outputs(project: Path) -> dict[str, bytes]:
    folder = project / "build" / GAME
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)}


def _cold(project: Path, target: Path) -> dict[str, bytes]:
    shutil.copytree(project, target, symlinks=True, ignore=shutil.ignore_patterns("build"))
    _build(target)
    return _outputs(target)


def _with_common_picture(project: Path) -> None:
    """The baker's portrait lies in cards/common/: inside cards/, outside the game's folder."""
    (project / "cards/common").mkdir()
    Image.new("RGB", (900, 1240), (10, 160, 30)).save(project / "cards/common/baker.png")
    people = project / "cards/inputs/people.yaml"
    people.write_text(people.read_text().replace("portrait: art/baker.png", "portrait: ../common/baker.png"))


@pytest.fixture(scope="module")
def warm(tmp_path_factory) -> tuple[Path, dict[str, bytes]]:
    project = make(tmp_path_factory.mktemp("warm") / "project")
    _with_common_picture(project)
    _build(project)
    outputs = _outputs(project)
    assert "inputs-2p-a4.pdf" in outputs and "up to date" in _build(project)
    return project, outputs


def _copy(warm, tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(warm[0], target, symlinks=True)
    return target


# --- edits of the inputs: warm == cold after the edit, and == the first build after it is undone ---

def _sub(name: str, old: str, new: str):
    def edit(p: Path) -> None:
        path = p / name
        text = path.read_text(encoding="utf-8")
        assert old in text, (name, old)
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return edit


def _paint(name: str, colour=(200, 20, 20)):
    def edit(p: Path) -> None:
        Image.new("RGB", (900, 1240), colour).save(p / name)
    return edit


def _append_bytes(name: str):
    def edit(p: Path) -> None:
        (p / name).write_bytes((p / name).read_bytes() + b"\0" * 4)
    return edit


def _write(name: str, text: str):
    def edit(p: Path) -> None:
        (p / name).write_text(text, encoding="utf-8")
    return edit


EDITS = {
    "card data": _sub("cards/inputs/people.yaml", "name: Smith", "name: Smyth"),
    "csv cell": _sub("cards/inputs/goods.csv", "silk,Silk,3", "silk,Silk,4"),
    "template": _sub("templates/inputs/person.html", 'class="name"', 'class="name" title="n"'),
    "included template": _sub("templates/inputs/banner.html", "banner", "banner wide"),
    "stylesheet": _sub("templates/inputs/people.css", "font-size: 14pt", "font-size: 13pt"),
    "@imported stylesheet": lambda p: (p / "templates/inputs/people-extra.css").write_text(
        (p / "templates/inputs/people-extra.css").read_text() + "\n.name { color: #800 }\n"),
    "picture in the game": _paint("cards/inputs/art/smith.jpg"),
    "background picture": _paint("cards/inputs/art/ghost.png", (20, 20, 90)),
    "picture outside the game folder": _paint("cards/common/baker.png"),
    "font": _append_bytes("fonts/NotoSansSymbols2-Regular.ttf"),
    "fonts.yaml: the order an edition's fonts are tried in": _sub(
        "fonts/fonts.yaml", "en: [Noto Sans, Noto Sans SC,", "en: [Noto Sans SC, Noto Sans,"),
    "fonts.yaml: the file a family's weight is drawn with": _sub(
        "fonts/fonts.yaml", "file: NotoSans-Regular.ttf", "file: NotoSans-Bold.ttf"),
    "icon": _sub("icons/twemoji/1f525.svg", "<svg ", "<svg\n"),
    "rules.py": _sub("cards/inputs/rules.py", "* 2", "* 3"),
    "data file outside the game folder": _sub("shared/prices.yaml", "bonus: 3", "bonus: 4"),
    "game.yaml": _sub("cards/inputs/game.yaml", "title: Inputs", "title: Inputs II"),
    "pnp.toml": _write("pnp.toml", '[print]\nduplex = "short"\n'),
    "a card added": lambda p: (_sub("cards/inputs/game.yaml", "people: {count: 6}", "people: {count: 7}")(p),
                               (p / "cards/inputs/people.yaml").write_text(
                                   (p / "cards/inputs/people.yaml").read_text() + "  - {id: cook, name: Cook}\n")),
}


@pytest.mark.parametrize("what", sorted(EDITS))
def test_an_edit_builds_warm_what_a_cold_build_writes_and_undone_the_first_build(warm, tmp_path, what):
    project = _copy(warm, tmp_path)
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file() and "build" not in p.parts}
    EDITS[what](project)
    out = _build(project)
    assert "up to date" not in out, (what, out)
    edited = _outputs(project)
    assert edited == _cold(project, tmp_path / "cold"), what
    for path in [p for p in project.rglob("*") if p.is_file() and "build" not in p.parts]:
        if path not in before:
            path.unlink()
        elif path.read_bytes() != before[path]:
            path.write_bytes(before[path])
    _build(project)
    assert _outputs(project) == warm[1], what


def test_an_edit_of_a_picture_outside_the_game_after_an_up_to_date_edition_is_printed(warm, tmp_path):
    """An edit the edition does not print (a note in the game's folder) rebuilds past the game's stamp,
    the edition is up to date; the game's stamp taken then must still cover the picture in cards/common/,
    or its next edit is "up to date" and the old picture stays printed."""
    project = _copy(warm, tmp_path)
    (project / "cards/inputs/README.md").write_text("to do\n")
    assert "nothing this edition prints changed" in _build(project)
    _paint("cards/common/baker.png")(project)
    assert "up to date" not in _build(project)
    assert _outputs(project) == _cold(project, tmp_path / "cold")


# --- damage to the store, stamps and records: the next build equals the first ---------------------

def _stamps(p: Path) -> list[Path]:
    """The game's and its editions' up-to-date stamps (not .faces.json nor .written.json, records of
    what was built and written)."""
    folder = p / "build/inputs"
    return [folder / ".stamp.json", *sorted(folder.glob(".edition-*.json"))]


def _entries(p: Path, kind: str, suffix: str = ".pdf") -> list[Path]:
    return sorted(e for e in (p / "build/.cache" / kind).rglob(f"*{suffix}") if e.is_file()
                  and not e.name.startswith("index-"))


def _each(kind: str, action, suffix: str = ".pdf"):
    def damage(p: Path) -> None:
        entries = _entries(p, kind, suffix)
        assert entries, kind
        for entry in entries:
            action(entry)
    return damage


def _pair(kind: str, action, suffix: str = ".pdf"):
    def damage(p: Path) -> None:
        entries = _entries(p, kind, suffix)
        assert len(entries) >= 2, kind
        action(entries[0], entries[-1])
    return damage


def _file(name: str, action):
    def damage(p: Path) -> None:
        action(p / name)
    return damage


def _index(p: Path) -> Path:
    (index,) = (p / "build/.cache/faces").glob("index-*.json")
    return index


def _index_edit(change):
    def damage(p: Path) -> None:
        index = _index(p)
        data = json.loads(index.read_text())
        change(data)
        index.write_text(json.dumps(data))
    return damage


def _index_swap_keys(data: dict) -> None:
    faces = list(data["faces"].values())
    faces[0][0], faces[1][0] = faces[1][0], faces[0][0]
    faces[0][1], faces[1][1] = faces[1][1], faces[0][1]


def _store_as_file(kind: str):
    def damage(p: Path) -> None:
        shutil.rmtree(p / "build/.cache" / kind)
        (p / "build/.cache" / kind).write_text("not a folder")
    return damage


DAMAGE = {
    "face entries cut": _each("faces", harm.cut),
    "face entries garbled in place": _each("faces", harm.garble),
    "face entries emptied": _each("faces", harm.empty),
    "face entries replaced by folders": _each("faces", harm.folder),
    "face entries swapped": _pair("faces", harm.swap),
    "a face entry a symlink to another": _pair("faces", harm.symlink_to),
    "face entries removed": _each("faces", Path.unlink),
    "face manifests garbled": _each("faces", harm.garble, ".json"),
    "face manifests emptied": _each("faces", harm.empty, ".json"),
    "face manifests folders": _each("faces", harm.folder, ".json"),
    "face manifests of the wrong shape": _each("faces", harm.json_as({"entries": [{"key": 3}]}), ".json"),
    "face manifests swapped": _pair("faces", harm.swap, ".json"),
    "faces index garbled": lambda p: harm.garble(_index(p)),
    "faces index a folder": lambda p: harm.folder(_index(p)),
    "faces index of the wrong shape": lambda p: _index(p).write_text('{"version": 2, "sets": [1], "faces": {"a": 1}}'),
    "faces index naming each other's entries": _index_edit(_index_swap_keys),
    "faces index with its input sets emptied": _index_edit(lambda d: d.update(sets=[{} for _ in d["sets"]])),
    "page-1 entries garbled": _each("info", harm.garble),
    "page-1 entries cut": _each("info", harm.cut),
    "template records garbled": _each("templates", harm.garble, ""),
    "sheet records garbled": _each("sheets", harm.garble, ""),
    "sheet records emptied": _each("sheets", harm.empty, ""),
    "preflight records garbled": _each("preflight", harm.garble, ""),
    "preflight records emptied": _each("preflight", harm.empty, ""),
    "prepared pictures garbled": _each("art", harm.garble, ""),
    "prepared pictures cut": _each("art", harm.cut, ""),
    "fontconfig cache garbled": _each("fontconfig", harm.garble, ""),
    "faces store a file": _store_as_file("faces"),
    "sheets store a file": _store_as_file("sheets"),
    "art store a file": _store_as_file("art"),
    "the whole store removed": lambda p: shutil.rmtree(p / "build/.cache"),
    "game stamp garbled": _file("build/inputs/.stamp.json", harm.garble),
    "game stamp a folder": _file("build/inputs/.stamp.json", harm.folder),
    "edition stamp garbled": _file("build/inputs/.edition-en.json", harm.garble),
    "edition stamp of the wrong shape": _file("build/inputs/.edition-en.json",
                                              harm.json_as({"inputs": 1, "outputs": [1], "read": []})),
    "game stamp emptied": _file("build/inputs/.stamp.json", harm.empty),
    "edition stamp emptied": _file("build/inputs/.edition-en.json", harm.empty),
    "edition stamp a folder": _file("build/inputs/.edition-en.json", harm.folder),
    "edition stamp a symlink to the game stamp": _file("build/inputs/.edition-en.json",
                                                       lambda path: harm.symlink_to(path, path.with_name(".stamp.json"))),
    "stamps naming no outputs": lambda p: [_each_build(path, lambda b: {**b, "outputs": {}}) for path in _stamps(p)],
    "stamps with a read file's hash wrong": lambda p: [
        _each_build(path, lambda b: {**b, "read": {n: "0" * 64 for n in b["read"]}}) for path in _stamps(p)],
    "stamps' builds of the wrong shape": lambda p: [
        _each_build(path, lambda b: {**b, "outputs": [1], "read": []}) for path in _stamps(p)],
    "faces record garbled": _file("build/inputs/.faces.json", harm.garble),
    "faces record a folder": _file("build/inputs/.faces.json", harm.folder),
    "written record garbled": _file("build/inputs/.written.json", harm.garble),
    "written record a folder": _file("build/inputs/.written.json", harm.folder),
    "written record naming a file outside build/": _file("build/inputs/.written.json", harm.json_as(
        {"../../cards/inputs/people.yaml": {"language": "en", "paper": "a4", "players": 2, "optional": False,
                                             "variant": ""}})),
    "pack garbled in place": _file("build/inputs/inputs-2p-a4.pdf", harm.garble),
    "pack cut": _file("build/inputs/inputs-2p-a4.pdf", harm.cut),
    "pack manifest removed": _file("build/inputs/inputs-2p-a4.json", Path.unlink),
    "pack a symlink": _file("build/inputs/inputs-2p-a4.pdf",
                            lambda path: harm.symlink_to(path, path.with_name("inputs-2p-a4.json"))),
}


def _settings_between(*extra: str):
    def damage(p: Path) -> None:
        result = pnp(p, *ARGS[:-2], *extra) if "--paper" in extra else pnp(p, *ARGS, *extra)
        assert result.exit_code == 0, result.output
        for other in (p / "build/inputs").glob("inputs-2p-*"):      # its own files (named for it) go:
            if other.name not in ("inputs-2p-a4.pdf", "inputs-2p-a4.json"):     # the store is what is tried
                other.unlink()
    return damage


def _same_size_same_time(p: Path) -> None:
    """An edit that keeps the file's size and modification time, then put back the same way."""
    goods = p / "cards/inputs/goods.csv"
    info, text = goods.stat(), goods.read_text()
    goods.write_text(text.replace("silk,Silk,3", "silk,Silk,4"))
    os.utime(goods, ns=(info.st_atime_ns, info.st_mtime_ns))
    _build(p)
    goods.write_text(text)
    os.utime(goods, ns=(info.st_atime_ns, info.st_mtime_ns))


DAMAGE.update({
    "an ink-saver build in between": _settings_between("--ink-saver"),
    "a draft build in between": _settings_between("--draft"),
    "a letter build in between": _settings_between("--paper", "letter"),
    "an edit with its size and time kept, undone the same way": _same_size_same_time,
})


def _each_build(path: Path, change) -> None:
    """Each build a stamp remembers, changed."""
    builds = json.loads(path.read_text())["builds"]
    assert builds
    path.write_text(json.dumps({"builds": [change(b) for b in builds]}))


def _force(p: Path) -> None:
    """Past both stamps, so the build meets the store (the pack's bytes are not an input)."""
    for stamp in (".stamp.json", ".edition-en.json"):
        target = p / "build/inputs" / stamp
        if target.is_file():
            target.unlink()


@pytest.mark.parametrize("what", sorted(DAMAGE))
def test_damage_to_the_store_or_stamps_is_a_miss_and_the_build_equals_the_first(warm, tmp_path, what):
    project = _copy(warm, tmp_path)
    DAMAGE[what](project)
    _build(project)
    assert _outputs(project) == warm[1], what
    _force(project)
    _build(project)
    assert _outputs(project) == warm[1], what
    assert "up to date" in _build(project), what


# --- two editions: an edit in one language never leaves the other edition's outputs stale -----------

def _bilingual_build(project: Path) -> str:
    result = pnp(project, "build", "night-market", "--players", "3", "--paper", "a4", every_language=True)
    assert result.exit_code == 0, result.output
    return result.output


def _bilingual_outputs(project: Path) -> dict[str, bytes]:
    folder = project / "build/night-market"
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not p.name.startswith(".")}


@pytest.fixture(scope="module")
def both(tmp_path_factory) -> Path:
    from tests.test_rebuild_sequences import _project
    project = _project(tmp_path_factory.mktemp("both") / "project")
    _bilingual_build(project)
    return project


NM = "cards/night-market/"
BILINGUAL_EDITS = {
    "a price both print": _sub(NM + "goods.yaml", "name: 走马灯, price: 4", "name: 走马灯, price: 5"),
    "a table row both print (a derived total)": _sub(NM + "hours.yaml", "name: 黄昏, crowd: 1", "name: 黄昏, crowd: 2"),
    "a Chinese header a translation is keyed on": lambda p: (_sub(NM + "pieces.yaml", "header: [货品,", "header: [货物,")(p),
                                                            _sub(NM + "i18n/en.yaml", "货品: Goods", "货物: Goods")(p)),
    "the translation of that header": _sub(NM + "i18n/en.yaml", "货品: Goods", "货品: Wares"),
    "a Chinese card name (translated by id)": _sub(NM + "goods.yaml", "name: 走马灯,", "name: 走马灯笼,"),
    "an English card effect": _sub(NM + "i18n/en.yaml", "Roll ≥ 4: gain 2 coins.", "Roll 4+: gain 2 coins."),
    "a rules.py constant": _sub(NM + "rules.py", "GOAL = 25", "GOAL = 26"),
    "a player colour": _sub(NM + "game.yaml", '"#2e5e9e"', '"#2e5e9f"'),
    "the English subtitle": _sub(NM + "i18n/en.yaml", "(documentation example)", "(an example)"),
    "the English name of a card the rulebook quotes": _sub(NM + "i18n/en.yaml", "name: Spinning lantern",
                                                           "name: Turning lantern"),
    "the Chinese rulebook": _sub(NM + "rulebook/zh-Hans.md", "货品牌的第一张", "货品牌里的第一张"),
}


@pytest.mark.parametrize("what", sorted(BILINGUAL_EDITS))
def test_an_edit_in_one_language_leaves_no_edition_stale(both, tmp_path, what):
    project = tmp_path / "project"
    shutil.copytree(both, project, symlinks=True)
    BILINGUAL_EDITS[what](project)
    _bilingual_build(project)
    cold = tmp_path / "cold"
    shutil.copytree(project, cold, symlinks=True, ignore=shutil.ignore_patterns("build"))
    _bilingual_build(cold)
    warm, fresh = _bilingual_outputs(project), _bilingual_outputs(cold)
    assert sorted(warm) == sorted(fresh), what
    assert [n for n in warm if warm[n] != fresh[n]] == [], what


def test_a_stylesheet_the_rulebooks_own_css_imports_is_an_input_of_its_pages(both, tmp_path):
    project = tmp_path / "project"
    shutil.copytree(both, project, symlinks=True)
    css = project / "templates/night-market"
    (css / "rulebook.css").write_text('@import "rulebook-extra.css";\n', encoding="utf-8")
    (css / "rulebook-extra.css").write_text("h2 { color: #123456; }\n", encoding="utf-8")
    _bilingual_build(project)
    (css / "rulebook-extra.css").write_text("h2 { color: #aa0000; font-size: 30pt; }\n", encoding="utf-8")
    _bilingual_build(project)
    cold = tmp_path / "cold"
    shutil.copytree(project, cold, symlinks=True, ignore=shutil.ignore_patterns("build"))
    _bilingual_build(cold)
    warm, fresh = _bilingual_outputs(project), _bilingual_outputs(cold)
    assert [n for n in warm if warm[n] != fresh.get(n)] == []


def test_an_edition_built_alone_then_both_equals_a_cold_build(both, tmp_path):
    project = tmp_path / "project"
    shutil.copytree(both, project, symlinks=True)
    _sub(NM + "goods.yaml", "name: 走马灯, price: 4", "name: 走马灯, price: 5")(project)
    result = pnp(project, "build", "night-market", "--players", "3", "--paper", "a4", "--lang", "en")
    assert result.exit_code == 0, result.output
    _sub(NM + "i18n/en.yaml", "Roll ≥ 4: gain 2 coins.", "Roll 4+: gain 2 coins.")(project)
    _bilingual_build(project)
    cold = tmp_path / "cold"
    shutil.copytree(project, cold, symlinks=True, ignore=shutil.ignore_patterns("build"))
    _bilingual_build(cold)
    warm, fresh = _bilingual_outputs(project), _bilingual_outputs(cold)
    assert sorted(warm) == sorted(fresh) and [n for n in warm if warm[n] != fresh[n]] == []


@pytest.mark.parametrize("read", ["decks.copy()['people'][2].name", "decks.people[2].name",
                                  "decks.values() | map(attribute=2) | map(attribute='name') | join"])
def test_a_face_that_reads_another_deck_is_drawn_again_when_that_deck_changes(warm, tmp_path, read):
    project = _copy(warm, tmp_path)
    _sub("templates/inputs/good.html", "{{ num(card.value) }}", "{{ num(card.value) }} {{ %s }}" % read)(project)
    _build(project)
    EDITS["card data"](project)
    _build(project)
    assert _outputs(project) == _cold(project, tmp_path / "cold")


def _linked(project: Path, name: str, elsewhere: str) -> None:
    """`name` (a folder of the project) moved to `elsewhere` in it and linked back: the stamps walk
    no linked folder, so only what the build read covers it."""
    shutil.move(project / name, project / elsewhere)
    (project / name).symlink_to(os.path.relpath(project / elsewhere, (project / name).parent),
                                target_is_directory=True)


_LINKED: dict[tuple[str, str], Path] = {}


def _linked_built(warm, tmp_path_factory, folder: str, elsewhere: str) -> Path:
    """The warm project with `folder` linked (_linked), built, and up to date the next time: once a module
    for each folder (two cases link templates/inputs alike; each edits its own copy of this)."""
    if (folder, elsewhere) not in _LINKED:
        project = tmp_path_factory.mktemp("linked") / "project"
        shutil.copytree(warm[0], project, symlinks=True)
        _linked(project, folder, elsewhere)
        _build(project)
        assert "up to date" in _build(project)
        _LINKED[folder, elsewhere] = project
    return _LINKED[folder, elsewhere]


@pytest.mark.parametrize("folder, elsewhere, edit", [
    ("templates/inputs", "templates/shared", _sub("templates/inputs/people.css", "font-size: 14pt", "font-size: 12pt")),
    ("templates/inputs", "templates/shared", _sub("templates/inputs/banner.html", "banner", "banner wide")),
    ("cards/inputs/art", "cards/common-art", _paint("cards/inputs/art/smith.jpg")),
])
def test_an_input_in_a_linked_folder_is_watched(warm, tmp_path_factory, tmp_path, folder, elsewhere, edit):
    project = tmp_path / "project"
    shutil.copytree(_linked_built(warm, tmp_path_factory, folder, elsewhere), project, symlinks=True)
    assert (project / folder).is_symlink()
    assert "up to date" in _build(project)          # (this copy too: its stamps name no absolute path)
    edit(project)
    assert "up to date" not in _build(project)
    assert _outputs(project) == _cold(project, tmp_path / "cold")


BILINGUAL_DAMAGE = {
    "rulebook entries garbled": _each("rulebook", harm.garble),
    "rulebook entries swapped": _pair("rulebook", harm.swap),
    "rulebook manifests swapped": _pair("rulebook", harm.swap, ".json"),
    "rulebook entries cut": _each("rulebook", harm.cut),
    "piece entries garbled": _each("pieces", harm.garble),
    "piece entries swapped": _pair("pieces", harm.swap),
    "piece manifests swapped": _pair("pieces", harm.swap, ".json"),
    "the editions' template memos swapped": lambda p: harm.swap(p / "build/.cache/templates/night-market-en.json",
                                                            p / "build/.cache/templates/night-market-zh-Hans.json"),
    "the editions' faces indexes swapped": lambda p: harm.swap(p / "build/.cache/faces/index-night-market-en.json",
                                                           p / "build/.cache/faces/index-night-market-zh-Hans.json"),
    "the editions' preflight records swapped": lambda p: harm.swap(
        p / "build/.cache/preflight/night-market/night-market-3p-a4-en.json",
        p / "build/.cache/preflight/night-market/night-market-3p-a4-zh-Hans.json"),
    "the editions' packs swapped": lambda p: harm.swap(p / "build/night-market/night-market-3p-a4-en.pdf",
                                                   p / "build/night-market/night-market-3p-a4-zh-Hans.pdf"),
    "piece manifests of the wrong shape": _each("pieces", harm.json_as({"entries": [{"key": "0" * 40}]}), ".json"),
}


@pytest.mark.parametrize("what", sorted(BILINGUAL_DAMAGE))
def test_damaged_rulebook_and_piece_entries_are_made_again(both, tmp_path, what):
    project = tmp_path / "project"
    shutil.copytree(both, project, symlinks=True)
    first = _bilingual_outputs(project)
    BILINGUAL_DAMAGE[what](project)
    for stamp in (project / "build/night-market").glob(".*.json"):
        if stamp.name != ".faces.json":
            stamp.unlink()
    _bilingual_build(project)
    after = _bilingual_outputs(project)
    assert [n for n in first if first[n] != after.get(n)] == [], what
