"""YAML that remembers where each value came from.

Mappings load as `LocDict` and sequences as `LocList`; both know their file and the
line of each key or item, so a later check can say `oaths.yaml:41: ...` about any
value. Duplicate keys and tabs, which PyYAML accepts or reports cryptically, become
plain problems.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from generator.errors import PnpError, Problem
from generator.source import reads
from generator.source.files import read_regular, text_of

MAX_YAML_BYTES = 2_000_000  # a card file is a few KB; anything this big is a mistake


class LocDict(dict):
    file: str = ""
    line: int = 0
    key_lines: dict

    def line_of(self, key: Any) -> int:
        return self.key_lines.get(key, self.line)


class LocList(list):
    file: str = ""
    line: int = 0
    item_lines: list

    def line_of(self, index: int) -> int:
        return self.item_lines[index] if 0 <= index < len(self.item_lines) else self.line


# libyaml's parser when PyYAML has it (ten times faster), with the same located nodes.
_BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _loader_for(display: str):
    class Loader(_BASE_LOADER):
        anchors = True      # whether the text has an anchor (&name), so aliases to count (load_yaml)

        def resolve(self, kind, value, implicit):
            """A scalar's tag: a quoted one (or one tagged `!`) is a string whatever it says, and a
            plain one is resolved once per text (a card file repeats its keys thousands of times).
            As PyYAML's resolver, which SafeLoader gives no path resolvers."""
            if kind is not yaml.ScalarNode:
                return super().resolve(kind, value, implicit)
            if not implicit[0]:
                return _STR
            tag = _PLAIN_TAGS.get(value)
            if tag is None:
                if len(_PLAIN_TAGS) > 65536:
                    _PLAIN_TAGS.clear()
                tag = _PLAIN_TAGS[value] = super().resolve(kind, value, implicit)
            return tag

    def construct_mapping(loader, node, deep=False):
        own = {id(key) for key, _ in node.value if key.tag != "tag:yaml.org,2002:merge"}
        loader.flatten_mapping(node)       # `<<: *base` pairs come first; the mapping's own keys override them
        result = LocDict()
        result.file, result.line, result.key_lines = display, node.start_mark.line + 1, {}
        from_own = {}
        for key_node, value_node in node.value:
            key = _value(loader, key_node)
            if not isinstance(key, (str, int, float, bool)) or key is None:
                raise _Located(key_node, "a key must be a plain word or number")
            if key in result and (id(key_node) in own) == from_own[key]:
                raise _Located(key_node, f"duplicate key '{key}'", "each key may appear once in a mapping")
            from_own[key] = id(key_node) in own
            result[key] = _value(loader, value_node)
            result.key_lines[key] = key_node.start_mark.line + 1
        return result

    def construct_sequence(loader, node, deep=False):
        result = LocList(_value(loader, child) for child in node.value)
        result.file, result.line = display, node.start_mark.line + 1
        result.item_lines = [child.start_mark.line + 1 for child in node.value]
        return result

    def construct_document(loader, node):
        if loader.anchors:          # no anchor (&name), no alias
            _bound_aliases(node)
        return _BASE_LOADER.construct_document(loader, node)

    Loader.construct_document = construct_document
    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, construct_mapping)
    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, construct_sequence)
    return Loader


_STR = "tag:yaml.org,2002:str"
_PLAIN_TAGS: dict[str, str] = {}     # a plain scalar's text -> its tag (the same for every SafeLoader)


def _value(loader, node):
    """A node's value: a plain string is its text (what PyYAML's constructor returns for it,
    without its dispatch: a 5,000-card file has tens of thousands of them)."""
    if node.tag == _STR and type(node) is yaml.ScalarNode:
        return node.value
    return loader.construct_object(node, deep=True)


MAX_ALIAS_ITEMS = 1_000_000     # what aliases may add to the file's own (a billion-laughs file adds 10⁹)
TEXT_ITEM = 100                 # characters of text that count as one item: an alias to a long text repeats it


def _bound_aliases(root) -> None:
    """Refuse a document whose aliases (*name) would expand it far beyond its own size: each use
    of an alias is a reference to one value, but every later stage (checks, expressions, text on
    a card) walks it in full. Counted on the node graph, each node once (memoised), before
    anything is built, in items: a value, or TEXT_ITEM characters of a text."""
    sizes: dict[int, int] = {}
    own = 0
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        if id(node) in sizes:
            continue
        children = _children(node)
        if not done:
            stack.append((node, True))
            stack.extend((child, False) for child in children if id(child) not in sizes)
            continue
        weight = 1 + (len(node.value) // TEXT_ITEM if isinstance(node, yaml.ScalarNode) else 0)
        own += weight
        size = weight + sum(sizes[id(child)] for child in children)
        sizes[id(node)] = size
        limit = max(MAX_ALIAS_ITEMS, own)
        if size - own > limit:
            raise _Located(node, f"aliases (*name) expand this value to {size:,} items, {limit:,} more than the "
                                 f"file's own at most (an item is a value, or {TEXT_ITEM} characters of text)",
                           "a YAML alias bomb? use each alias for a small shared value")


def _children(node) -> list:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return node.value
    return []


class _Located(Exception):
    def __init__(self, node, message, hint=None):
        self.line, self.message, self.hint = node.start_mark.line + 1, message, hint


def load_yaml(path: Path, display: str) -> Any:
    """Parse one YAML file; raise PnpError with a one-line, located problem."""
    try:
        raw = read_regular(path, display, MAX_YAML_BYTES)
    except FileNotFoundError:
        raise PnpError(Problem(display, None, "file not found")) from None
    except OSError as exc:
        raise PnpError(Problem(display, None, f"cannot read file: {exc.strerror}")) from None
    reads.note(path, raw)
    text = text_of(raw, display)
    odd = _line_separator(text)
    if odd:
        raise PnpError(Problem(display, odd[0], f"invisible line separator {odd[1]} in the text",
                               "delete it (it was probably pasted); YAML would count it as a new line"))
    tab_line = _leading_tab_line(text)
    if tab_line:
        raise PnpError(Problem(display, tab_line, "tab character in indentation",
                               "YAML indents with spaces only"))
    try:
        loader = _loader_for(display)
        loader.anchors = "&" in text
        data = yaml.load(text, Loader=loader)  # noqa: S506 - SafeLoader subclass
    except _Located as exc:
        raise PnpError(Problem(display, exc.line, exc.message, exc.hint)) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        if "quoted scalar" in (exc.context or "") and exc.context_mark:
            mark = exc.context_mark          # where the quote opened, not the file's end it ran to
        line = mark.line + 1 if mark else None
        opened = _quote_run_on(text, line) if line else None
        if opened:
            raise PnpError(Problem(display, opened, f"invalid YAML: a quote opened on this line runs on to line "
                                   f"{line}, where it closes and what follows cannot be read",
                                   "close the text with its quote mark on this line")) from None
        what = (exc.problem or exc.context or "invalid YAML").strip()
        source = text.splitlines()[line - 1] if line and line <= len(text.splitlines()) else ""
        raise PnpError(Problem(display, line, f"invalid YAML: {what}",
                               yaml_hint(f"{exc.context or ''} {what}", source))) from None
    except yaml.YAMLError as exc:
        raise PnpError(Problem(display, None, f"invalid YAML: {exc}")) from None
    except RecursionError:       # libyaml allows 1,000 levels; building the values stops far sooner
        raise PnpError(Problem(display, None, "invalid YAML: values nested too deeply",
                               "a card's data is a few levels deep; look for unclosed [ or {")) from None
    if data is None:
        raise PnpError(Problem(display, 1, "file is empty"))
    return data


def _quote_run_on(text: str, line: int) -> int | None:
    """The line where a quoted text began that ran over line breaks to end on `line`, the line the
    parser stopped at: a quote left open closes at the next quote mark, lines later, and the parser
    then stumbles on what follows it there (a `**bold**` read as an alias, say). None when no
    quoted text ends there after starting on an earlier line."""
    try:
        for token in yaml.scan(text, Loader=_BASE_LOADER):
            if isinstance(token, yaml.ScalarToken) and token.style in ('"', "'") \
                    and token.start_mark.line < token.end_mark.line == line - 1:
                return token.start_mark.line + 1
            if token.start_mark.line >= line:
                return None
    except yaml.YAMLError:
        pass
    return None


def yaml_hint(parser_words: str, line: str) -> str | None:
    """The likely cause of a YAML parser's complaint and its fix, in a designer's words (the
    parser's own, "mapping values are not allowed here", name neither)."""
    words, value = parser_words.lower(), line.split(":", 1)[1] if ":" in line else ""
    if "alias" in words or "anchor" in words or (value.strip()[:1] in "*&" and value.strip()):
        return "text that starts with * or & (like **bold**) needs quotes: effect: \"**Draw** 1 card.\""
    if "mapping values are not allowed" in words:
        if ": " in value.strip() or value.rstrip().endswith(":"):
            return "a colon followed by a space inside unquoted text ends a key: put the text in quotes, " \
                   "e.g. effect: \"Choose one: draw or score\""
        return "this line is indented deeper than the key above it, or the line above lacks its value: " \
               "keep the keys of one mapping at the same number of spaces"
    if "flow mapping" in words or "flow sequence" in words:
        return "inside { } or [ ], text holding a comma, colon or bracket needs quotes ({name: \"Salt, sea\"}), " \
               "and every quote, { and [ needs its closing mark"
    if "quoted scalar" in words or "end of stream" in words:
        return "a quote opened on this line is not closed: end the text with the same quote mark"
    if "expected '-'" in words or ("block end" in words and line.lstrip().startswith("-")):
        return "a list item is indented differently from the others, or one lacks its `- `: start each item " \
               "with `- ` at the same indentation"
    if "expected ':'" in words or "simple key" in words:
        return "a line without `key: value`: add the missing colon, or indent text that runs on from the " \
               "line above (or quote it)"
    if "block end" in words or "expected key" in words:
        return "this line's indentation does not match the lines around it: indent each level by the same " \
               "number of spaces"
    return None


def _line_separator(text: str) -> tuple[int, str] | None:
    """U+2028, U+2029 or U+0085: YAML breaks lines there, editors do not, so every line
    number after it would be off; say where it is instead."""
    for char, name in (("\u2028", "U+2028"), ("\u2029", "U+2029"), ("\x85", "U+0085")):
        at = text.find(char)
        if at >= 0:
            return text.count("\n", 0, at) + 1, name
    return None


_LEADING_TAB = re.compile(r"(?:^|\r) *\t", re.M)   # "\r" alone breaks a line too


def _leading_tab_line(text: str) -> int | None:
    if "\t" not in text:           # the usual file: no scan of every character by the expression
        return None
    found = _LEADING_TAB.search(text)
    return None if found is None else len(text[:found.end()].splitlines())


def line_at(container: Any, path: tuple) -> tuple[str, int | None]:
    """File and the most precise line known for a path of keys/indexes into loaded data."""
    file = getattr(container, "file", "")
    line = getattr(container, "line", None)
    node = container
    for step in path:
        if isinstance(node, LocDict) and step in node:
            line = node.line_of(step)
            node = node[step]
        elif isinstance(node, LocList) and isinstance(step, int) and 0 <= step < len(node):
            line = node.line_of(step)
            node = node[step]
        else:
            break
        file = getattr(node, "file", file) or file
    return file, line
