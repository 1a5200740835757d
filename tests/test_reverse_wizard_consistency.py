"""逆时巫师: every rule the kit states in more than one place reads the same everywhere.

Each test reads one rule back from every place a pack prints it (monster panel, player panel,
time wheel, shop board, XII backs, quick reference, rulebook), in both editions, and compares the
copies with each other and with rules.py.
"""
from __future__ import annotations

import pytest

from generator.check.validate import validate
from generator.source.assets import Assets
from generator.source.load import load_game
from generator.source.project import Project
from tests.conftest import ROOT
from tests.kittext import KitText, found

GAME = "reverse-wizard"
PACKS = (4, 3)

# where each edition states a rule: (part of the kit, pattern); the groups are the numbers compared
XII_STEPS = {
    "zh-Hans": [("back", r"击败巨龙：前进至多(\d+)步（(\d+)个循环）击败时间沙漏：前进至多(\d+)步（(\d+)个循环）"),
                ("panel", r"击败巨龙：前进至多(\d+)步（(\d+)个循环）·击败时间沙漏：前进至多(\d+)步（(\d+)个循环）")],
    "en": [("back", r"Dragonbeaten:upto(\d+)steps\((\d+)loop\)Hourglassbeaten:upto(\d+)steps\((\d+)loops\)"),
           ("panel", r"Dragonbeaten:upto(\d+)steps\((\d+)loop\)·Hourglassbeaten:upto(\d+)steps\((\d+)loops\)")],
}
XII_STEPS_SHORT = {
    "zh-Hans": [("reference", r"XII步数巨龙1~(\d+)步；时间沙漏1~(\d+)步"),
                ("rulebook", r"前进至多(\d+)步（巨龙）或(\d+)步（时间沙漏")],
    "en": [("reference", r"XIIstepsdragon1–(\d+);Hourglass1–(\d+)"),
           ("rulebook", r"moveupto(\d+)steps\(dragon\)or(\d+)\(Hourglass")],
}


@pytest.fixture(scope="module")
def derived():
    project = Project.at(ROOT)
    game = load_game(project, GAME)
    validate(project, game, Assets(project))           # runs rules.py
    return game.derived


def parts(kit: KitText) -> dict:
    return {"back": kit.deck("explore-12", "back"), "panel": kit.piece("monster-panel"),
            "player": kit.piece("player-panel"), "wheel": kit.piece("time-wheel"), "shop": kit.piece("shop-row"),
            "reference": kit.deck("reference"), "rulebook": kit.rulebook}


@pytest.fixture(scope="module")
def kits(wizard_built):
    return {(players, lang): parts(KitText(wizard_built, players, lang))
            for players in PACKS for lang in ("zh-Hans", "en")}


@pytest.mark.parametrize("lang", ["zh-Hans", "en"])
@pytest.mark.parametrize("players", PACKS)
def test_xii_steps_are_up_to_12_and_24_everywhere(kits, derived, players, lang):
    """The monster panel once said a beaten dragon 'moves you 1 loop'; the back, the quick
    reference and §6.4 say 'up to 12 / 24'. Every copy now reads the same numbers and 'up to'."""
    text = kits[players, lang]
    steps, loops = derived["xii_steps"], derived["xii_loops"]
    full = (steps["dragon"], loops["dragon"], steps["hourglass"], loops["hourglass"])
    for part, pattern in XII_STEPS[lang]:
        assert tuple(map(int, found(pattern, text[part], part))) == full, part
    for part, pattern in XII_STEPS_SHORT[lang]:
        assert tuple(map(int, found(pattern, text[part], part))) == (steps["dragon"], steps["hourglass"]), part
    assert full == (12, 1, 24, 2)


@pytest.mark.parametrize("lang", ["zh-Hans", "en"])
def test_xii_hp_by_rank_is_one_table(kits, derived, lang):
    """Panel table, quick reference and §6.4 print the same HP by rank; a 3-player rulebook shows ranks 1–3."""
    dragon, hourglass = derived["xii_hp"]["dragon"], derived["xii_hp"]["hourglass"]
    names = {"zh-Hans": ("巨龙", "时间沙漏"), "en": ("Dragon", "Hourglass")}[lang]
    for players in PACKS:
        text = kits[players, lang]
        assert f"{names[0]}{''.join(map(str, dragon))}" in text["panel"]
        assert f"{''.join(map(str, hourglass))}" in text["panel"]
        assert "/".join(map(str, dragon)) in text["reference"] and "/".join(map(str, hourglass)) in text["reference"]
        table = f"{names[0]}{''.join(map(str, dragon[:players]))}{names[1]}{''.join(map(str, hourglass[:players]))}"
        assert table in text["rulebook"], players
    assert derived["xii_tens"] == {"dragon": [h // 10 for h in dragon], "hourglass": [h // 10 for h in hourglass]}


REVERSAL = {"zh-Hans": {"player": r"第1–(\d)顺位可连出([\d/]+)张", "reference": r"按顺位至多连出([\d/]+)张（3人([\d/]+)张）"},
            "en": {"player": r"Ranks1–(\d)play([\d/]+)cardsinarow", "reference": r"upto([\d/]+)cardsbyrank\(3p:([\d/]+)\)"}}


@pytest.mark.parametrize("lang", ["zh-Hans", "en"])
def test_reversal_counts_agree(kits, derived, lang):
    """The 3-player quick reference once printed the 4-player 2/3/4/5; it now gives both, and each
    pack's player panel and rulebook §3.3 give that pack's counts."""
    by_pack = {}
    for players in PACKS:
        text = kits[players, lang]
        ranks, counts = found(REVERSAL[lang]["player"], text["player"], "player panel")
        assert int(ranks) == players and counts == "/".join(map(str, derived["reversal"][players]))
        by_pack[players] = counts
        four, three = found(REVERSAL[lang]["reference"], text["reference"], "quick reference")
        assert (four, three) == ("/".join(map(str, derived["reversal"][4])), "/".join(map(str, derived["reversal"][3])))
        listed = "，".join(f"第{r}顺位{n}张" for r, n in enumerate(derived["reversal"][players], 1)) if lang == "zh-Hans" \
            else ",".join(f"{o}rank{n}" for o, n in zip(("1st", "2nd", "3rd", "4th"), derived["reversal"][players]))
        assert listed in text["rulebook"], players
    assert by_pack == {4: "2/3/4/5", 3: "2/3/4"}


WIN = {"zh-Hans": {"reference": r"到达第([IVX]+)循环（第(\d+)步）；3人局第([IVX]+)循环（第(\d+)步）",
                   "wheel": r"到达第([IVX]+)循环（第(\d+)步）即获胜；3人局第([IVX]+)循环（第(\d+)步）"},
       "en": {"reference": r"loop([IVX]+)\(step(\d+)\);3p:loop([IVX]+)\(step(\d+)\)",
              "wheel": r"Reachloop([IVX]+)\(step(\d+)\)towin;3players:loop([IVX]+)\(step(\d+)\)"}}
WIN_RULEBOOK = {"zh-Hans": r"外圈累计到第(\d+)步（进入第([IVX]+)循环）", "en": r"reachesstep(\d+)\(loop([IVX]+)\)breakstheloop"}


@pytest.mark.parametrize("lang", ["zh-Hans", "en"])
def test_the_win_is_the_same_loop_and_step(kits, derived, lang):
    both = (derived["win_numeral"][4], str(derived["win_step"][4]), derived["win_numeral"][3], str(derived["win_step"][3]))
    for players in PACKS:
        text = kits[players, lang]
        for part, pattern in WIN[lang].items():
            assert found(pattern, text[part], part) == both, part
        step, numeral = found(WIN_RULEBOOK[lang], text["rulebook"], "rulebook §7")
        assert (numeral, int(step)) == (derived["win_numeral"][players], derived["win_step"][players])


COINS_HAND = {"zh-Hans": {"player": r"补至(\d+)张·起始金币(\d+)", "reference": r"补至(\d+)张.*起始金币(\d+)（3人(\d+)）",
                          "hand": r"直到手牌为(\d+)张", "coins": r"每人拿(\d+)枚金币放在金币栏上"},
              "en": {"player": r"drawupto(\d+)·startingcoins(\d+)", "reference": r"drawupto(\d+).*Startingcoins(\d+)\(3p:(\d+)\)",
                     "hand": r"drawsfromtheirdeckupto(\d+)cards", "coins": r"Eachplayerputs(\d+)coinsonthepanel'scoinbar"}}


@pytest.mark.parametrize("lang", ["zh-Hans", "en"])
def test_hand_size_and_starting_coins_agree(kits, derived, lang):
    hand, coins = derived["params"].hand_size, derived["start_coins"]
    for players in PACKS:
        text = kits[players, lang]
        assert tuple(map(int, found(COINS_HAND[lang]["player"], text["player"], "player panel"))) == (hand, coins[players])
        assert tuple(map(int, found(COINS_HAND[lang]["reference"], text["reference"], "quick reference"))) == (hand, coins[4], coins[3])
        assert found(COINS_HAND[lang]["hand"], text["rulebook"], "rulebook §4.1") == (str(hand),)
        assert found(COINS_HAND[lang]["coins"], text["rulebook"], "rulebook §2") == (str(coins[players]),)


SHOP = {"zh-Hans": {"shop": r"刷新商店(\d+)金币（买后不能刷新）·酒馆移除1张牌(\d+)金币", "reference": r"刷新(\d+)金币；酒馆移除1张牌(\d+)金币",
                    "rulebook": r"花(\d+)枚金币刷新.*?花(\d+)枚金币"},
        "en": {"shop": r"refresh(\d+)coin\(notafterbuying\)·tavern:remove1cardfor(\d+)coins", "reference": r"refresh(\d+);tavern:remove1cardfor(\d+)",
               "rulebook": r"refreshtheshopfor(\d+)coin.*?pay(\d+)coinstoremove"}}


@pytest.mark.parametrize("lang", ["zh-Hans", "en"])
def test_shop_and_tavern_costs_agree(kits, derived, lang):
    P = derived["params"]
    for players in PACKS:
        text = kits[players, lang]
        for part, pattern in SHOP[lang].items():
            assert tuple(map(int, found(pattern, text[part], part))) == (P.refresh_cost, P.tavern_cost), part
        prices = "".join(f"{n}售价{n}金币" if lang == "zh-Hans" else f"{n}Price{n}" for n in derived["shop_prices"])
        assert prices in text["shop"]


@pytest.mark.parametrize("lang", ["zh-Hans", "en"])
@pytest.mark.parametrize("players", PACKS)
def test_only_the_extras_pack_holds_the_beta_card(wizard_built, players, lang):
    """§8.2 of a 4- or 3-player pack says the beta card is in another pack, and that pack holds none."""
    kit = KitText(wizard_built, players, lang)
    assert ("本包没有" if lang == "zh-Hans" else "notinthisone") in kit.rulebook
    assert not any(s.get("card", "").startswith("beta/") for e in kit.manifest["pages"] for s in e.get("slots", []))
    extras = KitText(wizard_built, "extras", lang)
    assert ("本包没有" if lang == "zh-Hans" else "notinthisone") not in extras.rulebook


@pytest.mark.parametrize("lang", ["zh-Hans", "en"])
def test_loop_events_are_the_wheels(kits, derived, lang):
    """Quick reference 1 builds its loop-event line from the same notes as the wheel's inner ring."""
    edition = load_game(Project.at(ROOT), GAME, lang)
    for players in PACKS:
        text = kits[players, lang]
        for n in derived["legendary_all"]:
            note = edition.translate(derived["loop_notes"][n - 1]).replace(" ", "")
            assert note in text["reference"] and note in text["wheel"], (players, n)


@pytest.mark.parametrize("lang", ["zh-Hans", "en"])
def test_quick_reference_prints_its_last_blocks(kits, lang):
    """The English cards once ran past their box and lost their last block without an error (the
    3-player variant on card 1, 'the card wins' on card 2): both cards end with them, in both editions."""
    ends = {"zh-Hans": ("3人变体§8.1第VI循环获胜", "卡牌效果与规则冲突时，以卡牌为准。§5"),
            "en": ("3-playervariant§8.1LoopVIwins", "Whenacardandtherulesdisagree,thecardwins.§5")}[lang]
    for players in PACKS:
        for end in ends:
            assert end in kits[players, lang]["reference"], (players, end)
