"""`CompilerConfig`, TorchAir's compiler options (the ones this backend honours).

    config = CompilerConfig()
    config.debug.graph_dump.type = "pbtxt"   # GE's GraphDef as protobuf text; or "mlir"
    config.debug.graph_dump.path = "dump"    # the folder (TorchAir's default: ".")
    backend = tng.get_npu_backend(compiler_config=config)

With `graph_dump.type` set, each compilation of a graph writes one folder under `path`,
`ge_graph_<n>_pid_<pid>/`, holding the imported graph and the graph after each pass, named
`NN-<step>.<suffix>` (`00-import`, `01-canonicalize`, ...; the suffix `pbtxt`, `txt` or
`mlir`):

- "pbtxt" and "txt": GE's `GraphDef` in protobuf text format (`ge_dialect/ir/ge_ir.proto`,
  `ge_dialect.ir.ge_pbtxt`), the import and each pass still in `ge` form (up to
  `assign-streams`; the device program after `lower-to-device` is no GraphDef).  TorchAir's
  "txt" is this text; its "pbtxt" is a TensorBoard rendering of the same graph (TensorFlow
  `node { ... }`, control inputs `^src`), which is not reproduced: here both are GE's
  message, readable with `text_format.Parse` into `ge.proto.GraphDef`.
- "mlir" and "py": MLIR text after every pass, through `NN-plan-memory.mlir` (TorchAir's
  "py", Python code building the graph, is not reproduced: "py" writes MLIR).
"""

from __future__ import annotations

import os

__all__ = ["CompilerConfig"]

DUMP_TYPES = ("txt", "pbtxt", "py", "mlir")

GRAPH_DEF_DUMP_TYPES = ("txt", "pbtxt")
"""The dump types written as GE's `GraphDef` in protobuf text format (the others: MLIR)."""


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


class _DataDumpConfig:
    """`config.dump_config`: `enable_dump` (default False) and `dump_path` (an existing
    folder, default "./"), TorchAir's names.  With `enable_dump`, the results of the ops in
    `tng.scope.data_dump()` blocks are written on every run of a compiled graph, as
    `<dump_path>/worldsize1_global_rank0/ge_graph_<n>_pid_<pid>/<run>.npz` (`<run>` counts
    the graph's runs from 0; the keys are the ops' result names); without a data_dump
    block nothing is written (GE would dump the whole graph).  Each dumped value is an
    extra output of the compiled graph, so the passes keep it (a fusion that would hide it
    does not happen) and the timeline includes its writes."""

    def __init__(self) -> None:
        self._enable = False
        self._path = "./"

    @property
    def enable_dump(self) -> bool:
        return self._enable

    @enable_dump.setter
    def enable_dump(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise ValueError(f"dump_config.enable_dump must be True or False, got {value!r}")
        self._enable = value

    @property
    def dump_path(self) -> str:
        return self._path

    @dump_path.setter
    def dump_path(self, value: str | os.PathLike[str]) -> None:
        if value is None or not os.path.isdir(value):
            raise FileNotFoundError(
                f"Please set legal dir path, {value} is not found or is not a file directory!"
            )
        self._path = os.fspath(value)

    def full_path(self) -> str:
        """The folder the runs are dumped under (TorchAir's, on one device)."""
        return os.path.join(os.path.realpath(self._path), "worldsize1_global_rank0")


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


class _InferenceConfig:
    """`config.inference_config`: `dynamic_gears_merge_policy` (TorchAir's: "zip", the
    default, or "product"; how the gears of several dimensions combine) and, beyond
    TorchAir, `pad_to_gear` (default False): a call whose size is not a gear is padded
    with zeros up to the next gear and its outputs sliced back, rather than refused.
    Padding is right only where rows are independent (each output row depends on its own
    input row): every output must keep the padded dimension (checked), and no op may mix
    rows across it (not checked: a softmax or mean over the batch would see the padding)."""

    def __init__(self) -> None:
        self._policy = "zip"
        self._pad = False

    @property
    def dynamic_gears_merge_policy(self) -> str:
        return self._policy

    @dynamic_gears_merge_policy.setter
    def dynamic_gears_merge_policy(self, value: str) -> None:
        if value not in ("zip", "product"):
            raise ValueError(
                f"inference_config.dynamic_gears_merge_policy must be zip or product, got {value!r}"
            )
        self._policy = value

    @property
    def pad_to_gear(self) -> bool:
        return self._pad

    @pad_to_gear.setter
    def pad_to_gear(self, value: bool) -> None:
        if not isinstance(value, bool):
            raise ValueError(f"inference_config.pad_to_gear must be True or False, got {value!r}")
        self._pad = value


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
    mode).  In "max-autotune" a scope's ops go to its label's stream, and with the scope's
    `enable_inner_parallel` (its default) its independent branches to sub-streams of the
    label (`assign-streams` spreads them; reduce-overhead has no streams to spread on).  With
    `ge_config.enable_single_stream` every op runs on stream 0 (`assign-streams{mode=single}`),
    and a stream scope is an error naming its line.  `inference_config` holds the options
    of dimension gears (`ge_dialect.torchair.inference.set_dim_gears`), `dump_config` those
    of the data dump (`tng.scope.data_dump`);
    `program_cache_size` bounds the programs kept per graph."""

    def __init__(self) -> None:
        self.debug = _Debug()
        self.dump_config = _DataDumpConfig()
        self.ge_config = _GeConfig()
        self.inference_config = _InferenceConfig()
        self.pipeline: str | None = None
        self._mode = "max-autotune"
        self._cache_size = 8

    @property
    def program_cache_size(self) -> int:
        """How many programs one captured graph keeps (one per input signature; default 8,
        Dynamo's `cache_size_limit`); the least recently used is evicted.  Gear programs
        are kept besides these."""
        return self._cache_size

    @program_cache_size.setter
    def program_cache_size(self, value: int) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"program_cache_size must be an integer >= 1, got {value!r}")
        self._cache_size = value

    @property
    def mode(self) -> str:
        return self._mode

    @mode.setter
    def mode(self, value: str) -> None:
        if value not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {value!r}")
        self._mode = value
