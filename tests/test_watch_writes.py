"""`pnp watch` on a save writes the pack the designer looks at first, then the rest of the packs without
it: each pack is written once (counted at write_pack), and the watch's stamp then says "up to date"."""
from __future__ import annotations

from collections import Counter

from generator.commands.watch import Watcher
from generator.sheets import kit
from generator.sheets.kit import JustWritten, build_game
from generator.source.assets import Assets
from generator.source.options import PrintOptions
from generator.source.project import Project, isolate_fonts
from tests.pdfcheck import document_text
from tests.test_inputs import make
from tests.test_written import THREE

GAME = "inputs"
PACKS = ["inputs-2p-a4", "inputs-2p-letter", "inputs-3p-a4", "inputs-3p-letter"]


def _project(tmp_path) -> Project:
    root = make(tmp_path / "project")
    (root / "cards/inputs/game.yaml").write_text((root / "cards/inputs/game.yaml").read_text() + THREE)
    project = Project.at(root)
    isolate_fonts(project)
    return project


def _counting(monkeypatch) -> Counter:
    written = Counter()
    real = kit.write_pack

    def write_pack(project, game, pack, paper, *args, **kwargs):
        written[kwargs.get("name") or kit.pack_name(game, pack, paper, args[3] if len(args) > 3 else
                                                      kwargs.get("options", PrintOptions()))] += 1
        return real(project, game, pack, paper, *args, **kwargs)
    monkeypatch.setattr(kit, "write_pack", write_pack)
    return written


def test_a_save_writes_the_pack_looked_at_once_and_the_rest_without_it(tmp_path, monkeypatch):
    project = _project(tmp_path)
    said: list[str] = []
    watcher = Watcher(project, [GAME], None, None, PrintOptions(), 1, say=said.append)
    watcher.rebuild([GAME], changed=False)
    (project.build / GAME / "inputs-3p-a4.pdf").touch()           # the pack the designer looked at last
    written = _counting(monkeypatch)
    people = project.root / "cards/inputs/people.yaml"
    people.write_text(people.read_text().replace("name: Smith", "name: Smyth"))
    said.clear()
    watcher.rebuild([GAME])
    assert written == Counter(PACKS), (written, said)
    assert said[0] == "inputs: changed; rebuilding the 3p a4 pack first, then the rest"
    rest = said[-1]
    assert rest.startswith("inputs: the rest rebuilt in ") and rest.endswith(
        "; wrote build/inputs/inputs-2p-a4.pdf, build/inputs/inputs-2p-letter.pdf, build/inputs/inputs-3p-letter.pdf"), rest
    assert sorted(p.stem for p in (project.build / GAME).glob("*.pdf")) == PACKS
    said.clear()
    watcher.rebuild([GAME])
    assert said == ["inputs: up to date"]


def test_the_rest_writes_the_pack_again_when_a_file_it_read_changed_since(tmp_path, monkeypatch):
    project = _project(tmp_path)
    assets = Assets(project)
    files, _ = build_game(project, assets, GAME, [2], ["a4"], say=lambda _: None)
    people = str(project.root / "cards/inputs/people.yaml")
    written = _counting(monkeypatch)
    stale = JustWritten("en", PrintOptions(), frozenset({(2, "a4")}), {people: "0" * 64}, tuple(files))
    build_game(project, assets, GAME, None, ["a4"], say=lambda _: None, just=stale)
    assert written == Counter(["inputs-2p-a4", "inputs-3p-a4"])


def test_when_the_pack_looked_at_is_all_the_watch_builds_the_edition_is_made_once(tmp_path, monkeypatch):
    """`pnp watch --paper a4` of a one-language game with one pack: the first pack is the whole build,
    so the edition is gathered once a save, not once more for a rest with nothing in it; and what it
    records is what the whole build records (a build of the same selection, and the watch, are then
    up to date)."""
    project = Project.at(make(tmp_path / "project"))
    isolate_fonts(project)
    said: list[str] = []
    watcher = Watcher(project, [GAME], None, ["a4"], PrintOptions(), 1, say=said.append)
    watcher.rebuild([GAME], changed=False)
    written = _counting(monkeypatch)
    gathered = Counter()
    real = kit.gather

    def gather(*args, **kwargs):
        gathered[GAME] += 1
        return real(*args, **kwargs)
    monkeypatch.setattr(kit, "gather", gather)
    people = project.root / "cards/inputs/people.yaml"
    people.write_text(people.read_text().replace("name: Smith", "name: Smyth"))
    said.clear()
    watcher.rebuild([GAME])
    assert written == Counter(["inputs-2p-a4"]) and gathered == Counter({GAME: 1}), (written, gathered, said)
    assert said[0] == "inputs: changed; rebuilding the 2p a4 pack"        # all the watch builds: no rest
    assert said[-1].startswith("inputs: rebuilt in ") and said[-1].endswith(
        " — 1 face re-rendered: people/smith (face); wrote nothing more"), said[-1]
    files, fresh = build_game(project, Assets(project), GAME, None, ["a4"], say=said.append)
    assert fresh == [] and said[-1].startswith("inputs: up to date (") and gathered == Counter({GAME: 1}), said[-1]
    said.clear()
    watcher.rebuild([GAME])
    assert said == ["inputs: up to date"]


def test_a_save_while_the_first_build_runs_is_built_once_the_watch_starts(tmp_path, monkeypatch):
    """The watches are in place only after the watch's first build: a file saved while that build ran
    is seen when they are, and built before the watch says it is watching (it was lost: the files
    stayed as before the save)."""
    import threading
    project = Project.at(make(tmp_path / "project"))
    isolate_fonts(project)
    said: list[str] = []
    stop = threading.Event()

    def say(line: str) -> None:
        said.append(line)
        if line.startswith("watching "):
            stop.set()
    watcher = Watcher(project, [GAME], None, ["a4"], PrintOptions(), 1, say=say)
    real = kit.prepare_edition
    people = project.root / "cards/inputs/people.yaml"

    def saved_meanwhile(*args, **kwargs):
        result = real(*args, **kwargs)
        if not people.read_text().count("Smyth"):           # the designer saves as the first build ends
            people.write_text(people.read_text().replace("name: Smith", "name: Smyth"))
        return result
    monkeypatch.setattr("generator.commands.watch.prepare_edition", saved_meanwhile)
    timer = threading.Timer(60, stop.set)
    timer.start()
    try:
        watcher.run(stop_event=stop)
    finally:
        timer.cancel()
    assert said[0] == "inputs: building the packs asked for before the watch starts …", said
    assert said[2] == "inputs: changed; rebuilding the 2p a4 pack", said      # (one pack: all the watch builds)
    assert " — 1 face re-rendered: people/smith (face)" in said[4] and said[5].startswith("watching "), said
    assert "Smyth" in document_text(project.build / GAME / "inputs-2p-a4.pdf")



def test_a_save_that_leaves_a_translation_to_review_says_so_once(tmp_path):
    """A card's Chinese text edited while the English edition is watched: the watch says the warning
    `pnp build` says (the edition prints the old translation), once though two builds make it."""
    from tests.conftest import pnp
    from tests.test_languages import GAME as BILINGUAL, bilingual_project
    root = bilingual_project(tmp_path / "project")
    assert pnp(root, "translate", BILINGUAL, "--lang", "en").exit_code == 0      # records each entry's source
    project = Project.at(root)
    isolate_fonts(project)
    said: list[str] = []
    watcher = Watcher(project, [BILINGUAL], [3], ["a4", "letter"], PrintOptions(), 1, say=said.append,
                      lang="en")
    watcher.rebuild([BILINGUAL], changed=False)
    assert not [line for line in said if line.startswith("warning: ")], said
    goods = root / f"cards/{BILINGUAL}/goods.yaml"
    goods.write_text(goods.read_text(encoding="utf-8").replace("name: 福袋,", "name: 福袋子,"), encoding="utf-8")
    said.clear()
    watcher.rebuild([BILINGUAL])
    assert [line for line in said if line.startswith("warning: ")] == [
        f"warning: {BILINGUAL} (en): 1 translation to review: the source text changed since, and this edition "
        f"prints the old translation until it is updated (./pnp validate {BILINGUAL} --lang en --verbose lists them)"]
    assert said[0] == f"{BILINGUAL}: changed; rebuilding the 3p a4 pack (en) first, then the rest", said
    # The English edition prints nothing of that edit: a second such save writes no file (as `pnp build`
    # says "up to date"), and the watch does not list the files it left as written.
    goods.write_text(goods.read_text(encoding="utf-8").replace("name: 福袋子,", "name: 福袋儿,"), encoding="utf-8")
    said.clear()
    watcher.rebuild([BILINGUAL])
    assert said[2].endswith(" — wrote nothing (nothing the en edition prints changed)"), said
    assert said[3].endswith(" — 0 faces re-rendered; wrote nothing more"), said


def test_a_save_in_the_edition_not_looked_at_writes_the_proof_of_its_card(tmp_path):
    """The proof of each card drawn anew is written for every edition the save rebuilt, not only the
    one looked at first: an English text changed while the Chinese pack is looked at has its English
    proof, showing the new text (it had none, and an older proof stayed)."""
    from tests.test_languages import bilingual_project
    project = Project.at(bilingual_project(tmp_path / "project"))
    isolate_fonts(project)
    said: list[str] = []
    watcher = Watcher(project, ["night-market"], [3], ["a4"], PrintOptions(), 1, say=said.append)
    watcher.rebuild(["night-market"], changed=False)
    assert not (project.build / "night-market/cards").exists()       # the first build draws all: no proofs
    (project.build / "night-market/night-market-3p-a4-zh-Hans.pdf").touch()      # looked at last
    catalogue = project.root / "cards/night-market/i18n/en.yaml"
    catalogue.write_text(catalogue.read_text(encoding="utf-8").replace("Roll ≥ 4: gain 2 coins.",
                                                                       "Roll 4+: gain 2 coins."), encoding="utf-8")
    said.clear()
    watcher.rebuild(["night-market"])
    assert said[0] == "night-market: changed; rebuilding the 3p a4 pack (zh-Hans) first, then the rest", said
    proof = "build/night-market/cards/goods-dice-en.pdf"
    assert said[-1].endswith(f" — 1 face re-rendered: goods/dice (face); wrote build/night-market/night-market-3p-a4-en.pdf, "
                             f"{proof}"), said[-1]
    assert "Roll 4+: gain 2 coins." in " ".join(document_text(project.root / proof).split())
    assert (project.root / proof).with_suffix(".png").is_file()


def test_a_save_of_a_back_every_card_shares_names_it_by_its_deck_and_proofs_one_card(tmp_path):
    """A deck's one back, drawn anew, is said by its deck and how many cards share it (not as the back
    of whichever card came last), and its proof is the first card of the deck, face and new back."""
    project = _project(tmp_path)
    said: list[str] = []
    watcher = Watcher(project, [GAME], [2], ["a4"], PrintOptions(), 1, say=said.append)
    watcher.rebuild([GAME], changed=False)
    back = project.root / "templates/inputs/person-back.html"
    back.write_text(back.read_text().replace(">Inputs<", ">Inputs, again<"))
    said.clear()
    watcher.rebuild([GAME])
    assert said[1].endswith(" — wrote build/inputs/inputs-2p-a4.pdf, build/inputs/cards/people-mayor.pdf"), said
    assert said[-1].endswith(" — 1 face re-rendered: people (back, shared by 6 cards); wrote nothing more"), said
    proof = " ".join(document_text(project.build / "inputs/cards/people-mayor.pdf").split())
    assert "Mayor" in proof and "Inputs, again" in proof, proof


def test_a_save_that_changes_no_byte_of_a_pack_lists_only_the_proof(tmp_path):
    """A template edit that draws the same face (a comment) leaves every pack in place: the watch lists
    none of them as written, only the proof of the card it drew anew."""
    project = _project(tmp_path)
    said: list[str] = []
    watcher = Watcher(project, [GAME], [2, 3], ["a4"], PrintOptions(), 1, say=said.append)
    watcher.rebuild([GAME], changed=False)
    (project.build / GAME / "inputs-2p-a4.pdf").touch()           # the pack the designer looked at last
    back = project.root / "templates/inputs/person-back.html"
    back.write_text(back.read_text() + "<!-- the same back -->\n")
    said.clear()
    watcher.rebuild([GAME])
    assert said[1].endswith(" — wrote build/inputs/cards/people-mayor.pdf"), said
    assert said[-1].endswith(" — 1 face re-rendered: people (back, shared by 6 cards); wrote nothing more"), said
