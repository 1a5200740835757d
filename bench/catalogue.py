"""`make bench CATALOGUE=1` (or `python bench/catalogue.py`): a publisher's catalogue of 100 small
games built with `pnp build --all`, timed cold, with one game changed, with nothing changed, split
into 4 shards (each shard in its own copy of the project, as on four CI machines that restored the
last run's build records), the shards' outputs assembled into one build/ and `pnp site` over them,
and a build/ copied to another folder (another machine's) with one game changed.

Each game: 9 distinct cards (deck450's template, CJK text and an SVG icon), printed twice, on A4,
one pack and the rulebook-free kit; games differ in title, player count and cards. For each run:
wall time, CPU time (user + system of pnp and every process it started) and the peak memory of
the whole process tree (summed PSS, sampled every 25 ms). Nothing is asserted; the figures go to
docs/speed.md by hand.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"
sys.path.insert(0, str(BENCH))
import make_deck  # noqa: E402  (the deck450 card rows)

PNP = [sys.executable, "-m", "generator.commands.cli"]
GAMES = 100
CARDS = 9
GAME = """# A catalogue benchmark game written by bench/catalogue.py.
id: {game}
title: 书架游戏 {number}
description: 基准书架上的第 {number} 个小游戏。
time: "{time}"
card:
  size: poker
  bleed: 3.175
  safe: 3
css: [deck450/card.css]
decks: [cards.yaml]
packs:
  - players: {players}
    decks:
      cards: {{count: {printed}}}
"""


def write_catalogue(project: Path, games: int) -> list[str]:
    """A project of `games` small games with bench's templates, fonts and icons."""
    for part in ("templates", "fonts", "icons"):
        shutil.copytree(BENCH / part, project / part)
    names = []
    for number in range(games):
        game = f"shelf-{number:03d}"
        folder = project / "cards" / game
        folder.mkdir(parents=True)
        (folder / "game.yaml").write_text(GAME.format(game=game, number=number, time=f"{15 + number % 4 * 15}",
                                                      players=2 + number % 4, printed=2 * (CARDS + number % 3)), encoding="utf-8")
        (folder / "rules.py").write_text(make_deck.RULES, encoding="utf-8")
        rows = make_deck.cards_yaml(CARDS + number % 3, f"{game}, written by bench/catalogue.py.", copies=2)
        (folder / "cards.yaml").write_text(rows.replace("第", f"{number}·第"), encoding="utf-8")
        names.append(game)
    return names


def measure(args: list[str], cwd: Path) -> tuple[float, float, float, str]:
    """(wall seconds, CPU seconds, peak summed PSS in MB, output) of a command and its children."""
    env = {**os.environ, "PNP_SERVER": "0", "CI": "1", "PYTHONPATH": str(ROOT)}
    before = os.times()
    start = time.perf_counter()
    proc = psutil.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    peak = [0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            total = 0
            try:
                for p in [proc] + proc.children(recursive=True):
                    try:
                        with open(f"/proc/{p.pid}/smaps_rollup") as handle:
                            total += next(int(line.split()[1]) for line in handle if line.startswith("Pss:")) * 1024
                    except (OSError, StopIteration):
                        pass
            except psutil.Error:
                pass
            peak[0] = max(peak[0], total)
            done.wait(0.025)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    output, _ = proc.communicate()
    seconds = time.perf_counter() - start
    done.set()
    sampler.join()
    after = os.times()
    cpu = after.children_user - before.children_user + after.children_system - before.children_system
    return seconds, cpu, peak[0] / 1e6, output


def build_all(project: Path, *extra: str) -> list[str]:
    return PNP + ["--project", str(project), "build", *extra, "--paper", "a4"]


def run(work: Path, games: int) -> list[tuple[str, float, float, float, str]]:
    rows = []

    def row(label: str, args: list[str], cwd: Path) -> str:
        seconds, cpu, peak, output = measure(args, cwd)
        summary = output.strip().splitlines()[-1] if output.strip() else ""
        rows.append((label, seconds, cpu, peak, summary))
        print(f"{label}: {seconds:.1f} s wall, {cpu:.1f} s CPU, {peak:.0f} MB peak — {summary}", flush=True)
        return output

    project = work / "catalogue"
    names = write_catalogue(project, games)
    row(f"cold, {games} games", build_all(project, "--all"), project)
    cards = project / "cards" / names[games // 2] / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("Card 1\"", "Card 1 (changed)\"", 1), encoding="utf-8")
    row("one game changed", build_all(project, "--all"), project)
    row("nothing changed", build_all(project, "--all"), project)
    shards = []
    for index in range(1, 5):                 # four machines, each with the last run's cost records only
        machine = work / f"machine-{index}"
        shutil.copytree(project, machine, ignore=shutil.ignore_patterns("*.pdf", "*.json", ".cache", "site"))
        for game in names:
            shutil.copy2(project / "build" / game / ".cost.json", machine / "build" / game / ".cost.json")
        output = row(f"shard {index}/4, cold", build_all(machine, "--shard", f"{index}/4"), machine)
        shards.append((machine, output.splitlines()[0]))
    assembled = work / "assembled"
    shutil.copytree(project, assembled, ignore=shutil.ignore_patterns("build"))
    for machine, _ in shards:
        for folder in (machine / "build").iterdir():
            if folder.is_dir() and not folder.name.startswith(".") and any(folder.glob("*.pdf")):
                shutil.copytree(folder, assembled / "build" / folder.name)
    built = sorted(p.parent.name for p in (assembled / "build").glob("*/*-a4.pdf"))
    print(f"assembled: {len(set(built))} games from 4 shards, {len(built)} packs", flush=True)
    row("pnp site over the assembled build/", PNP + ["--project", str(assembled), "site"], assembled)
    moved = work / "another-machine"
    shutil.copytree(project, moved, symlinks=True)
    cards = moved / "cards" / names[1] / "cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8").replace("Card 2\"", "Card 2 (moved)\"", 1), encoding="utf-8")
    row("build/ copied to another folder, one game changed", build_all(moved, "--all"), moved)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=GAMES, help=f"games in the catalogue (default {GAMES})")
    ap.add_argument("--keep", type=Path, help="work in this folder and keep it")
    args = ap.parse_args()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=False)
        rows = run(args.keep, args.games)
    else:
        with tempfile.TemporaryDirectory(prefix="pnp-catalogue-") as folder:
            rows = run(Path(folder), args.games)
    print("\n| run | wall | CPU | peak memory (PSS) |\n|---|---|---|---|")
    for label, seconds, cpu, peak, _ in rows:
        print(f"| {label} | {seconds:.1f} s | {cpu:.1f} s | {peak:.0f} MB |")


if __name__ == "__main__":
    main()
