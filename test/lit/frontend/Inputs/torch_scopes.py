"""Compiles a model with TorchAir's limit_core_num and super_kernel scopes through
`torch.compile` (ge_dialect.torchair), dumping the IR to the folder argv[1], and prints the
imported IR then the device program (the last dump)."""

import glob
import os
import sys

import torch

from ge_dialect import torchair as tng


class Model(torch.nn.Module):
    def forward(self, x, y):
        with tng.scope.npu_stream_switch("1"):
            with tng.scope.limit_core_num(16, 0):
                a = torch.mm(x, y)
        with tng.scope.npu_stream_switch("2"):
            with tng.scope.limit_core_num(16, 0):
                b = torch.mm(y, x)
        with tng.scope.super_kernel("sk", "stream-fusion=1"):
            c = torch.relu(a + b)
        return a, b, c


config = tng.CompilerConfig()
config.debug.graph_dump.path = sys.argv[1]
backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=backend, dynamic=False, fullgraph=True)
model(torch.randn(32, 32), torch.randn(32, 32))
(folder,) = glob.glob(os.path.join(sys.argv[1], "ge_graph_*"))
dumps = sorted(glob.glob(os.path.join(folder, "*.mlir")))
for path in (dumps[0], dumps[-1]):
    print(f"// {os.path.basename(path)}")
    with open(path, encoding="utf-8") as f:
        print(f.read())
