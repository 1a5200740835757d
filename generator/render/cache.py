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
import hashlib
import io
import shutil
from pathlib import Path

import pikepdf

from generator.atomic import make_room, read_kept, read_record, write_atomic, write_record
from generator.filehash import file_hash
from generator.source import reads
from generator.source.project import Project

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
    """Also the cache of drawn boards and pieces (render/pieces.py), in its own folder."""
    KEEP = 8        # input sets remembered per direct key (a card switched back and forth stays cached)

    def __init__(self, project: Project, kind: str = "faces"):
        self.root = project.build / ".cache" / kind

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
        """Like get_bytes, giving the entry's hash instead of its bytes, which are checked now
        and again when read() reads them for use."""
        entry = self._match(direct, current)
        if entry is None or self.read(entry["key"], entry["sha256"]) is None:
            return None
        return entry["key"], entry["sha256"], entry["inputs"]

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
    """An entry's name: its direct key and what it read (so a manifest naming another face's
    file is seen for what it is)."""
    named = direct + "".join(f"\0{name}\0{sha}" for name, sha in sorted(inputs.items()))
    return hashlib.sha256(named.encode()).hexdigest()[:40]


def _well_formed(entry) -> bool:
    return (isinstance(entry, dict) and isinstance(entry.get("key"), str) and len(entry["key"]) == 40
            and isinstance(entry.get("sha256"), str) and isinstance(entry.get("inputs"), dict)
            and all(isinstance(v, str) for v in entry["inputs"].values()))
