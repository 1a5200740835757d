"""Rules of 萤火虫的出嫁：七夜同灯, and every number its kit prints.

Rule parameters are named with the seed section that states them; the road's fog and
multipliers come from stations.yaml, the deck from lanterns.yaml. Missing prose in the
seed (the paragraph after "两张用法：", the list of 同灯人 duties, the 推进 step) is
decided from the worked example and the tables; docs/seven-nights.md records each decision.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Params:
    hand_size: int = 5              # 3.x 桌面布置: 5 张手牌
    oath_min: int = 2               # 5.x 誓约板 2–9; FAQ: 最低 2
    oath_max: int = 9
    keep_offset: int = 1            # 守誓 +(誓言 − 1)
    exact_bonus: int = 1            # 一斩不差 额外 +1
    fail_offset: int = 3            # 食言 −(誓言 − 3)，最低 −1
    fail_min: int = 1
    cofire: int = 1                 # 共火: 同灯人守誓 +1
    solo: int = 1                   # 独灯补偿 +1
    panic_per_player: int = 2       # 惊惶上限 = 人数 × 2
    wedding_penalty: int = 4        # 婚礼失败: 所有人 −4, 萤火之礼作废
    gift_unique: int = 5            # 萤火之礼: 守誓最多 +5
    gift_tied: int = 2              # 并列各 +2
    dark_max: int = 5               # the highest lantern (上限律: 明牌 + 5 − 雾)
    refill_after_last: bool = False  # decision: hands refill to 5 after every night but the last
    lit_cards: int = 1              # 亮灯: one card face up
    passed_cards: int = 1           # 递灯: one card face down to the 同灯人 (a solo lamp draws one)
    panic_per_break: int = 1        # 每有 1 人食言，惊惶 +1
    guards_each: int = 1            # 9.1: one guard card each, usable once per game
    pawns_each: int = 1             # one pawn per player
    start_reputation: int = 0       # decision: everyone starts at 0 reputation
    panic_start: int = 0            # 惊惶条 0 到 12 格: the marker starts on 0
    harvest_min: int = 0            # 斩获最低为 0
    no_fog: int = 0                 # 9.5: every station's fog counts as 0


P = Params()


# --- one night ------------------------------------------------------------------------------

def harvest(lit: int, dark: int, fog: int) -> int:
    """斩获 = 明牌 + 暗牌 − 本驿雾值, never below 0."""
    return max(P.harvest_min, lit + dark - fog)


def keep_score(oath: int) -> int:
    return oath - P.keep_offset


def fail_score(oath: int) -> int:
    return -max(P.fail_min, oath - P.fail_offset)


def oath_score(oath: int, got: int) -> tuple[int, bool, bool]:
    """(reputation before co-fire, kept, exact)."""
    if got >= oath:
        exact = got == oath
        return keep_score(oath) + (P.exact_bonus if exact else 0), True, exact
    return fail_score(oath), False, False


def break_even(oath: int) -> float:
    """The chance of keeping an oath at which stating it neither gains nor loses."""
    loss = -fail_score(oath)
    return loss / (keep_score(oath) + loss)


def percent(value: float) -> int:
    """Rounded half up, as the seed rounds 37.5 % to 38 %."""
    return int(value * 100 + 0.5)


@dataclass
class Seat:
    name: str
    partner: str | None             # None: a solo lamp (独灯)
    total: int = 0
    kept: int = 0
    history: list = field(default_factory=list)


def play_night(seats: dict[str, Seat], plays: dict[str, dict], fog: int, multiplier: int) -> dict:
    """Score one night. plays[name] = {lit, dark, oath}. Returns per-seat details and panic added."""
    results, panic = {}, 0
    for name, play in plays.items():
        got = harvest(play["lit"], play["dark"], fog)
        base, kept, exact = oath_score(play["oath"], got)
        results[name] = dict(harvest=got, base=base, kept=kept, exact=exact)
        panic += 0 if kept else P.panic_per_break
    for name, result in results.items():
        partner = seats[name].partner
        bonus = (P.cofire if results[partner]["kept"] else 0) if partner else P.solo
        result["bonus"] = bonus
        result["night"] = (result["base"] + bonus) * multiplier   # 第 7 夜 all gains and losses ×2
        seats[name].total += result["night"]
        seats[name].kept += result["kept"]
        seats[name].history.append(result)
    return {"results": results, "panic": panic}       # panic is never doubled (终夜律)


def finish(seats: dict[str, Seat], panic: int, players: int) -> dict:
    """萤火之礼 and the wedding-failure check, then final reputation."""
    cap = panic_cap(players)
    failed = panic >= cap
    most = max(s.kept for s in seats.values())
    leaders = [s.name for s in seats.values() if s.kept == most]
    gift = {}
    for seat in seats.values():
        bonus = 0
        if not failed and seat.name in leaders:
            bonus = P.gift_unique if len(leaders) == 1 else P.gift_tied
        gift[seat.name] = bonus
        seat.total += bonus - (P.wedding_penalty if failed else 0)
    return {"gift": gift, "wedding_failed": failed, "cap": cap,
            "final": {s.name: s.total for s in seats.values()}, "kept": {s.name: s.kept for s in seats.values()}}


def panic_cap(players: int) -> int:
    return P.panic_per_player * players


# --- whole-game figures -------------------------------------------------------------------

def roads(game) -> tuple[list[dict], list[dict]]:
    rows = game.tables["stations"]
    def station(row, number):
        return dict(id=row.id, number=number, icon=row.icon, name=row.name, terrain=row.terrain,
                    fog=row.fog, multiplier=row.multiplier, note=row.note)
    seven = [station(r, r.order) for r in sorted((r for r in rows if r.order), key=lambda r: r.order)]
    nine = [station(r, r.order9) for r in sorted((r for r in rows if r.order9), key=lambda r: r.order9)]
    return seven, nine


def deck_values(game) -> list[int]:
    return sorted(c.value for c in game.decks["lanterns"].cards for _ in range(c.copies_for(4)))


def deck_flow(players: int, nights: int, deck_size: int, params: Params = P) -> dict:
    """Cards dealt, drawn and the night the draw pile first runs dry (then the discards are
    shuffled back, 常见问题). Every seat spends its lit card and one more card a night:
    a paired seat passes a card from hand, a solo lamp takes its dark card from the pile."""
    dealt = players * params.hand_size
    refills = nights if params.refill_after_last else nights - 1
    per_night = 2 * players
    pile, discard, first_reshuffle = deck_size - dealt, 0, None
    for night in range(1, nights + 1):
        discard += per_night
        if night <= refills:
            if pile < per_night and first_reshuffle is None:
                first_reshuffle = night
            pile, discard = (pile - per_night, discard) if pile >= per_night else (
                pile + discard - per_night, 0)
    return {"dealt": dealt, "draws": refills * per_night, "first_reshuffle": first_reshuffle}


def hand_with_refill(per_night_refill: int, nights: int, params: Params = P) -> int | None:
    """The first night a paired seat cannot light and pass, refilling `per_night_refill` a night."""
    hand = params.hand_size
    for night in range(1, nights + 1):
        if hand < 2:
            return night
        hand += per_night_refill - 2
    return None


def dark_chances(values: list[int]) -> dict:
    """Chance (%) that a card drawn at random from the full deck is at least k."""
    return {k: percent(sum(1 for v in values if v >= k) / len(values)) for k in sorted(set(values))}


def lowest_lit_for(target: int, fog: int, values: list[int]) -> int | None:
    """The smallest lit card whose ceiling (lit + highest dark − fog) reaches `target`."""
    return next((v for v in sorted(set(values)) if harvest(v, P.dark_max, fog) >= target), None)


def night_extremes(multiplier: int) -> dict:
    """Most and least reputation one seat can make in one night."""
    best = max(oath_score(t, t)[0] for t in range(P.oath_min, P.oath_max + 1)) + max(P.cofire, P.solo)
    worst = min(fail_score(t) for t in range(P.oath_min, P.oath_max + 1))
    return {"max": best * multiplier, "min": worst * multiplier}


def derive(game) -> dict:
    seven, nine = roads(game)
    oaths = list(range(P.oath_min, P.oath_max + 1))
    fogs = sorted({s["fog"] for s in seven + nine})
    lanterns = sorted(game.decks["lanterns"].cards, key=lambda c: c.value)
    values = [c.value for c in lanterns]
    player_counts = sorted(p.players for p in game.packs)
    multipliers = [s["multiplier"] for s in seven]
    extremes = [night_extremes(m) for m in multipliers]
    nights = len(seven)
    return {
        "params": P,
        "road": seven,
        "road9": nine,
        "nights": nights,
        "final_night": max(range(nights), key=lambda i: multipliers[i]) + 1,
        "final_multiplier": max(multipliers),
        "fog_total": sum(s["fog"] for s in seven),
        "fog_average": round(sum(s["fog"] for s in seven) / nights, 2),
        "nights_by_fog": {f: [s["number"] for s in seven if s["fog"] == f] for f in fogs},
        "oaths": [dict(oath=t, keep=keep_score(t), fail=fail_score(t), break_even=percent(break_even(t)),
                       difference=keep_score(t) - (-fail_score(t)),
                       formula=(None if 2 * t - 4 == 0 else percent((t - 3) / (2 * t - 4))))
                  for t in oaths],
        "cheapest_oath": min(oaths, key=break_even),
        "max_harvest": {lit: {f: harvest(lit, P.dark_max, f) for f in fogs} for lit in values},
        "best_harvest": {f: harvest(max(values), P.dark_max, f) for f in fogs},
        "full_harvest_nights": [s["number"] for s in seven if harvest(max(values), P.dark_max, s["fog"])
                                == 2 * max(values)],
        "zero_harvest_nights": [s["number"] for s in seven if harvest(min(values), min(values), s["fog"]) == 0],
        "night_extremes": extremes,
        "final_night_swing": extremes[max(range(nights), key=lambda i: multipliers[i])],
        "cofire_over_game": sum(P.cofire * m for m in multipliers),
        "solo_over_game": sum(P.solo * m for m in multipliers),
        "panic_cap": {p: panic_cap(p) for p in player_counts},
        "panic_track": max(panic_cap(p) for p in player_counts),
        "lanterns": [dict(value=c.value, name=c.name, icon=c.icon, passed=c.passed,
                          copies=c.copies_for(player_counts[-1])) for c in lanterns],
        "deck_size": len(deck_values(game)),
        "fives_share": percent(deck_values(game).count(max(values)) / len(deck_values(game))),
        "oath_numbers": len(oaths),
        "oaths_per_game_6p": nights * 6,
        "deck_flow": {p: deck_flow(p, nights, len(deck_values(game))) for p in player_counts},
        "refill_one_runs_out": hand_with_refill(1, nights),
        "game_bounds": {"min": sum(e["min"] for e in extremes) - P.wedding_penalty,
                        "max": sum(e["max"] for e in extremes) + P.gift_unique},
        "max_players": max(player_counts),
        "min_players": min(player_counts),
        "deal": {p: {"hand": P.hand_size, "dealt": P.hand_size * p,
                     "pile": len(deck_values(game)) - P.hand_size * p} for p in player_counts},
        "dark_chance": dark_chances(deck_values(game)),
        "lowest_lit_for_7": {f: lowest_lit_for(7, f, values) for f in fogs},
        "fives_seen_max": {p: min(deck_values(game).count(max(values)), 2 * p) for p in player_counts},
        "two_kept_sixes": 2 * keep_score(6),
        "nights9": len(nine),
        "final_night9": max(range(len(nine)), key=lambda i: nine[i]["multiplier"]) + 1 if nine else None,
        "fog_total9": sum(s["fog"] for s in nine),
        "cofire_over_game9": sum(P.cofire * s["multiplier"] for s in nine),
        "deck_flow9": {p: deck_flow(p, len(nine), len(deck_values(game))) for p in player_counts},
        "solo_seats": solo_seats(game),
        "one_solo_packs": [n for n, s in solo_seats(game).items() if 0 < s < n],
        "pairing_cards": {p.players: [dict(mark=c.mark, letter=c.letter, copies=c.copies_for(p.players))
                                      for c in game.decks["pairing"].cards if c.copies_for(p.players)]
                          for p in game.packs},
        "example": replay_example(game, seven),
    }


def solo_seats(game) -> dict:
    """Seats without a 同灯人 in each pack: everyone in the all-solo variant, else the odd one out."""
    seats = {}
    for pack in game.packs:
        pairing = sum(c.copies_for(pack.players) for c in game.decks["pairing"].cards)
        seats[pack.players] = pack.players - 2 * (pairing // 2)
    return seats


def replay_example(game, road: list[dict]) -> dict | None:
    example = game.data.get("example.yaml")
    return replay(example["example"], road) if example else None


def replay(example: dict, road: list[dict]) -> dict:
    """Section 七, the 4-player game: every night played through play_night."""
    seats = {s["name"]: Seat(s["name"], s.get("partner")) for s in example["seats"]}
    names = [s["name"] for s in example["seats"]]        # clockwise seating
    panic, nights = 0, []
    dark_by_night = {}
    for index, (night, station) in enumerate(zip(example["nights"], road)):
        plays = {}
        for name, play in night["plays"].items():
            giver = seats[name].partner
            dark = night["plays"][giver]["pass"] if giver else play["dark"]
            plays[name] = {"lit": play["lit"], "dark": dark, "oath": play["oath"],
                           "pass": play.get("pass"), "ceiling": harvest(play["lit"], P.dark_max, station["fog"])}
        dark_by_night[station["number"]] = {n: p["dark"] for n, p in plays.items()}
        holder = names[index % len(names)]             # the lantern holder moves clockwise each night
        order = names[index % len(names):] + names[:index % len(names)]
        taken, open_numbers = [], {}
        for name in order:
            open_numbers[name] = [t for t in range(P.oath_min, P.oath_max + 1) if t not in taken]
            taken.append(plays[name]["oath"])
        outcome = play_night(seats, plays, station["fog"], station["multiplier"])
        panic += outcome["panic"]
        for name, result in outcome["results"].items():
            result.update(plays[name])
        nights.append({"number": station["number"], "fog": station["fog"], "multiplier": station["multiplier"],
                       "station": station["name"], "holder": holder, "order": order,
                       "open": open_numbers, "results": outcome["results"],
                       "totals": {n: s.total for n, s in seats.items()}, "panic": panic,
                       "passes": {n: plays[n]["pass"] for n in order},
                       "max_ceiling": max(p["ceiling"] for p in plays.values()),
                       "max_oath": max(p["oath"] for p in plays.values())})
    end = finish(seats, panic, len(seats))
    ranking = sorted(end["final"].values(), reverse=True)
    return {
        "nights": nights,
        "end": end,
        "winner_gap": ranking[0] - ranking[1],
        "cofire_nights": {n: sum(1 for r in s.history if r["bonus"] > 0) for n, s in seats.items()},
        "cofire_points": {n: sum(r["bonus"] * m["multiplier"] for r, m in zip(s.history, nights))
                          for n, s in seats.items()},
        "names": names,
        "low_dark_nights": {n: sum(1 for d in dark_by_night.values() if d[n] <= 2) for n in seats},
    }


def check(game, derived: dict) -> list[str]:
    errors = []
    if derived["deck_size"] != 60:
        errors.append(f"the lantern deck holds {derived['deck_size']} cards, the game has 60")
    for pack in game.packs:
        if panic_cap(pack.players) > derived["panic_track"]:
            errors.append(f"{pack.players} players' panic cap is off the track")
        pairing = sum(c.copies_for(pack.players) for c in game.decks["pairing"].cards)
        solo_seats = pack.players - 2 * (pairing // 2)
        if pack.variant is None and solo_seats > 1:
            errors.append(f"{pack.players}-player pack leaves {solo_seats} seats without a 同灯人")
    for night, station in enumerate(derived["road"], 1):
        if station["number"] != night:
            errors.append(f"road station {station['name']} is numbered {station['number']}, expected {night}")
    if derived["final_multiplier"] < 1:
        errors.append("no night has a multiplier")
    return errors
