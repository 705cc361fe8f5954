// Diagnostics of the `ge` reduction and normalisation ops: at least one case per verifier
// rule, each pinned with its exact message and location (line numbers are those of the whole
// file, across `// -----` chunks).
// RUN: ge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// RUN: not ge-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s

// Sums and means are float only.
func.func @sum_i8(%x: tensor<4xi8>) {
  // CHECK: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.reduce_sum' op operand 'input' must be f16 or f32, got i8{{$}}
  %y = ge.reduce_sum %x axes [0] : tensor<4xi8> -> tensor<i8>
  func.return
}

// -----

// Maximum and minimum also take i8/ui8, nothing wider.
func.func @max_i32(%x: tensor<4xi32>) {
  // CHECK-NEXT: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.reduce_max' op operand 'input' must be f16, f32, i8 or ui8, got i32{{$}}
  %y = ge.reduce_max %x axes [0] : tensor<4xi32> -> tensor<i32>
  func.return
}

// -----

// axes are sorted, distinct and in [0, rank) (an importer normalises negative ones).
func.func @axes_out_of_range(%x: tensor<2x8xf32>) {
  // CHECK-NEXT: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.reduce_sum' op axes [2] must be distinct, increasing and in [0, 2) for rank 2{{$}}
  %y = ge.reduce_sum %x axes [2] : tensor<2x8xf32> -> tensor<2x8xf32>
  func.return
}

// -----

func.func @axes_negative(%x: tensor<2x8xf32>) {
  // CHECK-NEXT: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.reduce_mean' op axes [-1] must be distinct, increasing and in [0, 2) for rank 2{{$}}
  %y = ge.reduce_mean %x axes [-1] : tensor<2x8xf32> -> tensor<2xf32>
  func.return
}

// -----

func.func @axes_unsorted(%x: tensor<2x8xf32>) {
  // CHECK-NEXT: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.reduce_mean' op axes [1, 0] must be distinct, increasing and in [0, 2) for rank 2{{$}}
  %y = ge.reduce_mean %x axes [1, 0] : tensor<2x8xf32> -> tensor<f32>
  func.return
}

// -----

func.func @axes_twice(%x: tensor<2x8xf32>) {
  // CHECK-NEXT: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.reduce_min' op axes [1, 1] must be distinct, increasing and in [0, 2) for rank 2{{$}}
  %y = ge.reduce_min %x axes [1, 1] : tensor<2x8xf32> -> tensor<2xf32>
  func.return
}

// -----

// Without keepdims the reduced dims are dropped.
func.func @keepdims_shape(%x: tensor<2x8xf32>) {
  // CHECK-NEXT: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.reduce_sum' op result has shape [2, 1], expected [2]{{$}}
  %y = ge.reduce_sum %x axes [1] : tensor<2x8xf32> -> tensor<2x1xf32>
  func.return
}

// -----

// The result keeps the input element type.
func.func @element_type(%x: tensor<2x8xf32>) {
  // CHECK-NEXT: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.reduce_max' op result has element type f16, expected f32 (the input's){{$}}
  %y = ge.reduce_max %x axes [1] keepdims : tensor<2x8xf32> -> tensor<2x1xf16>
  func.return
}

// -----

// Reductions take default-layout tensors only.
func.func @stored_format(%x: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) {
  // CHECK-NEXT: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.reduce_sum' op operand 'input' has layout #ge.format<NC1HWC0>: reduce_sum takes default-layout (ND/NCHW) tensors; convert it with ge.trans_data first{{$}}
  %y = ge.reduce_sum %x axes [1] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x2x2xf16>
  func.return
}

// -----

// layer_norm: axis in [0, rank).
func.func @ln_axis(%x: tensor<2x8xf32>) {
  // CHECK-NEXT: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.layer_norm' op axis 2 is out of range [0, 2) for rank 2{{$}}
  %y = ge.layer_norm %x axis 2 : tensor<2x8xf32>
  func.return
}

// -----

// weight and bias have the normalised shape x.shape[axis:] and the input element type.
func.func @ln_weight_shape(%x: tensor<2x8xf32>, %w: tensor<2x8xf32>) {
  // CHECK-NEXT: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.layer_norm' op operand 'weight' has shape [2, 8], expected [8]{{$}}
  %y = ge.layer_norm %x weight %w axis 1 : tensor<2x8xf32>, tensor<2x8xf32>
  func.return
}

// -----

func.func @ln_bias_type(%x: tensor<2x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf16>) {
  // CHECK-NEXT: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.layer_norm' op operand 'bias' has element type f16, expected f32 (the input's){{$}}
  %y = ge.layer_norm %x weight %w bias %b axis 1 : tensor<2x8xf32>, tensor<8xf32>, tensor<8xf16>
  func.return
}

// -----

// A bias needs a weight (kernels take the optional operands in order).
func.func @ln_bias_alone(%x: tensor<2x8xf32>, %b: tensor<8xf32>) {
  // CHECK-NEXT: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.layer_norm' op operand 'bias' needs operand 'weight' (use a weight of ones){{$}}
  %y = "ge.layer_norm"(%x, %b) <{axis = 1 : i64, epsilon = 1.0e-05 : f32, operandSegmentSizes = array<i32: 1, 0, 1>}> : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  func.return
}

// -----

// epsilon is finite and >= 0.
func.func @ln_epsilon(%x: tensor<2x8xf32>) {
  // CHECK-NEXT: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.layer_norm' op epsilon must be >= 0, got -1{{$}}
  %y = ge.layer_norm %x axis 1 epsilon -1.0 : tensor<2x8xf32>
  func.return
}

// -----

// Normalisation is float only.
func.func @ln_i8(%x: tensor<2x8xi8>) {
  // CHECK-NEXT: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.layer_norm' op operand 'input' must be f16 or f32, got i8{{$}}
  %y = ge.layer_norm %x axis 1 : tensor<2x8xi8>
  func.return
}

// -----

// rms_norm: the weight has the normalised shape; default layout only.
func.func @rms_weight(%x: tensor<2x8xf16>, %w: tensor<4xf16>) {
  // CHECK-NEXT: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.rms_norm' op operand 'weight' has shape [4], expected [8]{{$}}
  %y = ge.rms_norm %x, %w axis 1 : tensor<2x8xf16>, tensor<4xf16>
  func.return
}

// -----

func.func @rms_layout(%x: tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, %w: tensor<2xf16>) {
  // CHECK-NEXT: reduction-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.rms_norm' op operand 'input' has layout #ge.format<NC1HWC0>: rms_norm takes default-layout (ND/NCHW) tensors; convert it with ge.trans_data first{{$}}
  %y = ge.rms_norm %x, %w axis 3 : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<2xf16>
  func.return
}
