// TorchAir's explicit events (`tng.ops.npu_tagged_event_record` / `npu_tagged_event_wait`,
// `record` / `wait`), `op_never_timeout` and `data_dump` through `torch.compile`: a wait
// becomes `stream.wait_tensor`s on the operands of the next op of the waiting stream, after
// the op the record marks (the last op of the recording stream before it), and
// assign-streams turns each into exactly one stream.record / stream.wait pair; the ops of an
// op_never_timeout block carry the bool `_op_exec_never_timeout` (false in an inner
// `enable=False` block), those of a data_dump block `torchair_enable_data_dump`.
// REQUIRES: torch
// RUN: rm -rf %t && %python %S/Inputs/torch_events.py %t | filecheck %s
// The attributes round-trip through ge-opt.
// RUN: ge-opt %s | filecheck %s --check-prefix=ROUND

// CHECK-LABEL: // 00-import.mlir
// CHECK:       %mm = ge.matmul %x, %x :
// CHECK-NEXT:  %[[W:.*]] = stream.wait_tensor %y after %mm {stream.label = #stream.label<"2", priority = 0, inner_parallel = true>, _op_exec_never_timeout = true}
// CHECK-NEXT:  %add = ge.add %[[W]], %[[W]] {stream.label = #stream.label<"2", priority = 0, inner_parallel = true>, _op_exec_never_timeout = true}
// CHECK-NEXT:  %mul = ge.mul %add, %[[W]] {stream.label = #stream.label<"2", priority = 0, inner_parallel = true>, _op_exec_never_timeout = false}
// CHECK-NEXT:  %neg = ge.neg %x {torchair_enable_data_dump = "True"}
// CHECK-NEXT:  %[[A:.*]] = stream.wait_tensor %neg after %mul :
// CHECK-NEXT:  %[[B:.*]] = stream.wait_tensor %mm after %mul :
// CHECK-NEXT:  %sub = ge.sub %[[A]], %[[B]] :
// CHECK-LABEL: // {{[0-9]+}}-assign-streams.mlir
// CHECK:       %mm = ge.matmul %x, %x {stream.id = #stream.id<0>}
// CHECK-NEXT:  %[[E0:.*]] = stream.record %mm {stream.id = #stream.id<0>}
// CHECK-NEXT:  stream.wait %[[E0]] {stream.id = #stream.id<1>}
// CHECK-NEXT:  %add = ge.add %y, %y {{.*}}stream.id = #stream.id<1>}
// CHECK-NEXT:  %mul = ge.mul %add, %y {{.*}}stream.id = #stream.id<1>}
// CHECK-NEXT:  %[[E1:.*]] = stream.record %mul {stream.id = #stream.id<1>}
// CHECK-NEXT:  %neg = ge.neg %x {{.*}}stream.id = #stream.id<0>}
// CHECK-NEXT:  stream.wait %[[E1]] {stream.id = #stream.id<0>}
// CHECK-NEXT:  %sub = ge.sub %neg, %mm {stream.id = #stream.id<0>}
// CHECK-NOT:   stream.record
// CHECK-NOT:   stream.wait

func.func @attrs(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x {_op_exec_never_timeout = true} : tensor<4xf32>
  %b = ge.neg %a {_op_exec_never_timeout = false, torchair_enable_data_dump = "True"} : tensor<4xf32>
  func.return %b : tensor<4xf32>
}
// ROUND-LABEL: func.func @attrs(
// ROUND:         ge.relu %{{.*}} {_op_exec_never_timeout = true}
// ROUND:         ge.neg %{{.*}} {_op_exec_never_timeout = false, torchair_enable_data_dump = "True"}
