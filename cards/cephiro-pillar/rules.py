"""Rules of 魔法骑士：塞菲罗支柱, and every number its kit prints.

Rule parameters are named here with the seed section that states them; everything a
component prints (T per trial, stability starts, peak-grab scores, track ranges …) is
derived from them and from the card data, never copied from the seed's prose. The
seed's own figures are recorded in claims.yaml and compared with these by the
validator; docs/cephiro-pillar.md explains each decision.
"""
from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class Params:
    mana_per_trial: int = 3          # 6.2 步骤1: 每人取 3 点魔力
    threshold: int = 12              # 6.4: ✧ ≥ 12 ⇒ ◈ 全额
    awaken_purity: int = 10          # 6.3 觉醒: ✧ ≥ 10 且 ◈ ≥ 10
    awaken_belief: int = 10
    awaken_power: int = 1            # 觉醒后每场战力 +1
    majin_purity: int = 12           # 6.3 魔神: ✧ ≥ 12 且 ◈ ≥ 12 ⇒ +5
    majin_belief: int = 12
    majin_bonus: int = 5
    sacrifice_max: int = 3           # 6.4 献祭: 最多 3 点 ♡ → ✧
    peak_belief: int = 4             # 6.2 步骤5: 最盛者 ◈+4 ✧−2, 其余 ◈+1
    peak_purity_loss: int = 2
    others_belief: int = 1
    fail_purity_loss: int = 2        # 失败: 全员 ✧−2
    stability_per_player: int = 3    # 5.5: 起始 = 人数 × 3
    stability_start: int | None = None  # a variant's fixed start (9.6: 10)
    stability_cap: int = 15          # the bar's top cell (3.1: 15 格); see docs
    hand_limit: int = 3              # 5.2: 手牌上限 3 张
    demon_margin: int = 0            # 9.5 心魔加强: 有效♡ = min(♡, ✧ − 2)
    trials: int = 8                  # 9.4 短局: 5
    max_peaks: int | None = None     # 9.6: 允许每人抢峰 4 次
    oath_draw: int = 1               # 6.2 步骤6: 每人抽 1 张誓约卡
    cards_per_trial: int = 1         # 6.2 步骤4: 每人暗置 1 张战力卡
    track_start: int = 0             # 6.1 ②: 三轨全部归零

    def stability_for(self, players: int) -> int:
        return self.stability_start if self.stability_start is not None else players * self.stability_per_player


STANDARD = Params()
VARIANT_2P = replace(STANDARD, stability_start=10, peak_purity_loss=1, max_peaks=4)   # 9.6 魔神对决
SHORT = replace(STANDARD, trials=5, threshold=8)                                      # 9.4 短局模式
HARD = replace(STANDARD, demon_margin=2)                                              # 9.5 心魔加强
DISCUSSION_SECONDS = 60      # 9.1 开放协商: 每场步骤 1 前 60 秒公开讨论
TWIN_PURITY = 16             # 9.3 双柱结局: 两人或以上 ✧ ≥ 16
TWIN_WINNERS = 2             # 9.3: 得分最高的两人共同获胜


# --- one player's state and one trial --------------------------------------------------

@dataclass
class Knight:
    heart: int = 0      # ♡
    purity: int = 0     # ✧
    belief: int = 0     # ◈
    peaks: int = 0
    awakened: bool = False


@dataclass
class TrialResult:
    threat: int
    power: int
    success: bool
    peak: int | None            # index of the unique highest ♡, if any
    stability_loss: int


def resolve_trial(knights: list[Knight], faces: list[int], hearts: list[int], multiplier: int,
                  params: Params = STANDARD, cut: int = 0) -> TrialResult:
    """Step 5 (揭示与结算) and the record part of step 6 for every player at once.
    `cut` lowers T (🔥 试炼之炎)."""
    players = len(knights)
    threat = max(0, players * multiplier - cut)
    power = sum(face + heart + (params.awaken_power if k.awakened else 0)
                for k, face, heart in zip(knights, faces, hearts))
    top = max(hearts)
    success = power >= threat
    # a failed trial has no Most Wished (rulebook §9): nobody's ♡ is compared
    peak = hearts.index(top) if success and top > 0 and hearts.count(top) == 1 else None
    for index, (knight, heart) in enumerate(zip(knights, hearts)):
        knight.heart += heart
        knight.purity += params.mana_per_trial - heart
        if not success:
            knight.purity -= params.fail_purity_loss
        elif index == peak:
            knight.belief += params.peak_belief
            knight.purity -= params.peak_purity_loss
            knight.peaks += 1
        else:
            knight.belief += params.others_belief
    for knight in knights:   # 6.3: milestones are checked after recording
        if knight.purity >= params.awaken_purity and knight.belief >= params.awaken_belief:
            knight.awakened = True
    return TrialResult(threat, power, success, peak, 0 if success else threat - power)


@dataclass(frozen=True)
class Score:
    sacrifice: int
    heart: int
    purity: int
    effective_heart: int
    belief_counted: int
    majin: int
    total: int


def final_score(knight: Knight, params: Params = STANDARD, collapsed: bool = False) -> Score:
    """6.4 柱的审判 with the sacrifice that scores best (the seed's Q11 advice)."""
    best = None
    for sacrifice in range(min(params.sacrifice_max, max(knight.heart, 0)) + 1):
        heart, purity = knight.heart - sacrifice, knight.purity + sacrifice
        # 心魔条款: hearts beyond purity are worth nothing — never less than nothing.
        effective = max(0, min(heart, purity - params.demon_margin))
        if collapsed:
            belief, majin = 0, 0
        else:
            belief = knight.belief if purity >= params.threshold else knight.belief // 2
            majin = params.majin_bonus if (purity >= params.majin_purity
                                           and knight.belief >= params.majin_belief) else 0
        total = effective + purity + belief + majin
        score = Score(sacrifice, heart, purity, effective, belief, majin, total)
        if best is None or score.total > best.total:
            best = score
    return best


# --- whole-game figures ------------------------------------------------------------------

def trial_table(game) -> list[dict]:
    return [dict(id=c.id, number=c.number, name=c.name, icon=c.icon, multiplier=c.multiplier, suggested=c.suggested)
            for c in sorted(game.decks["trials"].cards, key=lambda c: c.number)]


def power_hand(game) -> list[int]:
    """One player's power cards (5.1): the values of one colour with their copies."""
    colour = game.decks["power"].cards[0].colour
    return sorted(v for c in game.decks["power"].cards if c.colour == colour
                  for v in [c.value] * c.copies_for(max(p.players for p in game.packs)))


def needs_per_player(trials: list[dict]) -> list[int]:
    """♡ each player must add when everyone plays the suggested card (4.3)."""
    return [max(0, t["multiplier"] - t["suggested"]) for t in trials]


def team_heart_need(trials: list[dict], order: list[list[int]]) -> int:
    """Total ♡ a team must invest when player i plays order[i][t] in trial t (appendix ⑥)."""
    players = len(order)
    return sum(max(0, players * t["multiplier"] - sum(hand[i] for hand in order))
               for i, t in enumerate(trials))


def play_peak_scenario(trials: list[dict], grabs: int, params: Params, players: int = 4) -> Knight:
    """Player 0 grabs the peak in `grabs` trials (one ♡ above the need), the rest follow the need."""
    needs = needs_per_player(trials)[: params.trials]
    knights = [Knight() for _ in range(players)]
    # grab from trial ② on (① needs 2 ♡ each already); the 9th… grab would fall on ①
    grab_at = set((list(range(1, len(needs))) + [0])[:grabs])
    for t, trial in enumerate(trials[: params.trials]):
        hearts = [needs[t]] * players
        if t in grab_at:
            hearts[0] = needs[t] + 1
        resolve_trial(knights, [trial["suggested"]] * players, hearts, trial["multiplier"], params)
    return knights[0]


def peak_table(trials: list[dict], params: Params, upto: int = 4) -> list[dict]:
    rows = []
    for k in range(upto + 1):
        knight = play_peak_scenario(trials, k, params)
        score = final_score(knight, params)
        rows.append(dict(k=k, heart=knight.heart, purity=knight.purity, belief=knight.belief,
                         sacrifice=score.sacrifice, score=score.total, majin=score.majin > 0,
                         reaches_threshold=score.purity >= params.threshold))
    return rows


def safe_grabs(trials: list[dict], params: Params) -> int:
    """Most peaks one player can take and still reach the pillar threshold after sacrifice."""
    k = 0
    while k < params.trials and peak_table(trials, params, k + 1)[-1]["reaches_threshold"]:
        k += 1
    return k


def oath_amount(game, kind: str, players: int) -> tuple[int, int]:
    """(copies in the pack's oath deck, amount) of one oath kind."""
    card = next(c for c in game.decks["oaths"].cards if c.kind == kind)
    return card.copies_for(players), card.amount or 0


def track_ranges(game, trials: list[dict], params: Params = STANDARD) -> dict:
    """Every value a record-board track can reach, over every pack (5.4 asks 0-24/0-24/0-30)."""
    mana = params.trials * params.mana_per_trial
    surge = max(oath_amount(game, "surge", p.players)[0] * oath_amount(game, "surge", p.players)[1]
                for p in game.packs)
    egg = max(oath_amount(game, "egg", p.players)[0] * oath_amount(game, "egg", p.players)[1]
              for p in game.packs)
    losses = params.trials * max(params.peak_purity_loss, params.fail_purity_loss)
    most_belief = params.trials * max(params.peak_belief, params.others_belief)
    return {
        "heart": {"min": 0, "max": mana + surge},
        "purity": {"min": -losses, "max": mana + surge},
        "belief": {"min": 0, "max": most_belief + egg},
    }


def mana_tokens(game, players: int, params: Params = STANDARD) -> int:
    """Tokens the 元素泉 must hold: everyone's 3, plus every 元素涌流 in the deck played at once."""
    copies, amount = oath_amount(game, "surge", players)
    return players * params.mana_per_trial + copies * amount


def oath_draws(players: int, params: Params = STANDARD) -> int:
    """Cards drawn over a game: one each after every trial, the last included (6.2 步骤6; an
    any-time card such as 魔神之卵 can still be played before the Judgement)."""
    return players * params.trials


def team_game(trials: list[dict], hearts: list[list[int]], faces: list[list[int]] | None = None,
              cuts: dict[int, int] | None = None, params: Params = STANDARD) -> tuple[list[Knight], list[TrialResult]]:
    """Play whole trials: hearts[t][i] is knight i's ♡ in trial t, faces[t][i] the card (suggested by default)."""
    players = len(hearts[0])
    knights = [Knight() for _ in range(players)]
    results = []
    for t, trial in enumerate(trials[: len(hearts)]):
        face = faces[t] if faces else [trial["suggested"]] * players
        results.append(resolve_trial(knights, face, list(hearts[t]), trial["multiplier"], params,
                                     (cuts or {}).get(t, 0)))
    return knights, results


def team_score(knights: list[Knight], params: Params = STANDARD) -> int:
    return sum(final_score(k, params).total for k in knights)


def lead_with_six_points(trials: list[dict], hand: list[int], players: int) -> dict:
    """Appendix ⑥ / 8.1 ②: everyone leads with the 6 and then plays ascending; each trial the
    knights add exactly the ♡ still needed (all tie, every trial beaten)."""
    swapped = [hand[-1]] + hand[:-1]
    def play(order):
        need = [max(0, t["multiplier"] - order[i]) for i, t in enumerate(trials)]
        knights, results = team_game(trials, [[n] * players for n in need], [[f] * players for f in order])
        return knights, results
    base, _ = play(hand)
    six, results = play(swapped)
    return {"extra_heart": sum(k.heart for k in six) - sum(k.heart for k in base),
            "points_lost": team_score(base) - team_score(six),
            "all_beaten": all(r.success for r in results)}


def flame_points(trials: list[dict], game, players: int, trial: int = 0) -> dict:
    """8.3: 🔥 试炼之炎 lowers T in one trial; the knights share the ♡ it saves (trial ① by default)."""
    cut = oath_amount(game, "flame", players)[1]
    needs = needs_per_player(trials)
    base, _ = team_game(trials, [[n] * players for n in needs])
    cheaper = list(needs)
    cheaper[trial] = max(0, needs[trial] - cut // players)
    knights, results = team_game(trials, [[n] * players for n in cheaper], cuts={trial: cut})
    return {"heart_saved": sum(k.heart for k in base) - sum(k.heart for k in knights),
            "points_won": team_score(knights) - team_score(base),
            "all_beaten": all(r.success for r in results)}


def mirror_peaks(trials: list[dict], game, players: int, params: Params = STANDARD) -> dict:
    """8.3 护心镜: one knight holds every 护心镜 of the pack's deck and shields that many of their
    peaks (no ✧ −2). Most peaks that still reach the threshold after the sacrifice, and what one
    peak costs in ✧ with and without the mirror."""
    mirrors = oath_amount(game, "mirror", players)[0]
    needs = needs_per_player(trials)[: params.trials]
    def knight_after(grabs: int) -> Knight:
        knights = [Knight() for _ in range(players)]
        grab_at = (list(range(1, len(needs))) + [0])[:grabs]
        for t, trial in enumerate(trials[: params.trials]):
            hearts = [needs[t]] * players
            shielded = t in grab_at and grab_at.index(t) < mirrors
            if t in grab_at:
                hearts[0] = needs[t] + 1
            resolve_trial(knights, [trial["suggested"]] * players, hearts, trial["multiplier"],
                          replace(params, peak_purity_loss=0) if shielded else params)
        return knights[0]
    safe = 0
    while safe < params.trials and final_score(knight_after(safe + 1), params).purity >= params.threshold:
        safe += 1
    cost = 1 + params.peak_purity_loss      # the ♡ taken from ✧, plus the loss
    return {"mirrors": mirrors, "safe": safe, "cost": cost, "cost_mirrored": 1}


def free_rider(trials: list[dict], players: int = 4) -> dict:
    """8.2 搭便车流: knight 0 gives one ♡ less than the need every trial (never below 0); one
    teammate in turn gives one more, so every trial is still beaten."""
    needs = needs_per_player(trials)
    hearts = []
    for t, need in enumerate(needs):
        row = [need] * players
        if need > 0:
            row[0] = need - 1
            row[1 + t % (players - 1)] = need + 1
        hearts.append(row)
    knights, results = team_game(trials, hearts)
    rider = knights[0]
    return {"heart": rider.heart, "purity": rider.purity, "belief": rider.belief,
            "score": final_score(rider).total, "all_beaten": all(r.success for r in results)}


# --- the engine's interface ----------------------------------------------------------------

def derive(game) -> dict:
    trials = trial_table(game)
    needs = needs_per_player(trials)
    hand = power_hand(game)
    player_counts = sorted(p.players for p in game.packs)
    for t, need in zip(trials, needs):
        t["threat"] = {p: p * t["multiplier"] for p in player_counts}
        t["need"] = need
    mana = STANDARD.trials * STANDARD.mana_per_trial
    swapped = [hand[-1]] + hand[:-1]   # appendix ⑥: everyone leads with the 6
    variant_trials = trials
    short = SHORT
    short_needs = needs[: short.trials]
    return {
        "params": STANDARD,
        "variant_2p": VARIANT_2P,
        "trials": trials,
        "threats": {p: [t["threat"][p] for t in trials] for p in player_counts},
        "hand": hand,
        "hand_total": sum(hand),
        "needs": needs,
        "need_total": sum(needs),
        "mana_total": mana,
        # what a knight allots over a game: every trial's mana, plus each 元素涌流 they play (4.1, §7.4)
        "allotted": {"standard": mana, "short": SHORT.trials * SHORT.mana_per_trial, "short_trials": SHORT.trials,
                     "surge": oath_amount(game, "surge", min(player_counts))[1]},
        "purity_base": mana - sum(needs),
        "spare": mana - sum(needs) - STANDARD.threshold,
        "stability_start": {p: STANDARD.stability_for(p) for p in player_counts},
        "stability_variant_2p": VARIANT_2P.stability_for(2),
        "stability_cells": max(STANDARD.stability_for(p) for p in player_counts),
        "stability_cap": STANDARD.stability_cap,
        "threat_totals": {p: sum(t["threat"][p] for t in trials) for p in player_counts},
        "face_totals": {p: p * sum(hand) for p in player_counts},
        "team_needs": {p: p * sum(needs) for p in player_counts},
        "peak_table": peak_table(trials, STANDARD),
        "peak_scores": [row["score"] for row in peak_table(trials, STANDARD)],
        "peak_table_2p": peak_table(variant_trials, VARIANT_2P),
        "peak_scores_2p": [row["score"] for row in peak_table(variant_trials, VARIANT_2P)],
        "peak_table_short": peak_table(trials, short, 3),
        "best_score": max(row["score"] for row in peak_table(trials, STANDARD, 8)),
        "safe_grabs": safe_grabs(trials, STANDARD),
        "safe_grabs_2p": safe_grabs(trials, VARIANT_2P),
        "capacity": {p: p * safe_grabs(trials, STANDARD) for p in player_counts},
        "demand": len(trials),
        "lead_with_six_extra": {p: team_heart_need(trials, [swapped] * p) - team_heart_need(trials, [hand] * p)
                                for p in player_counts},
        "short": {
            "trials": short.trials, "mana": short.trials * short.mana_per_trial, "threshold": short.threshold,
            "needs": short_needs, "need_total": sum(short_needs),
            "purity_base": short.trials * short.mana_per_trial - sum(short_needs),
        },
        "tracks": track_ranges(game, trials),
        "mana_tokens": {p: mana_tokens(game, p) for p in player_counts},
        "oath_deck": {p.players: sum(c.copies_for(p.players) for c in game.decks["oaths"].cards)
                      for p in game.packs},
        "oath_draws": {p: oath_draws(p) for p in player_counts},
        "example": replay_example(game, trials),
        "lead_with_six": {p: lead_with_six_points(trials, hand, p) for p in player_counts},
        "flame": {p: flame_points(trials, game, p) for p in player_counts},
        "free_rider": free_rider(trials),
        "mirror": {p: mirror_peaks(trials, game, p) for p in player_counts},
        "capacity_2p_variant": 2 * safe_grabs(trials, VARIANT_2P),
        "variant_hard": HARD,
        "variants": {"discussion_seconds": DISCUSSION_SECONDS, "twin_purity": TWIN_PURITY,
                     "twin_winners": TWIN_WINNERS, "short_trials": SHORT.trials},
        "track_symbols": ["♡", "✧", "◈"],   # the record board's three tracks, one marker each
        "players_min": min(player_counts),
        "players_max": max(player_counts),
    }


def replay_example(game, trials: list[dict]) -> dict | None:
    """Section 7.2: the seed's 4-player game, from example.yaml, replayed through these rules."""
    example = game.data.get("example.yaml")
    if example is None:
        return None
    return replay(example["example"], trials)


def replay(example: dict, trials: list[dict], params: Params = STANDARD) -> dict:
    names = [p["name"] for p in example["players"]]
    knights = [Knight() for _ in names]
    stability = params.stability_for(len(names))
    history, awake_before_last = [], []
    for t, (trial, hearts) in enumerate(zip(trials, example["hearts"])):
        faces = [example["cards"][t]] * len(names)
        if t == len(trials) - 1:
            awake_before_last = [n for n, k in zip(names, knights) if k.awakened]
        awake = [k.awakened for k in knights]
        result = resolve_trial(knights, faces, list(hearts), trial["multiplier"], params)
        stability -= result.stability_loss
        history.append(dict(number=trial["number"], name=trial["name"], icon=trial["icon"],
                            card=example["cards"][t], hearts=list(hearts),
                            purities=[params.mana_per_trial - h for h in hearts],
                            powers=[f + h + (params.awaken_power if a else 0)
                                    for f, h, a in zip(faces, hearts, awake)],
                            awake=[n for n, a in zip(names, awake) if a],
                            threat=result.threat, power=result.power, success=result.success,
                            peak=names[result.peak] if result.peak is not None else None,
                            stability=stability))
    scores = {name: final_score(k, params) for name, k in zip(names, knights)}
    return {
        "players": [dict(p) for p in example["players"]],
        "names": names,
        "stability_start": params.stability_for(len(names)),
        "breakdown": {name: dict(sacrifice=s.sacrifice, heart=s.heart, purity=s.purity,
                                 effective=s.effective_heart, belief=s.belief_counted, majin=s.majin,
                                 total=s.total) for name, s in scores.items()},
        "winner": max(scores, key=lambda n: (scores[n].total, scores[n].purity)),
        "history": history,
        "stability": stability,
        "totals": {name: dict(heart=k.heart, purity=k.purity, belief=k.belief, peaks=k.peaks,
                              awakened=k.awakened) for name, k in zip(names, knights)},
        "scores": {name: s.total for name, s in scores.items()},
        "sacrifice": {name: s.sacrifice for name, s in scores.items()},
        "heart_plus_purity": {name: k.heart + k.purity for name, k in zip(names, knights)},
        "awakened_before_last": awake_before_last,
    }


def check(game, derived: dict) -> list[str]:
    """Numeric invariants the kit relies on; each returned string is an error."""
    errors = []
    p = STANDARD
    if any(n > p.mana_per_trial for n in derived["needs"]):
        errors.append("a trial needs more ♡ per player than one trial's mana")
    for players, start in derived["stability_start"].items():
        if start > p.stability_cap:
            errors.append(f"stability start {start} for {players} players is beyond the bar's {p.stability_cap} cells")
    for players in derived["oath_draws"]:
        # a draw always finds a card (after the reshuffle) while the hands cannot hold the whole deck
        deck, held = derived["oath_deck"][players], players * p.hand_limit
        if deck <= held:
            errors.append(f"{players} players may hold {held} oath cards; the pack's deck holds only {deck}")
    hands = {c.colour for c in game.decks["power"].cards}
    for colour in hands:
        values = sorted(v for c in game.decks["power"].cards if c.colour == colour
                        for v in [c.value] * c.copies_for(5))
        if values != derived["hand"]:
            errors.append(f"power colour {colour} holds {values}, not the common hand {derived['hand']}")
    if len(derived["trials"]) != p.trials:
        errors.append(f"{len(derived['trials'])} trial cards; the game has {p.trials} trials")
    numbers = [t["number"] for t in derived["trials"]]
    if numbers != list(range(1, len(numbers) + 1)):
        errors.append(f"trial numbers {numbers} are not 1..{len(numbers)} in order")
    # every oath kind should survive into every pack: a pack without an effect changes the game
    for pack in game.packs:
        missing = [c.name for c in game.decks["oaths"].cards if c.copies_for(pack.players) == 0]
        if missing:
            errors.append(f"the {pack.players}-player oath deck leaves out {', '.join(missing)}")
    return errors
