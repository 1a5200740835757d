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


def test_roomy_calls_its_work_with_what_it_was_given():
    from generator.callstack import SLOTS, roomy
    assert roomy(divmod, 17, 5) == (3, 2)
    assert roomy(dict, a=1) == {"a": 1}
    with pytest.raises(ZeroDivisionError):
        roomy(divmod, 1, 0)
    from generator.callstack import _roomy
    assert _roomy().__code__.co_nlocals >= SLOTS          # the frame that makes a chunk of its own


def _depth_probe(depth):
    return 0 if depth == 0 else 1 + _depth_probe(depth - 1)


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="Linux counters")
def test_calls_at_a_chunk_boundary_inside_roomy_do_not_map_memory_each_time():
    """CPython 3.11's frame stack frees a chunk as soon as its first frame returns: calls that
    keep crossing a chunk's end map and unmap memory each time (counted as minor page faults of
    the fresh memory). Inside roomy, the same calls at every depth up to 300 stay in one chunk."""
    import resource
    from generator.callstack import roomy

    def sweep():
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        for depth in range(300):
            for _ in range(20):
                _depth_probe(depth)
        return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

    roomy(sweep)                          # warm: code objects specialised, pages touched
    assert roomy(sweep) < 50
