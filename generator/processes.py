"""Forked helper processes that never outlive the build that started them.

A helper is forked (it shares what the build has loaded) and asks Linux to kill it when its
parent dies: a build killed with SIGKILL, which runs no clean-up code, must not leave helpers
working on for minutes. Elsewhere (no prctl) a helper still ends when its work is done.
"""
from __future__ import annotations

import ctypes
import gc
import os
import signal
import sys
from typing import Callable

PR_SET_PDEATHSIG = 1
_AT_HELPER_EXIT: list[Callable[[], None]] = []


def at_helper_exit(tidy: Callable[[], None]) -> None:
    """Have every helper run `tidy` as it ends: it ends with os._exit, which runs no exit function,
    and what it made for itself alone (a font configuration's folder of fonts) must go with it."""
    _AT_HELPER_EXIT.append(tidy)


def die_with_parent(parent: int) -> None:
    """In a forked process: be killed when `parent` dies (and end now if it already has)."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:        # the parent died before the request took effect
        os._exit(1)


class Helper:
    """work() run in a forked process while this one goes on; result() is the bytes it returned,
    or None if it failed in any way (the caller then does the work itself). stop() ends it if
    its result is not wanted (the caller failed first). OSError if no process can be forked.

    A bare fork rather than multiprocessing.Process: that one prints a failed helper's traceback
    on the build's terminal and flushes, from the helper, whatever output the build had buffered
    when it forked; here a failure only means the caller does the work."""

    def __init__(self, work: Callable[[], bytes]):
        parent = os.getpid()
        read, write = os.pipe()
        try:
            pid = os.fork()
        except OSError:                # no process to be had (a limit, no memory): the caller works alone
            os.close(read)
            os.close(write)
            raise
        if pid == 0:        # the helper: never returns into the build
            status = 1
            try:
                gc.disable()        # a collection would touch, and so copy, every page of the heap it shares
                os.close(read)
                die_with_parent(parent)
                data = work()
                with os.fdopen(write, "wb") as out:
                    out.write(data)
                status = 0
            finally:
                for tidy in _AT_HELPER_EXIT:
                    try:
                        tidy()
                    except Exception:       # (tidying is best effort: the helper's result stands)
                        pass
                os._exit(status)
        os.close(write)
        self.pid, self.read = pid, read

    def result(self) -> bytes | None:
        with os.fdopen(self.read, "rb") as pipe:
            data = pipe.read()
        try:
            _, status = os.waitpid(self.pid, 0)
        except ChildProcessError:        # reaped elsewhere: its bytes stand if the caller can read them
            status = 0
        return data if status == 0 else None

    def stop(self) -> None:
        os.close(self.read)
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass


def can_fork() -> bool:
    return hasattr(os, "fork")
