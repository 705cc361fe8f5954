// --apply-pdl=FILE: xDSL's apply-pdl{pdl_file="FILE"} (then dce) on ge ops, with the patterns
// of Inputs/silu-and-relu.pdl.mlir: x * sigmoid(x) -> silu(x), relu(relu(x)) -> relu(x),
// clip(x, 0, 6) -> relu6(x).  A missing or unparsable file is one located error.
// RUN: ge-opt %s --split-input-file --apply-pdl=%S/Inputs/silu-and-relu.pdl.mlir | filecheck %s
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// RUN: ge-opt %s --split-input-file -p 'apply-pdl{pdl_file="%S/Inputs/silu-and-relu.pdl.mlir"},dce' | filecheck %s
// RUN: not ge-opt %s --apply-pdl=%S/Inputs/missing.pdl.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not ge-opt %s --apply-pdl=%S/Inputs/bad.pdl.mlir 2>&1 | filecheck %s --check-prefix=BAD

// MISSING: {{^}}{{.*}}Inputs/missing.pdl.mlir: error: cannot read PDL patterns: No such file or directory{{$}}
// BAD: {{^}}{{.*}}Inputs/bad.pdl.mlir:6:1: error: Expected ')'{{$}}

// CHECK-LABEL: func.func @silu(
// CHECK-SAME:  %[[X:.*]]: tensor<1x4x8x8xf16>) -> tensor<1x4x8x8xf16> {
// CHECK-NEXT:    %[[Y:.*]] = ge.silu %[[X]] : tensor<1x4x8x8xf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x4x8x8xf16>
func.func @silu(%x: tensor<1x4x8x8xf16>) -> tensor<1x4x8x8xf16> {
  %s = ge.sigmoid %x : tensor<1x4x8x8xf16>
  %y = ge.mul %x, %s : (tensor<1x4x8x8xf16>, tensor<1x4x8x8xf16>) -> tensor<1x4x8x8xf16>
  func.return %y : tensor<1x4x8x8xf16>
}

// -----

// The sigmoid on the left; a mul of two different values is not a silu.
// CHECK-LABEL: func.func @silu_swapped(
// CHECK-SAME:  %[[X:.*]]: tensor<8xf32>, %[[Z:.*]]: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
// CHECK-NEXT:    %[[S:.*]] = ge.sigmoid %[[X]] : tensor<8xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.silu %[[X]] : tensor<8xf32>
// CHECK-NEXT:    %[[N:.*]] = ge.mul %[[Z]], %[[S]] : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
// CHECK-NEXT:    func.return %[[Y]], %[[N]] : tensor<8xf32>, tensor<8xf32>
func.func @silu_swapped(%x: tensor<8xf32>, %z: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %s = ge.sigmoid %x : tensor<8xf32>
  %y = ge.mul %s, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %n = ge.mul %z, %s : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  func.return %y, %n : tensor<8xf32>, tensor<8xf32>
}

// -----

// CHECK-LABEL: func.func @relu_relu(
// CHECK-SAME:  %[[X:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[X]] : tensor<4xf32>
// CHECK-NEXT:    func.return %[[R]] : tensor<4xf32>
func.func @relu_relu(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x : tensor<4xf32>
  %b = ge.relu %a : tensor<4xf32>
  %c = ge.relu %b : tensor<4xf32>
  func.return %c : tensor<4xf32>
}

// -----

// Only clip(0, 6) becomes relu6: the properties are matched.
// CHECK-LABEL: func.func @clip(
// CHECK-SAME:  %[[X:.*]]: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
// CHECK-NEXT:    %[[A:.*]] = ge.relu6 %[[X]] : tensor<4xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.clip %[[X]] min 0.000000e+00 max 5.000000e+00 : tensor<4xf32>
// CHECK-NEXT:    func.return %[[A]], %[[B]] : tensor<4xf32>, tensor<4xf32>
func.func @clip(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %a = ge.clip %x min 0.0 max 6.0 : tensor<4xf32>
  %b = ge.clip %x min 0.0 max 5.0 : tensor<4xf32>
  func.return %a, %b : tensor<4xf32>, tensor<4xf32>
}
