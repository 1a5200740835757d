"""A pack written again by replacing some objects' bytes in its last file, as qpdf would write it.

qpdf numbers the objects of the file it writes in the order it meets them, from the trailer on:
an object's references are numbered when the object is written, in the order they appear in it
(a dictionary's keys sorted), and objects are written in number order. So if a build changes
some objects of the last pack in place and each of them refers to exactly the objects it did,
in the same order, every object keeps its number and every other object its bytes: the file
qpdf would write is the last one with those objects' bytes replaced, the cross-reference table
counted again, and a new /ID. Writing that takes a few milliseconds, where qpdf parses and
writes all of a 5,000-card pack (~90 ms). sheet_cache.SheetPatcher decides when it applies;
this module writes the bytes, and checks that the last file has the one layout it assumes (one
classic cross-reference table, objects in number order, no object streams): what a pack saved
with pdfbytes.AS_IS has. Tested: every object of a document of every kind, and of patched packs,
written as here equals qpdf's bytes, and patched packs equal cold builds (tests/test_splice.py,
tests/test_sheet_cache.py).
"""
from __future__ import annotations

import re

import pikepdf

from generator.pdfbytes import STATIC_ID, content_id


class Unspliceable(Exception):
    """The last file is not laid out as this module writes, or an object cannot be written here."""


_ENTRY = b"%010d 00000 n \n"
_FREE = b"0000000000 65535 f \n"
_TRAILER = re.compile(rb"trailer << (/Info \d+ 0 R )?/Root \d+ 0 R /Size (\d+) /ID \[<[0-9a-f]{32}><[0-9a-f]{32}>\] >>\n"
                      rb"startxref\n(\d+)\n%%EOF\n")
# In the text of an object as qpdf writes it: a literal string (qpdf escapes every parenthesis and
# backslash in one), a hex string, or a reference, which must not be read inside either
_TOKENS = re.compile(rb"\((?:\\.|[^\\)])*\)|<[0-9a-fA-F\s]*>|(?<![\w.+-])(\d+) (\d+) R", re.S)


def offsets(data: bytes) -> tuple[list[int], int]:
    """Where each object of the file starts (index: its number; 0 is unused) and where its
    cross-reference table starts, for a file laid out as qpdf writes a pack (Unspliceable
    otherwise): objects 1 … n in number order, generation 0, then one table with an entry
    each, then the trailer."""
    found = _TRAILER.search(data, max(0, len(data) - 400))
    if found is None or found.end() != len(data):
        raise Unspliceable("the last pack ends in an unexpected trailer")
    size, table = int(found.group(2)), int(found.group(3))
    head = b"xref\n0 %d\n" % size + _FREE
    if not data.startswith(head, table) or table + len(head) + 20 * (size - 1) != found.start():
        raise Unspliceable("the last pack's cross-reference table is not one section of every object")
    rows = data[table + len(head):found.start()]
    starts = [0] + [int(rows[i:i + 10]) for i in range(0, len(rows), 20)]
    if b"".join(_ENTRY % s for s in starts[1:]) != rows or starts[1:] != sorted(starts[1:]) \
            or (size > 1 and starts[-1] >= table):
        raise Unspliceable("the last pack's objects are not in number order")
    return starts, table


def replaced(data: bytes, new: dict[int, bytes]) -> bytes:
    """The file with each object numbered in `new` written as given (its whole `N 0 obj … endobj`),
    its table counted again and a new content /ID (pdfbytes.content_id, as a save with
    deterministic_id gives a document without an ID: a cold pack, or one built on its last file,
    which drops that file's ID)."""
    starts, table = offsets(data)
    pieces, at, growth = [], 0, {}
    for number in sorted(new):
        if not 0 < number < len(starts):
            raise Unspliceable(f"the last pack has no object {number}")
        start, end = starts[number], starts[number + 1] if number + 1 < len(starts) else table
        if not (data.startswith(b"%d 0 obj\n" % number, start) and new[number].startswith(b"%d 0 obj\n" % number)):
            raise Unspliceable(f"object {number} is not where the table says, or written under another number")
        pieces += (data[at:start], new[number])
        at = end
        growth[number] = len(new[number]) - (end - start)
    pieces.append(data[at:table])
    places, shift = [], 0
    for number in range(1, len(starts)):
        places.append(starts[number] + shift)
        shift += growth.get(number, 0)
    pieces.append(b"xref\n0 %d\n" % len(starts) + _FREE + b"".join(_ENTRY % p for p in places))
    tail = re.sub(rb"/ID \[<[0-9a-f]{32}><[0-9a-f]{32}>\]", b"/ID [<" + STATIC_ID + b"><" + STATIC_ID + b">]",
                  data[data.index(b"trailer << ", table):], count=1)
    pieces.append(re.sub(rb"startxref\n\d+\n", b"startxref\n%d\n" % (table + shift), tail, count=1))
    out = content_id(b"".join(pieces))
    if out is None:
        raise Unspliceable("no /ID to give the patched pack")
    return out


def references(text: bytes) -> list[tuple[int, int]]:
    """The references in an object's text, in order (not those a string only spells)."""
    return [(int(m.group(1)), int(m.group(2))) for m in _TOKENS.finditer(text) if m.group(1)]


def renumbered(text: bytes, numbers: dict[tuple[int, int], int]) -> bytes:
    """The text with each reference to an object in `numbers` made to that number (generation 0);
    Unspliceable for a reference to any other object."""
    def one(match):
        if not match.group(1):
            return match.group(0)
        target = numbers.get((int(match.group(1)), int(match.group(2))))
        if target is None:
            raise Unspliceable("a new form refers to an object the last pack does not have")
        return b"%d 0 R" % target
    return _TOKENS.sub(one, text)


def written_stream(stream: pikepdf.Stream, number: int, numbers: dict[tuple[int, int], int]) -> bytes:
    """The stream as qpdf writes it as object `number` of a file saved with pdfbytes.AS_IS (its
    data as it is, its /Length last), its references renumbered by `numbers`."""
    raw = stream.read_raw_bytes()
    text = stream.stream_dict.unparse(resolved=True)
    if "/Length" in stream.stream_dict:       # qpdf writes the length it writes, last
        length = b" /Length %d" % int(stream.stream_dict.Length)
        if text.count(length) != 1:
            raise Unspliceable("a stream's dictionary cannot be written here")
        text = text.replace(length, b"")
    text = renumbered(text[:-3], numbers) + b" /Length %d >>" % len(raw)
    return b"%d 0 obj\n" % number + text + b"\nstream\n" + raw + b"\nendstream\nendobj\n"
