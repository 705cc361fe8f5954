// Diagnostics of the `ge` comparison, logic and selection ops and of sin/cos: at least one
// case per verifier rule, each pinned with its exact message and location (line numbers are
// those of the whole file, across `// -----` chunks).
// RUN: ge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// RUN: not ge-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s

// Both operands of a comparison have one element type.
func.func @equal_mixed(%a: tensor<4xf32>, %b: tensor<4xf16>) {
  // CHECK: comparison-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.equal' op operand 'rhs' has element type f16, expected f32 (the lhs's){{$}}
  %y = ge.equal %a, %b : (tensor<4xf32>, tensor<4xf16>) -> tensor<4xi1>
  func.return
}

// -----

// A comparison takes f16, f32, i8, ui8, i32, i64 or i1.
func.func @less_i16(%a: tensor<4xi16>) {
  // CHECK-NEXT: comparison-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.less' op operand 'lhs' must be one of f16, f32, i8, ui8, i32, i64, i1, got i16{{$}}
  %y = ge.less %a, %a : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi1>
  func.return
}

// -----

// The operands broadcast.
func.func @greater_shapes(%a: tensor<2x3xf32>, %b: tensor<4xf32>) {
  // CHECK-NEXT: comparison-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.greater' op operands have shapes [2, 3] and [4], which do not broadcast{{$}}
  %y = ge.greater %a, %b : (tensor<2x3xf32>, tensor<4xf32>) -> tensor<2x3xi1>
  func.return
}

// -----

// The result is i1 of the broadcast shape.
func.func @not_equal_f32(%a: tensor<4xf32>) {
  // CHECK-NEXT: comparison-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.not_equal' op result has type tensor<4xf32>, expected shape [4] and element type i1{{$}}
  %y = ge.not_equal %a, %a : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @less_equal_shape(%a: tensor<8x1xi64>, %b: tensor<1x8xi64>) {
  // CHECK-NEXT: comparison-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.less_equal' op result has type tensor<8x1xi1>, expected shape [8, 8] and element type i1{{$}}
  %y = ge.less_equal %a, %b : (tensor<8x1xi64>, tensor<1x8xi64>) -> tensor<8x1xi1>
  func.return
}

// -----

// The operands and result have the default layout.
func.func @greater_equal_nc1hwc0(%a: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) {
  // CHECK-NEXT: comparison-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.greater_equal' op operand 'lhs' has layout #ge.format<NC1HWC0>: ge.greater_equal takes default-layout (ND/NCHW) tensors; convert it with ge.trans_data first{{$}}
  %y = ge.greater_equal %a, %a : (tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<1x17x2x2xi1>
  func.return
}

// -----

// Logic is on i1 only.
func.func @not_f32(%a: tensor<4xf32>) {
  // CHECK-NEXT: comparison-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.logical_not' op operand 'input' must be i1, got f32{{$}}
  %y = ge.logical_not %a : tensor<4xf32>
  func.return
}

// -----

func.func @and_i8(%a: tensor<4xi1>, %b: tensor<4xi8>) {
  // CHECK-NEXT: comparison-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.logical_and' op operand 'rhs' must be i1, got i8{{$}}
  %y = ge.logical_and %a, %b : (tensor<4xi1>, tensor<4xi8>) -> tensor<4xi1>
  func.return
}

// -----

func.func @or_shapes(%a: tensor<4xi1>, %b: tensor<3xi1>) {
  // CHECK-NEXT: comparison-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.logical_or' op operands have shapes [4] and [3], which do not broadcast{{$}}
  %y = ge.logical_or %a, %b : (tensor<4xi1>, tensor<3xi1>) -> tensor<4xi1>
  func.return
}

// -----

// where: an i1 condition, `a` and `b` of one element type, three-way broadcasting.
func.func @where_f32_condition(%c: tensor<4xf32>, %a: tensor<4xf32>) {
  // CHECK-NEXT: comparison-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.where' op operand 'condition' must be i1, got f32{{$}}
  %y = ge.where %c, %a, %a : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return
}

// -----

func.func @where_mixed(%c: tensor<4xi1>, %a: tensor<4xf32>, %b: tensor<4xf16>) {
  // CHECK-NEXT: comparison-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.where' op operand 'b' has element type f16, expected f32 (the a's){{$}}
  %y = ge.where %c, %a, %b : (tensor<4xi1>, tensor<4xf32>, tensor<4xf16>) -> tensor<4xf32>
  func.return
}

// -----

func.func @where_shapes(%c: tensor<2x1xi1>, %a: tensor<1x3xf32>, %b: tensor<4xf32>) {
  // CHECK-NEXT: comparison-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.where' op operands have shapes [2, 1] and [1, 3] and [4], which do not broadcast{{$}}
  %y = ge.where %c, %a, %b : (tensor<2x1xi1>, tensor<1x3xf32>, tensor<4xf32>) -> tensor<2x3xf32>
  func.return
}

// -----

func.func @where_result(%c: tensor<2x1xi1>, %a: tensor<1x3xf32>) {
  // CHECK-NEXT: comparison-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.where' op result has type tensor<2x3xf16>, expected shape [2, 3] and element type f32{{$}}
  %y = ge.where %c, %a, %a : (tensor<2x1xi1>, tensor<1x3xf32>, tensor<1x3xf32>) -> tensor<2x3xf16>
  func.return
}

// -----

// sin and cos are float only.
func.func @sin_i32(%x: tensor<4xi32>) {
  // CHECK-NEXT: comparison-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.sin' op operand 'input' must be f16 or f32, got i32{{$}}
  %y = ge.sin %x : tensor<4xi32>
  func.return
}

// -----

func.func @cos_i1(%x: tensor<4xi1>) {
  // CHECK-NEXT: comparison-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.cos' op operand 'input' must be f16 or f32, got i1{{$}}
  %y = ge.cos %x : tensor<4xi1>
  func.return
}
