"""One font program per bundled font in a pack.

Cached card faces carry their fonts without programs (render/canonical.py), naming the
bundled font and the glyph ids they draw. Here every face's font of the same bundled font
becomes one Type0 font: widths and ToUnicode united, and one program subset from the file
in fonts/ to the union of glyphs — keeping glyph ids, which WeasyPrint also keeps, so no
content stream changes. The result depends only on the pack's faces, not on how or when
they were rendered.
"""
from __future__ import annotations

import hashlib
import json
import re
import string
from pathlib import Path

import orjson
import pikepdf
import uharfbuzz as hb
from pikepdf import Array, Dictionary, Name

from generator.source.assets import Assets
from generator.pdfbytes import TooDeep, canonical_bytes
from generator.render.canonical import pdf_number


def merge_fonts(pdf: pikepdf.Pdf, assets: Assets) -> None:
    groups: dict[tuple[str, int], dict] = {}      # by the bundled font: one subset each
    users = []           # (resource dictionary, name, font) to repoint
    for obj in pdf.objects:          # faces, and the forms and patterns nested in them
        if isinstance(obj, (pikepdf.Stream, pikepdf.Dictionary)) and "/Resources" in obj:
            fonts = obj.Resources.get("/Font", {})
            for name, font in fonts.items():
                if "/PnpFont" in font:
                    key = placeholder_key(font)
                    groups.setdefault(key, {}).setdefault(font.objgen if font.is_indirect else id(font), font)
                    users.append((fonts, name, key))
    merged = {key: _merge(pdf, assets, key, list(fonts.values())) for key, fonts in sorted(groups.items())}
    for fonts, name, key in users:
        fonts[name] = merged[key]
    tidy_fonts(pdf)


def placeholders(resources, mark: str = "/PnpFont", depth: int = 0):
    """(font dictionary, name, font) of every placeholder font (render/canonical.py) in a face's
    resources, through its nested forms and patterns; with `mark`, of every font entry holding
    that key instead."""
    if resources is None or depth > 8:
        return
    fonts = resources.get("/Font", {})
    for name, font in fonts.items():
        if mark in font:
            yield fonts, name, font
    for kind in ("/XObject", "/Pattern"):
        for inner in resources.get(kind, {}).values():
            if isinstance(inner, (pikepdf.Stream, pikepdf.Dictionary)) and "/Resources" in inner:
                yield from placeholders(inner.Resources, mark, depth + 1)


class GlyphUnion:
    """The glyphs of one bundled font that many faces draw, as _merge unites them: each glyph's
    width (the last known) and text (the first)."""

    def __init__(self):
        self.gids: set[int] = set()
        self.widths: dict[int, float] = {}
        self.text: dict[int, str] = {}

    def add(self, entries) -> None:
        for gid, width, text in entries:
            self.gids.add(gid)
            if width is not None:
                self.widths[gid] = width
            if text:
                self.text.setdefault(gid, text)

    def json(self) -> bytes:
        """As a placeholder's /PnpGlyphs: [[gid, width, text]]."""
        return json.dumps([[g, self.widths.get(g), self.text.get(g)] for g in sorted(self.gids)],
                          ensure_ascii=False).encode()


# --- font hygiene: what preflight tools flag ------------------------------------------------------

SUBSET = re.compile(r"^[A-Z]{6}\+")
CLEAN_NAME = re.compile(r"^([A-Z]{6}\+)?[A-Za-z0-9-]+$")


def clean_base(name: str) -> str:
    """A font's name without its subset tag, slash or stray punctuation (WeasyPrint may write
    `/Noto-Sans-SC` or `Noto-Sans-Symbols-2,`)."""
    base = SUBSET.sub("", str(name).lstrip("/"))
    return re.sub(r"[^A-Za-z0-9-]", "", base) or "Font"


def tidy_fonts(pdf: pikepdf.Pdf, pages: list | None = None, fonts: list = ()) -> None:
    """Every font resource embedded and used, every subset tag its own, every name clean:
    reportlab lists Helvetica on each canvas though no glyph is drawn with it (it opens every
    drawing, an icon's form too, with an empty `BT /F1 10 Tf … ET`), and tags its subsets AAAAAA+
    in every document, so two boards' different subsets shared a tag.

    Font names are local to a resource dictionary (a WeasyPrint card's /F1 is not a board's
    /F1), and a form without resources of its own uses its page's: so the page tree is walked
    and each font dictionary keeps the unembedded fonts its own users still select.

    `pages` (page objects) and `fonts` limit the work to what a pack built on its last build
    (sheets/sheet_cache.py) made anew: the pages it kept are tidy already."""
    usage: dict = {}                 # owner of a /Font dictionary -> (that dictionary, names selected)
    seen: set = set()

    def visit(owner, inherited) -> None:
        resources = owner.get("/Resources")
        resources = resources if isinstance(resources, pikepdf.Dictionary) else None
        fonts = resources.get("/Font") if resources is not None else None
        here = (owner.objgen, fonts) if isinstance(fonts, pikepdf.Dictionary) else inherited[0]
        if here is not None:
            key, font_dict = here
            unembedded = {n for n, f in font_dict.items() if _program(f) is None}
            used = usage.setdefault(key, (font_dict, set()))[1]
            if unembedded:      # what a stream selects matters only for those (a card's are all embedded)
                _drop_empty_text(pdf, owner, unembedded)
                used.update(_fonts_named(owner))
        xobjects = (resources if resources is not None else inherited[1] or {}).get("/XObject", {})
        for form in xobjects.values():
            if isinstance(form, pikepdf.Stream) and form.get("/Subtype") == "/Form" \
                    and (form.objgen, here and here[0]) not in seen:
                seen.add((form.objgen, here and here[0]))
                visit(form, (here, resources if resources is not None else inherited[1]))

    for page in (pages if pages is not None else [p.obj for p in pdf.pages]):
        visit(page, (None, None))
    for font_dict, used in usage.values():
        for name in [n for n, f in font_dict.items() if _program(f) is None and n not in used]:
            del font_dict[name]
    if pages is None:
        every = _every_font(pdf)
        _retag_all(pdf, every)
        _share_alike(pdf, every)
    else:
        _retag_all(pdf, _fonts_of(usage, fonts))


def _fonts_of(usage: dict, extra) -> list:
    """The font objects the visited resources list, with their descendants, and `extra`."""
    found = {}
    for font in [f for font_dict, _ in usage.values() for f in font_dict.values()] + list(extra):
        found.setdefault(font.objgen if font.is_indirect else id(font), font)
        for inner in font.get("/DescendantFonts", []):
            found.setdefault(inner.objgen, inner)
    return list(found.values())


def _retag_all(pdf: pikepdf.Pdf, fonts: list) -> None:
    """Every font named by its program. The Type0 fonts that wrap a descendant are found in one
    pass over the fonts (a search per font made a 450-card pack take seconds)."""
    parents: dict = {}
    for font in fonts:
        if "/DescendantFonts" in font:
            parents.setdefault(font.DescendantFonts[0].objgen, []).append(font)
    done = set()
    for obj in fonts:
        if "/BaseFont" in obj and obj.objgen not in done and "/DescendantFonts" not in obj:
            done.add(obj.objgen)
            _retag(obj, parents.get(obj.objgen, []) if obj.is_indirect else [])


def _retag(font, parents) -> None:
    """Name a font by its program: the same subset gets the same tag in any build, two
    different subsets two tags."""
    program = _program(font)
    base = clean_base(font.BaseFont)
    if program is None:
        name = Name("/" + base)
    else:
        name = Name(f"/{_tag(base, program.read_bytes())}+{base}")
        font.FontDescriptor.FontName = name
    font.BaseFont = name
    for parent in parents:
        parent.BaseFont = name


def share_alike(pdf: pikepdf.Pdf) -> None:
    """_share_alike over every font of the PDF: a pack built on its last file with a board or
    rulebook page drawn anew, whose fonts a cold build shares with the kept pages'."""
    _share_alike(pdf, _every_font(pdf))


def _every_font(pdf: pikepdf.Pdf) -> list:
    return [obj for obj in pdf.objects if isinstance(obj, pikepdf.Dictionary) and obj.get("/Type") == "/Font"]


def _share_alike(pdf: pikepdf.Pdf, fonts: list) -> None:
    """reportlab's simple fonts that are alike to the byte become one object: each board copy is drawn
    alone (render/pieces.py), and copies that print the same words (a record board for each player)
    carry the same subset, which the file would otherwise hold once per copy."""
    named: dict[str, list] = {}      # (a subset's name is its program's tag: only fonts named alike can be)
    for font in fonts:
        if font.is_indirect and font.get("/Subtype") == "/TrueType" and _program(font) is not None:
            named.setdefault(str(font.BaseFont), []).append(font)
    alike: dict[tuple[int, int], pikepdf.Object] = {}
    for group in (g for g in named.values() if len(g) > 1):
        first: dict[bytes, pikepdf.Object] = {}
        for font in group:
            try:
                kept = first.setdefault(canonical_bytes(font), font)
            except TooDeep:        # (a font is a few levels deep; one that is not stays its own)
                continue
            if kept is not font:
                alike[font.objgen] = kept
    if not alike:
        return
    for obj in pdf.objects:
        if isinstance(obj, (pikepdf.Stream, pikepdf.Dictionary)) and "/Resources" in obj:
            font_dict = obj.Resources.get("/Font")
            for name, font in list(font_dict.items()) if isinstance(font_dict, pikepdf.Dictionary) else ():
                if font.is_indirect and font.objgen in alike:
                    font_dict[name] = alike[font.objgen]


def _program(font):
    descendant = font.DescendantFonts[0] if "/DescendantFonts" in font else font
    descriptor = descendant.get("/FontDescriptor")
    if descriptor is None:
        return None
    return next((descriptor[k] for k in ("/FontFile2", "/FontFile3", "/FontFile") if k in descriptor), None)


SHOWS = {"Tj", "TJ", "'", '"'}


def _drop_empty_text(pdf: pikepdf.Pdf, owner, fonts: set[str]) -> None:
    """Remove text objects that select one of `fonts` but show no glyph: they draw nothing, and
    only keep an unembedded font listed. `owner`: a page's dictionary or a form."""
    is_form = isinstance(owner, pikepdf.Stream)
    try:
        ops = pikepdf.parse_content_stream(owner if is_form else pikepdf.Page(owner))
    except pikepdf.PdfError:
        return
    kept, block, changed = [], None, False
    for operands, op in ops:
        name = str(op)
        if name == "BT":
            block = [(operands, op)]
            continue
        if block is not None:
            block.append((operands, op))
            if name == "ET":
                selects = {str(o[0]) for o, x in block if str(x) == "Tf"}
                shows = any(str(x) in SHOWS for _, x in block)
                if not shows and selects and selects <= fonts:
                    changed = True
                else:
                    kept += block
                block = None
            continue
        kept.append((operands, op))
    if block is not None:
        kept += block
    if not changed:
        return
    data = pikepdf.unparse_content_stream(kept)
    if is_form:
        owner.write(data)
    else:
        owner.Contents = pdf.make_stream(data)


def _fonts_named(owner) -> set[str]:
    """The resource names a page or form selects with Tf."""
    try:
        return {str(operands[0]) for operands, _ in pikepdf.parse_content_stream(owner, "Tf")}
    except pikepdf.PdfError:
        return set()


def placeholder_key(font) -> tuple[str, int]:
    """The bundled font (family, weight) a face's placeholder font stands for."""
    return str(font.PnpFont[0]).rstrip(",").strip(), int(font.PnpFont[1])


def _merge(pdf: pikepdf.Pdf, assets: Assets, key: tuple[str, int], fonts: list) -> pikepdf.Object:
    gids, widths, unicode = set(), {}, {}
    for font in fonts:
        for gid, width, text in orjson.loads(bytes(font.PnpGlyphs)):
            gids.add(gid)
            if width is not None:
                widths[gid] = width
            if text:
                unicode.setdefault(gid, text)
    return merged_font(pdf, assets, key, fonts[0], gids, widths, unicode)


def merged_font(pdf: pikepdf.Pdf, assets: Assets, key: tuple[str, int], first, gids: set[int], widths: dict,
                unicode: dict) -> pikepdf.Object:
    """The pack's Type0 font for these glyphs; `first` is a font of the same bundled font to take
    the descriptor from (a face's placeholder, or the pack's merged font of an earlier build)."""
    family, weight = key
    source = assets.font_file(family, weight)
    tag = _tag(source.name, gids)
    base = clean_base(first.BaseFont)
    old = first.DescendantFonts[0].FontDescriptor
    descriptor = Dictionary({k: old[k] for k in old.keys() if k != "/FontBBox"})
    descriptor.FontName = Name(f"/{tag}+{base}")
    descriptor.FontBBox = Array([0, old.Descent, max(widths.values(), default=0), old.Ascent])
    descriptor.FontFile2 = pikepdf.Stream(pdf, _subset(source, gids))
    descendant = Dictionary({k: v for k, v in first.DescendantFonts[0].items()})
    descendant.BaseFont = Name(f"/{tag}+{base}")
    descendant.W = build_widths(widths)
    descendant.FontDescriptor = pdf.make_indirect(descriptor)
    return pdf.make_indirect(Dictionary(
        Type=Name.Font, Subtype=Name.Type0, BaseFont=Name(f"/{tag}+{base}"), Encoding=Name("/Identity-H"),
        DescendantFonts=Array([pdf.make_indirect(descendant)]), ToUnicode=pikepdf.Stream(pdf, build_cmap(unicode))))


def build_widths(widths: dict[int, float]) -> Array:
    """A W array: each run of consecutive glyphs as `first [w1 w2 …]` (built as lists, then
    made a PDF array in one call)."""
    array, run, previous = [], None, None
    for gid in sorted(widths):
        if run is None or gid != previous + 1:
            run = []
            array += [gid, run]
        run.append(pdf_number(widths[gid]))
        previous = gid
    return Array(array)


def build_cmap(mapping: dict[int, str]) -> bytes:
    lines = ["/CIDInit /ProcSet findresource begin", "12 dict begin", "begincmap",
             "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def",
             "/CMapName /Adobe-Identity-UCS def", "/CMapType 2 def",
             "1 begincodespacerange", "<0000> <FFFF>", "endcodespacerange"]
    items = sorted(mapping.items())
    for start in range(0, len(items), 100):
        chunk = items[start:start + 100]
        lines.append(f"{len(chunk)} beginbfchar")
        lines += [f"<{gid:04X}> <{dst}>" for gid, dst in chunk]
        lines.append("endbfchar")
    lines += ["endcmap", "CMapName currentdict /CMap defineresource pop", "end", "end"]
    return "\n".join(lines).encode("ascii")


# Layout tables are for shaping, done already; the PDF only draws glyphs by id.
DROPPED_TABLES = ("GSUB", "GPOS", "GDEF", "BASE", "STAT", "DSIG", "vhea", "vmtx", "VORG")


def _subset(path: Path, gids: set[int]) -> bytes:
    """The font at path cut down to gids, keeping glyph ids (HarfBuzz's subsetter: a
    millisecond where fontTools takes a fifth of a second for a CJK font)."""
    face = hb.Face(hb.Blob.from_file_path(str(path)))
    wanted = hb.SubsetInput()
    wanted.sets(hb.SubsetInputSets.GLYPH_INDEX).update(gids | {0})
    wanted.flags = hb.SubsetFlags.RETAIN_GIDS | hb.SubsetFlags.NO_HINTING
    drop = wanted.sets(hb.SubsetInputSets.DROP_TABLE_TAG)
    for tag in DROPPED_TABLES:
        drop.add(int.from_bytes(tag.encode("ascii"), "big"))
    result = hb.subset(face, wanted)
    if result is None:
        raise ValueError(f"HarfBuzz could not subset {path.name}")
    return bytes(result.blob.data)


def _tag(name: str, content) -> str:
    """Six capital letters naming this subset (PDF subset fonts carry such a tag)."""
    data = content if isinstance(content, bytes) else ",".join(map(str, sorted(content))).encode()
    digest = hashlib.sha256(name.encode() + data).digest()
    return "".join(string.ascii_uppercase[b % 26] for b in digest[:6])
