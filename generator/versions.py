"""Installed library versions, read from the names of their `*.dist-info` folders.

`importlib.metadata.version` parses each library's METADATA file with the email parser
(about 5 ms a library); the cache keys and the up-to-date stamp ask for a dozen on every
run, before anything is drawn. The folder name (`weasyprint-70.0.dist-info`) says the same
for wheels installed by pip; anything else falls back to importlib.metadata.
"""
from __future__ import annotations

import functools
import os
import re
import sys


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


@functools.cache
def _installed() -> dict[str, str]:
    found: dict[str, str] = {}
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith(".dist-info") and "-" in name:
                project, _, version = name[:-len(".dist-info")].rpartition("-")
                found.setdefault(_normal(project), version)      # the first on sys.path wins, as for imports
    return found


def version(name: str) -> str | None:
    """The installed version of a distribution, or None when it is not installed."""
    known = _installed().get(_normal(name))
    if known is not None:
        return known
    from importlib.metadata import PackageNotFoundError, version as metadata_version
    try:
        return metadata_version(name)
    except PackageNotFoundError:
        return None
