"""An edition's packs made and written by two processes at once.

Once gather has prepared what the packs share (the faces, the rulebook's pages, the first pack),
each pack is made (imposed, its fonts merged) and preflighted on its own, and written to a file
of its own. So with a second core a forked helper (processes.Helper: it shares what the build
has loaded) makes and writes the second half of the edition's packs while the build makes the
first. What the helper did that the build must know comes back with its results: each pack's
file, preflight's report and manifest, and the files it read with their hashes (the edition's
stamp covers them). A helper that fails in any way (no process to fork, killed, a bug) leaves
its packs to the build, which makes them as it would alone; a pack preflight refuses in the
helper is the build's error, reported after the packs before it are.
"""
from __future__ import annotations

import pickle
from dataclasses import dataclass
from typing import Callable, Iterator

from generator.errors import PnpError
from generator.processes import Helper, can_fork
from generator.source import reads


@dataclass
class PackWritten:
    pack: object
    paper: str
    path: str          # as displayed
    report: object     # preflight's Report
    manifest: dict


WriteOne = Callable[[object, str], tuple]     # (pack, paper) -> (path, report, manifest)


def packs_written(todo: list[tuple], write_one: WriteOne, jobs: int,
                  weights: list[float] | None = None) -> Iterator[PackWritten]:
    """Each (pack, paper) of `todo` made and written by `write_one`, yielded in `todo`'s order.
    With `jobs` > 1, the packs after the first half (by `weights`: what each costs to make, about)
    are made by a forked helper meanwhile."""
    half, helper = len(todo), None
    if jobs > 1 and len(todo) > 1 and can_fork():
        half = _half(weights or [1] * len(todo))
        try:
            helper = Helper(lambda: pickle.dumps(_made_by_helper(todo[half:], write_one)))
        except OSError:             # no process to be had: this one makes them all
            helper = None
    mine = todo[:half] if helper else todo
    try:
        for pack, paper in mine:
            yield PackWritten(pack, paper, *write_one(pack, paper))
        if helper is None:
            return
        results, helper = _results(helper), None
        done = 0
        for (pack, paper), (error, path, report, manifest, read) in zip(todo[half:], results or []):
            for name, sha in read.items():           # what it read, for the edition's stamp
                reads.note_hash(name, sha)
            if error is not None:
                raise error
            done += 1
            yield PackWritten(pack, paper, path, report, manifest)
        for pack, paper in todo[half + done:]:       # a helper that failed: its packs made here
            yield PackWritten(pack, paper, *write_one(pack, paper))
    finally:
        if helper is not None:      # this process failed (or its caller stopped) first
            helper.stop()


def _half(weights: list[float]) -> int:
    """How many packs from the front weigh closest to half of them all (at least one, and one left)."""
    total = sum(weights)
    fronts = [sum(weights[:k]) for k in range(1, len(weights))]
    return 1 + min(range(len(fronts)), key=lambda i: abs(2 * fronts[i] - total))


def _made_by_helper(todo: list[tuple], write_one: WriteOne) -> list[tuple]:
    """In the helper: (error, path, report, manifest, files read) of each pack, up to the first
    that preflight refuses."""
    results = []
    for pack, paper in todo:
        with reads.recording() as log:
            try:
                results.append((None, *write_one(pack, paper), log.files))
            except PnpError as error:
                results.append((error, None, None, None, log.files))
                break
    return results


def _results(helper: Helper) -> list[tuple] | None:
    data = helper.result()
    try:
        return pickle.loads(data) if data else None
    except (pickle.UnpicklingError, EOFError, ValueError):
        return None
