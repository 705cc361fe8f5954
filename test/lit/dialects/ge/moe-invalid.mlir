// Diagnostics of the `ge` MoE and MLP ops: at least one case per verifier rule, each
// pinned with its exact message and location (line numbers are those of the whole file,
// across `// -----` chunks).
// RUN: ge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// RUN: not ge-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s

// topk takes floats.
func.func @topk_int(%x: tensor<4x8xi32>) {
  // CHECK: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.topk' op operand 'input' must be f16 or f32, got i32{{$}}
  %v, %i = ge.topk %x k 2 axis 1 : tensor<4x8xi32> -> tensor<4x2xi32>, tensor<4x2xi64>
  func.return
}

// -----

func.func @topk_axis(%x: tensor<4x8xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.topk' op axis 2 is out of range [0, 2) for rank 2{{$}}
  %v, %i = ge.topk %x k 2 axis 2 : tensor<4x8xf32> -> tensor<4x2xf32>, tensor<4x2xi64>
  func.return
}

// -----

func.func @topk_k(%x: tensor<4x8xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.topk' op k 9 must be in [1, 8] (the size of axis 1){{$}}
  %v, %i = ge.topk %x k 9 axis 1 : tensor<4x8xf32> -> tensor<4x9xf32>, tensor<4x9xi64>
  func.return
}

// -----

func.func @topk_shape(%x: tensor<4x8xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.topk' op result 'indices' has shape [4, 3], expected [4, 2]{{$}}
  %v, %i = ge.topk %x k 2 axis 1 : tensor<4x8xf32> -> tensor<4x2xf32>, tensor<4x3xi64>
  func.return
}

// -----

func.func @topk_index_type(%x: tensor<4x8xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.topk' op result 'indices' must be i64, got i32{{$}}
  %v, %i = ge.topk %x k 2 axis 1 : tensor<4x8xf32> -> tensor<4x2xf32>, tensor<4x2xi32>
  func.return
}

// -----

func.func @topk_value_type(%x: tensor<4x8xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.topk' op result 'values' has element type f16, expected f32 (the input's){{$}}
  %v, %i = ge.topk %x k 2 axis 1 : tensor<4x8xf32> -> tensor<4x2xf16>, tensor<4x2xi64>
  func.return
}

// -----

func.func @topk_rank0(%x: tensor<f32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.topk' op operand 'input' must have rank 1 or more, got tensor<f32>{{$}}
  %v, %i = ge.topk %x k 1 axis 0 : tensor<f32> -> tensor<f32>, tensor<i64>
  func.return
}

// -----

func.func @scatter_index_type(%d: tensor<4x8xf32>, %i: tensor<4x2xf32>, %u: tensor<4x2xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_add' op operand 'indices' must be i32 or i64, got f32{{$}}
  %0 = ge.scatter_add %d, %i, %u axis 1 : tensor<4x8xf32>, tensor<4x2xf32>, tensor<4x2xf32> -> tensor<4x8xf32>
  func.return
}

// -----

func.func @scatter_axis(%d: tensor<4x8xf32>, %i: tensor<4x2xi64>, %u: tensor<4x2xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_add' op axis 2 is out of range [0, 2) for rank 2{{$}}
  %0 = ge.scatter_add %d, %i, %u axis 2 : tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf32> -> tensor<4x8xf32>
  func.return
}

// -----

func.func @scatter_updates_shape(%d: tensor<4x8xf32>, %i: tensor<4x2xi64>, %u: tensor<4x3xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_add' op operand 'updates' has shape [4, 3], expected [4, 2]{{$}}
  %0 = ge.scatter_add %d, %i, %u axis 1 : tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x3xf32> -> tensor<4x8xf32>
  func.return
}

// -----

func.func @scatter_updates_type(%d: tensor<4x8xf32>, %i: tensor<4x2xi64>, %u: tensor<4x2xf16>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_add' op operand 'updates' has element type f16, expected f32 (the data's){{$}}
  %0 = ge.scatter_add %d, %i, %u axis 1 : tensor<4x8xf32>, tensor<4x2xi64>, tensor<4x2xf16> -> tensor<4x8xf32>
  func.return
}

// -----

// Off the axis the indices may not be larger than the data.
func.func @scatter_indices_shape(%d: tensor<4x8xf32>, %i: tensor<5x2xi64>, %u: tensor<5x2xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_add' op operand 'indices' has shape [5, 2], expected rank 2 and no dim but axis 1 larger than the data's [4, 8]{{$}}
  %0 = ge.scatter_add %d, %i, %u axis 1 : tensor<4x8xf32>, tensor<5x2xi64>, tensor<5x2xf32> -> tensor<4x8xf32>
  func.return
}

// -----

func.func @swi_glu_odd(%x: tensor<4x7xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.swi_glu' op dim 1 has size 7, which is not even{{$}}
  %0 = ge.swi_glu %x dim 1 : tensor<4x7xf32> -> tensor<4x3xf32>
  func.return
}

// -----

func.func @swi_glu_shape(%x: tensor<4x8xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.swi_glu' op result has shape [4, 8], expected [4, 4]{{$}}
  %0 = ge.swi_glu %x dim 1 : tensor<4x8xf32> -> tensor<4x8xf32>
  func.return
}

// -----

func.func @swi_glu_dim(%x: tensor<4x8xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.swi_glu' op dim 2 is out of range [0, 2) for rank 2{{$}}
  %0 = ge.swi_glu %x dim 2 : tensor<4x8xf32> -> tensor<4x4xf32>
  func.return
}

// -----

func.func @gating_norm(%l: tensor<8x4xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.moe_gating_top_k' op norm must be "softmax" or "sigmoid", got "relu"{{$}}
  %w, %i = ge.moe_gating_top_k %l k 2 norm "relu" : tensor<8x4xf32> -> tensor<8x2xf32>, tensor<8x2xi64>
  func.return
}

// -----

func.func @gating_k(%l: tensor<8x4xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.moe_gating_top_k' op k 0 must be in [1, 4] (the size of axis 1){{$}}
  %w, %i = ge.moe_gating_top_k %l k 0 : tensor<8x4xf32> -> tensor<8x0xf32>, tensor<8x0xi64>
  func.return
}

// -----

func.func @gating_ids(%l: tensor<8x4xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.moe_gating_top_k' op result 'ids' has shape [8, 1], expected [8, 2]{{$}}
  %w, %i = ge.moe_gating_top_k %l k 2 : tensor<8x4xf32> -> tensor<8x2xf32>, tensor<8x1xi64>
  func.return
}

// -----

func.func @grouped_rank(%x: tensor<8x16xf32>, %w: tensor<4x16x32xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.grouped_matmul' op operand 'x' must have rank 3, got tensor<8x16xf32>{{$}}
  %0 = ge.grouped_matmul %x, %w : tensor<8x16xf32>, tensor<4x16x32xf32> -> tensor<4x8x32xf32>
  func.return
}

// -----

func.func @grouped_groups(%x: tensor<4x8x16xf32>, %w: tensor<3x16x32xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.grouped_matmul' op operand 'weight' has shape [3, 16, 32], expected [4, 16, N] (x's groups and contraction dim){{$}}
  %0 = ge.grouped_matmul %x, %w : tensor<4x8x16xf32>, tensor<3x16x32xf32> -> tensor<4x8x32xf32>
  func.return
}

// -----

func.func @grouped_result(%x: tensor<4x8x16xf32>, %w: tensor<4x16x32xf32>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.grouped_matmul' op result has shape [4, 8, 16], expected [4, 8, 32]{{$}}
  %0 = ge.grouped_matmul %x, %w : tensor<4x8x16xf32>, tensor<4x16x32xf32> -> tensor<4x8x16xf32>
  func.return
}

// -----

func.func @grouped_type(%x: tensor<4x8x16xf32>, %w: tensor<4x16x32xf16>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.grouped_matmul' op operand 'weight' has element type f16, expected f32 (x's){{$}}
  %0 = ge.grouped_matmul %x, %w : tensor<4x8x16xf32>, tensor<4x16x32xf16> -> tensor<4x8x32xf32>
  func.return
}

// -----

func.func @grouped_int8(%x: tensor<4x8x16xi8>, %w: tensor<4x16x32xi8>) {
  // CHECK-NEXT: moe-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.grouped_matmul' op operand 'x' is i8: a quantised grouped_matmul is out of scope (only f16 and f32 are supported){{$}}
  %0 = ge.grouped_matmul %x, %w : tensor<4x8x16xi8>, tensor<4x16x32xi8> -> tensor<4x8x32xi8>
  func.return
}
