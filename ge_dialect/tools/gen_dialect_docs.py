"""Generates docs/dialects.md: the reference of the `ge`, `stream` and `npu` dialects.

    python -m ge_dialect.tools.gen_dialect_docs > docs/dialects.md

Everything comes from the code: each dialect's module docstring, and for every op its
docstring (the first line is the summary, indented blocks are IR examples, the rest is the
description) and its IRDL definition (operands, results, properties and attributes with
their constraints and defaults, traits), so the page cannot drift from the ops; a test
(`test/unit/test_dialect_docs.py`) regenerates it and compares it with the committed file.
The dialects are loaded through the registry (`ge_dialect.ir.registry`), as the tools do.
"""

from __future__ import annotations

import inspect
import sys
import textwrap
from collections.abc import Iterator, Sequence
from io import StringIO

from xdsl.ir import Attribute, Dialect
from xdsl.irdl import (
    AllOf,
    AnyAttr,
    AnyOf,
    AttrConstraint,
    BaseAttr,
    EqAttrConstraint,
    IRDLOperation,
    OptionalDef,
    ParamAttrConstraint,
    RangeConstraint,
    RangeLengthConstraint,
    RangeOf,
    VarConstraint,
    VariadicDef,
)
from xdsl.printer import Printer

from ge_dialect.ir.registry import get_all_dialects

DIALECTS = ("ge", "stream", "npu")
"""The project's dialects, in the order the page documents them."""

COMMAND = "python -m ge_dialect.tools.gen_dialect_docs > docs/dialects.md"

SEGMENT_SIZES = ("operandSegmentSizes", "resultSegmentSizes")
"""Properties xDSL adds for optional and variadic operands: not the user's to write."""


def attribute_text(attr: Attribute) -> str:
    """`attr` as MLIR prints it."""
    out = StringIO()
    Printer(stream=out).print_attribute(attr)
    return out.getvalue()


def _base_name(cls: type) -> str:
    name = getattr(cls, "name", None)
    return name if isinstance(name, str) else cls.__name__


def constraint_text(c: AttrConstraint | RangeConstraint) -> str:
    """A readable form of an IRDL constraint (`tensor`, `array<i64>`, `i64 integer`, ...)."""
    if isinstance(c, RangeLengthConstraint):
        return constraint_text(c.constraint)
    if isinstance(c, RangeOf):
        return constraint_text(c.constr)
    if isinstance(c, VarConstraint):
        return f"{constraint_text(c.constraint)} (all `{c.name}` equal)"
    if isinstance(c, AnyAttr):
        return "any attribute"
    if isinstance(c, EqAttrConstraint):
        return f"`{attribute_text(c.attr)}`"
    if isinstance(c, BaseAttr):
        return f"`{_base_name(c.attr)}`"
    if isinstance(c, AnyOf):
        return " or ".join(constraint_text(a) for a in c.attr_constrs)
    if isinstance(c, AllOf):
        return " and ".join(constraint_text(a) for a in c.attr_constrs)
    if isinstance(c, ParamAttrConstraint):
        base = _base_name(c.base_attr)
        params = [constraint_text(p) for p in c.param_constrs if not isinstance(p, AnyAttr)]
        if base == "array":
            return f"`array` of {', '.join(params)}" if params else "`array`"
        if base in ("integer", "float") or c.base_attr.__name__ in ("IntegerAttr", "FloatAttr"):
            kind = "integer" if c.base_attr.__name__ == "IntegerAttr" else "float"
            element = [p for p in params if p.startswith("`") and "Data" not in p]
            element = [p for p in element if p not in ("`int`", "`float`")]
            return f"{kind} attribute of type {element[-1]}" if element else f"{kind} attribute"
        return f"`{base}` with parameters {', '.join(params)}" if params else f"`{base}`"
    return type(c).__name__


def _multiplicity(definition: object) -> str:
    if isinstance(definition, OptionalDef):
        return "optional"
    if isinstance(definition, VariadicDef):
        return "variadic"
    return "single"


def split_docstring(doc: str | None) -> tuple[str, list[tuple[str, str]]]:
    """(summary, blocks) of a docstring: the first paragraph is the summary; the rest, in order,
    are ("text", paragraph) and ("mlir" or "text-code", indented block) blocks, an indented
    block being IR (an example) when it holds a `%` value or an op name."""
    text = inspect.cleandoc(doc or "")
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if not line.strip()), len(lines))
    summary = " ".join(line.strip() for line in lines[:first])
    lines = lines[first - 1 :] if first else lines
    blocks: list[tuple[str, str]] = []
    paragraph: list[str] = []
    code: list[str] = []

    def flush() -> None:
        if paragraph and _starts_ir(paragraph[0]):  # an example not indented more
            code[:0] = paragraph
            paragraph.clear()
        if paragraph:
            blocks.append(("text", " ".join(line.strip() for line in paragraph)))
            paragraph.clear()
        if code:
            body = textwrap.dedent("\n".join(code)).strip("\n")
            blocks.append(("mlir" if _is_ir(body) else "text-code", body))
            code.clear()

    for line in lines[1:]:
        if not line.strip():
            if code:
                code.append("")
            else:
                flush()
        elif line.startswith(("    ", "\t")):
            if paragraph:
                flush()
            code.append(line)
        else:
            if code:
                flush()
            paragraph.append(line)
    flush()
    return summary, blocks


def _starts_ir(line: str) -> bool:
    """Whether a docstring line begins IR: a `%` value or an op of the dialects."""
    first = line.lstrip()
    return first.startswith("%") or any(first.startswith(f"{d}.") for d in DIALECTS)


def _is_ir(block: str) -> bool:
    return "%" in block or any(f"{d}." in block for d in DIALECTS)


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> Iterator[str]:
    yield "| " + " | ".join(header) + " |"
    yield "|" + "|".join("---" for _ in header) + "|"
    for row in rows:
        yield "| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |"


def op_section(op: type[IRDLOperation]) -> list[str]:
    """The Markdown section of one op."""
    definition = op.get_irdl_definition()
    summary, blocks = split_docstring(op.__doc__)
    lines = [f"### `{definition.name}`", "", summary, ""]
    for kind, body in blocks:
        if kind == "text":
            lines += [body, ""]
        else:
            lines += ["```mlir" if kind == "mlir" else "```", body, "```", ""]
    operands = [
        (f"`{name}`", _multiplicity(d), constraint_text(d.constr))
        for name, d in definition.operands
    ]
    if operands:
        lines += [*_table(("operand", "kind", "constraint"), operands), ""]
    results = [
        (f"`{name}`", _multiplicity(d), constraint_text(d.constr)) for name, d in definition.results
    ]
    if results:
        lines += [*_table(("result", "kind", "constraint"), results), ""]
    entries = []
    for where, defs in (("property", definition.properties), ("attribute", definition.attributes)):
        for name, d in defs.items():
            if name in SEGMENT_SIZES:
                continue
            default = getattr(d, "default_value", None)
            if default is not None:
                presence = f"default `{attribute_text(default)}`"
            else:
                presence = "optional" if isinstance(d, OptionalDef) else "required"
            entries.append((f"`{name}`", where, presence, constraint_text(d.constr)))
    if entries:
        lines += [*_table(("name", "kind", "presence", "constraint"), entries), ""]
    traits = sorted(type(t).__name__ for t in definition.traits)
    if traits:
        lines += ["Traits: " + ", ".join(f"`{t}`" for t in traits) + ".", ""]
    return lines


def dialect_section(dialect: Dialect) -> list[str]:
    """The Markdown section of a dialect: its module docstring, then each op."""
    ops = list(dialect.operations)
    module = sys.modules[ops[0].__module__.rsplit(".", 1)[0]] if ops else None
    if module is not None and not (module.__doc__ or "").lstrip().startswith(
        f"The `{dialect.name}` dialect"
    ):
        module = sys.modules[ops[0].__module__]
    lines = [f"## `{dialect.name}`", ""]
    if module is not None and module.__doc__:
        lines += [inspect.cleandoc(module.__doc__), ""]
    lines += ["Ops: " + ", ".join(f"[`{op.name}`](#{_anchor(op.name)})" for op in ops) + ".", ""]
    for op in ops:
        assert issubclass(op, IRDLOperation)
        lines += op_section(op)
    return lines


def _anchor(name: str) -> str:
    """GitHub's anchor of a `### `name`` heading."""
    return "".join(ch for ch in name.lower() if ch.isalnum() or ch in "-_")


def generate() -> str:
    """The whole page."""
    registry = get_all_dialects()
    lines = [
        "# Dialects",
        "",
        "<!-- Generated from the op docstrings and IRDL definitions by",
        f"     `{COMMAND}`; do not edit by hand. -->",
        "",
        "The ops of the `ge` (graph), `stream` (streams and events) and `npu` (device) dialects: "
        "for each, its summary, description, operands, results, properties and attributes "
        "with their constraints, traits and the IR example of its docstring.",
        "",
    ]
    for name in DIALECTS:
        lines += dialect_section(registry[name]())
    while lines and not lines[-1]:
        lines.pop()
    return "\n".join(lines) + "\n"


def main() -> int:
    sys.stdout.write(generate())
    return 0


if __name__ == "__main__":
    sys.exit(main())
