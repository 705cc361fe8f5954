// --to-nc1hwc0 places an op in NC1HWC0 only where its kernel, computing on the STORED arrays
// with numpy broadcasting ([N, C1, H, W, C0] with zero padding lanes for NC1HWC0, the array
// itself for ND), gives the logical result (test/unit/helpers/physical_ref.py checks
// every op the pass places, on random graphs).  Each case sits between two convs, so that
// running the op in NC1HWC0 would save conversions whenever it is legal.
// RUN: ge-opt %s --split-input-file --to-nc1hwc0 --elide-constants-if-larger=8 | filecheck %s
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)

// A mul by a computed operand that broadcasts over C (a one-channel conv, [1, 1, H, W]) between
// two convs.  Stored as NC1HWC0 that operand holds its data in lane 0 of its C0 block only, so
// a kernel on the stored arrays would zero 15 of every 16 channels: the mul runs in NCHW, with
// both operands converted before it and its result after it.
// CHECK-LABEL: func.func @mul_computed_c_broadcast(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[V2:.*]] = ge.const #ge.elided : tensor<1x16x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[Y]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[S:.*]] = ge.conv2d %[[Y]], %[[V2]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<1x16x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x1x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V4:.*]] = ge.trans_data %[[S]] : tensor<1x1x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x1x4x4xf16>
// CHECK-NEXT:    %[[M:.*]] = ge.mul %[[V3]], %[[V4]] : (tensor<1x16x4x4xf16>, tensor<1x1x4x4xf16>) -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[V5:.*]] = ge.trans_data %[[M]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Z:.*]] = ge.conv2d %[[V5]], %[[V1]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V6:.*]] = ge.trans_data %[[Z]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    func.return %[[V6]] : tensor<1x16x4x4xf16>
// CHECK-NEXT:  }
func.func @mul_computed_c_broadcast(%x: tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x1x1xf16>
  %ws = ge.const dense<1.0> : tensor<1x16x1x1xf16>
  %y = ge.conv2d %x, %w : tensor<1x16x4x4xf16>, tensor<16x16x1x1xf16> -> tensor<1x16x4x4xf16>
  %s = ge.conv2d %y, %ws : tensor<1x16x4x4xf16>, tensor<1x16x1x1xf16> -> tensor<1x1x4x4xf16>
  %m = ge.mul %y, %s : (tensor<1x16x4x4xf16>, tensor<1x1x4x4xf16>) -> tensor<1x16x4x4xf16>
  %z = ge.conv2d %m, %w : tensor<1x16x4x4xf16>, tensor<16x16x1x1xf16> -> tensor<1x16x4x4xf16>
  func.return %z : tensor<1x16x4x4xf16>
}

// -----

// A mul by a [1, 1, 1, 1] constant: replicated across C at compile time into a [1, 3, 1, 1]
// NC1HWC0 constant, physical [1, 1, 1, 1, 16] holding 2.0 in lanes 0..2 (the 3 channels) and
// zero padding lanes, which multiplies every channel; the mul stays in NC1HWC0.
// CHECK-LABEL: func.func @mul_constant_1x1x1x1(
// CHECK-SAME:  %[[X:.*]]: tensor<1x3x2x2xf16>) -> tensor<1x3x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x3x2x2xf16> -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<3x3x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[V2:.*]] = ge.const dense<{{\[\[\[\[\[}}2.000000e+00, 2.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]]> : tensor<1x1x1x1x16xf16> -> tensor<1x3x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] : tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>, tensor<3x3x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[M:.*]] = ge.mul %[[Y]], %[[V2]] : (tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x3x1x1xf16, #ge.format<NC1HWC0>>) -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Z:.*]] = ge.conv2d %[[M]], %[[V1]] : tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>, tensor<3x3x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[Z]] : tensor<1x3x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x3x2x2xf16>
// CHECK-NEXT:    func.return %[[V3]] : tensor<1x3x2x2xf16>
// CHECK-NEXT:  }
func.func @mul_constant_1x1x1x1(%x: tensor<1x3x2x2xf16>) -> tensor<1x3x2x2xf16> {
  %w = ge.const dense<1.0> : tensor<3x3x1x1xf16>
  %c = ge.const dense<2.0> : tensor<1x1x1x1xf16>
  %y = ge.conv2d %x, %w : tensor<1x3x2x2xf16>, tensor<3x3x1x1xf16> -> tensor<1x3x2x2xf16>
  %m = ge.mul %y, %c : (tensor<1x3x2x2xf16>, tensor<1x1x1x1xf16>) -> tensor<1x3x2x2xf16>
  %z = ge.conv2d %m, %w : tensor<1x3x2x2xf16>, tensor<3x3x1x1xf16> -> tensor<1x3x2x2xf16>
  func.return %z : tensor<1x3x2x2xf16>
}

// -----

// A mul by a rank-1 constant [W]: left ND, its stored array [2] would line up with the C0
// axis of [1, 1, 2, 2, 16] instead of W.  It becomes a [1, 3, 1, 2] NC1HWC0 constant, physical
// [1, 1, 1, 2, 16]: w = 0 holds 1.0 and w = 1 holds 2.0, each in lanes 0..2.
// CHECK-LABEL: func.func @mul_rank1_constant(
// CHECK-SAME:  %[[X:.*]]: tensor<1x3x2x2xf16>) -> tensor<1x3x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x3x2x2xf16> -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<3x3x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[V2:.*]] = ge.const dense<{{\[\[\[\[\[}}1.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [2.000000e+00, 2.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]]> : tensor<1x1x1x2x16xf16> -> tensor<1x3x1x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] : tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>, tensor<3x3x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[M:.*]] = ge.mul %[[Y]], %[[V2]] : (tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x3x1x2xf16, #ge.format<NC1HWC0>>) -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Z:.*]] = ge.conv2d %[[M]], %[[V1]] : tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>, tensor<3x3x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[Z]] : tensor<1x3x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x3x2x2xf16>
// CHECK-NEXT:    func.return %[[V3]] : tensor<1x3x2x2xf16>
// CHECK-NEXT:  }
func.func @mul_rank1_constant(%x: tensor<1x3x2x2xf16>) -> tensor<1x3x2x2xf16> {
  %w = ge.const dense<1.0> : tensor<3x3x1x1xf16>
  %c = ge.const dense<[1.0, 2.0]> : tensor<2xf16>
  %y = ge.conv2d %x, %w : tensor<1x3x2x2xf16>, tensor<3x3x1x1xf16> -> tensor<1x3x2x2xf16>
  %m = ge.mul %y, %c : (tensor<1x3x2x2xf16>, tensor<2xf16>) -> tensor<1x3x2x2xf16>
  %z = ge.conv2d %m, %w : tensor<1x3x2x2xf16>, tensor<3x3x1x1xf16> -> tensor<1x3x2x2xf16>
  func.return %z : tensor<1x3x2x2xf16>
}

// -----

// An add by the same constant is made legal the same way (0 + 0 keeps the padding lanes zero).
// CHECK-LABEL: func.func @add_rank1_constant(
// CHECK-SAME:  %[[X:.*]]: tensor<1x3x2x2xf16>) -> tensor<1x3x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x3x2x2xf16> -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<3x3x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[V2:.*]] = ge.const dense<{{\[\[\[\[\[}}1.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [2.000000e+00, 2.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]]> : tensor<1x1x1x2x16xf16> -> tensor<1x3x1x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] : tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>, tensor<3x3x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[A:.*]] = ge.add %[[Y]], %[[V2]] : (tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x3x1x2xf16, #ge.format<NC1HWC0>>) -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Z:.*]] = ge.conv2d %[[A]], %[[V1]] : tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>, tensor<3x3x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[Z]] : tensor<1x3x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x3x2x2xf16>
// CHECK-NEXT:    func.return %[[V3]] : tensor<1x3x2x2xf16>
// CHECK-NEXT:  }
func.func @add_rank1_constant(%x: tensor<1x3x2x2xf16>) -> tensor<1x3x2x2xf16> {
  %w = ge.const dense<1.0> : tensor<3x3x1x1xf16>
  %c = ge.const dense<[1.0, 2.0]> : tensor<2xf16>
  %y = ge.conv2d %x, %w : tensor<1x3x2x2xf16>, tensor<3x3x1x1xf16> -> tensor<1x3x2x2xf16>
  %a = ge.add %y, %c : (tensor<1x3x2x2xf16>, tensor<2xf16>) -> tensor<1x3x2x2xf16>
  %z = ge.conv2d %a, %w : tensor<1x3x2x2xf16>, tensor<3x3x1x1xf16> -> tensor<1x3x2x2xf16>
  func.return %z : tensor<1x3x2x2xf16>
}

// -----

// A mul by a computed rank-1 operand (a graph input [W]) cannot be replicated at compile time:
// the mul runs in NCHW between the convs.
// CHECK-LABEL: func.func @mul_rank1_computed(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16>, %[[S:.*]]: tensor<4xf16>) -> tensor<1x16x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[M:.*]] = ge.mul %[[V2]], %[[S]] : (tensor<1x16x4x4xf16>, tensor<4xf16>) -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[M]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Z:.*]] = ge.conv2d %[[V3]], %[[V1]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V4:.*]] = ge.trans_data %[[Z]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    func.return %[[V4]] : tensor<1x16x4x4xf16>
// CHECK-NEXT:  }
func.func @mul_rank1_computed(%x: tensor<1x16x4x4xf16>, %s: tensor<4xf16>) -> tensor<1x16x4x4xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x1x1xf16>
  %y = ge.conv2d %x, %w : tensor<1x16x4x4xf16>, tensor<16x16x1x1xf16> -> tensor<1x16x4x4xf16>
  %m = ge.mul %y, %s : (tensor<1x16x4x4xf16>, tensor<4xf16>) -> tensor<1x16x4x4xf16>
  %z = ge.conv2d %m, %w : tensor<1x16x4x4xf16>, tensor<16x16x1x1xf16> -> tensor<1x16x4x4xf16>
  func.return %z : tensor<1x16x4x4xf16>
}

// -----

// A computed scalar (rank 0) broadcasts on the stored arrays as it is: mul stays in NC1HWC0
// (0 * s = 0 in the padding lanes), add runs in NCHW (0 + s would fill them).
// CHECK-LABEL: func.func @scalar_computed(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16>, %[[S:.*]]: tensor<f16>) -> (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[M:.*]] = ge.mul %[[Y]], %[[S]] : (tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<f16>) -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[A:.*]] = ge.add %[[V2]], %[[S]] : (tensor<1x16x4x4xf16>, tensor<f16>) -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[A]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[ZM:.*]] = ge.conv2d %[[M]], %[[V1]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V4:.*]] = ge.trans_data %[[ZM]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[ZA:.*]] = ge.conv2d %[[V3]], %[[V1]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V5:.*]] = ge.trans_data %[[ZA]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    func.return %[[V4]], %[[V5]] : tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>
// CHECK-NEXT:  }
func.func @scalar_computed(%x: tensor<1x16x4x4xf16>, %s: tensor<f16>) -> (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) {
  %w = ge.const dense<1.0> : tensor<16x16x1x1xf16>
  %y = ge.conv2d %x, %w : tensor<1x16x4x4xf16>, tensor<16x16x1x1xf16> -> tensor<1x16x4x4xf16>
  %m = ge.mul %y, %s : (tensor<1x16x4x4xf16>, tensor<f16>) -> tensor<1x16x4x4xf16>
  %a = ge.add %y, %s : (tensor<1x16x4x4xf16>, tensor<f16>) -> tensor<1x16x4x4xf16>
  %zm = ge.conv2d %m, %w : tensor<1x16x4x4xf16>, tensor<16x16x1x1xf16> -> tensor<1x16x4x4xf16>
  %za = ge.conv2d %a, %w : tensor<1x16x4x4xf16>, tensor<16x16x1x1xf16> -> tensor<1x16x4x4xf16>
  func.return %zm, %za : tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>
}
