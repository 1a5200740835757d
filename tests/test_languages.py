"""One card set in several languages: a game with `languages: [zh-Hans, en]` builds both
editions, the English one with no Chinese character on paper, the engine's own words from its
gettext catalogues, and every missing or overflowing translation as one `file:line` error."""
from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pikepdf
import pytest
import yaml
from pypdf import PdfReader

from generator.source.i18n import ENGINE_LANGUAGES, catalogue, translator
from generator.source.markup import to_html
from tests.conftest import ROOT, pnp, seed_store
from tests.test_gallery import _serve

GAME = "night-market"
CJK = re.compile(r"[\u2e80-\u9fff\u3000-\u303f\uf900-\ufaff\uff00-\uffef]")
CATALOGUE = f"cards/{GAME}/i18n/en.yaml"


def bilingual_project(target: Path) -> Path:
    """The documentation game, with the bilingual fixture's files laid over it."""
    shutil.copytree(ROOT / "tests/fixtures/docs-game", target)
    shutil.copytree(ROOT / "tests/fixtures/bilingual", target, dirs_exist_ok=True)
    for shared in ("fonts", "icons"):
        (target / shared).symlink_to(ROOT / shared)
    return target


@pytest.fixture(scope="module")
def both(tmp_path_factory) -> Path:
    project = bilingual_project(tmp_path_factory.mktemp("bilingual") / "project")
    result = pnp(project, "build", GAME, "--players", "3", "--paper", "a4")
    assert result.exit_code == 0, result.output
    return project


@pytest.fixture
def seeded(tmp_path, both) -> Path:
    """A bilingual project whose store starts with what `both` drew in both languages (seed_store:
    packs made anew), for a test whose passing build or validation only sets the scene or follows an
    edit that is drawn anew (a catalogue entry, page 1, a board)."""
    project = bilingual_project(tmp_path / "p")
    seed_store(project, [SimpleNamespace(project=both)])
    return project


def _text(path: Path) -> list[str]:
    return [page.extract_text() for page in PdfReader(str(path)).pages]


def _edit(project: Path, name: str, old: str, new: str) -> None:
    path = project / name
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_every_language_is_built_and_named_by_its_language(both):
    folder = both / "build" / GAME
    names = sorted(p.name for p in folder.glob("*.pdf"))
    assert names == [f"{GAME}-3p-a4-en.pdf", f"{GAME}-3p-a4-zh-Hans.pdf"]
    manifest = json.loads((folder / f"{GAME}-3p-a4-en.json").read_text(encoding="utf-8"))
    assert manifest["file"] == f"{GAME}-3p-a4-en.pdf" and manifest["title"] == "Night Market Stallholders"
    assert {c["name"] for c in manifest["components"]} == {
        "Goods cards", "Stall cards", "Rules summary", "Market score board", "Coin", "First player marker"}


def test_the_english_pack_prints_no_chinese_character(both):
    pages = _text(both / "build" / GAME / f"{GAME}-3p-a4-en.pdf")
    for number, text in enumerate(pages, 1):
        assert not CJK.findall(text), f"page {number}: {CJK.findall(text)}"
    first = pages[0]
    total = len(pages)                       # page 1 counts the pack's own pages, in the edition's words
    assert "3 players" in first and f"{total} pages" in first and "Print settings" in first and "Cutting" in first
    assert "pages 2–" in first and "flip on the long edge" in first and "100 %" in first
    everything = "\n".join(pages)
    assert "Spinning lantern" in everything and "Market score board · 3 players" in everything
    assert "Stall 3" in everything and "Toy" in everything and "Red lamp's stall" in everything
    pdf = pikepdf.open(both / "build" / GAME / f"{GAME}-3p-a4-en.pdf")
    with pdf.open_outline() as outline:
        titles = [item.title for item in outline.root]
    assert titles[0] == "Contents and printing" and "Goods cards ×16" in titles
    assert str(pdf.docinfo["/Title"]) == "Night Market Stallholders · 3 players · A4"


def test_the_chinese_pack_keeps_its_words(both):
    path = both / "build" / GAME / f"{GAME}-3p-a4-zh-Hans.pdf"
    pages = _text(path)
    first = pages[0]
    assert "内容" in first and "打印设置" in first and f"共 {len(pages)} 页" in first and "裁切" in first
    assert "Print settings" not in first
    pdf = pikepdf.open(path)
    with pdf.open_outline() as outline:
        assert [item.title for item in outline.root][0] == "内容与打印说明"
    assert str(pdf.docinfo["/Title"]) == "夜市摊主 · 3 人 · A4"


def test_latin_extended_a_text_builds(both):
    text = "\n".join(_text(both / "build" / GAME / f"{GAME}-3p-a4-en.pdf"))
    assert "Green hills of Łódź" in text


def test_every_card_has_its_translation(both):
    from generator.source.load import load_game
    from generator.source.project import Project
    source, english = (load_game(Project.at(both), GAME, lang) for lang in (None, "en"))
    assert english.language == "en" and english.spec.language == "en" and source.language == "zh-Hans"
    for deck_id, deck in source.decks.items():
        texts = [n for n, f in deck.spec.fields.items() if f.type in ("text", "rich")]
        for card, translated in zip(deck.cards, english.decks[deck_id].cards):
            assert (card.id, card.copies) == (translated.id, translated.copies)
            for name in texts:
                if card.fields.get(name):
                    assert translated.fields[name] != card.fields[name] and not CJK.search(translated.fields[name])
            numbers = {n: v for n, v in card.fields.items() if n not in texts}
            assert numbers == {n: translated.fields[n] for n in numbers}     # numbers and ids are shared


def test_the_edition_sets_the_html_language(both):
    from generator.render.cards import CardRenderer
    from generator.source.assets import Assets
    from generator.source.load import load_game
    from generator.source.project import Project
    project = Project.at(both)
    game = load_game(project, GAME, "en")
    game.derived = game.rules.derive(game)
    renderer = CardRenderer(project, Assets(project).edition("en"), game)
    deck = game.decks["goods"]
    face = renderer.face(deck, deck.cards[0], "face")
    page = renderer._document([face], face.page_size, renderer.stylesheets(deck), 1.0)
    assert page.startswith('<!DOCTYPE html><html lang="en">')
    assert "font-family: 'Noto Sans', 'Noto Sans SC'" in page    # the Latin font first, CJK as fallback


def test_validate_prints_each_languages_coverage(both):
    result = pnp(both, "validate", GAME)
    assert result.exit_code == 0, result.output
    assert f"{GAME}: en: 14/14 card texts, 32/32 strings" in result.output
    assert f"{GAME} (zh-Hans): valid (1 note; --verbose lists them)" in result.output and f"{GAME} (en): valid (0 notes)" in result.output


def test_a_missing_card_translation_names_card_field_and_language(tmp_path):
    project = bilingual_project(tmp_path / "p")
    _edit(project, CATALOGUE, 'lantern: {name: Spinning lantern, effect: "**Call out**: turn over 1 more card."}',
          "lantern: {name: Spinning lantern}")
    result = pnp(project, "validate", GAME, "--lang", "en")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"cards/{GAME}/goods.yaml:15: card 'goods/lantern': effect: no en translation (hint: add it to {CATALOGUE})"]


def test_a_missing_template_or_piece_string_is_located(tmp_path):
    project = bilingual_project(tmp_path / "p")
    _edit(project, CATALOGUE, "  文: cash\n", "")
    _edit(project, CATALOGUE, "  先手: First\n", "")
    result = pnp(project, "validate", GAME, "--lang", "en")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"cards/{GAME}/pieces.yaml:53: piece 'first-marker' '先手': no en translation (hint: add it to {CATALOGUE})",
        f"templates/{GAME}/goods.html:4: _('文'): no en translation under text: (hint: add it to {CATALOGUE})"]


def test_a_missing_enum_value_is_located_at_its_template_line(tmp_path):
    project = bilingual_project(tmp_path / "p")
    _edit(project, CATALOGUE, "  玩物: Toy\n", "")
    result = pnp(project, "validate", GAME, "--lang", "en")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"templates/{GAME}/goods.html:7: goods/lantern (face): template failed: no en translation of '玩物' "
        f"under text: in {CATALOGUE}"]


def test_a_translation_must_keep_the_placeholders(tmp_path):
    project = bilingual_project(tmp_path / "p")
    _edit(project, CATALOGUE, '"Price +{price}, halved (rounded down)."', '"Price plus half (rounded down)."')
    result = pnp(project, "validate", GAME, "--lang", "en")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"{CATALOGUE}:12: card 'goods/gift': effect: the en text must keep {{price}} as the source has them "
        "(hint: translate only the words)"]


def test_an_overflowing_translation_fails_naming_card_and_language(seeded):
    project = seeded                    # (the other faces from the store: the edited one is drawn anew)
    long = " ".join(["Turn over one more card from the market stack and read it aloud to everyone."] * 6)
    _edit(project, CATALOGUE, '"**Call out**: turn over 1 more card."', f'"**Call out**: {long}"')
    result = pnp(project, "build", GAME, "--lang", "en", "--players", "2", "--paper", "a4")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [     # at the catalogue's entry: the text to shorten is there
        f"{CATALOGUE}:11: goods/lantern (face): the en text does not fit its box in "
        f"{GAME}/goods.html even at 76 % size (hint: shorten the text)"]
    assert not list((project / "build" / GAME).glob("*.pdf"))          # nothing half-written


def test_lang_picks_one_edition(tmp_path):
    project = bilingual_project(tmp_path / "p")
    result = pnp(project, "build", GAME, "--lang", "en", "--players", "2", "--paper", "a4")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (project / "build" / GAME).glob("*.pdf")) == [f"{GAME}-2p-a4-en.pdf"]
    assert f"{GAME} (en): rendered 11 faces, 0 from the cache" in result.output
    wrong = pnp(project, "build", GAME, "--lang", "fr")
    assert wrong.exit_code == 2 and f"{GAME} has no fr edition (languages: zh-Hans, en)" in wrong.output


def test_one_language_games_keep_their_names(tmp_path):
    project = tmp_path / "p"
    shutil.copytree(ROOT / "tests/fixtures/docs-game", project)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / shared)
    result = pnp(project, "build", GAME, "--players", "2", "--paper", "a4")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in (project / "build" / GAME).glob("*.pdf")) == [f"{GAME}-2p-a4.pdf"]


def test_keywords_match_whole_words_in_latin_scripts_only(tmp_path):
    project = bilingual_project(tmp_path / "p")
    from generator.source.assets import Assets
    from generator.source.project import Project
    assets = Assets(Project.at(project))
    html = str(to_html("Selling? Sell. Resell, Sell", assets, ["Sell"]))
    assert html.count('<span class="kw">Sell</span>') == 2 and "Selling" in html and "Resell" in html
    chinese = str(to_html("收摊前收摊", assets, ["收摊"]))
    assert chinese.count('<span class="kw">收摊</span>') == 2


def test_each_edition_finds_its_own_font_for_a_character(tmp_path):
    """font_for remembers its answers: an edition (another fallback order) keeps its own, whichever
    is asked first, and a character no font draws is None every time."""
    project = bilingual_project(tmp_path / "p")
    from generator.source.assets import Assets
    from generator.source.project import Project
    for english_first in (True, False):
        assets = Assets(Project.at(project))
        english = assets.edition("en")
        asked = [(english, "A"), (assets, "A")] if english_first else [(assets, "A"), (english, "A")]
        found = {id(a): a.font_for(c) for a, c in asked}
        assert found == {id(assets): "Noto Sans SC", id(english): "Noto Sans"}
        assert [assets.font_for("A"), english.font_for("A"), english.font_for("字")] == \
            ["Noto Sans SC", "Noto Sans", "Noto Sans SC"]
        assert assets.font_for("\U000E0001") is None and assets.font_for("\U000E0001") is None


def test_engine_catalogues_have_correct_plural_forms():
    en, zh = translator("en"), translator("zh-Hans")
    assert [en.ngettext("%(num)d page", "%(num)d pages", n) % {"num": n} for n in (1, 2)] == ["1 page", "2 pages"]
    assert [zh.ngettext("%(num)d page", "%(num)d pages", n) % {"num": n} for n in (1, 2)] == ["共 1 页", "共 2 页"]
    assert (catalogue("en").num_plurals, catalogue("en").plural_expr) == (2, "(n != 1)")
    assert (catalogue("zh-Hans").num_plurals, catalogue("zh-Hans").plural_expr) == (1, "0")
    assert translator("zh-CN").gettext("Contents") == "内容" and translator("fr").gettext("Contents") == "Contents"


def test_every_engine_message_is_translated_in_both_catalogues():
    sys.path.insert(0, str(ROOT / "tools"))
    from messages import extract
    used = {m.id for m in extract() if m.id}
    assert len(used) > 60
    for lang in ENGINE_LANGUAGES:
        cat = catalogue(lang)
        forms = cat.num_plurals
        for msgid in used:
            message = cat.get(msgid if isinstance(msgid, str) else msgid[0])
            assert message is not None and message.id == msgid, f"{lang}: {msgid!r} is not in the catalogue"
            strings = message.string if isinstance(message.string, tuple) else (message.string,)
            assert len(strings) == (forms if isinstance(msgid, tuple) else 1) and all(strings), (lang, msgid)
        assert [(m.id, errors) for m, errors in cat.check()] == []     # placeholders agree with the msgids
        assert not [m.id for m in cat if m.id and m.id not in used], f"{lang}: unused messages"


def test_the_gallery_has_every_language(both, browser):
    result = pnp(both, "gallery", GAME, "--players", "3")
    assert result.exit_code == 0, result.output
    english = (both / "build" / GAME / "gallery-en" / "index.html").read_text(encoding="utf-8")
    chinese = (both / "build" / GAME / "gallery-zh-Hans" / "index.html").read_text(encoding="utf-8")
    assert english.startswith('<!DOCTYPE html>\n<html lang="en">') and '<html lang="zh-Hans">' in chinese
    assert "Search by name" in english and "按名称搜索" in chinese
    nav = re.search(r'<nav class="editions">.*?</nav>', english).group()
    assert 'href="../gallery-zh-Hans/index.html"' in nav
    assert not CJK.findall(english.replace(nav, ""))           # only the link to 中文 shows both scripts
    forms = [json.loads(re.search(r"const designs = (\[.*?\]),", page).group(1)) for page in (english, chinese)]
    assert forms == [["%(num)d design", "%(num)d designs"], ["%(num)d 种"]]
    assert "const pluralIndex = n => Number((n != 1));" in english and "Number(0)" in chinese
    manifest = json.loads((both / "build" / GAME / f"{GAME}-3p-a4-en.json").read_text(encoding="utf-8"))
    designs = sum(len(c["cards"]) if c["kind"] == "deck" else 1 for c in manifest["components"])
    copies = sum(c["count"] for c in manifest["components"])
    server = _serve(both)
    page = browser.new_page()
    try:
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/{GAME}/gallery-en/index.html")
        assert page.locator("#shown").text_content() == f"{designs} designs · {copies} copies"
        page.fill("#search", "Coin")
        assert page.locator("#shown").text_content() == "1 design · 18 copies"
        page.click("nav.editions a")
        assert page.locator("#shown").text_content() == f"{designs} 种 · {copies} 张/件"
    finally:
        page.close()
        server.shutdown()


def test_the_calibration_sheet_speaks_english(tmp_path):
    project = bilingual_project(tmp_path / "p")
    result = pnp(project, "calibrate", "--lang", "en")
    assert result.exit_code == 0, result.output
    text = "\n".join(_text(project / "build" / "calibration-a4-long.pdf"))
    assert "Printer calibration · A4 · flip on the long edge" in text and not CJK.findall(text)


def test_new_game_in_either_language(tmp_path):
    english = tmp_path / "en"
    assert pnp(english, "new", "river").exit_code == 0
    game = (english / "cards/river/game.yaml").read_text(encoding="utf-8")
    assert "language: en" in game and not CJK.findall(game)
    chinese = tmp_path / "zh"
    assert pnp(chinese, "new", "river", "--lang", "zh-Hans").exit_code == 0
    assert "language: zh-Hans" in (chinese / "cards/river/game.yaml").read_text(encoding="utf-8")
    valid = pnp(chinese, "validate", "river")
    assert valid.exit_code == 0, valid.output


def test_reprint_in_english_lists_the_changed_card_in_english(seeded):
    project = seeded
    assert pnp(project, "build", GAME, "--players", "2", "--paper", "a4").exit_code == 0
    _edit(project, CATALOGUE, "beer: {name: Rice wine}", "beer: {name: Plum wine}")
    result = pnp(project, "reprint", GAME, "--lang", "en", "--paper", "a4")
    assert result.exit_code == 0, result.output
    assert f"wrote build/{GAME}/{GAME}-reprint-a4-en.pdf (1 changed card," in result.output
    first = _text(project / "build" / GAME / f"{GAME}-reprint-a4-en.pdf")[0]
    assert "Reprint: the cards changed since they were last printed" in first and "Plum wine" in first
    assert "goods/beer" in first and "face" in first and not CJK.findall(first)
    same = pnp(project, "reprint", GAME, "--paper", "a4")               # the Chinese cards did not change
    assert same.exit_code == 0 and f"{GAME}: nothing changed since the cards were last printed" in same.output


def test_words_that_skip_translation_are_caught_on_cards(tmp_path):
    project = bilingual_project(tmp_path / "p")
    _edit(project, f"templates/{GAME}/stall.html", '{{ _("%(name)s的摊位") | format(name=player.name) }}',
          "{{ player.name }}的摊位")
    result = pnp(project, "validate", GAME, "--lang", "en")
    assert result.exit_code == 1
    assert result.output.strip().splitlines() == [
        f"cards/{GAME}/stalls.yaml:11: stalls/stall-red (face): the en edition prints '的摊位' untranslated "
        f"(hint: wrap the words in _() in {GAME}/stall.html and translate them under text: in {CATALOGUE})"]


def test_words_that_skip_translation_are_caught_on_boards(seeded):
    project = seeded
    _edit(project, f"cards/{GAME}/pieces.yaml", "text: 先手}", "text: \"{{ '先手' }}\"}")
    build = ("build", GAME, "--lang", "en", "--players", "2", "--paper", "a4")
    result = pnp(project, *build)
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == (
        f"cards/{GAME}/pieces.yaml:53: piece first-marker: text: the en edition prints '先手' untranslated "
        f"(add it to text: in {CATALOGUE}; inside an expression write _('…'))")
    _edit(project, f"cards/{GAME}/pieces.yaml", "{{ '先手' }}", "{{ _('先手') }}")
    assert pnp(project, *build).exit_code == 0


def test_derived_values_reach_an_edition_translated_with_the_same_numbers(both):
    from generator.source.edition import localise
    from generator.source.load import load_game
    from generator.source.project import Project
    source, english = (load_game(Project.at(both), GAME, lang) for lang in (None, "en"))
    derived = {"first": source.decks["goods"].cards[0], "kinds": ["玩物", "吃食"], "n": 3,
               "by_kind": {"玩物": 2}, "hour": source.tables["hours"][0]}
    local = localise(derived, english)
    assert local["first"].fields["name"] == "Spinning lantern" and local["hour"].fields["name"] == "Dusk"
    assert local["kinds"] == ["Toy", "Food"] and local["n"] == 3 and local["by_kind"] == {"玩物": 2}
    assert localise(derived, source) is derived


def test_tiled_board_notes_speak_the_editions_language(seeded):
    project = seeded
    _edit(project, f"cards/{GAME}/pieces.yaml", "size: {width: 190, height: 120}", "size: {width: 380, height: 240}")
    result = pnp(project, "build", GAME, "--lang", "en", "--players", "2", "--paper", "a4")
    assert result.exit_code == 0, result.output
    path = project / "build" / GAME / f"{GAME}-2p-a4-en.pdf"
    manifest = json.loads(path.with_suffix(".json").read_text(encoding="utf-8"))
    tiles = [e["number"] for e in manifest["pages"] if e["role"] == "board-tile"]
    assert len(tiles) > 1
    pages = _text(path)
    for n, number in enumerate(tiles, 1):
        text = pages[number - 1].replace("\n", " ")
        assert f"Market score board (380 × 240 mm) · tile {n} / {len(tiles)}" in text, text
        assert "neighbouring tiles overlap by 10 mm: align the red" in text and not CJK.findall(text)


def test_a_template_s_literals_are_extracted_once_for_its_content(tmp_path, monkeypatch):
    """A build of an edition asks for its templates' `_()` literals three times (the warning of
    translations to review, validation, and the review notes it counts): each template is read by
    Babel's extractor once for its content; a template changed since is read again."""
    from generator.check import translations
    from generator.source.load import load_game
    from generator.source.project import Project
    from tests.conftest import make_project
    project = Project.at(make_project(tmp_path / "p", ["reverse-wizard"]))
    game = load_game(project, "reverse-wizard", "en")
    extracted = []
    real = translations.babel_extract

    def extract(handle, *args):
        extracted.append(handle.read())
        handle.seek(0)
        return real(handle, *args)
    monkeypatch.setattr(translations, "babel_extract", extract)
    translations._literals.cache_clear()
    templates = [path for path, _ in translations.game_templates(project, game)]
    strings = translations.template_strings(project, game)
    translations.review_notes(project, game)
    translations.translation_checks(project, game)
    assert len(templates) >= 2 and len(extracted) == len(templates) and strings
    templates[0].write_text(templates[0].read_text(encoding="utf-8") + '{{ _("Once more, anew") }}\n',
                            encoding="utf-8")
    assert "Once more, anew" in translations.template_strings(project, game)
    assert len(extracted) == len(templates) + 1 and b"Once more, anew" in extracted[-1]


def test_a_character_no_font_draws_in_a_translation_is_said_at_its_catalogue_entry(tmp_path):
    """In the catalogue, which holds every deck, the card is named with its deck (as the catalogue's
    own checks name it); in a table's file, a row is named as a row (as the loader names it)."""
    project = bilingual_project(tmp_path / "p")
    _edit(project, CATALOGUE, "name: Spinning lantern,", "name: Spinning 𓀀 lantern,")
    result = pnp(project, "validate", GAME, "--lang", "en")
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if "no bundled font" in line] == [
        f"{CATALOGUE}:11: card 'goods/lantern': name: character '𓀀' (U+13000 EGYPTIAN HIEROGLYPH A001) is in no bundled "
        "font and has no icon (hint: replace it, or run ./pnp assets add 𓀀 to add it to the fonts)"]
    _edit(project, CATALOGUE, "name: Spinning 𓀀 lantern,", "name: Spinning lantern,")
    _edit(project, f"cards/{GAME}/hours.yaml", "name: 黄昏,", "name: 黄昏𓀀,")
    result = pnp(project, "validate", GAME, "--lang", "zh-Hans")
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if "no bundled font" in line] == [
        f"cards/{GAME}/hours.yaml:9: row 'dusk': name: character '𓀀' (U+13000 EGYPTIAN HIEROGLYPH A001) is in no "
        "bundled font and has no icon (hint: replace it, or run ./pnp assets add 𓀀 to add it to the fonts)"]


def test_page_ones_game_text_is_translated_like_a_templates(seeded):
    """A game's own page 1 (templates/<game>/info.html) prints game_text("…") in the game's words:
    translate lists each, validate counts them and names the one missing at its line; its _() is the
    engine's words, not the game's."""
    project = seeded
    (project / f"templates/{GAME}/info.html").write_text(
        '<h2>{{ game_text("欢迎来到夜市") }}</h2>\n<p>{{ _("Contents") }} {{ game_text("按图摆放。") }}</p>\n',
        encoding="utf-8")
    result = pnp(project, "validate", GAME, "--lang", "en")
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if "info.html" in line] == [
        f"templates/{GAME}/info.html:1: game_text('欢迎来到夜市'): no en translation under text: (hint: add it to {CATALOGUE})",
        f"templates/{GAME}/info.html:2: game_text('按图摆放。'): no en translation under text: (hint: add it to {CATALOGUE})"]
    assert pnp(project, "translate", GAME, "--lang", "en").exit_code == 0
    catalogue = yaml.safe_load((project / CATALOGUE).read_text(encoding="utf-8"))
    assert {"欢迎来到夜市", "按图摆放。"} <= set(catalogue["text"]) and "Contents" not in catalogue["text"]
    _edit(project, CATALOGUE, "  欢迎来到夜市:\n", "  欢迎来到夜市: Welcome to the night market\n")
    _edit(project, CATALOGUE, "  按图摆放。:\n", "  按图摆放。: Set up as shown.\n")
    assert pnp(project, "build", GAME, "--lang", "en", "--players", "2", "--paper", "a4").exit_code == 0
    from tests.pdfcheck import document_text
    assert "Welcome to the night market" in document_text(project / f"build/{GAME}/{GAME}-2p-a4-en.pdf")


@pytest.mark.parametrize("old, new, message", [
    ('"**Call out**: turn over 1 more card."', '"**Call out**: ' + " ".join(["Turn over one more card from the market "
     "stack and read it aloud to everyone."] * 6) + '"', f"{CATALOGUE}:11: goods/lantern (face): the en text does not fit"),
    ("name: Spinning lantern,", "name: ,", f"cards/{GAME}/goods.yaml:15: card 'goods/lantern': name: no en translation"),
])
def test_a_fault_in_one_edition_writes_no_edition(seeded, old, new, message):
    """Every edition is checked and made before any is written: the English edition's fault (found as
    its faces are drawn, or as its catalogue is read) leaves the Chinese one unwritten too."""
    project = seeded                    # (faces from the store, packs made anew: the edited face is drawn anew)
    _edit(project, CATALOGUE, old, new)
    result = pnp(project, "build", GAME, "--players", "2", "--paper", "a4", every_language=True)
    assert result.exit_code == 1
    assert [line for line in result.output.splitlines() if line.startswith("cards/")][0].startswith(message), result.output
    assert "wrote" not in result.output and not (project / "build" / GAME).exists() or \
        not list((project / "build" / GAME).glob("*.pdf"))


def test_the_rules_source_page_1_credits_needs_its_translation(tmp_path):
    """game.yaml's `source:` is printed on page 1 like the description: an edition without its
    translation is refused at its line (it printed the title in its place)."""
    project = bilingual_project(tmp_path / "p")
    _edit(project, CATALOGUE, '  "测试用规则，2026-11": "Test rules, 2026-11"', '  "测试用规则，2026-11":')
    result = pnp(project, "validate", GAME, "--lang", "en")
    assert result.exit_code == 1
    game_yaml = (project / f"cards/{GAME}/game.yaml").read_text(encoding="utf-8").splitlines()
    line = next(i for i, text in enumerate(game_yaml, 1) if text.startswith("source:"))
    assert f"cards/{GAME}/game.yaml:{line}: source '测试用规则，2026-11': no en translation" in result.output, result.output


def test_a_template_strings_translation_must_keep_its_placeholders(seeded):
    """A `text:` translation of a template's string keeps its {placeholders}, as a card text's must: the
    number would silently drop out of print."""
    project = seeded
    (project / f"templates/{GAME}/info.html").write_text(
        '<p>{{ game_text("本包适合 {n} 人") | replace("{n}", pack.players | string) }}</p>\n', encoding="utf-8")
    _edit(project, CATALOGUE, "  文: cash\n", "  文: cash\n  本包适合 {n} 人: For some players\n")
    line = (project / CATALOGUE).read_text(encoding="utf-8").splitlines().index("  本包适合 {n} 人: For some players") + 1
    result = pnp(project, "validate", GAME, "--lang", "en")
    assert result.exit_code == 1
    assert [l for l in result.output.splitlines() if "must keep" in l] == [
        f"{CATALOGUE}:{line}: game_text('本包适合 {{n}} 人'): the en text must keep {{n}} as the source has them "
        "(hint: translate only the words)"]
    _edit(project, CATALOGUE, "For some players", "For {n} players")
    assert pnp(project, "validate", GAME, "--lang", "en").exit_code == 0


def test_a_supply_translated_with_both_scripts_prints_as_translated(seeded):
    """Page 1's supplies are the edition's (translated once, with the data): a translation that keeps
    the source's words beside its own, as the docs allow, prints as written."""
    project = seeded
    _edit(project, f"cards/{GAME}/game.yaml", "packs:\n", "supplies: [一支铅笔]\npacks:\n")
    _edit(project, CATALOGUE, "  文: cash\n", "  文: cash\n  一支铅笔: a pencil (铅笔)\n")
    result = pnp(project, "build", GAME, "--lang", "en", "--players", "2", "--paper", "a4")
    assert result.exit_code == 0, result.output
    from tests.pdfcheck import document_text
    assert "a pencil (铅笔)" in document_text(project / f"build/{GAME}/{GAME}-2p-a4-en.pdf")
