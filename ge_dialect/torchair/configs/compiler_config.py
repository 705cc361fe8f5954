"""`CompilerConfig`, TorchAir's compiler options (the ones this backend honours).

    config = CompilerConfig()
    config.debug.graph_dump.type = "pbtxt"   # TorchAir's values are accepted; IR is MLIR
    config.debug.graph_dump.path = "dump"    # the folder (TorchAir's default: ".")
    backend = tng.get_npu_backend(compiler_config=config)

With `graph_dump.type` set, each compilation of a graph writes one folder under `path`,
`ge_graph_<n>_pid_<pid>/`, holding the imported IR and the IR after each pass
(`00-import.mlir`, `01-canonicalize.mlir`, ..., the last `NN-plan-memory.mlir`).  TorchAir
writes GE's own formats (`txt`, `pbtxt`, `py`); here every type writes MLIR text.
"""

from __future__ import annotations

import os

__all__ = ["CompilerConfig"]

DUMP_TYPES = ("txt", "pbtxt", "py", "mlir")


class _GraphDump:
    """`config.debug.graph_dump`: `type` (None: off) and `path` (default ".")."""

    def __init__(self) -> None:
        self._type: str | None = None
        self._path: str | None = None

    @property
    def type(self) -> str | None:
        return self._type

    @type.setter
    def type(self, value: str | None) -> None:
        if value is not None and value not in DUMP_TYPES:
            raise ValueError(
                f"graph_dump.type must be one of {', '.join(DUMP_TYPES)} or None, got {value!r}"
            )
        self._type = value

    @property
    def path(self) -> str | None:
        return self._path

    @path.setter
    def path(self, value: str | os.PathLike[str]) -> None:
        self._path = os.path.realpath(value)
        if self._type is None:  # setting a folder alone turns the dump on
            self._type = "mlir"

    @property
    def enabled(self) -> bool:
        return self._type is not None

    def folder(self) -> str:
        return self._path or os.path.realpath(".")


class _Debug:
    def __init__(self) -> None:
        self.graph_dump = _GraphDump()


class _GeConfig:
    """`config.ge_config`: `enable_single_stream` (default False), TorchAir's switch that
    runs the whole graph on one stream.  A graph with an `npu_stream_switch` scope cannot
    (TorchAir documents the two as conflicting): compiling it is an error naming the
    scope's line."""

    def __init__(self) -> None:
        self._single = False

    @property
    def enable_single_stream(self) -> bool:
        return self._single

    @enable_single_stream.setter
    def enable_single_stream(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise ValueError(f"ge_config.enable_single_stream must be True or False, got {value!r}")
        self._single = value


MODES = ("max-autotune", "reduce-overhead")
"""TorchAir's compile modes: GE graph mode (the passes, multi-stream honoured), or the
operators one by one (no graph passes, one stream)."""


class CompilerConfig:
    """The backend's options, by TorchAir's names: `mode` (`MODES`, default
    "max-autotune"), `ge_config.enable_single_stream`, `debug.graph_dump`; and `pipeline`, the
    optimisation passes of max-autotune (`ge_dialect.api.DEFAULT_PIPELINE` by default), to
    which `lower-to-device,plan-memory` are appended.

    In "reduce-overhead" no graph pass runs: the graph is lowered as imported, on one stream;
    stream scopes and waits are dropped with one warning (TorchAir runs them only in graph
    mode).  In "max-autotune" a scope's ops go to its label's stream (`enable_inner_parallel`
    is honoured by `assign-streams{mode=auto}`, when `pipeline` asks for it).  With
    `ge_config.enable_single_stream` every op runs on stream 0 (`assign-streams{mode=single}`),
    and a stream scope is an error naming its line."""

    def __init__(self) -> None:
        self.debug = _Debug()
        self.ge_config = _GeConfig()
        self.pipeline: str | None = None
        self._mode = "max-autotune"

    @property
    def mode(self) -> str:
        return self._mode

    @mode.setter
    def mode(self, value: str) -> None:
        if value not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {value!r}")
        self._mode = value
