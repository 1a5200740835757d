"""Reading one input file: a regular file, of a bounded size, or a located error.

A game folder is the designer's, or a stranger's: a named pipe in it would block a build forever
(and `pnp watch` with it), a link to /dev/zero would be read until memory runs out, a socket
cannot be opened at all. Every input the loader reads whole goes through read_regular: it opens
without waiting (O_NONBLOCK: a pipe with no writer opens at once), looks at what it opened, and
reads at most the limit.
"""
from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path

from generator.errors import PnpError, Problem

_OPEN = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)


def read_regular(path: Path | str, display: str, limit: int, hint: str = "split it or remove pasted data") -> bytes:
    """The bytes of `path`, a regular file of at most `limit` bytes; PnpError otherwise (FileNotFoundError
    and other OSErrors of opening are left to the caller, which knows what a missing file means)."""
    try:
        fd = os.open(path, _OPEN)
    except OSError as exc:
        if exc.errno in (errno.ENXIO, errno.EOPNOTSUPP):        # a Unix socket
            raise PnpError(_not_regular(display)) from None
        raise
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise PnpError(Problem(display, None, "is a folder, not a file"))
        if not stat.S_ISREG(info.st_mode):
            raise PnpError(_not_regular(display))
        if info.st_size > limit:
            raise PnpError(too_large(display, info.st_size, limit, hint))
        chunks, size = [], 0
        while size <= limit:        # a file that grows while it is read is bounded all the same
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > limit:
            raise PnpError(too_large(display, size, limit, hint))
        return b"".join(chunks)
    finally:
        os.close(fd)


def too_large(display: str, size: int, limit: int, hint: str | None) -> Problem:
    if limit >= 10_000_000:
        return Problem(display, None, f"file is {size // 1_000_000} MB; the limit is {limit // 1_000_000} MB", hint)
    return Problem(display, None, f"file is {size // 1024} KB; the limit is {limit // 1000} KB", hint)


def _not_regular(display: str) -> Problem:
    return Problem(display, None, "not a regular file (a named pipe, socket or device)",
                   "remove it from the project's folders; pnp reads only ordinary files")


# Characters no text file a designer writes holds, which YAML, CSV and Markdown readers refuse or
# mangle, each in its own words: C0 controls but tab and line breaks, DEL, C1 controls but NEL,
# and the two non-characters.
_CONTROL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ufffe\uffff]")
_NAMES = {"\x00": "a NUL byte", "\x1b": "an escape character"}


def control_character(display: str, text: str) -> Problem | None:
    """The first control character in `text`, located: one line naming it, whatever reads the
    text next (a NUL byte a tool wrote, an escape code pasted from a terminal)."""
    found = _CONTROL.search(text)
    if found is None:
        return None
    char = found.group()
    name = _NAMES.get(char, "a control character")
    return Problem(display, text.count("\n", 0, found.start()) + 1, f"{name} (U+{ord(char):04X}) in the text",
                   "delete it: a text file holds none (was it saved by another program, or pasted?)")


def text_of(raw: bytes, display: str, fix: str = "save the file as UTF-8") -> str:
    """A text file's bytes as text: UTF-8 (a byte-order mark some editors write is not an error),
    without control characters; each fault one located line (`fix`: how to save it as UTF-8)."""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PnpError(Problem(display, raw[: exc.start].count(b"\n") + 1, "not UTF-8 text", fix)) from None
    control = control_character(display, text)
    if control is not None:
        raise PnpError(control)
    return text
