"""What the builds of a game wrote into build/<game>/, each file with the selection it was written
under, so that a build can remove what an earlier build wrote and this one replaces under another
name: a pack whose game gained a second language (x-3p-a4.pdf became x-3p-a4-en.pdf), or whose
duplex setting changed (x-3p-a4.pdf became x-3p-a4-short.pdf). Left beside the new file, the old one
is the one a designer may print.

A build removes a recorded file only when its own selection covers the file's (the same language,
one of its papers and player counts, the same variant) and it did not write that file again: a
`--players 2` build leaves the 3-player pack, an --ink-saver build the full-colour one. Nothing the
record does not name is removed (proofs of --only, exports, the designer's own files), and never
through a link (atomic.remove_outputs)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from generator.atomic import read_record, remove_outputs, write_record
from generator.source.options import PrintOptions

RECORD = ".written.json"


def variant(options: PrintOptions) -> str:
    """The print settings a pack's name carries that make a file of its own, kept beside the default
    one (ink saver, fit, per-deck sheets, a cutter, draft, and a duplex mode asked for with --duplex).
    The project's own duplex mode (pnp.toml's) is not one: a printer turns sheets one way, and when
    the project's mode changes, the file for the old way is the wrong one to print."""
    own = PrintOptions(ink_saver=options.ink_saver, fit=options.fit, sheets=options.sheets,
                       cutter=options.cutter, draft=options.draft).suffix
    return own + (f"+duplex-{options.duplex}" if options.duplex_asked else "")


@dataclass(frozen=True)
class Selection:
    """What one build of an edition makes: its language, papers, player counts (None: every pack,
    the optional ones too) and variant; `kept`: the (players, paper) of packs it leaves as a build
    wrote them just now (pnp watch: the pack looked at first), with the rulebook of that paper;
    `rules_variant`: the variant of the standalone rulebook it writes (only --ink-saver reaches that
    file: rules_file.rules_options), so a draft build's rulebook is the ordinary one; `made_from`: the
    edition's inputs it was made from (stamp.edition_hash), which the site compares with the last build's."""
    language: str
    papers: tuple[str, ...]
    players: tuple[int, ...] | None
    variant: str
    kept: frozenset = frozenset()
    rules_variant: str = ""
    made_from: str | None = None

    def entry(self, players: int | None, optional: bool, paper: str) -> dict:
        """The record of a file this build writes (players None: the rulebook, for every count)."""
        return {"language": self.language, "paper": paper, "players": players, "optional": optional,
                "variant": self.rules_variant if players is None else self.variant, "made_from": self.made_from}

    def covers(self, entry) -> bool:
        if not isinstance(entry, dict) or entry.get("language") != self.language or entry.get("paper") not in self.papers:
            return False
        if entry.get("players") is None:          # the rulebook: every build of the edition writes its variant's
            return entry.get("variant") == self.rules_variant and \
                entry.get("paper") not in {paper for _, paper in self.kept}
        if entry.get("variant") != self.variant or \
                (not entry.get("optional") and (entry.get("players"), entry.get("paper")) in self.kept):
            return False
        return self.players is None or (not entry.get("optional") and entry.get("players") in self.players)


def replace_earlier(build: Path, game_id: str, selection: Selection, written: dict[str, dict]) -> list[str]:
    """Record `written` ({file relative to build/<game>/: its entry}) and remove the files an earlier
    build recorded under a selection this one covers that it did not write again; return those removed
    (relative names, sorted)."""
    return _remove(build, game_id, written,
                   lambda name, entry: name not in written and selection.covers(entry))


def note(build: Path, game_id: str, written: dict[str, dict]) -> None:
    """Record `written` and remove nothing (a reprint: no build replaces it, and it replaces none)."""
    _remove(build, game_id, written, lambda name, entry: False)


def drop_languages(build: Path, game_id: str, languages: list[str]) -> list[str]:
    """After a build of every edition: remove the files recorded for a language the game no longer
    has (its edition dropped or renamed); return those removed."""
    return _remove(build, game_id, {},
                   lambda name, entry: isinstance(entry, dict) and entry.get("language") not in languages)


def _remove(build: Path, game_id: str, written: dict[str, dict], doomed) -> list[str]:
    folder = build / game_id
    record = _read(folder / RECORD)
    stale = sorted(name for name, entry in record.items() if doomed(name, entry))
    by_folder: dict[Path, set[str]] = {}
    for name in stale:
        path = folder / name
        by_folder.setdefault(path.parent, set()).add(path.name)
    for parent, names in by_folder.items():
        remove_outputs(parent, build, lambda old, names=names: old.name in names)
        if parent != folder and parent.is_dir() and not parent.is_symlink() and not any(parent.iterdir()):
            parent.rmdir()                    # a pack's -cut/ folder left empty
    removed = [name for name in stale if not (folder / name).exists() and not (folder / name).is_symlink()]
    for name in removed:
        del record[name]
    new = {**record, **written}
    if new != record or removed:
        write_record(folder / RECORD, new, durable=True, sort_keys=True)
    return removed


def read(folder: Path) -> dict:
    """The record of build/<game>/ (`folder`): {file: its entry}."""
    return _read(folder / RECORD)


def _read(path: Path) -> dict:
    """The record; a damaged one is an empty one (its files are then never removed), and a name that
    would lead out of build/<game>/ is dropped."""
    try:
        record = read_record(path)
    except (OSError, ValueError):
        return {}
    if not isinstance(record, dict):
        return {}
    return {name: entry for name, entry in record.items() if _inside(name)}


def _inside(name: str) -> bool:
    path = PurePosixPath(name)
    return bool(name) and "\\" not in name and not path.is_absolute() and ".." not in path.parts \
        and not any(part.startswith(".") for part in path.parts)


REPLACED = "under names this one replaces"
DROPPED = "for a language the game no longer has"


def summary(removed: list[str], why: str = REPLACED) -> str:
    """One line: the files removed, a -cut/ folder's files counted."""
    shown: dict[str, int] = {}
    for name in removed:
        top = name.split("/", 1)[0] + ("/" if "/" in name else "")
        shown[top] = shown.get(top, 0) + 1
    parts = [f"{top} ({n} files)" if top.endswith("/") and n > 1 else top for top, n in shown.items()]
    return f"removed what an earlier build wrote {why}: {', '.join(parts)}"
