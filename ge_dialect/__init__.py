"""ge-opt: an MLIR-style compiler for Ascend Graph Engine graphs, built on xDSL.

Imports only point downwards (docs/architecture.md, "Layers"; `test/unit/test_layers.py`
checks every module against this table):

- leaf utilities: `ge_dialect.utils` (dtypes, shape maths, parsing helpers),
  `ge_dialect.layout` (the NCHW <-> NC1HWC0 / FRACTAL_Z format maths) and
  `ge_dialect.diagnostics` import nothing of the project;
- IR: the dialects `ge` (a package), `stream` and the device dialect `npu`, `weights`,
  `cost`, the reference `interpreter`, `verify` and the `dialects` registry import xDSL,
  numpy, the leaf utilities and each other; `stream` and `npu` never import `ge`;
- `ge_dialect.sim`, the simulated device, imports `npu` and the leaf utilities only;
- frontends: `ge_dialect.frontend` (ONNX), the graph `builder` and its TorchAir-style
  `scope` build IR;
- `transforms` (the second top-level package): passes, patterns and the pass registry;
- `ge_dialect.api`: the Python API (load, compile, simulate) over all of the above;
- `ge_dialect.tools`: the ge-opt / ge-run drivers, which import only the API, diagnostics
  and the registries.

`__version__` comes from the installed distribution's metadata, so `pyproject.toml` is its
one source.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ge-opt")
except PackageNotFoundError:  # a checkout that is not installed (`./ge-opt` still works)
    __version__ = "0+unknown"
