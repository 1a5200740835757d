"""Card text is data: escaped, then given the little markup the project allows.

The syntax (documented in docs/authoring.md):
  - an emoji that has an icon in icons/ is drawn as that vector icon;
  - `**words**` is emphasis;
  - `{field}` inserts another field of the same card (e.g. an effect's {amount});
  - a line break is kept;
  - the game's keywords and every number are styled the same way on every card.
Nothing else is interpreted: `<b>`, `{{ x }}` or `{% %}` print as the characters they are.
"""
from __future__ import annotations

import re

from markupsafe import Markup, escape

from generator.source.assets import Assets

PLACEHOLDER = re.compile(r"\{([a-z_][a-z0-9_]*)\}")
EMPHASIS = re.compile(r"\*\*(.+?)\*\*")
NUMBER = r"[+\-−×]?\d+(?:\.\d+)?%?"


class TextError(ValueError):
    pass


def fill_placeholders(text: str, fields: dict) -> str:
    def sub(match):
        name = match.group(1)
        if name not in fields or fields[name] is None:
            raise TextError(f"{{{name}}} names no field of this card")
        return str(fields[name])
    return PLACEHOLDER.sub(sub, text)


def to_html(text: str, assets: Assets, keywords: list[str] = (), rich: bool = True,
            fields: dict | None = None, icon_class: str = "emoji") -> Markup:
    if text is None:
        return Markup("")
    text = str(text)
    if fields is not None and rich:
        text = fill_placeholders(text, fields)
    pieces = []
    for part, emphasised in _emphasis_parts(text) if rich else [(text, False)]:
        html = "".join(_run_html(kind, run, assets, keywords if rich else (), icon_class)
                       for kind, run in assets.split(part))
        pieces.append(f"<strong>{html}</strong>" if emphasised else html)
    return Markup("".join(pieces).replace("\n", "<br>"))


def _emphasis_parts(text: str):
    pos = 0
    for match in EMPHASIS.finditer(text):
        if match.start() > pos:
            yield text[pos:match.start()], False
        yield match.group(1), True
        pos = match.end()
    if pos < len(text):
        yield text[pos:], False


def _latin(char: str) -> bool:
    """A letter or digit of a script that separates words with spaces (Latin, Greek, Cyrillic …)."""
    return char.isalnum() and ord(char) < 0x2E80


def keyword_pattern(word: str) -> str:
    """A keyword matched as a whole word: "Sell" not inside "Selling" or "Resell". Chinese and
    Japanese have no spaces between words, so a CJK keyword matches wherever it occurs."""
    pattern = re.escape(word)
    if word and _latin(word[0]):
        pattern = r"(?<![^\W_])" + pattern
    if word and _latin(word[-1]):
        pattern += r"(?![^\W_])"
    return pattern


def _run_html(kind: str, run: str, assets: Assets, keywords, icon_class: str) -> str:
    if kind == "icon":
        return f'<img class="{icon_class}" src="{assets.icon_url(run)}" alt="{escape(run)}">'
    words = sorted(keywords, key=len, reverse=True)
    pattern = "|".join([keyword_pattern(w) for w in words] + [NUMBER])
    out, pos = [], 0
    for match in re.finditer(pattern, run):
        out.append(str(escape(run[pos:match.start()])))
        token = match.group()
        cls = "num" if re.fullmatch(NUMBER, token) else "kw"
        out.append(f'<span class="{cls}">{escape(token)}</span>')
        pos = match.end()
    out.append(str(escape(run[pos:])))
    return "".join(out)


def plain_text(text: str, fields: dict | None = None) -> str:
    """The characters a text will print (placeholders filled, markup removed)."""
    if fields is not None:
        try:
            text = fill_placeholders(text, fields)
        except TextError:
            pass
    return EMPHASIS.sub(r"\1", text)
