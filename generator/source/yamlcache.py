"""A large card file parsed again only where its text changed.

A 5,000-card YAML file takes about 0.3 s to parse and build into located values, on every
build, though a designer changes a card or two between builds. Such a file is almost always a
mapping whose last key holds a block sequence, one item per card:

    deck:
      id: spells
    cards:
      - {id: c1, title: …}
      - id: c2
        title: …

Its text is cut at the lines where an item of that sequence starts (the same indentation, then
`- `); each item's text is a chunk. `build/.cache/yaml/` keeps, per file, every chunk's text with
the value it parsed to (as plain JSON, its lines counted from the chunk's first line). The next
load parses the part before the sequence, takes each unchanged chunk's value from the record
(its lines moved to where the chunk now is) and parses each other chunk alone, at its own line
numbers: the value and every line a problem names are those the whole file would give (tested
against the whole parse, for edits, insertions, deletions and moves). The record is written again
once more than a few of its chunks are new or gone (atomic.worth_rewriting): after a one-card edit
of a large file, that card's chunk is parsed alone again next time instead.

Whatever could make a chunk mean something else alone is parsed whole, as before: a file with a
directive or a document marker, a sequence that is not the file's end, text that is not what the
cutting expects, a chunk that fails to parse alone, more than a few chunks new at once (a first
build), and a changed chunk with an anchor or an alias (an alias takes its value from elsewhere; an
anchor must not be defined twice in the file). A chunk is kept only if it has neither, by its parse
events: "**bold**" and "Fire & Ice" are text, and such chunks are kept too. Any problem in the file
is reported by the whole parse, so its message is the whole file's. A record that cannot be read,
or is not what this code writes, is ignored; one that cannot be written is not written.
"""
from __future__ import annotations

import hashlib
import math
import re
from pathlib import Path

import yaml

from generator.atomic import read_record, worth_rewriting, write_record
from generator.source.yamlsrc import LocDict, LocList

VERSION = 1
_ITEM = re.compile(r"^( *)-(?: |\r?\n|$)", re.M)
_KEY = re.compile(r"[^\s#'\"&*!|>%@`{}\[\],?:-][^:#]*:[ ]*(?:#.*)?\r?\n?$")


class Chunked:
    """The file cut into the text before its last sequence (`head`) and one chunk per item."""

    def __init__(self, head: str, key_line: int, starts: list[int], texts: list[str]):
        self.head, self.key_line, self.starts, self.texts = head, key_line, starts, texts


def cut(text: str) -> Chunked | None:
    """The chunks of `text`, or None when it is not a mapping ending in one block sequence."""
    if _unsafe(text):
        return None
    for first in _ITEM.finditer(text):
        key_line = _key_before(text, first.start())
        if key_line is not None:
            break
    else:
        return None
    items = _items(text, first.start(), len(first.group(1)))
    if items is None:
        return None                 # another key or a less indented line: the sequence is not the end
    positions, starts = items
    bounds = positions + [len(text)]
    texts = [text[bounds[i]:bounds[i + 1]] for i in range(len(positions))]
    return Chunked(text[:positions[0]], key_line, starts, texts)


def _items(text: str, begin: int, indent: int) -> tuple[list[int], list[int]] | None:
    """Where each item starts from `begin` (the first's line), as offsets and line numbers (from
    0): lines at `indent` spaces then "-" and a space or the line's end. None when a line as
    indented as the items, or less, starts no item (nor is blank or a comment). A loop over the
    lines rather than two searches of the text (at 5,000 cards: 2 ms instead of 5)."""
    prefix = " " * indent + "-"
    positions, starts = [], []
    line_number = text.count("\n", 0, begin)
    lines = text[begin:].split("\n")
    last = len(lines) - 1
    offset = begin
    for number, line in enumerate(lines):
        if line.startswith(prefix):
            rest = line[indent + 1:]
            # "-" then a space, a line end ("\r\n" too) or the text's end
            if not rest or rest[0] == " " or (rest == "\r" and number < last):
                positions.append(offset)
                starts.append(line_number + number)
                offset += len(line) + 1
                continue
        spaces = len(line) - len(line.lstrip(" "))
        if spaces <= indent and spaces < len(line) and line[spaces] not in "\r#":
            return None
        offset += len(line) + 1
    return positions, starts


def _unsafe(text: str) -> bool:
    """A directive, a document marker, or a line break YAML counts that "\n" does not."""
    if text.startswith(("%", "---", "...")) or "\n%" in text or "\n---" in text or "\n..." in text:
        return True
    return "\r" in text and re.search(r"\r(?!\n)", text) is not None


def _key_before(text: str, position: int) -> int | None:
    """The line number (from 0) of the line before `position`, skipping blank lines and comments,
    if it is a key at the start of its line with nothing after it: the sequence's key."""
    end = position
    while end > 0:
        begin = text.rfind("\n", 0, end - 1) + 1
        line = text[begin:end]
        if line.strip() and not line.lstrip().startswith("#"):
            return text.count("\n", 0, begin) if _KEY.match(line) else None
        end = begin
    return None


def load(text: str, display: str, record: Path, loader) -> LocDict | None:
    """The file's value, from its record where chunks are unchanged; None when it must be parsed
    whole (then `remember` may record it)."""
    chunked = cut(text)
    if chunked is None:
        return None
    kept = _read(record, display)
    new = {i for i, t in enumerate(chunked.texts) if t not in kept}
    if len(new) > max(16, len(chunked.texts) // 50):
        return None
    try:
        data = yaml.load(chunked.head, Loader=loader)  # noqa: S506 - yamlsrc's SafeLoader subclass
        key = _last_key(data, chunked.key_line)
        items, lines = [], []
        for i, (start, chunk) in enumerate(zip(chunked.starts, chunked.texts)):
            if i in new:
                if _joined(chunk, loader):
                    return None         # an anchor or alias: its meaning, or the file's, may lie elsewhere
                alone = yaml.load(chunk, Loader=loader)  # noqa: S506
                if not (isinstance(alone, LocList) and len(alone) == 1):
                    return None
                items.append(_shift(alone[0], start))
                lines.append(alone.item_lines[0] + start)
            else:
                line, value = kept[chunk]
                items.append(_decode(value, start, display) if type(value) is list else _scalar(value))
                lines.append(line + start)
    except Exception:       # any problem: the whole parse finds it and says it as the whole file's
        return None
    data[key] = _sequence(items, lines, chunked.starts[0] + 1, display)
    unused = len(kept) - (len(chunked.texts) - len(new))     # about: a chunk may be in the file twice
    if worth_rewriting(len(new) + max(unused, 0), len(chunked.texts)):
        _save(record, display, chunked, data[key], kept, set(range(len(chunked.texts))))
    return data


def remember(text: str, data, display: str, record: Path, loader) -> None:
    """After a whole parse: record the chunks, if the value is the cut text's."""
    try:
        _remember(text, data, display, record, loader)
    except Exception:           # noqa: BLE001 - a record is only a saving: never a build's problem
        pass


def _remember(text: str, data, display: str, record: Path, loader) -> None:
    chunked = cut(text)
    if chunked is None or not isinstance(data, LocDict):
        return
    try:
        key = _last_key(data, chunked.key_line, parsed_whole=True)
    except ValueError:
        return
    sequence = data[key]
    if not (isinstance(sequence, LocList) and len(sequence) == len(chunked.starts)):
        return
    bounds = chunked.starts + [math.inf]
    if not all(bounds[i] < line <= bounds[i + 1] for i, line in enumerate(sequence.item_lines)):
        return
    # A chunk whose text has "&" or "*" is kept only if its events show neither an anchor nor an
    # alias ("**bold**" and "Fire & Ice" are text); a few hundred such chunks are looked at, at most.
    unjoined, budget = set(), max(64, len(chunked.texts) // 10)
    for i, chunk in enumerate(chunked.texts):
        if "&" not in chunk and "*" not in chunk:
            unjoined.add(i)
        elif budget > 0:
            budget -= 1
            if not _joined(chunk, loader):
                unjoined.add(i)
    _save(record, display, chunked, sequence, {}, unjoined)


def _last_key(data, key_line: int, parsed_whole: bool = False):
    """The key on `key_line` (0-based), the last of the mapping; its value is None when only the
    head was parsed."""
    if not isinstance(data, LocDict) or not data:
        raise ValueError("not a mapping")
    key = next(reversed(data))
    if data.key_lines.get(key) != key_line + 1 or (data[key] is not None and not parsed_whole):
        raise ValueError("not the sequence's key")
    return key


def _sequence(items: list, lines: list[int], line: int, display: str) -> LocList:
    result = LocList(items)
    result.file, result.line, result.item_lines = display, line, lines
    return result


# --- the record --------------------------------------------------------------------------------

def _fingerprint(display: str) -> str:
    """What the record's values depend on: this code, yamlsrc's loader, PyYAML, the file's name."""
    from generator.fingerprint import engine_fingerprint
    digest = hashlib.sha256(f"{VERSION}\0{engine_fingerprint()}\0{yaml.__with_libyaml__}\0{display}".encode())
    return digest.hexdigest()


def record_path(build: Path, display: str) -> Path:
    return build / ".cache" / "yaml" / f"{hashlib.sha256(display.encode()).hexdigest()[:24]}.json"


def _read(record: Path, display: str) -> dict:
    """{chunk text: [item line from the chunk's start, encoded value]}, or {}."""
    try:
        found = read_record(record)
    except (OSError, ValueError):
        return {}
    if not (isinstance(found, dict) and found.get("fingerprint") == _fingerprint(display)
            and isinstance(found.get("chunks"), dict)):
        return {}
    return found["chunks"]


def _save(record: Path, display: str, chunked: Chunked, sequence: LocList, kept: dict, unjoined: set) -> None:
    """Write the record: every chunk in `unjoined` (known to hold no anchor or alias) whose value
    JSON keeps exactly. A record is only a saving: nothing here is ever a build's problem."""
    try:
        chunks = {}
        for i, (start, text, item, line) in enumerate(zip(chunked.starts, chunked.texts, sequence,
                                                          sequence.item_lines)):
            if i in unjoined:
                try:
                    chunks[text] = kept.get(text) or [line - start, _encode(item, start)]
                except _Unkept:
                    pass
        write_record(record, {"fingerprint": _fingerprint(display), "chunks": chunks})
    except Exception:           # noqa: BLE001 - (too deep for orjson, a full disk, a read-only build)
        pass


def _joined(text: str, loader) -> bool:
    """Whether a chunk has an anchor or an alias, by its parse events (none without "&" or "*"):
    an alias takes its value from elsewhere, and an anchor must not be defined twice in the file."""
    if "&" not in text and "*" not in text:
        return False
    return any(isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None
               for event in yaml.parse(text, Loader=loader))


def _shift(value, lines: int):
    """A value parsed alone, its lines moved down by `lines` (to where its chunk is in the file)."""
    if isinstance(value, LocDict):
        value.line += lines
        value.key_lines = {k: n + lines for k, n in value.key_lines.items()}
        for item in value.values():
            _shift(item, lines)
    elif isinstance(value, LocList):
        value.line += lines
        value.item_lines = [n + lines for n in value.item_lines]
        for item in value:
            _shift(item, lines)
    return value


class _Unkept(Exception):
    """A value JSON cannot keep exactly (a date, bytes, a set, a huge or infinite number)."""


def _encode(value, start: int):
    """A value as JSON keeps it exactly, its lines counted from `start`: a mapping as ["m", line,
    keys, key lines, values], a sequence as ["l", line, item lines, items], a scalar as itself."""
    if isinstance(value, LocDict):
        keys = [_encode(k, start) for k in value]           # a scalar each (yamlsrc allows no other key)
        return ["m", value.line - start, keys, [value.key_lines[k] - start for k in value],
                [_encode(v, start) for v in value.values()]]
    if isinstance(value, LocList):
        return ["l", value.line - start, [line - start for line in value.item_lines],
                [_encode(v, start) for v in value]]
    kind = type(value)
    if kind is str or kind is bool or value is None:
        return value
    if kind is int and -2 ** 63 <= value < 2 ** 63:
        return value
    if kind is float and math.isfinite(value):
        return value
    raise _Unkept


_KEYS = {str, int, float, bool}
_SCALARS = {str, int, float, bool, type(None), list}


def _scalar(value):
    if type(value) not in _SCALARS or type(value) is list:
        raise ValueError("not a value")
    return value


def _decode(value: list, start: int, display: str):
    tag, line, lines, values = value[0], value[1] + start, value[-2], value[-1]
    if not set(map(type, values)) <= _SCALARS or len(lines) != len(values):
        raise ValueError("not a value")
    values = [_decode(v, start, display) if type(v) is list else v for v in values]
    if tag == "m" and len(value) == 5:
        keys = value[2]
        if not set(map(type, keys)) <= _KEYS or len(keys) != len(values):
            raise ValueError("not a key")
        result = LocDict(zip(keys, values))
        if len(result) != len(keys):
            raise ValueError("a key twice")
        result.file, result.line, result.key_lines = display, line, dict(zip(keys, [n + start for n in lines]))
        return result
    if tag == "l" and len(value) == 4:
        return _sequence(values, [n + start for n in lines], line, display)
    raise ValueError("not a value")
