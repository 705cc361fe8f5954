// Round-trip tests of the `ge` transformer ops (flash_attention, rotary_mul): the custom form
// prints exactly as checked below and reparses to the same IR (custom and generic).  Their
// diagnostics are in transformer-invalid.mlir.
// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP
// RUN: ge-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// ge.flash_attention: multi-head without a mask; grouped-query (8 query heads on 2 key/value
// heads) with an i1 mask and causal; decoding (Sq = 1) with an f16 additive mask of rank 2;
// a value head size other than the key's.  The scale is an f64 and prints its exact digits.
// CHECK-LABEL: func.func @flash_attention(
// CHECK-NEXT:    %[[V0:.*]] = ge.flash_attention %{{.*}}, %{{.*}}, %{{.*}} scale 2.500000e-01 : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.flash_attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} scale 0.35355339059327379 causal : tensor<1x8x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x1x4x6xi1> -> tensor<1x8x4x8xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.flash_attention %{{.*}}, %{{.*}}, %{{.*}} mask %{{.*}} scale 1.250000e-01 : tensor<3x4x1x8xf16>, tensor<3x1x16x8xf16>, tensor<3x1x16x4xf16>, tensor<1x16xf16> -> tensor<3x4x1x4xf16>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "flash_attention",
// GENERIC:         "ge.flash_attention"(%{{.*}}, %{{.*}}, %{{.*}}) <{scale = 2.500000e-01 : f64}> : (tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>) -> tensor<2x4x8x16xf32>
// GENERIC:         "ge.flash_attention"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{scale = 0.35355339059327379 : f64, causal}> : (tensor<1x8x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x1x4x6xi1>) -> tensor<1x8x4x8xf32>
// GENERIC:         "ge.flash_attention"(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) <{scale = 1.250000e-01 : f64}> : (tensor<3x4x1x8xf16>, tensor<3x1x16x8xf16>, tensor<3x1x16x4xf16>, tensor<1x16xf16>) -> tensor<3x4x1x4xf16>
func.func @flash_attention(%q: tensor<2x4x8x16xf32>, %gq: tensor<1x8x4x8xf32>, %gk: tensor<1x2x6x8xf32>, %keep: tensor<1x1x4x6xi1>, %dq: tensor<3x4x1x8xf16>, %dk: tensor<3x1x16x8xf16>, %dv: tensor<3x1x16x4xf16>, %dm: tensor<1x16xf16>) {
  %0 = ge.flash_attention %q, %q, %q scale 0.25 : tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32>, tensor<2x4x8x16xf32> -> tensor<2x4x8x16xf32>
  %1 = ge.flash_attention %gq, %gk, %gk mask %keep scale 0.35355339059327379 causal : tensor<1x8x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<1x1x4x6xi1> -> tensor<1x8x4x8xf32>
  %2 = ge.flash_attention %dq, %dk, %dv mask %dm scale 0.125 : tensor<3x4x1x8xf16>, tensor<3x1x16x8xf16>, tensor<3x1x16x4xf16>, tensor<1x16xf16> -> tensor<3x4x1x4xf16>
  func.return
}

// -----

// ge.rotary_mul: cos and sin of the input's shape, or broadcast over batch and heads (f16).
// CHECK-LABEL: func.func @rotary_mul(
// CHECK-NEXT:    %[[V0:.*]] = ge.rotary_mul %{{.*}}, %{{.*}}, %{{.*}} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
// CHECK-NEXT:    %[[V1:.*]] = ge.rotary_mul %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x4x8x16xf16>, tensor<8x16xf16>, tensor<1x1x8x16xf16>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "rotary_mul",
// GENERIC:         "ge.rotary_mul"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
// GENERIC:         "ge.rotary_mul"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<2x4x8x16xf16>, tensor<8x16xf16>, tensor<1x1x8x16xf16>) -> tensor<2x4x8x16xf16>
func.func @rotary_mul(%x: tensor<1x4x8x16xf32>, %h: tensor<2x4x8x16xf16>, %c: tensor<8x16xf16>, %s: tensor<1x1x8x16xf16>) {
  %0 = ge.rotary_mul %x, %x, %x : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
  %1 = ge.rotary_mul %h, %c, %s : tensor<2x4x8x16xf16>, tensor<8x16xf16>, tensor<1x1x8x16xf16>
  func.return
}
