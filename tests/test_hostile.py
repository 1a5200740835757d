"""Hostile input (issue 18): game data and templates cannot touch files, reach engine objects or
run unbounded; git, paths, exports and `pnp serve` hold against a game from a stranger.
Each of these fails on the code before the fix."""
from __future__ import annotations

import http.client
import json
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
from tests.conftest import ROOT, pnp

GAME = "night-market"
FOLDER = Path("cards") / GAME


@pytest.fixture
def market(tmp_path) -> Path:
    project = tmp_path / "project"
    shutil.copytree(ROOT / "tests/fixtures/docs-game", project)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / shared)
    return project


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

def test_a_yaml_merge_key_is_not_a_duplicate(market):
    _edit(market, "game.yaml", "card:\n  size: bridge\n  bleed: 3", "card:\n  <<: {size: poker, bleed: 2}\n  size: bridge\n"
          "  bleed: 3")
    result = pnp(market, "validate", GAME)
    assert result.exit_code == 0, result.output


def test_a_byte_order_mark_is_not_an_error(market):
    path = market / FOLDER / "stalls.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    result = pnp(market, "validate", GAME)
    assert result.exit_code == 0, result.output


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
    from generator.render.pen import Pen, register_fonts
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
    canvas = Canvas(buffer, invariant=1, initialFontName=assets.fonts[0].name)
    pen = Pen(canvas, assets, 100)
    pen.icon("a/star.svg", 10, 10, 10)
    pen.icon("b/star.svg", 30, 10, 10)
    canvas.showPage()
    canvas.save()
    with pikepdf.open(io.BytesIO(buffer.getvalue())) as pdf:
        forms = {bytes(x.read_bytes()) for x in pdf.pages[0].Resources.XObject.values()}
    assert len(forms) == 2


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
