"""--apply-pdl: xDSL's PDL interpreter on the patterns of a file, with located errors.

    ge-opt in.mlir --apply-pdl=patterns.pdl.mlir     (the flag also runs dce after it)
    ge-opt in.mlir -p 'apply-pdl{pdl_file="patterns.pdl.mlir"}'

The pass is xDSL's `apply-pdl`; the file is first read, parsed and verified here, so that a
missing file or bad PDL is one line naming the file (`FILE:line:col: error: ...`), not an
exception of xDSL's reader.  Without a file, the input module's own `pdl.pattern`s apply.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.transforms.apply_pdl import ApplyPDLPass

from ge_dialect.ir.parser import parse
from ge_dialect.ir.verify import verify_module
from ge_dialect.utils.errors import GeError
from ge_dialect.utils.textfile import read_text


def read_pdl(path: str, ctx: Context) -> ModuleOp:
    """The PDL module of the file `path`, parsed and verified with located diagnostics: a
    `GeError` naming the file when it cannot be read, `path:line:col: error: ...` when it
    does not parse or verify."""
    text = read_text(path, "PDL patterns")
    try:
        module = parse(text, path, ctx=ctx)
        verify_module(module, path)
    except GeError as e:  # a plain GeError: not the input's parse error
        raise GeError(str(e)) from None
    return module


@dataclass(frozen=True)
class ApplyPDLFilePass(ApplyPDLPass):
    """Applies the PDL patterns of a file to the module (xDSL's apply-pdl; the flag
    --apply-pdl=FILE also runs dce after it)."""

    name = "apply-pdl"

    pdl_file: str | None = field(
        default=None,
        metadata={"help": "the file of `pdl.pattern`s (without it, those of the input module)"},
    )

    def read_patterns(self, ctx: Context) -> ModuleOp | None:
        """The patterns of `pdl_file` (None without one), read with located errors: ge-opt
        reads them before its input, so that a bad file is reported first."""
        return None if self.pdl_file is None else read_pdl(self.pdl_file, ctx)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        self.read_patterns(ctx)  # located errors before xDSL reads the file
        super().apply(ctx, op)
