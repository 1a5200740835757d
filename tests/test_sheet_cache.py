"""Incremental packs (sheets/sheet_cache.py): a rebuild keeps the sheets whose contents are
unchanged, re-imposes only the others, and the pack it writes is byte for byte the one a cold
build writes. Nothing here measures time (that is `make bench`)."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pikepdf
import pytest

from generator.pdfbytes import AS_IS
from generator.sheets import sheet_cache
from generator.source.project import Project
from tests.conftest import ROOT, pnp


def _sizes(target: Path) -> Path:
    """The fixture game of one small two-sided deck per card size (deck-only: incremental)."""
    shutil.copytree(ROOT / "tests/fixtures/sizes", target)
    for shared in ("fonts", "icons"):
        (target / shared).symlink_to(ROOT / shared)
    return target


def _build(project: Path, *options: str) -> None:
    result = pnp(project, "build", "sizes", "--paper", "a4", *options)
    assert result.exit_code == 0, result.output


@pytest.fixture
def kept(monkeypatch):
    """How many sheets each incremental build kept, and how many body pages it had."""
    seen = []
    assemble = sheet_cache.SheetReuser.assemble

    def spy(self, info):
        seen.append((self.kept, len(self.order)))
        return assemble(self, info)
    monkeypatch.setattr(sheet_cache.SheetReuser, "assemble", spy)
    return seen


def _pack(project: Path, suffix: str = "") -> tuple[bytes, bytes]:
    base = project / f"build/sizes/sizes-1p-a4{suffix}"
    return base.with_suffix(".pdf").read_bytes(), base.with_suffix(".json").read_bytes()


def _assert_cold_equal(project: Path) -> None:
    """The pack as built now is the one a cold build of the same cards writes."""
    incremental = _pack(project)
    shutil.rmtree(project / "build")
    _build(project)
    assert _pack(project) == incremental


def _edit(project: Path, old: str, new: str) -> None:
    cards = project / "cards/sizes/poker.yaml"
    text = cards.read_text(encoding="utf-8")
    assert old in text
    cards.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture(scope="module")
def sizes_built(tmp_path_factory) -> tuple[Path, tuple[bytes, bytes]]:
    """The sizes game built once, cold (one process), for the tests that start from a built pack (each
    copies it); and the pack a cold build writes once poker/b's label is 丙 (the edit most of them make)."""
    root = tmp_path_factory.mktemp("sizes")
    project = _sizes(root / "sizes")
    _build(project, "--jobs", "1")
    cold = _sizes(root / "cold")
    _edit(cold, "label: 乙", "label: 丙")
    _build(cold, "--jobs", "1")
    return project, _pack(cold)


def _built(sizes_built, tmp_path: Path) -> Path:
    """A copy of the module's built sizes project, to change."""
    return Path(shutil.copytree(sizes_built[0], tmp_path / "sizes", symlinks=True))


def _assert_edited_cold(project: Path, sizes_built) -> None:
    """The pack as built now is the one a cold build writes with poker/b's label 丙 (the module's)."""
    assert _pack(project) == sizes_built[1]


MARKET = ("build", "night-market", "--players", "3", "--paper", "a4", "--lang", "zh-Hans")
MARKET_PACK = "build/night-market/night-market-3p-a4-zh-Hans.pdf"


def _motto(project: Path, old: str = "motto: 红红火火", new: str = "motto: 红红火火火") -> None:
    stalls = project / "cards/night-market/stalls.yaml"
    text = stalls.read_text(encoding="utf-8")
    assert old in text
    stalls.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.fixture(scope="module")
def market_built(tmp_path_factory) -> tuple[Path, tuple[bytes, bytes]]:
    """night-market (boards and a rulebook; tests/test_rebuild_sequences.py) built once, its Chinese
    3-player A4 pack, for the tests that start from it (each copies it); and that pack (PDF, manifest)
    as a cold build writes it once the red stall's motto is 红红火火火 (the first edit each makes)."""
    from tests.test_rebuild_sequences import _project
    root = tmp_path_factory.mktemp("market")
    project = _project(root / "project")
    assert pnp(project, *MARKET).exit_code == 0
    cold = Path(shutil.copytree(project, root / "cold", symlinks=True, ignore=shutil.ignore_patterns("build")))
    _motto(cold)
    assert pnp(cold, *MARKET).exit_code == 0
    pack = cold / MARKET_PACK
    return project, (pack.read_bytes(), pack.with_suffix(".json").read_bytes())


def _market(market_built, tmp_path: Path) -> Path:
    """A copy of the module's built night-market project, to change."""
    return Path(shutil.copytree(market_built[0], tmp_path / "project", symlinks=True))


@pytest.mark.parametrize("options, suffix", [((), ""), (("--duplex", "gutterfold"), "-gutterfold"),
                                             (("--duplex", "none"), None), (("--sheets", "per-deck"), None)])
def test_one_changed_card_re_imposes_its_sheets_and_equals_a_cold_build(tmp_path, kept, options, suffix):
    project = _sizes(tmp_path / "sizes")
    _build(project, *options)
    assert kept == []                                   # nothing to build on: cold
    if suffix is None:
        suffix = next(p.stem for p in (project / "build/sizes").glob("*.pdf"))[len("sizes-1p-a4"):]
    # A new glyph in, one out: the pack's font subset must be re-made, in place; and again on
    # the next build, which builds on a pack that was itself built on the one before.
    for old, new in (("label: 乙", "label: 丙"), ("label: 丙", "label: 丁")):
        _edit(project, old, new)
        _build(project, *options)
    manifest = json.loads(_pack(project, suffix)[1])
    body = [e for e in manifest["pages"] if e["role"] != "info"]
    changed = [e for e in body if any(s["card"] == "poker/b" and s["side"] == "front" for s in e["slots"])]
    assert 0 < len(changed) < len(body)
    assert kept == [(len(body) - len(changed), len(body))] * 2
    incremental = _pack(project, suffix)

    shutil.rmtree(project / "build")                    # the same cards, cold
    _build(project, *options)
    assert _pack(project, suffix) == incremental
    assert len(pikepdf.open(project / f"build/sizes/sizes-1p-a4{suffix}.pdf").pages) == len(manifest["pages"])


@pytest.mark.parametrize("options", [(), ("--duplex", "gutterfold"), ("--duplex", "none"), ("--sheets", "per-deck")])
def test_a_card_drawn_anew_with_the_pack_s_glyphs_is_the_cold_build(tmp_path, kept, options):
    """A card whose new look draws glyphs the pack has: its sheets are imposed again, the others
    kept, twice over (the second build builds on a pack built on the one before), and the pack
    is the cold build's."""
    project = _sizes(tmp_path / "sizes")
    _build(project, *options)
    pdf = next(p for p in (project / "build/sizes").glob("*.pdf"))
    for old, new in (("label: 乙", "label: 乙甲"), ("label: 乙甲", "label: 甲乙")):
        _edit(project, old, new)
        _build(project, *options)
    assert len(kept) == 2 and all(0 < k < n for k, n in kept)
    incremental = pdf.read_bytes(), pdf.with_suffix(".json").read_bytes()
    shutil.rmtree(project / "build")
    _build(project, *options)
    assert (pdf.read_bytes(), pdf.with_suffix(".json").read_bytes()) == incremental


def test_a_card_drawn_with_another_font_is_built_on_as_before(tmp_path, kept):
    """A card's new look draws with a font its form did not (one the pack has for another card):
    the pack is built on the last one and is the cold build."""
    project = _sizes(tmp_path / "sizes")
    _edit(project, "label: 乙", "label: 乙♠")
    _build(project)
    _edit(project, "label: 甲", "label: 甲♠")
    _build(project)
    assert len(kept) == 1
    _assert_cold_equal(project)


def test_a_new_page_1_and_title_are_built_on_as_before(tmp_path, kept, sizes_built):
    """The game's title changed: every sheet is as it was, but page 1 and the document's title
    are not; the pack is built on its last file, every sheet kept, and is the cold build."""
    project = _built(sizes_built, tmp_path)
    game = project / "cards/sizes/game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace("title: 尺寸测试", "title: 尺寸测试二"), encoding="utf-8")
    _build(project)
    assert len(kept) == 1 and kept[0][0] == kept[0][1]
    _assert_cold_equal(project)


def test_a_pack_changed_on_disk_is_never_built_on(tmp_path, kept, sizes_built):
    project = _built(sizes_built, tmp_path)
    pdf = project / "build/sizes/sizes-1p-a4.pdf"
    pdf.write_bytes(pdf.read_bytes().replace(b"/Producer", b"/Produced"))
    _edit(project, "label: 乙", "label: 丙")
    _build(project)
    assert kept == []                                   # the recorded hash no longer matches: cold


@pytest.mark.parametrize("damage", ["garbage", "folder", "another file", "its file's hash, wrong shape",
                                    "its file's hash, a face's glyphs not JSON"])
def test_a_damaged_record_builds_cold(tmp_path, kept, damage, sizes_built):
    project = _built(sizes_built, tmp_path)
    record = project / "build/.cache/sheets/sizes/sizes-1p-a4.json"
    assert record.is_file()
    if damage == "garbage":
        record.write_text("{nope")
    elif damage == "folder":
        record.unlink()
        record.mkdir()
    elif damage == "another file":
        data = json.loads(record.read_text())
        data["sheets"][0][0] = "0" * 32                 # it no longer describes that file's first sheet
        data["pdf"] = "0" * 64
        record.write_text(json.dumps(data))
    elif damage == "its file's hash, a face's glyphs not JSON":     # read when the changed card's face goes
        data = json.loads(record.read_text())
        data["faces"] = {key: "{nope" for key in data["faces"]}
        record.write_text(json.dumps(data))
    else:                                               # the file's own hash, but nothing else usable
        data = json.loads(record.read_text())
        data.update(sheets=[["x", [1]]], faces=[], info_pages="1")
        record.write_text(json.dumps(data))
    _edit(project, "label: 乙", "label: 丙")
    _build(project)
    assert kept == []
    _assert_edited_cold(project, sizes_built)


def test_a_pack_with_boards_and_a_rulebook_keeps_them_and_is_the_cold_build(tmp_path, kept, market_built):
    """A game with boards and a rulebook: a card edit re-imposes the card's sheets and keeps every other
    page of the last pack (its boards' and its rulebook's among them); a board edit builds the pack
    whole. Each time the pack is the cold build's (after the first edit, the module's)."""
    from tests.test_rebuild_sequences import GAME
    project = _market(market_built, tmp_path)
    build = MARKET
    pack = project / f"build/{GAME}/{GAME}-3p-a4-zh-Hans.pdf"

    def edited(name: str, old: str, new: str) -> tuple[bytes, bytes]:
        path = project / f"cards/{GAME}/{name}"
        text = path.read_text(encoding="utf-8")
        assert old in text
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
        assert pnp(project, *build).exit_code == 0
        return pack.read_bytes(), pack.with_suffix(".json").read_bytes()

    def cold() -> tuple[bytes, bytes]:
        target = tmp_path / f"cold{len(list(tmp_path.glob('cold*')))}"
        shutil.copytree(project, target, symlinks=True, ignore=shutil.ignore_patterns("build"))
        assert pnp(target, *build).exit_code == 0
        made = target / pack.relative_to(project)
        return made.read_bytes(), made.with_suffix(".json").read_bytes()

    assert edited("stalls.yaml", "motto: 红红火火", "motto: 红红火火火") == market_built[1]
    roles = [e["role"] for e in json.loads(pack.with_suffix(".json").read_bytes())["pages"] if e["role"] != "info"]
    assert {"board", "rulebook"} <= set(roles)
    (k, n), = kept
    assert n == len(roles) and roles.count("board") + roles.count("rulebook") <= k < n
    kept.clear()
    assert edited("pieces.yaml", "size: 12", "size: 11") == cold()
    assert len(kept) == 1 and 0 < kept[0][0] < n       # the board's drawing made anew, the rest kept
    kept.clear()
    edited("pieces.yaml", "size: 11", "size: 12")        # undone: the pack is taken from the store,
    assert kept == []
    assert edited("stalls.yaml", "motto: 红红火火火", "motto: 红红火") == cold()
    assert len(kept) == 1 and kept[0][0] >= k          # and the next edit builds on it (its record came too)


def test_a_record_that_lies_about_its_sheets_is_built_whole(tmp_path, kept, sizes_built):
    """A record of the right file whose sheets are swapped (edited by hand): the pack built on
    it fails preflight, so it is built whole, checked again, and is the cold build."""
    project = _built(sizes_built, tmp_path)
    record = project / "build/.cache/sheets/sizes/sizes-1p-a4.json"
    data = json.loads(record.read_text())
    sheets = data["sheets"]
    sheets[10][0], sheets[12][0] = sheets[12][0], sheets[10][0]
    record.write_text(json.dumps(data))
    _edit(project, "label: 乙", "label: 丙")
    _build(project)
    assert len(kept) == 1                               # it was built on, then refused and made whole
    _assert_edited_cold(project, sizes_built)


def test_a_changed_font_with_the_same_glyphs_is_embedded_anew(tmp_path, kept, sizes_built):
    """The faces are drawn again with a changed font file; the pack's subset of it must be made
    from the new file too, though the glyphs the pack draws are the same."""
    from fontTools.ttLib import TTFont
    project = _built(sizes_built, tmp_path)             # (its faces drawn with the same fonts' bytes)
    (project / "fonts").unlink()
    shutil.copytree(ROOT / "fonts", project / "fonts")
    _build(project)
    path = project / "fonts/NotoSansSC-Regular.ttf"
    font = TTFont(path)
    font["glyf"][font.getBestCmap()[ord("甲")]].coordinates.translate((5, 0))   # one drawn glyph's outline
    font.save(path)
    _build(project)
    assert kept == []
    _assert_cold_equal(project)


def test_a_file_where_a_cache_folder_should_be_is_replaced(tmp_path, sizes_built):
    """Caches and records are the build's to make again, whatever stands in their way."""
    project = _built(sizes_built, tmp_path)
    cache = project / "build/.cache"
    shutil.rmtree(cache / "sheets")
    (cache / "sheets").write_text("x")
    shards = [p for p in (cache / "faces").iterdir() if p.is_dir()]
    for shard in shards:         # every one (which holds what depends on the hashes): the build needs some
        shutil.rmtree(shard)
        shard.write_text("x")
    shutil.rmtree(project / "build/sizes")
    _edit(project, "label: 乙", "label: 丙")
    _build(project)
    assert (cache / "sheets").is_dir() and any(shard.is_dir() for shard in shards)
    _assert_edited_cold(project, sizes_built)


def test_a_sheet_key_follows_the_geometry_not_the_objects_that_hold_it():
    """Slot rectangles and marks are hashed by their geometry: equal geometry in other objects
    gives the same key, and a rectangle or mark moved by 0.001 mm, or another face or label,
    another."""
    from generator.geometry import Mark, Rect

    def key(x=10.0, mark_x=5.0, face="f1", label="deck/a"):
        trim, clip = Rect(x, 10.0, 63.5, 88.9), Rect(x - 3, 7.0, 69.5, 94.9)
        return sheet_cache.sheet_key([(face, None, trim, clip, 3.0, label)], (Mark(mark_x, 1.0, mark_x, 4.0),),
                                     (210.0, 297.0), [0], None)

    assert key() == key()
    assert len({key(), key(x=10.001), key(mark_x=5.001), key(face="f2"), key(label="deck/b")}) == 5


# --- what a red-team pass found (2026-12-04) ------------------------------------------------------

def _forms_by_label(path: Path) -> dict[str, set]:
    """Each /PnpId on the pack's sheets, with the form objects that carry it."""
    found: dict[str, set] = {}
    for page in pikepdf.open(path).pages:
        for form in page.obj.get("/Resources", {}).get("/XObject", {}).values():
            if "/PnpId" in form:
                found.setdefault(str(form.PnpId), set()).add(form.objgen)
    return found


def test_cards_and_decks_that_look_alike_get_a_form_each_and_reorder_like_a_cold_build(tmp_path, kept):
    """Two cards drawn alike, and two decks of one size sharing a back design: a form names the
    card it is (preflight reads it), so each card and each deck's back gets its own; a cold
    build passes preflight, and after the decks are reordered the pack built on the last one
    is the cold build (the back's label follows its deck, not the last build's order)."""
    project = _sizes(tmp_path / "sizes")
    folder = project / "cards/sizes"
    poker = (folder / "poker.yaml").read_text(encoding="utf-8")
    twin = poker.replace("id: poker\n  name: poker", "id: twin\n  name: twin").split("cards:\n")[0]
    (folder / "twin.yaml").write_text(twin + "cards:\n  - {id: a, label: 甲, copies: 2}\n  - {id: c, label: 甲}\n",
                                      encoding="utf-8")
    (project / "templates/sizes/face.html").write_text(     # the deck's id off the face: twin/a and twin/c alike
        (project / "templates/sizes/face.html").read_text(encoding="utf-8").replace(" · {{ deck.id }}", ""),
        encoding="utf-8")
    game = folder / "game.yaml"
    text = game.read_text(encoding="utf-8").replace("decks: [poker.yaml,", "decks: [poker.yaml, twin.yaml,")
    game.write_text(text.replace("      poker: {count: 10}\n", "      poker: {count: 10}\n      twin: {count: 3}\n"),
                    encoding="utf-8")
    _build(project)                                     # cold: twin/c is printed as twin/c, checked
    labels = _forms_by_label(project / "build/sizes/sizes-1p-a4.pdf")
    assert {"poker/a", "twin/a", "twin/c", "poker back", "twin back"} <= set(labels)
    assert all(len(forms) == 1 for forms in labels.values())
    assert len(set().union(*labels.values())) == len(labels)   # no form named twice
    game.write_text(game.read_text(encoding="utf-8").replace("decks: [poker.yaml, twin.yaml,",
                                                             "decks: [twin.yaml, poker.yaml,"), encoding="utf-8")
    _build(project)
    assert len(kept) == 1                               # built on the last pack
    _assert_cold_equal(project)


def test_a_glyph_whose_text_changed_gets_its_new_text_as_a_cold_build(tmp_path):
    """A space made a no-break space draws the same glyph, so the set of glyphs the pack draws
    with the font is as it was; the font's text map (what copying the text gives) must change
    all the same, as in a cold build."""
    project = tmp_path / "deck"
    for part in ("templates", "fonts", "icons"):
        shutil.copytree(ROOT / "bench" / part, project / part)
    subprocess.run([sys.executable, str(ROOT / "bench/make_deck.py"), "--count", "12", "--project", str(project)],
                   check=True, capture_output=True)

    def build():
        result = pnp(project, "build", "deck12", "--paper", "a4")
        assert result.exit_code == 0, result.output
        return (project / "build/deck12/deck12-all-a4.pdf").read_bytes()

    build()
    cards = project / "cards/deck12/cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("第1张 Card", "第1张\u00a0Card"), encoding="utf-8")
    incremental = build()
    shutil.rmtree(project / "build")
    assert build() == incremental


def test_a_record_that_does_not_fit_its_pack_is_built_whole(tmp_path, kept, sizes_built):
    """A record of the right file, edited to name page 1 a sheet: no form where it says, so the
    pack is built whole (not an internal error), and it is the cold build."""
    project = _built(sizes_built, tmp_path)
    record = project / "build/.cache/sheets/sizes/sizes-1p-a4.json"
    data = json.loads(record.read_text())
    data["info_pages"] = 0
    data["sheets"].append(data["sheets"][0])
    record.write_text(json.dumps(data))
    _edit(project, "label: 乙", "label: 丙")
    _build(project)
    assert kept == []
    _assert_edited_cold(project, sizes_built)


def test_a_record_naming_a_form_that_is_not_a_stream_is_not_built_on(tmp_path, kept, sizes_built):
    """The last pack's form for the changed card replaced by a dictionary (and the record given the
    file's hash, as a hand edit would): no internal error, the cold build."""
    import hashlib
    project = _built(sizes_built, tmp_path)
    path = project / "build/sizes/sizes-1p-a4.pdf"
    with pikepdf.open(path, allow_overwriting_input=True) as pdf:
        stand_in = pdf.make_indirect(pikepdf.Dictionary(PnpId=pikepdf.String("poker/b")))    # one, as the form was
        for page in pdf.pages:
            for name, form in list(page.obj.Resources.XObject.items()):
                if str(form.get("/PnpId", "")) == "poker/b":
                    page.obj.Resources.XObject[name] = stand_in
        pdf.save(path, **AS_IS)
    record = project / "build/.cache/sheets/sizes/sizes-1p-a4.json"
    data = json.loads(record.read_text())
    data["pdf"] = hashlib.sha256(path.read_bytes()).hexdigest()
    record.write_text(json.dumps(data))
    _edit(project, "label: 乙", "label: 乙甲")
    _build(project)
    _assert_cold_equal(project)


def test_a_cold_pack_copies_its_faces_streams_as_the_face_cache_holds_them(tmp_path, monkeypatch):
    """Every stream of a cached face is canonical as written (render/canonical.py), so a cold pack
    takes each card's form as the face holds its content, compressed, and compresses no face's
    stream again; every stream of the pack is still canonical (compressed as a rebuild would)."""
    import zlib
    from generator import pdfbytes
    project = _sizes(tmp_path / "sizes")
    made = []
    real = pdfbytes.canonical_stream
    monkeypatch.setattr(sheet_cache, "canonical_stream", lambda s, memo=None: made.append(s.get("/Type")) or real(s, memo))
    _build(project, "--jobs", "1")
    faces = {}
    for path in (project / "build/.cache/faces").glob("*/*.pdf"):
        with pikepdf.open(path) as face:
            faces[face.pages[0].Contents.read_raw_bytes()] = path
    with pikepdf.open(project / "build/sizes/sizes-1p-a4.pdf") as pdf:
        forms = [o for o in pdf.objects if isinstance(o, pikepdf.Stream) and "/PnpId" in o]
        assert forms and all(form.read_raw_bytes() in faces for form in forms)
        streams = [o for o in pdf.objects if isinstance(o, pikepdf.Stream) and o.get("/Type") != "/XRef"]
        assert all(zlib.compress(s.read_bytes()) == s.read_raw_bytes() for s in streams)
    assert "/XObject" not in made and made, "only the sheets, fonts and page 1 compressed by the pack"


def test_a_streamed_cold_build_imposes_its_faces_as_drawn_without_reading_them_back(tmp_path, monkeypatch,
                                                                                    sizes_built):
    """Faces drawn by the workers while the build imposes are placed from the bytes they sent (kept
    until a sheet opens them), not read back from the face cache (a face opened again after a sheet
    let it go is); the pack is the one a build from the cache writes (the module's, in one process)."""
    from generator.render.cache import FaceCache
    from generator.render.cards import Rendered
    project = _built(sizes_built, tmp_path)
    cached = _pack(project)
    shutil.rmtree(project / "build")
    again, first, released = [], [], set()
    read, release = FaceCache.read, Rendered.release

    def counted(self, key, sha):
        (again if key in released else first).append(key)
        return read(self, key, sha)
    monkeypatch.setattr(FaceCache, "read", counted)
    monkeypatch.setattr(Rendered, "release", lambda self, key: released.add(self.keys.get(key, key)) or release(self, key))
    _build(project, "--jobs", "2")
    assert released and first == []
    assert _pack(project) == cached


def test_a_stored_frame_cut_short_is_drawn_again(tmp_path):
    """A tiled board's frame (its tiles' marks and notes, kept in the piece cache) cut to one page, with
    its recorded hash made to match: a build on the last pack and a cold one each draw it again and
    write the pack a clean cold build writes."""
    import hashlib
    import io
    from generator.atomic import read_record, write_record
    from tests.test_rebuild_sequences import GAME, _project
    project = _project(tmp_path / "project")
    big = ('  - id: big-map\n    name: 大地图\n    size: {width: 400, height: 300}\n    elements:\n'
           '      - {type: text, x: 5, y: 2.5, text: "地图", size: 12}\n')
    for name, old, new in (("pieces.yaml", "pieces:\n", "pieces:\n" + big),
                           ("game.yaml", 'coins[3] }}", first-marker: 1}', 'coins[3] }}", first-marker: 1, big-map: 1}')):
        path = project / f"cards/{GAME}/{name}"
        text = path.read_text(encoding="utf-8")
        assert old in text
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    build = ("build", GAME, "--players", "3", "--paper", "a4", "--lang", "zh-Hans")
    pack = project / f"build/{GAME}/{GAME}-3p-a4-zh-Hans.pdf"

    def cut_frames() -> int:
        cut = 0
        for listing in (project / "build/.cache/pieces").glob("??/*.json"):
            record = read_record(listing)
            for entry in record["entries"]:
                stored = project / "build/.cache/pieces" / entry["key"][:2] / f"{entry['key']}.pdf"
                pdf = pikepdf.open(io.BytesIO(stored.read_bytes()))
                if len(pdf.pages) > 1:          # a frame: a copy's drawing is one page
                    del pdf.pages[1:]
                    out = io.BytesIO()
                    pdf.save(out)
                    stored.write_bytes(out.getvalue())
                    entry["sha256"] = hashlib.sha256(out.getvalue()).hexdigest()
                    cut += 1
            write_record(listing, record)
        return cut

    def clean_cold() -> bytes:
        target = tmp_path / f"cold{len(list(tmp_path.glob('cold*')))}"
        shutil.copytree(project, target, symlinks=True, ignore=shutil.ignore_patterns("build"))
        assert pnp(target, *build).exit_code == 0
        return (target / pack.relative_to(project)).read_bytes()

    assert pnp(project, *build).exit_code == 0
    assert cut_frames() >= 1
    stalls = project / f"cards/{GAME}/stalls.yaml"
    stalls.write_text(stalls.read_text(encoding="utf-8").replace("motto: 红红火火", "motto: 红红火火火", 1), encoding="utf-8")
    result = pnp(project, *build)
    assert result.exit_code == 0, result.output
    reference = clean_cold()
    assert pack.read_bytes() == reference
    shutil.rmtree(project / f"build/{GAME}")
    for kind in ("packs", "pack-records", "sheets"):
        shutil.rmtree(project / f"build/.cache/{kind}", ignore_errors=True)
    result = pnp(project, *build)
    assert result.exit_code == 0, result.output
    assert pack.read_bytes() == reference                # (the inputs as they were: the same clean cold build)


@pytest.mark.parametrize("part, value", [("conflicts", [[1]]), ("font_names", {"x": ["y"]}), ("faces", {"x": 5}),
                                         ("glyph_map", {"g": {"x": [1, "a"]}})])
def test_a_stored_pack_s_sheet_record_of_the_wrong_shape_is_not_built_on(tmp_path, kept, part, value, market_built):
    """The sheet record a stored pack brings (sheets/pack_store.py) with one part of the wrong shape, its
    entry's hash made to match: the pack is taken, the record is not kept, and the next edit builds the
    pack cold, as a clean cold build writes it (the module's)."""
    import hashlib
    from generator.atomic import read_record, write_record
    from tests.test_rebuild_sequences import GAME
    project = _market(market_built, tmp_path)
    build = MARKET
    pack = project / f"build/{GAME}/{GAME}-3p-a4-zh-Hans.pdf"
    store = project / "build/.cache/pack-records"
    (key,) = [k for k in read_record(store / f"by-name/{pack.name}.json")]
    listing = store / key[:2] / f"{key}.json"
    entries = read_record(listing)
    (entry,) = entries["entries"]
    stored = store / entry["key"][:2] / f"{entry['key']}.pdf"
    record = json.loads(stored.read_bytes())
    record["sheets"][3][part] = value
    stored.write_bytes(json.dumps(record).encode())
    entry["sha256"] = hashlib.sha256(stored.read_bytes()).hexdigest()
    write_record(listing, entries)
    pack.unlink()                                       # taken from the store, with the record it brings
    assert pnp(project, *build).exit_code == 0
    assert not sheet_cache.record_path(Project.at(project), GAME, pack.stem).exists()
    _motto(project)
    result = pnp(project, *build)
    assert result.exit_code == 0, result.output
    assert kept == []
    assert (pack.read_bytes(), pack.with_suffix(".json").read_bytes()) == market_built[1]
