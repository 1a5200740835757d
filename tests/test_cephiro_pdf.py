"""The built 魔法骑士：塞菲罗支柱 packs, read back from the PDFs themselves."""
from __future__ import annotations

from collections import Counter

import pytest

from tests.pdfcheck import card_pages, page_text

PACKS = [(p, paper) for p in (2, 3, 4, 5) for paper in ("a4", "letter")]
# seed table 3.3: power = colours × 8, trials 8, oaths 24/30/36/36; plus the two quick-reference cards
SEED_TABLE = {2: {"power": 16, "trials": 8, "oaths": 24, "reference": 2},
              3: {"power": 24, "trials": 8, "oaths": 30, "reference": 2},
              4: {"power": 32, "trials": 8, "oaths": 36, "reference": 2},
              5: {"power": 40, "trials": 8, "oaths": 36, "reference": 2}}


@pytest.mark.parametrize("players,paper", PACKS)
def test_card_counts_follow_the_seed_table(cephiro_built, players, paper):
    pdf, manifest = cephiro_built.pdf(players, paper), cephiro_built.manifest(players, paper)
    counted = Counter()
    for entry, placed, _ in card_pages(pdf, manifest, roles=("cards-front", "cards")):
        assert len(placed) == len(entry["slots"])
        counted.update(slot["component"] for slot in entry["slots"])
    assert dict(counted) == SEED_TABLE[players]
    colours = {slot["card"].split("/")[1].split("-")[0] for entry, _, _ in card_pages(pdf, manifest)
               for slot in entry["slots"] if slot["component"] == "power"}
    assert len(colours) == players


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_boards_and_tokens_per_player_count(cephiro_built, players):
    manifest = cephiro_built.manifest(players, "a4")
    placed = Counter(p["piece"] for e in manifest["pages"] if e["role"] == "board" for p in e["pieces"])
    mana = 3 * players + 2 * {2: 2, 3: 3, 4: 3, 5: 3}[players]   # 3 each + 2 per 元素涌流 copy
    assert placed == {"record-board": players, "pawn": players, "stability-bar": 1, "trial-map": 1,
                      "stability-marker": 1, "mana-token": mana, "track-marker": 3 * players, "host-marker": 1}
    boards = [e["number"] for e in manifest["pages"] if "record-board" in e.get("components", [])]
    text = "".join(page_text(cephiro_built.folder / manifest["file"], n) for n in boards)
    assert text.count("骑士记录板") == players


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_trial_map_prints_threat_for_the_packs_player_count(cephiro_built, players):
    manifest = cephiro_built.manifest(players, "letter")
    number = next(e["number"] for e in manifest["pages"] if "trial-map" in e.get("components", []))
    text = page_text(cephiro_built.folder / manifest["file"], number).replace(" ", "")
    assert f"{players}人局" in text
    for multiplier in (3, 4, 5, 6):
        assert f"威胁T={players * multiplier}" in text


def test_trial_cards_show_threat_for_every_player_count(cephiro_built):
    manifest = cephiro_built.manifest(4, "a4")
    numbers = [e["number"] for e in manifest["pages"] if "trials" in e.get("components", [])
               and e["role"] == "cards-front"]
    text = "".join(page_text(cephiro_built.folder / manifest["file"], n) for n in numbers)
    # ⑧ 艾梅洛德之塔: ×6 → 12 18 24 30
    assert "艾梅洛德之塔" in text and all(str(t) in text for t in (12, 18, 24, 30))


def test_info_page_bookmarks_and_runs(cephiro_built):
    pdf, manifest = cephiro_built.pdf(3, "a4"), cephiro_built.manifest(3, "a4")
    text = page_text(cephiro_built.folder / manifest["file"], 1)
    for name, count in [("战力卡「心愿之刃」", 24), ("誓约卡", 30), ("骑士记录板", 3)]:
        assert name in text and str(count) in text
    assert "100 %" in text and "长边" in text
    with pdf.open_outline() as outline:
        titles = [item.title for item in outline.root]
    assert titles[0] == "内容与打印说明"
    assert {"战力卡「心愿之刃」 ×24", "试炼卡「幻惑」 ×8", "誓约卡 ×30", "骑士记录板 ×3"} <= set(titles)
    runs = {r["run"]: r["pages"] for r in manifest["runs"]}
    info = sum(1 for e in manifest["pages"] if e["role"] == "info")
    assert runs["rules"][0] == info + 1                          # the rulebook right after page 1
    assert runs["duplex"][0] == runs["rules"][1] + 1 and runs["duplex"][1] + 1 == runs["card"][0]
    assert runs["paper"][1] == len(pdf.pages)


def test_single_board_pages_carry_trim_boxes(cephiro_built):
    pdf, manifest = cephiro_built.pdf(4, "a4"), cephiro_built.manifest(4, "a4")
    entry = next(e for e in manifest["pages"] if e.get("components") == ["trial-map"])
    page = pdf.pages[entry["number"] - 1]
    assert "/TrimBox" in page.obj and "/BleedBox" in page.obj
    x0, y0, x1, y1 = (float(v) for v in page.obj.TrimBox)
    assert abs((x1 - x0) * 25.4 / 72 - 265) < 0.01 and abs((y1 - y0) * 25.4 / 72 - 185) < 0.01
