"""The standalone rulebook, build/<game>/<game>-rules-<paper>.pdf: every player count (pack = none),
imposed as the game asks (a booklet by default), with its headings as bookmarks and a manifest
beside it, written only after it passes preflight, like a pack."""
from __future__ import annotations

import pikepdf
from pikepdf import Dictionary, Name

from generator import __version__
from generator.geometry import PAPERS
from generator.pdfbytes import pdf_bytes
from generator.render.fontmerge import merge_fonts, tidy_fonts
from generator.sheets import pack_record
from generator.sheets.booklet import impose
from generator.sheets.sections import Body, Section
from generator.source.options import PrintOptions


def rules_options(options: PrintOptions) -> PrintOptions:
    """The print settings the standalone rulebook's bytes depend on: --ink-saver draws its card
    figures ink-saver style. Nothing else reaches it (a booklet on plain paper: DRAFT, cut marks,
    duplex, fit, sheets and the back offset are the packs'), so those builds write the ordinary file."""
    return PrintOptions(ink_saver=options.ink_saver)


def rules_name(game, paper: str, options: PrintOptions = PrintOptions()) -> str:
    """<game>-rules-<paper>, with the suffix of the settings it depends on (as a pack's name has its
    own), then -en, -zh-Hans for a game in several languages: an ink-saver rulebook never takes the
    ordinary one's name."""
    return f"{game.id}-rules-{paper}{rules_options(options).suffix}{game.name_suffix}"


def build_rules(game, assets, pages, paper: str, title: str) -> tuple[bytes, dict]:
    """The rules PDF for one paper from the rulebook's pages (RulebookPages), and its manifest (named
    by the style its figures were drawn in)."""
    options = PrintOptions(ink_saver=pages.ink_saver)
    body = Body(pikepdf.new())
    section = Section("rulebook", title, "rulebook", "rules", pages.count, [pages])
    for entry in impose(body.pdf, pages.pdf, paper, game.spec.rulebook.imposition, pages.size):
        body.add(entry, section, run="rules")
    merge_fonts(body.pdf, assets)
    tidy_fonts(body.pdf)                     # its figures' fonts too: unique tags, clean names
    with body.pdf.open_outline() as tree:
        tree.root.append(pack_record.outline_item(pack_record.rulebook_outline(section, 0, body)))
    spec = game.spec.rulebook
    duplex = Name.DuplexFlipShortEdge if spec.imposition == "booklet" else Name.DuplexFlipLongEdge
    body.pdf.docinfo = body.pdf.make_indirect(Dictionary(Title=f"{game.spec.title} · {title}",
                                                         Producer=f"pnp {__version__}", Creator="pnp"))
    body.pdf.Root.PageMode = Name.UseOutlines
    body.pdf.Root.ViewerPreferences = Dictionary(PrintScaling=Name("/None"), Duplex=duplex)
    data = pdf_bytes(body.pdf, deterministic_id=True, compress_streams=True,
                     object_stream_mode=pikepdf.ObjectStreamMode.generate)
    manifest = {"game": game.id, "title": game.spec.title, "pack": "rules", "players": None, "paper": paper,
                "page_size_mm": list(PAPERS[paper]), "file": f"{rules_name(game, paper, options)}.pdf",
                "units": "mm, origin top-left of the page",
                "print": {"ink_saver": options.ink_saver, "min_text_pt": game.spec.min_text_pt},
                "components": [{"id": "rulebook", "name": title, "kind": "rulebook", "count": pages.count,
                                "run": "rules", "pages": [1, len(body.entries)], "imposition": spec.imposition,
                                "page_size_mm": list(pages.size), "paper": "plain",
                                "duplex": "short" if spec.imposition == "booklet" else "long"}],
                "pages": [{"number": n, **entry} for n, entry in enumerate(body.entries, 1)]}
    return data, manifest


def reading_order(game, pages, title: str) -> bytes:
    """The rulebook's pages one per PDF page, at their own size and in reading order, with nested
    bookmarks: the file a print shop or a virtual table takes (they impose or page it themselves)."""
    pdf = pikepdf.new()
    pdf.add_pages_from(pages.pdf, outlines="ignore")       # the contents list's links keep their targets
    tidy_fonts(pdf)
    for page in pdf.pages:                                  # nothing to trim: the page is the product
        page.obj.TrimBox = page.obj.BleedBox = page.mediabox
    with pdf.open_outline() as tree:
        stack = [(0, tree.root)]                          # (heading level, where its children go)
        for level, label, number in pages.bookmarks:
            item = pikepdf.OutlineItem(label, number)
            while stack[-1][0] >= level:
                stack.pop()
            stack[-1][1].append(item)
            stack.append((level, item.children))
    pdf.docinfo = pdf.make_indirect(Dictionary(Title=f"{game.spec.title} · {title}", Producer=f"pnp {__version__}",
                                               Creator="pnp"))
    pdf.Root.PageMode = Name.UseOutlines
    return pdf_bytes(pdf, deterministic_id=True, compress_streams=True,
                     object_stream_mode=pikepdf.ObjectStreamMode.generate)
