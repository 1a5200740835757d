"""A game's rulebook source: cards/<game>/rulebook/<language>.md, turned into HTML text.

Two passes, in this order (docs/authoring.md, "Rulebook"):
  1. Jinja, in the immutable sandbox, over plain values: `derived`, `game`, `decks`, `tables`,
     `packs`, `pack` (none in the standalone rules PDF), `icon()`, `| rich`, `figure()`, `_()`.
  2. CommonMark (markdown-it-py) with GFM tables; raw HTML is not allowed.
What the engine's own functions return (an icon, card markup, a figure) cannot be written in
Markdown, so they leave a private-use token in the text and are put back after the Markdown pass.
Mistakes are problems at the line of the .md file: Markdown is checked on the source itself (with
the Jinja tags blanked out), Jinja errors carry the template's line.
"""
from __future__ import annotations

import html
import re
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from jinja2 import StrictUndefined, TemplateError, TemplateSyntaxError
from jinja2.sandbox import ImmutableSandboxedEnvironment
from markupsafe import escape

from generator.errors import PnpError, Problem
from generator.source.files import read_regular, text_of
from generator.source.game import Game
from generator.source.markup import PLACEHOLDER, to_html
from generator.source.schema import RULEBOOK_PAGES, size_mm

HTML_TAG = re.compile(r"(<[^>]+>)")
TOKEN = re.compile("\ue000(\\d+)\ue001")
JINJA_TAG = re.compile(r"\{\{.*?\}\}|\{%.*?%\}|\{#.*?#\}", re.S)
STATEMENT = re.compile(r"\{%.*?%\}|\{#.*?#\}", re.S)          # the tags trim_blocks acts on
RAW = re.compile(r"\{%[-+]?\s*raw\s*[-+]?%\}.*?\{%[-+]?\s*endraw\s*[-+]?%\}", re.S)
FIGURE_KINDS = ("card", "piece")


def rulebook_file(game: Game, language: str | None = None) -> Path | None:
    """The rulebook for the edition's language, when the game has one (its existence turns it on)."""
    path = game.folder / "rulebook" / f"{language or game.spec.language}.md"
    return path if path.is_file() else None


def page_size(game: Game) -> tuple[float, float]:
    page = game.spec.rulebook.page
    return RULEBOOK_PAGES[page] if isinstance(page, str) else size_mm(page)


@dataclass(frozen=True)
class Figure:
    kind: str           # "card" or "piece"
    ref: str            # "deck/card" or a piece id
    caption: str
    anchor: str         # the id of its slot in the HTML


@dataclass
class RulebookText:
    """The rulebook as an HTML body for one pack (or every player count), and what it shows."""
    body: str
    headings: list[tuple[int, str, str]]            # (level, text, anchor id)
    figures: list[Figure] = field(default_factory=list)
    printed: str = ""                               # the characters it prints (for the glyph check)


# --- the Jinja context: plain values only ---------------------------------------------------

def _card_value(card) -> dict:
    return {**card.fields, "id": card.id, "copies": card.copies}


def pack_value(game: Game, pack, _: Callable[[str], str]) -> dict:
    """One pack as a plain mapping (formats.md §1)."""
    counts = game.piece_counts.get(pack.key, {})
    return {
        "id": pack.key, "players": pack.players, "variant": pack.variant, "optional": pack.optional,
        "label": pack.name or players_label(pack.players, pack.variant, _),
        "decks": {d: {"name": game.decks[d].spec.name, "count": e.count} for d, e in pack.decks.items()
                  if d in game.decks},
        "pieces": {p: {"name": game.pieces[p].name, "count": n} for p, n in counts.items() if p in game.pieces and n},
        "colours": [{"id": c.id, "name": c.name, "colour": c.colour, "symbol": c.symbol}
                    for c in game.spec.player_colours[:pack.players]],
    }


def context_values(game: Game, pack, _: Callable[[str], str]) -> dict:
    from generator.source.context import plain
    packs = [pack_value(game, p, _) for p in game.packs]
    current = next((p for p in packs if p["id"] == pack.key), None) if pack is not None else None
    spec = game.spec
    return {
        # as the rules module derived them, in plain data: a rulebook is written per language and
        # says each name in its own words (`_()`); its tables are keyed by the data's values
        "derived": plain(game.derived_source or game.derived),
        "game": {"id": game.id, "title": spec.title, "subtitle": spec.subtitle or "", "language": spec.language},
        "decks": {d: [_card_value(c) for c in deck.cards] for d, deck in game.decks.items()},
        "tables": {t: [_card_value(r) for r in rows] for t, rows in game.tables.items()},
        "packs": packs,
        "pack": current,
    }


# --- the passes -------------------------------------------------------------------------------

MAX_RULEBOOK_BYTES = 2_000_000     # a 40-page rulebook is ~100 KB of Markdown


def read_text(path: Path, display: str) -> str:
    """A rulebook's Markdown: a regular file of bounded size, UTF-8 (a byte-order mark is not an
    error), without control characters; each fault one located line."""
    try:
        raw = read_regular(path, display, MAX_RULEBOOK_BYTES)
    except OSError as exc:
        raise PnpError(Problem(display, None, f"cannot read the rulebook: {exc.strerror or exc}")) from None
    return text_of(raw, display)


class Rulebook:
    """One game's rulebook source, read once; `text(pack)` gives its HTML body for a pack."""

    def __init__(self, game: Game, path: Path, display: str, assets, _: Callable[[str], str]):
        self.game, self.path, self.display, self.assets, self._ = game, path, display, assets, _
        self._texts: dict = {}                  # pack key (None: every player count) -> its text
        self.source = read_text(path, display)
        self.env = ImmutableSandboxedEnvironment(undefined=StrictUndefined, autoescape=False, trim_blocks=True, lstrip_blocks=True,
                                                 keep_trailing_newline=True)
        self._rich: Callable[..., str] = str
        self.env.filters["rich"] = lambda text, card=None: self._rich(text, card)   # the current render's (tokens are per text)
        try:
            code = self.env.compile(keep_line_ends(self.source), name=display, filename=display)
        except TemplateSyntaxError as exc:
            line = _unclosed_block(self.source) if "Unexpected end of template" in (exc.message or "") else None
            raise PnpError(Problem(display, line or exc.lineno, f"template error: {exc.message}")) from None
        # after the template's own syntax: a brace typo is that, not the emphasis marker it leaves unmatched
        problems = markdown_problems(self.source, display)
        if problems:
            raise PnpError(problems)
        self.template = self.env.template_class.from_code(self.env, code, self.env.make_globals(None))

    def text(self, pack) -> RulebookText:
        """The HTML body for one pack (None: every player count), made once."""
        key = pack.key if pack is not None else None
        if key not in self._texts:
            self._texts[key] = self._text(pack)
        return self._texts[key]

    def _text(self, pack) -> RulebookText:
        raw: list[str] = []                      # what each token stands for (HTML)
        figures: list[Figure] = []

        def token(markup: str) -> str:
            raw.append(str(markup))
            return f"\ue000{len(raw) - 1}\ue001"

        def icon(emoji):
            self.assets.checked_icon(str(emoji))
            return token(f'<img class="emoji" src="{self.assets.icon_url(str(emoji))}" alt="{escape(emoji)}">')

        def rich(text, card=None):
            """Card markup; `card` (one of `decks`' cards) fills the text's {placeholders} from its fields,
            as its face does. One left unfilled would print as written: an error."""
            text = str(text)
            if card is None and (left := PLACEHOLDER.search(text)) is not None:
                raise ValueError(f"{left.group(0)} is a card's field: write `| rich(card)` with the card "
                                 f"the text is from, to print its {left.group(1)}")
            return token(to_html(text, self.assets, self.game.spec.keywords, rich=True,
                                 fields=dict(card) if card is not None else None))

        def figure(kind, ref, caption=""):
            self._check_figure(str(kind), str(ref))
            anchor = f"figure-{len(figures) + 1}"
            figures.append(Figure(str(kind), str(ref), str(caption), anchor))
            return token(f'<figure class="figure figure-{escape(kind)}"><div class="slot" id="{anchor}"></div>'
                         + (f"<figcaption>{escape(caption)}</figcaption>" if caption else "") + "</figure>")

        translate = self.game.translate           # the game's own words (its i18n/<lang>.yaml `text:`)
        context = {**context_values(self.game, pack, self._), "icon": icon, "figure": figure,
                   "_": lambda text: translate(text)}
        self._rich = rich
        try:
            text = self.template.render(**context)
        except TemplateError as exc:
            raise PnpError(Problem(self.display, self._line(exc), f"expression error: {exc.message or exc}")) from None
        except (TypeError, KeyError, IndexError, ValueError, ZeroDivisionError, AttributeError, LookupError) as exc:
            raise PnpError(Problem(self.display, self._line(exc), f"expression error: {exc}")) from None
        return self._html(text, raw, figures)

    def _check_figure(self, kind: str, ref: str) -> None:
        if kind not in FIGURE_KINDS:
            raise ValueError(f"figure kind {kind!r} is not one of {list(FIGURE_KINDS)}")
        if kind == "piece" and ref not in self.game.pieces:
            raise ValueError(f"figure: no piece {ref!r} (pieces: {', '.join(self.game.pieces) or 'none'})")
        if kind == "card":
            deck, _, card = ref.partition("/")
            if deck not in self.game.decks or not any(c.id == card for c in self.game.decks[deck].cards):
                raise ValueError(f"figure: no card {ref!r} (write deck/card, e.g. "
                                 f"{next(iter(self.game.decks), 'deck')}/<card id>)")

    def _line(self, exc: BaseException) -> int | None:
        line = None
        for frame in traceback.extract_tb(exc.__traceback__):
            if frame.filename == self.display:
                line = frame.lineno
        return line or getattr(exc, "lineno", None)

    def _html(self, text: str, raw: list[str], figures: list[Figure]) -> RulebookText:
        md = _markdown(html=False)
        tokens = md.parse(text)
        headings = []
        for index, tok in enumerate(tokens):
            if tok.type == "table_open":
                _size_table(tok, tokens, index)
            if tok.type == "heading_open":
                anchor = f"section-{len(headings) + 1}"
                tok.attrSet("id", anchor)
                headings.append((int(tok.tag[1]), _plain(tokens[index + 1].content), anchor))
        body = self._icons(md.renderer.render(tokens, md.options, {}))
        printed = html.unescape(TOKEN.sub("", re.sub(r"<[^>]+>", "", body)))

        def back(match):
            return raw[int(match.group(1))]
        # A figure alone in a paragraph is a block of its own, not a paragraph.
        body = re.sub("<p>(\ue000\\d+\ue001)</p>", lambda m: TOKEN.sub(back, m.group(1)), body)
        body = TOKEN.sub(back, body)
        headings = [(level, TOKEN.sub("", title).strip(), anchor) for level, title, anchor in headings]
        return RulebookText(body, headings, figures, printed)

    def _icons(self, html_text: str) -> str:
        """Every emoji typed in the text (or coming from a value, like a colour's symbol) drawn as its
        bundled icon, as card text is: a font would draw it as a missing glyph."""
        parts = HTML_TAG.split(html_text)
        for index in range(0, len(parts), 2):          # the text between tags
            runs = self.assets.split(parts[index])
            if any(kind == "icon" for kind, _ in runs):
                parts[index] = "".join(run if kind == "text" else
                                       f'<img class="emoji" src="{self.assets.icon_url(run)}" alt="{run}">'
                                       for kind, run in runs)
        return "".join(parts)


def keep_line_ends(source: str) -> str:
    """The source with `+` added to every `{% … %}` (or `{# … #}`) that ends a line holding text too,
    so trim_blocks removes only the line break of a line of tags alone. Markdown is made of lines:
    a table row `| Oath | {% for o in oaths %}{{ o }} | {% endfor %}` must still end its line, or
    the next row (and the table's rule) is glued to it; a list item ending in `{% endif %}` must
    not run into the next one. Lines and columns before the tag stay where they were."""
    raw = [m.span() for m in RAW.finditer(source)]
    masked = STATEMENT.sub(lambda m: " " * len(m.group(0)), source)      # text and {{ }} only
    out, last = [], 0
    for match in STATEMENT.finditer(source):
        start, end = match.span()
        tag = match.group(0)
        if source[end:end + 1] != "\n" or tag[-3] in "-+" or any(a <= start < b for a, b in raw):
            continue
        line_start = masked.rfind("\n", 0, start) + 1
        if masked[line_start:start].strip():
            out += [source[last:end - 2], "+", tag[-2:]]
            last = end
    return "".join(out) + source[last:]


BLOCK_TAG = re.compile(r"\{%-?\s*(end)?(for|if|with|filter|macro|call|block|raw)\b")


def _unclosed_block(source: str) -> int | None:
    """The line of the block tag left open (Jinja reports the end of the file instead)."""
    stack = []
    for match in BLOCK_TAG.finditer(source):
        line = source.count("\n", 0, match.start()) + 1
        if match.group(1):
            if stack and stack[-1][0] == match.group(2):
                stack.pop()
        else:
            stack.append((match.group(2), line))
    return stack[-1][1] if stack else None


def _plain(inline: str) -> str:
    """A heading's text without Markdown emphasis marks."""
    return re.sub(r"[*_`]+", "", inline)


WIDE_TABLES = ((9, "table-narrowest"), (7, "table-narrower"), (5, "table-narrow"))   # columns → class


def _size_table(table, tokens, index: int) -> None:
    """A table of many columns gets a class that sets it smaller (rulebook.css), so a score table
    of eleven columns still fits an A5 page."""
    columns = 0
    for tok in tokens[index + 1:]:
        if tok.type == "th_open":
            columns += 1
        elif tok.type == "tr_close":
            break
    for least, name in WIDE_TABLES:
        if columns >= least:
            table.attrSet("class", name)
            return


def _markdown(html: bool):
    from markdown_it import MarkdownIt       # 60 ms to import: only a game with a rulebook pays it
    return MarkdownIt("commonmark", {"html": html, "typographer": False}).enable("table")


# --- checking the Markdown itself, at the source's lines ------------------------------------------

def _blank_tags(source: str) -> str:
    """The source with every Jinja tag replaced by letters of the same length (newlines kept), so
    the Markdown can be checked at the .md file's own lines."""
    return JINJA_TAG.sub(lambda m: re.sub(r"[^\n]", "x", m.group(0)), source)


def markdown_problems(source: str, display: str) -> list[Problem]:
    """What a rulebook's Markdown may not do: raw HTML, images (figures come from figure()), a
    code fence left open, a heading that skips a level (bookmarks nest by level), an emphasis
    marker left unmatched."""
    text = _blank_tags(source)
    lines = len(text.splitlines())
    problems = []
    last_level = 0
    for tok in _markdown(html=True).parse(text):
        line = tok.map[0] + 1 if tok.map else None
        if tok.type in ("html_block", "html_inline"):
            problems.append(Problem(display, line, "raw HTML is not allowed in a rulebook",
                                    "write Markdown; icons and figures come from icon() and figure()"))
        elif tok.type == "fence" and tok.map and tok.map[1] >= lines and not _closed(tok, text):
            problems.append(Problem(display, line, f"code fence {tok.markup} is never closed"))
        elif tok.type == "heading_open":
            level = int(tok.tag[1])
            if level > last_level + 1:
                problems.append(Problem(display, line, f"heading level jumps from {last_level} to {level} "
                                        "(bookmarks and the contents nest by level: use each level in turn)"))
            last_level = level
        elif tok.type == "inline":
            tagged = dict.fromkeys(_line_of(c.content, text, tok.map, line) for c in tok.children or []
                                   if c.type == "html_inline")      # a tag inside a paragraph: once a line
            problems += [Problem(display, n, "raw HTML is not allowed in a rulebook",
                                 "write Markdown; icons and figures come from icon() and figure()") for n in tagged]
            for child in tok.children or []:
                if child.type == "image":
                    problems.append(Problem(display, line, "images are not allowed in a rulebook",
                                            "draw a card or piece with {{ figure('card', 'deck/card', 'caption') }}"))
                elif child.type == "text" and ("**" in child.content or "__" in child.content):
                    problems.append(Problem(display, line, "unmatched emphasis marker ** or __"))
    return problems


def _line_of(found: str, text: str, span, first: int | None) -> int | None:
    """The line of a block's source (`span`: its first and past-last line) that holds `found`."""
    if not span:
        return first
    rows = text.split("\n")
    return next((n + 1 for n in range(span[0], min(span[1], len(rows))) if found in rows[n]), first)


def _closed(fence, text: str) -> bool:
    last = text.rstrip("\n").split("\n")[-1].strip()
    return last.startswith(fence.markup) and set(last) <= set(fence.markup[0])


def players_label(n: int, variant: str | None, _: Callable[[str], str]) -> str:
    """A pack's label, e.g. "3 人（独灯局）" / "3 players (solo lantern)"."""
    label = _("{n} players").format(n=n)
    if variant:
        label += f"（{variant}）" if "人" in label else f" ({variant})"
    return label
