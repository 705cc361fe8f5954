// Diagnostics of the `ge` graph ops beyond convolution (matmul, silu, pooling, concat,
// reshape/flatten/transpose, softmax, identity, cast, collectives): at least one case per
// verifier rule, each pinned with its exact message and location (line numbers are those of
// the whole file, across `// -----` chunks).
// RUN: ge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// RUN: not ge-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s
//
// Without the diagnostics flags, as in mlir-opt, each case's error goes to stderr in its place,
// the next cases go on, and the exit code is 1.

// ---- ge.matmul ------------------------------------------------------------------------------

// A quantised (int8) matmul is out of scope.
func.func @matmul_int8(%a: tensor<4x8xi8>, %b: tensor<8x6xi8>) {
  // CHECK: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op operand 'a' is i8: a quantised matmul is out of scope (only f16 and f32 are supported){{$}}
  %y = ge.matmul %a, %b : tensor<4x8xi8>, tensor<8x6xi8> -> tensor<4x6xi8>
  func.return
}

// -----

// ... also when only the rhs is 8-bit.
func.func @matmul_uint8_rhs(%a: tensor<4x8xf16>, %b: tensor<8x6xui8>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op operand 'b' is ui8: a quantised matmul is out of scope (only f16 and f32 are supported){{$}}
  %y = ge.matmul %a, %b : tensor<4x8xf16>, tensor<8x6xui8> -> tensor<4x6xf16>
  func.return
}

// -----

// Other non-float element types.
func.func @matmul_i32(%a: tensor<4x8xi32>, %b: tensor<8x6xi32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op operand 'a' must be f16 or f32, got i32{{$}}
  %y = ge.matmul %a, %b : tensor<4x8xi32>, tensor<8x6xi32> -> tensor<4x6xi32>
  func.return
}

// -----

// Operands have the default layout (an NC1HWC0 lhs).
func.func @matmul_nc1hwc0_a(%a: tensor<1x2x3x4xf16, #ge.format<NC1HWC0>>, %b: tensor<4x5xf16>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op operand 'a' has layout #ge.format<NC1HWC0>: matmul takes default-layout (ND/NCHW) tensors; convert it with ge.trans_data first{{$}}
  %y = ge.matmul %a, %b : tensor<1x2x3x4xf16, #ge.format<NC1HWC0>>, tensor<4x5xf16> -> tensor<1x2x3x5xf16>
  func.return
}

// -----

// ... an NHWC rhs.
func.func @matmul_nhwc_b(%a: tensor<3x4xf32>, %b: tensor<1x2x4x5xf32, #ge.format<NHWC>>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op operand 'b' has layout #ge.format<NHWC>: matmul takes default-layout (ND/NCHW) tensors; convert it with ge.trans_data first{{$}}
  %y = ge.matmul %a, %b : tensor<3x4xf32>, tensor<1x2x4x5xf32, #ge.format<NHWC>> -> tensor<1x2x3x5xf32>
  func.return
}

// -----

// Operands have rank >= 2 (lhs).
func.func @matmul_rank1_a(%a: tensor<8xf32>, %b: tensor<8x6xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op operand 'a' must have rank >= 2, got tensor<8xf32>{{$}}
  %y = ge.matmul %a, %b : tensor<8xf32>, tensor<8x6xf32> -> tensor<6xf32>
  func.return
}

// -----

// Operands have rank >= 2 (rhs).
func.func @matmul_rank1_b(%a: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op operand 'b' must have rank >= 2, got tensor<8xf32>{{$}}
  %y = ge.matmul %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4xf32>
  func.return
}

// -----

// Both operands have the same element type.
func.func @matmul_dtype_mismatch(%a: tensor<4x8xf32>, %b: tensor<8x6xf16>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op operand 'b' has element type f16, expected f32 (that of operand 'a'){{$}}
  %y = ge.matmul %a, %b : tensor<4x8xf32>, tensor<8x6xf16> -> tensor<4x6xf32>
  func.return
}

// -----

// The contraction dims differ.
func.func @matmul_k_mismatch(%a: tensor<4x8xf32>, %b: tensor<6x8xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op contraction dims differ: operand 'a' has K = 8, operand 'b' has K = 6 (after transposes){{$}}
  %y = ge.matmul %a, %b : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<4x8xf32>
  func.return
}

// -----

// K is the lhs's dim -2 with transpose_a (these shapes would fit without it).
func.func @matmul_k_mismatch_transpose_a(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op contraction dims differ: operand 'a' has K = 4, operand 'b' has K = 8 (after transposes){{$}}
  %y = ge.matmul %a, %b transpose_a : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<8x6xf32>
  func.return
}

// -----

// K is the rhs's dim -1 with transpose_b (these shapes would fit without it).
func.func @matmul_k_mismatch_transpose_b(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op contraction dims differ: operand 'a' has K = 8, operand 'b' has K = 6 (after transposes){{$}}
  %y = ge.matmul %a, %b transpose_b : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x8xf32>
  func.return
}

// -----

// Batch dims broadcast as numpy's: [2] and [3] do not.
func.func @matmul_batch_mismatch(%a: tensor<2x3x4xf32>, %b: tensor<3x4x5xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op batch dims [2] and [3] do not broadcast{{$}}
  %y = ge.matmul %a, %b : tensor<2x3x4xf32>, tensor<3x4x5xf32> -> tensor<2x3x5xf32>
  func.return
}

// -----

// Batch dims align from the right: [2, 3] and [2] do not broadcast.
func.func @matmul_batch_align_right(%a: tensor<2x3x3x4xf32>, %b: tensor<2x4x5xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op batch dims [2, 3] and [2] do not broadcast{{$}}
  %y = ge.matmul %a, %b : tensor<2x3x3x4xf32>, tensor<2x4x5xf32> -> tensor<2x3x3x5xf32>
  func.return
}

// -----

// The result has the default layout too.
func.func @matmul_result_layout(%a: tensor<1x2x3x4xf16>, %b: tensor<1x2x4x5xf16>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op result has layout #ge.format<NC1HWC0>: matmul produces default-layout (ND/NCHW) tensors; convert its result with ge.trans_data{{$}}
  %y = ge.matmul %a, %b : tensor<1x2x3x4xf16>, tensor<1x2x4x5xf16> -> tensor<1x2x3x5xf16, #ge.format<NC1HWC0>>
  func.return
}

// -----

// The result's shape is [M, N].
func.func @matmul_result_shape(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op result has shape [4, 5], expected [4, 6]{{$}}
  %y = ge.matmul %a, %b : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x5xf32>
  func.return
}

// -----

// The result's batch dims are the broadcast ones.
func.func @matmul_result_batch(%a: tensor<2x1x3x4xf32>, %b: tensor<5x4x6xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op result has shape [2, 1, 3, 6], expected [2, 5, 3, 6]{{$}}
  %y = ge.matmul %a, %b : tensor<2x1x3x4xf32>, tensor<5x4x6xf32> -> tensor<2x1x3x6xf32>
  func.return
}

// -----

// The result has the operands' element type.
func.func @matmul_result_dtype(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op result has element type f16, expected f32 (that of operand 'a'){{$}}
  %y = ge.matmul %a, %b : tensor<4x8xf32>, tensor<8x6xf32> -> tensor<4x6xf16>
  func.return
}

// -----

// The bias has one value per output column.
func.func @matmul_bias_shape(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %c: tensor<4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op operand 'bias' has type tensor<4xf32>, expected tensor<6xf32>{{$}}
  %y = ge.matmul %a, %b bias %c : tensor<4x8xf32>, tensor<8x6xf32>, tensor<4xf32> -> tensor<4x6xf32>
  func.return
}

// -----

// ... N counted after transpose_b (8 would be N without it).
func.func @matmul_bias_shape_transpose_b(%a: tensor<4x8xf32>, %b: tensor<6x8xf32>, %c: tensor<8xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op operand 'bias' has type tensor<8xf32>, expected tensor<6xf32>{{$}}
  %y = ge.matmul %a, %b bias %c transpose_b : tensor<4x8xf32>, tensor<6x8xf32>, tensor<8xf32> -> tensor<4x6xf32>
  func.return
}

// -----

// The bias is rank 1.
func.func @matmul_bias_rank(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %c: tensor<1x6xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op operand 'bias' has type tensor<1x6xf32>, expected tensor<6xf32>{{$}}
  %y = ge.matmul %a, %b bias %c : tensor<4x8xf32>, tensor<8x6xf32>, tensor<1x6xf32> -> tensor<4x6xf32>
  func.return
}

// -----

// The bias has the operands' element type.
func.func @matmul_bias_dtype(%a: tensor<4x8xf32>, %b: tensor<8x6xf32>, %c: tensor<6xf16>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op operand 'bias' has type tensor<6xf16>, expected tensor<6xf32>{{$}}
  %y = ge.matmul %a, %b bias %c : tensor<4x8xf32>, tensor<8x6xf32>, tensor<6xf16> -> tensor<4x6xf32>
  func.return
}

// -----

// ---- ge.silu --------------------------------------------------------------------------------

// silu is float-only.
func.func @silu_i8(%x: tensor<4xi8>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.silu' op operand 'input' must be f16 or f32, got i8{{$}}
  %y = ge.silu %x : tensor<4xi8>
  func.return
}

// -----

// The result has the input's type (generic form).
func.func @silu_result_type(%x: tensor<4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.silu' op result 'output' at position 0 does not verify: attribute tensor<4xf32> expected from variable 'T', but got tensor<4xf16>{{$}}
  %y = "ge.silu"(%x) : (tensor<4xf32>) -> tensor<4xf16>
  func.return
}

// -----

// ---- ge.max_pool / ge.avg_pool --------------------------------------------------------------

// Element types: f16, f32, i8 or ui8.
func.func @max_pool_i32(%x: tensor<1x1x4x4xi32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op operand 'input' must be f16, f32, i8 or ui8, got i32{{$}}
  %y = ge.max_pool %x kernel [2, 2] : tensor<1x1x4x4xi32> -> tensor<1x1x3x3xi32>
  func.return
}

// -----

func.func @avg_pool_i32(%x: tensor<1x1x4x4xi32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.avg_pool' op operand 'input' must be f16, f32, i8 or ui8, got i32{{$}}
  %y = ge.avg_pool %x kernel [2, 2] : tensor<1x1x4x4xi32> -> tensor<1x1x3x3xi32>
  func.return
}

// -----

// The input has rank 4.
func.func @max_pool_rank3(%x: tensor<1x4x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op operand 'input' must have rank 4 (NCHW), got tensor<1x4x4xf32>{{$}}
  %y = ge.max_pool %x kernel [2, 2] : tensor<1x4x4xf32> -> tensor<1x3x3xf32>
  func.return
}

// -----

// The input is an activation (NCHW, NHWC or NC1HWC0), not a FRACTAL_Z weight.
func.func @avg_pool_fractal_z(%x: tensor<16x16x4x4xf16, #ge.format<FRACTAL_Z>>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.avg_pool' op operand 'input' has format FRACTAL_Z, expected NCHW, NHWC or NC1HWC0{{$}}
  %y = ge.avg_pool %x kernel [2, 2] : tensor<16x16x4x4xf16, #ge.format<FRACTAL_Z>> -> tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
  func.return
}

// -----

// kernel has 2 elements.
func.func @max_pool_kernel_length(%x: tensor<1x1x4x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op kernel must be 2 positive integers, got [2]{{$}}
  %y = ge.max_pool %x kernel [2] : tensor<1x1x4x4xf32> -> tensor<1x1x3x3xf32>
  func.return
}

// -----

// kernel is positive.
func.func @max_pool_kernel_zero(%x: tensor<1x1x4x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op kernel must be 2 positive integers, got [2, 0]{{$}}
  %y = ge.max_pool %x kernel [2, 0] : tensor<1x1x4x4xf32> -> tensor<1x1x3x3xf32>
  func.return
}

// -----

// strides has 2 elements.
func.func @max_pool_strides_length(%x: tensor<1x1x4x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op strides must be 2 positive integers, got [2, 2, 2]{{$}}
  %y = ge.max_pool %x kernel [2, 2] strides [2, 2, 2] : tensor<1x1x4x4xf32> -> tensor<1x1x2x2xf32>
  func.return
}

// -----

// strides are positive.
func.func @avg_pool_strides_zero(%x: tensor<1x1x4x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.avg_pool' op strides must be 2 positive integers, got [0, 1]{{$}}
  %y = ge.avg_pool %x kernel [2, 2] strides [0, 1] : tensor<1x1x4x4xf32> -> tensor<1x1x3x3xf32>
  func.return
}

// -----

// pads has 4 elements [top, bottom, left, right].
func.func @max_pool_pads_length(%x: tensor<1x1x4x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op pads must be 4 non-negative integers [top, bottom, left, right], got [1, 1]{{$}}
  %y = ge.max_pool %x kernel [2, 2] pads [1, 1] : tensor<1x1x4x4xf32> -> tensor<1x1x5x5xf32>
  func.return
}

// -----

// pads are non-negative.
func.func @avg_pool_pads_negative(%x: tensor<1x1x4x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.avg_pool' op pads must be 4 non-negative integers [top, bottom, left, right], got [0, -1, 0, 0]{{$}}
  %y = ge.avg_pool %x kernel [2, 2] pads [0, -1, 0, 0] : tensor<1x1x4x4xf32> -> tensor<1x1x2x3xf32>
  func.return
}

// -----

// A pad as large as the kernel would make a window that lies in the padding only (top).
func.func @max_pool_pad_equals_kernel(%x: tensor<1x1x4x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op pads [3, 0, 0, 0] must be smaller than the kernel [3, 3] (a window would lie in the padding only){{$}}
  %y = ge.max_pool %x kernel [3, 3] pads [3, 0, 0, 0] : tensor<1x1x4x4xf32> -> tensor<1x1x5x2xf32>
  func.return
}

// -----

// ... per axis: the right pad 2 is checked against the kernel width 2, not its height 3.
func.func @avg_pool_pad_right_kernel_width(%x: tensor<1x1x4x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.avg_pool' op pads [0, 0, 0, 2] must be smaller than the kernel [3, 2] (a window would lie in the padding only){{$}}
  %y = ge.avg_pool %x kernel [3, 2] pads [0, 0, 0, 2] count_include_pad : tensor<1x1x4x4xf32> -> tensor<1x1x2x5xf32>
  func.return
}

// -----

// The kernel does not fit the padded input.
func.func @max_pool_kernel_too_big(%x: tensor<1x1x4x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op the kernel 7x7 does not fit the padded input 6x6{{$}}
  %y = ge.max_pool %x kernel [7, 7] pads [1, 1, 1, 1] : tensor<1x1x4x4xf32> -> tensor<1x1x1x1xf32>
  func.return
}

// -----

// ... also on one axis only, without padding.
func.func @avg_pool_kernel_too_wide(%x: tensor<1x1x8x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.avg_pool' op the kernel 2x5 does not fit the padded input 8x4{{$}}
  %y = ge.avg_pool %x kernel [2, 5] : tensor<1x1x8x4xf32> -> tensor<1x1x7x1xf32>
  func.return
}

// -----

// Without ceil_mode the output size rounds down (8x8, kernel 3, strides 2: 3x3) ...
func.func @max_pool_floor_shape(%x: tensor<1x8x8x8xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op result has shape [1, 8, 4, 4], expected [1, 8, 3, 3]{{$}}
  %y = ge.max_pool %x kernel [3, 3] strides [2, 2] : tensor<1x8x8x8xf32> -> tensor<1x8x4x4xf32>
  func.return
}

// -----

// ... with ceil_mode it rounds up (4x4).
func.func @max_pool_ceil_shape(%x: tensor<1x8x8x8xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op result has shape [1, 8, 3, 3], expected [1, 8, 4, 4]{{$}}
  %y = ge.max_pool %x kernel [3, 3] strides [2, 2] ceil_mode : tensor<1x8x8x8xf32> -> tensor<1x8x3x3xf32>
  func.return
}

// -----

// ... but a ceil_mode window that would start in the trailing padding is dropped (4x4, kernel
// 2, strides 3, pads 1: windows start at -1 and 2; the one at 5 is dropped).
func.func @avg_pool_ceil_last_window_dropped(%x: tensor<1x1x4x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.avg_pool' op result has shape [1, 1, 3, 3], expected [1, 1, 2, 2]{{$}}
  %y = ge.avg_pool %x kernel [2, 2] strides [3, 3] pads [1, 1, 1, 1] ceil_mode : tensor<1x1x4x4xf32> -> tensor<1x1x3x3xf32>
  func.return
}

// -----

// The result has the input's element type.
func.func @max_pool_result_dtype(%x: tensor<1x1x4x4xi8>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op result has element type ui8, expected i8 (the input's){{$}}
  %y = ge.max_pool %x kernel [2, 2] strides [2, 2] : tensor<1x1x4x4xi8> -> tensor<1x1x2x2xui8>
  func.return
}

// -----

// The result has the input's layout.
func.func @max_pool_result_layout(%x: tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.max_pool' op result has layout NCHW, expected #ge.format<NC1HWC0> (the input's){{$}}
  %y = ge.max_pool %x kernel [2, 2] strides [2, 2] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x17x2x2xf16>
  func.return
}

// -----

// ... c0 included.
func.func @avg_pool_result_c0(%x: tensor<1x3x4x4xf32, #ge.format<NC1HWC0, c0 = 8>>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.avg_pool' op result has layout #ge.format<NC1HWC0>, expected #ge.format<NC1HWC0, c0 = 8> (the input's){{$}}
  %y = ge.avg_pool %x kernel [2, 2] strides [2, 2] : tensor<1x3x4x4xf32, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x3x2x2xf32, #ge.format<NC1HWC0>>
  func.return
}

// -----

// ---- ge.global_avg_pool ---------------------------------------------------------------------

func.func @global_avg_pool_i32(%x: tensor<1x4x3x3xi32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.global_avg_pool' op operand 'input' must be f16, f32, i8 or ui8, got i32{{$}}
  %y = ge.global_avg_pool %x : tensor<1x4x3x3xi32> -> tensor<1x4x1x1xi32>
  func.return
}

// -----

func.func @global_avg_pool_rank(%x: tensor<4x3x3xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.global_avg_pool' op operand 'input' must have rank 4 (NCHW), got tensor<4x3x3xf32>{{$}}
  %y = ge.global_avg_pool %x : tensor<4x3x3xf32> -> tensor<4x1x1xf32>
  func.return
}

// -----

// The result is [N, C, 1, 1].
func.func @global_avg_pool_shape(%x: tensor<1x4x3x3xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.global_avg_pool' op result has shape [1, 4], expected [1, 4, 1, 1]{{$}}
  %y = ge.global_avg_pool %x : tensor<1x4x3x3xf32> -> tensor<1x4xf32>
  func.return
}

// -----

func.func @global_avg_pool_result_dtype(%x: tensor<1x4x3x3xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.global_avg_pool' op result has element type f16, expected f32 (the input's){{$}}
  %y = ge.global_avg_pool %x : tensor<1x4x3x3xf32> -> tensor<1x4x1x1xf16>
  func.return
}

// -----

func.func @global_avg_pool_result_layout(%x: tensor<1x4x3x3xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.global_avg_pool' op result has layout #ge.format<NHWC>, expected NCHW (the input's){{$}}
  %y = ge.global_avg_pool %x : tensor<1x4x3x3xf32> -> tensor<1x4x1x1xf32, #ge.format<NHWC>>
  func.return
}

// -----

// ---- ge.concat ------------------------------------------------------------------------------

// At least one input (generic form: the custom form cannot express zero inputs).
func.func @concat_no_inputs() {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op needs at least one input{{$}}
  %y = "ge.concat"() <{axis = 0 : i64}> : () -> tensor<4xf32>
  func.return
}

// -----

// The axis is a logical dim of the inputs.
func.func @concat_axis_too_big(%a: tensor<1x4x2x2xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op axis 4 is out of range for rank 4{{$}}
  %y = ge.concat %a, %a axis 4 : tensor<1x4x2x2xf32>, tensor<1x4x2x2xf32> -> tensor<1x4x2x4xf32>
  func.return
}

// -----

// Negative axes are not accepted.
func.func @concat_axis_negative(%a: tensor<2x3xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op axis -1 is out of range for rank 2{{$}}
  %y = ge.concat %a, %a axis -1 : tensor<2x3xf32>, tensor<2x3xf32> -> tensor<2x6xf32>
  func.return
}

// -----

// Element types: f16, f32, i8 or ui8.
func.func @concat_i32(%a: tensor<2xi32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op operand #0 must be f16, f32, i8 or ui8, got i32{{$}}
  %y = ge.concat %a, %a axis 0 : tensor<2xi32>, tensor<2xi32> -> tensor<4xi32>
  func.return
}

// -----

// Inputs share the rank.
func.func @concat_rank_mismatch(%a: tensor<1x4x2x2xf32>, %b: tensor<4x2x2xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op operand #1 has rank 3, expected 4{{$}}
  %y = ge.concat %a, %b axis 1 : tensor<1x4x2x2xf32>, tensor<4x2x2xf32> -> tensor<1x8x2x2xf32>
  func.return
}

// -----

// Inputs share the element type.
func.func @concat_dtype_mismatch(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op operand #1 has element type f16, expected f32 (that of operand #0){{$}}
  %y = ge.concat %a, %b axis 0 : tensor<2x3xf32>, tensor<2x3xf16> -> tensor<4x3xf32>
  func.return
}

// -----

// ... signedness included.
func.func @concat_i8_ui8(%a: tensor<2xi8>, %b: tensor<2xui8>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op operand #1 has element type ui8, expected i8 (that of operand #0){{$}}
  %y = ge.concat %a, %b axis 0 : tensor<2xi8>, tensor<2xui8> -> tensor<4xi8>
  func.return
}

// -----

// Inputs share the layout.
func.func @concat_layout_mismatch(%a: tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, %b: tensor<1x8x2x2xf16>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op operand #1 has layout NCHW, expected #ge.format<NC1HWC0> (that of operand #0){{$}}
  %y = ge.concat %a, %b axis 1 : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x8x2x2xf16> -> tensor<1x24x2x2xf16, #ge.format<NC1HWC0>>
  func.return
}

// -----

// ... c0 included.
func.func @concat_c0_mismatch(%a: tensor<1x4x2x2xf32, #ge.format<NC1HWC0>>, %b: tensor<1x4x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op operand #1 has layout #ge.format<NC1HWC0, c0 = 8>, expected #ge.format<NC1HWC0> (that of operand #0){{$}}
  %y = ge.concat %a, %b axis 1 : tensor<1x4x2x2xf32, #ge.format<NC1HWC0>>, tensor<1x4x2x2xf32, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x8x2x2xf32, #ge.format<NC1HWC0>>
  func.return
}

// -----

// Inputs agree on every dim but the axis.
func.func @concat_shape_mismatch(%a: tensor<1x16x4x4xf16>, %b: tensor<1x8x2x4xf16>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op operand #1 has shape [1, 8, 2, 4], expected [1, 16, 4, 4] except on axis 1{{$}}
  %y = ge.concat %a, %b axis 1 : tensor<1x16x4x4xf16>, tensor<1x8x2x4xf16> -> tensor<1x24x4x4xf16>
  func.return
}

// -----

// ... the third input too.
func.func @concat_shape_mismatch_third(%a: tensor<2x3xf32>, %c: tensor<2x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op operand #2 has shape [2, 4], expected [2, 3] except on axis 0{{$}}
  %y = ge.concat %a, %a, %c axis 0 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x4xf32> -> tensor<6x3xf32>
  func.return
}

// -----

// The result's axis is the sum of the inputs'.
func.func @concat_result_shape(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op result has shape [8, 3], expected [6, 3]{{$}}
  %y = ge.concat %a, %b axis 0 : tensor<2x3xf32>, tensor<4x3xf32> -> tensor<8x3xf32>
  func.return
}

// -----

func.func @concat_result_dtype(%a: tensor<2xi8>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op result has element type ui8, expected i8 (that of operand #0){{$}}
  %y = ge.concat %a, %a axis 0 : tensor<2xi8>, tensor<2xi8> -> tensor<4xui8>
  func.return
}

// -----

func.func @concat_result_layout(%a: tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.concat' op result has layout NCHW, expected #ge.format<NC1HWC0> (that of operand #0){{$}}
  %y = ge.concat %a, %a axis 1 : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x32x2x2xf16>
  func.return
}

// -----

// ---- ge.reshape -----------------------------------------------------------------------------

// The element count stays.
func.func @reshape_count(%x: tensor<2x3x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.reshape' op result has 12 elements, expected 24 (the input's){{$}}
  %y = ge.reshape %x : tensor<2x3x4xf32> -> tensor<3x4xf32>
  func.return
}

// -----

// reshape works on default-layout tensors (input) ...
func.func @reshape_nc1hwc0_input(%x: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.reshape' op operand 'input' has layout #ge.format<NC1HWC0>: reshape takes default-layout (ND/NCHW) tensors; convert it with ge.trans_data first{{$}}
  %y = ge.reshape %x : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x68xf16>
  func.return
}

// -----

// ... and result.
func.func @reshape_nhwc_result(%x: tensor<1x68xf16>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.reshape' op result has layout #ge.format<NHWC>: reshape produces default-layout (ND/NCHW) tensors; convert its result with ge.trans_data{{$}}
  %y = ge.reshape %x : tensor<1x68xf16> -> tensor<1x17x2x2xf16, #ge.format<NHWC>>
  func.return
}

// -----

func.func @reshape_dtype(%x: tensor<6xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.reshape' op result has element type f16, expected f32 (the input's){{$}}
  %y = ge.reshape %x : tensor<6xf32> -> tensor<2x3xf16>
  func.return
}

// -----

// ---- ge.flatten -----------------------------------------------------------------------------

// axis is in [0, rank].
func.func @flatten_axis_too_big(%x: tensor<2x8x3x3xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flatten' op axis 5 is out of range for rank 4{{$}}
  %y = ge.flatten %x axis 5 : tensor<2x8x3x3xf32> -> tensor<144x1xf32>
  func.return
}

// -----

func.func @flatten_axis_negative(%x: tensor<2x8x3x3xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flatten' op axis -1 is out of range for rank 4{{$}}
  %y = ge.flatten %x axis -1 : tensor<2x8x3x3xf32> -> tensor<48x3xf32>
  func.return
}

// -----

// The result is [prod(dims[:axis]), prod(dims[axis:])].
func.func @flatten_shape(%x: tensor<2x8x3x3xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flatten' op result has shape [2, 72], expected [16, 9]{{$}}
  %y = ge.flatten %x axis 2 : tensor<2x8x3x3xf32> -> tensor<2x72xf32>
  func.return
}

// -----

// The default axis is 1.
func.func @flatten_default_axis_shape(%x: tensor<2x8x3x3xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flatten' op result has shape [1, 144], expected [2, 72]{{$}}
  %y = ge.flatten %x : tensor<2x8x3x3xf32> -> tensor<1x144xf32>
  func.return
}

// -----

func.func @flatten_nc1hwc0(%x: tensor<2x17x3x3xf16, #ge.format<NC1HWC0>>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flatten' op operand 'input' has layout #ge.format<NC1HWC0>: flatten takes default-layout (ND/NCHW) tensors; convert it with ge.trans_data first{{$}}
  %y = ge.flatten %x : tensor<2x17x3x3xf16, #ge.format<NC1HWC0>> -> tensor<2x153xf16>
  func.return
}

// -----

func.func @flatten_dtype(%x: tensor<2x8x3x3xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.flatten' op result has element type f16, expected f32 (the input's){{$}}
  %y = ge.flatten %x : tensor<2x8x3x3xf32> -> tensor<2x72xf16>
  func.return
}

// -----

// ---- ge.transpose ---------------------------------------------------------------------------

// perm is a permutation of the input's dims: no repeats ...
func.func @transpose_perm_repeat(%x: tensor<2x3x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.transpose' op perm [0, 0, 1] is not a permutation of the 3 dims{{$}}
  %y = ge.transpose %x perm [0, 0, 1] : tensor<2x3x4xf32> -> tensor<2x2x3xf32>
  func.return
}

// -----

// ... one entry per dim ...
func.func @transpose_perm_length(%x: tensor<2x3x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.transpose' op perm [1, 0] is not a permutation of the 3 dims{{$}}
  %y = ge.transpose %x perm [1, 0] : tensor<2x3x4xf32> -> tensor<3x2xf32>
  func.return
}

// -----

// ... in range.
func.func @transpose_perm_range(%x: tensor<2x3x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.transpose' op perm [1, 2, 3] is not a permutation of the 3 dims{{$}}
  %y = ge.transpose %x perm [1, 2, 3] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  func.return
}

// -----

// Result dim i is input dim perm[i].
func.func @transpose_shape(%x: tensor<2x3x4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.transpose' op result has shape [2, 3, 4], expected [2, 4, 3]{{$}}
  %y = ge.transpose %x perm [0, 2, 1] : tensor<2x3x4xf32> -> tensor<2x3x4xf32>
  func.return
}

// -----

// transpose works on default-layout tensors: a layout change is a ge.trans_data (input) ...
func.func @transpose_nhwc_input(%x: tensor<1x8x4x4xf16, #ge.format<NHWC>>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.transpose' op operand 'input' has layout #ge.format<NHWC>: transpose takes default-layout (ND/NCHW) tensors; convert it with ge.trans_data first{{$}}
  %y = ge.transpose %x perm [0, 2, 3, 1] : tensor<1x8x4x4xf16, #ge.format<NHWC>> -> tensor<1x4x4x8xf16>
  func.return
}

// -----

// ... (result).
func.func @transpose_nc1hwc0_result(%x: tensor<1x8x4x4xf16>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.transpose' op result has layout #ge.format<NC1HWC0>: transpose produces default-layout (ND/NCHW) tensors; convert its result with ge.trans_data{{$}}
  %y = ge.transpose %x perm [0, 1, 3, 2] : tensor<1x8x4x4xf16> -> tensor<1x8x4x4xf16, #ge.format<NC1HWC0>>
  func.return
}

// -----

func.func @transpose_dtype(%x: tensor<3x5xi8>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.transpose' op result has element type ui8, expected i8 (the input's){{$}}
  %y = ge.transpose %x perm [1, 0] : tensor<3x5xi8> -> tensor<5x3xui8>
  func.return
}

// -----

// ---- ge.softmax -----------------------------------------------------------------------------

// softmax is float-only.
func.func @softmax_i32(%x: tensor<2x10xi32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.softmax' op operand 'input' must be f16 or f32, got i32{{$}}
  %y = ge.softmax %x axis 1 : tensor<2x10xi32>
  func.return
}

// -----

func.func @softmax_i8(%x: tensor<2x10xi8>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.softmax' op operand 'input' must be f16 or f32, got i8{{$}}
  %y = ge.softmax %x axis 1 : tensor<2x10xi8>
  func.return
}

// -----

// axis is a dim of the input.
func.func @softmax_axis(%x: tensor<2x10xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.softmax' op axis 2 is out of range for rank 2{{$}}
  %y = ge.softmax %x axis 2 : tensor<2x10xf32>
  func.return
}

// -----

func.func @softmax_axis_negative(%x: tensor<2x10xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.softmax' op axis -1 is out of range for rank 2{{$}}
  %y = ge.softmax %x axis -1 : tensor<2x10xf32>
  func.return
}

// -----

// softmax works on default-layout tensors.
func.func @softmax_nc1hwc0(%x: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.softmax' op operand 'input' has layout #ge.format<NC1HWC0>: softmax takes default-layout (ND/NCHW) tensors; convert it with ge.trans_data first{{$}}
  %y = ge.softmax %x axis 1 : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
  func.return
}

// -----

// The result has the input's type (generic form).
func.func @softmax_result_type(%x: tensor<2x10xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.softmax' op result 'output' at position 0 does not verify: attribute tensor<2x10xf32> expected from variable 'T', but got tensor<10x2xf32>{{$}}
  %y = "ge.softmax"(%x) <{axis = 1 : i64}> : (tensor<2x10xf32>) -> tensor<10x2xf32>
  func.return
}

// -----

// ---- ge.identity ----------------------------------------------------------------------------

// The result has the input's type, encoding included (generic form).
func.func @identity_result_type(%x: tensor<1x4x2x2xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.identity' op result 'output' at position 0 does not verify: attribute tensor<1x4x2x2xf32> expected from variable 'T', but got tensor<1x4x2x2xf32, #ge.format<NHWC>>{{$}}
  %y = "ge.identity"(%x) : (tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32, #ge.format<NHWC>>
  func.return
}

// -----

// Any type the ge ops accept, but not more.
func.func @identity_bf16(%x: tensor<4xbf16>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.identity' op operand 'input' has unsupported element type bf16{{$}}
  %y = ge.identity %x : tensor<4xbf16>
  func.return
}

// -----

// ---- ge.cast --------------------------------------------------------------------------------

// A cast changes the element type.
func.func @cast_same_type(%x: tensor<4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.cast' op result has the input's element type f32: cast must change it{{$}}
  %y = ge.cast %x : tensor<4xf32> -> tensor<4xf32>
  func.return
}

// -----

// From a graph type (f32, f16, i8, ui8, i32, i64, i1) ...
func.func @cast_int_input(%x: tensor<4xi16>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.cast' op operand 'input' must be f32, f16, i8, ui8, i32, i64, i1, got i16{{$}}
  %y = ge.cast %x : tensor<4xi16> -> tensor<4xf16>
  func.return
}

// -----

// ... to f16 or f32 (result).
func.func @cast_int_result(%x: tensor<4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.cast' op result must be f16 or f32, got i32{{$}}
  %y = ge.cast %x : tensor<4xf32> -> tensor<4xi32>
  func.return
}

// -----

// The shape stays.
func.func @cast_shape(%x: tensor<8xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.cast' op result has shape [4], expected [8]{{$}}
  %y = ge.cast %x : tensor<8xf32> -> tensor<4xf16>
  func.return
}

// -----

// The layout stays, c0 included.
func.func @cast_layout_c0(%x: tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.cast' op result has layout #ge.format<NC1HWC0>, expected #ge.format<NC1HWC0, c0 = 8> (the input's){{$}}
  %y = ge.cast %x : tensor<1x3x2x2xf32, #ge.format<NC1HWC0, c0 = 8>> -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>
  func.return
}

// -----

func.func @cast_layout_dropped(%x: tensor<1x3x2x2xf32, #ge.format<NHWC>>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.cast' op result has layout NCHW, expected #ge.format<NHWC> (the input's){{$}}
  %y = ge.cast %x : tensor<1x3x2x2xf32, #ge.format<NHWC>> -> tensor<1x3x2x2xf16>
  func.return
}

// -----

// ---- ge.hcom_all_reduce / ge.hcom_all_gather ------------------------------------------------

// The group is named.
func.func @all_reduce_empty_group(%x: tensor<4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_reduce' op group must not be empty{{$}}
  %y = ge.hcom_all_reduce %x reduction sum group "" rank_size 2 : tensor<4xf32>
  func.return
}

// -----

func.func @all_gather_empty_group(%x: tensor<4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_gather' op group must not be empty{{$}}
  %y = ge.hcom_all_gather %x group "" rank_size 2 : tensor<4xf32> -> tensor<8xf32>
  func.return
}

// -----

// rank_size is positive.
func.func @all_reduce_rank_size_zero(%x: tensor<4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_reduce' op rank_size must be positive, got 0{{$}}
  %y = ge.hcom_all_reduce %x reduction max group "world" rank_size 0 : tensor<4xf32>
  func.return
}

// -----

func.func @all_gather_rank_size_negative(%x: tensor<4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_gather' op rank_size must be positive, got -2{{$}}
  %y = ge.hcom_all_gather %x group "world" rank_size -2 : tensor<4xf32> -> tensor<8xf32>
  func.return
}

// -----

// all_reduce element types: f16, f32, i8 or i32.
func.func @all_reduce_ui8(%x: tensor<4xui8>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_reduce' op operand 'input' must be f16, f32, i8 or i32, got ui8{{$}}
  %y = ge.hcom_all_reduce %x reduction sum group "world" rank_size 2 : tensor<4xui8>
  func.return
}

// -----

func.func @all_reduce_i64(%x: tensor<4xi64>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_reduce' op operand 'input' must be f16, f32, i8 or i32, got i64{{$}}
  %y = ge.hcom_all_reduce %x reduction sum group "world" rank_size 2 : tensor<4xi64>
  func.return
}

// -----

// all_reduce's result has the input's type (generic form).
func.func @all_reduce_result_type(%x: tensor<4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_reduce' op result 'output' at position 0 does not verify: attribute tensor<4xf32> expected from variable 'T', but got tensor<8xf32>{{$}}
  %y = "ge.hcom_all_reduce"(%x) <{reduction = #ge<reduction sum>, group = "world", rank_size = 2 : i64}> : (tensor<4xf32>) -> tensor<8xf32>
  func.return
}

// -----

// An unknown reduction.
func.func @all_reduce_unknown_reduction(%x: tensor<4xf32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:40: error: Expected `sum`, `prod`, `max`, or `min`.{{$}}
  %y = ge.hcom_all_reduce %x reduction mean group "world" rank_size 2 : tensor<4xf32>
  func.return
}

// -----

// all_gather multiplies dim 0 by rank_size.
func.func @all_gather_shape(%x: tensor<2x8xf16>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_gather' op result has shape [2, 32], expected [8, 8]{{$}}
  %y = ge.hcom_all_gather %x group "world" rank_size 4 : tensor<2x8xf16> -> tensor<2x32xf16>
  func.return
}

// -----

func.func @all_gather_result_dtype(%x: tensor<2x8xf16>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_gather' op result has element type f32, expected f16 (the input's){{$}}
  %y = ge.hcom_all_gather %x group "world" rank_size 4 : tensor<2x8xf16> -> tensor<8x8xf32>
  func.return
}

// -----

func.func @all_gather_result_layout(%x: tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_gather' op result has layout NCHW, expected #ge.format<NC1HWC0> (the input's){{$}}
  %y = ge.hcom_all_gather %x group "world" rank_size 2 : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> -> tensor<2x17x2x2xf16>
  func.return
}

// -----

// A rank-0 tensor has no dim 0 to gather along.
func.func @all_gather_rank0(%x: tensor<f32>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_gather' op operand 'input' must have rank >= 1{{$}}
  %y = ge.hcom_all_gather %x group "world" rank_size 2 : tensor<f32> -> tensor<2xf32>
  func.return
}

// -----

// global_avg_pool takes activation layouts only.
func.func @global_avg_pool_fractal_z(%x: tensor<16x16x4x4xf16, #ge.format<FRACTAL_Z>>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.global_avg_pool' op operand 'input' has format FRACTAL_Z, expected NCHW, NHWC or NC1HWC0{{$}}
  %y = ge.global_avg_pool %x : tensor<16x16x4x4xf16, #ge.format<FRACTAL_Z>> -> tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>>
  func.return
}

// -----

// all_gather takes the element types of all_reduce.
func.func @all_gather_i1(%x: tensor<4xi1>) {
  // CHECK-NEXT: graph-ops-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.hcom_all_gather' op operand 'input' must be f16, f32, i8 or i32, got i1{{$}}
  %y = ge.hcom_all_gather %x group "w" rank_size 2 : tensor<4xi1> -> tensor<8xi1>
  func.return
}

// -----

// Every case failed: no IR but the empty module of this comment-only chunk is printed, and
// no error follows the last one.
// CHECK-NOT: {{error|ge\.|func\.}}
