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


def outline(out: pikepdf.Pdf, sections: list[Section], offset: int, lang: str) -> None:
    with out.open_outline() as tree:
        tree.root.append(OutlineItem(translator(lang).gettext("Contents and printing"), 0))
        for section in sections:
            tree.root.append(OutlineItem(f"{section.name} ×{section.count}", offset + section.first_page - 1))


def metadata(out: pikepdf.Pdf, game: Game, pack: PackSpec, paper: str, options: PrintOptions) -> None:
    t = translator(game.spec.language)
    players = t.ngettext("%(num)d player", "%(num)d players", pack.players) % {"num": pack.players}
    title = f"{game.spec.title} · {players} · {paper.upper()}"
    out.docinfo = out.make_indirect(Dictionary(Title=title, Producer=f"pnp {__version__}", Creator="pnp"))
    out.Root.PageMode = Name.UseOutlines
    duplex = {"long": Name.DuplexFlipLongEdge, "short": Name.DuplexFlipShortEdge}.get(options.duplex, Name.Simplex)
    out.Root.ViewerPreferences = Dictionary(PrintScaling=Name("/None"), Duplex=duplex)


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
                      "fit": o.fit, "printer": o.printer},
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
        item.update(trim_mm=list(deck.trim), bleed_mm=deck.bleed,
                    cards=[{"id": uid, "copies": n} for uid, n in counts.items()])
    else:
        piece = game.pieces[section.id]
        item["size_mm"] = [piece.size.width, piece.size.height]
    return item
