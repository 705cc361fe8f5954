// Diagnostics of the `ge` indexing ops (gather, slice, expand): at least one case per verifier
// rule, each pinned with its exact message and location (line numbers are those of the whole
// file, across `// -----` chunks).
// RUN: ge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// RUN: not ge-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s

// gather's indices are i32 or i64.
func.func @gather_f32_indices(%w: tensor<10x4xf32>, %i: tensor<2xf32>) {
  // CHECK: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.gather' op operand 'indices' must be i32 or i64, got f32{{$}}
  %y = ge.gather %w, %i axis 0 : tensor<10x4xf32>, tensor<2xf32> -> tensor<2x4xf32>
  func.return
}

// -----

func.func @gather_axis(%w: tensor<10x4xf32>, %i: tensor<2xi64>) {
  // CHECK-NEXT: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.gather' op axis 2 is out of range for rank 2{{$}}
  %y = ge.gather %w, %i axis 2 : tensor<10x4xf32>, tensor<2xi64> -> tensor<2x4xf32>
  func.return
}

// -----

// The result is data[:axis] + indices + data[axis + 1:].
func.func @gather_shape(%w: tensor<10x4xf32>, %i: tensor<2x3xi64>) {
  // CHECK-NEXT: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.gather' op result has shape [6, 4], expected [2, 3, 4]{{$}}
  %y = ge.gather %w, %i axis 0 : tensor<10x4xf32>, tensor<2x3xi64> -> tensor<6x4xf32>
  func.return
}

// -----

func.func @gather_element_type(%w: tensor<10x4xf32>, %i: tensor<2xi64>) {
  // CHECK-NEXT: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.gather' op result has element type f16, expected f32 (the data's){{$}}
  %y = ge.gather %w, %i axis 0 : tensor<10x4xf32>, tensor<2xi64> -> tensor<2x4xf16>
  func.return
}

// -----

func.func @gather_layout(%w: tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, %i: tensor<2xi64>) {
  // CHECK-NEXT: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.gather' op operand 'data' has layout #ge.format<NC1HWC0>: gather takes default-layout (ND/NCHW) tensors; convert it with ge.trans_data first{{$}}
  %y = ge.gather %w, %i axis 0 : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<2xi64> -> tensor<2x16x2x2xf16>
  func.return
}

// -----

// slice: one entry per sliced axis in each list.
func.func @slice_lengths(%x: tensor<2x8xf32>) {
  // CHECK-NEXT: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.slice' op starts, ends, axes and steps must have one entry per sliced axis, got 1, 2, 1 and 1 entries{{$}}
  %y = ge.slice %x starts [0] ends [1, 2] axes [0] steps [1] : tensor<2x8xf32> -> tensor<1x8xf32>
  func.return
}

// -----

func.func @slice_axis(%x: tensor<2x8xf32>) {
  // CHECK-NEXT: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.slice' op axis -1 is out of range for rank 2{{$}}
  %y = ge.slice %x starts [0] ends [1] axes [-1] steps [1] : tensor<2x8xf32> -> tensor<2x1xf32>
  func.return
}

// -----

func.func @slice_repeated_axis(%x: tensor<2x8xf32>) {
  // CHECK-NEXT: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.slice' op axes [1, 1] must be distinct{{$}}
  %y = ge.slice %x starts [0, 0] ends [1, 1] axes [1, 1] steps [1, 1] : tensor<2x8xf32> -> tensor<2x1xf32>
  func.return
}

// -----

// A negative (reversing) step is not supported; a zero step is meaningless.
func.func @slice_negative_step(%x: tensor<2x8xf32>) {
  // CHECK-NEXT: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.slice' op steps must be positive, got [-1] (a negative step is not supported){{$}}
  %y = ge.slice %x starts [7] ends [0] axes [1] steps [-1] : tensor<2x8xf32> -> tensor<2x7xf32>
  func.return
}

// -----

// The result shape follows ONNX's clamping: [-3, 100) of 8 with step 2 is 6, 8: two elements.
func.func @slice_shape(%x: tensor<2x8xf32>) {
  // CHECK-NEXT: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.slice' op result has shape [2, 3], expected [2, 2]{{$}}
  %y = ge.slice %x starts [-3] ends [100] axes [1] steps [2] : tensor<2x8xf32> -> tensor<2x3xf32>
  func.return
}

// -----

func.func @slice_layout(%x: tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>) {
  // CHECK-NEXT: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.slice' op operand 'input' has layout #ge.format<NC1HWC0>: slice takes default-layout (ND/NCHW) tensors; convert it with ge.trans_data first{{$}}
  %y = ge.slice %x starts [0] ends [1] axes [2] steps [1] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x1x2xf16, #ge.format<NC1HWC0>>
  func.return
}

// -----

// expand: each input dim is 1 or the result's, aligned from the right.
func.func @expand_shape(%x: tensor<3x2xf32>) {
  // CHECK-NEXT: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.expand' op operand 'input' has shape [3, 2], which does not broadcast to the result's shape [3, 4]{{$}}
  %y = ge.expand %x : tensor<3x2xf32> -> tensor<3x4xf32>
  func.return
}

// -----

// expand never drops dims (numpy's broadcast_to).
func.func @expand_rank(%x: tensor<1x3xf32>) {
  // CHECK-NEXT: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.expand' op operand 'input' has shape [1, 3], which does not broadcast to the result's shape [3]{{$}}
  %y = ge.expand %x : tensor<1x3xf32> -> tensor<3xf32>
  func.return
}

// -----

func.func @expand_element_type(%x: tensor<3x1xf32>) {
  // CHECK-NEXT: indexing-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.expand' op result has element type f16, expected f32 (the input's){{$}}
  %y = ge.expand %x : tensor<3x1xf32> -> tensor<3x4xf16>
  func.return
}
