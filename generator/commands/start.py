"""How a `pnp` process starts: the command runs here, in this process, and ends with it.

No process is left behind: `pnp watch` is the way to keep the libraries loaded between builds."""
from __future__ import annotations


def main() -> None:
    from generator.commands.cli import main as command
    command()
