// Round-trip tests of the `ge` MoE and MLP ops (topk, scatter_add, swi_glu,
// moe_gating_top_k, grouped_matmul): the custom form prints exactly as checked below and
// reparses to the same IR (custom and generic).  Their diagnostics are in moe-invalid.mlir.
// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP
// RUN: ge-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// topk: `largest` and `sorted` printed only when set; f16; axis 0.
// CHECK-LABEL: func.func @topk(
// CHECK-NEXT:    %[[V:.*]], %[[I:.*]] = ge.topk %{{.*}} k 2 axis 1 largest sorted : tensor<4x8xf32> -> tensor<4x2xf32>, tensor<4x2xi64>
// CHECK-NEXT:    %{{.*}}, %{{.*}} = ge.topk %{{.*}} k 3 axis 0 : tensor<4x8xf16> -> tensor<3x8xf16>, tensor<3x8xi64>
// CHECK-NEXT:    %{{.*}}, %{{.*}} = ge.topk %{{.*}} k 8 axis 1 sorted : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4x8xi64>
// CHECK-NEXT:    func.return %[[V]], %[[I]] : tensor<4x2xf32>, tensor<4x2xi64>
// GENERIC-LABEL: "func.func"() <{sym_name = "topk",
// GENERIC:         "ge.topk"(%{{.*}}) <{k = 2 : i64, axis = 1 : i64, largest, sorted}> : (tensor<4x8xf32>) -> (tensor<4x2xf32>, tensor<4x2xi64>)
// GENERIC:         "ge.topk"(%{{.*}}) <{k = 3 : i64, axis = 0 : i64}> : (tensor<4x8xf16>) -> (tensor<3x8xf16>, tensor<3x8xi64>)
func.func @topk(%x: tensor<4x8xf32>, %h: tensor<4x8xf16>) -> (tensor<4x2xf32>, tensor<4x2xi64>) {
  %v, %i = ge.topk %x k 2 axis 1 largest sorted : tensor<4x8xf32> -> tensor<4x2xf32>, tensor<4x2xi64>
  %hv, %hi = ge.topk %h k 3 axis 0 : tensor<4x8xf16> -> tensor<3x8xf16>, tensor<3x8xi64>
  %av, %ai = ge.topk %x k 8 axis 1 sorted : tensor<4x8xf32> -> tensor<4x8xf32>, tensor<4x8xi64>
  func.return %v, %i : tensor<4x2xf32>, tensor<4x2xi64>
}

// -----

// scatter_add: i64 or i32 indices; the indices may be smaller than the data off the axis.
// CHECK-LABEL: func.func @scatter_add(
// CHECK-NEXT:    %{{.*}} = ge.scatter_add %{{.*}}, %{{.*}}, %{{.*}} axis 1 : tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %{{.*}} = ge.scatter_add %{{.*}}, %{{.*}}, %{{.*}} axis 0 : tensor<4x8xf16>, tensor<2x3xi32>, tensor<2x3xf16> -> tensor<4x8xf16>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "scatter_add",
// GENERIC:         "ge.scatter_add"(%{{.*}}, %{{.*}}, %{{.*}}) <{axis = 1 : i64}> : (tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32>) -> tensor<4x8xf32>
func.func @scatter_add(%d: tensor<4x8xf32>, %i: tensor<4x2xi64>, %u: tensor<4x2xf32>, %h: tensor<4x8xf16>, %j: tensor<2x3xi32>, %v: tensor<2x3xf16>) {
  %0 = ge.scatter_add %d, %i, %u axis 1 : tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32> -> tensor<4x8xf32>
  %1 = ge.scatter_add %h, %j, %v axis 0 : tensor<4x8xf16>, tensor<2x3xi32>, tensor<2x3xf16> -> tensor<4x8xf16>
  func.return
}

// -----

// swi_glu halves `dim`; moe_gating_top_k's default norm "softmax" is not printed.
// CHECK-LABEL: func.func @mlp(
// CHECK-NEXT:    %{{.*}} = ge.swi_glu %{{.*}} dim 1 : tensor<4x16xf32> -> tensor<4x8xf32>
// CHECK-NEXT:    %{{.*}} = ge.swi_glu %{{.*}} dim 0 : tensor<2x3x4xf16> -> tensor<1x3x4xf16>
// CHECK-NEXT:    %{{.*}}, %{{.*}} = ge.moe_gating_top_k %{{.*}} k 2 renorm : tensor<8x4xf32> -> tensor<8x2xf32>, tensor<8x2xi64>
// CHECK-NEXT:    %{{.*}}, %{{.*}} = ge.moe_gating_top_k %{{.*}} k 1 norm "sigmoid" : tensor<8x4xf32> -> tensor<8x1xf32>, tensor<8x1xi64>
// CHECK-NEXT:    %{{.*}} = ge.grouped_matmul %{{.*}}, %{{.*}} : tensor<4x8x16xf32>, tensor<4x16x32xf32> -> tensor<4x8x32xf32>
// CHECK-NEXT:    func.return
// GENERIC-LABEL: "func.func"() <{sym_name = "mlp",
// GENERIC:         "ge.swi_glu"(%{{.*}}) <{dim = 1 : i64}> : (tensor<4x16xf32>) -> tensor<4x8xf32>
// GENERIC:         "ge.moe_gating_top_k"(%{{.*}}) <{k = 2 : i64, renorm, norm = "softmax"}> : (tensor<8x4xf32>) -> (tensor<8x2xf32>, tensor<8x2xi64>)
// GENERIC:         "ge.moe_gating_top_k"(%{{.*}}) <{k = 1 : i64, norm = "sigmoid"}> : (tensor<8x4xf32>) -> (tensor<8x1xf32>, tensor<8x1xi64>)
// GENERIC:         "ge.grouped_matmul"(%{{.*}}, %{{.*}}) : (tensor<4x8x16xf32>, tensor<4x16x32xf32>) -> tensor<4x8x32xf32>
func.func @mlp(%x: tensor<4x16xf32>, %h: tensor<2x3x4xf16>, %l: tensor<8x4xf32>, %a: tensor<4x8x16xf32>, %w: tensor<4x16x32xf32>) {
  %0 = ge.swi_glu %x dim 1 : tensor<4x16xf32> -> tensor<4x8xf32>
  %1 = ge.swi_glu %h dim 0 : tensor<2x3x4xf16> -> tensor<1x3x4xf16>
  %2, %3 = ge.moe_gating_top_k %l k 2 renorm : tensor<8x4xf32> -> tensor<8x2xf32>, tensor<8x2xi64>
  %4, %5 = ge.moe_gating_top_k %l k 1 norm "sigmoid" : tensor<8x4xf32> -> tensor<8x1xf32>, tensor<8x1xi64>
  %6 = ge.grouped_matmul %a, %w : tensor<4x8x16xf32>, tensor<4x16x32xf32> -> tensor<4x8x32xf32>
  func.return
}
