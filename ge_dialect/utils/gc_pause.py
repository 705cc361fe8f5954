"""Pausing Python's cyclic garbage collector while a large module is built or rewritten.

A full collection walks every tracked object; a module of 100k ops is millions of them, and
parsing, importing and passes allocate enough to trigger several collections that find
nothing to free (the IR is alive).  `gc_paused()` turns automatic collection off for the
block and back on (if it was on) after it.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pauses Python's automatic cyclic garbage collection within the block (if it was on)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
