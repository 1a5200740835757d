"""A face page as a canonical one-page PDF: the same bytes whichever batch it was rendered in.

WeasyPrint renders many faces per document (fast) and shares one resource dictionary
between its pages: every font of the batch, widths and ToUnicode entries for every glyph
the batch used, a FontBBox from the widest of them. A cached face must not depend on its
batch, so this keeps only what the page draws, renames resources in order of first use,
and makes each font again from the glyphs this page uses: a placeholder naming the bundled font
and listing those glyphs with their widths and text. Font programs, widths arrays and ToUnicode
maps are left out: the pack merges every face's glyphs of a bundled font into one font
(fontmerge.py).
"""
from __future__ import annotations

import re

import orjson
import pikepdf
from pikepdf import Array, Dictionary, Name

from generator.check.pdfread import parse_cmap, parse_widths
from generator.pdfbytes import AS_IS, canonical_stream, pdf_bytes

CATEGORIES = {"/Font": "F", "/ExtGState": "G", "/ColorSpace": "C", "/Pattern": "P", "/Shading": "S",
              "/XObject": "X"}
DEVICE_SPACES = {"/DeviceRGB", "/DeviceGray", "/DeviceCMYK", "/Pattern"}
SHOW = {"Tj", "TJ", "'", '"'}
INTERESTING = SHOW | {"Tf", "gs", "cs", "CS", "scn", "SCN", "sh", "Do"}   # operators naming a resource or showing text
FIXED_PITCH = 1


class Batch:
    """A rendered document whose pages are being made canonical: its fonts' widths and
    ToUnicode maps are read once for all its pages, not once per page."""

    def __init__(self, document: pikepdf.Pdf):
        self.document = document
        self._fonts: dict = {}
        self.drawn: set[tuple[str, int]] = set()    # the bundled fonts (family, weight) of the last page made

    def font(self, font) -> "_SourceFont":
        key = font.objgen if font.is_indirect else id(font)
        if key not in self._fonts:
            self._fonts[key] = _SourceFont(font)
        return self._fonts[key]


class _SourceFont:
    """What every canonical font made from one font of a batch shares, read from it once: its
    glyphs' widths and text, its names and its descriptor's numbers (a thousand faces of a batch
    read them through pikepdf once each, twice a face)."""

    def __init__(self, font):
        cid = font.DescendantFonts[0]
        descriptor = cid.FontDescriptor
        self.widths = {gid: pdf_number(width) for gid, width in parse_widths(cid.get("/W", Array())).items()}
        self.to_unicode = parse_cmap(font.ToUnicode.read_bytes()) if "/ToUnicode" in font else {}
        self.family = str(descriptor.get("/FontFamily", ""))
        self.base = str(font.BaseFont).split("+", 1)[-1]
        self.weight = _weight(self.base)
        self.group = (self.family.rstrip(",").strip(), self.weight)      # a bundled font's (family, weight)
        self.subtype = Name(str(cid.Subtype))       # (an object of the batch inside a face made it slow to add)
        self.flags = int(descriptor.Flags) & ~FIXED_PITCH
        self.metrics = {name: _plain(descriptor.get(name, 0))
                        for name in ("/ItalicAngle", "/Ascent", "/Descent", "/CapHeight", "/StemV", "/StemH")}

    def glyph(self, gid: int) -> list:
        """[gid, width or null, unicode hex]: what fontmerge needs of a glyph, in a form it reads in
        one call (reading W arrays and CMaps back, a thousand fonts a pack, was the slow part)."""
        return [gid, self.widths.get(gid), self.to_unicode.get(gid, "")]


def canonical_face(page: pikepdf.Page, document: pikepdf.Pdf | Batch) -> bytes:
    """`page` of `document`, as a canonical one-page PDF."""
    batch = document if isinstance(document, Batch) else Batch(document)
    batch.drawn = set()
    out = pikepdf.new()
    content, resources = _canonical_content(page, page.obj.get("/Resources", Dictionary()), out, batch)
    page_dict = Dictionary(Type=Name.Page, MediaBox=_box(page.obj.MediaBox), Resources=resources,
                           Contents=pikepdf.Stream(out, content))
    for box in ("/TrimBox", "/BleedBox"):
        if box in page.obj:
            page_dict[box] = _box(page.obj[box])
    out.pages.append(pikepdf.Page(page_dict))
    for obj in out.objects:        # compressed now as a pack compresses its streams: a pack copies them as they are
        if isinstance(obj, pikepdf.Stream):
            canonical_stream(obj)
    return pdf_bytes(out, **AS_IS)


def _canonical_content(owner, resources, out: pikepdf.Pdf, batch: Batch, depth: int = 0):
    """A content stream and the resources it uses, renamed in order of use; nested forms and
    tiling patterns get the same treatment, so nothing of the batch leaks in."""
    if depth > 8:
        raise ValueError("content nests too deeply")
    scanned = _scan_content(_content_bytes(owner))
    content, names, gids = scanned if scanned is not None else _parse_content(owner)
    new_resources = Dictionary()
    for category, table in names.items():
        if not table:
            continue
        group = Dictionary()
        for old, new in table.items():
            source = resources[category][old]
            if category == "/Font":
                group[new] = out.make_indirect(_canonical_font(out, source, gids[old], batch))
            else:
                group[new] = _copy(source, out, batch, depth)
        new_resources[category] = group
    return content, new_resources


class _Renamer:
    """Resource names in order of first use, per category, and the glyphs shown with each font."""

    def __init__(self):
        self.names: dict[str, dict[str, str]] = {cat: {} for cat in CATEGORIES}
        self.gids: dict[str, set[int]] = {}

    def rename(self, category: str, old: str) -> str:
        table = self.names[category]
        if old not in table:
            table[old] = f"/{CATEGORIES[category]}{len(table) + 1}"
        return table[old]

    def show(self, font: str | None, data: bytes) -> None:
        if font is not None:
            self.gids[font].update(int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data) - 1, 2))


# What an operator's first operand renames; cs/CS (unless a device space) and scn/SCN (their
# last operand, when a name) are handled apart.
_RENAMES = {b"Tf": "/Font", b"gs": "/ExtGState", b"sh": "/Shading", b"Do": "/XObject"}
_SHOW = {op.encode() for op in SHOW}
_DEVICE_SPACES = {space.encode() for space in DEVICE_SPACES}
_UNREAD = {b"BI", b"ID", b"EI", b"true", b"false", b"null"}      # inline images, keywords as operands
_UNREADABLE = frozenset(b"()<>{}%")         # first bytes of literal strings, dictionaries, comments
# The tokens the scan needs: names, hex strings, operators, and anything it does not read (a
# literal string, a dictionary, a comment), matched alone. Numbers and array brackets, most of a
# stream, are stepped over by the search: no operator the scan renames for takes one before a
# name it renames.
_TOKEN = re.compile(rb"/[^\s/\[\]()<>{}%]*|<[0-9A-Fa-f\s]*>|[A-Za-z'\"][^\s/\[\]()<>{}%]*|[()<>{}%]")


def _scan_content(data: bytes):
    """(content, names, gids) by a scan of the stream's own bytes, names replaced where they stand,
    or None when the stream holds what the scan does not read (literal strings, inline images,
    dictionaries, comments, escaped names, keywords as operands): the full parser takes those.
    WeasyPrint's streams are numbers, names, hex strings and operators, and parsing them into
    objects and writing them out again was most of the time spent making a face canonical."""
    state = _Renamer()
    font = None
    operands: list = []
    pieces, done = [], 0
    for match in _TOKEN.finditer(data):
        token = match.group()
        first = token[0]
        if first == 0x2F or (first == 0x3C and len(token) > 1):      # a name or a hex string
            if b"#" in token:
                return None
            operands.append(match)
            continue
        if first in _UNREADABLE or token in _UNREAD:
            return None
        if token in _RENAMES:
            if not operands:                                          # its name is missing
                return None
            category, operand = _RENAMES[token], operands[0]
        elif not operands:                                            # an operator of numbers only
            continue
        elif token in (b"cs", b"CS") and operands[0].group() not in _DEVICE_SPACES:
            category, operand = "/ColorSpace", operands[0]
        elif token in (b"scn", b"SCN") and operands[-1].group()[:1] == b"/":
            category, operand = "/Pattern", operands[-1]
        else:
            if token in _SHOW:
                for item in operands:
                    text = item.group()
                    if text[:1] == b"<":
                        digits = text[1:-1].translate(None, b" \t\r\n\f\0")
                        if len(digits) % 2:
                            return None
                        state.show(font, bytes.fromhex(digits.decode("ascii")))
            operands.clear()
            continue
        old = operand.group()
        if old[:1] != b"/":
            return None
        old = old.decode("latin-1")
        if token == b"Tf":
            font = old
            state.gids.setdefault(old, set())
        pieces += [data[done:operand.start()], state.rename(category, old).encode("latin-1")]
        done = operand.end()
        operands.clear()
    pieces.append(data[done:])
    return b"".join(pieces), state.names, state.gids


def _content_bytes(owner) -> bytes:
    """The bytes of a page's content streams (joined as one), or of a form's."""
    if isinstance(owner, pikepdf.Page):
        contents = owner.obj.get("/Contents")
        if contents is None:
            return b""
        if isinstance(contents, pikepdf.Array):
            return b"\n".join(part.read_bytes() for part in contents)
        return contents.read_bytes()
    return owner.read_bytes()


def _parse_content(owner):
    """(content, names, gids) by pikepdf's parser: any stream the scan does not read."""
    state = _Renamer()
    current = None
    out_ops = []
    for operands, operator in pikepdf.parse_content_stream(owner):
        op = str(operator)
        if op not in INTERESTING:
            out_ops.append((operands, operator))
            continue
        operands = list(operands)
        if op == "Tf":
            current = str(operands[0])
            operands[0] = Name(state.rename("/Font", current))
            state.gids.setdefault(current, set())
        elif op == "gs":
            operands[0] = Name(state.rename("/ExtGState", str(operands[0])))
        elif op in ("cs", "CS") and str(operands[0]) not in DEVICE_SPACES:
            operands[0] = Name(state.rename("/ColorSpace", str(operands[0])))
        elif op in ("scn", "SCN") and operands and isinstance(operands[-1], Name):
            operands[-1] = Name(state.rename("/Pattern", str(operands[-1])))
        elif op == "sh":
            operands[0] = Name(state.rename("/Shading", str(operands[0])))
        elif op == "Do":
            operands[0] = Name(state.rename("/XObject", str(operands[0])))
        elif op in SHOW:
            strings = operands[-1] if op == "TJ" else [operands[-1]]
            for item in strings:
                if isinstance(item, pikepdf.String):
                    state.show(current, bytes(item))
        out_ops.append((operands, operator))
    return pikepdf.unparse_content_stream(out_ops), state.names, state.gids


def _copy(value, out: pikepdf.Pdf, batch: Batch, depth: int, memo: dict | None = None):
    """A resource copied into `out`. Any content stream inside it with resources of its own — a
    form, a tiling pattern, the group of a soft mask — is made canonical too. An object met
    twice is copied once (memo), which also stops any reference cycle."""
    memo = {} if memo is None else memo
    key = value.objgen if isinstance(value, pikepdf.Object) and value.is_indirect else None
    if key is not None and key in memo:
        return memo[key]
    if isinstance(value, pikepdf.Stream):
        if "/Resources" not in value:
            copied = out.copy_foreign(value if value.is_indirect else batch.document.make_indirect(value))
        else:
            if depth > 8:
                raise ValueError("content streams nest too deeply")
            content, resources = _canonical_content(value, value.Resources, out, batch, depth + 1)
            copied = out.make_indirect(pikepdf.Stream(out, content))
            if key is not None:
                memo[key] = copied
            for name, item in value.items():
                if name not in ("/Resources", "/Length", "/Filter", "/DecodeParms"):
                    copied[name] = _copy(item, out, batch, depth, memo)
            copied.Resources = resources
    elif isinstance(value, pikepdf.Dictionary):
        copied = Dictionary()
        if key is not None:
            memo[key] = copied
        for name, item in value.items():
            copied[name] = _copy(item, out, batch, depth, memo)
    elif isinstance(value, pikepdf.Array):
        copied = Array([_copy(item, out, batch, depth, memo) for item in value])
    else:
        return value
    if key is not None:
        memo[key] = copied
    return copied


def _canonical_font(out: pikepdf.Pdf, font, used: set[int], batch: Batch) -> Dictionary:
    """A Type0 font standing for the bundled font it names (/PnpFont), with the glyphs `used`: their
    ids, widths and text (/PnpGlyphs), its descriptor, and no program. Every face's font is merged
    into the pack's own (fontmerge.py) from those alone, so it carries no widths array or ToUnicode
    map of its own: making them was a third of making a face canonical."""
    source = batch.font(font)
    batch.drawn.add(source.group)
    glyphs = sorted(used)
    widths = source.widths
    metrics = source.metrics
    widest = max((widths[g] for g in glyphs if g in widths), default=0)
    descriptor = Dictionary(
        Type=Name.FontDescriptor, FontName=Name("/" + source.base), FontFamily=pikepdf.String(source.family),
        Flags=source.flags, ItalicAngle=metrics["/ItalicAngle"], Ascent=metrics["/Ascent"],
        Descent=metrics["/Descent"], CapHeight=metrics["/CapHeight"], StemV=metrics["/StemV"],
        StemH=metrics["/StemH"], FontBBox=Array([0, metrics["/Descent"], widest, metrics["/Ascent"]]))
    descendant = Dictionary(
        Type=Name.Font, Subtype=source.subtype, BaseFont=Name("/" + source.base),
        CIDSystemInfo=Dictionary(Registry=pikepdf.String("Adobe"), Ordering=pikepdf.String("Identity"), Supplement=0),
        CIDToGIDMap=Name.Identity, FontDescriptor=descriptor)
    return Dictionary(
        Type=Name.Font, Subtype=Name.Type0, BaseFont=Name("/" + source.base), Encoding=Name("/Identity-H"),
        DescendantFonts=Array([descendant]), PnpFont=Array([pikepdf.String(source.family), source.weight]),
        PnpGlyphs=pikepdf.String(orjson.dumps([source.glyph(g) for g in glyphs])))


def _box(array) -> Array:
    return Array([_plain(v) for v in array])


def _plain(value):
    """A number from the source document, as a plain Python number for the new one."""
    return pdf_number(float(value))


def _weight(name: str) -> int:
    """The weight WeasyPrint's font name spells out (pango style words)."""
    words = {"Thin": 100, "Light": 300, "Medium": 500, "Semi-Bold": 600, "Bold": 700, "Heavy": 900, "Black": 900}
    for word, weight in words.items():
        if name.endswith("-" + word):
            return weight
    return 400


def pdf_number(value: float):
    """A number as a face's glyph list and a pack's widths write it: an integer when whole, else
    three decimals."""
    return int(value) if float(value).is_integer() else round(value, 3)
