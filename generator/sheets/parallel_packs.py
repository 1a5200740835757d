"""An edition's packs made and written by two processes at once.

Once gather has prepared what the packs share (the faces, the rulebook's pages, the first pack),
each pack is made (imposed, its fonts merged) and preflighted on its own, and written to a file
of its own. So with a second core a forked helper (processes.Helper: it shares what the build
has loaded) makes and writes about half the edition's packs, by what they weigh, while the build
makes the others; the packs are said in their order all the same. What the helper did that the build must know comes back with its results: each pack's
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
    changed: bool      # False: every file was left as it was (made again in the same bytes)


WriteOne = Callable[[object, str], tuple]     # (pack, paper) -> (pack.Written, manifest)


def packs_written(todo: list[tuple], write_one: WriteOne, jobs: int,
                  weights: list[float] | None = None) -> Iterator[PackWritten]:
    """Each (pack, paper) of `todo` made and written by `write_one`, yielded in `todo`'s order.
    With `jobs` > 1, a forked helper makes the packs `_shares` gives it (by `weights`: what each
    costs to make, about) meanwhile; a pack made here after one of the helper's waits for it."""
    theirs, helper = set(), None
    if jobs > 1 and len(todo) > 1 and can_fork():
        theirs = _shares(weights or [1] * len(todo))
        try:
            helper = Helper(lambda: pickle.dumps(_made_by_helper([todo[i] for i in sorted(theirs)], write_one)))
        except OSError:             # no process to be had: this one makes them all
            helper, theirs = None, set()
    done: dict[int, tuple] = {}        # index -> (error, pack.Written, manifest), made and not yet yielded
    at = 0                              # the next index to yield
    try:
        for index in [i for i in range(len(todo)) if i not in theirs]:
            done[index] = _made_here(todo[index], write_one)
            while at in done:
                yield _yielded(todo[at], done.pop(at))
                at += 1
            if done.get(index, (None,))[0] is not None:     # refused, after one of the helper's: no more here
                break
        if helper is not None:
            results, helper = _results(helper), None
            for index, (error, written, manifest, read) in zip(sorted(theirs), results or []):
                for name, sha in read.items():           # what it read, for the edition's stamp
                    reads.note_hash(name, sha)
                done[index] = (error, written, manifest)
        for index in range(at, len(todo)):
            if index not in done:                        # a helper that failed: its packs made here
                done[index] = _made_here(todo[index], write_one)
            yield _yielded(todo[index], done.pop(index))
    finally:
        if helper is not None:      # this process failed (or its caller stopped) first
            helper.stop()


def _made_here(one: tuple, write_one: WriteOne) -> tuple:
    try:
        return (None, *write_one(*one))
    except PnpError as error:
        return (error, None, None)


def _yielded(one: tuple, result: tuple) -> PackWritten:
    """A pack's result, in `todo`'s order: a refusal is the build's error there."""
    error, written, manifest = result
    if error is not None:
        raise error
    return PackWritten(*one, written.path, written.report, manifest, written.changed)


def _shares(weights: list[float]) -> set[int]:
    """The packs (by index) the helper makes: each, heaviest first, goes to the process with less
    work so far; the build keeps the first (made ahead, while the faces rendered)."""
    mine, helpers, theirs = weights[0], 0.0, set()
    for index in sorted(range(1, len(weights)), key=lambda i: -weights[i]):
        if helpers < mine or not theirs:
            theirs.add(index)
            helpers += weights[index]
        else:
            mine += weights[index]
    return theirs


def _made_by_helper(todo: list[tuple], write_one: WriteOne) -> list[tuple]:
    """In the helper: (error, pack.Written, manifest, files read) of each pack, up to the first
    that preflight refuses."""
    results = []
    for one in todo:
        with reads.recording() as log:
            made = _made_here(one, write_one)
        results.append((*made, log.files))
        if made[0] is not None:
            break
    return results


def _results(helper: Helper) -> list[tuple] | None:
    data = helper.result()
    try:
        return pickle.loads(data) if data else None
    except (pickle.UnpicklingError, EOFError, ValueError):
        return None
