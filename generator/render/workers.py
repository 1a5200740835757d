"""Render worker processes that never outlive the build that started them.

A worker is forked (it shares the loaded WeasyPrint and the work list) and asks Linux to kill
it when its parent dies: a build killed with SIGKILL — which runs no clean-up code — must not
leave workers rendering on for minutes. Elsewhere (no prctl) workers still end when their
queue closes, after the chunk in hand.
"""
from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
from concurrent.futures import ProcessPoolExecutor

PR_SET_PDEATHSIG = 1


def worker_pool(jobs: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"),
                               initializer=die_with_parent, initargs=(os.getpid(),))


def die_with_parent(parent: int) -> None:
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:        # the parent died before the request took effect
        os._exit(1)
