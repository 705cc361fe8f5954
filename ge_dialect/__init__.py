"""ge-opt: an MLIR-style compiler for Ascend Graph Engine graphs, built on xDSL.

The IR layer (`ge`, `layout`, `weights`, `diagnostics`, `interpreter`) imports xDSL and
numpy only; passes live in `transforms`, drivers in `ge_dialect.tools`.
"""

__version__ = "0.1.0"
