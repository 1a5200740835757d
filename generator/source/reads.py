"""Every file a build reads, with the hash of the bytes it read.

The loader (YAML, spreadsheets, rules.py), the Jinja loader, WeasyPrint's URL fetcher and the
face cache (for the inputs of a face it takes from the cache) note what they read here while a
build records; the up-to-date stamp then covers exactly those files, wherever they lie (a data
file reached by ../ as much as a template). Recording is off unless a command turns it on, so
a test or an export pays nothing. This module stays light: the stamp imports it first thing.
"""
from __future__ import annotations

import hashlib
import os
from contextlib import contextmanager
from pathlib import Path

_logs: list["ReadLog"] = []       # the logs recording now (nested builds each keep their own)


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ReadLog:
    def __init__(self):
        self.files: dict[str, str] = {}     # absolute path -> sha256 of the bytes read

    def add(self, path: Path | str, sha: str) -> None:
        name = str(path)
        self.files[name if os.path.isabs(name) else str(Path(name).absolute())] = sha


def note(path: Path | str, data: bytes) -> None:
    """Record that `path` was read and gave `data` (the bytes themselves, so a file edited
    while the build ran is seen as changed by the next one)."""
    if _logs:
        sha = digest(data)
        for log in _logs:
            log.add(path, sha)


def note_hash(path: Path | str, sha: str) -> None:
    """Record a read whose hash is already known (an input of a face taken from the cache)."""
    for log in _logs:
        log.add(path, sha)


@contextmanager
def recording():
    log = ReadLog()
    _logs.append(log)
    try:
        yield log
    finally:
        _logs.remove(log)


# --- look-ups: files whose presence decides an output, read or not ---------------------------
_lookups: list[set] = []


def looked_up(path: Path | str) -> None:
    """Record that an output depends on `path` as it is now: its bytes, or that it is absent
    (a template found in the engine's folder depends on the project having none of that name)."""
    for found in _lookups:
        found.add(str(path))


@contextmanager
def looking_up():
    found: set[str] = set()
    _lookups.append(found)
    try:
        yield found
    finally:
        _lookups.remove(found)
