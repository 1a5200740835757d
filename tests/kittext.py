"""The printed text of a built pack, part by part, for the kit-consistency tests.

A rule a kit states in more than one place (board, quick reference, card, rulebook, page 1) is read
back from each place in the PDF and compared. Text is taken page by page with pypdf, with all white
space and line-end hyphens (U+2010, soft hyphen) removed, so a phrase broken over lines (or a
booklet's two pages on one sheet) still matches; patterns are written without spaces.
"""
from __future__ import annotations

import json
import re
from functools import cached_property

from pypdf import PdfReader

from tests.conftest import Built, _key


class KitText:
    """One pack of one edition: `rulebook`, `page1`, and any piece or deck by id."""

    def __init__(self, built: Built, pack: int | str, lang: str, paper: str = "a4"):
        self.stem = f"{built.game}-{_key(pack)}-{paper}-{lang}"
        self.path = built.folder / f"{self.stem}.pdf"
        self.manifest = json.loads((built.folder / f"{self.stem}.json").read_text(encoding="utf-8"))

    @cached_property
    def _reader(self) -> PdfReader:
        return PdfReader(str(self.path))

    def _page(self, number: int) -> str:
        """One page's text, read once (a pack has dozens of pages; a test reads a few)."""
        known = self.__dict__.setdefault("_text", {})
        if number not in known:
            known[number] = re.sub(r"[\s\u2010\u00ad]+", "", self._reader.pages[number - 1].extract_text() or "")
        return known[number]

    def _join(self, entries) -> str:
        return "".join(self._page(e["number"]) for e in entries)

    def role(self, *roles: str) -> str:
        return self._join(e for e in self.manifest["pages"] if e["role"] in roles)

    @property
    def rulebook(self) -> str:
        return self.role("rulebook")

    @property
    def page1(self) -> str:
        return self.role("info")

    def piece(self, piece: str) -> str:
        return self._join(e for e in self.manifest["pages"] if any(p.get("piece") == piece for p in e.get("pieces", [])))

    def deck(self, deck: str, role: str = "front") -> str:
        """The card pages holding a deck: fronts (or one-sided sheets), or backs."""
        roles = ("cards-front", "cards") if role == "front" else ("cards-back",)
        return self._join(e for e in self.manifest["pages"] if e["role"] in roles and deck in e.get("components", []))


def found(pattern: str, text: str, where: str) -> tuple:
    """The groups of a pattern that must occur in a part of the kit (its name in the failure)."""
    match = re.search(pattern, text)
    assert match, f"{where}: no {pattern!r} in {text[:200]!r}…"
    return match.groups()


def numbers(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", text)]
