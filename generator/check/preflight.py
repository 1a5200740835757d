"""Preflight: read a finished pack (and its manifest) back and check it will print right.

Runs at the end of every build and as `pnp preflight FILE.pdf`. Each finding names the
page and the card or piece. Checks:
  - every card's printed trim (measured from the PDF) has its declared size within 0.01 mm
    and sits where the manifest says;
  - every back is the exact duplex mirror of its front (for the flip and back offset used);
  - no crop mark enters a card's trim or printed bleed;
  - every font is embedded and every glyph drawn exists in it; every font listed, drawn with or
    not, is embedded, has a clean name, and its subset tag names one program only;
  - no raster image prints below 300 dpi;
  - every glyph on a card (its box measured in the file) lies inside the card's safe area;
  - a page holding a single board carries a TrimBox and a BleedBox;
  - every rulebook page lies inside the sheet's printable area, and no fold or staple mark enters one;
  - what a reader sees: no text under the game's minimum size (`min_text_pt`, 6 pt) on any page
    (a rulebook figure shown reduced, which its caption says, and a board printed reduced with --fit,
    whose page prints its scale, are exempt), no Markdown syntax left
    in the rulebook's text, and no page that no print run lists.

A build passes a memo (check/checked.py): the card and rulebook pages, and the forms' glyphs, that
an earlier passing check read in the very same bytes are taken from its record; the rest, and the
cheap checks, are read from the file in full. `pnp preflight` checks everything.
"""
from __future__ import annotations

import ctypes
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

import orjson
import pikepdf
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from generator.geometry import MIN_MARGIN, Rect, back_placement
from generator.check.checked import Memo, facts_json
from generator.check.pdfread import MM, content_key, font_resources, fonts, images, placed_forms, printed_chars, walk
from generator.source.words import count

TOLERANCE = 0.01     # mm
MIN_DPI = 300
MIN_TEXT_PT = 6.0    # the default of game.yaml's min_text_pt
SIZE_TOLERANCE = 0.05  # pt: a size set at the minimum reads back a hair under it


@dataclass
class Report:
    file: str
    pages: int = 0
    cards: int = 0
    boards: int = 0
    fonts: list[str] = field(default_factory=list)
    images: int = 0
    lowest_dpi: float | None = None
    findings: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings

    def summary(self) -> str:
        images = count(self.images, "image") + (f" (lowest {self.lowest_dpi:.0f} dpi)" if self.images else "")
        result = "ok" if self.ok else f"FAILED ({count(len(self.findings), 'problem')})"
        return (f"preflight {self.file}: {count(self.pages, 'page')}, {count(self.cards, 'card')}, "
                f"{count(self.boards, 'board page')}, {count(len(self.fonts), 'font')} embedded, {images} — {result}")


def preflight(pdf_path: Path, manifest_path: Path | None = None, display: str | None = None,
              memo: Memo | None = None, foreign: bool = False) -> Report:
    """Check the written file. A `foreign` manifest (not the one the build just wrote with the
    file) is first checked for every field the checks read (check/manifest.py)."""
    manifest_path = manifest_path or pdf_path.with_suffix(".json")
    report = Report(display or str(pdf_path))
    try:
        pdf = pikepdf.open(pdf_path)
    except (pikepdf.PdfError, OSError) as exc:
        report.findings.append(f"cannot read the PDF: {exc}")
        return report
    try:
        manifest = orjson.loads(manifest_path.read_bytes())
    except (OSError, ValueError) as exc:
        report.findings.append(f"cannot read the manifest {manifest_path.name}: {exc}")
        return report
    report.pages = len(pdf.pages)
    if foreign:
        from generator.check.manifest import problem as manifest_problem     # (its models load only here)
        unreadable = manifest_problem(manifest, report.pages)
        if unreadable:
            report.findings.append(f"the manifest {manifest_path.name} does not describe a pack: {unreadable}")
            return report
    if report.pages != len(manifest["pages"]):
        report.findings.append(f"the PDF has {report.pages} pages, the manifest lists {len(manifest['pages'])}")
        return report
    same = None
    if memo is not None:
        memo.begin()
        same = memo.unchanged_pages(pdf_path.read_bytes(), pdf)
    page_list = list(pdf.pages)         # (pdf.pages[i] copies qpdf's list of every page: slow in a loop)
    selected: dict = {}              # the fonts each content stream read selects (Tf)
    uses = fonts(pdf, memo, same, selected)  # before the pages: a page key hashes the glyphs its forms draw
    pages = _Pages(memo, manifest) if memo is not None else None
    _check_cards(page_list, manifest, report, pages)
    SafeText(pdf_path, manifest).check(report, pages)
    _check_boards(page_list, manifest, report, pages)
    _check_rulebook(page_list, manifest, report, pages)
    _check_info(page_list, manifest, pages)
    _check_runs(manifest, report)
    _check_reading(pdf_path, page_list, manifest, report, pages)
    _check_fonts(uses, report)
    _check_font_resources(pdf, report, memo)
    _check_fonts_selected(pdf, report, pages, selected)
    _check_images(pdf, report, memo)
    if pages is not None:
        pages.record(page_list)
    pdf.close()                     # its file is put in place next (Windows renames no open file)
    return report


class _Pages:
    """One preflight's use of a memo: each card, board, rulebook and info page's key, the pages taken from the
    record, and the ones checked in full with what they passed with (a page with a finding in any
    check is never recorded)."""

    def __init__(self, memo: Memo, manifest: dict):
        self.memo = memo
        options = manifest.get("print", {})
        self.options = [options.get("duplex", "long"), options.get("back_offset_mm", (0, 0)),
                        options.get("min_text_pt") or MIN_TEXT_PT]
        self.declared = {c["id"]: [c.get("trim_mm"), c.get("safe_mm")] for c in manifest["components"]
                         if c["kind"] == "deck"}
        self.keys: dict[int, str | None] = {}
        self.facts: dict[int, str] = {}
        self.taken: set[int] = set()
        self.passed: dict[int, list] = {}
        self.failed: set[int] = set()

    def recorded(self, page, entry: dict, front: list[Rect] | None = None) -> list | None:
        """The trims this page passed with before, or None: check it in full."""
        components = {str(s.get("component", entry.get("component"))) for s in entry.get("slots", ())}
        where = {k: v for k, v in entry.items() if k not in ("number", "front_page")}    # (said, not checked)
        facts = [where, self.options, {c: self.declared.get(c) for c in sorted(components)},
                 [[t.x, t.y, t.w, t.h] for t in front] if front is not None else None]
        number = entry["number"]
        self.facts[number] = hashlib.sha256(facts_json(facts)).hexdigest()[:32]
        same = self.memo.same.get(number)
        if same is not None and same["facts"] == self.facts[number]:
            self.taken.add(number)
            return self.memo.take_unchanged(number)
        key = self.keys[number] = self.memo.page_key(page, facts)
        found = self.memo.page(key)
        if found is not None:
            self.taken.add(number)
            self.passed[number] = found         # its objects are recorded for the next check
        return found

    def done(self, number: int, trims: list[Rect], clean: bool) -> None:
        if clean:
            self.passed[number] = [[t.x, t.y, t.w, t.h] for t in trims]
        else:
            self.failed.add(number)

    def record(self, page_list: list) -> None:
        for number, trims in self.passed.items():
            if number not in self.failed:
                if self.keys.get(number):
                    self.memo.remember_page(self.keys[number], trims)
                self.memo.remember_objects(number, page_list[number - 1], self.facts[number], trims,
                                           self.keys.get(number))


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE


def _check_cards(page_list: list, manifest, report: Report, pages: _Pages | None = None) -> None:
    declared = {c["id"]: c for c in manifest["components"] if c["kind"] == "deck"}
    print_opts = manifest.get("print", {})
    duplex, offset = print_opts.get("duplex", "long"), tuple(print_opts.get("back_offset_mm", (0, 0)))
    measured: dict[int, list[Rect]] = {}
    for entry in manifest["pages"]:
        if not entry["role"].startswith("cards"):
            continue
        number = entry["number"]
        page, findings = page_list[number - 1], len(report.findings)
        if pages is not None:
            recorded = pages.recorded(page, entry, measured.get(entry.get("front_page")))
            if recorded is not None:
                report.cards += sum(slot["side"] == "front" for slot in entry["slots"])
                measured[number] = [Rect(*t) for t in recorded]
                continue
        placed, segments = walk(page)
        if len(placed) != len(entry["slots"]):
            report.findings.append(f"page {number}: {len(placed)} cards placed, the manifest lists "
                                   f"{len(entry['slots'])}")
            continue
        trims = []
        for slot, item in zip(entry["slots"], placed):
            report.cards += slot["side"] == "front"
            card = f"page {number}, card {slot['card']} (copy {slot['copy']}, {slot['side']})"
            trim = item.trim
            if trim is None:
                report.findings.append(f"{card}: the placed card carries no trim box")
                continue
            trims.append(trim)
            if slot["side"] == "front" and item.label != slot["card"]:
                report.findings.append(f"{card}: the PDF places {item.label} here")
            w, h = declared[slot.get("component", entry["component"])]["trim_mm"]
            if not (_close(trim.w, w) and _close(trim.h, h)):
                report.findings.append(f"{card}: trim {trim.w:.2f} × {trim.h:.2f} mm, declared {w:g} × {h:g} mm")
            x, y, _, _ = slot["trim"]
            if not (_close(trim.x, x) and _close(trim.y, y)):
                report.findings.append(f"{card}: trim at ({trim.x:.2f}, {trim.y:.2f}) mm, the manifest says "
                                       f"({x:.2f}, {y:.2f})")
            for seg in segments:
                for area, what in ((trim, "trim"), (item.clip or item.rect, "bleed")):
                    if _crosses(seg, area):
                        report.findings.append(f"{card}: a crop mark enters its {what} area "
                                               f"({seg.x1:.1f}, {seg.y1:.1f})–({seg.x2:.1f}, {seg.y2:.1f}) mm")
        measured[number] = trims
        if "cut_area" in entry:
            _check_cutter(entry, placed, report)
        if entry["role"] == "cards-fold":
            _check_fold(entry, trims, report)
        if entry["role"] == "cards-back" and len(trims) == len(entry["slots"]):
            _check_back(entry, trims, measured.get(entry.get("front_page")), placed, duplex, offset, report)
        if pages is not None:
            pages.done(number, trims, len(report.findings) == findings)


def _check_cutter(entry, placed, report: Report) -> None:
    """On a cutter sheet every printed card (bleed included) lies inside the machine's cutting area,
    and every registration mark lies on the paper."""
    number = entry["number"]
    ax, ay, aw, ah = entry["cut_area"]
    area = Rect(ax, ay, aw, ah)
    for slot, item in zip(entry["slots"], placed):
        printed = item.clip or item.rect
        if not _inside(printed, area):
            report.findings.append(f"page {number}, card {slot['card']}: it crosses the {entry['cutter']} "
                                   f"cutting area ({printed.x:.1f}, {printed.y:.1f}, {printed.w:.1f} × {printed.h:.1f} mm)")
    pw, ph = entry["size"]
    for kind, x, y, a, b, _ in entry["registration"]:
        corners = [(x, y), (x + a, y + b)] if kind == "box" else [(x, y), (a, b)]
        if not all(-TOLERANCE <= cx <= pw + TOLERANCE and -TOLERANCE <= cy <= ph + TOLERANCE for cx, cy in corners):
            report.findings.append(f"page {number}: a registration mark lies off the paper")


def _inside(rect: Rect, area: Rect) -> bool:
    return (rect.x >= area.x - TOLERANCE and rect.y >= area.y - TOLERANCE
            and rect.x + rect.w <= area.x + area.w + TOLERANCE and rect.y + rect.h <= area.y + area.h + TOLERANCE)


SAFE_TOLERANCE = 0.25      # mm: a glyph's outline may touch the safe line


class SafeText:
    """Every glyph on a card, measured in the written file, lies inside the card's safe area: a
    stylesheet that enlarges text past it would otherwise print it into the cut. Pages the record
    takes whole (and those _check_cards takes by their key) are not read."""

    def __init__(self, pdf_path: Path, manifest: dict):
        self.path = pdf_path
        self.safe = {c["id"]: c.get("safe_mm") for c in manifest["components"] if c["kind"] == "deck"}
        self.entries = [e for e in manifest["pages"] if e["role"].startswith("cards")
                        and any(self.safe.get(s.get("component", e.get("component"))) for s in e["slots"])]

    def _read(self, entries: list[dict]) -> dict[int, list[str]]:
        """The findings of each entry's page, by page number."""
        if not entries:
            return {}
        document = pdfium.PdfDocument(str(self.path))
        try:
            return {e["number"]: _safe_text_on_page(document[e["number"] - 1], e, self.safe) for e in entries}
        finally:
            document.close()

    def check(self, report: Report, pages: _Pages | None = None) -> None:
        needed = [e for e in self.entries if not (pages is not None and e["number"] in pages.taken)]
        found = self._read(needed)
        for entry in needed:
            report.findings += found[entry["number"]]
            if pages is not None and found[entry["number"]]:
                pages.failed.add(entry["number"])


def _safe_text_on_page(page, entry, safe: dict) -> list[str]:
    """The findings of one card page; `safe`: each deck's safe margin (a shared sheet holds several decks).
    A page has hundreds or thousands of characters: each slot's numbers are looked up once a page, and
    a character's box is worked out as plain numbers (the same arithmetic as a Rect of it)."""
    height = page.get_size()[1]
    text = page.get_textpage()
    slots = []
    for slot in entry["slots"]:
        x, y, w, h = slot["bleed"]
        margin = safe.get(slot.get("component", entry.get("component"))) or 0.0
        tx, ty, tw, th = slot["trim"]
        slots.append((x, y, x + w, y + h, tx + margin, ty + margin, tx + tw - margin, ty + th - margin, margin,
                      (slot["card"], slot["side"]), slot["copy"]))
    outside: dict[tuple, list] = {}
    for char, left, bottom, right, top in _chars(text):
        bx, by, bw, bh = left * MM, (height - top) * MM, (right - left) * MM, (top - bottom) * MM
        if bw <= 0 or bh <= 0:
            continue
        cx, cy = bx + bw / 2, by + bh / 2
        for x0, y0, x1, y1, left_safe, top_safe, right_safe, bottom_safe, margin, card, copy in slots:
            if x0 <= cx <= x1 and y0 <= cy <= y1:
                over = max(left_safe - bx, top_safe - by, bx + bw - right_safe, by + bh - bottom_safe)
                if over > SAFE_TOLERANCE:
                    found = outside.setdefault(card, [0.0, "", copy, margin])
                    found[0] = max(found[0], over)
                    if copy == found[2] and len(found[1]) < 12:     # each copy prints the same
                        found[1] += char
                break
    return [f"page {entry['number']}, card {card} ({side}): text {chars!r} runs {over:.1f} mm "
            f"outside the {margin:g} mm safe area" for (card, side), (over, chars, _, margin) in outside.items()]


_BLANK = frozenset(" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006"
                   "\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufffe\ufeff")


def _chars(text) -> Iterator[tuple[str, float, float, float, float]]:
    """Each character pdfium reads on a page that is not blank (white space, a byte-order mark),
    with its box (left, bottom, right, top), by pdfium's own calls (pypdfium2's helpers make
    several calls and a buffer for each character, most of the time of a cold build's
    preflight). A character pdfium leaves out of the page's text (one it made up, or one without
    a Unicode value) is passed over, as the page's text passes over it."""
    raw = text.raw
    left, right, bottom, top = ctypes.c_double(), ctypes.c_double(), ctypes.c_double(), ctypes.c_double()
    index_of, unicode, box = (pdfium_c.FPDFText_GetTextIndexFromCharIndex, pdfium_c.FPDFText_GetUnicode,
                              pdfium_c.FPDFText_GetCharBox)
    for index in range(pdfium_c.FPDFText_CountChars(raw)):
        if index_of(raw, index) < 0:
            continue
        code = unicode(raw, index)
        if not box(raw, index, left, right, bottom, top):
            continue
        # a control code stands for something else in the text (a line-end hyphen is 2 here and
        # U+FFFE there), and a half of a surrogate pair for nothing: those are read as the text
        # reads them
        char = chr(code) if 0x20 <= code < 0xD800 or 0xE000 <= code < 0x110000 else text.get_text_range(index, 1)
        if char in _BLANK or not char.strip():
            continue
        yield char, left.value, bottom.value, right.value, top.value


def _check_back(entry, backs: list[Rect], fronts: list[Rect] | None, placed, duplex, offset, report) -> None:
    number = entry["number"]
    if fronts is None:
        report.findings.append(f"page {number}: a back page without its front page")
        return
    page = tuple(entry["size"])
    for slot, back, front, item in zip(entry["slots"], backs, fronts, placed):
        expected, rotation = back_placement(front, page, duplex, offset)
        if not (_close(back.x, expected.x) and _close(back.y, expected.y)):
            report.findings.append(
                f"page {number}, card {slot['card']} (copy {slot['copy']}, back): at ({back.x:.2f}, {back.y:.2f}) mm, "
                f"the {duplex}-edge mirror of its front is ({expected.x:.2f}, {expected.y:.2f})")
        if item.rotation != rotation:
            report.findings.append(f"page {number}, card {slot['card']} (back): turned {item.rotation}°, a {duplex}-edge "
                                   f"back needs {rotation}°")


def _check_fold(entry, trims: list[Rect], report) -> None:
    fold = entry["fold_x"]
    for i in range(0, len(trims) - 1, 2):
        front, back = trims[i], trims[i + 1]
        if not _close(back.x, 2 * fold - front.x - front.w) or not _close(back.y, front.y):
            slot = entry["slots"][i]
            report.findings.append(f"page {entry['number']}, card {slot['card']} (copy {slot['copy']}): its back is not "
                                   "the mirror of its front across the fold")


def _crosses(seg, rect: Rect) -> bool:
    x1, x2 = sorted((seg.x1, seg.x2))
    y1, y2 = sorted((seg.y1, seg.y2))
    return (x2 > rect.x + TOLERANCE and x1 < rect.x + rect.w - TOLERANCE
            and y2 > rect.y + TOLERANCE and y1 < rect.y + rect.h - TOLERANCE)


def _check_boards(page_list: list, manifest, report: Report, pages: _Pages | None = None) -> None:
    for entry in manifest["pages"]:
        if not entry["role"].startswith("board"):
            continue
        report.boards += 1
        page, findings = page_list[entry["number"] - 1], len(report.findings)
        if pages is not None:
            if pages.recorded(page, entry) is not None:
                continue
            pages.done(entry["number"], [], True)       # (its reading check may still fail it)
        if len(entry["pieces"]) == 1:
            missing = [box for box in ("/TrimBox", "/BleedBox") if box not in page.obj]
            if missing:
                report.findings.append(f"page {entry['number']}, {entry['pieces'][0]['piece']}: a single board without "
                                       f"{' and '.join(m[1:] for m in missing)}")
        if pages is not None and len(report.findings) > findings:
            pages.failed.add(entry["number"])


def _check_rulebook(page_list: list, manifest, report: Report, pages: _Pages | None = None) -> None:
    for entry in manifest["pages"]:
        if entry["role"] != "rulebook":
            continue
        page, findings = page_list[entry["number"] - 1], len(report.findings)
        if pages is not None and pages.recorded(page, entry) is not None:
            continue
        _rulebook_page(page, entry, report)
        if pages is not None:
            pages.done(entry["number"], [], len(report.findings) == findings)


def _check_info(page_list: list, manifest, pages: _Pages | None) -> None:
    """Page 1 and the other info pages have only the checks every page has (reading, fonts): one
    that passed in the same bytes before is taken from the memo, as a card sheet is."""
    if pages is None:
        return
    for entry in manifest["pages"]:
        if entry["role"] == "info" and pages.recorded(page_list[entry["number"] - 1], entry) is None:
            pages.done(entry["number"], [], True)       # (its reading check may still fail it)


def _rulebook_page(page, entry, report: Report) -> None:
    number = entry["number"]
    w, h = entry["size"]
    placed, segments = walk(page)
    expected = [s for s in entry["slots"] if s["page"]]
    if len(placed) != len(expected):
        report.findings.append(f"page {number}: {len(placed)} rulebook pages placed, the manifest lists {len(expected)}")
        return
    for item, slot in zip(placed, expected):
        r = item.rect
        if r.x < MIN_MARGIN - TOLERANCE or r.y < MIN_MARGIN - TOLERANCE or r.x + r.w > w - MIN_MARGIN + TOLERANCE \
                or r.y + r.h > h - MIN_MARGIN + TOLERANCE:
            report.findings.append(f"page {number}, rulebook page {slot['page']}: outside the printable area "
                                   f"({MIN_MARGIN:g} mm from the edge)")
        if any(_crosses(seg, r) for seg in segments):
            report.findings.append(f"page {number}, rulebook page {slot['page']}: a fold or staple mark enters it")


def _check_fonts(uses: dict, report: Report) -> None:
    """`uses`: pdfread.fonts of the file."""
    for use in uses.values():
        if not use.used:
            continue
        name = use.name.lstrip("/")
        if not use.embedded:
            report.findings.append(f"font {name} is not embedded")
            continue
        if name not in report.fonts:
            report.fonts.append(name)
        if use.missing:
            report.findings.append(f"font {name}: {len(use.missing)} glyphs drawn that the font does not have "
                                   f"(ids {', '.join(map(str, use.missing[:5]))})")


def _check_fonts_selected(pdf, report: Report, pages: _Pages | None = None, read: dict | None = None) -> None:
    """Every font a page or form selects (Tf) is in its resources: a viewer draws text set in a
    missing one in some substitute font, or not at all. `read`: the fonts the content streams
    the glyph count parsed select (pdfread.fonts), each stream parsed once."""
    faulty: dict = {}       # form -> whether it or a form inside it selects a font not listed
    read = read or {}

    def visit(owner, inherited, where: str) -> bool:
        resources = owner.get("/Resources") or inherited
        fonts = resources.get("/Font", {}) if isinstance(resources, pikepdf.Dictionary) else {}
        names = read.get(content_key(owner))
        if names is None:
            try:
                names = [str(ops[0]) for ops, _ in pikepdf.parse_content_stream(owner, "Tf")]
            except pikepdf.PdfError:
                return False
        missing = sorted(set(names) - set(fonts.keys()))
        for name in missing:
            report.findings.append(f"{where}: text is set in font {name}, which its resources do not list")
        found = bool(missing)
        xobjects = resources.get("/XObject", {}) if isinstance(resources, pikepdf.Dictionary) else {}
        for key, form in xobjects.items():
            if isinstance(form, pikepdf.Stream) and form.get("/Subtype") == "/Form":
                if form.objgen not in faulty:
                    faulty[form.objgen] = False
                    faulty[form.objgen] = visit(form, resources, f"{where}, form {key}")
                found |= faulty[form.objgen]      # a shared form's finding is named once, on its first page
        return found

    for number, page in enumerate(pdf.pages, 1):
        if pages is not None and number in pages.taken:
            continue
        if visit(page.obj, None, f"page {number}") and pages is not None:
            pages.failed.add(number)


FONT_NAME = re.compile(r"^([A-Z]{6}\+)?[A-Za-z0-9-]+$")


def _check_font_resources(pdf, report: Report, memo: Memo | None = None) -> None:
    """Fonts listed but never drawn with still count: every one embedded, each name clean, and a
    subset tag names one program only. In a file pnp just wrote (which writes every name as it
    reads, `/Type /Font`), only the objects whose bytes say so can be fonts."""
    programs: dict[str, tuple[str, str]] = {}
    among = memo.written.holding(b"/Type /Font") if memo is not None and memo.written is not None else None
    for font in dict.fromkeys(font_resources(pdf, among)):
        if not font.embedded:
            report.findings.append(f"font {font.name} is listed but not embedded")
        if not FONT_NAME.match(font.name):
            report.findings.append(f"font name {font.name!r} is not a clean PostScript name")
        if font.program is None or "+" not in font.name:
            continue
        tag = font.name.split("+", 1)[0]
        other = programs.setdefault(tag, (font.name, font.program))
        if other[1] != font.program:
            report.findings.append(f"fonts {other[0]} and {font.name} are different subsets sharing the tag {tag}+")


def _check_images(pdf, report: Report, memo: Memo | None = None) -> None:
    found = images(pdf, memo.same if memo is not None else None)
    if memo is not None:
        for image in found:
            memo.page_images.setdefault(image.page, []).append([image.owner, list(image.pixels), list(image.size_mm)])
    for image in found:
        report.images += 1
        report.lowest_dpi = image.dpi if report.lowest_dpi is None else min(report.lowest_dpi, image.dpi)
        if image.dpi < MIN_DPI:
            where = f", card {image.owner}" if image.owner else ""
            report.findings.append(f"page {image.page}{where}: image {image.pixels[0]} × {image.pixels[1]} px printed "
                                   f"{image.size_mm[0]:.1f} × {image.size_mm[1]:.1f} mm = {image.dpi:.0f} dpi "
                                   f"(needs {MIN_DPI})")


def _check_runs(manifest, report: Report) -> None:
    """Every page after page 1 is in a print run page 1 lists (a pack's runs; the rules file's
    rulebook): a page outside them is never printed as it should be, or printed by accident.
    Only a reprint's page 1 may run on (its list of changed cards)."""
    runs = manifest.get("runs") or [{"pages": c["pages"]} for c in manifest.get("components", []) if "pages" in c]
    listed = [range(r["pages"][0], r["pages"][1] + 1) for r in runs]
    leading = 0                                      # the info pages that open the file
    while leading < len(manifest["pages"]) and manifest["pages"][leading]["role"] == "info":
        leading += 1
    for entry in manifest["pages"]:
        number = entry["number"]
        page_one = number == 1 or (manifest.get("reprint") and number <= leading)
        if (page_one and entry["role"] == "info") or any(number in r for r in listed):
            continue
        report.findings.append(f"page {number} ({entry['role']}): no print run lists it — page 1 "
                               f"overflowed, or a section was left out of the runs")


MARKDOWN = ((re.compile(r"\|\s*:?-{3,}|-{3,}\s*\|"), "a Markdown table rule"),
            (re.compile(r"(?:^|\s)\|[^|\n]+\|"), "Markdown table pipes"),
            (re.compile(r"\*\*|__"), "Markdown emphasis marks"),
            (re.compile(r"^\s*(?:-|#{1,6})\s"), "a Markdown list or heading mark"),
            (re.compile(r"[.。;；!！?？)）]-\s"), "a Markdown list item run into the line before"))


def _check_reading(pdf_path: Path, page_list: list, manifest, report: Report, pages: _Pages | None) -> None:
    """Read every page as a reader would (pdfium's text): sizes, and Markdown in the rulebook.
    Pages the memo took whole passed these checks in the same bytes."""
    minimum = (manifest.get("print") or {}).get("min_text_pt") or MIN_TEXT_PT
    document = pdfium.PdfDocument(str(pdf_path))
    try:
        for entry in manifest["pages"]:
            number = entry["number"]
            if pages is not None and number in pages.taken:
                continue
            found = len(report.findings)
            page = document[number - 1]
            height = page.get_size()[1]
            text = page.get_textpage()
            exempt = _reduced_areas(entry, page_list[number - 1])
            _small_text(printed_chars(text, height), entry, minimum, exempt, report)
            if entry["role"] == "rulebook":
                _markdown_left(text, entry, height, report, manifest.get("title") or "")
            if pages is not None and len(report.findings) > found:
                pages.failed.add(number)
    finally:
        document.close()


def _reduced_areas(entry, page) -> list[Rect]:
    """Where a component is shown below its real size, saying so: a rulebook figure (its caption)
    and a board printed reduced with --fit (its page prints the scale). Its text is exempt from
    the minimum size."""
    if entry["role"] == "rulebook":
        return [rect for _, rect in placed_forms(page, _reduced)]
    return [Rect(*p["trim"]) for p in entry.get("pieces", []) if p.get("scale", 1) < 1 and "trim" in p]


def _reduced(form) -> bool:
    """A rulebook figure drawn below its real size (render/rulebook.py marks it and says so in
    its caption)."""
    return float(form.get("/PnpScale", 1)) < 1 - 1e-6


def _owners(entry) -> list[tuple[Rect, str]]:
    """What on a page a character belongs to: a card, a piece or a rulebook page, by its area."""
    if entry["role"].startswith("cards"):
        return [(Rect(*s["bleed"]), f"card {s['card']} ({s['side']})") for s in entry.get("slots", []) if "bleed" in s]
    if entry["role"].startswith("board"):
        return [(Rect(*p["trim"]), f"{p['piece']}") for p in entry.get("pieces", []) if "trim" in p]
    if entry["role"] == "rulebook":
        return [(Rect(*s["rect"]), f"rulebook page {s['page']}") for s in entry.get("slots", []) if s.get("page")]
    return []


def _owner(owners, x: float, y: float) -> str:
    for rect, name in owners:
        if rect.x <= x <= rect.x + rect.w and rect.y <= y <= rect.y + rect.h:
            return name
    return ""


def _small_text(chars, entry, minimum: float, exempt: list[Rect], report: Report) -> None:
    owners = _owners(entry)
    small: dict[str, list] = {}           # owner -> [smallest size, sample text]
    for char, size, x, y in chars:
        if size >= minimum - SIZE_TOLERANCE or size <= 0:
            continue
        if any(r.x <= x <= r.x + r.w and r.y <= y <= r.y + r.h for r in exempt):
            continue
        found = small.setdefault(_owner(owners, x, y), [size, ""])
        found[0] = min(found[0], size)
        if len(found[1]) < 16:
            found[1] += char
    for owner, (size, sample) in small.items():
        where = f"page {entry['number']}" + (f", {owner}" if owner else f" ({entry['role']})")
        report.findings.append(f"{where}: text {sample!r} prints at {size:.1f} pt, under the {minimum:g} pt minimum "
                               "(min_text_pt in game.yaml)")


def _markdown_left(text, entry, height: float, report: Report, title: str = "") -> None:
    """Markdown the rulebook's two passes left as text: a table or list that did not become one. A
    line that is the game's title is the designer's text, whatever it starts with ("- dash")."""
    for rect, name in _owners(entry) or [(None, "")]:
        if rect is None:
            content = text.get_text_range()
        else:
            content = text.get_text_bounded(rect.x / MM, height - (rect.y + rect.h) / MM,
                                            (rect.x + rect.w) / MM, height - rect.y / MM)
        for line in content.splitlines():
            if title and line.strip().startswith(title.strip()):
                continue
            for pattern, what in MARKDOWN:
                if pattern.search(line):
                    report.findings.append(f"page {entry['number']}{', ' + name if name else ''}: {what} printed "
                                           f"as text: {line.strip()[:60]!r}")
                    break
