"""萤火虫的出嫁：七夜同灯: the rules against the seed's worked example, and the packs."""
from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given, strategies as st
from pypdf import PdfReader

from generator.source.assets import Assets
from generator.source.load import load_game
from generator.source.project import Project
from generator.check.validate import validate
from tests.conftest import ROOT
from tests.pdfcheck import card_pages, page_text


@pytest.fixture(scope="module")
def game():
    project = Project.at(ROOT)
    game = load_game(project, "seven-nights")
    assert [p for p in validate(project, game, Assets(project)) if not p.note] == []
    return game


def test_worked_example_night_by_night(game):
    """Section 七 replayed through the rules module ends at the seed's totals, every night."""
    example = game.data["example.yaml"]["example"]["expect"]
    replay = game.derived["example"]
    multipliers = [s["multiplier"] for s in game.derived["road"]]
    for night, (scores, totals, panic) in enumerate(zip(example["scores"], example["totals"], example["panic"])):
        results = replay["nights"][night]["results"]
        # the seed's 得分 column is the oath score, already ×2 on the last night
        assert {n: r["base"] * multipliers[night] for n, r in results.items()} == scores, f"night {night + 1}"
        assert replay["nights"][night]["totals"] == totals, f"night {night + 1}"
        assert replay["nights"][night]["panic"] == panic
    end = replay["end"]
    assert end["kept"] == example["kept"] and end["gift"] == example["gift"]
    assert end["final"] == example["final"] and not end["wedding_failed"]


def test_scores_table(game):
    oaths = {o["oath"]: o for o in game.derived["oaths"]}
    assert [oaths[t]["keep"] for t in range(2, 10)] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert [oaths[t]["fail"] for t in range(2, 10)] == [-1, -1, -1, -2, -3, -4, -5, -6]
    assert [oaths[t]["break_even"] for t in range(2, 10)] == [50, 33, 25, 33, 38, 40, 42, 43]
    assert game.derived["cheapest_oath"] == 4


@given(lit=st.integers(1, 5), dark=st.integers(1, 5), fog=st.integers(0, 2), oath=st.integers(2, 9))
def test_harvest_and_oath_scoring(game, lit, dark, fog, oath):
    rules = game.rules
    got = rules.harvest(lit, dark, fog)
    assert got == max(0, lit + dark - fog) and got <= lit + 5 - fog or got == 0
    score, kept, exact = rules.oath_score(oath, got)
    if got >= oath:
        assert kept and score == oath - 1 + (1 if got == oath else 0)
    else:
        assert not kept and score == -max(1, oath - 3)


def test_last_night_doubles_reputation_not_panic(game):
    rules = game.rules
    seats = {"a": rules.Seat("a", "b"), "b": rules.Seat("b", "a"), "c": rules.Seat("c", None)}
    plays = {"a": {"lit": 5, "dark": 4, "oath": 9}, "b": {"lit": 1, "dark": 1, "oath": 9},
             "c": {"lit": 3, "dark": 2, "oath": 4}}
    out = rules.play_night(seats, plays, fog=0, multiplier=2)
    assert out["panic"] == 1                                      # one broken oath: +1, not ×2
    assert out["results"]["a"]["night"] == (8 + 1 + 0) * 2        # exact 9, partner failed: no co-fire
    assert out["results"]["b"]["night"] == (-6 + 1) * 2           # failed, partner kept: co-fire
    assert out["results"]["c"]["night"] == (3 + 1) * 2            # solo lamp: +1, doubled


def test_wedding_failure_and_gift(game):
    rules = game.rules
    seats = {n: rules.Seat(n, None) for n in "abcd"}
    for seat, kept in zip(seats.values(), (5, 5, 3, 2)):
        seat.kept, seat.total = kept, 10
    end = rules.finish(seats, panic=7, players=4)
    assert end["gift"] == {"a": 2, "b": 2, "c": 0, "d": 0} and end["final"]["a"] == 12
    seats = {n: rules.Seat(n, None) for n in "abcd"}
    for seat, kept in zip(seats.values(), (6, 5, 3, 2)):
        seat.kept, seat.total = kept, 10
    end = rules.finish(seats, panic=8, players=4)                 # cap reached: −4 all, no gift
    assert end["wedding_failed"] and set(end["final"].values()) == {6}


def test_deck_flow_and_caps(game):
    flow = game.derived["deck_flow"]
    assert flow[6] == {"dealt": 30, "draws": 72, "first_reshuffle": 3}
    assert game.derived["panic_cap"] == {3: 6, 4: 8, 5: 10, 6: 12}
    assert game.derived["nights_by_fog"] == {0: [1, 3, 7], 1: [2, 4, 6], 2: [5]}


def test_recorded_contradictions_are_the_notes(game):
    project = Project.at(ROOT)
    notes = sorted(p.message.split()[1] for p in validate(project, game, Assets(project)) if p.note)
    assert notes == sorted(c.id for c in game.claims if not c.holds)
    assert {"fog-zero-nights", "law-2-break-even", "deck-flow-6p", "example-gap"} <= set(notes)


PAIRING = {3: {}, 4: {"a": 2, "b": 2}, 5: {"a": 2, "b": 2, "c-solo": 1}, 6: {"a": 2, "b": 2, "c": 2}}


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_pack_contents(nights_built, players):
    pdf, manifest = nights_built.pdf(players, "a4"), nights_built.manifest(players, "a4")
    cards = Counter()
    for entry, placed, _ in card_pages(pdf, manifest, roles=("cards-front", "cards")):
        for slot in entry["slots"]:
            cards[slot["card"]] += 1
    lanterns = {k.split("/")[1]: v for k, v in cards.items() if k.startswith("lanterns/")}
    assert lanterns == {"ember": 12, "short-candle": 12, "common-lamp": 12, "bright-lamp": 12, "full-moon": 12}
    assert {k.split("/")[1]: v for k, v in cards.items() if k.startswith("pairing/")} == PAIRING[players]
    assert sum(v for k, v in cards.items() if k.startswith("guards/")) == 6
    assert sum(v for k, v in cards.items() if k.startswith("reference/")) == 2
    pieces = Counter(p["piece"] for e in manifest["pages"] if e["role"] == "board" for p in e["pieces"])
    assert pieces == {"road-map": 1, "road-map-9": 1, "oath-board": 1, "panic-track": 1, "score-sheet": 1,
                      "pawn": players, "sedan": 1, "panic-marker": 1, "lantern-marker": 1, "host-marker": 1}


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_score_sheet_and_maps_print_the_pack(nights_built, players):
    manifest = nights_built.manifest(players, "letter")
    path = nights_built.folder / manifest["file"]
    pages = {c: e["number"] for e in manifest["pages"] if e["role"] == "board" for c in e["components"]}
    sheet = page_text(path, pages["score-sheet"])
    assert sheet.count("玩家") == players and f"上限 {2 * players}" in sheet
    road = page_text(path, pages["road-map"]).replace(" ", "")
    assert "⑤无灯岭" in road and "雾2" in road and "声望×2" in road
    road9 = page_text(path, pages["road-map-9"]).replace(" ", "")
    assert "断崖" in road9 and "荒村" in road9 and "⑨萤火虫之森" in road9


def test_lantern_values_read_from_both_ends(nights_built):
    manifest = nights_built.manifest(4, "a4")
    path = nights_built.folder / manifest["file"]
    entry = next(e for e in manifest["pages"] if e.get("components") == ["lanterns"] and e["role"] == "cards-front")
    page = PdfReader(str(path)).pages[entry["number"] - 1]
    values = {int(s["card"] == "lanterns/ember") for s in entry["slots"]}
    upright = page.extract_text(orientations=(0,))
    upside_down = page.extract_text(orientations=(180,))
    assert upside_down.count("1") >= 2 * len(entry["slots"]) and values == {1}
    assert upright.count("1") >= 3 * len(entry["slots"])
