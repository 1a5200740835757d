"""Write the benchmark's cards: deck450 (committed) or a scale deck of any size (not committed).

Card i (1..N) is titled `第{i}张 Card {i}`; card index k = i - 1 has as body lines
k, k+1, k+2 (mod 7) of LINES (../shared/bench/README.md). Without options this writes
cards/deck450/cards.yaml, which is committed; rerun it only to change it. With
`--count N --project DIR` it writes a whole game `deckN` (game.yaml, cards.yaml, rules.py)
into DIR/cards/deckN/, for the scale rows of `make bench` (generated into a temporary folder);
`--copies N` a game `copiesN` of COPY_CARDS distinct cards printed N times in all, for the export rows.
"""
import argparse
from pathlib import Path

LINES = ["春眠不觉晓处处闻啼鸟夜来风雨声", "花落知多少床前明月光疑是地上霜", "举头望明月低头思故乡白日依山尽",
         "黄河入海流欲穷千里目更上一层楼", "千山鸟飞绝万径人踪灭孤舟蓑笠翁", "独钓寒江雪红豆生南国春来发几枝",
         "愿君多采撷此物最相思松下问童子"]
COUNT = 450
COPY_CARDS = 20         # the distinct cards of a copies game: its export holds each image once

GAME = """# A benchmark game written by bench/make_deck.py: {distinct} distinct deck450 cards, {count} printed.
id: {game}
title: 基准牌组 {game}
card:
  size: poker
  bleed: 3.175
  safe: 3
css: [deck450/card.css]
decks: [cards.yaml]
packs:
  - players: 2
    id: all
    name: 全部 {count} 张
    decks:
      cards: {{count: {count}}}
"""
RULES = '''"""A scale benchmark game: no rules."""


def derive(game) -> dict:
    return {"cards": len(game.decks["cards"].cards)}


def check(game, derived: dict) -> list[str]:
    return []
'''


def card_id(i: int, count: int) -> str:
    return f"c{i:0{max(3, len(str(count)))}d}"


def cards_yaml(count: int, note: str, copies: int = 1) -> str:
    rows = ["# yaml-language-server: $schema=../../../schemas/deck.schema.json", f"# {note}",
            "deck:", "  id: cards", "  name: 基准牌", "  face: deck450/card.html",
            "  fields:", "    title: {type: text}", "    body: {type: rich}", "cards:"]
    for k in range(count):
        i = k + 1
        body = "\\n".join(LINES[(k + j) % 7] for j in range(3))
        more = f", copies: {copies}" if copies != 1 else ""
        rows.append(f'  - {{id: {card_id(i, count)}, title: "第{i}张 Card {i}"{more}, body: "{body}"}}')
    return "\n".join(rows) + "\n"


def write_scale_game(project: Path, count: int) -> str:
    """cards/deck<count>/ under project (which must hold bench's templates, fonts and icons)."""
    return _write_game(project, f"deck{count}", count, count)


def write_copies_game(project: Path, copies: int) -> str:
    """cards/copies<copies>/ under project: COPY_CARDS cards, each printed copies / COPY_CARDS times."""
    if copies % COPY_CARDS:
        raise ValueError(f"copies must be a multiple of {COPY_CARDS}")
    return _write_game(project, f"copies{copies}", COPY_CARDS, copies)


def _write_game(project: Path, game: str, count: int, printed: int) -> str:
    folder = project / "cards" / game
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "game.yaml").write_text(GAME.format(game=game, distinct=count, count=printed), encoding="utf-8")
    (folder / "rules.py").write_text(RULES, encoding="utf-8")
    (folder / "cards.yaml").write_text(cards_yaml(count, f"The {game} cards, written by bench/make_deck.py.",
                                                  printed // count), encoding="utf-8")
    return game


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "cards/deck450/cards.yaml")
    ap.add_argument("--count", type=int, help="write a scale game deck<COUNT> into --project instead")
    ap.add_argument("--copies", type=int, help=f"write a game copies<COPIES> ({COPY_CARDS} cards) into --project instead")
    ap.add_argument("--project", type=Path, help="the project folder for --count or --copies")
    args = ap.parse_args()
    if args.count or args.copies:
        if not args.project:
            ap.error("--count and --copies need --project")
        game = write_scale_game(args.project, args.count) if args.count else write_copies_game(args.project, args.copies)
        print(f"wrote {args.project}/cards/{game}/")
        return
    args.out.write_text(cards_yaml(COUNT, "The deck450 benchmark cards, written by bench/make_deck.py."),
                        encoding="utf-8")
    print(f"wrote {args.out} ({COUNT} cards)")


if __name__ == "__main__":
    main()
