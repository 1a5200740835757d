"""Tuck boxes: a printable box for a deck (or a group of decks), sized from the card size, the number
of cards in the pack and the stock's thickness, with cut lines, dashed fold lines, a glue flap, the
deck's name on the front and sides and the deck's own back on the back panel.

The net, left to right: front | side | back | side | glue flap. The lid and its tuck flap hang from
the back panel's top edge, the bottom and its tuck flap from the front panel's bottom edge; dust
flaps close the sides. Millimetres from the net's top-left; `Net` says where each panel is, and the
manifest records it so a test can measure the printed lines against it.
"""
from __future__ import annotations

import io
from collections import Counter
from dataclasses import dataclass

from generator.geometry import BOX_PLAY, MIN_MARGIN, PAPERS, Rect, box_depth, tiles
from generator.pdfbytes import open_pdf
from generator.sheets.sections import Body, Section

PLAY = BOX_PLAY           # mm of room beyond the cards in each direction, so the deck slides in and out
GLUE = 10.0              # mm glue flap
STOCK_MM = 0.32          # mm a 250 g/m² card is thick (200 g ≈ 0.25, 300 g ≈ 0.38)


@dataclass(frozen=True)
class Net:
    width: float          # W: inside width of the front and back panels
    height: float         # H: inside height
    depth: float          # D: the sides, lid and bottom
    tuck: float           # T: the tuck flaps

    @property
    def size(self) -> tuple[float, float]:
        return 2 * self.width + 2 * self.depth + GLUE, self.height + 2 * self.depth + 2 * self.tuck

    def panels(self) -> dict[str, Rect]:
        W, H, D, T = self.width, self.height, self.depth, self.tuck
        top = T + D
        return {"front": Rect(0, top, W, H), "side-left": Rect(W, top, D, H), "back": Rect(W + D, top, W, H),
                "side-right": Rect(2 * W + D, top, D, H), "glue": Rect(2 * W + 2 * D, top, GLUE, H),
                "lid": Rect(W + D, T, W, D), "top-tuck": Rect(W + D, 0, W, T),
                "bottom": Rect(0, top + H, W, D), "bottom-tuck": Rect(0, top + H + D, W, T)}

    def folds(self) -> list[tuple[float, float, float, float]]:
        """Dashed lines: where the net folds (x1, y1, x2, y2)."""
        W, H, D, T = self.width, self.height, self.depth, self.tuck
        top, low = T + D, T + D + H
        lines = [(x, top, x, low) for x in (W, W + D, 2 * W + D, 2 * W + 2 * D)]
        lines += [(W + D, top, 2 * W + D, top), (W + D, T, 2 * W + D, T)]           # lid, top tuck
        lines += [(0, low, W, low), (0, low + D, W, low + D)]                         # bottom, bottom tuck
        lines += [(W, top, W + D, top), (2 * W + D, top, 2 * W + 2 * D, top)]         # top dust flaps
        lines += [(W, low, W + D, low), (2 * W + D, low, 2 * W + 2 * D, low)]         # bottom dust flaps
        return lines

    def outline(self) -> list[tuple[float, float]]:
        """The cut line around the whole net, a closed polygon."""
        W, H, D, T = self.width, self.height, self.depth, self.tuck
        top, low = T + D, T + D + H
        dust = min(D, 0.8 * W / 2)
        k = min(3.0, W / 6)      # the tuck flaps' and dust flaps' slanted corners
        return [(0, top), (W, top), (W + 1, top - dust), (W + D - 1, top - dust), (W + D, top),
                (W + D, T), (W + D + k, 0), (2 * W + D - k, 0), (2 * W + D, T), (2 * W + D, top),
                (2 * W + D + 1, top - dust), (2 * W + 2 * D - 1, top - dust), (2 * W + 2 * D, top),
                (2 * W + 2 * D + GLUE, top + 4), (2 * W + 2 * D + GLUE, low - 4), (2 * W + 2 * D, low),
                (2 * W + 2 * D - 1, low + dust), (2 * W + D + 1, low + dust), (2 * W + D, low),
                (W + D, low), (W + D - 1, low + dust), (W + 1, low + dust), (W, low),
                (W, low + D), (W - k, low + D + T), (k, low + D + T), (0, low + D)]


def net_for(trim: tuple[float, float], cards: int, stock_mm: float) -> Net:
    depth = box_depth(cards, stock_mm)
    return Net(trim[0] + PLAY, trim[1] + PLAY, round(depth, 3), round(min(25.0, max(12.0, 0.8 * depth)), 3))


def placement(net: Net, paper: str) -> tuple[tuple[float, float], tuple[float, float]] | None:
    """(page size, where the net's top-left goes) on the orientation that holds it whole, or None."""
    w, h = net.size
    for pw, ph in (PAPERS[paper], PAPERS[paper][::-1]):
        if w <= pw - 2 * MIN_MARGIN and h <= ph - 2 * MIN_MARGIN:
            return (pw, ph), ((pw - w) / 2, (ph - h) / 2)
    return None


def cutter_placement(net: Net, paper: str, cutter) -> tuple[tuple[float, float], tuple[float, float], Rect] | None:
    """(page size, the net's top-left, the cut area) with the net inside a cutting machine's
    area, on the orientation that holds it; None when neither does."""
    from generator.sheets.cutters import cut_area
    w, h = net.size
    for page in (PAPERS[paper], PAPERS[paper][::-1]):
        area = cut_area(cutter, page)
        if w <= area.w and h <= area.h:
            return page, (area.x + (area.w - w) / 2, area.y + (area.h - h) / 2), area
    return None


def draw(net: Net, paper: str, title: str, pen_for, cutter=None, font: str | None = None) -> list[tuple[bytes, dict]]:
    """The box as one page (or tiles glued together when it is larger than the paper): PDF bytes
    and, per page, the net's offset and clip (mm) for the manifest. With a cutter the net goes
    inside its cutting area when it fits there ("cut_area" then says where that is). `font`: the
    registered font the canvas starts in."""
    from reportlab.pdfgen.canvas import Canvas
    machine = cutter_placement(net, paper, cutter) if cutter is not None else None
    spot = machine[:2] if machine else placement(net, paper)
    parts = ([(spot[0], Rect(0, 0, *net.size), Rect(*spot[1], *net.size))] if spot else
             [(t.page, t.area, t.at) for t in tiles(net.size, paper)])
    out = []
    for page, area, at in parts:
        buffer = io.BytesIO()
        canvas = Canvas(buffer, pagesize=tuple(v * 72 / 25.4 for v in page), invariant=1, pageCompression=1,
                        initialFontName=font)       # (None: reportlab's Helvetica, listed and never embedded)
        pen = pen_for(canvas, page[1])
        canvas.saveState()
        clip = canvas.beginPath()
        clip.rect(*pen.xy(at.x, at.y + at.h), at.w * 72 / 25.4, at.h * 72 / 25.4)
        canvas.clipPath(clip, stroke=0, fill=0)
        _draw_net(pen.at(at.x - area.x, at.y - area.y), net, title)
        canvas.restoreState()
        canvas.showPage()
        canvas.save()
        where = {"page": list(page), "origin": [round(at.x - area.x, 3), round(at.y - area.y, 3)],
                 "shows": area.as_list(), "at": at.as_list()}
        if machine:
            where["cut_area"] = machine[2].as_list()
        out.append((buffer.getvalue(), where))
    return out


def _draw_net(pen, net: Net, title: str) -> None:
    panels = net.panels()
    glue = panels["glue"]
    pen.rect(glue.x, glue.y, glue.w, glue.h, fill="#eeeeee")
    outline = net.outline()
    pen.line(outline + [outline[0]], stroke="#000000", line=0.5)
    for x1, y1, x2, y2 in net.folds():
        pen.line([(x1, y1), (x2, y2)], stroke="#666666", line=0.4, dash=True)
    front = panels["front"]
    pen.text(title, front.x + 4, front.y + front.h * 0.4, size=14, bold=True, align="centre", width=front.w - 8)
    for side in ("side-left", "side-right"):
        r = panels[side]
        if r.w >= 6:
            pen.text(title, r.x + r.w / 2 + 2.2, r.y + r.h / 2, size=min(9, r.w * 0.6), bold=True,
                     align="centre", rotate=90)


class BoxSheets:
    """The pack's tuck boxes, one section each, printed on card stock."""

    def __init__(self, assets, game, rendered, faces: dict, options):
        self.assets, self.game, self.rendered, self.faces, self.options = assets, game, rendered, faces, options

    def groups(self) -> list[list]:
        spec = self.game.spec.tuck_boxes
        if spec is None:
            return []
        if spec.groups is not None:
            return [[self.game.decks[d] for d in group] for group in spec.groups]
        return [[deck] for deck in self.game.decks.values() if deck.spec.stock == "card"]

    def sections(self, pack) -> list[Section]:
        sections = []
        for group in self.groups():
            decks = [d for d in group if d.id in pack.decks]
            cards = sum(copies for d in decks for _, copies in self.game.pack_cards(pack, d.id))
            if not cards:
                continue
            net = net_for(decks[0].trim, cards, self.game.spec.tuck_boxes.stock_mm)
            name = " · ".join(d.spec.name for d in decks)
            section = Section(f"box-{'-'.join(d.id for d in decks)}", name, "box", "card", 1, [(decks, net, cards)])
            sections.append(section)
        return sections

    def draw(self, body: Body, imposer, sections: list[Section], paper: str) -> None:
        from generator.render.pen import Pen, register_fonts, registered
        from generator.sheets.cutters import CUTTERS
        register_fonts(self.assets)
        cutter = CUTTERS[self.options.cutter] if self.options.cutter else None
        for section in sections:
            (decks, net, cards), = section.items
            parts = draw(net, paper, section.name, lambda canvas, h: Pen(canvas, self.assets, h,
                                                                          ink_saver=self.options.ink_saver), cutter,
                         registered(self.assets.fonts[0]))
            for number, (data, where) in enumerate(parts, 1):
                page = _append(body, data)
                if len(parts) == 1:
                    self._back(imposer, page, decks, net, where)
                panels = {k: _moved(r, where["origin"]).as_list() for k, r in net.panels().items()}
                entry = {"role": "tuck-box", "size": where["page"], "components": [section.id],
                         "box": {"decks": [d.id for d in decks], "cards": cards,
                                 "stock_mm": self.game.spec.tuck_boxes.stock_mm,
                                 "width": net.width, "height": net.height, "depth": net.depth, "tuck": net.tuck,
                                 "panels": panels}}
                if len(parts) > 1:
                    entry["tile"] = {"number": number, "of": len(parts), "area": where["shows"]}
                if "cut_area" in where:
                    entry.update(_registration(body, page, cutter, net, where))
                body.add(entry, section, run=section.run)

    def _back(self, imposer, page, decks, net: Net, where) -> None:
        """On the box's back panel, the card's trim centred in it: the face `show:` chooses for one
        of its decks, else the deck's back (see _deck_back)."""
        chosen = (self.game.spec.tuck_boxes.show or {}) if self.game.spec.tuck_boxes else {}
        deck = next((d for d in decks if d.id in chosen), decks[0])
        label = f"{deck.id} back"
        if deck.id in chosen:
            face = self.faces.get((deck.id, chosen[deck.id], "face"))
            label = f"{deck.id}/{chosen[deck.id]} face"
        else:
            face = _deck_back(self.faces, self.rendered, deck.id)
        if face is None:
            return
        panel = _moved(net.panels()["back"], where["origin"])
        trim = Rect(panel.x + PLAY / 2, panel.y + PLAY / 2, deck.trim[0], deck.trim[1])
        key = self.rendered.key_of(face)
        imposer.place(page, [(key, self.rendered.pages[key], trim, panel, deck.bleed, label)],
                      page_size=tuple(where["page"]))


def _registration(body: Body, page, cutter, net: Net, where) -> dict:
    """A cutter's marks drawn on the box's page, and what its cut file needs: the net's outline."""
    import pikepdf
    from generator.sheets import cutters
    size = tuple(where["page"])
    shapes = cutters.registration(cutter, size)
    page.contents_add(pikepdf.Stream(body.pdf, b"q\n"), prepend=True)
    page.contents_add(pikepdf.Stream(body.pdf, b"\nQ\n" + cutters.pdf_ops(shapes, size[1]).encode()))
    ox, oy = where["origin"]
    return {"cutter": cutter.id, "cut_area": where["cut_area"], "registration": [s.as_list() for s in shapes],
            "outline": [[round(x + ox, 3), round(y + oy, 3)] for x, y in net.outline()]}


def _deck_back(faces: dict, rendered, deck_id: str):
    """The back the deck's cards share: the first card's whose back several cards have (one back
    for all, or one per player colour). A deck whose cards each have a back of their own (a
    character's other side) has none to show: card 1's would stand for every card."""
    backs = [(f, rendered.key_of(f)) for (d, _, side), f in faces.items() if d == deck_id and side == "back"]
    cards = Counter(key for _, key in backs)
    return next((f for f, key in backs if cards[key] > 1), None)


def _moved(rect: Rect, origin) -> Rect:
    return Rect(round(rect.x + origin[0], 3), round(rect.y + origin[1], 3), rect.w, rect.h)


def _append(body: Body, data: bytes):
    import pikepdf
    drawn = open_pdf(data)
    body.keep.append(drawn)
    body.pdf.pages.append(drawn.pages[0])
    page = body.pdf.pages[-1]
    if "/XObject" not in page.Resources:          # the deck's back is placed as a form
        page.Resources.XObject = pikepdf.Dictionary()
    return page
