"""`pnp reprint GAME [--since REV]`: a pack of only the cards that changed.

"Changed" compares each card's face and back looks (the hash of each side's drawn page: an engine
upgrade that draws a card as before leaves it unchanged) with those last printed
(build/<game>/.faces.json: as each card was first built, or last reprinted; builds in between, to look
at an edit, do not count, nor does a build that first shows a card added to a pack built before), or the faces' direct keys with those of a git revision, whose project files
are read with `git archive` into a scratch folder (both made by this engine). Every copy of each
changed card is printed on fresh sheets with its backs, and page 1 lists what changed.
"""
from __future__ import annotations

import hashlib
import re
import subprocess
import tarfile
import tempfile
from dataclasses import replace
from io import BytesIO
from pathlib import Path

from generator.source.assets import Assets
from generator.sheets.kit import (FACES_RECORD, check_game, edition_inputs, faces_for, keys_by_card, looks_by_card,
                                  mark_printed, pick_pack, printed_key, read_record, record_key)
from generator.render.cache import FaceCache
from generator.source.game import Game
from generator.errors import PnpError, Problem, abbreviate
from generator.geometry import PAPERS
from generator.source.options import PrintOptions
from generator.sheets import written as written_record
from generator.sheets.pack import PackBuilder, own_files, write_pack
from generator.source.project import Project
from generator.render.cards import CardRenderer
from generator.source.i18n import translator
from generator.source.words import count

TRACKED = ["cards", "templates", "fonts", "icons"]


def _damaged(path: Path) -> bool:
    """A record file that is there but is not a JSON object (cut short, garbled, replaced)."""
    import json
    try:
        return not isinstance(json.loads(path.read_bytes()), dict)
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        return True


def previous_keys(project: Project, assets: Assets, game_id: str, since: str | None, packs,
                  now: Game | None = None) -> dict:
    lang = now.language if now is not None and not now.is_source else None
    if since is None:
        cards = read_record(project, game_id).get(record_key(now) if now is not None else "cards")
        if not cards:
            path = project.build / game_id / FACES_RECORD
            edition = f" in {lang}" if lang else ""
            if _damaged(path):
                raise PnpError(Problem(project.display(path), None, "this record of what was built and printed is "
                                       "damaged (not the JSON a build writes), so what changed since cannot be told",
                                       "pass --since REV (a git revision), or delete the file and build again: "
                                       "every card then counts as printed"))
            raise PnpError(Problem(project.display(path), None, f"no earlier build of this game{edition} is recorded",
                                   "build it once, or pass --since REV"))
        record = read_record(project, game_id)
        key = record_key(now) if now is not None else "cards"
        printed = record.get(printed_key(key), cards)
        looks = _as_looks(project, printed)
        if looks != printed:        # kept as looks from now on: the face cache may be emptied
            mark_printed(project, game_id, looks, key)
        return looks
    with tempfile.TemporaryDirectory(prefix="pnp-since-") as scratch:
        old = _checkout(project, since, Path(scratch))
        game = _game_at(old, game_id, lang, since)
        # the fonts of the game's language, as the build and the faces now have them
        renderer = CardRenderer(old, Assets(old).edition(game.spec.language), game)
        keep = [p for p in game.packs if any(p.key == q.key for q in packs)] or list(game.packs)
        return keys_by_card(faces_for(game, renderer, keep))


def _game_at(old: Project, game_id: str, lang: str | None, since: str) -> Game:
    """The game as the revision `since` has it, checked; each problem says it is the revision's (the
    designer's files may be right now)."""
    if not (old.cards / game_id / "game.yaml").is_file():
        raise PnpError(Problem(f"cards/{game_id}", None, f"revision {since} has no game '{game_id}' (not committed "
                               "there yet), so there is nothing to compare with",
                               "commit the game, or build it and run reprint without --since"))
    try:
        return check_game(old, Assets(old), game_id, lang).game
    except PnpError as error:
        raise PnpError([replace(problem, message=f"at revision {since}: {problem.message}")
                        for problem in error.problems]) from None


def _as_looks(project: Project, printed: dict) -> dict:
    """A record written before it kept looks holds each side's face key (40 hex digits): the look is
    then the hash of that face's entry in the face cache, while it is there (else the side counts as
    changed, as it did then)."""
    cache = FaceCache(project)

    def look(value):
        if not (isinstance(value, str) and len(value) == 40):
            return value
        try:
            return hashlib.sha256(cache.path(value).read_bytes()).hexdigest()
        except (OSError, ValueError):
            return value
    return {uid: {side: look(v) for side, v in sides.items()} for uid, sides in printed.items()}


def verified_revision(project: Project, revision: str) -> str:
    """The commit a revision names, checked as a revision before git sees it anywhere else:
    `--since=--output=FILE` must never reach git as an option (it would write FILE)."""
    run = subprocess.run(["git", "-C", str(project.root), "rev-parse", "--verify", "--quiet", "--end-of-options",
                          f"{revision}^{{commit}}"], capture_output=True)
    commit = run.stdout.decode(errors="replace").strip()
    if run.returncode or not re.fullmatch(r"[0-9a-f]{40,64}", commit):
        raise PnpError(Problem(str(project.root), None, f"cannot read revision {abbreviate(revision)!r}: it is not "
                               "a commit in this project's git history", "give a commit, tag or branch, e.g. HEAD~1"))
    return commit


def _checkout(project: Project, revision: str, into: Path) -> Project:
    """The project's files as they were at a git revision. A folder of TRACKED that git holds only
    as a symbolic link, or not at all (fonts shared between projects), is taken as it is now; cards/ never."""
    commit = verified_revision(project, revision)
    # The project folder as the revision holds it (a data file the game reads by ../, shared/ say, too), but
    # build/; only what it holds: git archive refuses a path it does not.
    held = [name for name in _git(project, revision, "ls-tree", "-z", "--name-only", commit).split("\0")
            if name and name != "build"]
    if held:
        with tarfile.open(fileobj=BytesIO(_git(project, revision, "archive", "--format=tar", commit, "--", *held,
                                               text=False))) as archive:
            for member in archive.getmembers():
                try:
                    archive.extract(member, into, filter="data")
                except tarfile.FilterError:       # a link out of the scratch folder: skipped, see above
                    continue
    (into / "cards").mkdir(exist_ok=True)       # a revision without cards/ has no game: never today's
    for folder in TRACKED:
        if not (into / folder).exists() and (project.root / folder).exists():
            (into / folder).symlink_to(project.root / folder)
    return Project.at(into)


def _git(project: Project, revision: str, *args: str, text: bool = True):
    """What a git command prints about the project's repository; a PnpError naming the revision if it fails."""
    run = subprocess.run(["git", "-C", str(project.root), *args], capture_output=True)
    if run.returncode:
        message = run.stderr.decode(errors="replace").strip().splitlines()
        raise PnpError(Problem(str(project.root), None, f"cannot read revision {revision!r}: "
                               f"{message[-1] if message else f'git {args[0]} failed'}"))
    return run.stdout.decode(errors="replace") if text else run.stdout


def reprint(project: Project, assets: Assets, game_id: str, since: str | None, players: int | None,
            papers: list[str] | None, options: PrintOptions, jobs: int = 1, say=print,
            lang: str | None = None) -> list[str]:
    if since is not None:
        verified_revision(project, since)       # before anything runs: git must never take it as an option
    game = check_game(project, assets, game_id, lang).game
    assets = assets.edition(game.spec.language)
    if players is None and since is None:       # the largest pack that was built, not one never printed
        built = read_record(project, game_id)["packs"]
        players = max(built) if built else None
    pack = pick_pack(game, players)
    renderer = CardRenderer(project, assets, game, ink_saver=options.ink_saver)
    faces = faces_for(game, renderer, [pack])
    rendered = None
    if since is None:
        # The last build recorded each face's full key (what it read included, so a new picture
        # counts): the faces are resolved against the cache, or rendered, to compare the same.
        # A revision's faces are compared by their direct keys, known without rendering either side.
        rendered = renderer.render(list(faces.values()), jobs=jobs)
    # Against what was printed: each side's look (a face's key holds the engine's fingerprint). Against
    # a revision: the direct keys, both made now by this engine.
    now = looks_by_card(faces, rendered) if rendered is not None else keys_by_card(faces)
    before = previous_keys(project, assets, game_id, since, [pack], game)
    changes = []
    for uid, sides in now.items():
        old = before.get(uid)
        what = "new card" if old is None else ", ".join(
            {"face": "face", "back": "back"}[s] for s in sorted(sides) if old.get(s) != sides[s])
        if what:
            card = game.decks[uid.split("/")[0]].card(uid.split("/")[1])
            changes.append({"card": uid, "name": str(card.fields.get("name") or card.fields.get("title") or uid),
                            "what": what})
    removed = sorted(uid for uid in set(before) - set(now) if not _in_game(game, uid))
    if not changes:
        say(f"{game_id}: nothing changed since {since or 'the cards were last printed (first built or reprinted)'}" +
            (f" (removed: {', '.join(removed)})" if removed else "") +
            ("" if since else "; --since REV compares with a git revision"))
        if since is None and removed:
            mark_printed(project, game_id, {}, record_key(game), forget=removed)
        return []
    changed = {c["card"] for c in changes}
    needed = [f for k, f in faces.items() if f"{k[0]}/{k[1]}" in changed]
    rendered = rendered or renderer.render(needed, jobs=jobs)
    builder = PackBuilder(project, assets, game, rendered, faces, options)
    written, recorded = [], {}
    entry = _entry(project, game, options, pack.players)
    for paper in papers or list(PAPERS):
        made = builder.build(pack, paper, only=changed, changes=changes, removed=removed,
                             reprint_of=since or translator(game.spec.language).gettext("they were last printed"))
        manifest = made.manifest
        path, report, _ = write_pack(project, game, pack, paper, made.pdf, manifest, options, name_key="reprint",
                                     shared=builder.passed_checks)
        say(f"wrote {path} ({count(len(changes), 'changed card')}, {report.cards} to print; preflight ok)")
        written.append(path)
        name = Path(manifest["file"]).stem
        recorded.update(dict.fromkeys(own_files(name, manifest), dict(entry, paper=paper)))
    written_record.note(project.build, game.id, recorded)
    if since is None:
        mark_printed(project, game_id, {uid: now[uid] for uid in changed}, record_key(game), forget=removed)
    return written


def _entry(project: Project, game: Game, options: PrintOptions, players: int) -> dict:
    """A reprint's record in build/<game>/.written.json: its own variant (no build removes it), and the
    edition's inputs it was made from, so the site offers it only while the last build's are the same."""
    return {"language": game.language, "players": players, "optional": False, "reprint": True,
            "variant": "reprint" + written_record.variant(options), "made_from": edition_inputs(project, game)}


def _in_game(game: Game, uid: str) -> bool:
    """True when the game still has this card, in some pack or none: a card of another pack
    than the one reprinted is not "removed"; one whose deck or entry is gone is."""
    deck_id, _, card_id = uid.partition("/")
    deck = game.decks.get(deck_id)
    return deck is not None and any(card.id == card_id for card in deck.cards)
