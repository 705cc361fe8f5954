"""The errors of ge-opt: a user's mistake is a `GeError` whose text is one finished diagnostic.

`GeError` is an xDSL `DiagnosticException`, so xDSL's driver loop treats it as its own
(`--verify-diagnostics`).  `op_error` locates a message at an op (`file:line:col: error:
'ge.conv2d' op ...`), `location_str` renders a location attribute.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, CallSiteLoc, FileLineColLoc, FusedLoc, NameLoc
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import DiagnosticException


class GeError(DiagnosticException):
    """A user's mistake; `str(e)` is one finished diagnostic line (or a few, for notes)."""


class OptionError(GeError):
    """A bad pass option value (ge-opt exits 2, as for a bad flag)."""


class UsageError(Exception):
    """A bad command line: unknown flag, pass or option (exit 2)."""


MAX_DIMENSION = 2**63 - 1
MAX_INT_WIDTH = 2**24 - 1
"""MLIR's widest integer type (xDSL has no limit, and computes with `1 << width`)."""


def location_str(loc: Attribute | None, fallback: str = "<unknown>") -> str:
    """`file:line:col` of a location attribute (the first file location of fused ones)."""
    if isinstance(loc, FileLineColLoc):
        return f"{loc.filename.data}:{loc.line.data}:{loc.column.data}"
    if isinstance(loc, NameLoc):
        inner = location_str(loc.location, "")
        return inner or f"{fallback} ({loc.desc.data})"
    if isinstance(loc, FusedLoc) and isinstance(loc.locations, ArrayAttr):
        for inner in loc.locations.data:
            text = location_str(inner, "")
            if text:
                return text
    if isinstance(loc, CallSiteLoc):
        return location_str(loc.callee, fallback)
    return fallback


def op_error(op: Operation, message: str, fallback: str = "<unknown>") -> GeError:
    """A located error for `op`: `file:line:col: error: 'name' op message`."""
    where = location_str(op.location, fallback)
    return GeError(f"{where}: error: '{op.name}' op {message}")
