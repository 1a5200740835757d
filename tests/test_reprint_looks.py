"""`pnp reprint` lists the cards whose printed look changed since they were printed: an engine upgrade
that draws every card as before (its fingerprint, and so every face's key, changed) lists none; an edit
that draws a card otherwise lists that card."""
from __future__ import annotations

import hashlib
import json
import shutil

from generator import fingerprint
from generator.render.template_memo import code_fingerprint
from tests.conftest import pnp
from tests.test_inputs import make

GAME = "inputs"
NOTHING = "inputs: nothing changed since the cards were last printed (first built or reprinted); " \
          "--since REV compares with a git revision\n"


def _faces(project) -> set[str]:
    return {p.name for p in (project / "build/.cache/faces").rglob("*.pdf")}


def test_an_engine_edit_that_draws_nothing_otherwise_reprints_nothing(tmp_path, monkeypatch):
    project = make(tmp_path / "project")
    assert pnp(project, "build", GAME, "--players", "2", "--paper", "a4").exit_code == 0
    drawn = _faces(project)
    engine = tmp_path / "generator"                 # the engine with a comment added: another fingerprint
    shutil.copytree(fingerprint.ENGINE, engine, ignore=shutil.ignore_patterns("__pycache__"))
    (engine / "sheets/booklet.py").write_text((engine / "sheets/booklet.py").read_text() + "# a comment\n")
    monkeypatch.setattr(fingerprint, "ENGINE", engine)
    _forget_fingerprints()
    try:
        result = pnp(project, "reprint", GAME, "--paper", "a4")
        assert result.exit_code == 0 and result.output == NOTHING, result.output
        assert _faces(project) - drawn                  # drawn again under new keys: the same look
        people = project / "cards/inputs/people.yaml"
        people.write_text(people.read_text().replace("name: Smith", "name: Smyth"))
        result = pnp(project, "reprint", GAME, "--paper", "a4")
        assert result.exit_code == 0 and "(1 changed card, " in result.output, result.output
    finally:
        monkeypatch.undo()
        _forget_fingerprints()


def _forget_fingerprints() -> None:
    fingerprint.engine_fingerprint.cache_clear()
    code_fingerprint.cache_clear()


def test_a_record_of_face_keys_from_before_looks_reads_as_the_faces_looks(tmp_path):
    """A .faces.json an earlier pnp wrote holds each side's face key: read through the face cache, the
    same cards are unchanged."""
    project = make(tmp_path / "project")
    assert pnp(project, "build", GAME, "--players", "2", "--paper", "a4").exit_code == 0
    key_of = {hashlib.sha256(p.read_bytes()).hexdigest(): p.stem
              for p in (project / "build/.cache/faces").rglob("*.pdf")}
    path = project / "build/inputs/.faces.json"
    record = json.loads(path.read_text())
    for part in ("cards", "printed"):
        record[part] = {uid: {side: key_of[look] for side, look in sides.items()}
                        for uid, sides in record[part].items()}
    path.write_text(json.dumps(record))
    result = pnp(project, "reprint", GAME, "--paper", "a4")
    assert result.exit_code == 0 and result.output == NOTHING, result.output
    printed = json.loads(path.read_text())["printed"]          # kept as looks now: the cache may go
    assert {len(look) for sides in printed.values() for look in sides.values()} == {64}


def test_reprint_since_a_revision_says_what_the_revision_lacks_or_breaks(tmp_path):
    """--since REV reads the game as the revision has it: a game not committed there yet, or committed
    with a mistake since mended, is said to be the revision's, not the designer's files now."""
    import subprocess
    project = make(tmp_path / "project")
    git = ["git", "-C", str(project), "-c", "user.name=t", "-c", "user.email=t@example.org"]
    subprocess.run(git + ["init", "-q"], check=True)
    (project / "README.md").write_text("a kit\n")
    subprocess.run(git + ["add", "README.md"], check=True)
    subprocess.run(git + ["commit", "-qm", "start"], check=True)
    missing = pnp(project, "reprint", GAME, "--since", "HEAD", "--paper", "a4")
    assert (missing.exit_code, missing.output) == (1, "cards/inputs: revision HEAD has no game 'inputs' (not "
                                                       "committed there yet), so there is nothing to compare with "
                                                       "(hint: commit the game, or build it and run reprint without "
                                                       "--since)\n")
    people = project / "cards/inputs/people.yaml"
    good = people.read_text()
    people.write_text(good.replace("name: Smith", "name: [Smith"))
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "kit"], check=True)
    people.write_text(good)
    broken = pnp(project, "reprint", GAME, "--since", "HEAD", "--paper", "a4")
    assert broken.exit_code == 1 and broken.output.startswith("cards/inputs/people.yaml:"), broken.output
    assert ": at revision HEAD: invalid YAML" in broken.output and len(broken.output.splitlines()) == 1, broken.output
