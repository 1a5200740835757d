"""Python's cyclic garbage collector and what a build loads.

A rebuild of a large game loads much that lives as long as the build and holds no reference
cycle: its parsed YAML and the last build's records (the faces index, the sheet, template and
preflight records: megabytes of JSON at 5,000 cards). Every full collection walks all of it again,
finding nothing (at 5,000 cards four or five full collections a rebuild, 0.2–0.3 s). Such a load
runs `loading()`: no collection while it runs, and after it everything loaded so far is out of the
collector's walk (`gc.freeze`, Python's own tool for this).

Frozen objects are still freed by reference counting when the build drops them; only garbage in
a reference cycle that is frozen with them stays until the process ends. A build is its own
process (or a forked request of the build server), so that is the build's end; `pnp watch`, which
builds again and again in one process, collects it after each rebuild (`collect_frozen`).
"""
from __future__ import annotations

import contextlib
import gc
from typing import Iterator


@contextlib.contextmanager
def loading() -> Iterator[None]:
    """A large load that makes no reference cycle: not collected while it runs, then frozen with
    everything before it."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def collect_frozen() -> None:
    """Collect what was frozen and is now garbage, then freeze what is left (a long-lived process
    between builds)."""
    gc.unfreeze()
    gc.collect()
    gc.freeze()
