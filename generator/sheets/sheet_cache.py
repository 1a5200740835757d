"""Reusing the pages of the last build of a pack: a change costs what it changes.

A card sheet is decided by what its imposer is asked to place: the face keys in its slots
(the face cache's keys, whatever went into them), where each lands and is clipped, the card's
bleed and label, the crop marks, the page size, rotations and fold line. Its sheet key is a
hash of exactly that. A board run's drawing (sheets/piece_sheets.py, `_drawing_key`: its
sheets' layout and the bytes of every copy placed and of its frame) and a rulebook's sheets (the
laid-out pages' store key, the imposition) are keyed as a whole, a key per page: their pages
carry their own fonts, and one drawing's pages share its forms. After a pack is written, a record beside the face
cache (build/.cache/sheets/<game>/<pack file>.json) keeps, for that very file (by its hash):
the key of every body page and the face key and label of every slot of a card sheet, the glyphs
each face draws with each bundled font (as JSON text: read only for a face that comes or goes, as
a face key names what it draws) and how many faces draw each glyph, so the glyphs the next
pack draws are the last pack's, less those of the faces it dropped, plus those of its new ones.

The next build of the same pack, paper and options opens the previous file and keeps every
page whose key is unchanged; only the other sheets are imposed or drawn (faces opened from
the face cache), page 1 is made again, and a font's subset is re-made only when the set of
glyphs the pack draws with it changed (in place, so the kept pages keep pointing at it). The
result is the object graph a cold build makes, and such packs are saved with every stream
compressed afresh and without object streams (qpdf fills those in the order objects were made
in memory), so incremental, cached and cold builds are byte-identical (tests/test_sheet_cache.py).
What this cannot reproduce exactly builds cold: tuck boxes, a reprint, a draft, cutter sheets, a
font new to the pack, a glyph two faces map to different text or whose text changed. A record
that does not fit the file it names (a form missing, or another card's, where it says) builds
cold too. Kept board and rulebook pages are not compared with the record: a pack built on its
last file is preflighted like any other, and one that preflight refuses is built whole
(sheets/kit.py, Gathered.write).
"""
from __future__ import annotations

import collections
import hashlib
import shutil
import zlib
from pathlib import Path
from typing import NamedTuple

import orjson
import pikepdf
from pikepdf import Array, Dictionary, Name

from generator.atomic import read_record, write_record
from generator.filehash import file_hash
from generator.pdfbytes import canonical_stream, open_pdf
from generator.render.fontmerge import merged_font, placeholder_key, placeholders
from generator.geometry import Mark, Rect, pt
from generator.fingerprint import engine_fingerprint
from generator.sheets.impose import Imposer, streams_under

VERSION = 5       # 2: every stream compressed by pnp, saved as it is (compress_streams); 3: slots' labels;
                  # 4: each face's glyphs as JSON text, and how many faces draw each glyph;
                  # 5: page 1's cache key and a hash of the bookmarks and document information


class Record(NamedTuple):
    """What a pack just made leaves for the next build of its file to build on: the file's name,
    the context it was made in (context_key), its count of page-1 pages and its sheets' record
    (SheetRecorder.record_data)."""
    name: str
    context: str
    info_pages: int
    data: dict

    @classmethod
    def stored(cls, value, name: str, context: str) -> "Record | None":
        """The record a stored pack's entry holds (as JSON: a list), if it is this file's, made in
        this context and whole; else None."""
        if not (isinstance(value, list) and len(value) == 4 and value[:2] == [name, context]
                and isinstance(value[3], dict)):
            return None
        record = cls(*value)
        return record if well_formed({**record.data, "info_pages": record.info_pages}) else None


class Fallback(Exception):
    """The previous pack cannot be reused exactly: build it cold."""


def context_key(name: str, options, fonts=()) -> str:
    """Everything besides the sheets that decides the pack's bytes: its file name (game, pack,
    paper, options suffix), every print option, this engine's sources, the libraries that write
    and compress it (the faces' own engine is in their keys; page 1 is made again every time),
    and the hashes of the bundled font files, whose subsets a kept pack embeds: a font changed
    with the same glyphs drawn would otherwise keep its old subset."""
    digest = hashlib.sha256(f"{VERSION}|{engine_fingerprint()}|{name}|{options!r}|"
                            f"zlib {zlib.ZLIB_RUNTIME_VERSION}".encode())
    for path in fonts:
        digest.update(f"\0{file_hash(path)}".encode())
    return digest.hexdigest()


def sheet_key(placements, marks, page_size, rotations, fold) -> str:
    """A hash of what the imposer draws: each slot's face, label and geometry, the marks, page
    size, rotations and fold. Geometry is hashed as the repr of tuples of floats, which is
    exact."""
    digest = hashlib.sha256(repr((tuple(page_size), tuple(rotations or ()), fold and _mark(fold))).encode())
    digest.update(repr([_mark(m) for m in marks]).encode())
    for key, _, trim, clip, bleed, label in placements:
        digest.update(f"\n{key} {_rect(trim)!r} {_rect(clip)!r} {bleed!r} {label!r}".encode())
    return digest.hexdigest()[:32]


def _rect(r: Rect) -> tuple:
    return ("R", r.x, r.y, r.w, r.h)


def _mark(m: Mark) -> tuple:
    return ("M", m.x1, m.y1, m.x2, m.y2)


def _group(font) -> str:
    """A placeholder's bundled font as the record names it: "family|weight"."""
    family, weight = placeholder_key(font)
    return f"{family}|{weight}"


def _slots(placements) -> list[list[str]]:
    """[face key, label] of each slot, as the record keeps them."""
    return [[p[0], p[5]] for p in placements]


def face_glyphs(resources) -> dict:
    """{"family|weight": [[gid, width, text], ...]} a cached face draws."""
    out: dict = {}
    for _, _, font in placeholders(resources):
        out.setdefault(_group(font), []).extend(orjson.loads(bytes(font.PnpGlyphs)))
    return out


class SheetRecorder(Imposer):
    """The imposer of a cold build, noting each sheet's key and each face's glyphs for the record."""

    def __init__(self, out: pikepdf.Pdf):
        super().__init__(out)
        self.sheets: list[list] = []           # [sheet key, [[face key, label]]] per card sheet, in page order
        self.glyphs: dict[str, dict | str] = {}   # face key -> {group: [gids]} (or as the record's JSON text)
        self.imported: list[tuple] = []        # (face key, label) of each form imported into out here
        self.known: dict = {}                  # the glyph map of the previous build (SheetReuser)
        self.conflicts: set[str] = set()
        self._glyph_map: dict | None = None    # the known glyph map and the imported faces' glyphs
        self._glyph_conflicts: set[str] = set()
        self.fonts: dict = {}                  # group -> the pack's font object (named when recorded)
        self._union: dict | None = None
        self._counts: dict | None = None       # {group: {gid: how many of the pack's faces draw it}}

    def form(self, key, page, bleed=0.0, label=""):
        if (key, label) not in self._forms:
            if key not in self.glyphs:
                entries = face_glyphs(page.Resources)
                self._note_glyphs(entries)
                self.glyphs[key] = {g: sorted({e[0] for e in items}) for g, items in entries.items()}
            self.imported.append((key, label))
        return super().form(key, page, bleed, label)

    def glyph_map(self) -> tuple[dict, set]:
        """{group: {gid: [width, text]}}: the known map with every imported face's glyphs added,
        and the groups where two faces disagree about a glyph (the cold merge keeps the first
        text, so order would matter). Kept up as faces are imported: a list of every face's
        glyphs until the end was most of a 10,000-card build's memory besides the pack."""
        if self._glyph_map is None:
            self._glyph_map = {g: {int(k): v for k, v in m.items()} for g, m in self.known.items()}
        return self._glyph_map, self._glyph_conflicts

    def _note_glyphs(self, entries: dict) -> None:
        table, conflicts = self.glyph_map()
        for group, items in entries.items():
            glyphs = table.setdefault(group, {})
            for gid, width, text in items:
                have = glyphs.get(gid)
                if have is None:
                    glyphs[gid] = [width, text]
                    continue
                if width is not None and have[0] is not None and width != have[0]:
                    conflicts.add(group)
                if text and have[1] and text != have[1]:
                    conflicts.add(group)
                glyphs[gid] = [have[0] if width is None else width, have[1] or text]

    def place(self, page, placements, marks=(), page_size=(0, 0), rotations=None, fold=None) -> None:
        slots = _slots(placements)
        self.sheets.append([sheet_key(placements, marks, page_size, rotations, fold), slots])
        super().place(page, placements, marks, page_size, rotations, fold)

    def whole_pages(self, key, count, make) -> None:
        before = len(self.out.pages)
        make()
        if len(self.out.pages) - before != count:       # (a drawing is checked whole where it is made)
            raise ValueError(f"{key}: {len(self.out.pages) - before} pages made, {count} expected")
        self.sheets += [[f"{key}/{i}", []] for i in range(count)]

    def placeholders(self) -> dict:
        """One (font dictionary, name) per group among the imported faces, before the merge."""
        seen: dict = {}
        for ident in self.imported:
            for fonts, name, font in placeholders(self._forms[ident].get("/Resources")):
                seen.setdefault(_group(font), (fonts, name))
            if len(seen) == len(self._stand_ins):       # every group found: the rest is the same walk
                break
        return seen

    def note_fonts(self, placeholders: dict) -> None:
        """After the merge: each group's font in the pack, to find it by its final name next time."""
        self.fonts.update({g: fonts[name] for g, (fonts, name) in placeholders.items()})

    def glyph_union(self) -> dict[str, set]:
        """{group: the glyph ids the pack's faces draw}, once every sheet is placed (worked out
        once: the merge and the record both ask)."""
        if self._union is None:
            self._counts = self.glyph_counts()
            self._union = _drawn(self._counts)
        return self._union

    def glyph_counts(self) -> dict[str, dict[int, int]]:
        """How many of the pack's faces draw each glyph, by group: counted face by face."""
        counts: dict[str, collections.Counter] = {}
        for sides in self.glyphs.values():
            for group, gids in _face_glyphs(sides).items():
                counts.setdefault(group, collections.Counter()).update(gids)
        return counts

    def record_data(self) -> dict:
        union = self.glyph_union()
        glyph_map, conflicts = self.glyph_map()
        glyph_map = {g: {k: v for k, v in m.items() if k in union[g]} for g, m in glyph_map.items() if g in union}
        names = {g: str(font.BaseFont) for g, font in self.fonts.items() if g in union}
        faces = {key: sides if isinstance(sides, str) else orjson.dumps(sides).decode()
                 for key, sides in self.glyphs.items()}
        counts = {g: {gid: n for gid, n in sorted(c.items()) if n > 0} for g, c in self._counts.items() if g in union}
        return {"sheets": self.sheets, "faces": faces, "counts": counts,
                "glyph_map": glyph_map, "conflicts": sorted(conflicts | self.conflicts),
                "font_names": names if len(set(names.values())) == len(names) == len(union) else None}


class _Pending:
    """A sheet not yet known to be new or kept."""

    def __init__(self, size):
        self.size = size


class _BuiltOnLast(SheetRecorder):
    """An imposer building on the last pack: what its record says, and how to read that pack."""

    def __init__(self, out: pikepdf.Pdf, old: pikepdf.Pdf, record: dict):
        super().__init__(out)
        self.old = old
        self.record = record
        info = record["info_pages"]
        # (not old.pages[i] in a loop: each copies qpdf's list of every page)
        self.old_pages = [page.obj for page in old.pages][info:info + len(record["sheets"])]
        self.kept = 0
        self.known = record["glyph_map"]
        self.conflicts = set(record["conflicts"])
        self.old_counts = {g: {int(gid): n for gid, n in c.items()} for g, c in record["counts"].items()}

    def new_page(self, size):
        return _Pending(size)

    def append_content(self, page, text: str) -> None:
        raise Fallback("a sheet drawn on after its placements (registration marks)")

    def _old_form(self, sheet: int, slot: int, label: str) -> pikepdf.Object:
        """The form in slot `slot` of the last pack's sheet `sheet`, checked to be the card's."""
        try:
            form = self.old_pages[sheet].Resources.XObject[f"/P{slot}"]
        except (AttributeError, KeyError) as exc:
            raise Fallback(f"the record does not fit the last pack ({exc})") from None
        if str(form.get("/PnpId", "")) != label:
            raise Fallback("the record does not fit the last pack (a form of another card)")
        return form

    def _note_kept(self, slots) -> None:
        """The glyphs of faces the last pack had, as its record keeps them."""
        for face, _ in slots:
            if face not in self.glyphs:
                self.glyphs[face] = self.record["faces"][face]

    def glyph_counts(self) -> dict[str, dict[int, int]]:
        """The last pack's counts, less the glyphs of its faces this pack no longer has, plus those
        of the faces new to it: a face's glyphs are read only when it comes or goes (a face key
        names what the face draws)."""
        old = self.record["faces"]
        counts = {g: collections.Counter(c) for g, c in self.old_counts.items()}
        for key in old.keys() - self.glyphs.keys():
            for group, gids in _face_glyphs(old[key]).items():
                counts.setdefault(group, collections.Counter()).subtract(gids)
        for key in self.glyphs.keys() - old.keys():
            for group, gids in _face_glyphs(self.glyphs[key]).items():
                counts.setdefault(group, collections.Counter()).update(gids)
        if any(n < 0 for c in counts.values() for n in c.values()):
            raise Fallback("the record does not fit the last pack (its glyph counts)")
        return counts

    def _old_fonts(self, groups: set[str]) -> dict:
        """The pack's merged font objects by group, found through the faces of kept pages."""
        names = {name: group for group, name in self.record["font_names"].items()}
        found: dict = {}
        for page in self.old_pages:
            for form in page.Resources.get("/XObject", {}).values():
                _find_fonts(form.get("/Resources"), names, found)
                if set(found) >= groups:
                    return found
        raise Fallback("the previous pack's fonts were not found")


class SheetReuser(_BuiltOnLast):
    """The imposer of an incremental build: works on the previous pack itself; a sheet whose key
    it had is kept (its page object), any other is imposed and appended, to be put in place."""

    def __init__(self, old: pikepdf.Pdf, record: dict):
        super().__init__(old, old, record)
        self.old_size = int(old.trailer.Size)   # objects numbered below it are the last file's
        self.by_key: dict[str, collections.deque] = collections.defaultdict(collections.deque)
        self.where: dict[tuple, tuple] = {}    # (face key, label) -> (old page, slot index) holding its form
        for i, (key, slots) in enumerate(record["sheets"]):
            self.by_key[key].append(i)
            for index, (face, label) in enumerate(slots):
                self.where.setdefault((face, label), (i, index))
        self.order: list[pikepdf.Object] = []  # the body's page objects, in order
        self.made: list[pikepdf.Object] = []   # the pages imposed now
        self.remade: list[pikepdf.Object] = []  # the pack's fonts whose subset was made again
        self.drawn_anew = False                 # a board or rulebook page made now (whole_pages)

    def form(self, key, page, bleed=0.0, label=""):
        ident = (key, label)
        if ident not in self._forms and ident in self.where:    # in the old file already: no face opened
            self._forms[ident] = self._old_form(*self.where[ident], label)
            self.glyphs[key] = self.record["faces"][key]
        return super().form(key, page, bleed, label)

    def place(self, page, placements, marks=(), page_size=(0, 0), rotations=None, fold=None) -> None:
        key = sheet_key(placements, marks, page_size, rotations, fold)
        slots = _slots(placements)
        if self.by_key.get(key):
            self.sheets.append([key, slots])
            self.order.append(self.old_pages[self.by_key[key].popleft()])
            self._note_kept(slots)
            self.kept += 1
            return
        w, h = page.size     # not appended to the old file's page tree (slow there): assemble() orders the pages
        real = pikepdf.Page(self.out.make_indirect(Dictionary(
            Type=Name.Page, MediaBox=Array([0, 0, pt(w), pt(h)]), Resources=Dictionary(XObject=Dictionary()))))
        super().place(real, placements, marks, page_size, rotations, fold)
        self.order.append(real.obj)
        self.made.append(real.obj)

    def whole_pages(self, key, count, make) -> None:
        """A board run's drawing or a rulebook's sheets: kept whole when the last pack had them,
        else made (into the last file, then taken out of its page list: assemble() orders the
        pages). The pages of one drawing share its forms, so they are kept or made together."""
        keys = [f"{key}/{i}" for i in range(count)]
        self.sheets += [[k, []] for k in keys]
        if all(self.by_key.get(k) for k in keys):
            self.order += [self.old_pages[self.by_key[k].popleft()] for k in keys]
            self.kept += count
            return
        before = len(self.out.pages)
        make()
        made = [page.obj for page in self.out.pages[before:]]
        del self.out.pages[before:]
        self.order += made
        self.made += made
        self.drawn_anew = True

    # --- after the sheets ----------------------------------------------------------------------
    def merge_fonts(self, assets) -> None:
        """Point the newly imported faces at the pack's fonts, re-making a font's subset (in
        place) only when the set of glyphs the pack draws with it has changed."""
        glyph_map, conflicts = self.glyph_map()
        union = self.glyph_union()
        old_union = _drawn(self.old_counts)
        if set(union) != set(old_union):
            raise Fallback("a font is new to the pack or no longer used")
        fonts = self._old_fonts(set(union))
        self.fonts.update(fonts)
        for group, gids in union.items():
            # before the glyphs' test: a glyph whose text changed (a space made a no-break space,
            # drawn alike) leaves the set as it was but not the font's text map
            if group in conflicts or group in self.conflicts:
                raise Fallback(f"{group}: a glyph maps to different text on different faces, or its text changed")
            if gids == old_union[group]:
                continue
            family, weight = group.rsplit("|", 1)
            widths = {g: glyph_map[group][g][0] for g in gids if glyph_map[group][g][0] is not None}
            text = {g: glyph_map[group][g][1] for g in gids if glyph_map[group][g][1]}
            made = merged_font(self.out, assets, (family, int(weight)), fonts[group], gids, widths, text)
            for name in list(made.keys()):
                fonts[group][name] = made[name]
            self.remade.append(fonts[group])
        for ident in self.imported:
            for font_dict, name, font in list(placeholders(self._forms[ident].get("/Resources"))):
                font_dict[name] = fonts[_group(font)]

    def assemble(self, info: pikepdf.Pdf) -> pikepdf.Pdf:
        """The previous pack with the new page 1 and the body pages in order, ready for the
        outline and metadata (which are made again)."""
        old = self.out
        # qpdf edits its page list one page at a time, each edit costing the length of the list:
        # the body stays where it is and only the sheets imposed now take their places (a
        # 556-page pack: 0.2 ms instead of 29 ms for taking every page out and putting it back)
        changed = self._changed_places()
        if changed is None:
            del old.pages[:]
            old.pages.extend(info.pages)
            for obj in self.order:
                old.pages.append(pikepdf.Page(obj))
        else:
            start = self.record["info_pages"]
            for i in changed:
                old.pages[start + i] = pikepdf.Page(self.order[i])
            del old.pages[:start]
            for i, page in enumerate(info.pages):
                old.pages.insert(i, page)
        if "/Outlines" in old.Root:
            del old.Root.Outlines
        if "/ID" in old.trailer:      # qpdf would keep the old file's first ID; a cold pack has none
            del old.trailer.ID
        return old

    def _changed_places(self) -> list[int] | None:
        """The body's places that get a sheet imposed now, when every kept sheet stays where it
        was (the same number of sheets, none moved); None otherwise."""
        if len(self.order) != len(self.old_pages):
            return None
        made = {obj.objgen for obj in self.made}
        changed = []
        for i, (obj, was) in enumerate(zip(self.order, self.old_pages)):
            if obj.objgen in made:
                changed.append(i)
            elif obj.objgen != was.objgen:
                return None
        return changed


def compress_streams(roots, old_size: int = 0, force=(), skip=("/Parent",), done=frozenset(),
                     memo: dict | None = None) -> None:
    """Give every stream reachable from `roots` its one canonical form before the pack is saved:
    its fully decoded bytes compressed by zlib at the default level (pdfbytes.canonical_stream; a
    stream qpdf cannot decode, a JPEG say, stays as it is). Such a pack is then
    saved with no stream touched by qpdf, so a stream written by one build is copied by the next
    as it is, and a pack built on its last file is byte for byte a cold build's without
    compressing every kept stream again (that was most of a large pack's save).

    A cold build passes its whole document; an incremental one the pages made now, with
    `old_size` the previous file's /Size: a stream numbered below it came from that file,
    already canonical, unless reached from `force` (the fonts re-made in place). Keys in `skip`
    are not followed (the page tree, whose kept pages hold nothing new). Streams in `done` (by
    object) are canonical already: the imposer's copies of cached faces' streams, made canonical
    when the face was (render/canonical.py). `memo` (canonical_stream's): the packs of one edition place
    the same boards, rulebook pages and their fonts."""
    for stream in streams_under(roots, skip):
        if stream.objgen[0] >= old_size and stream.objgen not in done:
            canonical_stream(stream, memo)
    for stream in streams_under(force, skip):
        canonical_stream(stream, memo)


def _find_fonts(resources, names: dict, found: dict, depth: int = 0) -> None:
    if resources is None or depth > 8:
        return
    for font in resources.get("/Font", {}).values():
        group = names.get(str(font.get("/BaseFont", "")))
        if group and group not in found:
            found[group] = font
    for inner in resources.get("/XObject", {}).values():
        if "/Resources" in inner:
            _find_fonts(inner.Resources, names, found, depth + 1)


def _drawn(counts: dict) -> dict[str, set]:
    """{group: the glyph ids some face draws} from the counts, groups no face draws left out."""
    drawn = {g: {gid for gid, n in c.items() if n > 0} for g, c in counts.items()}
    return {g: gids for g, gids in drawn.items() if gids}


def _face_glyphs(sides) -> dict[str, list[int]]:
    """A face's {group: [gids]}, read from the record's JSON text if need be (Fallback if that is
    not what it holds); one noted in this build is as it was noted."""
    if not isinstance(sides, str):
        return sides
    try:
        sides = orjson.loads(sides)
    except ValueError:
        raise Fallback("the record does not fit the last pack (a face's glyphs)") from None
    if not (isinstance(sides, dict) and all(isinstance(g, list) and all(type(i) is int for i in g)
                                            for g in sides.values())):
        raise Fallback("the record does not fit the last pack (a face's glyphs)")
    return sides


# --- the record ------------------------------------------------------------------------------

def record_path(project, game_id: str, name: str) -> Path:
    return project.build / ".cache" / "sheets" / game_id / f"{name}.json"


class Previous(NamedTuple):
    """The last build of a pack: its record, its file opened and the file's bytes."""
    record: dict
    pdf: pikepdf.Pdf
    data: bytes


def load(project, game_id: str, name: str, context: str) -> Previous | None:
    """The record and the previous pack, when both are there, match each other and this build's
    context; None otherwise (then the pack is built cold)."""
    path = record_path(project, game_id, name)
    pdf_path = project.build / game_id / f"{name}.pdf"
    try:
        record = read_record(path)
        if not isinstance(record, dict) or record.get("version") != VERSION or record.get("context") != context:
            return None
        data = pdf_path.read_bytes()
    except (OSError, ValueError):
        return None
    if hashlib.sha256(data).hexdigest() != record.get("pdf") or not well_formed(record):
        return None               # the pack on disk is not the one recorded: never build on it
    try:
        pdf = open_pdf(data)
    except pikepdf.PdfError:
        return None
    return Previous(record, pdf, data) if record["info_pages"] + len(record["sheets"]) == len(pdf.pages) else None


def well_formed(record: dict) -> bool:
    """The shape save() writes, every part of it that a build reads (a record edited by hand or a
    tool, here or in a stored pack's entry, is not built on)."""
    sheets, faces = record.get("sheets"), record.get("faces")
    glyph_map, names, conflicts = record.get("glyph_map"), record.get("font_names"), record.get("conflicts")
    return (type(record.get("info_pages")) is int and record["info_pages"] >= 0
            and isinstance(sheets, list) and isinstance(faces, dict)
            and all(isinstance(s, list) and len(s) == 2 and isinstance(s[0], str) and isinstance(s[1], list)
                    and all(isinstance(f, list) and len(f) == 2 and isinstance(f[0], str) and isinstance(f[1], str)
                            and isinstance(faces.get(f[0]), str) for f in s[1]) for s in sheets)
            and all(isinstance(record.get(k), dict) for k in ("counts", "glyph_map", "font_names"))
            and all(isinstance(c, dict) and all(k.isdigit() and type(n) is int and n > 0 for k, n in c.items())
                    for c in record["counts"].values())
            and all(isinstance(m, dict) and all(k.isdigit() and _glyph(v) for k, v in m.items()) for m in glyph_map.values())
            and all(isinstance(v, str) for v in names.values()) and all(isinstance(v, str) for v in faces.values())
            and isinstance(conflicts, list) and all(isinstance(c, str) for c in conflicts))


def _glyph(entry) -> bool:
    """[width or None, text or None], as a glyph map holds a glyph."""
    return (isinstance(entry, list) and len(entry) == 2 and (entry[0] is None or type(entry[0]) in (int, float))
            and (entry[1] is None or isinstance(entry[1], str)))


def forget(project, game_id: str, name: str) -> None:
    """Before a pack file is replaced: a record must never describe another file."""
    path = record_path(project, game_id, name)
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    try:
        path.unlink(missing_ok=True)
    except OSError:                # a file where a folder of the record's path should be: no record
        pass


def save(project, game_id: str, made: Record, pdf_sha: str) -> None:
    """The record of the build that made the pack whose bytes' sha256 (hex) is `pdf_sha`."""
    if made.data.get("font_names") is None:    # fonts it could not tell apart: nothing to build on next time
        return
    record = {**made.data, "version": VERSION, "context": made.context, "pdf": pdf_sha, "info_pages": made.info_pages}
    write_record(record_path(project, game_id, made.name), record)
