"""Colours are checked however they are written: a colour a piece's {{ expression }} gives meets the
rule a literal colour meets (#rrggbb or none), and is refused in one located line, exit 1, with
nothing written; player colours in game.yaml are told apart by id, colour and symbol."""
from __future__ import annotations

import copy
import io
import re
from pathlib import Path

import pikepdf
import pytest
from reportlab.pdfgen.canvas import Canvas

from generator.render.pen import Pen
from generator.render.pieces import DrawError, draw_element
from generator.source import schema
from generator.source.schema import PieceSpec
from tests.conftest import pnp

GAME = "demo"
PIECES = f"cards/{GAME}/pieces.yaml"
GAME_FILE = f"cards/{GAME}/game.yaml"


@pytest.fixture
def demo(tmp_path) -> Path:
    """The scaffold's game (a score board with a track, a per-player pawn), titled as the stranger's."""
    project = tmp_path / "p"
    assert pnp(project, "new", GAME, "--title", "Tide Pool").exit_code == 0
    return project


def edit(project: Path, name: str, old: str, new: str) -> int:
    """Replace old by new in the game's file; the line where new starts."""
    path = project / "cards" / GAME / name
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} in {name}"
    text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return text[:text.index(new)].count("\n") + 1


def refused(project: Path, command: str, line: str) -> None:
    result = pnp(project, command, GAME, *(["--players", "2", "--paper", "a4"] if command == "build" else []))
    assert (result.exit_code, result.output) == (1, line + "\n")
    assert not list((project / "build").glob(f"{GAME}/*.pdf"))


REPEAT = """      - type: repeat
        count: 2
        x: 100
        y: 30
        dx: 10
        elements:
          - type: rect
            w: 5
            h: 5
            stroke: "{{ ['#111111', 'teal'][i] }}"
"""

# (old text, new text, the line of the key in `new` (its offset from new's first line), message)
BAD = {
    "player name as background": ('background: "{{ player.colour }}"', 'background: "{{ player.name }}"', 0,
                                  "piece pawn: background: 'Red' is not a colour (use #rrggbb)"),
    "number as background": ('background: "{{ player.colour }}"', 'background: "{{ 5 }}"', 0,
                             "piece pawn: background: 5 is not a colour (use #rrggbb)"),
    "nothing as background": ('background: "{{ player.colour }}"', 'background: "{{ none }}"', 0,
                              "piece pawn: background: None is not a colour (use #rrggbb)"),
    "five digits as background": ('background: "{{ player.colour }}"', "background: \"{{ '#12345' }}\"", 0,
                                  "piece pawn: background: '#12345' is not a colour (use #rrggbb)"),
    "title as a rect's fill": ('fill: "#2b2350"}', 'fill: "{{ game.title }}"}', 0,
                               "piece score-board: rect: fill: 'Tide Pool' is not a colour (use #rrggbb)"),
    "number as a text's colour": ('size: 12, bold: true, colour: "#ffffff"}',
                                  'size: 12, bold: true, colour: "{{ derived.goal }}"}', 0,
                                  "piece score-board: text: colour: 30 is not a colour (use #rrggbb)"),
    "name as a track's colour": ('        colour: "#2b2350"', "        colour: \"{{ 'navy' }}\"", 0,
                                 "piece score-board: track: colour: 'navy' is not a colour (use #rrggbb)"),
    "text as a track mark's fill": ('fill: "#f4d27a"', "fill: \"{{ 'gold' }}\"", 0,
                                    "piece score-board: track: marks.0.fill: 'gold' is not a colour (use #rrggbb)"),
    "a repeated rect's stroke": ("  - id: pawn\n", REPEAT + "  - id: pawn\n", 9,
                                 "piece score-board: repeat: stroke: 'teal' is not a colour (use #rrggbb)"),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_validate_refuses_a_colour_an_expression_gives(demo, case):
    old, new, offset, message = BAD[case]
    line = edit(demo, "pieces.yaml", old, new) + offset
    refused(demo, "validate", f"{PIECES}:{line}: {message}")


@pytest.mark.parametrize("case", ["player name as background", "title as a rect's fill"])
def test_build_refuses_it_and_writes_nothing(demo, case):
    old, new, offset, message = BAD[case]
    line = edit(demo, "pieces.yaml", old, new) + offset
    refused(demo, "build", f"{PIECES}:{line}: {message}")


def _fill_colours(pdf_path: Path) -> set[str]:
    """Every `r g b rg` operator in the pages' drawings (the pieces are forms placed on the sheets)."""
    found, seen = set(), set()
    with pikepdf.open(pdf_path) as pdf:
        waiting = [page.obj for page in pdf.pages]
        while waiting:
            owner = waiting.pop()
            for form in owner.get("/Resources", {}).get("/XObject", {}).values():
                if form.objgen not in seen and form.get("/Subtype") == "/Form":
                    seen.add(form.objgen)
                    found |= {m.decode() for m in re.findall(rb"[\d.]+ [\d.]+ [\d.]+ rg", form.read_bytes())}
                    waiting.append(form)
    return {" ".join(f"{float(v):.3f}" for v in op.split()[:3]) for op in found}


def test_good_expression_colours_build_and_print_that_colour(demo):
    edit(demo, "pieces.yaml", 'fill: "#2b2350"}', "fill: \"{{ '#1A2B3C' }}\", stroke: \"{{ 'none' }}\"}")
    result = pnp(demo, "build", GAME, "--players", "2", "--paper", "a4")
    assert result.exit_code == 0, result.output
    fills = _fill_colours(demo / f"build/{GAME}/{GAME}-2p-a4.pdf")
    red, blue, header = "0.753 0.224 0.169", "0.180 0.435 0.690", "0.102 0.169 0.235"   # #c0392b #2e6fb0 #1A2B3C
    assert {red, blue, header} <= fills      # (the cards print none of them)


# --- every colour key of every element, drawn in-process -------------------------------------

def _colour_keys(model) -> list[str]:
    """The keys a model declares as schema.Colour, optional or not."""
    pattern = schema.Colour.__metadata__[0].metadata[0].pattern
    return [name for name, info in model.model_fields.items()
            if any(getattr(m, "pattern", None) == pattern for m in info.metadata)
            or any(getattr(m, "pattern", None) == pattern for arg in getattr(info.annotation, "__args__", ())
                   for meta in getattr(arg, "__metadata__", ()) for m in getattr(meta, "metadata", ()))]


# the least each element type needs to draw (a highlighted row or cell: its fill is used)
MINIMAL = {
    "rect": {"w": 5, "h": 5},
    "line": {"points": [[0, 0], [5, 5]]},
    "text": {"text": ""},
    "track": {"from": 0, "to": 2, "marks": [{"value": 1, "fill": "#ffffff"}]},
    "stations": {"items": "{{ ['a'] }}", "w": 50, "h": 50, "icon": "", "title": ""},
    "table": {"columns": [10], "rows": 1, "header": [""], "highlight_rows": [0]},
    "ring": {"cx": 30, "cy": 30, "outer": 20, "inner": 10, "cells": 2, "highlight": [0]},
    "cells": {"count": 2},
    "pattern": {"w": 5, "h": 5, "pattern": "stripes"},
}
ELEMENT_MODELS = {m.model_fields["type"].annotation.__args__[0]: m for m in schema.Element.__subclasses__()}
CASES = [(kind, key) for kind, model in sorted(ELEMENT_MODELS.items()) for key in _colour_keys(model)]
CASES += [("track", f"marks.0.{key}") for key in _colour_keys(schema.TrackMark)]


def test_every_element_with_a_colour_is_covered():
    assert {kind for kind, _ in CASES} == set(MINIMAL)
    assert {("ring", "highlight_fill"), ("stations", "path_colour"), ("track", "marks.0.fill")} <= set(CASES)
    assert len(CASES) == 18


@pytest.mark.parametrize("ink_saver", [False, True], ids=["print", "ink-saver"])
@pytest.mark.parametrize("kind,key", CASES, ids=[f"{k}.{f}" for k, f in CASES])
def test_every_colour_key_is_checked_once_evaluated(kind, key, ink_saver):
    spec = {"type": kind, **copy.deepcopy(MINIMAL[kind])}
    *parents, last = key.split(".")
    target = spec
    for step in parents:
        target = target[int(step)] if step.isdigit() else target[step]
    target[last] = "{{ 'Red' }}"
    piece = PieceSpec.model_validate({"id": "p", "name": "P", "size": {"width": 60, "height": 60}, "elements": [spec]})
    pen = Pen(Canvas(io.BytesIO()), None, 60, ink_saver=ink_saver)
    with pytest.raises(DrawError) as caught:
        draw_element(pen, piece.elements[0], {})
    assert str(caught.value) == f"{key}: 'Red' is not a colour (use #rrggbb)"
    assert caught.value.at == tuple(int(s) if s.isdigit() else s for s in key.split("."))


# --- player colours ----------------------------------------------------------------------------

BLUE = '  - {id: blue, name: Blue, colour: "#2e6fb0", symbol: 🌊}'
PLAYERS = {
    "id": ('  - {id: red, name: Blue, colour: "#2e6fb0", symbol: 🌊}',
           "player colour 'red': duplicate id (first used on line {first})"),
    "colour": ('  - {id: blue, name: Blue, colour: "#C0392B", symbol: 🌊}',
               "player colour 'blue': same colour '#C0392B' as player colour 'red' (line {first}) "
               "(hint: players tell their sets apart by colour, and by symbol without colour)"),
    "symbol": ('  - {id: blue, name: Blue, colour: "#2e6fb0", symbol: 🔥}',
               "player colour 'blue': same symbol '🔥' as player colour 'red' (line {first}) "
               "(hint: players tell their sets apart by colour, and by symbol without colour)"),
    "expression": ('  - {id: blue, name: Blue, colour: "{{ 5 }}", symbol: 🌊}',
                   "player_colours.1.colour: '{{ 5 }}' is not a colour (use #rrggbb)"),
}


@pytest.mark.parametrize("what", sorted(PLAYERS))
def test_player_colours_are_told_apart(demo, what):
    new, message = PLAYERS[what]
    line = edit(demo, "game.yaml", BLUE, new)
    refused(demo, "validate", f"{GAME_FILE}:{line}: " + message.replace("{first}", str(line - 1)))
