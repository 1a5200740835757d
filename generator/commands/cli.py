"""The `pnp` command (also `python -m generator`).

Exit status: 0 done, 1 the input has problems (printed one per line as
`file:line: message`), 2 the command was used wrongly.
"""
from __future__ import annotations

import functools
import os
import sys
import traceback

import click

from generator import __version__
from generator.errors import PnpError
from generator.geometry import DUPLEX_MODES, PAPERS
from generator.source.project import Project, isolate_fonts


def _project_option(func):
    return click.option("--project", "project_dir", type=click.Path(file_okay=False), default=None,
                        help="Project folder holding cards/, templates/, fonts/, build/ (default: the current folder).")(func)


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
            return func(*args, **kwargs)
        except PnpError as exc:
            for problem in exc.problems:
                click.echo(str(problem), err=True)
            ctx.exit(1)
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except KeyboardInterrupt:
            click.echo("interrupted; earlier outputs are unchanged", err=True)
            ctx.exit(130)
        except Exception as exc:  # a bug in pnp, not in the game: one line unless -v
            if ctx.find_root().params.get("verbose"):
                traceback.print_exc()
            click.echo(f"internal error: {type(exc).__name__}: {exc} (run with -v for details, and please report it)",
                       err=True)
            ctx.exit(3)
    return wrapper


def _project(ctx: click.Context, project_dir: str | None) -> Project:
    root = project_dir or ctx.find_root().params.get("project_dir") or "."
    project = Project.at(root)
    isolate_fonts(project)
    return project


def _assets(project: Project):
    from generator.source.assets import Assets
    return Assets(project)


def _open(ctx: click.Context, project_dir: str | None):
    project = _project(ctx, project_dir)
    return project, _assets(project)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@_project_option
@click.option("-v", "--verbose", is_flag=True, help="Show tracebacks of internal errors.")
@click.version_option(__version__, prog_name="pnp")
def main(project_dir, verbose):
    """Turn card data into print-and-play kits."""


@main.command("list")
@_project_option
@click.pass_context
@handles_problems
def list_games(ctx, project_dir):
    """Games, their components and the packs they offer."""
    from generator.source.load import load_game
    project, _ = _open(ctx, project_dir)
    for game_id in project.games():
        game = load_game(project, game_id)
        languages = f" ({', '.join(game.languages)})" if len(game.languages) > 1 else ""
        click.echo(f"{game_id}: {game.spec.title}{languages}")
        for deck in game.decks.values():
            total = len(deck.cards)
            click.echo(f"  deck  {deck.id:<18} {deck.spec.name} ({total} designs, {deck.trim[0]:g}×{deck.trim[1]:g} mm)")
        for piece in game.pieces.values():
            click.echo(f"  piece {piece.id:<18} {piece.name} ({piece.size.width:g}×{piece.size.height:g} mm)")
        for pack in game.packs:
            label = f" {pack.variant}" if pack.variant else ""
            click.echo(f"  pack  {pack.players}p{label}: " + ", ".join(f"{d} {e.count}" for d, e in pack.decks.items()))


def _lang_option(func):
    return click.option("--lang", help="One language of the game, e.g. en or zh-Hans (default: every language it has).")(func)


@main.command()
@click.argument("game", required=False)
@_lang_option
@_project_option
@click.pass_context
@handles_problems
def validate(ctx, game, lang, project_dir):
    """Schema and rules checks of every language; exit 0 when clean, 1 with errors."""
    from generator.check.translations import coverage_line
    from generator.sheets.kit import check_game, editions, plural
    project, assets = _open(ctx, project_dir)
    failed = False
    for game_id in [game] if game else project.games():
        try:
            languages = editions(project, game_id, lang)
        except PnpError as exc:
            for problem in exc.problems:
                click.echo(str(problem), err=True)
            failed = True
            continue
        for language in languages:
            label = f"{game_id} ({language})" if len(languages) > 1 or lang else game_id
            try:
                checked = check_game(project, assets, game_id, language)
            except PnpError as exc:
                for problem in exc.problems:
                    click.echo(str(problem), err=True)
                failed = True
                continue
            notes = checked.notes if checked.game.is_source else []    # claims are the same in every language
            for note in notes:
                click.echo(str(note))
            if not checked.game.is_source:
                click.echo(f"{game_id}: {coverage_line(checked.game)}")
            click.echo(f"{label}: valid ({plural(len(notes), 'note')})")
    ctx.exit(1 if failed else 0)


def _offset(value: str | None) -> tuple[float, float] | None:
    if value is None:
        return None
    try:
        x, y = (float(v) for v in value.split(","))
    except ValueError:
        raise click.BadParameter(f"expected two numbers in mm like 1.5,-0.5, got {value!r}") from None
    if abs(x) > 20 or abs(y) > 20:
        raise click.BadParameter(f"{value} mm is more than any printer's offset (at most ±20)")
    return x, y


@main.command()
@click.argument("game", required=False)
@click.option("--players", help="Player counts to build, e.g. 4 or 3,4 (default: every pack).")
@click.option("--paper", type=click.Choice(sorted(PAPERS)), help="Paper size (default: both).")
@click.option("--duplex", type=click.Choice(DUPLEX_MODES),
              help="long (default) or short edge flip; none: backs on separate sheets at the end; gutterfold: "
                   "front and back side by side to fold.")
@click.option("--back-offset", help="Shift every back by X,Y mm to correct the printer (see pnp calibrate).")
@click.option("--printer", help="Use the settings saved for this printer in pnp.toml.")
@click.option("--ink-saver", is_flag=True, help="Draft print: no full-bleed fills, light frames, black text.")
@click.option("--fit", is_flag=True, help="Print boards larger than a sheet reduced onto one sheet instead of tiled.")
@click.option("--jobs", type=click.IntRange(1, 64), default=None,
              help="Processes rendering card faces (default: every core).")
@click.option("--only", help="Just these cards (deck/card or card, comma-separated), to build/<game>/cards/.")
@_lang_option
@_project_option
@click.pass_context
@handles_problems
def build(ctx, game, players, paper, duplex, back_offset, printer, ink_saver, fit, jobs, only, lang, project_dir):
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
                                     _jobs(jobs), lang)
        for path in written:
            click.echo(f"wrote {path} and its .png ({'rendered' if fresh else 'from the cache'})")
        return
    from generator.source import stamp
    counts = _players(players)
    offset = _offset(back_offset)
    project = _project(ctx, project_dir)
    options = resolve(project.root, duplex, offset, ink_saver, fit, printer)
    games = [game] if game else project.games()
    if counts and not game:
        raise click.UsageError("--players needs a GAME")
    assets = None
    from generator.source.load import game_languages
    for game_id in games:
        languages = game_languages(project, game_id)
        if lang and lang not in languages:
            raise click.UsageError(f"{game_id} has no {lang} edition (languages: {', '.join(languages)})")
        settings = {"players": counts, "paper": paper, "options": options}
        if lang:
            settings["lang"] = lang          # (without it, the same stamp as pnp watch's)
        inputs = stamp.inputs_hash(project.root, game_id, settings)
        current = stamp.up_to_date(project.root, game_id, inputs)
        if current is not None:
            click.echo(f"{game_id}: up to date ({len(current)} files; nothing changed since the last build)")
            continue
        from generator.sheets.kit import build_game     # the heavy libraries load only now
        assets = assets or _assets(project)
        written = []
        for language in [lang] if lang else languages:
            files, _ = build_game(project, assets, game_id, counts, [paper] if paper else None, say=click.echo,
                                  options=options, jobs=_jobs(jobs), progress=_progress, lang=language)
            written += files
        stamp.record(project.root, game_id, written, inputs)


@main.command()
@click.argument("game", required=False)
@click.option("--players", help="Player counts to build, e.g. 4 or 3,4 (default: every pack).")
@click.option("--paper", type=click.Choice(sorted(PAPERS)), help="Paper size (default: both).")
@click.option("--duplex", type=click.Choice(DUPLEX_MODES))
@click.option("--printer", help="Use the settings saved for this printer in pnp.toml.")
@click.option("--jobs", type=click.IntRange(1, 64), default=None)
@_project_option
@click.pass_context
@handles_problems
def watch(ctx, game, players, paper, duplex, printer, jobs, project_dir):
    """Rebuild on every save of a card, template, font or icon, and say what was rebuilt."""
    from generator.source.options import resolve
    from generator.commands.watch import Watcher
    project = _project(ctx, project_dir)
    games = [game] if game else project.games()
    missing = [g for g in games if g not in project.games()]
    if missing:
        raise click.UsageError(f"no game '{missing[0]}' under cards/ (games: {', '.join(project.games())})")
    counts = _players(players)
    if counts and not game:
        raise click.UsageError("--players needs a GAME")
    options = resolve(project.root, duplex, None, False, False, printer)
    watcher = Watcher(project, games, counts, [paper] if paper else None, options, _jobs(jobs),
                      say=lambda line: click.echo(line))
    watcher.run()


def _progress(label: str, total: int):
    """A progress bar on stderr, on a terminal only; returns a function advancing it."""
    if not sys.stderr.isatty():
        return None
    bar = click.progressbar(length=total, label=f"rendering {label}", file=sys.stderr)
    bar.__enter__()
    state = {"done": 0}

    def advance(n: int) -> None:
        bar.update(n)
        state["done"] += n
        if state["done"] >= total:
            bar.__exit__(None, None, None)
    return advance


@main.command()
@click.argument("game")
@click.option("--since", help="A git revision (default: the last build).")
@click.option("--players", type=click.IntRange(1, 12), help="The pack whose copies to reprint (default: the largest).")
@click.option("--paper", type=click.Choice(sorted(PAPERS)), help="Paper size (default: both).")
@click.option("--duplex", type=click.Choice(DUPLEX_MODES))
@click.option("--jobs", type=click.IntRange(1, 64), default=None)
@click.option("--lang", help="The language to reprint, for a game in several (default: the data's language).")
@_project_option
@click.pass_context
@handles_problems
def reprint(ctx, game, since, players, paper, duplex, jobs, lang, project_dir):
    """A pack of only the cards changed since a revision or the last build, with their backs."""
    from generator.source.options import resolve
    from generator.commands.reprint import reprint as run
    project, assets = _open(ctx, project_dir)
    options = resolve(project.root, duplex)
    run(project, assets, game, since, players, [paper] if paper else None, options, _jobs(jobs),
        say=click.echo, lang=lang)


@main.command()
@click.argument("game")
@click.option("--shop", type=click.Choice(["tgc", "mpc", "dtc", "png"]),
              help="Card images for a print shop (png: each card at its own size), zipped with counts.csv.")
@click.option("--dpi", type=click.Choice(["300", "600"]), default="300", show_default=True)
@click.option("--tts", is_flag=True, help="Tabletop Simulator deck sheets and saved objects.")
@click.option("--pdfx", is_flag=True, help="With --shop dtc: write the PDF as PDF/X-4.")
@click.option("--icc", type=click.Path(dir_okay=False), help="The shop's CMYK ICC profile for --pdfx.")
@click.option("--players", type=click.IntRange(1, 12), help="The pack to export (default: the largest).")
@click.option("--jobs", type=click.IntRange(1, 64), default=None, help="Processes drawing images (default: every core).")
@_lang_option
@_project_option
@click.pass_context
@handles_problems
def export(ctx, game, shop, dpi, tts, pdfx, icc, players, jobs, lang, project_dir):
    """Files for print shops and Tabletop Simulator, written to build/<game>/."""
    if not shop and not tts:
        raise click.UsageError("say what to export: --shop tgc|mpc|dtc|png and/or --tts")
    if pdfx and shop != "dtc":
        raise click.UsageError("--pdfx applies to the PDF of --shop dtc")
    from generator.sheets.kit import editions
    project, assets = _open(ctx, project_dir)
    jobs = _jobs(jobs)
    for language in editions(project, game, lang):
        if shop:
            from generator.export.shops import export_shop
            export_shop(project, assets, game, shop, int(dpi), players, jobs, pdfx, icc, say=click.echo, lang=language)
        if tts:
            from generator.export.tts import export_tts
            export_tts(project, assets, game, players, jobs, say=click.echo, lang=language)


@main.command()
@click.argument("game", required=False)
@click.option("--players", type=click.IntRange(1, 12), help="The pack to show (default: the largest).")
@click.option("--jobs", type=click.IntRange(1, 64), default=None)
@_lang_option
@_project_option
@click.pass_context
@handles_problems
def gallery(ctx, game, players, jobs, lang, project_dir):
    """A web page of every card and board: build/<game>/gallery/index.html (gallery-<lang>/ per language)."""
    from generator.export.gallery import build_gallery
    from generator.sheets.kit import editions
    project, assets = _open(ctx, project_dir)
    for game_id in [game] if game else project.games():
        for language in editions(project, game_id, lang):
            build_gallery(project, assets, game_id, players, _jobs(jobs), say=click.echo, lang=language)


@main.command()
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@_project_option
@click.pass_context
@handles_problems
def serve(ctx, port, project_dir):
    """Serve build/ (the galleries) on http://127.0.0.1:PORT/."""
    from generator.export.gallery import serve as run
    project = _project(ctx, project_dir)
    try:
        run(project, port, say=click.echo)
    except OSError as exc:
        raise click.UsageError(f"cannot listen on port {port}: {exc.strerror}") from None


@main.command("new")
@click.argument("game")
@click.option("--title", help="The game's title (default: made from GAME).")
@click.option("--lang", type=click.Choice(["en", "zh-Hans"]), default="en", show_default=True,
              help="The language the new game's cards and templates are written in.")
@_project_option
@click.pass_context
@handles_problems
def new_game(ctx, game, title, lang, project_dir):
    """Start a game: cards/GAME and templates/GAME that validate and build as written."""
    from pathlib import Path

    from generator.commands.newgame import new_game as make
    root = Path(project_dir or ctx.find_root().params.get("project_dir") or ".").resolve()
    (root / "cards").mkdir(parents=True, exist_ok=True)
    written = make(root, game, title, lang)
    for name in written:
        click.echo(f"  wrote {name}")
    click.echo(f"{game}: ready. Next: pnp validate {game}, then pnp build {game} --players 2; "
               "the format is in docs/authoring.md")


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
@click.argument("pdf", type=click.Path(exists=True, dir_okay=False))
@click.option("--manifest", type=click.Path(exists=True, dir_okay=False), help="Default: the .json beside the PDF.")
@click.pass_context
@handles_problems
def preflight(ctx, pdf, manifest):
    """Check a built pack will print right: trims, mirrored backs, crop marks, fonts, images."""
    from pathlib import Path

    from generator.check.preflight import preflight as run
    report = run(Path(pdf), Path(manifest) if manifest else None, display=pdf)
    for finding in report.findings:
        click.echo(f"{pdf}: {finding}", err=True)
    click.echo(report.summary())
    ctx.exit(0 if report.ok else 1)


@main.command()
@click.option("--paper", type=click.Choice(sorted(PAPERS)), default="a4", show_default=True)
@click.option("--duplex", type=click.Choice(["long", "short"]), default="long", show_default=True)
@click.option("--printer", help="Name to save the measured offset under (with --offset).")
@click.option("--offset", help="The X,Y read off the printed calibration sheet: saves it for --printer.")
@click.option("--lang", help="The sheet's language, en or zh-Hans (default: the language of the project's games).")
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
    from generator.source.i18n import ENGINE_LANGUAGES
    from generator.source.load import game_languages
    if lang is None:
        sources = {game_languages(project, g)[0] for g in project.games()}
        lang = sources.pop() if len(sources) == 1 else "en"
    elif lang not in ENGINE_LANGUAGES:
        raise click.UsageError(f"--lang: the engine speaks {' and '.join(ENGINE_LANGUAGES)}, not {lang!r}")
    target = project.build / f"calibration-{paper}-{duplex}.pdf"
    write_atomic(target, calibration_sheet(assets.edition(lang), paper, duplex, lang))
    click.echo(f"wrote {project.display(target)}: print it two-sided, read X and Y, then run "
               f"pnp calibrate --printer NAME --offset X,Y")


if __name__ == "__main__":  # pragma: no cover
    main()
