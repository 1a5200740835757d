"""The face cache: one canonical PDF per rendered card face, named by a hash of everything
that decides how it looks.

A face's key covers the engine (the source of the rendering code and the renderer's version),
the template's output for that card (so its data and every template it includes), every
stylesheet, the card's geometry, and the bytes of exactly the font files and icons the face
uses. Change a card and only its key changes; change a font and only the faces that draw
with it change. Entries are written to a temporary file and renamed, so two builds at once,
or a build killed halfway, never leave a broken entry.
"""
from __future__ import annotations

import functools
import hashlib
import re
from pathlib import Path

import pikepdf

from generator import __version__
from generator.atomic import write_atomic
from generator.source.project import Project

ENGINE_SOURCES = ["render/cards.py", "render/html.py", "render/canonical.py", "render/info.py", "render/weasy.py",
                  "source/markup.py", "source/assets.py", "render/cache.py"]
ICON_URL = re.compile(r'src="(icons/[^"]+)"')


@functools.lru_cache(maxsize=1)
def engine_fingerprint() -> str:
    from importlib.metadata import version
    libraries = "|".join(version(name) for name in ("weasyprint", "pydyf", "pikepdf", "uharfbuzz"))
    digest = hashlib.sha256(f"{__version__}|{libraries}".encode())
    package = Path(__file__).parent.parent
    for name in ENGINE_SOURCES:
        digest.update((package / name).read_bytes())
    return digest.hexdigest()


class FileHashes:
    """Content hashes of project files, read once per run."""

    def __init__(self, project: Project):
        self.project = project
        self._hashes: dict[str, str] = {}
        self._icons: dict[str, str] = {}

    def of(self, path: Path) -> str:
        key = str(path)
        if key not in self._hashes:
            self._hashes[key] = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        return self._hashes[key]

    def icons_in(self, html: str) -> list[str]:
        out = []
        for url in sorted(set(ICON_URL.findall(html))):
            if url not in self._icons:
                self._icons[url] = f"{url}:{self.of(self.project.root / url)}"
            out.append(self._icons[url])
        return out


class FaceCache:
    def __init__(self, project: Project):
        self.root = project.build / ".cache" / "faces"

    def path(self, key: str) -> Path:
        return self.root / key[:2] / f"{key}.pdf"

    def get(self, key: str) -> pikepdf.Pdf | None:
        path = self.path(key)
        if not path.is_file():
            return None
        try:
            return pikepdf.open(path, attempt_recovery=False)   # a torn entry is missing, not "repaired"
        except pikepdf.PdfError:        # a damaged entry is treated as missing, then replaced
            return None

    def put(self, key: str, data: bytes) -> None:
        write_atomic(self.path(key), data, durable=False)
