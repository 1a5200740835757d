"""The bad-input corpus (tests/broken/cases.yaml): every mistake gives its exact one-line
error, exit status 1, no traceback, and leaves the previous outputs in build/ untouched."""
from __future__ import annotations

import ast
import hashlib
import shutil
from pathlib import Path

import pytest
import yaml

from tests.conftest import ROOT, pnp

CASES = yaml.safe_load((ROOT / "tests/broken/cases.yaml").read_text(encoding="utf-8"))
GAME = "night-market"
BUILD = ("build", GAME, "--players", "2", "--paper", "a4")


@pytest.fixture(scope="module")
def built_fixture(tmp_path_factory) -> Path:
    """The fixture game, built once; each case starts from a copy of it (cache included)."""
    project = tmp_path_factory.mktemp("broken") / "base"
    shutil.copytree(ROOT / "tests/fixtures/docs-game", project)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / shared)
    result = pnp(project, *BUILD)
    assert result.exit_code == 0, result.output
    return project


def copy_project(base: Path, target: Path, own: tuple = ()) -> Path:
    """A copy of the built project; folders in `own` are copied rather than linked, so a case
    may change them without touching the repository's."""
    shutil.copytree(base, target, symlinks=True)
    for folder in own:
        (target / folder).unlink()
        shutil.copytree(ROOT / folder, target / folder)
    return target


def apply(project: Path, edit: dict) -> None:
    path = project / edit["file"]
    path.parent.mkdir(parents=True, exist_ok=True)
    if "write" in edit:
        path.write_text(edit["write"], encoding="utf-8")
    elif "write_bytes" in edit:
        path.write_bytes(ast.literal_eval(edit["write_bytes"]))
    elif "truncate" in edit:
        path.write_bytes(path.read_bytes()[: edit["truncate"]])
    elif "symlink" in edit:
        path.unlink()
        path.symlink_to(edit["symlink"])
    elif "repeat" in edit:
        path.write_text(path.read_text(encoding="utf-8") + edit["repeat"] * edit["times"], encoding="utf-8")
    else:
        text = path.read_text(encoding="utf-8")
        assert edit["find"] in text, f"{edit['find']!r} is not in {edit['file']}"
        path.write_text(text.replace(edit["find"], edit["replace"], 1), encoding="utf-8")


def outputs(project: Path) -> dict[str, str]:
    """The files a build delivers (the cache may grow; what was printed may not change)."""
    folder = project / "build" / GAME
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*") if p.is_file()}


def test_the_corpus_is_large_and_its_ids_unique():
    ids = [c["id"] for c in CASES]
    assert len(ids) >= 60 and len(set(ids)) == len(ids)


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_broken_input_gives_its_exact_error(built_fixture, tmp_path, case):
    project = copy_project(built_fixture, tmp_path / "project", tuple(case.get("own", ())))
    before = outputs(project)
    for edit in case["edits"]:
        apply(project, edit)
    result = pnp(project, *BUILD)
    lines = result.output.splitlines()
    assert result.exit_code == 1, result.output
    assert case["error"] in lines, "\n".join(lines)
    assert "Traceback" not in result.output
    assert all(":" in line for line in lines), result.output       # every line is a located problem
    assert outputs(project) == before
    assert not list((project / "build").rglob("*.tmp"))
