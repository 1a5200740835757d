"""Render worker processes that never outlive the build that started them.

A worker is forked (it shares the loaded WeasyPrint and the work list) and asks Linux to kill
it when its parent dies: a build killed with SIGKILL — which runs no clean-up code — must not
leave workers rendering on for minutes. Elsewhere (no prctl) workers still end when their
queue closes, after the chunk in hand.
"""
from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor

from generator.processes import die_with_parent


def worker_pool(jobs: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork"),
                               initializer=die_with_parent, initargs=(os.getpid(),))
