"""Page 1 of every pack: contents, print settings, cutting guide, attributions.

Drawn from the engine's templates/base/info.html (a game may ship templates/<game>/info.html
to add to it), so the wording lives with the other templates.
"""
from __future__ import annotations

import hashlib
import io

import pikepdf

from generator import __version__
from generator.source.assets import Assets
from generator.atomic import write_atomic
from generator.render.cache import FileHashes, engine_fingerprint
from generator.errors import PnpError, Problem
from generator.source.game import Game
from generator.geometry import PAPERS
from generator.source.project import Project
from generator.render.html import captured_warnings, fenced_fetcher, jinja_env, serious_warnings


class InfoPage:
    """Renders page 1 for the packs of one game; the template environment and the hashes of
    the files the page uses are made once, however many packs and papers are built."""

    def __init__(self, project: Project, assets: Assets, game: Game):
        self.project, self.assets, self.game = project, assets, game
        self.env = jinja_env(project, assets, game.spec.keywords, game.spec.language)
        self.hashes = FileHashes(project)
        self.extra = f"{game.id}/info.html" if project.template(f"{game.id}/info.html") else None

    def render(self, pack, paper: str, sections, runs, info_pages: int, body_pages: int, options,
               reprint: dict | None = None) -> pikepdf.Pdf:
        w, h = PAPERS[paper]
        html = self.env.get_template("base/info.html").render(
            game=self.game.spec, pack=pack, paper=paper, page={"width": w, "height": h}, sections=sections,
            runs=runs, info_pages=info_pages, total_pages=info_pages + body_pages, version=__version__,
            font_css=self.assets.font_face_css(), fonts=self.assets.fonts, derived=self.game.derived,
            extra=self.extra, options=options, reprint=reprint)
        stored = self.project.build / ".cache" / "info" / f"{self._key(html)}.pdf"
        if stored.is_file():
            return pikepdf.open(io.BytesIO(stored.read_bytes()))
        from generator.render.weasy import weasyprint
        with captured_warnings() as warnings:
            data = weasyprint().HTML(string=html, base_url=str(self.project.root) + "/",
                                     url_fetcher=fenced_fetcher(self.project.readable_roots())).write_pdf()
        serious = serious_warnings(warnings)
        if serious:
            raise PnpError([Problem("templates/base/info.html", None, m) for m in serious])
        write_atomic(stored, data, durable=False)
        return pikepdf.open(io.BytesIO(data))

    def _key(self, html: str) -> str:
        """The page is the same if its HTML, its stylesheets and its fonts are."""
        files = [self.project.template("base/info.css")] + ([self.project.template(self.extra)] if self.extra else [])
        files += [font.path for font in self.assets.fonts]
        parts = [engine_fingerprint(), html] + [self.hashes.of(f) for f in files]
        return hashlib.sha256("|".join(parts).encode()).hexdigest()
