"""`pnp export GAME --shop tgc|mpc|dtc|png`: card images (and a PDF) for print shops.

Every card of one pack, every copy, front and back, as a PNG with bleed at the shop's
pixel size, named `<deck>-<id>-<copy>.png` (backs `<deck>-<id>-<copy>-back.png`), zipped
with counts.csv. `png` is no particular shop: each card at its own trim + bleed at --dpi.
For dtc a PDF is written too: one card per page at the shop's size, its back after it.

A shop prints fixed products. A deck whose trim is within MATCH_MM of a product's is
scaled to it (63 × 88 mm to 2.5 × 3.5 in is +0.8 %); a deck that matches none (a 95 ×
126 mm reference sheet) is left out, and the command says so.
"""
from __future__ import annotations

import csv
import io
import zipfile
from dataclasses import dataclass

import pikepdf
from pikepdf import Array, Dictionary, Name

from generator.source.assets import Assets
from generator.atomic import writing
from generator.sheets.kit import check_game, faces_for, pick_pack
from generator.errors import PnpError, Problem
from generator.source.game import Card, Deck, Game
from generator.geometry import pt
from generator.sheets.impose import Imposer, slot_label
from generator.source.project import Project
from generator.export.raster import MM_PER_INCH, Frame, draw_pages, faces_pdf
from generator.export.rulebook import pack_rulebook
from generator.render.cards import CardRenderer
from generator.source.words import count

MATCH_MM = 2.0
ZIP_TIME = (1980, 1, 1, 0, 0, 0)      # fixed, so the same cards give the same zip


@dataclass(frozen=True)
class Product:
    name: str
    trim_in: tuple[float, float]        # inches
    bleed_px: float                     # per side, at 300 dpi

    def trim_mm(self) -> tuple[float, float]:
        return self.trim_in[0] * MM_PER_INCH, self.trim_in[1] * MM_PER_INCH

    def size_px(self, dpi: int) -> tuple[int, int]:
        k = dpi / 300
        return (round((self.trim_in[0] * 300 + 2 * self.bleed_px) * k),
                round((self.trim_in[1] * 300 + 2 * self.bleed_px) * k))


def _products(bleed_px: float, sizes: dict[str, tuple[float, float]]) -> list[Product]:
    return [Product(name, size, bleed_px) for name, size in sizes.items()]


# The shops' card templates (trim in inches; bleed at 300 dpi): The Game Crafter and
# DriveThruCards add 1/8 in (37.5 px) per side, poker 825 × 1125 px; MakePlayingCards 36 px,
# poker 822 × 1122 px.
CARD_PRODUCTS = {"poker": (2.5, 3.5), "bridge": (2.25, 3.5), "mini": (1.75, 2.5), "tarot": (2.75, 4.75),
                 "square": (3.5, 3.5)}
SHOPS = {
    "tgc": _products(37.5, CARD_PRODUCTS),
    "dtc": _products(37.5, CARD_PRODUCTS),
    "mpc": _products(36, {**CARD_PRODUCTS, "square": (2.5, 2.5)}),
}
SHOP_NAMES = {"tgc": "The Game Crafter", "dtc": "DriveThruCards", "mpc": "MakePlayingCards", "png": "PNG"}


def product_for(shop: str, trim: tuple[float, float]) -> Product | None:
    for product in SHOPS[shop]:
        w, h = product.trim_mm()
        if abs(w - trim[0]) <= MATCH_MM and abs(h - trim[1]) <= MATCH_MM:
            return product
    return None


@dataclass
class Item:
    """One card image in the zip: a card's side, every copy of it."""
    deck: Deck
    card: Card
    side: str
    copies: int
    face_key: str
    frame: Frame
    product: Product | None

    def names(self) -> list[str]:
        suffix = "-back" if self.side == "back" else ""
        return [f"{self.deck.id}-{self.card.id}-{n}{suffix}.png" for n in range(1, self.copies + 1)]


def left_out_lines(game_id: str, left_out: list) -> list[str]:
    """One line per reason the shop leaves pieces out (not one per piece: a game has dozens);
    counts.csv lists each of them."""
    by_reason: dict[str, list] = {}
    for piece, why in left_out:
        by_reason.setdefault(why, []).append(piece)
    lines = []
    for why, pieces in by_reason.items():
        names = ", ".join(p.id for p in pieces[:3]) + (", …" if len(pieces) > 3 else "")
        lines.append(f"{game_id}: left out {count(len(pieces), 'piece')} ({names}): {why}; counts.csv lists each")
    return lines


def export_shop(project: Project, assets: Assets, game_id: str, shop: str, dpi: int = 300,
                players: int | None = None, jobs: int = 1, pdfx: bool = False, icc: str | None = None,
                say=print, lang: str | None = None) -> list[str]:
    profile = None
    if pdfx:
        from generator.export.pdfx import find_profile
        profile = find_profile(project.root, icc)
    checked = check_game(project, assets, game_id, lang)
    game = checked.game
    assets = assets.edition(game.spec.language)
    pack = pick_pack(game, players)
    renderer = CardRenderer(project, assets, game, art_dpi=dpi)      # pictures as fine as the images need
    faces = faces_for(game, renderer, [pack])
    items, skipped = _items(game, pack, faces, shop, dpi)
    for deck, why in skipped:
        say(f"{game_id}: left out deck '{deck.id}' ({deck.spec.name}): {why}")
    if not items:
        raise PnpError(Problem(f"cards/{game_id}/game.yaml", None, f"no card of this pack fits a {SHOP_NAMES[shop]} "
                               "product"))
    _unique_names(items, game.id)
    rendered = renderer.render([faces[(i.deck.id, i.card.id, i.side)] for i in items], jobs=jobs)
    unique = list(dict.fromkeys((i.face_key, i.frame) for i in items))
    pdf = faces_pdf([rendered.pages[key] for key, _ in unique], assets)
    images = dict(zip(unique, draw_pages(pdf, [frame for _, frame in unique], jobs, dpi)))
    pieces, left_out = _pieces(assets, game, pack, shop, dpi)
    for line in left_out_lines(game_id, left_out):
        say(line)
    rules = pack_rulebook(project, assets, checked, renderer, pack)
    base = project.build / game.id / f"{game.id}-{pack.key}-{shop}-{dpi}dpi{game.name_suffix}"
    decks_left = [(deck, sum(n for _, n in game.pack_cards(pack, deck.id)), why) for deck, why in skipped]
    with writing(base.with_suffix(".zip")) as handle:     # streamed: memory stays flat however many copies
        _zip(handle, items, images, shop, dpi, pieces, left_out, game.piece_counts[pack.key], rules, decks_left)
    written = [project.display(base.with_suffix(".zip"))]
    say(f"wrote {written[0]} ({count(sum(len(i.names()) for i in items), 'card image')}, "
        f"{count(sum(i.copies for i in items if i.side == 'face'), 'card')}, {count(len(pieces), 'piece image')}"
        f"{_rulebook_said(rules)})")
    if shop == "dtc":
        target = project.build / game.id / f"{game.id}-{pack.key}-dtc{'-pdfx' if pdfx else ''}{game.name_suffix}.pdf"
        pictures = {}
        if profile is not None:
            items, rendered, pictures = _own_colour_faces(project, assets, game, pack, shop, dpi, jobs)
        with writing(target) as handle:
            shop_pdf(handle, game, items, rendered, assets, dpi, profile, pictures)
        written.append(project.display(target))
        say(f"wrote {written[-1]} (one card per page, each back after its front"
            f"{f'; PDF/X-4 for the printing condition of {profile.name}' if profile else ''})")
    return written


def _own_colour_faces(project, assets, game, pack, shop: str, dpi: int, jobs: int):
    """For PDF/X: the items rendered again with each picture in its own colours, and the pictures'
    profiles (prepared file -> ICC profile) for export/pdfx.py to tag them with."""
    renderer = CardRenderer(project, assets, game, art_dpi=dpi, keep_profiles=True)
    faces = faces_for(game, renderer, [pack])
    items, _ = _items(game, pack, faces, shop, dpi)
    rendered = renderer.render([faces[(i.deck.id, i.card.id, i.side)] for i in items], jobs=jobs)
    return items, rendered, {project.root / url: icc for url, icc in renderer.art.profiles.items()}


def _items(game: Game, pack, faces: dict, shop: str, dpi: int):
    items, skipped = [], []
    for deck in game.decks.values():
        if deck.id not in pack.decks:
            continue
        product = None
        if shop != "png":
            product = product_for(shop, deck.trim)
            if product is None:
                skipped.append((deck, f"{SHOP_NAMES[shop]} prints no card of {deck.trim[0]:g} × {deck.trim[1]:g} mm"))
                continue
        for card, copies in game.pack_cards(pack, deck.id):
            for side in ("face", "back") if deck.spec.back else ("face",):
                face = faces[(deck.id, card.id, side)]
                items.append(Item(deck, card, side, copies, face.key, _frame(face.page_size, deck.trim, product, dpi),
                                  product))
    return items, skipped


def _frame(page_mm, trim_mm, product: Product | None, dpi: int) -> Frame:
    if product is None:
        return Frame.at_dpi(page_mm, dpi)
    width, height = product.size_px(dpi)
    return Frame.fitted(page_mm, trim_mm, width, height, (product.trim_in[0] * dpi, product.trim_in[1] * dpi))


def _unique_names(items: list[Item], game_id: str) -> None:
    """No two images may share a name in the zip, whatever the case: deck `actions` card `x-1`
    and deck `actions-x` card `1` would both be actions-x-1-1.png (and Mirror/mirror one file
    on macOS or Windows)."""
    seen: dict[str, Item] = {}
    for item in items:
        for name in item.names():
            other = seen.setdefault(name.lower(), item)
            if other is not item:
                raise PnpError(Problem(item.card.file, item.card.line, f"card '{item.card.uid}' and card "
                                       f"'{other.card.uid}' would both be exported as {name}",
                                       "rename one of the cards (or decks)"))


def _pieces(assets: Assets, game: Game, pack, shop: str, dpi: int):
    """Boards, maps and tokens: every piece as an image at its printed size for `png`; a print shop's
    card products do not take them, so there they are listed on the order sheet with the reason."""
    wanted = [p for p in game.pieces.values() if game.piece_counts[pack.key].get(p.id)]
    if shop != "png":
        return [], [(p, f"{SHOP_NAMES[shop]} card products take no {p.size.width:g} × {p.size.height:g} mm "
                        "board or token: print it from the pack") for p in wanted]
    from generator.export.piece_images import piece_images
    return piece_images(assets, game, pack, dpi=dpi, every_colour=True), []


def _piece_names(image, counts: dict) -> list[str]:
    """piece-<id>-<copy>.png: a per-player piece once per its copies in each colour."""
    piece = image.piece
    each = int(piece.per_player) if piece.per_player else counts[piece.id]
    first = image.player * each + 1
    suffix = "-back" if image.side == "back" else ""
    return [f"piece-{piece.id}-{n}{suffix}.png" for n in range(first, first + each)]


RULEBOOK_FILE = "rulebook.pdf"


def _rulebook_said(rules) -> str:
    return f", the rulebook ({count(rules.pages, 'page')})" if rules else ""


def _zip(handle, items: list[Item], images: dict, shop: str, dpi: int, pieces=(), left_out=(), counts=None,
         rules=None, decks_left=()) -> None:
    """Write the archive to an open file, entry by entry: every copy of an image is written from
    the one image's bytes (`images` holds each distinct image once), and nothing gathers the
    archive in memory, so 10,000 copies cost disk, not RAM."""
    with zipfile.ZipFile(handle, "w", zipfile.ZIP_STORED) as archive:   # PNGs are compressed already
        for item in items:
            for name in item.names():
                _entry(archive, name, images[(item.face_key, item.frame)])
        for image in pieces:
            for name in _piece_names(image, counts):
                _entry(archive, name, image.png)
        if rules is not None:
            _entry(archive, RULEBOOK_FILE, rules.pdf)
        _entry(archive, "counts.csv", _counts_csv(items, shop, dpi, pieces, left_out, counts or {}, rules, decks_left),
               zipfile.ZIP_DEFLATED)


def _entry(archive: zipfile.ZipFile, name: str, data: bytes | str, compression: int = zipfile.ZIP_STORED) -> None:
    """One file into the zip, stamped ZIP_TIME so the same cards give the same bytes."""
    info = zipfile.ZipInfo(name, ZIP_TIME)
    info.compress_type = compression
    archive.writestr(info, data)


def _counts_csv(items: list[Item], shop: str, dpi: int, pieces=(), left_out=(), counts=None, rules=None,
                decks_left=()) -> str:
    """The order sheet: what to order of every image, and every deck and piece the shop cannot print,
    with why."""
    out = io.StringIO()
    writer = _SafeCsv(out)
    writer.writerow(["kind", "deck", "card", "name", "count", "product", "width_px", "height_px", "dpi", "fronts",
                     "backs", "note"])
    backs = {(i.deck.id, i.card.id): i for i in items if i.side == "back"}
    for item in items:
        if item.side != "face":
            continue
        back = backs.get((item.deck.id, item.card.id))
        name = item.card.fields.get("name") or item.card.fields.get("title") or item.card.id
        note = (f"square full-bleed image: ask the shop for {item.deck.corner_radius:g} mm rounded corners"
                if item.deck.corner_radius and shop != "png" else "")
        writer.writerow(["card", item.deck.id, item.card.id, name, item.copies, item.product.name if item.product else "",
                         item.frame.width, item.frame.height, dpi, " ".join(item.names()),
                         " ".join(back.names()) if back else "", note])
    for deck, copies, why in decks_left:
        writer.writerow(["deck", deck.id, "", deck.spec.name, copies, "", "", "", "", "", "",
                         f"{why}: print it from the pack"])
    fronts = [i for i in pieces if i.side == "front"]
    for image in fronts:
        back = next((b for b in pieces if b.side == "back" and b.piece is image.piece and b.player == image.player),
                    None)
        names = _piece_names(image, counts)
        width, height = _png_size(image.png)
        writer.writerow(["piece", "pieces", image.piece.id, image.piece.name, len(names), "", width, height, dpi,
                         " ".join(names), " ".join(_piece_names(back, counts)) if back else "", ""])
    for piece, why in left_out:
        writer.writerow(["piece", "pieces", piece.id, piece.name, counts.get(piece.id, 0), "", "", "", "", "", "", why])
    if rules is not None:
        w, h = rules.size_mm
        writer.writerow(["rulebook", "", "rulebook", rules.title, 1, "", "", "", "", RULEBOOK_FILE, "",
                         f"{count(rules.pages, 'page')} of {w:g} × {h:g} mm in reading order: print double-sided, "
                         "fold and staple as a booklet"])
    return out.getvalue()


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(cell):
    """A text cell a spreadsheet would take for a formula (a card named `=1+2` or `@SUM(1)`)
    starts with an apostrophe, which the spreadsheet shows as text (OWASP's CSV injection rule)."""
    return "'" + cell if isinstance(cell, str) and cell.startswith(FORMULA_START) else cell


class _SafeCsv:
    """csv.writer whose text cells go through spreadsheet_safe."""

    def __init__(self, out):
        self._writer = csv.writer(out, lineterminator="\n")

    def writerow(self, row) -> None:
        self._writer.writerow([spreadsheet_safe(cell) for cell in row])


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's header, without decoding it."""
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def shop_pdf(out, game: Game, items: list[Item], rendered, assets: Assets, dpi: int, profile=None,
             pictures=None) -> None:
    """Write to the open file `out` one card per page at the product's size (trim + the shop's
    bleed), each back after its front, every copy; TrimBox and BleedBox on every page. The face
    sits on the page exactly as in its PNG (same scale, centred). Every copy's page draws the
    one form of its face, so copies add pages, not images."""
    from generator.render.fontmerge import merge_fonts
    pdf = pikepdf.new()
    imposer = Imposer(pdf)
    backs = {(i.deck.id, i.card.id): i for i in items if i.side == "back"}
    for item in (i for i in items if i.side == "face"):
        back = backs.get((item.deck.id, item.card.id))
        for _ in range(item.copies):
            for side in (item, back) if back else (item,):
                _card_page(pdf, imposer, side, rendered, dpi)
    imposer.settle_fonts()
    merge_fonts(pdf, assets)
    if profile is not None:
        from generator.export.pdfx import make_pdfx, tag_pictures
        tag_pictures(pdf, pictures or {})
        make_pdfx(pdf, f"{game.spec.title} — {SHOP_NAMES['dtc']}", profile)
    pdf.save(out, deterministic_id=True, compress_streams=True, min_version="1.6" if profile else "")


def _card_page(pdf: pikepdf.Pdf, imposer: Imposer, item: Item, rendered, dpi: int) -> None:
    frame, product = item.frame, item.product
    page_w, page_h = (px / dpi * MM_PER_INCH for px in (frame.width, frame.height))
    zoom = frame.scale * MM_PER_INCH / dpi           # card mm per page mm
    dx = (page_w - frame.page_mm[0] * zoom) / 2
    dy = (page_h - frame.page_mm[1] * zoom) / 2
    form = imposer.form(item.face_key, rendered.pages[item.face_key], item.deck.bleed,
                        slot_label(item.deck.id, item.card, item.side))
    trim_w, trim_h = product.trim_mm()
    bx, by = (page_w - trim_w) / 2, (page_h - trim_h) / 2
    page = Dictionary(Type=Name.Page, MediaBox=Array([0, 0, pt(page_w), pt(page_h)]),
                      TrimBox=Array([pt(bx), pt(by), pt(page_w - bx), pt(page_h - by)]),
                      BleedBox=Array([0, 0, pt(page_w), pt(page_h)]),
                      Resources=Dictionary(XObject=Dictionary(Card=form)),
                      Contents=pikepdf.Stream(pdf, f"q {zoom:.6f} 0 0 {zoom:.6f} {pt(dx):.4f} {pt(dy):.4f} cm "
                                                   "/Card Do Q".encode()))
    pdf.pages.append(pikepdf.Page(page))
