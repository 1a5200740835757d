"""The face cache: one canonical PDF per rendered card face, kept with the list of every file
that face read (the way ccache's direct mode keeps a manifest of a compile's headers).

A face's direct key covers what is known before it renders: the engine (the source of the rendering
code and the renderer's version), the template's output for that card (so its data and every
template and macro file it includes), the names of its stylesheets, the card's geometry, and the
bytes of the font files that draw its HTML's text. Under that key a small manifest lists what the
face read while it rendered, each file with the hash of its bytes as WeasyPrint's URL fetcher saw
them: stylesheets and what they @import, <img> art, icons and background images; and every font file
it drew with (text that CSS adds included). A cached face is used only when every file it read still
has that hash; its entry is named by the direct key and those hashes, and the manifest keeps the
hash of the entry's own bytes, so an entry that is cut off, edited, replaced by another face's PDF
or turned into a folder is removed and rendered again, never printed. Entries are written to a
temporary file and renamed, so two builds at once, or a build killed halfway, never leave a broken
entry.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import os
import shutil
import stat as stat_module
from pathlib import Path

import pikepdf

from generator.atomic import make_room, read_kept, read_record, write_atomic, write_record
from generator.filehash import file_hash
from generator.source import reads
from generator.source.project import Project

INDEX_VERSION = 2       # 2: each distinct set of inputs once, entries name it by number


def relative_name(root: Path, path: str | Path) -> str:
    """A recorded input's name: relative to the project folder when inside it, so a project
    moved or copied with its build/ checks its own files, not the ones it was copied from."""
    resolved = Path(path)
    return resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else str(resolved)


def absolute_name(root: Path, name: str) -> Path:
    return Path(name) if Path(name).is_absolute() else root / name


def note_inputs(root: Path, inputs: dict[str, str]) -> None:
    """What a stored entry read is what this build read: the build's stamp covers those files as a
    cold build's does. Recorded names that are not files (a drawing's "@decks/…" and "?text") are not."""
    for name, sha in inputs.items():
        if name[0] not in "@?":
            reads.note_hash(absolute_name(root, name), sha)


class FileHashes:
    """Content hashes of project files, read once per run."""

    def __init__(self, project: Project):
        self.project = project
        self._hashes: dict[str, str] = {}

    def of(self, path: Path) -> str:
        key = str(path)
        if key not in self._hashes:
            self._hashes[key] = file_hash(path)     # (a font is hashed once a process, whoever asks)
        return self._hashes[key]

    def current(self, path: Path | str) -> str | None:
        """The file's hash now, or None when it cannot be read (gone, or a folder)."""
        try:
            return self.of(path)
        except OSError:
            return None


class FaceCache:
    """Also the cache of drawn boards and pieces (render/pieces.py), in its own folder.

    With an `index` name (a game's edition), the entries a build used are also listed in one
    file, `index-<name>.json`, each with its file's size, modification and change times and
    inode: the next build finds an entry whose file still has exactly those without opening its
    manifest or reading and hashing its bytes (a card sheet kept from the last build never reads
    them). Writing a file, even with its old size and time put back, changes its change time, so
    it is then checked in full as before; and every entry a sheet does open is hashed again."""
    KEEP = 8        # input sets remembered per direct key (a card switched back and forth stays cached)

    def __init__(self, project: Project, kind: str = "faces", index: str | None = None):
        self.root = project.build / ".cache" / kind
        self._root = str(self.root)              # find() stats every face's file: no Path objects there
        self._index_path = self.root / f"index-{index}.json" if index else None
        self._indexed: dict | None = None        # the last build's index, read when first needed
        self._used: dict[str, list] = {}         # direct -> [key, sha256, inputs, stat] of this build
        self._unindexed: set[str] = set()        # directs of _used the index file does not hold as used
        self._held_sets: dict[int, tuple | None] = {}    # input sets checked against their files (_set_held)
        self._sets: list = []                    # the index's input sets, by number
        self._markers: dict = {}                 # set number -> its (file, hash) tuple, or None
        self._inputs: dict[tuple, dict] = {}     # (file, hash) tuple -> the index's dict of it

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.pdf"

    def _manifest(self, direct: str) -> Path:
        return self.root / direct[:2] / f"{direct}.json"

    def entries(self, direct: str) -> list[dict]:
        """The manifest's entries, newest first: {"key", "sha256", "inputs": {path: sha}}. A
        damaged manifest is an empty one (it is rewritten on the next store)."""
        path = self._manifest(direct)
        try:
            data = read_record(path)
        except IsADirectoryError:
            shutil.rmtree(path, ignore_errors=True)
            return []
        except (OSError, ValueError):
            return []
        entries = data.get("entries") if isinstance(data, dict) else None
        # an entry named for another direct key (a manifest copied or swapped) is not this face's
        return [e for e in entries if _well_formed(e) and e["key"] == entry_key(direct, e["inputs"])] \
            if isinstance(entries, list) else []

    def get(self, direct: str, current) -> tuple[str, pikepdf.Pdf, dict[str, str]] | None:
        """(key, page PDF, inputs) of the entry whose recorded inputs all still have their hash
        (`current(path)` gives a file's hash now, None when it is gone), else None."""
        hit = self.get_bytes(direct, current)
        if hit is None:
            return None
        key, data, inputs = hit
        try:
            return key, pikepdf.open(io.BytesIO(data), attempt_recovery=False), inputs
        except pikepdf.PdfError:
            self.path(key).unlink(missing_ok=True)
            return None

    def get_bytes(self, direct: str, current) -> tuple[str, bytes, dict[str, str]] | None:
        """Like get, with the entry's bytes (checked against their recorded hash) unopened."""
        entry = self._match(direct, current)
        data = self.read(entry["key"], entry["sha256"]) if entry else None
        return (entry["key"], data, entry["inputs"]) if data is not None else None

    def find(self, direct: str, current) -> tuple[str, str, dict[str, str]] | None:
        """Like get_bytes, giving the entry's hash instead of its bytes, which are checked now (or
        known unchanged by the index) and again when read() reads them for use: most faces of a
        rebuild are never opened. Faces that read the same files get the same inputs dict."""
        known = self._index().get(direct)
        if known is not None and _indexed_well(known):
            key, sha, number, stat = known
            held = self._set_held(number, current)
            if held is not None and key == _named(direct, held[1]) \
                    and _stat(f"{self._root}/{key[:2]}/{key}.pdf") == stat:
                self._used[direct] = [key, sha, held[0], stat]
                return key, sha, self._inputs[held[0]]
        entry = self._match(direct, current)
        if entry is None or self.read(entry["key"], entry["sha256"]) is None:
            return None
        self.remember(direct, entry["key"], entry["sha256"], entry["inputs"])
        return entry["key"], entry["sha256"], entry["inputs"]

    def _set_held(self, number, current) -> tuple[tuple, bytes] | None:
        """(the index's input set `number` as a marker, what it adds to an entry's name) when the
        set is one and all its files still have their hashes; else None. Once a set in a run: most
        faces of a game read the same stylesheets and icons, and `current` gives the same hashes
        all run."""
        if type(number) is not int:
            return None
        found = self._held_sets.get(number, False)
        if found is False:
            marker = self._marker(number)
            # (a marker's hashes are all text: _marker made sure)
            holds = marker is not None and all(current(name) == value for name, value in marker)
            found = (marker, _inputs_part(marker)) if holds else None
            self._held_sets[number] = found
        return found

    def _marker(self, number) -> tuple | None:
        """The index's input set `number` as a tuple of (file, hash), once a run; None when the
        index has no such set or it is not one (a damaged index)."""
        marker = self._markers.get(number, False)
        if marker is False:
            sets = self._sets
            inputs = sets[number] if type(number) is int and 0 <= number < len(sets) else None
            marker = None
            if isinstance(inputs, dict) and all(isinstance(v, str) for v in inputs.values()):
                marker = tuple(inputs.items())
                self._inputs.setdefault(marker, inputs)
            self._markers[number] = marker
        return marker

    def remember(self, direct: str, key: str, sha: str, inputs: dict[str, str]) -> None:
        """List an entry checked (or written) by this build in the index."""
        if self._index_path is not None:
            stat = _stat(self.path(key))
            if stat is not None:
                self._used[direct] = [key, sha, tuple(sorted(inputs.items())), stat]
                self._unindexed.add(direct)

    def save_index(self) -> None:
        """The entries this build used, and the last build's while they are not many more. Each
        distinct set of inputs is written once and named by its number (at 5,000 faces that read
        the same stylesheets, fonts and icons: 7 MB of index → 1 MB). Written when an entry is
        new to it: a build that found every face through the index leaves it as it was."""
        if self._index_path is None or not self._unindexed:
            return
        self._unindexed = set()
        # the last build's entries are carried over unchecked: each is checked when looked up
        merged = dict(self._carried())
        merged.update(self._used)
        if len(merged) > 2 * len(self._used) + 1000:
            merged = self._used
        sets: dict[tuple, int] = {}
        faces = {direct: [key, sha, sets.setdefault(marker, len(sets)), stat]
                 for direct, (key, sha, marker, stat) in merged.items()}
        write_record(self._index_path, {"version": INDEX_VERSION, "sets": [dict(m) for m in sets], "faces": faces})

    def _carried(self):
        """The last build's entries not used by this one, as (direct, [key, sha, marker, stat])."""
        for direct, entry in self._index().items():
            if direct not in self._used and _indexed_well(entry):
                marker = self._marker(entry[2])
                if marker is not None:
                    yield direct, [entry[0], entry[1], marker, entry[3]]

    def _index(self) -> dict:
        if self._indexed is None:
            self._indexed = {}
            try:
                data = read_record(self._index_path) if self._index_path else {}
            except (OSError, ValueError, RecursionError):
                data = {}
            # (an entry and its set are checked when it is looked up)
            if isinstance(data, dict) and data.get("version") == INDEX_VERSION \
                    and isinstance(data.get("sets"), list) and isinstance(data.get("faces"), dict):
                self._sets, self._indexed = data["sets"], data["faces"]
        return self._indexed

    def _match(self, direct: str, current) -> dict | None:
        """The newest entry whose recorded inputs all still have their hash."""
        for entry in self.entries(direct):
            if all(current(name) == sha for name, sha in entry["inputs"].items()):
                return entry
        return None

    def display(self, key: str) -> str:
        return str(self.path(key))

    def read(self, key: str, sha: str) -> bytes | None:
        path = self.path(key)
        try:
            data = read_kept(path)
        except IsADirectoryError:                      # not ours to print: gone, and rendered again
            shutil.rmtree(path, ignore_errors=True)
            return None
        except (FileNotFoundError, NotADirectoryError):
            return None
        except OSError:                                # a link or a pipe in its place: a miss, gone
            with contextlib.suppress(OSError):
                path.unlink()
            return None
        if hashlib.sha256(data).hexdigest() != sha:    # cut off, edited, or another face's PDF
            path.unlink(missing_ok=True)
            return None
        return data

    def drop(self, direct: str) -> None:
        """Forget a direct key: its entries and its manifest (a store that keeps only the newest)."""
        for entry in self.entries(direct):
            self.path(entry["key"]).unlink(missing_ok=True)
        self._manifest(direct).unlink(missing_ok=True)

    def put(self, direct: str, inputs: dict[str, str], data: bytes) -> str:
        """Store a rendered face with what it read; return its key."""
        key = entry_key(direct, inputs)
        target = self.path(key)
        make_room(target)
        write_atomic(target, data, durable=False)
        entry = {"key": key, "sha256": hashlib.sha256(data).hexdigest(), "inputs": dict(sorted(inputs.items()))}
        entries = [entry] + [e for e in self.entries(direct) if e["key"] != key]
        write_record(self._manifest(direct), {"entries": entries[:self.KEEP]})     # by orjson: one a face
        return key


def entry_key(direct: str, inputs: dict[str, str]) -> str:
    """An entry's name: its direct key and what it read (so an index entry naming another face's
    file is seen for what it is)."""
    return _entry_key(direct, tuple(inputs.items()))


def _entry_key(direct: str, inputs: tuple[tuple[str, str], ...]) -> str:
    return _named(direct, _inputs_part(inputs))


def _named(direct: str, inputs_part: bytes) -> str:
    return hashlib.sha256(direct.encode() + inputs_part).hexdigest()[:40]


@functools.lru_cache(maxsize=256)
def _inputs_part(inputs: tuple[tuple[str, str], ...]) -> bytes:
    """What an entry's inputs add to its name, made once per distinct set."""
    return "".join(f"\0{name}\0{sha}" for name, sha in sorted(inputs)).encode()


def _stat(path: Path | str) -> list[int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat_module.S_ISREG(info.st_mode):
        return None
    return [info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino]


def _indexed_well(entry) -> bool:
    """An index entry's shape: [key, sha256, number of its input set, stat] (the set is checked
    when first used, its stat must equal the file's)."""
    return (isinstance(entry, list) and len(entry) == 4 and isinstance(entry[0], str) and len(entry[0]) == 40
            and isinstance(entry[1], str))


def _well_formed(entry) -> bool:
    return (isinstance(entry, dict) and isinstance(entry.get("key"), str) and len(entry["key"]) == 40
            and isinstance(entry.get("sha256"), str) and isinstance(entry.get("inputs"), dict)
            and all(isinstance(v, str) for v in entry["inputs"].values()))
