"""WeasyPrint, loaded once and quickly.

At import WeasyPrint looks for pango, harfbuzz and friends under several names; for each
name without a full soname cffi asks ctypes.util.find_library, which runs `ldconfig -p`
(22 times: 0.16 s of every start). The sonames it tries next (libpango-1.0.so.0 …)
load directly, so the lookup is skipped while it imports; if that finds nothing, it is
imported again the ordinary way.
"""
from __future__ import annotations

import contextlib
import ctypes.util
import functools
import sys


@functools.cache
def weasyprint():
    real = ctypes.util.find_library
    ctypes.util.find_library = lambda name: None
    try:
        import weasyprint as module
    except OSError:
        for name in [m for m in sys.modules if m == "weasyprint" or m.startswith("weasyprint.")]:
            del sys.modules[name]
        ctypes.util.find_library = real
        import weasyprint as module
    finally:
        ctypes.util.find_library = real
    return module


@contextlib.contextmanager
def without_margin_boxes():
    """Card pages have no margins, so their sixteen page-margin boxes (@top-left …) have no
    room and nothing to show; WeasyPrint still styles and lays out each of them, a fifth of a
    card's layout time. While a card document renders, that step returns none. (The info
    page, which has margins, is rendered without this.) Checked against WeasyPrint 70."""
    layout = weasyprint().layout
    original = layout.make_margin_boxes
    layout.make_margin_boxes = _none
    try:
        yield
    finally:
        layout.make_margin_boxes = original


def _none(context, page, state):
    return []
