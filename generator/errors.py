"""Problems are values: every check returns them, the CLI prints one per line.

A Problem names where it was found (`path:line`) so the designer can jump to it.
Exceptions that reach the user are bugs; `PnpError` is the one planned exception,
carrying the problems that stop a command (exit status 1).
"""
from __future__ import annotations

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
        text = f"{where}: {'note: ' if self.note else ''}{self.message}"
        return f"{text} (hint: {self.hint})" if self.hint else text


class PnpError(Exception):
    """Stops a command with exit status 1 after printing its problems."""

    def __init__(self, problems: Iterable[Problem] | Problem):
        self.problems = [problems] if isinstance(problems, Problem) else list(problems)
        super().__init__("\n".join(map(str, self.problems)))


def errors_only(problems: Iterable[Problem]) -> list[Problem]:
    return [p for p in problems if not p.note]
