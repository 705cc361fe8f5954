// Diagnostics of the `ge` math ops: at least one case per verifier rule, each pinned with its
// exact message and location (line numbers are those of the whole file, across `// -----`
// chunks).
// RUN: ge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// RUN: not ge-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s

// The unary math ops are float only.
func.func @exp_i8(%x: tensor<4xi8>) {
  // CHECK: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.exp' op operand 'input' must be f16 or f32, got i8{{$}}
  %y = ge.exp %x : tensor<4xi8>
  func.return
}

// -----

func.func @rsqrt_i32(%x: tensor<4xi32>) {
  // CHECK-NEXT: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.rsqrt' op operand 'input' must be f16 or f32, got i32{{$}}
  %y = ge.rsqrt %x : tensor<4xi32>
  func.return
}

// -----

func.func @gelu_ui8(%x: tensor<4xui8>) {
  // CHECK-NEXT: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.gelu' op operand 'input' must be f16 or f32, got ui8{{$}}
  %y = ge.gelu %x : tensor<4xui8>
  func.return
}

// -----

// gelu's approximation is "none" or "tanh" (PyTorch's and ONNX's names).
func.func @gelu_unknown_approximation(%x: tensor<4xf32>) {
  // CHECK-NEXT: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.gelu' op approximate must be "none" or "tanh", got "sigmoid"{{$}}
  %y = ge.gelu %x approximate "sigmoid" : tensor<4xf32>
  func.return
}

// -----

// The result has the input's type.
func.func @log_result_type(%x: tensor<4xf32>) {
  // CHECK-NEXT: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.log' op result 'output' at position 0 does not verify: attribute tensor<4xf32> expected from variable 'T', but got tensor<4xf16>{{$}}
  %y = "ge.log"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  func.return
}

// -----

// div and pow are float only (integer division needs rounding and division-by-zero rules).
func.func @div_i8(%a: tensor<4xi8>) {
  // CHECK-NEXT: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.div' op operand 'lhs' must be f16 or f32, got i8{{$}}
  %y = ge.div %a, %a : (tensor<4xi8>, tensor<4xi8>) -> tensor<4xi8>
  func.return
}

// -----

func.func @pow_ui8(%a: tensor<4xui8>) {
  // CHECK-NEXT: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.pow' op operand 'lhs' must be f16 or f32, got ui8{{$}}
  %y = ge.pow %a, %a : (tensor<4xui8>, tensor<4xui8>) -> tensor<4xui8>
  func.return
}

// -----

// maximum and minimum take i8/ui8 as add does, not i32.
func.func @maximum_i32(%a: tensor<4xi32>) {
  // CHECK-NEXT: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.maximum' op operand 'lhs' must be f16, f32, i8 or ui8, got i32{{$}}
  %y = ge.maximum %a, %a : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  func.return
}

// -----

// Operands of one element type.
func.func @pow_mixed(%a: tensor<4xf32>, %e: tensor<f16>) {
  // CHECK-NEXT: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.pow' op operand 'rhs' has element type f16, expected f32 (the lhs's){{$}}
  %y = ge.pow %a, %e : (tensor<4xf32>, tensor<f16>) -> tensor<4xf32>
  func.return
}

// -----

// Shapes that do not broadcast.
func.func @minimum_shapes(%a: tensor<4xf32>, %b: tensor<3xf32>) {
  // CHECK-NEXT: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.minimum' op operands have shapes [4] and [3], which do not broadcast{{$}}
  %y = ge.minimum %a, %b : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  func.return
}

// -----

// The result's shape is the broadcast shape.
func.func @div_result_shape(%a: tensor<2x4xf32>, %b: tensor<4xf32>) {
  // CHECK-NEXT: math-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.div' op result has type tensor<4xf32>, expected shape [2, 4] and element type f32{{$}}
  %y = ge.div %a, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return
}
