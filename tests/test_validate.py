"""The validator on good data and on data broken on purpose: each mistake gives one
located line, exit status 1, and a build that refuses to write anything."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import pnp, seed_store

GAME = "cephiro-pillar"


def edit(project: Path, name: str, old: str, new: str) -> None:
    path = project / "cards" / GAME / name
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {name}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def line_of(project: Path, name: str, needle: str) -> int:
    lines = (project / "cards" / GAME / name).read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines, 1) if needle in line)


def test_good_data_validates_with_notes_only(cephiro, cephiro_built):
    seed_store(cephiro, [cephiro_built])        # validate makes every pack: its faces from the session's store
    result = pnp(cephiro, "validate", GAME, "--lang", "zh-Hans")
    assert result.exit_code == 0, result.output
    assert result.output == f"{GAME} (zh-Hans): valid (13 notes; --verbose lists them)\n"
    verbose = pnp(cephiro, "validate", GAME, "--lang", "zh-Hans", "--verbose")
    notes = [line for line in verbose.output.splitlines() if ": note: " in line]
    assert len(notes) == 13                # the contradictions of the rules document the kit settled
    assert verbose.output.splitlines()[-1] == f"{GAME} (zh-Hans): valid (13 notes)"
    line = next(n for n in notes if "note: claim identity-4-peak-scores" in n)
    assert line.startswith("cards/cephiro-pillar/claims.yaml:") and line.endswith(
        "; a known difference, resolved in claims.yaml")
    assert "seed" not in verbose.output.lower()


BROKEN = [
    # (file, old text, new text, line marker in the new file, expected message)
    ("oaths.yaml", "  - id: calm\n", "  - id: mirror\n", "  - id: mirror\n  - id: ZZ",
     "card 'mirror': duplicate id (first used on line"),
    ("oaths.yaml", "    name: 静心\n", "    name: 静心\n    colour: red\n", "colour: red",
     "card 'calm': unknown key 'colour'"),
    ("power.yaml", "{id: red-1, colour: red, value: 1}", "{id: red-1, colour: red, value: one}",
     "value: one", "card 'red-1': value: expected a whole number, got 'one'"),
    ("power.yaml", "{id: red-1, colour: red, value: 1}", "{id: red-1, colour: red, value: 9}",
     "value: 9", "card 'red-1': value: 9 is above the maximum 6"),
    ("power.yaml", "{id: red-1, colour: red, value: 1}", "{id: red-1, colour: pink, value: 1}",
     "colour: pink", "card 'red-1': colour: 'pink' is not a player colour"),
    ("trials.yaml", "    multiplier: 3\n    suggested: 1\n", "    suggested: 1\n", "id: spirit-forest",
     "card 'spirit-forest': required key 'multiplier' is missing"),
    ("oaths.yaml", "    timing: 分配前\n", "    timing: 随时\n", "timing: 随时",
     "card 'surge': timing: '随时' is not one of"),
    ("game.yaml", "oaths: {count: 24}", "oaths: {count: 25}", "oaths: {count: 25}",
     "2-player pack: deck 'oaths' holds 24 cards, the pack declares 25"),
    ("oaths.yaml", "    copies: {2: 2, 3: 3, 4: 3, 5: 3}\n  - id: calm", "    copies: {2: 2, 3: 3, 4: 3, 6: 3}\n  - id: calm",
     "6: 3}", "copies: player count 6 has no pack"),
    ("power.yaml", "face: cephiro-pillar/power.html", "face: cephiro-pillar/nope.html", "nope.html",
     "template 'cephiro-pillar/nope.html' not found under templates/"),
    ("trials.yaml", "    icon: 🌲", "    icon: 🦤", "icon: 🦤", "card 'spirit-forest': icon: no icon for '🦤'"),
    ("oaths.yaml", "effect: 塞菲罗稳定度 +{amount}。", "effect: 塞菲罗稳定度 +{amont}。", "{amont}",
     "card 'blessing': effect: {amont} names no field of this card"),
    ("oaths.yaml", "    name: 静心", "    name: 静心𠀀", "静心𠀀",
     "card 'calm': name: character '𠀀' (U+20000 CJK UNIFIED IDEOGRAPH-20000) is in no bundled font"),
    ("game.yaml", "  - {id: red, name: 炎红", "  - {id: Red, name: 炎红", "id: Red",
     "player_colours.0.id: 'Red' is not a valid id"),
    ("pieces.yaml", "    name: 塞菲罗稳定度条\n", "    name: 塞菲罗稳定度条\n    sise: 3\n", "sise: 3",
     "pieces.1.sise: unknown key"),
    ("pieces.yaml", "  - {type: rect, x: 0, y: 0, w: 200, h: 9", "  - {type: rekt, x: 0, y: 0, w: 200, h: 9", "type: rekt",
     "unknown element type 'rekt'"),
    ("claims.yaml", "    claimed: {2: 4, 3: 6, 4: 8, 5: 10}", "    claimed: {2: 4, 3: 6, 4: 8, 5: 11}",
     "5: 11}", "claim identity-5-capacity (附录 A ⑤ / 十 Q8): the rules document says {2: 4, 3: 6, 4: 8, 5: 11}, the rules give"),
    ("claims.yaml", "    claimed: [32, 33, 34, 26, 24]", "    claimed: [32, 33, 39, 26, 24]", "claimed: [32, 33, 39, 26, 24]",
     "claim identity-4-peak-scores now holds ([32, 33, 39, 26, 24]) but is recorded as a contradiction"),
]


@pytest.mark.parametrize("name,old,new,marker,message", BROKEN, ids=[b[4][:40] for b in BROKEN])
def test_broken_data_is_reported_at_its_line(cephiro, cephiro_built, name, old, new, marker, message):
    seed_store(cephiro, [cephiro_built])        # (a glyph checked on the faces: the edited card's face drawn anew)
    edit(cephiro, name, old, new)
    line = line_of(cephiro, name, marker.split("\n")[0]) if "ZZ" not in marker else None
    result = pnp(cephiro, "validate", GAME, "--lang", "zh-Hans")      # the data's language: its errors are the data's
    assert result.exit_code == 1
    errors = [l for l in result.output.splitlines() if "note:" not in l and not l.endswith("notes)")]
    hits = [l for l in errors if message in l]
    assert hits, result.output
    assert hits[0].startswith(f"cards/{GAME}/{name}:")
    if line is not None:
        assert hits[0].startswith(f"cards/{GAME}/{name}:{line}:"), hits[0]
    assert "Traceback" not in result.output


def test_yaml_syntax_errors_and_tabs(cephiro):
    edit(cephiro, "trials.yaml", "    name: 精灵之森\n", "    name: [精灵之森\n")
    result = pnp(cephiro, "validate", GAME)
    assert result.exit_code == 1
    assert f"cards/{GAME}/trials.yaml:" in result.output and "invalid YAML" in result.output
    edit(cephiro, "trials.yaml", "    name: [精灵之森\n", "\tname: 精灵之森\n")
    result = pnp(cephiro, "validate", GAME)
    line = line_of(cephiro, "trials.yaml", "\tname")
    assert f"cards/{GAME}/trials.yaml:{line}: tab character in indentation" in result.output


def test_rules_module_errors_name_their_line(cephiro):
    edit(cephiro, "rules.py", '        "hand_total": sum(hand),', '        "hand_total": sum(hand) / 0,')
    result = pnp(cephiro, "validate", GAME)
    line = line_of(cephiro, "rules.py", "sum(hand) / 0")
    assert result.exit_code == 1
    assert f"cards/{GAME}/rules.py:{line}: derive() failed: ZeroDivisionError" in result.output


def test_rules_invariant_breaks_are_errors(cephiro):
    edit(cephiro, "power.yaml", "{id: blue-2, colour: blue, value: 2, copies: 2}", "{id: blue-2, colour: blue, value: 2}")
    edit(cephiro, "game.yaml", "power: {where: {colour: [red, blue]}, count: 16}", "power: {where: {colour: [red, blue]}, count: 15}")
    result = pnp(cephiro, "validate", GAME)
    assert "rules check: power colour blue holds [1, 2, 3, 3, 4, 4, 6]" in result.output


def test_build_refuses_on_error_and_writes_nothing(cephiro, cephiro_built):
    seed_store(cephiro, [cephiro_built])        # the first build's faces, boards and pages from the session's store
    assert pnp(cephiro, "build", GAME, "--players", "2", "--paper", "a4").exit_code == 0
    pdf = cephiro / "build" / GAME / f"{GAME}-2p-a4-zh-Hans.pdf"      # the data's language (the game has two)
    before = pdf.read_bytes()
    edit(cephiro, "oaths.yaml", "    timing: 分配前\n", "    timing: 随时\n")
    result = pnp(cephiro, "build", GAME, "--players", "2", "--paper", "a4")
    assert result.exit_code == 1
    assert pdf.read_bytes() == before
    assert not list((cephiro / "build" / GAME).glob(".*.tmp"))


def test_text_that_cannot_fit_fails_naming_the_card(cephiro):
    edit(cephiro, "oaths.yaml", "effect: 你可以重新分配本轮的 ♡ 与 ✧。",
         "effect: " + "你可以重新分配本轮的 ♡ 与 ✧，" * 14 + "。")
    edit(cephiro, "oaths.yaml", "    effect: {type: rich, max_length: 60}", "    effect: {type: rich}")
    result = pnp(cephiro, "build", GAME, "--players", "4", "--paper", "a4", "--jobs", "2")
    line = line_of(cephiro, "oaths.yaml", "  - id: mist")
    assert result.exit_code == 1
    assert (f"cards/{GAME}/oaths.yaml:{line}: oaths/mist (face): the zh-Hans text does not fit its box in "
            "cephiro-pillar/oath.html even at 76 % size") in result.output
    # drawn by two worker processes while the first sheets are imposed: still nothing is written
    assert not list((cephiro / "build" / GAME).glob("*.pdf"))


def test_slightly_long_text_is_shrunk_not_refused(cephiro, cephiro_built):
    seed_store(cephiro, [cephiro_built])        # the other faces from the session's store: the long one is drawn anew
    edit(cephiro, "oaths.yaml", "effect: 你可以重新分配本轮的 ♡ 与 ✧。",
         "effect: " + "你可以重新分配本轮的 ♡ 与 ✧，" * 3 + "。")
    edit(cephiro, "oaths.yaml", "    effect: {type: rich, max_length: 60}", "    effect: {type: rich}")
    result = pnp(cephiro, "build", GAME, "--players", "4", "--paper", "a4")
    assert result.exit_code == 0, result.output


def test_yaml_values_are_what_pyyaml_safe_load_reads_with_their_lines(tmp_path):
    """yamlsrc resolves a plain scalar's type once per text and takes a quoted one as text: the
    values are still PyYAML's own (SafeLoader), read twice so the second read resolves from memory."""
    import yaml

    from generator.source.yamlsrc import load_yaml
    text = ('a: 1\nb: "1"\nc: \'2.5\'\nd: 2.5\ne: true\nf: "yes"\ng: yes\nh: ~\ni: null\nj: !!str 3\n'
            'k: 2001-12-14\nl: [1, "x", y, 0x1F, .inf, -.5e3]\nm: \'\'\nn:\no: No\np: "null"\nq: 1_000\n')
    path = tmp_path / "values.yaml"
    path.write_text(text, encoding="utf-8")
    for _ in range(2):
        loaded = load_yaml(path, "values.yaml")
        assert loaded == yaml.safe_load(text)
        assert [type(loaded[k]).__name__ for k in "abfgp"] == ["int", "str", "str", "bool", "str"]
        assert loaded.line_of("q") == 17 and loaded["l"].line_of(2) == 12
