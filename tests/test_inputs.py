"""Recorded inputs: every kind of file a face reads re-renders exactly the faces that read it,
the up-to-date stamp covers every file the build read (wherever it lies) and every byte it
wrote, and after any sequence of edits a cached build equals a cold one byte for byte.

The fixture (tests/fixtures/inputs-game) gives each kind of input to a known few cards; which
faces should re-render is worked out here from the game's own files, not asked of the engine.
"""
from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from generator.sheets.kit import build_game
from generator.source.assets import Assets
from generator.source.project import Project, isolate_fonts
from tests.conftest import ROOT, pnp

FIXTURE = ROOT / "tests/fixtures/inputs-game"
GAME = "inputs"
PACK = "build/inputs/inputs-2p-a4.pdf"


def draw_pictures(project: Path, seed: int = 0) -> None:
    """The fixture's pictures, at print resolution for a poker card with bleed (~330 dpi)."""
    art = project / "cards/inputs/art"
    art.mkdir(exist_ok=True)
    for name, colour in (("baker.png", (200, 120, 40)), ("smith.jpg", (60, 60, 70)), ("ghost.png", (220, 220, 240))):
        image = Image.new("RGB", (900, 1240), colour)
        ImageDraw.Draw(image).ellipse((200 + seed, 300, 700, 800), fill=(250 - seed, 240, 200))
        image.save(art / name, **({"quality": 90} if name.endswith(".jpg") else {}))


def make(target: Path) -> Path:
    shutil.copytree(FIXTURE, target, ignore=shutil.ignore_patterns("README.md"))
    for shared in ("fonts", "icons"):
        shutil.copytree(ROOT / shared, target / shared)     # copies: a test changes them
    draw_pictures(target)
    return target


def build(project: Path) -> list[str]:
    """Build the 2-player A4 pack in-process; the labels of the faces rendered now."""
    proj = Project.at(project)
    isolate_fonts(proj)
    _, fresh = build_game(proj, Assets(proj), GAME, [2], ["a4"], say=lambda _: None)
    return sorted(fresh)


def people() -> list[dict]:
    return yaml.safe_load((FIXTURE / "cards/inputs/people.yaml").read_text())["cards"]


def faces(*ids: str, deck: str = "people") -> list[str]:
    return sorted(f"{deck}/{i} (face)" for i in ids)


BACK = f"people (back, shared by {len(people())} cards)"     # one back every card of the deck shares
ALL_PEOPLE = faces(*(c["id"] for c in people())) + [BACK]


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def _replace(path: Path, old: str, new: str) -> None:
    """old -> new, or back when done already (so an edit may come twice in a sequence)."""
    text = path.read_text(encoding="utf-8")
    if old not in text:
        old, new = new, old
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _repaint(path: Path) -> None:
    image = Image.open(path).convert("RGB")
    ImageDraw.Draw(image).rectangle((0, 0, 100, 100), fill=(255, 0, 0))
    image.save(path, **({"quality": 90} if path.suffix == ".jpg" else {}))


def _readers_of_picture(name: str) -> list[str]:
    return faces(*(c["id"] for c in people() if c.get("portrait") == f"art/{name}"))


def _symbol_cards() -> list[str]:
    """Cards whose text has a character only the symbol font draws (✧)."""
    return faces(*(c["id"] for c in people() if "✧" in c["name"]))


CHANGES = [   # (what, edit, the faces that read it)
    ("card data", lambda p: _replace(p / "cards/inputs/people.yaml", "name: Baker", "name: Bakerin"),
     faces("baker")),
    ("template", lambda p: _replace(p / "templates/inputs/person.html", 'class="name"', 'class="name" title="n"'),
     faces(*(c["id"] for c in people()))),
    ("included template", lambda p: _replace(p / "templates/inputs/banner.html", "banner", "banner wide"),
     faces(*(c["id"] for c in people()))),
    ("stylesheet", lambda p: _append(p / "templates/inputs/people.css", "\n.name { letter-spacing: 0.2pt }\n"),
     ALL_PEOPLE),
    ("@imported stylesheet", lambda p: _append(p / "templates/inputs/people-extra.css", "\n.x { color: red }\n"),
     ALL_PEOPLE),
    ("background image", lambda p: _repaint(p / "cards/inputs/art/ghost.png"),
     faces(*(c["id"] for c in people() if c.get("special")))),
    ("<img> art", lambda p: _repaint(p / "cards/inputs/art/smith.jpg"), _readers_of_picture("smith.jpg")),
    ("font", lambda p: _append_bytes(p / "fonts/NotoSansSymbols2-Regular.ttf"), _symbol_cards()),
    ("icon", lambda p: _replace(p / "icons/twemoji/1f525.svg", "<svg ", "<svg\n"),
     faces(*(c["id"] for c in people() if c.get("icon") == "🔥"))),
    ("rules.py", lambda p: _replace(p / "cards/inputs/rules.py", "* 2", "* 3"), faces("mayor")),
    ("data file outside the game folder", lambda p: _replace(p / "shared/prices.yaml", "bonus: 3", "bonus: 4"),
     faces("mayor")),
    ("spreadsheet", lambda p: _replace(p / "cards/inputs/goods.csv", "Silk,3", "Silk,4"), faces("silk", deck="goods")),
    ("pnp.toml", lambda p: (p / "pnp.toml").write_text('[print]\nduplex = "short"\n'), []),
]


def _append_bytes(path: Path) -> None:
    path.write_bytes(path.read_bytes() + b"\0" * 4)        # other bytes, the same glyphs


def test_each_input_re_renders_exactly_the_faces_that_read_it(tmp_path):
    project = make(tmp_path / "project")
    assert build(project) == sorted(ALL_PEOPLE + faces("salt", "silk", "jade", deck="goods"))
    assert build(project) == []
    assert len(_symbol_cards()) == 1 and len(_readers_of_picture("smith.jpg")) == 1
    for what, edit, readers in CHANGES:
        edit(project)
        assert build(project) == sorted(readers), what


def test_the_stamp_covers_every_file_read_and_every_byte_written(tmp_path):
    project = make(tmp_path / "project")
    args = ("build", GAME, "--players", "2", "--paper", "a4")
    assert pnp(project, *args).exit_code == 0
    assert "up to date" in pnp(project, *args).output
    _replace(project / "shared/prices.yaml", "bonus: 3", "bonus: 5")      # reached by ../ from the game
    assert "up to date" not in pnp(project, *args).output
    assert "up to date" in pnp(project, *args).output
    pack = project / PACK
    info = pack.stat()
    data = bytearray(pack.read_bytes())
    data[len(data) // 2: len(data) // 2 + 8] = bytes(b ^ 0xFF for b in data[len(data) // 2: len(data) // 2 + 8])
    pack.write_bytes(bytes(data))
    os.utime(pack, ns=(info.st_atime_ns, info.st_mtime_ns))            # same size, same time
    result = pnp(project, *args)
    assert "up to date" not in result.output and "rendered 0 faces" in result.output
    assert "up to date" in pnp(project, *args).output
    (project / "pnp.toml").write_text('[print]\nduplex = "short"\n')     # a pnp.toml that was not there
    assert "up to date" not in pnp(project, *args).output


def test_a_files_hash_is_taken_again_whenever_it_may_have_changed(tmp_path, monkeypatch):
    """A file's hash is kept by its size, times and inode (filehash.file_digest: the stamp, the
    faces' inputs, the sheet cache and preflight's memo all ask it): a file changed within a
    moment of being hashed is hashed again every time, and an edit whose time is set back is
    still seen (its ctime moved)."""
    from generator import filehash
    card = tmp_path / "card.yaml"
    card.write_text("title: a\n")
    first = filehash.file_digest(card)
    card.write_text("title: b\n")                      # same size, same moment
    assert filehash.file_digest(card) != first
    read = []
    real_read = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: read.append(self.name) or real_read(self))
    real_hash = filehash._hash_file
    monkeypatch.setattr(filehash, "_hash_file", lambda path: read.append(Path(path).name) or real_hash(path))
    later = filehash.time.time_ns() + 3 * filehash.SETTLED_NS   # hashed long after its last change
    monkeypatch.setattr(filehash.time, "time_ns", lambda: later)
    settled = filehash.file_digest(card)
    assert filehash.file_digest(card) == settled and read == ["card.yaml"]     # the second time: a stat
    time.sleep(0.05)                                    # more than the file clock's granularity
    info = card.stat()
    card.write_text("title: c\n")
    os.utime(card, ns=(info.st_atime_ns, info.st_mtime_ns))                  # same size, same mtime
    assert filehash.file_digest(card) != settled and read == ["card.yaml"] * 2


def test_a_build_reads_each_font_file_once(tmp_path, monkeypatch):
    """The fonts are the largest inputs: the stamp, the faces, page 1, the sheet cache and the
    preflight memo all hash them, and a build (one in a fresh process: nothing known) reads each
    one once."""
    from generator import filehash
    project = make(tmp_path / "inputs")
    fonts = sorted(p.name for p in (ROOT / "fonts").rglob("*.ttf"))
    args = ("build", "inputs", "--players", "2", "--paper", "a4")
    assert pnp(project, *args).exit_code == 0
    goods = project / "cards/inputs/goods.csv"
    goods.write_text(goods.read_text(encoding="utf-8").replace("silk,Silk,", "silk,Silks,", 1), encoding="utf-8")
    monkeypatch.setattr(filehash, "_HASHED", {})
    later = filehash.time.time_ns() + 3 * filehash.SETTLED_NS     # the copied fonts long settled
    monkeypatch.setattr(filehash.time, "time_ns", lambda: later)
    read = []
    real_read = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: read.append(self.name) or real_read(self))
    real_hash = filehash._hash_file
    monkeypatch.setattr(filehash, "_hash_file", lambda path: read.append(Path(path).name) or real_hash(path))
    result = pnp(project, *args)
    assert result.exit_code == 0 and "rendered 1 face" in result.output, result.output
    assert sorted(set(read) & set(fonts)) and sorted(n for n in read if n in fonts) == sorted(set(read) & set(fonts))


def test_the_stamp_takes_the_hash_of_what_the_build_wrote(tmp_path, monkeypatch):
    """The stamp records each output's hash: the pack's and its listing's as the build wrote them
    (the pack is not read back for it), every one the hash of the file's bytes; a file changed
    after it was written is read."""
    import hashlib
    import json
    from generator import filehash
    from generator.source import stamp
    project = make(tmp_path / "inputs")
    args = ("build", "inputs", "--players", "2", "--paper", "a4")
    assert pnp(project, *args).exit_code == 0
    goods = project / "cards/inputs/goods.csv"
    goods.write_text(goods.read_text(encoding="utf-8").replace("silk,Silk,", "silk,Silks,", 1), encoding="utf-8")
    read = []
    real_read = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda self: read.append(self.name) or real_read(self))
    real_hash = filehash._hash_file
    monkeypatch.setattr(filehash, "_hash_file", lambda path: read.append(Path(path).name) or real_hash(path))
    result = pnp(project, *args)
    assert result.exit_code == 0 and "rendered 1 face" in result.output, result.output
    assert read.count(Path(PACK).name) == 1             # the last pack, built on; not the new one
    outputs = json.loads((project / "build/inputs" / stamp.STAMP).read_text())["builds"][0]["outputs"]
    assert PACK in outputs and PACK.replace(".pdf", ".json") in outputs
    for name, (_, _, sha) in outputs.items():
        assert hashlib.sha256(real_read(project / name)).hexdigest() == sha, name
    out = tmp_path / "out.pdf"
    out.write_bytes(b"written")
    stamp.note_output(out, hashlib.sha256(b"written").hexdigest())
    assert stamp._output_sha(out) == hashlib.sha256(b"written").hexdigest()
    out.write_bytes(b"changed")
    assert stamp._output_sha(out) == hashlib.sha256(b"changed").hexdigest()


EDITS = [change[1] for change in CHANGES if change[0] not in ("pnp.toml",)]


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(range(len(EDITS))), min_size=1, max_size=3))
def test_after_any_edits_a_cached_build_equals_a_cold_one(tmp_path_factory, edits):
    project = _warm(tmp_path_factory)
    for index in edits:
        EDITS[index](project)
    build(project)
    cached = (project / PACK).read_bytes()
    aside = project.parent / "build-cached"
    shutil.move(project / "build", aside)
    try:
        build(project)
        assert (project / PACK).read_bytes() == cached
    finally:
        shutil.rmtree(project / "build")
        shutil.move(aside, project / "build")


_WARM: dict = {}


def _warm(factory) -> Path:
    """A fresh copy of one warm project (built once, its cache kept) for each example."""
    if "base" not in _WARM:
        base = make(factory.mktemp("warm") / "project")
        build(base)
        _WARM["base"] = base
    target = factory.mktemp("edit") / "project"
    shutil.copytree(_WARM["base"], target, symlinks=True)
    return target


@pytest.mark.parametrize("bad", ["cover", "contain"])
def test_the_fixture_places_art_in_the_bleed(tmp_path, bad):
    """The art fills the card with its bleed (cover) or sits inside it (contain): read back
    from the face's PDF, the picture's drawn box."""
    import pikepdf

    from generator.check.pdfread import images
    project = make(tmp_path / "project")
    if bad == "contain":
        _replace(project / "templates/inputs/person.html", "art(card.portrait)", 'art(card.portrait, fit="contain")')
    build(project)
    found = [i for i in images(pikepdf.open(project / PACK)) if i.owner == "people/baker"]
    assert len(found) == 1
    width, height = found[0].size_mm
    if bad == "cover":
        assert (round(width, 1), round(height, 1)) == (69.5, 94.9)
    else:
        assert round(height, 1) == 94.9 and width < 69.5
    assert found[0].dpi >= 300


def test_watch_rereads_a_pnp_toml_made_later_and_sees_files_read_outside_the_game(tmp_path):
    import subprocess
    import sys

    from tests.test_rebuilds import _read_until
    project = make(tmp_path / "project")
    proc = subprocess.Popen([sys.executable, "-m", "generator", "--project", str(project), "watch", GAME,
                             "--players", "2", "--paper", "a4"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, bufsize=1)
    lines: list = []
    try:
        _read_until(proc, "watching", lines)
        (project / "pnp.toml").write_text('[print]\nduplex = "short"\n')      # there was none
        assert "build/inputs/inputs-2p-a4-short.pdf" in _read_until(proc, "ready in", lines)
        line = _read_until(proc, "rebuilt", lines)          # the first pack was all there is: written once
        assert line.endswith(" — 0 faces re-rendered; wrote nothing more\n"), line
        _replace(project / "shared/prices.yaml", "bonus: 3", "bonus: 4")      # read by rules.py via ../
        line = _read_until(proc, "rebuilt", lines)
        assert "1 face re-rendered: people/mayor (face)" in line
        (project / "pnp.toml").write_text('[print]\nduplex = "sideways"\n')
        _read_until(proc, "duplex 'sideways' is not one of", lines)
        _read_until(proc, "not rebuilt; the previous files are unchanged", lines)
        assert proc.poll() is None
    finally:
        proc.terminate()
        proc.wait(10)
    assert "Traceback" not in "".join(lines)


def test_list_takes_a_game(tmp_path):
    project = make(tmp_path / "project")
    result = pnp(project, "list", GAME)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == [
        "inputs: Inputs",
        "  deck  people             People (6 designs, 63.5×88.9 mm)",
        "  deck  goods              Goods (3 designs, 63.5×88.9 mm)",
        "  pack  2p: people 6, goods 3"]
    missing = pnp(project, "list", "nope")
    assert missing.exit_code == 1 and missing.output.strip() == "cards/nope: no game 'nope' (games: inputs)"


@pytest.mark.parametrize("name, old, new, message", [
    ("people.yaml", "  face: inputs/person.html", "  fcae: inputs/person.html",
     "cards/inputs/people.yaml:4: deck.fcae: unknown key — did you mean 'face'?"),
    ("game.yaml", "title: Inputs", "tilte: Inputs", "cards/inputs/game.yaml:2: tilte: unknown key — did you mean 'title'?"),
    ("game.yaml", "  bleed: 3\n", "  bled: 3\n", "cards/inputs/game.yaml:7: card.bled: unknown key — did you mean 'bleed'?"),
    ("game.yaml", "      goods: {count: 3}", "      goods: {cuont: 3}",
     "cards/inputs/game.yaml:15: packs.0.decks.goods.cuont: unknown key — did you mean 'count'?"),
])
def test_a_misspelled_key_is_one_line_naming_the_key_meant(tmp_path, name, old, new, message):
    """A required key misspelled was two lines (the unknown key, and the key it meant as missing); an
    optional one, in a mapping of any depth, named no key."""
    project = make(tmp_path / "p")
    path = project / "cards/inputs" / name
    path.write_text(path.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    result = pnp(project, "validate", GAME)
    assert result.exit_code == 1 and result.output.splitlines() == [message], result.output


def test_each_selection_built_stays_up_to_date_while_another_is_built_between(tmp_path):
    """`pnp build G` and `pnp build G --players 2 --paper a4` in turn (a playtest pack, then the kit): each
    is up to date after the other wrote the files they share with the same bytes; an edit between
    builds both again (each stamp remembers its selection's last build, not only the last build's)."""
    project = make(tmp_path / "p")
    whole, one = ("build", GAME), ("build", GAME, "--players", "2", "--paper", "a4")
    assert pnp(project, *whole).exit_code == 0
    assert "unchanged build/inputs/inputs-2p-a4.pdf" in pnp(project, *one).output    # the whole build's bytes
    for args in (whole, one, whole, one):
        result = pnp(project, *args)
        assert result.exit_code == 0 and result.output.startswith(f"{GAME}: up to date ("), (args, result.output)
    people = project / "cards/inputs/people.yaml"
    people.write_text(people.read_text(encoding="utf-8").replace("name: Smith", "name: Smyth"), encoding="utf-8")
    assert "rendered 1 face" in pnp(project, *one).output
    assert "up to date" not in pnp(project, *whole).output
    assert pnp(project, *one).output.startswith(f"{GAME}: up to date (")
