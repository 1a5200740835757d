"""One pack: the PDF (and its JSON manifest) for one player count on one paper.

The card sheets (card_sheets), piece sheets (piece_sheets), page 1 (render/info) and the pack's
bookmarks and manifest (pack_record) are made by their own modules; this one puts them in print-run
order and writes the result only when it passes preflight. The runs are described in sections.py.
"""
from __future__ import annotations

import functools
import io
import json
from typing import TYPE_CHECKING

import pikepdf

from generator.atomic import commit, stage
from generator.errors import PnpError, Problem
from generator.render.cards import Rendered
from generator.render.fontmerge import merge_fonts
from generator.render.info import InfoPage
from generator.sheets.card_sheets import CardSheets
from generator.sheets.impose import Imposer
from generator.sheets import pack_record
from generator.sheets.piece_sheets import PieceSheets
from generator.sheets.sections import RUNS, Body, Section
from generator.source.assets import Assets
from generator.source.game import Game
from generator.source.i18n import translator
from generator.source.options import PrintOptions
from generator.source.project import Project
from generator.source.schema import PackSpec

if TYPE_CHECKING:
    from generator.check.preflight import Report


def pack_name(game: Game, pack: PackSpec, paper: str, options: PrintOptions = PrintOptions(),
              name_key: str | None = None) -> str:
    return f"{game.id}-{name_key or pack.key}-{paper}{options.suffix}{game.name_suffix}"


class PackBuilder:
    """Assembles one pack: card sheets and piece sheets run by run, then page 1, bookmarks and manifest."""

    def __init__(self, project: Project, assets: Assets, game: Game, rendered: Rendered, faces: dict,
                 options: PrintOptions = PrintOptions()):
        self.project, self.assets, self.game = project, assets, game
        self.options = options
        self.cards = CardSheets(game, rendered, faces, options)    # faces: (deck, card id, side) -> Face
        self.pieces = PieceSheets(assets, game, options)

    @functools.cached_property
    def info(self) -> InfoPage:
        return InfoPage(self.project, self.assets, self.game)

    def build(self, pack: PackSpec, paper: str, only: set[str] | None = None, changes: list | None = None,
              removed: list | None = None, reprint_of: str | None = None) -> tuple[bytes, dict]:
        """The pack as PDF bytes and its manifest. With `only` (card uids) it is a reprint:
        just those cards, every copy, no boards, and page 1 lists `changes`."""
        self.reprint = {"changes": changes or [], "removed": removed or [], "since": reprint_of} if only else None
        sections = self.cards.sections(pack, only)
        if only is None:
            sections += self.pieces.sections(pack)
        body = self._body(sections, paper, pack)
        sections.sort(key=lambda s: s.first_page)
        info, runs = self._info(pack, paper, sections, body)
        out = pikepdf.new()
        out.pages.extend(info.pages)
        out.pages.extend(body.pdf.pages)
        offset = len(info.pages)
        pack_record.outline(out, sections, offset, self.game.spec.language)
        pack_record.metadata(out, self.game, pack, paper, self.options)
        buffer = io.BytesIO()
        out.save(buffer, deterministic_id=True, compress_streams=True,
                 object_stream_mode=pikepdf.ObjectStreamMode.generate)
        file = pack_name(self.game, pack, paper, self.options, "reprint" if self.reprint else None) + ".pdf"
        return buffer.getvalue(), pack_record.manifest(self.game, pack, paper, file, self.options, sections, body,
                                                       offset, runs, self.reprint)

    def _body(self, sections: list[Section], paper: str, pack: PackSpec) -> Body:
        """Every page after page 1, run by run, with one font program per font."""
        body = Body(pikepdf.new())
        imposer = Imposer(body.pdf)
        deferred = []                     # back pages printed at the end (--duplex none)
        for run in RUNS[:-1]:
            for section in (s for s in sections if s.run == run and s.kind == "deck"):
                deferred += self.cards.impose(imposer, body, section, paper)
            pieces = [s for s in sections if s.run == run and s.kind == "piece"]
            if pieces:
                deferred += self.pieces.draw(body, pieces, paper, pack)
        for make_back in deferred:
            make_back()
        merge_fonts(body.pdf, self.assets)
        return body

    def _info(self, pack: PackSpec, paper: str, sections: list[Section], body: Body):
        info_count = 1
        for _ in range(3):          # the info page count shifts every page number: settle it
            runs = _runs(body.entries, info_count, self.game.spec.language)
            pdf = self.info.render(pack, paper, sections, runs, info_count, len(body.entries), self.options,
                                   self.reprint)
            if len(pdf.pages) == info_count:
                break
            info_count = len(pdf.pages)
        return pdf, runs


def run_titles(lang: str) -> dict[str, str]:
    """What each print run is printed on, in the edition's language."""
    t = translator(lang)
    return {"duplex": t.gettext("two-sided · 200–250 g card stock"), "fronts": t.gettext("fronts · 200–250 g card stock"),
            "card": t.gettext("one-sided · 200–250 g card stock"), "paper": t.gettext("one-sided · plain paper"),
            "backs": t.gettext("backs · the card stock with the fronts printed, fed again")}


def _runs(entries: list[dict], info_count: int, lang: str) -> list[dict]:
    """Page ranges of the print runs (after the info pages), in RUNS order."""
    titles = run_titles(lang)
    runs = []
    for run in RUNS:
        pages = [n for n, e in enumerate(entries, 1) if e["run"] == run]
        if pages:
            runs.append({"run": run, "title": titles[run], "first": info_count + min(pages),
                         "last": info_count + max(pages)})
    return runs


def write_pack(project: Project, game: Game, pack: PackSpec, paper: str, pdf: bytes, manifest: dict,
               options: PrintOptions = PrintOptions(), name_key: str | None = None) -> tuple[str, "Report"]:
    """Write the pack and its manifest, but only if the written file passes preflight: both
    go to temporary files first, are checked, and only then replace the previous ones."""
    from generator.check.preflight import preflight
    folder = project.build / game.id
    name = pack_name(game, pack, paper, options, name_key)
    staged = {}
    try:
        for ext, data in (("pdf", pdf), ("json", (json.dumps(manifest, ensure_ascii=False, indent=1) + "\n").encode())):
            staged[ext] = stage(folder / f"{name}.{ext}", data)
        report = preflight(staged["pdf"], staged["json"], display=project.display(folder / f"{name}.pdf"))
        if not report.ok:
            raise PnpError([Problem(report.file, None, f"preflight: {f}") for f in report.findings])
        for ext, tmp in staged.items():
            commit(tmp, folder / f"{name}.{ext}")
        staged = {}
    finally:
        for tmp in staged.values():
            tmp.unlink(missing_ok=True)
    return project.display(folder / f"{name}.pdf"), report
