"""Setting up on a new machine: the system-libraries script under each package manager (stubbed on
PATH, recording what they are asked), the ./pnp launcher, and `python -m generator` with a Python
lacking the libraries."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.conftest import ROOT

SCRIPT = ROOT / "tools" / "install-system-deps.sh"
# The real tools the script itself uses; nothing else of the machine is on PATH.
TOOLS = ["sh", "grep", "sed", "tr", "cat", "uname", "id"]


def stub_machine(tmp_path: Path, managers: list[str], installed: set[str] = frozenset()) -> Path:
    """A bin/ folder with the script's tools and stub package managers that log their arguments.
    The query tools (dpkg-query, rpm, pacman -Q, brew list) answer from `installed`."""
    bin_ = tmp_path / "bin"
    bin_.mkdir(parents=True)
    for tool in TOOLS:
        (bin_ / tool).symlink_to(shutil.which(tool))
    log = tmp_path / "log"
    have = " ".join(sorted(installed))
    query = f'for p in {have or "NONE"}; do [ "$p" = "$last" ] && exit 0; done; exit 1'
    bodies = {
        "apt-get": "", "sudo": '"$@"; exit $?', "python3": "exit 0",
        "dpkg-query": f'for last; do :; done\n{query.replace("exit 0", "echo install ok installed; exit 0")}',
        "dnf": "", "rpm": f'last="$2"\n{query}',
        "pacman": f'if [ "$1" = -Q ]; then last="$2"\n{query}\nfi',
        "brew": f'if [ "$1" = list ]; then last="$3"\n{query}\nfi',
    }
    for name in managers + ["python3"]:
        script = bin_ / name
        script.write_text(f'#!/bin/sh\necho "{name} $*" >> {log}\n{bodies[name]}\n')
        script.chmod(0o755)
        if name == "apt-get":
            (bin_ / "dpkg-query").write_text(f"#!/bin/sh\n{bodies['dpkg-query']}\n")
            (bin_ / "dpkg-query").chmod(0o755)
        if name == "dnf":
            (bin_ / "rpm").write_text(f"#!/bin/sh\n{bodies['rpm']}\n")
            (bin_ / "rpm").chmod(0o755)
    return bin_


def run_script(tmp_path: Path, managers: list[str], *args: str, installed=frozenset()):
    bin_ = stub_machine(tmp_path, managers, set(installed))
    run = subprocess.run([str(bin_ / "sh"), str(SCRIPT), *args], capture_output=True, text=True,
                         env={"PATH": str(bin_), "HOME": str(tmp_path)})
    log = tmp_path / "log"
    calls = [line for line in log.read_text().splitlines() if not line.startswith("python3")] if log.exists() else []
    return run, calls


@pytest.mark.parametrize("manager,build,tests", [
    ("apt-get", "libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 libgs-common", "poppler-utils chromium"),
    ("dnf", "pango harfbuzz ghostscript", "poppler-utils chromium"),
    ("pacman", "pango harfbuzz ghostscript", "poppler chromium"),
])
def test_each_package_manager_gets_the_same_libraries(tmp_path, manager, build, tests):
    run, calls = run_script(tmp_path / "kit", [manager])
    assert run.returncode == 0, run.stderr
    install = {"apt-get": f"apt-get install -y -qq --no-install-recommends {build}",
               "dnf": f"dnf install -y {build}", "pacman": f"pacman -S --needed --noconfirm {build}"}[manager]
    assert calls[-1] == install
    run, calls = run_script(tmp_path / "test", [manager], "--test")
    assert run.returncode == 0 and calls[-1] == f"{install} {tests}"


def test_homebrew_installs_without_sudo_and_chromium_as_a_cask(tmp_path):
    run, calls = run_script(tmp_path, ["brew"], "--test")
    assert run.returncode == 0, run.stderr
    installs = [c for c in calls if not c.startswith("brew list")]
    assert installs == ["brew install pango harfbuzz ghostscript poppler", "brew install --cask chromium"]


def test_only_what_is_missing_is_installed(tmp_path):
    run, calls = run_script(tmp_path, ["dnf"], installed={"pango", "harfbuzz"})
    assert run.returncode == 0 and calls[-1] == "dnf install -y ghostscript"
    run, calls = run_script(tmp_path / "all", ["pacman"], installed={"pango", "harfbuzz", "ghostscript"})
    assert run.returncode == 0 and not [c for c in calls if "-S" in c]


def test_a_machine_without_a_known_package_manager_is_told_what_to_do(tmp_path):
    run, calls = run_script(tmp_path, [])
    assert run.returncode == 1 and not calls
    assert run.stderr.startswith("error: found none of apt-get, dnf, pacman or brew")
    assert "WSL" in run.stderr and "PNP_SKIP_SYSTEM_DEPS=1" in run.stderr
    assert "not found" not in run.stderr


def test_build_and_test_dependencies_are_apart():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    build = " ".join(project["dependencies"])
    assert not any(name in build for name in ("pytest", "playwright", "hypothesis"))
    assert {"pytest", "playwright"} <= {d.split("==")[0] for d in project["optional-dependencies"]["test"]}
    assert project["license"] == "MIT" and (ROOT / "LICENSE").read_text().startswith("MIT License")
    makefile = (ROOT / "Makefile").read_text()
    kit_rule = makefile.split("\n$(STAMP):")[1].split("\n\n")[0]
    assert "--test" not in kit_rule and "[test]" not in kit_rule


def test_launcher_runs_pnp_with_nothing_activated(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    run = subprocess.run([str(ROOT / "pnp"), "--version"], capture_output=True, text=True, env=env, cwd=tmp_path)
    assert run.returncode == 0 and run.stdout.startswith("pnp, version")
    bare = tmp_path / "bare"
    shutil.copytree(ROOT, bare, ignore=shutil.ignore_patterns(".venv", "build", ".git", "cards", "fonts"))
    run = subprocess.run([str(bare / "pnp"), "list"], capture_output=True, text=True, env=env)
    assert run.returncode == 1 and run.stderr == f"pnp is not installed yet: run `make kit` in {bare} first\n"


def test_module_entry_point_with_a_python_lacking_the_libraries(tmp_path):
    venv = tmp_path / "bare-python"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    run = subprocess.run([str(venv / "bin" / "python"), "-m", "generator", "list"], capture_output=True,
                         text=True, cwd=ROOT, env={"PATH": os.environ["PATH"]})
    assert run.returncode == 1 and len(run.stderr.splitlines()) == 1
    assert "lacks libraries pnp needs (weasyprint," in run.stderr and "make kit" in run.stderr
    assert "./pnp" in run.stderr and "Traceback" not in run.stderr and "internal error" not in run.stderr


def test_setup_prints_no_deprecation_warning(tmp_path):
    """Installing the package the way `make kit` does (editable, in a fresh virtualenv) meets no
    deprecation: none of the licence format, none of editable mode. pip shows what the build backend
    says only with -v (quiet, a deprecated `license = {text = ...}` passed unseen), so it runs verbose
    here and its output is read for setuptools' deprecation warnings."""
    venv = tmp_path / "venv"
    # The fresh virtualenv without a pip of its own (ensurepip's copy is most of the time a venv takes):
    # the pip that make kit's venv got from the same Python installs into it (pip's --python runs it with
    # that interpreter), and setuptools builds the package in its isolated environment as it does there.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    run = subprocess.run([sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install", "-v",
                          "--disable-pip-version-check", "--no-deps", "-e", str(ROOT)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    said = (run.stdout + run.stderr).splitlines()
    assert any("Successfully installed" in line for line in said), said[-5:]      # the backend's words are here
    # setuptools' and pip's own forms (the test's folder is named after it: a bare word would match that)
    assert [line for line in said if "DeprecationWarning" in line or "DEPRECATION:" in line] == []


def test_pdfx_finds_ghostscripts_profile_where_each_system_puts_it(tmp_path, monkeypatch):
    from generator.export import pdfx
    arch = tmp_path / "usr/share/ghostscript/10.04.0/iccprofiles/default_cmyk.icc"
    arch.parent.mkdir(parents=True)
    arch.write_bytes(b"icc")
    monkeypatch.setattr(pdfx, "SYSTEM_CMYK", [str(tmp_path / "debian/none.icc"),
                                              str(tmp_path / "usr/share/ghostscript/*/iccprofiles/default_cmyk.icc")])
    assert pdfx.system_profile() == arch
    monkeypatch.setattr(pdfx, "SYSTEM_CMYK", [str(tmp_path / "debian/none.icc")])
    assert pdfx.system_profile() is None


def test_readme_and_docs_show_their_pictures_and_run_pnp_as_printed():
    import re
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    shown = {}
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for target in re.findall(r"!\[[^\]]+\]\(([^)]+)\)", text):
            assert (page.parent / target).is_file(), (page.name, target)
            shown.setdefault(page.name, set()).add(Path(target).name)
        assert not re.findall(r"`pnp [a-z]", text), page.name        # `./pnp …`: works without activating
    assert {"card-sheet.png", "board.png", "gallery.png"} <= shown["README.md"]
    assert {"duplex-sheet.png", "calibration.png"} <= shown["printing.md"]
    assert "pictures:" in (ROOT / "Makefile").read_text()
