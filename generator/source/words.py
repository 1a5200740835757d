"""Counted words in terminal messages: "1 face", "2 faces".

The terminal speaks English only; its plural forms still go through gettext's `ngettext`
(a NullTranslations, the English rule), so each counted word is written once, here in the
caller, and a catalogue could take over without touching the messages. It lives in source/,
the lowest stage, because sheets/, export/ and commands/ all print counts.
"""
from __future__ import annotations

import difflib
import gettext

_ENGLISH = gettext.NullTranslations()


def count(n: int, singular: str, plural: str | None = None) -> str:
    """`n` and the word in the form that number takes: count(1, "face") -> "1 face"."""
    return f"{n} {_ENGLISH.ngettext(singular, plural or singular + 's', n)}"


def pdfs(files) -> str:
    """How many PDFs among a build's files ("20 PDFs"): what a build says it wrote, one "wrote" line
    each, and what an up-to-date build says it kept (its record also lists each PDF's manifest)."""
    return count(sum(1 for name in files if str(name).endswith(".pdf")), "PDF")


def closest(word: str, known) -> str | None:
    """The known word closest to `word` (a misspelling of it), or None when none is close."""
    close = difflib.get_close_matches(word, sorted(known), n=1, cutoff=0.6)
    return close[0] if close else None


def suggest(word: str, known) -> str:
    """" (did you mean X?)" naming the closest known word, or nothing when none is close."""
    close = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]}?)" if close else ""
