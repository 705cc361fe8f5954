// Round-trip tests of the `ge` indexing ops (gather, slice, expand): the custom form prints
// exactly as checked below and reparses to the same IR (custom and generic).  Their
// diagnostics are in indexing-invalid.mlir; folding is in the last function.
// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP
// RUN: ge-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: ge-opt %s --split-input-file -p canonicalize | filecheck %s --check-prefix=FOLD

// gather: i64 and i32 indices, any axis, any data element type; a scalar index drops the axis.
// CHECK-LABEL: func.func @gather(
// CHECK-SAME:    %[[W:.*]]: tensor<10x4xf32>, %[[I:.*]]: tensor<2x3xi64>, %[[J:.*]]: tensor<2xi32>, %[[K:.*]]: tensor<i64>, %[[B:.*]]: tensor<3x5xi8>)
// CHECK-NEXT:    %[[V0:.*]] = ge.gather %[[W]], %[[I]] axis 0 : tensor<10x4xf32>, tensor<2x3xi64> -> tensor<2x3x4xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.gather %[[W]], %[[J]] axis 1 : tensor<10x4xf32>, tensor<2xi32> -> tensor<10x2xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.gather %[[W]], %[[K]] axis 0 : tensor<10x4xf32>, tensor<i64> -> tensor<4xf32>
// CHECK-NEXT:    %[[V3:.*]] = ge.gather %[[B]], %[[J]] axis 1 : tensor<3x5xi8>, tensor<2xi32> -> tensor<3x2xi8>
// CHECK-NEXT:    func.return %[[V0]], %[[V1]], %[[V2]], %[[V3]]
// GENERIC-LABEL: "func.func"() <{sym_name = "gather",
// GENERIC:         "ge.gather"(%{{.*}}, %{{.*}}) <{axis = 0 : i64}> : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
func.func @gather(%w: tensor<10x4xf32>, %i: tensor<2x3xi64>, %j: tensor<2xi32>, %k: tensor<i64>, %b: tensor<3x5xi8>) -> (tensor<2x3x4xf32>, tensor<10x2xf32>, tensor<4xf32>, tensor<3x2xi8>) {
  %0 = ge.gather %w, %i axis 0 : tensor<10x4xf32>, tensor<2x3xi64> -> tensor<2x3x4xf32>
  %1 = ge.gather %w, %j axis 1 : tensor<10x4xf32>, tensor<2xi32> -> tensor<10x2xf32>
  %2 = ge.gather %w, %k axis 0 : tensor<10x4xf32>, tensor<i64> -> tensor<4xf32>
  %3 = ge.gather %b, %j axis 1 : tensor<3x5xi8>, tensor<2xi32> -> tensor<3x2xi8>
  func.return %0, %1, %2, %3 : tensor<2x3x4xf32>, tensor<10x2xf32>, tensor<4xf32>, tensor<3x2xi8>
}

// -----

// slice: clamped ends (INT64_MAX, past the dim), negative starts, steps > 1, several axes,
// an empty result.
// CHECK-LABEL: func.func @slice(
// CHECK-NEXT:    %{{.*}} = ge.slice %{{.*}} starts [1] ends [9223372036854775807] axes [1] steps [3] : tensor<2x8xf16> -> tensor<2x3xf16>
// CHECK-NEXT:    %{{.*}} = ge.slice %{{.*}} starts [-3, 0] ends [100, 1] axes [1, 0] steps [2, 1] : tensor<2x8xf16> -> tensor<1x2xf16>
// CHECK-NEXT:    %{{.*}} = ge.slice %{{.*}} starts [5] ends [2] axes [1] steps [1] : tensor<2x8xf16> -> tensor<2x0xf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "slice",
// GENERIC:         "ge.slice"(%{{.*}}) <{starts = array<i64: 1>, ends = array<i64: 9223372036854775807>, axes = array<i64: 1>, steps = array<i64: 3>}> : (tensor<2x8xf16>) -> tensor<2x3xf16>
func.func @slice(%x: tensor<2x8xf16>) -> (tensor<2x3xf16>, tensor<1x2xf16>, tensor<2x0xf16>) {
  %0 = ge.slice %x starts [1] ends [9223372036854775807] axes [1] steps [3] : tensor<2x8xf16> -> tensor<2x3xf16>
  %1 = ge.slice %x starts [-3, 0] ends [100, 1] axes [1, 0] steps [2, 1] : tensor<2x8xf16> -> tensor<1x2xf16>
  %2 = ge.slice %x starts [5] ends [2] axes [1] steps [1] : tensor<2x8xf16> -> tensor<2x0xf16>
  func.return %0, %1, %2 : tensor<2x3xf16>, tensor<1x2xf16>, tensor<2x0xf16>
}

// -----

// expand: new leading dims, size-1 dims broadcast, the same shape.
// CHECK-LABEL: func.func @expand(
// CHECK-NEXT:    %{{.*}} = ge.expand %{{.*}} : tensor<3x1xf32> -> tensor<2x3x4xf32>
// CHECK-NEXT:    %{{.*}} = ge.expand %{{.*}} : tensor<3x1xf32> -> tensor<3x1xf32>
// GENERIC-LABEL: "func.func"() <{sym_name = "expand",
// GENERIC:         "ge.expand"(%{{.*}}) : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
func.func @expand(%x: tensor<3x1xf32>) -> (tensor<2x3x4xf32>, tensor<3x1xf32>) {
  %0 = ge.expand %x : tensor<3x1xf32> -> tensor<2x3x4xf32>
  %1 = ge.expand %x : tensor<3x1xf32> -> tensor<3x1xf32>
  func.return %0, %1 : tensor<2x3x4xf32>, tensor<3x1xf32>
}

// -----

// slice and expand of a constant fold into a constant.
// FOLD-LABEL: func.func @fold(
// FOLD-NEXT:    %[[S:.*]] = ge.const dense<[[2.000000e+00, 4.000000e+00]]> : tensor<1x2xf32>
// FOLD-NEXT:    %[[E:.*]] = ge.const dense<{{\[\[}}[2.000000e+00, 4.000000e+00], [2.000000e+00, 4.000000e+00]]]> : tensor<1x2x2xf32>
// FOLD-NEXT:    func.return %[[S]], %[[E]]
func.func @fold() -> (tensor<1x2xf32>, tensor<1x2x2xf32>) {
  %c = ge.const dense<[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]> : tensor<2x4xf32>
  %s = ge.slice %c starts [0, 1] ends [1, 9223372036854775807] axes [0, 1] steps [1, 2] : tensor<2x4xf32> -> tensor<1x2xf32>
  %e = ge.expand %s : tensor<1x2xf32> -> tensor<1x2x2xf32>
  func.return %s, %e : tensor<1x2xf32>, tensor<1x2x2xf32>
}
