"""The no-change fast path: a build that would write exactly what is there already is skipped.

After a build, build/<game>/.stamp.json records a hash of everything the packs are made from
(the game's folder, every template, font and icon, pnp.toml, the engine's own source and the
versions of the libraries that draw) together with the settings asked for; the hash of every
other file the build read (reads.py: a data file reached by ../, a spreadsheet or a picture
elsewhere), and the size, modification time and hash of every file written. The next
`pnp build` with the same hashes and untouched outputs says "up to date" and stops, before
loading any heavy library; one changed byte anywhere, in an input or an output, rebuilds. A stamp
keeps the last KEPT builds, each by its inputs (whose settings differ: the whole kit, one pack for
a playtest), so building one and then another leaves the first up to date.

An edition of a game (one language) has a stamp of its own, build/<game>/.edition-<lang>.json,
taken after its game loaded: a hash of the edition as data (what its cards, pieces, tables,
catalogue and derived numbers say in that language, with its validation's inputs), of its own
rulebook file, of every other file of the game folder that is not data (pictures, stylesheets,
templates), of templates/, fonts/, icons/ and pnp.toml, and of the engine. A designer's edit of
the Chinese text of one card leaves the English edition's data as it was: that edition is up to
date, and neither validated nor built again.

This module must stay light: it runs before anything else is imported.
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

from generator.filehash import file_digest, is_regular, signature
from generator.source import reads
from generator.fingerprint import engine_fingerprint

STAMP = ".stamp.json"


def _folders(root: Path, game_id: str) -> list[Path]:
    return [root / "cards" / game_id, root / "templates", root / "fonts", root / "icons"]


def inputs_hash(root: Path, game_id: str, settings: dict) -> str:
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode())
    digest.update(engine_fingerprint().encode())
    for folder in _folders(root, game_id):
        _add_files(digest, _files(folder), folder)
    return _with_config(digest, root)


def _add_files(digest, paths, base: Path) -> None:
    """Each file's name (from `base`) and the hash of its bytes."""
    for path in paths:
        digest.update(str(path.relative_to(base)).encode() + b"\0" + file_digest(path) + b"\0")


def _with_config(digest, root: Path) -> str:
    config = root / "pnp.toml"
    if config.is_file():
        digest.update(config.read_bytes())
    return digest.hexdigest()


DATA_SUFFIXES = (".yaml", ".yml", ".csv", ".tsv", ".xlsx", ".md")     # read into the edition (rulebooks: its own)


def edition_hash(root: Path, game_id: str, language: str, data: bytes) -> str:
    """An edition's inputs: `data` (the edition as canonical JSON, made by the caller from the loaded
    game), its own rulebook file, the game folder's files that are not data, the shared folders and
    pnp.toml, and the engine."""
    digest = hashlib.sha256(engine_fingerprint().encode() + b"\0" + data)
    game = root / "cards" / game_id
    own = [game / "rulebook" / f"{language}.md"]
    _add_files(digest, [p for p in own + [p for p in _files(game) if p.suffix not in DATA_SUFFIXES] if p.is_file()],
               game)
    for folder in _folders(root, game_id)[1:]:
        _add_files(digest, _files(folder), root)
    return _with_config(digest, root)


def with_settings(edition: str, settings) -> str:
    """An edition's inputs (edition_hash) with a build's settings (players, papers, print options): the
    stamp's key. The edition's alone is what every file a build of it writes was made from."""
    return hashlib.sha256(f"{edition}\0{json.dumps(settings, sort_keys=True, default=str)}".encode()).hexdigest()


def edition_up_to_date(root: Path, game_id: str, language: str, inputs: str) -> list[str] | None:
    """The files the edition's last build wrote, when it was made from exactly these inputs (an
    edition_hash) and nothing it wrote or read outside the project has changed since."""
    return up_to_date(root, game_id, inputs, _edition_stamp(language))


def record_edition(root: Path, game_id: str, language: str, written: list[str], inputs: str,
                   read: dict[str, str] | None = None, made_from: str | None = None) -> None:
    """`made_from`: the edition's inputs without the build's settings (edition_hash), kept for
    made_from()."""
    record(root, game_id, written, inputs, read, _edition_stamp(language), made_from=made_from)


def made_from(folder: Path, language: str) -> str | None:
    """What the last build of an edition was made from (edition_hash), read from its stamp in
    build/<game>/ (`folder`): the files recorded as made from the same are current."""
    value = _field(folder / _edition_stamp(language), "made_from")
    return value if isinstance(value, str) else None


def _edition_stamp(language: str) -> str:
    return f".edition-{language}.json"


def _files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    found = []
    for base, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        found += [Path(base) / f for f in sorted(files) if not f.startswith(".") and not f.endswith(".pyc")]
    # a named pipe, socket or device (a link to /dev/zero) is no input: reading one would block or
    # never end; the loader says so if the game names one
    return [path for path in found if is_regular(path)]


def _signature(path: Path) -> list[int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns]


def _sha(path: Path) -> str | None:
    try:
        return reads.digest(path.read_bytes())
    except OSError:
        return None


# Outputs this process wrote, by absolute path: (their size, times and inode just after, the hash
# of the bytes written). record() takes that hash instead of reading a pack back (5 MB at 5,000
# cards: 5 ms a rebuild) while the file still has that stat; a later change by any tool shows in
# its change time or inode. A wrong hash here could only make the next build run for nothing:
# up_to_date() hashes every output it trusts.
_WRITTEN: dict[str, tuple[tuple, str]] = {}


def _full_signature(path: Path) -> tuple | None:
    try:
        return signature(os.stat(path))
    except OSError:
        return None


def note_output(path: Path, sha: str) -> None:
    """`path` was just written with bytes whose sha256 (hex) is `sha`."""
    signature = _full_signature(path)
    if signature is not None:
        _WRITTEN[os.path.abspath(path)] = (signature, sha)


def _output_sha(path: Path) -> str | None:
    known = _WRITTEN.get(os.path.abspath(path))
    if known is not None and known[0] == _full_signature(path):
        return known[1]
    return _sha(path)


def _unchanged_output(path: Path, recorded) -> bool:
    """Same size and time (cheap, so checked first) and same bytes: an edit that keeps both,
    or a copy over the file with its time set back, is still seen."""
    if not isinstance(recorded, list) or len(recorded) != 3:
        return False
    return _signature(path) == recorded[:2] and _sha(path) == recorded[2]


def _outside(root: Path, game_id: str, files: dict[str, str]) -> dict[str, str]:
    """The files read that inputs_hash does not already cover."""
    covered = [f.resolve() for f in _folders(root, game_id)] + [(root / "pnp.toml").resolve()]
    return {_relative(root, name): sha for name, sha in sorted(files.items())
            if not any(Path(name).resolve().is_relative_to(folder) for folder in covered)}


def _relative(root: Path, name: str) -> str:
    """A read file's name in a stamp: relative to the project when inside it, so a project copied or
    moved with its build/ checks its own files, not the ones it was copied from."""
    path = Path(name)
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else name


def up_to_date(root: Path, game_id: str, inputs: str, name: str = STAMP) -> list[str] | None:
    """The files of the last build made from exactly these inputs (an inputs_hash: the settings
    are in it, so `--players 3 --paper a4` and the whole kit each have their own) when none of them
    has changed since; None when the game must be built."""
    stamp = _entry(root / "build" / game_id / name, inputs)
    if stamp is None:
        return None
    outputs, read = stamp.get("outputs"), stamp.get("read", {})
    if not outputs or not isinstance(outputs, dict) or not isinstance(read, dict):
        return None
    if any(_sha(root / name) != sha for name, sha in read.items()):
        return None
    if not all(_unchanged_output(root / name, recorded) for name, recorded in outputs.items()):
        return None
    for name, sha in read.items():      # read again by this build, as far as a stamp around it is concerned
        reads.note_hash(root / name, sha)
    return sorted(outputs)


def outside_reads(root: Path, game_id: str) -> list[Path]:
    """The files outside the project's folders the last build read (for `pnp watch`)."""
    read = _field(root / "build" / game_id / STAMP, "read")
    return [root / name for name in read] if isinstance(read, dict) else []


def warnings(root: Path, game_id: str, inputs: str, name: str = STAMP) -> list[str]:
    """The warnings the last build made from `inputs` gave (see record)."""
    said = (_entry(root / "build" / game_id / name, inputs) or {}).get("warnings")
    return [w for w in said if isinstance(w, str)] if isinstance(said, list) else []


KEPT = 4        # builds a stamp remembers, each by its inputs: as many selections said "up to date"


def _entries(path: Path) -> list[dict]:
    """A stamp's builds, the last first; none if it cannot be read or is not a record."""
    try:
        builds = json.loads(path.read_text()).get("builds")
    except (OSError, ValueError, AttributeError):
        return []
    return [b for b in builds if isinstance(b, dict)] if isinstance(builds, list) else []


def _entry(path: Path, inputs: str | None = None) -> dict | None:
    """The stamp's build made from `inputs` (None: its last build)."""
    return next((b for b in _entries(path) if inputs is None or b.get("inputs") == inputs), None)


def _field(path: Path, key: str):
    """One field of a stamp's last build; None if there is none."""
    return (_entry(path) or {}).get(key)


def record(root: Path, game_id: str, written: list[str], inputs: str, read: dict[str, str] | None = None,
           name: str = STAMP, warnings: list[str] = (), made_from: str | None = None) -> None:
    """Remember a finished build (`inputs` is the hash taken before it started, and `read` the
    hash of each file as the build read it, so an edit made while it ran is seen by the next
    build), and the warnings it gave, which hold as long as it is up to date (said again then)."""
    from generator.atomic import make_room, write_atomic
    names = list(written) + [str(Path(n).with_suffix(".json")) for n in written
                             if (root / Path(n).with_suffix(".json")).is_file()]
    outputs = {name: _signature(root / name) + [_output_sha(root / name)] for name in names if _signature(root / name)}
    data = {"inputs": inputs, "read": _outside(root, game_id, read or {}), "outputs": outputs,
            "warnings": list(warnings), **({"made_from": made_from} if made_from else {})}
    path = root / "build" / game_id / name
    builds = [data] + [_rewritten(b, outputs) for b in _entries(path) if b.get("inputs") != inputs][:KEPT - 1]
    make_room(path)     # a stamp is only a record: a folder in its place goes
    write_atomic(path, (json.dumps({"builds": builds}, indent=1, sort_keys=True) + "\n").encode(), durable=False)


def _rewritten(build: dict, outputs: dict) -> dict:
    """An earlier build's record after this build wrote some of its files again: a file written with
    the bytes it recorded is still its (its size and time are the new ones); any other is not."""
    theirs = build.get("outputs")
    if not isinstance(theirs, dict):
        return build
    now = {name: (outputs[name] if name in outputs and isinstance(recorded, list) and recorded[-1:] == outputs[name][-1:]
                  else recorded) for name, recorded in theirs.items()}
    return {**build, "outputs": now}
