// --to-nc1hwc0 on elementwise ops that broadcast, and on concat.
//
// An elementwise op may run in NC1HWC0 when its stored operands broadcast lane by lane: each
// operand has the result's C (it broadcasts over N, H and W only, e.g. [N, C, 1, 1]), or, for
// mul, it is an ND scalar.  A constant of another shape (a broadcast over C, [1, 1, H, W], or
// a lower rank such as [W]) can be made so at compile time: a [n, C, h, w] NC1HWC0 copy,
// replicated across C, made only where it saves conversions (to-nc1hwc0-stored.mlir).  A
// computed operand that broadcasts over C keeps the op in NCHW.  A channel concat may run in
// NC1HWC0 only if all its inputs but the last are C0-aligned; a concat on N, H or W always
// may.  Among the ops that may, the minimum cut picks those that save bytes converted
// (to-nc1hwc0-cut.mlir): an op whose operand is a graph input is often cheaper left in NCHW,
// with one conversion of the conv result before it.
// RUN: ge-opt %s --split-input-file --to-nc1hwc0 --elide-constants-if-larger=32 | filecheck %s
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)

// ---- Broadcast over N, H, W -------------------------------------------------------------------
//
// A [1, 3, 1, 1] constant added to a conv result is converted at compile time: physical
// [1, 1, 1, 1, 16] holding 1, 2, 3 and 13 zero padding lanes.
// CHECK-LABEL: func.func @bcast_hw_constant(
// CHECK-SAME:  %[[X:.*]]: tensor<1x3x4x4xf16>) -> tensor<1x3x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x3x4x4xf16> -> tensor<1x3x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<3x3x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[V2:.*]] = ge.const dense<{{\[\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]]> : tensor<1x1x1x1x16xf16> -> tensor<1x3x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x3x4x4xf16, #ge.format<NC1HWC0>>, tensor<3x3x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x3x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Z:.*]] = ge.add %[[Y]], %[[V2]] : (tensor<1x3x4x4xf16, #ge.format<NC1HWC0>>, tensor<1x3x1x1xf16, #ge.format<NC1HWC0>>) -> tensor<1x3x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[Z]] : tensor<1x3x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x3x4x4xf16>
// CHECK-NEXT:    func.return %[[V3]] : tensor<1x3x4x4xf16>
// CHECK-NEXT:  }
func.func @bcast_hw_constant(%x: tensor<1x3x4x4xf16>) -> tensor<1x3x4x4xf16> {
  %w = ge.const dense<1.0> : tensor<3x3x3x3xf16>
  %c = ge.const dense<[[[[1.0]], [[2.0]], [[3.0]]]]> : tensor<1x3x1x1xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x3x4x4xf16>, tensor<3x3x3x3xf16> -> tensor<1x3x4x4xf16>
  %z = ge.add %y, %c : (tensor<1x3x4x4xf16>, tensor<1x3x1x1xf16>) -> tensor<1x3x4x4xf16>
  func.return %z : tensor<1x3x4x4xf16>
}

// -----

// With 17 channels the constant spans C1 = 2 blocks: channels 0..15 fill the first, channel 16
// opens the second, whose other 15 lanes are zero.
// CHECK-LABEL: func.func @bcast_hw_constant_two_blocks(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x2x2xf16>) -> tensor<1x17x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x17x2x2xf16> -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[V2:.*]] = ge.const dense<{{\[\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00, 9.000000e+00, 1.000000e+01, 1.100000e+01, 1.200000e+01, 1.300000e+01, 1.400000e+01, 1.500000e+01, 1.600000e+01]]], {{\[\[\[}}1.700000e+01, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]]> : tensor<1x2x1x1x16xf16> -> tensor<1x17x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Z:.*]] = ge.sub %[[Y]], %[[V2]] : (tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x17x1x1xf16, #ge.format<NC1HWC0>>) -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[Z]] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x17x2x2xf16>
// CHECK-NEXT:    func.return %[[V3]] : tensor<1x17x2x2xf16>
// CHECK-NEXT:  }
func.func @bcast_hw_constant_two_blocks(%x: tensor<1x17x2x2xf16>) -> tensor<1x17x2x2xf16> {
  %w = ge.const dense<1.0> : tensor<17x17x3x3xf16>
  %c = ge.const dense<[[[[1.0]], [[2.0]], [[3.0]], [[4.0]], [[5.0]], [[6.0]], [[7.0]], [[8.0]], [[9.0]], [[10.0]], [[11.0]], [[12.0]], [[13.0]], [[14.0]], [[15.0]], [[16.0]], [[17.0]]]]> : tensor<1x17x1x1xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x17x2x2xf16>, tensor<17x17x3x3xf16> -> tensor<1x17x2x2xf16>
  %z = ge.sub %y, %c : (tensor<1x17x2x2xf16>, tensor<1x17x1x1xf16>) -> tensor<1x17x2x2xf16>
  func.return %z : tensor<1x17x2x2xf16>
}

// -----

// A graph input broadcast over N ([1, C, H, W] against [2, C, H, W]): the sub may run in
// NC1HWC0, but converting the conv result (2x16x4x4) once is cheaper than converting the input
// in and the result out (1x16x4x4 + 2x16x4x4), so it runs in NCHW (to-nc1hwc0-cut.mlir has it
// between two convs, where it stays in NC1HWC0).
// CHECK-LABEL: func.func @bcast_n_argument(
// CHECK-SAME:  %[[X:.*]]: tensor<2x16x4x4xf16>, %[[B:.*]]: tensor<1x16x4x4xf16>) -> tensor<2x16x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<2x16x4x4xf16> -> tensor<2x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<2x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<2x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<2x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<2x16x4x4xf16>
// CHECK-NEXT:    %[[Z:.*]] = ge.sub %[[B]], %[[V2]] : (tensor<1x16x4x4xf16>, tensor<2x16x4x4xf16>) -> tensor<2x16x4x4xf16>
// CHECK-NEXT:    func.return %[[Z]] : tensor<2x16x4x4xf16>
// CHECK-NEXT:  }
func.func @bcast_n_argument(%x: tensor<2x16x4x4xf16>, %b: tensor<1x16x4x4xf16>) -> tensor<2x16x4x4xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<2x16x4x4xf16>, tensor<16x16x3x3xf16> -> tensor<2x16x4x4xf16>
  %z = ge.sub %b, %y : (tensor<1x16x4x4xf16>, tensor<2x16x4x4xf16>) -> tensor<2x16x4x4xf16>
  func.return %z : tensor<2x16x4x4xf16>
}

// -----

// A squeeze-and-excitation block: global pool, conv, sigmoid and the [1, C, 1, 1] x [1, C, H, W]
// mul all stay in NC1HWC0; a single trans_data in and out.
// CHECK-LABEL: func.func @bcast_squeeze_excite(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[G:.*]] = ge.global_avg_pool %[[Y]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.const #ge.elided : tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[S:.*]] = ge.conv2d %[[G]], %[[V2]] : tensor<1x16x1x1xf16, #ge.format<NC1HWC0>>, tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[A:.*]] = ge.sigmoid %[[S]] : tensor<1x16x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Z:.*]] = ge.mul %[[Y]], %[[A]] : (tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<1x16x1x1xf16, #ge.format<NC1HWC0>>) -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[Z]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    func.return %[[V3]] : tensor<1x16x4x4xf16>
// CHECK-NEXT:  }
func.func @bcast_squeeze_excite(%x: tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x4x4xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x4x4xf16>
  %g = ge.global_avg_pool %y : tensor<1x16x4x4xf16> -> tensor<1x16x1x1xf16>
  %ws = ge.const dense<1.0> : tensor<16x16x1x1xf16>
  %s = ge.conv2d %g, %ws : tensor<1x16x1x1xf16>, tensor<16x16x1x1xf16> -> tensor<1x16x1x1xf16>
  %a = ge.sigmoid %s : tensor<1x16x1x1xf16>
  %z = ge.mul %y, %a : (tensor<1x16x4x4xf16>, tensor<1x16x1x1xf16>) -> tensor<1x16x4x4xf16>
  func.return %z : tensor<1x16x4x4xf16>
}

// -----

// ---- Broadcast over C -------------------------------------------------------------------------
//
// add with a computed [1, 1, H, W] operand (here a graph input) cannot run in NC1HWC0: the add
// runs in NCHW after a conversion.
// CHECK-LABEL: func.func @bcast_c_add(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16>, %[[B:.*]]: tensor<1x1x4x4xf16>) -> tensor<1x16x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[Z:.*]] = ge.add %[[V2]], %[[B]] : (tensor<1x16x4x4xf16>, tensor<1x1x4x4xf16>) -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    func.return %[[Z]] : tensor<1x16x4x4xf16>
// CHECK-NEXT:  }
func.func @bcast_c_add(%x: tensor<1x16x4x4xf16>, %b: tensor<1x1x4x4xf16>) -> tensor<1x16x4x4xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x4x4xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x4x4xf16>
  %z = ge.add %y, %b : (tensor<1x16x4x4xf16>, tensor<1x1x4x4xf16>) -> tensor<1x16x4x4xf16>
  func.return %z : tensor<1x16x4x4xf16>
}

// -----

// mul with the same operand cannot either: stored as NC1HWC0 the [1, 1, H, W] input holds its
// data in lane 0 of its C0 block, so a kernel on the stored arrays would zero 15 of every 16
// channels.  The mul runs in NCHW.
// CHECK-LABEL: func.func @bcast_c_mul(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16>, %[[B:.*]]: tensor<1x1x4x4xf16>) -> tensor<1x16x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[Z:.*]] = ge.mul %[[V2]], %[[B]] : (tensor<1x16x4x4xf16>, tensor<1x1x4x4xf16>) -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    func.return %[[Z]] : tensor<1x16x4x4xf16>
// CHECK-NEXT:  }
func.func @bcast_c_mul(%x: tensor<1x16x4x4xf16>, %b: tensor<1x1x4x4xf16>) -> tensor<1x16x4x4xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x4x4xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x4x4xf16>
  %z = ge.mul %y, %b : (tensor<1x16x4x4xf16>, tensor<1x1x4x4xf16>) -> tensor<1x16x4x4xf16>
  func.return %z : tensor<1x16x4x4xf16>
}

// -----

// A [1, 1, 2, 2] constant of a mul: stored as NC1HWC0 it would hold its four values in lane 0
// only, and the mul would zero channels 1 and 2 (the old greedy placement did that).  A
// copy replicated across C ([1, 3, 2, 2]) would be legal but saves no conversion here, so the
// mul runs in NCHW and the constant stays as it is (to-nc1hwc0-stored.mlir has such copies
// between two convs, where they save two).
// CHECK-LABEL: func.func @bcast_c_mul_constant(
// CHECK-SAME:  %[[X:.*]]: tensor<1x3x2x2xf16>) -> tensor<1x3x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x3x2x2xf16> -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<3x3x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[C:.*]] = ge.const dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]]]> : tensor<1x1x2x2xf16>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>, tensor<3x3x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x3x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x3x2x2xf16>
// CHECK-NEXT:    %[[Z:.*]] = ge.mul %[[V2]], %[[C]] : (tensor<1x3x2x2xf16>, tensor<1x1x2x2xf16>) -> tensor<1x3x2x2xf16>
// CHECK-NEXT:    func.return %[[Z]] : tensor<1x3x2x2xf16>
// CHECK-NEXT:  }
func.func @bcast_c_mul_constant(%x: tensor<1x3x2x2xf16>) -> tensor<1x3x2x2xf16> {
  %w = ge.const dense<1.0> : tensor<3x3x3x3xf16>
  %c = ge.const dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x3x2x2xf16>, tensor<3x3x3x3xf16> -> tensor<1x3x2x2xf16>
  %z = ge.mul %y, %c : (tensor<1x3x2x2xf16>, tensor<1x1x2x2xf16>) -> tensor<1x3x2x2xf16>
  func.return %z : tensor<1x3x2x2xf16>
}

// -----

// The same constant with sub: the sub runs in NCHW and the constant is not converted (a
// replicated copy would save no conversion here either).
// CHECK-LABEL: func.func @bcast_c_sub_constant(
// CHECK-SAME:  %[[X:.*]]: tensor<1x3x2x2xf16>) -> tensor<1x3x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x3x2x2xf16> -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<3x3x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[C:.*]] = ge.const dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00], [3.000000e+00, 4.000000e+00]]]]> : tensor<1x1x2x2xf16>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>, tensor<3x3x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x3x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x3x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x3x2x2xf16>
// CHECK-NEXT:    %[[Z:.*]] = ge.sub %[[V2]], %[[C]] : (tensor<1x3x2x2xf16>, tensor<1x1x2x2xf16>) -> tensor<1x3x2x2xf16>
// CHECK-NEXT:    func.return %[[Z]] : tensor<1x3x2x2xf16>
// CHECK-NEXT:  }
func.func @bcast_c_sub_constant(%x: tensor<1x3x2x2xf16>) -> tensor<1x3x2x2xf16> {
  %w = ge.const dense<1.0> : tensor<3x3x3x3xf16>
  %c = ge.const dense<[[[[1.0, 2.0], [3.0, 4.0]]]]> : tensor<1x1x2x2xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x3x2x2xf16>, tensor<3x3x3x3xf16> -> tensor<1x3x2x2xf16>
  %z = ge.sub %y, %c : (tensor<1x3x2x2xf16>, tensor<1x1x2x2xf16>) -> tensor<1x3x2x2xf16>
  func.return %z : tensor<1x3x2x2xf16>
}

// -----

// The conv result itself broadcasts over C (one output channel against 16): both the add and
// the mul run in NCHW and share one conversion of it.
// CHECK-LABEL: func.func @bcast_c_conv_result(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>, %[[A:.*]]: tensor<1x16x2x2xf16>) -> (tensor<1x16x2x2xf16>, tensor<1x16x2x2xf16>) {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<1x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x1x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x1x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x1x2x2xf16>
// CHECK-NEXT:    %[[S:.*]] = ge.add %[[A]], %[[V2]] : (tensor<1x16x2x2xf16>, tensor<1x1x2x2xf16>) -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    %[[M:.*]] = ge.mul %[[A]], %[[V2]] : (tensor<1x16x2x2xf16>, tensor<1x1x2x2xf16>) -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    func.return %[[S]], %[[M]] : tensor<1x16x2x2xf16>, tensor<1x16x2x2xf16>
// CHECK-NEXT:  }
func.func @bcast_c_conv_result(%x: tensor<1x16x2x2xf16>, %a: tensor<1x16x2x2xf16>) -> (tensor<1x16x2x2xf16>, tensor<1x16x2x2xf16>) {
  %w = ge.const dense<1.0> : tensor<1x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x2x2xf16>, tensor<1x16x3x3xf16> -> tensor<1x1x2x2xf16>
  %s = ge.add %a, %y : (tensor<1x16x2x2xf16>, tensor<1x1x2x2xf16>) -> tensor<1x16x2x2xf16>
  %m = ge.mul %a, %y : (tensor<1x16x2x2xf16>, tensor<1x1x2x2xf16>) -> tensor<1x16x2x2xf16>
  func.return %s, %m : tensor<1x16x2x2xf16>, tensor<1x16x2x2xf16>
}

// -----

// ---- Operands of rank < 4 ----------------------------------------------------------------------
//
// A rank-1 operand ([W]) broadcasts over N, C and H: add gets a conversion (a [1, C, 1, W]
// copy of the constant would save none here).
// CHECK-LABEL: func.func @rank1_add(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[C:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf16>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[Z:.*]] = ge.add %[[V2]], %[[C]] : (tensor<1x16x4x4xf16>, tensor<4xf16>) -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    func.return %[[Z]] : tensor<1x16x4x4xf16>
// CHECK-NEXT:  }
func.func @rank1_add(%x: tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %c = ge.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x4x4xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x4x4xf16>
  %z = ge.add %y, %c : (tensor<1x16x4x4xf16>, tensor<4xf16>) -> tensor<1x16x4x4xf16>
  func.return %z : tensor<1x16x4x4xf16>
}

// -----

// mul with the same rank-1 constant: kept ND next to an NC1HWC0 operand, the stored [4] would
// line up with the C0 axis of [1, 1, 4, 4, 16], not with W (the old greedy placement did
// that).  The mul runs in NCHW, as the add.
// CHECK-LABEL: func.func @rank1_mul(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[C:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf16>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[Z:.*]] = ge.mul %[[V2]], %[[C]] : (tensor<1x16x4x4xf16>, tensor<4xf16>) -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    func.return %[[Z]] : tensor<1x16x4x4xf16>
// CHECK-NEXT:  }
func.func @rank1_mul(%x: tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %c = ge.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x4x4xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x4x4xf16>
  %z = ge.mul %y, %c : (tensor<1x16x4x4xf16>, tensor<4xf16>) -> tensor<1x16x4x4xf16>
  func.return %z : tensor<1x16x4x4xf16>
}

// -----

// A rank-0 scalar: mul could read it as it is (it broadcasts on the stored arrays) and add
// through a [1, C, 1, 1] copy, but both results are returned: one conversion of the conv
// result before them is cheaper than one after each, so both run in NCHW.
// CHECK-LABEL: func.func @rank0_scalar(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16>) -> (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[C:.*]] = ge.const dense<2.000000e+00> : tensor<f16>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[S:.*]] = ge.add %[[V2]], %[[C]] : (tensor<1x16x4x4xf16>, tensor<f16>) -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[M:.*]] = ge.mul %[[V2]], %[[C]] : (tensor<1x16x4x4xf16>, tensor<f16>) -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    func.return %[[S]], %[[M]] : tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>
// CHECK-NEXT:  }
func.func @rank0_scalar(%x: tensor<1x16x4x4xf16>) -> (tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>) {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %c = ge.const dense<2.0> : tensor<f16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x4x4xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x4x4xf16>
  %s = ge.add %y, %c : (tensor<1x16x4x4xf16>, tensor<f16>) -> tensor<1x16x4x4xf16>
  %m = ge.mul %y, %c : (tensor<1x16x4x4xf16>, tensor<f16>) -> tensor<1x16x4x4xf16>
  func.return %s, %m : tensor<1x16x4x4xf16>, tensor<1x16x4x4xf16>
}

// -----

// A mul of two graph inputs, [1, C, H, W] x [H, W], whose only user is a conv: a computed
// [H, W] operand would line up with [W, C0] of the stored array, so the mul runs in NCHW and
// the conversion follows it.
// CHECK-LABEL: func.func @rank2_mul_backward(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16>, %[[S:.*]]: tensor<4x4xf16>) -> tensor<1x16x4x4xf16> {
// CHECK-NEXT:    %[[M:.*]] = ge.mul %[[X]], %[[S]] : (tensor<1x16x4x4xf16>, tensor<4x4xf16>) -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[M]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x16x4x4xf16>
// CHECK-NEXT:  }
func.func @rank2_mul_backward(%x: tensor<1x16x4x4xf16>, %s: tensor<4x4xf16>) -> tensor<1x16x4x4xf16> {
  %m = ge.mul %x, %s : (tensor<1x16x4x4xf16>, tensor<4x4xf16>) -> tensor<1x16x4x4xf16>
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %m, %w pads [1, 1, 1, 1] : tensor<1x16x4x4xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x4x4xf16>
  func.return %y : tensor<1x16x4x4xf16>
}

// -----

// ---- Concat ----------------------------------------------------------------------------------
//
// Channel concat whose first input is C0-aligned (16 channels) and last is not (8): it stays in
// NC1HWC0, and one conversion of its result (24 channels, 32 stored) moves as many bytes as one
// of each input (16 + 8 channels, 16 + 16 stored) in one trans_data instead of two.
// CHECK-LABEL: func.func @concat_c_aligned(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>) -> tensor<1x24x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[V2:.*]] = ge.const #ge.elided : tensor<8x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[A:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[B:.*]] = ge.conv2d %[[V0]], %[[V2]] pads [1, 1, 1, 1] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<8x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[C:.*]] = ge.concat %[[A]], %[[B]] axis 1 : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x8x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x24x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[C]] : tensor<1x24x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x24x2x2xf16>
// CHECK-NEXT:    func.return %[[V3]] : tensor<1x24x2x2xf16>
// CHECK-NEXT:  }
func.func @concat_c_aligned(%x: tensor<1x16x2x2xf16>) -> tensor<1x24x2x2xf16> {
  %w1 = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %w2 = ge.const dense<1.0> : tensor<8x16x3x3xf16>
  %a = ge.conv2d %x, %w1 pads [1, 1, 1, 1] : tensor<1x16x2x2xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x2x2xf16>
  %b = ge.conv2d %x, %w2 pads [1, 1, 1, 1] : tensor<1x16x2x2xf16>, tensor<8x16x3x3xf16> -> tensor<1x8x2x2xf16>
  %c = ge.concat %a, %b axis 1 : tensor<1x16x2x2xf16>, tensor<1x8x2x2xf16> -> tensor<1x24x2x2xf16>
  func.return %c : tensor<1x24x2x2xf16>
}

// -----

// The same inputs the other way round: the first (8 channels) is not aligned, so the concat runs
// in NCHW and each conv result is converted back before it.
// CHECK-LABEL: func.func @concat_c_unaligned(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>) -> tensor<1x24x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[V2:.*]] = ge.const #ge.elided : tensor<8x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[A:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[A]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    %[[B:.*]] = ge.conv2d %[[V0]], %[[V2]] pads [1, 1, 1, 1] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<8x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V4:.*]] = ge.trans_data %[[B]] : tensor<1x8x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x8x2x2xf16>
// CHECK-NEXT:    %[[C:.*]] = ge.concat %[[V4]], %[[V3]] axis 1 : tensor<1x8x2x2xf16>, tensor<1x16x2x2xf16> -> tensor<1x24x2x2xf16>
// CHECK-NEXT:    func.return %[[C]] : tensor<1x24x2x2xf16>
// CHECK-NEXT:  }
func.func @concat_c_unaligned(%x: tensor<1x16x2x2xf16>) -> tensor<1x24x2x2xf16> {
  %w1 = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %w2 = ge.const dense<1.0> : tensor<8x16x3x3xf16>
  %a = ge.conv2d %x, %w1 pads [1, 1, 1, 1] : tensor<1x16x2x2xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x2x2xf16>
  %b = ge.conv2d %x, %w2 pads [1, 1, 1, 1] : tensor<1x16x2x2xf16>, tensor<8x16x3x3xf16> -> tensor<1x8x2x2xf16>
  %c = ge.concat %b, %a axis 1 : tensor<1x8x2x2xf16>, tensor<1x16x2x2xf16> -> tensor<1x24x2x2xf16>
  func.return %c : tensor<1x24x2x2xf16>
}

// -----

// Three inputs, 16 + 16 + 17 channels: only the last is unaligned, so the concat may run in
// NC1HWC0, but then %z and the result (49 channels) need conversions; converting the conv
// result (16 channels) back is cheaper, so the concat runs in NCHW.
// CHECK-LABEL: func.func @concat_c_three(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>, %[[Z:.*]]: tensor<1x17x2x2xf16>) -> tensor<1x49x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[A:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[A]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    %[[C:.*]] = ge.concat %[[V2]], %[[X]], %[[Z]] axis 1 : tensor<1x16x2x2xf16>, tensor<1x16x2x2xf16>, tensor<1x17x2x2xf16> -> tensor<1x49x2x2xf16>
// CHECK-NEXT:    func.return %[[C]] : tensor<1x49x2x2xf16>
// CHECK-NEXT:  }
func.func @concat_c_three(%x: tensor<1x16x2x2xf16>, %z: tensor<1x17x2x2xf16>) -> tensor<1x49x2x2xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %a = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x2x2xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x2x2xf16>
  %c = ge.concat %a, %x, %z axis 1 : tensor<1x16x2x2xf16>, tensor<1x16x2x2xf16>, tensor<1x17x2x2xf16> -> tensor<1x49x2x2xf16>
  func.return %c : tensor<1x49x2x2xf16>
}

// -----

// An aligned channel concat of graph inputs feeding a conv: converting its inputs (16 + 8
// channels, 16 + 16 stored) moves as many bytes as converting its result (24 channels, 32
// stored), in two conversions instead of one, so the conversion follows the concat.
// CHECK-LABEL: func.func @concat_c_aligned_backward(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>, %[[Y:.*]]: tensor<1x8x2x2xf16>) -> tensor<1x16x2x2xf16> {
// CHECK-NEXT:    %[[C:.*]] = ge.concat %[[X]], %[[Y]] axis 1 : tensor<1x16x2x2xf16>, tensor<1x8x2x2xf16> -> tensor<1x24x2x2xf16>
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[C]] : tensor<1x24x2x2xf16> -> tensor<1x24x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x24x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[A:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x24x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x24x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[A]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x16x2x2xf16>
// CHECK-NEXT:  }
func.func @concat_c_aligned_backward(%x: tensor<1x16x2x2xf16>, %y: tensor<1x8x2x2xf16>) -> tensor<1x16x2x2xf16> {
  %c = ge.concat %x, %y axis 1 : tensor<1x16x2x2xf16>, tensor<1x8x2x2xf16> -> tensor<1x24x2x2xf16>
  %w = ge.const dense<1.0> : tensor<16x24x3x3xf16>
  %a = ge.conv2d %c, %w pads [1, 1, 1, 1] : tensor<1x24x2x2xf16>, tensor<16x24x3x3xf16> -> tensor<1x16x2x2xf16>
  func.return %a : tensor<1x16x2x2xf16>
}

// -----

// Backward, unaligned (8 + 16): the concat stays NCHW and the trans_data follows it.
// CHECK-LABEL: func.func @concat_c_unaligned_backward(
// CHECK-SAME:  %[[X:.*]]: tensor<1x8x2x2xf16>, %[[Y:.*]]: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
// CHECK-NEXT:    %[[C:.*]] = ge.concat %[[X]], %[[Y]] axis 1 : tensor<1x8x2x2xf16>, tensor<1x16x2x2xf16> -> tensor<1x24x2x2xf16>
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[C]] : tensor<1x24x2x2xf16> -> tensor<1x24x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x24x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[A:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x24x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x24x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[A]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x16x2x2xf16>
// CHECK-NEXT:  }
func.func @concat_c_unaligned_backward(%x: tensor<1x8x2x2xf16>, %y: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
  %c = ge.concat %x, %y axis 1 : tensor<1x8x2x2xf16>, tensor<1x16x2x2xf16> -> tensor<1x24x2x2xf16>
  %w = ge.const dense<1.0> : tensor<16x24x3x3xf16>
  %a = ge.conv2d %c, %w pads [1, 1, 1, 1] : tensor<1x24x2x2xf16>, tensor<16x24x3x3xf16> -> tensor<1x16x2x2xf16>
  func.return %a : tensor<1x16x2x2xf16>
}

// -----

// A concat on H may run in NC1HWC0 even with 17 (unaligned) channels, but here its result
// (twice the conv's) is returned: converting the conv result is cheaper.
// CHECK-LABEL: func.func @concat_h(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x2x2xf16>) -> tensor<1x17x4x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x17x2x2xf16> -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[A:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[A]] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x17x2x2xf16>
// CHECK-NEXT:    %[[C:.*]] = ge.concat %[[V2]], %[[X]] axis 2 : tensor<1x17x2x2xf16>, tensor<1x17x2x2xf16> -> tensor<1x17x4x2xf16>
// CHECK-NEXT:    func.return %[[C]] : tensor<1x17x4x2xf16>
// CHECK-NEXT:  }
func.func @concat_h(%x: tensor<1x17x2x2xf16>) -> tensor<1x17x4x2xf16> {
  %w = ge.const dense<1.0> : tensor<17x17x3x3xf16>
  %a = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x17x2x2xf16>, tensor<17x17x3x3xf16> -> tensor<1x17x2x2xf16>
  %c = ge.concat %a, %x axis 2 : tensor<1x17x2x2xf16>, tensor<1x17x2x2xf16> -> tensor<1x17x4x2xf16>
  func.return %c : tensor<1x17x4x2xf16>
}

// -----

// A concat on W with a constant input: converting the conv result is cheaper than the
// concat's (twice the size), so the concat runs in NCHW and the constant stays as it is.
// CHECK-LABEL: func.func @concat_w_constant(
// CHECK-SAME:  %[[X:.*]]: tensor<1x3x1x1xf16>) -> tensor<1x3x1x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x3x1x1xf16> -> tensor<1x3x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<3x3x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[K:.*]] = ge.const dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]], {{\[\[}}3.000000e+00]]]]> : tensor<1x3x1x1xf16>
// CHECK-NEXT:    %[[A:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x3x1x1xf16, #ge.format<NC1HWC0>>, tensor<3x3x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x3x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[A]] : tensor<1x3x1x1xf16, #ge.format<NC1HWC0>> -> tensor<1x3x1x1xf16>
// CHECK-NEXT:    %[[C:.*]] = ge.concat %[[V2]], %[[K]] axis 3 : tensor<1x3x1x1xf16>, tensor<1x3x1x1xf16> -> tensor<1x3x1x2xf16>
// CHECK-NEXT:    func.return %[[C]] : tensor<1x3x1x2xf16>
// CHECK-NEXT:  }
func.func @concat_w_constant(%x: tensor<1x3x1x1xf16>) -> tensor<1x3x1x2xf16> {
  %w = ge.const dense<1.0> : tensor<3x3x3x3xf16>
  %k = ge.const dense<[[[[1.0]], [[2.0]], [[3.0]]]]> : tensor<1x3x1x1xf16>
  %a = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x3x1x1xf16>, tensor<3x3x3x3xf16> -> tensor<1x3x1x1xf16>
  %c = ge.concat %a, %k axis 3 : tensor<1x3x1x1xf16>, tensor<1x3x1x1xf16> -> tensor<1x3x1x2xf16>
  func.return %c : tensor<1x3x1x2xf16>
}

// -----

// A concat on N of one value with itself: one conversion of that value before it.
// CHECK-LABEL: func.func @concat_n(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x2x2xf16>) -> tensor<2x17x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x17x2x2xf16> -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[A:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[A]] : tensor<1x17x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x17x2x2xf16>
// CHECK-NEXT:    %[[C:.*]] = ge.concat %[[V2]], %[[V2]] axis 0 : tensor<1x17x2x2xf16>, tensor<1x17x2x2xf16> -> tensor<2x17x2x2xf16>
// CHECK-NEXT:    func.return %[[C]] : tensor<2x17x2x2xf16>
// CHECK-NEXT:  }
func.func @concat_n(%x: tensor<1x17x2x2xf16>) -> tensor<2x17x2x2xf16> {
  %w = ge.const dense<1.0> : tensor<17x17x3x3xf16>
  %a = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x17x2x2xf16>, tensor<17x17x3x3xf16> -> tensor<1x17x2x2xf16>
  %c = ge.concat %a, %a axis 0 : tensor<1x17x2x2xf16>, tensor<1x17x2x2xf16> -> tensor<2x17x2x2xf16>
  func.return %c : tensor<2x17x2x2xf16>
}

// -----

// A standalone concat (no conv neighbour) is left alone, aligned or not.
// CHECK-LABEL: func.func @concat_standalone(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>, %[[Y:.*]]: tensor<1x8x2x2xf16>) -> tensor<1x24x2x2xf16> {
// CHECK-NEXT:    %[[C:.*]] = ge.concat %[[X]], %[[Y]] axis 1 : tensor<1x16x2x2xf16>, tensor<1x8x2x2xf16> -> tensor<1x24x2x2xf16>
// CHECK-NEXT:    func.return %[[C]] : tensor<1x24x2x2xf16>
// CHECK-NEXT:  }
func.func @concat_standalone(%x: tensor<1x16x2x2xf16>, %y: tensor<1x8x2x2xf16>) -> tensor<1x24x2x2xf16> {
  %c = ge.concat %x, %y axis 1 : tensor<1x16x2x2xf16>, tensor<1x8x2x2xf16> -> tensor<1x24x2x2xf16>
  func.return %c : tensor<1x24x2x2xf16>
}
