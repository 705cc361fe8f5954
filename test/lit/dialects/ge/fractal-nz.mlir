// FRACTAL_NZ, the storage format of cube matmul operands: `#ge.format<FRACTAL_NZ>` on any
// tensor of rank >= 2 (c0 written only when not the dtype's default), ge.trans_data to and
// from the default layout, ge.matmul with FRACTAL_NZ operands and result, and constants
// holding the padded fractal storage.  Each case prints exactly as checked and reparses to
// the same IR (custom and generic forms).  Diagnostics are in fractal-nz-invalid.mlir.
// RUN: GE_ROUNDTRIP
// RUN: GE_GENERIC_ROUNDTRIP

// The format on function arguments and results: rank 2, batched rank 3, rank 4, and an
// f32 tensor with 16x8 fractals (c0 = 8).
// CHECK-LABEL: func.func @format_types(
// CHECK-SAME:    %[[A:.*]]: tensor<3x5xf16, #ge.format<FRACTAL_NZ>>,
// CHECK-SAME:    %[[B:.*]]: tensor<2x17x20xf32, #ge.format<FRACTAL_NZ>>,
// CHECK-SAME:    %[[C:.*]]: tensor<1x2x3x4xf16, #ge.format<FRACTAL_NZ>>,
// CHECK-SAME:    %[[D:.*]]: tensor<3x5xf32, #ge.format<FRACTAL_NZ, c0 = 8>>
// CHECK-SAME:  ) -> tensor<3x5xf32, #ge.format<FRACTAL_NZ, c0 = 8>> {
// CHECK-NEXT:    func.return %[[D]] : tensor<3x5xf32, #ge.format<FRACTAL_NZ, c0 = 8>>
// CHECK-NEXT:  }
func.func @format_types(%a: tensor<3x5xf16, #ge.format<FRACTAL_NZ>>,
                        %b: tensor<2x17x20xf32, #ge.format<FRACTAL_NZ>>,
                        %c: tensor<1x2x3x4xf16, #ge.format<FRACTAL_NZ>>,
                        %d: tensor<3x5xf32, #ge.format<FRACTAL_NZ, c0 = 8>>)
    -> tensor<3x5xf32, #ge.format<FRACTAL_NZ, c0 = 8>> {
  func.return %d : tensor<3x5xf32, #ge.format<FRACTAL_NZ, c0 = 8>>
}

// -----

// ge.trans_data ND -> FRACTAL_NZ -> ND, NCHW (a batch of H x W matrices) -> FRACTAL_NZ, and
// between two C0s of FRACTAL_NZ.
// CHECK-LABEL: func.func @trans_data_nz(
// CHECK-SAME:    %[[X:.*]]: tensor<17x20xf32>, %[[Y:.*]]: tensor<1x3x5x7xf16>
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<17x20xf32> -> tensor<17x20xf32, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[V1:.*]] = ge.trans_data %[[V0]] : tensor<17x20xf32, #ge.format<FRACTAL_NZ>> -> tensor<17x20xf32, #ge.format<FRACTAL_NZ, c0 = 8>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[V1]] : tensor<17x20xf32, #ge.format<FRACTAL_NZ, c0 = 8>> -> tensor<17x20xf32>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[Y]] : tensor<1x3x5x7xf16> -> tensor<1x3x5x7xf16, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    func.return %[[V2]], %[[V3]] : tensor<17x20xf32>, tensor<1x3x5x7xf16, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:  }
func.func @trans_data_nz(%x: tensor<17x20xf32>, %y: tensor<1x3x5x7xf16>)
    -> (tensor<17x20xf32>, tensor<1x3x5x7xf16, #ge.format<FRACTAL_NZ>>) {
  %0 = ge.trans_data %x : tensor<17x20xf32> -> tensor<17x20xf32, #ge.format<FRACTAL_NZ>>
  %1 = ge.trans_data %0 : tensor<17x20xf32, #ge.format<FRACTAL_NZ>> -> tensor<17x20xf32, #ge.format<FRACTAL_NZ, c0 = 8>>
  %2 = ge.trans_data %1 : tensor<17x20xf32, #ge.format<FRACTAL_NZ, c0 = 8>> -> tensor<17x20xf32>
  %3 = ge.trans_data %y : tensor<1x3x5x7xf16> -> tensor<1x3x5x7xf16, #ge.format<FRACTAL_NZ>>
  func.return %2, %3 : tensor<17x20xf32>, tensor<1x3x5x7xf16, #ge.format<FRACTAL_NZ>>
}

// -----

// ge.matmul on FRACTAL_NZ operands and result (batched a, broadcast b), and mixed: an ND
// a with a FRACTAL_NZ b, transposed, a bias, an ND result.
// CHECK-LABEL: func.func @matmul_nz(
// CHECK-NEXT:    %[[V0:.*]] = ge.matmul %[[A:.*]], %[[B:.*]] : tensor<2x17x20xf16, #ge.format<FRACTAL_NZ>>, tensor<20x33xf16, #ge.format<FRACTAL_NZ>> -> tensor<2x17x33xf16, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[V1:.*]] = ge.matmul %[[C:.*]], %[[D:.*]] bias %[[E:.*]] transpose_b : tensor<17x20xf32>, tensor<33x20xf32, #ge.format<FRACTAL_NZ>>, tensor<33xf32> -> tensor<17x33xf32>
func.func @matmul_nz(%a: tensor<2x17x20xf16, #ge.format<FRACTAL_NZ>>,
                     %b: tensor<20x33xf16, #ge.format<FRACTAL_NZ>>,
                     %c: tensor<17x20xf32>, %d: tensor<33x20xf32, #ge.format<FRACTAL_NZ>>,
                     %e: tensor<33xf32>)
    -> (tensor<2x17x33xf16, #ge.format<FRACTAL_NZ>>, tensor<17x33xf32>) {
  %0 = ge.matmul %a, %b : tensor<2x17x20xf16, #ge.format<FRACTAL_NZ>>, tensor<20x33xf16, #ge.format<FRACTAL_NZ>> -> tensor<2x17x33xf16, #ge.format<FRACTAL_NZ>>
  %1 = ge.matmul %c, %d bias %e transpose_b : tensor<17x20xf32>, tensor<33x20xf32, #ge.format<FRACTAL_NZ>>, tensor<33xf32> -> tensor<17x33xf32>
  func.return %0, %1 : tensor<2x17x33xf16, #ge.format<FRACTAL_NZ>>, tensor<17x33xf32>
}

// -----

// A FRACTAL_NZ constant holds its physical (fractal) array: a 3x5 f16 matrix is one 16x16
// fractal, a 3x5 f32 one with c0 = 8 one 16x8 fractal, a batch of two 17x20 f16 matrices
// 2x2 fractals each.
// CHECK-LABEL: func.func @const_nz(
// CHECK-NEXT:    %[[V0:.*]] = ge.const dense<0.000000e+00> : tensor<1x1x16x16xf16> -> tensor<3x5xf16, #ge.format<FRACTAL_NZ>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const dense<0.000000e+00> : tensor<1x1x16x8xf32> -> tensor<3x5xf32, #ge.format<FRACTAL_NZ, c0 = 8>>
// CHECK-NEXT:    %[[V2:.*]] = ge.const #ge.elided : tensor<2x17x20xf16, #ge.format<FRACTAL_NZ>>
func.func @const_nz() -> (tensor<3x5xf16, #ge.format<FRACTAL_NZ>>, tensor<3x5xf32, #ge.format<FRACTAL_NZ, c0 = 8>>, tensor<2x17x20xf16, #ge.format<FRACTAL_NZ>>) {
  %0 = ge.const dense<0.0> : tensor<1x1x16x16xf16> -> tensor<3x5xf16, #ge.format<FRACTAL_NZ>>
  %1 = ge.const dense<0.0> : tensor<1x1x16x8xf32> -> tensor<3x5xf32, #ge.format<FRACTAL_NZ, c0 = 8>>
  %2 = ge.const #ge.elided : tensor<2x17x20xf16, #ge.format<FRACTAL_NZ>>
  func.return %0, %1, %2 : tensor<3x5xf16, #ge.format<FRACTAL_NZ>>, tensor<3x5xf32, #ge.format<FRACTAL_NZ, c0 = 8>>, tensor<2x17x20xf16, #ge.format<FRACTAL_NZ>>
}
