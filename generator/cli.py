"""The `pnp` command (also `python -m generator`).

Exit status: 0 done, 1 the input has problems (printed one per line as
`file:line: message`), 2 the command was used wrongly.
"""
from __future__ import annotations

import functools
import sys
import traceback

import click

from generator import __version__
from generator.errors import PnpError
from generator.layout import PAPERS
from generator.project import Project, isolate_fonts


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


def _open(ctx: click.Context, project_dir: str | None):
    from generator.assets import Assets
    root = project_dir or ctx.find_root().params.get("project_dir") or "."
    project = Project.at(root)
    isolate_fonts(project)
    return project, Assets(project)


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
    from generator.load import load_game
    project, _ = _open(ctx, project_dir)
    for game_id in project.games():
        game = load_game(project, game_id)
        click.echo(f"{game_id}: {game.spec.title}")
        for deck in game.decks.values():
            total = len(deck.cards)
            click.echo(f"  deck  {deck.id:<18} {deck.spec.name} ({total} designs, {deck.trim[0]:g}×{deck.trim[1]:g} mm)")
        for piece in game.pieces.values():
            click.echo(f"  piece {piece.id:<18} {piece.name} ({piece.size.width:g}×{piece.size.height:g} mm)")
        for pack in game.packs:
            label = f" {pack.variant}" if pack.variant else ""
            click.echo(f"  pack  {pack.players}p{label}: " + ", ".join(f"{d} {e.count}" for d, e in pack.decks.items()))


@main.command()
@click.argument("game", required=False)
@_project_option
@click.pass_context
@handles_problems
def validate(ctx, game, project_dir):
    """Schema and rules checks; exit 0 when clean, 1 with errors."""
    from generator.build import check_game
    project, assets = _open(ctx, project_dir)
    failed = False
    for game_id in [game] if game else project.games():
        try:
            checked = check_game(project, assets, game_id)
        except PnpError as exc:
            for problem in exc.problems:
                click.echo(str(problem), err=True)
            failed = True
            continue
        for note in checked.notes:
            click.echo(str(note))
        click.echo(f"{game_id}: valid ({len(checked.notes)} notes)")
    ctx.exit(1 if failed else 0)


@main.command()
@click.argument("game", required=False)
@click.option("--players", help="Player counts to build, e.g. 4 or 3,4 (default: every pack).")
@click.option("--paper", type=click.Choice(sorted(PAPERS)), help="Paper size (default: both).")
@_project_option
@click.pass_context
@handles_problems
def build(ctx, game, players, paper, project_dir):
    """Validate, then write the packs to build/<game>/ (refuses to print on an error)."""
    from generator.build import build_game
    counts = _players(players)
    project, assets = _open(ctx, project_dir)
    games = [game] if game else project.games()
    if counts and not game:
        raise click.UsageError("--players needs a GAME")
    for game_id in games:
        build_game(project, assets, game_id, counts, [paper] if paper else None, say=click.echo)


if __name__ == "__main__":  # pragma: no cover
    main()
