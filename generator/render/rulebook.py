"""The rulebook's pages: its HTML body (source/rulebook.py) laid out by WeasyPrint on A5 pages (or the
game's page size) with the game's fonts, the engine's rulebook.css and the game's own
templates/<game>/rulebook.css when there is one; figures drawn from the game's own faces and pieces.

A figure is an empty box of the right size in the HTML; after layout its card face (a form XObject,
clipped to the trim) or its piece (drawn by the board drawer) is placed in that box, so it prints as
sharp as the card itself. The pages are checked while laid out: every line inside the page's safe
area (its margins), no character without a glyph. The laid-out pages (figures' boxes empty) and the
finished pages are each a value in the store, keyed by a hash of all that decides them, like faces:
a figure drawn anew is placed again in the same layout, which is not made again.
"""
from __future__ import annotations

import functools
import hashlib
import re
import json
from dataclasses import dataclass

import pikepdf
from pikepdf import Dictionary

from generator.pdfbytes import open_pdf, pdf_bytes
from generator.errors import PnpError, Problem
from generator.geometry import Rect, pt
from generator.render.fontmerge import merge_fonts
from generator.fingerprint import engine_fingerprint
from generator.render.cache import FaceCache, FileHashes, absolute_name, note_inputs, relative_name
from generator.render.html import captured_warnings, fenced_fetcher, jinja_env, serious_warnings
from generator.source.assets import describe_char
from generator.source.rulebook import Figure, Rulebook, RulebookText, pack_value, page_size, rulebook_file
from generator.source.i18n import translator
from generator.source import reads

PX = 25.4 / 96                         # mm per CSS pixel
MARGINS = (14.0, 13.0, 15.0, 13.0)     # mm: top, right, bottom (room for the page number), left
FIGURE_HEIGHT = 0.42                   # a figure takes at most this share of the page's text height
RULEBOOK_CSS = "base/rulebook.css"
BOOKMARKS = "/PnpBookmarks"            # the laid-out pages' headings, in the stored entry
ANCHORS = "/PnpAnchors"                # where the layout put each figure's box, in its stored entry


@dataclass
class RulebookPages:
    """The rulebook laid out: its pages (one PDF) and its headings with the page each is on."""
    pdf: pikepdf.Pdf
    bookmarks: list[tuple[int, str, int]]        # (level, title, 0-based page)
    size: tuple[float, float]
    key: str = ""                                 # its entry in the store (what a pack's key names it by)
    ink_saver: bool = False                       # its card figures drawn ink-saver style (--ink-saver)

    @property
    def count(self) -> int:
        return len(self.pdf.pages)


ICON_URL = re.compile(r'src="(icons/[^"]+)"')


class RulebookRenderer:
    """Renders one game's rulebook for each pack (and once for every player count)."""

    def __init__(self, project, assets, game, card_renderer=None, book=None):
        self.project, self.assets, self.game = project, assets, game
        self.cards = card_renderer
        self.path = rulebook_file(game)
        self._ = translator(game.spec.language).gettext          # the engine's own words (Contents …)
        # `book`: the Rulebook validation checked, with the texts it made (the same source and words)
        self.book = book or (Rulebook(game, self.path, project.display(self.path), assets, self._) if self.path else None)
        self.size = page_size(game)
        self.hashes = FileHashes(project)
        self.store = FaceCache(project, "rulebook")      # kept like a face, under a key of all that decides it
        self.layouts = FaceCache(project, "rulebook-layouts")   # the same, before the figures are placed
        self._open: list = []                     # source PDFs of figures, kept open while used

    @property
    def exists(self) -> bool:
        return self.book is not None

    @functools.cached_property
    def env(self):
        return jinja_env(self.project, self.assets, self.game.spec.keywords)

    def text(self, pack) -> RulebookText:
        return self.book.text(pack)

    def render(self, pack) -> RulebookPages:
        """The rulebook for one pack (pack None: the standalone one, every player count)."""
        text = self.text(pack)
        html = self._document(text, pack)
        figures = [(f, self._figure_source(f, pack)) for f in text.figures]
        key = self._key(html, figures)
        cached = self._cached(key)
        if cached is not None:
            return cached
        self._check_glyphs(text)
        layout, inputs = self._laid_out(html)
        pdf = open_pdf(layout)
        where = json.loads(str(pdf.Root[ANCHORS]))
        del pdf.Root[ANCHORS]
        self._place_figures(pdf, where, figures)
        merge_fonts(pdf, self.assets)          # a figure's face carries its fonts without programs
        self.store.put(key, inputs, pdf_bytes(pdf, deterministic_id=True, compress_streams=True))
        return self._cached(key)

    def _laid_out(self, html: str) -> tuple[bytes, dict]:
        """The pages as WeasyPrint lays them out, figures' boxes empty (their size is in the HTML),
        with the headings and where each figure's box lies: (PDF bytes, files read with their hashes).
        A store value of its own: a figure whose drawing changed is placed again, not laid out again."""
        key = self._key(html, [])
        hit = self.layouts.get_bytes(key, lambda name: self.hashes.current(absolute_name(self.project.root, name)))
        if hit is not None:
            return hit[1], hit[2]
        with reads.recording() as log:      # what its stylesheets @import or url() (the key has the stylesheets)
            document = self._layout(html)
        inputs = {relative_name(self.project.root, path): sha for path, sha in log.files.items()}
        pdf = open_pdf(document.write_pdf())
        bookmarks = [(level, label, number) for number, page in enumerate(document.pages)
                     for level, label, _, _ in page.bookmarks]
        where = {}
        for number, page in enumerate(document.pages):
            for name, (x, y, *_) in page.anchors.items():
                where.setdefault(name, (number, x * PX, y * PX))
        # the headings and boxes travel in the entry itself: one value in the store, checked whole
        pdf.Root[BOOKMARKS] = pikepdf.String(json.dumps(bookmarks, ensure_ascii=False))
        pdf.Root[ANCHORS] = pikepdf.String(json.dumps(where, ensure_ascii=False))
        data = pdf_bytes(pdf, deterministic_id=True, compress_streams=True)
        self.layouts.put(key, inputs, data)
        return data, inputs

    def lay_out_beside(self, packs: list, jobs: int) -> None:
        """Lay out the rulebooks of `packs` (None: the standalone one) by two processes when there
        are cores for it: a forked helper lays out and stores the second half while this process
        makes the first, so that rendering each afterwards takes it from the store. Each is laid out
        alone (its own text and figures), and a helper that fails in any way only leaves its share
        to this process; a broken rulebook is then reported here, as without a helper."""
        from generator.processes import Helper, can_fork
        if not self.exists or jobs < 2 or len(packs) < 2 or not can_fork():
            return
        half = (len(packs) + 1) // 2

        def theirs() -> bytes:
            for pack in packs[half:]:
                self.render(pack)
            return b"laid out"
        self._draw_figures(packs)
        try:
            helper = Helper(theirs)
        except OSError:
            return
        try:
            for pack in packs[:half]:
                self.render(pack)
        except BaseException:
            helper.stop()
            raise
        helper.result()

    def _draw_figures(self, packs: list) -> None:
        """What the rulebooks of `packs` show, drawn here once before the helper is forked: it then
        finds each card's face in the face cache and each piece in the drawer it inherits, instead
        of drawing them again beside this process (a face alone in its document costs ~0.2 s)."""
        faces = {}
        for pack in packs:
            for figure in self.text(pack).figures:
                if figure.kind == "card":
                    faces.setdefault(figure.ref, self._face(figure.ref))
                else:
                    self._draw_piece(figure.ref, pack)
        if faces:
            self.cards.render(list(faces.values()))

    # --- the HTML document ---------------------------------------------------------------------
    def _document(self, text: RulebookText, pack) -> str:
        w, h = self.size
        body = text.body
        for figure in text.figures:
            fw, fh = self._figure_box(figure)
            body = body.replace(f'id="{figure.anchor}"', f'id="{figure.anchor}" style="width: {fw:.3f}mm; '
                                f'height: {fh:.3f}mm"', 1)
            body = self._say_reduced(body, figure, fw / self._figure_natural(figure)[0])
        split = body.find("<h2")               # the contents follow the title block
        before, after = (body[:split], body[split:]) if split > 0 else ("", body)
        own_css = self.project.template(f"{self.game.id}/rulebook.css")
        return self.env.get_template("base/rulebook.html").render(
            game=self.game.spec, page={"width": w, "height": h}, margins=MARGINS, font_css=self.assets.font_face_css(),
            own_css=own_css.as_uri() if own_css else None, before=before, after=after,
            contents=[(title, anchor) for level, title, anchor in text.headings if level == 2],
            edition=self._pack_label(pack), _=self._)

    def _say_reduced(self, body: str, figure: Figure, scale: float) -> str:
        """A figure drawn smaller than the component says so in its caption: its text is then
        smaller than the minimum printed size, which the preflight allows there only."""
        if scale >= 1 - 1e-6:
            return body
        note = self._("shown at {scale} of its real size").format(scale=f"{round(scale * 100)}%")
        slot = f'<div class="slot" id="{figure.anchor}"'
        start = body.find(slot)
        end = body.find("</figure>", start)
        caption = body.find("</figcaption>", start, end)
        if caption >= 0:
            return body[:caption] + f" ({note})" + body[caption:]
        return body[:end] + f"<figcaption>{note}</figcaption>" + body[end:]

    def _pack_label(self, pack) -> str:
        if pack is None:
            return self._("All player counts")
        return pack_value(self.game, pack, self._)["label"]

    def _text_area(self) -> tuple[float, float]:
        top, right, bottom, left = MARGINS
        return self.size[0] - left - right, self.size[1] - top - bottom

    def _figure_natural(self, figure: Figure) -> tuple[float, float]:
        if figure.kind == "card":
            deck, _, _ = figure.ref.partition("/")
            return self.game.decks[deck].trim
        piece = self.game.pieces[figure.ref]
        return piece.size.width, piece.size.height

    def _figure_box(self, figure: Figure) -> tuple[float, float]:
        w, h = self._figure_natural(figure)
        tw, th = self._text_area()
        scale = min(1.0, tw / w, th * FIGURE_HEIGHT / h)
        return w * scale, h * scale

    # --- figures: the game's own faces and pieces ---------------------------------------------------
    def _figure_source(self, figure: Figure, pack) -> tuple[pikepdf.Page, float, str]:
        """(page, bleed in mm, key) of what the figure shows."""
        if figure.kind == "card":
            face = self._face(figure.ref)
            rendered = self.cards.render([face])
            self._open.append(rendered)
            return rendered.pages[face.key], face.deck.bleed, face.key
        data = self._draw_piece(figure.ref, pack)
        pdf = open_pdf(data)
        self._open.append(pdf)
        return pdf.pages[0], 0.0, hashlib.sha256(data).hexdigest()

    def _face(self, ref: str):
        deck_id, _, card_id = ref.partition("/")
        deck = self.game.decks[deck_id]
        return self.cards.face(deck, deck.card(card_id), "face")

    def _draw_piece(self, piece_id: str, pack) -> bytes:
        from generator.check.validate import context as expression_context
        from generator.geometry import Placement, PieceSheet
        from generator.render.pieces import PieceCopy
        piece = self.game.pieces[piece_id]
        spec = pack if pack is not None else _largest(self.game)
        colours = self.game.spec.player_colours
        copy = PieceCopy(piece, 1, colours[0] if piece.per_player and colours else None)
        w, h = copy.size
        sheet = PieceSheet((w, h), [Placement(copy, Rect(0, 0, w, h))])
        return self._drawer.draw_sheets([sheet], spec, expression_context(self.game))

    @functools.cached_property
    def _drawer(self):
        """One drawer for every pack's figures: a piece every pack's rulebook shows is drawn once. With
        --ink-saver it draws as the pack's boards and the rulebook's card figures do."""
        from generator.render.pieces import PieceDrawer
        return PieceDrawer(self.assets, self.game, bool(self.cards and self.cards.ink_saver))

    def _place_figures(self, pdf: pikepdf.Pdf, where: dict, figures) -> None:
        """Each figure in its box: `where` is anchor -> (page, x, y in mm) of the laid-out pages.
        WeasyPrint gives every page one shared resource dictionary: a page that gets a figure gets a
        dictionary of its own first, so a figure is listed on its own page only, and a figure drawn anew
        leaves every other page's bytes (and the preflight's record of them) as they were."""
        own: set[int] = set()
        for index, (figure, (source, bleed, _)) in enumerate(figures):
            if figure.anchor not in where:
                continue
            number, x, y = where[figure.anchor]
            page = pdf.pages[number]
            fw, fh = self._figure_box(figure)
            nw, nh = self._figure_natural(figure)
            scale = fw / nw
            form = pdf.copy_foreign(source.as_form_xobject())
            if scale < 1 - 1e-6:
                form.PnpScale = round(scale, 4)      # the preflight's mark of a reduced figure (its caption says so)
            name = f"/PnpFig{index}"
            if number not in own:
                shared = page.obj.get("/Resources", Dictionary())
                page.obj.Resources = Dictionary({**shared, "/XObject": Dictionary(dict(shared.get("/XObject", {})))})
                own.add(number)
            page.obj.Resources.XObject[name] = form
            ph = float(page.mediabox[3])
            x0, y0 = pt(x - bleed * scale), ph - pt(y + fh + bleed * scale)
            ops = (f"q {pt(x)} {ph - pt(y + fh):.4f} {pt(fw)} {pt(fh)} re W n "
                   f"{scale:.6f} 0 0 {scale:.6f} {x0:.4f} {y0:.4f} cm {name} Do Q")
            # WeasyPrint leaves its own y-flip in force at the end of the page: isolate it first.
            page.contents_add(pikepdf.Stream(pdf, b"q\n"), prepend=True)
            page.contents_add(pikepdf.Stream(pdf, b"\nQ\n" + ops.encode("ascii")), prepend=False)

    # --- layout and its checks -------------------------------------------------------------------
    def _layout(self, html: str):
        from generator.render.weasy import weasyprint
        with captured_warnings() as warnings:
            document = weasyprint().HTML(string=html, base_url=str(self.project.root) + "/",
                                         url_fetcher=fenced_fetcher(self.project.readable_roots())).render(
                font_config=self._fonts())
        problems = [Problem(self.book.display, None, m) for m in serious_warnings(warnings, self.project.display)]
        problems += [Problem(self.book.display, _line_with(self.book.source, text), m)
                     for m, text in outside_safe_area(document)]
        if problems:
            raise PnpError(problems)
        return document

    def _fonts(self):
        """The rulebook's font configuration, kept by the process as page 1's is (render/weasy.py): its
        fonts are loaded once for every rulebook laid out, and its folder goes with the process (a
        helper's too). A game's own rulebook.css may add @font-face rules: its bytes are in the key."""
        from generator.render.weasy import font_config, fonts_key
        own = self.project.template(f"{self.game.id}/rulebook.css")
        css = self.assets.font_face_css() + (f"\n/* {self.hashes.of(own)} */" if own else "")
        return font_config(fonts_key(css, self.assets.fonts, self.hashes.of), purpose="rulebook")

    def _check_glyphs(self, text: RulebookText) -> None:
        missing = self.assets.missing(text.printed, icons=True)
        if missing:
            raise PnpError([Problem(*self._written_at(c), f"character {describe_char(c)} is in no bundled font "
                                    "and has no icon") for c in missing])

    def _written_at(self, char: str) -> tuple[str, int | None]:
        """Where a character the rulebook prints is written: its line in the rulebook, else (a value an
        expression printed, e.g. the title) the catalogue entry that gives it in a translated edition."""
        line = _line_of(self.book.source, char)
        return (self.book.display, line) if line else self.game.entry_holding(char) or (self.book.display, None)

    # --- the cache ---------------------------------------------------------------------------------
    def _key(self, html: str, figures) -> str:
        files = [self.project.template(RULEBOOK_CSS), self.project.template("base/rulebook.html")]
        own = self.project.template(f"{self.game.id}/rulebook.css")
        files += [own] if own else []
        files += [font.path for font in self.assets.fonts]
        parts = [engine_fingerprint(), html, repr(self.size)]
        # the page's HTML is the engine's own: the only files it names are bundled icons
        icons = sorted(set(ICON_URL.findall(html)))
        parts += [self.hashes.of(f) for f in files] + [f"{u}:{self.hashes.of(self.project.root / u)}" for u in icons]
        parts += [f"{f.anchor}:{key}" for f, (_, _, key) in figures]
        return hashlib.sha256("|".join(parts).encode()).hexdigest()[:40]

    def _cached(self, key: str) -> RulebookPages | None:
        """The pages stored under `key`, or None: an entry that does not read back whole (its hash,
        a PDF, its headings) is a miss and is laid out again."""
        root = self.project.root
        hit = self.store.get_bytes(key, lambda name: self.hashes.current(absolute_name(root, name)))
        if hit is None:
            return None
        note_inputs(root, hit[2])
        try:
            pdf = open_pdf(hit[1])
            bookmarks = [tuple(b) for b in json.loads(str(pdf.Root[BOOKMARKS]))]
            del pdf.Root[BOOKMARKS]
        except (KeyError, ValueError, TypeError, pikepdf.PdfError):
            return None
        return RulebookPages(pdf, bookmarks, self.size, hit[0], bool(self.cards and self.cards.ink_saver))


def _largest(game):
    standard = [p for p in game.packs if not p.optional] or list(game.packs)
    return max(standard, key=lambda p: p.players)


def _line_of(source: str, text: str) -> int | None:
    """The first line of the rulebook's source that holds `text` (a character, a word)."""
    return next((n for n, line in enumerate(source.splitlines(), 1) if text in line), None)


def _line_with(source: str, text: str) -> int | None:
    """The rulebook line that writes out `text` (its longest word, for a text the layout broke or
    cut short): where a line that runs off the page is mended. None for a text an expression made."""
    words = sorted(text.split(), key=len, reverse=True)
    return _line_of(source, words[0]) if words and len(words[0]) >= 4 else None


def outside_safe_area(document, tolerance: float = 0.5) -> list[tuple[str, str]]:
    """A line, image or table that runs past the page's margins (its safe area), page by page: each
    message with the text it holds."""
    from weasyprint.formatting_structure import boxes
    found = []
    for number, page in enumerate(document.pages, 1):
        box = page._page_box
        left, top = box.content_box_x(), box.content_box_y()
        right, bottom = left + box.width, top + box.height
        content = [c for c in box.children if not isinstance(c, boxes.MarginBox)]   # not the page number
        for child in (d for c in content for d in c.descendants()):
            if not isinstance(child, (boxes.LineBox, boxes.ReplacedBox, boxes.TableBox)):
                continue
            x, y, w, h = _extent(child)
            past = {"right": x + w - right, "left": left - x, "bottom": y + h - bottom, "top": top - y}
            sides = [f"{over * PX:.1f} mm past the {side} margin" for side, over in past.items() if over > tolerance]
            if sides:
                found.append((f"rulebook page {number}: {_what(child)} runs outside the page's safe area "
                              f"({', '.join(sides)})", _text(child)))
    return found


def _extent(box) -> tuple[float, float, float, float]:
    """Where a box's content is: a line by the text and images on it (a line box itself is as wide
    as its block, trailing space included)."""
    from weasyprint.formatting_structure import boxes
    if isinstance(box, boxes.LineBox) and box.children:
        parts = [(c.position_x, c.position_y, c.margin_width(), c.margin_height()) for c in box.children
                 if not (isinstance(c, boxes.TextBox) and not c.text.strip())]
        if parts:
            x0, y0 = min(p[0] for p in parts), min(p[1] for p in parts)
            return x0, y0, max(p[0] + p[2] for p in parts) - x0, max(p[1] + p[3] for p in parts) - y0
    return box.position_x, box.position_y, box.margin_width(), box.margin_height()


def _text(box) -> str:
    return "".join(getattr(b, "text", "") for b in box.descendants())


def _what(box) -> str:
    text = _text(box)[:30]
    return f"the text “{text}”" if text else type(box).__name__.replace("Box", "").lower()
