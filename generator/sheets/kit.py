"""`pnp build`: validate, render every face once (or take it from the cache), then write each
pack × paper. Gather, then write: nothing is written until the game has loaded and
validated, and each file is written atomically after its preflight.
"""
from __future__ import annotations

import json
import time
from pathlib import Path
from dataclasses import dataclass, field
from typing import Callable, NamedTuple

from generator.source.assets import Assets
from generator.atomic import read_record as read_json, remove_outputs, write_record
from generator.errors import PnpError, Problem, errors_only
from generator.source.game import Game
from generator.geometry import PAPERS
from generator.source.load import load_game
from generator.source.rulebook import Rulebook
from generator.source.options import PrintOptions
from generator.sheets.pack import MadePack, PackBuilder, check_pack, own_files, pack_name, write_pack, written_files
from generator.sheets.pack_store import Made, PackStore, key_of
from generator.sheets.parallel_packs import packs_written
from generator.sheets.rules_file import build_rules, rules_name, rules_options
from generator.sheets import written as written_record
from generator.render.rulebook import RulebookRenderer
from generator.source.project import Project
from generator.render.art import MIN_DPI
from generator.render.cards import CardRenderer, Face
from generator.check.validate import derive, validated
from generator.source import reads, stamp
from generator.source.context import plain
from generator.source.words import count, pdfs

FACES_RECORD = ".faces.json"


@dataclass
class Checked:
    game: Game
    notes: list[Problem] = field(default_factory=list)
    rulebook: "Rulebook | None" = None      # the rulebook validation checked, with each pack's text


def check_game(project: Project, assets: Assets, game_id: str, lang: str | None = None,
               templates: bool = False) -> Checked:
    """Load one edition (default: the source language) and validate it; raise PnpError with
    every error, return the notes. A translated edition's card templates are run too (its
    catalogue may lack a word they ask for); with `templates`, the source edition's as well
    (`pnp validate`: a build runs them anyway, so it does not ask)."""
    return check_loaded(project, assets, load_game(project, game_id, lang), templates)


def check_loaded(project: Project, assets: Assets, game: Game, templates: bool = False) -> Checked:
    """check_game for an edition already loaded."""
    problems, rulebook = validated(project, game, assets.edition(game.spec.language))
    errors = errors_only(problems)
    if not errors and (templates or not game.is_source):
        errors = face_checks(project, assets, game)
    if errors:
        raise PnpError(errors)
    return Checked(game, [p for p in problems if p.note], rulebook)


def face_checks(project: Project, assets: Assets, game: Game) -> list[Problem]:
    """Every printed card's templates run in this edition (no WeasyPrint): a `_()` of a value the
    catalogue lacks, e.g. an enum value, is reported at its template line. A card no pack prints
    (`copies: 0`) is not drawn by a build, so not here either (its missing translation is a note)."""
    renderer = CardRenderer(project, assets.edition(game.spec.language), game)
    problems, seen = [], set()
    for deck in game.decks.values():
        for card in filter(lambda card: card.printed, deck.cards):
            for side in ("face", "back") if deck.spec.back else ("face",):
                try:
                    renderer.face(deck, card, side)
                except PnpError as exc:
                    for problem in exc.problems:      # once, at the first card it shows on
                        cause = problem.message.split(": ", 1)[-1]
                        if cause not in seen:
                            seen.add(cause)
                            problems.append(problem)
    renderer.save_memo()
    return problems


def select_packs(game: Game, players: list[int] | None):
    if not players:
        return list(game.packs)            # the full build includes the optional extras
    offered = {p.players for p in game.packs if not p.optional}
    missing = [n for n in players if n not in offered]
    if missing:
        raise PnpError(Problem(f"cards/{game.id}/game.yaml", None,
                               f"no pack for {', '.join(map(str, missing))} players (packs: {sorted(offered)})"))
    return [p for p in game.packs if p.players in players and not p.optional]


def pick_pack(game: Game, players: int | None):
    """The standard pack for this many players, or without a count the largest one: the
    set of cards that has every card a designer prints (for a reprint or a shop order)."""
    standard = [p for p in game.packs if not p.optional]
    if players is None:
        return max(standard, key=lambda p: (sum(e.count for e in p.decks.values()), p.players))
    pack = next((p for p in standard if p.players == players), None)
    if pack is None:
        raise PnpError(Problem(f"cards/{game.id}/game.yaml", None, f"no pack for {players} players "
                               f"(packs: {sorted(p.players for p in standard)})"))
    return pack


def faces_for(game: Game, renderer: CardRenderer, packs) -> dict[tuple[str, str, str], Face]:
    """The faces (and backs) of every card the packs hold, by (deck, card, side)."""
    faces = {}
    for deck in game.decks.values():
        used = {card.id for pack in packs if deck.id in pack.decks for card, _ in game.pack_cards(pack, deck.id)}
        for card in deck.cards:
            if card.id not in used:
                continue
            faces[(deck.id, card.id, "face")] = renderer.face(deck, card, "face")
            if deck.spec.back:
                faces[(deck.id, card.id, "back")] = renderer.face(deck, card, "back")
    renderer.save_memo()
    return faces


def keys_by_card(faces: dict) -> dict[str, dict[str, str]]:
    """{"deck/card": {"face": key, "back": key}} for faces by (deck, card, side)."""
    out: dict[str, dict[str, str]] = {}
    for (deck, card, side), face in faces.items():
        out.setdefault(f"{deck}/{card}", {})[side] = face.key
    return out


def looks_by_card(faces: dict, rendered) -> dict[str, dict[str, str]]:
    """{"deck/card": {"face": look, "back": look}}: a side's look is the sha256 of its drawn page (the
    canonical PDF the face cache keeps), not its key. A key holds the engine's fingerprint, so an
    engine upgrade that draws every card as before would list every card as changed; a change that
    does draw a card otherwise changes its look."""
    out: dict[str, dict[str, str]] = {}
    for (deck, card, side), face in faces.items():
        out.setdefault(f"{deck}/{card}", {})[side] = rendered.stored[rendered.key_of(face)]
    return out


def read_record(project: Project, game_id: str) -> dict:
    """{"cards": {uid: {side: look}}, "packs": [player counts built]} of the builds so far (a record
    written before looks holds face keys: see reprint.previous_keys)."""
    path = project.build / game_id / FACES_RECORD
    try:
        record = read_json(path)
    except (OSError, ValueError):
        return {"cards": {}, "packs": []}
    # A damaged record is an empty one (it is rewritten whole by the next build): never an error.
    # It keeps, per edition, the faces first built ("cards", "cards-<lang>") and last printed
    # ("printed", "printed-<lang>").
    record = record if isinstance(record, dict) else {}
    out: dict = {"cards": {}}
    for key, cards in record.items():
        if (key.startswith("cards") or key.startswith("printed")) and isinstance(cards, dict):
            out[key] = {uid: sides for uid, sides in cards.items() if isinstance(sides, dict)}
    packs = record.get("packs")
    out["packs"] = [p for p in packs if isinstance(p, int) and not isinstance(p, bool)] if isinstance(packs, list) else []
    return out


def record_key(game: Game) -> str:
    """Where .faces.json keeps an edition's faces: "cards" for the source language (as before
    games had languages), "cards-<lang>" for each other one."""
    return "cards" if game.is_source else f"cards-{game.language}"


def record_faces(project: Project, game: Game, looks: dict, packs) -> None:
    """Remember which face each card had and which packs were built, so `pnp reprint` can
    tell what changed since, in the pack the designer printed. "printed" keeps each card as
    it was first built (or last reprinted): a designer builds again to look at an edit, and
    the reprint still owes them every card changed since their sheets came out of the printer,
    and every card added since to a pack they had built.
    "cards" keeps each card's faces as first built (it says the game was built; `pnp reprint`
    reads "printed"). The record is written only when a card, a side or a pack is new to it:
    rebuilds of edited cards leave it as it was (at 5,000 cards it was 0.7 MB written and flushed
    to disk on every rebuild)."""
    record = read_record(project, game.id)
    key = record_key(game)
    new = key not in record or printed_key(key) not in record
    # a card added to a pack built before is not on paper: it stays out of "printed" (the reprint's
    # "new card") until reprinted. The cards of a first build, or of a pack first built now, count
    # as printed.
    cards = record.setdefault(key, {})
    printed = record.setdefault(printed_key(key), dict(cards))
    unseen = not new and any(uid not in printed for uid in looks)
    owed = _cards_of(game, set(record["packs"])) if unseen else set()
    for uid, sides in looks.items():
        known = cards.setdefault(uid, {})
        for side, face in sides.items():
            if side not in known:
                known[side] = face
                new = True
        if uid not in printed and uid not in owed:
            printed[uid] = dict(known)
            new = True
    built = sorted(set(record["packs"]) | {p.players for p in packs if not p.optional})
    if new or built != record["packs"]:
        record["packs"] = built
        _write_record(project, game.id, record)


def _cards_of(game: Game, players: set[int]) -> set[str]:
    """The cards ("deck/card") of the game's standard packs for these player counts."""
    return {card.uid for pack in game.packs if not pack.optional and pack.players in players
            for deck_id in pack.decks if deck_id in game.decks for card, _ in game.pack_cards(pack, deck_id)}


def printed_key(key: str) -> str:
    """Where .faces.json keeps the faces an edition last printed: "printed", "printed-<lang>"."""
    return "printed" + key[len("cards"):]


def mark_printed(project: Project, game_id: str, cards: dict, key: str = "cards", forget=()) -> None:
    """After a reprint: these cards ({uid: {side: key}}) are on paper as they are now, and the
    cards it reported removed (their deck or entry gone) are forgotten: said once, not forever."""
    record = read_record(project, game_id)
    printed = record.setdefault(printed_key(key), dict(record.get(key, {})))
    printed.update(cards)
    for uid in forget:
        printed.pop(uid, None)
        record.get(key, {}).pop(uid, None)
    _write_record(project, game_id, record)


def _write_record(project: Project, game_id: str, record: dict) -> None:
    # compact (indenting every key of 5,000 cards took most of a second); durable: reprint reads it
    write_record(project.build / game_id / FACES_RECORD, record, durable=True, sort_keys=True)


@dataclass
class RulesFile:
    """The standalone rules for one paper, made or taken from the store (`passed`: preflight's
    report when it was kept there, so it is not checked again)."""
    paper: str
    pdf: bytes
    manifest: dict
    key: str
    passed: object = None

    @property
    def name(self) -> str:
        """Its file name without .pdf, as its manifest says (rules_name: with --ink-saver, its own)."""
        return self.manifest["file"].removesuffix(".pdf")


def _rules(store: PackStore, game: Game, assets: Assets, rulebook: RulebookRenderer, papers,
           options: PrintOptions) -> list[RulesFile]:
    """The standalone rules, every player count, when the game has a rulebook, each taken from the
    store when it holds them. Its figures are the build's faces: an --ink-saver build makes a file of
    its own name (rules_file.rules_name); the other print settings do not reach a plain-paper booklet."""
    if not rulebook.exists:
        return []
    pages = rulebook.render(None)
    title = rulebook._("Rulebook")
    files = []
    for paper in papers:
        key = key_of(assets, {"rules": rules_name(game, paper, options), "title": title, "game": plain(game.spec),
                              "pages": pages.key})
        taken = store.take(key)
        files.append(RulesFile(paper, taken[0], taken[1], key, taken[2]) if taken else
                     RulesFile(paper, *build_rules(game, assets, pages, paper, title), key=key))
    return files


STALE_SECONDS = 3600


def sweep_stale(folder, build) -> None:
    """Remove temporary files a killed build left behind. Only old ones: a younger one may
    belong to a build running right now beside this one."""
    now = time.time()

    def stale(tmp) -> bool:
        try:
            return tmp.name.startswith(".") and tmp.name.endswith(".tmp") and now - tmp.stat().st_mtime > STALE_SECONDS
        except OSError:
            return False
    remove_outputs(folder, build, stale)


def coarse_art(renderer: CardRenderer, draft: bool) -> list[Problem]:
    """Pictures printed below MIN_DPI, naming each card: errors, or with --draft the warnings
    returned."""
    problems = [Problem(c.card.file, c.card.line, f"{c.card.uid}: picture {c.picture} prints at {c.dpi:.0f} dpi "
                        f"({c.pixels[0]} × {c.pixels[1]} px show); a print needs {MIN_DPI}",
                        "use a larger picture, or build with --draft to playtest with it")
                for c in renderer.art.coarse]
    if problems and not draft:
        raise PnpError(problems)
    return problems


def editions(project: Project, game_id: str, lang: str | None = None) -> list[str]:
    """The languages to build: `lang`, or every language the game has."""
    from generator.source.load import game_languages
    languages = game_languages(project, game_id)
    if lang is None:
        return languages
    if lang not in languages:
        raise PnpError(Problem(f"cards/{game_id}/game.yaml", None,
                               f"no {lang} edition (languages: {', '.join(languages)})"))
    return [lang]


@dataclass
class Gathered:
    """The first half of a build, everything short of writing a file: the edition checked, every
    face rendered (text that overflows its box, a picture under its dpi: refused here), every
    rulebook laid out. `packs_made` then makes each pack × paper in memory (boards' and pieces'
    expressions are evaluated there); `pnp validate` stops after it, `pnp build` writes them."""
    game: Game
    label: str
    packs: list
    papers: list[str]
    faces: dict
    rendered: object
    builder: PackBuilder
    rules: list                 # RulesFile of the standalone rulebook, a paper each
    ahead: tuple | None = None  # ((pack, paper), MadePack) of the first pack, imposed while faces rendered
    notes: list[Problem] = field(default_factory=list)      # the edition's notes (claims resolved)
    skip: frozenset = frozenset()   # (players, paper) of standard packs written just now (JustWritten)

    def to_make(self) -> list[tuple]:
        """(pack, paper) of every pack and paper to make, in build order."""
        return [(pack, paper) for pack in self.packs for paper in self.papers
                if pack.optional or (pack.players, paper) not in self.skip]

    def packs_made(self):
        """(pack, paper, MadePack) for every pack and paper to make, in build order."""
        for pack, paper in self.to_make():
            yield pack, paper, self.made(pack, paper)

    def made(self, pack, paper: str) -> MadePack:
        """One pack made in memory: the first one was made while the faces rendered."""
        if self.ahead is not None and self.ahead[0] == (pack, paper):
            (_, made), self.ahead = self.ahead, None
            return made
        return self.builder.build(pack, paper)

    def write(self, project: Project, pack, paper: str, options: PrintOptions) -> tuple:
        """Make one pack and write it once it passes preflight: (write_pack's Written, its manifest)."""
        builder = self.builder
        made = self.made(pack, paper)
        try:
            written = write_pack(project, self.game, pack, paper, made.pdf, made.manifest, options,
                                 sheets=made.sheets, passed=made.passed, shared=builder.passed_checks)
            builder.keep(made, written.report)
        except PnpError:
            if not made.built_on_last:
                raise
            # Built on the last file and refused by preflight: its record was not the file's
            # (edited by hand, say). Built whole, the pack is checked again on its own.
            made = builder.build(pack, paper, whole=True)
            written = write_pack(project, self.game, pack, paper, made.pdf, made.manifest, options,
                                 sheets=made.sheets, shared=builder.passed_checks)
        return written, made.manifest


@dataclass(frozen=True)
class JustWritten:
    """Packs of one edition a build wrote a moment ago, with every file it read (and its hash) and
    the files it wrote: `pnp watch` writes the pack the designer looks at first, then the rest of the
    edition without it (and without the rulebook of its paper), while every file read is unchanged."""
    language: str
    options: PrintOptions
    packs: frozenset            # (players, paper)
    read: dict                  # absolute path -> sha256, as reads.ReadLog has it
    files: tuple = ()           # the files it wrote, as build_game returns them

    def holds(self, game: Game, options: PrintOptions) -> bool:
        """Whether these packs are what a build of `game` with `options` would write now."""
        from generator.filehash import file_hash
        if game.language != self.language or options != self.options:
            return False
        try:
            return all(file_hash(Path(path)) == sha for path, sha in self.read.items())
        except OSError:
            return False


def gather(project: Project, assets: Assets, game_id: str, players: list[int] | None = None,
           papers: list[str] | None = None, say: Callable[[str], None] = print,
           options: PrintOptions = PrintOptions(), jobs: int = 1, progress=None,
           lang: str | None = None, templates: bool = False, game: Game | None = None,
           skip: frozenset = frozenset()) -> Gathered:
    """Check one edition (loaded here, or `game` as build_game loaded it) and make all it prints,
    writing nothing (see Gathered); `skip`: the (players, paper) of packs not to make, nor the
    rulebook of their paper (written just now)."""
    checked = check_loaded(project, assets, game or load_game(project, game_id, lang), templates)
    game = checked.game
    assets = assets.edition(game.spec.language)
    label = edition_label(game)
    packs = select_packs(game, players)
    renderer = CardRenderer(project, assets, game, ink_saver=options.ink_saver)
    faces = faces_for(game, renderer, packs)
    for problem in coarse_art(renderer, options.draft):
        say(f"warning: {problem}")
    # Faces drawn by worker processes arrive while the first pack is imposed (cards.py, stream).
    rendered = renderer.render(list(faces.values()), jobs=jobs, stream=True,
                               progress=(lambda total: progress(label, total)) if progress else None)
    try:
        rulebook = RulebookRenderer(project, assets, game, renderer, checked.rulebook)
        builder = PackBuilder(project, assets, game, rendered, faces, options, rulebook=rulebook)
        paper_list = papers or list(PAPERS)
        rulebook.lay_out_beside([None] + packs, jobs)
        rules = _rules(builder.store, game, assets, rulebook, [p for p in paper_list if p not in {q for _, q in skip}],
                       options)
        for pack in packs:          # every rulebook laid out (and checked) before any file is written
            builder._rules_section(pack)
        if rendered.pending:
            builder.info.prepare()  # while the first faces are drawn: page 1's template and fonts
        made = Gathered(game, label, packs, paper_list, faces, rendered, builder, rules, None, checked.notes,
                        frozenset(skip))
        todo = made.to_make()
        made.ahead = (todo[0], builder.build(*todo[0])) if todo else None    # imposed while faces still render
        rendered.finish()
    except PnpError:
        rendered.finish()           # a face that cannot be drawn is the problem reported, as before
        raise
    finally:
        rendered.close()
    return made


def edition_label(game: Game) -> str:
    return f"{game.id} ({game.language})" if len(game.languages) > 1 else game.id


def check_build(project: Project, assets: Assets, game_id: str, lang: str | None = None, jobs: int = 1,
                progress=None) -> Checked:
    """`pnp validate`: everything `pnp build` does for every pack and paper, short of writing:
    each pack made in memory and preflighted from a scratch folder (faces rendered go to the face
    cache, so the build that follows draws none again); the edition's notes. Pictures under their
    dpi are errors, as a build without --draft has them."""
    made = gather(project, assets, game_id, lang=lang, jobs=jobs, progress=progress, say=lambda _: None,
                  templates=True)
    for pack, paper, one in made.packs_made():
        if one.passed is None:          # a pack the store kept passed when it was kept
            check_pack(project, made.game, pack, paper, one.pdf, one.manifest)      # what write_pack checks
    for rules in made.rules:
        if rules.passed is None:
            check_pack(project, made.game, None, rules.paper, rules.pdf, rules.manifest,
                       name=rules.name)
    return Checked(made.game, made.notes)


def build_game(project: Project, assets: Assets, game_id: str, players: list[int] | None = None,
               papers: list[str] | None = None, say: Callable[[str], None] = print,
               options: PrintOptions = PrintOptions(), jobs: int = 1, progress=None,
               lang: str | None = None, just: JustWritten | None = None) -> tuple[list[str], list[str]]:
    """Build the packs of one edition (default: the source language); return the files
    written and the faces rendered (not from the cache). An edition whose inputs are those of
    its last build, and whose files are as that build wrote them, is up to date: nothing runs.
    `just`: packs of this edition written a moment ago, made again only if a file they read changed
    since (their files are returned as written by this build)."""
    edition = prepare_edition(project, assets, game_id, players, papers, say, options, jobs, progress, lang, just)
    if not isinstance(edition, Prepared):
        return edition, []
    done = edition.write(project, say, options, jobs)
    return done.files, done.fresh


@dataclass
class Prepared:
    """An edition checked and made, nothing written yet (prepare_edition): a build of several
    editions prepares each before it writes any, so that a fault in one leaves every file as it was."""
    game: Game
    made: Gathered
    players: list[int] | None       # as asked (None: every pack)
    inputs: str | None
    made_from: str | None
    read: dict                     # the files its making read, with their hashes
    just: JustWritten | None

    def write(self, project: Project, say, options: PrintOptions, jobs: int) -> EditionWritten:
        """Write the edition's files; return them (with the files `just` wrote a moment ago) and the
        faces rendered (not from the cache)."""
        with reads.recording() as log:
            done = _write_edition(project, self.made, self.players, say, options, jobs, self.made_from)
        read = {**self.read, **log.files}
        if self.made.skip:
            read, done = {**self.just.read, **read}, done._replace(files=list(self.just.files) + done.files)
        if self.inputs:
            stamp.record_edition(project.root, self.game.id, self.game.language, done.files, self.inputs, read,
                                 self.made_from)
        return done


def prepare_edition(project: Project, assets: Assets, game_id: str, players: list[int] | None, papers, say,
                    options: PrintOptions, jobs: int, progress, lang: str | None,
                    just: JustWritten | None = None) -> Prepared | list[str]:
    """One edition loaded, checked and made (its faces, boards and rulebooks in the store), or, when it
    is up to date, the files of its last build."""
    game = load_game(project, game_id, lang)
    _warn_stale_translations(project, game, say)
    # The derived numbers are part of what the edition prints, and an edition's come from the source
    # language's data (a rule may read a number out of a card's text): made first. If derive()
    # fails, validation below says so.
    made_from = None if derive(project, game) else edition_inputs(project, game)
    inputs = made_from and stamp.with_settings(made_from, plain({"players": players, "papers": papers,
                                                                 "options": options}))
    kept = stamp.edition_up_to_date(project.root, game_id, game.language, inputs) if inputs else None
    if kept is not None:
        say(f"{edition_label(game)}: up to date ({pdfs(kept)}; nothing this edition prints changed)")
        return kept
    skip = just.packs if just is not None and just.holds(game, options) else frozenset()
    with reads.recording() as log:
        made = gather(project, assets, game.id, players, papers, say, options, jobs, progress, game=game, skip=skip)
    return Prepared(made.game, made, players, inputs, made_from, log.files, just)


def _warn_stale_translations(project: Project, game: Game, say) -> None:
    """An edition whose catalogue has entries whose source text changed since they were translated
    prints their old translation: said on every build of it, built or up to date (validate lists them)."""
    from generator.check.translations import review_notes
    stale = review_notes(project, game)
    if stale:
        say(f"warning: {edition_label(game)}: {count(len(stale), 'translation')} to review: the source text "
            f"changed since, and this edition prints the old translation until it is updated "
            f"(./pnp validate {game.id} --lang {game.language} --verbose lists them)")


def edition_inputs(project: Project, game: Game) -> str:
    """What every file a build of the edition writes is made from (stamp.edition_hash of its data and
    files, the build's settings apart): the site offers a file only while its edition's is the same."""
    return stamp.edition_hash(project.root, game.id, game.language, edition_data(game))


def edition_data(game: Game) -> bytes:
    """The edition as canonical JSON: everything it prints or checks that its data files give, in its
    language (the source's derived numbers included): the game's spec,
    each deck's spec (templates, size, fields …) and its cards in order with their fields and copies,
    the tables, pieces, claims, extra data files and catalogue."""
    def card(c) -> dict:
        return {"id": c.id, "fields": plain(c.fields), "copies": plain(c.copies)}
    data = {"game": {**plain(game.spec), "id": game.id}, "derived": plain(game.derived),
            "decks": {deck_id: {"spec": plain(deck.spec), "cards": [card(c) for c in deck.cards]}
                      for deck_id, deck in game.decks.items()},
            "tables": {table_id: [card(row) for row in rows] for table_id, rows in game.tables.items()},
            "pieces": plain(game.pieces), "text": game.text, "quoted": game.quoted, "data": plain(game.data),
            "claims": plain(game.claims), "language": game.language}
    return json.dumps(data, sort_keys=True, ensure_ascii=False, default=str).encode()


class EditionWritten(NamedTuple):
    files: list[str]            # every pack, cut file and rules file the build wrote or found as it would write it
    fresh: list[str]            # the faces drawn anew (not from the cache), by label
    unchanged: list[str]        # of `files`, those left in place: made again in the bytes they had


def _write_edition(project: Project, made: Gathered, players, say, options: PrintOptions, jobs: int,
                   made_from: str | None = None) -> EditionWritten:
    """The second half of a build: write each pack and rulebook of what `gather` made once it passes
    preflight (but those of its `skip`, written just now: see JustWritten); `made_from`: the edition's
    inputs (stamp.edition_hash), recorded with each file written (the site shows only the current ones)."""
    game, faces, rendered, builder, skip = made.game, made.faces, made.rendered, made.builder, made.skip
    sweep_stale(project.build / game.id, project.build)
    cached = len({f.key for f in faces.values()}) - len(rendered.fresh)
    say(f"{made.label}: rendered {count(len(rendered.fresh), 'face')}, {cached} from the cache")
    written, unchanged, recorded = [], [], {}
    selection = written_record.Selection(game.language, tuple(made.papers), tuple(players) if players else None,
                                         written_record.variant(options), frozenset(skip),
                                         written_record.variant(rules_options(options)), made_from)
    todo = made.to_make()
    # (a pack made ahead, while the faces rendered, is still to be checked and written: about half its work)
    weights = [builder.weight(one[0]) / (2 if made.ahead and made.ahead[0] == one else 1) for one in todo]
    for one in packs_written(todo, lambda pack, paper: made.write(project, pack, paper, options), jobs, weights):
        pack, paper, path, report, manifest = one.pack, one.paper, one.path, one.report, one.manifest
        warned = f", {count(len(report.findings), 'draft warning')}" if report.findings else ""
        files = written_files(project, path, manifest)
        cut = f"; its cut files in {Path(files[1]).parent}/" if len(files) > 1 else ""
        name = pack_name(game, pack, paper, options)
        verb = "wrote" if one.changed else "unchanged"      # (left in place: made again in the same bytes)
        say(f"{verb} {path} ({count(len(manifest['pages']), 'page')}, {count(report.cards, 'card')}; "
            f"preflight ok{warned}){cut}")
        written += files
        if not one.changed:
            unchanged += files
        entry = selection.entry(pack.players, pack.optional, paper)
        recorded.update(dict.fromkeys(own_files(name, manifest), entry))
    for rules in made.rules:
        path, report, changed = write_pack(project, game, None, rules.paper, rules.pdf, rules.manifest, options,
                                           name=rules.name, passed=rules.passed, shared=builder.passed_checks)
        if rules.passed is None:
            builder.store.keep(Made(rules.key, None, {}, rules.pdf, rules.manifest), report)
        verb = "wrote" if changed else "unchanged"
        say(f"{verb} {path} ({count(len(rules.manifest['pages']), 'page')}, the rulebook for every player count; "
            f"preflight ok)")
        written.append(path)
        if not changed:
            unchanged.append(path)
        recorded.update(dict.fromkeys(own_files(rules.name, rules.manifest), selection.entry(None, False, rules.paper)))
    removed = written_record.replace_earlier(project.build, game.id, selection, recorded)
    if removed:
        say(written_record.summary(removed))
    if not options.ink_saver:
        record_faces(project, game, looks_by_card(faces, rendered), made.packs)
    return EditionWritten(written, rendered.fresh, unchanged)
