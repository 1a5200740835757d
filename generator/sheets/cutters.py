"""Print-then-cut machines: where each one's registration marks go, the area it can cut, and the
cut file (SVG and DXF) that follows every card's trim — rounded where the deck has corners — and
every board's and token's outline (a circle for a round token) on the pieces' cutter sheets.

Figures are data (CUTTERS below); docs/printing.md says where each is published and which could
not be confirmed. Everything is in millimetres from the page's top-left, the frame of the PDF page
the file belongs to, so a cut file and its sheet line up without any offset.
"""
from __future__ import annotations

import io
import math
from dataclasses import dataclass

from generator.geometry import Rect, pt


@dataclass(frozen=True)
class Cutter:
    id: str
    name: str
    style: str                 # "corners": Silhouette type 1; "frame": Cricut's rectangle
    inset: float               # paper edge → outer edge of a mark
    length: float              # arm of an L mark
    thickness: float           # line width of a mark
    square: float              # the filled square (Silhouette's top-left mark, Cricut's corner block)
    clearance: float           # free band between a mark and anything printed
    max_area: tuple[float, float] | None = None      # the largest print-then-cut image, if limited


CUTTERS = {
    "silhouette": Cutter("silhouette", "Silhouette (Studio, type 1 marks)", "corners",
                         inset=10.0, length=20.0, thickness=0.5, square=5.0, clearance=2.0),
    "cricut": Cutter("cricut", "Cricut (Design Space Print Then Cut)", "frame",
                     inset=0.0, length=0.0, thickness=1.0, square=6.0, clearance=3.0,
                     max_area=(171.45, 234.95)),           # 6.75 × 9.25 in
}


@dataclass(frozen=True)
class Shape:
    """A registration mark: a filled rectangle (w, h) or a stroked line (to x2, y2)."""
    kind: str                  # "box" or "line"
    x: float
    y: float
    x2: float                  # box: width; line: end x
    y2: float                  # box: height; line: end y
    width: float = 0.0         # stroke width of a line

    def as_list(self) -> list:
        return [self.kind] + [round(v, 3) for v in (self.x, self.y, self.x2, self.y2, self.width)]


def cut_area(cutter: Cutter, page: tuple[float, float]) -> Rect:
    """Where cards (bleed included) may go on a cutter sheet of this size (portrait or landscape)."""
    pw, ph = page
    if cutter.style == "corners":
        start = cutter.inset + max(cutter.square, cutter.thickness) + cutter.clearance
        end = cutter.inset + cutter.thickness + cutter.clearance
        return Rect(start, start, pw - start - end, ph - start - end)
    w, h = cutter.max_area if pw <= ph else cutter.max_area[::-1]
    return Rect((pw - w) / 2, (ph - h) / 2, w, h)


def registration(cutter: Cutter, page: tuple[float, float]) -> list[Shape]:
    pw, ph = page
    t, half = cutter.thickness, cutter.thickness / 2
    if cutter.style == "corners":
        i, n = cutter.inset, cutter.length
        return [Shape("box", i, i, cutter.square, cutter.square),
                # top right: an L whose outer corner is (pw - i, i)
                Shape("line", pw - i - n, i + half, pw - i, i + half, t),
                Shape("line", pw - i - half, i, pw - i - half, i + n, t),
                # bottom left: outer corner (i, ph - i)
                Shape("line", i + half, ph - i - n, i + half, ph - i, t),
                Shape("line", i, ph - i - half, i + n, ph - i - half, t)]
    area = cut_area(cutter, page)
    frame = area.grown(*(cutter.clearance + half,) * 4)
    x0, y0, x1, y1 = frame.x, frame.y, frame.x + frame.w, frame.y + frame.h
    block = cutter.square
    return [Shape("line", x0, y0, x1, y0, t), Shape("line", x1, y0, x1, y1, t),
            Shape("line", x1, y1, x0, y1, t), Shape("line", x0, y1, x0, y0, t),
            Shape("box", x0 - half - block, y0 - half - block, block, block)]


def pdf_ops(shapes: list[Shape], page_height: float) -> str:
    """The marks as PDF content: pure black, so the machine's optical sensor finds them."""
    def n(v: float) -> str:
        text = f"{v:.4f}".rstrip("0").rstrip(".")
        return "0" if text in ("-0", "") else text
    ops = ["q 0 0 0 rg 0 0 0 RG 0 J"]
    for s in shapes:
        if s.kind == "box":
            ops.append(f"{n(pt(s.x))} {n(pt(page_height - s.y - s.y2))} {n(pt(s.x2))} {n(pt(s.y2))} re f")
        else:
            ops.append(f"{n(pt(s.width))} w {n(pt(s.x))} {n(pt(page_height - s.y))} m "
                       f"{n(pt(s.x2))} {n(pt(page_height - s.y2))} l S")
    ops.append("Q")
    return "\n".join(ops)


# --- cut files -------------------------------------------------------------------------

def _f(v: float) -> str:
    return f"{v:.3f}".rstrip("0").rstrip(".") or "0"


def svg(page: tuple[float, float], trims: list[tuple[Rect, float]], shapes: list[Shape],
        polygons: list = ()) -> bytes:
    """One sheet's cut file: the registration marks (to align with) and one closed path per trim
    (a radius of None: the circle inside the trim, a round token)."""
    w, h = page
    lines = ['<?xml version="1.0" encoding="UTF-8"?>',
             f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(w)}mm" height="{_f(h)}mm" '
             f'viewBox="0 0 {_f(w)} {_f(h)}">',
             '<g id="registration" fill="#000000" stroke="#000000">']
    for s in shapes:
        if s.kind == "box":
            lines.append(f'<rect x="{_f(s.x)}" y="{_f(s.y)}" width="{_f(s.x2)}" height="{_f(s.y2)}" stroke="none"/>')
        else:
            lines.append(f'<line x1="{_f(s.x)}" y1="{_f(s.y)}" x2="{_f(s.x2)}" y2="{_f(s.y2)}" '
                         f'stroke-width="{_f(s.width)}"/>')
    lines.append('</g>')
    lines.append('<g id="cut" fill="none" stroke="#ff0000" stroke-width="0.1">')
    for rect, radius in trims:
        if radius is None:
            lines.append(f'<circle cx="{_f(rect.x + rect.w / 2)}" cy="{_f(rect.y + rect.h / 2)}" '
                         f'r="{_f(min(rect.w, rect.h) / 2)}"/>')
            continue
        r = min(radius, rect.w / 2, rect.h / 2)
        corner = f' rx="{_f(r)}" ry="{_f(r)}"' if r > 0 else ""
        lines.append(f'<rect x="{_f(rect.x)}" y="{_f(rect.y)}" width="{_f(rect.w)}" height="{_f(rect.h)}"{corner}/>')
    for points in polygons:
        lines.append('<polygon points="' + " ".join(f"{_f(x)},{_f(y)}" for x, y in points) + '"/>')
    lines += ['</g>', '</svg>', '']
    return "\n".join(lines).encode("utf-8")


def dxf(page: tuple[float, float], trims: list[tuple[Rect, float]], shapes: list[Shape],
        polygons: list = ()) -> bytes:
    """The same cut file as DXF (R2010, millimetres, y up from the page's bottom edge): trims on
    layer CUT as closed polylines (arcs as bulges), marks on layer REGISTRATION."""
    import ezdxf

    # ezdxf stamps the time and fresh GUIDs into every file unless told to write fixed ones;
    # the same input must give the same bytes.
    before = ezdxf.options.write_fixed_meta_data_for_testing
    ezdxf.options.write_fixed_meta_data_for_testing = True
    try:
        return _dxf(ezdxf, page, trims, shapes, polygons)
    finally:
        ezdxf.options.write_fixed_meta_data_for_testing = before


def _dxf(ezdxf, page, trims, shapes, polygons=()) -> bytes:
    from ezdxf import units

    doc = ezdxf.new("R2010")
    doc.units = units.MM
    doc.layers.add("CUT", color=1)
    doc.layers.add("REGISTRATION", color=7)
    msp = doc.modelspace()
    h = page[1]
    for rect, radius in trims:
        if radius is None:
            msp.add_circle((rect.x + rect.w / 2, h - rect.y - rect.h / 2), min(rect.w, rect.h) / 2,
                           dxfattribs={"layer": "CUT"})
            continue
        msp.add_lwpolyline(_outline(rect, radius, h), format="xyb", close=True, dxfattribs={"layer": "CUT"})
    for points in polygons:
        msp.add_lwpolyline([(x, h - y) for x, y in points], format="xy", close=True, dxfattribs={"layer": "CUT"})
    for s in shapes:
        if s.kind == "box":
            box = Rect(s.x, s.y, s.x2, s.y2)
            msp.add_solid([(box.x, h - box.y), (box.x + box.w, h - box.y), (box.x, h - box.y - box.h),
                           (box.x + box.w, h - box.y - box.h)], dxfattribs={"layer": "REGISTRATION"})
        else:
            msp.add_line((s.x, h - s.y), (s.x2, h - s.y2), dxfattribs={"layer": "REGISTRATION",
                                                                      "lineweight": int(round(s.width * 100))})
    stream = io.StringIO()
    doc.write(stream)
    return stream.getvalue().encode("utf-8")


def _outline(rect: Rect, radius: float, page_h: float) -> list[tuple[float, float, float]]:
    """A (rounded) rectangle as polyline points with bulges, counter-clockwise in DXF's y-up frame."""
    x0, x1 = rect.x, rect.x + rect.w
    y0, y1 = page_h - rect.y - rect.h, page_h - rect.y          # bottom, top
    r = min(radius, rect.w / 2, rect.h / 2)
    if r <= 0:
        return [(x0, y0, 0), (x1, y0, 0), (x1, y1, 0), (x0, y1, 0)]
    b = math.tan(math.pi / 8)        # bulge of a quarter circle
    return [(x0 + r, y0, 0), (x1 - r, y0, b), (x1, y0 + r, 0), (x1, y1 - r, b),
            (x1 - r, y1, 0), (x0 + r, y1, b), (x0, y1 - r, 0), (x0, y0 + r, b)]


def _cutter_pages(manifest: dict) -> list[dict]:
    return [entry for entry in manifest["pages"] if "registration" in entry]


def cut_file_names(manifest: dict) -> list[str]:
    """The cut files of a pack, named for the page they belong to: page-03.svg, page-03.dxf …"""
    return [f"page-{e['number']:02d}.{ext}" for e in _cutter_pages(manifest) for ext in ("svg", "dxf")]


def cut_files(manifest: dict) -> dict[str, bytes]:
    """Every cutter sheet's cut files, from the manifest: the trims it lists and the marks it drew."""
    radius = {c["id"]: c.get("corner_radius_mm", 0.0) for c in manifest["components"] if c["kind"] == "deck"}
    files = {}
    for entry in _cutter_pages(manifest):
        page = tuple(entry["size"])
        polygons = [entry["outline"]] if "outline" in entry else []     # a tuck box: the net's outline
        if polygons:
            trims = []
        elif "cuts" in entry:            # a sheet of boards and tokens: each piece's outline
            trims = [(Rect(*c["trim"]), None if c["shape"] == "circle" else 0.0) for c in entry["cuts"]]
        else:
            trims = [(Rect(*slot["trim"]), radius[slot["component"]]) for slot in entry["slots"]]
        shapes = [Shape(kind, *values) for kind, *values in entry["registration"]]
        name = f"page-{entry['number']:02d}"
        files[f"{name}.svg"] = svg(page, trims, shapes, polygons)
        files[f"{name}.dxf"] = dxf(page, trims, shapes, polygons)
    return files
