"""Card faces and backs: Jinja templates rendered by WeasyPrint, one PDF page each.

Every face is a page of trim + 2 × bleed. Faces of the same size and stylesheets are
rendered together in one document (fast), then any card whose `.fit` box overflows is
rendered again with a smaller `fit` scale, down to FIT_STEPS[-1]; past that the
build fails naming the card. A character no bundled font can draw also fails the
build, naming the card, before WeasyPrint ever draws a .notdef box.
"""
from __future__ import annotations

import functools
import hashlib
import io
import multiprocessing
import traceback
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pikepdf
from jinja2 import TemplateError, TemplateNotFound, TemplateSyntaxError

from generator.source.assets import Assets, describe_char
from generator.render.cache import FaceCache, FileHashes, engine_fingerprint
from generator.errors import PnpError, Problem
from generator.source.game import Card, Deck, Game
from generator.source.project import Project
from generator.render.canonical import Batch, canonical_face
from generator.render.html import captured_warnings, fenced_fetcher, jinja_env, printed_text, serious_warnings
from generator.render.weasy import weasyprint, without_margin_boxes

FIT_STEPS = (1.0, 0.94, 0.88, 0.82, 0.76)  # a fit box may shrink its text to 76 % at most
BASE_CSS = "base/card.css"


@dataclass
class Face:
    """One side of one card, ready to render."""
    deck: Deck
    card: Card | None
    side: str                 # "face" or "back"
    html: str                 # the template's output for fit = 1
    template: str
    source: tuple[str, int | None]
    key: str = ""
    fit: float = 1.0
    fragments: dict = field(default_factory=dict)  # fit scale -> html

    @property
    def page_size(self) -> tuple[float, float]:
        w, h = self.deck.trim
        return w + 2 * self.deck.bleed, h + 2 * self.deck.bleed

    @property
    def label(self) -> str:
        return f"{self.card.uid if self.card else self.deck.id} ({self.side})"


@dataclass
class Rendered:
    """Rendered pages by face key; holds the PDFs the pages live in."""
    pdfs: list = field(default_factory=list)
    pages: dict = field(default_factory=dict)
    fresh: list = field(default_factory=list)     # labels of the faces rendered now (not cached)

    def add(self, key: str, pdf: pikepdf.Pdf) -> None:
        self.pdfs.append(pdf)
        self.pages[key] = pdf.pages[0]


CHUNK = 75          # faces per WeasyPrint document: large enough to be fast, small enough for memory
_WORKER = None      # (renderer, chunks) for forked workers


def _render_chunk_in_worker(index: int):
    renderer, chunks = _WORKER
    return renderer._render_chunk(*chunks[index])


INK_SAVER_CSS = "base/ink-saver.css"


class CardRenderer:
    def __init__(self, project: Project, assets: Assets, game: Game, ink_saver: bool = False):
        self.project, self.assets, self.game = project, assets, game
        self.ink_saver = ink_saver
        self.cache = FaceCache(project)
        self.hashes = FileHashes(project)
        self.env = jinja_env(project, assets, game.spec.keywords, game.spec.language)
        self.colours = {c.id: c for c in game.spec.player_colours}
        self.font_css = assets.font_face_css()
        self._stylesheet_hashes: dict[str, str] = {}
        self._texts: dict[str, str] = {}

    @functools.cached_property
    def fetcher(self):
        """Made when something is rendered: it loads WeasyPrint, which a warm build may not need."""
        return fenced_fetcher(self.project.readable_roots())

    def _stylesheet_hash(self, name: str) -> str:
        if name not in self._stylesheet_hashes:
            self._stylesheet_hashes[name] = f"{name}:{self.hashes.of(self.project.template(name))}"
        return self._stylesheet_hashes[name]

    # --- turning a card into HTML ------------------------------------------------------
    def stylesheets(self, deck: Deck) -> list[str]:
        sheets = [BASE_CSS] + list(self.game.spec.css) + list(deck.spec.css)
        return sheets + [INK_SAVER_CSS] if self.ink_saver else sheets

    def face(self, deck: Deck, card: Card | None, side: str) -> Face:
        template = deck.spec.face if side == "face" else deck.spec.back
        source = (card.file, card.line) if card else (deck.file, None)
        face = Face(deck, card, side, "", template, source)
        face.html = self._fragment(face, 1.0)
        face.fragments[1.0] = face.html
        face.key = self._key(face)
        return face

    def _key(self, face: Face) -> str:
        """Everything that decides how the face looks (see cache.py)."""
        digest = hashlib.sha256()
        parts = [engine_fingerprint(), face.template, face.html, repr((face.deck.trim, face.deck.bleed, face.deck.safe)),
                 self.font_css]
        parts += [self._stylesheet_hash(name) for name in self.stylesheets(face.deck)]
        parts += [f"{font.path.name}:{self.hashes.of(font.path)}" for font in self._fonts_used(face.html)]
        parts += self.hashes.icons_in(face.html)
        for part in parts:
            digest.update(part.encode("utf-8"))
            digest.update(b"\0")
        return digest.hexdigest()[:40]

    def _fonts_used(self, html: str):
        """The font files whose family draws some character of this face."""
        families = {self.assets.font_for(c) for c in set(self._printed(html)) if not c.isspace()}
        return [font for font in self.assets.fonts if font.family in families]

    def _fragment(self, face: Face, fit: float) -> str:
        card = face.card
        player = None
        if card is not None:
            for name, spec in face.deck.spec.fields.items():
                if spec.type == "player" and card.fields.get(name) in self.colours:
                    player = self.colours[card.fields[name]]
                    break
        w, h = face.deck.trim
        context = dict(card=card, deck=face.deck.spec, game=self.game.spec, derived=self.game.derived,
                       colours=self.colours, player=player, fit=fit, side=face.side,
                       trim={"width": w, "height": h}, bleed=face.deck.bleed, safe=face.deck.safe,
                       _=self.game.translate, lang=self.game.spec.language)
        try:
            html = self.env.get_template(face.template).render(**context)
        except TemplateSyntaxError as exc:
            raise PnpError(Problem(f"templates/{exc.name or face.template}", exc.lineno,
                                   f"template error: {exc.message}")) from None
        except TemplateNotFound as exc:
            raise PnpError(Problem(*self._blame(exc, face), f"{face.label}: no template '{exc.name}' under "
                                   "templates/")) from None
        except (TemplateError, ValueError, TypeError, KeyError, AttributeError) as exc:
            raise PnpError(Problem(*self._blame(exc, face), f"{face.label}: template failed: {exc}")) from None
        left = self.game.untranslated(self._printed(html))
        if left:
            raise PnpError(Problem(*face.source, f"{face.label}: the {self.game.language} edition prints "
                                   f"{left[0]!r} untranslated", f"wrap the words in _() in {face.template} and "
                                   f"translate them under text: in {self.game.catalogue}"))
        missing = self.assets.missing(self._printed(html), icons=False)
        if missing:
            raise PnpError([Problem(*face.source, f"{face.label}: character {describe_char(c)} is in no bundled "
                                    "font and has no icon") for c in missing])
        return html

    def _printed(self, html: str) -> str:
        """The characters a fragment prints, parsed once (the missing-glyph check and the
        cache key both need them)."""
        if html not in self._texts:
            self._texts[html] = printed_text(html)
        return self._texts[html]

    def _blame(self, exc: Exception, face: Face) -> tuple[str, int | None]:
        for frame in reversed(traceback.extract_tb(exc.__traceback__)):
            path = Path(frame.filename)
            if path.suffix in (".html", ".j2") and any(path.is_relative_to(r) for r in self.project.template_roots()):
                return self.project.display(path), frame.lineno
        return face.source

    # --- rendering ------------------------------------------------------------------------
    def render(self, faces: list[Face], jobs: int = 1, progress=None) -> "Rendered":
        """Every distinct face as a canonical one-page PDF, from the cache when it is there,
        else rendered (in `jobs` processes) and stored. Pages are looked up by key."""
        unique = {f.key: f for f in faces}
        rendered = Rendered()
        missing = []
        for key, face in unique.items():
            pdf = self.cache.get(key)
            if pdf is None:
                missing.append(face)
            else:
                rendered.add(key, pdf)
        for key, data in self._render_missing(missing, jobs, progress):
            rendered.add(key, pikepdf.open(io.BytesIO(data)))
            rendered.fresh.append(unique[key].label)
        return rendered

    def _render_missing(self, faces: list[Face], jobs: int, progress):
        """(key, canonical PDF bytes) for each face, rendered in chunks, in parallel if jobs > 1."""
        chunks = []
        groups: dict[tuple, list[Face]] = {}
        for face in faces:
            groups.setdefault((face.page_size, tuple(self.stylesheets(face.deck))), []).append(face)
        for (size, sheets), group in groups.items():
            step = max(1, min(CHUNK, -(-len(group) // max(1, jobs))))
            chunks += [(group[i:i + step], size, sheets) for i in range(0, len(group), step)]
        if jobs <= 1 or len(chunks) <= 1:
            results = (self._render_chunk(*chunk) for chunk in chunks)
            for result in results:
                yield from self._collect(result, progress)
            return
        global _WORKER
        _WORKER = (self, chunks)
        self.fetcher      # load WeasyPrint before forking: the workers share it instead of each loading it
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            for result in pool.map(_render_chunk_in_worker, range(len(chunks))):
                yield from self._collect(result, progress)
        _WORKER = None

    @staticmethod
    def _collect(result, progress):
        if isinstance(result, PnpError):
            raise result
        if result[0] == "error":
            raise PnpError([Problem(*p) for p in result[1]])
        for key, data in result[1]:
            if progress is not None:
                progress(1)
            yield key, data

    def _render_chunk(self, faces: list[Face], size, sheets):
        """("ok", [(key, bytes)]) or ("error", [problem tuples]): plain data, so a worker can send it.
        The worker stores each face in the cache itself, sparing the parent that work."""
        try:
            pdf = self._render_group(faces, size, sheets)
            batch = Batch(pdf)
            done = [(face.key, canonical_face(page, batch)) for face, page in zip(faces, pdf.pages)]
            for key, data in done:
                self.cache.put(key, data)
            return "ok", done
        except PnpError as exc:
            return "error", [(p.path, p.line, p.message, p.hint) for p in exc.problems]

    def _render_group(self, faces: list[Face], size, sheets) -> pikepdf.Pdf:
        HTML = weasyprint().HTML
        pending, documents = list(faces), {}
        with captured_warnings() as warnings:
            for step in FIT_STEPS:
                if not pending:
                    break
                for face in pending:
                    face.fit = step
                    if step not in face.fragments:
                        face.fragments[step] = self._fragment(face, step)
                with without_margin_boxes():
                    doc = HTML(string=self._document(pending, size, sheets, step), base_url=str(self.project.root) + "/",
                               url_fetcher=self.fetcher).render()
                overflowing = []
                for face, page in zip(pending, doc.pages):
                    (overflowing if _overflows(page) else []).append(face)
                    documents[face.key] = (doc, page)
                pending = overflowing
            if pending:
                edition = f"the {self.game.language} text" if len(self.game.languages) > 1 else "text"
                raise PnpError([Problem(*f.source, f"{f.label}: {edition} does not fit its box in {f.template} even "
                                        f"at {int(FIT_STEPS[-1] * 100)} % size", "shorten the text")
                                for f in pending])
            first = documents[faces[0].key][0]
            combined = first.copy([documents[f.key][1] for f in faces])
            data = combined.write_pdf()
        problems = [Problem(*faces[0].source, f"{faces[0].deck.id} {faces[0].side}s: {m}")
                    for m in serious_warnings(warnings)]
        if problems:
            raise PnpError(problems)
        return pikepdf.open(io.BytesIO(data))

    def _document(self, faces: list[Face], size, sheets, step: float) -> str:
        w, h = size
        deck = faces[0].deck
        tw, th = deck.trim
        b, s = deck.bleed, deck.safe
        geometry = (
            f"@page {{ size: {w}mm {h}mm; margin: 0 }}\n"
            "html, body { margin: 0; padding: 0 }\n"
            f"section.card {{ position: relative; width: {w}mm; height: {h}mm; overflow: hidden; "
            "break-after: page }\n"
            f".trim {{ position: absolute; left: {b}mm; top: {b}mm; width: {tw}mm; height: {th}mm }}\n"
            f".safe {{ position: absolute; left: {b + s}mm; top: {b + s}mm; width: {tw - 2 * s}mm; "
            f"height: {th - 2 * s}mm }}\n")
        # An absolute URL: a stylesheet may be the project's or the engine's; its path never reaches the PDF.
        links = "".join(f'<link rel="stylesheet" href="{self.project.template(name).as_uri()}">' for name in sheets)
        body = "".join(
            f'<section class="card deck-{f.deck.id} side-{f.side}" data-key="{f.key}">{f.fragments[step]}</section>'
            for f in faces)
        return (f'<!DOCTYPE html><html lang="{self.game.spec.language}"><head><meta charset="utf-8">'
                f"<style>{self.font_css}{geometry}</style>{links}</head><body>{body}</body></html>")


def _overflows(page) -> bool:
    """True when a `.fit` box's lines run past its bottom edge."""
    from weasyprint.formatting_structure.boxes import LineBox
    for box in _fit_boxes(page._page_box):
        bottom = box.content_box_y() + box.height
        lines = [d for d in box.descendants() if isinstance(d, LineBox)]
        if lines and max(line.position_y + line.margin_height() for line in lines) > bottom + 0.01:
            return True
    return False


def _fit_boxes(box):
    element = getattr(box, "element", None)
    classes = (element.get("class") or "").split() if element is not None else []
    if "fit" in classes and hasattr(box, "height") and not type(box).__name__.endswith("Placeholder"):
        yield box
        return
    for child in getattr(box, "children", []):
        yield from _fit_boxes(child)
    inner = getattr(box, "_box", None)  # absolutely positioned boxes hide behind a placeholder
    if inner is not None:
        yield from _fit_boxes(inner)

