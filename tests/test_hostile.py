"""Hostile input (issue 18): game data and templates cannot touch files, reach engine objects or
run unbounded; git, paths, exports and `pnp serve` hold against a game from a stranger.
Each of these fails on the code before the fix."""
from __future__ import annotations

import http.client
import json
import os
import re
import shutil
import subprocess
import threading
from pathlib import Path
from types import SimpleNamespace

import pikepdf
import pytest

from generator.errors import PnpError
from generator.export.gallery import serve
from generator.source.project import Project
from tests.conftest import ROOT, pnp, seed_store

GAME = "night-market"
FOLDER = Path("cards") / GAME


@pytest.fixture
def market(tmp_path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(ROOT / "tests/fixtures/docs-game", project)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / shared)
    return project


@pytest.fixture(scope="module")
def market_store(tmp_path_factory) -> SimpleNamespace:
    """The documentation game validated once in this module: every pack's faces, boards and rulebook
    pages drawn into its store, read only."""
    project = tmp_path_factory.mktemp("market-store") / "project"
    shutil.copytree(ROOT / "tests/fixtures/docs-game", project)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / shared)
    result = pnp(project, "validate", GAME)
    assert result.exit_code == 0, result.output
    return SimpleNamespace(project=project)


@pytest.fixture
def seeded_market(market, market_store) -> Path:
    """`market` whose store starts with what market_store drew (seed_store: its packs are made anew), for
    a test whose build or validation must pass and whose input under test is read before any face is
    looked up in the store (the game's files, pnp.toml) or changes the faces' keys (the rules module)."""
    seed_store(market, [market_store])
    return market


def _edit(project: Path, name: str, old: str, new: str) -> None:
    path = project / FOLDER / name
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


COIN = 'coin: "{{ derived.coins[2] }}"'


def test_an_expression_cannot_delete_a_file(market):
    _edit(market, "game.yaml", COIN, "coin: \"{{ game.folder.joinpath('rules.py').unlink() or 8 }}\"")
    result = pnp(market, "validate", GAME)
    assert result.exit_code == 1
    assert (market / FOLDER / "rules.py").is_file()
    assert result.output.splitlines() == [
        "cards/night-market/game.yaml:27: 2-player pack: coin: {{ game.folder.joinpath('rules.py').unlink() or 8 }}: "
        "'dict object' has no attribute 'folder'"]


def test_a_claim_cannot_write_a_file(market):
    _edit(market, "claims.yaml", 'computed: "{{ derived.goods[4] }}"',
          "computed: \"{{ game.folder.joinpath('pwned').write_text('x') }}\"")
    result = pnp(market, "validate", GAME)
    assert result.exit_code == 1 and not (market / FOLDER / "pwned").exists()
    assert "claim goods-4p: cannot compute: " in result.output and "no attribute 'folder'" in result.output


def test_a_board_cannot_read_a_file(market):
    _edit(market, "pieces.yaml", 'text: "夜市计分板 · {{ pack.players }} 人"',
          "text: \"{{ game.folder.parent.parent.parent.joinpath('etc/os-release').read_text() }}\"")
    result = pnp(market, "build", GAME, "--players", "2", "--paper", "a4", "--jobs", "1")
    assert result.exit_code == 1 and "NAME=" not in result.output
    assert "piece market-board: text: " in result.output and "has no attribute 'folder'" in result.output


def test_a_card_template_sees_data_not_engine_objects(market):
    template = market / "templates" / GAME / "goods.html"
    template.write_text("{{ card.file }}" + template.read_text(encoding="utf-8"), encoding="utf-8")
    result = pnp(market, "build", GAME, "--players", "2", "--paper", "a4", "--jobs", "1")
    assert result.exit_code == 1
    assert "templates/night-market/goods.html:1: goods/lantern (face): template failed: 'dict object' has no " \
           "attribute 'file'" in result.output.splitlines()


def test_a_field_named_like_an_engine_attribute_is_the_field():
    from generator.source.context import card_data
    from generator.check.expr import evaluate
    from generator.source.game import Card
    card = Card("goods", "lamp", {"deck": "夜宵", "line": 3, "items": "两件"}, 1, "goods.yaml", 7, 0)
    data = card_data(card)
    assert evaluate("{{ card.deck }}/{{ card.line }}/{{ card.items }}/{{ card.id }}", {"card": data}) == "夜宵/3/两件/lamp"


@pytest.mark.parametrize("expression, message", [
    ("{{ 2 ** 100000 }}", "2 ** 100000 is too large a number"),
    ("{{ range(10**9) | length }}", "Range too big. The sandbox blocks ranges larger than MAX_RANGE (100000)."),
    ("{{ ('ab' * 10**9) | length }}", "repeating 2 items 1,000,000,000 times makes more than 1,000,000"),
    ("{{ 'x' | center(10**9) }}", "do_center: 1,000,000,000 is too large"),
    ("{{ '%099999999d' % 1 }}", "a format width is too large"),
    ("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(1) }}",
     "nested too deeply (a macro or template that calls itself?)"),
    ("{% for i in range(100000) %}{% for j in range(100000) %}{{ '' }}{% endfor %}{% endfor %}",
     "took more than 2 s to evaluate (a loop far too long?)"),
])
def test_runaway_expressions_end_in_an_error(expression, message):
    from generator.check.expr import ExprError, evaluate
    with pytest.raises(ExprError) as raised:
        evaluate(expression, {})
    assert str(raised.value) == f"{expression}: {message}"


def test_reprint_since_an_option_is_refused_before_git_runs(market):
    git = ["git", "-C", str(market), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "kit"], check=True)
    game_yaml = market / FOLDER / "game.yaml"
    before = game_yaml.read_bytes()
    result = pnp(market, "reprint", GAME, "--since=--output=cards/night-market/game.yaml")
    assert result.exit_code == 1 and game_yaml.read_bytes() == before
    assert f"{market}: cannot read revision '--output=cards/night-market/game.yaml': it is not a commit in this " \
           "project's git history (hint: give a commit, tag or branch, e.g. HEAD~1)" in result.output.splitlines()


@pytest.mark.parametrize("name", ["../../../../../../../etc/passwd", "/etc/passwd"])
def test_a_deck_file_outside_the_project_is_not_read(market, name):
    _edit(market, "game.yaml", "decks: [goods.yaml,", f"decks: [{name}, goods.yaml,")
    result = pnp(market, "validate", GAME)
    assert result.exit_code == 1 and "root:" not in result.output
    assert result.output.splitlines() == [
        f"cards/night-market/game.yaml:17: decks: '{name}' is outside the project folder "
        "(hint: name files inside the game's folder, like goods.yaml)"]


def test_a_path_that_climbs_out_of_the_project_is_refused_and_the_file_meant_named(market):
    """`../../cards/…` written as if from the template's folder leaves the project (a template's
    paths start from the project folder): refused, and the file inside it that was meant is named."""
    template = market / "templates/night-market/goods.html"
    template.write_text(template.read_text(encoding="utf-8").replace(
        '<div class="panel"></div>', '<img src="../../cards/night-market/hours.yaml">', 1), encoding="utf-8")
    result = pnp(market, "build", GAME, "--players", "2", "--paper", "a4")
    outside = (market.parent.parent / "cards/night-market/hours.yaml").resolve()
    assert result.exit_code == 1 and result.output.strip().splitlines()[-1] == (
        f"cards/night-market/goods.yaml:15: goods faces: blocked: {outside} is outside the project's folders; "
        "did you mean cards/night-market/hours.yaml? (a path in a template starts from the project folder)")


def test_a_symbolic_link_out_of_the_project_is_not_read(market):
    (market / FOLDER / "stalls.yaml").unlink()
    (market / FOLDER / "stalls.yaml").symlink_to("/etc/passwd")
    result = pnp(market, "validate", GAME)
    assert result.exit_code == 1 and "root:" not in result.output
    assert "cards/night-market/game.yaml:17: decks: 'stalls.yaml' is outside the project folder" in result.output


def test_export_names_are_unique_whatever_the_case():
    from generator.export.shops import Item, _unique_names

    def item(deck, card):
        return Item(SimpleNamespace(id=deck), SimpleNamespace(id=card, uid=f"{deck}/{card}", file="x.yaml", line=4),
                    "face", 1, "k", None, None)
    with pytest.raises(PnpError) as raised:
        _unique_names([item("actions", "x-1"), item("actions-x", "1")], "g")
    assert str(raised.value) == ("x.yaml:4: card 'actions-x/1' and card 'actions/x-1' would both be exported as "
                                 "actions-x-1-1.png (hint: rename one of the cards (or decks))")
    _unique_names([item("actions", "x-1"), item("actions", "x-2")], "g")


# --- pnp serve ----------------------------------------------------------------------------------

@pytest.fixture
def server(tmp_path):
    project = tmp_path / "project"
    (project / "cards").mkdir(parents=True)
    gallery = project / "build" / GAME / "gallery"
    (gallery / "img").mkdir(parents=True)
    (gallery / "index.html").write_text("<p>gallery</p>", encoding="utf-8")
    (gallery / "img" / "a.png").write_bytes(b"png")
    (gallery / "passwd").symlink_to("/etc/passwd")
    (gallery / ".secret").write_text("dot", encoding="utf-8")
    (project / "build" / ".cache").mkdir()
    (project / "build" / ".cache" / "x.pdf").write_bytes(b"cache")
    (project / "build" / GAME / "night-market-2p-a4.pdf").write_bytes(b"pdf")
    started, box = threading.Event(), {}

    def ready(running):
        box["server"] = running
        started.set()
    threading.Thread(target=serve, args=(Project.at(project), 0), kwargs={"say": lambda _: None, "ready": ready},
                     daemon=True).start()
    assert started.wait(10)
    yield box["server"].server_address[1]
    box["server"].shutdown()


def _get(port: int, path: str, host: str = "127.0.0.1") -> tuple[int, bytes, str | None]:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    connection.putrequest("GET", path, skip_host=True)
    connection.putheader("Host", f"{host}:{port}" if host else "")
    connection.endheaders()
    response = connection.getresponse()
    return response.status, response.read(), response.getheader("Location")


def test_serve_serves_the_gallery_and_opens_on_it(server):
    assert _get(server, f"/{GAME}/gallery/")[:2] == (200, b"<p>gallery</p>")
    assert _get(server, f"/{GAME}/gallery/img/a.png", host="localhost")[:2] == (200, b"png")
    assert _get(server, "/") == (302, b"", f"/{GAME}/gallery/")


@pytest.mark.parametrize("path", [f"/{GAME}/gallery/passwd", f"/{GAME}/gallery/.secret", "/.cache/x.pdf",
                                  f"/{GAME}/night-market-2p-a4.pdf", f"/{GAME}/gallery/img/", f"/{GAME}/",
                                  f"/{GAME}/gallery/%2e%2e/night-market-2p-a4.pdf",
                                  f"/{GAME}/gallery/../../../../etc/passwd"])
def test_serve_refuses_what_is_not_the_gallerys_own(server, path):
    status, body, _ = _get(server, path)
    assert status == 404 and b"root:" not in body and b"cache" not in body and b"pdf" != body


@pytest.mark.parametrize("host", ["evil.example.org", "127.0.0.1.evil.example.org", ""])
def test_serve_answers_only_to_localhost(server, host):
    assert _get(server, f"/{GAME}/gallery/", host=host)[0] == 403


def test_a_busy_port_suggests_another(market):
    import socket
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = pnp(market, "serve", "--port", str(port))
    assert result.exit_code == 2
    assert f"try ./pnp serve --port {port + 1}" in result.output


# --- faults ------------------------------------------------------------------------------------

def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in path.read_text().split()] if path.exists() else []


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError):
        return False


def test_render_workers_end_when_their_build_is_killed(market):
    import os
    import signal
    import sys
    import time
    (market / "build").mkdir(exist_ok=True)
    command = [sys.executable, "-m", "generator", "--project", str(market), "build", GAME, "--jobs", "2"]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    workers = []
    deadline = time.monotonic() + 120
    while not workers and time.monotonic() < deadline and proc.poll() is None:
        workers = _children(proc.pid)
        time.sleep(0.05)
    assert workers, "the build started no render workers"
    os.kill(proc.pid, signal.SIGKILL)                # the parent only: no clean-up code runs
    proc.wait()
    deadline = time.monotonic() + 30
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [w for w in workers if _alive(w)]
    for pid in left:                                  # do not leave them behind if the test fails
        os.kill(pid, signal.SIGKILL)
    assert left == []


def test_a_build_keeps_no_file_of_the_project_s_fonts_mapped(tmp_path):
    """A font file rewritten in place (an editor, a sync tool) while a process has it mapped ends that
    process with SIGBUS, no error line. A build draws with WeasyPrint's own copies of the fonts: after
    it, no file of fonts/ is mapped in its process. (fontconfig listed fonts/, and pango mapped its
    fonts for as long as the process lived.)"""
    maps = Path("/proc/self/maps")
    if not maps.exists():
        pytest.skip("no /proc/self/maps on this system")
    project = tmp_path / "sizes"
    shutil.copytree(ROOT / "tests/fixtures/sizes", project)
    shutil.copytree(ROOT / "fonts", project / "fonts")          # its own: no other test maps these files
    (project / "icons").symlink_to(ROOT / "icons")
    result = pnp(project, "build", "sizes", "--paper", "a4", "--jobs", "1")     # drawn in this process
    assert result.exit_code == 0, result.output
    fonts = f"{(project / 'fonts').resolve()}/"
    assert [line for line in maps.read_text().splitlines() if fonts in line] == []


def test_a_full_disk_is_one_line_and_exit_1(market, monkeypatch):
    import errno
    import generator.atomic as atomic

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device", str(market / "build" / GAME / "x.pdf"))
    monkeypatch.setattr(atomic, "_temporary", full)
    result = pnp(market, "build", GAME, "--players", "2", "--paper", "a4", "--jobs", "1")
    assert result.exit_code == 1, result.output
    line = result.output.splitlines()[-1]
    assert line.endswith("build/night-market/x.pdf: cannot write: No space left on device "
                         "(hint: free some space on the disk)") and "Traceback" not in result.output


def test_a_file_where_build_should_be_is_one_line_and_exit_1(market):
    (market / "build").write_text("not a folder", encoding="utf-8")
    result = pnp(market, "build", GAME, "--players", "2", "--paper", "a4")
    assert result.exit_code == 1
    assert result.output.splitlines()[-1].endswith("build/.cache/fontconfig: cannot write: Not a directory")


# --- print-file hygiene -------------------------------------------------------------------------

@pytest.fixture(scope="module")
def market_pack(tmp_path_factory) -> Path:
    project = tmp_path_factory.mktemp("hygiene") / "project"
    shutil.copytree(ROOT / "tests/fixtures/docs-game", project)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / shared)
    result = pnp(project, "build", GAME, "--players", "2", "--paper", "a4", "--jobs", "1")
    assert result.exit_code == 0, result.output
    return project / "build" / GAME / f"{GAME}-2p-a4.pdf"


def _font_dicts(pdf):
    return [o for o in pdf.objects if isinstance(o, pikepdf.Dictionary) and o.get("/Type") == "/Font"
            and "/DescendantFonts" not in o]


def test_every_listed_font_is_embedded_clean_and_uniquely_tagged(market_pack):
    from generator.check.pdfread import font_resources
    with pikepdf.open(market_pack) as pdf:
        found = font_resources(pdf)
    assert found and all(f.embedded for f in found)
    assert all(re.fullmatch(r"[A-Z]{6}\+[A-Za-z0-9-]+", f.name) for f in found), [f.name for f in found]
    tags: dict[str, set] = {}
    for font in found:
        tags.setdefault(font.name.split("+")[0], set()).add(font.program)
    assert all(len(programs) == 1 for programs in tags.values())
    # the boards' reportlab subsets are there too, each with its own tag
    assert sum("NotoSansSC" in f.name for f in found) >= 2


def test_preflight_catches_each_font_fault(market_pack, tmp_path):
    from generator.check.preflight import preflight
    with pikepdf.open(market_pack) as pdf:
        fonts = _font_dicts(pdf)
        simple = [f for f in fonts if f.Subtype == "/TrueType"]
        assert len(simple) >= 2
        simple[0].BaseFont = pikepdf.Name("/AAAAAA+NotoSansSC-Regular")
        simple[1].BaseFont = pikepdf.Name("/AAAAAA+NotoSansSC-Bold")
        type0 = [f for f in pdf.objects if isinstance(f, pikepdf.Dictionary) and "/DescendantFonts" in f][0]
        type0.DescendantFonts[0].BaseFont = pikepdf.Name("/EVKDDR+/Noto-Sans-SC-Bold")
        page = pdf.pages[-1]
        page.Resources.Font = page.Resources.get("/Font", pikepdf.Dictionary())
        page.Resources.Font.Fx = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Font,
                                                   Subtype=pikepdf.Name.Type1, BaseFont=pikepdf.Name.Helvetica))
        broken = tmp_path / market_pack.name
        pdf.save(broken)
    shutil.copy(market_pack.with_suffix(".json"), broken.with_suffix(".json"))
    findings = preflight(broken).findings
    assert "font Helvetica is listed but not embedded" in findings
    assert "font name 'EVKDDR+/Noto-Sans-SC-Bold' is not a clean PostScript name" in findings
    assert "fonts AAAAAA+NotoSansSC-Regular and AAAAAA+NotoSansSC-Bold are different subsets sharing the tag " \
           "AAAAAA+" in findings


# --- no longer misleading ------------------------------------------------------------------------

@pytest.mark.usefixtures("seeded_market")
def test_a_yaml_merge_key_is_not_a_duplicate(market):
    _edit(market, "game.yaml", "card:\n  size: bridge\n  bleed: 3", "card:\n  <<: {size: poker, bleed: 2}\n  size: bridge\n"
          "  bleed: 3")
    result = pnp(market, "validate", GAME)
    assert result.exit_code == 0, result.output


@pytest.mark.usefixtures("seeded_market")
def test_a_byte_order_mark_is_not_an_error(market):
    path = market / FOLDER / "stalls.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    result = pnp(market, "validate", GAME)
    assert result.exit_code == 0, result.output


@pytest.mark.usefixtures("seeded_market")
def test_pnp_list_runs_no_rules_module(market, tmp_path):
    marker = tmp_path / "ran"
    rules = market / FOLDER / "rules.py"
    rules.write_text(f"open({str(marker)!r}, 'w').close()\n" + rules.read_text(encoding="utf-8"), encoding="utf-8")
    result = pnp(market, "list")
    assert result.exit_code == 0 and "night-market: 夜市摊主" in result.output
    assert not marker.exists()
    assert pnp(market, "validate", GAME).exit_code == 0 and marker.exists()      # validate does run it


def test_a_nan_back_offset_is_refused(market):
    for command in (("build", GAME, "--back-offset", "nan,0"), ("calibrate", "--printer", "x", "--offset", "0,inf")):
        result = pnp(market, *command)
        assert result.exit_code == 2 and "expected two numbers in mm like 1.5,-0.5" in result.output
    assert not (market / "pnp.toml").exists()


def test_macos_metadata_files_among_the_icons_are_ignored(tmp_path):
    from generator.source.assets import Assets
    project = tmp_path / "p"
    (project / "cards").mkdir(parents=True)
    (project / "fonts").symlink_to(ROOT / "fonts")
    (project / "icons" / "twemoji").mkdir(parents=True)
    shutil.copy(ROOT / "icons/twemoji/1f525.svg", project / "icons/twemoji/1f525.svg")
    (project / "icons/twemoji/._1f525.svg").write_bytes(b"\x00\x05\x16\x07\x00\x02\x00\x00Mac OS X")
    assets = Assets(Project.at(project))
    assert assets.icon("🔥") == project / "icons/twemoji/1f525.svg"


def test_board_icons_with_one_file_name_in_two_folders_are_two_icons(tmp_path):
    from reportlab.pdfgen.canvas import Canvas
    from generator.render.pen import Pen, register_fonts, registered
    from generator.source.assets import Assets
    project = tmp_path / "p"
    (project / "cards").mkdir(parents=True)
    (project / "fonts").symlink_to(ROOT / "fonts")
    for folder, source in (("a", "1f525"), ("b", "1f30a")):
        (project / "icons" / folder).mkdir(parents=True)
        shutil.copy(ROOT / f"icons/twemoji/{source}.svg", project / "icons" / folder / "star.svg")
    (project / "icons" / "twemoji").mkdir()
    assets = Assets(Project.at(project))
    register_fonts(assets)
    import io
    buffer = io.BytesIO()
    canvas = Canvas(buffer, invariant=1, initialFontName=registered(assets.fonts[0]))
    pen = Pen(canvas, assets, 100)
    pen.icon("a/star.svg", 10, 10, 10)
    pen.icon("b/star.svg", 30, 10, 10)
    canvas.showPage()
    canvas.save()
    with pikepdf.open(io.BytesIO(buffer.getvalue())) as pdf:
        forms = {bytes(x.read_bytes()) for x in pdf.pages[0].Resources.XObject.values()}
    assert len(forms) == 2


def test_a_board_icon_is_drawn_with_no_font_reportlab_would_list_unembedded(tmp_path):
    """An icon's drawing starts in the bundled font, not reportlab's default Helvetica: so a board
    drawn with icons lists no font it does not embed and has no empty text object selecting one
    (tidy_fonts would otherwise parse each such board's content streams to remove them)."""
    import io
    from reportlab.pdfgen.canvas import Canvas
    from generator.render.fontmerge import _program
    from generator.render.pen import Pen, register_fonts, registered
    from generator.source.assets import Assets
    project = tmp_path / "p"
    (project / "cards").mkdir(parents=True)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / shared)
    assets = Assets(Project.at(project))
    register_fonts(assets)
    buffer = io.BytesIO()
    canvas = Canvas(buffer, invariant=1, pageCompression=0, initialFontName=registered(assets.fonts[0]))
    pen = Pen(canvas, assets, 100)
    pen.icon("🔥", 10, 10, 10)
    pen.text("Fire 火", 30, 10, size=9)
    canvas.showPage()
    canvas.save()
    with pikepdf.open(io.BytesIO(buffer.getvalue())) as pdf:
        page = pdf.pages[0]
        fonts = dict(page.Resources.Font.items())
        embedded = {name: _program(font) is not None for name, font in fonts.items()}
        icon = next(iter(page.Resources.XObject.values())).read_bytes()
        text_objects = page.Contents.read_bytes().count(b"BT") + icon.count(b"BT")
    assert embedded and all(embedded.values()), embedded
    assert text_objects == 1            # the text's own, which shows its glyphs: none in the icon


def test_a_board_icon_with_text_is_refused_naming_the_icon_and_the_piece(market):
    """Text in an SVG would be set in reportlab's Helvetica, a font the kit does not embed (and
    lost its font altogether once tidied): a board refuses such an icon, in one line."""
    icons = market / "icons"
    icons.unlink()
    icons.mkdir()
    shutil.copytree(ROOT / "icons/twemoji", icons / "twemoji")      # (a linked folder inside would be refused)
    (icons / "own").mkdir()
    (icons / "own/nine.svg").write_text('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36">'
                                        '<circle cx="18" cy="18" r="16" fill="#c33"/><text x="9" y="24">9</text></svg>')
    _edit(market, "pieces.yaml", "size: 10, icon: 🪙}", "size: 10, icon: own/nine.svg}")
    result = pnp(market, "build", GAME, "--players", "2", "--paper", "a4")
    assert result.exit_code == 1
    assert result.output.splitlines() == [
        "cards/night-market/pieces.yaml:46: piece coin: icon: icons/own/nine.svg has text (<text>), which a board "
        "cannot draw with the bundled fonts; turn the text into paths in the SVG"]
    assert not (market / "build" / GAME / f"{GAME}-2p-a4.pdf").exists()


def test_a_board_icon_s_transparency_and_gradient_are_drawn(tmp_path):
    """reportlab writes a form without the graphics states and shadings it names, so an icon with
    transparency printed opaque (and svglib ignores `opacity`: twemoji's fly had opaque wings). Such
    an icon is drawn in place, on a page that lists what it names; read back and rendered."""
    import io
    from PIL import Image
    from reportlab.pdfgen.canvas import Canvas
    from generator.render.pen import Pen, register_fonts, registered
    from generator.source.assets import Assets
    project = tmp_path / "p"
    (project / "cards").mkdir(parents=True)
    (project / "fonts").symlink_to(ROOT / "fonts")
    (project / "icons/own").mkdir(parents=True)
    (project / "icons/own/veil.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36"><rect width="36" height="36" fill="#000"/>'
        '<g opacity=".5"><rect width="36" height="18" fill="#fff"/></g></svg>')
    (project / "icons/own/fade.svg").write_text(
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36"><defs><linearGradient id="g">'
        '<stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/></linearGradient></defs>'
        '<rect width="36" height="36" fill="url(#g)"/></svg>')
    assets = Assets(Project.at(project))
    register_fonts(assets)
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(200, 100), invariant=1, initialFontName=registered(assets.fonts[0]))
    pen = Pen(canvas, assets, 100 / 72 * 25.4)
    pen.icon("own/veil.svg", 5, 5, 25)
    pen.icon("own/fade.svg", 40, 5, 25)
    canvas.showPage()
    canvas.save()
    with pikepdf.open(io.BytesIO(buffer.getvalue())) as pdf:
        page = pdf.pages[0]
        states = {name: float(state.get("/ca", 1)) for name, state in page.Resources.ExtGState.items()}
        ops = pikepdf.parse_content_stream(page)
        named = {(str(op), str(operands[0])) for operands, op in ops if str(op) in ("gs", "sh")}
        shadings = set(page.Resources.get("/Shading", {}).keys())
    assert 0.5 in states.values()
    assert named and all(name in (states if op == "gs" else shadings) for op, name in named), (named, states)
    (tmp_path / "icons.pdf").write_bytes(buffer.getvalue())
    subprocess.run(["pdftoppm", "-r", "72", "-png", "-singlefile", str(tmp_path / "icons.pdf"), str(tmp_path / "page")],
                   check=True)
    image = Image.open(tmp_path / "page.png").convert("RGB")    # 1 px a point: veil at 14–85, fade at 113–184
    top, bottom = image.getpixel((40, 25)), image.getpixel((40, 75))      # the veiled half, the black half
    assert bottom == (0, 0, 0) and all(120 <= c <= 135 for c in top), (top, bottom)
    left, right = image.getpixel((120, 50)), image.getpixel((178, 50))
    assert left[0] > left[2] and right[2] > right[0], (left, right)


def test_a_games_info_page_sees_data_not_paths(market):
    extra = market / "templates" / GAME / "info.html"
    extra.write_text("{{ fonts[0].path.read_text() }}", encoding="utf-8")
    result = pnp(market, "build", GAME, "--players", "2", "--paper", "a4", "--jobs", "1")
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.splitlines()[-1] == ("templates/night-market/info.html:1: info page: template failed: "
                                              "'dict object' has no attribute 'path'")


def test_a_named_icon_in_a_linked_icons_folder_is_drawn(tmp_path):
    """icons/ may be a link to a shared folder (as fonts/ may): a template's icon named by its file
    there is found and drawn, as an emoji's is, rather than failing on the link's real path."""
    project = tmp_path / "bench"
    for part in ("cards", "templates"):
        shutil.copytree(ROOT / "bench" / part, project / part)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / "bench" / shared)
    result = pnp(project, "build", "deck450", "--only", "c001")
    assert result.exit_code == 0, result.output
    from PIL import Image
    proof = Image.open(next((project / "build/deck450/cards").glob("*.png"))).convert("RGB")
    data = proof.tobytes()
    gold = sum(1 for i in range(0, len(data), 3)
               if abs(data[i] - 0xf4) < 20 and abs(data[i + 1] - 0xc4) < 20 and abs(data[i + 2] - 0x30) < 30)
    assert gold > 50                                      # the icon's yellow disc, drawn on the card


def _first_card_page(manifest: dict) -> int:
    return next(n for n, page in enumerate(manifest["pages"]) if page["role"].startswith("cards"))


def _deck(manifest: dict) -> dict:
    return next(c for c in manifest["components"] if c["kind"] == "deck")


@pytest.mark.parametrize("edit, said", [
    (lambda m: m["pages"][1].pop("role"), "pages[1].role: missing"),
    (lambda m: m.pop("components"), "components: missing"),
    (lambda m: m["pages"][_first_card_page(m)]["slots"][0].__setitem__("trim", "wide"),
     "pages[{card}].slots[0].trim: input should be a list, not 'wide'"),
    (lambda m: m["pages"][_first_card_page(m)]["slots"][0].pop("copy"), "pages[{card}].slots[0].copy: missing"),
    (lambda m: m["pages"][_first_card_page(m)].__setitem__("number", 999),
     "pages[{card}].number: 999 is not a page of the PDF (1 to {pages})"),
    (lambda m: m["pages"][_first_card_page(m)]["slots"][0].__setitem__("component", "nope"),
     "pages[{card}].slots[0]: its component 'nope' is no deck the manifest lists"),
    (lambda m: m.__setitem__("print", None), "print: input should be a JSON object, not None"),
    (lambda m: _deck(m).pop("trim_mm"), "components[{deck}].trim_mm: missing"),
    (lambda m: m["pages"][0].__setitem__("number", "1"), "pages[0].number: input should be a valid integer, not '1'"),
    (lambda m: m["pages"].__setitem__(0, 5), "pages[0]: input should be a JSON object, not 5"),
    (lambda m: m.clear() or m.update(pages="all"), "pages: input should be a valid list, not 'all'"),
])
def test_preflight_of_a_manifest_it_cannot_read_is_one_line_naming_where(market_pack, tmp_path, edit, said):
    """`pnp preflight FILE.pdf` reads whatever manifest lies beside the file: one edited by hand
    is a finding that names the field, exit status 1, never an internal error."""
    pdf = tmp_path / "pack.pdf"
    shutil.copyfile(market_pack, pdf)
    manifest = json.loads(market_pack.with_suffix(".json").read_text(encoding="utf-8"))
    where = {"card": _first_card_page(manifest), "pages": len(manifest["pages"]),
             "deck": manifest["components"].index(_deck(manifest))}
    edit(manifest)
    (tmp_path / "pack.json").write_text(json.dumps(manifest), encoding="utf-8")
    result = pnp(tmp_path, "preflight", str(pdf))
    assert result.exit_code == 1
    assert f"{pdf}: the manifest pack.json does not describe a pack: {said.format(**where)}" in result.output
    assert "internal error" not in result.output and "Traceback" not in result.output


def test_preflight_of_its_own_manifest_finds_nothing_to_say_about_it(market_pack):
    result = pnp(market_pack.parent, "preflight", str(market_pack))
    assert result.exit_code == 0, result.output
    assert "does not describe" not in result.output


# --- round three (issue 38) ---------------------------------------------------------------------

def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def _victim(tmp_path) -> Path:
    victim = tmp_path / "elsewhere"
    victim.mkdir()
    for name in ("photo.png", "plan.svg", "plan.dxf"):
        (victim / name).write_bytes(b"keep me")
    return victim


def test_gallery_deletes_nothing_through_a_linked_img_folder(market, tmp_path):
    victim = _victim(tmp_path)
    (market / "build" / GAME / "gallery").mkdir(parents=True)
    (market / "build" / GAME / "gallery" / "img").symlink_to(victim)
    result = pnp(market, "gallery", GAME)
    assert result.exit_code == 1 and _files(victim) == {n: b"keep me" for n in ("photo.png", "plan.svg", "plan.dxf")}
    assert result.output.splitlines() == [
        "build/night-market/gallery/img: is a symbolic link; pnp writes and deletes its outputs only in folders "
        "of its own (hint: remove the link; pnp makes the folder again)"]


@pytest.mark.parametrize("linked", ["night-market-2p-a4-silhouette-cut", ""])
@pytest.mark.usefixtures("seeded_market")       # its faces from the store: the links are what is tried
def test_a_cutter_build_deletes_nothing_through_a_link(market, tmp_path, linked):
    """The -cut folder, or the game's whole output folder, linked elsewhere: refused before a
    file is written there (old temporary files are swept from the game's folder too)."""
    victim = _victim(tmp_path)
    (victim / ".night-market-2p-a4.pdf.1-1.tmp").write_bytes(b"keep me")
    os.utime(victim / ".night-market-2p-a4.pdf.1-1.tmp", (0, 0))
    (market / "build").mkdir(exist_ok=True)
    if linked:
        (market / "build" / GAME).mkdir()
    (market / "build" / GAME / linked if linked else market / "build" / GAME).symlink_to(victim)
    result = pnp(market, "build", GAME, "--players", "2", "--paper", "a4", "--cutter", "silhouette")
    assert result.exit_code == 1 and len(_files(victim)) == 4 and set(_files(victim).values()) == {b"keep me"}
    shown = f"build/night-market/{linked}" if linked else "build/night-market"
    assert result.output.splitlines()[-1] == (
        f"{shown}: is a symbolic link; pnp writes and deletes its outputs only in folders of its own "
        "(hint: remove the link; pnp makes the folder again)")


def test_serve_root_page_escapes_folder_names(server, tmp_path):
    build = tmp_path / "project" / "build"
    for name in ('<script>alert(1)<', 'a"b&c'):
        (build / name / "gallery").mkdir(parents=True)
        (build / name / "gallery" / "index.html").write_text("x", encoding="utf-8")
    status, body, _ = _get(server, "/")
    assert status == 200 and b"<script>" not in body
    assert body.count(b"<li>") == 3
    assert b'<a href="/%3Cscript%3Ealert%281%29%3C/gallery/">&lt;script&gt;alert(1)&lt;/gallery</a>' in body
    assert b'<a href="/a%22b%26c/gallery/">a&quot;b&amp;c/gallery</a>' in body


@pytest.mark.usefixtures("seeded_market")       # the unchanged cards' faces from the store: the sheet is tried
def test_shop_order_sheet_cells_are_never_formulas(market):
    for card, name in (("走马灯", "=1+2"), ("福袋", "@A1"), ("米酒", "-2+3"), ("花糕", "+A1")):
        _edit(market, "goods.yaml", f"name: {card},", f"name: \"{name}\",")
    result = pnp(market, "export", GAME, "--shop", "png", "--players", "2")
    assert result.exit_code == 0, result.output
    import csv
    import io
    import zipfile
    archive = zipfile.ZipFile(next((market / "build" / GAME).glob("*png*.zip")))
    names = {row["card"]: row["name"] for row in csv.DictReader(io.StringIO(archive.read("counts.csv").decode()))}
    assert [names[c] for c in ("lantern", "gift", "beer", "blossom", "dice")] == ["'=1+2", "'@A1", "'-2+3", "'+A1", "骰子摊"]


@pytest.mark.parametrize("cell, safe", [("=HYPERLINK(\"x\")", "'=HYPERLINK(\"x\")"), ("\tx", "'\tx"),
                                        ("\rx", "'\rx"), ("a=b", "a=b"), (-3, -3), ("", "")])
def test_spreadsheet_safe_cells(cell, safe):
    from generator.export.shops import spreadsheet_safe
    assert spreadsheet_safe(cell) == safe


def _socket_at(path: Path) -> None:
    """A socket file at `path`, bound by its name from its folder: a socket's path is limited to 107
    bytes, which a deep temporary folder (a test worker's) passes."""
    import socket
    server = socket.socket(socket.AF_UNIX)
    here = os.getcwd()
    os.chdir(path.parent)
    try:
        server.bind(path.name)
    finally:
        os.chdir(here)
        server.close()


@pytest.mark.parametrize("make", [os.mkfifo, _socket_at], ids=["named-pipe", "socket"])
def test_a_deck_file_that_is_a_pipe_or_socket_is_one_line_at_once(market, make):
    (market / FOLDER / "stalls.yaml").unlink()
    make(market / FOLDER / "stalls.yaml")
    import time
    started = time.monotonic()
    result = pnp(market, "build", GAME, "--players", "2", "--paper", "a4")
    assert result.exit_code == 1 and time.monotonic() - started < 10
    assert result.output.splitlines() == [
        "cards/night-market/stalls.yaml: not a regular file (a named pipe, socket or device) "
        "(hint: remove it from the project's folders; pnp reads only ordinary files)"]


@pytest.mark.usefixtures("seeded_market")
def test_pipes_sockets_and_devices_the_game_does_not_name_are_not_read(market):
    os.mkfifo(market / FOLDER / "notes.yaml")
    _socket_at(market / "templates" / GAME / "x.sock")
    (market / FOLDER / "zero.bin").symlink_to("/dev/zero")
    result = pnp(market, "build", GAME, "--players", "2", "--paper", "a4")
    assert result.exit_code == 0, result.output


def test_a_file_size_limit_is_one_line_and_exit_1(market):
    import resource
    import sys

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PNP_SERVER": "0"}
    result = subprocess.run([sys.executable, "-m", "generator", "--project", str(market), "build", GAME, "--players",
                             "2", "--paper", "a4"], capture_output=True, text=True, preexec_fn=limit, env=env,
                            cwd=market, timeout=120)
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert result.stderr.splitlines()[-1] == ("build: cannot write: File too large (hint: a file-size limit "
                                              "(ulimit -f) is below what the build writes; raise it)")
    assert not list((market / "build").rglob("*.pdf")) and not list((market / "build").rglob("*.tmp"))


CONFIG_TEXT = """# Printers in the studio (measured 2026-11-30)
[print]
printer = "office"   # the one by the window

[printers.office]
back_offset = [0.8, -1.2]   # mm
duplex = "long"
"""


def test_calibrate_keeps_the_comments_and_layout_of_pnp_toml(market):
    (market / "pnp.toml").write_text(CONFIG_TEXT, encoding="utf-8")
    assert pnp(market, "calibrate", "--printer", "office", "--offset", "0.5,0.25").exit_code == 0
    assert pnp(market, "calibrate", "--printer", "lab", "--offset", "-1,2").exit_code == 0
    assert (market / "pnp.toml").read_text(encoding="utf-8") == CONFIG_TEXT.replace(
        '"office"   #', '"lab"   #').replace("[0.8, -1.2]", "[0.5, 0.25]") + "\n[printers.lab]\nback_offset = [-1.0, 2.0]\nduplex = \"long\"\n"


def test_two_calibrations_at_once_both_land(market):
    """Each run reads pnp.toml again under the lock: neither overwrites the other's printer."""
    import sys
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PNP_SERVER": "0"}
    for attempt in range(3):
        (market / "pnp.toml").write_text(CONFIG_TEXT, encoding="utf-8")
        runs = [subprocess.Popen([sys.executable, "-m", "generator", "--project", str(market), "calibrate",
                                  "--printer", f"p{attempt}-{n}", "--offset", f"{n},{n}"], env=env,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE) for n in range(4)]
        assert all(run.wait(timeout=120) == 0 for run in runs)
        import tomllib
        saved = tomllib.loads((market / "pnp.toml").read_text(encoding="utf-8"))
        assert set(saved["printers"]) == {"office"} | {f"p{attempt}-{n}" for n in range(4)}


@pytest.mark.parametrize("text, line", [
    ('[print]\nduplx = "short"\n', 'pnp.toml:2: print.duplx: unknown key (accepted: duplex, printer)'),
    ('[printers.office]\nback_ofset = [1, 1]\n',
     'pnp.toml:2: printers.office.back_ofset: unknown key (accepted: back_offset, duplex)'),
    ('[pdfx]\nicc = "x.icc"\n[prnt]\nprinter = "a"\n', 'pnp.toml:3: prnt: unknown key (accepted: pdfx, print, printers)'),
])
def test_an_unknown_key_in_pnp_toml_is_named_with_the_accepted_ones(market, text, line):
    (market / "pnp.toml").write_text(text, encoding="utf-8")
    for args in (("build", GAME, "--players", "2", "--paper", "a4"), ("calibrate", "--printer", "x", "--offset", "1,1")):
        result = pnp(market, *args)
        assert result.exit_code == 1 and result.output.splitlines() == [line]
    assert (market / "pnp.toml").read_text(encoding="utf-8") == text


BOMB = "".join(f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}" if n else '"lol"'] * 9) + "]\n" for n in range(9))


@pytest.mark.parametrize("name, text, line, size", [
    ("cards/g/i18n/en.yaml", "language: en\ntexts:\n" + "".join("  " + row for row in BOMB.splitlines(True)), 9,
     "5,380,840"),
    ("cards/g/claims.yaml", BOMB, 7, "5,380,840"),
    ("cards/g/goods.yaml", "tags: [&t \"" + "夜" * 2000 + "\"" + ", *t" * 60000 + "]\n", 1, "1,260,022"),
])
def test_an_alias_bomb_is_refused_before_it_is_built(tmp_path, monkeypatch, name, text, line, size):
    """A translation catalogue, claims, any YAML: refused by the loader from the document's nodes, before
    any value is made of them (it was timed, under a second: a test that failed on a busy machine)."""
    from generator.source import yamlsrc
    built = []
    monkeypatch.setattr(yamlsrc._BASE_LOADER, "construct_document", lambda loader, node: built.append(node))
    (tmp_path / "x.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(PnpError) as raised:
        yamlsrc.load_yaml(tmp_path / "x.yaml", name)
    assert built == []
    assert str(raised.value) == (f"{name}:{line}: aliases (*name) expand this value to {size} items, 1,000,000 more "
                                 "than the file's own at most (an item is a value, or 100 characters of text) (hint: "
                                 "a YAML alias bomb? use each alias for a small shared value)")


def test_aliases_that_share_a_base_are_not_a_bomb(tmp_path):
    """The usual use: a base mapping merged into each of many cards."""
    from generator.source.yamlsrc import load_yaml
    cards = "".join(f"  - {{<<: *base, id: c{n}}}\n" for n in range(3000))
    (tmp_path / "x.yaml").write_text("base: &base {" + ", ".join(f"k{n}: v" for n in range(30)) + "}\ncards:\n" + cards)
    assert len(load_yaml(tmp_path / "x.yaml", "x.yaml")["cards"]) == 3000


@pytest.mark.parametrize("icc", ["/etc/hostname", "fifo"])
def test_a_wrong_icc_profile_is_refused_before_anything_is_written(market, icc):
    if icc == "fifo":
        icc = str(market / "shop.icc")
        os.mkfifo(icc)
    result = pnp(market, "export", GAME, "--shop", "dtc", "--pdfx", "--icc", icc)
    assert result.exit_code == 1
    assert result.output.splitlines() == [f"--icc: ICC profile {icc} not found" if icc.endswith("shop.icc") else
                                          f"{icc}: not an ICC profile"]
    assert not (market / "build" / GAME).exists() or not any((market / "build" / GAME).iterdir())


def test_a_byte_order_mark_on_any_input_is_not_an_error(market):
    """Editors on Windows write one at the start of any text file: a template, a stylesheet, the
    rules module, pnp.toml, a data file. None of them prints U+FEFF or fails on it."""
    for name in ("templates/night-market/goods.html", "templates/night-market/market.css",
                 "cards/night-market/rules.py", "cards/night-market/game.yaml", "cards/night-market/claims.yaml"):
        (market / name).write_bytes(b"\xef\xbb\xbf" + (market / name).read_bytes())
    (market / "pnp.toml").write_bytes(b'\xef\xbb\xbf[print]\nduplex = "long"\n')
    result = pnp(market, "build", GAME, "--players", "2", "--paper", "a4")
    assert result.exit_code == 0, result.output


def test_a_stylesheet_import_of_a_named_pipe_is_refused_not_waited_on(market):
    os.mkfifo(market / "templates" / GAME / "extra.css")
    css = market / "templates" / GAME / "market.css"
    css.write_text('@import "extra.css";\n' + css.read_text(encoding="utf-8"), encoding="utf-8")
    result = pnp(market, "build", GAME, "--players", "2", "--paper", "a4")
    assert result.exit_code == 1 and result.output.splitlines()[-1] == (
        "cards/night-market/goods.yaml:15: goods faces: blocked: extra.css is not a regular file (a named pipe, "
        "socket or device)")


def test_a_rules_module_far_too_large_is_one_line(market):
    rules = market / FOLDER / "rules.py"
    rules.write_text(rules.read_text(encoding="utf-8") + "#" * 1_100_000 + "\n", encoding="utf-8")
    result = pnp(market, "validate", GAME)
    assert result.exit_code == 1 and result.output.splitlines() == [
        "cards/night-market/rules.py: file is 1074 KB; the limit is 1000 KB (hint: split it or remove pasted data)"]


# --- round three, red team: the new code attacked (issue 38) -----------------------------------

LINK_REFUSED = ("is a symbolic link; pnp writes and deletes its outputs only in folders of its own (hint: remove the "
                "link; pnp makes the folder again)")


def test_a_linked_gallery_folder_above_img_is_refused_too(market, tmp_path):
    victim = _victim(tmp_path)
    (market / "build" / GAME).mkdir(parents=True)
    (market / "build" / GAME / "gallery").symlink_to(victim)
    result = pnp(market, "gallery", GAME)
    assert result.exit_code == 1 and result.output.splitlines() == [f"build/night-market/gallery: {LINK_REFUSED}"]
    assert sorted(_files(victim)) == ["photo.png", "plan.dxf", "plan.svg"]


def test_a_linked_build_folder_is_the_designers_choice(market, market_store, tmp_path):
    """build/ itself on another disk: allowed, and old images are still cleared inside it."""
    elsewhere = tmp_path / "disk"
    elsewhere.mkdir()
    (market / "build").symlink_to(elsewhere)
    seed_store(market, [market_store])      # (through the link) the faces from the store: the link is what is tried
    assert pnp(market, "gallery", GAME).exit_code == 0
    stale = elsewhere / GAME / "gallery" / "img" / "stale.png"
    stale.write_bytes(b"old")
    assert pnp(market, "gallery", GAME).exit_code == 0 and not stale.exists()


@pytest.mark.usefixtures("seeded_market")       # the faces from the store: the old images are what is tried
def test_a_link_or_folder_among_old_images_is_removed_as_a_link_or_left(market, tmp_path):
    victim = _victim(tmp_path)
    img = market / "build" / GAME / "gallery" / "img"
    img.mkdir(parents=True)
    (img / "old.png").symlink_to(victim / "photo.png")
    (img / "dir.png").mkdir()
    assert pnp(market, "gallery", GAME).exit_code == 0
    assert not (img / "old.png").is_symlink() and (victim / "photo.png").read_bytes() == b"keep me"
    assert (img / "dir.png").is_dir()


def test_serve_redirects_to_a_gallery_whose_name_has_a_line_break(tmp_path):
    project = tmp_path / "project"
    (project / "cards").mkdir(parents=True)
    gallery = project / "build" / "a\r\nSet-Cookie: x=1" / "gallery"
    gallery.mkdir(parents=True)
    (gallery / "index.html").write_text("x", encoding="utf-8")
    started, box = threading.Event(), {}
    threading.Thread(target=serve, args=(Project.at(project), 0),
                     kwargs={"say": lambda _: None, "ready": lambda s: (box.update(s=s), started.set())},
                     daemon=True).start()
    assert started.wait(10)
    try:
        status, _, location = _get(box["s"].server_address[1], "/")
        assert status == 302 and location == "/a%0D%0ASet-Cookie%3A%20x%3D1/gallery/"
    finally:
        box["s"].shutdown()


@pytest.mark.usefixtures("seeded_market")       # the cards' faces from the store: the sheet is tried
def test_a_piece_name_is_no_formula_in_the_order_sheet_either(market):
    _edit(market, "pieces.yaml", "name: 夜市计分板", 'name: "=HYPERLINK(1)"')
    result = pnp(market, "export", GAME, "--shop", "png", "--players", "2")
    assert result.exit_code == 0, result.output
    import zipfile
    sheet = zipfile.ZipFile(next((market / "build" / GAME).glob("*png*.zip"))).read("counts.csv").decode()
    assert "'=HYPERLINK(1)" in sheet and ",=HYPERLINK" not in sheet


@pytest.mark.parametrize("content, line", [
    (b"[print]\nduplex = \"long\"\n# \xff\xfe\n", "pnp.toml:3: not UTF-8 text (hint: save the file as UTF-8)"),
    (b"# " + b"x" * 120_000 + b"\n", "pnp.toml: file is 117 KB; the limit is 100 KB (hint: split it or remove pasted data)"),
    (b'print = "office"\n', "pnp.toml: print must be a table ([print]), got 'office'"),
    (b"[printers]\nback_offset = [1, 1]\n",
     "pnp.toml:2: printers.back_offset: a printer's settings are a table ([printers.NAME]), got [1, 1] (hint: "
     "pnp calibrate --printer NAME --offset X,Y writes one)"),
])
def test_a_broken_pnp_toml_is_one_line_and_calibrate_leaves_it(market, content, line):
    (market / "pnp.toml").write_bytes(content)
    result = pnp(market, "calibrate", "--printer", "office", "--offset", "1,1")
    assert result.exit_code == 1 and result.output.splitlines() == [line]
    assert (market / "pnp.toml").read_bytes() == content


@pytest.mark.parametrize("printer", ['office "2"', "a.b", "x]y", "打印机"])
@pytest.mark.usefixtures("seeded_market")
def test_calibrate_saves_any_printer_name_so_a_build_finds_it(market, printer):
    assert pnp(market, "calibrate", "--printer", printer, "--offset", "0.5,-0.5").exit_code == 0
    result = pnp(market, "build", GAME, "--players", "2", "--paper", "a4", "--printer", printer)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0].startswith(f"printer '{printer}': backs shifted by 0.5,-0.5 mm")


def test_a_merge_key_bomb_is_refused(tmp_path):
    from generator.source.yamlsrc import load_yaml
    text = "a0: &a0 {k: v}\n" + "".join(
        f"a{n}: &a{n} {{<<: [" + ", ".join([f"*a{n - 1}"] * 1) + "], " + ", ".join(f"m{i}: *a{n - 1}" for i in range(9))
        + "}\n" for n in range(1, 9))
    (tmp_path / "x.yaml").write_text(text, encoding="utf-8")
    with pytest.raises(PnpError) as raised:
        load_yaml(tmp_path / "x.yaml", "x.yaml")
    assert "aliases (*name) expand this value to" in str(raised.value) and str(raised.value).startswith("x.yaml:7: ")


def test_an_alias_bomb_in_a_large_file_parsed_in_chunks_is_refused(market):
    """A large card file (past 64 KB) is bounded the same way."""
    bomb = "".join(f"  - {{id: c{n}, name: c, price: 1, kind: 吃食, icon: 🏮, copies: 1}}\n" for n in range(1500))
    path = market / FOLDER / "goods.yaml"
    levels = "".join(f"    l{n}: &l{n} [" + ", ".join([f"*l{n - 1}" if n else '"x"'] * 9) + "]\n" for n in range(9))
    text = path.read_text(encoding="utf-8").replace("  fields:\n", "  x-bomb:\n" + levels + "  fields:\n", 1)
    path.write_text(text + bomb, encoding="utf-8")
    assert len(text + bomb) > 64 * 1024
    result = pnp(market, "build", GAME, "--players", "2", "--paper", "a4")
    assert result.exit_code == 1
    assert result.output.splitlines()[0].startswith("cards/night-market/goods.yaml:14: aliases (*name) expand this value")


def test_a_deck_file_linked_to_a_named_pipe_or_a_folder_is_one_line(market):
    os.mkfifo(market / FOLDER / "pipe")
    (market / FOLDER / "stalls.yaml").unlink()
    (market / FOLDER / "stalls.yaml").symlink_to("pipe")
    result = pnp(market, "validate", GAME)
    assert result.exit_code == 1 and result.output.splitlines() == [     # named by the file the link leads to
        "cards/night-market/pipe: not a regular file (a named pipe, socket or device) (hint: remove it from "
        "the project's folders; pnp reads only ordinary files)"]
    (market / FOLDER / "stalls.yaml").unlink()
    (market / FOLDER / "stalls.yaml").mkdir()
    result = pnp(market, "validate", GAME)
    assert result.exit_code == 1 and result.output.splitlines() == ["cards/night-market/stalls.yaml: is a folder, not a file"]


def test_a_title_that_says_the_placeholder_is_written_once(tmp_path):
    from generator.source.load import load_game
    project = tmp_path / "p"
    assert pnp(project, "new", "demo", "--title", "My __TITLE__: __GAME__ #1").exit_code == 0
    assert load_game(Project.at(project), "demo").spec.title == "My __TITLE__: __GAME__ #1"


def test_a_file_named_png_that_is_not_a_picture_is_named_without_an_address(tmp_path):
    from tests.test_inputs import make
    project = make(tmp_path / "project")
    (project / "cards/inputs/art/baker.png").write_text("<svg/>", encoding="utf-8")
    result = pnp(project, "build", "inputs", "--players", "2", "--paper", "a4")
    assert result.exit_code == 1 and result.output.splitlines() == [
        "templates/inputs/person.html:2: people/baker (face): template failed: art: art/baker.png: not a picture in "
        "a format its name says (PNG, JPEG or WebP)"]


@pytest.mark.usefixtures("seeded_market")
def test_link_loops_and_dangling_links_in_the_game_folder_are_not_inputs(market):
    (market / FOLDER / "loop.yaml").symlink_to("loop.yaml")
    (market / FOLDER / "gone.yaml").symlink_to("nowhere.yaml")
    (market / "templates" / GAME / "zero.css").symlink_to("/dev/zero")
    result = pnp(market, "build", GAME, "--players", "2", "--paper", "a4")
    assert result.exit_code == 0, result.output
    again = pnp(market, "build", GAME, "--players", "2", "--paper", "a4")
    assert "up to date" in again.output


def test_a_linked_gallery_fonts_folder_is_refused_before_a_font_is_written(market, tmp_path):
    victim = _victim(tmp_path)
    (market / "build" / GAME / "gallery").mkdir(parents=True)
    (market / "build" / GAME / "gallery" / "fonts").symlink_to(victim)
    result = pnp(market, "gallery", GAME)
    assert result.exit_code == 1 and result.output.splitlines() == [f"build/night-market/gallery/fonts: {LINK_REFUSED}"]
    assert sorted(_files(victim)) == ["photo.png", "plan.dxf", "plan.svg"]
