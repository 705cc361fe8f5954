"""Pass statistics: what fired, counted per pass, as mlir-opt's `--pass-statistics` shows.

A pass counts what it did against the module it ran on; the driver takes the counts after
the pipeline and prints them (`ge-opt --pass-statistics`).  A pass never prints.

    count(module, "fuse", "fusions", 3)          # in the pass
    take(module) -> {"fuse": {"fusions": 3}}     # in the tool (the counts are removed)

Pass names and statistic names are kept in the order they were first counted, so the
printed report is deterministic.
"""

from __future__ import annotations

import weakref

from xdsl.ir import Operation

_COUNTS: weakref.WeakKeyDictionary[Operation, dict[str, dict[str, int]]] = (
    weakref.WeakKeyDictionary()
)


def count(module: Operation, pass_name: str, statistic: str, n: int = 1) -> None:
    """Adds `n` to `statistic` of `pass_name` for `module` (0 still lists it)."""
    per_pass = _COUNTS.setdefault(module, {}).setdefault(pass_name, {})
    per_pass[statistic] = per_pass.get(statistic, 0) + n


def take(module: Operation) -> dict[str, dict[str, int]]:
    """The counts recorded for `module` since the last call, by pass then statistic."""
    return _COUNTS.pop(module, {})
