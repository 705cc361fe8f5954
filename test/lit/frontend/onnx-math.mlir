// ONNX import of the math ops of a transformer block (opset 20): Sqrt, Div by a computed value
// (ge.div) and by a constant (ge.mul by its reciprocal), both Gelu forms, Exp, Log, Tanh, Erf,
// Neg, Reciprocal, two-input Max and Min, and Pow whose INT64 exponent becomes an f32 constant.
// RUN: %python %S/Inputs/make_onnx.py %t.onnx math
// RUN: ge-opt %t.onnx --print-debuginfo | filecheck %s

// CHECK-LABEL: func.func @main(%x: tensor<2x8xf32> {ge.name = "x"} loc(unknown)) -> (tensor<2x8xf32> {ge.name = "y"}) {
// CHECK-NEXT:  %sq = ge.mul %x, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32> loc("square"(unknown))
// CHECK-NEXT:  %s = ge.sqrt %sq : tensor<2x8xf32> loc("sqrt1"(unknown))
// CHECK-NEXT:  %n = ge.div %x, %s : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32> loc("div1"(unknown))
// CHECK-NEXT:  %[[Q:.*]] = ge.const dense<2.500000e-01> : tensor<f32> loc("div_const"(unknown))
// CHECK-NEXT:  %k = ge.mul %n, %[[Q]] : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32> loc("div_const"(unknown))
// CHECK-NEXT:  %g = ge.gelu %k : tensor<2x8xf32> loc("gelu_erf"(unknown))
// CHECK-NEXT:  %t = ge.gelu %g approximate "tanh" : tensor<2x8xf32> loc("gelu_tanh"(unknown))
// CHECK-NEXT:  %e = ge.exp %t : tensor<2x8xf32> loc("exp1"(unknown))
// CHECK-NEXT:  %l = ge.log %e : tensor<2x8xf32> loc("log1"(unknown))
// CHECK-NEXT:  %h = ge.tanh %l : tensor<2x8xf32> loc("tanh1"(unknown))
// CHECK-NEXT:  %f = ge.erf %h : tensor<2x8xf32> loc("erf1"(unknown))
// CHECK-NEXT:  %m = ge.neg %f : tensor<2x8xf32> loc("neg1"(unknown))
// CHECK-NEXT:  %r = ge.reciprocal %m : tensor<2x8xf32> loc("rec1"(unknown))
// CHECK-NEXT:  %mx = ge.maximum %r, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32> loc("max1"(unknown))
// CHECK-NEXT:  %mn = ge.minimum %mx, %x : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32> loc("min1"(unknown))
// CHECK-NEXT:  %p = ge.const dense<2.000000e+00> : tensor<f32> loc("p"(unknown))
// CHECK-NEXT:  %y = ge.pow %mn, %p : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32> loc("pow1"(unknown))
// CHECK-NEXT:  func.return %y : tensor<2x8xf32>
