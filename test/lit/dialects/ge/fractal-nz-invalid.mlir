// Diagnostics of FRACTAL_NZ types and of the ops that take them (ge.trans_data, ge.matmul,
// ge.const), each pinned with its exact message and location.
// RUN: ge-opt %s --split-input-file --verify-diagnostics --parsing-diagnostics | filecheck %s
// RUN: not ge-opt %s --split-input-file 2>&1 >/dev/null | filecheck %s

// FRACTAL_NZ stores matrices: an operand of rank 1 is refused.
func.func @nz_rank_operand(%x: tensor<4xf16, #ge.format<FRACTAL_NZ>>) {
  // CHECK: fractal-nz-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.sigmoid' op operand 'input': format FRACTAL_NZ needs a tensor of rank >= 2 (its last two dims are the matrix), got rank 1{{$}}
  %y = ge.sigmoid %x : tensor<4xf16, #ge.format<FRACTAL_NZ>>
  func.return
}

// -----

// ... and so is a result of rank 1.
func.func @nz_rank_result(%x: tensor<4xf16>) {
  // CHECK-NEXT: fractal-nz-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.trans_data' op result: format FRACTAL_NZ needs a tensor of rank >= 2 (its last two dims are the matrix), got rank 1{{$}}
  %y = ge.trans_data %x : tensor<4xf16> -> tensor<4xf16, #ge.format<FRACTAL_NZ>>
  func.return
}

// -----

// groups belongs to FRACTAL_Z only.
// CHECK-NEXT: fractal-nz-invalid.mlir:[[# @LINE + 1]]:54: error: groups is only meaningful for FRACTAL_Z, not FRACTAL_NZ{{$}}
func.func @nz_groups(%x: tensor<16x16xf16, #ge.format<FRACTAL_NZ, groups = 2>>) {
  func.return
}

// -----

// The dtype's default C0 is not written (16 for f16).
func.func @nz_default_c0(%x: tensor<3x5xf16, #ge.format<FRACTAL_NZ, c0 = 16>>) {
  // CHECK-NEXT: fractal-nz-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.relu' op operand 'input': c0 = 16 is the default for f16 and must be omitted{{$}}
  %y = ge.relu %x : tensor<3x5xf16, #ge.format<FRACTAL_NZ, c0 = 16>>
  func.return
}

// -----

// trans_data converts FRACTAL_NZ to and from the default layout only (not NC1HWC0) ...
func.func @trans_data_nc1hwc0_nz(%x: tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>) {
  // CHECK-NEXT: fractal-nz-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.trans_data' op trans_data between NC1HWC0 and FRACTAL_NZ is not supported: FRACTAL_NZ converts to and from the default layout (ND/NCHW) only{{$}}
  %y = ge.trans_data %x : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16, #ge.format<FRACTAL_NZ>>
  func.return
}

// -----

// ... nor NHWC, whichever way.
func.func @trans_data_nz_nhwc(%x: tensor<1x3x4x4xf16, #ge.format<FRACTAL_NZ>>) {
  // CHECK-NEXT: fractal-nz-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.trans_data' op trans_data between NHWC and FRACTAL_NZ is not supported: FRACTAL_NZ converts to and from the default layout (ND/NCHW) only{{$}}
  %y = ge.trans_data %x : tensor<1x3x4x4xf16, #ge.format<FRACTAL_NZ>> -> tensor<1x3x4x4xf16, #ge.format<NHWC>>
  func.return
}

// -----

// matmul takes FRACTAL_NZ but no other blocked format (operand) ...
func.func @matmul_nc1hwc0(%a: tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, %b: tensor<1x16x4x4xf16>) {
  // CHECK-NEXT: fractal-nz-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op operand 'a' has layout #ge.format<NC1HWC0>: matmul takes default-layout (ND/NCHW) tensors; convert it with ge.trans_data first{{$}}
  %y = ge.matmul %a, %b : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16>
  func.return
}

// -----

// ... (result).
func.func @matmul_result_nhwc(%a: tensor<1x3x4x4xf16, #ge.format<FRACTAL_NZ>>, %b: tensor<1x3x4x4xf16>) {
  // CHECK-NEXT: fractal-nz-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.matmul' op result has layout #ge.format<NHWC>: matmul produces default-layout (ND/NCHW) tensors; convert its result with ge.trans_data{{$}}
  %y = ge.matmul %a, %b : tensor<1x3x4x4xf16, #ge.format<FRACTAL_NZ>>, tensor<1x3x4x4xf16> -> tensor<1x3x4x4xf16, #ge.format<NHWC>>
  func.return
}

// -----

// A FRACTAL_NZ constant holds the physical shape (one 16x16 fractal for a 3x5 f16) ...
func.func @const_nz_shape() {
  // CHECK-NEXT: fractal-nz-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op value has shape [3, 5], expected the physical shape [1, 1, 16, 16] of tensor<3x5xf16, #ge.format<FRACTAL_NZ>>{{$}}
  %0 = ge.const dense<1.0> : tensor<3x5xf16> -> tensor<3x5xf16, #ge.format<FRACTAL_NZ>>
  func.return
}

// -----

// ... whose padding lanes (rows >= 3, columns >= 5 of the fractal) are zero.
func.func @const_nz_padding() {
  // CHECK-NEXT: fractal-nz-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.const' op value has nonzero padding lanes: every lane beyond the logical shape [3, 5] of the FRACTAL_NZ constant must be zero{{$}}
  %0 = ge.const dense<1.0> : tensor<1x1x16x16xf16> -> tensor<3x5xf16, #ge.format<FRACTAL_NZ>>
  func.return
}

// -----

// A stored operand broadcasts lane by lane: it must not broadcast along the matrix's rows or
// columns, which FRACTAL_NZ splits into fractals (its one row would sit in one lane).
func.func @nz_broadcast_rows(%a: tensor<1x5xf16, #ge.format<FRACTAL_NZ>>, %b: tensor<3x5xf16, #ge.format<FRACTAL_NZ>>) {
  // CHECK-NEXT: fractal-nz-invalid.mlir:[[# @LINE + 1]]:3: error: 'ge.add' op operand 'lhs' broadcasts along dim 0, which FRACTAL_NZ stores in blocks: broadcast it in the default layout (ND/NCHW) first{{$}}
  %y = ge.add %a, %b : (tensor<1x5xf16, #ge.format<FRACTAL_NZ>>, tensor<3x5xf16, #ge.format<FRACTAL_NZ>>) -> tensor<3x5xf16, #ge.format<FRACTAL_NZ>>
  func.return
}

// -----

// Batch dims are not blocked: they broadcast.
func.func @nz_broadcast_batch(%a: tensor<1x3x5xf16, #ge.format<FRACTAL_NZ>>, %b: tensor<2x3x5xf16, #ge.format<FRACTAL_NZ>>) {
  // CHECK-NOT: error
  %y = ge.add %a, %b : (tensor<1x3x5xf16, #ge.format<FRACTAL_NZ>>, tensor<2x3x5xf16, #ge.format<FRACTAL_NZ>>) -> tensor<2x3x5xf16, #ge.format<FRACTAL_NZ>>
  func.return
}
