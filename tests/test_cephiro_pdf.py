"""The built 魔法骑士：塞菲罗支柱 packs, read back from the PDFs themselves."""
from __future__ import annotations

from collections import Counter

import pytest

from generator.pdfread import fonts, walk
from tests.pdfcheck import PAPER_PT, card_pages, intersects, page_text

PACKS = [(p, paper) for p in (2, 3, 4, 5) for paper in ("a4", "letter")]
# seed table 3.3: power = colours × 8, trials 8, oaths 24/30/36/36; plus the two quick-reference cards
SEED_TABLE = {2: {"power": 16, "trials": 8, "oaths": 24, "reference": 2},
              3: {"power": 24, "trials": 8, "oaths": 30, "reference": 2},
              4: {"power": 32, "trials": 8, "oaths": 36, "reference": 2},
              5: {"power": 40, "trials": 8, "oaths": 36, "reference": 2}}
TRIM = {"power": (63, 88), "trials": (63, 88), "oaths": (63, 88), "reference": (95, 126)}
BLEED = 3.0


@pytest.mark.parametrize("players,paper", PACKS)
def test_every_page_is_the_paper_size(cephiro_built, players, paper):
    pdf = cephiro_built.pdf(players, paper)
    w, h = PAPER_PT[paper]
    for page in pdf.pages:
        box = [float(v) for v in page.mediabox]
        assert abs(box[2] - box[0] - w) < 0.02 and abs(box[3] - box[1] - h) < 0.02 or \
            abs(box[2] - box[0] - h) < 0.02 and abs(box[3] - box[1] - w) < 0.02   # landscape map page


@pytest.mark.parametrize("players,paper", PACKS)
def test_card_counts_follow_the_seed_table(cephiro_built, players, paper):
    pdf, manifest = cephiro_built.pdf(players, paper), cephiro_built.manifest(players, paper)
    counted = Counter()
    for entry, placed, _ in card_pages(pdf, manifest, roles=("cards-front", "cards")):
        assert len(placed) == len(entry["slots"])
        counted[entry["component"]] += len(placed)
    assert dict(counted) == SEED_TABLE[players]
    colours = {slot["card"].split("/")[1].split("-")[0] for entry, _, _ in card_pages(pdf, manifest)
               if entry["component"] == "power" for slot in entry["slots"]}
    assert len(colours) == players


@pytest.mark.parametrize("players,paper", [(4, "a4"), (5, "letter")])
def test_cards_have_their_trim_size_and_bleed(cephiro_built, players, paper):
    pdf, manifest = cephiro_built.pdf(players, paper), cephiro_built.manifest(players, paper)
    for entry, placed, _ in card_pages(pdf, manifest):
        w, h = TRIM[entry["component"]]
        for slot, item in zip(entry["slots"], placed):
            # the placed page is trim + bleed on every side; its centre is the slot's trim centre
            assert abs(item.rect.w - (w + 2 * BLEED)) < 0.01 and abs(item.rect.h - (h + 2 * BLEED)) < 0.01
            tx, ty, tw, th = slot["trim"]
            assert (abs(tw - w), abs(th - h)) < (0.01, 0.01)
            assert abs(item.rect.x + BLEED - tx) < 0.01 and abs(item.rect.y + BLEED - ty) < 0.01
            # the clip keeps the bleed the sheet prints: never inside the trim
            assert item.clip.x <= tx + 0.001 and item.clip.x + item.clip.w >= tx + tw - 0.001


@pytest.mark.parametrize("players,paper", PACKS)
def test_backs_are_the_long_edge_mirror_of_their_fronts(cephiro_built, players, paper):
    pdf, manifest = cephiro_built.pdf(players, paper), cephiro_built.manifest(players, paper)
    width_mm = PAPER_PT[paper][0] * 25.4 / 72
    pages = {e["number"]: (e, p) for e, p, _ in card_pages(pdf, manifest)}
    fronts = [n for n, (e, _) in pages.items() if e["role"] == "cards-front"]
    assert fronts
    for number in fronts:
        front, front_placed = pages[number]
        back, back_placed = pages[number + 1]
        assert back["role"] == "cards-back" and back["component"] == front["component"]
        assert [s["card"] for s in back["slots"]] == [s["card"] for s in front["slots"]]
        for f, b in zip(front_placed, back_placed):
            assert abs(b.rect.x - (width_mm - f.rect.x - f.rect.w)) < 0.01
            assert abs(b.rect.y - f.rect.y) < 0.01
            assert abs(b.clip.x - (width_mm - f.clip.x - f.clip.w)) < 0.01


@pytest.mark.parametrize("players,paper", PACKS)
def test_crop_marks_mark_every_cut_and_stay_off_the_cards(cephiro_built, players, paper):
    pdf, manifest = cephiro_built.pdf(players, paper), cephiro_built.manifest(players, paper)
    for entry, placed, segments in card_pages(pdf, manifest, roles=("cards-front", "cards")):
        assert segments, f"page {entry['number']} has no crop marks"
        for seg in segments:
            for item in placed:
                assert not intersects(seg, item.clip), f"page {entry['number']}: mark {seg} enters a card"
        vertical = {round(s.x1, 2) for s in segments if abs(s.x1 - s.x2) < 1e-6}
        horizontal = {round(s.y1, 2) for s in segments if abs(s.y1 - s.y2) < 1e-6}
        for slot in entry["slots"]:
            x, y, w, h = slot["trim"]
            assert {round(x, 2), round(x + w, 2)} <= vertical
            assert {round(y, 2), round(y + h, 2)} <= horizontal


@pytest.mark.parametrize("players,paper", PACKS)
def test_fonts_are_embedded_and_every_glyph_exists(cephiro_built, players, paper):
    used = [u for u in fonts(cephiro_built.pdf(players, paper)).values() if u.used]
    assert used
    for use in used:
        assert use.embedded, use.name
        assert use.missing == [], f"{use.name} draws glyphs it does not have: {use.missing[:5]}"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_boards_and_tokens_per_player_count(cephiro_built, players):
    manifest = cephiro_built.manifest(players, "a4")
    placed = Counter(p["piece"] for e in manifest["pages"] if e["role"] == "board" for p in e["pieces"])
    mana = 3 * players + 2 * {2: 2, 3: 3, 4: 3, 5: 3}[players]   # 3 each + 2 per 元素涌流 copy
    assert placed == {"record-board": players, "pawn": players, "stability-bar": 1, "trial-map": 1,
                      "stability-marker": 1, "mana-token": mana}
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
    number = next(e["number"] for e in manifest["pages"] if e.get("component") == "trials")
    text = page_text(cephiro_built.folder / manifest["file"], number)
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
    assert runs["duplex"][0] == 2 and runs["duplex"][1] + 1 == runs["card"][0]
    assert runs["paper"][1] == len(pdf.pages)


def test_single_board_pages_carry_trim_boxes(cephiro_built):
    pdf, manifest = cephiro_built.pdf(4, "a4"), cephiro_built.manifest(4, "a4")
    entry = next(e for e in manifest["pages"] if e.get("components") == ["trial-map"])
    page = pdf.pages[entry["number"] - 1]
    assert "/TrimBox" in page.obj and "/BleedBox" in page.obj
    x0, y0, x1, y1 = (float(v) for v in page.obj.TrimBox)
    assert abs((x1 - x0) * 25.4 / 72 - 265) < 0.01 and abs((y1 - y0) * 25.4 / 72 - 185) < 0.01
