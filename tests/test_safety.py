"""Safety: card text is data (escaped, only the documented markup), rendering reads nothing
outside the project, a build killed at any moment leaves the previous outputs and the cache
sound, the same input gives the same bytes, and random card data never crashes pnp."""
from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generator.source.assets import Assets
from generator.sheets.kit import check_game
from generator.source.project import Project
from generator.render.cards import CardRenderer
from generator.render.html import fenced_fetcher, printed_text
from tests.conftest import ROOT, pnp

GAME = "night-market"


def docs_game(target: Path) -> Path:
    shutil.copytree(ROOT / "tests/fixtures/docs-game", target)
    for shared in ("fonts", "icons"):
        (target / shared).symlink_to(ROOT / shared)
    return target


def set_card(project: Path, find: str, replace: str) -> None:
    path = project / "cards" / GAME / "goods.yaml"
    text = path.read_text(encoding="utf-8")
    assert find in text
    path.write_text(text.replace(find, replace, 1), encoding="utf-8")


def face_html(project: Path, card_id: str) -> str:
    proj = Project.at(project)
    assets = Assets(proj)
    game = check_game(proj, assets, GAME).game
    deck = game.decks["goods"]
    return CardRenderer(proj, assets, game).face(deck, deck.card(card_id), "face").html


# --- card text is data --------------------------------------------------------------------------

def test_html_and_template_syntax_in_card_text_print_as_written(tmp_path):
    project = docs_game(tmp_path / "p")
    set_card(project, 'effect: "**吆喝**：再翻 1 张。"',
             "effect: \"<b>粗</b> {{ 7*7 }} {% if true %}x{% endif %} &amp; <script>alert(1)</script>\"")
    set_card(project, "effect: {type: rich, max_length: 40,", "effect: {type: rich,")
    html = face_html(project, "lantern")
    assert "&lt;b&gt;粗&lt;/b&gt;" in html and "&lt;script&gt;" in html and "&amp;amp;" in html
    printed = printed_text(html)
    assert "{{ 7*7 }}" in printed and "49" not in printed and "{% if true %}x{% endif %}" in printed
    assert "<script>" not in html and "<b>" not in html
    result = pnp(project, "build", GAME, "--only", "goods/lantern")
    assert result.exit_code == 0, result.output
    text = subprocess.run(["pdftotext", str(project / "build" / GAME / "cards/goods-lantern.pdf"), "-"],
                          capture_output=True, text=True, check=True).stdout
    assert "<b>粗</b>" in text.replace("\n", "") and "{{ 7*7 }}" in text


def test_the_documented_markup_is_all_there_is(tmp_path):
    project = docs_game(tmp_path / "p")
    set_card(project, 'effect: "**吆喝**：再翻 1 张。"', 'effect: "**吆喝**：价 {price} 🎲 收摊"')
    html = face_html(project, "lantern")
    assert '<strong><span class="kw">吆喝</span></strong>' in html          # **emphasis**, keyword
    assert '<span class="num">4</span>' in html                               # {price} and numbers
    assert '<img class="emoji" src="icons/twemoji/1f3b2.svg"' in html         # an emoji is its icon


def test_gallery_escapes_card_names(tmp_path):
    project = docs_game(tmp_path / "p")
    set_card(project, "name: 米酒,", 'name: "<i>酒",')
    result = pnp(project, "gallery", GAME)
    assert result.exit_code == 0, result.output
    page = (project / "build" / GAME / "gallery/index.html").read_text(encoding="utf-8")
    assert "&lt;i&gt;酒" in page and "<i>酒" not in page


def test_expressions_cannot_reach_python(tmp_path):
    project = docs_game(tmp_path / "p")
    path = project / "cards" / GAME / "claims.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace(
        'computed: "{{ derived.goods[4] }}"', 'computed: "{{ derived.__class__.__mro__ }}"'), encoding="utf-8")
    result = pnp(project, "validate", GAME)
    assert result.exit_code == 1
    assert "claim goods-4p: cannot compute: {{ derived.__class__.__mro__ }}:" in result.output
    assert "internal error" not in result.output


# --- reading only the project's own files ---------------------------------------------------------

def test_fetcher_allows_only_the_project_folders(tmp_path):
    project = docs_game(tmp_path / "p")
    fetcher = fenced_fetcher(Project.at(project).readable_roots())
    inside = (project / "templates" / GAME / "market.css").resolve()
    fetcher.fetch(inside.as_uri()).close()
    (project / "templates" / GAME / "escape.css").symlink_to("/etc/hostname")
    for url in ["file:///etc/hostname", "http://127.0.0.1:9/x.png", "https://example.com/a.css",
                (project / "templates" / GAME / "escape.css").as_uri(), (project / "build").as_uri(),
                (project / "templates" / GAME / ".." / ".." / ".." / "x").as_uri()]:
        with pytest.raises(ValueError, match="blocked"):
            fetcher.fetch(url)


# --- killed builds ------------------------------------------------------------------------------

def _digests(folder: Path) -> dict[str, str]:
    """The packs and manifests (not the build's own records, which hold times)."""
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.glob("*.pdf"))
            + sorted(folder.glob("*.json")) if not p.name.startswith(".")}


def test_a_build_killed_at_any_moment_leaves_outputs_and_cache_sound(tmp_path):
    project = docs_game(tmp_path / "p")
    command = [sys.executable, "-m", "generator", "--project", str(project), "build", GAME, "--paper", "a4",
               "--jobs", "2"]          # (render workers and helpers, to be killed with it)
    subprocess.run(command, check=True, capture_output=True)
    folder = project / "build" / GAME
    before = _digests(folder)
    set_card(project, "name: 米酒,", "name: 甜米酒,")          # so the next build has work to do
    for delay in (0.2, 0.6, 1.0, 1.4, 1.8, 2.4):
        shutil.rmtree(project / "build" / ".cache" / "faces", ignore_errors=True)   # make it render
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(delay)
        os.killpg(proc.pid, signal.SIGKILL)          # the build and its render workers, mid-flight
        proc.wait()
        now = _digests(folder)
        assert set(now) == set(before)
        for name, digest in now.items():             # each file is the old one or a complete new one
            if digest != before[name] and name.endswith(".pdf"):
                check = pnp(project, "preflight", str(folder / name))
                assert check.exit_code == 0, check.output
    finished = subprocess.run(command, capture_output=True, text=True)
    assert finished.returncode == 0, finished.stdout + finished.stderr
    after_kills = _digests(folder)
    shutil.rmtree(project / "build")                 # a clean build gives the same bytes
    subprocess.run(command, check=True, capture_output=True)
    assert _digests(folder) == after_kills


# --- reproducible -------------------------------------------------------------------------------

def test_same_input_same_bytes_in_another_folder(tmp_path):
    """Two cold builds in different folders: identical PDFs, manifests, PNG proofs and shop zip."""
    results = []
    for name in ("one", "two"):
        project = docs_game(tmp_path / name)
        for args in (("build", GAME, "--paper", "a4"), ("build", GAME, "--only", "goods/gift"),
                     ("export", GAME, "--shop", "png")):
            result = pnp(project, *args)
            assert result.exit_code == 0, result.output
        folder = project / "build" / GAME
        files = sorted(p for p in folder.rglob("*") if p.is_file() and p.name != ".stamp.json"
                       and not p.name.startswith(".edition-"))        # (the stamps hold files' times)
        results.append({p.relative_to(folder).as_posix(): p.read_bytes() for p in files})
    assert results[0].keys() == results[1].keys()
    assert {"night-market-2p-a4.pdf", "night-market-2p-a4.json", "cards/goods-gift.png",
            "night-market-4p-png-300dpi.zip"} <= set(results[0])
    different = [name for name in results[0] if results[0][name] != results[1][name]]
    assert different == []


def test_manifest_names_no_machine_path(tmp_path):
    project = docs_game(tmp_path / "p")
    assert pnp(project, "build", GAME, "--players", "2", "--paper", "a4").exit_code == 0
    for path in (project / "build" / GAME).glob("*.json"):
        assert str(tmp_path) not in path.read_text(encoding="utf-8")
    pdf = (project / "build" / GAME / "night-market-2p-a4.pdf").read_bytes()
    assert str(tmp_path).encode() not in pdf


# --- random card data ---------------------------------------------------------------------------

TEXT = st.text(alphabet=st.sampled_from(list("夜市摊主米酒花糕abcXYZ019 *{}<>&\"'\\#:-—…·🏮🎲✧◈\u200d\ufe0f\t𠀀")),
               min_size=0, max_size=50)
VALUE = st.one_of(st.integers(-10, 20), st.floats(allow_nan=True, allow_infinity=True), TEXT, st.none(),
                  st.booleans(), st.lists(st.integers(0, 3), max_size=3))


@pytest.fixture(scope="module")
def random_project(tmp_path_factory) -> Path:
    project = docs_game(tmp_path_factory.mktemp("random") / "p")
    assert pnp(project, "build", GAME, "--only", "goods/beer").exit_code == 0      # warm the libraries
    return project


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_card_data_builds_or_fails_cleanly(random_project, data):
    """A card with random text (markup characters, emoji, a character no font has …), and now
    and then one field replaced by a random value of any type."""
    card = {"id": "beer", "name": data.draw(st.text(alphabet="夜市米酒花糕ab1 *{}<&", min_size=1, max_size=6)),
            "price": data.draw(st.integers(1, 6)), "kind": "吃食", "icon": "🍺", "effect": data.draw(TEXT),
            "copies": {2: 3, 3: 4, 4: 4}}
    broken = data.draw(st.sampled_from([None, None, "name", "price", "effect", "copies", "kind", "icon"]))
    if broken:
        card[broken] = data.draw(VALUE)
    path = random_project / "cards" / GAME / "goods.yaml"
    original = path.read_text(encoding="utf-8")
    lines = original.splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if line.startswith("  - {id: beer,"))
    lines[index] = "  - " + yaml.safe_dump(card, allow_unicode=True, default_flow_style=True, width=10**6).strip() + "\n"
    path.write_text("".join(lines), encoding="utf-8")
    try:
        result = pnp(random_project, "build", GAME, "--only", "goods/beer")
    finally:
        path.write_text(original, encoding="utf-8")
    assert result.exit_code in (0, 1), result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    if result.exit_code == 1:
        for line in result.output.splitlines():
            assert line.startswith(("cards/night-market/", "templates/night-market/")), line     # located
    else:
        assert "wrote build/night-market/cards/goods-beer.pdf" in result.output
    yaml.safe_load(original)     # the fixture is back as it was
