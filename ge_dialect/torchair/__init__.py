"""TorchAir's Python API on the simulated NPU: `from ge_dialect import torchair as tng`.

    from ge_dialect import torchair as tng        # instead of `import torchair as tng`

    config = tng.CompilerConfig()
    config.debug.graph_dump.type = "pbtxt"         # IR after each pass, to a folder
    npu_backend = tng.get_npu_backend(compiler_config=config)
    model = torch.compile(model, backend=npu_backend, dynamic=False, fullgraph=True)

`tng.scope.npu_stream_switch` / `tng.scope.npu_wait_tensor` work in `forward` as in
TorchAir (custom ops Dynamo keeps); `tng.inference.set_dim_gears` gives a dim its gears;
TorchAir's explicit events are `tng.ops`.  Importing this package imports torch.
"""

from ge_dialect.torchair import inference, ops, scope
from ge_dialect.torchair.configs.compiler_config import CompilerConfig
from ge_dialect.torchair.npu_fx_compiler import (
    CompiledGraph,
    NpuBackend,
    get_compiler,
    get_npu_backend,
)

__all__ = [
    "CompiledGraph",
    "CompilerConfig",
    "NpuBackend",
    "get_compiler",
    "get_npu_backend",
    "inference",
    "ops",
    "scope",
]
