"""The no-change fast path: a build that would write exactly what is there already is skipped.

After a build, build/<game>/.stamp.json records a hash of everything the packs are made from
(the game's folder, every template, font and icon, pnp.toml, the engine's own source and the
versions of the libraries that draw) together with the settings asked for, and the size and
modification time of every file written. The next `pnp build` with the same hash and
untouched outputs says "up to date" and stops, before loading any heavy library.
This module must stay light: it runs before anything else is imported.
"""
from __future__ import annotations

import hashlib
import json
import os
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

STAMP = ".stamp.json"
LIBRARIES = ("weasyprint", "pydyf", "pikepdf", "reportlab", "uharfbuzz", "jinja2", "pyyaml", "pydantic",
             "pillow", "svglib", "fonttools")
ENGINE = Path(__file__).resolve().parent.parent      # the whole generator/ package


def inputs_hash(root: Path, game_id: str, settings: dict) -> str:
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True, default=str).encode())
    for name in LIBRARIES:
        try:
            digest.update(f"{name}={version(name)}".encode())
        except PackageNotFoundError:
            digest.update(f"{name}=-".encode())
    folders = [root / "cards" / game_id, root / "templates", root / "fonts", root / "icons", ENGINE]
    for folder in folders:
        for path in _files(folder):
            digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
    config = root / "pnp.toml"
    if config.is_file():
        digest.update(config.read_bytes())
    return digest.hexdigest()


def _files(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    found = []
    for base, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__" and not d.startswith("."))
        found += [Path(base) / f for f in sorted(files) if not f.startswith(".") and not f.endswith(".pyc")]
    return found


def _signature(path: Path) -> list[int] | None:
    try:
        info = path.stat()
    except OSError:
        return None
    return [info.st_size, info.st_mtime_ns]


def up_to_date(root: Path, game_id: str, inputs: str) -> list[str] | None:
    """The files of the last build when it was made from exactly these inputs (an
    inputs_hash) and none of them has changed since; None when the game must be built."""
    path = root / "build" / game_id / STAMP
    try:
        stamp = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if stamp.get("inputs") != inputs:
        return None
    outputs = stamp.get("outputs", {})
    if not outputs or any(_signature(root / name) != sig for name, sig in outputs.items()):
        return None
    return sorted(outputs)


def record(root: Path, game_id: str, written: list[str], inputs: str) -> None:
    """Remember a finished build (`inputs` is the hash taken before it started, so an edit
    made while it ran is seen by the next build)."""
    from generator.atomic import write_atomic
    names = list(written) + [str(Path(n).with_suffix(".json")) for n in written
                             if (root / Path(n).with_suffix(".json")).is_file()]
    outputs = {name: _signature(root / name) for name in names}
    data = {"inputs": inputs, "outputs": outputs}
    write_atomic(root / "build" / game_id / STAMP, (json.dumps(data, indent=1, sort_keys=True) + "\n").encode(),
                 durable=False)
