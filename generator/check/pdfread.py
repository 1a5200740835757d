"""Read a finished PDF back: what is placed where, which lines are drawn, which fonts
and glyphs are used. The preflight and the tests measure the real file with this,
not the engine's intentions.

Rectangles are returned in millimetres from the page's top-left, like the manifest.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field

import pikepdf
import uharfbuzz as hb

from generator.geometry import Rect

MM = 25.4 / 72


@dataclass(frozen=True)
class Placed:
    name: str
    rect: Rect            # where the XObject's bounding box lands
    clip: Rect | None     # the clipping rectangle in force, if any
    rotation: int         # 0 or 180
    xobject: pikepdf.Object = field(compare=False, repr=False, hash=False)
    matrix: tuple = field(default=(1, 0, 0, 1, 0, 0), compare=False, repr=False)
    page_height: float = field(default=0.0, compare=False, repr=False)

    @property
    def trim(self) -> Rect | None:
        """The card's trim as printed, from the trim box its form carries (/PnpTrim)."""
        box = self.xobject.get("/PnpTrim")
        if box is None:
            return None
        x0, y0, x1, y1 = (float(v) for v in box)
        return _to_rect([_apply(self.matrix, x0, y0), _apply(self.matrix, x1, y1)], self.page_height)

    @property
    def label(self) -> str:
        return str(self.xobject.get("/PnpId", ""))


@dataclass(frozen=True)
class Segment:
    x1: float
    y1: float
    x2: float
    y2: float


def _mul(a, b):
    """Matrix product a·b for PDF matrices [a b c d e f]."""
    return [a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
            a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3],
            a[4] * b[0] + a[5] * b[2] + b[4], a[4] * b[1] + a[5] * b[3] + b[5]]


def _apply(m, x, y):
    return m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]


def _to_rect(points, page_h) -> Rect:
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    return Rect(min(xs) * MM, (page_h - max(ys)) * MM, (max(xs) - min(xs)) * MM, (max(ys) - min(ys)) * MM)


def page_height(page: pikepdf.Page) -> float:
    box = [float(v) for v in page.mediabox]
    return box[3] - box[1]


def walk(page: pikepdf.Page, boxes: list[Rect] | None = None) -> tuple[list[Placed], list[Segment]]:
    """Form XObjects drawn by the page's own content, and the straight lines it strokes; with
    `boxes`, also the rectangles it fills (registration marks), appended to that list."""
    h = page_height(page)
    placed, segments = [], []
    ctm, clip, stack = [1, 0, 0, 1, 0, 0], None, []
    pending_rect, path = None, []
    xobjects = page.Resources.get("/XObject", {})
    for operands, op in pikepdf.parse_content_stream(page):
        op = str(op)
        if op == "q":
            stack.append((ctm, clip))
        elif op == "Q":
            ctm, clip = stack.pop() if stack else ([1, 0, 0, 1, 0, 0], None)
        elif op == "cm":
            ctm = _mul([float(v) for v in operands], ctm)
        elif op == "re":
            x, y, w, hh = (float(v) for v in operands)
            pending_rect = [_apply(ctm, x, y), _apply(ctm, x + w, y + hh)]
        elif op == "W":
            if pending_rect:
                clip = _to_rect(pending_rect, h)
        elif op == "m":
            path = [_apply(ctm, float(operands[0]), float(operands[1]))]
        elif op == "l":
            path.append(_apply(ctm, float(operands[0]), float(operands[1])))
        elif op in ("S", "s"):
            for (x1, y1), (x2, y2) in zip(path, path[1:]):
                segments.append(Segment(x1 * MM, (h - y1) * MM, x2 * MM, (h - y2) * MM))
            path = []
        elif op in ("n", "f", "F", "B", "b", "f*", "B*", "b*"):
            if boxes is not None and op in ("f", "F") and pending_rect:
                boxes.append(_to_rect(pending_rect, h))
            path, pending_rect = [], None
        elif op == "Do":
            name = str(operands[0])
            xobj = xobjects.get(name)
            if xobj is None or xobj.get("/Subtype") != "/Form":
                continue
            bx0, by0, bx1, by1 = (float(v) for v in xobj.BBox)
            matrix = [float(v) for v in xobj.get("/Matrix", [1, 0, 0, 1, 0, 0])]
            m = _mul(matrix, ctm)
            corners = [_apply(m, bx0, by0), _apply(m, bx1, by1)]
            rotation = 180 if m[0] < 0 and m[3] < 0 else 0
            placed.append(Placed(name, _to_rect(corners, h), clip, rotation, xobj, tuple(m), h))
    return placed, segments


# --- fonts --------------------------------------------------------------------------------

@dataclass
class FontUse:
    name: str
    subtype: str
    embedded: bool
    glyphs: int | None            # glyphs in the embedded font program
    used: set = field(default_factory=set)   # glyph ids (Type0) or codes (simple fonts) drawn
    first_char: int | None = None
    last_char: int | None = None

    @property
    def missing(self) -> list[int]:
        """Glyph ids or codes drawn that the embedded font cannot supply."""
        if self.subtype == "/Type0":
            return sorted(g for g in self.used if self.glyphs is None or g >= self.glyphs or g == 0)
        if self.first_char is not None:
            return sorted(c for c in self.used if not self.first_char <= c <= self.last_char)
        return []


def _font_program(font: pikepdf.Object):
    descendant = font.DescendantFonts[0] if "/DescendantFonts" in font else font
    descriptor = descendant.get("/FontDescriptor")
    if descriptor is None:
        return None
    for key in ("/FontFile2", "/FontFile3", "/FontFile"):
        if key in descriptor:
            return descriptor[key]
    return None


def _glyph_count(program) -> int | None:
    count = hb.Face(hb.Blob(program.read_bytes())).glyph_count
    return count or None        # 0: a bare CFF program or unreadable, not counted


def fonts(pdf: pikepdf.Pdf, memo=None) -> dict:
    """Every font the document draws with, what it embeds and which glyphs it uses.
    A form XObject shared by many pages (a card back) is read once. With a memo
    (check/checked.py), a form whose raw bytes an earlier check read has its glyphs taken from
    there instead of parsed again; they still count against this file's fonts."""
    uses: dict = {}
    seen: set = set()

    def scan(content_owner, resources, depth=0):
        if depth > 8 or resources is None:
            return
        font_dict = resources.get("/Font", {})
        if not _text_drawn(content_owner, font_dict, uses, memo):
            return
        for xobj in resources.get("/XObject", {}).values():
            if xobj.get("/Subtype") == "/Form" and xobj.objgen not in seen:
                if xobj.is_indirect:
                    seen.add(xobj.objgen)
                scan(xobj, xobj.get("/Resources"), depth + 1)

    for page in pdf.pages:
        scan(page, page.Resources)
    return uses


def _text_drawn(content_owner, font_dict, uses: dict, memo) -> bool:
    """Add the glyphs one content stream draws to uses, from the memo when it has them;
    False when the stream cannot be parsed."""
    key = memo.form_key(content_owner) if memo is not None and isinstance(content_owner, pikepdf.Stream) else None
    recorded = memo.glyphs(key) if key else None
    if recorded is not None and _replay(recorded, font_dict, uses):
        return True
    drawn = _scan_text(content_owner, font_dict, uses)
    if drawn is None:
        return False
    if key:
        memo.remember_glyphs(key, drawn)
    return True


def _replay(recorded: list, font_dict, uses: dict) -> bool:
    """Recorded glyphs into uses, in the order the fonts were first selected (as a parse adds
    them); False, adding nothing, if a name now names a font of another kind (the bytes would
    decode to other glyph ids)."""
    fonts = [font_dict.get(name) for name, _, _ in recorded]
    if any(font is not None and str(font.get("/Subtype")) != subtype for font, (_, subtype, _) in zip(fonts, recorded)):
        return False
    for font, (_, _, gids) in zip(fonts, recorded):
        if font is not None:
            _use(uses, font).used.update(gids)
    return True


def _scan_text(content_owner, font_dict, uses: dict) -> list | None:
    """Parse one content stream's text operators into uses; what it draws, as [(font resource
    name, font subtype, glyph ids)] in the order the fonts are first selected, or None when it
    cannot be parsed."""
    drawn: dict[str, tuple[str, set]] = {}
    current = name = None
    try:   # only the operators that matter here: the parse is done in C++
        instructions = pikepdf.parse_content_stream(content_owner, "Tf Tj TJ ' \"")
    except pikepdf.PdfError:
        return None
    for operands, op in instructions:
        op = str(op)
        if op == "Tf":
            name = str(operands[0])
            font = font_dict.get(name)
            current = _use(uses, font) if font is not None else None
            if current is not None:
                drawn.setdefault(name, (current.subtype, set()))
        elif op in ("Tj", "'", '"', "TJ") and current is not None:
            strings = operands[-1] if op == "TJ" else [operands[-1]]
            for item in strings:
                if isinstance(item, pikepdf.String):
                    data = bytes(item)
                    if current.subtype == "/Type0":
                        glyphs = {int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data) - 1, 2)}
                    else:
                        glyphs = set(data)
                    current.used.update(glyphs)
                    drawn[name][1].update(glyphs)
    return [[n, subtype, sorted(g)] for n, (subtype, g) in drawn.items()]


@dataclass(frozen=True)
class FontResource:
    name: str                 # BaseFont, without the leading slash
    embedded: bool
    program: str | None       # a digest of the embedded program


def font_resources(pdf: pikepdf.Pdf) -> list[FontResource]:
    """Every font dictionary in the file, drawn with or not (preflight tools flag both)."""
    found = []
    for obj in pdf.objects:
        if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == "/Font" and "/DescendantFonts" not in obj:
            program = _font_program(obj)
            digest = hashlib.sha256(program.read_bytes()).hexdigest() if program is not None else None
            found.append(FontResource(str(obj.get("/BaseFont", "/?"))[1:], program is not None, digest))
    return found


def _use(uses: dict, font: pikepdf.Object) -> FontUse:
    key = font.objgen if font.is_indirect else id(font)
    if key not in uses:
        program = _font_program(font)
        use = FontUse(str(font.get("/BaseFont", "?")), str(font.get("/Subtype")), program is not None,
                      _glyph_count(program) if program is not None else None)
        if "/FirstChar" in font:
            use.first_char, use.last_char = int(font.FirstChar), int(font.LastChar)
        uses[key] = use
    return uses[key]


# --- raster images ------------------------------------------------------------------------

@dataclass(frozen=True)
class ImageUse:
    page: int
    owner: str            # the card (/PnpId of the form it sits in), or "" on the page itself
    pixels: tuple[int, int]
    size_mm: tuple[float, float]

    @property
    def dpi(self) -> float:
        w, h = self.size_mm
        return min(self.pixels[0] / (w / 25.4) if w else 1e9, self.pixels[1] / (h / 25.4) if h else 1e9)


def images(pdf: pikepdf.Pdf) -> list[ImageUse]:
    """Every raster image drawn, with its printed size (through nested forms). The images
    inside a form are found once and then placed with each use of the form."""
    found = []
    inside: dict = {}     # form objgen -> [(xobject, matrix within the form, owner label)]
    holds: dict = {}      # form objgen -> whether an image is anywhere inside it

    def may_hold_images(resources, depth=0) -> bool:
        """Whether these resources reach an image XObject; a page of vector cards needs no parse."""
        if depth > 8 or resources is None:
            return False
        for xobj in resources.get("/XObject", {}).values():
            if xobj.get("/Subtype") == "/Image":
                return True
            if xobj.get("/Subtype") == "/Form":
                key = xobj.objgen if xobj.is_indirect else None
                if key is None or key not in holds:
                    answer = may_hold_images(xobj.get("/Resources"), depth + 1)
                    if key is None:
                        if answer:
                            return True
                        continue
                    holds[key] = answer
                if holds[key]:
                    return True
        return False

    def scan(owner_obj, resources, owner, depth=0) -> list:
        """(image, matrix relative to owner_obj's space, owner label) for everything it draws."""
        if depth > 8 or not may_hold_images(resources, depth):
            return []
        xobjects = resources.get("/XObject", {})
        out, stack, m = [], [], [1, 0, 0, 1, 0, 0]
        for operands, op in pikepdf.parse_content_stream(owner_obj, "q Q cm Do"):
            op = str(op)
            if op == "q":
                stack.append(m)
            elif op == "Q":
                m = stack.pop() if stack else [1, 0, 0, 1, 0, 0]
            elif op == "cm":
                m = _mul([float(v) for v in operands], m)
            elif op == "Do":
                xobj = xobjects.get(str(operands[0]))
                if xobj is None:
                    continue
                if xobj.get("/Subtype") == "/Image":
                    out.append((xobj, m, owner))
                elif xobj.get("/Subtype") == "/Form":
                    key = xobj.objgen if xobj.is_indirect else None
                    if key is None or key not in inside:
                        items = scan(xobj, xobj.get("/Resources"), str(xobj.get("/PnpId", owner)), depth + 1)
                        if key is not None:
                            inside[key] = items
                    else:
                        items = inside[key]
                    local = _mul([float(v) for v in xobj.get("/Matrix", [1, 0, 0, 1, 0, 0])], m)
                    out += [(image, _mul(inner, local), label) for image, inner, label in items]
        return out

    for number, page in enumerate(pdf.pages, 1):
        for xobj, m, owner in scan(page, page.Resources, ""):
            w_pt = (m[0] ** 2 + m[1] ** 2) ** 0.5
            h_pt = (m[2] ** 2 + m[3] ** 2) ** 0.5
            found.append(ImageUse(number, owner, (int(xobj.Width), int(xobj.Height)), (w_pt * MM, h_pt * MM)))
    return found


# --- font tables, as faces and packs write them (render/canonical.py builds them) ----------------

_W_TOKEN = re.compile(rb"\[|\]|[-+]?[0-9]*\.?[0-9]+")


def parse_widths(array) -> dict[int, float]:
    """A CIDFont /W array: [c [w1 w2 …] c_first c_last w …] as gid → width. Read from the
    array's PDF text: a thousand times per pack, walking pikepdf objects was the slow part."""
    tokens = _W_TOKEN.findall(array.unparse())[1:-1]      # inside the outer brackets
    widths, i = {}, 0
    while i < len(tokens):
        start = int(float(tokens[i]))
        if tokens[i + 1] == b"[":
            end = tokens.index(b"]", i + 2)
            for offset, width in enumerate(tokens[i + 2:end]):
                widths[start + offset] = float(width)
            i = end + 1
        else:
            for gid in range(start, int(float(tokens[i + 1])) + 1):
                widths[gid] = float(tokens[i + 2])
            i += 3
    return widths


_PAIR = re.compile(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>")
_RANGE = re.compile(rb"<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*(<[0-9A-Fa-f]+>|\[[^\]]*\])")


def parse_cmap(data: bytes) -> dict[int, str]:
    """gid → hex UTF-16BE of a ToUnicode CMap's bfchar and bfrange entries."""
    mapping: dict[int, str] = {}
    for block in re.findall(rb"beginbfchar(.*?)endbfchar", data, re.S):
        for src, dst in _PAIR.findall(block):
            mapping[int(src, 16)] = dst.decode().upper()
    for block in re.findall(rb"beginbfrange(.*?)endbfrange", data, re.S):
        for lo, hi, dst in _RANGE.findall(block):
            lo, hi = int(lo, 16), int(hi, 16)
            if dst.startswith(b"["):
                for offset, item in enumerate(re.findall(rb"<([0-9A-Fa-f]+)>", dst)):
                    mapping[lo + offset] = item.decode().upper()
            else:
                first = int(dst[1:-1], 16)
                width = len(dst) - 2
                for offset in range(hi - lo + 1):
                    mapping[lo + offset] = f"{first + offset:0{width}X}"
    return mapping
