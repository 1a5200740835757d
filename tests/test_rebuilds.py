"""Change-aware rebuilds: the face cache re-renders exactly what changed, a cached build equals
a cold one byte for byte, --only proofs, reprint packs, the no-change fast path, pnp watch.
Nothing here measures time (that is `make bench`)."""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pikepdf
import pytest
from PIL import Image

from generator.errors import PnpError, Problem
from generator.source.assets import Assets
from generator.sheets.kit import build_game, check_game, faces_for
from generator.source.project import Project, isolate_fonts
from generator.render.cards import CardRenderer
from tests.conftest import ROOT, make_project, note_source_only, pnp, seed_store
from tests.pdfcheck import document_text


def _build(project: Path, game="cephiro-pillar", players=(2,), paper="a4", jobs=1):
    """Build one pack in-process; the labels of the faces rendered (not taken from the cache). The
    edition's stamp is set aside first: these tests are about what the caches give a build that runs
    (with it, a build of unchanged inputs whose files are intact does not run at all)."""
    proj = Project.at(project)
    isolate_fonts(proj)
    for stamp in (Path(project) / "build" / game).glob(".edition-*.json"):
        stamp.unlink()
    written, fresh = build_game(proj, Assets(proj), game, list(players), [paper], say=lambda _: None, jobs=jobs)
    return written, sorted(fresh)


def _labels(faces) -> list[str]:
    """The labels a build reports for these faces: one per distinct face (by key); a face several
    cards share (a deck's one back) by its deck and how many share it."""
    by_key: dict[str, list] = {}
    for face in faces:
        by_key.setdefault(face.key, []).append(face)
    return sorted(same[-1].label if len(same) < 2 else f"{same[-1].deck.id} ({same[-1].side}, shared by {len(same)} cards)"
                  for same in by_key.values())


def _drawn(faces: dict, *chosen) -> list[str]:
    """The labels a build reports when it draws again the chosen faces (and every card sharing one)."""
    return _labels([f for f in faces.values() if f.direct in {c.direct for c in chosen}])


def _faces(project: Path, game="cephiro-pillar", players=(2,)):
    proj = Project.at(project)
    assets = Assets(proj)
    checked = check_game(proj, assets, game).game
    renderer = CardRenderer(proj, assets, checked)
    packs = [p for p in checked.packs if p.players in players and not p.optional]
    return renderer, faces_for(checked, renderer, packs)


@pytest.fixture(scope="module")
def built_once(tmp_path_factory):
    """A cephiro project with its own fonts, built once for this module."""
    project = make_project(tmp_path_factory.mktemp("warm") / "project", ["cephiro-pillar"])
    (project / "fonts").unlink()
    shutil.copytree(ROOT / "fonts", project / "fonts")
    _, fresh = _build(project)
    assert fresh, "the first build renders every face"
    return project


@pytest.fixture
def warm(built_once, tmp_path):
    """A cephiro project with its own fonts (a test may change one), built: a copy of the module's,
    built again in its own folder (which renders nothing, and leaves the cache's index naming the
    copied files)."""
    project = Path(shutil.copytree(built_once, tmp_path / "project", symlinks=True))
    note_source_only(project, ["cephiro-pillar"])
    assert _build(project)[1] == []
    return project


def test_nothing_changed_renders_nothing(warm):
    assert _build(warm)[1] == []


def test_a_changed_template_re_renders_exactly_its_cards(warm):
    path = warm / "templates/cephiro-pillar/trial-back.html"
    path.write_text(path.read_text(encoding="utf-8") + "\n<!-- a new comment -->\n", encoding="utf-8")
    _, faces = _faces(warm)
    users = [f for f in faces.values() if f.template == "cephiro-pillar/trial-back.html"]
    assert len(users) == 8
    assert _build(warm)[1] == _labels(users)


def test_a_changed_font_re_renders_exactly_the_cards_drawn_with_it(warm):
    """The symbol font draws ✧ ◈ ♡ on some cards only; changing its file re-renders those."""
    renderer, faces = _faces(warm)
    symbols = next(f for f in renderer.assets.fonts if "Symbols" in f.family)
    users = [f for f in faces.values() if symbols in renderer._fonts_used(f.html)]
    assert 0 < len(_labels(users)) < len(_labels(faces.values()))
    font = warm / "fonts" / symbols.path.name
    font.write_bytes(font.read_bytes() + b"\0" * 4)          # different bytes, same glyphs
    assert _build(warm)[1] == _labels(users)


def test_a_cached_build_equals_a_cold_one_byte_for_byte(warm, tmp_path):
    cached_pdf = (warm / "build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.pdf").read_bytes()
    cached_json = (warm / "build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.json").read_bytes()
    card = warm / "cards/cephiro-pillar/oaths.yaml"
    original = card.read_text(encoding="utf-8")
    card.write_text(original.replace("name: 护心镜", "name: 护心盾"), encoding="utf-8")
    assert _build(warm)[1]                             # cache now also holds the edited card
    card.write_text(original, encoding="utf-8")
    assert _build(warm)[1] == []                       # back to the original: all from the cache
    assert (warm / "build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.pdf").read_bytes() == cached_pdf
    shutil.rmtree(warm / "build")                      # cold, and rendered in two processes
    assert _build(warm, jobs=2)[1]
    assert (warm / "build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.pdf").read_bytes() == cached_pdf
    assert (warm / "build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.json").read_bytes() == cached_json


def _entry(renderer, face) -> Path:
    """The cache file a face was last stored in (its manifest's newest entry)."""
    return renderer.cache.path(renderer.cache.entries(face.direct)[0]["key"])


def test_a_damaged_cache_entry_is_rendered_again(warm):
    renderer, faces = _faces(warm)
    face = next(iter(faces.values()))
    entry = _entry(renderer, face)
    entry.write_bytes(entry.read_bytes()[:200])        # as if cut off
    assert _build(warm)[1] == _drawn(faces, face)


def test_a_cache_entry_that_is_a_folder_damaged_or_another_face_is_replaced(warm):
    """Issue 18's integrity cases: each entry's bytes are checked against the hash its manifest
    (or the faces index) recorded, so none of these is printed; each face is rendered again,
    silently (a torn manifest and a torn index too)."""
    cold = (warm / "build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.pdf").read_bytes()
    renderer, faces = _faces(warm)
    first, second, third, fourth = list({f.direct: f for f in faces.values()}.values())[:4]
    folder = _entry(renderer, first)
    folder.unlink()
    (folder / "x").mkdir(parents=True)                 # a folder where the entry was
    shutil.copyfile(_entry(renderer, second), _entry(renderer, third))  # another face's PDF
    damaged = _entry(renderer, second)
    data = damaged.read_bytes()
    at = data.index(b"stream") + 20                    # inside the first content stream
    damaged.write_bytes(data[:at] + bytes(b ^ 0x55 for b in data[at:at + 8]) + data[at + 8:])
    renderer.cache._manifest(fourth.direct).write_bytes(b'{"entries": [{"key": 7')     # a torn manifest
    assert _build(warm)[1] == _drawn(faces, first, second, third)   # fourth: found by the index
    renderer.cache._manifest(fourth.direct).write_bytes(b'{"entries": [{"key": 7')     # torn, and the index too:
    for index in (warm / "build/.cache/faces").glob("index-*.json"):                  # the others are found by
        index.write_bytes(b'{"' + fourth.direct.encode() + b'": [')                    # their manifests
    assert _build(warm)[1] == _drawn(faces, fourth)
    assert (warm / "build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.pdf").read_bytes() == cold
    assert _build(warm)[1] == []


def test_faces_index_entries_of_the_wrong_shape_are_passed_over(warm):
    """An index entry is checked when it is looked up: an input set whose hashes are lists or
    numbers, a set number that names no set or is not a number, a stat that is not one, a short
    entry or none at all send the look-up to the face's own manifest, without an error and
    without rendering anything."""
    pdf = warm / "build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.pdf"
    before = pdf.read_bytes()
    index = next((warm / "build/.cache/faces").glob("index-*.json"))
    data = json.loads(index.read_text())
    entries, sets = data["faces"], data["sets"]
    sets += [{k: [v] for k, v in sets[0].items()}, {k: 7 for k in sets[0]}, ["x"]]
    shapes = [lambda e: [e[0], e[1], len(sets) - 3, e[3]], lambda e: [e[0], e[1], len(sets) - 2, e[3]],
              lambda e: [e[0], e[1], len(sets) - 1, e[3]], lambda e: [e[0], e[1], len(sets), e[3]],
              lambda e: [e[0], e[1], str(e[2]), e[3]], lambda e: [e[0], e[1], e[2], ["x"]],
              lambda e: e[:3], lambda e: "x"]
    for number, direct in enumerate(entries):
        entries[direct] = shapes[number % len(shapes)](entries[direct])
    index.write_text(json.dumps(data))
    assert _build(warm)[1] == []
    assert pdf.read_bytes() == before


def test_the_faces_index_writes_each_set_of_inputs_once(warm):
    """Faces that read the same files share one set in the index, named by its number."""
    index = json.loads(next((warm / "build/.cache/faces").glob("index-cephiro-pillar-*.json")).read_text())
    numbers = [entry[2] for entry in index["faces"].values()]
    assert sorted(set(numbers)) == list(range(len(index["sets"])))
    assert len(index["sets"]) < len(numbers)
    assert len({json.dumps(s, sort_keys=True) for s in index["sets"]}) == len(index["sets"])     # none twice


def test_a_corrupt_faces_record_is_repaired_silently(warm):
    record = warm / "build/cephiro-pillar/.faces.json"
    for bad in (b"{not json", b'["cards"]', b'{"cards": [1, 2], "packs": "x"}'):
        record.write_bytes(bad)
        assert _build(warm)[1] == []
        assert json.loads(record.read_text())["packs"] == [2]
    record.unlink()
    record.mkdir()
    assert _build(warm)[1] == []
    assert record.is_file() and json.loads(record.read_text())["packs"] == [2]


def test_the_faces_record_is_written_only_when_a_card_or_pack_is_new_to_it(warm, cephiro_built):
    """A changed card re-renders only that card. A rebuild of an edited card leaves .faces.json as it
    was ("printed" keeps the card as first built, for `pnp reprint`); a pack built for the first time
    is added."""
    record = warm / "build/cephiro-pillar/.faces.json"
    before = record.read_bytes(), record.stat().st_ino
    path = warm / "cards/cephiro-pillar/trials.yaml"
    text = path.read_text(encoding="utf-8")
    assert "name: 精灵之森" in text
    path.write_text(text.replace("name: 精灵之森", "name: 精灵之林"), encoding="utf-8")
    assert _build(warm)[1] == ["trials/spirit-forest (face)"]         # only that card
    assert (record.read_bytes(), record.stat().st_ino) == before
    seed_store(warm, [cephiro_built])      # the 3-player pack's faces and boards: what is tested is the record
    _build(warm, players=(3,))
    data = json.loads(record.read_text())
    assert data["packs"] == [2, 3] and data["printed"]["trials/spirit-forest"] == json.loads(before[0])["printed"][
        "trials/spirit-forest"]


def test_two_builds_at_once_share_the_cache_safely(tmp_path, cephiro_built):
    """Two cold builds at once in one project (one store): both succeed, leave no temporary file, and
    write the pack a build alone writes (the session's cold build of the game, in another folder)."""
    project = make_project(tmp_path / "project", ["cephiro-pillar"])
    command = [sys.executable, "-m", "generator", "--project", str(project), "build", "cephiro-pillar",
               "--players", "2", "--paper", "a4", "--lang", "zh-Hans"]
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for _ in range(2)]
    outputs = [r.communicate(timeout=300)[0] for r in runs]
    assert [r.returncode for r in runs] == [0, 0], outputs
    name = "cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.pdf"
    assert (project / "build" / name).read_bytes() == (cephiro_built.project / "build" / name).read_bytes()
    assert not list((project / "build").rglob("*.tmp"))


def test_a_pack_is_on_disk_before_it_takes_its_name(warm, monkeypatch):
    """The pack and its manifest are each on disk before they replace the last build's files."""
    import os
    synced, replaced = set(), []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        time.sleep(0.2)             # a slow disk: the build must wait for it, not race it
        real_fsync(fd)
        synced.add(os.path.realpath(f"/proc/self/fd/{fd}"))

    def replace(source, target, *args, **kwargs):
        replaced.append((os.path.realpath(source) in synced, Path(target)))
        return real_replace(source, target, *args, **kwargs)
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    for ext in ("pdf", "json"):             # (a file made again in the bytes it has is left in place)
        (warm / f"build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.{ext}").unlink()
    _build(warm)
    outputs = [(on_disk, target.name) for on_disk, target in replaced
               if target.parent == warm / "build/cephiro-pillar" and target.name.startswith("cephiro-pillar-2p-a4")]
    assert sorted(name for _, name in outputs) == ["cephiro-pillar-2p-a4-zh-Hans.json",
                                                  "cephiro-pillar-2p-a4-zh-Hans.pdf"]
    assert all(on_disk for on_disk, _ in outputs)


def test_a_written_file_takes_a_temporary_name_no_file_has_and_makes_its_folders(tmp_path, monkeypatch):
    """Staged beside its target under `.<name>.<process>-<number>.tmp`: a name a killed build left
    (its process number come round again) is passed over, never written into; missing folders are
    made; the file is an ordinary one (0644) whatever the umask; nothing is left beside it."""
    import itertools
    import os
    from generator import atomic
    target = tmp_path / "a/b/face.pdf"
    monkeypatch.setattr(atomic, "_NUMBERS", itertools.count())
    (tmp_path / "a/b").mkdir(parents=True)
    left = tmp_path / f"a/b/.face.pdf.{os.getpid()}-0.tmp"
    left.write_bytes(b"a killed build's")
    (tmp_path / "a/b").rename(tmp_path / "a/kept")
    old = os.umask(0o077)
    try:
        atomic.write_atomic(target, b"one")                     # the folder is gone: made again
        (tmp_path / "a/kept").rename(tmp_path / "a/c")
        atomic.write_atomic(tmp_path / "a/c/face.pdf", b"two")    # number 1: the leftover 0 is not met
        monkeypatch.setattr(atomic, "_NUMBERS", itertools.count())
        atomic.write_atomic(tmp_path / "a/c/face.pdf", b"three")  # number 0 is taken by the leftover: 1
    finally:
        os.umask(old)
    assert target.read_bytes() == b"one" and (tmp_path / "a/c/face.pdf").read_bytes() == b"three"
    assert sorted(p.name for p in (tmp_path / "a/c").iterdir()) == [left.name, "face.pdf"]
    assert (tmp_path / "a/c" / left.name).read_bytes() == b"a killed build's"
    assert sorted(p.name for p in (tmp_path / "a/b").iterdir()) == ["face.pdf"]
    assert (target.stat().st_mode & 0o777) == 0o644


def test_a_cache_folder_made_by_another_build_meanwhile_is_kept(tmp_path, monkeypatch):
    """The race the test above can hit: between make_room's look for the shard folder and its
    clearing of a file there, another build makes the folder. It is a folder now: keep it."""
    from generator.atomic import make_room
    shard = tmp_path / "build/.cache/faces/ec"
    real_is_dir = Path.is_dir

    def made_meanwhile(self):
        if self == shard and not shard.exists():
            shard.mkdir(parents=True)      # the other build, just after this look
            return False
        return real_is_dir(self)

    monkeypatch.setattr(Path, "is_dir", made_meanwhile)
    make_room(shard / "face.pdf")
    assert real_is_dir(shard)


# --- the no-change fast path --------------------------------------------------------------------

def test_an_unchanged_build_is_skipped_and_a_change_is_not(tmp_path, cephiro_built):
    project = make_project(tmp_path / "project", ["cephiro-pillar"])
    seed_store(project, [cephiro_built])        # its faces and boards from the session's build (the stamp is what is tested)
    args = ("build", "cephiro-pillar", "--players", "2", "--paper", "a4")
    assert "wrote build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.pdf" in pnp(project, *args).output
    again = pnp(project, *args)
    assert again.exit_code == 0 and "cephiro-pillar: up to date (2 PDFs" in again.output    # the pack and the rulebook
    letter = ("build", "cephiro-pillar", "--players", "2", "--paper", "letter")
    assert "up to date" not in pnp(project, *letter).output
    # each selection's last build is remembered: the A4 files were not touched by the Letter build
    assert "cephiro-pillar: up to date (2 PDFs" in pnp(project, *args).output
    assert "cephiro-pillar: up to date (2 PDFs" in pnp(project, *letter).output
    (project / "build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.pdf").unlink()     # an output went missing
    assert "wrote build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.pdf" in pnp(project, *args).output
    card = project / "cards/cephiro-pillar/trials.yaml"
    card.write_text(card.read_text(encoding="utf-8") + "\n# a comment\n", encoding="utf-8")
    result = pnp(project, *args)            # a file changed, nothing the edition prints: loaded, not built
    assert "cephiro-pillar: up to date" not in result.output
    assert "cephiro-pillar (zh-Hans): up to date (2 PDFs; nothing this edition prints changed)" in result.output
    card.write_text(card.read_text(encoding="utf-8").replace("# a comment", "# another comment"), encoding="utf-8")
    (project / "build/cephiro-pillar/cephiro-pillar-rules-a4-zh-Hans.pdf").write_bytes(b"edited")
    result = pnp(project, *args)            # and an output changed: built again, every face from the cache
    assert "up to date" not in result.output and "rendered 0 faces" in result.output


# --- --only proofs --------------------------------------------------------------------------------

def test_only_writes_a_pdf_and_png_per_card(cephiro):
    result = pnp(cephiro, "build", "cephiro-pillar", "--only", "power/red-6,spirit-forest")
    assert result.exit_code == 0, result.output
    folder = cephiro / "build/cephiro-pillar/cards"
    assert sorted(p.name for p in folder.iterdir()) == ["power-red-6-zh-Hans.pdf", "power-red-6-zh-Hans.png",
                                                        "trials-spirit-forest-zh-Hans.pdf",
                                                        "trials-spirit-forest-zh-Hans.png"]
    pdf = pikepdf.open(folder / "power-red-6-zh-Hans.pdf")
    assert len(pdf.pages) == 2                                   # face and back
    mm = 72 / 25.4
    assert [round(float(v) / mm, 2) for v in pdf.pages[0].TrimBox] == [3, 3, 66, 91]
    assert [round(float(v) / mm, 2) for v in pdf.pages[0].MediaBox] == [0, 0, 69, 94]
    assert Image.open(folder / "power-red-6-zh-Hans.png").size == (round(69 / 25.4 * 200), round(94 / 25.4 * 200))
    assert not (cephiro / "build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.pdf").exists()     # nothing else built


def test_only_names_an_unknown_or_ambiguous_card(cephiro):
    result = pnp(cephiro, "build", "cephiro-pillar", "--only", "nope")
    assert result.exit_code == 1 and "cards/cephiro-pillar: no card 'nope'" in result.output


# --- reprint packs -------------------------------------------------------------------------------

def test_reprint_since_the_last_build_has_every_copy_of_the_changed_card(cephiro, cephiro_built):
    seed_store(cephiro, [cephiro_built])        # its faces and boards from the session's build
    assert pnp(cephiro, "build", "cephiro-pillar", "--players", "5", "--paper", "a4", "--lang", "zh-Hans").exit_code == 0
    nothing = pnp(cephiro, "reprint", "cephiro-pillar", "--paper", "a4")
    assert nothing.exit_code == 0 and "nothing changed since the cards were last printed" in nothing.output
    path = cephiro / "cards/cephiro-pillar/oaths.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("name: 护心镜", "name: 护心盾"), encoding="utf-8")
    result = pnp(cephiro, "reprint", "cephiro-pillar", "--paper", "a4")
    assert result.exit_code == 0, result.output
    manifest = json.loads((cephiro / "build/cephiro-pillar/cephiro-pillar-reprint-a4-zh-Hans.json").read_text())
    decks = [c for c in manifest["components"] if c["kind"] == "deck"]
    assert [c["id"] for c in decks] == ["oaths"]
    (card,) = decks[0]["cards"]
    full = json.loads((cephiro / "build/cephiro-pillar/cephiro-pillar-5p-a4-zh-Hans.json").read_text())
    copies = next(c["copies"] for d in full["components"] if d["id"] == "oaths" for c in d["cards"]
                  if c["id"] == card["id"])
    assert card["copies"] == copies == decks[0]["count"]
    roles = [p["role"] for p in manifest["pages"]]
    assert roles.count("cards-back") == roles.count("cards-front") >= 1
    text1 = subprocess.run(["pdftotext", "-f", "1", "-l", "1",
                            str(cephiro / "build/cephiro-pillar/cephiro-pillar-reprint-a4-zh-Hans.pdf"), "-"],
                           capture_output=True, text=True, check=True).stdout
    assert "重印" in text1 and card["id"] in text1


def test_reprint_since_a_git_revision(cephiro):
    git = ["git", "-C", str(cephiro), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "kit"], check=True)
    path = cephiro / "cards/cephiro-pillar/trials.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("name: 精灵之森", "name: 精灵之林"), encoding="utf-8")
    result = pnp(cephiro, "reprint", "cephiro-pillar", "--since", "HEAD", "--paper", "a4")
    assert result.exit_code == 0, result.output
    assert "(1 changed card, 1 to print" in result.output
    bad = pnp(cephiro, "reprint", "cephiro-pillar", "--since", "no-such-rev")
    assert bad.exit_code == 1 and "cannot read revision 'no-such-rev'" in bad.output


# --- pnp watch ----------------------------------------------------------------------------------

def _read_until(proc, word: str, lines: list, timeout: float = 120) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        if word in line:
            return line
    raise AssertionError(f"pnp watch never said {word!r}:\n{''.join(lines)}")


def test_watch_rebuilds_on_save_and_says_what(tmp_path, cephiro_built):
    project = make_project(tmp_path / "project", ["cephiro-pillar"])
    seed_store(project, [cephiro_built])          # its first build is warm: the test is about the rebuild
    proc = subprocess.Popen([sys.executable, "-m", "generator", "--project", str(project), "watch", "cephiro-pillar",
                             "--players", "2", "--paper", "a4"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, bufsize=1)
    lines: list = []
    try:
        _read_until(proc, "watching", lines)
        path = project / "cards/cephiro-pillar/trials.yaml"
        path.write_text(path.read_text(encoding="utf-8").replace("name: 精灵之森", "name: 精灵之林"), encoding="utf-8")
        ready = _read_until(proc, "ready in", lines)          # the pack looked at, first
        assert "build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.pdf" in ready
        proof = "build/cephiro-pillar/cards/trials-spirit-forest-zh-Hans.pdf"      # the card drawn anew, as saved
        assert proof in ready and "精灵之林" in document_text(project / proof)
        line = _read_until(proc, "rebuilt", lines)
        assert "1 face re-rendered: trials/spirit-forest (face)" in line
        # the Chinese pack written once (above); the English one made again in the same bytes: left as it was
        assert line.endswith("; wrote nothing more\n"), line
        path.write_text(path.read_text(encoding="utf-8") + "\n  - {id: [\n", encoding="utf-8")
        problem = _read_until(proc, "trials.yaml", lines)
        assert problem.startswith("cards/cephiro-pillar/trials.yaml:")
        _read_until(proc, "not rebuilt; the previous files are unchanged", lines)
        assert proc.poll() is None                        # still watching
    finally:
        proc.terminate()
        proc.wait(10)
    assert "Traceback" not in "".join(lines)


def test_watch_maps_changes_to_games(tmp_path):
    from generator.commands.watch import games_touched
    project = Project.at(make_project(tmp_path / "p"))
    games = ["cephiro-pillar", "seven-nights"]
    root = project.root
    assert games_touched(project, games, {root / "cards/seven-nights/lanterns.yaml"}) == ["seven-nights"]
    assert games_touched(project, games, {root / "templates/cephiro-pillar/power.html"}) == ["cephiro-pillar"]
    assert games_touched(project, games, {root / "fonts/fonts.yaml"}) == games
    assert games_touched(project, games, {root / "cards/reverse-wizard/common.yaml"}) == []


# --- the benchmark project ------------------------------------------------------------------------

def test_bench_project_is_the_workload_and_builds_from_outside(tmp_path):
    """bench/ is a project of its own: its card file is what make_deck.py writes, it validates,
    and one card builds with --project from any folder."""
    subprocess.run([sys.executable, str(ROOT / "bench/make_deck.py"), "--out", str(tmp_path / "cards.yaml")],
                   check=True, capture_output=True)
    assert (tmp_path / "cards.yaml").read_bytes() == (ROOT / "bench/cards/deck450/cards.yaml").read_bytes()
    bench = tmp_path / "bench"
    for part in ("cards", "templates", "fonts", "icons"):
        shutil.copytree(ROOT / "bench" / part, bench / part)
    result = pnp(bench, "build", "deck450", "--only", "c450")
    assert result.exit_code == 0, result.output
    png = Image.open(bench / "build/deck450/cards/cards-c450.png")
    assert png.size == (round(69.85 / 25.4 * 200), round(95.25 / 25.4 * 200))
    data = (ROOT / "bench/cards/deck450/cards.yaml").read_text(encoding="utf-8")
    assert data.count("\n  - {id: c") == 450
    # the export rows' game: 20 cards printed 100 times in all, and it validates
    subprocess.run([sys.executable, str(ROOT / "bench/make_deck.py"), "--copies", "100", "--project", str(bench)],
                   check=True, capture_output=True)
    cards = (bench / "cards/copies100/cards.yaml").read_text(encoding="utf-8")
    assert cards.count("\n  - {id: c") == 20 and cards.count(", copies: 5, ") == 20
    result = pnp(bench, "validate", "copies100")
    assert result.exit_code == 0, result.output


def _first_faces(project: Path, game_id: str, count: int):
    """A renderer of the game's every pack, its first `count` faces, and their page size and stylesheets."""
    proj = Project.at(project)
    isolate_fonts(proj)
    assets = Assets(proj)
    game = check_game(proj, assets, game_id).game
    renderer = CardRenderer(proj, assets, game)
    faces = list(faces_for(game, renderer, game.packs).values())[:count]
    return renderer, faces, faces[0].page_size, tuple(renderer.stylesheets(faces[0].deck))


def test_skipping_page_margin_boxes_changes_no_byte(tmp_path):
    """Cards render without WeasyPrint's page-margin boxes (they have no margins): the faces
    are byte for byte what a plain render gives."""
    from generator.render import cards
    from generator.render.canonical import Batch, canonical_face
    renderer, faces, size, sheets = _first_faces(make_project(tmp_path / "p", ["seven-nights"]), "seven-nights", 12)
    faces = [f for f in faces if f.page_size == size]
    patched = renderer._render_group(faces, size, sheets)[0]
    original = cards.without_margin_boxes
    cards.without_margin_boxes = __import__("contextlib").nullcontext
    try:
        plain = renderer._render_group(faces, size, sheets)[0]
    finally:
        cards.without_margin_boxes = original
    a, b = Batch(patched), Batch(plain)
    assert [canonical_face(p, a) for p in patched.pages] == [canonical_face(p, b) for p in plain.pages]


def test_reprint_takes_the_pack_that_was_built(cephiro, cephiro_built):
    """Built for 3 players only, a reprint is of the 3-player pack: the yellow and purple cards of
    the 5-player pack were never printed, so they are not 'changed'."""
    seed_store(cephiro, [cephiro_built])        # its faces and boards from the session's build
    assert pnp(cephiro, "build", "cephiro-pillar", "--players", "3", "--paper", "a4", "--lang", "zh-Hans").exit_code == 0
    path = cephiro / "cards/cephiro-pillar/oaths.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("name: 护心镜", "name: 护心盾"), encoding="utf-8")
    result = pnp(cephiro, "reprint", "cephiro-pillar", "--paper", "a4")
    assert result.exit_code == 0 and "(1 changed card," in result.output, result.output
    manifest = json.loads((cephiro / "build/cephiro-pillar/cephiro-pillar-reprint-a4-zh-Hans.json").read_text())
    assert manifest["players"] == 3


def test_the_faces_index_is_written_when_a_face_is_new_to_it_and_only_then(tmp_path):
    """A build that found every face through the index leaves its file as it was (not even written
    again); a face new to it is in the file, found through it by the next build."""
    from types import SimpleNamespace
    from generator.render.cache import FaceCache
    project = SimpleNamespace(build=tmp_path)

    def directs(n: int, prefix: str = "a") -> list[str]:
        return [f"{prefix}{i:039x}" for i in range(n)]

    def cache(*found: str) -> FaceCache:
        opened = FaceCache(project, index="game-en")
        assert all(opened.find(direct, lambda _: None) is not None for direct in found)
        return opened

    first = cache()
    for direct in directs(300):
        first.remember(direct, first.put(direct, {}, direct.encode()), hashlib.sha256(direct.encode()).hexdigest(), {})
    first.save_index()
    index = tmp_path / ".cache/faces/index-game-en.json"
    written = index.stat()
    second = cache(*directs(300))
    assert second._unindexed == set()                   # every one found by the index
    second.save_index()
    assert (index.stat().st_ino, index.stat().st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
    new = directs(1, "b")
    second.remember(new[0], second.put(new[0], {}, b"x"), hashlib.sha256(b"x").hexdigest(), {})
    second.save_index()
    assert set(json.loads(index.read_text())["faces"]) == set(directs(300)) | set(new)
    assert cache(*directs(300), *new)._unindexed == set()


def test_the_faces_index_finds_entries_without_reading_them(warm):
    """The index lists each entry with its file's times: the next build takes the entries from
    it, without their manifests (removed here), and renders nothing."""
    manifests = [p for p in (warm / "build/.cache/faces").glob("*/*.json")]
    assert manifests and list((warm / "build/.cache/faces").glob("index-cephiro-pillar-*.json"))
    for manifest in manifests:
        manifest.unlink()
    assert _build(warm)[1] == []


def test_an_entry_rewritten_with_its_old_size_and_time_is_checked_in_full(warm):
    """Putting the size and modification time back does not hide a rewrite from the index: the
    change time moved, so the entry's bytes are hashed, found damaged and rendered again."""
    import os
    renderer, faces = _faces(warm)
    face = next(iter(faces.values()))
    entry = _entry(renderer, face)
    before = entry.stat()
    data = entry.read_bytes()
    at = data.index(b"stream") + 20
    entry.write_bytes(data[:at] + bytes(b ^ 0x55 for b in data[at:at + 8]) + data[at + 8:])
    os.utime(entry, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert (entry.stat().st_size, entry.stat().st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    assert _build(warm)[1] == _drawn(faces, face)


def test_a_face_is_released_once_its_sheet_holds_a_copy(warm):
    """A cached face is opened when a sheet first places it and closed once the sheet has its own
    copy of the face's streams; the copy saves without it."""
    import io
    from generator.sheets.impose import Imposer
    renderer, faces = _faces(warm)
    rendered = renderer.render(list(faces.values()))
    assert rendered.pdfs == {}                            # all from the cache: nothing opened yet
    face = next(iter(faces.values()))
    drawn = rendered.pages[face.key].Contents.read_bytes()
    rendered.release(face.key)
    out = pikepdf.new()
    form = Imposer(out).form(face.key, rendered.lazy(face.key))
    assert rendered.pdfs == {}                            # opened for the copy, then released
    out.Root.Face = form
    buffer = io.BytesIO()
    out.save(buffer)
    assert pikepdf.open(io.BytesIO(buffer.getvalue())).Root.Face.read_bytes() == drawn


def test_an_index_entry_naming_another_face_is_not_used(warm):
    """An entry of the faces index is used only under the name its direct key and inputs give."""
    cold = (warm / "build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.pdf").read_bytes()
    index = next((warm / "build/.cache/faces").glob("index-*.json"))
    data = json.loads(index.read_text())
    entries = data["faces"]
    first, second = list(entries)[:2]
    entries[first] = entries[second]
    index.write_text(json.dumps(data))
    (warm / "build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.pdf").unlink()
    assert _build(warm)[1] == []                       # found through its manifest, as it was
    assert (warm / "build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.pdf").read_bytes() == cold


# --- what a red-team pass found (2026-12-04) ------------------------------------------------------

def _sizes_with_fonts(target: Path) -> Path:
    """The sizes fixture game with fonts of its own (a test changes one) and the engine's icons."""
    shutil.copytree(ROOT / "tests/fixtures/sizes", target)
    shutil.copytree(ROOT / "fonts", target / "fonts")
    (target / "icons").symlink_to(ROOT / "icons")
    return target


def test_a_font_that_draws_only_css_text_is_an_input_of_the_faces_drawn_with_it(tmp_path):
    """A glyph that CSS puts on a face (here `content:`) is in no text of the card's HTML, so its
    font is not in the direct key; the faces drawn with it record the font file as an input and
    are drawn again when it changes (its glyph numbers may have changed with it)."""
    project = _sizes_with_fonts(tmp_path / "sizes")
    face = project / "templates/sizes/face.html"
    face.write_text(face.read_text(encoding="utf-8").replace("{{ card.label | text }}", '{{ card.label | text }}'
                    '<span class="suit"></span>') + '<style>.suit::after { content: "\\2660"; }</style>\n',
                    encoding="utf-8")
    assert _build(project, "sizes", (1,))[1]
    symbols = project / "fonts/NotoSansSymbols2-Regular.ttf"
    symbols.write_bytes(symbols.read_bytes() + b"\0" * 4)          # other bytes, the same glyphs
    _, faces = _faces(project, "sizes", (1,))
    fronts = [f for f in faces.values() if f.side == "face"]
    assert _build(project, "sizes", (1,))[1] == _labels(fronts)


def test_page_one_follows_the_files_it_shows_and_a_damaged_entry_is_made_again(tmp_path):
    """A game's info.html may show a picture: page 1 is cached with the files it read, so a
    repainted picture makes it again; an entry cut short is made again, not an internal error."""
    project = _sizes_with_fonts(tmp_path / "sizes")
    picture = project / "cards/sizes/art/mark.png"
    picture.parent.mkdir()
    Image.new("RGB", (120, 120), (200, 30, 30)).save(picture)
    (project / "templates/sizes/info.html").write_text('<p><img src="cards/sizes/art/mark.png" style="width: 10mm">'
                                                       '</p>\n', encoding="utf-8")

    def build() -> bytes:
        result = pnp(project, "build", "sizes", "--paper", "a4")
        assert result.exit_code == 0, result.output
        return (project / "build/sizes/sizes-1p-a4.pdf").read_bytes()

    red = build()
    Image.new("RGB", (120, 120), (30, 160, 30)).save(picture)
    green = build()
    assert green != red
    for entry in (project / "build/.cache/info").rglob("*.pdf"):
        entry.write_bytes(entry.read_bytes()[:300])
    assert build() == green
    shutil.rmtree(project / "build")
    assert build() == green


def test_a_project_builds_the_same_bytes_wherever_it_lies(tmp_path):
    """WeasyPrint names a raster picture by its URL, which holds the project's folder: page 1
    (a game's info.html showing a picture) and the faces are the same bytes in any checkout."""
    packs = []
    for folder in ("a", "a-longer-folder-name/b"):
        project = _sizes_with_fonts(tmp_path / folder / "sizes")
        picture = project / "cards/sizes/art/mark.png"
        picture.parent.mkdir()
        Image.new("RGB", (120, 120), (200, 30, 30)).save(picture)
        (project / "templates/sizes/info.html").write_text(
            '<p><img src="cards/sizes/art/mark.png" style="width: 10mm"></p>\n', encoding="utf-8")
        face = project / "templates/sizes/face.html"
        face.write_text(face.read_text(encoding="utf-8")
                        + '<img src="cards/sizes/art/mark.png" style="width: 5mm">\n', encoding="utf-8")
        result = pnp(project, "build", "sizes", "--paper", "a4")
        assert result.exit_code == 0, result.output
        packs.append((project / "build/sizes/sizes-1p-a4.pdf").read_bytes())
    assert packs[0] == packs[1]
    assert b"/Im1" in packs[0]            # page 1's picture, renamed


def test_page_one_tells_how_to_cut_boards_only_in_a_pack_that_has_some(tmp_path, cephiro_built):
    from tests.pdfcheck import page_text
    board_line = "板块与标记：沿细灰外框裁下"
    project = _sizes_with_fonts(tmp_path / "sizes")           # card decks only
    result = pnp(project, "build", "sizes", "--paper", "a4")
    assert result.exit_code == 0, result.output
    first = page_text(project / "build/sizes/sizes-1p-a4.pdf", 1)
    assert "裁切" in first and board_line not in first.replace("\n", "")
    with_board = page_text(cephiro_built.folder / f"cephiro-pillar-2p-a4{cephiro_built.suffix}.pdf", 1)
    assert board_line in with_board.replace("\n", "")


# --- faces taken as they arrive (render(stream=True)) -------------------------------------------

class _Face:
    def __init__(self, direct):
        self.direct = direct


def _arrivals(log, fail_at=None):
    """A stand-in for _render_missing(pooled=True): a marker, then two faces a batch."""
    try:
        yield None
        for batch in range(3):
            if batch == fail_at:
                raise PnpError(Problem("cards/x.yaml", 3, f"batch {batch} cannot be drawn"))
            log.append(f"batch {batch}")
            for n in range(2):
                direct = f"d{2 * batch + n}"
                yield direct, f"k{2 * batch + n}", {}, b"%PDF"
    finally:
        log.append("closed")


def _streamed(log, fail_at=None):
    from generator.render.cards import Rendered
    rendered, arrived, finished = Rendered(None), [], []

    def take(direct, key, inputs, data):
        arrived.append(direct)
        rendered.keys[direct] = key

    rendered.expect(_arrivals(log, fail_at), take, lambda: finished.append(True))
    return rendered, arrived, finished


def test_a_streamed_render_gives_each_face_when_it_arrives_and_all_at_the_end():
    log = []
    rendered, arrived, finished = _streamed(log)
    assert arrived == [] and log == []                      # expect() stops at the marker
    assert rendered.key_of(_Face("d2")) == "k2"             # waits for the batch holding it, no further
    assert arrived == ["d0", "d1", "d2"] and log == ["batch 0", "batch 1"] and not finished
    assert rendered.key_of(_Face("d0")) == "k0"             # arrived already: nothing more taken
    assert arrived == ["d0", "d1", "d2"]
    rendered.finish()
    assert arrived == [f"d{n}" for n in range(6)] and finished == [True] and log[-1] == "closed"
    rendered.finish()                                       # once only
    assert finished == [True]


def test_a_face_that_cannot_be_drawn_is_raised_where_it_is_waited_for_and_nothing_more_is_taken():
    log = []
    rendered, arrived, finished = _streamed(log, fail_at=1)
    with pytest.raises(PnpError, match="batch 1 cannot be drawn"):
        rendered.key_of(_Face("d3"))
    assert arrived == ["d0", "d1"] and not finished
    rendered.finish()                                       # nothing left to wait for
    with pytest.raises(KeyError):
        rendered.key_of(_Face("d3"))
    assert not finished


def test_a_build_that_stops_taking_faces_closes_their_source():
    log = []
    rendered, arrived, finished = _streamed(log)
    rendered.key_of(_Face("d0"))
    rendered.close()
    assert log == ["batch 0", "closed"] and not finished
    rendered.finish()                                       # closed: nothing more comes
    assert arrived == ["d0"]


def test_without_a_marker_every_face_is_taken_at_once():
    from generator.render.cards import Rendered
    rendered, arrived = Rendered(None), []
    rendered.expect(iter([("d0", "k0", {}, b""), ("d1", "k1", {}, b"")]), lambda d, *_: arrived.append(d),
                    lambda: arrived.append("done"))
    assert arrived == ["d0", "d1", "done"]


@pytest.mark.parametrize("bound, pending", [(10_000, True), (0, False)])
def test_a_cold_render_streams_only_up_to_its_bound(warm, monkeypatch, bound, pending):
    """Drawn by two workers, a build's faces come as they arrive only up to STREAM_UP_TO of them
    (above it the build's own writes, while workers share its heap, cost memory)."""
    import generator.render.cards as cards
    monkeypatch.setattr(cards, "STREAM_UP_TO", bound)
    renderer, faces = _faces(warm)
    shutil.rmtree(warm / "build/.cache/faces")
    renderer, faces = _faces(warm)
    rendered = renderer.render(list(faces.values()), jobs=2, stream=True)
    try:
        assert rendered.pending is pending
        rendered.finish()
        assert not rendered.pending
        assert sorted(rendered.fresh) == _labels(faces.values())
        assert all(face.key == rendered.keys[face.direct] for face in faces.values())
    finally:
        rendered.close()


def test_a_cached_face_carries_each_font_as_a_placeholder_of_its_glyphs_only(warm):
    """A face's fonts name the bundled font and list the glyphs it draws with their widths and
    text (/PnpGlyphs), and nothing a pack would only replace (no program, widths array or
    ToUnicode map); the pack's merged fonts have all three, their widths and text those listed."""
    import orjson
    from generator.check.pdfread import parse_cmap, parse_widths
    from generator.render.canonical import _weight
    from generator.render.fontmerge import clean_base
    renderer, faces = _faces(warm)
    listed = {}
    for face in faces.values():
        with pikepdf.open(_entry(renderer, face)) as pdf:
            for font in pdf.pages[0].Resources.Font.values():
                assert set(font.keys()) == {"/Type", "/Subtype", "/BaseFont", "/Encoding", "/DescendantFonts",
                                            "/PnpFont", "/PnpGlyphs"}
                descendant = font.DescendantFonts[0]
                assert "/W" not in descendant and "/FontFile2" not in descendant.FontDescriptor
                glyphs = orjson.loads(bytes(font.PnpGlyphs))
                assert [g for g, _, _ in glyphs] == sorted({g for g, _, _ in glyphs})
                group = (str(font.PnpFont[0]).rstrip(",").strip(), int(font.PnpFont[1]))
                listed.setdefault(group, []).extend(glyphs)
    assert len(listed) >= 2
    pack = warm / "build/cephiro-pillar/cephiro-pillar-2p-a4-zh-Hans.pdf"
    with pikepdf.open(pack) as pdf:
        merged = {}
        for font in pdf.objects:
            if isinstance(font, pikepdf.Dictionary) and font.get("/Subtype") == "/Type0":
                descriptor = font.DescendantFonts[0].FontDescriptor
                assert "/FontFile2" in descriptor
                group = (str(descriptor.FontFamily).rstrip(",").strip(), _weight(clean_base(font.BaseFont)))
                merged.setdefault(group, []).append((parse_widths(font.DescendantFonts[0].W),
                                                     parse_cmap(font.ToUnicode.read_bytes())))
        for group, glyphs in listed.items():        # (page 1 has fonts of its own: one of them is the cards')
            assert any(all((width is None or widths.get(gid) == pytest.approx(width)) and text.get(gid) == hexes
                           for gid, width, hexes in glyphs) for widths, text in merged[group]), group


@pytest.mark.parametrize("count, jobs, taper, sizes", [
    (450, 2, True, [75, 75, 75, 75, 50, 50, 25, 25]),      # deck450: the last batches imposed after the workers stop are small
    (450, 2, False, [75] * 6),
    (451, 2, True, [51, 50, 50, 50, 50, 50, 50, 50, 25, 25]),
    (300, 2, True, [75] * 4),                             # too few to taper: a document costs time of its own
    (200, 2, False, [50] * 4),                            # whole rounds: no worker draws the last one alone
    (100, 2, True, [50, 50]),                             # a small group shared evenly
    (76, 1, False, [38, 38]),
    (3, 4, True, [1, 1, 1]),
    (0, 2, True, []),
])
def test_faces_are_drawn_in_documents_of_at_most_a_chunk_the_last_ones_smaller(count, jobs, taper, sizes):
    from generator.render.cards import CHUNK, chunk_sizes
    assert chunk_sizes(count, jobs, taper) == sizes
    assert sum(sizes) == count and all(0 < s <= CHUNK for s in sizes)


def test_a_cold_render_draws_the_last_group_in_tapering_documents(warm, monkeypatch):
    """Drawn by two workers, only the group of faces (by size and stylesheets) that ends the build
    ends in smaller documents (cephiro's last group, its two reference cards, is smaller than a round
    of documents: the card faces' group before it tapers), and every face is drawn once."""
    import generator.render.cards as cards
    monkeypatch.setattr(cards, "CHUNK", 6)
    drawn = []
    real = cards.worker_pool
    monkeypatch.setattr(cards, "worker_pool", lambda jobs: drawn.extend(c[0] for c in cards._WORKER[1]) or real(jobs))
    shutil.rmtree(warm / "build/.cache/faces")
    renderer, faces = _faces(warm)
    renderer.render(list(faces.values()), jobs=2)
    groups = {}
    for face in {f.direct: f for f in faces.values()}.values():
        groups.setdefault((face.page_size, tuple(renderer.stylesheets(face.deck))), []).append(face)
    counts = [len(g) for g in groups.values()]
    ending = [sum(counts[i + 1:]) < 2 * 6 for i in range(len(counts))]     # fewer faces after it than a round
    expected = [cards.chunk_sizes(c, 2, taper) for c, taper in zip(counts, ending)]
    assert [group[-4:] == [4, 4, 2, 2] for group in expected] == [c > 4 * 6 and e for c, e in zip(counts, ending)]
    assert any(group[-4:] == [4, 4, 2, 2] for group in expected), counts
    assert [len(chunk) for chunk in drawn] == [s for group in expected for s in group]
    assert sorted(f.direct for chunk in drawn for f in chunk) == sorted(f.direct for group in groups.values()
                                                                         for f in group)
