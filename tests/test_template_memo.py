"""The template memo (render/template_memo.py): a rebuild runs a card's template only when
something it sees or looked up changed, and what it skips is exactly what it would have given.

Template runs are counted by wrapping CardRenderer._fragment; which cards must run again is
worked out here from the fixture's files (tests/fixtures/inputs-game), not asked of the engine.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from generator.render.cards import CardRenderer
from generator.sheets.kit import build_game
from generator.source.assets import Assets
from generator.source.project import ENGINE_TEMPLATES, Project, isolate_fonts
from tests.conftest import pnp
from tests.test_inputs import GAME, PACK, _replace, make, people

ALL_FACES = sorted([f"people/{c['id']}" for c in people()] + [f"goods/{g}" for g in ("salt", "silk", "jade")])


@pytest.fixture
def runs(monkeypatch) -> list[str]:
    """The cards whose template ran (full size only: a fit step is a render, not a key)."""
    ran: list[str] = []
    original = CardRenderer._fragment

    def counted(self, face, fit):
        if fit == 1.0 and face.side == "face":
            ran.append(face.card.uid)
        return original(self, face, fit)
    monkeypatch.setattr(CardRenderer, "_fragment", counted)
    return ran


def build(project: Path) -> list[str]:
    proj = Project.at(project)
    isolate_fonts(proj)
    _, fresh = build_game(proj, Assets(proj), GAME, [2], ["a4"], say=lambda _: None)
    return sorted(fresh)


def test_a_rebuild_runs_only_the_templates_whose_inputs_changed(tmp_path, runs):
    project = make(tmp_path / "p")
    build(project)
    assert sorted(runs) == ALL_FACES
    runs.clear()
    assert build(project) == [] and runs == []
    _replace(project / "cards/inputs/people.yaml", "name: Baker", "name: Bakerin")
    assert build(project) == ["people/baker (face)"] and runs == ["people/baker"]
    runs.clear()
    _replace(project / "templates/inputs/banner.html", "banner", "banner wide")     # included by people's faces
    build(project)
    assert sorted(runs) == sorted(f"people/{c['id']}" for c in people())


def test_a_template_that_reads_other_cards_runs_again_when_they_change(tmp_path, runs):
    project = make(tmp_path / "p")
    _replace(project / "templates/inputs/good.html", "</div>", "</div><i>{{ decks.people | length }}</i>")
    build(project)
    runs.clear()
    _replace(project / "cards/inputs/people.yaml", "name: Baker", "name: Bakerin")
    build(project)
    goods = sorted(f"goods/{g}" for g in ("salt", "silk", "jade"))
    assert sorted(runs) == sorted(goods + ["people/baker"])      # goods read decks; other people did not


def test_a_file_appearing_where_the_engine_looked_first_is_seen(tmp_path, runs):
    """A stylesheet or template found in the engine's folder depends on the project having none
    of that name: that absence is recorded, and a file put there runs the templates again."""
    project = make(tmp_path / "p")
    _replace(project / "templates/inputs/person.html", '<div class="name">',
             '<div class="name" data-sheet="{{ stylesheet(\'base/ink-saver.css\') }}">')
    build(project)
    memo = json.loads((project / "build/.cache/templates/inputs-en.json").read_text())
    recorded = {name: sha for inputs in memo["inputs"] for name, sha in inputs.items()}
    assert recorded["templates/base/ink-saver.css"] == "-"              # looked for, absent
    assert recorded["templates/inputs/banner.html"] != "-"
    assert recorded[str(ENGINE_TEMPLATES / "inputs/banner.html")] == "-"  # the engine's place, after the project's
    runs.clear()
    (project / "templates/base").mkdir()
    shutil.copy(ENGINE_TEMPLATES / "base/ink-saver.css", project / "templates/base/ink-saver.css")
    rendered = build(project)
    assert sorted(runs) == sorted(f"people/{c['id']}" for c in people())    # the goods never asked
    assert rendered == sorted(f"people/{c['id']} (face)" for c in people())


def test_a_too_coarse_picture_is_still_reported_when_its_template_is_skipped(tmp_path):
    from PIL import Image
    project = make(tmp_path / "p")
    Image.new("RGB", (200, 280), (9, 9, 9)).save(project / "cards/inputs/art/smith.jpg")
    args = ("build", GAME, "--players", "2", "--paper", "a4", "--draft")
    first = pnp(project, *args)
    assert first.exit_code == 0 and "prints at" in first.output
    _replace(project / "cards/inputs/people.yaml", "name: Baker", "name: Bakerin")    # not the smith
    again = pnp(project, *args)
    assert again.exit_code == 0 and "rendered 1 face" in again.output
    assert [line for line in first.output.splitlines() if "prints at" in line] == \
        [line for line in again.output.splitlines() if "prints at" in line]
    refused = pnp(project, "build", GAME, "--players", "2", "--paper", "a4")
    assert refused.exit_code == 1 and "smith" in refused.output and "prints at" in refused.output


def test_the_stamp_still_covers_templates_no_build_ran(tmp_path):
    project = make(tmp_path / "p")
    args = ("build", GAME, "--players", "2", "--paper", "a4")
    assert pnp(project, *args).exit_code == 0
    (project / "pnp.toml").write_text('[print]\nduplex = "short"\n')   # a rebuild that runs no template
    assert "rendered 0 faces" in pnp(project, *args).output
    _replace(project / "templates/inputs/banner.html", "banner", "banner wide")
    result = pnp(project, *args)
    assert "up to date" not in result.output and f"rendered {len(people())} faces" in result.output


@pytest.mark.parametrize("damage", ["garbage", "folder", "wrong shape", "bad pictures"])
def test_a_damaged_memo_is_an_empty_one(tmp_path, runs, damage):
    project = make(tmp_path / "p")
    build(project)
    cold = (project / PACK).read_bytes()
    memo = project / "build/.cache/templates/inputs-en.json"
    assert memo.is_file()
    if damage == "folder":
        memo.unlink()
        memo.mkdir()
    elif damage == "bad pictures":      # every entry as it was, but its too-coarse pictures unreadable
        data = json.loads(memo.read_text())
        data["entries"] = {k: [v[0], v[1], [["a", 1, 2]]] for k, v in data["entries"].items()}
        memo.write_text(json.dumps(data))
    else:
        memo.write_text("{oops" if damage == "garbage" else '{"version": "1", "inputs": [], "entries": {"x": [1, 2]}}')
    runs.clear()
    shutil.rmtree(project / "build/inputs")
    build(project)
    assert sorted(runs) == ALL_FACES and (project / PACK).read_bytes() == cold


def test_a_memo_entry_naming_another_key_is_dropped_not_drawn_under_it(tmp_path, monkeypatch):
    """Damage that leaves the memo well formed: one entry's face key changed. A face that must
    be drawn runs its template anyway, so its key is worked out from the output: the face is
    found in the cache under its right key (not drawn and kept under the wrong one, which would
    make the pack hold it twice), the entry is dropped, and the pack is the cold build's."""
    project = make(tmp_path / "p")
    build(project)
    cold = (project / PACK).read_bytes()
    memo = project / "build/.cache/templates/inputs-en.json"
    data = json.loads(memo.read_text())
    key, entry = sorted(data["entries"].items())[0]
    entry[0] = ("0" if entry[0][0] != "0" else "1") + entry[0][1:]
    memo.write_text(json.dumps(data))
    shutil.rmtree(project / "build/inputs")
    assert build(project) == []                       # every face from the cache, none drawn anew
    assert (project / PACK).read_bytes() == cold
    assert key not in json.loads(memo.read_text())["entries"]
    ran, original = [], CardRenderer._fragment
    monkeypatch.setattr(CardRenderer, "_fragment", lambda self, face, fit: ran.append(face.label) or original(
        self, face, fit))
    shutil.rmtree(project / "build/inputs")
    assert build(project) == [] and len(ran) == 1     # that template ran once more, and is memoised again
    assert (project / PACK).read_bytes() == cold
    assert key in json.loads(memo.read_text())["entries"]


def test_what_an_imported_files_top_level_looks_up_counts_for_every_face_that_imports_it(tmp_path):
    """Jinja runs an imported file's top level once: its include must still be an input of every
    face that imports it, not only of the first, or an edit reprints the others stale."""
    project = make(tmp_path / "p")
    templates = project / "templates/inputs"
    (templates / "macros.html").write_text('{% set footer %}{% include "inputs/part.html" %}{% endset %}\n'
                                           '{% macro foot() %}<div class="foot">{{ footer }}</div>{% endmacro %}\n')
    _replace(templates / "good.html", "</div>", '</div>{{ m.foot() }}')
    (templates / "good.html").write_text('{% import "inputs/macros.html" as m %}\n'
                                         + (templates / "good.html").read_text())
    (templates / "part.html").write_text("old footer")
    build(project)
    (templates / "part.html").write_text("new footer")
    assert build(project) == sorted(f"goods/{g} (face)" for g in ("jade", "salt", "silk"))
    incremental = (project / PACK).read_bytes()
    shutil.rmtree(project / "build")
    build(project)
    assert (project / PACK).read_bytes() == incremental


def test_a_damaged_prepared_picture_is_made_again(tmp_path):
    project = make(tmp_path / "p")
    build(project)
    for prepared in (project / "build/.cache/art").iterdir():
        prepared.write_text("x")
    _replace(project / "cards/inputs/people.yaml", "name: Baker", "name: Bakerin")
    build(project)          # the baker's face is drawn again, from its picture made again
    incremental = (project / PACK).read_bytes()
    shutil.rmtree(project / "build")
    build(project)
    assert (project / PACK).read_bytes() == incremental


def test_the_memo_is_written_when_an_entry_is_added_or_dropped_and_only_then(tmp_path):
    """A build that ran no template leaves the memo's file as it was (not even written again);
    one new template result is in the file for the next build; one dropped is gone from it."""
    from generator.render.template_memo import TemplateMemo
    path = tmp_path / "memo.json"

    def memo(*used: str) -> TemplateMemo:
        opened = TemplateMemo(tmp_path, path, lambda _: None, lambda _: None)
        assert all(opened.get(key)["direct"] == f"d-{key}" for key in used)
        return opened

    first = memo()
    for i in range(3):
        first.put(f"k{i}", f"d-k{i}", set(), [])
    first.save()
    written = path.stat()
    memo("k0", "k1", "k2").save()                       # nothing new: not written
    assert (path.stat().st_ino, path.stat().st_mtime_ns) == (written.st_ino, written.st_mtime_ns)
    second = memo("k0", "k1", "k2")
    second.put("new", "d-new", set(), [])
    second.save()
    assert memo().get("new")["direct"] == "d-new"
    third = memo("k0", "k1", "k2", "new")
    third.forget("k1")
    third.save()
    assert memo().get("k1") is None and memo().get("new")["direct"] == "d-new"


def test_a_translation_runs_only_its_card_s_template_and_a_quoted_word_is_checked_again(tmp_path, runs):
    """The edition's catalogue as a whole is not in a face's memo key: one card's translation runs that
    card's template alone. A face that printed a word of the source's script passed the untranslated
    check because the catalogue held the word (here in one stall's motto): when it no longer does, the
    other stalls' templates run again, and the build refuses them."""
    from tests.test_languages import CATALOGUE, GAME as NIGHT_MARKET, bilingual_project
    project = bilingual_project(tmp_path / "p")
    template = project / f"templates/{NIGHT_MARKET}/stall.html"
    text = template.read_text(encoding="utf-8")
    assert text.count('<div class="centre stall-motto">') == 1
    template.write_text(text.replace('<div class="centre stall-motto">', '<div class="centre stall-motto">夜市 '),
                        encoding="utf-8")
    catalogue = project / CATALOGUE
    _replace(catalogue, "{motto: Red and roaring}", "{motto: Red (夜市)}")

    def build_en():
        return pnp(project, "build", NIGHT_MARKET, "--players", "3", "--paper", "a4", "--lang", "en")
    result = build_en()
    assert result.exit_code == 0, result.output
    stalls = sorted(set(uid for uid in runs if uid.startswith("stalls/")))
    assert len(stalls) == 4
    runs.clear()
    _replace(catalogue, "{name: Rice wine}", "{name: Sweet rice wine}")
    assert build_en().exit_code == 0
    assert sorted(set(runs)) == ["goods/beer"]
    runs.clear()
    _replace(catalogue, "{motto: Red (夜市)}", "{motto: Red and roaring}")
    result = build_en()
    assert result.exit_code == 1 and "'夜市' untranslated" in result.output, result.output
    assert sorted(set(runs)) == stalls
