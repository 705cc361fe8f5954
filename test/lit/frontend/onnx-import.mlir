// ONNX import through ge-opt: pads reordered to GE order ([top, bottom, left, right]),
// SAME_UPPER made explicit, Gemm's alpha folded into its constant B, symbolic dims bound by
// --input-shape, node names as locations, and ONNX input/output names on the function.
// RUN: %python %S/Inputs/make_onnx.py %t.onnx block
// RUN: ge-opt %t.onnx --input-shape x=2x3x8x8 --print-debuginfo --elide-constants-if-larger=4 | filecheck %s
// (the upstream check of this RUN line is in test/lit/upstream/frontend.test)
// RUN: not ge-opt %t.onnx 2>&1 | filecheck %s --check-prefix=UNBOUND
// RUN: %python %S/Inputs/make_onnx.py %t.bad.onnx unsupported
// RUN: not ge-opt %t.bad.onnx 2>&1 | filecheck %s --check-prefix=REFUSED

// CHECK-LABEL: func.func @main(%x: tensor<2x3x8x8xf32> {ge.name = "x"} loc(unknown)) -> (tensor<2x10xf32> {ge.name = "y"}) {
// CHECK:       %c = ge.conv2d %x, %w strides [2, 2] pads [1, 2, 0, 1] : tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32> -> tensor<2x4x5x4xf32> loc("conv1"(unknown))
// CHECK:       %bn = ge.batch_norm %c, %s, %b, %m, %v epsilon 1.000000e-03 : {{.*}} loc("bn1"(unknown))
// CHECK-NEXT:  %r = ge.relu %bn : tensor<2x4x5x4xf32> loc("relu1"(unknown))
// CHECK-NEXT:  %p = ge.max_pool %r kernel [3, 3] strides [2, 2] pads [1, 1, 0, 1] : tensor<2x4x5x4xf32> -> tensor<2x4x3x2xf32> loc("pool1"(unknown))
// CHECK-NEXT:  %f = ge.flatten %p : tensor<2x4x3x2xf32> -> tensor<2x24xf32> loc("flat"(unknown))
// CHECK-NEXT:  %[[B:.*]] = ge.const #ge.elided : tensor<10x24xf32> loc("fc"(unknown))
// CHECK-NEXT:  %gb = ge.const #ge.elided : tensor<10xf32> loc("gb"(unknown))
// CHECK-NEXT:  %y = ge.matmul %f, %[[B]] bias %gb transpose_b : tensor<2x24xf32>, tensor<10x24xf32>, tensor<10xf32> -> tensor<2x10xf32> loc("fc"(unknown))
// CHECK-NEXT:  func.return %y : tensor<2x10xf32>

// UNBOUND: {{^}}{{.*}}.onnx: error: input 'x' has unbound dim 0 ('batch') in shape [batch, 3, 8, 8]; bind it with --input-shape x=<dims>, e.g. x=1x3x8x8{{$}}

// REFUSED:      .bad.onnx: error: cannot import 3 nodes: 'atan1' (Atan: unsupported op)
// REFUSED-SAME: 'dilated' (MaxPool: dilated pooling)
// REFUSED-SAME: 'acos1' (Acos: unsupported op)
