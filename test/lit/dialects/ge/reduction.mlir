// Round-trip tests of the `ge` reduction and normalisation ops (reduce_sum, reduce_mean,
// reduce_max, reduce_min, layer_norm, rms_norm): the custom form prints exactly as checked
// below and reparses to the same IR (custom and generic).  Their diagnostics are in
// reduction-invalid.mlir.
// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP
// RUN: ge-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// The reductions: keepdims printed only when set, an empty axes list (every axis; without
// keepdims the result is rank 0), f16 and an i8 maximum/minimum.
// CHECK-LABEL: func.func @reduce(
// CHECK-NEXT:    %[[V0:.*]] = ge.reduce_sum %{{.*}} axes [1] keepdims : tensor<2x8xf32> -> tensor<2x1xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.reduce_sum %{{.*}} axes [0, 2] : tensor<2x3x4xf16> -> tensor<3xf16>
// CHECK-NEXT:    %[[V2:.*]] = ge.reduce_mean %{{.*}} axes [] : tensor<2x8xf32> -> tensor<f32>
// CHECK-NEXT:    %[[V3:.*]] = ge.reduce_mean %{{.*}} axes [] keepdims : tensor<2x8xf32> -> tensor<1x1xf32>
// CHECK-NEXT:    %[[V4:.*]] = ge.reduce_max %{{.*}} axes [0, 2] : tensor<2x3x4xi8> -> tensor<3xi8>
// CHECK-NEXT:    %[[V5:.*]] = ge.reduce_min %{{.*}} axes [1] keepdims : tensor<2x3x4xf16> -> tensor<2x1x4xf16>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "reduce",
// GENERIC:         "ge.reduce_sum"(%{{.*}}) <{axes = array<i64: 1>, keepdims}> : (tensor<2x8xf32>) -> tensor<2x1xf32>
// GENERIC:         "ge.reduce_sum"(%{{.*}}) <{axes = array<i64: 0, 2>}> : (tensor<2x3x4xf16>) -> tensor<3xf16>
// GENERIC:         "ge.reduce_mean"(%{{.*}}) <{axes = array<i64>}> : (tensor<2x8xf32>) -> tensor<f32>
// GENERIC:         "ge.reduce_mean"(%{{.*}}) <{axes = array<i64>, keepdims}> : (tensor<2x8xf32>) -> tensor<1x1xf32>
// GENERIC:         "ge.reduce_max"(%{{.*}}) <{axes = array<i64: 0, 2>}> : (tensor<2x3x4xi8>) -> tensor<3xi8>
// GENERIC:         "ge.reduce_min"(%{{.*}}) <{axes = array<i64: 1>, keepdims}> : (tensor<2x3x4xf16>) -> tensor<2x1x4xf16>
func.func @reduce(%x: tensor<2x8xf32>, %h: tensor<2x3x4xf16>, %i: tensor<2x3x4xi8>) {
  %0 = ge.reduce_sum %x axes [1] keepdims : tensor<2x8xf32> -> tensor<2x1xf32>
  %1 = ge.reduce_sum %h axes [0, 2] : tensor<2x3x4xf16> -> tensor<3xf16>
  %2 = ge.reduce_mean %x axes [] : tensor<2x8xf32> -> tensor<f32>
  %3 = ge.reduce_mean %x axes [] keepdims : tensor<2x8xf32> -> tensor<1x1xf32>
  %4 = ge.reduce_max %i axes [0, 2] : tensor<2x3x4xi8> -> tensor<3xi8>
  %5 = ge.reduce_min %h axes [1] keepdims : tensor<2x3x4xf16> -> tensor<2x1x4xf16>
  func.return
}

// -----

// ge.layer_norm with weight and bias, weight only, neither; the default epsilon (1e-5) is
// not printed.  ge.rms_norm (default epsilon 1e-6).
// CHECK-LABEL: func.func @norms(
// CHECK-NEXT:    %[[V0:.*]] = ge.layer_norm %{{.*}} weight %{{.*}} bias %{{.*}} axis 1 : tensor<2x3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.layer_norm %[[V0]] weight %{{.*}} axis 1 epsilon 1.000000e-03 : tensor<2x3x8xf32>, tensor<3x8xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.layer_norm %{{.*}} axis 0 : tensor<4x8xf16>
// CHECK-NEXT:    %[[V3:.*]] = ge.rms_norm %{{.*}}, %{{.*}} axis 1 : tensor<4x8xf16>, tensor<8xf16>
// CHECK-NEXT:    %[[V4:.*]] = ge.rms_norm %{{.*}}, %{{.*}} axis 2 epsilon 1.000000e-05 : tensor<2x3x8xf32>, tensor<8xf32>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "norms",
// GENERIC:         "ge.layer_norm"(%{{.*}}, %{{.*}}, %{{.*}}) <{axis = 1 : i64, {{.*}}operandSegmentSizes = array<i32: 1, 1, 1>{{.*}}}> : (tensor<2x3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<2x3x8xf32>
// GENERIC:         "ge.layer_norm"(%{{.*}}, %{{.*}}) <{axis = 1 : i64, epsilon = 1.000000e-03 : f32, operandSegmentSizes = array<i32: 1, 1, 0>}>
// GENERIC:         "ge.layer_norm"(%{{.*}}) <{axis = 0 : i64, {{.*}}operandSegmentSizes = array<i32: 1, 0, 0>{{.*}}}> : (tensor<4x8xf16>) -> tensor<4x8xf16>
// GENERIC:         "ge.rms_norm"(%{{.*}}, %{{.*}}) <{axis = 1 : i64, epsilon = 1.000000e-06 : f32}>
// GENERIC:         "ge.rms_norm"(%{{.*}}, %{{.*}}) <{axis = 2 : i64, epsilon = 1.000000e-05 : f32}>
func.func @norms(%x: tensor<2x3x8xf32>, %w: tensor<3x8xf32>, %b: tensor<3x8xf32>, %h: tensor<4x8xf16>, %hw: tensor<8xf16>, %w8: tensor<8xf32>) {
  %0 = ge.layer_norm %x weight %w bias %b axis 1 epsilon 1.0e-05 : tensor<2x3x8xf32>, tensor<3x8xf32>, tensor<3x8xf32>
  %1 = ge.layer_norm %0 weight %w axis 1 epsilon 1.0e-03 : tensor<2x3x8xf32>, tensor<3x8xf32>
  %2 = ge.layer_norm %h axis 0 : tensor<4x8xf16>
  %3 = ge.rms_norm %h, %hw axis 1 : tensor<4x8xf16>, tensor<8xf16>
  %4 = ge.rms_norm %x, %w8 axis 2 epsilon 1.0e-05 : tensor<2x3x8xf32>, tensor<8xf32>
  func.return
}
