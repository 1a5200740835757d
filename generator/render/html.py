"""What every HTML render shares: the sandboxed Jinja environment, the fenced URL
fetcher, and the capture of WeasyPrint's warnings (missing glyphs, failed loads).
"""
from __future__ import annotations

import logging
from contextlib import contextmanager
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

from jinja2 import FileSystemLoader, StrictUndefined, pass_context, select_autoescape
from jinja2.sandbox import ImmutableSandboxedEnvironment
from markupsafe import Markup, escape

from generator.assets import Assets
from generator.markup import to_html
from generator.project import Project


def fenced_fetcher(roots: list[Path]):
    """A WeasyPrint URL fetcher that reads files inside the project's own folders and nothing
    else: no network, no file:// elsewhere, no escaping with ../ or a symbolic link."""
    from weasyprint.urls import URLFetcher

    allowed = [r.resolve() for r in roots]

    class FencedFetcher(URLFetcher):
        def fetch(self, url, headers=None):
            parsed = urlparse(url)
            if parsed.scheme != "file":
                raise ValueError(f"blocked: {url} (only files inside the project may be used)")
            path = Path(unquote(parsed.path)).resolve()
            if not any(path.is_relative_to(root) for root in allowed):
                raise ValueError(f"blocked: {path} is outside the project's folders")
            return super().fetch(url, headers)

    return FencedFetcher(allowed_protocols={"file"})


def jinja_env(project: Project, assets: Assets, keywords: list[str]) -> ImmutableSandboxedEnvironment:
    env = ImmutableSandboxedEnvironment(
        loader=FileSystemLoader(project.templates), autoescape=select_autoescape(["html", "j2"]),
        undefined=StrictUndefined, trim_blocks=True, lstrip_blocks=True)

    @pass_context
    def rich(ctx, text):
        card = ctx.get("card")
        fields = card.fields if card is not None and hasattr(card, "fields") else {}
        return to_html(text, assets, keywords, rich=True, fields=fields)

    def plain(text):
        return to_html(text, assets, (), rich=False)

    def icon(emoji, cls="icon"):
        if not assets.icon(emoji):
            raise ValueError(f"no icon for {emoji!r}")
        return Markup(f'<img class="{escape(cls)}" src="{assets.icon_url(emoji)}" alt="{escape(emoji)}">')

    def num(value, sign=False):
        text = f"{value:+d}".replace("-", "−") if sign and isinstance(value, int) else str(value).replace("-", "−")
        return Markup(f'<span class="num">{escape(text)}</span>')

    env.filters.update(rich=rich, text=plain, num=num)
    env.globals.update(icon=icon, num=num)
    return env


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


class _TextOnly(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts, self._skip = [], 0

    def handle_starttag(self, tag, attrs):
        self._skip += tag in ("style", "script")

    def handle_endtag(self, tag):
        self._skip -= tag in ("style", "script") and self._skip > 0

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def printed_text(html: str) -> str:
    """The characters an HTML fragment prints (icons are <img>, so not included)."""
    parser = _TextOnly()
    parser.feed(html)
    return "".join(parser.parts)
