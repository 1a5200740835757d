"""Red team of the board drawings (issue #35), by a reader who did not write them.

The design: a board/map/token copy (one side) is drawn alone on a page MARGIN wider than the piece and
kept in build/.cache/pieces/ under a key naming the piece's spec and side, plus its copy number, player
colour and pack only where the piece's YAML names `copy`, `player` or `pack`; the sheets place the
drawing as a form (plain, turned for a short-edge back, reduced with --fit, clipped to a tile) under a
frame of their own (tile marks, notes, the fold line). The claims: a warm build writes what a cold one
writes; every piece lands where the manifest says and its back behind it; copies that should differ
never share a drawing; a bad piece is one line, no crash.

One warm project (night-market, 3 players, A4) with pieces of its own: one small per-player piece per
way an expression can reach the copy, its player or the pack, and a two-sided board larger than the
paper (tiled). Built once (module scope), copied for each case.

What broke (each a test below, each fixed):
- an expression over two lines of a YAML block (`{{ "B" ~` then `copy }}`) or with a tab before the name
  was not seen to name `copy`/`player`: the piece's JSON escapes the newline into `\\n`, and `\\ncopy`
  has no word boundary before `copy`; every copy printed copy 1's drawing (render/pieces.py reads the
  names in the texts themselves now);
- the back of a tiled two-sided board lay at its front tile's place showing the same part of the back,
  with every duplex mode and with a cutter: the back of the left tile printed the back's left half, behind
  the front's right (sheets/piece_sheets.py: a back tile is the whole back placed as a small piece's back
  would be, shown through its tile's place moved the same way; the tile's marks print on the front);
- with --duplex gutterfold a two-sided piece printed in one run with one-sided card pieces: the run was
  laid out as the first section's kind, so the first player marker's back was never printed (and with
  a two-sided piece first, one-sided pieces would have been folded); a two-sided piece wider than half
  the sheet was then placed off the page: it is now a one-line error;
- an icon file added for a character a board prints as text (the label's "·") left the board as it was
  drawn, while a cold build drew the icon: which characters have an icon decides how text is split
  into icons, and was in a card face's key but not a drawing's (render/piece_cache.py);
- fonts/fonts.yaml's weights swapped between two files (same files, same order) left the boards drawn
  with the old files: a drawing's key named each font by its file and bytes, not its family and weight.
  (The shipped reverse-wizard lost its reversal tokens' backs with --duplex gutterfold the same way.)

- a font edited between two builds of one process (`pnp watch`) was drawn with the fonts first
  registered, and that drawing stored under the new key: reportlab keeps the first font registered under
  a name, and render/pen.py registered each font once a process by its name. Each file is now registered
  under a name of its bytes (the lead's fix, after this red team left it as a strict xfail).

What held (kept as tests): every other way of reaching the copy, its player or the pack (a loop, `when:`,
nested repeats and `item`, a filter chain, format, `i`, the pack alone: one drawing for all its copies);
copies that print the same share one drawing (18 coins, one); fronts, backs, reduced and cutter sheets
where the manifest says; eleven edits of every kind one after another with print options between, then
each set of options warm equal to cold; every edit undone takes every drawing from the store; drawings
swapped, cut or replaced in the store drawn again.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pikepdf
import pytest

from generator.check.pdfread import walk
from generator.geometry import Rect, back_placement
from generator.render.pieces import MARGIN, PieceDrawer
from tests.conftest import ROOT, pnp

GAME = "night-market"
NM = f"cards/{GAME}/"
ARGS = ("build", GAME, "--players", "3", "--paper", "a4", "--lang", "zh-Hans")
PACK = f"{GAME}-3p-a4"
COLOURS = [("red", "红灯"), ("blue", "蓝灯"), ("green", "绿灯")]

# Each probe: a per-player piece with one element printing `v<letter>-<value>`; what copies 1-3
# (red, blue, green) print. One piece each, so that no other element of the piece names what it reads.
PROBES = {
    "a": ('{type: text, x: 1, y: 1, size: 8, text: "va-{{ copy }}"}', ["va-1", "va-2", "va-3"]),
    "b": ('type: text\n        x: 1\n        y: 1\n        size: 8\n        text: |-\n          {{ "vb-" ~\n'
          '          copy }}', ["vb-1", "vb-2", "vb-3"]),
    "c": ('{type: text, x: 1, y: 1, size: 8, text: "vc-{{\\tplayer.id }}"}', ["vc-red", "vc-blue", "vc-green"]),
    "d": ('{type: text, x: 1, y: 1, size: 8, text: "{% for c in [player] %}vd-{{ c.id }}{% endfor %}"}',
          ["vd-red", "vd-blue", "vd-green"]),
    "e": ('{type: text, x: 1, y: 1, size: 8, text: ve-2, when: "{{ copy == 2 }}"}', ["ve-2"]),
    "f": ('type: repeat\n        items: "{{ [copy, copy * 10] }}"\n        x: 1\n        y: 1\n        dx: 12\n'
          '        elements:\n          - type: repeat\n            items: "{{ [item] }}"\n            elements:\n'
          '              - {type: text, x: 0, y: 0, size: 8, text: "vf-{{ item }}"}',
          ["vf-1", "vf-10", "vf-2", "vf-20", "vf-3", "vf-30"]),
    "g": ('{type: text, x: 1, y: 1, size: 8, text: "vg-{{ game.player_colours | selectattr(\'id\', \'equalto\', '
          'player.id) | map(attribute=\'name\') | first }}"}', [f"vg-{name}" for _, name in COLOURS]),
    "h": ('{type: text, x: 1, y: 1, size: 8, text: "{{ \'vh-%d\' | format(copy) }}"}', ["vh-1", "vh-2", "vh-3"]),
    "i": ('type: repeat\n        count: "{{ copy }}"\n        x: 1\n        y: 1\n        dx: 12\n        elements:\n'
          '          - {type: text, x: 0, y: 0, size: 8, text: "vi-{{ i }}"}',
          ["vi-0", "vi-0", "vi-1", "vi-0", "vi-1", "vi-2"]),
    "j": ('{type: text, x: 1, y: 1, size: 8, text: "vj-{{ pack.players }}"}', ["vj-3"] * 3),
}

BIG = """  - id: big
    name: 大图
    size: {width: 300, height: 150}
    elements:
      - {type: text, x: 10, y: 70, size: 20, text: 正左}
      - {type: text, x: 250, y: 70, size: 20, text: 正右}
    back:
      - {type: text, x: 10, y: 70, size: 20, text: 背左}
      - {type: text, x: 250, y: 70, size: 20, text: 背右}
"""
SIZES = {"market-board": (190, 120), "coin": (16, 16), "first-marker": (30, 30), "big": (300, 150),
         **{f"probe-{k}": (60, 12) for k in PROBES}}
TWO_SIDED = {"first-marker", "big"}


def _make(target: Path) -> Path:
    shutil.copytree(ROOT / "tests/fixtures/docs-game", target)
    for shared in ("fonts", "icons"):
        (target / shared).symlink_to(ROOT / shared)
    pieces = target / NM / "pieces.yaml"
    text = pieces.read_text(encoding="utf-8")
    for key, (element, _) in PROBES.items():
        text += (f"  - id: probe-{key}\n    name: 探针\n    size: {{width: 60, height: 12}}\n    per_player: true\n"
                 f"    elements:\n      - {element}\n")
    pieces.write_text(text + BIG, encoding="utf-8")
    counts = "".join(f", probe-{k}: 3" for k in PROBES)
    _sub(NM + "game.yaml", 'coin: "{{ derived.coins[3] }}", first-marker: 1}',
         f'coin: "{{{{ derived.coins[3] }}}}", first-marker: 1{counts}, big: 1}}')(target)
    return target


def _run(project: Path, *args: str) -> str:
    result = pnp(project, *(args or ARGS))
    assert result.exit_code == 0, result.output
    return result.output


def _outputs(project: Path) -> dict[str, bytes]:
    folder = project / "build" / GAME
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(folder).parts)}


def _cold(project: Path, target: Path, *args: str) -> dict[str, bytes]:
    shutil.copytree(project, target, symlinks=True, ignore=shutil.ignore_patterns("build"))
    _run(target, *args)
    return _outputs(target)


def _sub(name: str, old: str, new: str):
    def edit(p: Path) -> None:
        path = p / name
        text = path.read_text(encoding="utf-8")
        assert old in text, (name, old)
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return edit


def _force(project: Path) -> None:
    """Past the up-to-date stamps, so that the build meets the store."""
    for stamp in (project / "build" / GAME).glob(".*.json"):
        if stamp.name not in (".faces.json", ".written.json"):
            stamp.unlink()


@pytest.fixture(scope="module")
def warm(tmp_path_factory) -> tuple[Path, dict[str, bytes]]:
    project = _make(tmp_path_factory.mktemp("warm") / "project")
    _run(project)
    return project, _outputs(project)


def _copy(warm, tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(warm[0], target, symlinks=True)
    return target


@pytest.fixture
def drawn(monkeypatch) -> list[tuple[str, int, str]]:
    """(piece, copy, side) of each drawing really drawn (not taken from the store) by the builds of a test."""
    found: list[tuple[str, int, str]] = []
    original = PieceDrawer._draw_copy

    def spy(self, item, pack, context):
        found.append((item.piece.id, item.copy, item.side))
        return original(self, item, pack, context)
    monkeypatch.setattr(PieceDrawer, "_draw_copy", spy)
    return found


def _text(pdf: Path) -> str:
    return subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout


# --- copies that should differ never share a drawing ----------------------------------------------------

@pytest.mark.parametrize("probe", sorted(PROBES))
def test_copies_that_print_their_number_colour_or_pack_never_share_a_drawing(warm, probe):
    """Each way an expression reaches the copy, its player or the pack (plain, over two lines of a YAML
    block, after a tab, a loop, `when:`, nested repeats with `item`, a filter chain, format, `i`): the three
    copies print what each should, read back from the pack."""
    text = _text(warm[0] / "build" / GAME / f"{PACK}.pdf")
    assert Counter(re.findall(rf"\bv{probe}-\S+", text)) == Counter(PROBES[probe][1])


def test_a_drawing_is_drawn_once_for_every_copy_that_prints_the_same(warm, tmp_path, drawn):
    """Copies that differ only in what their piece never names share one drawing: the 18 coins one, the
    pack-only probe one; the copy probes three (one each); the tiled board one a side for both tiles."""
    project = _copy(warm, tmp_path)
    for kind in ("pieces", "packs", "pack-records"):
        shutil.rmtree(project / "build/.cache" / kind)
    _force(project)
    _run(project)
    count = Counter(piece for piece, _, _ in drawn)
    assert count["coin"] == 1 and count["market-board"] == 1 and count["probe-j"] == 1
    assert all(count[f"probe-{k}"] == 3 for k in PROBES if k != "j"), count
    assert sorted((p, side) for p, _, side in drawn if p in TWO_SIDED) == [
        ("big", "back"), ("big", "front"), ("first-marker", "back"), ("first-marker", "front")]
    assert _outputs(project) == warm[1]


# --- every piece where the manifest says, every back behind its front -----------------------------------

def _form_of(piece: dict) -> Rect:
    """Where a piece's drawing (its page MARGIN wider on each side) should land: a tile's whole piece
    shifted so that its area is on the tile's place, a reduced piece at its scale."""
    x, y, w, h = piece["trim"]
    if "tile" in piece:
        ax, ay, _, _ = piece["tile"]["area"]
        pw, ph = SIZES[piece["piece"]]
        if piece["rotation"] == 180:
            return Rect(x + w + ax - pw - MARGIN, y + h + ay - ph - MARGIN, pw + 2 * MARGIN, ph + 2 * MARGIN)
        return Rect(x - ax - MARGIN, y - ay - MARGIN, pw + 2 * MARGIN, ph + 2 * MARGIN)
    s = piece.get("scale", 1.0)
    return Rect(x - s * MARGIN, y - s * MARGIN, w + 2 * s * MARGIN, h + 2 * s * MARGIN)


def _near(a: Rect | None, b: Rect) -> bool:
    return a is not None and all(abs(p - q) < 0.02 for p, q in zip(a.as_list(), b.as_list()))


def _misplaced(pdf_path: Path, duplex: str) -> list:
    """What does not lie where it should: each placed form against its manifest entry (its rect, its
    turn, a tile's clip); each back's form against back_placement of its front's form (the back sheet
    follows its front; with --duplex none the manifest names its front page); a gutter-fold back against
    its front mirrored over the fold; and every two-sided piece's fronts and backs counted."""
    manifest = json.loads(pdf_path.with_suffix(".json").read_text(encoding="utf-8"))
    boards = {e["number"]: e for e in manifest["pages"] if e["role"].startswith("board")}
    wrong, sides = [], Counter()
    with pikepdf.open(pdf_path) as pdf:
        forms = {n: walk(pdf.pages[n - 1])[0] for n in boards}
        for n, entry in boards.items():
            if len(forms[n]) != len(entry["pieces"]):
                wrong.append((n, "forms", len(forms[n]), len(entry["pieces"])))
                continue
            for form, piece in zip(forms[n], entry["pieces"]):
                sides[piece["piece"], piece["side"]] += 1
                if not _near(form.rect, _form_of(piece)) or form.rotation != piece["rotation"]:
                    wrong.append((n, piece["piece"], piece["side"], form.rect, _form_of(piece)))
                if "tile" in piece and not _near(form.clip, Rect(*piece["trim"])):
                    wrong.append((n, piece["piece"], "clip", form.clip, piece["trim"]))
            pairs = list(zip(forms[n], entry["pieces"]))
            if duplex == "gutterfold":
                fronts = [f for f, p in pairs if p["side"] == "front" and p["piece"] in TWO_SIDED]
                backs = [f for f, p in pairs if p["side"] == "back"]
                for front, back in zip(fronts, backs):
                    mirrored = Rect(entry["size"][0] - front.rect.x - front.rect.w, front.rect.y, front.rect.w,
                                    front.rect.h)
                    if not _near(back.rect, mirrored):
                        wrong.append((n, "fold", back.rect, mirrored))
            elif pairs and all(p["side"] == "back" for _, p in pairs):
                front_forms = forms[entry.get("front_page", n - 1)]
                for (back, piece), front in zip(pairs, front_forms):
                    want, turn = back_placement(front.rect, tuple(entry["size"]), duplex)
                    if not _near(back.rect, want) or back.rotation != turn:
                        wrong.append((n, piece["piece"], "behind", back.rect, want))
                    if front.clip is not None and not _near(back.clip, back_placement(front.clip, tuple(entry["size"]),
                                                                                      duplex)[0]):
                        wrong.append((n, piece["piece"], "back clip", back.clip, front.clip))
    for piece in TWO_SIDED:
        if sides[piece, "front"] != sides[piece, "back"]:
            wrong.append((piece, "fronts", sides[piece, "front"], "backs", sides[piece, "back"]))
    return wrong


@pytest.fixture(scope="module")
def options_project(warm, tmp_path_factory) -> Path:
    target = tmp_path_factory.mktemp("options") / "project"
    shutil.copytree(warm[0], target, symlinks=True)
    return target


PLACEMENTS = {
    "long": ((), PACK),
    "short": (("--duplex", "short"), f"{PACK}-short"),
    "none": (("--duplex", "none"), f"{PACK}-none"),
    "short, --fit": (("--duplex", "short", "--fit"), f"{PACK}-short-fit"),
    "long, --cutter silhouette": (("--cutter", "silhouette"), f"{PACK}-silhouette"),
}


@pytest.mark.parametrize("what", PLACEMENTS)
def test_every_piece_lands_where_the_manifest_says_and_every_back_behind_its_front(options_project, what):
    """Read back from the PDF: every form on its manifest rect, every back (a tiled board's too) behind
    its front, for each duplex mode, reduced with --fit, on cutter sheets."""
    extra, name = PLACEMENTS[what]
    _run(options_project, *ARGS, *extra)
    assert _misplaced(options_project / "build" / GAME / f"{name}.pdf", what.split(",")[0]) == []


def test_a_tiled_back_shows_the_part_of_the_back_behind_its_front_tile(warm):
    """Long-edge, portrait: the back of the left tile prints the back's right half (what lies behind the
    front's left half), at the mirrored place; the tile's marks and note print on the front only."""
    pdf = warm[0] / "build" / GAME / f"{PACK}.pdf"
    manifest = json.loads(pdf.with_suffix(".json").read_text(encoding="utf-8"))
    tiles = [e["number"] for e in manifest["pages"] if e["role"] == "board-tile"]
    texts = [subprocess.run(["pdftotext", "-f", str(n), "-l", str(n), str(pdf), "-"], capture_output=True,
                            text=True, check=True).stdout for n in tiles]
    assert [re.findall("正左|正右|背左|背右", t) for t in texts] == [["正左"], ["背右"], ["正右"], ["背左"]]
    assert [t.split() for t in texts[1::2]] == [["背右"], ["背左"]]        # no note, no tile number
    assert all("300 × 150 mm" in t for t in texts[::2])


def test_gutterfold_prints_every_back_beside_its_front(warm, tmp_path):
    """The first player marker (two-sided) and the board and coins (one-sided) share gutter-fold's run:
    the marker's back prints mirrored over the fold, the one-sided pieces are not folded."""
    project = _copy(warm, tmp_path)
    _sub(NM + "game.yaml", ", big: 1}", "}")(project)      # (wider than half a sheet: see the next test)
    _sub(NM + "pieces.yaml", BIG, "")(project)             # (a piece in no pack is an error)
    _run(project, *ARGS, "--duplex", "gutterfold")
    pdf = project / "build" / GAME / f"{PACK}-gutterfold.pdf"
    assert _misplaced(pdf, "gutterfold") == []
    assert "下一位" in _text(pdf)
    manifest = json.loads(pdf.with_suffix(".json").read_text(encoding="utf-8"))
    backs = {p["piece"] for e in manifest["pages"] for p in e.get("pieces", []) if p["side"] == "back"}
    assert backs == {"first-marker"}


def test_a_two_sided_piece_wider_than_half_a_gutterfold_sheet_is_one_line(warm, tmp_path):
    project = _copy(warm, tmp_path)
    result = pnp(project, *ARGS, "--duplex", "gutterfold")
    line = (project / NM / "pieces.yaml").read_text(encoding="utf-8").splitlines().index("  - id: big") + 1
    assert result.exit_code == 1
    assert result.output.strip() == (
        f"{NM}pieces.yaml:{line}: piece big (300 × 150 mm) has a back and does not fit half a gutter-fold sheet "
        "of a4 (95 × 287 mm) (hint: print it with --duplex long or short, or make it smaller)")
    assert not (project / "build" / GAME / f"{PACK}-gutterfold.pdf").exists()


# --- a warm build after any sequence of edits and print options writes what a cold build writes --------

def _own_icons(p: Path) -> None:
    """icons/ (a link to the repository's) copied into the project, and the coin's icon recoloured."""
    target = (p / "icons").resolve()
    (p / "icons").unlink()
    shutil.copytree(target, p / "icons")
    path = p / "icons/twemoji/1fa99.svg"
    text = path.read_text(encoding="utf-8")
    colour = re.search(r'fill="(#[0-9A-Fa-f]{3,6})"', text).group(1)
    path.write_text(text.replace(colour, "#3355ff"), encoding="utf-8")


EDITS = [
    ("a board's element", _sub(NM + "pieces.yaml", "size: 12, bold: true", "size: 11, bold: true")),
    ("a copy's expression", _sub(NM + "pieces.yaml", 'text: "va-{{ copy }}"', 'text: "va-{{ copy + 1 }}"')),
    ("a player colour's name", _sub(NM + "game.yaml", "name: 红灯", "name: 赤灯")),
    ("a player colour (the two-line probe prints copy only)", _sub(NM + "game.yaml", '"#2e5e9e"', '"#1e4e8e"')),
    ("rules.py: the track's goal", _sub(NM + "rules.py", "GOAL = 25", "GOAL = 24")),
    ("rules.py: coins each (a piece count)", _sub(NM + "rules.py", "COINS_EACH = 6", "COINS_EACH = 5")),
    ("a deck the board's table reads", _sub(NM + "goods.yaml", "name: 走马灯,", "name: 走马花灯,")),
    ("the table the ring reads", _sub(NM + "hours.yaml", "name: 上灯, crowd: 2", "name: 上灯, crowd: 1")),
    ("an icon the coin draws", _own_icons),
    ("an icon file for a character the board prints as text (its ·)", lambda p: shutil.copy(
        p / "icons/twemoji/1fa99.svg", p / "icons/twemoji/b7.svg")),
    ("a per-player piece's count", _sub(NM + "game.yaml", "probe-b: 3", "probe-b: 2")),
    ("a piece made two-sided", _sub(NM + "pieces.yaml", "    elements:\n      - {type: icon, x: 3, y: 3, size: 10, icon: 🪙}",
                                    "    elements:\n      - {type: icon, x: 3, y: 3, size: 10, icon: 🪙}\n"
                                    "    back:\n      - {type: text, x: 2, y: 5, size: 8, text: 背}")),
]
OPTIONS = [("--duplex", "short"), ("--fit",), ("--ink-saver",), ("--cutter", "silhouette"), ("--paper", "letter"),
           ("--duplex", "none"), ("--duplex", "short", "--fit")]


def test_edits_and_print_options_one_after_another_then_warm_equals_cold(warm, tmp_path):
    """Each edit on top of the ones before, each followed by a build with other print options and one
    with the default (so the store holds drawings of every step); at the end each set of options built
    warm writes byte for byte what it writes from a store that never saw another step: the references
    are built one after another in one project of the last inputs, the first of them cold."""
    project = _copy(warm, tmp_path)
    for number, (what, edit) in enumerate(EDITS):
        edit(project)
        _run(project, *ARGS, *OPTIONS[number % len(OPTIONS)])
        assert "wrote" in _run(project), what
    reference = tmp_path / "reference"
    shutil.copytree(project, reference, symlinks=True, ignore=shutil.ignore_patterns("build"))
    for extra in [(), *OPTIONS]:
        _run(project, *ARGS, *extra)
        _run(reference, *ARGS, *extra)
        made, out = _outputs(reference), _outputs(project)
        assert {name: out.get(name) for name in made} == made, extra


def test_every_edit_undone_takes_the_first_build_s_bytes(warm, tmp_path, drawn):
    project = _copy(warm, tmp_path)
    before = {p: p.read_bytes() for p in (project / NM).iterdir()}
    for what, edit in EDITS[:8]:            # (the game's own files: icons/ is the repository's)
        edit(project)
        _run(project)
    for path, data in before.items():
        path.write_bytes(data)
    drawn.clear()
    _run(project)
    assert _outputs(project) == warm[1]
    assert drawn == []                  # every drawing of the first inputs taken from the store


def test_an_icon_file_added_for_a_character_a_board_prints_redraws_the_board(warm, tmp_path):
    """The board's label prints "·" as text; an icon file for it makes the label draw the icon. The set
    of characters that have an icon was not in a drawing's key (it is in a face's): the warm build kept
    the label with the dot, the cold one drew the icon."""
    project = _copy(warm, tmp_path)
    _own_icons(project)
    _run(project)
    shutil.copy(project / "icons/twemoji/1fa99.svg", project / "icons/twemoji/b7.svg")
    _run(project)
    assert _outputs(project) == _cold(project, tmp_path / "cold")


def _own_fonts(project: Path) -> None:
    target = (project / "fonts").resolve()
    (project / "fonts").unlink()
    shutil.copytree(target, project / "fonts")


def _swap_weights(project: Path) -> None:
    """fonts/fonts.yaml: the two Chinese files' weights swapped (same files, same order)."""
    listing = project / "fonts/fonts.yaml"
    text = listing.read_text(encoding="utf-8")
    regular, bold = "weight: 400\n    file: NotoSansSC-Regular.ttf", "weight: 700\n    file: NotoSansSC-Bold.ttf"
    assert regular in text and bold in text
    listing.write_text(text.replace(regular, "weight: 700\n    file: NotoSansSC-Regular.ttf").replace(
        bold, "weight: 400\n    file: NotoSansSC-Bold.ttf"), encoding="utf-8")


def _process(project: Path, *args: str) -> None:
    """A build in a process of its own (fonts are registered with reportlab once a process)."""
    run = subprocess.run([sys.executable, "-m", "generator", "--project", str(project), *(args or ARGS)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


@pytest.fixture(scope="module")
def swapped_cold(warm, tmp_path_factory) -> dict[str, bytes]:
    """What a cold build in a process of its own writes from the warm project's inputs with fonts of its
    own, their Chinese weights swapped: the reference of the two tests below (both end on these inputs)."""
    cold = tmp_path_factory.mktemp("swapped") / "cold"
    shutil.copytree(warm[0], cold, symlinks=True, ignore=shutil.ignore_patterns("build"))
    _own_fonts(cold)
    _swap_weights(cold)
    _process(cold)
    return _outputs(cold)


def test_fonts_yaml_weights_swapped_redraw_the_boards(warm, tmp_path, swapped_cold):
    """fonts/fonts.yaml names which file draws a family's weight: the two Chinese files' weights swapped
    make every text the other file. Only the fonts' files and bytes were in a drawing's key: the warm
    build (a new process) kept the boards as drawn, the cold one drew them anew. (The build before the
    swap only fills the store: it is made in this process; the build under test in a process of its own.)"""
    project = _copy(warm, tmp_path)
    _own_fonts(project)
    _run(project)                       # (the scene: the store's drawings with the fonts as they were)
    _swap_weights(project)
    _process(project)
    assert _outputs(project) == swapped_cold


def test_fonts_edited_between_builds_of_one_process_redraw_the_boards(warm, tmp_path, swapped_cold):
    project = _copy(warm, tmp_path)
    _own_fonts(project)
    _run(project)                       # (this process registered the fonts as they were)
    _swap_weights(project)
    _run(project)
    assert _outputs(project) == swapped_cold


# --- the store damaged: a miss, drawn again, never printed -----------------------------------------------

def _entries(project: Path) -> list[Path]:
    return sorted(p for p in (project / "build/.cache/pieces").rglob("*.pdf") if p.is_file())


def _swap(a: Path, b: Path) -> None:
    data = a.read_bytes()
    a.write_bytes(b.read_bytes())
    b.write_bytes(data)


DAMAGE = {
    "two copies' drawings swapped (probe-a's copies)": lambda es, by: _swap(by["va-1"], by["va-2"]),
    "every drawing cut short": lambda es, by: [e.write_bytes(e.read_bytes()[:300]) for e in es],
    "a copy's drawing another piece's": lambda es, by: by["va-3"].write_bytes(by["vb-1"].read_bytes()),
}


_PRINTS: dict[str, str] = {}


def _prints(warm) -> dict[str, str]:
    """The warm build's drawings by what each prints (the probes print one word), by their names in
    the store: read once a module (each case's store is a copy of the warm build's)."""
    if not _PRINTS:
        store = warm[0] / "build/.cache/pieces"
        for entry in _entries(warm[0]):
            words = re.findall(r"v[a-j]-\S+", subprocess.run(["pdftotext", str(entry), "-"], capture_output=True,
                                                              text=True).stdout)
            if len(words) == 1:
                _PRINTS[words[0]] = entry.relative_to(store).as_posix()
    return _PRINTS


@pytest.mark.parametrize("what", DAMAGE)
def test_a_damaged_drawing_is_drawn_again_and_never_printed(warm, tmp_path, drawn, what):
    project = _copy(warm, tmp_path)
    for kind in ("packs", "pack-records"):
        shutil.rmtree(project / "build/.cache" / kind)
    entries = _entries(project)
    store, first = project / "build/.cache/pieces", warm[0] / "build/.cache/pieces"
    assert [e.relative_to(store) for e in entries] == [e.relative_to(first) for e in _entries(warm[0])]
    by = {word: store / name for word, name in _prints(warm).items()}       # a drawing by what it prints
    assert all(by[word].read_bytes() == (first / name).read_bytes() for word, name in _prints(warm).items())
    DAMAGE[what](entries, by)
    _force(project)
    _run(project)
    assert drawn
    assert _outputs(project) == warm[1]
