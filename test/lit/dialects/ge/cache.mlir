// Round-trip tests of `ge.scatter_update` (the KV-cache update): the custom form prints
// exactly as checked below and reparses to the same IR (custom and generic).  Its
// diagnostics are in cache-invalid.mlir.
// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP
// RUN: ge-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// A decode step's K/V write: one position per batch row (i64 or i32), one new token
// (K = 1) along the sequence axis 2 of a [B, N, S, D] cache; several positions (K = 3); a
// rank-2 f16 cache along axis 1; an i8 cache.
// CHECK-LABEL: func.func @scatter_update(
// CHECK-SAME:    %[[C:.*]]: tensor<2x2x16x8xf32>, %[[P:.*]]: tensor<2xi64>, %[[U:.*]]: tensor<2x2x1x8xf32>, %[[U3:.*]]: tensor<2x2x3x8xf32>, %[[Q:.*]]: tensor<2xi32>, %[[H:.*]]: tensor<2x4xf16>, %[[HU:.*]]: tensor<2x1xf16>, %[[B:.*]]: tensor<2x5x3xi8>, %[[BU:.*]]: tensor<2x5x1xi8>)
// CHECK-NEXT:    %[[V0:.*]] = ge.scatter_update %[[C]], %[[P]], %[[U]] axis 2 : tensor<2x2x16x8xf32>, tensor<2xi64>, tensor<2x2x1x8xf32> -> tensor<2x2x16x8xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.scatter_update %[[C]], %[[Q]], %[[U3]] axis 2 : tensor<2x2x16x8xf32>, tensor<2xi32>, tensor<2x2x3x8xf32> -> tensor<2x2x16x8xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.scatter_update %[[H]], %[[P]], %[[HU]] axis 1 : tensor<2x4xf16>, tensor<2xi64>, tensor<2x1xf16> -> tensor<2x4xf16>
// CHECK-NEXT:    %[[V3:.*]] = ge.scatter_update %[[B]], %[[P]], %[[BU]] axis 2 : tensor<2x5x3xi8>, tensor<2xi64>, tensor<2x5x1xi8> -> tensor<2x5x3xi8>
// CHECK-NEXT:    func.return %[[V0]], %[[V1]], %[[V2]], %[[V3]]
// GENERIC-LABEL: "func.func"() <{sym_name = "scatter_update",
// GENERIC:         "ge.scatter_update"(%{{.*}}, %{{.*}}, %{{.*}}) <{axis = 2 : i64}> : (tensor<2x2x16x8xf32>, tensor<2xi64>, tensor<2x2x1x8xf32>) -> tensor<2x2x16x8xf32>
func.func @scatter_update(%c: tensor<2x2x16x8xf32>, %p: tensor<2xi64>, %u: tensor<2x2x1x8xf32>, %u3: tensor<2x2x3x8xf32>, %q: tensor<2xi32>, %h: tensor<2x4xf16>, %hu: tensor<2x1xf16>, %b: tensor<2x5x3xi8>, %bu: tensor<2x5x1xi8>) -> (tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x4xf16>, tensor<2x5x3xi8>) {
  %0 = ge.scatter_update %c, %p, %u axis 2 : tensor<2x2x16x8xf32>, tensor<2xi64>, tensor<2x2x1x8xf32> -> tensor<2x2x16x8xf32>
  %1 = ge.scatter_update %c, %q, %u3 axis 2 : tensor<2x2x16x8xf32>, tensor<2xi32>, tensor<2x2x3x8xf32> -> tensor<2x2x16x8xf32>
  %2 = ge.scatter_update %h, %p, %hu axis 1 : tensor<2x4xf16>, tensor<2xi64>, tensor<2x1xf16> -> tensor<2x4xf16>
  %3 = ge.scatter_update %b, %p, %bu axis 2 : tensor<2x5x3xi8>, tensor<2xi64>, tensor<2x5x1xi8> -> tensor<2x5x3xi8>
  func.return %0, %1, %2, %3 : tensor<2x2x16x8xf32>, tensor<2x2x16x8xf32>, tensor<2x4xf16>, tensor<2x5x3xi8>
}

// -----

// The update may cover the whole axis (K = S); the op is Pure, so an unused one is dead code.
// CHECK-LABEL: func.func @whole_axis(
// CHECK-NEXT:    %[[V:.*]] = ge.scatter_update %{{.*}}, %{{.*}}, %{{.*}} axis 1 : tensor<1x4xf32>, tensor<1xi64>, tensor<1x4xf32> -> tensor<1x4xf32>
// CHECK-NEXT:    func.return %[[V]]
func.func @whole_axis(%c: tensor<1x4xf32>, %p: tensor<1xi64>, %u: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %0 = ge.scatter_update %c, %p, %u axis 1 : tensor<1x4xf32>, tensor<1xi64>, tensor<1x4xf32> -> tensor<1x4xf32>
  func.return %0 : tensor<1x4xf32>
}
