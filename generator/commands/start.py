"""How a `pnp` process starts: hand the command to a running build server (commands/server.py),
else run it here, and then leave a server for the next command if this one needed one.

Imports only the standard library until it knows the command runs here."""
from __future__ import annotations

import os
import sys


def main() -> None:
    from generator.commands import server
    environ = dict(os.environ)          # as started: the command changes its own (FONTCONFIG_FILE)
    code = server.hand_over(sys.argv)
    if code is not None:
        sys.exit(code)
    from generator.commands.cli import main as command
    from generator.callstack import roomy
    code = 0
    try:
        roomy(command)      # a call stack with room, however pnp was started (callstack.py)
    except SystemExit as exc:       # how a click command ends, whatever its status
        code = server.exit_status(exc.code)
    finally:
        server.start_later(environ)
    os._exit(server.wind_up(code))  # as a served command ends (server.wind_up says why)
