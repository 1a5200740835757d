"""The pnp command's surface: help, usage errors (exit 2), problems (exit 1)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT, pnp


@pytest.mark.parametrize("command", [[], ["list"], ["validate"], ["build"]])
def test_help(command, cephiro):
    result = pnp(cephiro, *command, "--help")
    assert result.exit_code == 0 and "--project" in result.output


@pytest.mark.parametrize("args,needle", [
    (["build", "cephiro-pillar", "--paper", "a3"], "Invalid value for '--paper'"),
    (["build", "cephiro-pillar", "--players", "four"], "expected numbers like 4 or 3,4"),
    (["build", "--players", "4"], "--players needs a GAME"),
    (["frobnicate"], "No such command"),
])
def test_usage_errors_exit_2(cephiro, args, needle):
    result = pnp(cephiro, *args)
    assert result.exit_code == 2 and needle in result.output


def test_unknown_game_and_player_count_exit_1(cephiro):
    result = pnp(cephiro, "validate", "nope")
    assert result.exit_code == 1 and "cards/nope: no game 'nope' (games: cephiro-pillar)" in result.output
    result = pnp(cephiro, "build", "cephiro-pillar", "--players", "7")
    assert result.exit_code == 1 and "no pack for 7 players (packs: [2, 3, 4, 5])" in result.output


def test_project_option_and_module_entry_point(cephiro, tmp_path):
    """`python -m generator --project DIR` works from any folder; errors print no traceback."""
    run = subprocess.run([sys.executable, "-m", "generator", "--project", str(cephiro), "list"],
                         cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0 and "cephiro-pillar: 魔法骑士：塞菲罗支柱" in run.stdout
    run = subprocess.run([sys.executable, "-m", "generator", "--project", str(tmp_path), "list"],
                         cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 1 and run.stderr.strip().endswith(
        "no cards/ folder here or in any folder above (hint: run ./pnp inside a project, pass --project DIR, "
        "or start one with ./pnp new NAME)")
    assert "Traceback" not in run.stderr


def test_same_input_gives_identical_files(cephiro, cephiro_built):
    """Two cold builds of the same input: one here, with an empty build/ (store and all), and the
    session's build of the game (another folder, every pack and language at once)."""
    assert not (cephiro / "build").exists()
    assert pnp(cephiro, "build", "cephiro-pillar", "--players", "3", "--paper", "letter").exit_code == 0
    outputs = [[(folder / f"cephiro-pillar-3p-letter-zh-Hans.{ext}").read_bytes() for ext in ("pdf", "json")]
               for folder in (cephiro / "build" / "cephiro-pillar", cephiro_built.folder)]
    assert outputs[0] == outputs[1]
