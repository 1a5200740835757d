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


def fonts(pdf: pikepdf.Pdf, memo=None, same: dict | None = None, selected: dict | None = None) -> dict:
    """Every font the document draws with, what it embeds and which glyphs it uses.
    A form XObject shared by many pages (a card back) is read once. With a memo
    (check/checked.py), a form whose raw bytes an earlier check read has its glyphs taken from
    there instead of parsed again; they still count against this file's fonts. `same`: pages
    (by number) whose every object is byte for byte one an earlier check read, each with the
    glyphs it draws as recorded then ([[font number, generation, glyph ids]]): added without a
    read, in the page order a read would add them. With a memo, what each page read draws is
    left in memo.page_glyphs (None for a page drawing with a font that is not an object of its
    own, which a record cannot name). `selected`, if given, gets the font names each content
    stream it parses selects (Tf), by the stream's (or page's) object: a later check of them
    need not parse it again."""
    uses: dict = {}
    seen: set = set()
    drawn_by: dict = {}        # form -> [(font, glyph ids)] it and the forms inside it draw

    def scan(content_owner, resources, depth=0) -> list | None:
        if depth > 8 or resources is None:
            return []
        font_dict = resources.get("/Font", {})
        drawn = _text_drawn(content_owner, font_dict, uses, memo, selected)
        if drawn is None:
            return None
        for xobj in resources.get("/XObject", {}).values():
            if xobj.get("/Subtype") != "/Form":
                continue
            if xobj.objgen not in seen:
                if xobj.is_indirect:
                    seen.add(xobj.objgen)
                inner = drawn_by[xobj.objgen] = scan(xobj, xobj.get("/Resources"), depth + 1)
            else:
                inner = drawn_by.get(xobj.objgen, [])      # [] while a form that draws itself is read
            drawn = None if drawn is None or inner is None else drawn + inner
        return drawn

    for number, page in enumerate(pdf.pages, 1):
        if same and number in same:
            for num, gen, gids in same[number]["glyphs"]:
                _use(uses, pdf.get_object((num, gen))).used.update(gids)
            continue        # its forms stay unseen: a page read later that shares one reads it for its own record
        drawn = scan(page, page.Resources)
        if memo is not None:
            memo.page_glyphs[number] = _merged(drawn)
    return uses


def _merged(drawn: list | None) -> list | None:
    """[(font, glyph ids)] as [[number, generation, sorted ids]], one per font in the order first
    drawn; None if a font is not an indirect object."""
    if drawn is None or any(not font.is_indirect for font, _ in drawn):
        return None
    merged: dict = {}
    for font, gids in drawn:
        merged.setdefault(font.objgen, set()).update(gids)
    return [[num, gen, sorted(gids)] for (num, gen), gids in merged.items()]


def _text_drawn(content_owner, font_dict, uses: dict, memo, selected: dict | None = None) -> list | None:
    """Add the glyphs one content stream draws to uses, from the memo when it has them; what it
    draws, [(font, glyph ids)], or None when the stream cannot be parsed."""
    key = memo.form_key(content_owner) if memo is not None and isinstance(content_owner, pikepdf.Stream) else None
    recorded = memo.glyphs(key) if key else None
    if recorded is not None and _replay(recorded, font_dict, uses):
        return _by_font(recorded, font_dict)
    drawn = _scan_text(content_owner, font_dict, uses, selected)
    if drawn is None:
        return None
    if key:
        memo.remember_glyphs(key, drawn)
    return _by_font(drawn, font_dict)


def _by_font(drawn: list, font_dict) -> list:
    """[(font resource name, subtype, glyph ids)] as [(font object, glyph ids)]."""
    found = [(font_dict.get(name), gids) for name, _, gids in drawn]
    return [(font, gids) for font, gids in found if font is not None]


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


def content_key(owner) -> tuple | None:
    """The object a page's or form's content is read from, or None for a direct one."""
    obj = owner.obj if isinstance(owner, pikepdf.Page) else owner
    return obj.objgen if obj.is_indirect else None


def _scan_text(content_owner, font_dict, uses: dict, selected: dict | None = None) -> list | None:
    """Parse one content stream's text operators into uses; what it draws, as [(font resource
    name, font subtype, glyph ids)] in the order the fonts are first selected, or None when it
    cannot be parsed. `selected` gets every font name it selects, by content_key."""
    drawn: dict[str, tuple[str, set]] = {}
    current = name = None
    try:   # only the operators that matter here: the parse is done in C++
        instructions = pikepdf.parse_content_stream(content_owner, "Tf Tj TJ ' \"")
    except pikepdf.PdfError:
        return None
    names = []
    for operands, op in instructions:
        op = str(op)
        if op == "Tf":
            name = str(operands[0])
            names.append(name)
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
    key = content_key(content_owner) if selected is not None else None
    if key is not None:
        selected[key] = names
    return [[n, subtype, sorted(g)] for n, (subtype, g) in drawn.items()]


@dataclass(frozen=True)
class FontResource:
    name: str                 # BaseFont, without the leading slash
    embedded: bool
    program: str | None       # a digest of the embedded program


def font_resources(pdf: pikepdf.Pdf, among: list[tuple] | None = None) -> list[FontResource]:
    """Every font dictionary in the file, drawn with or not (preflight tools flag both); with
    `among`, only those objects are looked at (WrittenObjects.holding: the ones whose written
    bytes name a font at all, a few in thousands)."""
    found = []
    for obj in pdf.objects if among is None else map(pdf.get_object, among):
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


# --- objects as written -----------------------------------------------------------------

class WrittenObjects:
    """The bytes of each object of a file as written, found through its one classic
    cross-reference table (as pnp saves a pack: no object streams, no appended updates). An
    object's bytes run from its offset to the next object's, so they hold all of it; they are
    compared only with bytes an earlier check read at the same number. Any other layout (or a
    table that does not lead to `N G obj`) finds nothing, and the caller reads the file as usual."""
    SECTION = re.compile(rb"[\r\n ]*(\d+) (\d+)[ ]*(?:\r\n|\r|\n)")
    ENTRY = re.compile(rb"(.{10}).(.{5}).([nf])..", re.S)   # offset, generation, in use or free

    def __init__(self, data: bytes):
        self.data = data
        self.spans = self._spans(data) or {}
        self._digests: dict = {}

    def run_digest(self, first: int, last: int) -> bytes | None:
        """A hash of objects `first` … `last` (generation 0) as written, in one piece, with where
        each of them starts; None unless each is where the table says (its `N 0 obj`), in number
        order, nothing between them."""
        found = self._digests.get((first, last))
        if found is None:
            spans, data = self.spans, self.data
            if (first, 0) not in spans:
                return None
            start, end = spans[first, 0]
            starts = []
            for number in range(first, last + 1):
                span = spans.get((number, 0))
                if span is None or (number > first and span[0] != end) \
                        or not data.startswith(b"%d 0 obj" % number, span[0]):
                    return None
                starts.append(span[0] - start)
                end = span[1]
            digest = hashlib.sha256(memoryview(data)[start:end])
            digest.update(repr(starts).encode())
            found = self._digests[first, last] = digest.digest()
        return found

    def holding(self, word: bytes) -> list[tuple] | None:
        """The objects whose written bytes hold `word`, in the order of their numbers (as qpdf
        lists objects), or None when the file's objects are not known this way."""
        if not self.spans:
            return None
        return sorted(objgen for objgen, (start, end) in self.spans.items() if self.data.find(word, start, end) >= 0)

    @classmethod
    def _spans(cls, data: bytes) -> dict | None:
        tail = re.search(rb"startxref\s+(\d+)\s+%%EOF\s*$", data[-1024:])
        if tail is None or data.count(b"startxref") != 1:
            return None
        table = int(tail.group(1))
        if not data.startswith(b"xref", table):
            return None
        offsets, pos = {}, table + 4
        while (section := cls.SECTION.match(data, pos)) is not None:
            first, count = int(section.group(1)), int(section.group(2))
            pos = section.end()
            entries = cls.ENTRY.findall(data[pos:pos + 20 * count])     # 20 bytes each, one after another
            if len(entries) != count:
                return None
            for number, (offset, generation, kind) in enumerate(entries, first):
                if kind == b"n":
                    offsets[number, int(generation)] = int(offset)
            pos += 20 * count
        trailer = data[pos:data.rindex(b"startxref")]
        if not trailer.lstrip().startswith(b"trailer") or b"/Prev" in trailer or b"/XRefStm" in trailer:
            return None
        starts = sorted(set(offsets.values())) + [table]
        ends = dict(zip(starts, starts[1:]))
        return {objgen: (start, ends[start]) for objgen, start in offsets.items() if start < table}


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


def images(pdf: pikepdf.Pdf, same: dict | None = None) -> list[ImageUse]:
    """Every raster image drawn, with its printed size (through nested forms). The images
    inside a form are found once and then placed with each use of the form. `same`: pages whose
    objects are byte for byte ones an earlier check read, each with the images it found on them
    ([[owner, pixels, size in mm]]), taken as found then."""
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
        if same and number in same:
            found += [ImageUse(number, owner, tuple(pixels), tuple(size)) for owner, pixels, size in same[number]["images"]]
            continue
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


# --- printed text, as a reader sees it ------------------------------------------------------

def placed_forms(page: pikepdf.Page, wanted, depth: int = 4) -> list[tuple[pikepdf.Object, Rect]]:
    """Every form XObject for which `wanted(form)` holds, at any depth of forms inside forms (a
    rulebook page inside a booklet sheet, a figure inside that page), with where its bounding
    box lands on the page (mm from the top-left)."""
    h = page_height(page)
    found = []

    def visit(owner, resources, outer, level):
        xobjects = resources.get("/XObject", {}) if isinstance(resources, pikepdf.Dictionary) else {}
        if level > depth or not xobjects:
            return
        ctm, stack = outer, []
        for operands, op in pikepdf.parse_content_stream(owner, "q Q cm Do"):
            op = str(op)
            if op == "q":
                stack.append(ctm)
            elif op == "Q":
                ctm = stack.pop() if stack else outer
            elif op == "cm":
                ctm = _mul([float(v) for v in operands], ctm)
            elif op == "Do":
                form = xobjects.get(str(operands[0]))
                if form is None or form.get("/Subtype") != "/Form":
                    continue
                m = _mul([float(v) for v in form.get("/Matrix", [1, 0, 0, 1, 0, 0])], ctm)
                if wanted(form):
                    x0, y0, x1, y1 = (float(v) for v in form.BBox)
                    found.append((form, _to_rect([_apply(m, x0, y0), _apply(m, x1, y1), _apply(m, x0, y1),
                                                  _apply(m, x1, y0)], h)))
                visit(form, form.get("/Resources"), m, level + 1)

    visit(page, page.Resources, [1, 0, 0, 1, 0, 0], 0)
    return found


def printed_chars(textpage, height: float):
    """Each character pdfium reads on a page, with the size it prints at (points: the font size
    scaled by every matrix in force, forms and impositions included) and its centre (mm from
    the top-left). White space is passed over."""
    import ctypes
    import pypdfium2.raw as pdfium_c
    raw = textpage.raw
    matrix = pdfium_c.FS_MATRIX()
    left, right, bottom, top = ctypes.c_double(), ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
    for index in range(pdfium_c.FPDFText_CountChars(raw)):
        code = pdfium_c.FPDFText_GetUnicode(raw, index)
        if code <= 0x20 or code in (0xA0, 0x3000, 0xFFFE, 0xFEFF) or not chr(code).strip():
            continue
        if not pdfium_c.FPDFText_GetMatrix(raw, index, matrix) \
                or not pdfium_c.FPDFText_GetCharBox(raw, index, left, right, bottom, top):
            continue
        scale = abs(matrix.a * matrix.d - matrix.b * matrix.c) ** 0.5
        size = pdfium_c.FPDFText_GetFontSize(raw, index) * scale
        yield (chr(code), size, (left.value + right.value) / 2 * MM,
               (height - (top.value + bottom.value) / 2) * MM)
