// Diagnostics of `ge.scatter_update`: one case per verifier rule, each pinned with its exact
// message and location (line numbers are those of the whole file, across `// -----` chunks).
// RUN: ge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// RUN: not ge-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s

// The cache has a batch dim and at least one more.
func.func @rank1(%c: tensor<4xf32>, %p: tensor<4xi64>, %u: tensor<4xf32>) {
  // CHECK: cache-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_update' op operand 'cache' must have rank >= 2 (a batch dim, then the updated dims), got tensor<4xf32>{{$}}
  %y = ge.scatter_update %c, %p, %u axis 0 : tensor<4xf32>, tensor<4xi64>, tensor<4xf32> -> tensor<4xf32>
  func.return
}

// -----

// axis 0 is the batch: positions are per batch row.
func.func @axis0(%c: tensor<2x4xf32>, %p: tensor<2xi64>, %u: tensor<1x4xf32>) {
  // CHECK-NEXT: cache-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_update' op axis 0 is out of range [1, 2) for rank 2 (dim 0 is the batch){{$}}
  %y = ge.scatter_update %c, %p, %u axis 0 : tensor<2x4xf32>, tensor<2xi64>, tensor<1x4xf32> -> tensor<2x4xf32>
  func.return
}

// -----

func.func @axis_past_rank(%c: tensor<2x4xf32>, %p: tensor<2xi64>, %u: tensor<2x1xf32>) {
  // CHECK-NEXT: cache-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_update' op axis 2 is out of range [1, 2) for rank 2 (dim 0 is the batch){{$}}
  %y = ge.scatter_update %c, %p, %u axis 2 : tensor<2x4xf32>, tensor<2xi64>, tensor<2x1xf32> -> tensor<2x4xf32>
  func.return
}

// -----

// Positions are i32 or i64.
func.func @float_indices(%c: tensor<2x4xf32>, %p: tensor<2xf32>, %u: tensor<2x1xf32>) {
  // CHECK-NEXT: cache-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_update' op operand 'indices' must be i32 or i64, got f32{{$}}
  %y = ge.scatter_update %c, %p, %u axis 1 : tensor<2x4xf32>, tensor<2xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
  func.return
}

// -----

// One position per batch row.
func.func @indices_per_row(%c: tensor<2x4xf32>, %p: tensor<1xi64>, %u: tensor<2x1xf32>) {
  // CHECK-NEXT: cache-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_update' op operand 'indices' has shape [1], expected [2]{{$}}
  %y = ge.scatter_update %c, %p, %u axis 1 : tensor<2x4xf32>, tensor<1xi64>, tensor<2x1xf32> -> tensor<2x4xf32>
  func.return
}

// -----

// The update holds 1 to S positions along the axis...
func.func @update_too_long(%c: tensor<2x4xf32>, %p: tensor<2xi64>, %u: tensor<2x5xf32>) {
  // CHECK-NEXT: cache-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_update' op operand 'update' has shape [2, 5], expected the cache's [2, 4] with 1 to 4 positions along axis 1{{$}}
  %y = ge.scatter_update %c, %p, %u axis 1 : tensor<2x4xf32>, tensor<2xi64>, tensor<2x5xf32> -> tensor<2x4xf32>
  func.return
}

// -----

func.func @update_rank(%c: tensor<2x4x3xf32>, %p: tensor<2xi64>, %u: tensor<2x1xf32>) {
  // CHECK-NEXT: cache-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_update' op operand 'update' has shape [2, 1], expected the cache's [2, 4, 3] with 1 to 4 positions along axis 1{{$}}
  %y = ge.scatter_update %c, %p, %u axis 1 : tensor<2x4x3xf32>, tensor<2xi64>, tensor<2x1xf32> -> tensor<2x4x3xf32>
  func.return
}

// -----

// ...and the cache's other dims.
func.func @update_other_dim(%c: tensor<2x4x3xf32>, %p: tensor<2xi64>, %u: tensor<2x1x2xf32>) {
  // CHECK-NEXT: cache-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_update' op operand 'update' has shape [2, 1, 2], expected [2, 1, 3]{{$}}
  %y = ge.scatter_update %c, %p, %u axis 1 : tensor<2x4x3xf32>, tensor<2xi64>, tensor<2x1x2xf32> -> tensor<2x4x3xf32>
  func.return
}

// -----

func.func @update_type(%c: tensor<2x4xf32>, %p: tensor<2xi64>, %u: tensor<2x1xf16>) {
  // CHECK-NEXT: cache-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_update' op operand 'update' has element type f16, expected f32 (the cache's){{$}}
  %y = ge.scatter_update %c, %p, %u axis 1 : tensor<2x4xf32>, tensor<2xi64>, tensor<2x1xf16> -> tensor<2x4xf32>
  func.return
}

// -----

// The result is the cache's type.
func.func @result_shape(%c: tensor<2x4xf32>, %p: tensor<2xi64>, %u: tensor<2x1xf32>) {
  // CHECK-NEXT: cache-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_update' op result has shape [2, 1], expected [2, 4]{{$}}
  %y = ge.scatter_update %c, %p, %u axis 1 : tensor<2x4xf32>, tensor<2xi64>, tensor<2x1xf32> -> tensor<2x1xf32>
  func.return
}

// -----

func.func @result_type(%c: tensor<2x4xf32>, %p: tensor<2xi64>, %u: tensor<2x1xf32>) {
  // CHECK-NEXT: cache-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_update' op result has element type f16, expected f32 (the cache's){{$}}
  %y = ge.scatter_update %c, %p, %u axis 1 : tensor<2x4xf32>, tensor<2xi64>, tensor<2x1xf32> -> tensor<2x4xf16>
  func.return
}

// -----

// Default layout only.
func.func @layout(%c: tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, %p: tensor<1xi64>, %u: tensor<1x16x1x4xf16>) {
  // CHECK-NEXT: cache-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_update' op operand 'cache' has layout #ge.format<NC1HWC0>: scatter_update takes default-layout (ND/NCHW) tensors; convert it with ge.trans_data first{{$}}
  %y = ge.scatter_update %c, %p, %u axis 2 : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<1xi64>, tensor<1x16x1x4xf16> -> tensor<1x16x4x4xf16>
  func.return
}

// -----

// A negative axis is out of range (the builder and importers normalise it).
func.func @negative_axis(%c: tensor<2x4xf32>, %p: tensor<2xi64>, %u: tensor<2x1xf32>) {
  // CHECK-NEXT: cache-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.scatter_update' op axis -1 is out of range [1, 2) for rank 2 (dim 0 is the batch){{$}}
  %y = ge.scatter_update %c, %p, %u axis -1 : tensor<2x4xf32>, tensor<2xi64>, tensor<2x1xf32> -> tensor<2x4xf32>
  func.return
}
