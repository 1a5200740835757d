"""The project's bundled fonts and icons, and what characters they can draw.

fonts/fonts.yaml lists the fonts in fallback order; icons/twemoji holds one SVG per
emoji sequence (file name = code points in hex), and any other SVG under icons/ is an
icon named by its path there (`icon("deck/star.svg")`). Text is printable when every
character is either in a bundled font or part of an emoji that has an icon.
"""
from __future__ import annotations

import copy
import functools
import re
import struct
import unicodedata
from dataclasses import dataclass
from pathlib import Path

import uharfbuzz as hb
from pydantic import ValidationError

from generator.errors import PnpError, Problem, abbreviate
from generator.source import reads
from generator.source.project import Project
from generator.source.schema import FontsFile, validation_problems
from generator.source.yamlsrc import load_yaml

MAX_ICON_BYTES = 512 * 1024     # an emoji is a few KB; a much larger SVG would take gigabytes to draw
IGNORED = {"\ufe0f", "\ufe0e", "\u200d", "\n", "\r", "\t"}


@dataclass(frozen=True)
class Font:
    family: str
    weight: int
    path: Path
    licence: str

    @property
    def name(self) -> str:  # the name reportlab registers it under
        return f"{self.family.replace(' ', '')}-{self.weight}"


class Assets:
    def __init__(self, project: Project):
        self.project = project
        listing = project.fonts / "fonts.yaml"
        data = load_yaml(listing, project.display(listing))
        try:
            spec = FontsFile.model_validate(data)
        except ValidationError as exc:
            raise PnpError(validation_problems(exc, data, project.display(listing), FontsFile)) from None
        self.fonts = [Font(f.family, f.weight, project.fonts / f.file, f.licence) for f in spec.fonts]
        fonts_root = project.fonts.resolve()
        for index, font in enumerate(self.fonts):
            line = data["fonts"].line_of(index)
            if not font.path.resolve().is_relative_to(fonts_root):
                raise PnpError(Problem(project.display(listing), line, f"font file {abbreviate(str(font.path))!r} "
                                       "is outside fonts/", "put the font in fonts/ and name it by its file name"))
            if not font.path.is_file():
                raise PnpError(Problem(project.display(listing), line, f"font file {font.path.name} not found"))
            damage = font_damage(font.path)
            if damage:
                raise PnpError(Problem(project.display(listing), line, f"font file {font.path.name} is damaged: "
                                       f"{damage}", "copy the font again (tools/build_assets.py makes the subsets)"))
        self.families = list(dict.fromkeys(f.family for f in self.fonts))
        self._font_of: dict[str, str | None] = {}      # font_for's answers, by character
        self.orders = {lang: list(dict.fromkeys(order + self.families)) for lang, order in spec.languages.items()}
        for lang, order in spec.languages.items():
            unknown = [f for f in order if f not in self.families]
            if unknown:
                raise PnpError(Problem(project.display(listing), data["languages"].line_of(lang),
                                       f"languages: {lang}: no font family {unknown[0]!r} above "
                                       f"(families: {', '.join(self.families)})"))
        self._icons = {}
        self._named: dict[str, Path | None] = {}       # icons by file name, looked up once
        self._checked: set[Path] = set()                # icons found self-contained
        for svg in sorted((project.icons / "twemoji").glob("*.svg")):
            if not _EMOJI_FILE.fullmatch(svg.stem):     # ._1f525.svg (macOS metadata) and other names
                continue
            seq = "".join(chr(int(h, 16)) for h in svg.stem.split("-"))
            self._icons[_strip(seq)] = svg
        alternatives = sorted(self._icons, key=len, reverse=True)
        self.emoji_re = re.compile("|".join(re.escape(s) for s in alternatives)) if alternatives else None

    def edition(self, lang: str) -> "Assets":
        """These fonts and icons with the font fallback order of one language (fonts.yaml
        `languages:`): an English edition draws Latin letters with a Latin font first. The
        coverage is the same; only which font draws a character changes."""
        order = self.orders.get(lang, self.families)
        if order == self.families:
            return self
        view = copy.copy(self)
        view.families = order
        view._font_of = {}
        view.fonts = sorted(self.fonts, key=lambda f: order.index(f.family))
        return view

    @functools.cached_property
    def coverage(self) -> dict[str, set[int]]:
        """Code points each font family can draw (all weights of a family share a subset)."""
        cover: dict[str, set[int]] = {}
        for font in self.fonts:
            cover.setdefault(font.family, set()).update(hb.Face(hb.Blob.from_file_path(str(font.path))).unicodes)
        return cover

    @functools.cached_property
    def drawable(self) -> set[int]:
        return set().union(*self.coverage.values())

    @functools.cached_property
    def undrawable(self) -> re.Pattern:
        """A character no bundled font draws and not one IGNORED: most texts have none, and a
        regular expression says so without a Python step per character."""
        return _undrawable(frozenset(self.drawable | {ord(c) for c in IGNORED}))

    def font_file(self, family: str, weight: int) -> Path:
        """The file of a bundled family at the weight nearest `weight` (as a PDF's font names it)."""
        candidates = [f for f in self.fonts if f.family == family.rstrip(",")]
        if not candidates:
            raise ValueError(f"a face uses font '{family}', which fonts/fonts.yaml does not list")
        return min(candidates, key=lambda f: abs(f.weight - weight)).path

    def font_for(self, char: str) -> str | None:
        """The first family in fallback order that has this character (each character looked up
        once: a cold deck450 asks 23,000 times)."""
        found = self._font_of.get(char, _UNASKED)      # (None is an answer: no bundled font has it)
        if found is _UNASKED:
            code = ord(char)
            found = self._font_of[char] = next((fam for fam in self.families if code in self.coverage[fam]), None)
        return found

    @property
    def icon_names(self) -> list[str]:
        """The emoji that have an icon: which ones do decides how text is split into icons."""
        return sorted(self._icons)

    def icon(self, emoji: str) -> Path | None:
        """The SVG for an emoji, or for a file name under icons/ ending in .svg."""
        if emoji.endswith(".svg"):
            if emoji not in self._named:
                path = self.project.icons / emoji      # as named: icons/ itself may be a link (like the emoji's)
                inside = path.resolve().is_relative_to(self.project.icons.resolve())
                self._named[emoji] = path if inside and path.is_file() else None
            return self._named[emoji]
        return self._icons.get(_strip(emoji))

    def checked_icon(self, name: str) -> Path:
        """The icon's SVG, after making sure it is self-contained: an icon that names another
        file or a web address (an <image>, a <use> of another file, an entity) could make the
        build read outside the project, so it is refused."""
        path = self.icon(name)
        if path is not None:
            reads.looked_up(path)
        if path is None:
            if name.endswith(".svg"):
                raise ValueError(f"no icon file icons/{name}")
            raise ValueError(f"no icon for {name!r} (hint: {icon_hint(name)})")
        if path not in self._checked:
            size = path.stat().st_size
            if size > MAX_ICON_BYTES:
                raise ValueError(f"icons/{self._icon_name(path)}: {size // 1024:,} KB; "
                                 f"an icon may be at most {MAX_ICON_BYTES // 1024} KB")
            problem = svg_problem(path.read_bytes())
            if problem:
                raise ValueError(f"icons/{self._icon_name(path)}: {problem}")
            self._checked.add(path)
        return path

    def _icon_name(self, path: Path) -> str:
        return path.resolve().relative_to(self.project.icons.resolve()).as_posix()

    def icon_url(self, emoji: str) -> str:
        """The icon's URL relative to the project folder (the renderer's base URL), so no
        machine-specific path ever reaches a PDF."""
        return self.checked_icon(emoji).relative_to(self.project.root.resolve()).as_posix()

    def split(self, text: str) -> list[tuple[str, str]]:
        """Text as runs of ('text', s) and ('icon', emoji), emoji matched longest first."""
        runs, pos, clean = [], 0, _strip(text)
        if self.emoji_re is None:
            return [("text", clean)] if clean else []
        for match in self.emoji_re.finditer(clean):
            if match.start() > pos:
                runs.append(("text", clean[pos:match.start()]))
            runs.append(("icon", match.group()))
            pos = match.end()
        if pos < len(clean):
            runs.append(("text", clean[pos:]))
        return runs

    def missing(self, text: str, icons: bool = True) -> list[str]:
        """Characters in text that no bundled font draws and (with icons=True) no icon
        stands for. Rendered HTML is checked with icons=False: by then every emoji that
        should be an icon is an <img>, so a bare one would print as a .notdef box."""
        if self.undrawable.search(text) is None:
            return []
        out = []
        for kind, run in self.split(text) if icons else [("text", text)]:
            if kind == "text" and all(ord(c) in self.drawable or c in IGNORED for c in set(run)):
                continue            # the usual case, answered per distinct character
            if kind == "text":
                for char in run:
                    if char not in IGNORED and ord(char) not in self.drawable and char not in out:
                        out.append(char)
        return out

    def font_face_css(self) -> str:
        rules = []
        for font in self.fonts:
            rules.append(f"@font-face {{ font-family: '{font.family}'; font-weight: {font.weight}; "
                         f"src: url('{font.path.relative_to(self.project.root).as_posix()}'); }}")
        stack = ", ".join(f"'{family}'" for family in self.families)
        return "\n".join(rules) + f"\n:root {{ --font-stack: {stack}; }}\nhtml {{ font-family: {stack}; }}\n"


_UNASKED = object()


@functools.lru_cache(maxsize=8)
def _undrawable(drawable: frozenset[int]) -> re.Pattern:
    """Any character outside `drawable`, as one class of ranges (made once per set of fonts:
    `pnp watch` makes its Assets anew for every rebuild)."""
    codes = sorted(drawable)
    ranges, start = [], None
    for prev, code in zip([None] + codes, codes + [None]):
        if start is None:
            start = code
        elif code is None or code != prev + 1:
            ranges.append(re.escape(chr(start)) + ("-" + re.escape(chr(prev)) if prev != start else ""))
            start = code
    return re.compile(f"[^{''.join(ranges)}]" if ranges else r"[\s\S]")


_EMOJI_FILE = re.compile(r"[0-9a-f]{1,6}(?:-[0-9a-f]{1,6})*")


def font_damage(path: Path) -> str | None:
    """Why a font file cannot be used (cut short, not a font), or None. A damaged font would
    otherwise be reported as "character … is in no bundled font" for every character."""
    from fontTools.ttLib import TTFont, TTLibError
    size = path.stat().st_size
    try:
        font = TTFont(str(path), lazy=True)
        for tag, entry in font.reader.tables.items():
            if entry.offset + entry.length > size:
                return f"its {tag.strip()} table ends at byte {entry.offset + entry.length:,}, the file at {size:,}"
        if "cmap" not in font.reader.tables:
            return "it has no character map"
    except (TTLibError, OSError, ValueError, KeyError, struct.error) as exc:
        return f"not a TrueType/OpenType font ({abbreviate(str(exc), 80)})"
    return None


_REFERENCE = re.compile(rb"""(?:xlink:)?href\s*=\s*["']\s*([^"'#][^"']*)["']|url\(\s*["']?\s*([^"')#][^"')]*)""")


def icon_hint(name: str) -> str:
    """How to get an emoji's icon, said the same wherever one is missing."""
    return f"./pnp assets add {name} fetches its Twemoji SVG, or put an .svg in icons/"


MAX_SVG_DEPTH = 200       # elements within elements: a drawn icon has a handful of levels
_TAG = re.compile(rb"<(/?)[A-Za-z][^\s/>]*(?:\"[^\"]*\"|'[^']*'|[^'\">])*?(/?)>")


def svg_depth_problem(data: bytes) -> str | None:
    """An SVG nested thousands of elements deep, which the renderers give up on without a word
    (a face drawn without its text), or None."""
    depth = deepest = 0
    for match in _TAG.finditer(data):
        if match.group(1):
            depth -= 1
        elif not match.group(2):
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_SVG_DEPTH:
                return f"elements nested more than {MAX_SVG_DEPTH} deep; a drawing needs a few levels"
    return None


def svg_problem(data: bytes) -> str | None:
    """Why an SVG is not self-contained, or None: it may refer to nothing but its own parts
    (#id) and embedded data: URIs, and nests its elements a sane depth."""
    if b"<!ENTITY" in data or b"<!DOCTYPE" in data:
        return "declares a DOCTYPE or entities; icons must be plain SVG"
    deep = svg_depth_problem(data)
    if deep:
        return deep
    for match in _REFERENCE.finditer(data):
        target = (match.group(1) or match.group(2) or b"").strip()
        if not target.startswith(b"data:"):
            return f"refers to {target.decode(errors='replace')[:60]}; icons must be self-contained"
    return None


def _strip(text: str) -> str:
    return text.replace("\ufe0f", "").replace("\ufe0e", "")


def describe_char(char: str) -> str:
    return f"'{char}' (U+{ord(char):04X} {unicodedata.name(char, 'unnamed')})"
