"""What a finished pack says about itself: PDF bookmarks, document info and viewer settings, and the
JSON manifest (every page's role, every slot's rectangle) that preflight and the tests read back."""
from __future__ import annotations


import pikepdf
from pikepdf import Dictionary, Name, OutlineItem

from generator import __version__
from generator.geometry import PAPERS
from generator.sheets.sections import Body, Section
from generator.source.game import Game
from generator.source.i18n import translator
from generator.source.options import PrintOptions
from generator.source.schema import PackSpec


def outline(out: pikepdf.Pdf, sections: list[Section], offset: int, lang: str, body: Body | None = None) -> None:
    with out.open_outline() as tree:
        tree.root.extend(outline_item(entry) for entry in outline_entries(sections, offset, lang, body))


def outline_item(entry: tuple) -> OutlineItem:
    """A bookmark of outline_entries (with those under it) as pikepdf makes it."""
    title, page, children = entry
    item = OutlineItem(title, page)
    item.children.extend(outline_item(child) for child in children)
    return item


def outline_entries(sections: list[Section], offset: int, lang: str, body: Body | None = None) -> list[tuple]:
    """The bookmarks as plain data: (title, page index, [entries under it]) each."""
    entries = [(translator(lang).gettext("Contents and printing"), 0, [])]
    for section in sections:
        if section.kind == "rulebook":
            entries.append(rulebook_outline(section, offset, body))
            continue
        entries.append((f"{section.name} ×{section.count}", offset + section.first_page - 1, []))
    return entries


def rulebook_outline(section: Section, offset: int, body: Body | None) -> tuple:
    """The rulebook's headings, nested by level, each pointing at the sheet that prints its page."""
    where = {}
    for number, entry in enumerate(body.entries if body else [], 1):
        for slot in entry.get("slots", []) if entry["role"] == "rulebook" else []:
            if slot["page"]:
                where.setdefault(slot["page"], number)
    item = (section.name, offset + section.first_page - 1, [])
    stack = [(0, item)]
    for level, title, page in section.items[0].bookmarks:
        child = (title, offset + where.get(page + 1, section.first_page) - 1, [])
        while stack[-1][0] >= level:
            stack.pop()
        stack[-1][1][2].append(child)
        stack.append((level, child))
    return item


def metadata(out: pikepdf.Pdf, game: Game, pack: PackSpec, paper: str, options: PrintOptions) -> None:
    info, duplex = document_info(game, pack, paper, options)
    out.docinfo = out.make_indirect(Dictionary(**info))
    out.Root.PageMode = Name.UseOutlines
    out.Root.ViewerPreferences = Dictionary(PrintScaling=Name("/None"), Duplex=Name(duplex))


def document_info(game: Game, pack: PackSpec, paper: str, options: PrintOptions) -> tuple[dict, str]:
    """The document information (title, producer, creator) and the viewer's duplex setting."""
    t = translator(game.spec.language)
    players = t.ngettext("%(num)d player", "%(num)d players", pack.players) % {"num": pack.players}
    title = f"{game.spec.title} · {players} · {paper.upper()}"
    duplex = {"long": "/DuplexFlipLongEdge", "short": "/DuplexFlipShortEdge"}.get(options.duplex, "/Simplex")
    return {"Title": title, "Producer": f"pnp {__version__}", "Creator": "pnp"}, duplex


def manifest(game: Game, pack: PackSpec, paper: str, file: str, options: PrintOptions, sections: list[Section],
             body: Body, offset: int, runs: list[dict], reprint: dict | None) -> dict:
    pages = [{"number": n + 1, "role": "info"} for n in range(offset)]
    for number, entry in enumerate(body.entries, 1):
        entry = dict(entry)
        if "front_page" in entry:
            entry["front_page"] += offset
        pages.append({"number": offset + number, **entry})
    o = options
    extra = {"reprint": reprint} if reprint else {}
    return {**extra, "game": game.id, "title": game.spec.title, "pack": pack.key, "players": pack.players,
            "variant": pack.variant, "paper": paper, "page_size_mm": list(PAPERS[paper]),
            "file": file, "units": "mm, origin top-left of the page",
            "print": {"duplex": o.duplex, "back_offset_mm": list(o.back_offset), "ink_saver": o.ink_saver,
                      "fit": o.fit, "printer": o.printer, "sheets": o.sheets,
                      "cutter": o.cutter, "draft": o.draft, "min_text_pt": game.spec.min_text_pt},
            "components": [_component(game, section, offset) for section in sections],
            "runs": [{"run": r["run"], "pages": [r["first"], r["last"]], "settings": r["title"]} for r in runs],
            "pages": pages}


def _component(game: Game, section: Section, offset: int) -> dict:
    item = {"id": section.id, "name": section.name, "kind": section.kind, "count": section.count,
            "run": section.run, "pages": [offset + section.first_page, offset + section.last_page]}
    if section.kind == "deck":
        deck = game.decks[section.id]
        counts: dict[str, int] = {}
        for card, _ in section.items:
            counts[card.uid] = counts.get(card.uid, 0) + 1
        item.update(trim_mm=list(deck.trim), bleed_mm=deck.bleed, safe_mm=deck.safe, corner_radius_mm=deck.corner_radius,
                    cards=[{"id": uid, "copies": n} for uid, n in counts.items()])
    elif section.kind == "box":
        (decks, net, cards), = section.items
        item.update(decks=[d.id for d in decks], cards=cards, size_mm=[round(v, 3) for v in net.size])
    elif section.kind == "rulebook":
        spec = game.spec.rulebook
        item.update(imposition=spec.imposition, page_size_mm=list(section.items[0].size), paper="plain",
                    duplex="short" if spec.imposition == "booklet" else "long")
    else:
        piece = game.pieces[section.id]
        item["size_mm"] = [piece.size.width, piece.size.height]
        item["shape"] = piece.shape
    return item
