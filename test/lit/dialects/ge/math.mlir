// Round-trip tests of the `ge` math ops (exp, log, tanh, erf, sqrt, rsqrt, neg, reciprocal,
// gelu; div, maximum, minimum, pow): the custom form prints exactly as checked below and
// reparses to the same IR (custom and generic).  Their diagnostics are in math-invalid.mlir.
// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP
// RUN: ge-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// The unary math ops on f32 ND, f16 ND and an NC1HWC0 value (any layout).
// CHECK-LABEL: func.func @unary(
// CHECK-SAME:    %[[X:.*]]: tensor<2x8xf32>, %[[H:.*]]: tensor<8xf16>, %[[N:.*]]: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<2x8xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.exp %[[X]] : tensor<2x8xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.log %[[V0]] : tensor<2x8xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.tanh %[[V1]] : tensor<2x8xf32>
// CHECK-NEXT:    %[[V3:.*]] = ge.erf %[[V2]] : tensor<2x8xf32>
// CHECK-NEXT:    %[[V4:.*]] = ge.sqrt %[[V3]] : tensor<2x8xf32>
// CHECK-NEXT:    %[[V5:.*]] = ge.rsqrt %[[V4]] : tensor<2x8xf32>
// CHECK-NEXT:    %[[V6:.*]] = ge.neg %[[V5]] : tensor<2x8xf32>
// CHECK-NEXT:    %[[V7:.*]] = ge.reciprocal %[[V6]] : tensor<2x8xf32>
// CHECK-NEXT:    %[[V8:.*]] = ge.exp %[[H]] : tensor<8xf16>
// CHECK-NEXT:    %[[V9:.*]] = ge.reciprocal %[[N]] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    func.return %[[V7]] : tensor<2x8xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "unary",
// GENERIC:         "ge.exp"(%{{.*}}) : (tensor<2x8xf32>) -> tensor<2x8xf32>
// GENERIC:         "ge.reciprocal"(%{{.*}}) : (tensor<2x8xf32>) -> tensor<2x8xf32>
func.func @unary(%x: tensor<2x8xf32>, %h: tensor<8xf16>, %n: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<2x8xf32> {
  %0 = ge.exp %x : tensor<2x8xf32>
  %1 = ge.log %0 : tensor<2x8xf32>
  %2 = ge.tanh %1 : tensor<2x8xf32>
  %3 = ge.erf %2 : tensor<2x8xf32>
  %4 = ge.sqrt %3 : tensor<2x8xf32>
  %5 = ge.rsqrt %4 : tensor<2x8xf32>
  %6 = ge.neg %5 : tensor<2x8xf32>
  %7 = ge.reciprocal %6 : tensor<2x8xf32>
  %8 = ge.exp %h : tensor<8xf16>
  %9 = ge.reciprocal %n : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  func.return %7 : tensor<2x8xf32>
}

// -----

// ge.gelu: `approximate "none"` is the default and is not printed; "tanh" is.
// CHECK-LABEL: func.func @gelu(
// CHECK-NEXT:    %[[V0:.*]] = ge.gelu %{{.*}} : tensor<2x8xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.gelu %[[V0]] : tensor<2x8xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.gelu %{{.*}} approximate "tanh" : tensor<2x8xf16>
// GENERIC-LABEL: "func.func"() <{sym_name = "gelu",
// GENERIC:         "ge.gelu"(%{{.*}}) <{approximate = "none"}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
// GENERIC:         "ge.gelu"(%{{.*}}) <{approximate = "none"}> : (tensor<2x8xf32>) -> tensor<2x8xf32>
// GENERIC:         "ge.gelu"(%{{.*}}) <{approximate = "tanh"}> : (tensor<2x8xf16>) -> tensor<2x8xf16>
func.func @gelu(%x: tensor<2x8xf32>, %h: tensor<2x8xf16>) {
  %0 = ge.gelu %x : tensor<2x8xf32>
  %1 = ge.gelu %0 approximate "none" : tensor<2x8xf32>
  %2 = ge.gelu %h approximate "tanh" : tensor<2x8xf16>
  func.return
}

// -----

// The binary math ops broadcast as add/sub/mul do; maximum and minimum also take i8/ui8.
// CHECK-LABEL: func.func @binary(
// CHECK-NEXT:    %[[V0:.*]] = ge.div %{{.*}}, %{{.*}} : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.pow %[[V0]], %{{.*}} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.maximum %[[V1]], %{{.*}} : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
// CHECK-NEXT:    %[[V3:.*]] = ge.minimum %{{.*}}, %{{.*}} : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
// CHECK-NEXT:    %[[V4:.*]] = ge.div %{{.*}}, %{{.*}} : (tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// GENERIC-LABEL: "func.func"() <{sym_name = "binary",
// GENERIC:         "ge.div"(%{{.*}}, %{{.*}}) : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
// GENERIC:         "ge.pow"(%{{.*}}, %{{.*}}) : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
// GENERIC:         "ge.maximum"(%{{.*}}, %{{.*}}) : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
// GENERIC:         "ge.minimum"(%{{.*}}, %{{.*}}) : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
func.func @binary(%x: tensor<2x8xf32>, %s: tensor<f32>, %e: tensor<8xf32>, %c: tensor<2x1xf32>, %i: tensor<4xi8>, %n: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) {
  %0 = ge.div %x, %s : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %1 = ge.pow %0, %e : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  %2 = ge.maximum %1, %c : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %3 = ge.minimum %i, %i : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  %4 = ge.div %n, %n : (tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  func.return
}
