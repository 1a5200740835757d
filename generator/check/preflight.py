"""Preflight: read a finished pack (and its manifest) back and check it will print right.

Runs at the end of every build and as `pnp preflight FILE.pdf`. Each finding names the
page and the card or piece. Checks:
  - every card's printed trim (measured from the PDF) has its declared size within 0.01 mm
    and sits where the manifest says;
  - every back is the exact duplex mirror of its front (for the flip and back offset used);
  - no crop mark enters a card's trim or printed bleed;
  - every font is embedded and every glyph drawn exists in it;
  - no raster image prints below 300 dpi;
  - a page holding a single board carries a TrimBox and a BleedBox;
  - every rulebook page lies inside the sheet's printable area, and no fold or staple mark enters one.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import pikepdf

from generator.geometry import MIN_MARGIN, Rect, back_placement
from generator.check.pdfread import fonts, images, walk

TOLERANCE = 0.01     # mm
MIN_DPI = 300


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
        images = f"{self.images} images" + (f" (lowest {self.lowest_dpi:.0f} dpi)" if self.images else "")
        result = "ok" if self.ok else f"FAILED ({len(self.findings)} problems)"
        return (f"preflight {self.file}: {self.pages} pages, {self.cards} cards, {self.boards} board pages, "
                f"{len(self.fonts)} fonts embedded, {images} — {result}")


def preflight(pdf_path: Path, manifest_path: Path | None = None, display: str | None = None) -> Report:
    manifest_path = manifest_path or pdf_path.with_suffix(".json")
    report = Report(display or str(pdf_path))
    try:
        pdf = pikepdf.open(pdf_path)
    except (pikepdf.PdfError, OSError) as exc:
        report.findings.append(f"cannot read the PDF: {exc}")
        return report
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        report.findings.append(f"cannot read the manifest {manifest_path.name}: {exc}")
        return report
    report.pages = len(pdf.pages)
    if report.pages != len(manifest["pages"]):
        report.findings.append(f"the PDF has {report.pages} pages, the manifest lists {len(manifest['pages'])}")
        return report
    _check_cards(pdf, manifest, report)
    _check_boards(pdf, manifest, report)
    _check_rulebook(pdf, manifest, report)
    _check_fonts(pdf, report)
    _check_images(pdf, report)
    return report


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE


def _check_cards(pdf, manifest, report: Report) -> None:
    declared = {c["id"]: c for c in manifest["components"] if c["kind"] == "deck"}
    print_opts = manifest.get("print", {})
    duplex, offset = print_opts.get("duplex", "long"), tuple(print_opts.get("back_offset_mm", (0, 0)))
    measured: dict[int, list[Rect]] = {}
    for entry in manifest["pages"]:
        if not entry["role"].startswith("cards"):
            continue
        number = entry["number"]
        placed, segments = walk(pdf.pages[number - 1])
        if len(placed) != len(entry["slots"]):
            report.findings.append(f"page {number}: {len(placed)} cards placed, the manifest lists "
                                   f"{len(entry['slots'])}")
            continue
        component = declared.get(entry["component"])
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
            w, h = component["trim_mm"]
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
        if entry["role"] == "cards-fold":
            _check_fold(entry, trims, report)
        if entry["role"] == "cards-back" and len(trims) == len(entry["slots"]):
            _check_back(entry, trims, measured.get(entry.get("front_page")), placed, duplex, offset, report)


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


def _check_boards(pdf, manifest, report: Report) -> None:
    for entry in manifest["pages"]:
        if not entry["role"].startswith("board"):
            continue
        report.boards += 1
        page = pdf.pages[entry["number"] - 1]
        if len(entry["pieces"]) == 1:
            missing = [box for box in ("/TrimBox", "/BleedBox") if box not in page.obj]
            if missing:
                report.findings.append(f"page {entry['number']}, {entry['pieces'][0]['piece']}: a single board without "
                                       f"{' and '.join(m[1:] for m in missing)}")


def _check_rulebook(pdf, manifest, report: Report) -> None:
    for entry in manifest["pages"]:
        if entry["role"] != "rulebook":
            continue
        number = entry["number"]
        w, h = entry["size"]
        placed, segments = walk(pdf.pages[number - 1])
        expected = [s for s in entry["slots"] if s["page"]]
        if len(placed) != len(expected):
            report.findings.append(f"page {number}: {len(placed)} rulebook pages placed, the manifest lists {len(expected)}")
            continue
        for item, slot in zip(placed, expected):
            r = item.rect
            if r.x < MIN_MARGIN - TOLERANCE or r.y < MIN_MARGIN - TOLERANCE or r.x + r.w > w - MIN_MARGIN + TOLERANCE \
                    or r.y + r.h > h - MIN_MARGIN + TOLERANCE:
                report.findings.append(f"page {number}, rulebook page {slot['page']}: outside the printable area "
                                       f"({MIN_MARGIN:g} mm from the edge)")
            if any(_crosses(seg, r) for seg in segments):
                report.findings.append(f"page {number}, rulebook page {slot['page']}: a fold or staple mark enters it")


def _check_fonts(pdf, report: Report) -> None:
    for use in fonts(pdf).values():
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


def _check_images(pdf, report: Report) -> None:
    for image in images(pdf):
        report.images += 1
        report.lowest_dpi = image.dpi if report.lowest_dpi is None else min(report.lowest_dpi, image.dpi)
        if image.dpi < MIN_DPI:
            where = f", card {image.owner}" if image.owner else ""
            report.findings.append(f"page {image.page}{where}: image {image.pixels[0]} × {image.pixels[1]} px printed "
                                   f"{image.size_mm[0]:.1f} × {image.size_mm[1]:.1f} mm = {image.dpi:.0f} dpi "
                                   f"(needs {MIN_DPI})")
