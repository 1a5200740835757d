"""What every pack of every shipped game must satisfy, read back from the PDF itself:
paper size, card trims with their bleed, backs at the long-edge mirror of their fronts,
crop marks on every cut and never on a card, every font embedded with every glyph."""
from __future__ import annotations


import pytest

from generator.check.pdfread import fonts
from tests.conftest import GAMES, ROOT, built
from tests.pdfcheck import PAPER_PT, card_pages, intersects


def packs():
    from generator.source.load import load_game
    from generator.source.project import Project
    for game in GAMES:
        for pack in load_game(Project.at(ROOT), game).packs:
            for paper in ("a4", "letter"):
                yield game, pack.id or pack.players, paper


PACKS = list(packs())


_opened = {}          # (game, pack, paper) -> the pack as the tests read it: opened once, read by each test
_walked = {}          # (id of an opened PDF, page number) -> what card_pages read on that page


@pytest.fixture
def pack(request, tmp_path_factory):
    if request.param not in _opened:
        game, players, paper = request.param
        build = built(tmp_path_factory, game)
        _opened[request.param] = build, build.pdf(players, paper), build.manifest(players, paper), paper
    return _opened[request.param]


def _card_pages(pdf, manifest, roles=("cards-front", "cards-back", "cards")):
    """card_pages, each page read from the PDF once for all the tests of its pack (they only read it)."""
    for entry in manifest["pages"]:
        if entry["role"] in roles:
            key = (id(pdf), entry["number"])
            if key not in _walked:
                _walked[key] = next(card_pages(pdf, {"pages": [entry]}, roles))[1:]
            yield entry, *_walked[key]


@pytest.mark.parametrize("pack", PACKS, indirect=True, ids=[f"{g}-{n}-{p}" for g, n, p in PACKS])
class TestEveryPack:
    def test_pages_are_the_paper(self, pack):
        _, pdf, manifest, paper = pack
        w, h = PAPER_PT[paper]
        assert len(pdf.pages) == len(manifest["pages"])
        for page in pdf.pages:
            x0, y0, x1, y1 = (float(v) for v in page.mediabox)
            assert sorted([round(x1 - x0, 1), round(y1 - y0, 1)]) == sorted([round(w, 1), round(h, 1)])

    def test_cards_keep_trim_and_bleed(self, pack):
        build, pdf, manifest, _ = pack
        for entry, placed, _ in _card_pages(pdf, manifest):
            assert len(placed) == len(entry["slots"])
            for slot, item in zip(entry["slots"], placed):
                deck = _deck(build, slot["component"])
                w, h = deck["trim"]
                tx, ty, tw, th = slot["trim"]
                assert abs(tw - w) < 0.01 and abs(th - h) < 0.01
                assert abs(item.rect.w - (w + 2 * deck["bleed"])) < 0.01
                assert abs(item.rect.x + deck["bleed"] - tx) < 0.01 and abs(item.rect.y + deck["bleed"] - ty) < 0.01

    def test_backs_mirror_their_fronts(self, pack):
        _, pdf, manifest, paper = pack
        width = PAPER_PT[paper][0] * 25.4 / 72
        pages = {e["number"]: (e, p) for e, p, _ in _card_pages(pdf, manifest)}
        for number, (front, front_placed) in pages.items():
            if front["role"] != "cards-front":
                continue
            back, back_placed = pages[number + 1]
            assert back["role"] == "cards-back"
            assert [s["card"] for s in back["slots"]] == [s["card"] for s in front["slots"]]
            for f, b in zip(front_placed, back_placed):
                assert abs(b.rect.x - (width - f.rect.x - f.rect.w)) < 0.01 and abs(b.rect.y - f.rect.y) < 0.01

    def test_crop_marks(self, pack):
        _, pdf, manifest, _ = pack
        for entry, placed, segments in _card_pages(pdf, manifest, roles=("cards-front", "cards")):
            vertical = {round(s.x1, 2) for s in segments if abs(s.x1 - s.x2) < 1e-6}
            horizontal = {round(s.y1, 2) for s in segments if abs(s.y1 - s.y2) < 1e-6}
            for slot in entry["slots"]:
                x, y, w, h = slot["trim"]
                assert {round(x, 2), round(x + w, 2)} <= vertical and {round(y, 2), round(y + h, 2)} <= horizontal
            for seg in segments:
                assert not any(intersects(seg, item.clip) for item in placed), (entry["number"], seg)

    def test_fonts_embedded_and_glyphs_exist(self, pack):
        _, pdf, _, _ = pack
        used = [u for u in fonts(pdf).values() if u.used]
        assert used and all(u.embedded for u in used)
        assert [(u.name, u.missing[:3]) for u in used if u.missing] == []


_decks = {}


def _deck(build, deck_id):
    """Trim and bleed of a deck, from the game's own data (not from the output)."""
    if build.game not in _decks:            # the game loaded once: every deck's trim and bleed
        from generator.source.load import load_game
        from generator.source.project import Project
        game = load_game(Project.at(build.project), build.game)
        _decks[build.game] = {key: {"trim": deck.trim, "bleed": deck.bleed} for key, deck in game.decks.items()}
    return _decks[build.game][deck_id]


def test_the_manifest_lists_each_page_and_each_card_of_a_deck_on_a_line_of_its_own():
    import json

    from generator.sheets.pack import manifest_json
    manifest = {"game": "g", "print": {"duplex": "long", "back_offset_mm": [0.0, 0.0]}, "empty": [],
                "components": [{"id": "d", "kind": "deck", "cards": [{"id": "d/a", "copies": 2},
                                                                        {"id": "d/b", "copies": 1}]},
                               {"id": "board", "kind": "board"}],
                "pages": [{"number": 1, "role": "info"}, {"number": 2, "role": "cards", "slots": [{"card": "d/a"}]}]}
    text = manifest_json(manifest).decode()
    assert json.loads(text) == manifest
    lines = text.splitlines()
    assert '    {"id":"d/a","copies":2},' in lines and '    {"id":"d/b","copies":1}' in lines
    assert '  {"number":2,"role":"cards","slots":[{"card":"d/a"}]}' in lines
    assert ' "empty": [],' in lines and text.endswith("}\n")
