"""Page 1 of every pack: contents, print settings, cutting guide, attributions.

Drawn from the engine's templates/base/info.html (a game may ship templates/<game>/info.html
to add to it), so the wording lives with the other templates.
"""
from __future__ import annotations

import hashlib
import traceback
from pathlib import Path

import pikepdf
from jinja2 import TemplateError

from generator import __version__
from generator.source.assets import Assets, describe_char
from generator.source.context import game_context
from generator.check.expr import LimitError, guarded
from generator.fingerprint import engine_fingerprint
from generator.render.cache import FaceCache, FileHashes, absolute_name, note_inputs, relative_name
from generator.errors import PnpError, Problem
from generator.pdfbytes import open_pdf
from generator.source.game import Game
from generator.geometry import PAPERS
from generator.source.project import Project
from generator.render.html import (captured_warnings, fenced_fetcher, jinja_env, path_free_pictures, printed_text,
                                   serious_warnings)


def _sections(sections) -> list[dict]:
    return [{"id": s.id, "name": s.name, "kind": s.kind, "run": s.run, "count": s.count, "two_sided": s.two_sided,
             "first_page": s.first_page, "last_page": s.last_page} for s in sections]


class InfoPage:
    """Renders page 1 for the packs of one game; the template environment and the hashes of
    the files the page uses are made once, however many packs and papers are built."""

    def __init__(self, project: Project, assets: Assets, game: Game):
        self.project, self.assets, self.game = project, assets, game
        self.env = jinja_env(project, assets, game.spec.keywords, game.spec.language)
        self.hashes = FileHashes(project)
        self.cache = FaceCache(project, "info")     # kept like a face: with the files it read, checked
        self.own = project.template(f"{game.id}/info.html")        # a game's own part of the page, if any
        self.extra = f"{game.id}/info.html" if self.own else None
        self.last_key: str | None = None            # the store's key of the page last drawn

    def layout(self, sections, runs, info_pages: int, body_pages: int) -> dict:
        """What page 1 shows of the pages after it (plain data; a stored pack keeps it)."""
        return {"sections": _sections(sections), "runs": runs, "info_pages": info_pages,
                "total_pages": info_pages + body_pages}

    def render(self, pack, paper: str, sections, runs, info_pages: int, body_pages: int, options,
               reprint: dict | None = None) -> pikepdf.Pdf:
        layout = self.layout(sections, runs, info_pages, body_pages)
        context = self._context(pack, paper, layout, options, reprint)
        html = self._html(context)
        direct = self._key(html)
        hit = self.cache.get(direct, self._current)
        if hit is not None:
            self.last_key = hit[0]
            note_inputs(self.project.root, hit[2])
            return hit[1]
        fetcher = fenced_fetcher(self.project.readable_roots())
        with captured_warnings() as warnings:
            data = self._write(html, fetcher)
            if not reprint and len(open_pdf(data).pages) > 1:        # a reprint's list of changes may run on
                data = self._write(self._html({**context, "compact": True}), fetcher)
        serious = serious_warnings(warnings, self.project.display)
        if serious:
            # a game's own info.html is what shows pictures and icons; the base page shows neither
            page = self.project.display(self.own) if self.own else "templates/base/info.html"
            raise PnpError(self._translated_glyphs(html) or [Problem(page, None, m) for m in serious])
        # what the page showed besides its HTML (a game's info.html may show icons and pictures)
        self.last_key = self.cache.put(direct, {relative_name(self.project.root, p): sha
                                                for p, sha in fetcher.fetched.items()}, data)
        return open_pdf(data)

    def _translated_glyphs(self, html: str) -> list[Problem]:
        """A character no bundled font draws that a translation gave (the title, a supply, a
        `game_text`): at its catalogue entry, where it is mended, rather than at the page's template."""
        out = []
        for char in self.assets.missing(printed_text(html), icons=False):
            where = self.game.entry_holding(char)
            if where:
                out.append(Problem(*where, f"page 1: character {describe_char(char)} is in no bundled font"))
        return out

    def stored_key(self, pack, paper: str, layout: dict, options) -> str | None:
        """The store's key of page 1 as it would be drawn over `layout` today, if the store has
        it (a pack's store entry names its page 1 by it), else None."""
        try:
            direct = self._key(self._html(self._context(pack, paper, layout, options, None)))
        except PnpError:
            return None                     # drawing the pack says what is wrong
        found = self.cache.get_bytes(direct, self._current)
        if found is None:
            return None
        note_inputs(self.project.root, found[2])        # (an icon a game's page shows)
        return found[0]

    def _current(self, name: str) -> str | None:
        return self.hashes.current(absolute_name(self.project.root, name))

    def _context(self, pack, paper: str, layout: dict, options, reprint: dict | None) -> dict:
        w, h = PAPERS[paper]
        # plain data only: a game's own info.html is rendered with this context too
        context = game_context(
            self.game, pack=pack, paper=paper, page={"width": w, "height": h}, **layout, version=__version__,
            font_css=self.assets.font_face_css(), fonts=[{"family": f.family, "weight": f.weight} for f in self.assets.fonts],
            extra=self.extra, options=options, reprint=reprint, supplies=self.game.spec.supplies,
            rulebook=self.game.spec.rulebook)
        translate = self.game.translate
        context["_"] = self.env.globals["_"]                                          # the engine's words
        context["game_text"] = lambda text: translate(text)                          # the game's own words
        return context

    def _write(self, html: str, fetcher) -> bytes:
        from generator.render.weasy import weasyprint
        return path_free_pictures(weasyprint().HTML(string=html, base_url=str(self.project.root) + "/",
                                                    url_fetcher=fetcher).write_pdf(font_config=self._fonts()))

    def prepare(self) -> None:
        """Load ahead what drawing page 1 takes besides its own layout: its template, compiled,
        and its fonts, in the configuration it keeps. A cold build calls this while its first
        faces are drawn in other processes, when it has nothing else to do."""
        from generator.render.weasy import weasyprint
        try:
            self.env.get_template("base/info.html")
        except TemplateError:
            return                  # reported when the page is drawn, where it is
        fetcher = fenced_fetcher(self.project.readable_roots())
        with captured_warnings():
            weasyprint().HTML(string=f"<style>{self.assets.font_face_css()}</style><p>1</p>",
                              base_url=str(self.project.root) + "/", url_fetcher=fetcher).render(font_config=self._fonts())

    def _fonts(self):
        """Page 1's font configuration, kept by the process (render/weasy.py)."""
        from generator.render.weasy import font_config, fonts_key
        return font_config(fonts_key(self.assets.font_face_css(), self.assets.fonts, self.hashes.of), purpose="info")

    def _html(self, context: dict) -> str:
        """The page's HTML; a failing template (a game's own info.html) is a located problem."""
        try:
            return guarded(lambda: self.env.get_template("base/info.html").render(**context))
        except (TemplateError, LimitError, ValueError, TypeError, KeyError, AttributeError) as exc:
            origin = getattr(exc, "origin", None) or exc
            where = ("templates/base/info.html", None)
            for frame in reversed(traceback.extract_tb(origin.__traceback__)):
                path = Path(frame.filename)
                if path.suffix == ".html" and any(path.is_relative_to(r) for r in self.project.template_roots()):
                    where = (self.project.display(path), frame.lineno)
                    break
            message = exc.message if isinstance(exc, TemplateError) and exc.message else str(exc)
            raise PnpError(Problem(*where, f"info page: template failed: {message}")) from None

    def _key(self, html: str) -> str:
        """The direct key: the page is the same if its HTML, its stylesheets, its fonts and the
        files it read (recorded with the entry) are."""
        files = [self.project.template("base/info.css")] + ([self.own] if self.own else [])
        files += [font.path for font in self.assets.fonts]
        parts = [engine_fingerprint(), html] + [self.hashes.of(f) for f in files]
        return hashlib.sha256("|".join(parts).encode()).hexdigest()
