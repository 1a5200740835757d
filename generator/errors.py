"""Problems are values: every check returns them, the CLI prints one per line.

A Problem names where it was found (`path:line`) so the designer can jump to it.
Exceptions that reach the user are bugs; `PnpError` is the one planned exception,
carrying the problems that stop a command (exit status 1).
"""
from __future__ import annotations

import reprlib
import unicodedata
from dataclasses import dataclass
from typing import Iterable


@dataclass(frozen=True)
class Problem:
    path: str
    line: int | None
    message: str
    hint: str | None = None
    note: bool = False  # a documented finding (e.g. a resolved seed contradiction), not an error
    column: str | None = None  # a spreadsheet's column: `goods.csv:14:value: ...`

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        where += f":{self.column}" if self.column else ""
        text = f"{abbreviate(where, 300)}: {'note: ' if self.note else ''}{abbreviate(self.message, MAX_MESSAGE)}"
        return f"{text} (hint: {abbreviate(self.hint, MAX_MESSAGE)})" if self.hint else text


MAX_MESSAGE = 600   # characters: a problem is one line a person reads, whatever value it quotes


def abbreviate(text: str, limit: int = 120) -> str:
    """Text as echoed in an error line: one line of printable characters (no terminal escape
    codes, no line breaks), at most `limit` characters."""
    text = "".join(c if c.isprintable() or unicodedata.category(c) == "Zs" else _visible(c) for c in str(text))
    return text if len(text) <= limit else text[: limit - 1] + "…"


class _Short(reprlib.Repr):
    """repr() that stops early: a YAML alias bomb has millions of items but a short repr."""

    def repr1(self, x, level):
        if isinstance(x, list) and type(x) is not list:
            return self.repr_list(x, level)
        if isinstance(x, dict) and type(x) is not dict:
            return self.repr_dict(x, level)
        return super().repr1(x, level)


_SHORT = _Short()
_SHORT.maxlevel, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxstring, _SHORT.maxother, _SHORT.maxlong = 3, 6, 6, 80, 80, 60


def short_repr(value) -> str:
    """A value as an error line quotes it: repr(), cut short, printable."""
    return abbreviate(_SHORT.repr(value), 160)


def _visible(char: str) -> str:
    return "\u23ce" if char in "\n\r\u2028\u2029\x85" else f"\\x{ord(char):02x}" if ord(char) < 256 else f"\\u{ord(char):04x}"


class PnpError(Exception):
    """Stops a command with exit status 1 after printing its problems."""

    def __init__(self, problems: Iterable[Problem] | Problem):
        self.problems = [problems] if isinstance(problems, Problem) else list(problems)
        super().__init__("\n".join(map(str, self.problems)))

    def __reduce__(self):
        """Pickled whole (a forked helper's refusal reaches the build as this error)."""
        return PnpError, (self.problems,)


def errors_only(problems: Iterable[Problem]) -> list[Problem]:
    return [p for p in problems if not p.note]
