"""What a new `pnp` process loads before it draws (docs/speed.md, "Start-up"), and that each
shortcut gives what the ordinary way gives. Nothing here measures time (that is `make bench`)."""
from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, version as metadata_version

import pytest

from generator.render import weasy
from generator.fingerprint import LIBRARIES
from generator.versions import version
from tests.conftest import ROOT


def _python(code: str) -> dict:
    """Run code in a fresh interpreter (nothing imported yet) and return the JSON it prints."""
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_library_versions_are_the_installed_ones():
    for name in LIBRARIES + ("pypdfium2", "cffi", "no-such-library-here"):
        try:
            expected = metadata_version(name)
        except PackageNotFoundError:
            expected = None
        assert version(name) == expected, name


def test_weasyprint_loads_its_declarations_precompiled_and_font_tools_only_when_used():
    seen = _python(
        "import json, sys\n"
        "from generator.render.weasy import weasyprint, FFI_CACHE\n"
        "weasyprint()\n"
        "ffi = sys.modules['weasyprint.text.ffi'].ffi\n"
        "users = [m for m in sys.modules if m.startswith('weasyprint') and type(getattr(sys.modules[m], 'ffi', None)).__name__ == '_FFIStandIn']\n"
        "print(json.dumps({'ffi': type(ffi).__module__, 'pycparser': 'pycparser' in sys.modules, 'users': users,\n"
        "  'instancer': 'fontTools.varLib.instancer' in sys.modules,\n"
        "  'subset': type(sys.modules['fontTools.subset']).__name__,\n"
        "  'cached': sorted(p.name for p in FFI_CACHE.glob('_pnp_pango_ffi_*.cffi'))}))")
    assert seen["ffi"] == "_cffi_backend"          # the precompiled FFI, not cffi.api's parsed one
    assert not seen["pycparser"]                   # nothing was parsed
    assert seen["users"] == []                     # every WeasyPrint module holds the FFI itself, not the stand-in
    assert not seen["instancer"] and seen["subset"] == "_LazyModule"
    assert len(seen["cached"]) >= 1


def test_the_precompiled_declarations_draw_what_parsed_ones_draw():
    """The same C functions and constants through either FFI."""
    import cffi
    source = "int abs(int x); typedef struct { int a; double b; } pair;"
    parsed = weasy._compiled(source, ("unused",), {}, cffi.FFI)        # arguments: WeasyPrint's own way
    compiled = weasy._compiled(source, (), {}, cffi.FFI)
    assert type(parsed).__module__ == "cffi.api" and type(compiled).__module__ == "_cffi_backend"
    for ffi in (parsed, compiled):
        libc = ffi.dlopen(None)
        assert libc.abs(-7) == 7
        assert ffi.sizeof("pair") == parsed.sizeof("pair")


def test_an_unwritable_cache_falls_back_to_parsing(tmp_path, monkeypatch):
    import cffi
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setattr(weasy, "FFI_CACHE", blocker / "cache")
    ffi = weasy._compiled("int abs(int x);", (), {}, cffi.FFI)
    assert type(ffi).__module__ == "cffi.api"
    assert ffi.dlopen(None).abs(-2) == 2


def test_a_build_command_does_not_load_what_only_rulebooks_or_fallbacks_use():
    seen = _python("import json, sys\nimport generator.commands.cli, generator.sheets.kit\n"
                   "print(json.dumps(sorted(m for m in ('markdown_it', 'weasyprint', 'fontTools.subset') if m in sys.modules)))")
    assert seen == []


@pytest.mark.parametrize("key", ["one", "two"])
def test_one_font_configuration_per_set_of_fonts(key):
    first = weasy.font_config(f"fonts-{key}")
    assert weasy.font_config(f"fonts-{key}") is first
    other = weasy.font_config(f"fonts-{key}-changed")       # a font file changed: a new configuration
    assert other is not first and weasy.font_config(f"fonts-{key}-changed") is other


def test_a_command_ends_with_its_output_whole_its_status_and_no_process_left(tmp_path):
    """A `pnp` command runs in its own process and leaves nothing running after it: no build
    server, no worker. What it printed into a pipe arrives whole, and the status is the command's."""
    import os
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}      # a pipe buffers
    listing = subprocess.run([str(ROOT / "pnp"), "--help"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert listing.returncode == 0 and "build" in listing.stdout and listing.stdout.endswith("\n")
    assert "server" not in listing.stdout
    failed = subprocess.run([str(ROOT / "pnp"), "--project", str(ROOT), "build", "no-such-game"], cwd=tmp_path,
                            capture_output=True, text=True, env=env)
    assert failed.returncode == 1 and failed.stdout == ""
    assert failed.stderr.startswith("cards/no-such-game: no game 'no-such-game' (games: "), failed.stderr
    import shutil
    project = tmp_path / "project"
    shutil.copytree(ROOT / "tests/fixtures/docs-game", project)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / shared)
    built = subprocess.Popen([str(ROOT / "pnp"), "--project", str(project), "build", "night-market", "--players", "2",
                              "--paper", "a4", "--jobs", "2"], cwd=tmp_path, env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    output, _ = built.communicate()
    assert built.returncode == 0, output
    left = [pid for pid in map(int, filter(str.isdigit, os.listdir("/proc"))) if _session(pid) == built.pid]
    assert left == [], f"processes left by the build: {left}"


def _session(pid: int) -> int | None:
    import os
    try:
        return os.getsid(pid)
    except OSError:
        return None


def test_a_build_leaves_no_font_folders_in_the_temporary_directory(tmp_path):
    """WeasyPrint copies the fonts into a temporary folder per font configuration (5 MB with the
    bundled CJK fonts) and removes it only when the configuration is freed, which os._exit
    never does: the build's own process, each render worker and each helper (the second half of
    the rulebooks and packs) remove theirs as they end."""
    import os
    import shutil
    project, temporary = tmp_path / "project", tmp_path / "tmp"
    shutil.copytree(ROOT / "tests/fixtures/docs-game", project)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / shared)
    rulebook = project / "cards/night-market/rulebook/zh-Hans.md"     # its figures draw a card in each process
    rulebook.parent.mkdir()
    shutil.copy(ROOT / "tests/fixtures/rulebook/zh-Hans.md", rulebook)
    temporary.mkdir()
    env = {**os.environ, "TMPDIR": str(temporary)}
    built = subprocess.run([str(ROOT / "pnp"), "--project", str(project), "build", "night-market", "--players", "2",
                            "--jobs", "2"], capture_output=True, text=True, env=env)
    assert built.returncode == 0, built.stderr
    assert "rendered" in built.stdout and not built.stdout.count("rendered 0 faces")
    assert sorted(p.name for p in temporary.iterdir() if p.name.startswith(("weasyprint-", weasy.FONT_FOLDER))) == []


def test_a_configuration_inherited_from_a_forked_parent_keeps_the_parents_folder():
    import os
    config = weasy.font_config("inherited-fonts", purpose="test")
    folder = config._folder              # made with the configuration, named for this process
    assert folder.is_dir() and folder.name.startswith(f"{weasy.FONT_FOLDER}{weasy._namespace()}-{os.getpid()}-")
    pid = os.fork()
    if pid == 0:                     # the child lets the parent's configuration go, as a worker does
        weasy.release_font_configs()
        os._exit(0 if folder.is_dir() else 1)
    assert os.waitpid(pid, 0)[1] == 0 and folder.is_dir()
    weasy.font_config("other-fonts", purpose="test")      # replaced here, in its own process: removed
    assert not folder.exists()


def test_font_folders_of_killed_processes_are_swept_and_nothing_else(tmp_path, monkeypatch):
    """A process killed by a signal leaves its fonts' folder (named for its pid namespace and
    pid); a later process's first font configuration removes it once it is STALE, and leaves
    every other folder: a live process's, a young one, another namespace's, anything else."""
    import os
    import tempfile
    import time
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead, ns = int(ended.stdout), weasy._namespace()
    old = time.time() - weasy.STALE - 60

    def folder(name, age=old):
        path = tmp_path / name
        path.mkdir()
        (path / "font.ttf").write_bytes(b"x")
        os.utime(path, (age, age))
        return path

    gone = folder(f"pnp-fonts-{ns}-{dead}-abc")
    kept = [folder(f"pnp-fonts-{ns}-{os.getppid()}-abc"),               # a live process's
            folder(f"pnp-fonts-{ns}-{dead}-young", age=time.time()),  # too young to be sure
            folder(f"pnp-fonts-{ns}9-{dead}-abc"),                      # another pid namespace's
            folder(f"weasyprint-{dead}")]                               # not pnp's
    weasy._sweep.cache_clear()
    made = weasy._font_folder()
    try:
        assert not gone.exists() and all(path.is_dir() for path in kept)
        assert made.parent == tmp_path and made.name.startswith(f"pnp-fonts-{ns}-{os.getpid()}-")
    finally:
        weasy._sweep.cache_clear()


def test_reportlab_s_graphics_are_loaded_only_when_an_icon_is_drawn():
    """reportlab.graphics (renderPDF, svglib's drawings) takes ~0.07 s to import, most of it a pattern
    its paragraph module compiles; a build that draws no board icon (a card edit) never needs it."""
    seen = _python("import json, sys\nimport generator.commands.cli, generator.sheets.kit, generator.render.pieces\n"
                   "print(json.dumps(sorted(m for m in ('reportlab.graphics', 'svglib') if m in sys.modules)))")
    assert seen == []
