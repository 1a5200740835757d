"""Rules of 逆时巫师, the numbers its kit prints, and checks on the transcribed card list.

The card list (cards.csv) was read off card images by eye, so besides deriving the
printed figures this module checks the data for what looks wrong: keywords the rules
do not define, monsters with neither HP nor a way to beat them, events that carry a
cost or a bounty, treasures without a cost (and wands with one), deck sizes that do not
add up, and board tracks or counters that do not cover what the cards can reach.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from generator.errors import Problem


@dataclass(frozen=True)
class Params:
    hand_size: int = 7              # 2.1.1 补牌至 7 张
    mana_cap: int = 20              # 2.6
    freeze_cap: int = 10            # 2.3.2
    coin_cap: int = 10              # 2.6
    start_coins: int = 3            # 1.3 ③
    start_coins_3p: int = 5         # 三 三人游戏变体
    loop_steps: int = 12            # 2.4
    win_loop: int = 5               # 2.2 到达第五循环
    win_loop_3p: int = 6            # 三: 第六循环
    tavern_cost: int = 2            # 2.1.5
    refresh_cost: int = 1
    shop_slots: int = 4             # 售价 1..4
    reversal_base: int = 1          # 第 r 顺位逆转时序可连出 r + 1 张
    xii_hp_first: int = 90          # 附录: 第一顺位 90 … 第四顺位 60
    xii_hp_step: int = 10
    hourglass_factor: int = 2       # 时间沙漏 180 / 160 / 140 / 120
    hourglass_loops: int = 2        # 2 个循环
    legendary_all: tuple = ((2, 3), (3, 5))   # reaching loop II: everyone picks 1 of 3; III: 1 of 5
    unlocks: tuple = ((2, "IX"), (3, "XII"))  # and the IX / XII decks unlock
    starting_deck: tuple = (("雷击", 1), ("冰锥", 1), ("火苗", 1), ("飞弹", 1), ("小石子", 1), ("障眼法", 1),
                            ("水晶", 2), ("晶簇", 2))
    hp_counter: int = 99            # the monster panel's counter: tens 0–9 and units 0–9 (two markers)
    boost_hp: int = 3               # 镀金的部件: next monster +3 HP
    plays_per_go: int = 1           # 2.1.3 每次只能出一张牌
    buys_per_round: int = 1         # 2.1.5 每轮最多购买 1 张
    push_cells: int = 1             # 2.1.4 把对方标记物向前推进一格
    advance_cells: int = 2          # 时间轮 XI 格: 前进两格
    pick_small: int = 3             # 三选一
    pick_large: int = 5             # 五选一
    undercurrent_max: int = 1       # 2.3.5 同时至多 1 张暗流
    wand_slots: int = 1             # 2.3.6 同时只能装备一根魔杖
    die_sides: int = 6              # 六面骰
    pick_keep: int = 1              # 三选一 / 五选一: keep one
    tavern_removes: int = 1         # 酒馆: remove one card
    min_steps: int = 1              # 前进 1~X 步
    panel_slots: int = 4            # 怪物面板的怪物位
    unlocked_at_start: tuple = ("III", "VI")   # 2.1.4 游戏开始时仅可翻开 III、VI 级


P = Params()
CHINESE_NUMBER = {3: "三", 5: "五"}
NUMERALS = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"]
TREASURE_DECKS = ("starting", "common", "legendary")
EXPLORE_DECKS = ("explore-3", "explore-6", "explore-9", "explore-12")
# the keywords of 2.3 (蔓延 with its 二次/三次 forms, 冻结(X), 共鸣(X), 反制, 暗流, 本回合 / 永久光环)
KEYWORD = re.compile(r"(?:^|[。；，]\s*)([\u4e00-\u9fff]{2,5})(（\d+）)?：")
DEFINED = {"蔓延", "二次蔓延", "三次蔓延", "共鸣", "暗流", "永久光环", "冻结"}


def roman(n: int) -> str:
    return NUMERALS[n - 1]


def xii_hp(kind: str, players: int = 4) -> list[int]:
    """HP of a XII monster by the challenger's rank (1st … last)."""
    base = [P.xii_hp_first - P.xii_hp_step * r for r in range(players)]
    return [h * P.hourglass_factor for h in base] if kind == "hourglass" else base


def loop_start(loop: int) -> int:
    return P.loop_steps * (loop - 1) + 1


def loop_notes() -> list[str]:
    """What happens when the first wizard reaches each loop (inner ring of the wheel)."""
    picks, unlocks = dict(P.legendary_all), dict(P.unlocks)
    notes = []
    for n in range(1, max(P.win_loop, P.win_loop_3p) + 1):
        parts = []
        if n in picks:
            parts.append(f"全员传说{CHINESE_NUMBER[picks[n]]}选一")
        if n in unlocks:
            parts.append(f"{unlocks[n]} 级解锁")
        if n == P.win_loop:
            parts.append("4 人：打破循环")
        if n == P.win_loop_3p:
            parts.append("3 人：打破循环")
        notes.append(" · ".join(parts) if parts else ("起点" if n == 1 else ""))
    return notes


def rank(positions: dict) -> dict:
    """2.4: markers on the same cell share a rank; the next rank follows on (the example: 1, 2, 2, 3)."""
    order = sorted(set(positions.values()), reverse=True)
    return {who: order.index(step) + 1 for who, step in positions.items()}


def where(step: int) -> dict:
    """An outer-ring step as loop and cell (step 1 = loop I, cell I)."""
    loop, cell = divmod(step - 1, P.loop_steps)
    return {"step": step, "loop": loop + 1, "cell": cell + 1, "numeral": roman(cell + 1)}


def _card(game, uid: str):
    deck, card = uid.split("/")
    return next(c for c in game.decks[deck].cards if c.id == card)


def _damage(card, fire_before: int) -> int:
    """The damage a plain damage spell deals: its base, or its 蔓延 value when the last spell was fire."""
    text = card.effect or ""
    dealt = int(re.search(r"造成 (\d+) 点伤害", text).group(1))
    spread = re.search(r"(?<!次)蔓延：改为 (\d+) 点", text)
    if spread and fire_before >= 1:
        dealt = int(spread.group(1))
    return dealt


def replay_example(game) -> dict:
    """The rulebook's worked example (example.yaml), played out from the card data."""
    ex = game.data["example.yaml"]
    ranks = rank(ex["positions"])
    monster = _card(game, ex["monster"])
    weak = re.search(r"受到(火焰|冰霜)法术的伤害翻倍", monster.effect or "")
    hp, mana, fire_chain, plays = monster.hp, ex["mana"], 0, []
    for uid in ex["plays"]:
        card = _card(game, uid)
        dealt = _damage(card, fire_chain)
        factor = 2 if weak and card.faction == weak.group(1) else 1
        mana -= card.cost
        hp = max(0, hp - dealt * factor)
        plays.append({"uid": uid, "id": card.id, "name": card.name, "cost": card.cost, "faction": card.faction, "spread": fire_chain >= 1
                      and "蔓延" in (card.effect or ""), "dealt": dealt, "factor": factor, "total": dealt * factor,
                      "hp_after": hp, "mana_after": mana})
        fire_chain = fire_chain + 1 if card.faction == "火焰" else 0
    start = ex["positions"][ex["mover"]]
    wheel = {row.numeral: row for row in game.tables["wheel"]}
    options = []
    for n in range(1, monster.level + 1):
        spot = where(start + n)
        row = wheel[spot["numeral"]]
        options.append({**spot, "steps": n, "label": row.label, "reward": row.reward,
                        "new_loop": spot["loop"] > where(start)["loop"]})
    chosen = options[ex["advance"] - 1]
    resonance = []
    in_area = 0
    for n, play in enumerate(ex["resonance"], 1):
        card = _card(game, play["card"])
        need = re.search(r"共鸣（(\d+)）", card.effect or "")
        resonance.append({"n": n, "id": card.id, "deck": play["card"].split("/")[0], "name": card.name, "countered": bool(play.get("countered")),
                          "by_formula": n - 1, "by_rule": in_area, "needs": int(need.group(1)) if need else None})
        if not play.get("countered") and card.type == "法术":
            in_area += 1
    return {
        "players": ex["players"], "positions": ex["positions"], "ranks": ranks,
        "reversal": {who: P.reversal_base + r for who, r in ranks.items()},
        "no_rank": [r for r in range(1, ex["players"] + 1) if r not in ranks.values()],
        "mover": ex["mover"], "start": where(start),
        "monster": {"id": monster.id, "name": monster.name, "level": monster.level, "hp": monster.hp, "gold": monster.gold,
                    "weak": weak.group(1) if weak else None},
        "plays": plays, "defeated": hp == 0, "mana_start": ex["mana"], "mana_end": mana,
        "coins_start": ex["coins"], "coins_end": min(P.coin_cap, ex["coins"] + (monster.gold if hp == 0 else 0)),
        "options": options, "chosen": chosen, "resonance": resonance,
    }


def card_directions(game) -> list[str]:
    """Which way round the cards that go 'from you, in turn' run (2.1: every turn order is 逆时针)."""
    found = set()
    for deck in game.decks.values():
        for card in deck.cards:
            for word in ("逆时针", "顺时针"):
                if word in (card.fields.get("effect") or ""):
                    found.add(word)
    return sorted(found)


def derive(game) -> dict:
    counts = {d: sum(c.copies_for(4) for c in game.decks[d].cards) for d in TREASURE_DECKS + EXPLORE_DECKS}
    counts_3p = {d: sum(c.copies_for(3) for c in game.decks[d].cards) for d in TREASURE_DECKS}
    xii = game.decks["explore-12"].cards
    monsters = [c for d in EXPLORE_DECKS for c in game.decks[d].cards if c.kind == "怪物"]
    fixed_hp = [c.hp for c in monsters if c.hp]
    players = sorted({p.players for p in game.packs})
    ranks = {n: list(range(1, n + 1)) for n in players}
    return {
        "params": P,
        "counts": counts,
        "counts_3p": counts_3p,
        "starting_per_player": sum(n for _, n in P.starting_deck),
        "xii": {"dragons": sum(1 for c in xii if c.hp_by_rank == "dragon"),
                "hourglass": sum(1 for c in xii if c.hp_by_rank == "hourglass")},
        "xii_hp": {"dragon": xii_hp("dragon"), "hourglass": xii_hp("hourglass")},
        "xii_steps": {"dragon": P.loop_steps, "hourglass": P.loop_steps * P.hourglass_loops},
        "xii_loops": {"dragon": 1, "hourglass": P.hourglass_loops},
        # the monster panel's XII track counts tens: the cells where each rank's fight starts
        "xii_tens": {kind: [hp // 10 for hp in xii_hp(kind)] for kind in ("dragon", "hourglass")},
        "steps": {d.id: d.cards[0].level for d in game.decks.values() if d.id in EXPLORE_DECKS[:3]},
        "reversal": {n: [P.reversal_base + r for r in ranks[n]] for n in players},
        "loops": [{"loop": n, "numeral": roman(n), "start": loop_start(n), "end": loop_start(n) + P.loop_steps - 1}
                  for n in range(1, max(P.win_loop, P.win_loop_3p) + 1)],
        "loop_ranges": [[loop_start(n), loop_start(n) + P.loop_steps - 1]
                        for n in range(1, max(P.win_loop, P.win_loop_3p) + 1)],
        "loop_notes": loop_notes(),
        "loop_highlights": [n - 1 for n, _ in P.legendary_all] + [P.win_loop - 1, P.win_loop_3p - 1],
        "win_loop": {3: P.win_loop_3p, 4: P.win_loop},
        "win_numeral": {3: roman(P.win_loop_3p), 4: roman(P.win_loop)},    # loops are printed as numerals
        "win_step": {3: loop_start(P.win_loop_3p), 4: loop_start(P.win_loop)},
        "start_coins": {3: P.start_coins_3p, 4: P.start_coins},
        "coin_tokens": max(players) * P.coin_cap,
        "hp_markers": 2 * max(players),           # tens and units for each monster slot
        "player_markers": 2 * max(players),       # outer ring and inner ring
        "max_fixed_hp": max(fixed_hp) + P.boost_hp,
        "max_cost": max(c.cost for d in TREASURE_DECKS for c in game.decks[d].cards if c.cost is not None),
        "legendary_all": dict(P.legendary_all),
        "unlocks": dict(P.unlocks),
        "keywords": sorted(DEFINED),
        "example": replay_example(game),
        "shop_prices": list(range(1, P.shop_slots + 1)),
        "card_directions": card_directions(game),
        "clockwise_cards": sorted(c.name for d in game.decks.values() for c in d.cards
                                  if "顺时针" in (c.fields.get("effect") or "")),
        "clockwise_ids": sorted([d.id, c.id] for d in game.decks.values() for c in d.cards
                                if "顺时针" in (c.fields.get("effect") or "")),
        "starting_cards": [{"id": next(c.id for c in game.decks["starting"].cards if c.name == name), "n": n}
                           for name, n in P.starting_deck],
        "reversal_range": {n: [P.reversal_base + 1, P.reversal_base + n] for n in players},
        "xii_winner_steps": {"dragon": P.loop_steps, "hourglass": P.loop_steps * P.hourglass_loops},
        "wheel": [dict(numeral=row.numeral, reward=row.reward, label=row.label, icon=row.icon)
                  for row in game.tables["wheel"]],
    }


def check(game, derived: dict) -> list:
    """Errors in the transcribed data, located at the card; notes for what needs a second look."""
    found = []
    for deck_id in TREASURE_DECKS + ("beta",):
        for card in game.decks[deck_id].cards:
            found += _treasure_problems(card)
    for deck_id in EXPLORE_DECKS:
        for card in game.decks[deck_id].cards:
            found += _explore_problems(card, derived)
    expected = {"starting": 40, "common": 75, "legendary": 33, "explore-3": 32, "explore-6": 18,
                "explore-9": 13, "explore-12": 6}   # 1.1 内容清单
    for deck_id, count in derived["counts"].items():
        if count != expected[deck_id]:
            found.append(Problem(game.decks[deck_id].file, None,
                                 f"deck {deck_id} holds {count} cards; the component list says {expected[deck_id]}"))
    if derived["xii"] != {"dragons": 5, "hourglass": 1}:
        found.append(f"the XII deck must be five dragons and the hourglass, not {derived['xii']}")
    if derived["starting_per_player"] * 4 != derived["counts"]["starting"]:
        found.append("the starting deck per player does not add up to the starting cards")
    if derived["max_fixed_hp"] > P.hp_counter:
        found.append(f"a monster can reach {derived['max_fixed_hp']} HP; the panel's counter stops at {P.hp_counter}")
    if max(derived["xii_hp"]["hourglass"]) > xii_track_max():
        found.append(f"the XII fight track stops at {xii_track_max()}, the hourglass has "
                     f"{max(derived['xii_hp']['hourglass'])} HP")
    return found


def xii_track_max() -> int:
    """The XII fight counter: a tens track 0–18 with the slot's units row."""
    return 18 * 10 + 9


def _treasure_problems(card) -> list:
    out = []
    where = (card.file, card.line)
    if card.type == "魔杖" and card.cost is not None:
        out.append(Problem(*where, f"card '{card.id}': a wand has no mana cost, this one says {card.cost}"))
    if card.type != "魔杖" and card.cost is None:
        out.append(Problem(*where, f"card '{card.id}': a {card.type} needs a mana cost"))
    out += _keyword_problems(card, card.effect)
    if card.cost is not None and card.cost > P.mana_cap:
        reduced = "消耗" in (card.effect or "") and ("减少" in card.effect or "−" in card.effect)
        message = (f"card '{card.id}': costs {card.cost}, above the mana cap {P.mana_cap}"
                   + ("; playable only after its own cost reduction — check the transcription" if reduced else ""))
        out.append(Problem(*where, message, note=reduced))
    return out


def _explore_problems(card, derived) -> list:
    out = []
    where = (card.file, card.line)
    if card.kind == "事件":
        for field in ("hp", "gold", "cost", "bodies", "hp_by_rank"):
            if card.fields.get(field) is not None:
                out.append(Problem(*where, f"card '{card.id}': an event has no {field}"))
    else:
        if not card.hp and not card.hp_by_rank and not card.defeat:
            out.append(Problem(*where, f"card '{card.id}': a monster needs HP or a stated way to beat it"))
        if card.hp and card.defeat:
            out.append(Problem(*where, f"card '{card.id}': has both HP and a no-HP defeat condition"))
        if card.cost is not None:
            out.append(Problem(*where, f"card '{card.id}': a monster has no mana cost"))
        if card.level == 12 and not card.hp_by_rank:
            out.append(Problem(*where, f"card '{card.id}': a XII monster's HP goes by rank (hp_by_rank)"))
    for text in (card.effect, card.defeat):
        out += _keyword_problems(card, text)
    return out


def _keyword_problems(card, text) -> list:
    out = []
    for match in KEYWORD.finditer(text or ""):
        word = match.group(1)
        if word not in DEFINED:
            out.append(Problem(card.file, card.line, f"card '{card.id}': '{word}' is used as a keyword but the "
                                                     f"rules define only {', '.join(sorted(DEFINED))}"))
    return out
