// The bundled TorchAir multi-stream example parses, verifies and round-trips in the custom and
// the generic form, and its generic form is valid upstream MLIR.  The checks pin the stream
// labels with their priorities, the two npu_wait_tensor edges, and that mm1 (outside any
// scope) carries no label.
// RUN: ge-opt %examples/torchair_multistream.mlir | ge-opt | filecheck %s
// RUN: ge-opt %examples/torchair_multistream.mlir --print-op-generic | ge-opt | filecheck %s
// (the upstream check of this RUN line is in test/lit/upstream/tools.test)

// CHECK-LABEL: func.func @main(
// CHECK-SAME:  %[[IN1:[^:]*]]: tensor<4x4xf32> {ge.name = "in1"}, %[[IN2:[^:]*]]: tensor<4x4xf32> {ge.name = "in2"}, %[[IN3:[^:]*]]: tensor<4x4xf32> {ge.name = "in3"}, %[[IN4:[^:]*]]: tensor<4x4xf32> {ge.name = "in4"})
// CHECK-SAME:  -> (tensor<4x4xf32> {ge.name = "add_result"}, tensor<4x4xf32> {ge.name = "mm_result"}, tensor<4x4xf32> {ge.name = "mm1"}, tensor<4x4xf32> {ge.name = "add2"}) {
// add_result: outside any scope, no label.
// CHECK-NEXT:    %[[ADD:.*]] = ge.add %[[IN1]], %[[IN2]] : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// npu_stream_switch("1"): npu_wait_tensor(in4, add_result), then mm.
// CHECK-NEXT:    %[[W1:.*]] = stream.wait_tensor %[[IN4]] after %[[ADD]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : tensor<4x4xf32>, tensor<4x4xf32>
// CHECK-NEXT:    %[[MM:.*]] = ge.matmul %[[IN3]], %[[W1]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// mm1: outside any scope, no label; it reads the rebound in4.
// CHECK-NEXT:    %[[MM1:.*]] = ge.matmul %[[IN3]], %[[W1]] : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
// npu_stream_switch("2"): npu_wait_tensor(in4, mm_result), then add2.
// CHECK-NEXT:    %[[W2:.*]] = stream.wait_tensor %[[W1]] after %[[MM]] {stream.label = #stream.label<"2", priority = 0, inner_parallel = true>} : tensor<4x4xf32>, tensor<4x4xf32>
// CHECK-NEXT:    %[[ADD2:.*]] = ge.add %[[IN3]], %[[W2]] {stream.label = #stream.label<"2", priority = 0, inner_parallel = true>} : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
// CHECK-NEXT:    func.return %[[ADD]], %[[MM]], %[[MM1]], %[[ADD2]] : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
// CHECK-NEXT:  }
// Nothing else follows: exactly these two wait edges and four labelled ops.
// CHECK-NOT:   stream.
