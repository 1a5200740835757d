"""Shared fixtures: throw-away project folders and one real build of each game.

A test project copies cards/ and templates/ (so a test may break them) and links the
large fonts/ and icons/ folders. Builds go to the test project's own build/.

The shipped games come in two languages. A test about layout, caching or input does not need
both, so a project made by make_project builds and exports only the games' source language
(pnp() adds `--lang` to `build` and `export` unless the test gives one); the session builds of
the shipped games (which the editions' tests read) and calls with pnp(..., every_language=True)
build every language, as `pnp build` does.
"""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pikepdf
import pytest
from click.testing import CliRunner
from filelock import FileLock

from generator.commands.cli import main

ROOT = Path(__file__).resolve().parent.parent

# The engine's words and a command's default edition follow the reader's locale: tests get the same
# answers on every machine (a test about the locale sets its own).
for _name in ("LC_ALL", "LC_MESSAGES", "LANG"):
    os.environ.pop(_name, None)
os.environ["LANG"] = "C.UTF-8"

# `make test` runs a test worker per core and one more: a build inside a test uses one process unless the
# test asks for more (--jobs), so the workers do not fork a build's helpers over each other (measured on
# 120 build-heavy tests: 3 workers of one process 211 s, 2 workers of two 231 s).
if os.environ.get("PYTEST_XDIST_WORKER"):
    os.environ.setdefault("PNP_JOBS", "1")


SOURCE_ONLY = {}                  # project folder -> the one language its builds and exports make
EVERY_LANGUAGE_COMMANDS = ("build", "export")     # the commands that make every language by default


def make_project(target: Path, games: list[str] | None = None) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    (target / "cards").mkdir(exist_ok=True)
    games = games if games is not None else [p.name for p in (ROOT / "cards").iterdir() if p.is_dir()]
    for game in games:
        shutil.copytree(ROOT / "cards" / game, target / "cards" / game)
    shutil.copytree(ROOT / "templates", target / "templates")
    for shared in ("fonts", "icons"):
        (target / shared).symlink_to(ROOT / shared)
    note_source_only(target, games)
    return target


def note_source_only(target: Path, games: list[str]) -> None:
    sources = {_languages(target, game)[0] for game in games}
    if len(sources) == 1:
        SOURCE_ONLY[target.resolve()] = sources.pop()


def _languages(project: Path, game: str) -> list[str]:
    from generator.source.load import game_languages
    from generator.source.project import Project
    return game_languages(Project.at(project), game)


def pnp(project: Path, *args: str, every_language: bool = False):
    """Run the CLI in-process; returns click's Result (exit_code, output, stderr). In a project
    that builds its source language only, `build` and `export` get `--lang` (see above) unless
    this call asks for every language."""
    language = None if every_language else SOURCE_ONLY.get(Path(project).resolve())
    if language and args and args[0] in EVERY_LANGUAGE_COMMANDS and "--lang" not in args:
        args = (*args, "--lang", language)
    return CliRunner().invoke(main, ["--project", str(project), *args], catch_exceptions=False)


@pytest.fixture
def project(tmp_path) -> Path:
    return make_project(tmp_path / "project")


@pytest.fixture
def cephiro(tmp_path) -> Path:
    return make_project(tmp_path / "project", ["cephiro-pillar"])


class Built:
    """The packs of one game, built once per test session."""

    def __init__(self, project: Path, game: str):
        self.project, self.game = project, game
        self.folder = project / "build" / game
        languages = _languages(project, game)
        self.suffix = f"-{languages[0]}" if len(languages) > 1 else ""   # the source edition's files

    def pdf(self, pack: int | str, paper: str) -> pikepdf.Pdf:
        return pikepdf.open(self.folder / f"{self.game}-{_key(pack)}-{paper}{self.suffix}.pdf")

    def largest_manifest(self) -> dict:
        """The A4 manifest of the largest standard pack: the one exports and the gallery take."""
        manifests = [json.loads(p.read_text(encoding="utf-8")) for p in self.folder.glob(f"{self.game}-*p-a4{self.suffix}.json")]
        return max(manifests, key=lambda m: (sum(c["count"] for c in m["components"] if c["kind"] == "deck"),
                                             m["players"]))

    def manifest(self, pack: int | str, paper: str) -> dict:
        return json.loads((self.folder / f"{self.game}-{_key(pack)}-{paper}{self.suffix}.json").read_text(encoding="utf-8"))


def _key(pack: int | str) -> str:
    """A pack by player count (4 -> '4p') or by its id ('extras')."""
    return f"{pack}p" if isinstance(pack, int) else pack


def built_game(tmp_path_factory, game: str) -> Built:
    """The game built once for the whole test run: with several test workers (`make test` runs
    pytest-xdist), the first worker to ask builds it into the run's shared folder under a lock, and
    the others read that build (tests only read these projects, and write exports beside them, which
    a build writes whole or not at all)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent                  # the folder every worker of this run has in common
    project = shared / f"shipped-{game}"
    with FileLock(f"{project}.lock"):
        if not (project / ".built").exists():
            shutil.rmtree(project, ignore_errors=True)
            make_project(project, [game])
            # the editions' tests read every language; two processes, as `pnp build` makes them (a test
            # compares one process's edition with this one)
            result = pnp(project, "build", game, "--jobs", "2", every_language=True)
            assert result.exit_code == 0, result.output
            (project / ".built").touch()
        else:
            note_source_only(project, [game])
    return Built(project, game)


def gallery_made(kit: Built) -> Built:
    """`pnp gallery GAME` in the session's build of the game, once for the whole test run (under a lock,
    as the build): test_gallery and test_site both read it, and a second run writes the same files."""
    marker = kit.project / ".gallery-made"
    with FileLock(f"{kit.project}.gallery.lock"):
        if not marker.exists():
            result = pnp(kit.project, "gallery", kit.game)
            assert result.exit_code == 0, result.output
            marker.touch()
    return kit


def seed_store(project: Path, kits: list[Built], only: tuple[str, ...] = ()) -> None:
    """Start `project`'s store (build/.cache/) with what the session's builds of `kits` drew (linked,
    not copied: the store replaces an entry, it never writes into one); `only`: just those kinds
    (e.g. "faces", for a test that counts what else a cold build draws). Its whole packs and preflight
    records stay behind (a test of builds in other modes makes and checks every pack itself), and
    fontconfig's cache, which names its project's folders."""
    def link(source: str, target: str) -> None:
        if not os.path.exists(target):          # an entry two games share (by its key: the same bytes)
            os.link(source, target)
    left = {"packs", "pack-records", "preflight", "fontconfig"}
    for kit in kits:
        store = kit.project / "build" / ".cache"
        if only:
            left = {kind.name for kind in store.iterdir() if kind.name not in only}
        shutil.copytree(store, project / "build" / ".cache", dirs_exist_ok=True, copy_function=link,
                        ignore=shutil.ignore_patterns(*left))


GAMES = sorted(p.parent.name for p in (ROOT / "cards").glob("*/game.yaml"))
_built: dict[str, Built] = {}


def built(tmp_path_factory, game: str) -> Built:
    """Each shipped game built once per test session, on demand."""
    if game not in _built:
        _built[game] = built_game(tmp_path_factory, game)
    return _built[game]


@pytest.fixture(scope="session")
def cephiro_built(tmp_path_factory) -> Built:
    return built(tmp_path_factory, "cephiro-pillar")


@pytest.fixture(scope="session")
def nights_built(tmp_path_factory) -> Built:
    return built(tmp_path_factory, "seven-nights")


@pytest.fixture(scope="session")
def wizard_built(tmp_path_factory) -> Built:
    return built(tmp_path_factory, "reverse-wizard")


def browser_env() -> dict[str, str]:
    """The environment of a browser a test starts: the machine's own fonts. (A build in the test's
    process points FONTCONFIG_FILE at its project's configuration, which holds no fonts: pages draw
    with their @font-face fonts only.)"""
    return {k: v for k, v in os.environ.items() if k != "FONTCONFIG_FILE"}


@pytest.fixture(scope="module")
def browser():
    """Debian's chromium, driven by Playwright (the site's and the gallery's tests)."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "this test needs Debian's chromium (tools/install-system-deps.sh installs it)"
    from playwright.sync_api import sync_playwright
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=chromium, args=["--no-sandbox"], env=browser_env())
        yield launched
        launched.close()


# --- the repository's shared folders stay as they are --------------------------------------------
# A test project links the repository's fonts/ and icons/ (make_project). A test that writes through
# such a link rewrites the files every other test worker is reading at that moment: a font truncated
# while another build has it mapped ends that worker (SIGBUS: most likely a CI worker's crash), and a
# build that read it half written drew every character as a missing glyph. Each test is checked for
# it when it ends.
SHARED = ("fonts", "icons")


def _shared_files() -> dict[str, tuple[int, int, int]]:
    return {str(p.relative_to(ROOT)): (s.st_ino, s.st_size, s.st_mtime_ns)
            for folder in SHARED for p in sorted((ROOT / folder).rglob("*"))
            if p.is_file() and not p.is_symlink() for s in [p.stat()]}


@pytest.fixture(autouse=True)
def _shared_folders_untouched():
    before = _shared_files()
    yield
    after = _shared_files()
    changed = sorted(name for name in before.keys() | after.keys() if before.get(name) != after.get(name))
    assert not changed, (f"the repository's {', '.join(SHARED)} changed during this test (written through a "
                         f"test project's link, by this test or another worker's): {changed[:5]}")


# --- a crashed worker's report ------------------------------------------------------------------
# A test worker killed by a fatal signal (a segfault in a C library) shows in the run's output only
# as "node down" and a few lines of its stderr. Each worker writes Python's fatal-error report (every
# thread's stack) to a file of its own, and the run prints any such report at its end.

@pytest.hookimpl(trylast=True)     # after pytest's own faulthandler plugin, which reports to stderr
def pytest_configure(config):
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if worker is None:
        import tempfile
        os.environ["PNP_TEST_CRASHES"] = tempfile.mkdtemp(prefix="pnp-test-crashes-")   # (workers inherit it)
    elif os.environ.get("PNP_TEST_CRASHES"):
        _enable_crash_report(Path(os.environ["PNP_TEST_CRASHES"]) / f"{worker}.txt")


def _enable_crash_report(path: Path) -> None:
    import faulthandler
    global _CRASH_FILE
    _CRASH_FILE = open(path, "w")             # kept open: the report is written by the signal handler
    faulthandler.enable(file=_CRASH_FILE, all_threads=True)


_CRASH_FILE = None


def pytest_terminal_summary(terminalreporter):
    folder = os.environ.get("PNP_TEST_CRASHES")
    if os.environ.get("PYTEST_XDIST_WORKER") or not folder:
        return
    for report in sorted(Path(folder).glob("*.txt")):
        text = report.read_text(errors="replace").strip()
        if text:
            terminalreporter.section(f"fatal error in worker {report.stem}", sep="=", red=True)
            terminalreporter.write_line(_innermost(text))
    shutil.rmtree(folder, ignore_errors=True)


def _innermost(report: str, frames: int = 15) -> str:
    """A fatal-error report with each thread's stack cut to its innermost frames (the rest is pytest's)."""
    kept, depth = [], 0
    for line in report.splitlines():
        depth = depth + 1 if line.startswith("  File ") else 0
        if depth <= frames:
            kept.append(line)
    return "\n".join(kept)
