"""Preflight's memo: check what changed in full, and the rest by its recorded hashes.

Every build reads its pack back (check/preflight.py). After a one-card change nearly every page of
the new file holds the very bytes the last preflight read and passed, yet reading them all again
made preflight grow with the deck (11 s at 5,000 cards, most of it pdfium measuring glyphs). The
memo of one pack file keeps what its costly checks found, each under a hash of exactly the bytes
that check reads from the file:

  - per card or rulebook page that produced no finding, the trims measured on it, by a page key:
    its content streams and boxes; its manifest entry with its slots' declared trim and safe
    margin, the duplex and back offset, and for a back the trims measured on its front; and for
    every form it can draw (forms inside forms too) the form's raw bytes, placement keys and
    resource names, and for each font it draws with that font's dictionary and the widths and
    Unicode text of just the glyphs the form draws;
  - per form, the glyph ids its text draws (by font resource name), by a form key: its raw bytes
    (kept as JSON text: most forms are only carried over to the next record, never read);
  - per card or rulebook page that passed, by its number: the objects it reaches (and its
    ancestors in the page tree) short of its Type0 fonts, as runs of consecutive numbers, with a
    hash of their bytes as written in the file and of where each object starts; each Type0 font
    it reaches by number, with a hash of the font as the page reads it (its dictionary less what a
    re-made subset changes, and the widths and text of the glyphs the page draws with it); the
    hash of its manifest facts, its trims, the glyphs and pictures it draws and its page key. A
    file saved with one cross-reference table (a pack of card decks) gives each object's written
    bytes without opening it: a page whose objects all have their recorded bytes, whose fonts
    read as recorded and whose facts are unchanged is taken whole from this record, neither keyed
    nor scanned;
  - per Type0 font such pages reach, by number: its objects, as runs with a hash of their written
    bytes. A font whose bytes are unchanged reads as recorded for every page; only a font whose
    subset was re-made (a glyph new to the pack) has its widths and text read, once, and looked
    up for the glyphs each page draws. (Proved with the page's other objects, a re-made subset
    changed every page's bytes and each was keyed again: 0.5 s more at 5,000 cards.)

The next preflight still reads every page of the new file: a page whose key is recorded is taken
as recorded (its cards counted, its trims given to its back), every other page is checked in full.
Glyphs taken from the memo still count against the new file's own font programs, and the cheap
checks (images, boards, font resources, page count, missing glyphs) always run on the file.

A Type0 font's program is not in the page key: the pack's subsets are re-made whenever any glyph
in the pack changes (render/fontmerge.py), which would change every page's key. A subset keeps
its glyph ids, so a glyph's outline is the bundled file's; the memo as a whole carries a context
(the bundled font files' hashes and the checking code, from the caller), and a record made in
another context is not used. Any other font (reportlab's simple fonts) is hashed whole.
"""
from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

import orjson
import pikepdf

from generator.atomic import read_record, write_record
from generator.filehash import file_hash
from generator.pdfbytes import TooDeep, canonical_bytes
from generator.check.pdfread import WrittenObjects, parse_cmap, parse_widths

VERSION = 5       # 3: a page's objects as runs of consecutive numbers, each hashed in one piece;
                  # 4: a form's glyphs kept as JSON text, read only when used;
                  # 5: a page's Type0 fonts proved apart from its other objects, by what it reads of them
BOXES = ("/MediaBox", "/CropBox", "/BleedBox", "/TrimBox", "/ArtBox", "/Rotate", "/UserUnit")
FORM_UNKEYED = frozenset({"/Resources", "/Length"})      # hashed on their own, or not read
# What a Type0 subset re-made for another glyph set changes, none of it read by a memoized check:
# names carry the subset tag, the program and its bounding box follow the pack's glyphs, and the
# widths and Unicode maps span the pack (the glyphs a form draws are hashed from them).
SUBSET_KEYS = frozenset({"/BaseFont", "/FontName", "/FontFile", "/FontFile2", "/FontFile3", "/FontBBox",
                         "/CIDSet", "/W", "/ToUnicode"})


def context(font_files: list[Path]) -> str:
    """What the memo's records hold only under: the bundled font files, the code that checks and
    the code that makes the pack's subsets, and the libraries that read the file."""
    from generator.fingerprint import engine_fingerprint
    digest = hashlib.sha256(engine_fingerprint().encode())
    for path in font_files:
        digest.update(f"|{path.name}|{file_hash(path)}".encode())
    return digest.hexdigest()


class Memo:
    """One pack file's record; one preflight at a time uses it (begin() starts one)."""

    def __init__(self, context: str = "", recorded: dict | None = None, passed: dict | None = None):
        self.context = context
        self.passed = passed if passed is not None else {}
        recorded = recorded if isinstance(recorded, dict) and recorded.get("context") == context \
            and recorded.get("version") == VERSION else {}
        self._old_pages = recorded.get("pages") if isinstance(recorded.get("pages"), dict) else {}
        self._old_forms = recorded.get("forms") if isinstance(recorded.get("forms"), dict) else {}
        self._old_objects = recorded.get("objects") if isinstance(recorded.get("objects"), dict) else {}
        self._old_fonts = recorded.get("fonts") if isinstance(recorded.get("fonts"), dict) else {}
        # What the packs checked before this one in the same build passed (`passed`, by context): a
        # page key names the page's content and every fact its checks read, never which file or page
        # number it is, and a form key its bytes. A sheet that packs share (a deck's in the packs of
        # several player counts) is read once a build, a cold one too.
        passed_pages, read_forms = self.passed.get(context, ({}, {}))
        self._old_pages = {**passed_pages, **self._old_pages}
        self._old_forms = {**read_forms, **self._old_forms}
        self.begin()

    def begin(self) -> None:
        self.pages: dict = {}        # what this preflight read and passed, for the next one
        self.forms: dict = {}
        self.checked = 0             # card, board, rulebook and info pages checked in full
        self.reused = 0              # taken from the record
        self._form_keys: dict = {}
        self._form_digests: dict = {}
        self._fonts: dict = {}
        self.objects: dict = {}      # page number -> its objects' record, for the next one
        self.font_objects: dict = {}  # a Type0 font's number -> its objects' record, for the next one
        self._font_same: dict = {}   # a Type0 font's number -> whether its objects are as recorded
        self.page_glyphs: dict = {}  # page number -> the glyphs it draws, as this check read them
        self.page_images: dict = {}  # page number -> the images on it, as this check found them
        self.same: dict = {}         # page number -> its record, for pages whose objects are as recorded
        self.written: WrittenObjects | None = None
        self._pdf: pikepdf.Pdf | None = None
        self._reached: dict = {}     # object -> (the objects it names, whether a Type0 font), for _reach

    # --- on disk ------------------------------------------------------------------------------
    @classmethod
    def load(cls, path: Path, context: str, passed: dict | None = None) -> Memo:
        """A damaged or unreadable record (cut off, edited, a folder in its place) is an empty memo.
        `passed`: what earlier checks of the same build passed, shared by its memos."""
        try:
            recorded = read_record(path)
        except (OSError, ValueError, RecursionError):
            recorded = None
        return cls(context, recorded, passed)

    def save(self, path: Path) -> None:
        """Keep this check's record for the file's next check, and offer it to the build's next memos."""
        forms = {key: value if isinstance(value, str) else orjson.dumps(value).decode()
                 for key, value in self.forms.items()}
        passed_pages, read_forms = self.passed.setdefault(self.context, ({}, {}))
        passed_pages.update(self.pages)
        read_forms.update(forms)
        write_record(path, {"version": VERSION, "context": self.context, "pages": self.pages, "forms": forms,
                            "objects": self.objects, "fonts": self.font_objects})

    # --- pages whose every object is as a passing check read it ------------------------------
    # The cheapest proof that a page is what an earlier check passed: the bytes of the page
    # object, of every object it reaches and of its ancestors in the page tree, as written in
    # the file, each equal to what they were. Equal bytes name the same objects, so nothing
    # else can be reached; no object is opened. A page drawn anew, or whose objects moved to
    # other numbers, has other bytes and is keyed and checked as below.
    def unchanged_pages(self, data: bytes, pdf: pikepdf.Pdf) -> dict[int, dict]:
        """Pages (by number) whose recorded objects all have their recorded bytes in `data`,
        the file `pdf` reads, and which are still the page at that number: their record, with
        the trims the page passed with and the glyphs it draws."""
        self.written, self._pdf = WrittenObjects(data), pdf
        objgens = [page.obj.objgen for page in pdf.pages]     # (pdf.pages[i] copies qpdf's list of every page)
        count = len(objgens)
        for number, record in self._old_objects.items():
            if not (number.isdigit() and 0 < int(number) <= count and _objects_record(record)):
                continue
            if objgens[int(number) - 1] == (record["page"], 0) \
                    and self._digest(record["runs"]) == record["digest"] and self._fonts_read_as_recorded(record):
                self.same[int(number)] = record
        return self.same

    def _fonts_read_as_recorded(self, record: dict) -> bool:
        """Whether each Type0 font the page reaches is, as the page reads it, what it was: its
        objects unchanged, or else its dictionary and the page's glyphs' widths and text."""
        for number, digest in record["fonts"]:
            if not self._font_unchanged(number):
                gids = next((g for num, gen, g in record["glyphs"] if num == number and gen == 0), [])
                if self._font_digest(number, gids) != digest:
                    return False
        return True

    def _font_unchanged(self, number: int) -> bool:
        if number not in self._font_same:
            old = self._old_fonts.get(str(number))
            self._font_same[number] = _font_objects_record(old, number) and self._digest(old["runs"]) == old["digest"]
            if self._font_same[number]:
                self.font_objects[number] = old
        return self._font_same[number]

    def _font_digest(self, number: int, gids: list[int]) -> str | None:
        """A Type0 font as a page drawing `gids` with it reads it (None: not a Type0 font)."""
        try:
            facts = self._font_facts(self._object((number, 0)))
        except TooDeep:
            return None
        return facts.digest(("/Type0", gids), scanned=True).hex()[:32] if facts.type0 else None

    def _note_font(self, number: int) -> None:
        """Record a Type0 font's objects (once a check) for the next one to find unchanged."""
        if number in self.font_objects:
            return
        objects, _ = self._reach((number, 0), stop_at_fonts=False)
        runs = _runs(objects)
        digest = self._digest(runs) if runs else None
        if digest is not None:
            self.font_objects[number] = {"runs": runs, "digest": digest}

    def take_unchanged(self, number: int) -> list:
        """A page taken as recorded: its record, and its forms' glyphs, stay for the next check."""
        record = self.objects[number] = self.same[number]
        for font, _ in record["fonts"]:
            self._note_font(font)
        if record.get("key"):              # its page key too, should the next file differ in its fonts
            self.pages[record["key"]] = record["trims"]
        for key in record["forms"]:     # carried over as text: read and checked only when used
            found = self._old_forms.get(key)
            if found is not None:
                self.forms[key] = found
        self.reused += 1
        return record["trims"]

    def remember_objects(self, number: int, page: pikepdf.Page, facts: str, trims: list, key: str | None) -> None:
        """Record a page that passed (`key`: its page key, if it has one) by its objects' bytes, if
        they can all be named."""
        glyphs = self.page_glyphs.get(number) if number not in self.same else self.same[number]["glyphs"]
        found = self._page_objects(page) if self.written is not None and glyphs is not None else None
        if found is None:
            return
        objects, fonts = found
        runs = _runs(objects) if objects else None
        digest = self._digest(runs) if runs else None
        drawn = {num: gids for num, gen, gids in glyphs if gen == 0}
        font_digests = [[num, self._font_digest(num, drawn.get(num, []))] for num, gen in fonts]
        if digest is None or any(gen != 0 for _, gen in fonts) or any(d is None for _, d in font_digests):
            return
        for num, _ in fonts:
            self._note_font(num)
        forms = sorted({self._form_keys[o] for o in objects if self._form_keys.get(o)})
        self.objects[number] = {"page": objects[0][0], "runs": runs, "digest": digest, "fonts": font_digests,
                                "facts": facts, "trims": trims, "glyphs": glyphs, "forms": forms, "key": key,
                                "images": self.page_images.get(number, [])}

    def _digest(self, runs: list[list[int]]) -> str | None:
        """A hash of the written bytes of the objects numbered in `runs` ([first, last] each): one
        piece of the file a run (a page's own objects are written one after another, numbered in
        order), not one hash an object (a 556-page pack: 12,000 objects, 5 ms instead of 30)."""
        digest = hashlib.sha256()
        for first, last in runs:
            found = self.written.run_digest(first, last)
            if found is None:
                return None
            digest.update(b"%d-%d:" % (first, last) + found)
        return digest.hexdigest()[:32]

    def _page_objects(self, page: pikepdf.Page) -> tuple[list[tuple], list[tuple]] | None:
        """The page object, every object it reaches except through /Parent (a superset when a
        string happens to read like a reference: more is compared, never less) short of its
        Type0 fonts, then its ancestors, whose bytes hold whatever a page inherits; and the
        Type0 fonts it reaches. None when an ancestor says more than the tree's shape (an
        inherited attribute the page's own bytes do not show)."""
        order, fonts = self._reach(page.obj.objgen, stop_at_fonts=True)
        seen = set(order)
        parent = page.obj.get("/Parent")
        while isinstance(parent, pikepdf.Dictionary) and parent.is_indirect and parent.objgen not in seen:
            if set(parent.keys()) - {"/Type", "/Kids", "/Count", "/Parent"}:
                return None
            seen.add(parent.objgen)
            order.append(parent.objgen)
            parent = parent.get("/Parent")
        return order, fonts

    def _reach(self, start: tuple, stop_at_fonts: bool) -> tuple[list[tuple], list[tuple]]:
        """`start` and every object it reaches except through /Parent, depth first; with
        `stop_at_fonts`, a Type0 font is listed apart and what it reaches is not followed."""
        order, fonts, seen, todo = [], [], set(), [start]
        while todo:
            objgen = todo.pop()
            if objgen in seen:
                continue
            seen.add(objgen)
            references, font = self._references(objgen)
            if font and stop_at_fonts:
                fonts.append(objgen)
                continue
            order.append(objgen)
            todo.extend(reversed(references))
        return order, fonts

    def _references(self, objgen: tuple) -> tuple[list[tuple], bool]:
        """The objects one names, and whether it is a Type0 font."""
        found = self._reached.get(objgen)
        if found is None:
            obj = self._object(objgen)
            text = b"" if obj is None else (obj.stream_dict if isinstance(obj, pikepdf.Stream) else obj).unparse(
                resolved=True)
            font = isinstance(obj, pikepdf.Dictionary) and obj.get("/Subtype") == "/Type0" \
                and obj.get("/Type") == "/Font"
            found = self._reached[objgen] = (
                [(int(n), int(g)) for n, g in REFERENCE.findall(PARENT.sub(b"", text))], font)
        return found

    def _object(self, objgen: tuple):
        try:
            return self._pdf.get_object(objgen)
        except (ValueError, pikepdf.PdfError):
            return None

    # --- forms: the glyphs their text draws -----------------------------------------------------
    def form_key(self, stream: pikepdf.Object) -> str | None:
        key = self._form_keys.get(stream.objgen) if stream.is_indirect else None
        if key is None:
            digest = hashlib.sha256(stream.read_raw_bytes())
            try:
                for name in ("/Filter", "/DecodeParms"):
                    digest.update(b"\0" + canonical_bytes(stream.get(name)))
            except TooDeep:
                return None
            key = digest.hexdigest()[:32]
            if stream.is_indirect:
                self._form_keys[stream.objgen] = key
        return key

    def glyphs(self, key: str) -> list | None:
        """[(font resource name, font subtype, glyph ids)] as recorded, in the order first selected."""
        found = _glyphs_read(self._old_forms.get(key))
        if found is None:
            return None
        self.forms[key] = found
        return found

    def remember_glyphs(self, key: str, drawn: list) -> None:
        self.forms[key] = drawn

    # --- pages: what they passed with -----------------------------------------------------------
    def page(self, key: str | None):
        """The record of a page that passed with this key (its trims), or None."""
        found = self._old_pages.get(key) if key else None
        if not _trims_record(found):
            self.checked += 1
            return None
        self.reused += 1
        self.pages[key] = found
        return found

    def remember_page(self, key: str, trims: list) -> None:
        self.pages[key] = trims

    def page_key(self, page: pikepdf.Page, facts) -> str | None:
        """`facts`: what the checks read of this page outside the PDF (its manifest entry,
        declared sizes, print options, its front's trims), JSON-able. None: a page drawing what
        the memo cannot key (a form no glyph scan read), checked in full every time."""
        digest = hashlib.sha256(facts_json(facts))
        for box in BOXES:
            digest.update(b"\0" + canonical_bytes(page.obj.get(box)))
        digest.update(canonical_bytes(page.mediabox))             # inherited from the page tree, if so
        contents = page.obj.get("/Contents")
        for stream in contents if isinstance(contents, pikepdf.Array) else [contents]:
            if isinstance(stream, pikepdf.Stream):
                digest.update(b"\0C" + stream.read_raw_bytes())
                digest.update(canonical_bytes(stream.get("/Filter")) + canonical_bytes(stream.get("/DecodeParms")))
        resources = page.obj.get("/Resources")
        try:
            part = self._resources(resources, None, 0) if isinstance(resources, pikepdf.Dictionary) else None
        except TooDeep:
            part = None
        if part is None:
            return None
        digest.update(part)
        return digest.hexdigest()[:32]

    def _resources(self, resources, drawn: list | None, depth: int) -> bytes | None:
        """The names a resource dictionary lists, its fonts as the glyphs `drawn` use them (all of
        each font when not known: a page's own text) and its forms, each keyed in turn."""
        if depth > 8:
            return None
        fonts, xobjects = resources.get("/Font", {}), resources.get("/XObject", {})
        if not isinstance(fonts, (dict, pikepdf.Dictionary)) or not isinstance(xobjects, (dict, pikepdf.Dictionary)):
            return None
        out = [b"F"]
        glyphs = {name: (subtype, gids) for name, subtype, gids in drawn or ()}
        for name in sorted(fonts.keys()):
            out.append(name.encode() + b"=" + self._font(fonts[name], glyphs.get(name), drawn is not None))
        states = resources.get("/ExtGState", {})
        if not isinstance(states, (dict, pikepdf.Dictionary)) or \
                any(isinstance(s, pikepdf.Dictionary) and "/Font" in s for s in states.values()):
            return None                      # a font set by a graphics state: not followed here
        out.append(b"X")
        for name in sorted(xobjects.keys()):
            xobj = xobjects[name]
            subtype = xobj.get("/Subtype") if isinstance(xobj, (pikepdf.Stream, pikepdf.Dictionary)) else None
            if subtype == "/Form":
                form = self._form(xobj, depth + 1) if isinstance(xobj, pikepdf.Stream) else None
                if form is None:
                    return None
                out.append(name.encode() + b"=" + form)
            else:                  # an image: only the always-run image check reads it
                out.append(name.encode() + b"=" + canonical_bytes(subtype))
        return b"\0".join(out)

    def _form(self, form: pikepdf.Object, depth: int) -> bytes | None:
        if form.objgen in self._form_digests:
            return self._form_digests[form.objgen]
        self._form_digests[form.objgen] = None          # a form that draws itself is not keyed
        key = self.form_key(form)
        resources = form.get("/Resources")
        drawn = _glyphs_read(self.forms.get(key)) if key else None    # this preflight's glyph scan
        if isinstance(drawn, list):                    # read it, or a page taken whole carried it over
            self.forms[key] = drawn
        digest = None
        if isinstance(resources, pikepdf.Dictionary) and drawn is not None:
            part = self._resources(resources, drawn, depth)
            if part is not None:     # its placement (/BBox, /Matrix, /PnpTrim, /PnpId) and all else it says
                head = b"".join(k.encode() + b" " + canonical_bytes(form[k]) + b"\0" for k in sorted(form.keys())
                                if k not in FORM_UNKEYED)
                digest = hashlib.sha256(key.encode() + head + part).digest()
        self._form_digests[form.objgen] = digest
        return digest

    def _font(self, font, glyphs, scanned: bool) -> bytes:
        """A font as the glyphs drawn with it read it: a Type0 font by its dictionary (less what a
        re-made subset changes) and the widths and text of those glyphs; any other font whole."""
        return self._font_facts(font).digest(glyphs, scanned)

    def _font_facts(self, font) -> _FontFacts:
        """A font's facts, made once a check for a font object (TooDeep if nested too deep)."""
        if not (isinstance(font, pikepdf.Object) and font.is_indirect):
            return _FontFacts(font)
        if font.objgen not in self._fonts:
            self._fonts[font.objgen] = _FontFacts(font)
        return self._fonts[font.objgen]


def facts_json(facts) -> bytes:
    """A page's facts (what the checks read outside the PDF) as bytes to hash: keys sorted."""
    return orjson.dumps(facts, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)


REFERENCE = re.compile(rb"(\d+) (\d+) R\b")
PARENT = re.compile(rb"/Parent\s+\d+\s+\d+\s+R\b")


class _FontFacts:
    def __init__(self, font):
        self.font = font
        self.type0 = isinstance(font, pikepdf.Dictionary) and font.get("/Subtype") == "/Type0" \
            and "/DescendantFonts" in font
        self.whole = hashlib.sha256(canonical_bytes(font, SUBSET_KEYS if self.type0 else frozenset())).digest()

    @functools.cached_property
    def widths(self) -> dict:
        descendant = self.font.DescendantFonts[0]
        return parse_widths(descendant.W) if "/W" in descendant else {}

    @functools.cached_property
    def text(self) -> dict:
        cmap = self.font.get("/ToUnicode")
        return parse_cmap(cmap.read_bytes()) if isinstance(cmap, pikepdf.Stream) else {}

    @functools.cached_property
    def glyphs(self) -> dict[int, bytes]:
        """Each glyph's width and text, as hashed (a key per form draws dozens of them)."""
        widths, text = self.widths, self.text
        return _Glyphs({g: _Glyphs.entry(g, widths.get(g), text.get(g)) for g in widths.keys() | text.keys()})

    @functools.cached_property
    def all(self) -> bytes:
        """With the widths and Unicode maps whole: for a page's own text, whose glyphs no scan recorded."""
        return hashlib.sha256(canonical_bytes(self.font)).digest()

    def digest(self, glyphs, scanned: bool) -> bytes:
        if not self.type0:
            return self.whole
        if not scanned:
            return self.all
        if glyphs is None:               # listed, not selected: draws nothing here
            return self.whole
        subtype, gids = glyphs
        return hashlib.sha256(self.whole + subtype.encode() + b"".join(map(self.glyphs.__getitem__, gids))).digest()


class _Glyphs(dict):
    @staticmethod
    def entry(gid: int, width, text) -> bytes:
        return f"{gid}:{width}:{text};".encode()

    def __missing__(self, gid: int) -> bytes:       # drawn, with no width or text of its own
        return self.entry(gid, None, None)


def _glyphs_read(found) -> list | None:
    """A form's glyphs as the record or this check has them (JSON text, or read already), or None
    when they are not a well-formed record."""
    if isinstance(found, str):
        try:
            found = orjson.loads(found)
        except ValueError:
            return None
    return found if _glyph_record(found) else None


def _glyph_record(found) -> bool:
    """[[font, name, [gid, …]], …] (a loop, not all() over a generator: it runs once per kept form)."""
    if not isinstance(found, list):
        return False
    for entry in found:
        if not (isinstance(entry, list) and len(entry) == 3):
            return False
        font, name, gids = entry
        if not (isinstance(font, str) and isinstance(name, str) and isinstance(gids, list)
                and set(map(type, gids)) <= _INT):
            return False
    return True


_INT = {int}


def _runs(objects: list[tuple]) -> list[list[int]] | None:
    """[[first, last], …]: the objects' numbers as runs of consecutive numbers, in order; None
    when one has a generation other than 0 (qpdf numbers every object it writes so)."""
    if any(gen != 0 for _, gen in objects):
        return None
    runs: list[list[int]] = []
    for number in sorted({num for num, _ in objects}):
        if runs and runs[-1][1] == number - 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    return runs


def _objects_record(found) -> bool:
    if not isinstance(found, dict):
        return False
    runs, page = found.get("runs"), found.get("page")
    return (isinstance(runs, list) and runs and type(page) is int
            and all(isinstance(r, list) and len(r) == 2 and type(r[0]) is int and type(r[1]) is int and r[0] <= r[1]
                    for r in runs)
            and any(first <= page <= last for first, last in runs)
            and isinstance(found.get("digest"), str) and isinstance(found.get("facts"), str)
            and isinstance(found.get("fonts"), list)
            and all(isinstance(f, list) and len(f) == 2 and type(f[0]) is int and isinstance(f[1], str)
                    for f in found["fonts"])
            and (found.get("key") is None or isinstance(found["key"], str))
            and isinstance(found.get("images"), list) and all(_image_record(i) for i in found["images"])
            and _trims_record(found.get("trims")) and isinstance(found.get("forms"), list)
            and all(isinstance(k, str) for k in found["forms"]) and isinstance(found.get("glyphs"), list)
            and all(isinstance(g, list) and len(g) == 3 and isinstance(g[0], int) and isinstance(g[1], int)
                    and isinstance(g[2], list) and set(map(type, g[2])) <= {int} for g in found["glyphs"]))


def _font_objects_record(found, number: int) -> bool:
    """{"runs": [[first, last], …], "digest": …}, the runs holding the font's own number."""
    if not isinstance(found, dict):
        return False
    runs = found.get("runs")
    return (isinstance(runs, list) and runs and isinstance(found.get("digest"), str)
            and all(isinstance(r, list) and len(r) == 2 and type(r[0]) is int and type(r[1]) is int and r[0] <= r[1]
                    for r in runs)
            and any(first <= number <= last for first, last in runs))


def _image_record(found) -> bool:
    return (isinstance(found, list) and len(found) == 3 and isinstance(found[0], str)
            and isinstance(found[1], list) and len(found[1]) == 2 and set(map(type, found[1])) <= {int}
            and isinstance(found[2], list) and len(found[2]) == 2 and set(map(type, found[2])) <= {int, float})


def _trims_record(found) -> bool:
    return isinstance(found, list) and all(
        isinstance(t, list) and len(t) == 4 and set(map(type, t)) <= {int, float} for t in found)
