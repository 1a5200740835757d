"""Write cards/deck450/cards.yaml: the peer benchmark's 450 cards (../shared/bench/README.md).

Card i (1..450) is titled `第{i}张 Card {i}`; card index k = i - 1 has as body lines
k, k+1, k+2 (mod 7) of LINES. The output is committed; rerun this only to change it.
"""
import argparse
from pathlib import Path

LINES = ["春眠不觉晓处处闻啼鸟夜来风雨声", "花落知多少床前明月光疑是地上霜", "举头望明月低头思故乡白日依山尽",
         "黄河入海流欲穷千里目更上一层楼", "千山鸟飞绝万径人踪灭孤舟蓑笠翁", "独钓寒江雪红豆生南国春来发几枝",
         "愿君多采撷此物最相思松下问童子"]
COUNT = 450


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path(__file__).parent / "cards/deck450/cards.yaml")
    out = ap.parse_args().out
    rows = ["# yaml-language-server: $schema=../../../schemas/deck.schema.json",
            "# The deck450 benchmark cards, written by bench/make_deck.py.",
            "deck:", "  id: cards", "  name: 基准牌", "  face: deck450/card.html",
            "  fields:", "    title: {type: text}", "    body: {type: rich}", "cards:"]
    for k in range(COUNT):
        i = k + 1
        body = "\\n".join(LINES[(k + j) % 7] for j in range(3))
        rows.append(f'  - {{id: c{i:03d}, title: "第{i}张 Card {i}", body: "{body}"}}')
    out.write_text("\n".join(rows) + "\n", encoding="utf-8")
    print(f"wrote {out} ({COUNT} cards)")


if __name__ == "__main__":
    main()
