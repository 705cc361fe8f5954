// TorchAir's limit_core_num and super_kernel through `torch.compile`: the imported ops carry
// TorchAir's attributes next to their stream labels (a scope inside a stream switch gets
// both), and the device program's launches keep them after the passes and the lowering.
// REQUIRES: torch
// RUN: rm -rf %t && %python %S/Inputs/torch_scopes.py %t | filecheck %s

// CHECK-LABEL: // 00-import.mlir
// CHECK:       %a = ge.matmul %x, %y {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>, _op_aicore_num = "16", _op_vectorcore_num = "0"}
// CHECK-NEXT:  %b = ge.matmul %y, %x {stream.label = #stream.label<"2", priority = 0, inner_parallel = true>, _op_aicore_num = "16", _op_vectorcore_num = "0"}
// CHECK-NEXT:  %add = ge.add %a, %b {_super_kernel_scope = "sk", _super_kernel_options = "stream-fusion=1"}
// CHECK-NEXT:  %c = ge.relu %add {_super_kernel_scope = "sk", _super_kernel_options = "stream-fusion=1"}
// CHECK-LABEL: // {{[0-9]+}}-plan-memory.mlir
// CHECK:       npu.launch "matmul"(%x, %y) -> (%a) stream 1 {{.*}} attributes {_op_aicore_num = "16", _op_vectorcore_num = "0"}
// CHECK:       npu.launch "matmul"(%y, %x) -> (%b) stream 2 {{.*}} attributes {_op_aicore_num = "16", _op_vectorcore_num = "0"}
// CHECK:       npu.launch "add"(%a, %b) -> (%add) stream 0 {{.*}} attributes {_super_kernel_scope = "sk", _super_kernel_options = "stream-fusion=1"}
// CHECK-NEXT:  npu.launch "relu"(%add) -> (%c) stream 0 {{.*}} attributes {_super_kernel_scope = "sk", _super_kernel_options = "stream-fusion=1"}
