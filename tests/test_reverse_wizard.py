"""逆时巫师: the rules' numbers, the packs read back, and the checks on the transcribed card list."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import json

import pytest

from generator.source.assets import Assets
from generator.source.load import load_game
from generator.source.project import Project
from generator.check.validate import validate
from tests.conftest import ROOT, pnp, seed_store
from tests.pdfcheck import PAPER_PT, card_pages, page_text

GAME = "reverse-wizard"


@pytest.fixture(scope="module")
def game():
    project = Project.at(ROOT)
    game = load_game(project, GAME)
    problems = validate(project, game, Assets(project))
    assert [p for p in problems if not p.note] == []
    return game


def test_rank_tables_and_loops(game):
    d = game.derived
    assert d["xii_hp"] == {"dragon": [90, 80, 70, 60], "hourglass": [180, 160, 140, 120]}
    assert d["reversal"] == {3: [2, 3, 4], 4: [2, 3, 4, 5]}
    assert d["win_step"] == {4: 49, 3: 61} and d["loop_ranges"][4] == [49, 60]
    assert d["coin_tokens"] == 40 and d["start_coins"] == {4: 3, 3: 5}
    assert d["counts"] == {"starting": 40, "common": 75, "legendary": 33, "explore-3": 32, "explore-6": 18,
                           "explore-9": 13, "explore-12": 6}
    assert d["counts_3p"]["starting"] == 30


def test_every_card_keeps_its_provenance(game):
    """Each transcribed card names its key on the site and the post it came from."""
    for deck in game.decks.values():
        if deck.id == "reference":
            continue
        for entry in game.files[deck.file]["cards"]:
            key, post = entry["source"].split(" · ")[:2]
            assert key.lower() == entry["id"] and post.startswith("_posts/cards/"), entry["id"]


SEED = {4: {"starting": 40, "common": 75, "legendary": 33, "explore-3": 32, "explore-6": 18, "explore-9": 13,
            "explore-12": 6, "reference": 2},
        3: {"starting": 30, "common": 75, "legendary": 33, "explore-3": 32, "explore-6": 18, "explore-9": 13,
            "explore-12": 6, "reference": 2}}


@pytest.mark.parametrize("players", [4, 3])
def test_packs_hold_the_component_list(wizard_built, players):
    pdf, manifest = wizard_built.pdf(players, "a4"), wizard_built.manifest(players, "a4")
    counted = Counter()
    for entry, placed, _ in card_pages(pdf, manifest, roles=("cards-front", "cards")):
        assert len(placed) == len(entry["slots"])
        counted.update(slot["component"] for slot in entry["slots"])
    assert dict(counted) == SEED[players]
    assert not any("xinghongzhanfang" in s["card"] for e in manifest["pages"] if e["role"].startswith("cards") for s in e["slots"])
    printed = {(p["piece"], p["copy"]) for e in manifest["pages"] if e["role"] in ("board", "board-tile")
               for p in e["pieces"]}
    pieces = Counter(piece for piece, _ in printed)
    assert pieces == {"player-panel": players, "monster-panel": 1, "time-wheel": 1, "shop-row": 1, "coin": 40,
                      "mana-marker": players, "freeze-marker": players, "hp-marker": 8,
                      "player-marker": 2 * players, "reversal-token": players, "first-player": 1, "die-net": 1}


def test_extras_pack_holds_only_the_beta_card(wizard_built):
    manifest = wizard_built.manifest("extras", "letter")
    slots = [s["card"] for e in manifest["pages"] if e["role"].startswith("cards") for s in e["slots"]]
    fronts = [s["card"] for e in manifest["pages"] if e["role"] == "cards-front" for s in e["slots"]]
    assert fronts == ["beta/xinghongzhanfang"] and set(slots) == {"beta/xinghongzhanfang"}


def test_xii_cards_print_hp_by_rank_and_backs_the_steps(wizard_built):
    manifest = wizard_built.manifest(4, "a4")
    path = wizard_built.folder / manifest["file"]
    front = next(e for e in manifest["pages"] if "explore-12" in e.get("components", []) and e["role"] == "cards-front")
    text = page_text(path, front["number"]).replace(" ", "")
    assert "时间沙漏" in text and all(str(v) in text for v in (90, 80, 70, 60, 180, 160, 140, 120))
    back = page_text(path, front["number"] + 1).replace(" ", "")
    assert "前进至多12步" in back and "前进至多24步" in back
    for level in (3, 6, 9):
        page = next(e for e in manifest["pages"] if f"explore-{level}" in e.get("components", []) and e["role"] == "cards-back")
        assert f"前进至多{level}步" in page_text(path, page["number"]).replace(" ", "")


def test_reversal_tokens_are_two_sided(wizard_built):
    manifest = wizard_built.manifest(4, "letter")
    width = PAPER_PT["letter"][0] * 25.4 / 72
    pages = [e for e in manifest["pages"] if "reversal-token" in e.get("components", [])]
    assert [e["role"] for e in pages] == ["board", "board-back"]
    for front, back in zip(pages[0]["pieces"], pages[1]["pieces"]):
        x, y, w, h = front["trim"]
        bx, by, bw, bh = back["trim"]
        assert back["side"] == "back" and abs(bx - (width - x - w)) < 0.01 and abs(by - y) < 0.01
    path = wizard_built.folder / manifest["file"]
    assert page_text(path, pages[1]["number"]).count("火光面") == 4


def test_time_wheel_fits_one_sheet_with_fit(tmp_path, wizard_built):
    """--fit prints a board larger than the sheet reduced onto one page, with the scale on it."""
    from tests.conftest import make_project
    project = make_project(tmp_path / "project", [GAME])
    seed_store(project, [wizard_built])         # faces and drawings from the session's build: --fit places them
    assert pnp(project, "build", GAME, "--players", "4", "--paper", "a4", "--fit").exit_code == 0
    folder = project / "build" / GAME
    manifest = json.loads((folder / f"{GAME}-4p-a4-fit-zh-Hans.json").read_text())
    entry = next(e for e in manifest["pages"] if e.get("components") == ["time-wheel"])
    scale = entry["pieces"][0]["scale"]
    assert 0.5 < scale < 1
    text = page_text(folder / manifest["file"], entry["number"]).replace(" ", "")
    assert f"按{round(scale * 100)}%缩小打印" in text and "原尺寸320×320mm" in text


@pytest.fixture
def wizard(tmp_path):
    from tests.conftest import make_project
    return make_project(tmp_path / "project", [GAME])


def edit(project: Path, name: str, old: str, new: str) -> int:
    path = project / "cards" / GAME / name
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")
    return text[: text.index(new)].count("\n") + 1


BROKEN = [
    ("common.yaml", "    effect: 造成 10 点伤害。本回合中，你打出的下一张法术视为火焰法术。",
     "    effect: 造成 10 点伤害。灼热：本回合中，你打出的下一张法术视为火焰法术。",
     "card 'zhuoshao': '灼热' is used as a keyword but the rules define only"),
    ("explore-3.yaml", "    hp: 15\n", "", "card 'baoxiangguai': a monster needs HP or a stated way to beat it"),
    ("explore-6.yaml", "    kind: 事件\n    effect: 所有玩家回复 8 点法力值。", "    kind: 事件\n    gold: 2\n    effect: 所有玩家回复 8 点法力值。",
     "card 'falihongliu': an event has no gold"),
    ("explore-9.yaml", "    kind: 事件\n    effect: 直到下个准备阶段开始，商店所有卡牌售价变为 4 枚金币。",
     "    kind: 事件\n    cost: 3\n    effect: 直到下个准备阶段开始，商店所有卡牌售价变为 4 枚金币。",
     "card 'chenhuodajie': an event has no cost"),
    ("common.yaml", "    type: 魔杖\n    faction: 冰霜\n", "    type: 魔杖\n    faction: 冰霜\n    cost: 2\n",
     "card 'yinbaitianping': a wand has no mana cost, this one says 2"),
    ("explore-12.yaml", "    hp_by_rank: dragon\n", "", "a XII monster's HP goes by rank"),
]


@pytest.mark.parametrize("name,old,new,message", BROKEN, ids=[b[3][:40] for b in BROKEN])
def test_transcription_checks(wizard, name, old, new, message):
    edit(wizard, name, old, new)
    result = pnp(wizard, "validate", GAME)
    assert result.exit_code == 1, result.output
    hits = [line for line in result.output.splitlines() if message in line]
    assert hits and hits[0].startswith(f"cards/{GAME}/{name}:"), result.output


def test_deck_count_that_does_not_add_up(wizard):
    text = (wizard / "cards" / GAME / "common.yaml").read_text(encoding="utf-8")
    start = text.index("  - id: jipao")
    end = text.index("  - id:", start + 5)
    (wizard / "cards" / GAME / "common.yaml").write_text(text[:start] + text[end:], encoding="utf-8")
    result = pnp(wizard, "validate", GAME)
    assert "deck common holds 74 cards; the component list says 75" in result.output
    assert "4-player pack: deck 'common' holds 74 cards, the pack declares 75" in result.output


def test_cost_above_the_mana_cap_is_a_note_or_an_error(wizard, wizard_built):
    seed_store(wizard, [wizard_built])          # validate makes every pack: the faces come from the session's store
    result = pnp(wizard, "validate", GAME, "--verbose", "--lang", "zh-Hans")     # (a note on the data: one edition)
    assert result.exit_code == 0
    assert "note: card 'yanbaoshu': costs 25, above the mana cap 20; playable only after its own cost reduction" \
        in result.output
    edit(wizard, "legendary.yaml", "    cost: 20\n", "    cost: 22\n")
    result = pnp(wizard, "validate", GAME)
    assert result.exit_code == 1 and "card 'zhoushuhongliu': costs 22, above the mana cap 20" in result.output
