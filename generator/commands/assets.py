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
import tarfile
import unicodedata
import urllib.error
import urllib.request
from io import BytesIO
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

from generator.atomic import write_atomic
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
        return tarfile.open(path)
    cached = project.build / ".cache" / "npm" / file
    if not cached.is_file():
        url = f"{REGISTRY}/{name}/-/{name.split('/')[-1]}-{version}.tgz"
        try:
            data = fetch(url)
        except (urllib.error.URLError, OSError) as exc:
            raise PnpError(Problem(url, None, f"cannot download: {getattr(exc, 'reason', exc)}",
                                   f"offline: run npm pack {name}@{version} where there is a network, "
                                   "then ./pnp assets add TEXT --from THAT_FOLDER")) from None
        write_atomic(cached, data)
    return tarfile.open(cached)


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
    return unicodedata.category(char) in ("So", "Sk") or ord(char) >= 0x1F000


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
            svg = re.sub(r"\s+", " ", archive.extractfile(svgs[name]).read().decode("utf-8")).strip()
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
    written = []
    for bundled, member in NOTO_FILES.items():
        target = project.fonts / bundled
        source = TTFont(archive.extractfile(f"package/{member}"))
        have = set(source.getBestCmap())
        lacking = [c for c in chars if ord(c) not in have]
        if lacking:
            raise PnpError(Problem(text_of(lacking), None, f"not in Noto Sans SC ({NOTO_SC[0]} {NOTO_SC[1]})",
                                   "add a font that has it to fonts/ and fonts/fonts.yaml (docs/authoring.md)"))
        kept = set(TTFont(target).getBestCmap()) if target.exists() else set()
        if not kept <= have:
            raise PnpError(Problem(project.display(target), None, "has characters the package's font lacks; "
                                   "it was not made from it, so it is left as it is"))
        write_atomic(target, subset_font(source, kept | {ord(c) for c in chars}))
        written.append(project.display(target))
        say(f"wrote {project.display(target)}: added {text_of(chars)} ({len(kept) + len(chars)} characters)")
    licence = project.fonts / "OFL-NotoSansSC.txt"
    if not licence.exists():
        write_atomic(licence, archive.extractfile("package/LICENSE_FONT").read())
        written.append(project.display(licence))
        say(f"wrote {project.display(licence)}: the font's licence (SIL OFL 1.1)")
    return written


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

