"""Card faces as images, for print shops, Tabletop Simulator and the gallery.

The cached canonical faces are gathered into one PDF (one page per face, fonts merged),
which pdfium draws page by page in worker processes. A `Frame` says how a face lands on
an image: the scale that makes the card's trim cover the wanted trim in pixels (and its
bleed cover the whole image), cropped around the centre. A card of 63 × 88 mm bound for a
shop's 2.5 × 3.5 in template is thus enlarged by under 1 %, and never shows a white edge.
"""
from __future__ import annotations

import io
from dataclasses import dataclass

import pikepdf

from generator.source.assets import Assets
from generator.render.fontmerge import merge_fonts
from generator.render.workers import worker_pool

MM_PER_INCH = 25.4
PT_PER_INCH = 72


@dataclass(frozen=True)
class Frame:
    """An image of width × height px showing a face page of page_mm (trim + bleeds)."""
    width: int
    height: int
    scale: float                 # px per mm
    page_mm: tuple[float, float]

    @classmethod
    def at_dpi(cls, page_mm: tuple[float, float], dpi: float) -> "Frame":
        """The whole page (trim and bleed) at this resolution."""
        scale = dpi / MM_PER_INCH
        return cls(round(page_mm[0] * scale), round(page_mm[1] * scale), scale, page_mm)

    @classmethod
    def fitted(cls, page_mm, trim_mm, width: int, height: int, trim_px: tuple[float, float]) -> "Frame":
        """A shop's template: the card's trim covers trim_px and its page covers the image."""
        scale = max(trim_px[0] / trim_mm[0], trim_px[1] / trim_mm[1], width / page_mm[0], height / page_mm[1])
        return cls(width, height, scale, page_mm)

    def crop_box(self, rendered: tuple[int, int]) -> tuple[int, int, int, int]:
        left = round((rendered[0] - self.width) / 2)
        top = round((rendered[1] - self.height) / 2)
        return left, top, left + self.width, top + self.height


def faces_pdf(pages: list[pikepdf.Page], assets: Assets) -> bytes:
    """One PDF of these face pages with their fonts merged in, ready to draw."""
    pdf = pikepdf.new()
    for page in pages:
        pdf.pages.append(page)
    merge_fonts(pdf, assets)
    buffer = io.BytesIO()
    pdf.save(buffer, deterministic_id=True)
    return buffer.getvalue()


_WORK = None     # (pdf bytes, frames, dpi) shared with forked workers


def _draw_range(span: tuple[int, int]) -> list[bytes]:
    import pypdfium2
    data, frames, dpi, fmt = _WORK
    document = pypdfium2.PdfDocument(data)
    out = []
    try:
        for index in range(*span):
            out.append(_draw(document[index], frames[index], dpi, fmt))
    finally:
        document.close()
    return out


def _draw(page, frame: Frame, dpi: float | None, fmt: str) -> bytes:
    image = page.render(scale=frame.scale * MM_PER_INCH / PT_PER_INCH).to_pil()
    image = image.crop(frame.crop_box(image.size)).convert("RGB")
    if fmt == "raw":
        return image.tobytes()
    buffer = io.BytesIO()
    # Level 1: PNGs of flat card art come out no larger than at level 6, three times faster.
    extra = {"dpi": (dpi, dpi)} if dpi else {}
    image.save(buffer, format="PNG", compress_level=1, **extra)
    return buffer.getvalue()


def draw_pages(pdf: bytes, frames: list[Frame], jobs: int = 1, dpi: float | None = None,
               fmt: str = "png") -> list[bytes]:
    """Page i of pdf drawn in frames[i]: PNG bytes (or raw RGB with fmt='raw'), in order."""
    global _WORK
    count = len(frames)
    step = max(1, -(-count // (max(1, jobs) * 4)))       # a few spans per worker balance the load
    spans = [(i, min(count, i + step)) for i in range(0, count, step)]
    _WORK = (pdf, frames, dpi, fmt)
    try:
        if jobs <= 1 or len(spans) <= 1:
            results = [_draw_range(span) for span in spans]
        else:
            with worker_pool(jobs) as pool:
                results = list(pool.map(_draw_range, spans))
    finally:
        _WORK = None
    return [image for chunk in results for image in chunk]


def cut_preview(png: bytes, bleed_mm: float, radius_mm: float, dpi: float) -> bytes:
    """A face image as the card looks once cut: bleed trimmed off, corners rounded (transparent).
    For on-screen previews only; print-shop images stay square and full-bleed (the shop rounds)."""
    from PIL import Image, ImageDraw
    image = Image.open(io.BytesIO(png)).convert("RGBA")
    inset = round(bleed_mm * dpi / MM_PER_INCH)
    image = image.crop((inset, inset, image.width - inset, image.height - inset))
    mask = Image.new("L", image.size, 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, image.width - 1, image.height - 1),
                                           radius=radius_mm * dpi / MM_PER_INCH, fill=255)
    image.putalpha(mask)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1, dpi=(dpi, dpi))
    return buffer.getvalue()
