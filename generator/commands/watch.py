"""`pnp watch [GAME]`: rebuild on every save and say what was rebuilt.

One process stays up, so the libraries stay loaded and the face cache does the rest: a
changed card costs its own render plus assembling the packs. A change under cards/<game>/
or templates/<game>/ rebuilds that game; a change to fonts, icons, shared templates or
pnp.toml rebuilds every watched game, with pnp.toml's settings read again (one created
after the watch began included). Any other file a game's last build read (a data file or a
spreadsheet reached by ../, the build's stamp lists them) rebuilds that game. A mistake in the data prints its one-line problem and
the watch goes on; the previous outputs stay as they were.
"""
from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from generator.source import reads, stamp
from generator.source.assets import Assets
from generator.source.load import game_languages
from generator.commands.proofs import proof_cards
from generator.geometry import PAPERS
from generator.sheets import written as written_record
from generator.sheets.kit import JustWritten, Prepared, prepare_edition
from generator.errors import PnpError
from generator.source.options import PrintOptions
from generator.source.game import Game
from generator.source.project import Project
from generator.source.words import count

WATCHED = ("cards", "templates", "fonts", "icons")


def games_touched(project: Project, games: list[str], paths: set[Path]) -> list[str]:
    """The watched games a set of changed files can affect, in order."""
    touched = set()
    for path in paths:
        parts = _project_parts(project, path)
        if not parts:
            resolved = Path(path).resolve()
            touched |= {g for g in games if resolved in {p.resolve() for p in stamp.outside_reads(project.root, g)}}
            continue
        if parts[0] == "build":
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


def last_built(project: Project, game_id: str, languages: list[str]) -> tuple[int, str, str] | None:
    """(players, paper, language) of the pack file of this game written last: the one the
    designer looks at. None before any build."""
    folder = project.build / game_id
    packs = []
    for path in folder.glob(f"{game_id}-*.pdf") if folder.is_dir() else []:
        rest = path.stem[len(game_id) + 1:].split("-")
        if not rest[0].endswith("p") or not rest[0][:-1].isdigit():
            continue            # the rulebook alone, a reprint, an extras pack
        paper = next((part for part in rest[1:] if part in PAPERS), None)
        lang = next((l for l in languages if path.stem.endswith(f"-{l}")), languages[0])
        if paper:
            packs.append((path.stat().st_mtime, int(rest[0][:-1]), paper, lang))
    return max(packs)[1:] if packs else None


class Watcher:
    def __init__(self, project: Project, games: list[str], players, papers, options: PrintOptions, jobs: int,
                 say: Callable[[str], None], settings: Callable[[], PrintOptions] | None = None,
                 lang: str | None = None):
        """`settings`, when given, reads the options again (from pnp.toml and the command line);
        `lang`: the one language to build (default: every one)."""
        self.project, self.games = project, games
        self.players, self.papers, self.jobs, self.lang = players, papers, jobs, lang
        self.say = say
        self.reload = settings
        self.looked: dict = {}      # game -> the pack the designer built last before the watch began
        self._selected: dict = {}   # (game, its game.yaml's hash) -> the packs the watch builds
        self._built_from: dict = {}  # game -> the inputs (stamp.inputs_hash) its last rebuild started from
        self.use(options)

    def use(self, options: PrintOptions) -> None:
        self.options = options
        self.settings = {"players": self.players, "paper": self.papers[0] if self.papers else None, "options": options}
        if self.lang:
            self.settings["lang"] = self.lang          # (as pnp build's stamp has it)

    def languages(self, game_id: str) -> list[str]:
        return [self.lang] if self.lang else game_languages(self.project, game_id)

    def first(self, game_id: str) -> tuple[int, str, str, bool]:
        """The pack to rebuild before the rest: --players/--paper/--lang as given, the rest as
        the designer last built it before the watch began (else the smallest pack, first paper,
        the data's language); and whether that pack is all the watch builds (one language, one
        paper, one pack: then there is no rest, and the first build is the whole one)."""
        languages = self.languages(game_id)
        if game_id not in self.looked:
            self.looked[game_id] = last_built(self.project, game_id, languages)
        last = self.looked[game_id]
        one_edition = len(languages) == 1 and self.papers is not None and len(self.papers) == 1
        packs = self._packs(game_id) if one_edition or not (self.players or last) else None
        players = self.players[0] if self.players else (last[0] if last else self._smallest(packs))
        paper = self.papers[0] if self.papers else (last[1] if last else next(iter(PAPERS)))
        whole = one_edition and packs is not None and [p.players for p in packs] == [players]
        return players, paper, self.lang or (last[2] if last else languages[0]), whole

    def _packs(self, game_id: str) -> list | None:
        """The packs the watch builds (select_packs), as game.yaml has them now: the game is loaded
        for them once for each of its contents, not at every save. None if it cannot tell (a mistake
        in the data: the build says it)."""
        from generator.filehash import file_hash
        from generator.source.load import load_game
        from generator.sheets.kit import select_packs
        try:
            key = (game_id, file_hash(self.project.cards / game_id / "game.yaml"))
            if key not in self._selected:
                self._selected[key] = select_packs(load_game(self.project, game_id, rules=False), self.players)
        except (OSError, PnpError):
            return None
        return self._selected[key]

    @staticmethod
    def _smallest(packs: list | None) -> int:
        standard = [p.players for p in packs or [] if not p.optional]
        return min(standard) if standard else 1

    def warnings(self, said: set) -> Callable[[str], None]:
        """What a build says that the watch passes on: its warnings (a translation to review, a coarse
        picture), each once a save though the first pack and the rest both build the edition."""
        def say(line: str) -> None:
            if line.startswith("warning: ") and line not in said:
                said.add(line)
                self.say(line)
        return say

    def look_first(self, game_id: str, first: tuple[int, str, str, bool],
                   say: Callable[[str], None]) -> tuple[list[str], JustWritten | None]:
        """The pack the designer looks at, and a proof (--only) of each card it drew anew: said
        at once, built before the rest. A mistake in the data is said here, once, by the rest.
        Returns the faces drawn anew (the rest finds them in the cache) and the pack written (the
        rest leaves it as it is while nothing it read changes). When that pack is all the watch
        builds (`first`'s last item), it is built as the rest would build it: nothing is left."""
        players, paper, lang, whole = first
        started = time.perf_counter()
        edition = f" ({lang})" if len(game_languages(self.project, game_id)) > 1 else ""
        self.say(f"{game_id}: changed; rebuilding the {players}p {paper} pack{edition}"
                 f"{'' if whole else ' first, then the rest'}")
        try:
            with reads.recording() as log:
                assets = Assets(self.project)       # (what it reads is the watch stamp's too)
                files, kept, fresh, game = self._edition(assets, game_id, self.players if whole else [players],
                                                         self.papers if whole else [paper], lang, say)
            just = JustWritten(lang, self.options, frozenset({(players, paper)}), dict(log.files), tuple(files + kept))
            proofs = self._proofs(assets, game_id, fresh, lang, game)
        except PnpError:
            return [], None
        wrote = ", ".join(files + proofs) or f"nothing (nothing the {lang} edition prints changed)"
        self.say(f"{game_id}: {players}p {paper}{edition} ready in {time.perf_counter() - started:.2f} s — wrote {wrote}")
        return fresh, just

    def _proofs(self, assets: Assets, game_id: str, fresh: list[str], lang: str, game: Game | None) -> list[str]:
        """A proof (--only) of each card of this edition whose face or back its build drew anew, from the
        edition as that build loaded and checked it: a save that changes the other language's text, or a
        card of a pack not looked at first, has its proof too."""
        cards = _cards_drawn(fresh, game) if game is not None else []
        if not cards:
            return []
        return proof_cards(self.project, assets, game_id, cards, self.jobs, lang, game)[0]

    def _edition(self, assets: Assets, game_id: str, players, papers, lang: str, say: Callable[[str], None],
                 just: JustWritten | None = None) -> tuple[list[str], list[str], list[str], Game | None]:
        """One edition as `pnp build` builds it: the files written, the files left as they were (the
        edition was up to date: nothing it prints changed; or a file made again in the same bytes),
        the faces drawn, and the edition as loaded and checked (None when it was up to date)."""
        edition = prepare_edition(self.project, assets, game_id, players, papers, say, self.options, self.jobs,
                                  None, lang, just)
        if not isinstance(edition, Prepared):
            return [], edition, [], None
        done = edition.write(self.project, say, self.options, self.jobs)
        # a file made again in the bytes it had is left in place (write_pack): not written, but as up to date
        return [f for f in done.files if f not in done.unchanged], done.unchanged, done.fresh, edition.game

    def reread_settings(self) -> bool:
        """pnp.toml changed: its settings apply from now on; False when it has a mistake."""
        if self.reload is None:
            return True
        try:
            self.use(self.reload())
        except PnpError as exc:
            for problem in exc.problems:
                self.say(str(problem))
            self.say("pnp.toml: not rebuilt; the previous files are unchanged")
            return False
        return True

    def rebuild(self, games: list[str], changed: bool = True) -> None:
        """Rebuild these games; on a change, first what the designer looks at (look_first)."""
        for game_id in games:
            started = time.perf_counter()
            inputs = self._built_from[game_id] = stamp.inputs_hash(self.project.root, game_id, self.settings)
            if stamp.up_to_date(self.project.root, game_id, inputs) is not None:
                self.say(f"{game_id}: up to date")
                continue
            first = self.first(game_id) if changed else None
            drawn, just, say = [], None, self.warnings(set())
            if first:
                drawn, just = self.look_first(game_id, first, say)
            else:
                packs = "the packs asked for" if self.players or self.papers or self.lang else "every pack"
                self.say(f"{game_id}: building {packs}{'' if changed else ' before the watch starts'} …")
            try:
                if just is not None and first[3]:     # the first pack was the whole build: nothing is left
                    written, kept, fresh, read, proofs = list(just.files), [], [], {}, []
                else:
                    written, kept, fresh, read, proofs = self._rest(game_id, just, say, proofs=changed)
            except PnpError as exc:
                for problem in exc.problems:
                    self.say(str(problem))
                self.say(f"{game_id}: not rebuilt; the previous files are unchanged")
                continue
            if not self.lang:           # every edition built: the files of one the game no longer has go
                removed = written_record.drop_languages(self.project.build, game_id, self.languages(game_id))
                if removed:
                    self.say(written_record.summary(removed, written_record.DROPPED))
            stamp.record(self.project.root, game_id, written + kept, inputs, {**(just.read if just else {}), **read})
            fresh = list(dict.fromkeys(drawn + fresh))
            cards = ", ".join(fresh[:8]) + (f" and {len(fresh) - 8} more" if len(fresh) > 8 else "")
            first_files = {Path(f).with_suffix("").as_posix() for f in just.files} if just else set()
            rest = [f for f in written if Path(f).with_suffix("").as_posix() not in first_files]  # said above
            self.say(f"{game_id}: {'the rest ' if first and not first[3] else ''}rebuilt in "
                     f"{time.perf_counter() - started:.2f} s — "
                     f"{count(len(fresh), 'face')} re-rendered{': ' + cards if fresh else ''}; "
                     f"wrote {', '.join(rest + proofs) or 'nothing more'}")

    def _rest(self, game_id: str, just: JustWritten | None, say: Callable[[str], None],
              proofs: bool = True) -> tuple[list[str], list[str], list[str], dict, list[str]]:
        """Every edition as pnp build makes it, but what `just` wrote: the files written, those of
        editions up to date, the faces drawn, the files read (with their hashes) and, with `proofs` (a
        save, not the watch's first build), the proofs of the cards drawn anew (not outputs of the
        build: its stamp does not list them)."""
        with reads.recording() as log:
            assets = Assets(self.project)      # fonts or icons may have changed
            written, kept, fresh, proved = [], [], [], []
            for lang in self.languages(game_id):      # every language, as pnp build
                files, left, faces, game = self._edition(assets, game_id, self.players, self.papers, lang, say, just)
                written, kept, fresh = written + files, kept + left, fresh + faces
                proved += self._proofs(assets, game_id, faces, lang, game) if proofs else []
        return written, kept, fresh, dict(log.files), proved

    def run(self, stop_event=None) -> None:
        from watchfiles import watch

        from generator.render.weasy import weasyprint
        for game_id in self.games:      # before the watch's own build writes every pack anew
            self.looked[game_id] = last_built(self.project, game_id, self.languages(game_id))
        self.rebuild(self.games, changed=False)
        weasyprint()        # loaded now, not on the first save
        config = self.project.root / "pnp.toml"
        # The project folder itself (so a pnp.toml made later is seen; build/ is filtered out), the
        # shared folders wherever their links lead, and the folders of what the games read elsewhere.
        roots = {str(self.project.root)} | {str((self.project.root / name).resolve()) for name in WATCHED
                                            if (self.project.root / name).is_dir()}
        roots |= {str(p.parent) for g in self.games for p in stamp.outside_reads(self.project.root, g)
                  if p.parent.is_dir()}
        announced = False
        # step: how long the files must be quiet before a rebuild (an editor saves in bursts). The
        # first (empty) yield comes once the watches are in place: only then is "watching" true.
        for changes in watch(*sorted(roots), watch_filter=_Filter(self.project), stop_event=stop_event, debounce=400,
                             step=30,
                             rust_timeout=200, yield_on_timeout=True, raise_interrupt=False):
            if not announced:
                # saved while the first build ran, before the watches were in place (pnp.toml too)
                late = self._changed_since_built()
                if late and self.reread_settings():
                    self.rebuild(late)
                self.say(f"watching {', '.join(WATCHED)} for {', '.join(self.games)} (Ctrl-C stops)")
                announced = True
            if not changes:
                continue
            paths = {Path(p) for _, p in changes}
            if config in paths:
                if not self.reread_settings():
                    continue
                paths.add(self.project.root / "fonts")      # settings affect every game
            touched = games_touched(self.project, self.games, paths)
            if touched:
                self.rebuild(touched)

    def _changed_since_built(self) -> list[str]:
        """The games whose inputs are no longer those their last rebuild started from."""
        return [g for g in self.games if self._built_from.get(g) != stamp.inputs_hash(self.project.root, g, self.settings)]


def _cards_drawn(fresh: list[str], game: Game) -> list[str]:
    """The cards (deck/card) to proof for the faces a build drew anew, by the labels it gives them:
    `deck/card (side)`, or `deck (side, shared by N cards)` for a face several cards share (a deck's
    one back), proofed on the first card of the deck that prints it."""
    cards = []
    for label in fresh:
        name, _, side = label.rpartition(" (")
        if "/" not in name:
            deck = game.decks.get(name)
            first = next((c for c in deck.cards if c.printed), None) if deck and "shared by" in side else None
            if first is None:
                continue
            name = first.uid
        cards.append(name)
    return list(dict.fromkeys(cards))


def _Filter(project: Project):
    """Editor droppings (swap files, backups, .git …) are not changes, nor is what a build writes."""
    from watchfiles import DefaultFilter
    build = project.build

    class Filter(DefaultFilter):
        def __call__(self, change, path: str) -> bool:
            return not Path(path).is_relative_to(build) and super().__call__(change, path)
    return Filter()
