"""七夜同灯: every rule the kit states in more than one place reads the same everywhere.

Each test reads one rule back from every place a pack prints it (road map, oath board, panic track,
score sheet, pairing cards, quick reference, rulebook), in both editions, and compares the copies
with each other and with rules.py.
"""
from __future__ import annotations

import pytest

from generator.check.validate import validate
from generator.source.assets import Assets
from generator.source.load import load_game
from generator.source.project import Project
from tests.conftest import ROOT
from tests.kittext import KitText, found

GAME = "seven-nights"
LANGS = ("zh-Hans", "en")
PACKS = (4, 5, 6)
NO = "①②③④⑤⑥⑦⑧⑨"


@pytest.fixture(scope="module")
def derived():
    project = Project.at(ROOT)
    game = load_game(project, GAME)
    validate(project, game, Assets(project))           # runs rules.py
    return game.derived


@pytest.fixture(scope="module")
def kits(nights_built):
    out = {}
    for players in PACKS:
        for lang in LANGS:
            kit = KitText(nights_built, players, lang)
            out[players, lang] = {"map": kit.piece("road-map"), "board": kit.piece("oath-board"),
                                  "panic": kit.piece("panic-track"), "sheet": kit.piece("score-sheet"),
                                  "pairing": kit.deck("pairing"), "reference": kit.deck("reference"),
                                  "rulebook": kit.rulebook}
    return out


@pytest.mark.parametrize("lang", LANGS)
def test_fog_of_every_station_agrees(kits, derived, lang):
    """Road map, score sheet and the quick reference's station table give each night's fog."""
    fog = [s["fog"] for s in derived["road"]]
    word = "雾" if lang == "zh-Hans" else "Fog"
    for players in PACKS:
        text = kits[players, lang]
        for s in derived["road"]:
            assert f"{word}{s['fog']}" in text["map"].split(NO[s["number"] - 1], 1)[1][:40], s["name"]
        assert "".join(f"{NO[i]}{f}" for i, f in enumerate(fog[:-1])) in text["sheet"]
        assert ("雾值" if lang == "zh-Hans" else "Fog") + "".join(map(str, fog)) in text["reference"]


@pytest.mark.parametrize("lang", LANGS)
def test_oath_table_agrees(kits, derived, lang):
    """Oath board, quick reference 2 and §4.5: the same gain, loss and break-even for every oath."""
    rows = {"zh-Hans": ("誓言", "守誓", "食言", "盈亏点"), "en": ("Oath", "Kept", "Broken", "Break-even")}[lang]
    oaths = derived["oaths"]
    table = (rows[0] + "".join(str(o["oath"]) for o in oaths) + rows[1] + "".join(f"+{o['keep']}" for o in oaths)
             + rows[2] + "".join(str(o["fail"]).replace("-", "−") for o in oaths)
             + rows[3] + "".join(f"{o['break_even']}%" for o in oaths))
    for players in PACKS:
        text = kits[players, lang]
        assert table in text["board"] and table in text["reference"]
    gains = "".join(f"+{o['keep']}" for o in oaths)
    assert gains in kits[PACKS[0], lang]["rulebook"].replace("|", "")


PANIC = {"zh-Hans": (r"惊惶上限=人数×(\d+)（3人(\d+)，4人(\d+)，5人(\d+)，6人(\d+)）", "{n}人上限", r"惊惶上限：(\d+)（=(\d+)人×(\d+)）"),
         "en": (r"Paniccap=players×(\d+)\(3players(\d+),4players(\d+),5players(\d+),6players(\d+)\)", "{n}-playercap",
                r"Paniccap:(\d+)\(=(\d+)players×(\d+)\)")}


@pytest.mark.parametrize("lang", LANGS)
def test_panic_cap_agrees(kits, derived, lang):
    cap, per = derived["panic_cap"], derived["params"].panic_per_player
    reference, track_label, rulebook = PANIC[lang]
    for players in PACKS:
        text = kits[players, lang]
        assert tuple(map(int, found(reference, text["reference"], "quick reference"))) == (per, cap[3], cap[4], cap[5], cap[6])
        for n, value in cap.items():     # each pack's track marks every count's cap after that cell
            assert f"{value}{track_label.format(n=n)}" in text["panic"], n
        assert (f"上限{cap[players]}" if lang == "zh-Hans" else f"Cap{cap[players]}") in text["sheet"], players
        assert tuple(map(int, found(rulebook, text["rulebook"], "rulebook §3.2"))) == (cap[players], players, per)


CEILING = {"zh-Hans": {"map": r"上限（明牌\+(\d+)−雾）", "reference": r"最高可斩（明牌\+(\d+)−雾）", "rulebook": r"上限\*?\*?=明牌\+(\d+)−雾值"},
           "en": {"map": r"ceiling\(litcard\+(\d+)−fog\)", "reference": r"Ceiling\(lit\+(\d+)−fog\)", "rulebook": r"ceiling\*?\*?=litcard\+(\d+)−fog"}}


@pytest.mark.parametrize("lang", LANGS)
def test_fog_lowers_the_ceiling_everywhere(kits, derived, lang):
    """The map once said fog 'does not change the oath ceiling'; §5.2 and the quick reference say
    ceiling = lit + 5 − fog. All three now give that formula, and the quick reference's table is §5.2's."""
    for players in PACKS:
        text = kits[players, lang]
        for part, pattern in CEILING[lang].items():
            assert int(found(pattern, text[part], part)[0]) == derived["params"].dark_max, part
        table = "".join(f"{lit}" + "".join(str(h) for h in row.values()) for lit, row in reversed(derived["max_harvest"].items()))
        assert table in text["reference"]
        assert "不改誓言上限" not in text["map"]


@pytest.mark.parametrize("lang", LANGS)
def test_pairing_cards_and_their_counts_agree(kits, derived, lang):
    """Only the 5-player pack's single 🅒 says 'solo lamp'; the 6-player 🅒 pair reads like 🅐 and 🅑;
    the quick reference and §3.2 list the same cards as the pack holds."""
    solo = "整局都是独灯者" if lang == "zh-Hans" else "isasololampallgame"
    pair = "本局互为同灯人" if lang == "zh-Hans" else "arelamppartnersallgame"
    for players in PACKS:
        cards = kits[players, lang]["pairing"]
        singles = [c for c in derived["pairing_cards"][players] if c["copies"] == 1]
        assert cards.count(solo) == len(singles) == derived["solo_seats"][players], players
        assert cards.count(pair) == sum(c["copies"] for c in derived["pairing_cards"][players]) - len(singles)
        listed = "".join(f"{c['mark']}×{c['copies']}" for c in derived["pairing_cards"][players])
        assert listed in kits[players, lang]["reference"], players
        assert listed in kits[players, lang]["rulebook"].replace("、", "").replace(",", ""), players
