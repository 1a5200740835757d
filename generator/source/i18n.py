"""The engine's own words on paper and on the gallery, in the edition's language.

Messages live in gettext catalogues, generator/locale/<lang>/LC_MESSAGES/pnp.po (msgids in
English), read with Babel and compiled in memory: no .mo file to keep in step, and the same
.po always gives the same translations. Python code asks `translator(lang)` for them
(`t.gettext(...)`, `t.ngettext(...)`); engine Jinja templates use `_()` / `ngettext()` through
jinja2.ext.i18n (see render/html.py). The terminal stays English and does not come here.
"""
from __future__ import annotations

import functools
import io
import os
from pathlib import Path

from babel import Locale, UnknownLocaleError
from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
DOMAIN = "pnp"
ENGINE_LANGUAGES = ("en", "zh-Hans")       # the languages the engine itself speaks
FALLBACK = "en"


def engine_language(lang: str) -> str:
    """The engine catalogue serving a game language: the same tag, its script or base
    language (zh, zh-CN → zh-Hans), else English."""
    if lang in ENGINE_LANGUAGES:
        return lang
    try:
        locale = Locale.parse(lang.replace("-", "_"))
    except (ValueError, UnknownLocaleError):
        return FALLBACK
    if locale.language == "zh" and locale.script in (None, "Hans") and locale.territory not in ("TW", "HK", "MO"):
        return "zh-Hans"
    return locale.language if locale.language in ENGINE_LANGUAGES else FALLBACK


def po_path(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.po"


@functools.cache
def catalogue(lang: str) -> Catalog:
    """The engine's .po catalogue for one of ENGINE_LANGUAGES."""
    with po_path(lang).open("rb") as handle:
        return read_po(handle, locale=lang.replace("-", "_"), domain=DOMAIN)


@functools.cache
def translator(lang: str) -> Translations:
    """gettext / ngettext for a game language (see engine_language)."""
    buffer = io.BytesIO()
    write_mo(buffer, catalogue(engine_language(lang)))
    buffer.seek(0)
    return Translations(buffer, domain=DOMAIN)


def plural_forms(lang: str, singular: str, plural: str) -> tuple[str, list[str]]:
    """A plural message's forms in a language and the catalogue's rule choosing among them
    (a C expression in n, which is also JavaScript): for pages that count in the browser."""
    cat = catalogue(engine_language(lang))
    message = cat.get(singular)
    if message is None or message.id != (singular, plural) or not isinstance(message.string, tuple) or not all(message.string):
        raise KeyError(f"{po_path(engine_language(lang))}: no plural forms for {singular!r}")
    return cat.plural_expr, list(message.string)


def reader_language(environ=os.environ) -> str | None:
    """The language of the person at the terminal, from LC_ALL, LC_MESSAGES or LANG as POSIX
    reads them ("en_GB.UTF-8" -> "en-GB"); None for C, POSIX or nothing set."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(name, "")
        if value:
            tag = value.split(".")[0].split("@")[0]
            return None if tag in ("C", "POSIX") else tag.replace("_", "-")
    return None


def engine_words(lang: str | None = None) -> str:
    """The engine's words for the reader: --lang, else their locale's, else English."""
    given = lang or reader_language()
    return engine_language(given) if given else FALLBACK


def reader_edition(languages: list[str], lang: str | None = None) -> str:
    """The edition a command with one output makes for the reader: --lang, else the one in
    their locale's language (zh_CN -> zh-Hans), else the game's source language."""
    if lang:
        return lang
    wanted = reader_language()
    if wanted:
        for edition in languages:
            if edition == wanted or edition.split("-")[0] == wanted.split("-")[0] and (
                    engine_language(edition) == engine_language(wanted)):
                return edition
    return languages[0]
