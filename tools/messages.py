"""The engine's translatable messages, found with Babel the way gettext tools find them.

    python tools/messages.py            # list the msgids the engine uses
    python tools/messages.py --update   # add new msgids to every generator/locale/*/LC_MESSAGES/pnp.po
                                        # (empty, for a translator), drop the ones no longer used

Python code marks a message as `t.gettext("...")` / `t.ngettext("...", "...", n)` (t from
generator.source.i18n.translator); engine templates as `_("...")` / `ngettext(...)`.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "generator"
KEYWORDS = {"_": None, "gettext": None, "ngettext": (1, 2), "plural_forms": (2, 3)}
METHODS = [("generator/**.py", "python"), ("generator/templates/base/**.html", "jinja2")]
SKIP = ("generator/scaffold/",)     # a new game's own files, written in its language


def extract() -> Catalog:
    catalog = Catalog(project="pnp", fuzzy=False)
    method_map = [(pattern.removeprefix("generator/"), method) for pattern, method in METHODS]
    options = {"**.html": {"extensions": "jinja2.ext.i18n", "trim_blocks": "true", "lstrip_blocks": "true"}}
    for filename, line, message, comments, context in extract_from_dir(
            ENGINE, method_map, options_map=options, keywords=KEYWORDS, strip_comment_tags=True):
        path = f"generator/{filename}"
        if path.startswith(SKIP) or not message or (isinstance(message, tuple) and not message[0]):
            continue
        catalog.add(message, None, [(path, line)], auto_comments=comments, context=context)
    return catalog


def update() -> None:
    template = extract()
    for po in sorted((ENGINE / "locale").glob("*/LC_MESSAGES/pnp.po")):
        with po.open("rb") as handle:
            catalog = read_po(handle, locale=po.parent.parent.name.replace("-", "_"))
        catalog.update(template, no_fuzzy_matching=True)
        catalog.obsolete.clear()
        with po.open("wb") as handle:
            write_po(handle, catalog, width=100, omit_header=False, sort_output=True, include_lineno=False)
        print(f"updated {po.relative_to(ROOT)}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--update", action="store_true")
    args = ap.parse_args()
    if args.update:
        update()
    else:
        for message in extract():
            if message.id:
                print(message.id, file=sys.stdout)
