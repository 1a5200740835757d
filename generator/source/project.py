"""Where a project's folders are, and the process-wide set-up rendering needs.

A project folder holds cards/, templates/, fonts/, icons/ and build/ (`--project DIR`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from generator.atomic import unlink_cache_links
from generator.errors import PnpError, Problem
from generator.source import reads

# Templates every project shares (card.css, the info page …). A project's own
# templates/base/<file> overrides one of them.
ENGINE_TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


@dataclass(frozen=True)
class Project:
    root: Path

    @classmethod
    def at(cls, folder: str | os.PathLike) -> "Project":
        """The project holding `folder`: the nearest folder with a cards/, from `folder` up (as git
        finds its repository), so pnp works from cards/<game>/ or templates/ too."""
        root = find_root(folder)
        if root is None:
            raise PnpError(Problem(str(folder), None, "no cards/ folder here or in any folder above",
                                   "run ./pnp inside a project, pass --project DIR, or start one with ./pnp new NAME"))
        return cls(root)

    @property
    def cards(self) -> Path:
        return self.root / "cards"

    @property
    def templates(self) -> Path:
        return self.root / "templates"

    @property
    def fonts(self) -> Path:
        return self.root / "fonts"

    @property
    def icons(self) -> Path:
        return self.root / "icons"

    @property
    def build(self) -> Path:
        return self.root / "build"

    def template_roots(self) -> list[Path]:
        return [self.templates, ENGINE_TEMPLATES]

    def template(self, name: str) -> Path | None:
        """A template or stylesheet by its name under templates/ (the project's first, then
        the engine's); None when there is none, or the name leads outside those folders."""
        for root in self.template_roots():
            path = (root / name).resolve()
            reads.looked_up(path)
            if path.is_relative_to(root.resolve()) and path.is_file():
                return path
        return None

    def contains(self, path: Path) -> bool:
        """True when path, with every symbolic link followed, is inside the project folder."""
        try:
            return Path(path).resolve().is_relative_to(self.root)
        except (OSError, RuntimeError, ValueError):       # a link loop, a name the system refuses
            return False

    def games(self) -> list[str]:
        return sorted(p.parent.name for p in self.cards.glob("*/game.yaml"))

    def display(self, path: Path) -> str:
        """A path as the designer sees it: relative to the project folder."""
        try:
            return str(Path(path).resolve().relative_to(self.root))
        except ValueError:
            return str(path)

    def readable_roots(self) -> list[Path]:
        """The only folders rendering may read from (no network, nothing outside)."""
        return [self.templates, ENGINE_TEMPLATES, self.fonts, self.icons, self.cards, self.art_cache]

    @property
    def art_cache(self) -> Path:
        """Card pictures cropped and scaled for print (render/art.py)."""
        return self.build / ".cache" / "art"


def find_root(folder: str | os.PathLike) -> Path | None:
    """The nearest folder holding cards/, from `folder` up to the file system's root; None if none."""
    start = Path(folder).resolve()
    return next((d for d in (start, *start.parents) if (d / "cards").is_dir()), None)


def isolate_fonts(project: Project) -> None:
    """Give fontconfig no fonts of its own, before pango/weasyprint load: pages draw only with the
    bundled fonts their @font-face rules name, which WeasyPrint copies for the process.

    Without this, text that the bundled fonts cannot draw would silently fall back to
    whatever fonts this machine has, and the same input would print differently on
    another machine. The project's fonts/ folder is not listed either: pango would map its files
    for as long as the process lives (and take them before WeasyPrint's copies), and a font
    file rewritten in place meanwhile (an editor, a sync tool) ends a process that has it
    mapped with SIGBUS, no error line. The copies are the process's own.
    """
    cache = project.build / ".cache" / "fontconfig"
    conf = cache / "fonts.conf"
    unlink_cache_links(conf)        # (fontconfig writes its own cache there: never through a link)
    cache.mkdir(parents=True, exist_ok=True)
    text = (
        '<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n'
        f"  <cachedir>{cache}</cachedir>\n</fontconfig>\n"
    )
    if not conf.exists() or conf.read_text() != text:
        conf.write_text(text)
    os.environ["FONTCONFIG_FILE"] = str(conf)
