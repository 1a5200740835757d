"""Any designer's game: `pnp new` scaffolds a game that builds, a game written only from
docs/authoring.md builds with no engine change, and the JSON Schemas match the engine's
models and accept every shipped file."""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pikepdf
import pytest
import yaml
from jsonschema import Draft202012Validator

from generator.check.pdfread import images
from generator.source.jsonschema import SCHEMAS, schema_text
from tests.conftest import ROOT, pnp


def _manifest(project: Path, game: str, pack: str, paper: str = "a4") -> dict:
    return json.loads((project / "build" / game / f"{game}-{pack}-{paper}.json").read_text(encoding="utf-8"))


def _decks(manifest: dict) -> dict[str, int]:
    return {c["id"]: c["count"] for c in manifest["components"] if c["kind"] == "deck"}


def test_new_game_validates_and_builds_as_created(tmp_path):
    project = tmp_path / "fresh"                    # an empty folder: fonts and icons come along
    result = pnp(project, "new", "river-crossing", "--title", "过河")
    assert result.exit_code == 0, result.output
    assert f"{project}/: a new project with the game river-crossing. Next: cd {project}, then" in result.output
    assert (project / ".gitignore").read_text() == "build/\n" and os.access(project / "pnp", os.X_OK)   # made whole
    for name in ("game.yaml", "cards.yaml", "reference.yaml", "pieces.yaml", "claims.yaml", "rules.py", "goods.yaml",
                 "goods.csv", "art/lantern.png"):
        assert (project / "cards/river-crossing" / name).is_file()
    assert (project / "fonts/fonts.yaml").is_file() and (project / "schemas/deck.schema.json").is_file()
    assert (project / "cards/river-crossing/cards.yaml").read_text(encoding="utf-8").startswith(
        "# yaml-language-server: $schema=../../schemas/deck.schema.json")
    valid = pnp(project, "validate", "river-crossing")
    assert valid.exit_code == 0 and "river-crossing: valid" in valid.output
    built = pnp(project, "build", "river-crossing", "--paper", "a4")
    assert built.exit_code == 0, built.output
    two, three = _manifest(project, "river-crossing", "2p"), _manifest(project, "river-crossing", "3p")
    assert _decks(two) == {"actions": 10, "reference": 2, "goods": 3}
    assert _decks(three) == {"actions": 14, "reference": 3, "goods": 4}
    lantern = [i for i in images(pikepdf.open(project / "build/river-crossing/river-crossing-3p-a4.pdf"))
               if i.owner == "goods/lantern"]              # the card with art, from the CSV deck
    assert len(lantern) == 1 and lantern[0].dpi >= 300 and [round(v, 1) for v in lantern[0].size_mm] == [51.5, 34.0]
    pieces = {c["id"]: c["count"] for c in three["components"] if c["kind"] == "piece"}
    assert pieces == {"score-board": 1, "pawn": 3}
    assert "过河" in json.dumps(three, ensure_ascii=False)


def test_new_refuses_to_overwrite_and_bad_ids(cephiro):
    again = pnp(cephiro, "new", "cephiro-pillar")
    assert again.exit_code == 1 and "cards/cephiro-pillar: already exists; ./pnp new never overwrites" in again.output
    bad = pnp(cephiro, "new", "My Game")
    assert bad.exit_code == 1 and "My Game: a game id is lower-case letters, digits and '-'" in bad.output


def test_a_game_written_from_the_docs_builds_without_engine_changes(tmp_path):
    project = tmp_path / "docs-game"
    shutil.copytree(ROOT / "tests/fixtures/docs-game", project)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / shared)
    valid = pnp(project, "validate", "night-market", "--verbose")
    assert valid.exit_code == 0, valid.output
    assert "note: claim average-price (规则附表): the rules document says 3, the rules give 2.94; a known " \
        "difference, resolved in claims.yaml" in valid.output
    result = pnp(project, "build", "night-market", "--paper", "a4")
    assert result.exit_code == 0, result.output
    for players, goods in ((2, 12), (3, 16), (4, 18)):
        manifest = _manifest(project, "night-market", f"{players}p")
        assert _decks(manifest) == {"goods": goods, "stalls": players, "reference": 1}
        pieces = {c["id"]: c["count"] for c in manifest["components"] if c["kind"] == "piece"}
        assert pieces == {"market-board": 1, "coin": 6 * players, "first-marker": 1}
    stalls = [c for c in _manifest(project, "night-market", "2p")["components"] if c["id"] == "stalls"][0]
    assert [c["id"] for c in stalls["cards"]] == ["stalls/stall-red", "stalls/stall-blue"]


@pytest.mark.parametrize("kind", sorted(SCHEMAS))
def test_committed_schemas_are_the_models(kind):
    assert (ROOT / "schemas" / f"{kind}.schema.json").read_text(encoding="utf-8") == schema_text(kind), \
        "run pnp schema to regenerate schemas/"


def _with_modeline():
    for path in sorted(ROOT.glob("**/*.yaml")):
        if ".venv" in path.parts or "build" in path.parts or "scaffold" in path.parts:
            continue            # (the scaffold's modelines are right once `pnp new` has placed it)
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        match = re.match(r"# yaml-language-server: \$schema=(.+)", first)
        if match:
            yield path, (path.parent / match.group(1)).resolve()


def test_every_shipped_file_names_its_schema_and_passes_it():
    checked = 0
    for path, schema in _with_modeline():
        assert schema.is_file(), f"{path}: modeline names {schema}, which does not exist"
        validator = Draft202012Validator(json.loads(schema.read_text(encoding="utf-8")))
        errors = list(validator.iter_errors(yaml.safe_load(path.read_text(encoding="utf-8"))))
        assert not errors, f"{path}: {errors[0].message}"
        checked += 1
    assert checked >= 40
    game_files = [p for p in ROOT.glob("cards/*/*.yaml")]
    named = {p for p, _ in _with_modeline()}
    data_only = {"example.yaml", "wheel.yaml"}
    assert {p for p in game_files if p.name not in data_only} <= named


def test_schemas_catch_what_an_editor_should_flag():
    deck = Draft202012Validator(json.loads((ROOT / "schemas/deck.schema.json").read_text()))
    good = {"deck": {"id": "a", "name": "A", "face": "g/a.html"}, "cards": [{"id": "x"}]}
    assert not list(deck.iter_errors(good))
    typo = {"deck": {"id": "a", "name": "A", "face": "g/a.html", "sise": "poker"}, "cards": [{"id": "x"}]}
    assert any("sise" in e.message for e in deck.iter_errors(typo))
    pieces = Draft202012Validator(json.loads((ROOT / "schemas/pieces.schema.json").read_text()))
    bad = {"pieces": [{"id": "b", "name": "B", "size": {"width": 10, "height": 10},
                       "elements": [{"type": "rect", "w": 5}]}]}
    assert list(pieces.iter_errors(bad))          # a rect needs h


def test_authoring_doc_names_every_element_and_field_type():
    text = (ROOT / "docs/authoring.md").read_text(encoding="utf-8")
    from generator.source.schema import ELEMENT_TYPES, FIELD_TYPES
    for name in ELEMENT_TYPES:
        assert f"| `{name}` |" in text, name
    for name in FIELD_TYPES:
        assert f"`{name}`" in text, name


def test_validate_runs_the_card_templates_of_the_source_edition(tmp_path):
    """`pnp validate` gives no all-clear that `pnp build` then takes back: a card template's
    mistake is reported by both, in the same words, without WeasyPrint or any output."""
    project = tmp_path / "docs-game"
    shutil.copytree(ROOT / "tests/fixtures/docs-game", project)
    for shared in ("fonts", "icons"):
        (project / shared).symlink_to(ROOT / shared)
    template = project / "templates/night-market/goods.html"
    template.write_text(template.read_text(encoding="utf-8").replace("{{ card.kind }}", "{{ card.kinds }}"),
                        encoding="utf-8")
    line = ("templates/night-market/goods.html:7: goods/lantern (face): template failed: "
            "'dict object' has no attribute 'kinds'")
    valid = pnp(project, "validate", "night-market")
    assert valid.exit_code == 1 and valid.output.strip().splitlines() == [line]
    assert not (project / "build/night-market").exists()
    built = pnp(project, "build", "night-market", "--paper", "a4")
    assert built.exit_code == 1 and line in built.output.splitlines()
    template.write_text(template.read_text(encoding="utf-8").replace("{% if", "{% iff", 1), encoding="utf-8")
    broken = pnp(project, "validate", "night-market")
    assert broken.exit_code == 1 and "templates/night-market/goods.html:" in broken.output
    assert "Traceback" not in broken.output
