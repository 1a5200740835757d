"""A reportlab canvas seen in millimetres from the top-left, with the project's fonts.

Text is split into runs: each character goes to the first bundled font that has it,
each emoji with an icon is drawn as that vector icon. A character neither can draw
is an error (reportlab would silently print nothing).
"""
from __future__ import annotations

import hashlib
import io
import logging
import math
import re
from pathlib import Path

from reportlab.lib.colors import Color, HexColor
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

from generator.filehash import file_hash
from generator.source import reads
from generator.source.assets import Assets, describe_char
from generator.source.schema import is_colour, not_a_colour
from generator.geometry import PT

NEGATIVE = re.compile(r"(?<![\w.])-(?=\d)")
# A command as typed ("pnp calibrate --offset 1.5,-0.5"): its hyphens stay ASCII, so that what
# a designer copies off the paper is what the shell and pnp accept.
COMMAND = re.compile(r"(?:\bpnp |--)[!-~ ]*")


def real_minus(text: str) -> str:
    """Negative numbers with a real minus sign, except inside commands."""
    parts, last = [], 0
    for match in COMMAND.finditer(text):
        parts += [NEGATIVE.sub("\u2212", text[last:match.start()]), match.group()]
        last = match.end()
    return "".join(parts) + NEGATIVE.sub("\u2212", text[last:])
ASCENT = 0.88      # of the font size: where the baseline sits below a text line's top
LINE = 1.32        # line height, in font sizes

_registered: dict[tuple[str, str], str] = {}     # a font file and its hash -> the name reportlab knows it by
_current: dict[str, str] = {}                     # a bundled font's name -> that name, for its file as it is now
_drawings: dict = {}       # an icon file and its hash -> (svglib's drawing, has text, drawn in place)


class GlyphError(ValueError):
    def __init__(self, message: str, char: str | None = None):
        super().__init__(message)
        self.char = char            # the character no bundled font draws, when that is the fault


def register_fonts(assets: Assets) -> None:
    """The bundled fonts registered with reportlab, each file under a name of its bytes: reportlab keeps
    the first font registered under a name, and `pnp watch` builds again in one process, so a font file
    edited (or fonts.yaml's weights swapped) must come under a name of its own. (The name is reportlab's
    alone: a PDF names an embedded font by the file's own name.)"""
    for font in assets.fonts:
        source = (str(font.path), file_hash(font.path))
        if source not in _registered:
            _registered[source] = f"{font.name}-{source[1][:16]}"
            pdfmetrics.registerFont(TTFont(_registered[source], str(font.path)))
        _current[font.name] = _registered[source]


def registered(font) -> str:
    """The name reportlab draws a bundled font by (register_fonts first)."""
    return _current[font.name]


class ColourError(ValueError):
    pass


def colour(value):
    """A colour as pieces.yaml gives it, written or evaluated (#rrggbb, `none`, or one already
    made), as reportlab's, None for none: the one place a colour reaches reportlab, so a value an
    expression gave meets the rule a written one met (HexColor reads 5 as black, fails on 'Red'
    with int()'s words and takes '#12345' as some colour)."""
    if value is None or isinstance(value, Color):
        return value
    if not is_colour(value):
        raise ColourError(not_a_colour(value))
    return None if value == "none" else HexColor(value)


class Pen:
    def __init__(self, canvas: Canvas, assets: Assets, page_height: float, origin: tuple[float, float] = (0, 0),
                 ink_saver: bool = False, on_text=None):
        self.c, self.assets, self.page_height = canvas, assets, page_height
        self.ox, self.oy = origin
        self.ink_saver = ink_saver     # draft prints: no fills, light frames, black text
        self.drawn: list | None = None     # when a list: the box (x0, y0, x1, y1) of everything drawn
        self.on_text = on_text         # called with every text drawn (an edition's check for untranslated words)

    def at(self, x: float, y: float) -> "Pen":
        """A pen whose (0, 0) is (x, y) of this one."""
        pen = Pen(self.c, self.assets, self.page_height, (self.ox + x, self.oy + y), self.ink_saver, self.on_text)
        pen.drawn = self.drawn
        return pen

    def _mark(self, x0, y0, x1, y1) -> None:
        """Remember where something was drawn, in the coordinates of the pen's origin chain."""
        if self.drawn is not None:
            self.drawn.append((self.ox + min(x0, x1), self.oy + min(y0, y1), self.ox + max(x0, x1), self.oy + max(y0, y1)))

    def xy(self, x: float, y: float) -> tuple[float, float]:
        return (self.ox + x) * PT, (self.page_height - self.oy - y) * PT

    # --- shapes -----------------------------------------------------------------------------
    def _style(self, fill, stroke, line, dash=False):
        c = self.c
        fill, stroke = colour(fill), colour(stroke)
        if self.ink_saver:
            fill = None
            stroke = colour("#999999") if stroke is not None else None
        if fill is not None:
            c.setFillColor(fill)
        if stroke is not None:
            c.setStrokeColor(stroke)
            c.setLineWidth(line)
        c.setDash([2, 1.5] if dash else [])
        return fill is not None, stroke is not None

    def rect(self, x, y, w, h, fill=None, stroke=None, line=0.3, radius=0, dash=False):
        f, s = self._style(fill, stroke, line, dash)
        if not (f or s):
            return
        self._mark(x, y, x + w, y + h)
        px, py = self.xy(x, y + h)
        if radius:
            self.c.roundRect(px, py, w * PT, h * PT, radius * PT, stroke=s, fill=f)
        else:
            self.c.rect(px, py, w * PT, h * PT, stroke=s, fill=f)

    def circle(self, cx, cy, r, fill=None, stroke=None, line=0.3, dash=False):
        f, s = self._style(fill, stroke, line, dash)
        self._mark(cx - r, cy - r, cx + r, cy + r)
        px, py = self.xy(cx, cy)
        self.c.circle(px, py, r * PT, stroke=s, fill=f)

    def line(self, points, stroke="#333333", line=0.5, dash=False):
        self._style(None, stroke, line, dash)
        self._mark(min(p[0] for p in points), min(p[1] for p in points), max(p[0] for p in points),
                   max(p[1] for p in points))
        path = self.c.beginPath()
        path.moveTo(*self.xy(*points[0]))
        for p in points[1:]:
            path.lineTo(*self.xy(*p))
        self.c.drawPath(path, stroke=1, fill=0)

    def wedge(self, cx, cy, r_out, r_in, start, extent, fill=None, stroke=None, line=0.3):
        """An annular sector; angles in degrees, counter-clockwise from 3 o'clock."""
        f, s = self._style(fill, stroke, line)
        self._mark(cx - r_out, cy - r_out, cx + r_out, cy + r_out)
        path = self.c.beginPath()
        steps = max(8, int(abs(extent) / 3))
        outer = [(cx + r_out * math.cos(math.radians(start + extent * i / steps)),
                  cy - r_out * math.sin(math.radians(start + extent * i / steps))) for i in range(steps + 1)]
        inner = [(cx + r_in * math.cos(math.radians(start + extent * i / steps)),
                  cy - r_in * math.sin(math.radians(start + extent * i / steps))) for i in range(steps, -1, -1)]
        path.moveTo(*self.xy(*outer[0]))
        for p in outer[1:] + inner:
            path.lineTo(*self.xy(*p))
        path.close()
        self.c.drawPath(path, stroke=s, fill=f)

    # --- icons and text -----------------------------------------------------------------
    def icon(self, emoji: str, x: float, y: float, size: float, rotate: float = 0):
        """A vector icon: drawn once per document as a form, then placed wherever it is used; one
        with transparency or a gradient is drawn where it is placed (see _needs_page_resources)."""
        try:
            path = self.assets.checked_icon(emoji)
        except ValueError as exc:
            raise GlyphError(str(exc)) from None
        drawing, inline = self._icon_drawing(path)
        extent = max(drawing.width, drawing.height)
        self._mark(x, y, x + size, y + size)
        scale = size * PT / extent
        px, py = self.xy(x, y + size)
        self.c.saveState()
        self.c.translate(px, py)
        if rotate:  # about the icon's centre
            half = size * PT / 2
            self.c.translate(half, half)
            self.c.rotate(-rotate)
            self.c.translate(-half, -half)
        self.c.scale(scale, scale)
        if inline:
            self._render(drawing)
        else:
            self.c.doForm(self._icon_form(path, drawing, extent))
        self.c.restoreState()

    def _icon_drawing(self, path) -> tuple:
        """The icon as svglib reads it, and whether it is drawn where it is placed rather than as a form."""
        data = Path(path).read_bytes()
        reads.note(path, data)          # a cached board is redrawn when an icon it places changes
        key = (str(path), hashlib.sha256(data).digest())
        if key not in _drawings:
            # imported here, not at the top: both import reportlab.graphics (0.07–0.10 s: its paragraph
            # module compiles a large pattern), which a build that draws no icon never needs
            from svglib.svglib import svg2rlg
            logging.getLogger("svglib").setLevel(logging.ERROR)
            drawing = svg2rlg(io.BytesIO(_opacity_pushed_down(data)))
            _drawings[key] = (drawing, _has_text(drawing), _needs_page_resources(drawing))
        drawing, text, inline = _drawings[key]
        if text:
            relative = Path(path).resolve().relative_to(self.assets.project.icons.resolve()).as_posix()
            raise GlyphError(f"icons/{relative} has text (<text>), which a board cannot draw with the bundled fonts; "
                             f"turn the text into paths in the SVG")
        return drawing, inline

    def _icon_form(self, path, drawing, extent: float) -> str:
        name = self._form_name(path)
        defined = self.c.__dict__.setdefault("_pnp_icons", set())
        if name not in defined:
            self.c.beginForm(name, lowerx=0, lowery=0, upperx=extent, uppery=extent)
            self._render(drawing)
            self.c.endForm()
            defined.add(name)
        return name

    def _render(self, drawing) -> None:
        from reportlab.graphics import renderPDF
        # the icon's state starts in the game's first bundled font, not reportlab's Helvetica: a
        # font never embedded, selected by an empty text object that tidy_fonts had to remove
        drawing.initialFontName = registered(self.assets.fonts[0])
        renderPDF.draw(drawing, self.c, 0, 0)

    def _form_name(self, path) -> str:
        """A PDF form name per icon file: an emoji's code points, or for an icon named by its path
        under icons/ that path's hash too (a/star.svg and b/star.svg are two icons)."""
        relative = Path(path).resolve().relative_to(self.assets.project.icons.resolve())
        if relative.parent.as_posix() == "twemoji":
            return "icon-" + path.stem
        return f"icon-{path.stem}-{hashlib.sha256(relative.as_posix().encode()).hexdigest()[:8]}"

    def runs(self, text: str, bold: bool) -> list[tuple[str, str]]:
        """(font name, text) and ("icon", emoji) runs, each character in the first font that has it."""
        out: list[tuple[str, str]] = []
        text = real_minus(text)   # a negative number takes a real minus sign
        for kind, run in self.assets.split(text):
            if kind == "icon":
                out.append(("icon", run))
                continue
            for char in run:
                if char in "\u200d\ufe0f":
                    continue
                family = self.assets.font_for(char)
                if family is None:
                    raise GlyphError(f"character {describe_char(char)} is in no bundled font", char)
                name = self._font_name(family, bold)
                if out and out[-1][0] == name:
                    out[-1] = (name, out[-1][1] + char)
                else:
                    out.append((name, char))
        return out

    def _font_name(self, family: str, bold: bool) -> str:
        weights = [f for f in self.assets.fonts if f.family == family]
        wanted = 700 if bold else 400
        return registered(min(weights, key=lambda f: abs(f.weight - wanted)))

    def width(self, runs, size: float) -> float:
        """Width in mm of runs at a font size in points."""
        total = 0.0
        for name, text in runs:
            total += size if name == "icon" else pdfmetrics.stringWidth(text, name, size)
        return total / PT

    def wrap(self, text: str, size: float, bold: bool, width: float | None) -> list[list[tuple[str, str]]]:
        lines = []
        for paragraph in str(text).split("\n"):
            runs = self.runs(paragraph, bold)
            if width is None or self.width(runs, size) <= width:
                lines.append(runs)
                continue
            lines.extend(self._break(runs, size, width))
        return lines

    def _break(self, runs, size, width):
        """Greedy line breaking: anywhere between CJK characters, at spaces in Latin text."""
        tokens = []
        for name, text in runs:
            if name == "icon":
                tokens.append((name, text))
            else:
                tokens.extend((name, t) for t in re.findall(r"[A-Za-z0-9.,%+\-−×()]+ ?|.", text))
        lines, current = [], []
        for token in tokens:
            trial = current + [token]
            if current and self.width(trial, size) > width:
                lines.append(current)
                current = [token] if token[1].strip() else []
            else:
                current = trial
        if current:
            lines.append(current)
        return [_merge(line) for line in lines]

    def text(self, text: str, x: float, y: float, size: float = 9, bold: bool = False,
             fill: str = "#222222", align: str = "left", width: float | None = None,
             rotate: float = 0) -> float:
        """Draw text whose first line's top is at y; return the height used (mm)."""
        if self.on_text is not None:
            self.on_text(text)
        lines = self.wrap(text, size, bold, width)
        step = size * LINE / PT
        if rotate:
            self.c.saveState()
            px, py = self.xy(x, y)
            self.c.translate(px, py)
            self.c.rotate(-rotate)
            pen = Pen(self.c, self.assets, 0, ink_saver=self.ink_saver)  # y grows downwards from the new origin
            for i, runs in enumerate(lines):
                pen._draw_line(runs, 0, i * step, size, fill, align, width)
            self.c.restoreState()
            return step * len(lines)
        for i, runs in enumerate(lines):
            self._draw_line(runs, x, y + i * step, size, fill, align, width)
        return step * len(lines)

    def _draw_line(self, runs, x, y, size, fill, align, width):
        line_width = self.width(runs, size)
        if align == "centre":
            x -= line_width / 2 if width is None else (line_width - width) / 2
        elif align == "right":
            x -= line_width if width is None else line_width - width
        baseline = y + size * ASCENT / PT
        if any(text.strip() for name, text in runs if name != "icon"):
            self._mark(x, y, x + line_width, y + size * LINE / PT)
        self.c.setFillColor(colour("#000000" if self.ink_saver else fill))
        cursor = x
        for name, text in runs:
            if name == "icon":
                self.icon(text, cursor, y + size * 0.06 / PT, size / PT)
                cursor += size / PT
                continue
            self.c.setFont(name, size)
            px, py = self.xy(cursor, baseline)
            self.c.drawString(px, py, text)
            cursor += pdfmetrics.stringWidth(text, name, size) / PT


def _merge(runs):
    out = []
    for name, text in runs:
        if out and out[-1][0] == name and name != "icon":
            out[-1] = (name, out[-1][1] + text)
        else:
            out.append((name, text))
    return out


def _opacity_pushed_down(svg: bytes) -> bytes:
    """The SVG with each `opacity` (attribute or style) multiplied into the fill-opacity and
    stroke-opacity of the shapes it covers: svglib ignores `opacity` (twemoji's fly draws its wings
    with it, and came out opaque). For one shape that is exact; for a group whose shapes overlap,
    each shape is see-through on its own where the SVG makes the group see-through as one. Every
    opacity is written as a number from 0 to 1 (an SVG's `nan` or `-3` is not passed on)."""
    if b"opacity" not in svg:
        return svg
    from lxml import etree
    # parsed as svglib parses it (recovering), with nothing fetched or expanded
    root = etree.fromstring(svg, etree.XMLParser(recover=True, resolve_entities=False, no_network=True))
    if root is None:
        return svg

    def push(element, opacity: float) -> None:
        opacity *= _fraction(element.attrib.pop("opacity", None)) * _fraction(_style_value(element, "opacity"))
        children = [child for child in element if isinstance(child.tag, str)]
        if children and not element.tag.endswith("}text"):
            for child in children:
                push(child, opacity)
            return
        for name in ("fill-opacity", "stroke-opacity"):
            own = _style_value(element, name) or element.get(name)    # (a style's value wins, as in CSS)
            if own is not None or opacity < 1:
                element.set(name, f"{_fraction(own) * opacity:.4g}")
    push(root, 1.0)
    return etree.tostring(root)


def _style_value(element, name: str) -> str | None:
    """A property's value in the element's style attribute, taken out of it (None if it has none)."""
    pattern = re.compile(rf"(?<![\w-]){name}\s*:\s*([^;]*);?")
    found = pattern.search(element.get("style") or "")
    if found is None:
        return None
    element.set("style", pattern.sub("", element.get("style")))
    return found.group(1)


def _fraction(value: str | None) -> float:
    """An SVG opacity ("0.5", "50%") as a number from 0 to 1; 1 when absent or not a number."""
    try:
        number = float(value.strip().rstrip("%")) / (100 if value.strip().endswith("%") else 1)
    except (AttributeError, ValueError):
        return 1.0
    return min(max(number, 0.0), 1.0) if math.isfinite(number) else 1.0


def _nodes(drawing):
    waiting = [drawing]
    while waiting:
        node = waiting.pop()
        yield node
        waiting += list(getattr(node, "contents", None) or [])


def _has_text(drawing) -> bool:
    from reportlab.graphics.shapes import String
    return any(isinstance(node, String) for node in _nodes(drawing))


def _needs_page_resources(drawing) -> bool:
    """Whether the icon draws with transparency or a gradient. reportlab writes a form's resources
    without the graphics states and shadings these name (its PDFFormXObject keeps fonts, procedure
    sets and forms only), so such an icon drawn as a form printed opaque, or flat, and named
    resources the page did not have: it is drawn where it is placed instead, whose page keeps them."""
    from svglib.svglib import LinearGradientShape, RadialGradientShape
    for node in _nodes(drawing):
        if isinstance(node, (LinearGradientShape, RadialGradientShape)):
            return True
        for colour, opacity in (("fillColor", "fillOpacity"), ("strokeColor", "strokeOpacity")):
            values = (getattr(getattr(node, colour, None), "alpha", None), getattr(node, opacity, None))
            if any(value is not None and value < 1 for value in values):
                return True
    return False
