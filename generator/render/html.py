"""What every HTML render shares: the sandboxed Jinja environment, the fenced URL
fetcher, and the capture of WeasyPrint's warnings (missing glyphs, failed loads).
"""
from __future__ import annotations

import html
import logging
import os
import re
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import unquote, urlparse

from jinja2 import BytecodeCache, FileSystemLoader, StrictUndefined, TemplateSyntaxError, pass_context, select_autoescape
from markupsafe import Markup, escape

from generator.check.expr import BoundedSandbox
from generator.source import reads
from generator.source.assets import Assets
from generator.source.i18n import translator
from generator.source.markup import to_html
from generator.source.project import Project


MAX_FILE_BYTES = 20 * 2**20    # larger artwork is a mistake (or an attack) that would exhaust memory


def fenced_fetcher(roots: list[Path]):
    """A WeasyPrint URL fetcher that reads files inside the project's own folders and nothing
    else: no network, no file:// elsewhere, no escaping with ../ or a symbolic link."""
    from generator.render.weasy import weasyprint
    URLFetcher = weasyprint().urls.URLFetcher

    URLFetcherResponse = weasyprint().urls.URLFetcherResponse
    allowed = [r.resolve() for r in roots]

    class FencedFetcher(URLFetcher):
        fetched: dict[str, str] = {}      # path -> sha256 of the bytes handed to WeasyPrint

        def fetch(self, url, headers=None):
            parsed = urlparse(url)
            if parsed.scheme != "file":
                self._refuse(f"blocked: {url} (only files inside the project may be used)")
            path = Path(unquote(parsed.path)).resolve()
            if not any(path.is_relative_to(root) for root in allowed):
                self._refuse(f"blocked: {path} is outside the project's folders{_meant(path, allowed)}")
            if path.exists() and not path.is_file():     # a named pipe would block, a device never end
                self._refuse(f"blocked: {path.name} is not a regular file (a named pipe, socket or device)")
            if path.is_file() and path.stat().st_size > MAX_FILE_BYTES:
                self._refuse(f"blocked: {path.name} is {path.stat().st_size // 2**20} MB; an image, stylesheet or "
                             f"font a card uses may be at most {MAX_FILE_BYTES // 2**20} MB")
            response = super().fetch(url, headers)
            data = response.read(MAX_FILE_BYTES + 1)    # read once: the bytes recorded are the bytes drawn
            response.close()
            if len(data) > MAX_FILE_BYTES:             # grown since it was looked at
                self._refuse(f"blocked: {path.name} is more than {MAX_FILE_BYTES // 2**20} MB")
            self.fetched[str(path)] = reads.digest(data)
            reads.note_hash(path, self.fetched[str(path)])
            return URLFetcherResponse(response.url, data, response.headers, response.status)

        @staticmethod
        def _refuse(message: str):
            # WeasyPrint reports some failed loads (fonts) only at debug level: say it ourselves,
            # as a warning the renderer turns into a problem.
            logging.getLogger("weasyprint").warning(message)
            raise ValueError(message)

    fetcher = FencedFetcher(allowed_protocols={"file"})
    fetcher.fetched = {}
    return fetcher


def _meant(path: Path, allowed: list[Path]) -> str:
    """A hint when a refused path ends like a file inside the project: `../../cards/x.png` in a
    template climbs out of the project folder, which every path in a template's HTML starts from."""
    parts = path.parts[1:]
    for start in range(len(parts)):
        for root in allowed:
            candidate = root.parent / Path(*parts[start:])
            if candidate.is_file() and any(candidate.resolve().is_relative_to(r) for r in allowed):
                return (f"; did you mean {candidate.relative_to(root.parent)}? "
                        "(a path in a template starts from the project folder)")
    return ""


MAX_TEMPLATE_BYTES = 2_000_000


class RecordingLoader(FileSystemLoader):
    """Templates by name under the template folders; each one read (an include, an imported
    macro file) is noted with the hash of its source, for the up-to-date stamp."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._candidates: dict[str, list[str]] = {}

    def get_source(self, environment, template):
        # every place the name is looked for, on every look-up (the environment keeps no loaded
        # template: jinja_env): a file added where an earlier place has none changes the render
        for path in self.candidates(template):
            reads.looked_up(path)
        self._bounded(template)
        try:
            source, filename, uptodate = super().get_source(environment, template)
        except UnicodeDecodeError as exc:          # named as the template's own error, at its line
            raise self._not_utf8(template, exc) from None
        reads.note(filename, source.encode("utf-8"))
        # a byte-order mark some editors write is no character of the page (no font draws U+FEFF)
        return source.removeprefix("\ufeff"), filename, uptodate

    def _bounded(self, template: str) -> None:
        """A template is a few KB: one far larger (data pasted into it) is refused before it is read."""
        for candidate in self.candidates(template):
            try:
                size = os.stat(candidate).st_size
            except OSError:
                continue
            if size > MAX_TEMPLATE_BYTES:
                raise TemplateSyntaxError(f"template is {size // 1024} KB; the limit is {MAX_TEMPLATE_BYTES // 1000} KB",
                                          None, template, candidate)
            return

    def _not_utf8(self, template: str, exc: UnicodeDecodeError) -> TemplateSyntaxError:
        for candidate in self.candidates(template):
            if Path(candidate).is_file():
                line = Path(candidate).read_bytes()[: exc.start].count(b"\n") + 1
                return TemplateSyntaxError("not UTF-8 text (save the file as UTF-8)", line, template, candidate)
        return TemplateSyntaxError("not UTF-8 text (save the file as UTF-8)", None, template)

    def candidates(self, template: str) -> list[str]:
        """Every place the template is looked for, in order: the one used depends on the
        places before it holding no such file. (Asked on every render: worked out once a name.)"""
        if template not in self._candidates:
            self._candidates[template] = [str(Path(root, *template.split("/"))) for root in self.searchpath]
        return self._candidates[template]


class _CompiledTemplates(BytecodeCache):
    """Templates compiled once a process, by their source's checksum: every build makes new
    environments, and `pnp watch` builds again on every save. Kept in memory only: compiled code
    read back from a file would run whatever a planted file holds (a project folder or a build
    cache received from someone else is data, never code)."""

    def __init__(self):
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)     # reset by Jinja if the source changed

    def dump_bytecode(self, bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


_COMPILED = _CompiledTemplates()


def jinja_env(project: Project, assets: Assets, keywords: list[str], lang: str = "en") -> BoundedSandbox:
    """The sandboxed environment of card faces and engine pages. The engine's own words come
    from its catalogue for `lang` (`_()` / `ngettext()`); a render of a game's template passes
    the game's own `_` (its translations) in the context, which takes precedence."""
    loader = RecordingLoader(project.template_roots())
    # No template is kept loaded (cache_size=0): each render asks the loader again, so every file it
    # looks up and reads is recorded for that face (the template memo and the stamp depend on it), and
    # an imported file's top level runs again for each face. Compiled code is kept (_COMPILED).
    env = BoundedSandbox(
        loader=loader, autoescape=select_autoescape(["html", "j2"]), bytecode_cache=_COMPILED, cache_size=0,
        undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.i18n"])
    env.install_gettext_translations(translator(lang), newstyle=True)

    @pass_context
    def rich(ctx, text):
        card = ctx.get("card")
        fields = {k: v for k, v in card.items() if k != "id"} if isinstance(card, dict) else {}
        return to_html(text, assets, keywords, rich=True, fields=fields)

    def plain(text):
        return to_html(text, assets, (), rich=False)

    def icon(emoji, cls="icon"):
        assets.checked_icon(emoji)        # exists, and reads nothing outside itself
        return Markup(f'<img class="{escape(cls)}" src="{assets.icon_url(emoji)}" alt="{escape(emoji)}">')

    def num(value, sign=False):
        text = f"{value:+d}".replace("-", "−") if sign and isinstance(value, int) else str(value).replace("-", "−")
        return Markup(f'<span class="num">{escape(text)}</span>')

    def stylesheet(name):
        """A stylesheet's URL by its name under templates/ (the project's or the engine's)."""
        path = project.template(name)
        if path is None:
            raise ValueError(f"no stylesheet {name!r} under templates/")
        return path.as_uri()

    env.filters.update(rich=rich, text=plain, num=num)
    env.globals.update(icon=icon, num=num, stylesheet=stylesheet)
    return env


SERIOUS = (".notdef", "Failed to load", "cannot be loaded", "blocked", "Ignored", "Invalid", "Error")


def serious_warnings(messages: list[str], display=str) -> list[str]:
    """The warnings that must stop a build, once each and explained: a missing glyph, a file
    that would not load or was refused, CSS WeasyPrint ignored. When the fence refused a load,
    WeasyPrint's own lines about it only repeat that, so only the refusals are kept.
    `display(path)` names a file as the designer sees it (relative to the project)."""
    serious = [m for m in messages if any(s in m for s in SERIOUS)]
    if any(m.startswith("blocked:") for m in serious):
        serious = [m for m in serious if m.startswith("blocked:")]
    return [_explain(m, display) for m in dict.fromkeys(serious)]


# WeasyPrint: "Failed to load image at 'file:///…/x.png': URLError: <urlopen error [Errno 2] No such file …>"
_FAILED_LOAD = re.compile(r"Failed to load (\w+) at '?(file://[^' ]+)'?: (.*)", re.S)


def _explain(message: str, display=str) -> str:
    if ".notdef" in message:
        return f"a character has no glyph in the bundled fonts: {message.split(':', 1)[-1].strip()}"
    failed = _FAILED_LOAD.search(message)
    if failed:
        kind, url, why = failed.groups()
        name = display(Path(unquote(urlparse(url).path)))
        why = "no such file" if "No such file" in why else why.strip()
        return f"{'picture' if kind == 'image' else kind} {name} could not be loaded: {why}"
    return message


class WeasyLog(logging.Handler):
    """Collects WeasyPrint's warnings during one render."""

    def __init__(self):
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@contextmanager
def captured_warnings():
    logger = logging.getLogger("weasyprint")
    handler = WeasyLog()
    logger.addHandler(handler)
    old, logger.propagate = logger.propagate, False
    try:
        yield handler.messages
    finally:
        logger.removeHandler(handler)
        logger.propagate = old


_HIDDEN = re.compile(r"<!--.*?-->|<(style|script)\b.*?</\1\s*>", re.S | re.I)
_TAG = re.compile(r"""<(?:[^>"']|"[^"]*"|'[^']*')*>""")


def printed_text(fragment: str) -> str:
    """The characters an HTML fragment prints (icons are <img>, so not included). A regular
    expression, not an HTML parser: this runs for every card of every build."""
    return html.unescape(_TAG.sub("", _HIDDEN.sub("", fragment)))


# WeasyPrint names a raster picture `/i` + md5(its URL) + a flag, and the URL holds the folder
# the project lies in. Faces are renamed by canonical.py; a document written as it comes
# (page 1) has its pictures renamed here, in order of first use, so it is the same bytes in
# any checkout.
_PICTURE_NAME = re.compile(rb"/i[0-9a-f]{32}[01]\b")


def path_free_pictures(data: bytes) -> bytes:
    """`data` (a PDF WeasyPrint wrote) with its raster pictures named /Im1, /Im2 …"""
    if b"/Image" not in data:          # a picture is a stream, so its dictionary is never compressed
        return data
    import pikepdf                     # only for a page that shows a picture
    from generator.pdfbytes import open_pdf, pdf_bytes
    pdf = open_pdf(data)
    names: dict[bytes, bytes] = {}
    tables = []                        # every /XObject table: in a resource dictionary, direct or not

    def rename(match) -> bytes:
        return names.setdefault(match.group(), b"/Im%d" % (len(names) + 1))

    for obj in pdf.objects:
        if not isinstance(obj, (pikepdf.Dictionary, pikepdf.Stream)):
            continue
        for holder in (obj, obj.get("/Resources")):
            if isinstance(holder, pikepdf.Dictionary) and isinstance(holder.get("/XObject"), pikepdf.Dictionary):
                tables.append(holder.XObject)
        if isinstance(obj, pikepdf.Stream) and obj.get("/Subtype") in (None, "/Form"):   # content, not data
            content = obj.read_bytes()
            if _PICTURE_NAME.search(content):
                obj.write(_PICTURE_NAME.sub(rename, content))      # compressed again by the save
    found = set()
    for table in tables:
        for old, new in names.items():
            if old.decode() in table:
                table[new.decode()] = table[old.decode()]
                del table[old.decode()]
                found.add(old)
    if not names or found != set(names):     # a name drawn but listed nowhere: leave the page as it was
        return data
    return pdf_bytes(pdf, deterministic_id=True, compress_streams=True)
