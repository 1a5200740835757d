"""One pack: the PDF (and its JSON manifest) for one player count on one paper.

The card sheets (card_sheets), piece sheets (piece_sheets), page 1 (render/info) and the pack's
bookmarks and manifest (pack_record) are made by their own modules; this one puts them in print-run
order and writes the result only when it passes preflight. The runs are described in sections.py.
"""
from __future__ import annotations

import functools
import hashlib
import io
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import orjson
import pikepdf
from pikepdf import Dictionary, Name

from generator.atomic import commit, refuse_links, remove_outputs, stage
from generator.pdfbytes import AS_IS, open_pdf, pdf_bytes, sha256_hex
from generator.errors import PnpError, Problem
from generator.geometry import pt
from generator.render.cards import Rendered
from generator.render.fontmerge import merge_fonts, share_alike, tidy_fonts
from generator.render.info import InfoPage
from generator.sheets.card_sheets import CardSheets
from generator.sheets.cutters import cut_file_names, cut_files
from generator.sheets.impose import Imposer
from generator.sheets import pack_record, pack_store, sheet_cache
from generator.sheets.piece_sheets import PieceSheets
from generator.sheets.sections import RUNS, Body, Section
from generator.sheets.tuck_boxes import BoxSheets
from generator.source.assets import Assets
from generator.source.game import Game
from generator.source.i18n import translator
from generator.source import stamp
from generator.source.options import PrintOptions
from generator.source.project import Project
from generator.source.schema import PackSpec
from generator.source.context import pack_data, plain
from generator.check.checked import Memo, context as checked_context
from generator.check.preflight import MIN_DPI

if TYPE_CHECKING:
    from generator.check.preflight import Report


def pack_name(game: Game, pack: PackSpec, paper: str, options: PrintOptions = PrintOptions(),
              name_key: str | None = None) -> str:
    return f"{game.id}-{name_key or pack.key}-{paper}{options.suffix}{game.name_suffix}"


PACK_WEIGHT = 100       # what a pack costs besides its cards and pieces, in cards (PackBuilder.weight)


@dataclass
class MadePack:
    """One pack made in memory, and what writing it needs besides its bytes."""
    pdf: bytes
    manifest: dict
    sheets: sheet_cache.Record | None = None   # for the next build of its file to build on
    passed: "Report | None" = None              # preflight's report of a pack taken from the store
    keeping: pack_store.Made | None = None      # the pack to keep in the store once it passes preflight
    built_on_last: bool = False                 # built on the last file of the pack (sheet_cache)


class PackBuilder:
    """Assembles one pack: card sheets and piece sheets run by run, then page 1, bookmarks and manifest."""

    def __init__(self, project: Project, assets: Assets, game: Game, rendered: Rendered, faces: dict,
                 options: PrintOptions = PrintOptions(), rulebook=None):
        self.project, self.assets, self.game = project, assets, game
        self.options = options
        self.rulebook = rulebook                # a RulebookRenderer, or None: no rulebook in this pack
        self._rulebook_pages: dict = {}         # pack key -> its rulebook's pages (the same on every paper)
        self.cards = CardSheets(game, rendered, faces, options)    # faces: (deck, card id, side) -> Face
        self.pieces = PieceSheets(assets, game, options)
        self.boxes = BoxSheets(assets, game, rendered, faces, options)
        self.store = pack_store.PackStore(project)
        self.passed_checks: dict = {}           # what this edition's preflights passed so far (check/checked.py)
        self._canonical: dict = {}              # streams' canonical bytes, for the edition's packs (compress_streams)

    @functools.cached_property
    def info(self) -> InfoPage:
        return InfoPage(self.project, self.assets, self.game)

    def build(self, pack: PackSpec, paper: str, only: set[str] | None = None, changes: list | None = None,
              removed: list | None = None, reprint_of: str | None = None, whole: bool = False) -> MadePack:
        """The pack in memory. With `only` (card uids) it is a reprint: just those cards, every
        copy, no boards, and page 1 lists `changes`. A pack that was built before keeps its
        unchanged pages (sheets/sheet_cache.py), unless `whole`."""
        reprint = {"changes": changes or [], "removed": removed or [], "since": reprint_of} if only else None
        if only is None and not whole:
            try:
                return self._build(pack, paper, None, reuse=True)
            except sheet_cache.Fallback:
                pass
        return self._build(pack, paper, only, reuse=False, reprint=reprint)

    def _build(self, pack: PackSpec, paper: str, only: set[str] | None, reuse: bool,
               reprint: dict | None = None) -> MadePack:
        sections = self.cards.sections(pack, only)
        if only is None:
            sections += self.pieces.sections(pack) + self.boxes.sections(pack)
        rules = self._rules_section(pack) if only is None else None
        name = pack_name(self.game, pack, paper, self.options)
        context = (sheet_cache.context_key(name, self.options, [f.path for f in self.assets.fonts])
                   if self._reusable(sections, rules, only) else None)
        # A whole pack is a store value, taken when all its parts are as they were, but one of card
        # decks alone that the sheet cache builds on: its record is what it keeps (a store value
        # would be the whole pack written again at each edit, for an undo).
        cards_only = rules is None and all(s.kind == "deck" for s in sections)
        key = self.store_key(pack, paper, name, sections + ([rules] if rules else [])) \
            if only is None and not (context and cards_only) else None
        if key:
            taken = self.store.take(key, lambda layout: self.info.stored_key(pack, paper, layout, self.options))
            if taken:
                pdf, manifest, report, sheets = taken
                return MadePack(pdf, manifest, sheet_cache.Record.stored(sheets, name, context) if context else None,
                                passed=report)
        previous = sheet_cache.load(self.project, self.game.id, name, context) if reuse and context else None
        reuser = sheet_cache.SheetReuser(previous.pdf, previous.record) if previous else None
        body = self._body(sections + ([rules] if rules else []), paper, pack, reuser, recording=bool(context))
        if rules:
            sections.append(rules)
        sections.sort(key=lambda s: s.first_page)
        info, runs = self._info(pack, paper, sections, body, reprint)
        if reuser:
            out = reuser.assemble(info)
        else:           # page 1 goes before the body in the body's own PDF (a copy of every sheet
            out = body.pdf  # into a new one was a second pack in memory)
            for i, page in enumerate(info.pages):    # (qpdf edits its page list a page at a time)
                out.pages.insert(i, page)
        if self.options.draft:
            mark_draft(out, self.assets)
        offset = len(info.pages)
        pack_record.outline(out, sections, offset, self.game.spec.language, body)
        pack_record.metadata(out, self.game, pack, paper, self.options)
        if reuser:                           # what is new: page 1, the sheets imposed now, fonts re-made
            tidy_fonts(out, [p.obj for p in out.pages[:len(info.pages)]] + reuser.made, reuser.remade)
            if reuser.drawn_anew:
                share_alike(out)
        else:
            # page 1's fonts (the body's were tidied by merge_fonts): unique tags, clean names
            tidy_fonts(out, None if self.options.draft else [p.obj for p in out.pages[:len(info.pages)]])
        if reuser:      # only what is new is compressed (kept sheets are as the last save wrote them)
            sheet_cache.compress_streams([p.obj for p in out.pages[:len(info.pages)]] + reuser.made + [out.trailer],
                                         reuser.old_size, force=reuser.remade, skip=("/Parent", "/Pages"),
                                         memo=self._canonical)
            data = pdf_bytes(out, **AS_IS)
        elif context:   # every stream compressed now, so that the next build can build on this file
            sheet_cache.compress_streams([out.trailer], done=body.imposer.canonical, memo=self._canonical)
            data = pdf_bytes(out, **AS_IS)
        else:
            data = pdf_bytes(out, deterministic_id=True, compress_streams=True,
                             object_stream_mode=pikepdf.ObjectStreamMode.generate)
        # plain data, so that the pack's pikepdf (most of a large build's memory) is freed before
        # its file is read back
        record = sheet_cache.Record(name, context, offset, body.imposer.record_data()) if context else None
        manifest = self._manifest(pack, paper, sections, body, offset, runs, reprint)
        keeping = None
        if key:
            layout = self.info.layout(sections, runs, offset, len(body.entries))
            keeping = pack_store.Made(key, self.info.last_key, layout, data, manifest, record)
        return MadePack(data, manifest, record, keeping=keeping, built_on_last=reuser is not None)

    def weight(self, pack: PackSpec) -> int:
        """About what making the pack costs, to share packs between processes: the cards and
        pieces it places, and what any pack costs besides (page 1, its rulebook, reading it back):
        about what a hundred cards do (profiled on the shipped games: a pack of 1 piece took 0.14 s,
        one of 296 cards 0.51 s)."""
        return PACK_WEIGHT + sum(s.count for s in self.cards.sections(pack) + self.pieces.sections(pack))

    def keep(self, made: MadePack, report: "Report") -> None:
        """Keep a pack made, now that it passed preflight, in the store."""
        if made.keeping is not None and made.keeping.page_one:
            self.store.keep(made.keeping, report)

    def store_key(self, pack: PackSpec, paper: str, name: str, sections: list[Section]) -> str:
        """The pack's key in the store (sheets/pack_store.py): everything that decides its bytes
        but page 1, which is keyed over the imposition once that is known."""
        faces = self.cards.faces

        def face_keys(deck_id: str, card_id) -> list[str]:
            return [self.cards.rendered.key_of(faces[(deck_id, card_id, side)]) for side in ("face", "back")
                    if (deck_id, card_id, side) in faces]

        def part(section: Section) -> list:
            if section.kind == "deck":
                return [(card.uid, copy, face_keys(section.id, card.id)) for card, copy in section.items]
            if section.kind == "box":
                (decks, net, cards), = section.items
                return [repr(net), cards, sorted(self.cards.rendered.key_of(f) for (d, _, _), f in faces.items()
                                                 if d in {deck.id for deck in decks})]
            if section.kind == "rulebook":
                return section.items[0].key
            return []               # a piece: its run's drawings below
        drawings = {run: self.pieces.drawing_keys(pieces, paper, pack) for run in RUNS[:-1]
                    if (pieces := [s for s in sections if s.run == run and s.kind == "piece"])}
        decks = {d.id: [plain(d.spec), d.trim, d.bleed, d.safe, d.corner_radius] for d in self.game.decks.values()}
        return pack_store.key_of(self.assets, {
            "name": name, "paper": paper, "options": repr(self.options),
            "pack": pack_data(pack), "game": plain(self.game.spec), "language": self.game.spec.language,
            "decks": decks, "sections": [(s.id, s.name, s.kind, s.run, s.count, s.two_sided, part(s)) for s in sections],
            "drawings": drawings})

    def _manifest(self, pack: PackSpec, paper: str, sections: list[Section], body: Body, offset: int,
                  runs: list[dict], reprint: dict | None) -> dict:
        file = pack_name(self.game, pack, paper, self.options, "reprint" if reprint else None) + ".pdf"
        return pack_record.manifest(self.game, pack, paper, file, self.options, sections, body, offset, runs,
                                    reprint)

    def _reusable(self, sections: list[Section], rules, only) -> bool:
        """Whether the sheet cache can rebuild this pack exactly: card sheets, board sheets and a
        stored rulebook's, as imposed (no tuck box, draft or cutter marks)."""
        return (only is None and (rules is None or bool(rules.items[0].key)) and not self.options.draft
                and not self.options.cutter and all(s.kind in ("deck", "piece") for s in sections))

    def _body(self, sections: list[Section], paper: str, pack: PackSpec, reuser=None, recording=False) -> Body:
        """Every page after page 1, run by run, with one font program per font."""
        body = Body(reuser.out if reuser else pikepdf.new())
        imposer = reuser or (sheet_cache.SheetRecorder(body.pdf) if recording else Imposer(body.pdf))
        body.imposer = imposer
        deferred = []                     # back pages printed at the end (--duplex none)
        for run in RUNS[:-1]:
            for section in (s for s in sections if s.run == run and s.kind == "rulebook"):
                self._impose_rules(body, section, paper)
            decks = [s for s in sections if s.run == run and s.kind == "deck"]
            deferred += self.cards.impose(imposer, body, self.cards.groups(decks), paper)
            pieces = [s for s in sections if s.run == run and s.kind == "piece"]
            if pieces:
                deferred += self.pieces.draw(body, pieces, paper, pack)
            boxes = [s for s in sections if s.run == run and s.kind == "box"]
            if boxes:
                self.boxes.draw(body, imposer, boxes, paper)
        for make_back in deferred:
            make_back()
        imposer.settle_fonts()
        if reuser:
            reuser.merge_fonts(self.assets)
        elif recording:
            placeholders = imposer.placeholders()
            merge_fonts(body.pdf, self.assets)
            imposer.note_fonts(placeholders)
        else:
            merge_fonts(body.pdf, self.assets)
        return body

    def _rules_section(self, pack: PackSpec) -> Section | None:
        if self.rulebook is None or not self.rulebook.exists:
            return None
        if pack.key not in self._rulebook_pages:
            self._rulebook_pages[pack.key] = self.rulebook.render(pack)
        pages = self._rulebook_pages[pack.key]
        return Section("rulebook", self.rulebook._("Rulebook"), "rulebook", "rules", pages.count, [pages])

    def _impose_rules(self, body: Body, section: Section, paper: str) -> None:
        from generator.sheets.booklet import impose, sheet_entries
        pages, imposition = section.items[0], self.game.spec.rulebook.imposition
        entries = sheet_entries(paper, imposition, pages.size, pages.count)
        body.imposer.whole_pages(f"rulebook {pages.key} {imposition}", len(entries),
                                 lambda: impose(body.pdf, pages.pdf, paper, imposition, pages.size))
        for entry in entries:
            body.add(entry, section, run="rules")

    def _info(self, pack: PackSpec, paper: str, sections: list[Section], body: Body, reprint: dict | None):
        info_count = 1
        for _ in range(3):          # the info page count shifts every page number: settle it
            runs = _runs(body.entries, info_count, self.game.spec.language)
            pdf = self.info.render(pack, paper, sections, runs, info_count, len(body.entries), self.options,
                                   reprint)
            if len(pdf.pages) == info_count:
                break
            info_count = len(pdf.pages)
        return pdf, runs


def run_titles(lang: str) -> dict[str, str]:
    """What each print run is printed on, in the edition's language."""
    t = translator(lang)
    return {"rules": t.gettext("two-sided · plain paper · rulebook"),
            "duplex": t.gettext("two-sided · 200–250 g card stock"), "fronts": t.gettext("fronts · 200–250 g card stock"),
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


DRAFT_PAGE_1 = "DRAFT - playtest print, not for a print shop"


def mark_draft(pdf: pikepdf.Pdf, assets: Assets) -> None:
    """--draft: page 1 says so at its top in large type, every other page in its top margin
    (left corner: no crop mark runs there). Drawn into each page's own content, not as a placed
    form, which preflight would count as a card."""
    from reportlab.pdfgen.canvas import Canvas

    from generator.render.pen import register_fonts, registered
    register_fonts(assets)
    latin = assets.font_for("D")           # the first font in fallback order that draws the words
    font_name = registered(next((f for f in assets.fonts if f.family == latin), assets.fonts[0]))
    marks = {}
    for number, page in enumerate(pdf.pages):
        width, height = float(page.mediabox[2]), float(page.mediabox[3])
        key = (width, height, number == 0)
        if key not in marks:
            buffer = io.BytesIO()
            # (started in the bundled font: reportlab's default Helvetica would open the page with an
            # empty text object selecting it)
            canvas = Canvas(buffer, pagesize=(width, height), invariant=1, pageCompression=0, initialFontName=font_name)
            canvas.setFillColorRGB(0.75, 0.1, 0.1)
            canvas.setFont(font_name, 14 if number == 0 else 6)
            canvas.drawString(pt(2 if number else 10), height - pt(3.2 if number else 9),
                              DRAFT_PAGE_1 if number == 0 else "DRAFT")
            canvas.save()
            with open_pdf(buffer.getvalue()) as drawn:
                mark = drawn.pages[0]
                content = mark.obj.Contents.read_bytes()
                used = re.search(rb"(/F[^ /]+) [\d.]+ Tf", content).group(1)
                marks[key] = (pdf.copy_foreign(mark.Resources.Font[used.decode()]),
                              content.replace(used + b" ", b"/PnpDraft "))
        font, content = marks[key]
        if "/Resources" not in page.obj:
            page.obj.Resources = Dictionary()
        if "/Font" not in page.obj.Resources:
            page.obj.Resources.Font = Dictionary()
        page.obj.Resources.Font[Name("/PnpDraft")] = font
        page.contents_add(pikepdf.Stream(pdf, b"q\n"), prepend=True)
        page.contents_add(pikepdf.Stream(pdf, b"\nQ\nq\n" + content + b"\nQ\n"))


def manifest_json(manifest: dict) -> bytes:
    """The manifest as JSON, indented, with its long lists one item per line: every page, and
    each component's cards. As easy to read as indenting every key, and the long lists written
    compactly by orjson (indenting a 5,000-card manifest key by key takes a second; json's
    encoder still took 0.03 s on the components' 5,000 cards, which it indents in pure Python)."""
    lines: dict[str, str] = {}      # a placeholder in the indented JSON -> its list, one item a line

    def later(items: list, depth: int) -> str:
        token = f"\0{len(lines)}\0"
        lines[json.dumps(token)] = _one_per_line(items, depth)
        return token
    shaped = {**manifest, "pages": later(manifest["pages"], 1)}
    if "components" in manifest:
        shaped["components"] = [{**c, "cards": later(c["cards"], 3)} if isinstance(c.get("cards"), list) else c
                                for c in manifest["components"]]
    text = json.dumps(shaped, ensure_ascii=False, indent=1)
    for token, written in lines.items():
        text = text.replace(token, written, 1)
    return (text + "\n").encode()


def _one_per_line(items: list, depth: int) -> str:
    if not items:
        return "[]"
    pad = " " * (depth + 1)
    written = f",\n{pad}".join(orjson.dumps(item, option=orjson.OPT_NON_STR_KEYS).decode() for item in items)
    return f"[\n{pad}{written}\n{' ' * depth}]"


class Written(NamedTuple):
    """A pack written: its path as displayed, preflight's report, and whether any of its files
    changed (a file made again in the bytes it has is left in place, date and all)."""
    path: str
    report: "Report"
    changed: bool


def write_pack(project: Project, game: Game, pack: PackSpec, paper: str, pdf: bytes, manifest: dict,
               options: PrintOptions = PrintOptions(), name_key: str | None = None,
               name: str | None = None, sheets: sheet_cache.Record | None = None,
               passed: "Report | None" = None, shared: dict | None = None) -> Written:
    """Write the pack and its manifest, but only if the written file passes preflight: both
    go to temporary files first, are checked, and only then replace the previous ones. The
    preflight reads again in full only what the last one of this file did not pass in the same
    bytes (check/checked.py); its record is kept by the written file's name. `sheets`
    (MadePack.sheets) is recorded for the next build of this pack to build on. `passed`: the
    report of a pack taken from the store, which passed preflight in these bytes when it was kept
    (sheets/pack_store.py): not checked again. `shared`: what the edition's earlier preflights
    passed (PackBuilder.passed_checks), offered to this one's memo."""
    from generator.check.preflight import preflight
    folder = project.build / game.id
    name = name or pack_name(game, pack, paper, options, name_key)
    record = preflight_record(project, game, name)
    memo = Memo.load(record, memo_context(project), shared)
    staged = {}
    refuse_links(folder / f"{name}-cut", project.build)     # before a cut file is written or removed there
    try:
        listing = manifest_json(manifest)
        for ext, data in (("pdf", pdf), ("json", listing)):
            staged[folder / f"{name}.{ext}"] = stage(folder / f"{name}.{ext}", data)
        for file, data in cut_files(manifest).items():     # beside the pack: <pack>-cut/page-NN.svg|dxf
            staged[folder / f"{name}-cut" / file] = stage(folder / f"{name}-cut" / file, data)
        report = passed
        if report is None:
            report = preflight(staged[folder / f"{name}.pdf"], staged[folder / f"{name}.json"],
                               display=project.display(folder / f"{name}.pdf"), memo=memo)
            _refuse(report, options)
        sheet_cache.forget(project, game.id, name)
        changed = False
        for target, tmp in staged.items():
            if _holds(target, tmp):         # the same bytes: left as they are, date and all
                tmp.unlink()
            else:
                commit(tmp, target)
                changed = True
        staged = {}
        pdf_sha = sha256_hex(pdf)                           # the stamp's and the sheet record's
        stamp.note_output(folder / f"{name}.pdf", pdf_sha)
        stamp.note_output(folder / f"{name}.json", hashlib.sha256(listing).hexdigest())
        if sheets:
            sheet_cache.save(project, game.id, sheets, pdf_sha)
        _drop_old_cut_files(project, folder / f"{name}-cut", cut_file_names(manifest))
        if passed is None:          # (a pack taken from the store was not read: the record stays)
            memo.save(record)
    finally:
        for tmp in staged.values():
            tmp.unlink(missing_ok=True)
    return Written(project.display(folder / f"{name}.pdf"), report, changed)


def _holds(target: Path, staged: Path) -> bool:
    """Whether `target` is a regular file with the staged file's bytes: a build that makes a file
    again as it was does not replace it, so its date says when it last changed (a designer, or a
    folder synced by date, sees only what this build changed)."""
    try:
        return target.is_file() and not target.is_symlink() and target.stat().st_size == staged.stat().st_size \
            and target.read_bytes() == staged.read_bytes()
    except OSError:
        return False


def _refuse(report: "Report", options: PrintOptions) -> None:
    """Preflight's findings stop the pack (with --draft, too-coarse pictures are warnings only,
    kept in report.findings)."""
    if options.draft:
        errors = [f for f in report.findings if not f.endswith(f"dpi (needs {MIN_DPI})")]
        if errors:
            raise PnpError([Problem(report.file, None, f"preflight: {f}") for f in errors])
        report.findings = [f"preflight: {f}" for f in report.findings]
    elif not report.ok:
        raise PnpError([Problem(report.file, None, f"preflight: {f}") for f in report.findings])


def check_pack(project: Project, game: Game, pack: PackSpec | None, paper: str, pdf: bytes, manifest: dict,
               options: PrintOptions = PrintOptions(), name: str | None = None) -> "Report":
    """The preflight write_pack runs, on a pack made in memory (`pnp validate`): checked from a
    scratch folder outside the project, named as the build would name it; nothing in build/ changes."""
    import tempfile
    from generator.check.preflight import preflight
    name = name or pack_name(game, pack, paper, options)
    # the last build's record of this file's checked pages, read only: the same bytes pass the same
    memo = Memo.load(preflight_record(project, game, name), memo_context(project))
    with tempfile.TemporaryDirectory(prefix="pnp-validate-") as scratch:
        pdf_path, listing = Path(scratch) / f"{name}.pdf", Path(scratch) / f"{name}.json"
        pdf_path.write_bytes(pdf)
        listing.write_bytes(manifest_json(manifest))
        report = preflight(pdf_path, listing, display=project.display(project.build / game.id / f"{name}.pdf"),
                           memo=memo)
    _refuse(report, options)
    return report


def preflight_record(project: Project, game: Game, name: str) -> Path:
    """Where the preflight memo of one written pack file lives: by its file name, which differs
    for every pack, paper, language and option."""
    return project.build / ".cache" / "preflight" / game.id / f"{name}.json"


def memo_context(project: Project) -> str:
    """The pack's font programs are subsets of the project's font files: a record is good only
    with the same files (and the same checking code)."""
    files = sorted(p for p in project.fonts.rglob("*") if p.is_file()) if project.fonts.is_dir() else []
    return checked_context(files)


def _drop_old_cut_files(project: Project, folder, keep: list[str]) -> None:
    """Cut files of sheets this build no longer has would be cut against the wrong page."""
    remove_outputs(folder, project.build, lambda old: old.name not in keep and old.suffix in (".svg", ".dxf"))


def own_files(name: str, manifest: dict) -> list[str]:
    """The files write_pack writes for a pack named `name`, relative to build/<game>/."""
    return [f"{name}.pdf", f"{name}.json"] + [f"{name}-cut/{file}" for file in cut_file_names(manifest)]


def written_files(project: Project, pdf_path: str, manifest: dict) -> list[str]:
    """The pack and the cut files beside it, as the stamp records them."""
    cut = Path(pdf_path).with_suffix("").as_posix() + "-cut"
    return [pdf_path] + [f"{cut}/{name}" for name in cut_file_names(manifest)]
