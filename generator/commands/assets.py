"""`pnp assets add TEXT`: make every character of TEXT printable, in one step.

An emoji gets its Twemoji SVG in icons/twemoji/; any other character no bundled font draws is
added to the Noto Sans SC subset in fonts/ (regular and bold). Both come from the npm packages
the bundled files were first made from (tools/build_assets.py), fetched from the npm registry
once and kept in build/.cache/npm/; `--from FOLDER` takes the .tgz files `npm pack` wrote
instead, for a machine without the network. The licence notes go beside the files, and every
file written is named.
"""
from __future__ import annotations

import re
import struct
import tarfile
import unicodedata
import urllib.error
import urllib.request
import zlib
from io import BytesIO
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont, TTLibError

from generator.atomic import make_room, write_atomic
from generator.errors import PnpError, Problem
from generator.source.assets import Assets
from generator.source.project import Project

REGISTRY = "https://registry.npmjs.org"
TWEMOJI = ("@twemoji/svg", "15.0.0")
NOTO_SC = ("@expo-google-fonts/noto-sans-sc", "0.4.3")
NOTO_FILES = {"NotoSansSC-Regular.ttf": "400Regular/NotoSansSC_400Regular.ttf",
              "NotoSansSC-Bold.ttf": "700Bold/NotoSansSC_700Bold.ttf"}
ATTRIBUTION = """# Icons

`twemoji/*.svg` are Twemoji graphics, copyright 2020 Twitter, Inc and other contributors
(maintained by jdecked, https://github.com/jdecked/twemoji), licensed under CC-BY 4.0
(https://creativecommons.org/licenses/by/4.0/). Taken unchanged (whitespace folded) from npm
`@twemoji/svg` 15.0.0 by `tools/build_assets.py` or `pnp assets add`. Every kit's info page repeats
this attribution.
"""


def tarball_name(package: str, version: str) -> str:
    """The file `npm pack` writes: @twemoji/svg 15.0.0 -> twemoji-svg-15.0.0.tgz."""
    return f"{package.lstrip('@').replace('/', '-')}-{version}.tgz"


def fetch(url: str) -> bytes:
    """The network step (tests replace it)."""
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.read()


def package(project: Project, name: str, version: str, offline: Path | None) -> tarfile.TarFile:
    """An npm package's tarball: from --from FOLDER, the cache, or the registry."""
    file = tarball_name(name, version)
    if offline is not None:
        path = offline / file
        if not path.is_file():
            raise PnpError(Problem(str(path), None, "not found",
                                   f"on a machine with the network run: npm pack {name}@{version}"))
        try:
            return tarfile.open(path)
        except (tarfile.TarError, OSError, EOFError) as exc:
            raise PnpError(Problem(str(path), None, f"not a readable npm package (.tgz): {exc}",
                                   f"make it again: npm pack {name}@{version}")) from None
    cached = project.build / ".cache" / "npm" / file
    kept = _read_through(cached)            # a cached package that does not read back whole is a miss
    if kept is not None:
        return kept
    url = f"{REGISTRY}/{name}/-/{name.split('/')[-1]}-{version}.tgz"
    try:
        data = fetch(url)
    except (urllib.error.URLError, OSError) as exc:
        raise PnpError(Problem(url, None, f"cannot download: {getattr(exc, 'reason', exc)}",
                               f"offline: run npm pack {name}@{version} where there is a network, "
                               "then ./pnp assets add TEXT --from THAT_FOLDER")) from None
    make_room(cached)
    write_atomic(cached, data)
    fetched = _read_through(cached)
    if fetched is None:
        raise PnpError(Problem(url, None, "the registry sent a package that is not a whole .tgz", "try again"))
    return fetched


def _read_through(path: Path) -> tarfile.TarFile | None:
    """The tarball, its every member header read (a package cut short or garbled fails there), or None
    when there is none or it does not read whole; a damaged one is removed."""
    if not path.is_file():
        return None
    try:
        tar = tarfile.open(path)
        tar.getmembers()
        return tar
    except (tarfile.TarError, OSError, EOFError, zlib.error):
        path.unlink(missing_ok=True)
        return None


def add(project: Project, text: str, offline: Path | None = None, say=print) -> list[str]:
    """Add what TEXT needs; return the files written (none when it is printable already)."""
    assets = Assets(project)
    missing = assets.missing(text)
    # a pictograph a font can print still needs its SVG where a board or an icon field draws it
    unseen = [c for c in text if _is_emoji(c) and assets.icon(c) is None and c not in missing]
    if not missing and not unseen:
        say(f"nothing to add: every character of {text!r} is in the bundled fonts or icons")
        return []
    written = []
    emoji = [m for m in missing if _is_emoji(m)] + unseen
    if emoji:
        written += _add_icons(project, text, package(project, *TWEMOJI, offline), say)
        missing = Assets(project).missing(text)
    if missing:
        written += _add_to_fonts(project, missing, package(project, *NOTO_SC, offline), say)
    return written


def _is_emoji(char: str) -> bool:
    """A pictograph Twemoji may have (not a letter or a hanzi, which belong in a font)."""
    return unicodedata.category(char) in ("So", "Sk") or 0x1F000 <= ord(char) <= 0x1FAFF   # not CJK Ext. B–H


def _add_icons(project: Project, text: str, archive: tarfile.TarFile, say) -> list[str]:
    svgs = {Path(m.name).stem: m for m in archive.getmembers()
            if m.isfile() and re.fullmatch(r"package/[0-9a-f-]+\.svg", m.name)}
    sequences = sorted(svgs, key=len, reverse=True)
    folder = project.icons / "twemoji"
    folder.mkdir(parents=True, exist_ok=True)
    written, rest = [], text
    for name in sequences:
        seq = "".join(chr(int(h, 16)) for h in name.split("-"))
        if seq in rest or (len(seq) > 1 and seq.replace("\ufe0f", "") in rest):
            rest = rest.replace(seq, "").replace(seq.replace("\ufe0f", ""), "")
            target = folder / f"{name}.svg"
            if target.exists():
                continue
            raw = _member(archive, svgs[name].name)
            try:
                svg = re.sub(r"\s+", " ", raw.decode("utf-8")).strip()
            except UnicodeDecodeError:
                raise PnpError(Problem(f"{archive.name}:{svgs[name].name}", None, "not UTF-8 text")) from None
            write_atomic(target, (svg + "\n").encode("utf-8"))
            written.append(project.display(target))
            say(f"wrote {project.display(target)}: {seq} (Twemoji {TWEMOJI[1]}, CC-BY 4.0)")
    note = project.icons / "ATTRIBUTION.md"
    if written and not note.exists():
        write_atomic(note, ATTRIBUTION.encode("utf-8"))
        written.append(project.display(note))
        say(f"wrote {project.display(note)}: the Twemoji licence note")
    return written


def _add_to_fonts(project: Project, chars: list[str], archive: tarfile.TarFile, say) -> list[str]:
    """Both weights read and checked first (a damaged or missing second font is said at once, before
    the first is cut: seconds for a 10 MB font), then made, then written: a font that cannot be made
    leaves the other as it was."""
    checked = []
    for bundled, member in NOTO_FILES.items():
        target = project.fonts / bundled
        source, have = _font(archive, f"package/{member}")
        lacking = [c for c in chars if ord(c) not in have]
        if lacking:
            raise PnpError(Problem(text_of(lacking), None, f"not in Noto Sans SC ({NOTO_SC[0]} {NOTO_SC[1]})",
                                   "add a font that has it to fonts/ and fonts/fonts.yaml (docs/authoring.md)"))
        kept = set(TTFont(target).getBestCmap()) if target.exists() else set()
        if not kept <= have:
            raise PnpError(Problem(project.display(target), None, "has characters the package's font lacks; "
                                   "it was not made from it, so it is left as it is"))
        checked.append((target, source, kept, f"{archive.name}:package/{member}"))
    made = [(target, _subset(source, kept | {ord(c) for c in chars}, where), len(kept))
            for target, source, kept, where in checked]
    licence = project.fonts / "OFL-NotoSansSC.txt"
    licence_text = None if licence.exists() else _member(archive, "package/LICENSE_FONT")
    written = []
    for target, data, kept in made:
        write_atomic(target, data)
        written.append(project.display(target))
        say(f"wrote {project.display(target)}: added {text_of(chars)} ({kept + len(chars)} characters)")
    if licence_text is not None:
        write_atomic(licence, licence_text)
        written.append(project.display(licence))
        say(f"wrote {project.display(licence)}: the font's licence (SIL OFL 1.1)")
    return written


MAX_MEMBER_BYTES = 100_000_000     # the Noto Sans SC fonts are ~10 MB each


def _member(archive: tarfile.TarFile, name: str) -> bytes:
    """One file of the package, bounded; a missing or damaged one is a located line."""
    where = f"{archive.name}:{name}"
    try:
        info = archive.getmember(name)
        if not info.isfile() or info.size > MAX_MEMBER_BYTES:
            raise PnpError(Problem(where, None, f"not a file of at most {MAX_MEMBER_BYTES // 1_000_000} MB"))
        return archive.extractfile(info).read()
    except KeyError:
        raise PnpError(Problem(where, None, "not in the package", "is it the package pnp names?")) from None
    except (tarfile.TarError, OSError, EOFError, zlib.error) as exc:
        raise PnpError(Problem(where, None, f"cannot be read from the package: {exc}")) from None


# What fontTools raises on a damaged font, by where the damage is.
_FONT_ERRORS = (TTLibError, struct.error, KeyError, IndexError, ValueError, AssertionError, EOFError, TypeError)


def _font(archive: tarfile.TarFile, name: str) -> tuple[TTFont, set[int]]:
    try:
        font = TTFont(BytesIO(_member(archive, name)))
        return font, set(font.getBestCmap() or {})
    except _FONT_ERRORS as exc:
        raise PnpError(Problem(f"{archive.name}:{name}", None, f"not a readable font ({type(exc).__name__}: {exc})",
                               "the package is damaged: download it again")) from None


def _subset(font: TTFont, unicodes: set[int], where: str) -> bytes:
    try:
        return subset_font(font, unicodes)
    except _FONT_ERRORS as exc:
        raise PnpError(Problem(where, None, f"not a readable font ({type(exc).__name__}: {exc})",
                               "the package is damaged: download it again")) from None


def text_of(chars: list[str]) -> str:
    return " ".join(f"{c} (U+{ord(c):04X})" for c in chars)


def subset_font(font: TTFont, unicodes: set[int]) -> bytes:
    """The font cut down to these characters, every layout feature kept, as TrueType
    (usable by WeasyPrint and reportlab alike). Shared with tools/build_assets.py."""
    options = subset.Options()
    options.layout_features = ["*"]
    options.notdef_outline = True
    options.name_IDs = ["*"]
    options.drop_tables += ["DSIG"]
    cutter = subset.Subsetter(options)
    cutter.populate(unicodes=sorted(unicodes))
    cutter.subset(font)
    font.flavor = None
    out = BytesIO()
    font.save(out)
    return out.getvalue()

