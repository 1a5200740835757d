"""What each card's template gave last time, so a rebuild runs only the templates whose inputs changed.

A face's direct key (cache.py) is computed from its template's output, so without this every
rebuild ran every card's template: at 5,000 cards that alone took seconds for one changed card.
The memo maps a key of everything a template sees — the plain context (the game's values, the
card, its deck, the player colours), the template's name, the fonts, icon names, the texts `_()` translates,
the engine's own words and code — to the face's direct key. Beside it, each entry lists the
files the render depended on, with their hashes or "-" for one that was absent: each template
it asked for (its own, includes, imports) in every template folder, each stylesheet, icon and
picture it looked up, and the other cards and tables if it read them, and, in an edition in
another script, each word of the source's script the face printed (it passed the untranslated
check because the catalogue held it: the catalogue as a whole is not in the key, so one card's
translation runs that card's template alone). An entry is used only when every one of those is
as it was, exactly as the face cache trusts its faces.

One file per game and language under build/.cache/templates/, replaced whole when an entry was
added or dropped; a damaged file is an empty memo. Renders for an export at another --dpi or for
PDF/X (which keeps pictures' profiles) do not use it: they prepare their pictures anew.
"""
from __future__ import annotations

import functools
import hashlib
from pathlib import Path

from generator.atomic import read_record, write_record
from generator.fingerprint import engine_fingerprint
from generator.render.cache import absolute_name, relative_name

VERSION = "1"
KEEP_UNUSED = 2000       # entries not used by this build kept for the next (another --players)
ABSENT = "-"
WATCHED = ("decks", "tables")     # context parts recorded as inputs only when a template reads them


class Watched(dict):
    """A part of the context that notes when a template reads it: a face that never looks at the
    other cards does not depend on them. (Its own attributes start with _: no template sees them.)"""

    def __init__(self, data: dict, name: str, seen: set):
        super().__init__(data)
        self._name, self._seen = name, seen

    def _read(self):
        self._seen.add(self._name)

    def __getitem__(self, key):
        self._read()
        return super().__getitem__(key)

    def get(self, key, default=None):
        self._read()
        return super().get(key, default)

    def __iter__(self):
        self._read()
        return super().__iter__()

    def __len__(self):
        self._read()
        return super().__len__()

    def __contains__(self, key):
        self._read()
        return super().__contains__(key)

    def keys(self):
        self._read()
        return super().keys()

    def values(self):
        self._read()
        return super().values()

    def items(self):
        self._read()
        return super().items()

    def __repr__(self):                   # {{ decks }} prints it
        self._read()
        return super().__repr__()

    def __eq__(self, other):
        self._read()
        return super().__eq__(other)

    __hash__ = None


@functools.cache
def code_fingerprint(lang: str) -> str:
    """The engine (its code and words) and the language a template's output depends on."""
    digest = hashlib.sha256(engine_fingerprint().encode())
    digest.update(lang.encode())
    return digest.hexdigest()


class TemplateMemo:
    def __init__(self, root: Path, path: Path, current, values: dict):
        """`current(path)` gives a file's hash now, None when it cannot be read; `values(name)`
        gives, for a name in angle brackets, what a render read besides files, as it is now: the
        hash of a part of the context a render may read or not (every card of every deck: most
        faces never look, and any card's edit would change it), or whether a text the face printed
        in the source's script is still in the catalogue."""
        self.root, self.path, self._current, self._values = root, path, current, values
        self._sets: list = []
        self._old = self._load()
        self._new: dict[str, dict] = {}
        self._checked: dict[tuple, bool] = {}     # input sets verified in this run
        self._by_dict: dict[int, tuple] = {}      # the same, by the dict that holds the set
        self._names: dict[str, tuple[Path, str]] = {}     # a file's path and recorded name, by either
        self._forgotten = False

    def _load(self) -> dict:
        try:
            data = read_record(self.path)
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict) or data.get("version") != VERSION:
            return {}
        sets, entries = data.get("inputs"), data.get("entries")
        if not isinstance(sets, list) or not isinstance(entries, dict):
            return {}
        self._sets = sets
        return entries      # as written: each entry is checked and made a dict when first used

    def _recorded(self, key: str) -> dict | None:
        """The file's entry `key` as {"direct", "inputs", "coarse"}, None when there is none or
        it is not what save() writes (a damaged file)."""
        entry = self._old.get(key)
        if type(entry) is list:
            sets = self._sets
            if len(entry) == 3 and isinstance(entry[0], str) and type(entry[1]) is int \
                    and 0 <= entry[1] < len(sets) and isinstance(sets[entry[1]], dict) and _coarse_list(entry[2]):
                entry = self._old[key] = {"direct": entry[0], "inputs": sets[entry[1]], "coarse": entry[2]}
            else:
                entry = self._old[key] = None
        return entry if type(entry) is dict else None

    def get(self, key: str) -> dict | None:
        """{"direct", "inputs", "coarse"} when every file the entry depends on is as it was."""
        entry = self._new.get(key) or self._recorded(key)
        if entry is None or not self._still(entry["inputs"]):
            return None
        self._new[key] = entry
        return entry

    def _still(self, inputs: dict) -> bool:
        known = self._by_dict.get(id(inputs))   # a set loaded from the file is one dict for every entry
        if known is not None and known[0] is inputs:
            return known[1]
        marker = tuple(inputs.items())
        if marker not in self._checked:
            self._checked[marker] = all(self._now(name) == sha for name, sha in inputs.items())
        self._by_dict[id(inputs)] = (inputs, self._checked[marker])     # the dict kept: its id stays its own
        return self._checked[marker]

    def _now(self, name: str) -> str | None:
        if name.startswith("<"):
            return self._values(name)
        return self._current(self._name(name)[0]) or ABSENT

    def _name(self, name: str) -> tuple[Path, str]:
        """(the path, the recorded name) of a file looked up by either: every face of a deck looks
        up the same few files."""
        if name not in self._names:
            self._names[name] = (absolute_name(self.root, name), relative_name(self.root, name))
        return self._names[name]

    def put(self, key: str, direct: str, looked: set[str], coarse: list) -> dict[str, str]:
        """Remember a template's result; returns the inputs recorded."""
        inputs = {self._name(p)[1]: self._now(p) for p in sorted(looked)}
        self._new[key] = {"direct": direct, "inputs": inputs, "coarse": coarse, "added": True}
        return inputs

    def forget(self, key: str) -> None:
        """Drop an entry found wrong (the next build runs that template and records it anew)."""
        self._new.pop(key, None)
        self._old.pop(key, None)
        self._forgotten = True

    def save(self) -> None:
        """Write the memo when this build added to it or dropped from it."""
        if not self._forgotten and not any(e.get("added") for e in self._new.values()):
            return
        self._forgotten = False
        unused = [(k, e) for k, e in ((k, self._recorded(k)) for k in list(self._old) if k not in self._new)
                  if e is not None][:KEEP_UNUSED]
        sets: dict[tuple, int] = {}
        markers: dict[int, tuple] = {}       # by the inputs dict: entries loaded together share one
        entries = {}
        for key, entry in sorted(list(self._new.items()) + unused):
            inputs = entry["inputs"]
            if id(inputs) not in markers:
                markers[id(inputs)] = tuple(sorted(inputs.items()))
            index = sets.setdefault(markers[id(inputs)], len(sets))
            entries[key] = [entry["direct"], index, entry["coarse"]]
        data = {"version": VERSION, "inputs": [dict(m) for m in sets], "entries": entries}
        write_record(self.path, data)
        for entry in self._new.values():
            entry.pop("added", None)


def _coarse_list(value) -> bool:
    """[[picture, [width, height], dpi], ...] as put() records them (a damaged file may hold anything)."""
    return isinstance(value, list) and all(
        isinstance(c, list) and len(c) == 3 and isinstance(c[0], str) and isinstance(c[1], list) and len(c[1]) == 2
        and all(isinstance(n, int) for n in c[1]) and isinstance(c[2], (int, float)) for c in value)
