"""Python's cyclic garbage collector and what a build loads.

A rebuild of a large game loads much that lives as long as the build and holds no reference
cycle: its parsed YAML and the last build's records (the faces index, the sheet, template and
preflight records: megabytes of JSON at 5,000 cards). Every full collection walks all of it again,
finding nothing (at 5,000 cards four or five full collections a rebuild, 0.2–0.3 s). A load of
LARGE bytes or more runs with no collection, and after it everything loaded so far is out of the
collector's walk (`gc.freeze`, Python's own tool for this).

Frozen objects are still freed by reference counting when the build drops them; but garbage in a
reference cycle that is frozen with them (a page layout rendered just before) stays until the
process ends. Hence only large loads freeze: a few a build, and none in a cold build of a small
game (freezing at every face's cache record kept 640 MB of WeasyPrint's garbage in a build of the
shipped games, instead of 215 MB). `pnp watch`, which builds again and again in one process,
collects what it froze after each rebuild (`collect_frozen`).
"""
from __future__ import annotations

import contextlib
import gc
from typing import Iterator


LARGE = 512 * 1024      # bytes of YAML or JSON: a 5,000-card game's card file and records are 0.6–3 MB
_KEPT: dict[str, object] = {}

# Python collects its youngest objects every 700 net allocations of containers. A build's
# allocations mostly live as long as it does (cards, their plain copies for templates, faces,
# records) and few make cycles, so each collection walks young objects it cannot free, and again
# when they are a generation older: a one-card rebuild of 5,000 cards collected 240 times (14 ms
# in the collector, ~35 ms of the rebuild with the caches it evicts; 450 cards: 50 times, ~7 ms).
# A build collects every BUILD_YOUNG allocations instead; what a render worker draws (WeasyPrint's
# layouts are full of cycles) is collected as Python does by default.
BUILD_YOUNG = 100_000
PYTHON_DEFAULT = (700, 10, 10)


@contextlib.contextmanager
def building() -> Iterator[None]:
    """A build (also a decorator): the youngest generation collected every BUILD_YOUNG
    allocations; the thresholds as they were afterwards."""
    before = gc.get_threshold()
    gc.set_threshold(BUILD_YOUNG, *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def collect_less_often() -> None:
    """For the rest of this process, a command that ends with its build: building()'s threshold,
    so that it has nothing to put back. Putting Python's back makes the next allocation collect all
    the build allocated since its last collection (at the end of a cold deck450 build, 30 ms) for a
    process about to exit."""
    gc.set_threshold(BUILD_YOUNG, *gc.get_threshold()[1:])


def as_python_collects() -> None:
    """Python's default thresholds (a process forked from a build that makes much garbage)."""
    gc.set_threshold(*PYTHON_DEFAULT)


@contextlib.contextmanager
def loading(size: int) -> Iterator[None]:
    """A load of `size` bytes that makes no reference cycle: when it is large, not collected
    while it runs, then frozen with everything before it."""
    if size < LARGE:
        yield
        return
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def keep_till_exit(what: str, done) -> None:
    """Hold something large the build is done with until the process ends, instead of freeing it
    now: freeing the last pack a rebuild worked on (its parsed PDF and record) visits each of its
    objects, 13–35 ms of a one-card rebuild at 5,000 cards, and a command's process ends with
    os._exit, which frees nothing one by one. One thing of each kind (`what`) at a time, the next
    replacing it, so a process that builds again and again does not grow; `pnp watch` lets them
    go after each rebuild (collect_frozen)."""
    _KEPT[what] = done


def collect_frozen() -> None:
    """Collect what was frozen and is now garbage, then freeze what is left (a long-lived process
    between builds)."""
    _KEPT.clear()
    gc.unfreeze()
    gc.collect()
    gc.freeze()
