"""What ge-opt prints: IR whose floats re-parse to the same bits (the `mlir` target, kept in
a buffer until the run ends) and the pass statistics report.  Files are written by
`ge_dialect.utils.files`, replaced only when the whole run succeeded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from io import StringIO
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.targets.mlir import MLIRTarget
from xdsl.utils.target import Target

from ge_dialect import api

STATISTICS_TITLE = "... Pass statistics report ..."


def format_statistics(
    counts: dict[str, dict[str, int]], descriptions: Callable[[str], dict[str, str]]
) -> str:
    """mlir-opt's `--mlir-pass-statistics` report (pipeline display): a header, then each
    pass that counted something, in pipeline order, with one line per statistic sorted by
    name, `  (S) <value> <name> - <description>` (values right-aligned, names padded), and a
    blank line.  `descriptions(pass)` maps a statistic's name to its description (the name
    itself when missing)."""
    rule = "===" + "-" * 73 + "==="
    lines = [rule, " " * ((80 - len(STATISTICS_TITLE)) // 2) + STATISTICS_TITLE, rule]
    for pass_name, stats in counts.items():
        lines.append(pass_name)
        if not stats:
            continue
        described = descriptions(pass_name)
        width = max(len(str(v)) for v in stats.values())
        name_width = max(len(n) for n in stats)
        for name in sorted(stats):
            text = described.get(name, name.replace("-", " "))
            lines.append(f"  (S) {stats[name]:>{width}} {name:<{name_width}} - {text}")
    return "\n".join(lines) + "\n\n"


@dataclass(frozen=True)
class ExactMLIRTarget(MLIRTarget):
    """xDSL's `mlir` target (with its options), printing through `api.print_module`, so
    that float constants re-parse to the same bits."""

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(
            api.print_module(
                module,
                self.print_generic_format,
                properties_as_attributes=self.print_properties_as_attributes,
                debuginfo=self.print_debuginfo,
                syntax_highlight=self.syntax_highlight,
                ctx=ctx,
            )
        )
        print("\n", file=output)


@dataclass(frozen=True)
class GraphDefTarget(Target):
    """`-t ge-pbtxt`: the module's function as GE's `GraphDef` in protobuf text format
    (`api.print_graph_def`), the graph TorchAir hands GE."""

    name = "ge-pbtxt"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(api.print_graph_def(module))


class OutputBuffer(StringIO):
    """The printed IR, kept until the run ends (xDSL's loop closes its output stream)."""

    def close(self) -> None:
        pass
