"""Read-back helpers for tests: what a built pack really contains."""
from __future__ import annotations


from pypdf import PdfReader

from generator.check.pdfread import walk

PAPER_PT = {"a4": (595.276, 841.89), "letter": (612.0, 792.0)}


def page_text(path, number: int) -> str:
    return PdfReader(str(path)).pages[number - 1].extract_text()


def document_text(path) -> str:
    return "".join(page.extract_text() for page in PdfReader(str(path)).pages)


def card_pages(pdf, manifest, roles=("cards-front", "cards-back", "cards")):
    """(manifest page entry, placements read from the PDF) for card sheets."""
    for entry in manifest["pages"]:
        if entry["role"] in roles:
            placed, segments = walk(pdf.pages[entry["number"] - 1])
            yield entry, placed, segments


def intersects(seg, rect, tolerance=0.05) -> bool:
    """Does a horizontal or vertical segment touch the inside of a rectangle?"""
    x1, x2 = sorted((seg.x1, seg.x2))
    y1, y2 = sorted((seg.y1, seg.y2))
    return (x2 > rect.x + tolerance and x1 < rect.x + rect.w - tolerance
            and y2 > rect.y + tolerance and y1 < rect.y + rect.h - tolerance)
