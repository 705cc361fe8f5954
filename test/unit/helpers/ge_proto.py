"""GE's graph messages for the tests: `ge_dialect/ir/ge_ir.proto` compiled by
`grpc_tools.protoc` into a temporary folder and imported (`ge_ir_pb2`), to read the text
the GraphDef printer writes back with protobuf itself."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

PROTO = Path(__file__).resolve().parents[3] / "ge_dialect" / "ir" / "ge_ir.proto"


def compile_ge_ir(out: Path) -> ModuleType:
    """The generated module of `ge_ir.proto`, compiled into the folder `out`."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "grpc_tools.protoc",
            f"-I{PROTO.parent}",
            f"--python_out={out}",
            str(PROTO),
        ],
        check=True,
    )
    spec = importlib.util.spec_from_file_location("ge_ir_pb2", out / "ge_ir_pb2.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def parse_graph_def(ge_ir: ModuleType, text: str):
    """`text` read strictly (an unknown field or a malformed value fails) as a GraphDef."""
    from google.protobuf import text_format

    graph = ge_ir.GraphDef()
    text_format.Parse(text, graph)
    return graph
