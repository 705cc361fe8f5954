"""What passes tell the user, recorded for the tool to print: a pass never prints.

One side channel for both kinds of message a pass has, kept against the module it ran on
(weakly: a module that goes away takes its records with it):

- reports, any object whose `str()` is the text to show (say, `assign-streams{report=true}`'s
  stream allocation summary); the driver takes them after each pass and prints them on
  stderr;
- statistics, counts per pass as mlir-opt's `--pass-statistics` shows them; the driver takes
  them after the pipeline.  Pass and statistic names keep the order they were first counted
  in, so the printed report is deterministic.

    record(module, report)                      # in a pass
    count(module, "fuse", "fusions", 3)         # in a pass
    take(module) -> [report]                    # in the tool (the records are removed)
    take_statistics(module) -> {"fuse": {"fusions": 3}}

Python callers read them the same way.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

from xdsl.ir import Operation


@dataclass
class _Told:
    """What the passes told about one module, not yet taken."""

    reports: list[object] = field(default_factory=list)
    counts: dict[str, dict[str, int]] = field(default_factory=dict)


_TOLD: weakref.WeakKeyDictionary[Operation, _Told] = weakref.WeakKeyDictionary()


def _told(module: Operation) -> _Told:
    told = _TOLD.get(module)
    if told is None:
        told = _TOLD[module] = _Told()
    return told


def record(module: Operation, report: object) -> None:
    """Records `report` (any object whose `str()` is the text to show) for `module`."""
    _told(module).reports.append(report)


def count(module: Operation, pass_name: str, statistic: str, n: int = 1) -> None:
    """Adds `n` to `statistic` of `pass_name` for `module` (0 still lists it)."""
    per_pass = _told(module).counts.setdefault(pass_name, {})
    per_pass[statistic] = per_pass.get(statistic, 0) + n


def take(module: Operation) -> list[object]:
    """The reports recorded for `module` since the last call, oldest first."""
    told = _TOLD.get(module)
    if told is None:
        return []
    reports, told.reports = told.reports, []
    return reports


def take_statistics(module: Operation) -> dict[str, dict[str, int]]:
    """The counts recorded for `module` since the last call, by pass then statistic."""
    told = _TOLD.get(module)
    if told is None:
        return {}
    counts, told.counts = told.counts, {}
    return counts
