"""`make bench`: time pnp on the peer workload (deck450) and on every shipped game.

Every run is a fresh `pnp` process, start-up included, as in the peer's figures. For each
run we record the wall time and the peak memory of the whole process tree: pnp and its
render workers, sampled every 25 ms, each process's proportional set size (PSS: a page
shared by the forked workers and their parent counts once in total, not once in each).
The sum of their resident sizes (RSS, shared pages counted in every process) is printed
too. A run is repeated and the median reported. Nothing here is asserted: the table compares the figures, as ratios, with
the peer's (../shared/bench/README.md, measured on this kind of machine).

The runs work on throw-away copies of bench/ and of the main project, so the repository
is never touched; `--keep DIR` leaves the copies there to look at.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path

import pikepdf
import psutil

ROOT = Path(__file__).resolve().parent.parent
PNP = [sys.executable, "-m", "generator"]
PROJECT_PARTS = ("cards", "templates", "fonts", "icons")

# The peer (Squib 0.20.0a, 2 cores), from ../shared/bench/README.md.
PEER = {"pdf": (7.7, 1670), "png": (10.8, 1660), "one": (0.43, 71), "start": (0.16, 32)}
PEER_PDF_MB = 26.6


@dataclass
class Run:
    seconds: float
    peak_mb: float           # summed PSS
    output: str
    peak_rss_mb: float = 0.0   # summed RSS


def measure(args: list[str], cwd: Path) -> Run:
    """Run a command; its wall time and the peak summed RSS of it and its children."""
    start = time.perf_counter()
    proc = psutil.Popen(args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    peak = [0, 0]
    done = threading.Event()

    def sample():
        while not done.is_set():
            try:
                pss, rss = tree_memory(proc)
                peak[0], peak[1] = max(peak[0], pss), max(peak[1], rss)
            except psutil.Error:
                pass
            done.wait(0.025)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    output, _ = proc.communicate()
    seconds = time.perf_counter() - start
    done.set()
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"bench: {' '.join(args)} failed ({proc.returncode}):\n{output}")
    return Run(seconds, peak[0] / 1e6, output, peak[1] / 1e6)


def tree_memory(proc) -> tuple[int, int]:
    """(summed PSS, summed RSS) in bytes of a process and all its children, read from
    /proc/PID/smaps_rollup (cheap enough to sample often without slowing what is measured)."""
    pss = rss = 0
    for p in [proc] + proc.children(recursive=True):
        try:
            with open(f"/proc/{p.pid}/smaps_rollup") as handle:
                fields = dict(line.split(":", 1) for line in handle if line[:4] in ("Rss:", "Pss:"))
        except OSError:
            continue
        pss += int(fields.get("Pss", "0 kB").split()[0]) * 1024
        rss += int(fields.get("Rss", "0 kB").split()[0]) * 1024
    return pss, rss


def median(runs: list[Run]) -> Run:
    ordered = sorted(runs, key=lambda r: r.seconds)
    middle = ordered[len(ordered) // 2]
    return Run(statistics.median(r.seconds for r in runs), max(r.peak_mb for r in runs), middle.output,
               max(r.peak_rss_mb for r in runs))


def copy_project(source: Path, target: Path) -> Path:
    target.mkdir(parents=True)
    for part in PROJECT_PARTS:
        if (source / part).is_dir():
            shutil.copytree(source / part, target / part)
    return target


def pnp(project: Path, *args: str) -> list[str]:
    return PNP + ["--project", str(project), *args]


def cold(project: Path, args: list[str], repeat: int) -> Run:
    runs = []
    for _ in range(repeat):
        shutil.rmtree(project / "build", ignore_errors=True)
        runs.append(measure(args, ROOT))
    return median(runs)


def warm(args: list[str], repeat: int, before=None) -> Run:
    runs = []
    for i in range(repeat):
        if before:
            before(i)
        runs.append(measure(args, ROOT))
    return median(runs)


def pdf_facts(path: Path) -> str:
    from generator.check.pdfread import fonts, images
    with pikepdf.open(path) as pdf:
        embedded = sum(1 for f in fonts(pdf).values() if f.embedded)
        rasters = len(images(pdf))
        pages = len(pdf.pages)
    return (f"{pages} pages, {path.stat().st_size / 1e6:.2f} MB, {embedded} embedded fonts (vector text), "
            f"{rasters} raster images")


def watch_latency(project: Path, cards: Path, repeat: int) -> Run:
    """Seconds from saving a changed card to `pnp watch` reporting the rebuilt PDF (the
    designer's edit loop: libraries stay loaded between saves)."""
    proc = psutil.Popen(pnp(project, "watch", "deck450", "--paper", "a4"), cwd=ROOT, stdout=subprocess.PIPE,
                        stderr=subprocess.STDOUT, text=True, bufsize=1)
    try:
        _wait_for(proc, "watching")
        times, peak = [], 0
        for i in range(repeat):
            time.sleep(0.3)
            started = time.perf_counter()
            change_title(cards, 100 + i)
            line = _wait_for(proc, "rebuilt")
            times.append(time.perf_counter() - started)
            peak = max(peak, tree_memory(proc)[0])
            if "1 faces re-rendered" not in line:
                raise SystemExit(f"bench: watch rebuilt something unexpected: {line}")
        return Run(statistics.median(times), peak / 1e6, line)
    finally:
        proc.terminate()
        proc.wait(10)


def _wait_for(proc, word: str, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"bench: pnp watch ended before saying '{word}'")
        if word in line:
            return line.strip()
    raise SystemExit(f"bench: pnp watch did not say '{word}' within {timeout} s")


def change_title(cards: Path, round_: int) -> None:
    """Edit one card's title (a different text each round, so every round has a change)."""
    text = cards.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    index = next(i for i, line in enumerate(lines) if "id: c225," in line)
    lines[index] = f'  - {{id: c225, title: "第225张 Card 225 改{round_}", body: ' + lines[index].split(", body: ", 1)[1]
    cards.write_text("".join(lines), encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure (median); default 3")
    ap.add_argument("--keep", type=Path, help="work in this folder and keep it")
    ap.add_argument("--skip-games", action="store_true", help="only the deck450 figures")
    args = ap.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="pnp-bench-"))
    if args.keep and work.exists():
        shutil.rmtree(work)
    try:
        run_all(work, args.repeat, args.skip_games)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


def run_all(work: Path, repeat: int, skip_games: bool) -> None:
    deck = copy_project(ROOT / "bench", work / "bench")
    rows = []
    print(f"pnp benchmark: {os.cpu_count()} cores, median of {repeat}; working in {work}", flush=True)

    start = warm(PNP + ["--version"], repeat)
    rows.append(("start-up (pnp --version)", start, PEER["start"], None))

    pdf_args = pnp(deck, "build", "deck450", "--paper", "a4")
    pdf = cold(deck, pdf_args, repeat)
    facts = pdf_facts(deck / "build/deck450/deck450-all-a4.pdf")
    rows.append(("deck450 → A4 PDF, cold", pdf, PEER["pdf"], "≤ 0.5 × peer time, ≤ 250 MB"))

    png = cold(deck, pnp(deck, "export", "deck450", "--shop", "png", "--dpi", "300"), repeat)
    with zipfile.ZipFile(deck / "build/deck450/deck450-all-png-300dpi.zip") as archive:
        pngs = [n for n in archive.namelist() if n.endswith(".png")]
    rows.append((f"deck450 → {len(pngs)} PNGs at 300 dpi, cold", png, PEER["png"], None))

    measure(pdf_args, ROOT)                       # warm the cache for the edits below
    cards = deck / "cards/deck450/cards.yaml"
    original = cards.read_text(encoding="utf-8")
    one = warm(pdf_args, repeat, before=lambda i: change_title(cards, i))
    rows.append(("deck450, one card's text changed → full PDF", one, PEER["pdf"], "≤ 0.1 × peer full rebuild"))
    same = warm(pdf_args, repeat)
    rows.append(("deck450, nothing changed", same, None, "≤ 0.5 s"))
    watched = watch_latency(deck, cards, repeat)
    rows.append(("deck450, one card changed, pnp watch: save → PDF", watched, PEER["pdf"], "≤ 0.1 × peer full rebuild"))
    cards.write_text(original, encoding="utf-8")

    if not skip_games:
        games = copy_project(ROOT, work / "games")
        kit = pnp(games, "build")
        all_cold = cold(games, kit, max(1, repeat - 1))
        rows.append(("3 games, every pack, A4 + Letter, cold", all_cold, None, "≤ 60 s"))
        all_warm = warm(kit, repeat)
        rows.append(("3 games, every pack, A4 + Letter, warm", all_warm, None, None))
        touched = games / "cards/cephiro-pillar/oaths.yaml"
        all_touch = warm(kit, repeat, before=lambda i: touched.write_text(
            touched.read_text(encoding="utf-8") + f"\n# edit {i}\n", encoding="utf-8"))
        rows.append(("3 games, one file touched (comment), rebuild", all_touch, None, None))

    print_table(rows)
    print(f"\ndeck450 PDF: {facts} (peer: {PEER_PDF_MB} MB of raster images; target ≤ 6.6 MB, vector text)")
    print(verdicts(pdf, one, watched, same, rows, deck / "build/deck450/deck450-all-a4.pdf"))


def print_table(rows) -> None:
    print(f"\n{'run':<50} {'wall s':>7} {'PSS MB':>7} {'RSS MB':>7} {'peer s':>7} {'ratio':>6}  target")
    print("-" * 112)
    for name, run, peer, target in rows:
        peer_s = f"{peer[0]:.2f}" if peer else ""
        ratio = f"{run.seconds / peer[0]:.2f}" if peer else ""
        rss = f"{run.peak_rss_mb:.0f}" if run.peak_rss_mb else ""
        print(f"{name:<50} {run.seconds:>7.2f} {run.peak_mb:>7.0f} {rss:>7} {peer_s:>7} {ratio:>6}  {target or ''}")


def verdicts(pdf: Run, one: Run, watched: Run, same: Run, rows, pdf_path: Path) -> str:
    peer_pdf = PEER["pdf"][0]
    size = pdf_path.stat().st_size / 1e6
    checks = [
        ("cold PDF ≤ 0.5 × peer", pdf.seconds <= 0.5 * peer_pdf, f"{pdf.seconds / peer_pdf:.2f} ×"),
        ("cold PDF memory ≤ 250 MB (PSS)", pdf.peak_mb <= 250,
         f"{pdf.peak_mb:.0f} MB PSS ({pdf.peak_rss_mb:.0f} MB summed RSS)"),
        ("cold PDF file ≤ 6.6 MB", size <= 6.6, f"{size:.2f} MB"),
        ("one change, pnp build ≤ 0.1 × peer full rebuild", one.seconds <= 0.1 * peer_pdf,
         f"{one.seconds / peer_pdf:.2f} ×"),
        ("one change, pnp watch ≤ 0.1 × peer full rebuild", watched.seconds <= 0.1 * peer_pdf,
         f"{watched.seconds / peer_pdf:.2f} ×"),
        ("no change ≤ 0.5 s", same.seconds <= 0.5, f"{same.seconds:.2f} s"),
    ]
    games = next((r for r in rows if r[0].startswith("3 games") and "cold" in r[0]), None)
    if games:
        checks.append(("3 games cold ≤ 60 s", games[1].seconds <= 60, f"{games[1].seconds:.1f} s"))
    return "\n".join(f"  {'met ' if ok else 'MISSED'}  {name}: {value}" for name, ok, value in checks)


if __name__ == "__main__":
    main()
