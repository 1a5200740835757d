"""`pnp build --all` and `--shard I/N`: every game of a catalogue, one process per game.

Each game builds in its own `pnp build GAME` process, a few at once where the machine has the
cores (each with its share of --jobs), so a game that fails, or crashes, stops only itself. The
caller has already said which games are up to date (the stamp check costs milliseconds); the
others are built and one line says how each ended, then a summary.

A shard is one of N stable shares of the catalogue for a CI matrix: every machine computes the
same split from the game ids and the costs recorded in build/<game>/.cost.json (the seconds the
game's last build took), largest first onto the least loaded share, so the shares take about as
long as each other. Machines that restore the same build/ (a CI cache of the last run) see the
same costs and split alike; with no costs known the split is by id alone. Every game is in
exactly one share either way, given the same records.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from generator.source.words import count, pdfs

COST = ".cost.json"
ENGINE_ROOT = Path(__file__).resolve().parent.parent.parent     # the folder holding generator/


@dataclass
class Outcome:
    """How each game of a run ended."""
    built: list[str] = field(default_factory=list)
    current: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    def summary(self) -> str:
        total = len(self.built) + len(self.current) + len(self.failed)
        failed = f" ({', '.join(self.failed)})" if self.failed else ""
        return (f"{count(total, 'game')}: {len(self.built)} built, {len(self.current)} up to date, "
                f"{len(self.failed)} failed{failed}")


def parse_shard(value: str) -> tuple[int, int]:
    """"2/4" → (2, 4); ValueError saying what is wrong otherwise."""
    try:
        index, total = (int(v) for v in value.split("/"))
    except ValueError:
        raise ValueError(f"expected I/N like 2/4, got {value!r}") from None
    if not 1 <= index <= total:
        raise ValueError(f"{value}: I must be between 1 and N")
    return index, total


def read_costs(build: Path, games: list[str]) -> dict[str, float]:
    """The seconds each game's last build took, for the games that have a record."""
    costs = {}
    for game in games:
        try:
            seconds = json.loads((build / game / COST).read_text())["seconds"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if isinstance(seconds, (int, float)) and seconds >= 0:
            costs[game] = float(seconds)
    return costs


def record_cost(build: Path, game: str, seconds: float) -> None:
    from generator.atomic import write_atomic
    write_atomic(build / game / COST, (json.dumps({"seconds": round(seconds, 1)}) + "\n").encode(), durable=False)


def shard(games: list[str], index: int, total: int, costs: dict[str, float]) -> list[str]:
    """The index-th (1-based) of `total` shares of games, balanced by cost (a game with no record
    counts as the median of those that have one), in id order."""
    known = sorted(costs[g] for g in games if g in costs)
    typical = known[len(known) // 2] if known else 1.0
    loads = [0.0] * total
    shares: list[list[str]] = [[] for _ in range(total)]
    for game in sorted(games, key=lambda g: (-costs.get(g, typical), g)):
        lightest = min(range(total), key=lambda i: (loads[i], i))
        loads[lightest] += costs.get(game, typical)
        shares[lightest].append(game)
    return sorted(shares[index - 1])


def workers_for(jobs: int, games: int) -> tuple[int, int]:
    """(games built at once, --jobs of each): two cores a game, at least one game at a time."""
    at_once = max(1, min(games, jobs // 2))
    return at_once, max(1, jobs // at_once)


def build_games(root: Path, games: list[str], args: list[str], jobs: int, outcome: Outcome,
                say: Callable[[str], None], warn: Callable[[str], None], done: int = 0, total: int | None = None) -> None:
    """Build each game in its own process (`args`: the build options to pass on), reporting one
    line per game as it ends and the problems of a failed one; outcome collects the results."""
    total = total or len(games)
    at_once, child_jobs = workers_for(jobs, len(games))
    waiting = list(games)
    running: dict[str, tuple[subprocess.Popen, float]] = {}
    try:
        while waiting or running:
            while waiting and len(running) < at_once:
                game = waiting.pop(0)
                running[game] = (_start(root, game, args, child_jobs), time.monotonic())
            game = _next_finished(running)
            process, started = running.pop(game)
            out, err = process.communicate()
            done += 1
            seconds = time.monotonic() - started
            _report(root, game, process.returncode, out, err, seconds, f"[{done}/{total}]", outcome, say, warn)
    finally:
        for process, _ in running.values():
            process.kill()
            process.wait()


def _start(root: Path, game: str, args: list[str], jobs: int) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ENGINE_ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    command = [sys.executable, "-m", "generator.commands.cli", "--project", str(root), "build", game, *args,
               "--jobs", str(jobs)]
    parent = os.getpid()
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=lambda: _die_with(parent))


def _die_with(parent: int) -> None:
    from generator.processes import die_with_parent
    die_with_parent(parent)


def _next_finished(running: dict) -> str:
    """The first running game whose process has ended (polled: a handful of processes)."""
    while True:
        for game, (process, _) in running.items():
            if process.poll() is not None:
                return game
        time.sleep(0.05)


def _report(root: Path, game: str, code: int, out: str, err: str, seconds: float, position: str,
            outcome: Outcome, say, warn) -> None:
    if code == 0:
        files = [line.split()[1] for line in out.splitlines() if line.startswith("wrote ")]
        say(f"{position} {game}: built in {seconds:.1f} s ({pdfs(files)})")
        record_cost(root / "build", game, seconds)
        outcome.built.append(game)
        return
    lines = [line for line in err.splitlines() if line.strip()] or \
        [f"cards/{game}: its build ended with status {code} and no message"]     # killed, out of memory …
    say(f"{position} {game}: failed ({count(len(lines), 'problem')})")
    for line in lines:
        warn(line)
    outcome.failed.append(game)
