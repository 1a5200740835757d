"""The gallery page in a real browser (Debian's chromium, driven by Playwright), served by
`pnp serve`: it loads without console errors, shows every card and board with its images,
and its deck filter and name search work."""
from __future__ import annotations

import threading

import pytest

from generator.export.gallery import serve
from generator.source.project import Project
from tests.conftest import built, gallery_made, GAMES


def _serve(project):
    started = threading.Event()
    box = {}

    def ready(server):
        box["server"] = server
        started.set()

    thread = threading.Thread(target=serve, args=(Project.at(project), 0), kwargs={"say": lambda _: None,
                                                                                   "ready": ready}, daemon=True)
    thread.start()
    assert started.wait(10)
    return box["server"]


@pytest.mark.parametrize("game", GAMES)
def test_gallery_shows_every_card_and_board_and_filters(tmp_path_factory, browser, game):
    kit = gallery_made(built(tmp_path_factory, game))      # once a run: test_site's site links it too
    manifest = kit.largest_manifest()
    decks = [c for c in manifest["components"] if c["kind"] == "deck"]
    pieces = [c for c in manifest["components"] if c["kind"] == "piece"]
    designs = sum(len(d["cards"]) for d in decks)
    copies = sum(d["count"] for d in decks) + sum(p["count"] for p in pieces)
    server = _serve(kit.project)
    page = browser.new_page()
    errors = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto(f"http://127.0.0.1:{server.server_address[1]}/{game}/gallery-zh-Hans/index.html")
        page.wait_for_load_state("networkidle")
        assert page.locator("main figure:visible").count() == designs + len(pieces)
        assert page.locator("#shown").text_content() == f"{designs + len(pieces)} 种 · {copies} 张/件"
        broken = page.evaluate("""async () => {
            const images = Array.from(document.images);
            images.forEach(i => { i.loading = "eager"; });          // the page loads them lazily
            await Promise.all(images.map(i => i.decode().catch(() => null)));
            return images.filter(i => !i.complete || i.naturalWidth === 0).length;
        }""")
        assert broken == 0
        deck = decks[0]
        page.select_option("#deck", deck["id"])
        assert page.locator("main figure:visible").count() == len(deck["cards"])
        page.select_option("#deck", "")
        name = page.locator("main figure figcaption").first.evaluate("e => e.firstChild.textContent")
        page.fill("#search", name)
        shown = page.locator("main figure:visible")
        assert 1 <= shown.count() < designs + len(pieces)
        assert all(name in shown.nth(i).get_attribute("data-name") for i in range(shown.count()))
        page.fill("#search", "没有这张牌")
        assert page.locator("main figure:visible").count() == 0
        assert errors == []
    finally:
        page.close()
        server.shutdown()
