"""`pnp calibrate`: a two-sided sheet from which a printer's back-side offset is read.

The front carries two scales through the page centre; the back carries one thin red
cross at the point that lies behind the centre for the chosen flip. Printed duplex and
held against the light, the cross shows on the scales, and the numbers it crosses are the
--back-offset that corrects this printer (the scales are labelled with the correction,
already turned into the back page's coordinates).
"""
from __future__ import annotations

import io

from reportlab.pdfgen.canvas import Canvas

from generator.source.assets import Assets
from generator.geometry import PT
from generator.geometry import PAPERS, Rect, back_placement
from generator.render.pen import Pen, register_fonts, registered
from generator.source.i18n import translator

SPAN = 10       # mm either side of each scale's zero
STEP = 0.5      # mm between ticks (labels every 2 mm)
SCALE_GAP = 25  # mm from the page centre to each scale


def correction_per_mm(page: tuple[float, float], duplex: str) -> tuple[tuple[float, float], tuple[float, float]]:
    """For a front-frame displacement of +1 mm along x and along y, the back offset that cancels it.
    The flips are axis-aligned mirrors, so x readings only ever correct X and y readings Y."""
    cx, cy = page[0] / 2, page[1] / 2
    origin, _ = back_placement(Rect(cx, cy, 0, 0), page, duplex)
    along_x, _ = back_placement(Rect(cx + 1, cy, 0, 0), page, duplex)
    along_y, _ = back_placement(Rect(cx, cy + 1, 0, 0), page, duplex)
    # a back printed off by e shows the cross displaced by s with M(c + s) = M(c) + e; we want −e
    return (-(along_x.x - origin.x), -(along_x.y - origin.y)), (-(along_y.x - origin.x), -(along_y.y - origin.y))


def calibration_sheet(assets: Assets, paper: str, duplex: str, lang: str = "en") -> bytes:
    register_fonts(assets)
    t = translator(lang)
    page = PAPERS[paper]
    w, h = page
    buffer = io.BytesIO()
    canvas = Canvas(buffer, pagesize=(w * PT, h * PT), invariant=1, initialFontName=registered(assets.fonts[0]))
    pen = Pen(canvas, assets, h)
    (xx, _), (_, yy) = correction_per_mm(page, duplex)
    cx, cy = w / 2, h / 2
    flip = {"long": t.gettext("long edge"), "short": t.gettext("short edge"),
            "none": t.gettext("long edge (turned by hand)"), "gutterfold": t.gettext("long edge")}[duplex]
    pen.text(t.gettext("Printer calibration · %(paper)s · flip on the %(flip)s") % {"paper": paper.upper(), "flip": flip},
             15, 15, size=16, bold=True)
    steps = [
        t.gettext("1. Print these two pages two-sided on the paper and with the settings you print cards with "
                  "(actual size 100 %%, flip on the %(flip)s).") % {"flip": flip},
        t.gettext("2. Hold the sheet against the light: the thin red cross of the back shows through."),
        t.gettext("3. Where the red vertical line crosses the horizontal scale reads X; where the horizontal line "
                  "crosses the vertical scale reads Y (in mm, to 0.5)."),
        t.gettext("4. Run pnp calibrate --printer NAME --offset X,Y (for example --offset 1.5,-0.5); later builds "
                  "correct the backs by it."),
        t.gettext("When both lines cross 0, this printer aligns fronts and backs well and needs no correction."),
    ]
    top = 26
    for line in steps:
        top += pen.text(line, 15, top, size=9, width=w - 30) + 1
    # Two scales, each crossed by one arm of the back's cross: a horizontal one below the centre
    # (read X where the red vertical line crosses it) and a vertical one right of it (read Y).
    # Positions are front-frame millimetres; labels are the correction they stand for.
    hx, hy = cx, cy + SCALE_GAP          # zero of the horizontal scale
    vx, vy = cx + SCALE_GAP, cy          # zero of the vertical scale
    pen.line([(hx - SPAN, hy), (hx + SPAN, hy)], stroke="#000000", line=0.3)
    pen.line([(vx, vy - SPAN), (vx, vy + SPAN)], stroke="#000000", line=0.3)
    for i in range(-int(SPAN / STEP), int(SPAN / STEP) + 1):
        d = i * STEP
        size = 4 if i % 4 == 0 else (2.8 if i % 2 == 0 else 1.6)
        pen.line([(hx + d, hy - size), (hx + d, hy)], stroke="#000000", line=0.15)
        pen.line([(vx, vy + d), (vx + size, vy + d)], stroke="#000000", line=0.15)
        if i % 4 == 0:   # every 2 mm; the horizontal labels alternate between two rows to stay apart
            row = (i // 4) % 2
            pen.text(_label(d * xx), hx + d - 4, hy + 1 + row * 3, size=6, align="centre", width=8)
            pen.text(_label(d * yy), vx + 5, vy + d - 1.2, size=6)
    pen.text("X", hx + SPAN + 2, hy - 2.5, size=9, bold=True)
    pen.text("Y", vx - 1.5, vy + SPAN + 2, size=9, bold=True)
    pen.circle(cx, cy, 0.8, stroke="#000000", line=0.2)
    pen.text(t.gettext("X: where the red vertical line crosses the horizontal scale below; Y: where the red "
                       "horizontal line crosses the vertical scale on the right"), cx - 80, cy + SCALE_GAP + 12,
             size=7.5, align="centre", width=160)
    pen.rect(10, 10, w - 20, h - 20, stroke="#bbbbbb", line=0.3)
    canvas.showPage()
    # the back: the thin cross lies behind the centre for this flip
    back = Pen(canvas, assets, h)
    spot, _ = back_placement(Rect(cx, cy, 0, 0), page, duplex)
    arm = SCALE_GAP + 15            # long enough to cross both scales on the front
    back.line([(spot.x, spot.y - arm), (spot.x, spot.y + arm)], stroke="#d0021b", line=0.25)
    back.line([(spot.x - arm, spot.y), (spot.x + arm, spot.y)], stroke="#d0021b", line=0.25)
    back.text(t.gettext("Back of the calibration sheet: read the scales of the front against the light"), 15, 15, size=10, fill="#999999")
    canvas.showPage()
    canvas.save()
    return buffer.getvalue()


def _label(value: float) -> str:
    text = f"{value:+g}" if value else "0"
    return text.replace("-", "−")
