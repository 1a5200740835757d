"""`pnp gallery GAME`: a static web page of every card and board, from the same renders.

build/<game>/gallery/index.html shows each card of the pack (front, back, how many copies),
each board and token, a deck filter and a search by name; the images sit beside it in
img/. It needs no server and no network (`pnp serve` serves it on localhost for a browser
that will not open local files). Card text in the page is escaped like all card text.
"""
from __future__ import annotations

import functools
import re
import http.server
from dataclasses import dataclass
from html import escape
from urllib.parse import quote, unquote, urlsplit

from babel import Locale, UnknownLocaleError
from jinja2 import Environment, FileSystemLoader, select_autoescape
from markupsafe import Markup

from generator.source.assets import Assets
from generator.atomic import refuse_links, remove_outputs, write_atomic
from generator.sheets.kit import check_game, faces_for, pick_pack
from generator.source.game import Game
from generator.source.i18n import plural_forms, translator
from generator.source.project import Project
from generator.export.piece_images import piece_images
from generator.export.raster import Frame, cut_preview, draw_pages, faces_pdf
from generator.render.cards import CardRenderer
from generator.source.words import count

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
    for sub in ("img", "fonts"):           # before a file is written there
        refuse_links(folder / sub, project.build)
    renderer = CardRenderer(project, assets, game)
    faces = faces_for(game, renderer, [pack])
    rendered = renderer.render(list(faces.values()), jobs=jobs)
    keys = list(dict.fromkeys(f.key for f in faces.values()))
    frames = [Frame.at_dpi(next(f.page_size for f in faces.values() if f.key == k), CARD_DPI) for k in keys]
    images = dict(zip(keys, draw_pages(faces_pdf([rendered.pages[k] for k in keys], assets), frames, jobs)))
    for key in keys:        # rounded decks are shown cut, as they will be held
        deck = next(f.deck for f in faces.values() if f.key == key)
        if deck.corner_radius > 0:
            images[key] = cut_preview(images[key], deck.bleed, deck.corner_radius, CARD_DPI)
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
    remove_outputs(folder / "img", project.build,      # images of cards since changed
                   lambda old: old.suffix == ".png" and f"img/{old.name}" not in used)
    fonts = [{"family": f.family, "weight": f.weight, "url": f"fonts/{f.path.stem}.ttf"} for f in assets.fonts]
    page = _page(game, pack, entries, fonts)
    _subset_fonts(assets, folder, page)
    write_atomic(folder / "index.html", page.encode("utf-8"))
    target = project.display(folder / "index.html")
    cards = sum(1 for e in entries if e.kind == "card")
    say(f"wrote {target} ({count(cards, 'card')}, {count(len(entries) - cards, 'board or token', 'boards and tokens')}; open it, or run ./pnp serve)")
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
    files = {}
    for image in piece_images(assets, game, pack, BOARD_PX):
        name = f"img/piece-{image.piece.id}-{image.side}.png"
        write_atomic(folder / name, image.png, durable=False)
        files[(image.piece.id, image.side)] = name
    wanted = [p for p in game.pieces.values() if (p.id, "front") in files]
    group = translator(game.spec.language).gettext("Boards and tokens")
    return [Entry("piece", "pieces", group, p.id, p.name, counts[p.id], files[(p.id, "front")],
                  files.get((p.id, "back")), f"{p.size.width:g} × {p.size.height:g} mm") for p in wanted]




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
    """Serve the galleries in build/ on localhost until interrupted, opening on the gallery."""
    handler = functools.partial(GalleryHandler, build=project.build.resolve())
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        games = galleries(project.build)
        base = f"http://127.0.0.1:{server.server_address[1]}/"
        say(f"serving the galleries on {base}{games[0] + '/' if len(games) == 1 else ''} (Ctrl-C stops)")
        for gallery in games if len(games) > 1 else []:
            say(f"  {base}{gallery}/")
        if not games:
            say("  no gallery built yet: run ./pnp gallery GAME")
        if ready:
            ready(server)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass


GALLERY_DIR = re.compile(r"^gallery(-[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*)?$")     # gallery, gallery-en, gallery-zh-Hans


def galleries(build) -> list[str]:
    """Every built gallery as "<game>/gallery" (or "<game>/gallery-<lang>" for each language)."""
    return sorted(f"{p.parent.parent.name}/{p.parent.name}" for p in build.glob("*/gallery*/index.html")
                  if not p.parent.parent.name.startswith(".") and GALLERY_DIR.match(p.parent.name))


LOCAL_HOSTS = {"localhost", "127.0.0.1"}


class GalleryHandler(http.server.SimpleHTTPRequestHandler):
    """Only the galleries' own files: build/<game>/gallery/…, no directory listings, no
    dot-files (.cache, .stamp.json), nothing reached through a symbolic link, and only for a
    Host header naming this machine (a web page elsewhere cannot rebind its name to us)."""

    def __init__(self, *args, build, **kwargs):
        self.build = build
        super().__init__(*args, directory=str(build), **kwargs)

    def do_GET(self):
        if self._admit():
            super().do_GET()

    def do_HEAD(self):
        if self._admit():
            super().do_HEAD()

    def _admit(self) -> bool:
        host = (self.headers.get("Host") or "").strip().lower()
        name = host.rsplit(":", 1)[0] if host.count(":") == 1 else host
        if name not in LOCAL_HOSTS:
            self.send_error(403, "pnp serve answers only to localhost and 127.0.0.1")
            return False
        path = urlsplit(self.path).path
        if path == "/":
            games = galleries(self.build)
            self._redirect(f"/{quote(games[0])}/" if len(games) == 1 else None, games)
            return False
        file = self.gallery_file(path)
        if file is None:
            self.send_error(404)
            return False
        if file.is_dir():
            self._redirect(path + "/", [])
            return False
        return True

    def gallery_file(self, url_path: str):
        """The file a URL names, or None when it is not a gallery's own file."""
        parts = [p for p in unquote(url_path).split("/") if p]
        if len(parts) < 2 or not GALLERY_DIR.match(parts[1]) or any(p.startswith(".") or "\\" in p for p in parts):
            return None
        path = self.build
        for part in parts:
            path = path / part
            if path.is_symlink():
                return None
        if path.is_dir():
            if not url_path.endswith("/"):
                return path
            path = path / "index.html"
        return path if path.is_file() and path.resolve().is_relative_to(self.build) else None

    def translate_path(self, path):
        file = self.gallery_file(urlsplit(path).path)
        return str(file) if file is not None else str(self.build / ".none")

    def list_directory(self, path):
        self.send_error(404)
        return None

    def _redirect(self, target, games):
        if target is not None:
            self.send_response(302)
            self.send_header("Location", target)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        # a folder under build/ is named by whoever made it: quoted in the link, escaped in the text
        links = "".join(f'<li><a href="/{quote(g)}/">{escape(g)}</a></li>' for g in games) or "<li>none yet: run ./pnp gallery GAME</li>"
        body = f'<!DOCTYPE html><meta charset="utf-8"><title>pnp galleries</title><ul>{links}</ul>'.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def log_message(self, format, *args):   # one line per request is noise on a designer's terminal
        pass
