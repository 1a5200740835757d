"""A build removes what an earlier build wrote under a name it now writes otherwise (a second language,
another duplex), and nothing else: not a pack of another player count or variant, not a proof of
--only, not a file the builds never recorded, never through a link (sheets/written.py)."""
from __future__ import annotations

import json
from pathlib import Path

from generator.sheets.written import RECORD, Selection, replace_earlier
from tests.conftest import pnp
from tests.test_inputs import make

GAME = "inputs"
THREE = "  - players: 3\n    decks:\n      people: {count: 6}\n      goods: {count: 3}\n"


def _build(project: Path, *args: str) -> str:
    result = pnp(project, "build", GAME, "--paper", "a4", *args)
    assert result.exit_code == 0, result.output
    return result.output


def _files(project: Path) -> set[str]:
    folder = project / "build" / GAME
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")
            if (p.is_file() or p.is_symlink()) and not p.name.startswith(".")}


def test_a_renamed_pack_replaces_the_old_file_and_leaves_every_other_one(tmp_path):
    project = make(tmp_path / "project")
    (project / "cards/inputs/game.yaml").write_text((project / "cards/inputs/game.yaml").read_text() + THREE)
    _build(project)
    assert pnp(project, "build", GAME, "--only", "smith").exit_code == 0          # a proof in cards/
    (project / "build/inputs/notes.pdf").write_bytes(b"mine")                    # never written by a build
    proofs = {f for f in _files(project) if f.startswith("cards/")}
    assert proofs and {"inputs-2p-a4.pdf", "inputs-3p-a4.pdf"} <= _files(project)
    outside = tmp_path / "printed.pdf"
    outside.write_bytes(b"%PDF kept")
    (project / "build/inputs/inputs-3p-a4.pdf").unlink()
    (project / "build/inputs/inputs-3p-a4.pdf").symlink_to(outside)             # a link: removed as a link

    (project / "pnp.toml").write_text('[print]\nduplex = "short"\n')
    out = _build(project, "--players", "2")
    assert "removed what an earlier build wrote under names this one replaces: inputs-2p-a4.json, " \
           "inputs-2p-a4.pdf\n" in out
    assert _files(project) == {"inputs-2p-a4-short.pdf", "inputs-2p-a4-short.json", "inputs-3p-a4.pdf",
                               "inputs-3p-a4.json", "notes.pdf"} | proofs       # the 3-player pack stays

    out = _build(project)                                          # every pack: the 3-player one renamed too
    assert "removed what an earlier build wrote under names this one replaces: inputs-3p-a4.json, " \
           "inputs-3p-a4.pdf\n" in out
    assert _files(project) == {"inputs-2p-a4-short.pdf", "inputs-2p-a4-short.json", "inputs-3p-a4-short.pdf",
                               "inputs-3p-a4-short.json", "notes.pdf"} | proofs
    assert outside.read_bytes() == b"%PDF kept"

    out = _build(project, "--ink-saver")                           # a variant of its own: nothing removed
    assert "removed" not in out and "inputs-2p-a4-short.pdf" in _files(project)

    out = _build(project, "--duplex", "none")      # a mode asked for once is a variant too: the project's stays
    assert "removed" not in out
    assert {"inputs-2p-a4-short.pdf", "inputs-2p-a4-none.pdf", "inputs-3p-a4-none.pdf"} <= _files(project)


def test_a_second_language_replaces_the_packs_of_the_single_language_game(tmp_path):
    build = tmp_path / "build"
    (build / "x").mkdir(parents=True)
    en = Selection("en", ("a4",), None, "")
    for name in ("x-3p-a4.pdf", "x-rules-a4.pdf", "x-3p-letter.pdf"):
        (build / "x" / name).write_bytes(b"old")
    paper = {"x-3p-a4.pdf": "a4", "x-rules-a4.pdf": "a4", "x-3p-letter.pdf": "letter"}
    replace_earlier(build, "x", en, {n: en.entry(None if "rules" in n else 3, False, paper[n]) for n in paper})
    zh = Selection("zh-Hans", ("a4",), None, "")
    assert replace_earlier(build, "x", zh, {"x-3p-a4-zh-Hans.pdf": zh.entry(3, False, "a4")}) == []
    removed = replace_earlier(build, "x", en, {"x-3p-a4-en.pdf": en.entry(3, False, "a4"),
                                               "x-rules-a4-en.pdf": en.entry(None, False, "a4")})
    assert removed == ["x-3p-a4.pdf", "x-rules-a4.pdf"]             # the letter pack: not this build's paper
    assert sorted(p.name for p in (build / "x").iterdir()) == [
RECORD, "x-3p-letter.pdf"]
    assert set(json.loads((build / "x" / RECORD).read_text())) == {
        "x-3p-letter.pdf", "x-3p-a4-zh-Hans.pdf", "x-3p-a4-en.pdf", "x-rules-a4-en.pdf"}


def test_a_record_naming_files_outside_the_game_folder_removes_none(tmp_path):
    build = tmp_path / "build"
    (build / "x").mkdir(parents=True)
    (tmp_path / "precious.pdf").write_bytes(b"keep")
    entry = Selection("en", ("a4",), None, "").entry(3, False, "a4")
    (build / "x" / RECORD).write_text(json.dumps({"../../precious.pdf": entry, "/etc/hostname": entry}))
    assert replace_earlier(build, "x", Selection("en", ("a4",), None, ""), {}) == []
    assert (tmp_path / "precious.pdf").read_bytes() == b"keep"


def test_a_language_dropped_takes_its_files_with_it_at_the_next_build_of_every_edition(tmp_path):
    from tests.test_designer_loop import in_english_words
    project = tmp_path / "demo"
    assert pnp(project, "new", "demo").exit_code == 0
    game = project / "cards/demo/game.yaml"
    game.write_text(game.read_text().replace("language: en\n", "languages: [en, zh-Hans]\n"))
    assert pnp(project, "translate", "demo", "--lang", "zh-Hans").exit_code == 0
    in_english_words(project / "cards/demo/i18n/zh-Hans.yaml")
    (project / "cards/demo/rulebook/zh-Hans.md").write_text("# {{ game.title }}\n\n{{ derived.goal }}\n")
    built = pnp(project, "build", "demo", "--players", "2", "--paper", "a4")
    assert built.exit_code == 0, built.output
    game.write_text(game.read_text().replace("languages: [en, zh-Hans]\n", "language: en\n"))
    out = pnp(project, "build", "demo", "--players", "2", "--paper", "a4").output
    assert out.splitlines()[-2:] == [
        "removed what an earlier build wrote under names this one replaces: demo-2p-a4-en.json, demo-2p-a4-en.pdf, "
        "demo-rules-a4-en.json, demo-rules-a4-en.pdf",
        "removed what an earlier build wrote for a language the game no longer has: demo-2p-a4-zh-Hans.json, "
        "demo-2p-a4-zh-Hans.pdf, demo-rules-a4-zh-Hans.json, demo-rules-a4-zh-Hans.pdf"], out
    assert sorted(p.name for p in (project / "build/demo").glob("*.pdf")) == ["demo-2p-a4.pdf", "demo-rules-a4.pdf"]


def test_a_pack_made_again_in_the_same_bytes_is_left_as_it_was_and_said_unchanged(tmp_path):
    """A build that makes a pack again as it was (another selection of packs, say: its stamp is not the
    last one's) leaves the file, and its date, as they were and says "unchanged", not "wrote"; a pack
    that changed is written and said so."""
    project = make(tmp_path / "project")
    (project / "cards/inputs/game.yaml").write_text((project / "cards/inputs/game.yaml").read_text() + THREE)
    _build(project)
    folder = project / "build" / GAME
    dated = {name: (folder / name).stat().st_mtime_ns for name in ("inputs-2p-a4.pdf", "inputs-2p-a4.json")}
    said = _build(project, "--players", "2")
    assert said.splitlines()[1:] == ["unchanged build/inputs/inputs-2p-a4.pdf (4 pages, 9 cards; preflight ok)"], said
    assert {name: (folder / name).stat().st_mtime_ns for name in dated} == dated
    people = project / "cards/inputs/people.yaml"
    people.write_text(people.read_text().replace("name: Smith", "name: Smyth"))
    said = _build(project, "--players", "2")
    assert said.splitlines()[1].startswith("wrote build/inputs/inputs-2p-a4.pdf ("), said
    assert (folder / "inputs-2p-a4.pdf").stat().st_mtime_ns != dated["inputs-2p-a4.pdf"]
