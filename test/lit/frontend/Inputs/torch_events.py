"""Compiles a model with TorchAir's explicit events (`tng.ops`), op_never_timeout and
data_dump through `torch.compile` (ge_dialect.torchair), dumping the IR to the folder
argv[1], and prints the imported IR then the IR after assign-streams."""

import glob
import os
import sys

import torch

from ge_dialect import torchair as tng


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.event = tng.ops.npu_create_tagged_event(tag="66")

    def forward(self, x, y):
        mm = torch.mm(x, x)
        tng.ops.npu_tagged_event_record(self.event)
        with tng.scope.npu_stream_switch("2"):
            tng.ops.npu_tagged_event_wait(self.event)
            with tng.scope.op_never_timeout():
                add = torch.add(y, y)
                with tng.scope.op_never_timeout(enable=False):
                    mul = torch.mul(add, y)
            r = tng.ops.record()
        with tng.scope.data_dump():
            neg = torch.neg(x)
        tng.ops.wait([r])
        sub = torch.sub(neg, mm)
        return mul, sub


config = tng.CompilerConfig()
config.debug.graph_dump.path = sys.argv[1]
backend = tng.get_npu_backend(compiler_config=config)
model = torch.compile(Model(), backend=backend, dynamic=False, fullgraph=True)
model(torch.randn(8, 8), torch.randn(8, 8))
(folder,) = glob.glob(os.path.join(sys.argv[1], "ge_graph_*"))
dumps = sorted(glob.glob(os.path.join(folder, "*.mlir")))
for path in (dumps[0], next(p for p in dumps if p.endswith("-assign-streams.mlir"))):
    print(f"// {os.path.basename(path)}")
    with open(path, encoding="utf-8") as f:
        print(f.read())
