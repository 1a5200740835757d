"""Place rendered pages onto sheets of paper with pikepdf.

Each card face or piece page becomes a form XObject, drawn at its slot and clipped
to the bleed the sheet prints. Back sheets put each card's back at the mirror image
of its front's slot (a long-edge flip turns the sheet over its vertical axis).
Resource names are made here, in order, so the same input gives the same bytes.
"""
from __future__ import annotations

import orjson
import pikepdf
from pikepdf import Array, Dictionary, Name

from generator.geometry import CardGrid, Mark, Rect, operand, pt
from generator.render.fontmerge import GlyphUnion, placeholder_key, placeholders

MARK_WIDTH = 0.3  # pt: a hairline that still prints on every printer


def segment(mark: Mark, page_height: float) -> str:
    """A straight line (a crop mark, a fold) stroked on a sheet `page_height` mm high."""
    return (f"{operand(pt(mark.x1))} {operand(pt(page_height - mark.y1))} m "
            f"{operand(pt(mark.x2))} {operand(pt(page_height - mark.y2))} l S")


# Keys whose values the PDF format makes arrays of numbers (or names), never a stream: not walked.
# A font's widths are nine in ten of the array items under a placed face (its stand-in font's /W).
NUMBERS = frozenset({"/W", "/W2", "/Widths", "/BBox", "/FontBBox", "/Matrix", "/Domain", "/Range", "/Encode",
                     "/Decode", "/Bounds", "/C0", "/C1", "/Coords", "/ProcSet"})


def streams_under(roots, skip=("/Parent",)):
    """Every stream reachable from `roots`, once each, not following the keys in `skip`."""
    seen: set = set()
    stack = list(roots)
    while stack:
        obj = stack.pop()
        if isinstance(obj, (pikepdf.Dictionary, pikepdf.Stream)):
            if obj.is_indirect:
                if obj.objgen in seen:
                    continue
                seen.add(obj.objgen)
            if isinstance(obj, pikepdf.Stream):
                yield obj
            stack += [value for key, value in obj.items() if key not in skip and key not in NUMBERS]
        elif isinstance(obj, pikepdf.Array):
            stack += list(obj)


def _own_streams(obj) -> list[tuple[int, int]]:
    """Copy into this PDF the bytes of every stream of an imported page, as they are (qpdf would
    otherwise read them from the source PDF only when the pack is saved, so every source PDF
    stayed open, and in memory, until then); the streams copied, by object."""
    owned = []
    for stream in streams_under([obj]):
        stream.write(stream.read_raw_bytes(), filter=stream.get("/Filter"), decode_parms=stream.get("/DecodeParms"))
        owned.append(stream.objgen)
    return owned


def _compressed_contents(page: pikepdf.Page) -> bytes | None:
    """A page's content as its one Flate-compressed stream holds it, if it is one: a form made of
    the page draws exactly that (qpdf makes a form's content of the page's decoded)."""
    contents = page.obj.get("/Contents")
    if isinstance(contents, pikepdf.Stream) and contents.get("/Filter") == Name.FlateDecode \
            and "/DecodeParms" not in contents:
        return contents.read_raw_bytes()
    return None


def slot_label(deck_id: str, card, side: str) -> str:
    """What a placed face's /PnpId says it is: the card for a face; for a back, its deck's back
    (one back design serves every card of the deck, so its form is placed for them all)."""
    return card.uid if side == "face" else f"{deck_id} back"


class Imposer:
    """Adds sheets to one output PDF, importing each source page once.

    A face's placeholder fonts (render/canonical.py: its glyphs with their widths and text, no program)
    are not copied with it: every face imported here points at one stand-in per bundled font,
    and the glyphs they draw are united in memory. Copied, they were nine in ten of a pack's
    objects until the merge (render/fontmerge.py) replaced them, 50 KB a face in memory."""

    def __init__(self, out: pikepdf.Pdf):
        self.out = out
        self._forms: dict[tuple[str, str], pikepdf.Object] = {}     # (key, label) -> its form here
        self._stand_ins: dict[tuple, pikepdf.Object] = {}     # bundled font -> its placeholder here
        self._glyphs: dict[tuple, GlyphUnion] = {}
        self.canonical: set[tuple[int, int]] = set()        # streams copied from faces (render/canonical.py)

    def form(self, key: str, page: pikepdf.Page, bleed: float = 0.0, label: str = "") -> pikepdf.Object:
        """The page as a form XObject in this PDF, once per key and label. The form records which
        card it is (/PnpId) and where its trim lies inside it (/PnpTrim), so a preflight can measure
        the printed trim from the finished file; two cards that look alike (or decks that share a
        back) get a form each, each naming its own."""
        ident = (key, label)
        if ident not in self._forms:
            source = page.as_form_xobject()
            content = _compressed_contents(page)
            if content is not None:     # as the face holds them: copied, not decoded and compressed again
                source.write(content, filter=Name.FlateDecode)
            detached = self._detach_fonts(source)
            try:
                form = self.out.copy_foreign(source)
            finally:
                for fonts, name, font in detached:      # the source as it was: it may be placed again
                    fonts[name] = font
            # before the stand-ins go in (they are owned once, when made); a face's streams are canonical
            owned = _own_streams(form)
            self.canonical.update(owned if content is not None else set(owned) - {form.objgen})
            for fonts, name, marker in list(placeholders(form.get("/Resources"), "/PnpStandIn")):
                fonts[name] = self._stand_ins[str(marker.PnpStandIn[0]), int(marker.PnpStandIn[1])]
            release = getattr(page, "release", None)      # a rendered face (render/cards.py) may close now
            if callable(release):
                release()
            x0, y0, x1, y1 = (float(v) for v in form.BBox)
            b = pt(bleed)
            form.PnpTrim = Array([x0 + b, y0 + b, x1 - b, y1 - b])
            form.PnpId = pikepdf.String(label)
            self._forms[ident] = form
        return self._forms[ident]

    def _detach_fonts(self, source) -> list[tuple]:
        """Swap each placeholder font of a source form for a marker naming its bundled font, noting
        its glyphs (and making the stand-in of a font first seen); the swapped entries, to put back."""
        detached = []
        for fonts, name, font in list(placeholders(source.get("/Resources"))):
            if not font.is_indirect:
                continue
            group = placeholder_key(font)
            if group not in self._stand_ins:
                self._stand_ins[group] = self.out.copy_foreign(font)
                _own_streams(self._stand_ins[group])
            self._glyphs.setdefault(group, GlyphUnion()).add(orjson.loads(bytes(font.PnpGlyphs)))
            fonts[name] = Dictionary(PnpStandIn=Array([pikepdf.String(group[0]), group[1]]))
            detached.append((fonts, name, font))
        return detached

    def settle_fonts(self) -> None:
        """Give each stand-in the glyphs of every face that points at it: call before merge_fonts."""
        for group, font in self._stand_ins.items():
            font.PnpGlyphs = pikepdf.String(self._glyphs[group].json())

    def whole_pages(self, key: str, count: int, make) -> None:
        """`count` pages that make() appends to the output as they are (a board run's drawing, a
        rulebook's sheets), named together by `key` (sheets/sheet_cache.py keeps them by it)."""
        make()

    def new_page(self, size: tuple[float, float]) -> pikepdf.Page:
        w, h = size
        page = pikepdf.Page(Dictionary(Type=Name.Page, MediaBox=Array([0, 0, pt(w), pt(h)]),
                                       Resources=Dictionary(XObject=Dictionary())))
        self.out.pages.append(page)
        return self.out.pages[-1]

    def place(self, page: pikepdf.Page, placements: list[tuple[str, pikepdf.Page, Rect, Rect, float, str]],
              marks: tuple[Mark, ...] = (), page_size: tuple[float, float] = (0, 0),
              rotations: list[int] | None = None, fold: Mark | None = None) -> None:
        """placements: (key, source page, where its trim goes, clip rect, bleed of the source, label).

        The source page is (trim + 2 × bleed) in size; its trim lands on the given rect."""
        _, ph = page_size
        xobjects = page.Resources.XObject
        ops = []
        for index, (key, source, trim, clip, bleed, label) in enumerate(placements):
            name = f"/P{index}"
            xobjects[name] = self.form(key, source, bleed, label)
            cx, cy = pt(clip.x), pt(ph - clip.y - clip.h)
            x0, y0 = pt(trim.x - bleed), pt(ph - trim.y - trim.h - bleed)
            rotate = rotations[index] if rotations else 0
            if rotate == 180:   # short-edge duplex backs turn upside down
                sw, sh = pt(trim.w + 2 * bleed), pt(trim.h + 2 * bleed)
                matrix = f"-1 0 0 -1 {operand(x0 + sw)} {operand(y0 + sh)}"
            else:
                matrix = f"1 0 0 1 {operand(x0)} {operand(y0)}"
            ops.append(f"q {operand(cx)} {operand(cy)} {operand(pt(clip.w))} {operand(pt(clip.h))} re W n "
                       f"{matrix} cm {name} Do Q")
        if marks:
            ops.append(f"q {MARK_WIDTH} w 0 0 0 RG 0 J")
            for m in marks:
                ops.append(segment(m, ph))
            ops.append("Q")
        if fold:   # a dashed grey fold line, drawn as a series of short strokes
            ops.append("q 0.5 w 0.45 0.45 0.45 RG [3 2] 0 d")
            ops.append(segment(fold, ph) + " Q")
        self._append_content(page, "\n".join(ops))

    def append_content(self, page: pikepdf.Page, text: str) -> None:
        """Draw more on a sheet (registration marks) after its placements."""
        self._append_content(page, text)

    def _append_content(self, page: pikepdf.Page, text: str) -> None:
        stream = pikepdf.Stream(self.out, text.encode("ascii"))
        if "/Contents" in page:
            contents = page.Contents
            if isinstance(contents, pikepdf.Array):
                contents.append(stream)
            else:
                page.Contents = Array([contents, stream])
        else:
            page.Contents = stream


def back_slot_index(grid: CardGrid, front_index: int) -> int:
    """Which slot of the back sheet lies behind a front slot, for a long-edge flip."""
    slot = grid.slots[front_index]
    return slot.row * grid.cols + (grid.cols - 1 - slot.col)
