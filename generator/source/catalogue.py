"""A language's catalogue (cards/<game>/i18n/<lang>.yaml) made from the source data, and kept up.

`entries` lists every printed string of the source edition under the catalogue key it is
translated by: title, subtitle, deck names, card texts, colour and piece names, and under
`text:` every other printed string (pieces.yaml texts, pack names, supplies, table rows,
enum values, the templates' `_()` literals). `updated` lays a catalogue over them the way
gettext's msgmerge does: what is translated is kept; a new entry is empty (untranslated); an
entry whose source text changed since (its hash under `sources:` differs) keeps its
translation and is listed under `review:`, as is a `text:` entry given the translation of
a close match among the texts the data no longer shows (gettext's "fuzzy"). A card, deck,
colour or piece given a new id takes the translations its old id had when all its source texts
are the same (matched by `sources:`), as they are: the texts are the ones translated. `text:`
entries the data does not show are kept: a template or rules.py may pass such a value to `_()`,
which no reading of the data finds. `render` writes it as YAML a translator reads: each keyed
entry with its source text in a comment above it.
"""
from __future__ import annotations

import collections
import difflib
import hashlib
import json
from dataclasses import dataclass
from typing import Any

import yaml
from pydantic import BaseModel

from generator.source.edition import PRINTED_KEYS, needs_translation
from generator.source.game import Game

SECTIONS = ("decks", "colours", "pieces")
CLOSE = 0.6          # difflib's ratio for a gone text's translation to be offered to a new one


@dataclass(frozen=True)
class Entry:
    key: tuple           # ("title",), ("decks", id), ("cards", deck, card, field), ("text", source) …
    source: str

    @property
    def name(self) -> str:
        """How `review:` and `sources:` name the entry: "cards.goods.jade.name", "text: Goods"."""
        return f"text: {self.key[1]}" if self.key[0] == "text" else ".".join(self.key)


def source_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def entries(game: Game, literals: list[str], lang: str | None = None) -> list[Entry]:
    """Every string of the source edition a translation must give, in the catalogue's order.
    `literals`: the templates' `_()` strings (check/translations.py reads them). With `lang`, a
    card text its spreadsheet gives in that language (a `name@en` column) is not an entry."""
    source = game.languages[0]
    wanted = lambda text: isinstance(text, str) and needs_translation(text, source)   # noqa: E731
    spec = game.spec
    out = [Entry((key,), getattr(spec, key)) for key in ("title", "subtitle") if wanted(getattr(spec, key))]
    out += [Entry(("decks", d.id), d.spec.name) for d in game.decks.values() if wanted(d.spec.name)]
    for deck in game.decks.values():
        texts = sorted(n for n, f in deck.spec.fields.items() if f.type in ("text", "rich"))
        out += [Entry(("cards", deck.id, card.id, name), card.fields[name])
                for card in deck.cards for name in texts if wanted(card.fields.get(name))
                and name not in card.translations.get(lang, {})]
    out += [Entry(("colours", c.id), c.name) for c in spec.player_colours if wanted(c.name)]
    out += [Entry(("pieces", p.id), p.name) for p in game.pieces.values() if wanted(p.name)]
    texts = [*_printed(list(game.pieces.values())), *(getattr(spec, "supplies", None) or []), *literals]
    texts += [v for v in (getattr(spec, "description", None), getattr(spec, "source", None)) if v]   # page 1, site
    texts += [v for p in spec.packs for v in (p.variant, p.name) if v]
    texts += [v for d in game.decks.values() for f in d.spec.fields.values() for v in (f.values or [])]
    # a list, in the table's order: a set's order changes from run to run (hash randomisation)
    kinds = {t: [n for n, f in game.files[rows[0].file]["table"].get("fields", {}).items()
                 if f.get("type") in ("text", "rich")] for t, rows in game.tables.items()}
    texts += [row.fields[n] for t, rows in game.tables.items() for row in rows for n in kinds[t] if n in row.fields]
    out += [Entry(("text", t), t) for t in dict.fromkeys(texts) if wanted(t)]
    if spec.keywords:       # one entry, a list: its source is the list as the catalogue writes one
        out.append(Entry(("keywords",), _scalar([str(k) for k in spec.keywords])))
    return out


def _printed(value: Any):
    """The printed strings of pieces (their elements' text, labels, cells …), in order."""
    if isinstance(value, list):
        for item in value:
            yield from _printed(item)
    elif isinstance(value, BaseModel):
        for key, item in value:
            if key in ("elements", "back", "marks"):
                yield from _printed(item)
            elif key in PRINTED_KEYS:
                yield from _strings(item)


def _strings(value: Any):
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _get(catalogue: dict, key: tuple) -> Any:
    node = catalogue
    for part in key:
        node = node.get(part) if isinstance(node, dict) else None
    return node


@dataclass
class Merged:
    catalogue: dict              # the new catalogue, ready for render
    added: int                   # entries new to it (empty: to translate)
    review: list[str]            # entries whose source changed (their translation to check)
    kept: list[str]              # `text:` entries the data does not show, kept (see updated)


def updated(old: dict, lang: str, game: Game, literals: list[str]) -> Merged:
    """The catalogue `old` (as loaded, {} for none) brought up to the source data (see above)."""
    wanted = entries(game, literals, lang)
    sources = dict(old.get("sources") or {})
    review = [r for r in old.get("review") or [] if isinstance(r, str)]
    new: dict = {"language": lang}
    old_text = {k: v for k, v in (old.get("text") or {}).items() if _given(v)}
    gone = [t for t in old_text if t not in {e.source for e in wanted if e.key[0] == "text"}]
    renamed = _renamed(old, sources, wanted)
    added = 0
    for entry in wanted:
        if entry.key[0] == "text":
            value = old_text.get(entry.source)
            if value is None:
                close = difflib.get_close_matches(entry.source, gone, n=1, cutoff=CLOSE)
                value = old_text[close[0]] if close else None
                if close:
                    review.append(entry.name)
        else:
            value = _get(old, entry.key)
            if entry.key == ("keywords",):      # a list (an edition may style no word: [])
                value = [str(k) for k in value] if isinstance(value, list) else None
            elif not _given(value):
                value = None
            if value is None:       # a card or piece given a new id: its text, while its source is the same
                value = renamed.get(entry.key)
            recorded = sources.get(entry.name)
            if value is not None and recorded is not None and recorded != source_hash(entry.source):
                review.append(entry.name)
            sources[entry.name] = source_hash(entry.source)
        added += value is None and not _present(old, entry.key)     # (an entry left empty is not new)
        node = new
        for part in entry.key[:-1]:
            node = node.setdefault(part, {})
        node[entry.key[-1]] = value
    # A card text the catalogue translates and a spreadsheet's `field@lang` column now gives too: the
    # catalogue's wins (source/edition.py), so the translator's text stays.
    from_sheets = {(c.deck, c.id): c.translations[lang] for d in game.decks.values() for c in d.cards
                   if c.translations.get(lang)}
    for key, value in _leaves(old.get("cards"), ("cards",), 3):
        if _given(value) and key[3] in from_sheets.get((key[1], key[2]), ()):
            new.setdefault("cards", {}).setdefault(key[1], {}).setdefault(key[2], {})[key[3]] = value
    # A translated text the data does not show may be a value a template or rules.py passes to _()
    # (an enum's value, a name rules.py makes): no reading of the data finds those, so it stays.
    if gone:
        new.setdefault("text", {}).update((t, old_text[t]) for t in gone)
    names = {e.name for e in wanted}
    new["review"] = [r for r in dict.fromkeys(review) if r in names]
    new["sources"] = {k: v for k, v in sorted(sources.items()) if k in names}
    return Merged(new, added, new["review"], gone)


def _present(catalogue: dict, key: tuple) -> bool:
    """Whether the catalogue has the entry at all, translated or left empty."""
    parent = _get(catalogue, key[:-1]) if len(key) > 1 else catalogue
    return isinstance(parent, dict) and key[-1] in parent


def _given(value) -> bool:
    """A translation written: not empty, nor only spaces (an entry still to translate)."""
    return isinstance(value, str) and bool(value.strip())


RENAMED = (("decks", 1), ("cards", 3), ("colours", 1), ("pieces", 1))    # kinds of keyed entry, key depth


def _renamed(old: dict, sources: dict, wanted: list[Entry]) -> dict:
    """{entry key: translation} for a card, deck, colour or piece given a new id: the old catalogue's
    entries under an id that names nothing now, taken by the one new id (none of its entries
    translated) whose texts are the same sources, every one (as `sources:` recorded them). Two old ids
    or two new ones with the same texts are left to translate: which is which cannot be told."""
    names = {e.name for e in wanted}
    left: dict = {}             # owner (its key less a card's field) -> {field: (source hash, translation)}
    for kind, depth in RENAMED:
        for key, value in _leaves(old.get(kind), (kind,), depth):
            name = ".".join(key)
            if name not in names and isinstance(sources.get(name), str):
                left.setdefault(_owner(key), {})[_field(key)] = (sources[name], value if _given(value) else None)
    fresh: dict = {}            # owner -> {field: (source hash, entry key)}
    for entry in wanted:
        if any(entry.key[0] == kind for kind, _ in RENAMED):
            fresh.setdefault(_owner(entry.key), {})[_field(entry.key)] = (source_hash(entry.source), entry.key)
    fresh = {o: f for o, f in fresh.items() if not any(_given(_get(old, key)) for _, key in f.values())}

    def texts(owner, fields) -> tuple:
        return owner[0], owner[1] if owner[0] == "cards" else None, frozenset((f, h) for f, (h, _) in fields.items())
    olds = collections.Counter(texts(o, f) for o, f in left.items())
    news = collections.Counter(texts(o, f) for o, f in fresh.items())
    before = {texts(o, f): f for o, f in left.items()}
    out = {}
    for owner, fields in fresh.items():
        same = texts(owner, fields)
        if olds[same] == 1 and news[same] == 1:
            out.update((key, before[same][field][1]) for field, (_, key) in fields.items()
                       if before[same][field][1] is not None)
    return out


def _field(key: tuple) -> str | None:
    """A card text's field; a deck, colour or piece has one text, its name."""
    return key[-1] if key[0] == "cards" else None


def _owner(key: tuple) -> tuple:
    """What an entry translates a text of: a card (its key less the field), or the deck, colour or piece."""
    return key[:-1] if key[0] == "cards" else key


def _leaves(node, key: tuple, depth: int):
    if depth == 0:
        yield key, node
    elif isinstance(node, dict):
        for part, child in node.items():
            yield from _leaves(child, key + (str(part),), depth - 1)


def header(game: Game, lang: str, command: str) -> list[str]:
    """The comment lines pnp puts on top of a catalogue, saying how it is kept."""
    return ["# yaml-language-server: $schema=../../../schemas/i18n.schema.json",
            f"# {game.spec.title}: the {lang} text, kept up by `{command}`.",
            "# Fill in each empty entry (empty: not translated yet; the source text is in the comment above it).",
            "# `review:` lists entries whose source text changed since they were translated: check each, then",
            "# delete its line. `sources:` is pnp's record of what each entry was translated from: leave it."]


def notes(old_text: str, game: Game, lang: str, command: str) -> list[str]:
    """The translator's own comment lines on top of a catalogue (a glossary, say), pnp's header left
    out: kept on top of the catalogue written again."""
    own = header(game, lang, command)
    lines = []
    for line in old_text.splitlines():
        if line.strip() and not line.startswith("#"):
            break
        lines.append(line)
    while lines and not lines[-1].strip():
        lines.pop()
    return [line for line in lines if line not in own and not line.startswith("# yaml-language-server:")]


def render(merged: dict, game: Game, wanted: list[Entry], command: str, kept: list[str] = (),
           notes: list[str] = ()) -> str:
    """The catalogue as YAML: a header saying how it is kept (and the translator's notes), each keyed
    entry under a comment giving its source text (a translator sees what to translate), `text:` keyed
    by the text."""
    source = {e.key: e.source for e in wanted}
    lines = header(game, merged["language"], command) + list(notes)
    for key, value in merged.items():
        if key in ("review", "sources"):
            continue
        _emit(lines, (key,), value, 0, source, kept[0] if kept else None)
    lines.append("review:" + ("" if merged["review"] else " []"))
    lines += [f"  - {_scalar(r)}" for r in merged["review"]]
    lines.append("sources:" + ("" if merged["sources"] else " {}"))
    lines += [f"  {_scalar(k)}: {v}" for k, v in merged["sources"].items()]
    return "\n".join(lines) + "\n"


def _emit(lines: list[str], key: tuple, value: Any, depth: int, source: dict, first_kept: str | None = None) -> None:
    pad = "  " * depth
    name = _scalar(key[-1])
    if isinstance(value, dict):
        lines.append(f"{pad}{name}:")
        for sub, item in value.items():
            if key == ("text",) and sub == first_kept:
                lines.append(f"{pad}  # Not in the data as ./pnp translate reads it (a value a template or "
                             "rules.py passes to _()?): kept. Delete what no card prints.")
            _emit(lines, key + (sub,), item, depth + 1, source)
        return
    if key in source and key[0] != "text":      # a text of several lines: a comment line each, as it prints
        lines += [f"{pad}# {line}".rstrip() for line in source[key].splitlines() or [""]]
    lines.append(f"{pad}{name}:" + ("" if value is None else f" {_scalar(value)}"))


def _scalar(value: Any) -> str:
    """One value as YAML writes it on one line (quoted when it has to be)."""
    if isinstance(value, str) and ("\n" in value or "\r" in value):
        return json.dumps(value, ensure_ascii=False)        # a double-quoted YAML string, on one line
    return yaml.safe_dump(value, allow_unicode=True, width=10 ** 9, default_flow_style=True).removesuffix(
        "\n...\n").rstrip("\n")
