"""The `pnp` command (also `python -m generator`).

Exit status: 0 done, 1 the input has problems (printed one per line as
`file:line: message`), 2 the command was used wrongly.
"""
from __future__ import annotations

import errno
import functools
import math
import os
import sys
import traceback
from pathlib import Path

import click

from generator import __version__
from generator.errors import PnpError, Problem
from generator.geometry import DUPLEX_MODES, PAPERS
from generator.source.options import SHEET_MODES
from generator.source.project import Project, find_root, isolate_fonts
from generator.source.words import count, pdfs, suggest


def _project_option(func):
    return click.option("--project", "project_dir", type=click.Path(file_okay=False), default=None,
                        help="Project folder holding cards/, templates/, fonts/, build/ (default: the one "
                             "holding the current folder, found like git finds its repository).")(func)


def _choice(values) -> click.Choice:
    """A choice typed in any case: --paper A4, --shop TGC."""
    return click.Choice(list(values), case_sensitive=False)


DUPLEX_HELP = ("How backs print: long (default) or short edge flip; none: backs on separate sheets at the end; "
               "gutterfold: front and back side by side to fold.")
JOBS_HELP = ("Processes rendering card faces; with 2 or more, an edition's rulebooks and packs are also shared by "
             "two processes (default: the PNP_JOBS environment variable, else every core).")


def _duplex_option(func):
    return click.option("--duplex", type=_choice(DUPLEX_MODES), help=DUPLEX_HELP)(func)


def _jobs_option(func):
    return click.option("--jobs", type=click.IntRange(1, 64), default=None, envvar="PNP_JOBS", help=JOBS_HELP)(func)


class Commands(click.Group):
    """pnp's group: full command descriptions in --help (click cuts them at the terminal's
    width), and "did you mean" for a misspelled command."""

    def format_commands(self, ctx, formatter):
        rows = [(name, " ".join((cmd.help or "").split("\n\n")[0].split()))
                for name, cmd in ((n, self.get_command(ctx, n)) for n in self.list_commands(ctx)) if not cmd.hidden]
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    def main(self, *args, **kwargs):
        # run by the ./pnp launcher, usage lines say what the reader types
        if os.environ.get("PNP_LAUNCHER_PROJECT"):
            kwargs.setdefault("prog_name", "./pnp")
        return super().main(*args, **kwargs)

    def resolve_command(self, ctx, args):
        if args and not args[0].startswith("-") and self.get_command(ctx, args[0]) is None:
            ctx.fail(f"No such command '{args[0]}'{suggest(args[0], self.list_commands(ctx))}.")
        return super().resolve_command(ctx, args)


def _players(value: str | None) -> list[int] | None:
    if not value:
        return None
    try:
        numbers = [int(v) for v in value.split(",") if v.strip()]
    except ValueError:
        raise click.BadParameter(f"expected numbers like 4 or 3,4, got {value!r}") from None
    if not numbers or any(n < 1 for n in numbers):
        raise click.BadParameter(f"expected positive numbers, got {value!r}")
    return numbers


def _jobs(jobs: int | None) -> int:
    """--jobs, or every core."""
    return jobs or os.cpu_count() or 1


def handles_problems(func):
    """Problems print as lines and exit 1; anything unexpected is an internal error."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        ctx = click.get_current_context()
        try:
            try:
                return func(*args, **kwargs)
            except BaseException:
                _stop_progress()        # the bar ends (its line cleared) before any message below
                raise
        except PnpError as exc:
            for problem in exc.problems:
                click.echo(str(problem), err=True)
            ctx.exit(1)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except KeyboardInterrupt:
            click.echo("interrupted; earlier outputs are unchanged", err=True)
            ctx.exit(130)
        except BrokenPipeError:          # `pnp list | head -1`: the reader has all it wanted
            _quiet_stdout()
            ctx.exit(141)
        except OSError as exc:
            if exc.errno not in ENVIRONMENT_ERRORS:
                _internal_error(ctx, exc)
            click.echo(str(_environment_problem(exc)), err=True)    # the machine's fault, not pnp's
            ctx.exit(1)
        except ModuleNotFoundError as exc:
            if (exc.name or "").startswith("generator"):       # pnp's own module: a bug
                _internal_error(ctx, exc)
            click.echo(f"a library pnp needs is missing ({exc}): run `make kit` in the pnp folder, then ./pnp",
                       err=True)
            ctx.exit(1)
        except Exception as exc:  # a bug in pnp, not in the game: one line unless -v
            _internal_error(ctx, exc)
        finally:
            _stop_progress()
    return wrapper


# Faults of the machine (a read-only or full disk, a file where a folder should be): one line, exit 1.
ENVIRONMENT_ERRORS = {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.ENAMETOOLONG,
                      errno.ENOTDIR, errno.EEXIST, errno.EISDIR, errno.EMFILE, errno.EIO, errno.EFBIG}
_HINTS = {errno.ENOSPC: "free some space on the disk", errno.EDQUOT: "free some space on the disk",
          errno.EROFS: "build on a writable disk (--project DIR)", errno.EACCES: "make build/ writable",
          errno.EPERM: "make build/ writable",
          errno.EFBIG: "a file-size limit (ulimit -f) is below what the build writes; raise it"}


def _environment_problem(exc: OSError):
    from generator.errors import Problem
    path = exc.filename or "build/"
    try:
        path = os.path.relpath(path)
    except ValueError:
        pass
    return Problem(str(path), None, f"cannot write: {exc.strerror or exc}", _HINTS.get(exc.errno))


def _internal_error(ctx: click.Context, exc: Exception):
    if ctx.find_root().params.get("verbose"):
        traceback.print_exc()
    command = ctx.find_root().invoked_subcommand or "COMMAND"     # -v goes before the command
    click.echo(f"internal error: {type(exc).__name__}: {exc} (for details run it again as `./pnp -v {command} …`, "
               "and please report it)", err=True)
    ctx.exit(3)


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so that flushing it at exit does not raise again."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):      # not a real file (tests): nothing is left to flush
        pass
    finally:
        os.close(devnull)


def _project(ctx: click.Context, project_dir: str | None) -> Project:
    project = Project.at(_given_folder(ctx, project_dir))
    isolate_fonts(project)
    return project


LAUNCHER_PROJECT = "PNP_LAUNCHER_PROJECT"     # set by ./pnp: the folder the launcher lives in


def _given_folder(ctx: click.Context, project_dir: str | None) -> str:
    """--project after the command, or before it, or the current folder; outside any project,
    the project the `./pnp` launcher that ran lives in (`~/kit/pnp list` from anywhere)."""
    given = project_dir or ctx.find_root().params.get("project_dir")
    if given:
        return given
    home = os.environ.get(LAUNCHER_PROJECT)
    if find_root(".") is None and home and (Path(home) / "cards").is_dir():
        return home
    return "."


def _game(project: Project, game: str | None) -> list[str]:
    """The game named, checked, or every game; a misspelled name gets the closest one."""
    games = project.games()
    if game is None:
        return games
    if game not in games:
        raise PnpError(Problem(f"cards/{game}", None, f"no game '{game}' (games: {', '.join(games) or 'none yet'})"
                                                      f"{suggest(game, games)}"))
    return [game]


def _assets(project: Project):
    from generator.source.assets import Assets
    return Assets(project)


def _open(ctx: click.Context, project_dir: str | None):
    project = _project(ctx, project_dir)
    return project, _assets(project)


@click.group(cls=Commands, context_settings={"help_option_names": ["-h", "--help"]})
@_project_option
@click.option("-v", "--verbose", is_flag=True, help="Show tracebacks of internal errors.")
@click.version_option(__version__, prog_name="pnp")
def main(project_dir, verbose):
    """Turn card data into print-and-play kits."""


@main.command("help")
@click.argument("command", nargs=-1)
@_project_option
@click.pass_context
def help_command(ctx, command, project_dir):
    """How to use pnp, or one COMMAND: `./pnp help build` is `./pnp build --help`."""
    group, context = main, ctx.parent
    for name in command:
        found = group.get_command(context, name) if isinstance(group, click.Group) else None
        if found is None:
            known = group.list_commands(context) if isinstance(group, click.Group) else []
            raise click.UsageError(f"No such command '{name}'{suggest(name, known)}.")
        group, context = found, click.Context(found, info_name=name, parent=context)
    click.echo(context.get_help())


@main.command("list")
@click.argument("game", required=False)
@click.option("--lang", help="The language to name things in (default: your locale's, when the game has it).")
@_project_option
@click.pass_context
@handles_problems
def list_games(ctx, game, lang, project_dir):
    """Games (or GAME), their components and the packs they offer (reads data only: no rules module runs)."""
    from generator.source.load import load_game
    project, _ = _open(ctx, project_dir)
    for game_id in _game(project, game):
        game = load_game(project, game_id, rules=False)
        edition = _reader_edition(project, game_id, lang)
        if edition != game.language:
            try:
                game = load_game(project, game_id, edition, rules=False)
            except PnpError:
                if lang:
                    raise
                # (a catalogue with mistakes: the names in the data's language; validate says what is wrong)
        languages = f" ({', '.join(game.languages)})" if len(game.languages) > 1 else ""
        click.echo(f"{game_id}: {game.spec.title}{languages}")
        for line in _completeness(project, game):
            click.echo(f"  language {line}")
        for deck in game.decks.values():
            designs = count(len(deck.cards), "design")
            click.echo(f"  deck  {deck.id:<18} {deck.spec.name} ({designs}, {deck.trim[0]:g}×{deck.trim[1]:g} mm)")
        for piece in game.pieces.values():
            click.echo(f"  piece {piece.id:<18} {piece.name} ({piece.size.width:g}×{piece.size.height:g} mm)")
        for pack in game.packs:
            click.echo(f"  pack  {_pack_name(pack)}: " + ", ".join(f"{d} {e.count}" for d, e in pack.decks.items()))


def _completeness(project, game) -> list[str]:
    """"en: 42/42 card texts, 134/134 strings, 2 to review" for each language the data is not
    written in (its catalogue laid over the data; a language without one says so)."""
    from generator.check.translations import coverage_line, to_review, translation_checks
    from generator.source.load import load_game
    out = []
    for lang in game.languages[1:]:
        try:
            edition = load_game(project, game.id, lang, rules=False)
        except PnpError as exc:
            out.append(f"{lang}: {exc.problems[0].message}")
            continue
        review = to_review(translation_checks(project, edition))
        out.append(coverage_line(edition) + (f", {len(review)} to review" if review else ""))
    return out


@main.command()
@click.argument("game")
@click.option("--lang", required=True, help="The language to write, one of game.yaml's languages, e.g. en.")
@_project_option
@click.pass_context
@handles_problems
def translate(ctx, game, lang, project_dir):
    """Write or update a language's catalogue, i18n/LANG.yaml, from the source data.

    Every card text, deck, colour and piece name and template string gets an entry: what is
    translated is kept, a new entry is left empty to fill in, and one whose source text changed
    since is listed under review: (validate reports them). A rulebook gets a stub to translate."""
    from generator.commands.translate import translate as run
    project, _ = _open(ctx, project_dir)
    _game(project, game)
    run(project, game, lang, say=click.echo)


def _pack_name(pack) -> str:
    """"4p", "3p variant", or for an optional pack "extras (optional, for 4p)": the name its
    file has, so two packs for one player count are told apart."""
    if pack.optional:
        return f"{pack.key} (optional, for {pack.players}p)"
    return f"{pack.players}p" + (f" {pack.variant}" if pack.variant else "")


def _lang_option(func):
    return click.option("--lang", help="One language of the game, e.g. en or zh-Hans (default: every language it has).")(func)


@main.command()
@click.argument("game", required=False)
@_lang_option
@click.option("--verbose", "-v", is_flag=True, help="Each note on a line of its own (default: their count).")
@_jobs_option
@_project_option
@click.pass_context
@handles_problems
def validate(ctx, game, lang, verbose, jobs, project_dir):
    """Everything a build checks, short of writing files; exit 0 when it would build, 1 with errors.

    Every edition's faces are rendered (into the cache the build then uses), every board, piece
    and rulebook expression evaluated, every pack made in memory."""
    from generator.check.translations import coverage_line, to_review
    from generator.sheets.kit import check_build, editions
    project, assets = _open(ctx, project_dir)
    failed, said = False, set()

    def refuse(exc: PnpError) -> None:       # an error of the source data shows in every edition: said once
        for problem in exc.problems:
            if str(problem) not in said:
                said.add(str(problem))
                _stop_progress()
                click.echo(str(problem), err=True)

    for game_id in _game(project, game):
        try:
            languages = editions(project, game_id, lang)
        except PnpError as exc:
            refuse(exc)
            failed = True
            continue
        for language in languages:
            label = f"{game_id} ({language})" if len(languages) > 1 or lang else game_id
            try:
                checked = check_build(project, assets, game_id, language, jobs=_jobs(jobs), progress=_progress)
            except PnpError as exc:
                refuse(exc)
                failed = True
                continue
            # claims are the same in every language: an edition's own notes are its entries to review
            notes = checked.notes if checked.game.is_source else [
                n for n in checked.notes if n.path == checked.game.catalogue]
            for note in notes if verbose else []:
                click.echo(str(note))
            if not checked.game.is_source:
                review = to_review(notes)
                review = f", {len(review)} to review" if review else ""
                click.echo(f"{game_id}: {coverage_line(checked.game)}{review}")
            more = "" if verbose or not notes else "; --verbose lists them"
            click.echo(f"{label}: valid ({count(len(notes), 'note')}{more})")
    ctx.exit(1 if failed else 0)


def _existing(name: str, folder: str):
    from pathlib import Path
    for path in (Path(name), Path(folder) / name):
        if path.is_file():
            return path
    raise click.BadParameter(f"no file {name!r}", param_hint="FILE")


def _say_saved_offset(options, given) -> None:
    """One line whenever a printer's saved back offset moves the backs: it changes every pack."""
    if given is None and options.printer and options.back_offset != (0.0, 0.0):
        x, y = options.back_offset
        click.echo(f"printer '{options.printer}': backs shifted by {x:g},{y:g} mm (saved in pnp.toml; "
                   "--back-offset 0,0 prints without)")


def _offset(value: str | None) -> tuple[float, float] | None:
    if value is None:
        return None
    try:   # a minus sign copied off paper or a web page (−) reads as the hyphen
        x, y = (float(v) for v in value.replace("\u2212", "-").split(","))
    except ValueError:
        raise click.BadParameter(f"expected two numbers in mm like 1.5,-0.5, got {value!r}") from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise click.BadParameter(f"expected two numbers in mm like 1.5,-0.5, got {value!r}")
    if abs(x) > 20 or abs(y) > 20:
        raise click.BadParameter(f"{value} mm is more than any printer's offset (at most ±20)")
    return x, y


@main.command()
@click.argument("game", required=False)
@click.option("--players", help="Player counts to build, e.g. 4 or 3,4 (default: every pack).")
@click.option("--paper", type=_choice(sorted(PAPERS)), help="Paper size (default: both).")
@_duplex_option
@click.option("--back-offset", help="Shift every back by X,Y mm to correct the printer (see ./pnp calibrate).")
@click.option("--printer", help="Use the settings saved for this printer in pnp.toml.")
@click.option("--ink-saver", is_flag=True, help="Draft print: no full-bleed fills, light frames, black text.")
@click.option("--fit", is_flag=True, help="Print boards larger than a sheet reduced onto one sheet instead of tiled.")
@click.option("--sheets", type=_choice(SHEET_MODES), default="shared", show_default=True,
              help="shared: decks of one card size and stock fill each other's free slots; per-deck: every deck "
                   "starts on a fresh sheet.")
@click.option("--cutter", type=_choice(["silhouette", "cricut"]),
              help="Lay card sheets out for a print-then-cut machine: its registration marks and cutting area, "
                   "and a cut file (SVG + DXF) per sheet beside the PDF.")
@click.option("--draft", is_flag=True, help="Playtest print: art below 300 dpi is a warning, not an error, and "
              "page 1 and every sheet's margin say DRAFT (files end in -draft).")
@_jobs_option
@click.option("--only", help="Just these cards (deck/card or card, comma-separated), to build/<game>/cards/.")
@click.option("--all", "every", is_flag=True, help="Every game (as when no GAME is named): a few at once where "
              "the cores allow, one line per game and a summary; a failed game does not stop the others.")
@click.option("--shard", metavar="I/N", help="I/N: only the I-th of N stable shares of the games (balanced by each game's last "
              "build time), for a CI matrix; copy the shares' build/<game>/ folders into one build/ for pnp site.")
@_lang_option
@_project_option
@click.pass_context
@handles_problems
def build(ctx, game, players, paper, duplex, back_offset, printer, ink_saver, fit, sheets, cutter, draft, jobs, only,
          every, shard, lang, project_dir):
    """Validate, then write the packs to build/<game>/ (refuses to print on an error).

    Every pack is read back and preflighted before it replaces the previous file. Card faces
    come from the cache in build/.cache when nothing that decides their look has changed."""
    from generator.source.options import resolve
    if only:
        if not game:
            raise click.UsageError("--only needs a GAME")
        from generator.commands.proofs import proof_cards
        project, assets = _open(ctx, project_dir)
        written, fresh = proof_cards(project, assets, game, [c.strip() for c in only.split(",") if c.strip()],
                                     _jobs(jobs), _reader_edition(project, game, lang))
        for path in written:
            click.echo(f"wrote {path} and its .png ({'rendered' if fresh else 'from the cache'})")
        return
    from generator.source import reads, stamp
    counts = _players(players)
    offset = _offset(back_offset)
    project = _project(ctx, project_dir)
    options = resolve(project.root, duplex, offset, ink_saver, fit, printer, sheets, cutter, draft)
    if counts and not game:
        raise click.UsageError("--players needs a GAME")
    if game and (every or shard):
        raise click.UsageError(f"--{'all' if every else 'shard'} builds every game (or a share of them): name no GAME")
    games = _game(project, game)
    _say_saved_offset(options, offset)
    if every or shard or len(games) > 1:
        from generator.commands.many import parse_shard
        try:
            part = parse_shard(shard) if shard else None
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="'--shard'") from None
        args = _passed_on(ctx, ("paper", "duplex", "back_offset", "printer", "ink_saver", "fit", "sheets", "cutter",
                                "draft", "lang"))
        _build_many(project, games, part, {"players": counts, "paper": paper, "options": options}, lang, args,
                    _jobs(jobs))
        return
    assets = None
    for game_id in games:
        inputs, current = _up_to_date(project, game_id, counts, paper, options, lang)
        if current is not None:
            for warning in stamp.warnings(project.root, game_id, inputs):     # what the build said still holds
                click.echo(warning)
            click.echo(f"{game_id}: up to date ({pdfs(current)}; nothing changed since the last build)")
            continue
        from generator.sheets.kit import Prepared, prepare_edition     # the heavy libraries load only now
        assets = assets or _assets(project)
        warned = []

        def say(line: str) -> None:
            if line.startswith("warning: "):
                warned.append(line)
            click.echo(line)
        with reads.recording() as log:
            # every edition checked and made before any is written: a fault in one writes nothing
            editions = [prepare_edition(project, assets, game_id, counts, [paper] if paper else None, say, options,
                                        _jobs(jobs), _progress, language)
                        for language in ([lang] if lang else _languages(project, game_id))]
            written = []
            for edition in editions:
                written += edition.write(project, say, options, _jobs(jobs))[0] if isinstance(edition, Prepared) \
                    else edition
        if not lang:                # every edition built: the files of one the game no longer has go
            from generator.sheets import written as written_record
            removed = written_record.drop_languages(project.build, game_id, _languages(project, game_id))
            if removed:
                click.echo(written_record.summary(removed, written_record.DROPPED))
        stamp.record(project.root, game_id, written, inputs, log.files, warnings=warned)


def _up_to_date(project, game_id: str, counts, paper, options, lang) -> tuple[str, list[str] | None]:
    """The hash of what a build of the game would be made from, and the files of its last build
    when that was made from exactly the same (None: it must be built)."""
    from generator.source import stamp
    if lang:
        languages = _languages(project, game_id)
        if lang not in languages:
            raise click.UsageError(f"{game_id} has no {lang} edition (languages: {', '.join(languages)})")
    settings = {"players": counts, "paper": paper, "options": options}
    if lang:
        settings["lang"] = lang          # (without it, the same stamp as pnp watch's)
    inputs = stamp.inputs_hash(project.root, game_id, settings)
    return inputs, stamp.up_to_date(project.root, game_id, inputs)


def _passed_on(ctx: click.Context, names: tuple[str, ...]) -> list[str]:
    """The options given to this command, as a `pnp build GAME` of each game takes them again."""
    args = []
    command = ctx.command
    for param in command.params:
        if param.name not in names or not isinstance(param, click.Option):
            continue
        value = ctx.params.get(param.name)
        if param.is_flag:
            args += [param.opts[0]] if value else []
        elif value is not None and ctx.get_parameter_source(param.name) != click.core.ParameterSource.DEFAULT:
            args += [param.opts[0], str(value)]
    return args


def _build_many(project, games: list[str], part, settings: dict, lang, args: list[str], jobs: int) -> None:
    """Every game (or a shard's share), each in its own process: one line per game, a summary,
    exit 1 when any failed."""
    from generator.commands.many import Outcome, build_games, read_costs, shard
    if part:
        games = shard(games, *part, read_costs(project.build, games))
        click.echo(f"shard {part[0]}/{part[1]}: {count(len(games), 'game')} ({', '.join(games) or 'none'})")
    outcome = Outcome()
    todo = []
    for game_id in games:
        done = len(outcome.current) + len(outcome.failed) + 1
        try:
            _, current = _up_to_date(project, game_id, settings["players"], settings["paper"], settings["options"], lang)
        except click.UsageError as exc:
            click.echo(f"[{done}/{len(games)}] {game_id}: failed (1 problem)")
            click.echo(exc.message, err=True)
            outcome.failed.append(game_id)
            continue
        if current is None:
            todo.append(game_id)
        else:
            click.echo(f"[{done}/{len(games)}] {game_id}: up to date ({pdfs(current)})")
            outcome.current.append(game_id)
    build_games(project.root, todo, args, jobs, outcome, say=click.echo, warn=lambda line: click.echo(line, err=True),
                done=len(games) - len(todo), total=len(games))
    click.echo(outcome.summary())
    click.get_current_context().exit(1 if outcome.failed else 0)


def _reader_edition(project, game_id: str, lang: str | None) -> str:
    """For a command that makes one edition: --lang, else the reader's locale's, else the source's."""
    from generator.source.i18n import reader_edition
    return reader_edition(_languages(project, game_id), lang)


def _languages(project, game_id: str) -> list[str]:
    """A game's editions; read (with the schemas, 0.3 s to load) only once the up-to-date check
    has found something to build."""
    from generator.source.load import game_languages
    return game_languages(project, game_id)


@main.command()
@click.argument("game", required=False)
@click.option("--players", help="Player counts to build, e.g. 4 or 3,4 (default: every pack).")
@click.option("--paper", type=_choice(sorted(PAPERS)), help="Paper size (default: both).")
@_duplex_option
@click.option("--printer", help="Use the settings saved for this printer in pnp.toml.")
@_jobs_option
@_lang_option
@_project_option
@click.pass_context
@handles_problems
def watch(ctx, game, players, paper, duplex, printer, jobs, lang, project_dir):
    """Rebuild on every save of a card, template, font or icon, and say what was rebuilt.

    Run it in a terminal of its own. On a save it rebuilds first the pack you look at (the one
    you last built, or --players/--paper/--lang) and a proof of each changed card, then the rest."""
    from generator.source.options import resolve
    from generator.commands.watch import Watcher
    project = _project(ctx, project_dir)
    games = _game(project, game)
    counts = _players(players)
    if counts and not game:
        raise click.UsageError("--players needs a GAME")
    def settings():
        return resolve(project.root, duplex, None, False, False, printer)
    options = settings()
    _say_saved_offset(options, None)
    if lang:
        for game_id in games:
            if lang not in _languages(project, game_id):
                raise click.UsageError(f"{game_id} has no {lang} edition (languages: "
                                       f"{', '.join(_languages(project, game_id))})")
    watcher = Watcher(project, games, counts, [paper] if paper else None, options, _jobs(jobs),
                      say=lambda line: click.echo(line), settings=settings, lang=lang)
    watcher.run()


_LIVE: list = []      # progress displays running, stopped whatever way the command ends


def _progress(label: str, total: int):
    """A progress bar on stderr when it is a terminal (not in a pipe or a CI log, where
    it would be noise); returns a function advancing it by n faces, or None.

    The bar goes once the last face is in, leaving the line to the next message. The time
    left comes from rich's rate over the faces done so far, not counting the first batch:
    that one includes starting the renderer, which would make a short render look long."""
    if not sys.stderr.isatty() or os.environ.get("CI") or total <= 0:
        return None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
    bar = Progress(TextColumn(f"rendering {label}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                   console=Console(file=sys.stderr), transient=True)
    task = bar.add_task(label, total=total)
    bar.start()
    _LIVE.append(bar)

    def advance(n: int) -> None:
        bar.advance(task, n)
        if bar.tasks[0].finished:
            _stop_progress()
    return advance


def _stop_progress() -> None:
    while _LIVE:
        _LIVE.pop().stop()


@main.command()
@click.argument("game")
@click.option("--since", help="A git revision (default: when the cards were last printed: first built or reprinted).")
@click.option("--players", type=click.IntRange(1, 12), help="The pack whose copies to reprint (default: the largest).")
@click.option("--paper", type=_choice(sorted(PAPERS)), help="Paper size (default: both).")
@_duplex_option
@_jobs_option
@click.option("--lang", help="The language to reprint, for a game in several (default: your locale's edition if "
                             "the game has one, else the data's language).")
@_project_option
@click.pass_context
@handles_problems
def reprint(ctx, game, since, players, paper, duplex, jobs, lang, project_dir):
    """A pack of only the cards changed since a revision or since they were last printed, with their backs."""
    from generator.source.options import resolve
    from generator.commands.reprint import reprint as run
    project, assets = _open(ctx, project_dir)
    _game(project, game)
    options = resolve(project.root, duplex)
    _say_saved_offset(options, None)
    run(project, assets, game, since, players, [paper] if paper else None, options, _jobs(jobs),
        say=click.echo, lang=_reader_edition(project, game, lang))


@main.command()
@click.argument("game")
@click.option("--shop", type=_choice(["tgc", "mpc", "dtc", "png"]),
              help="Card images for a print shop (png: each card at its own size), zipped with counts.csv.")
@click.option("--dpi", type=click.Choice(["300", "600"]), default="300", show_default=True,
              help="Resolution of the card images.")
@click.option("--tts", is_flag=True, help="Tabletop Simulator: deck sheets, boards and tokens, and saved objects.")
@click.option("--tts-base-url", help="With --tts: load images from this URL (a hosted copy of build/<game>/tts/), "
                                     "so every player of a multiplayer game sees them.")
@click.option("--pdfx", is_flag=True, help="With --shop dtc: write the PDF as PDF/X-4.")
@click.option("--icc", type=click.Path(dir_okay=False), help="The shop's CMYK ICC profile for --pdfx.")
@click.option("--players", type=click.IntRange(1, 12), help="The pack to export (default: the largest).")
@_jobs_option
@_lang_option
@_project_option
@click.pass_context
@handles_problems
def export(ctx, game, shop, dpi, tts, tts_base_url, pdfx, icc, players, jobs, lang, project_dir):
    """Files for print shops and Tabletop Simulator, written to build/<game>/."""
    if not shop and not tts:
        raise click.UsageError("say what to export: --shop tgc|mpc|dtc|png and/or --tts")
    if pdfx and shop != "dtc":
        raise click.UsageError("--pdfx applies to the PDF of --shop dtc")
    from generator.sheets.kit import editions
    project, assets = _open(ctx, project_dir)
    _game(project, game)
    jobs = _jobs(jobs)
    for language in editions(project, game, lang):
        if shop:
            from generator.export.shops import export_shop
            export_shop(project, assets, game, shop, int(dpi), players, jobs, pdfx, icc, say=click.echo, lang=language)
        if tts:
            from generator.export.tts import export_tts
            export_tts(project, assets, game, players, jobs, say=click.echo, base_url=tts_base_url, lang=language)


@main.command()
@click.argument("game", required=False)
@click.option("--players", type=click.IntRange(1, 12), help="The pack to show (default: the largest).")
@_jobs_option
@_lang_option
@_project_option
@click.pass_context
@handles_problems
def gallery(ctx, game, players, jobs, lang, project_dir):
    """A web page of every card and board: build/<game>/gallery/index.html (gallery-<lang>/ per language)."""
    from generator.export.gallery import build_gallery
    from generator.sheets.kit import editions
    project, assets = _open(ctx, project_dir)
    for game_id in _game(project, game):
        for language in editions(project, game_id, lang):
            build_gallery(project, assets, game_id, players, _jobs(jobs), say=click.echo, lang=language)


@main.command()
@click.option("--drafts", is_flag=True, help="Put games marked `draft: true` in game.yaml on the shelf too, "
                                             "and packs built with --draft (labelled draft).")
@_project_option
@click.pass_context
@handles_problems
def site(ctx, drafts, project_dir):
    """A static site of what the builds wrote: build/site/index.html lists every game, and each game
    has a printables page per language (packs, rulebook, exports, gallery) to choose what to print."""
    from generator.export.site import build_site
    project, assets = _open(ctx, project_dir)
    build_site(project, assets, drafts, say=click.echo)


@main.command()
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True,
              help="The port to listen on (0: any free one).")
@_project_option
@click.pass_context
@handles_problems
def serve(ctx, port, project_dir):
    """Serve the galleries in build/ on http://127.0.0.1:PORT/ (localhost only)."""
    from generator.export.gallery import serve as run
    project = _project(ctx, project_dir)
    try:
        run(project, port, say=click.echo)
    except OSError as exc:
        hint = f" (another program uses it: try ./pnp serve --port {port + 1 if port else 8001})" \
            if exc.errno == errno.EADDRINUSE else ""
        raise click.UsageError(f"cannot listen on port {port}: {exc.strerror}{hint}") from None


@main.command("new")
@click.argument("game")
@click.option("--title", help="The game's title (default: made from GAME).")
@click.option("--lang", type=click.Choice(["en", "zh-Hans"]), default="en", show_default=True,
              help="The language the new game's cards and templates are written in.")
@click.option("--empty", is_flag=True, help="One deck of one card to build on, instead of the full example "
              "(sample decks, board, rules module, claims, rulebook).")
@_project_option
@click.pass_context
@handles_problems
def new_game(ctx, game, title, lang, empty, project_dir):
    """Start a game: cards/GAME and templates/GAME that validate and build as written.

    Inside a project (or with --project DIR) the game is added to it; anywhere else a new
    project folder GAME/ is made around it, with the fonts, icons and schemas it needs."""
    from pathlib import Path

    from generator.commands.newgame import check_id, check_title, new_game as make, new_project
    check_id(game)                      # before any folder is made
    if title is not None:
        check_title(title)
    given = project_dir or ctx.find_root().params.get("project_dir")
    root = Path(given).resolve() if given else find_root(".")
    if root is None or not root.exists() or not any(root.iterdir()):       # no project there yet: made whole
        root = root or Path(game).resolve()
        folder = os.path.relpath(root)
        folder = str(root) if folder.startswith("..") else folder
        written = new_project(root, game, title, lang, empty)
        for name in written:
            click.echo(f"  wrote {folder}/{name}")
        click.echo(f"{folder}/: a new project with the game {game}. Next: cd {folder}, then ./pnp validate {game} "
                   f"and ./pnp build {game} --players 2; the format is in {_authoring_guide(root)}")
        return
    (root / "cards").mkdir(parents=True, exist_ok=True)
    written = make(root, game, title, lang, empty)
    for name in written:
        click.echo(f"  wrote {name}")
    click.echo(f"{game}: ready. Next: ./pnp validate {game}, then ./pnp build {game} --players 2; "
               f"the format is in {_authoring_guide(root)}")


def _authoring_guide(project_root) -> str:
    """Where the guide to a game's files is, said from the project: pnp's own docs/authoring.md (a
    project made outside pnp's folder has no docs/ of its own)."""
    from pathlib import Path
    guide = Path(__file__).resolve().parents[2] / "docs" / "authoring.md"
    if not guide.is_file():
        return "docs/authoring.md in pnp's repository"
    return str(guide.relative_to(project_root)) if guide.is_relative_to(project_root) else str(guide)


@main.group(cls=Commands)
def assets():
    """Add emoji icons and characters to the project's bundled icons and fonts."""


@assets.command("add")
@click.argument("text")
@click.option("--from", "offline", type=click.Path(exists=True, file_okay=False),
              help="A folder holding the npm packages' .tgz files (npm pack), instead of downloading them.")
@_project_option
@click.pass_context
@handles_problems
def assets_add(ctx, text, offline, project_dir):
    """Make TEXT printable: an emoji's Twemoji SVG to icons/twemoji/, other characters into the
    Noto Sans SC subset in fonts/, fetched from the npm registry (cached in build/.cache/npm/)."""
    from pathlib import Path

    from generator.commands.assets import add
    project = _project(ctx, project_dir)
    written = add(project, text, Path(offline) if offline else None, say=click.echo)
    if written:
        click.echo(f"added {count(len(written), 'file')}; builds use them from now on (the face cache notices)")


@main.command()
@_project_option
@click.pass_context
@handles_problems
def schema(ctx, project_dir):
    """Write JSON Schemas of every YAML file to schemas/ (for editors' completion)."""
    from generator.source.jsonschema import write_schemas
    project = _project(ctx, project_dir)
    for path in write_schemas(project.root / "schemas"):
        click.echo(f"wrote {project.display(path)}")


@main.command()
@click.argument("pdf", type=click.Path(dir_okay=False))
@click.option("--manifest", type=click.Path(dir_okay=False), help="Default: the .json beside the PDF.")
@_project_option
@click.pass_context
@handles_problems
def preflight(ctx, pdf, manifest, project_dir):
    """Check a built pack will print right: trims, mirrored backs, crop marks, fonts, images.

    A relative FILE is looked for in the current folder, then in the project's folder."""
    from generator.check.preflight import preflight as run
    given = _given_folder(ctx, project_dir)
    folder = str(find_root(given) or given)
    path = _existing(pdf, folder)
    report = run(path, _existing(manifest, folder) if manifest else None, display=pdf, foreign=True)
    for finding in report.findings:
        click.echo(f"{pdf}: {finding}", err=True)
    click.echo(report.summary())
    ctx.exit(0 if report.ok else 1)


@main.command()
@click.option("--paper", type=_choice(sorted(PAPERS)), default="a4", show_default=True, help="Paper size.")
@click.option("--duplex", type=_choice(["long", "short"]), default="long", show_default=True,
              help="The edge the printer flips the sheet on.")
@click.option("--printer", help="Name to save the measured offset under (with --offset).")
@click.option("--offset", help="The X,Y read off the printed calibration sheet: saves it for --printer.")
@click.option("--lang", help="The sheet's language, en or zh-Hans (default: your locale's, LANG or LC_ALL; else "
              "English).")
@_project_option
@click.pass_context
@handles_problems
def calibrate(ctx, paper, duplex, printer, offset, lang, project_dir):
    """Print a two-sided calibration sheet, or save the offset read off it for a printer."""
    from generator.atomic import write_atomic
    from generator.sheets.calibrate import calibration_sheet
    from generator.source.options import save_printer
    project, assets = _open(ctx, project_dir)
    values = _offset(offset)
    if values is not None:
        if not printer:
            raise click.UsageError("--offset needs --printer NAME to save it under")
        path = save_printer(project.root, printer, values, duplex)
        click.echo(f"saved back offset {values[0]:g},{values[1]:g} mm for printer '{printer}' in "
                   f"{project.display(path)}; builds use it (or pass --printer {printer})")
        return
    from generator.source.i18n import ENGINE_LANGUAGES, engine_words
    if lang is None:
        lang = engine_words()            # the reader's locale (LANG, LC_ALL), else English
    elif lang not in ENGINE_LANGUAGES:
        raise click.UsageError(f"--lang: the engine speaks {' and '.join(ENGINE_LANGUAGES)}, not {lang!r}")
    target = project.build / f"calibration-{paper}-{duplex}.pdf"
    write_atomic(target, calibration_sheet(assets.edition(lang), paper, duplex, lang))
    click.echo(f"wrote {project.display(target)}: print it two-sided, read X and Y, then run "
               f"./pnp calibrate --printer NAME --offset X,Y")


if __name__ == "__main__":  # pragma: no cover
    main()
