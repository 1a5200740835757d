"""How a `pnp` process starts: the command runs here, in this process, and ends with it.

No process is left behind: `pnp watch` is the way to keep the libraries loaded between builds."""
from __future__ import annotations

import gc

# Python collects its youngest objects every 700 net allocations of containers. What a command
# allocates mostly lives as long as it does (cards, their plain copies for templates, faces,
# records) and few of those make cycles, so each collection walks young objects it cannot free.
# A command's process collects every BUILD_YOUNG allocations instead; render workers, whose
# WeasyPrint layouts are full of cycles, collect as Python does (render/workers.py).
BUILD_YOUNG = 100_000


def main() -> None:
    gc.set_threshold(BUILD_YOUNG, *gc.get_threshold()[1:])
    from generator.commands.cli import main as command
    command()
