"""Ways to damage a stored entry or record, shared by the red teams' tests of the store
(test_store_redteam.py and test_pack_store_redteam.py import it as `harm`): each takes the file's
path (swap and symlink_to two paths) and leaves it damaged in one way."""
from __future__ import annotations

import json
import os
from pathlib import Path


def cut(path: Path) -> None:
    """The second half gone."""
    path.write_bytes(path.read_bytes()[: max(1, path.stat().st_size // 2)])


def garble(path: Path) -> None:
    """Bytes flipped in the middle, size and modification time kept."""
    info = path.stat()
    data = bytearray(path.read_bytes())
    middle = len(data) // 2
    data[middle:middle + 8] = bytes(b ^ 0x5A for b in data[middle:middle + 8])
    path.write_bytes(bytes(data))
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))


def folder(path: Path) -> None:
    """A folder (with a file in it) where the file was."""
    path.unlink()
    path.mkdir()
    (path / "x").write_text("x")


def empty(path: Path) -> None:
    path.write_bytes(b"")


def swap(a: Path, b: Path) -> None:
    """Each file under the other's name."""
    tmp = a.with_suffix(".swap")
    a.rename(tmp)
    b.rename(a)
    tmp.rename(b)


def symlink_to(path: Path, other: Path) -> None:
    """The file replaced by a link to `other`."""
    path.unlink()
    path.symlink_to(other)


def json_as(value):
    """The file's text replaced by `value` as JSON."""
    return lambda path: path.write_text(json.dumps(value))
