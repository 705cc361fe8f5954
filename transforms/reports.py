"""Reports that passes record for the tool to print: a pass never prints.

A pass that has something to tell the user (say, `assign-streams{report=true}`'s stream
allocation summary) records it against the module it ran on; the driver takes the
records after each pass and prints them on stderr.  Python callers read them the same way.

    record(module, report)     # in the pass; `str(report)` is what the user sees
    take(module) -> [report]   # in the tool, after each pass (the records are removed)
"""

from __future__ import annotations

import weakref

from xdsl.ir import Operation

_REPORTS: weakref.WeakKeyDictionary[Operation, list[object]] = weakref.WeakKeyDictionary()


def record(module: Operation, report: object) -> None:
    """Records `report` (any object whose `str()` is the text to show) for `module`."""
    _REPORTS.setdefault(module, []).append(report)


def take(module: Operation) -> list[object]:
    """The reports recorded for `module` since the last call, oldest first."""
    return _REPORTS.pop(module, [])
