"""Run work on a call stack with room to spare: a workaround for CPython 3.11 and 3.12.

Since 3.11, CPython keeps Python frames on a per-thread stack made of chunks (16 KB at first).
It frees a chunk as soon as the frame that began it returns, so a loop that keeps calling at the
depth where one chunk ends maps and unmaps memory on every call (python/cpython#142183, fixed
by a kept spare chunk in 3.13). Where that depth falls depends on every frame below: a card
render worker did so 35,000 times in a cold deck450 build (0.1–0.2 s of system time) when pnp
was started as `./pnp`, and 1,600 times as `python -m generator`, for the same work.

`roomy(work, *args)` calls work from a frame so large that CPython starts a new chunk of 256 KB
for it, which stays until work returns: the frames work calls fit in the rest of that chunk
(about 125 KB, hundreds of levels), wherever the caller was. The frame's size comes from locals
it never sets.
"""
from __future__ import annotations

import functools

SLOTS = 16_400        # locals of 8 bytes: a 131 KB frame, for which CPython makes a 256 KB chunk


def roomy(work, *args, **kwargs):
    """work(*args, **kwargs), called on a call stack with room (see the module)."""
    return _roomy()(work, *args, **kwargs)


@functools.cache
def _roomy():
    def call(work, *args, **kwargs):
        return work(*args, **kwargs)
    code = call.__code__
    names = code.co_varnames + tuple(f"_{n}" for n in range(SLOTS))
    call.__code__ = code.replace(co_varnames=names, co_nlocals=len(names))
    return call
