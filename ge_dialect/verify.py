"""Whole-module verification with located diagnostics.

`verify_module` is what `ge_dialect.api.verify` runs, and ge-opt after parsing and after
every pass: op verifiers (innermost first), SSA dominance (xDSL 0.75 does not check it),
then the module-wide stream rules.  The first failure is raised as a `GeError` located at
its op.
"""

from __future__ import annotations

from xdsl.ir import Operation

from ge_dialect.diagnostics import check_dominance, verify_located
from ge_dialect.stream import verify_streams


def verify_module(module: Operation, fallback: str = "<unknown>") -> None:
    """Raises a located GeError for the first rule `module` breaks."""
    verify_located(module, fallback)
    check_dominance(module, fallback)
    verify_streams(module)
