"""generator/processes.py: a forked helper gives back what its work returned, None when the work
failed, and leaves no process behind when stopped."""
from __future__ import annotations

import os

import pytest

from generator.processes import Helper


def test_a_helper_returns_its_works_bytes_from_its_own_process():
    here = os.getpid()
    helper = Helper(lambda: f"{os.getpid()} {os.getppid()}".encode())
    pid, parent = map(int, helper.result().split())
    assert pid == helper.pid != here and parent == here


def test_a_helper_whose_work_fails_returns_none():
    def fails() -> bytes:
        raise RuntimeError("no")
    assert Helper(fails).result() is None
    assert Helper(lambda: "not bytes").result() is None


def test_a_stopped_helper_is_gone():
    import time
    helper = Helper(lambda: time.sleep(60) or b"late")
    helper.stop()
    with pytest.raises(ChildProcessError):
        os.waitpid(helper.pid, os.WNOHANG)
    with pytest.raises(ProcessLookupError):
        os.kill(helper.pid, 0)


def test_no_process_to_be_had_is_an_oserror_and_leaks_nothing(monkeypatch):
    def refused():
        raise BlockingIOError(11, "Resource temporarily unavailable")
    before = len(os.listdir("/proc/self/fd")) if os.path.isdir("/proc/self/fd") else None
    monkeypatch.setattr(os, "fork", refused)
    with pytest.raises(OSError):
        Helper(lambda: b"never")
    if before is not None:
        assert len(os.listdir("/proc/self/fd")) == before


def _frozen(_):
    import gc
    return gc.get_freeze_count()


def test_a_render_worker_leaves_what_it_inherited_out_of_its_collections():
    """A worker's full collections would walk (and so copy) the whole heap it shares with the
    build's process; it freezes that heap when it starts."""
    import gc
    from generator.render.workers import worker_pool
    inherited = [[n] for n in range(10_000)]          # containers the collector tracks
    gc.collect()
    before = gc.get_freeze_count()
    with worker_pool(2) as pool:
        counts = list(pool.map(_frozen, range(4)))
    assert all(count >= before + len(inherited) for count in counts)
    assert gc.get_freeze_count() == before            # this process is left as it was


def _threshold(_):
    import gc
    return gc.get_threshold()[0]


def test_a_command_collects_its_young_objects_less_often_and_its_render_workers_as_python_does(monkeypatch):
    """A command's process collects its youngest objects every BUILD_YOUNG allocations (what a build
    makes mostly lives as long as it); a render worker forked from it, whose layouts make cycles,
    collects as Python does."""
    import gc
    from generator.commands import cli, start
    from generator.render.workers import PYTHON_DEFAULT, worker_pool
    seen = []

    def command():
        seen.append(gc.get_threshold()[0])
        with worker_pool(1) as pool:
            seen.extend(pool.map(_threshold, range(1)))
    before = gc.get_threshold()
    monkeypatch.setattr(cli, "main", command)
    try:
        start.main()
    finally:
        gc.set_threshold(*before)
    assert seen == [start.BUILD_YOUNG, PYTHON_DEFAULT[0]]
