"""Render worker processes that never outlive the build that started them.

A worker is forked (it shares the loaded WeasyPrint and the work list) and asks Linux to kill
it when its parent dies: a build killed with SIGKILL — which runs no clean-up code — must not
leave workers rendering on for minutes. Elsewhere (no prctl) workers still end when their
queue closes, after the chunk in hand.
"""
from __future__ import annotations

import gc
import multiprocessing
import multiprocessing.util
import os
from concurrent.futures import ProcessPoolExecutor

from generator.processes import die_with_parent
from generator.render.weasy import release_font_configs


PYTHON_DEFAULT = (700, 10, 10)


def worker_pool(jobs: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"),
                               initializer=start_worker, initargs=(os.getpid(),))


def start_worker(parent: int) -> None:
    """A new worker dies with its parent, and leaves what it inherited out of its collector's
    walk: the parent's heap (WeasyPrint, the game, the faces' HTML) lives as long as the worker,
    and each full collection walked all of it again, writing to every object's header and so
    copying the pages it shares with the parent (deck450: 0.15 → 0.06 s of collecting a worker,
    a cold build 0.1 s shorter)."""
    die_with_parent(parent)
    gc.freeze()
    gc.set_threshold(*PYTHON_DEFAULT)    # not the build's (commands/start.py): layouts make cycles
    # a worker ends with os._exit: what it must tidy runs as multiprocessing's own finalizer
    multiprocessing.util.Finalize(None, release_font_configs, exitpriority=10)
