"""魔法骑士：塞菲罗支柱: the rules module against the seed's worked example and tables."""
from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from generator.source.assets import Assets
from generator.source.load import load_game
from generator.source.project import Project
from generator.check.validate import validate
from tests.conftest import ROOT


@pytest.fixture(scope="module")
def game():
    project = Project.at(ROOT)
    game = load_game(project, "cephiro-pillar")
    problems = validate(project, game, Assets(project))
    assert [p for p in problems if not p.note] == []
    return game


def test_worked_example_replays_to_the_seeds_results(game):
    """Section 7.2 played trial by trial through the rules: the seed's totals and scores."""
    example = game.data["example.yaml"]["example"]
    expect, corrections = example["expect"], example["corrections"]
    replay = game.derived["example"]
    assert [h["threat"] for h in replay["history"]] == expect["threat"]
    assert [h["peak"] for h in replay["history"]] == expect["peak"]
    assert all(h["success"] for h in replay["history"])
    assert replay["stability"] == expect["stability"]
    for name, totals in expect["totals"].items():
        got = replay["totals"][name]
        assert {k: got[k] for k in totals} == totals, name
    assert replay["scores"] == expect["scores"]
    assert replay["sacrifice"] == expect["sacrifice"]
    # the seed's arithmetic slip, documented: trial ⑧'s power with three knights awake
    powers = [h["power"] for h in replay["history"]]
    for trial, power in corrections["power"].items():
        assert powers[trial - 1] == power != expect["power"][trial - 1]
    assert [p for i, p in enumerate(powers) if i + 1 not in corrections["power"]] == \
        [p for i, p in enumerate(expect["power"]) if i + 1 not in corrections["power"]]
    assert replay["awakened_before_last"] == corrections["awakened_before_last"]


def test_threat_is_players_times_multiplier_for_every_pack(game):
    multipliers = [c.multiplier for c in sorted(game.decks["trials"].cards, key=lambda c: c.number)]
    for trial, multiplier in zip(game.derived["trials"], multipliers):
        assert trial["threat"] == {p: p * multiplier for p in (2, 3, 4, 5)}


def test_needs_per_player_are_independent_of_players(game):
    assert game.derived["needs"] == [2, 1, 1, 1, 1, 1, 1, 0]
    assert game.derived["stability_start"] == {2: 6, 3: 9, 4: 12, 5: 15}


def test_peak_grab_scores(game):
    assert game.derived["peak_scores"] == [32, 33, 39, 26, 24]
    assert game.derived["safe_grabs"] == 2
    assert game.derived["peak_scores_2p"] == [32, 34, 41, 43, 30]
    assert game.derived["safe_grabs_2p"] == 3
    assert [r["score"] for r in game.derived["peak_table_short"]] == [20, 21, 16, 13]


def test_recorded_contradictions_are_exactly_the_notes(game):
    project = Project.at(ROOT)
    notes = [p.message.split()[1] for p in validate(project, game, Assets(project)) if p.note]
    recorded = [c.id for c in game.claims if not c.holds]
    assert sorted(notes) == sorted(recorded)
    assert "identity-4-peak-scores" in recorded and "tracks-3-2" in recorded


def test_oath_decks_match_the_table_and_keep_every_kind(game):
    assert game.derived["oath_deck"] == {2: 24, 3: 30, 4: 36, 5: 36}
    for pack in game.packs:
        kinds = {card.kind for card, copies in game.pack_cards(pack, "oaths")}
        assert len(kinds) == 12


@settings(max_examples=150, deadline=None)
@given(hearts=st.lists(st.lists(st.integers(0, 3), min_size=4, max_size=4), min_size=8, max_size=8),
       faces=st.lists(st.sampled_from([1, 2, 3, 4, 6]), min_size=8, max_size=8))
def test_tracks_hold_every_value_a_game_reaches(game, hearts, faces):
    """Random four-knight games without oath cards never leave the printed track ranges."""
    rules, tracks = game.rules, game.derived["tracks"]
    knights = [rules.Knight() for _ in range(4)]
    for trial, row, face in zip(game.derived["trials"], hearts, faces):
        rules.resolve_trial(knights, [face] * 4, row, trial["multiplier"])
        for k in knights:
            assert tracks["heart"]["min"] <= k.heart <= tracks["heart"]["max"]
            assert tracks["purity"]["min"] <= k.purity <= tracks["purity"]["max"]
            assert tracks["belief"]["min"] <= k.belief <= tracks["belief"]["max"]


def test_lowest_purity_is_reachable(game):
    """The ✧ track's floor is not just safe but reached: all-in ♡ and hit every trial."""
    rules = game.rules
    knights = [rules.Knight(), rules.Knight()]
    for trial in game.derived["trials"]:
        rules.resolve_trial(knights, [1, 1], [3, 0], trial["multiplier"])
    assert min(k.purity for k in knights) == game.derived["tracks"]["purity"]["min"]
