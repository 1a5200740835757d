"""What a designer meets in their first five minutes: pnp found from any folder of a project,
`pnp new` outside one, a closed pipe, the progress display, typed choices in any case, "did you
mean", counted words, help texts, the calibration sheet's command, a saved printer offset, and
the README tour's reprint step."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import click
import pytest
from click.testing import CliRunner

from generator.commands import cli
from generator.commands.cli import main
from generator.source.assets import Assets
from generator.source.project import Project
from generator.source.words import count
from tests.conftest import ROOT, make_project, pnp, seed_store
from tests.pdfcheck import page_text


@pytest.fixture
def demo(tmp_path):
    """A project with one small game from the scaffold (quick to build)."""
    project = tmp_path / "demo-project"
    assert pnp(project, "new", "demo").exit_code == 0
    return project


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory):
    """The scaffold game validated once in this module: every pack's faces, boards and rulebook pages
    drawn into its store, read only."""
    project = tmp_path_factory.mktemp("demo-store") / "demo-project"
    assert pnp(project, "new", "demo").exit_code == 0
    result = pnp(project, "validate", "demo")
    assert result.exit_code == 0, result.output
    return SimpleNamespace(project=project)


@pytest.fixture
def seeded(demo, demo_store):
    """`demo` whose store starts with what demo_store drew (seed_store: its packs are made anew): for a
    test whose first build or validation only sets the scene."""
    seed_store(demo, [demo_store])
    return demo


def here(folder, *args):
    """pnp run in `folder`, without --project."""
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        return CliRunner().invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(cwd)


# --- finding the project ------------------------------------------------------------------------

@pytest.mark.usefixtures("seeded")
def test_pnp_finds_the_project_from_any_folder_inside_it(demo):
    for folder in (demo, demo / "cards" / "demo", demo / "templates"):
        result = here(folder, "list")
        assert result.exit_code == 0 and result.output.startswith("demo: Demo"), (folder, result.output)
    result = here(demo / "cards" / "demo", "validate", "demo")
    assert result.exit_code == 0 and "demo: valid" in result.output


def test_new_outside_a_project_makes_one_folder_with_everything(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    result = here(empty, "new", "river")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in empty.iterdir()) == ["river"]
    made = sorted(p.name for p in (empty / "river").iterdir())
    assert made == [".gitignore", "cards", "fonts", "icons", "pnp", "schemas", "templates"]
    assert "Next: cd river, then ./pnp validate river" in result.output
    guide = result.output.rstrip().rsplit("the format is in ", 1)[1]      # pnp's own: the project has no docs/
    assert guide == str(ROOT / "docs/authoring.md") and Path(guide).is_file(), result.output
    assert (empty / "river/.gitignore").read_text() == "build/\n"
    run = subprocess.run([str(empty / "river/pnp"), "validate", "river"], cwd=empty / "river/cards",
                         capture_output=True, text=True)
    assert run.returncode == 0 and "river: valid" in run.stdout
    again = here(empty, "new", "river")
    assert again.exit_code == 1 and "river: already exists and is not empty" in again.output


def test_inside_a_project_new_adds_a_game(demo):
    result = here(demo / "cards", "new", "second")
    assert result.exit_code == 0 and (demo / "cards/second/game.yaml").is_file()
    assert "second: ready. Next: ./pnp validate second" in result.output


@pytest.mark.usefixtures("seeded")
def test_every_command_takes_project(demo):
    leaves = [(f"{name} {sub}", c) for name, command in main.commands.items()
              for sub, c in (getattr(command, "commands", None) or {"": command}).items()]
    lacking = [name for name, command in leaves if "--project" not in {o for p in command.params for o in p.opts}]
    groups = [c for c in main.commands.values() if getattr(c, "commands", None)]
    assert lacking == [] and len(leaves) == len(main.commands) + sum(len(g.commands) - 1 for g in groups)
    assert pnp(demo, "build", "demo", "--players", "2", "--paper", "a4").exit_code == 0
    result = here(demo.parent, "preflight", "--project", "demo-project", "build/demo/demo-2p-a4.pdf")
    assert result.exit_code == 0 and "— ok" in result.output
    result = here(demo / "cards", "preflight", "build/demo/demo-2p-a4.pdf")
    assert result.exit_code == 0 and "— ok" in result.output


# --- pipes and progress -------------------------------------------------------------------------

def test_a_closed_pipe_ends_quietly(demo):
    """`pnp list | head -1`: once the reader is gone, pnp stops without a word (status 141, as a
    program killed by SIGPIPE)."""
    read, write = os.pipe()
    os.close(read)
    run = subprocess.run([sys.executable, "-m", "generator", "--project", str(demo), "list"], stdout=write,
                         stderr=subprocess.PIPE, text=True)
    os.close(write)
    assert run.returncode == 141 and run.stderr == ""


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_on_a_terminal_ends_cleanly_and_stays_out_of_pipes(monkeypatch):
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.delenv("CI", raising=False)
    advance = cli._progress("demo", 5)
    assert cli._LIVE
    advance(2)
    advance(3)
    assert cli._LIVE == []                      # stopped at the last face: nothing left to redraw
    shown = terminal.getvalue()
    assert "rendering demo" in shown and "5/5" in shown
    assert shown.endswith("\x1b[?25h\r\x1b[1A\x1b[2K")     # cursor given back, the bar's line erased
    monkeypatch.setenv("CI", "true")
    assert cli._progress("demo", 5) is None
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.delenv("CI")
    assert cli._progress("demo", 5) is None


@pytest.mark.usefixtures("seeded")
def test_progress_counts_only_the_faces_really_rendered(demo):
    """Half the faces from the cache: the display is started for the other half and reaches it."""
    path = demo / "cards/demo/cards.yaml"
    assert pnp(demo, "build", "demo", "--players", "2", "--paper", "a4").exit_code == 0
    path.write_text(path.read_text(encoding="utf-8").replace("name: Spark", "name: Flare"), encoding="utf-8")
    from generator.sheets.kit import build_game
    from generator.source.assets import Assets
    from generator.source.project import Project
    project = Project.at(demo)
    seen = []

    def progress(label, total):
        seen.append([total, 0])
        return lambda n: seen[-1].__setitem__(1, seen[-1][1] + n)
    _, fresh = build_game(project, Assets(project), "demo", [2], ["a4"], say=lambda _: None, progress=progress)
    assert seen == [[len(fresh), len(fresh)]] and len(fresh) == 1


# --- choices, suggestions, words, help ----------------------------------------------------------

@pytest.mark.parametrize("command,args,name,value", [
    ("build", ["--paper", "A4", "--duplex", "Short"], "paper", "a4"),
    ("export", ["g", "--shop", "TGC"], "shop", "tgc"),
    ("calibrate", ["--paper", "Letter"], "paper", "letter"),
])
def test_choices_in_any_case(command, args, name, value):
    ctx = main.commands[command].make_context(command, list(args))
    assert ctx.params[name] == value


def test_did_you_mean(demo):
    result = pnp(demo, "validate", "dmeo")
    assert result.exit_code == 1 and "cards/dmeo: no game 'dmeo' (games: demo) (did you mean demo?)" in result.output
    result = pnp(demo, "build", "demo", "--only", "actions/stpe")
    assert result.exit_code == 1 and "no card 'actions/stpe' (did you mean actions/step?)" in result.output
    result = pnp(demo, "biuld")
    assert result.exit_code == 2 and "No such command 'biuld' (did you mean build?)." in result.output
    result = pnp(demo, "build", "demo", "--player", "2")
    assert result.exit_code == 2 and "--players" in result.output


@pytest.mark.usefixtures("seeded")
def test_counted_words_agree_with_their_number(demo):
    assert (count(1, "face"), count(2, "face"), count(0, "face")) == ("1 face", "2 faces", "0 faces")
    assert count(1, "changed card") == "1 changed card"
    listing = pnp(demo, "list").output
    assert "(1 design, 63×88 mm)" in listing and "(5 designs," in listing
    assert "demo: valid (0 notes)" in pnp(demo, "validate").output


def test_list_names_the_extras_pack(tmp_path):
    project = make_project(tmp_path / "p", ["reverse-wizard"])
    packs = [line.split(":")[0].strip() for line in pnp(project, "list").output.splitlines() if "  pack " in line]
    assert packs == ["pack  4p", "pack  3p 三人变体", "pack  extras (optional, for 4p)"]


def test_help_is_whole_and_every_option_has_some():
    result = CliRunner().invoke(main, ["--help"], terminal_width=60)
    flat = " ".join(result.output.split())
    for name, command in main.commands.items():
        first = " ".join(command.help.split("\n\n")[0].split())
        assert first in flat, name
        undocumented = [p.opts[0] for p in command.params if isinstance(p, click.Option) and not p.help]
        assert undocumented == [], name
    assert "..." not in result.output.split("Commands:")[1]


# --- printing: the calibration sheet's command, saved offsets -------------------------------------

def test_calibration_sheet_prints_commands_with_ascii_minus(demo):
    assert pnp(demo, "calibrate").exit_code == 0
    text = page_text(demo / "build/calibration-a4-long.pdf", 1)
    assert "--offset 1.5,-0.5" in text and "−0.5" not in text
    result = pnp(demo, "calibrate", "--printer", "office", "--offset", "1.5,−0.5")   # typed off a scale label
    assert result.exit_code == 0 and "saved back offset 1.5,-0.5 mm" in result.output


@pytest.mark.usefixtures("seeded")
def test_a_build_says_when_a_saved_offset_moves_the_backs(demo):
    assert pnp(demo, "calibrate", "--printer", "office", "--offset", "0.8,-1.2").exit_code == 0
    result = pnp(demo, "build", "demo", "--players", "2", "--paper", "a4")
    assert result.exit_code == 0
    assert result.output.splitlines()[0] == ("printer 'office': backs shifted by 0.8,-1.2 mm (saved in pnp.toml; "
                                             "--back-offset 0,0 prints without)")
    plain = pnp(demo, "build", "demo", "--players", "2", "--paper", "a4", "--back-offset", "0,0")
    assert "backs shifted" not in plain.output


# --- the README tour ------------------------------------------------------------------------------

@pytest.mark.usefixtures("seeded")
def test_tour_step_4_reprints_the_card_changed_in_step_3(demo):
    """Build, edit a card, build again to look at it (step 3), then reprint (step 4): the card is
    reprinted, since it changed after the sheets came out; a second reprint has nothing to do."""
    assert pnp(demo, "build", "demo", "--players", "2", "--paper", "a4").exit_code == 0
    path = demo / "cards/demo/cards.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("name: Spark", "name: Flare"), encoding="utf-8")
    rebuilt = pnp(demo, "build", "demo", "--players", "2", "--paper", "a4")
    assert "rendered 1 face," in rebuilt.output
    result = pnp(demo, "reprint", "demo", "--paper", "a4")
    assert result.exit_code == 0 and "(1 changed card, " in result.output, result.output
    manifest = json.loads((demo / "build/demo/demo-reprint-a4.json").read_text())
    assert [c["id"] for c in manifest["components"] if c["kind"] == "deck"] == ["actions"]
    again = pnp(demo, "reprint", "demo", "--paper", "a4")
    assert "nothing changed since the cards were last printed" in again.output and "--since REV" in again.output


@pytest.mark.usefixtures("seeded")
def test_a_card_added_after_the_first_build_is_reprinted_though_built_since(demo):
    """A card added to a pack that was built (and printed) before is not on paper when a later build
    shows it: the reprint lists it as a new card until it has printed it."""
    assert pnp(demo, "build", "demo", "--players", "2", "--paper", "a4").exit_code == 0
    edit = lambda name, old, new: (demo / name).write_text(                           # noqa: E731
        (demo / name).read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    edit("cards/demo/cards.yaml", "  - {id: step,", '  - {id: comet, name: Comet, value: 1, icon: ✨, effect: '
         '"**Draw** 1 card.", copies: {2: 1}}\n  - {id: step,')
    edit("cards/demo/game.yaml", "actions: {count: 10}", "actions: {count: 11}")
    assert pnp(demo, "build", "demo", "--players", "2", "--paper", "a4").exit_code == 0     # to look at it
    result = pnp(demo, "reprint", "demo", "--paper", "a4")
    assert result.exit_code == 0 and "(1 changed card, 1 to print" in result.output, result.output
    manifest = json.loads((demo / "build/demo/demo-reprint-a4.json").read_text())
    assert [(c["card"], c["what"]) for c in manifest["reprint"]["changes"]] == [("actions/comet", "new card")]
    again = pnp(demo, "reprint", "demo", "--paper", "a4")
    assert "nothing changed since the cards were last printed" in again.output


def _git_commit(project) -> None:
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(git + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "game"], check=True)


def test_reprint_since_head_on_a_clean_tree_reprints_nothing(demo):
    """The scratch copy of HEAD sees the same engine and the game's own fonts: the same keys."""
    _git_commit(demo)
    result = pnp(demo, "reprint", "demo", "--since", "HEAD", "--paper", "a4")
    assert result.exit_code == 0 and result.output == "demo: nothing changed since HEAD\n", result.output
    assert not (demo / "build/demo/demo-reprint-a4.pdf").exists()


@pytest.mark.usefixtures("seeded")
def test_reprint_says_a_deleted_decks_cards_are_removed_once(demo):
    assert pnp(demo, "build", "demo", "--players", "2", "--paper", "a4").exit_code == 0
    game = demo / "cards/demo/game.yaml"
    text = game.read_text(encoding="utf-8").replace("decks: [cards.yaml, reference.yaml, goods.yaml]",
                                                    "decks: [cards.yaml, goods.yaml]")
    game.write_text(text.replace("      reference: {count: 2}\n", "").replace("      reference: {count: 3}\n", ""),
                    encoding="utf-8")
    first = pnp(demo, "reprint", "demo", "--paper", "a4")
    assert first.exit_code == 0, first.output
    assert first.output == ("demo: nothing changed since the cards were last printed (first built or reprinted) "
                            "(removed: reference/turn); --since REV compares with a git revision\n")
    again = pnp(demo, "reprint", "demo", "--paper", "a4")
    assert again.output == ("demo: nothing changed since the cards were last printed (first built or reprinted); "
                            "--since REV compares with a git revision\n")


@pytest.mark.usefixtures("seeded")
def test_a_reprints_page_1_says_since_last_printed(demo):
    assert pnp(demo, "build", "demo", "--players", "2", "--paper", "a4").exit_code == 0
    path = demo / "cards/demo/cards.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("name: Spark", "name: Flare"), encoding="utf-8")
    assert pnp(demo, "reprint", "demo", "--paper", "a4").exit_code == 0
    first = page_text(demo / "build/demo/demo-reprint-a4.pdf", 1)
    assert "Reprint: the cards changed since they were last printed" in " ".join(first.split())


# --- pnp assets add -------------------------------------------------------------------------------

def _tgz(path, files: dict[str, bytes]) -> None:
    import tarfile
    with tarfile.open(path, "w:gz") as archive:
        for name, data in files.items():
            info = tarfile.TarInfo(f"package/{name}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))


FLAMINGO = b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 36 36">\n  <circle cx="18" cy="18" r="9" fill="#f4abba"/>\n</svg>\n'


@pytest.mark.usefixtures("seeded")
def test_assets_add_an_emoji_from_the_registry(demo, monkeypatch, tmp_path):
    """The network step stubbed: pnp asks the npm registry for the Twemoji package once, writes the
    flamingo's SVG, and the card that uses it then builds."""
    from generator.commands import assets
    _tgz(tmp_path / "tw.tgz", {"1f9a9.svg": FLAMINGO, "1f600.svg": FLAMINGO})
    asked = []
    monkeypatch.setattr(assets, "fetch", lambda url: asked.append(url) or (tmp_path / "tw.tgz").read_bytes())
    path = demo / "cards/demo/cards.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("icon: ✨", "icon: 🦩"), encoding="utf-8")
    before = pnp(demo, "validate", "demo")
    assert before.exit_code == 1 and "no icon for '🦩'" in before.output and "pnp assets add 🦩" in before.output
    result = pnp(demo, "assets", "add", "🦩")
    assert result.exit_code == 0, result.output
    assert asked == ["https://registry.npmjs.org/@twemoji/svg/-/svg-15.0.0.tgz"]
    assert result.output.splitlines() == ["wrote icons/twemoji/1f9a9.svg: 🦩 (Twemoji 15.0.0, CC-BY 4.0)",
                                          "added 1 file; builds use them from now on (the face cache notices)"]
    assert (demo / "icons/twemoji/1f9a9.svg").read_text() == " ".join(FLAMINGO.decode().split()) + "\n"
    assert not (demo / "icons/twemoji/1f600.svg").exists()
    assert pnp(demo, "validate", "demo").exit_code == 0
    again = pnp(demo, "assets", "add", "🦩")
    assert again.output == "nothing to add: every character of '🦩' is in the bundled fonts or icons\n"
    assert len(asked) == 1


@pytest.mark.parametrize("damage", ["cut short", "garbled", "empty", "a folder"])
def test_a_damaged_package_in_the_cache_is_fetched_again(demo, monkeypatch, tmp_path, damage):
    """build/.cache/npm/ keeps what `assets add` downloaded; a package there that does not read back
    whole is a miss: removed, downloaded again, and the icon added (it was read as an empty package)."""
    from generator.commands import assets
    _tgz(tmp_path / "tw.tgz", {"1f9a9.svg": FLAMINGO})
    data = (tmp_path / "tw.tgz").read_bytes()
    cached = demo / "build/.cache/npm" / assets.tarball_name(*assets.TWEMOJI)
    cached.parent.mkdir(parents=True)
    if damage == "a folder":
        cached.mkdir()
    else:
        cached.write_bytes({"cut short": data[:len(data) // 2], "garbled": data[:20] + bytes(b ^ 0x5A for b in data[20:]),
                            "empty": b""}[damage])
    asked = []
    monkeypatch.setattr(assets, "fetch", lambda url: asked.append(url) or data)
    result = pnp(demo, "assets", "add", "🦩")
    assert result.exit_code == 0, result.output
    assert len(asked) == 1 and (demo / "icons/twemoji/1f9a9.svg").is_file()
    assert cached.read_bytes() == data


def test_assets_add_fetches_the_icon_of_a_pictograph_a_font_prints(demo, monkeypatch, tmp_path):
    """☀ prints from a bundled font, so text needs nothing; a board's icon element draws an SVG, so
    `assets add ☀️` still fetches it (it once said "nothing to add", and the board then failed)."""
    from generator.commands import assets
    assert not Assets(Project.at(demo)).missing("☀") and Assets(Project.at(demo)).icon("☀️") is None
    _tgz(tmp_path / "tw.tgz", {"2600.svg": FLAMINGO})
    monkeypatch.setattr(assets, "fetch", lambda url: (tmp_path / "tw.tgz").read_bytes())
    result = pnp(demo, "assets", "add", "☀️")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == "wrote icons/twemoji/2600.svg: ☀ (Twemoji 15.0.0, CC-BY 4.0)"
    assert Assets(Project.at(demo)).icon("☀️") is not None


def _fewer_characters(path) -> None:
    """The project's font cut (by fontTools itself) to ASCII and the hanzi U+4E00–U+4EFF, every layout feature
    kept: `assets add` then cuts a package font of a few hundred glyphs, not the ~7,000 of the bundled subset
    (seconds of fontTools per weight), and does the same with it."""
    from fontTools import subset
    from fontTools.ttLib import TTFont
    font = TTFont(path)
    options = subset.Options()
    options.layout_features, options.notdef_outline, options.name_IDs = ["*"], True, ["*"]
    cutter = subset.Subsetter(options)
    cutter.populate(unicodes=[c for c in font.getBestCmap() if c < 0x80 or 0x4E00 <= c <= 0x4EFF])
    cutter.subset(font)
    font.save(path)


def test_assets_add_offline_and_a_character_into_the_fonts(demo, tmp_path):
    """--from FOLDER: the .tgz `npm pack` wrote. A hanzi outside the subset is added to both
    weights, keeping every character they had."""
    from fontTools.ttLib import TTFont
    for name in ("NotoSansSC-Regular.ttf", "NotoSansSC-Bold.ttf"):
        _fewer_characters(demo / "fonts" / name)
    regular = TTFont(demo / "fonts/NotoSansSC-Regular.ttf")
    old = set(regular.getBestCmap())
    assert 0x9F98 not in old                                   # 龘 is outside GB 2312
    sources = {}
    for name, member in (("NotoSansSC-Regular.ttf", "400Regular/NotoSansSC_400Regular.ttf"),
                         ("NotoSansSC-Bold.ttf", "700Bold/NotoSansSC_700Bold.ttf")):
        font = TTFont(demo / "fonts" / name)          # a stand-in for the package's full font: 龘 drawn as 一
        for table in font["cmap"].tables:
            if table.isUnicode():
                table.cmap[0x9F98] = table.cmap[0x4E00]
        out = io.BytesIO()
        font.save(out)
        sources[member] = out.getvalue()
    offline = tmp_path / "packs"
    offline.mkdir()
    _tgz(offline / "expo-google-fonts-noto-sans-sc-0.4.3.tgz", {**sources, "LICENSE_FONT": b"OFL"})
    result = pnp(demo, "assets", "add", "龘", "--from", str(offline))
    assert result.exit_code == 0, result.output
    assert "wrote fonts/NotoSansSC-Regular.ttf: added 龘 (U+9F98)" in result.output
    for name in ("NotoSansSC-Regular.ttf", "NotoSansSC-Bold.ttf"):
        assert set(TTFont(demo / "fonts" / name).getBestCmap()) == old | {0x9F98}
    missing = pnp(demo, "assets", "add", "🦩", "--from", str(offline))
    assert missing.exit_code == 1 and "twemoji-svg-15.0.0.tgz: not found (hint: on a machine with the network " \
                                      "run: npm pack @twemoji/svg@15.0.0)" in missing.output


def test_a_missing_library_inside_a_command_names_the_fix(demo, monkeypatch):
    import generator.source.load as load

    def lacking(*_, **__):
        raise ModuleNotFoundError("No module named 'uharfbuzz'", name="uharfbuzz")
    monkeypatch.setattr(load, "load_game", lacking)
    result = pnp(demo, "list")
    assert result.exit_code == 1 and result.output == (
        "a library pnp needs is missing (No module named 'uharfbuzz'): run `make kit` in the pnp folder, then ./pnp\n")

    def bug(*_, **__):
        raise ModuleNotFoundError("No module named 'generator.nope'", name="generator.nope")
    monkeypatch.setattr(load, "load_game", bug)
    result = pnp(demo, "list")
    assert result.exit_code == 3 and result.output.startswith("internal error: ModuleNotFoundError")


@pytest.mark.parametrize("damage", ["broken-font", "no-bold", "not-a-tarball"])
def test_assets_add_from_a_damaged_package_is_one_line_and_writes_nothing(demo, tmp_path, damage, monkeypatch):
    """A damaged package is one line and writes nothing, said before the regular font is cut (seconds
    for the real 10 MB one): every font of the package is read and checked before any is made."""
    from generator.commands import assets
    cut = []
    monkeypatch.setattr(assets, "subset_font", lambda font, unicodes: cut.append(font) or b"")
    fonts = {p.name: p.read_bytes() for p in (demo / "fonts").iterdir() if p.is_file()}
    offline = tmp_path / "packs"
    offline.mkdir()
    tgz = offline / "expo-google-fonts-noto-sans-sc-0.4.3.tgz"
    from fontTools.ttLib import TTFont
    font = TTFont(demo / "fonts/NotoSansSC-Regular.ttf")       # 龘 drawn as 一, as above
    for table in font["cmap"].tables:
        if table.isUnicode():
            table.cmap[0x9F98] = table.cmap[0x4E00]
    out = io.BytesIO()
    font.save(out)
    regular = out.getvalue()
    if damage == "not-a-tarball":
        tgz.write_bytes(b"\x1f\x8b not gzip at all")
    else:
        members = {"400Regular/NotoSansSC_400Regular.ttf": regular, "LICENSE_FONT": b"OFL"}
        if damage == "broken-font":
            members["700Bold/NotoSansSC_700Bold.ttf"] = regular[:2000]
        _tgz(tgz, members)
    result = pnp(demo, "assets", "add", "龘", "--from", str(offline))
    expected = {
        "broken-font": f"{tgz}:package/700Bold/NotoSansSC_700Bold.ttf: not a readable font",
        "no-bold": f"{tgz}:package/700Bold/NotoSansSC_700Bold.ttf: not in the package (hint: is it the package pnp names?)",
        "not-a-tarball": f"{tgz}: not a readable npm package (.tgz): ",
    }[damage]
    assert result.exit_code == 1 and len(result.output.splitlines()) == 1, result.output
    assert result.output.startswith(expected) and "Traceback" not in result.output
    assert {p.name: p.read_bytes() for p in (demo / "fonts").iterdir() if p.is_file()} == fonts
    assert cut == []


def test_a_cjk_extension_b_character_is_not_taken_for_an_emoji():
    from generator.commands.assets import _is_emoji
    assert not _is_emoji("\U00020000") and not _is_emoji("\U0002A6A5") and _is_emoji("🦩") and _is_emoji("☀")


TITLES = ["Catan: Seafarers", "Blood Bowl #2", 'The "Best" Game', "Back\\slash \"\"\" */ end", "- dash: [a] {b} & *c"]


@pytest.mark.parametrize("title", TITLES)
def test_new_writes_any_title_as_it_was_given(tmp_path, title):
    """The title reaches game.yaml, rules.py and a CSS comment as given. The titles that could end
    the comment or upset page 1's HTML are validated too (validate makes every pack); a colon, a hash
    or quotes only test the YAML and Python quoting, read back here."""
    from generator.source.load import load_game
    project = tmp_path / "p"
    assert pnp(project, "new", "demo", "--title", title).exit_code == 0
    if "*/" in title or "&" in title:
        assert pnp(project, "validate", "demo").exit_code == 0
    game = load_game(Project.at(project), "demo")
    assert game.spec.title == title
    import importlib.util
    spec = importlib.util.spec_from_file_location("scaffold_rules", project / "cards/demo/rules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.__doc__.startswith(f"Rules of {title}:")
    css = (project / "templates/demo/cards.css").read_text(encoding="utf-8")
    assert css.index("*/") > css.index("Positions are relative")        # the comment ends where it did


@pytest.mark.parametrize("title", ["two\nlines", "   ", "bell\x07"])
def test_new_refuses_a_title_that_is_not_one_line(tmp_path, title):
    result = pnp(tmp_path / "p", "new", "demo", "--title", title)
    assert result.exit_code == 1 and not (tmp_path / "p").exists()
    assert result.output.splitlines() == [f"--title: a title is one line of printable text, got {title!r}"
                                          .replace("\n", "⏎").replace("\x07", "\\x07")]
