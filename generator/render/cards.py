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
import traceback
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable
from urllib.parse import unquote, urljoin, urlparse

import pikepdf
from jinja2 import pass_context, TemplateError, TemplateNotFound, TemplateSyntaxError

from generator.source.assets import Assets, describe_char
from generator.source.context import card_data, game_context, plain, plain_context
from generator.check.expr import LimitError, guarded
from generator.render.art import ArtPlacer, Coarse
from generator.fingerprint import engine_fingerprint
from generator.render.cache import FaceCache, FileHashes, absolute_name, relative_name
from generator.source import reads
from generator.errors import PnpError, Problem
from generator.pdfbytes import open_pdf
from generator.source.game import Card, Deck, Game
from generator.source.project import ENGINE_TEMPLATES, Project
from generator.render.canonical import Batch, canonical_face
from generator.render.template_memo import ABSENT, WATCHED, TemplateMemo, Watched, code_fingerprint
from generator.render.html import (captured_warnings, fenced_fetcher, jinja_env, printed_text,
                                   serious_warnings)
from generator.render.workers import worker_pool
from generator.render.weasy import (font_config, fonts_key, weasyprint, without_font_programs,
                                    without_margin_boxes)

FIT_STEPS = (1.0, 0.94, 0.88, 0.82, 0.76)  # a fit box may shrink its text to 76 % at most
BASE_CSS = "base/card.css"


@dataclass
class Face:
    """One side of one card, ready to render."""
    deck: Deck
    card: Card | None
    side: str                 # "face" or "back"
    template: str
    source: tuple[str, int | None]
    make: Callable = field(repr=False, compare=False)   # (face, fit scale) -> the template's output
    key: str = ""             # the direct key (cache.py) until rendered, then the key of what it read too
    direct: str = ""
    memo: str = ""            # the template memo's key, when its direct key was taken from the memo
    fit: float = 1.0
    fragments: dict = field(default_factory=dict)  # fit scale -> html

    @property
    def html(self) -> str:
        """The template's output at full size, made when first asked for: a face whose key the
        template memo knows is never run through its template unless it has to be drawn."""
        if 1.0 not in self.fragments:
            self.fragments[1.0] = self.make(self, 1.0)
        return self.fragments[1.0]

    @property
    def text_source(self) -> tuple[str, int | None]:
        """Where the text this face prints is written: the card's catalogue entry in an edition
        that translates it, else its source row."""
        return self.card.text_at if self.card is not None and self.card.text_at else self.source

    @property
    def page_size(self) -> tuple[float, float]:
        w, h = self.deck.trim
        return w + 2 * self.deck.bleed, h + 2 * self.deck.bleed

    @property
    def label(self) -> str:
        return f"{self.card.uid if self.card else self.deck.id} ({self.side})"


class _Pages(dict):
    """Pages by face key; a face found in the cache is opened the first time it is asked for,
    so a pack that keeps most of its sheets (sheets/sheet_cache.py) opens only the faces it imposes."""

    def __init__(self, rendered: "Rendered"):
        super().__init__()
        self._rendered = rendered

    def __missing__(self, key: str):
        rendered = self._rendered
        real = rendered.keys.get(key, key)          # asked for by its direct key
        if real != key and dict.__contains__(self, real):
            return dict.__getitem__(self, real)
        if real not in rendered.stored:
            raise KeyError(key)
        data = rendered.held.pop(real, None) or rendered.cache.read(real, rendered.stored[real])
        if data is None:
            raise PnpError(Problem(rendered.cache.display(real), None, "this face cache entry was damaged while the "
                                   "build ran", "build again: it will be rendered anew"))
        pdf = pikepdf.open(io.BytesIO(data))
        rendered.pdfs[real] = pdf
        self[real] = pdf.pages[0]
        return self[real]


@dataclass
class Rendered:
    """Rendered pages by face key (and by direct key); holds the PDFs the pages live in. Every
    face is kept in the face cache and opened when a sheet first places it; once a sheet has
    its own copy, `release` closes it again (a 5,000-card pack no longer holds every face open
    until it is saved), and it is opened anew if asked for again."""
    cache: FaceCache | None = None
    pdfs: dict = field(default_factory=dict)      # key -> the opened PDF of a face
    pages: dict = field(default=None)
    fresh: list = field(default_factory=list)     # labels of the faces rendered now (not cached)
    keys: dict = field(default_factory=dict)      # direct key -> key
    stored: dict = field(default_factory=dict)    # key -> sha256 of its checked cache entry
    held: dict = field(default_factory=dict)      # key -> bytes of a face just drawn, until a sheet opens it
    _results: object = field(default=None, repr=False)    # faces still to come (expect)

    def __post_init__(self):
        self.pages = _Pages(self)

    def add(self, direct: str, key: str, pdf: pikepdf.Pdf) -> None:
        self.pdfs[key] = pdf
        self.pages[key] = pdf.pages[0]
        self.keys[direct] = key

    def add_stored(self, direct: str, key: str, sha: str) -> None:
        self.stored[key] = sha
        self.keys[direct] = key

    def expect(self, results, arrived: Callable, finished: Callable) -> None:
        """Faces still to come: `results` gives (direct key, key, inputs, bytes) for each, perhaps
        after a None that says the rest is being drawn elsewhere meanwhile; `arrived` takes each,
        `finished` runs once all have. Taken now up to that None (all of them if there is none)."""
        self._results, self._arrived, self._finished = iter(results), arrived, finished
        while self._results is not None and self._take() is not None:
            pass

    def _take(self):
        """The next face to come, taken in (None at a marker); False once none is left."""
        try:
            item = next(self._results)
        except StopIteration:
            self._results = None
            self._finished()
            return False
        except BaseException:
            self._results = None      # a rendering problem: nothing more will come
            raise
        if item is not None:
            self._arrived(*item)
        return item

    @property
    def pending(self) -> bool:
        """Whether faces are still being drawn elsewhere."""
        return self._results is not None

    def finish(self) -> None:
        """Wait for every face still being drawn (raising the first problem of one)."""
        while self._results is not None:
            self._take()

    def close(self) -> None:
        """Stop taking faces (a build that failed): chunks not yet begun are not drawn."""
        results, self._results = self._results, None
        if results is not None:
            results.close()

    def key_of(self, face) -> str:
        """A face's key, once it is drawn: a face still being drawn is waited for."""
        while face.direct not in self.keys and self._results is not None:
            self._take()
        return self.keys[face.direct]

    def lazy(self, key: str):
        """A stand-in for the page that opens it only when something reads it (a sheet kept
        from the last build never does), and that its imposer can release."""
        return _LazyPage(self, key)

    def release(self, key: str) -> None:
        real = self.keys.get(key, key)
        if real in self.stored:                # (a face held only in memory stays open)
            dict.pop(self.pages, real, None)
            self.pdfs.pop(real, None)


class _LazyPage:
    def __init__(self, rendered: Rendered, key: str):
        self._rendered, self._key = rendered, key

    def __getattr__(self, name):
        return getattr(self._rendered.pages[self._key], name)

    def release(self) -> None:
        """The imposer has its own copy of the page: the face's PDF may close."""
        self._rendered.release(self._key)


CHUNK = 75          # faces per WeasyPrint document: large enough to be fast, small enough for memory
# Faces drawn by workers while the build goes on imposing (render(stream=True)), at most: above it
# the build waits for them all first. While workers forked from it live, every page of its heap the
# build's process writes is copied, and imposing writes all over it: 10,000 cards cold took 447 MB
# (PSS) streamed against 376 MB not. What streaming saves is the imposing of the faces that arrive
# early, small beside drawing thousands of faces.
STREAM_UP_TO = 1000
_WORKER = None      # (renderer, chunks) for forked workers


def chunk_sizes(count: int, jobs: int, taper: bool = False) -> list[int]:
    """How many of a group's `count` faces each WeasyPrint document draws, in order: CHUNK at most,
    in whole rounds of `jobs` documents, so that no worker is left drawing one alone at the end (a
    document costs ~12 ms beside its faces). With `taper` (a large group drawn last) the last
    documents are smaller, one of CHUNK·2/3 then one of CHUNK/3 faces a worker: the build imposes
    each batch as it arrives, and what arrives last is imposed once every worker has stopped,
    with one core working (deck450: 150 faces imposed after the last batch arrived, 50 now)."""
    if count <= 0:
        return []
    tail = []
    if taper and jobs > 1 and count > jobs * 2 * CHUNK:
        tail = [CHUNK * 2 // 3] * jobs + [CHUNK // 3] * jobs
        count -= sum(tail)
    documents = -(-count // CHUNK)
    if jobs > 1:
        documents = min(count, -(-documents // jobs) * jobs)
    return [count // documents + (i < count % documents) for i in range(documents)] + tail


def _render_chunk_in_worker(index: int):
    renderer, chunks = _WORKER
    return renderer._render_chunk(*chunks[index])


INK_SAVER_CSS = "base/ink-saver.css"


class CardRenderer:
    def __init__(self, project: Project, assets: Assets, game: Game, ink_saver: bool = False,
                 art_dpi: int | None = None, keep_profiles: bool = False):
        self.project, self.assets, self.game = project, assets, game
        self.ink_saver = ink_saver
        plain_art = art_dpi is None and not keep_profiles     # an export's pictures are prepared anew
        # the index of the faces a build used: a build's, not an export's (which uses a few faces)
        self.cache = FaceCache(project, index=f"{game.id}-{game.language}" if plain_art else None)
        self.hashes = FileHashes(project)
        self.env = jinja_env(project, assets, game.spec.keywords, game.spec.language)
        # an export's --dpi, and for PDF/X the pictures' own ICC profiles (render/art.py)
        self.art = ArtPlacer(project.root, game.folder, project.art_cache, art_dpi, keep_profiles)
        self.env.globals["art"] = pass_context(lambda ctx, *args, **kwargs: self.art.place(ctx, *args, **kwargs))
        self.colours = {c.id: plain(c) for c in game.spec.player_colours}   # plain data for templates
        self._sheet_names: dict[str, list[str]] = {}
        self._decks_plain: dict[str, dict] = {}       # deck id -> its plain spec, shared by its faces
        self.font_css = assets.font_face_css()
        self._texts: dict[str, str] = {}
        self._static_digests: dict[tuple, object] = {}   # (deck, side, template) -> what their faces share
        self._context_hashes: dict[str, str] = {}    # "game" and each WATCHED part -> its hash
        self._paths: dict[str, Path] = {}
        self._font_files: dict[tuple, tuple[str, str] | None] = {}   # (family, weight) -> (file, hash)
        self._noted: set[tuple[str, str]] = set()     # (file, hash) noted for the stamp
        self._last_noted: dict | None = None         # the inputs _note last looked at
        self._player_fields: dict[str, list[str]] = {}   # deck id -> its `player` fields, in order
        self.memo = TemplateMemo(project.root, project.build / ".cache" / "templates" / f"{game.id}-{game.language}.json",
                                 self.hashes.current, self._memo_value) if plain_art else None
        self._watched: set[str] = set()       # the WATCHED parts of the context the render now read
        self._source_runs: list[str] = []     # the source's words the render now printed (another edition)

    @functools.cached_property
    def _font_key(self) -> str:
        """The fonts the faces are drawn with: their @font-face rules and files' bytes."""
        return fonts_key(self.font_css, self.assets.fonts, self.hashes.of)

    @functools.cached_property
    def fetcher(self):
        """Made when something is rendered: it loads WeasyPrint, which a warm build may not need."""
        return fenced_fetcher(self.project.readable_roots())

    # --- turning a card into HTML ------------------------------------------------------
    def stylesheets(self, deck: Deck) -> list[str]:
        sheets = [BASE_CSS] + list(self.game.spec.css) + list(deck.spec.css)
        return sheets + [INK_SAVER_CSS] if self.ink_saver else sheets

    def face(self, deck: Deck, card: Card | None, side: str) -> Face:
        template = deck.spec.face if side == "face" else deck.spec.back
        source = (card.file, card.line) if card else (deck.file, None)
        face = Face(deck, card, side, template, source, self._fragment)
        memo_key = self._memo_key(face) if self.memo is not None else None
        known = self.memo.get(memo_key) if memo_key else None
        if known is not None:
            face.key = face.direct = known["direct"]
            face.memo = memo_key
            self._replay(known, card)
            return face
        coarse = len(self.art.coarse)
        self._watched.clear()
        with reads.looking_up() as looked:        # the template runs now, its look-ups recorded
            face.fragments[1.0] = self._fragment(face, 1.0)
        face.key = face.direct = self._key(face)
        if memo_key:
            pictures = [[c.picture, list(c.pixels), c.dpi] for c in self.art.coarse[coarse:]]
            looked |= {f"<{name}>" for name in self._watched} | {f"<?{run}>" for run in self._source_runs}
            self.memo.put(memo_key, face.direct, looked, pictures)
        return face

    def _memo_value(self, name: str) -> str | None:
        """What a template memo entry's input in angle brackets is now: a WATCHED part of the
        context's hash, or, for a text the face printed in the source's script (an edition in
        another script), whether the catalogue still holds it: the untranslated check it passed.
        The catalogue as a whole is not in the memo's key, so a card's translation runs no other
        card's template."""
        if name.startswith("<?"):
            return ABSENT if self.game.untranslated(name[2:-1]) else "ok"
        part = name[1:-1]
        return self._context_hash(part) if part in WATCHED else None

    def _context_hash(self, name: str) -> str:
        """The hash of a WATCHED part of the context (every deck's cards, every table), once a run."""
        if name not in self._context_hashes:
            self._context_hashes[name] = hashlib.sha256(repr(game_context(self.game)[name]).encode()).hexdigest()
        return self._context_hashes[name]

    def save_memo(self) -> None:
        if self.memo is not None:
            self.memo.save()

    def _memo_key(self, face: Face) -> str:
        """Everything the face's template sees (template_memo.py): what its deck and side share,
        then the card's own data and player colour."""
        digest = self._static_digest(face.deck, face.side, face.template).copy()
        if face.card is not None:
            digest.update(repr(self._card_data(face.card)).encode())
        player = self._player(face.deck, face.card)
        digest.update(b"None" if player is None else repr(player).encode())
        return digest.hexdigest()[:40]

    def _card_data(self, card: Card) -> dict:
        """A card's plain data: the copy the game's context already holds (made once a build), or
        a new one for a card that is not in a deck's list."""
        return self._cards_plain.get(id(card)) or card_data(card)

    def _deck_data(self, deck: Deck) -> dict:
        """A deck's plain spec with its id, made once a build."""
        if deck.id not in self._decks_plain:
            self._decks_plain[deck.id] = {**plain(deck.spec), "id": deck.id}
        return self._decks_plain[deck.id]

    @functools.cached_property
    def _cards_plain(self) -> dict[int, dict]:
        decks = game_context(self.game)["decks"]
        return {id(card): data for deck_id, deck in self.game.decks.items()
                for card, data in zip(deck.cards, decks[deck_id])}

    def _static_digest(self, deck: Deck, side: str, template: str):
        """What the faces of one deck, side and template share, hashed once a run: each face's
        memo key goes on from a copy of it."""
        marker = (deck.id, side, template)
        if marker not in self._static_digests:
            if "game" not in self._context_hashes:
                shared = {k: v for k, v in game_context(self.game).items() if k not in WATCHED}
                self._context_hashes["game"] = hashlib.sha256(repr(shared).encode()).hexdigest()
            game = self.game
            parts = [code_fingerprint(game.spec.language), self._context_hashes["game"], template, side,
                     repr({**plain(deck.spec), "id": deck.id}), repr(self.colours),
                     repr((deck.trim, deck.bleed, deck.safe)), self.font_css, *self._stylesheet_names(deck),
                     *(f"{font.path.name}:{self.hashes.of(font.path)}" for font in self.assets.fonts),
                     repr(self.assets.icon_names), repr(sorted(game.text.items())),
                     repr((game.language, game.catalogue, self.ink_saver))]
            shared = hashlib.sha256("\0".join(parts).encode()).hexdigest()
            self._static_digests[marker] = hashlib.sha256(shared.encode())
        return self._static_digests[marker]

    def _replay(self, known: dict, card: Card | None) -> None:
        """What running the template would have left behind: its too-coarse pictures, and the
        files it depends on noted for the up-to-date stamp."""
        for picture, pixels, dpi in known["coarse"]:
            if card is not None and not any(c.card is card and c.picture == picture for c in self.art.coarse):
                self.art.coarse.append(Coarse(card, picture, tuple(pixels), dpi))
        self._note(known["inputs"])

    def _key(self, face: Face) -> str:
        """The direct key: what decides the face's look that is known before it renders (see
        cache.py; what it reads while rendering is recorded beside it)."""
        digest = hashlib.sha256()
        parts = [engine_fingerprint(), face.template, face.html, repr((face.deck.trim, face.deck.bleed, face.deck.safe)),
                 self.font_css]
        parts += self._stylesheet_names(face.deck)
        parts += [f"{font.path.name}:{self.hashes.of(font.path)}" for font in self._fonts_used(face.html)]
        for part in parts:
            digest.update(part.encode("utf-8"))
            digest.update(b"\0")
        return digest.hexdigest()[:40]

    def _stylesheet_names(self, deck: Deck) -> list[str]:
        """Where a deck's stylesheets are found (the project's templates/ or the engine's), looked
        up once per deck in a run: every face of the deck has the same."""
        if deck.id not in self._sheet_names:
            self._sheet_names[deck.id] = [self._sheet_name(name) for name in self.stylesheets(deck)]
        return self._sheet_names[deck.id]

    def _sheet_name(self, name: str) -> str:
        """A stylesheet's place as a key sees it: the engine's by a name of its own, not the path
        the engine happens to have from this project (a `--since REV` scratch copy of the
        project sees the same engine from elsewhere, and must get the same keys)."""
        path = self.project.template(name)
        if path is not None and path.is_relative_to(ENGINE_TEMPLATES):
            return f"<engine>/{path.relative_to(ENGINE_TEMPLATES).as_posix()}"
        return self.project.display(path)

    def _fonts_used(self, html: str):
        """The font files whose family draws some character of this face."""
        families = {self.assets.font_for(c) for c in set(self._printed(html)) if not c.isspace()}
        return [font for font in self.assets.fonts if font.family in families]

    def _player(self, deck: Deck, card: Card | None) -> dict | None:
        """The colours of the player a card belongs to (its first `player` field)."""
        if card is not None:
            if deck.id not in self._player_fields:
                self._player_fields[deck.id] = [n for n, spec in deck.spec.fields.items() if spec.type == "player"]
            for name in self._player_fields[deck.id]:
                if card.fields.get(name) in self.colours:
                    return self.colours[card.fields[name]]
        return None

    def _fragment(self, face: Face, fit: float) -> str:
        card = face.card
        w, h = face.deck.trim
        # plain data made once a build and shared (the sandbox lets no template change it): the
        # card's own copy in the game's context, the deck's, the players' colours
        context = plain_context(self.game, card=self._card_data(card) if card is not None else None,
                                deck=self._deck_data(face.deck), colours=self.colours,
                                player=self._player(face.deck, card), fit=fit, side=face.side,
                                trim={"width": w, "height": h}, bleed=face.deck.bleed, safe=face.deck.safe,
                                lang=self.game.spec.language)
        translate = self.game.translate
        context["_"] = lambda text: translate(text)        # the game's own translations (its i18n/<lang>.yaml)
        for name in WATCHED:
            context[name] = Watched(context[name], name, self._watched)
        self.art.current = card           # who a too-coarse picture belongs to (templates see plain data)
        try:
            html = guarded(lambda: self.env.get_template(face.template).render(**context))
        except LimitError as exc:
            raise PnpError(Problem(*self._blame(exc, face), f"{face.label}: template stopped: {exc}")) from None
        except TemplateSyntaxError as exc:
            raise PnpError(Problem(f"templates/{exc.name or face.template}", exc.lineno,
                                   f"template error: {exc.message}")) from None
        except TemplateNotFound as exc:
            raise PnpError(Problem(*self._blame(exc, face), f"{face.label}: no template '{exc.name}' under "
                                   "templates/")) from None
        except (TemplateError, ValueError, TypeError, KeyError, AttributeError) as exc:
            raise PnpError(Problem(*self._blame(exc, face), f"{face.label}: template failed: {exc}")) from None
        printed = self._printed(html)
        self._source_runs = self.game.source_runs(printed)      # (the template memo re-checks them)
        left = self.game.untranslated(printed)
        field = _untranslated_field(face, left[0]) if left else None
        if field:           # a card text with no translation (only a card no pack prints gets this far)
            raise PnpError(Problem(*face.source, f"{face.label}: {field}: no {self.game.language} translation",
                                   f"add it to {self.game.catalogue}"))
        if left:
            raise PnpError(Problem(*face.source, f"{face.label}: the {self.game.language} edition prints "
                                   f"{left[0]!r} untranslated", f"wrap the words in _() in {face.template} and "
                                   f"translate them under text: in {self.game.catalogue}"))
        missing = self.assets.missing(printed, icons=False)
        if missing:
            raise PnpError([Problem(*(self.game.entry_holding(c) or face.source), f"{face.label}: character "
                                    f"{describe_char(c)} is in no bundled font and has no icon") for c in missing])
        return html

    def _printed(self, html: str) -> str:
        """The characters a fragment prints, parsed once (the missing-glyph check and the
        cache key both need them)."""
        if html not in self._texts:
            self._texts[html] = printed_text(html)
        return self._texts[html]

    def _blame(self, exc: Exception, face: Face) -> tuple[str, int | None]:
        exc = getattr(exc, "origin", None) or exc     # a runaway template: where it was running
        for frame in reversed(traceback.extract_tb(exc.__traceback__)):
            path = Path(frame.filename)
            if path.suffix in (".html", ".j2") and any(path.is_relative_to(r) for r in self.project.template_roots()):
                return self.project.display(path), frame.lineno
        return face.source

    # --- rendering ------------------------------------------------------------------------
    def render(self, faces: list[Face], jobs: int = 1, progress=None, stream: bool = False) -> "Rendered":
        """Every distinct face as a canonical one-page PDF, from the cache when it is there,
        else rendered (in `jobs` processes) and stored. Pages are looked up by key.

        With `stream` (and at most STREAM_UP_TO faces to draw), faces rendered by worker processes
        are taken as each batch arrives: the call returns once the workers have their work, and
        `Rendered.key_of` waits for a face still being drawn, so a build imposes the first sheets
        while the last faces render. `Rendered.finish()` waits for them all (and raises the first
        rendering problem)."""
        unique = {f.direct: f for f in faces}
        shared = Counter(f.direct for f in faces if f.card is not None)     # a deck's one back, say
        rendered = Rendered(self.cache)
        missing = []

        def current(name: str) -> str | None:
            return self.hashes.current(self._absolute(name))
        for direct, face in unique.items():
            hit = self.cache.find(direct, current)
            if hit is None:
                missing.append(face)
                continue
            key, sha, inputs = hit
            rendered.add_stored(direct, key, sha)
            self._note(inputs)
        if self._rekeyed([f for f in missing if f.memo], faces):
            return self.render(faces, jobs, progress, stream)      # looked up again under their right keys
        # progress(total) starts a display of the faces really rendered, and returns its advance(n)
        advance = progress(len(missing)) if progress is not None and missing else None
        pooled = stream and len(missing) <= STREAM_UP_TO

        def arrived(direct: str, key: str, inputs: dict, data: bytes) -> None:
            sha = hashlib.sha256(data).hexdigest()
            rendered.add_stored(direct, key, sha)      # in the cache now: opened when a sheet places it
            if pooled:              # imposed soon (a few MB at most): not read back from the cache
                rendered.held[key] = data
            face = unique[direct]
            rendered.fresh.append(face.label if shared[direct] < 2 else
                                  f"{face.deck.id} ({face.side}, shared by {shared[direct]} cards)")
            self._note(inputs)      # read in a worker process, perhaps: the parent's log records it
            self.cache.remember(direct, key, sha, inputs)

        def finished() -> None:
            self.cache.save_index()
            for face in faces:
                face.key = rendered.keys[face.direct]

        rendered.expect(self._render_missing(missing, jobs, advance, pooled=pooled), arrived, finished)
        if not stream:
            rendered.finish()
        return rendered

    def _rekeyed(self, taken: list[Face], faces: list[Face]) -> bool:
        """Faces to be drawn run their templates anyway: a direct key `taken` from the template
        memo is checked against the one their output gives. An entry that names another key (a
        damaged record: the face would be drawn and kept under a key no cold build gives) is
        dropped, and every face that had it takes its own. Whether any key was wrong."""
        wrong = set()
        for face in taken:
            if self._key(face) != face.direct:
                wrong.add(face.direct)
                self.memo.forget(face.memo)
            face.memo = ""
        for face in faces:
            if face.direct in wrong:
                face.key = face.direct = self._key(face)
                face.memo = ""
        if wrong:
            self.memo.save()        # saved before the faces were drawn: without the entry now
        return bool(wrong)

    def _render_missing(self, faces: list[Face], jobs: int, progress, pooled: bool = False):
        """(direct key, key, inputs, canonical PDF bytes) for each face, rendered in chunks, in
        parallel if jobs > 1. With `pooled`, the first item is a marker (None), given as soon as
        the worker processes have their chunks, so the caller may go on meanwhile; it is given
        only when there are worker processes (faces drawn in this process are drawn at once)."""
        chunks = []
        groups: dict[tuple, list[Face]] = {}
        for face in faces:
            groups.setdefault((face.page_size, tuple(self.stylesheets(face.deck))), []).append(face)
        after = len(faces)          # faces of the groups drawn after this one
        for (size, sheets), group in groups.items():
            after -= len(group)
            start = 0
            # a group that ends the build (but for fewer faces than a round of documents) tapers off
            for count in chunk_sizes(len(group), jobs, taper=after < jobs * CHUNK):
                chunks.append((group[start:start + count], size, sheets))
                start += count
        if jobs <= 1 or len(chunks) <= 1:
            results = (self._render_chunk(*chunk) for chunk in chunks)
            for result in results:
                yield from self._collect(result, progress)
            return
        global _WORKER
        _WORKER = (self, chunks)
        self.fetcher      # load WeasyPrint before forking: the workers share it instead of each loading it
        pool = worker_pool(jobs)
        try:
            results = pool.map(_render_chunk_in_worker, range(len(chunks)))
            if pooled:
                yield None
            for result in results:
                yield from self._collect(result, progress)
        finally:
            # a build that failed, or stopped taking faces, does not wait for chunks not yet begun
            pool.shutdown(wait=True, cancel_futures=True)
            _WORKER = None

    @staticmethod
    def _collect(result, progress):
        if isinstance(result, PnpError):
            raise result
        if result[0] == "error":
            raise PnpError([Problem(*p) for p in result[1]])
        if progress is not None:       # once per batch: a steady rate for the estimate
            progress(len(result[1]))
        yield from result[1]

    def _render_chunk(self, faces: list[Face], size, sheets):
        """("ok", [(direct key, key, inputs, bytes)]) or ("error", [problem tuples]): plain data, so a
        worker can send it. The worker stores each face in the cache itself, sparing the parent that work."""
        try:
            pdf, inputs = self._render_group(faces, size, sheets)
            batch = Batch(pdf)
            done = []
            for face, page, read in zip(faces, pdf.pages, inputs):
                data = canonical_face(page, batch)
                read = dict(sorted({**read, **self._fonts_drawn(batch.drawn)}.items()))
                done.append((face.direct, self.cache.put(face.direct, read, data), read, data))
            return "ok", done
        except PnpError as exc:
            return "error", [(p.path, p.line, p.message, p.hint) for p in exc.problems]

    def _render_group(self, faces: list[Face], size, sheets) -> tuple[pikepdf.Pdf, list[dict[str, str]]]:
        """The faces as one PDF, and for each face the files it read (path -> hash)."""
        HTML = weasyprint().HTML
        pending, documents = list(faces), {}
        self.fetcher.fetched.clear()
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
                               url_fetcher=self.fetcher).render(font_config=font_config(self._font_key))
                overflowing = []
                for face, page in zip(pending, doc.pages):
                    (overflowing if _overflows(page) else []).append(face)
                    documents[face.direct] = (doc, page)
                pending = overflowing
            if pending:
                edition = f"the {self.game.language} text" if len(self.game.languages) > 1 else "text"
                raise PnpError([Problem(*f.text_source, f"{f.label}: {edition} does not fit its box in {f.template} even "
                                        f"at {int(FIT_STEPS[-1] * 100)} % size", "shorten the text")
                                for f in pending])
            clipped = [Problem(*f.text_source, f"{f.label}: the text “{text}” is clipped by its box in {f.template} "
                               "(overflow: hidden)", "shorten the text, or make the box larger or a fit box")
                       for f in faces for text in clipped_text(documents[f.direct][1])[:1]]
            if clipped:
                raise PnpError(clipped)
            unsafe = [(f, text) for f in faces for text in text_past_safe_area(documents[f.direct][1], f)[:1]]
            if unsafe:
                raise PnpError(_past_safe_area(unsafe))
            first = documents[faces[0].direct][0]
            combined = first.copy([documents[f.direct][1] for f in faces])
            with without_font_programs():
                data = combined.write_pdf()
            inputs = self._inputs([documents[f.direct][1] for f in faces])
        problems = [Problem(*faces[0].source, f"{faces[0].deck.id} {faces[0].side}s: {m}")
                    for m in serious_warnings(warnings, self.project.display)]
        if problems:
            raise PnpError(problems)
        return open_pdf(data), inputs

    def _inputs(self, pages) -> list[dict[str, str]]:
        """What each page read: the files fetched for its document (stylesheets and what they
        import), less the pictures, which count only for the pages that show them, and less the
        fonts, which count for the faces that draw with them (_fonts_drawn)."""
        fetched = self.fetcher.fetched
        fonts = {str(font.path.resolve()) for font in self.assets.fonts}
        shown = [_pictures(page._page_box, self.project.root.as_uri() + "/") for page in pages]
        pictures = set().union(*shown) if shown else set()
        shared = {p: sha for p, sha in fetched.items() if p not in fonts and p not in pictures}
        read = [{**shared, **{p: fetched.get(p) or self.hashes.of(Path(p)) for p in own if p in fetched
                              or Path(p).is_file()}} for own in shown]
        return [{self._relative(p): sha for p, sha in sorted(inputs.items())} for inputs in read]

    def _fonts_drawn(self, groups) -> dict[str, str]:
        """The font files a face draws with, by hash, recorded as inputs like the files it fetched
        (WeasyPrint loads fonts once a process, not through the fetcher). The direct key holds the
        fonts of the HTML's own text only; text that CSS adds (content, counters, list markers)
        draws glyphs too, whose numbers may change with the file."""
        drawn = {}
        for group in groups:
            if group not in self._font_files:      # (asked for every face: looked up once a run)
                try:
                    path = self.assets.font_file(*group)
                except ValueError:           # not a bundled font: the pack's merge says so
                    path = None
                self._font_files[group] = path and (self._relative(str(path.resolve())), self.hashes.of(path))
            if self._font_files[group]:
                name, sha = self._font_files[group]
                drawn[name] = sha
        return drawn

    def _relative(self, path: str) -> str:
        return relative_name(self.project.root, path)

    def _absolute(self, name: str) -> Path:
        """Looked up once per name: thousands of cached faces share a few inputs."""
        if name not in self._paths:
            self._paths[name] = absolute_name(self.project.root, name)
        return self._paths[name]

    def _note(self, inputs: dict[str, str]) -> None:
        """Note the files a face read for the up-to-date stamp: each (file, hash) once a build,
        though thousands of faces read the same stylesheets (the faces index and the template memo
        give faces that read the same files one dict: looked at once). A file a template looked
        for and did not find (ABSENT) is not one it read."""
        if inputs is self._last_noted:
            return
        self._last_noted = inputs
        for pair in inputs.items():
            if pair[1] != ABSENT and pair not in self._noted:
                self._noted.add(pair)
                reads.note_hash(self._absolute(pair[0]), pair[1])

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
            f'<section class="card deck-{f.deck.id} side-{f.side}" data-key="{f.key}">{f.html if step == 1.0 else f.fragments[step]}</section>'
            for f in faces)
        return (f'<!DOCTYPE html><html lang="{self.game.spec.language}"><head><meta charset="utf-8">'
                f"<style>{self.font_css}{geometry}</style>{links}</head><body>{body}</body></html>")


_PICTURE_PROPERTIES = ("background_image", "list_style_image", "border_image_source", "mask_border_source")


def _pictures(box, base_url: str) -> set[str]:
    """Paths of the pictures a page's boxes show: <img> sources and url() images in their style."""
    found = set()
    stack = [box]
    while stack:
        box = stack.pop()
        element = getattr(box, "element", None)
        if element is not None and getattr(element, "tag", None) == "img" and element.get("src") \
                and type(box).__name__ != "InlineBox":
            found.add(urljoin(base_url, element.get("src")))
        style = getattr(box, "style", None)
        if style is not None:
            for name in _PICTURE_PROPERTIES:
                value = style[name] if name in style else None
                for item in value if isinstance(value, (list, tuple)) else [value]:
                    if isinstance(item, tuple) and len(item) == 2 and item[0] == "url" and isinstance(item[1], str):
                        found.add(item[1])
        stack += list(getattr(box, "children", []))
        inner = getattr(box, "_box", None)
        if inner is not None:
            stack.append(inner)
    return {str(Path(unquote(urlparse(url).path)).resolve()) for url in found if url.startswith("file:")}


def _overflows(page) -> bool:
    """True when a `.fit` box's lines run past its bottom edge."""
    from weasyprint.formatting_structure.boxes import LineBox
    for box in _fit_boxes(page._page_box):
        bottom = box.content_box_y() + box.height
        lines = [d for d in box.descendants() if isinstance(d, LineBox)]
        if lines and max(line.position_y + line.margin_height() for line in lines) > bottom + 0.01:
            return True
    return False


def clipped_text(page) -> list[str]:
    """The text of each line that a box with `overflow: hidden` cuts off (past its padding box's
    bottom or right edge): a header set in a fixed box, a word too long for its column. A `.fit`
    box shrinks its text first; this is what is left after that."""
    from weasyprint.formatting_structure.boxes import LineBox, TextBox
    found = []
    for box in _hidden_boxes(page._page_box):
        right = box.padding_box_x() + box.padding_width() + 0.5         # px: half a pixel of rounding
        bottom = box.padding_box_y() + box.padding_height() + 0.5
        for line in (d for d in box.descendants() if isinstance(d, LineBox)):
            texts = [t for t in line.descendants() if isinstance(t, TextBox) and t.text.strip()]
            if any(t.position_x + t.width > right or t.position_y + t.height > bottom for t in texts):
                found.append("".join(t.text for t in texts)[:40])
                break
    return found


def _untranslated_field(face: Face, run: str) -> str | None:
    """The card's text field that still holds `run` of the source language (no translation), if any."""
    if face.card is None:
        return None
    texts = {n for n, f in face.deck.spec.fields.items() if f.type in ("text", "rich")}
    return next((n for n, v in face.card.fields.items() if n in texts and isinstance(v, str) and run in v), None)


PAST_SAFE_MM = 1.5    # a line's boxes this far past the safe line: its ink is past preflight's tolerance too


def text_past_safe_area(page, face: Face) -> list[str]:
    """The text of each line that runs past the face's safe area sideways (a word too long for a box
    that neither wraps nor clips it): said here, at the card, rather than by the pack's preflight,
    which finds its glyphs on the sheet (past the cut, over the next card)."""
    from weasyprint.formatting_structure.boxes import LineBox, TextBox
    px = 96 / 25.4
    inset, over = (face.deck.bleed + face.deck.safe) * px, PAST_SAFE_MM * px
    left, right = inset - over, page.width - inset + over
    found = []
    for line in (b for b in _boxes(page._page_box, _transformed) if isinstance(b, LineBox)):
        texts = [t for t in _boxes(line) if isinstance(t, TextBox) and t.text.strip()]
        if any(t.position_x < left or t.position_x + t.width > right for t in texts):
            found.append("".join(t.text for t in texts)[:40])
    return found


def _past_safe_area(found: list[tuple[Face, str]]) -> list[Problem]:
    """A card whose text runs past its safe area, at the card (its text is what to shorten); several
    cards of one template at once, as one problem at the template (a box the template or its
    stylesheet placed is what to move)."""
    by_template: dict[str, list] = {}
    for face, text in found:
        by_template.setdefault(face.template, []).append((face, text))
    problems = []
    for template, items in by_template.items():
        face, text = items[0]
        if len(items) == 1:
            problems.append(Problem(*face.text_source, f"{face.label}: the text “{text}” runs past the card's "
                                    f"{face.deck.safe:g} mm safe area in {template}", "shorten the text, or let its box wrap it"))
            continue
        shown = ", ".join(f"{f.label} “{t}”" for f, t in items[:3]) + (f" and {len(items) - 3} more" if len(items) > 3 else "")
        problems.append(Problem(f"templates/{template}", None, f"the text of {len(items)} cards runs past the card's "
                                f"{face.deck.safe:g} mm safe area: {shown}", "move or narrow its box in the template or its "
                                "stylesheet, or shorten the texts"))
    return problems


def _boxes(box, prune=lambda box: False):
    """Every box under `box`, itself first, those absolutely positioned too (behind a placeholder);
    not those under a box `prune` is true of. (A stack, not nested generators: every face's boxes
    are walked, and a box deep in the tree would pass up through a generator per level.)"""
    stack = [box]
    while stack:
        box = stack.pop()
        if prune(box):
            continue
        if not type(box).__name__.endswith("Placeholder"):
            yield box
        inner = getattr(box, "_box", None)
        if inner is not None:
            stack.append(inner)              # after the children, as they come before it
        stack.extend(reversed(getattr(box, "children", [])))


def _transformed(box) -> bool:
    """A box drawn rotated or moved (`transform`): where its text lands is not where it was laid out
    (the pack's preflight measures it as printed)."""
    style = getattr(box, "style", None)
    return style is not None and bool(style["transform"])


def _hidden_boxes(box):
    return (b for b in _boxes(box) if getattr(b, "style", None) is not None and b.style["overflow"] == "hidden"
            and hasattr(b, "height"))


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

