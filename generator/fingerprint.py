"""The engine's fingerprint: one hash of every file of the engine package (its code, its built-in
templates and catalogues) and of the versions of the libraries that shape what it writes.

Every stored artifact's key (build/.cache/) and the up-to-date stamp include it, so an edited engine or
an upgraded library never takes what another one made, and no hand-kept list decides which engine
files matter: all of them do. Hashing the package (~100 files) costs a few milliseconds, once a
process.
"""
from __future__ import annotations

import functools
import hashlib
import os
from pathlib import Path

from generator.versions import version

ENGINE = Path(__file__).resolve().parent           # the whole generator/ package
LIBRARIES = ("weasyprint", "pydyf", "pikepdf", "reportlab", "uharfbuzz", "jinja2", "pyyaml", "pydantic",
             "pillow", "svglib", "fonttools", "markdown-it-py", "ezdxf", "babel", "pypdfium2")


@functools.cache
def engine_fingerprint() -> str:
    digest = hashlib.sha256()
    for name in LIBRARIES:
        digest.update(f"{name}={version(name) or '-'}\0".encode())
    for path in engine_files():
        digest.update(path.relative_to(ENGINE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def engine_files() -> list[Path]:
    """Every file of the engine package but compiled bytecode, in a fixed order."""
    found = []
    for base, dirs, files in os.walk(ENGINE):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        found += [Path(base) / f for f in sorted(files) if not f.startswith(".") and not f.endswith(".pyc")]
    return found
