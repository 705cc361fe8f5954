"""ge-opt: the `mlir-opt` of GE graphs (`driver`), its plugins (`plugins`: `--load-patterns`,
`--apply-pdl`) and what it writes (`output`)."""

from ge_dialect.tools.ge_opt.driver import main

__all__ = ["main"]
