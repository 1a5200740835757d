"""`pnp gallery GAME`: a static web page of every card and board, from the same renders.

build/<game>/gallery/index.html shows each card of the pack (front, back, how many copies),
each board and token, a deck filter and a search by name; the images sit beside it in
img/. It needs no server and no network (`pnp serve` serves it on localhost for a browser
that will not open local files). Card text in the page is escaped like all card text.
"""
from __future__ import annotations

import functools
import http.server
from dataclasses import dataclass

from babel import Locale, UnknownLocaleError
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from generator.source.assets import Assets
from generator.atomic import write_atomic
from generator.sheets.kit import check_game, faces_for, pick_pack
from generator.source.game import Game
from generator.source.i18n import plural_forms, translator
from generator.geometry import PieceSheet, Placement, Rect
from generator.source.project import Project
from generator.export.raster import Frame, draw_pages, faces_pdf
from generator.render.cards import CardRenderer
from generator.check.validate import context as expression_context

CARD_DPI = 150        # sharp on a laptop screen at twice the card's size, ~60 KB a card
BOARD_PX = 1400       # the longer side of a board's image


@dataclass
class Entry:
    kind: str            # "card" or "piece"
    group: str           # deck or "pieces"
    group_name: str
    id: str
    name: str
    count: int
    front: str
    back: str | None
    size: str


def build_gallery(project: Project, assets: Assets, game_id: str, players: int | None = None, jobs: int = 1,
                  say=print, lang: str | None = None) -> str:
    game = check_game(project, assets, game_id, lang).game
    assets = assets.edition(game.spec.language)
    pack = pick_pack(game, players)
    folder = gallery_folder(project, game)
    renderer = CardRenderer(project, assets, game)
    faces = faces_for(game, renderer, [pack])
    rendered = renderer.render(list(faces.values()), jobs=jobs)
    keys = list(dict.fromkeys(f.key for f in faces.values()))
    frames = [Frame.at_dpi(next(f.page_size for f in faces.values() if f.key == k), CARD_DPI) for k in keys]
    images = dict(zip(keys, draw_pages(faces_pdf([rendered.pages[k] for k in keys], assets), frames, jobs)))
    for key, data in images.items():
        write_atomic(folder / "img" / f"{key}.png", data, durable=False)
    entries = []
    for deck in game.decks.values():
        if deck.id not in pack.decks:
            continue
        for card, copies in game.pack_cards(pack, deck.id):
            back = faces.get((deck.id, card.id, "back"))
            entries.append(Entry("card", deck.id, deck.spec.name, card.uid, _name(card), copies,
                                 f"img/{faces[(deck.id, card.id, 'face')].key}.png",
                                 f"img/{back.key}.png" if back else None,
                                 f"{deck.trim[0]:g} × {deck.trim[1]:g} mm"))
    entries += _pieces(project, assets, game, pack, folder)
    used = {e.front for e in entries} | {e.back for e in entries if e.back}
    for old in (folder / "img").glob("*.png"):       # images of cards since changed
        if f"img/{old.name}" not in used:
            old.unlink()
    fonts = [{"family": f.family, "weight": f.weight, "url": f"fonts/{f.path.stem}.ttf"} for f in assets.fonts]
    page = _page(game, pack, entries, fonts)
    _subset_fonts(assets, folder, page)
    write_atomic(folder / "index.html", page.encode("utf-8"))
    target = project.display(folder / "index.html")
    cards = sum(1 for e in entries if e.kind == "card")
    say(f"wrote {target} ({cards} cards, {len(entries) - cards} boards and tokens; open it, or run pnp serve)")
    return target


def _subset_fonts(assets: Assets, folder, page: str) -> None:
    """The bundled fonts, cut down to the page's characters, so the page reads the same on a
    machine without Chinese fonts (a few dozen KB each)."""
    import uharfbuzz as hb
    wanted = {ord(c) for c in page}
    for font in assets.fonts:
        face = hb.Face(hb.Blob.from_file_path(str(font.path)))
        plan = hb.SubsetInput()
        plan.sets(hb.SubsetInputSets.UNICODE).update(wanted & set(face.unicodes))
        write_atomic(folder / "fonts" / f"{font.path.stem}.ttf", bytes(hb.subset(face, plan).blob.data), durable=False)


def _name(card) -> str:
    return str(card.fields.get("name") or card.fields.get("title") or card.id)


def _pieces(project: Project, assets: Assets, game: Game, pack, folder) -> list[Entry]:
    """Each board, map and token once (the first player's colour for per-player ones)."""
    counts = game.piece_counts.get(pack.key, {})
    wanted = [p for p in game.pieces.values() if counts.get(p.id)]
    if not wanted:
        return []
    from generator.render.pieces import PieceCopy, PieceDrawer
    drawer = PieceDrawer(assets, game)
    colours = game.spec.player_colours
    sheets, sides = [], []
    for piece in wanted:
        player = colours[0] if piece.per_player and colours else None
        for side in ("front", "back") if piece.back is not None else ("front",):
            copy = PieceCopy(piece, 1, player, side)
            w, h = copy.size
            sheets.append(PieceSheet((w, h), [Placement(copy, Rect(0, 0, w, h))]))
            sides.append((piece, side))
    pdf = drawer.draw_sheets(sheets, pack, expression_context(game))
    frames = [Frame.at_dpi(s.page, BOARD_PX / max(s.page) * 25.4) for s in sheets]
    images = draw_pages(pdf, frames)
    files = {}
    for (piece, side), data in zip(sides, images):
        name = f"img/piece-{piece.id}-{side}.png"
        write_atomic(folder / name, data, durable=False)
        files[(piece.id, side)] = name
    group = translator(game.spec.language).gettext("Boards and tokens")
    return [Entry("piece", "pieces", group, p.id, p.name, counts[p.id], files[(p.id, "front")], files.get((p.id, "back")), f"{p.size.width:g} × {p.size.height:g} mm") for p in wanted]




def gallery_folder(project: Project, game: Game):
    """build/<game>/gallery, or gallery-<lang> when the game has several languages."""
    return project.build / game.id / f"gallery{game.name_suffix}"


def _editions(game: Game) -> list[dict]:
    """Links between the galleries of a game's languages, each named in its own language."""
    out = []
    for lang in game.languages:
        try:
            locale = Locale.parse(lang.replace("-", "_"))
            name = locale.get_display_name(locale) or lang
        except (ValueError, UnknownLocaleError):
            name = lang
        out.append({"lang": lang, "name": name, "current": lang == game.language,
                    "href": f"../gallery{'-' + lang if len(game.languages) > 1 else ''}/index.html"})
    return out


def _page(game: Game, pack, entries: list[Entry], fonts: list[dict]) -> str:
    from generator.source.project import ENGINE_TEMPLATES
    env = Environment(loader=FileSystemLoader(ENGINE_TEMPLATES), extensions=["jinja2.ext.i18n"],
                      autoescape=select_autoescape(default=True, default_for_string=True))
    lang = game.spec.language
    env.install_gettext_translations(translator(lang), newstyle=True)
    groups = list(dict.fromkeys((e.group, e.group_name) for e in entries))
    stack = ", ".join(f'"{f}"' for f in dict.fromkeys(f["family"] for f in fonts))
    expr, designs = plural_forms(lang, "%(num)d design", "%(num)d designs")
    plural = {"expr": Markup(expr), "designs": designs, "copies": plural_forms(lang, "%(num)d copy", "%(num)d copies")[1]}
    return env.get_template("base/gallery.html").render(game=game.spec, pack=pack, entries=entries, groups=groups,
                                                        fonts=fonts, stack=stack, plural=plural,
                                                        editions=_editions(game))


def serve(project: Project, port: int, say=print, ready=None) -> None:
    """Serve build/ on localhost until interrupted."""
    handler = functools.partial(_QuietHandler, directory=str(project.build))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        games = sorted(p.parent.parent.name for p in project.build.glob("*/gallery/index.html"))
        say(f"serving build/ on http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C stops)")
        for game_id in games:
            say(f"  http://127.0.0.1:{server.server_address[1]}/{game_id}/gallery/")
        if ready:
            ready(server)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):   # one line per request is noise on a designer's terminal
        pass

