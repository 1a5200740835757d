"""Page 1 of every pack: contents, print settings, cutting guide, attributions.

Drawn from the engine's templates/base/info.html (a game may ship templates/<game>/info.html
to add to it), so the wording lives with the other templates.
"""
from __future__ import annotations

import hashlib
import io

import pikepdf

from generator import __version__
from generator.assets import Assets
from generator.atomic import write_atomic
from generator.cache import FileHashes, engine_fingerprint
from generator.errors import PnpError, Problem
from generator.game import Game
from generator.layout import PAPERS
from generator.project import Project
from generator.render.html import fenced_fetcher, captured_warnings, jinja_env


def render_info(project: Project, assets: Assets, game: Game, pack, paper: str, sections, runs,
                info_pages: int, body_pages: int, options, reprint: dict | None = None) -> pikepdf.Pdf:
    from generator.render.weasy import weasyprint
    env = jinja_env(project, assets, game.spec.keywords)
    extra = f"{game.id}/info.html"
    w, h = PAPERS[paper]
    extra_used = project.template(extra) is not None
    html = env.get_template("base/info.html").render(
        game=game.spec, pack=pack, paper=paper, page={"width": w, "height": h}, sections=sections, runs=runs,
        info_pages=info_pages, total_pages=info_pages + body_pages, version=__version__,
        font_css=assets.font_face_css(), fonts=assets.fonts, derived=game.derived,
        extra=extra if extra_used else None, options=options, reprint=reprint)
    # The page is the same if its HTML, its stylesheets and its fonts are.
    hashes = FileHashes(project)
    files = [project.template("base/info.css")] + ([project.template(extra)] if extra_used else []) + \
        [font.path for font in assets.fonts]
    key = hashlib.sha256("|".join([engine_fingerprint(), html] + [hashes.of(f) for f in files]).encode()).hexdigest()
    stored = project.build / ".cache" / "info" / f"{key}.pdf"     # the page is the same if its HTML is
    if stored.is_file():
        return pikepdf.open(io.BytesIO(stored.read_bytes()))
    with captured_warnings() as warnings:
        data = weasyprint().HTML(string=html, base_url=str(project.root) + "/",
                    url_fetcher=fenced_fetcher(project.readable_roots())).write_pdf()
    serious = [m for m in warnings if ".notdef" in m or "Failed" in m or "Ignored" in m]
    if serious:
        raise PnpError([Problem("templates/base/info.html", None, m) for m in serious])
    write_atomic(stored, data, durable=False)
    return pikepdf.open(io.BytesIO(data))
