"""`pnp watch [GAME]`: rebuild on every save and say what was rebuilt.

One process stays up, so the libraries stay loaded and the face cache does the rest: a
changed card costs its own render plus assembling the packs. A change under cards/<game>/
or templates/<game>/ rebuilds that game; a change to fonts, icons, shared templates or
pnp.toml rebuilds every watched game. A mistake in the data prints its one-line problem and
the watch goes on; the previous outputs stay as they were.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from generator.source import stamp
from generator.source.assets import Assets
from generator.source.load import game_languages
from generator.sheets.kit import build_game
from generator.errors import PnpError
from generator.source.options import PrintOptions
from generator.source.project import Project

WATCHED = ("cards", "templates", "fonts", "icons")


def games_touched(project: Project, games: list[str], paths: set[Path]) -> list[str]:
    """The watched games a set of changed files can affect, in order."""
    touched = set()
    for path in paths:
        parts = _project_parts(project, path)
        if not parts or parts[0] == "build":
            continue
        if parts[0] in ("cards", "templates") and len(parts) > 2 and parts[1] in games:
            touched.add(parts[1])
        elif parts[0] == "cards":
            continue                # another game's data, or a stray file
        else:
            return list(games)      # shared templates, fonts, icons or pnp.toml
    return [g for g in games if g in touched]


def _project_parts(project: Project, path: Path) -> tuple[str, ...]:
    """The path's parts inside the project; a folder that is a symbolic link (fonts shared by
    several projects) may be reported at its target."""
    path = Path(path).absolute()
    for name in WATCHED + ("pnp.toml",):
        for base in {project.root / name, (project.root / name).resolve()}:
            if path == base or path.is_relative_to(base):
                return (name,) + path.relative_to(base).parts
    return ()


class Watcher:
    def __init__(self, project: Project, games: list[str], players, papers, options: PrintOptions, jobs: int,
                 say: Callable[[str], None]):
        self.project, self.games = project, games
        self.players, self.papers, self.options, self.jobs = players, papers, options, jobs
        self.say = say
        self.settings = {"players": players, "paper": papers[0] if papers else None, "options": options}

    def rebuild(self, games: list[str]) -> None:
        for game_id in games:
            started = time.perf_counter()
            inputs = stamp.inputs_hash(self.project.root, game_id, self.settings)
            if stamp.up_to_date(self.project.root, game_id, inputs) is not None:
                self.say(f"{game_id}: up to date")
                continue
            try:
                assets = Assets(self.project)      # fonts or icons may have changed
                written, fresh = [], []
                for lang in game_languages(self.project, game_id):      # every language, as pnp build
                    files, faces = build_game(self.project, assets, game_id, self.players, self.papers,
                                              say=lambda line: None, options=self.options, jobs=self.jobs, lang=lang)
                    written, fresh = written + files, fresh + faces
            except PnpError as exc:
                for problem in exc.problems:
                    self.say(str(problem))
                self.say(f"{game_id}: not rebuilt; the previous files are unchanged")
                continue
            stamp.record(self.project.root, game_id, written, inputs)
            cards = ", ".join(fresh[:8]) + (f" and {len(fresh) - 8} more" if len(fresh) > 8 else "")
            self.say(f"{game_id}: rebuilt in {time.perf_counter() - started:.2f} s — "
                     f"{len(fresh)} faces re-rendered{': ' + cards if fresh else ''}; wrote {', '.join(written)}")

    def run(self, stop_event=None) -> None:
        from watchfiles import watch

        from generator.render.weasy import weasyprint
        self.rebuild(self.games)
        weasyprint()        # loaded now, not on the first save
        config = self.project.root / "pnp.toml"
        roots = [str(self.project.root / name) for name in WATCHED if (self.project.root / name).is_dir()]
        roots += [str(config)] if config.is_file() else []
        announced = False
        # step: how long the files must be quiet before a rebuild (an editor saves in bursts). The
        # first (empty) yield comes once the watches are in place: only then is "watching" true.
        for changes in watch(*roots, watch_filter=_Filter(), stop_event=stop_event, debounce=400, step=30,
                             rust_timeout=200, yield_on_timeout=True, raise_interrupt=False):
            if not announced:
                self.say(f"watching {', '.join(WATCHED)} for {', '.join(self.games)} (Ctrl-C stops)")
                announced = True
            if not changes:
                continue
            paths = {Path(p) for _, p in changes}
            if config in paths:
                paths.add(self.project.root / "fonts")      # settings affect every game
            touched = games_touched(self.project, self.games, paths)
            if touched:
                self.rebuild(touched)


def _Filter():
    """Editor droppings (swap files, backups, .git …) are not changes."""
    from watchfiles import DefaultFilter
    return DefaultFilter()
