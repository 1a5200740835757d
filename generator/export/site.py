"""`pnp site`: a static site of what the builds wrote, for players choosing what to print.

build/site/index.html is the shelf: every game with a picture, its players, playing time and
languages, a filter by player count and language (inline JavaScript; without it every game
shows). build/site/<game>/<lang>.html is a game's printables page in one of its languages:
title, description, a card sheet and a board drawn from the built PDFs, a table of every pack
(player count × paper × language: file size, pages, which pages go on card stock and which on
plain paper, duplex), the rulebook alone, a reprint pack, cutter files, print-shop and Tabletop
Simulator exports, "what you also need" (page 1's supplies) and the card gallery.

The site reads only what builds left in build/<game>/ (manifests, PDFs, exports, galleries), so
builds made in shards on several machines and copied into one build/ assemble into one site. It
offers a pack, rulebook or reprint only when a build (or `pnp reprint`) recorded writing it
(.written.json) from the inputs the edition's last build was made from (its stamp), and under the name
its manifest's print settings give: an older variant, a reprint of since-reverted cards or a file
named by hand stays off; a --draft pack only with `--drafts`, and every variant is labelled by the
settings its name carries.
The files a page offers are hard links under build/site/<game>/ (copies where the file system
has no links): the folder works offline and can be published alone. Every word of the site's
own is in the engine's catalogues; the games' words come from their editions.
"""
from __future__ import annotations

import io
import json
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from babel import Locale, UnknownLocaleError
from jinja2 import Environment, FileSystemLoader, select_autoescape

from generator.atomic import refuse_links, write_atomic
from generator.errors import PnpError, Problem
from generator.geometry import DUPLEX_MODES
from generator.sheets import written as written_record
from generator.sheets.pack import pack_name
from generator.sheets.rules_file import rules_name
from generator.source import stamp
from generator.source.assets import Assets
from generator.source.game import Game
from generator.source.options import PrintOptions
from generator.source.i18n import translator
from generator.source.load import game_languages, load_game
from generator.source.project import ENGINE_TEMPLATES, Project
from generator.source.words import count

SITE = "site"
PICTURE_PX = 640                      # the longer side of a card sheet's or a board's picture
BOARD_CANDIDATES = 4                  # the largest boards drawn to choose the one shown
CARD_STOCK_RUNS = ("duplex", "fronts", "card", "backs")     # sheets/sections.py: the runs printed on card
SHOP_FILE = re.compile(r"^(?P<pack>.+?)-(?P<shop>tgc|mpc|dtc|png)(-(?P<dpi>\d+)dpi|(?P<pdfx>-pdfx)?)$")


@dataclass(frozen=True)
class Link:
    """A file the page offers: its label, where it is from the page, its size in bytes, and for an
    export what it is for (a shop's name, "tts")."""
    label: str
    href: str
    size: int
    target: str = ""


@dataclass
class PackRow:
    players: int | None
    label: str                # "4 players", "3-player variant", the optional pack's name
    paper: str
    lang: str
    lang_name: str
    file: Link
    pages: int
    card_pages: str           # "8–25" or "" (page ranges on card stock)
    plain_pages: str
    printing: str             # long, short (two-sided, the edge to flip on), none, gutterfold, one-sided
    options: list[str]        # draft, ink saver, a cutter … (the file's suffix), optional (an extra pack)
    cut_files: list[Link] = field(default_factory=list)


@dataclass
class Edition:
    """One game in one language: what its printables page shows."""
    game: str
    lang: str
    lang_name: str
    title: str
    subtitle: str | None
    description: str | None
    time: str | None
    players: list[int]
    supplies: list[str]
    draft: bool
    packs: list[PackRow] = field(default_factory=list)
    rules: list[PackRow] = field(default_factory=list)
    reprints: list[PackRow] = field(default_factory=list)
    exports: list[Link] = field(default_factory=list)
    pictures: list[dict] = field(default_factory=list)   # {src, alt, width, height}
    gallery: str | None = None


def build_site(project: Project, assets: Assets, drafts: bool = False, say=print) -> str:
    """Write build/site/ from build/<game>/; returns the shelf page's path as the designer sees it."""
    root = project.build / SITE
    if SITE in project.games():
        raise PnpError(Problem(f"cards/{SITE}", None, f"a game named '{SITE}' would share build/{SITE}/ with the "
                                                      "site: rename the game"))
    _refuse_linked_folders(root, project.build)     # before anything is written into the site
    written: set[Path] = set()
    shelf: list[list[Edition]] = []
    problems: list[Problem] = []
    for game_id in project.games():
        try:
            editions = _game_editions(project, game_id, say, drafts)
        except PnpError as exc:           # one broken game stays off the shelf; the others go on
            problems += exc.problems
            continue
        if editions and editions[0].draft and not drafts:
            say(f"{game_id}: a draft, left off the shelf (pnp site --drafts shows it)")
        elif editions:
            shelf.append(editions)
    shelves = _shelf_languages(shelf)
    for editions in shelf:
        for edition in editions:
            _place_files(project, edition, root, written)
            _pictures(project, edition, root, written)
    text = "".join(_pages(shelf, shelves, []).values())      # the characters the fonts must hold
    _subset_fonts(assets, root, text, written)
    for path, html in _pages(shelf, shelves, _fonts(assets, text)).items():
        _write(root / path, html, written)
    _sweep(root, written)
    target = project.display(root / "index.html")
    say(f"wrote {target} ({count(len(shelf), 'game')}, "
        f"{count(sum(len(e) for e in shelf), 'printables page')}; open it in a browser)")
    if problems:
        raise PnpError(problems)
    return target


def _pages(shelf: list[list[Edition]], shelves: list[tuple[str, str]], fonts: list[dict]) -> dict[str, str]:
    """Every page of the site by its path under site/: the games' pages, then the shelves."""
    pages = {}
    for editions in shelf:
        for edition in editions:
            others = [e for e in editions if e is not edition]       # a bilingual table finds every edition
            pages[f"{edition.game}/{edition.lang}.html"] = _render(
                "base/site-game.html", edition.lang, page=edition, switch=_switch(editions, edition.lang),
                packs=edition.packs + [r for e in others for r in e.packs],
                rules=edition.rules + [r for e in others for r in e.rules],
                shelf=f"../{dict(shelves).get(edition.lang, 'index.html')}", fonts=fonts, base="../")
    for lang, name in shelves:
        pages[name] = _render("base/site-shelf.html", lang, games=[_on_shelf(e, lang) for e in shelf],
                              filters=_filters(shelf), switch=_shelf_switch(shelves, lang), fonts=fonts, base="")
    return pages


# --- reading what the builds wrote --------------------------------------------------------------

def _game_editions(project: Project, game_id: str, say, drafts: bool = False) -> list[Edition]:
    """Every built language of a game, the data's own first; none when nothing is built yet."""
    folder = project.build / game_id
    manifests = _manifests(folder, game_id)
    languages = game_languages(project, game_id)
    record = written_record.read(folder)
    editions = []
    for lang in languages:
        mine = [m for m in manifests if _language(m["file"], languages) == lang]
        if not mine:
            continue
        game = load_game(project, game_id, lang, rules=False)
        edition = _edition(game, lang)
        current = stamp.made_from(folder, lang)
        left: dict[str, list[str]] = {}
        for manifest in mine:
            why = _left_off(game, manifest, record.get(manifest["file"]), current, drafts)
            if why:
                left.setdefault(why, []).append(manifest["file"])
            else:
                _add_manifest(edition, game, manifest, folder)
        for why, files in left.items():
            say(f"{game_id}: left off the site, {why}: {', '.join(files)}")
        edition.exports = _exports(folder, game, lang)
        edition.gallery = _gallery(folder, game)
        _order(edition)
        editions.append(edition)
    if not editions:
        say(f"{game_id}: nothing built yet, left out (run pnp build {game_id})")
    return editions


def _manifests(folder: Path, game_id: str) -> list[dict]:
    found = []
    for path in sorted(folder.glob(f"{game_id}-*.json")):
        try:
            manifest = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(manifest, dict) and manifest.get("game") == game_id and \
                str(manifest.get("file")) == f"{path.stem}.pdf" and (folder / f"{path.stem}.pdf").is_file():
            found.append(manifest)
    return found


DRAFT = "a draft (pnp site --drafts shows it)"
OLD = "not made from the inputs of the edition's last build (make it again to offer it)"
MISNAMED = "its name is not the one its manifest's print settings give"


def _left_off(game: Game, manifest: dict, entry, current: str | None, drafts: bool) -> str | None:
    """Why a written file is not offered (None: it is): it must be one a build of the edition's current
    inputs wrote, under the name its settings give (so its labels say all its name does)."""
    if not isinstance(entry, dict) or current is None or entry.get("made_from") != current:
        return OLD
    if manifest["file"] != _expected_name(game, manifest):
        return MISNAMED
    if _print_options(manifest).draft and not drafts:
        return DRAFT
    return None


def _expected_name(game: Game, manifest: dict) -> str | None:
    """The file name a build gives a file with this manifest's pack, paper and print settings."""
    options, paper = _print_options(manifest), str(manifest.get("paper"))
    if manifest.get("pack") == "rules":
        return f"{rules_name(game, paper, options)}.pdf"
    spec = next((p for p in game.spec.packs if p.key == manifest.get("pack")), None)
    if spec is None:
        return None
    return f"{pack_name(game, spec, paper, options, 'reprint' if manifest.get('reprint') else None)}.pdf"


def _print_options(manifest: dict) -> PrintOptions:
    """The print settings a manifest records (those its file's name carries)."""
    settings = manifest.get("print") if isinstance(manifest.get("print"), dict) else {}
    duplex, sheets, cutter = settings.get("duplex"), settings.get("sheets"), settings.get("cutter")
    return PrintOptions(duplex=duplex if duplex in DUPLEX_MODES else "long", ink_saver=bool(settings.get("ink_saver")),
                        fit=bool(settings.get("fit")), sheets=sheets if isinstance(sheets, str) else "shared",
                        cutter=cutter if isinstance(cutter, str) else None, draft=bool(settings.get("draft")))


def _language(file_name: str, languages: list[str]) -> str:
    """The edition a file belongs to: its name ends in -<lang> when the game has several."""
    stem = file_name.rsplit(".", 1)[0]
    if len(languages) > 1:
        for lang in sorted(languages, key=len, reverse=True):
            if stem.endswith(f"-{lang}"):
                return lang
        return ""
    return languages[0]


def _edition(game: Game, lang: str) -> Edition:
    spec = game.spec
    players = sorted({p.players for p in spec.packs})
    return Edition(game.id, lang, language_name(lang), spec.title, spec.subtitle, spec.description, spec.time,
                   players, list(spec.supplies), spec.draft)


def language_name(lang: str) -> str:
    """A language named in itself: English, 中文 (简体)."""
    try:
        locale = Locale.parse(lang.replace("-", "_"))
        return locale.get_display_name(locale) or lang
    except (ValueError, UnknownLocaleError):
        return lang


def _add_manifest(edition: Edition, game: Game, manifest: dict, folder: Path) -> None:
    row = _row(edition, game, manifest, folder)
    if manifest.get("pack") == "rules":
        edition.rules.append(row)
    elif manifest.get("reprint"):
        edition.reprints.append(row)
    else:
        edition.packs.append(row)


def _row(edition: Edition, game: Game, manifest: dict, folder: Path) -> PackRow:
    file = folder / manifest["file"]
    runs = manifest.get("runs") or []
    pages = len(manifest.get("pages") or []) or _page_count(file)
    card = [r["pages"] for r in runs if r.get("run") in CARD_STOCK_RUNS]
    on_card = {n for first, last in card for n in range(first, last + 1)}
    plain = [[n, n] for n in range(1, pages + 1) if n not in on_card]     # page 1, the rulebook, paper sheets
    row = PackRow(manifest.get("players"), _pack_label(game, manifest), str(manifest.get("paper", "")).upper(),
                  edition.lang, edition.lang_name, Link(manifest["file"], "", file.stat().st_size), pages,
                  page_ranges(card), page_ranges(plain), _printing(manifest),
                  ["optional"] * _optional(game, manifest) + _options(manifest))
    cut = folder / f"{file.stem}-cut"
    if cut.is_dir():
        row.cut_files = [Link(p.name, "", p.stat().st_size) for p in sorted(cut.iterdir()) if p.is_file()]
    return row


def _printing(manifest: dict) -> str:
    """How the sheets go through the printer: the duplex mode of the cards (of the rulebook, for
    the rulebook alone), or one-sided when nothing has a back."""
    if manifest.get("pack") == "rules":
        book = next((c for c in manifest.get("components", []) if c.get("kind") == "rulebook"), {})
        return book.get("duplex") or "one-sided"
    runs = {r.get("run") for r in manifest.get("runs") or []}
    mode = (manifest.get("print") or {}).get("duplex", "long")
    if mode in ("long", "short") and "duplex" not in runs:
        return "one-sided"
    return mode


def _page_count(path: Path) -> int:
    import pikepdf
    with pikepdf.open(path) as pdf:
        return len(pdf.pages)


def _pack_label(game: Game, manifest: dict) -> str:
    """What a player looks for: the variant's or optional pack's name, else the player count."""
    spec = next((p for p in game.spec.packs if p.key == manifest.get("pack")), None)
    if spec is not None and (spec.name or spec.variant):
        return spec.name or spec.variant
    if manifest.get("variant"):
        return manifest["variant"]
    return ""


def _optional(game: Game, manifest: dict) -> bool:
    return any(p.key == manifest.get("pack") and p.optional for p in game.spec.packs)


def _options(manifest: dict) -> list[str]:
    """The print options a pack was made with, beyond the default: its file name's suffix (the duplex
    mode has a column of its own)."""
    return [part for part in _print_options(manifest).parts if part not in DUPLEX_MODES]


def page_ranges(spans: list[list[int]]) -> str:
    """[[1, 1], [2, 7], [26, 29]] → "1–7, 26–29": ranges merged where they touch."""
    merged: list[list[int]] = []
    for first, last in sorted(tuple(s) for s in spans if s):
        if merged and first <= merged[-1][1] + 1:
            merged[-1][1] = max(merged[-1][1], last)
        else:
            merged.append([first, last])
    return ", ".join(f"{a}" if a == b else f"{a}–{b}" for a, b in merged)


def _exports(folder: Path, game: Game, lang: str) -> list[Link]:
    """Print-shop zips and PDFs and the Tabletop Simulator object of this edition."""
    suffix = game.name_suffix
    found = []
    for path in sorted(folder.glob(f"{game.id}-*")):
        stem = path.name[len(game.id) + 1:].rsplit(".", 1)[0]
        if suffix and not stem.endswith(suffix):
            continue
        match = SHOP_FILE.match(stem[:len(stem) - len(suffix)] if suffix else stem)
        if match and path.suffix in (".zip", ".pdf") and path.is_file():
            from generator.export.shops import SHOP_NAMES      # (with the renderer: only when a shop's file is there)
            dpi = f", {match['dpi']} dpi" if match["dpi"] else ""
            found.append(Link(path.name, "", path.stat().st_size, SHOP_NAMES[match["shop"]] + dpi))
    tts = folder / f"tts{suffix}" / f"{game.id}.json"
    if tts.is_file():
        found.append(Link(f"tts{suffix}/{game.id}.json", "", _tree_size(tts.parent), "tts"))
    return found


def _tree_size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())


def _gallery(folder: Path, game: Game) -> str | None:
    name = f"gallery{game.name_suffix}"
    return name if (folder / name / "index.html").is_file() else None


def _order(edition: Edition) -> None:
    def key(row: PackRow):
        return (row.options, row.players or 0, row.label, row.paper)     # the standard packs first
    edition.packs.sort(key=key)
    edition.rules.sort(key=key)
    edition.reprints.sort(key=key)


# --- writing the site --------------------------------------------------------------------------

def _place_files(project: Project, edition: Edition, root: Path, written: set[Path]) -> None:
    """Every offered file linked under site/<game>/files/ and its link made relative to the page."""
    source = project.build / edition.game
    files = root / edition.game / "files"
    for row in edition.packs + edition.rules + edition.reprints:
        row.file = _linked(source / row.file.label, files / row.file.label, row.file, written)
        cut = Path(row.file.label).stem + "-cut"
        row.cut_files = [_linked(source / cut / c.label, files / cut / c.label, c, written) for c in row.cut_files]
    placed = []
    for link in edition.exports:
        if link.label.endswith(".json") and "/" in link.label:          # a Tabletop Simulator folder
            tree = Path(link.label).parent
            for path in sorted((source / tree).rglob("*")):
                if path.is_file():
                    _link_file(path, files / path.relative_to(source), written)
            placed.append(Link(link.label, f"files/{link.label}", link.size, link.target))
        else:
            placed.append(_linked(source / link.label, files / link.label, link, written))
    edition.exports = placed
    if edition.gallery:
        gallery = source / edition.gallery
        for path in sorted(gallery.rglob("*")):
            if path.is_file() and not path.name.startswith("."):
                _link_file(path, root / edition.game / edition.gallery / path.relative_to(gallery), written)
        edition.gallery = f"{edition.gallery}/index.html"


def _linked(source: Path, target: Path, link: Link, written: set[Path]) -> Link:
    _link_file(source, target, written)
    return Link(link.label, _relative(target), link.size, link.target)


def _relative(target: Path) -> str:
    """A file under site/<game>/ as a page in site/<game>/ links it."""
    parts = target.parts
    index = len(parts) - 1 - parts[::-1].index("files")
    return "/".join(parts[index:])


def _link_file(source: Path, target: Path, written: set[Path]) -> None:
    """A hard link to a built file (no space taken), replaced in one step; a copy where links fail."""
    written.add(target)
    try:
        if target.exists() and os.path.samefile(source, target):
            return
    except OSError:
        pass
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        os.link(source, tmp)
    except OSError:
        shutil.copyfile(source, tmp)
    os.replace(tmp, target)


def _pictures(project: Project, edition: Edition, root: Path, written: set[Path]) -> None:
    """A card sheet and a board of the edition's largest pack, drawn from its PDF."""
    if not edition.packs:
        return
    t = translator(edition.lang)
    row = max((r for r in edition.packs if not r.options), key=lambda r: (r.pages, r.paper == "A4", r.file.label),
              default=edition.packs[0])
    source = project.build / edition.game / Path(row.file.href).name
    manifest = json.loads(source.with_suffix(".json").read_text(encoding="utf-8"))
    sheet = _first_page(manifest, ("cards-front", "cards"))
    wanted = [("sheet", [sheet] if sheet else [], t.gettext("A sheet of cards from %(file)s")),
              ("board", _boards(manifest), t.gettext("A board from %(file)s"))]
    for name, numbers, alt in wanted:
        if not numbers:
            continue
        target = root / edition.game / "img" / f"{name}-{edition.lang}.png"
        png, size = _draw(source, numbers)
        _write(target, png, written)
        edition.pictures.append({"src": f"img/{target.name}", "alt": alt % {"file": row.file.label},
                                 "width": size[0], "height": size[1], "kind": name})


def _first_page(manifest: dict, roles: tuple[str, ...]) -> int | None:
    return next((p["number"] for p in manifest.get("pages", []) if p.get("role") in roles), None)


def _boards(manifest: dict) -> list[int]:
    """The board pages, largest board first (at most a few: one of them is shown)."""
    boards = [(-sum(s["trim"][2] * s["trim"][3] for s in p.get("pieces", [])), p["number"])
              for p in manifest.get("pages", []) if p.get("role") == "board"]
    return [number for _, number in sorted(boards)[:BOARD_CANDIDATES]]


def _draw(pdf: Path, numbers: list[int]) -> tuple[bytes, tuple[int, int]]:
    """The most colourful of these pages (a board rather than a score sheet), as a PNG."""
    import pypdfium2
    from PIL import ImageStat
    document = pypdfium2.PdfDocument(str(pdf))
    try:
        images = []
        for number in numbers:
            page = document[number - 1]
            width, height = page.get_size()
            images.append(page.render(scale=PICTURE_PX / max(width, height)).to_pil().convert("RGB"))
    finally:
        document.close()
    image = max(images, key=lambda i: (_colour(i, ImageStat), -images.index(i)))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue(), image.size


def _colour(image, stat) -> float:
    """How far a picture is from a white page: the mean of saturation and of darkness."""
    hue, saturation, value = stat.Stat(image.convert("HSV")).mean
    return saturation + (255 - value)


def _fonts(assets: Assets, text: str) -> list[dict]:
    """The project's fonts, for a reader whose machine has no Chinese fonts (as the gallery does),
    each with the characters of the site it holds (unicode-range): the project's fonts are
    subsets, and a character one face lacks is then looked for in the next."""
    import uharfbuzz as hb
    wanted = {ord(c) for c in text}
    fonts = []
    for font in assets.fonts:
        covered = sorted(wanted & set(hb.Face(hb.Blob.from_file_path(str(font.path))).unicodes))
        if covered:
            fonts.append({"family": font.family, "weight": font.weight, "url": f"fonts/{font.path.stem}.ttf",
                          "range": unicode_range(covered)})
    return fonts


def unicode_range(points: list[int]) -> str:
    """[65, 66, 67, 20013] → "U+41-43, U+4E2D" (sorted code points)."""
    spans: list[list[int]] = []
    for point in points:
        if spans and point == spans[-1][1] + 1:
            spans[-1][1] = point
        else:
            spans.append([point, point])
    return ", ".join(f"U+{a:X}" if a == b else f"U+{a:X}-{b:X}" for a, b in spans)


def _subset_fonts(assets: Assets, root: Path, text: str, written: set[Path]) -> None:
    """Each bundled font cut down to the characters of the site's pages (a few dozen KB each)."""
    import uharfbuzz as hb
    wanted = {ord(c) for c in text}
    for font in assets.fonts:
        face = hb.Face(hb.Blob.from_file_path(str(font.path)))
        plan = hb.SubsetInput()
        plan.sets(hb.SubsetInputSets.UNICODE).update(wanted & set(face.unicodes))
        _write(root / "fonts" / f"{font.path.stem}.ttf", bytes(hb.subset(face, plan).blob.data), written)


def _write(path: Path, data: bytes | str, written: set[Path]) -> None:
    data = data.encode("utf-8") if isinstance(data, str) else data
    written.add(path)
    try:
        if path.read_bytes() == data:        # unchanged: leave its time alone
            return
    except OSError:
        pass
    write_atomic(path, data, durable=False)


def _refuse_linked_folders(root: Path, build: Path) -> None:
    """The site's folder and every folder in it are pnp's own, never a symbolic link leading elsewhere
    (pnp writes there and deletes what it no longer builds): a link stops the command, naming it."""
    refuse_links(root, build)
    for base, dirs, _ in os.walk(root):            # (a linked folder is listed, never entered)
        for name in dirs:
            refuse_links(Path(base) / name, build)


def _sweep(root: Path, written: set[Path]) -> None:
    """Files of games, packs and pictures no longer built go; empty folders with them. Nothing is
    deleted through a symbolic link: one (to a file or a folder) is removed as a link."""
    for base, dirs, files in os.walk(root, topdown=False):
        here = Path(base)
        for name in files + [d for d in dirs if (here / d).is_symlink()]:
            if here / name not in written:
                (here / name).unlink(missing_ok=True)
        if here != root and not any(here.iterdir()):
            here.rmdir()


# --- pages -------------------------------------------------------------------------------------

def _render(template: str, lang: str, **context) -> str:
    env = Environment(loader=FileSystemLoader(ENGINE_TEMPLATES), extensions=["jinja2.ext.i18n"],
                      autoescape=select_autoescape(default=True, default_for_string=True),
                      trim_blocks=True, lstrip_blocks=True)
    env.install_gettext_translations(translator(lang), newstyle=True)
    env.filters["size"] = file_size
    return env.get_template(template).render(lang=lang, **context)


def file_size(size: int) -> str:
    """1234567 → "1.2 MB" (the units read the same in both engine languages)."""
    for unit, scale in (("MB", 1 << 20), ("KB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size} B"


def _switch(editions: list[Edition], lang: str) -> list[dict]:
    """The same game's page in its other languages."""
    return [{"lang": e.lang, "name": e.lang_name, "href": f"{e.lang}.html", "current": e.lang == lang}
            for e in editions] if len(editions) > 1 else []


def _shelf_languages(shelf: list[list[Edition]]) -> list[tuple[str, str]]:
    """The shelf in every language a game has (index.html in the most common first one)."""
    firsts = [editions[0].lang for editions in shelf]
    every = sorted({e.lang for editions in shelf for e in editions})
    main = max(sorted(set(firsts)), key=firsts.count) if firsts else "en"
    return [(main, "index.html")] + [(lang, f"index-{lang}.html") for lang in every if lang != main]


def _shelf_switch(shelves: list[tuple[str, str]], lang: str) -> list[dict]:
    return [{"lang": code, "name": language_name(code), "href": name, "current": code == lang}
            for code, name in shelves] if len(shelves) > 1 else []


def _on_shelf(editions: list[Edition], lang: str) -> dict:
    """A game as the shelf in `lang` shows it: in that language when it has it."""
    edition = next((e for e in editions if e.lang == lang), editions[0])
    picture = next((p for p in edition.pictures if p["kind"] == "sheet"), None) or \
        next(iter(edition.pictures), None)
    return {"id": edition.game, "title": edition.title, "subtitle": edition.subtitle, "time": edition.time,
            "players": edition.players, "href": f"{edition.game}/{edition.lang}.html",
            "picture": dict(picture, src=f"{edition.game}/{picture['src']}") if picture else None,
            "languages": [{"lang": e.lang, "name": e.lang_name, "href": f"{e.game}/{e.lang}.html"} for e in editions],
            "lang": edition.lang}


def _filters(shelf: list[list[Edition]]) -> dict:
    players = sorted({n for editions in shelf for n in editions[0].players})
    languages = sorted({(e.lang, e.lang_name) for editions in shelf for e in editions})
    return {"players": players, "languages": [{"lang": code, "name": name} for code, name in languages]}
