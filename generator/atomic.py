"""Write files so that a reader (or a killed build) never sees half of one.

Data goes to a temporary file in the target folder, is flushed to disk, then renamed
over the target in one step (os.replace is atomic on one file system).
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes, durable: bool = True) -> None:
    commit(stage(path, data, durable), path)


def stage(path: Path, data: bytes, durable: bool = True) -> Path:
    """Write data to a temporary file beside path; return its name. `durable` flushes it to
    disk first, so it survives a power cut, not only a killed process (costly per file,
    so caches, which a later build can rebuild, skip it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def commit(tmp: Path, path: Path) -> None:
    """Put a staged file in place in one step."""
    os.replace(tmp, path)
