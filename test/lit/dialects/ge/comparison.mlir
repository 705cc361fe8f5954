// Round-trip tests of the `ge` comparison, logic and selection ops (equal, not_equal, less,
// less_equal, greater, greater_equal; logical_not, logical_and, logical_or; where) and of
// sin and cos: the custom form prints exactly as checked below and reparses to the same IR
// (custom and generic).  Their diagnostics are in comparison-invalid.mlir.
// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP
// RUN: ge-opt %s --split-input-file --print-op-generic | filecheck %s --check-prefix=GENERIC

// Comparisons broadcast like numpy and give i1, on floats, integers and i1.
// CHECK-LABEL: func.func @compare(
// CHECK-SAME:    %[[A:.*]]: tensor<2x8xf32>, %[[B:.*]]: tensor<8xf32>, %[[I:.*]]: tensor<8x1xi64>, %[[J:.*]]: tensor<1x8xi64>, %[[H:.*]]: tensor<4xf16>, %[[M:.*]]: tensor<4xi1>) -> tensor<2x8xi1> {
// CHECK-NEXT:    %[[V0:.*]] = ge.equal %[[A]], %[[B]] : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xi1>
// CHECK-NEXT:    %[[V1:.*]] = ge.not_equal %[[A]], %[[A]] : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xi1>
// CHECK-NEXT:    %[[V2:.*]] = ge.less %[[A]], %[[B]] : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xi1>
// CHECK-NEXT:    %[[V3:.*]] = ge.less_equal %[[I]], %[[J]] : (tensor<8x1xi64>, tensor<1x8xi64>) -> tensor<8x8xi1>
// CHECK-NEXT:    %[[V4:.*]] = ge.greater %[[H]], %[[H]] : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xi1>
// CHECK-NEXT:    %[[V5:.*]] = ge.greater_equal %[[M]], %[[M]] : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
// CHECK-NEXT:    func.return %[[V0]] : tensor<2x8xi1>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "compare",
// GENERIC:         "ge.equal"(%{{.*}}, %{{.*}}) : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xi1>
// GENERIC:         "ge.less_equal"(%{{.*}}, %{{.*}}) : (tensor<8x1xi64>, tensor<1x8xi64>) -> tensor<8x8xi1>
func.func @compare(%a: tensor<2x8xf32>, %b: tensor<8xf32>, %i: tensor<8x1xi64>, %j: tensor<1x8xi64>, %h: tensor<4xf16>, %m: tensor<4xi1>) -> tensor<2x8xi1> {
  %0 = ge.equal %a, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xi1>
  %1 = ge.not_equal %a, %a : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xi1>
  %2 = ge.less %a, %b : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xi1>
  %3 = ge.less_equal %i, %j : (tensor<8x1xi64>, tensor<1x8xi64>) -> tensor<8x8xi1>
  %4 = ge.greater %h, %h : (tensor<4xf16>, tensor<4xf16>) -> tensor<4xi1>
  %5 = ge.greater_equal %m, %m : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  func.return %0 : tensor<2x8xi1>
}

// -----

// Logic on i1 and a three-way broadcasting where (a scalar `b`).
// CHECK-LABEL: func.func @logic(
// CHECK-SAME:    %[[P:.*]]: tensor<8x8xi1>, %[[Q:.*]]: tensor<1x8xi1>, %[[X:.*]]: tensor<2x8x8xf32>, %[[S:.*]]: tensor<f32>) -> tensor<2x8x8xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.logical_not %[[P]] : tensor<8x8xi1>
// CHECK-NEXT:    %[[V1:.*]] = ge.logical_and %[[V0]], %[[Q]] : (tensor<8x8xi1>, tensor<1x8xi1>) -> tensor<8x8xi1>
// CHECK-NEXT:    %[[V2:.*]] = ge.logical_or %[[V1]], %[[P]] : (tensor<8x8xi1>, tensor<8x8xi1>) -> tensor<8x8xi1>
// CHECK-NEXT:    %[[V3:.*]] = ge.where %[[V2]], %[[X]], %[[S]] : (tensor<8x8xi1>, tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8x8xf32>
// CHECK-NEXT:    func.return %[[V3]] : tensor<2x8x8xf32>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "logic",
// GENERIC:         "ge.logical_not"(%{{.*}}) : (tensor<8x8xi1>) -> tensor<8x8xi1>
// GENERIC:         "ge.where"(%{{.*}}, %{{.*}}, %{{.*}}) : (tensor<8x8xi1>, tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8x8xf32>
func.func @logic(%p: tensor<8x8xi1>, %q: tensor<1x8xi1>, %x: tensor<2x8x8xf32>, %s: tensor<f32>) -> tensor<2x8x8xf32> {
  %0 = ge.logical_not %p : tensor<8x8xi1>
  %1 = ge.logical_and %0, %q : (tensor<8x8xi1>, tensor<1x8xi1>) -> tensor<8x8xi1>
  %2 = ge.logical_or %1, %p : (tensor<8x8xi1>, tensor<8x8xi1>) -> tensor<8x8xi1>
  %3 = ge.where %2, %x, %s : (tensor<8x8xi1>, tensor<2x8x8xf32>, tensor<f32>) -> tensor<2x8x8xf32>
  func.return %3 : tensor<2x8x8xf32>
}

// -----

// where selects any element type (i64 here), sin and cos are float ops of any layout.
// CHECK-LABEL: func.func @select_and_trig(
// CHECK-SAME:    %[[C:.*]]: tensor<4xi1>, %[[A:.*]]: tensor<4xi64>, %[[X:.*]]: tensor<2x8xf32>, %[[N:.*]]: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<4xi64> {
// CHECK-NEXT:    %[[V0:.*]] = ge.where %[[C]], %[[A]], %[[A]] : (tensor<4xi1>, tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
// CHECK-NEXT:    %[[V1:.*]] = ge.sin %[[X]] : tensor<2x8xf32>
// CHECK-NEXT:    %[[V2:.*]] = ge.cos %[[V1]] : tensor<2x8xf32>
// CHECK-NEXT:    %[[V3:.*]] = ge.cos %[[N]] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    func.return %[[V0]] : tensor<4xi64>
// CHECK-NEXT:  }
// GENERIC-LABEL: "func.func"() <{sym_name = "select_and_trig",
// GENERIC:         "ge.sin"(%{{.*}}) : (tensor<2x8xf32>) -> tensor<2x8xf32>
// GENERIC:         "ge.cos"(%{{.*}}) : (tensor<2x8xf32>) -> tensor<2x8xf32>
func.func @select_and_trig(%c: tensor<4xi1>, %a: tensor<4xi64>, %x: tensor<2x8xf32>, %n: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<4xi64> {
  %0 = ge.where %c, %a, %a : (tensor<4xi1>, tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %1 = ge.sin %x : tensor<2x8xf32>
  %2 = ge.cos %1 : tensor<2x8xf32>
  %3 = ge.cos %n : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  func.return %0 : tensor<4xi64>
}
