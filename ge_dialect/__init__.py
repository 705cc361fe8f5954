"""ge-opt: an MLIR-style compiler for Ascend Graph Engine graphs, built on xDSL.

The folders are the layers; imports only point downwards (docs/architecture.md, "Layers";
`test/unit/test_layers.py` checks every module against one row per folder):

- `utils/`: leaf utilities (dtypes, shapes, floats, the format maths, graph algorithms,
  offsets, task order, the JSON reader, errors), importing nothing of the project;
- `ir/`: the dialects `ge`, `stream` and `npu` (`ir/dialects/`), encodings, the parser,
  verification, cost, weights, the reference interpreter and the dialect registry;
- `sim/`: the simulated NPU, which reads `npu` programs only;
- `frontend/`: ONNX, PyTorch, the graph builder and TorchAir's scope names;
- `transforms` (the second top-level package): passes, patterns and the pass registry;
- `api.py`: the Python API (load, compile, simulate) over all of the above;
- `torchair/`: TorchAir's Python API, a client of `api`;
- `tools/`: the ge-opt / ge-run drivers, which import only the API, the errors and the
  registries.

`__version__` comes from the installed distribution's metadata, so `pyproject.toml` is its
one source.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("ge-opt")
except PackageNotFoundError:  # a checkout that is not installed (`./ge-opt` still works)
    __version__ = "0+unknown"
