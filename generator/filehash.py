"""A file's content hash, read once per process while the file stays as it was.

A build hashes the bundled font files (megabytes) for several keys: the up-to-date stamp, the
faces' inputs, page 1's and the rulebook's, the sheet cache's context and preflight's memo. Each
asked on its own, they read and hashed them four or five times a build. Here a file's hash is
kept with its size, times, inode and device, and used again while they are the same and its last
change (ctime, which no tool can set back) came well before the hash was taken: a change within
the file clock's granularity of the hash could share its times ("racy" files, as git calls them),
so such a file is hashed again every time. `pnp watch`, which builds again every few seconds in
one process, reads a font only when it changed.
"""
from __future__ import annotations

import errno
import hashlib
import os
import stat
import time
from pathlib import Path

_HASHED: dict[str, tuple[tuple, bytes]] = {}
SETTLED_NS = 2_000_000_000


def signature(info: os.stat_result) -> tuple:
    """What a file's stat says of its content: size, times, inode and device (any write, even
    one that puts the size and modification time back, moves the change time)."""
    return info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev


def file_digest(path: Path | str) -> bytes:
    """The sha256 of the file's bytes (OSError if it cannot be read)."""
    info = os.stat(path)
    known = _HASHED.get(str(path))
    if known is not None and known[0] == signature(info):
        return known[1]
    taken = time.time_ns()
    if not stat.S_ISREG(info.st_mode):      # a pipe would block, /dev/zero never end
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    found = _hash_file(path)
    if info.st_ctime_ns < taken - SETTLED_NS:
        _HASHED[str(path)] = (signature(info), found)
    return found


def _hash_file(path: Path | str) -> bytes:
    """The sha256 of a file, read in pieces: a large file in a game's folder is hashed in little
    memory."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").digest()


def is_regular(path: Path | str) -> bool:
    """Whether path (its links followed) is an ordinary file: a walk of a folder takes only those."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def file_hash(path: Path | str) -> str:
    """file_digest as hex text."""
    return file_digest(path).hex()
