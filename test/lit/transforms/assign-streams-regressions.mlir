// Regressions of --assign-streams: GE's ineffective multi-stream rule never moves an
// ordinary op onto the comm stream, and needs producers and users (an op fed by constants
// only, or whose result is unused, stays); the collective between two stream-0 ops then
// moves back to stream 0.  Running the pass twice is refused at a located op.
// RUN: ge-opt %s --split-input-file --assign-streams | filecheck %s
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// RUN: not ge-opt %s --split-input-file --assign-streams --assign-streams 2>&1 | filecheck %s --check-prefix=TWICE
// RUN: not ge-opt %S/Inputs/labelled-relu.mlir --assign-streams --assign-streams 2>&1 | filecheck %s --check-prefix=ENTRY

// TWICE: {{^}}{{.*}}assign-streams-regressions.mlir:22:3: error: 'ge.const' op is already assigned to a stream: run --assign-streams once{{$}}
// The record of the arguments is located at its function.
// ENTRY: {{^}}{{.*}}labelled-relu.mlir:1:1: error: 'stream.record' op is already assigned to a stream: run --assign-streams once{{$}}

// CHECK-LABEL: func.func @const_fed_collective(
// CHECK-NEXT:  %c = ge.const dense<1.000000e+00> : tensor<4xf32> {stream.id = #stream.id<0>}
// CHECK-NEXT:  %s = ge.relu %c {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:  %r = ge.hcom_all_reduce %s reduction sum group "world" rank_size 2 {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:  %y = ge.add %x, %r {stream.id = #stream.id<0>} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK-NEXT:  func.return %y : tensor<4xf32>
// CHECK-NEXT:  }
func.func @const_fed_collective(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c = ge.const dense<1.0> : tensor<4xf32>
  %s = ge.relu %c : tensor<4xf32>
  %r = ge.hcom_all_reduce %s reduction sum group "world" rank_size 2 : tensor<4xf32>
  %y = ge.add %x, %r : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @unused_user(
// CHECK-NEXT:  %a = ge.relu %x {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:  %0 = stream.record %a {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:  stream.wait %0 {stream.id = #stream.id<1>}
// CHECK-NEXT:  %r = ge.hcom_all_reduce %a reduction sum group "world" rank_size 2 {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:  %1 = stream.record %r {stream.id = #stream.id<1>} : tensor<4xf32>
// CHECK-NEXT:  %i = ge.sigmoid %x {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:  stream.wait %1 {stream.id = #stream.id<0>}
// CHECK-NEXT:  %d = ge.relu %r {stream.id = #stream.id<0>} : tensor<4xf32>
// CHECK-NEXT:  func.return %i : tensor<4xf32>
// CHECK-NEXT:  }
func.func @unused_user(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x : tensor<4xf32>
  %r = ge.hcom_all_reduce %a reduction sum group "world" rank_size 2 : tensor<4xf32>
  %i = ge.sigmoid %x : tensor<4xf32>
  %d = ge.relu %r : tensor<4xf32>
  func.return %i : tensor<4xf32>
}
