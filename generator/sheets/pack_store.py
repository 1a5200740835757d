"""Whole packs as values of the store (render/cache.py's FaceCache, kinds packs/ and pack-records/):
a pack whose every part is what it was is taken, not imposed, merged and preflighted again.

A pack's key is known before it is imposed (PackBuilder.store_key): the engine, the pack's name,
paper and print settings, the game's and its decks' specs, the bundled fonts, and each section
with the store's keys of what it places: every face's entry key, each board drawing's key,
the rulebook's laid-out pages, the faces a tuck box shows. Page 1 is the one part drawn over the
imposition (its page numbers and print runs): that layout is kept in the pack's record, and page
1's own key, made today from that layout and today's game, is the one input the pack's entry
records. Only packs that passed preflight are kept, with what preflight counted, so a pack taken
is written as it was checked. An entry that does not read back whole is a miss (as for a face).
A pack's record also holds the sheet cache's record of it (sheets/sheet_cache.py), so that the edit
after a pack was taken builds on it.
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from typing import Callable

from generator.atomic import make_room, read_record, write_record
from generator.check.preflight import Report
from generator.filehash import file_hash
from generator.fingerprint import engine_fingerprint
from generator.render.cache import FaceCache
from generator.source.project import Project

PAGE_ONE = "@page-1"            # the input a pack's entry records: page 1's key in the store
KEY = re.compile(r"[0-9a-f]{64}")


def key_of(assets, parts: dict) -> str:
    """A pack's key from its parts (plain data), the engine and the bundled fonts it merges."""
    fonts = [(font.path.name, file_hash(font.path)) for font in assets.fonts]
    whole = {**parts, "engine": engine_fingerprint(), "fonts": fonts}
    return hashlib.sha256(json.dumps(whole, sort_keys=True, ensure_ascii=False, default=repr).encode()).hexdigest()


KEEP = 4            # packs kept per file name: an edit undone, or tried back and forth, is taken


@dataclass
class Made:
    """A pack just made, to keep once it passes preflight: its key, page 1's key and the layout
    page 1 was drawn over (None and {} for a rules file, which has no page 1), its bytes and manifest,
    and the sheet cache's record of it (MadePack.sheets), so that a pack taken is built on next time."""
    key: str
    page_one: str | None
    layout: dict
    pdf: bytes
    manifest: dict
    sheets: tuple | None = None


class PackStore:
    def __init__(self, project: Project):
        self.pdfs = FaceCache(project, "packs")
        self.records = FaceCache(project, "pack-records")
        self.names = project.build / ".cache" / "pack-records" / "by-name"

    def take(self, key: str, page_one: Callable[[dict], str | None] | None = None) \
            -> tuple[bytes, dict, Report, list | None] | None:
        """(PDF bytes, manifest, preflight's report, its sheet record) of the pack stored under `key`
        whose page 1 is still the page `page_one(layout)` names (a file without a page 1: None), else
        None."""
        found = self.records.get_bytes(key, lambda name: None)
        try:
            record = json.loads(found[1]) if found else None
            layout, manifest, report = record["layout"], record["manifest"], Report(**record["report"])
        except (ValueError, TypeError, KeyError):
            return None                     # not a record this engine wrote whole: made again
        current = page_one(layout) if page_one else None
        if page_one and current is None:
            return None
        hit = self.pdfs.get_bytes(key, lambda name: current if name == PAGE_ONE else None)
        return (hit[1], manifest, report, record.get("sheets")) if hit else None

    def keep(self, made: Made, report: Report) -> None:
        """Keep a pack that passed preflight (`report`) with nothing to say: one that passed only as a
        draft, with warnings, is made and checked again each time (a build that is not a draft must
        refuse what a draft let through, and each page 1 has its own warnings)."""
        if report.findings:
            return
        record = {"layout": made.layout, "manifest": made.manifest, "report": vars(report), "sheets": made.sheets}
        self.records.put(made.key, {}, json.dumps(record, ensure_ascii=False).encode())   # its order is the manifest's
        self.pdfs.put(made.key, {PAGE_ONE: made.page_one} if made.page_one else {}, made.pdf)
        self._keep_newest(made.manifest["file"], made.key)

    def _keep_newest(self, name: str, key: str) -> None:
        """The store keeps the KEEP newest packs of each file name (a pack is megabytes, and every
        edit makes new ones): older ones are dropped."""
        listing = self.names / f"{name}.json"
        try:
            keys = read_record(listing)
            keys = [k for k in keys if isinstance(k, str) and KEY.fullmatch(k) and k != key] \
                if isinstance(keys, list) else []
        except (OSError, ValueError):
            keys = []
        keys = [key] + keys
        for old in keys[KEEP:]:
            self.pdfs.drop(old)
            self.records.drop(old)
        make_room(listing)
        write_record(listing, keys[:KEEP])
