"""塞菲罗支柱: every rule the kit states in more than one place reads the same everywhere.

Each test reads one rule back from every place a pack prints it (trial cards, Oath backs, record
board, stability bar, trial map, quick reference, rulebook), in both editions, and compares the
copies with each other and with rules.py.
"""
from __future__ import annotations

import re

import pytest

from generator.check.validate import validate
from generator.source.assets import Assets
from generator.source.load import load_game
from generator.source.project import Project
from tests.conftest import ROOT
from tests.kittext import KitText, found

GAME = "cephiro-pillar"
LANGS = ("zh-Hans", "en")
PACK = 4
NO = "①②③④⑤⑥⑦⑧⑨"


@pytest.fixture(scope="module")
def derived():
    project = Project.at(ROOT)
    game = load_game(project, GAME)
    validate(project, game, Assets(project))           # runs rules.py
    return game.derived


@pytest.fixture(scope="module")
def kits(cephiro_built):
    out = {}
    for lang in LANGS:
        kit = KitText(cephiro_built, PACK, lang)
        out[lang] = {"trials": kit.deck("trials"), "oath-back": kit.deck("oaths", "back"),
                     "board": kit.piece("record-board"), "bar": kit.piece("stability-bar"),
                     "map": kit.piece("trial-map"), "reference": kit.deck("reference"), "rulebook": kit.rulebook}
    return out


@pytest.mark.parametrize("lang", LANGS)
def test_threat_of_every_trial_agrees(kits, derived, lang):
    """Trial cards (T for every player count), the quick reference's table and the pack's map."""
    text, counts = kits[lang], sorted(derived["threats"])
    threat = "威胁T" if lang == "zh-Hans" else "ThreatT"
    for i, trial in enumerate(derived["trials"]):
        row = "".join(str(trial["threat"][p]) for p in counts)
        assert f"{threat}{row}" in text["trials"], trial["number"]
        assert f"{NO[i]}{trial['suggested']}{trial['need']}{row}" in text["reference"], trial["number"]
    on_map = [int(t) for t in re.findall(r"威胁T=(\d+)(?![\d×])" if lang == "zh-Hans" else r"ThreatT=(\d+)(?![\d×])", text["map"])]
    assert on_map == derived["threats"][PACK]


STABILITY = {"zh-Hans": (r"稳定度起始：2人(\d+)，3人(\d+)，4人(\d+)，5人(\d+)；魔神对决(\d+)。最高(\d+)",
                         {2: "2人起", 3: "3人起", 4: "4人起", 5: "5人起", "duel": "2人对决起"}),
             "en": (r"Stabilitystartsat:2knights(\d+),3knights(\d+),4knights(\d+),5knights(\d+);MashinDuel(\d+)\.Atmost(\d+)",
                    {2: "2start", 3: "3start", 4: "4start", 5: "5start", "duel": "2Duelstart"})}


@pytest.mark.parametrize("lang", LANGS)
def test_stability_starts_agree(kits, derived, lang):
    start, duel, cap = derived["stability_start"], derived["stability_variant_2p"], derived["stability_cap"]
    reference, bar = STABILITY[lang]
    assert tuple(map(int, found(reference, kits[lang]["reference"], "quick reference"))) == (
        start[2], start[3], start[4], start[5], duel, cap)
    # the bar's cells read 0 1 2 …; each start label sits after its cell: "… 5 6 2人起 7 …"
    for key, label in bar.items():
        cell = duel if key == "duel" else start[key]
        others = kits[lang]["bar"]
        for other in bar.values():
            others = others if other == label else others.replace(other, "")
        assert f"{cell - 1}{cell}{label}{cell + 1 if cell < cap else ''}" in others, label
    on_map = found(r"稳定度起始(\d+)" if lang == "zh-Hans" else r"Stabilitystartsat(\d+)", kits[lang]["map"], "map")
    assert int(on_map[0]) == start[PACK]


MILESTONES = {
    "zh-Hans": {"awake": r"觉醒：✧≥(\d+)且◈≥(\d+)", "mashin": r"魔神：(?:终局)?✧≥(\d+)且◈≥(\d+)",
                "threshold": {"board": r"柱门槛✧(\d+)", "reference": r"审判：✧≥(\d+)⇒", "rulebook": r"门槛✧(\d+)"},
                "short": {"board": r"短局门槛✧(\d+)", "reference": r"柱门槛(\d+)", "rulebook": r"柱门槛改为✧(\d+)"}},
    "en": {"awake": r"Awakened:✧≥(\d+)and◈≥(\d+)", "mashin": r"Mashin:(?:attheend)?✧≥(\d+)and◈≥(\d+)",
           "threshold": {"board": r"Pillarthreshold✧(\d+)", "reference": r"Judgement:✧≥(\d+)⇒", "rulebook": r"threshold✧(\d+)"},
           "short": {"board": r"ShortGamethreshold✧(\d+)", "reference": r"threshold(\d+),", "rulebook": r"thresholdbecomes✧(\d+)"}},
}


@pytest.mark.parametrize("lang", LANGS)
def test_awakening_mashin_and_thresholds_agree(kits, derived, lang):
    """Board, quick reference and rulebook: the same ✧/◈ for Awakened and Mashin, the same thresholds."""
    P, words = derived["params"], MILESTONES[lang]
    for part in ("board", "reference", "rulebook"):
        text = kits[lang][part]
        assert tuple(map(int, found(words["awake"], text, part))) == (P.awaken_purity, P.awaken_belief), part
        assert tuple(map(int, found(words["mashin"], text, part))) == (P.majin_purity, P.majin_belief), part
        assert int(found(words["threshold"][part], text, part)[0]) == P.threshold, part
        assert int(found(words["short"][part], text, part)[0]) == derived["short"]["threshold"], part


DRAW = {"zh-Hans": {"oath-back": r"每场试炼后抽(\d+)张", "reference": r"每人抽(\d+)张誓约卡（手牌上限(\d+)；最后一场后也抽",
                    "rulebook": r"每人从誓约牌堆抽(\d+)张（最后一场之后也抽"},
        "en": {"oath-back": r"draw(\d+)aftereachtrial", "reference": r"draw(\d+)Oathcard\(handlimit(\d+);afterthelasttrialtoo",
               "rulebook": r"Eachknightdraws(\d+)Oathcard\(afterthelasttrialtoo"}}


@pytest.mark.parametrize("lang", LANGS)
def test_oath_draw_after_every_trial_everywhere(kits, derived, lang):
    """The back says 'after each trial'; the quick reference and §4.6 now agree: the last one too."""
    P = derived["params"]
    for part, pattern in DRAW[lang].items():
        assert int(found(pattern, kits[lang][part], part)[0]) == P.oath_draw, part
    assert int(found(DRAW[lang]["reference"], kits[lang]["reference"], "reference")[1]) == P.hand_limit
    assert derived["oath_draws"] == {p: p * P.trials * P.oath_draw for p in derived["oath_draws"]}


ALLOTTED = {"zh-Hans": (r"分配的♡\+✧=每场(\d+)点×场数（(\d+)场(\d+)，短局(\d+)场(\d+)），每张元素涌流再加(\d+)",
                        r"共(\d+)点（每场(\d+)点×(\d+)场；短局(\d+)场共(\d+)点），每打出一张「元素涌流」再加(\d+)"),
            "en": (r"Allotted♡\+✧=(\d+)manaatrial\((\d+)trials:(\d+);ShortGame,(\d+):(\d+)\),\+(\d+)foreachElementalSurge",
                   r"youallot(\d+)♡\+✧\((\d+)atrial×(\d+)trials;(\d+)intheShortGame's(\d+)trials\),plus(\d+)foreach")}


@pytest.mark.parametrize("lang", LANGS)
def test_allotted_mana_agrees(kits, derived, lang):
    """Quick reference 2 and §9 once said ♡ + ✧ = 24 flat; both now give the Short Game and the Surge."""
    a, per, trials = derived["allotted"], derived["params"].mana_per_trial, len(derived["trials"])
    reference, rulebook = ALLOTTED[lang]
    assert tuple(map(int, found(reference, kits[lang]["reference"], "quick reference"))) == (
        per, trials, a["standard"], a["short_trials"], a["short"], a["surge"])
    got = tuple(map(int, found(rulebook, kits[lang]["rulebook"], "rulebook §9")))
    expected = {"zh-Hans": (a["standard"], per, trials, a["short_trials"], a["short"], a["surge"]),
                "en": (a["standard"], per, trials, a["short"], a["short_trials"], a["surge"])}[lang]
    assert got == expected
    assert (a["standard"], a["short"]) == (per * trials, per * a["short_trials"])
