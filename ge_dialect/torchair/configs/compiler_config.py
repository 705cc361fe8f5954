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


class CompilerConfig:
    """The backend's options: `debug.graph_dump` (TorchAir's name); `pipeline`, the
    optimisation passes (`ge_dialect.api.DEFAULT_PIPELINE` by default), to which
    `lower-to-device,plan-memory` are appended."""

    def __init__(self) -> None:
        self.debug = _Debug()
        self.pipeline: str | None = None
