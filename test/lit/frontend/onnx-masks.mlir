// ONNX import of INT64 graph inputs (ids and a padding mask) and of the masks exporters build
// from static shapes: Shape, Gather, Range, Unsqueeze, LessOrEqual, Not, Where,
// ConstantOfShape, Size, Div, Equal, Squeeze and Cast of constants fold to `ge.const`s (the
// causal bias, the scale, the output z); the ids index the table at run time (`ge.gather`),
// the mask is cast to f32 at run time (`ge.cast`) and Unsqueeze of a computed value is a
// `ge.reshape`.
// RUN: %python %S/Inputs/make_onnx.py %t.onnx masks
// RUN: ge-opt %t.onnx --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @main(%ids: tensor<2x4xi64> {ge.name = "ids"} loc(unknown), %mask: tensor<2x4xi64> {ge.name = "mask"} loc(unknown)) -> (tensor<2x4x4xf32> {ge.name = "y"}, tensor<2x4xf32> {ge.name = "z"}) {
// CHECK-NEXT:  %mask_f = ge.cast %mask : tensor<2x4xi64> -> tensor<2x4xf32> loc("mask_f1"(unknown))
// CHECK-NEXT:  %one_f = ge.const dense<1.000000e+00> : tensor<f32> loc("one_f"(unknown))
// CHECK-NEXT:  %inv = ge.sub %one_f, %mask_f : (tensor<f32>, tensor<2x4xf32>) -> tensor<2x4xf32> loc("inv1"(unknown))
// CHECK-NEXT:  %neg = ge.const dense<-1.000000e+02> : tensor<f32> loc("neg"(unknown))
// CHECK-NEXT:  %pad = ge.mul %inv, %neg : (tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32> loc("pad1"(unknown))
// CHECK-NEXT:  %pad3 = ge.reshape %pad : tensor<2x4xf32> -> tensor<2x1x4xf32> loc("pad3_1"(unknown))
// CHECK-NEXT:  %table = ge.const dense<{{.*}}> : tensor<16x1xf32> loc("table"(unknown))
// CHECK-NEXT:  %emb = ge.gather %table, %ids axis 0 : tensor<16x1xf32>, tensor<2x4xi64> -> tensor<2x4x1xf32> loc("emb1"(unknown))
// CHECK-NEXT:  %s = ge.reduce_sum %emb axes [2] keepdims : tensor<2x4x1xf32> -> tensor<2x4x1xf32> loc("sum1"(unknown))
// CHECK-NEXT:  %bias = ge.const dense<{{\[}}[0.000000e+00, -1.000000e+02, -1.000000e+02, -1.000000e+02], [0.000000e+00, 0.000000e+00, -1.000000e+02, -1.000000e+02], [0.000000e+00, 0.000000e+00, 0.000000e+00, -1.000000e+02], [0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<4x4xf32> loc("bias1"(unknown))
// CHECK-NEXT:  %b2 = ge.add %s, %bias : (tensor<2x4x1xf32>, tensor<4x4xf32>) -> tensor<2x4x4xf32> loc("add1"(unknown))
// CHECK-NEXT:  %b3 = ge.add %b2, %pad3 : (tensor<2x4x4xf32>, tensor<2x1x4xf32>) -> tensor<2x4x4xf32> loc("add2"(unknown))
// CHECK-NEXT:  %scale = ge.const dense<1.000000e+00> : tensor<f32> loc("scale1"(unknown))
// CHECK-NEXT:  %y = ge.mul %b3, %scale : (tensor<2x4x4xf32>, tensor<f32>) -> tensor<2x4x4xf32> loc("mul1"(unknown))
// CHECK-NEXT:  %z = ge.const dense<{{\[}}[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00], [1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]]> : tensor<2x4xf32> loc("add3"(unknown))
// CHECK-NEXT:  func.return %y, %z : tensor<2x4x4xf32>, tensor<2x4xf32> loc(unknown)
