"""`pnp site` read back in a real browser (Debian's chromium through Playwright, as the gallery's
test): the shelf and every printables page of the three games and a scaffold game. The shipped
games' build/<game>/ folders are built in their own projects and copied into one build/, the way a
CI matrix's shards assemble, so the site is shown to need nothing but the copied outputs.

Every link resolves to a file that exists, every picture loads, the language switch keeps the
game, the shelf's filter works (and the shelf lists every game without JavaScript), the pack
table says what the manifests say, and axe-core (tests/vendor/axe.min.js, run offline) finds
nothing of serious or critical impact, light and dark, desktop and phone."""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from generator.export.site import page_ranges, unicode_range
from tests.conftest import built, gallery_made, GAMES, make_project, pnp

AXE = Path(__file__).resolve().parent / "vendor" / "axe.min.js"
SCAFFOLD = "demo"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    project = make_project(tmp_path_factory.mktemp("site"), [])
    for game in GAMES:               # built elsewhere, copied in: a shard's output
        kit = built(tmp_path_factory, game)
        gallery_made(kit)                # (test_gallery reads the same gallery)
        if game == "seven-nights":       # the smallest: its exports stand for every game's, its English
            # edition's for every language's (one template lists an edition's exports; the pack table's test
            # reads the English page's)
            result = pnp(kit.project, "export", game, "--tts", "--shop", "tgc", "--lang", "en")
            assert result.exit_code == 0, result.output
        shutil.copytree(kit.project / "cards" / game, project / "cards" / game)
        shutil.copytree(kit.folder, project / "build" / game)
    assert pnp(project, "new", SCAFFOLD).exit_code == 0
    result = pnp(project, "build", SCAFFOLD, "--paper", "a4")
    assert result.exit_code == 0, result.output
    result = pnp(project, "site")
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "wrote build/site/index.html (4 games, 7 printables pages; open it in a browser)"
    return project


def _pages(site: Path) -> list[Path]:
    return sorted(p for p in (site / "build" / "site").rglob("*.html") if "gallery" not in p.parent.name)


def _open(browser, path: Path, **options):
    page = browser.new_page(**options)
    errors = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(path.as_uri())
    page.wait_for_load_state("networkidle")
    return page, errors


def test_every_link_resolves_and_every_picture_loads(site, browser):
    pages = _pages(site)
    assert len(pages) == 2 + 3 * 2 + 1          # the shelf in two languages, 3 games × 2 languages, the scaffold
    for path in pages:
        page, errors = _open(browser, path)
        try:
            links = page.eval_on_selector_all("a[href]", "links => links.map(a => a.href)")
            assert links, path
            for link in links:
                parts = urlsplit(link)
                assert parts.scheme == "file", f"{path}: {link} leaves the folder"
                target = Path(unquote(parts.path))
                assert target.is_file(), f"{path}: {link} names no file"
                assert target.resolve().is_relative_to((site / "build" / "site").resolve()), link
            broken = page.evaluate("""async () => {
                const images = Array.from(document.images);
                images.forEach(i => { i.loading = "eager"; });
                await Promise.all(images.map(i => i.decode().catch(() => null)));
                return images.filter(i => !i.complete || i.naturalWidth === 0).map(i => i.src);
            }""")
            assert broken == [], path
            assert errors == [], path
        finally:
            page.close()


def test_the_language_switch_keeps_the_game(site, browser):
    for game in GAMES:
        titles = {}
        for lang in ("zh-Hans", "en"):
            manifest = next((site / "build" / game).glob(f"{game}-*p-a4-{lang}.json"))
            titles[lang] = json.loads(manifest.read_text(encoding="utf-8"))["title"]
        page, _ = _open(browser, site / "build" / "site" / game / "zh-Hans.html")
        try:
            assert page.locator("h1").text_content() == titles["zh-Hans"]
            page.click("nav.languages a[hreflang=en]")
            page.wait_for_load_state("networkidle")
            assert page.url.endswith(f"/site/{game}/en.html")
            assert page.locator("h1").text_content() == titles["en"]
            assert page.locator("html").get_attribute("lang") == "en"
            page.click("nav.languages a[hreflang=zh-Hans]")
            assert page.url.endswith(f"/site/{game}/zh-Hans.html")
        finally:
            page.close()


def _players(site: Path, game: str) -> set[int]:
    return {json.loads(p.read_text(encoding="utf-8"))["players"] for p in (site / "build" / game).glob("*p-a4*.json")}


def test_the_shelf_filters_by_players_and_language(site, browser):
    every = GAMES + [SCAFFOLD]
    page, errors = _open(browser, site / "build" / "site" / "index.html")
    try:
        shown = lambda: sorted(page.eval_on_selector_all("ul.shelf li:not([hidden])", "l => l.map(e => e.dataset.game)"))
        assert shown() == sorted(every)
        page.select_option("#players", "6")
        assert shown() == sorted(g for g in every if 6 in _players(site, g)) == ["seven-nights"]
        page.select_option("#language", "en")
        assert shown() == ["seven-nights"]
        page.select_option("#players", "")
        assert shown() == sorted(every)               # the scaffold game is in English too
        page.select_option("#language", "zh-Hans")
        assert shown() == sorted(GAMES)
        page.select_option("#players", "2")
        assert shown() == sorted(g for g in GAMES if 2 in _players(site, g))
        assert errors == []
    finally:
        page.close()


def test_without_javascript_the_shelf_lists_every_game(site, browser):
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto((site / "build" / "site" / "index.html").as_uri())
        assert page.locator("ul.shelf li:visible").count() == len(GAMES) + 1
        assert page.locator("#filter").is_hidden()
    finally:
        context.close()


def test_the_pack_table_says_what_the_manifests_say(site, browser):
    manifest = json.loads((site / "build/seven-nights/seven-nights-4p-a4-en.json").read_text(encoding="utf-8"))
    pdf = site / "build/seven-nights" / manifest["file"]
    card = [r["pages"] for r in manifest["runs"] if r["run"] in ("duplex", "card")]
    page, _ = _open(browser, site / "build" / "site" / "seven-nights" / "en.html")
    try:
        row = page.locator("#packs ~ table tbody tr", has=page.locator(f"a[href='files/{manifest['file']}']"))
        cells = row.locator("td").all_text_contents()
        assert cells[:4] == ["4 players", "A4", "English", manifest["file"]]
        assert cells[5] == str(len(manifest["pages"]))
        assert cells[6] == page_ranges(card) and cells[6].startswith(str(card[0][0]))
        assert cells[8] == "two-sided, flip on the long edge"
        assert (site / "build/site/seven-nights/files" / manifest["file"]).read_bytes() == pdf.read_bytes()
        supplies = page.locator("#supplies + ul li").all_text_contents()
        assert supplies and not any(re.search("[\u4e00-\u9fff]", s) for s in supplies)   # page 1's, in English
        assert page.locator("a", has_text="gallery").get_attribute("href") == "gallery-en/index.html"
        exports = page.locator("#exports + ul li").all_text_contents()
        assert [e.split(":")[0] for e in exports] == ["The Game Crafter, 300 dpi", "Tabletop Simulator"]
        assert "seven-nights-6p-tgc-300dpi-en.zip" in exports[0] and "tts-en/seven-nights.json" in exports[1]
    finally:
        page.close()


VIEWS = [{"viewport": {"width": 1280, "height": 900}, "color_scheme": "light"},
         {"viewport": {"width": 390, "height": 800}, "color_scheme": "dark", "is_mobile": True}]


@pytest.mark.parametrize("view", VIEWS, ids=["desktop-light", "phone-dark"])
def test_axe_finds_nothing_serious(site, browser, view):
    """The shelf (a page per language) in both views; the printables pages (one template, a page
    per game and language) each in one view, the views taking turns: each view sees both languages'."""
    script = AXE.read_text(encoding="utf-8")
    turn = VIEWS.index(view)
    shelves = [p for p in _pages(site) if p.parent == site / "build/site"]
    printables = [p for p in _pages(site) if p not in shelves]
    assert {p.stem for p in printables[turn::2]} == {p.stem for p in printables} == {"en", "zh-Hans"}
    for path in shelves + printables[turn::2]:
        page, _ = _open(browser, path, **view)
        try:
            page.add_script_tag(content=script)
            result = page.evaluate("() => axe.run(document, {resultTypes: ['violations']})")
            serious = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in result["violations"]
                       if v["impact"] in ("serious", "critical")]
            assert serious == [], f"{path.name}: {serious}"
        finally:
            page.close()


def test_drafts_stay_off_the_shelf_unless_asked(site, tmp_path):
    # in a copy of the module's project (its built files linked: pnp replaces a file, never writes into
    # one), so the module's site is left as the other tests read it without a third `pnp site`
    project = tmp_path / "site"
    shutil.copytree(site, project, symlinks=True, ignore=lambda folder, names: ["build"] if Path(folder) == site else [])
    shutil.copytree(site / "build", project / "build", symlinks=True, copy_function=os.link,
                    ignore=lambda folder, names: [".cache"] if Path(folder) == site / "build" else [])
    game_file = project / "cards" / SCAFFOLD / "game.yaml"
    text = game_file.read_text(encoding="utf-8")
    game_file.write_text(text.replace("draft: false", "draft: true"), encoding="utf-8")
    result = pnp(project, "site")
    assert result.exit_code == 0
    assert f"{SCAFFOLD}: a draft, left off the shelf (pnp site --drafts shows it)" in result.output
    assert not (project / "build/site" / SCAFFOLD).exists()
    assert f'data-game="{SCAFFOLD}"' not in (project / "build/site/index.html").read_text(encoding="utf-8")
    result = pnp(project, "site", "--drafts")
    assert result.exit_code == 0 and "(4 games" in result.output
    assert (project / "build/site" / SCAFFOLD / "en.html").is_file()
    assert (site / "build/site" / SCAFFOLD / "en.html").is_file()          # the module's site as it was


def test_page_ranges_and_font_ranges():
    assert page_ranges([[1, 1], [2, 7], [26, 29], [9, 9]]) == "1–7, 9, 26–29"
    assert page_ranges([]) == ""
    assert unicode_range([0x41, 0x42, 0x43, 0x4E2D]) == "U+41-43, U+4E2D"
