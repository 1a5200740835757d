"""Boards and pieces are cached like faces: a rebuild draws again exactly the drawings whose inputs
changed (an icon file they place, the piece's own spec), and the cached pack equals a cold one."""
from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from generator.render.pieces import PieceDrawer
from generator.sheets.kit import build_game
from generator.source.assets import Assets
from generator.source.project import Project, isolate_fonts
from tests.conftest import ROOT, make_project, seed_store

GAME = "cephiro-pillar"
PIECES = f"cards/{GAME}/pieces.yaml"
PACK = f"build/{GAME}/{GAME}-2p-a4-zh-Hans.pdf"
FLAG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36"><rect x="4" y="4" width="28" height="28" fill="{}"/></svg>'


@pytest.fixture
def project(tmp_path, monkeypatch, cephiro_built):
    """cephiro with its own icons/ folder (a copy, and one icon of its own that only the host marker
    places), and a record of each drawing really drawn: the pieces on its sheets. Its card faces and
    its rulebooks' layouts and pages come from the session's build (they are not what these tests
    count: a rulebook's figures are drawn, and counted, before its pages are looked up; a figure
    drawn anew misses the pages' key and is placed again). A test's cold reference, made after
    build/ is removed with its store, draws and lays out everything itself."""
    return _prepared(tmp_path / "project", monkeypatch, cephiro_built)


@pytest.fixture(scope="module")
def first_build(tmp_path_factory, cephiro_built) -> tuple[Path, list[set[str]]]:
    """The project above built once for the module (its 2-player A4 pack), and the drawings that first
    build drew (with no drawing in its store: every one)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        project = _prepared(tmp_path_factory.mktemp("first") / "project", monkeypatch, cephiro_built)
        return project, _build(project)


@pytest.fixture
def built(first_build, tmp_path, monkeypatch) -> tuple[Path, list[set[str]]]:
    """A copy of the module's built project, each drawing really drawn recorded as in `project`; and
    the drawings its first build drew (what `_build(project)` gave as a test's first build)."""
    project = Path(shutil.copytree(first_build[0], tmp_path / "project", symlinks=True))
    _spy(monkeypatch)
    return project, list(first_build[1])


def _prepared(target: Path, monkeypatch, cephiro_built) -> Path:
    project = make_project(target, [GAME])
    seed_store(project, [cephiro_built], only=("faces", "rulebook", "rulebook-layouts"))
    (project / "icons").unlink()
    shutil.copytree(ROOT / "icons", project / "icons")
    (project / "icons/own").mkdir()
    (project / "icons/own/flag.svg").write_text(FLAG.format("#c03030"))
    pieces = project / PIECES
    text = pieces.read_text(encoding="utf-8")
    marker = "      - {type: icon, x: 8, y: 3.5, size: 10, icon: ⭐}"
    assert text.count(marker) == 1
    pieces.write_text(text.replace(marker, "      - {type: icon, x: 8, y: 3.5, size: 10, icon: own/flag.svg}"),
                      encoding="utf-8")
    _spy(monkeypatch)
    return project


def _spy(monkeypatch) -> None:
    DRAWN.clear()
    original = PieceDrawer._draw_copy

    def spy(self, item, pack, context):
        DRAWN.append({item.piece.id})
        return original(self, item, pack, context)

    monkeypatch.setattr(PieceDrawer, "_draw_copy", spy)


DRAWN: list[set[str]] = []          # the piece of each drawing really drawn (one copy, one side), in order


def _build(project, players=(2,), papers=("a4",)) -> list[set[str]]:
    """Build the 2-player A4 pack in the source language; the drawings drawn now (not from the cache).
    The edition's stamp is set aside: these tests are about what the cache gives a build that runs."""
    DRAWN.clear()
    for stamp in (project / "build" / GAME).glob(".edition-*.json"):
        stamp.unlink()
    proj = Project.at(project)
    isolate_fonts(proj)
    build_game(proj, Assets(proj), GAME, list(players), list(papers), say=lambda _: None, lang="zh-Hans")
    return list(DRAWN)


def test_a_board_every_pack_prints_is_drawn_once_and_placed_where_the_manifest_says(project):
    """A copy is drawn alone and placed by every pack and paper that prints it: the record board
    (one per player colour, never naming the pack) is drawn once per colour for the packs of 2 and 3
    players on two papers; the trial map, which prints the player count, once per pack size. Each
    placed drawing's piece lands on its trim in the manifest, read back from the PDF."""
    import json

    import pikepdf

    from generator.check.pdfread import walk
    from generator.render.pieces import MARGIN
    drawn = _build(project, players=(2, 3), papers=("a4", "letter"))
    assert sum("record-board" in d for d in drawn) == 3       # red, blue, green
    assert sum("trial-map" in d for d in drawn) == 2          # "2 人局", "3 人局"
    name = f"build/{GAME}/{GAME}-3p-letter-zh-Hans"
    manifest = json.loads((project / f"{name}.json").read_text(encoding="utf-8"))
    boards = [e for e in manifest["pages"] if e["role"] == "board"]
    assert boards
    with pikepdf.open(project / f"{name}.pdf") as pdf:
        for entry in boards:
            placed, _ = walk(pdf.pages[entry["number"] - 1])
            assert len(placed) == len(entry["pieces"])
            for form, piece in zip(placed, entry["pieces"]):
                x, y, w, h = piece["trim"]
                if piece["rotation"] == 180:
                    assert form.rotation == 180
                got = form.rect
                for a, b in ((got.x, x - MARGIN), (got.y, y - MARGIN), (got.w, w + 2 * MARGIN), (got.h, h + 2 * MARGIN)):
                    assert abs(a - b) < 0.01, (entry["number"], piece, got)


def _digest(project) -> str:
    return hashlib.sha256((project / PACK).read_bytes()).hexdigest()


def test_a_change_redraws_exactly_the_drawings_that_read_it(built):
    project, cold = built
    assert cold and any("host-marker" in d for d in cold) and any("record-board" in d for d in cold)
    assert _build(project) == []                                  # nothing changed: nothing drawn

    # an icon file only the host marker places: exactly the drawings with the host marker on them
    (project / "icons/own/flag.svg").write_text(FLAG.format("#3030c0"))
    redrawn = _build(project)
    assert sorted(map(sorted, redrawn)) == sorted(sorted(d) for d in cold if "host-marker" in d)

    # one piece's own spec: exactly the drawings of that piece
    pieces = project / PIECES
    text = pieces.read_text(encoding="utf-8")
    old = "text: 每场后顺时针传递}"
    assert text.count(old) == 1
    pieces.write_text(text.replace("size: 6, colour: \"#d9c98f\", " + old, "size: 6.2, colour: \"#d9c98f\", " + old),
                      encoding="utf-8")
    assert pieces.read_text(encoding="utf-8") != text
    redrawn = _build(project)
    assert sorted(map(sorted, redrawn)) == sorted(sorted(d) for d in cold if "host-marker" in d)
    assert _build(project) == []


def test_a_card_edit_redraws_only_the_drawings_whose_expressions_read_the_decks(built):
    """A card's text that no board prints: no drawing is drawn again (the decks are an input of a
    drawing only when one of its expressions reads them); the pack is then a cold build's."""
    project, _ = built
    oaths = project / f"cards/{GAME}/oaths.yaml"
    text = oaths.read_text(encoding="utf-8")
    old = "effect: 本轮你若成为心愿最盛者"
    assert old in text
    oaths.write_text(text.replace(old, "effect: 本轮若你成为心愿最盛者", 1), encoding="utf-8")
    assert _build(project) == []
    cached = _digest(project)
    shutil.rmtree(project / "build")
    assert _build(project)
    assert _digest(project) == cached


def test_a_pack_from_cached_drawings_equals_a_cold_one(built):
    project, _ = built
    (project / "icons/own/flag.svg").write_text(FLAG.format("#30a030"))
    assert _build(project)                                        # partly cached, partly drawn
    cached = _digest(project)
    for kind in ("pieces", "faces", "rulebook", "packs", "pack-records"):     # the pack itself made again
        for path in sorted((project / "build/.cache" / kind).rglob("*"), reverse=True):
            path.rmdir() if path.is_dir() else path.unlink()
    assert _build(project)
    assert _digest(project) == cached


def test_a_damaged_drawing_in_the_cache_is_drawn_again(built):
    project, cold = built
    for entry in (project / "build/.cache/pieces").rglob("*.pdf"):
        entry.write_bytes(entry.read_bytes()[:200])               # cut off: its hash no longer matches
    assert sorted(map(sorted, _build(project))) == sorted(map(sorted, cold))


def test_a_translation_redraws_no_board_and_the_untranslated_check_is_made_again(tmp_path):
    """The edition's catalogue as a whole is not in a drawing's key: an edited translation that no
    drawing prints takes every drawing from the cache. A drawing that printed words of the source's
    script passed the untranslated check only because the catalogue quoted them: a catalogue that no
    longer does makes it a miss, so the check runs again (here: the drawing is made again)."""
    from generator.render.piece_cache import PieceCache
    from generator.source.load import load_game
    root = make_project(tmp_path / "project", [GAME])
    proj = Project.at(root)
    game = load_game(proj, GAME, "en")
    assets = Assets(proj)
    calls = []

    def draw(texts):
        def drawing(context):
            calls.append(texts)
            cache = drawing.cache
            for text in texts:
                assert not game.untranslated(text)
                cache.drew_text(text)
            return b"%PDF drawn " + repr(texts).encode()
        return drawing

    def run(texts, quoted=None):
        if quoted is not None:
            game.quoted = quoted
        cache = PieceCache(assets, game, False)
        drawing = draw(texts)
        drawing.cache = cache
        return cache.draw("a copy", {"derived": {}}, drawing)

    both = ["Knight of 塞菲罗支柱", "Trial road"]
    quoted = game.quoted + "\nthe Pillar (塞菲罗支柱)"       # a translation that keeps the name
    first = run(both, quoted)
    assert calls == [both]
    # another translation edited (the catalogue's text changed elsewhere): taken from the cache
    assert run(both, quoted + "\nSpring of the Sorrowful Moon") == first and calls == [both]
    # the catalogue no longer quotes the name: not taken, the check is made again
    calls.clear()
    with pytest.raises(AssertionError):
        run(both, quoted.replace("塞菲罗支柱", "塞菲罗"))
    assert calls == [both]


def test_a_figure_drawn_anew_is_placed_again_in_the_laid_out_rulebook(built, monkeypatch):
    """The record board is a figure of the rulebook: its label's size redraws it, and the rulebook's
    pages take it without being laid out again (the layout is a store value of its own: a figure's
    box is sized by the piece, not by what is drawn in it); the pack is a cold build's."""
    from generator.render.rulebook import RulebookRenderer
    project, _ = built
    laid_out = []
    original = RulebookRenderer._layout
    monkeypatch.setattr(RulebookRenderer, "_layout", lambda self, html: laid_out.append(1) or original(self, html))
    pieces = project / PIECES
    text = pieces.read_text(encoding="utf-8")
    assert text.count("text: 骑士记录板, size: 14,") == 1
    pieces.write_text(text.replace("text: 骑士记录板, size: 14,", "text: 骑士记录板, size: 14.5,"), encoding="utf-8")
    assert any("record-board" in d for d in _build(project))
    assert laid_out == []
    cached = _digest(project)
    shutil.rmtree(project / "build")
    _build(project)
    assert laid_out and _digest(project) == cached


def test_a_board_that_reads_one_field_of_each_card_redraws_only_when_that_field_changes(built):
    """The trial map names each trial (`decks.trials[index].name`): a trial's terrain line, which no
    board prints, redraws nothing; its name redraws the trial map; the pack then equals a cold one."""
    project, cold = built
    assert any("trial-map" in d for d in cold)
    trials = project / f"cards/{GAME}/trials.yaml"
    text = trials.read_text(encoding="utf-8")
    for old, new in (("terrain: 泉水映出欲望，", "terrain: 泉水映出欲望（新），"), ("name: 泉之遗迹", "name: 泉之古迹")):
        assert text.count(old) == 1
        text = text.replace(old, new)
        trials.write_text(text, encoding="utf-8")
        redrawn = _build(project)
        assert redrawn == [] if "terrain" in old else any("trial-map" in d for d in redrawn)
    cached = _digest(project)
    shutil.rmtree(project / "build")
    _build(project)
    assert _digest(project) == cached


def test_what_a_drawing_read_of_a_deck_decides_when_it_is_drawn_again(tmp_path):
    """A field of cards read by place records that field of every card; a count, the count; walking
    the deck, the whole deck. Each recorded part, changed, draws again; anything else is a hit."""
    from generator.render.piece_cache import PieceCache
    from generator.source.load import load_game
    root = make_project(tmp_path / "project", [GAME])
    proj = Project.at(root)
    game = load_game(proj, GAME, "zh-Hans")
    cache = PieceCache(Assets(proj), game, False)
    drawn = []

    def run(trials, reads):
        def draw(context):
            drawn.append(reads(context["decks"]))
            return b"%PDF " + repr(drawn[-1]).encode()
        drawn.clear()
        # the copy's identity is in its key: here, the name of what it reads
        cache.draw(reads.__name__, {"decks": {"trials": trials}, "derived": {}}, draw)
        return len(drawn)

    def deck(**change):
        cards = [{"name": "A", "terrain": "x"}, {"name": "B", "terrain": "y"}]
        for field, value in change.items():
            cards[1][field] = value
        return cards
    def by_place(decks):
        return decks["trials"][1]["name"] if "trials" in decks else None
    assert run(deck(), by_place) == 1
    assert run(deck(terrain="z"), by_place) == 0           # a field it did not read
    assert run(deck(name="C"), by_place) == 1              # the field it read
    assert run(deck(name="C") + [{"name": "D"}], by_place) == 1       # another card: that field of it
    def counted(decks):
        return len(decks["trials"])
    assert run(deck(), counted) == 1 and run(deck(name="E"), counted) == 0
    assert run(deck() + [{"name": "F"}], counted) == 1
    def walked(decks):
        return [c["terrain"] for c in decks["trials"]]
    assert run(deck(), walked) == 1 and run(deck(name="G"), walked) == 1


@pytest.mark.parametrize("rotation, scale", [(0, 1.0), (180, 1.0), (0, 0.5), (180, 0.5)])
def test_a_copy_s_matrix_puts_its_piece_on_its_rect(rotation, scale):
    """The drawing of a copy is its piece with MARGIN on every side: placed, turned for a short-edge
    back, or reduced (or both), its piece's corners land on the placement's rect (PDF points, y up);
    a tile puts its area of the piece on the tile's place."""
    from types import SimpleNamespace

    from generator.geometry import PT, Placement, Rect, Tile
    from generator.render.pieces import MARGIN, _matrix
    H, w, h = 297.0, 100.0, 60.0
    item = SimpleNamespace(size=(w, h))

    def lands(placement, u, v):          # a point of the drawing (mm from its bottom-left) on the sheet, mm
        a, b, c, d, e, f = (float(n) for n in _matrix(placement, H).split())
        return round((a * u * PT + c * v * PT + e) / PT, 3), round((b * u * PT + d * v * PT + f) / PT, 3)
    rect = Rect(20, 30, w * scale, h * scale)
    placement = Placement(item, rect, rotation=rotation, scale=scale)
    top_left, bottom_right = lands(placement, MARGIN, MARGIN + h), lands(placement, MARGIN + w, MARGIN)
    sheet = {(20, H - 30), (20 + w * scale, H - 30 - h * scale)}
    if rotation == 180:      # the piece's top-left on the rect's bottom-right
        assert (top_left, bottom_right) == ((20 + w * scale, H - 30 - h * scale), (20, H - 30))
    else:
        assert {top_left, bottom_right} == sheet and top_left == (20, H - 30)
    tile = Tile(2, 0, 1, 1, 2, Rect(45, 0, 55, 60), (210, 297), Rect(10, 10, 55, 60))
    assert lands(Placement(item, Rect(10, 10, 55, 60), tile=tile), MARGIN + 45, MARGIN + h) == (10, H - 10)
