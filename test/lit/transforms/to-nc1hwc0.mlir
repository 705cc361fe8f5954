// --to-nc1hwc0 with its default options (boundary=keep, fp32-c0=16): which ops run in NC1HWC0,
// the FRACTAL_Z weights of convolutions, where ge.trans_data is placed, constants converted at
// compile time, and the cancellation and merging of conversions.  Broadcasting elementwise ops
// and concat alignment are in to-nc1hwc0-broadcast.mlir, the options in to-nc1hwc0-options.mlir.
//
// Constants of more than 32 elements are elided; the small ones that the pass converts are
// pinned with hand-computed physical values.  In the hex form of a dense value each f16 is
// little-endian, so 1.0 (0x3C00) is written 003C, 2.0 is 0040, 3.0 is 0042, 4.0 is 0044, 5.0 is 0045,
// 6.0 is 0046, 7.0 is 0047 and 8.0 is 0048.
// RUN: ge-opt %s --split-input-file --to-nc1hwc0 --elide-constants-if-larger=32 | filecheck %s
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)

// ---- Sources: convolutions and their weights ----------------------------------------------
//
// A conv whose channels are multiples of C0 = 16 (f16): input and result NC1HWC0, weight
// FRACTAL_Z.  Graph input and output keep their declared NCHW layout: one trans_data each.
// CHECK-LABEL: func.func @conv_channels_aligned(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16>) -> tensor<1x32x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<32x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<32x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x32x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x32x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x32x4x4xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x32x4x4xf16>
// CHECK-NEXT:  }
func.func @conv_channels_aligned(%x: tensor<1x16x4x4xf16>) -> tensor<1x32x4x4xf16> {
  %w = ge.const dense<1.0> : tensor<32x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x4x4xf16>, tensor<32x16x3x3xf16> -> tensor<1x32x4x4xf16>
  func.return %y : tensor<1x32x4x4xf16>
}

// -----

// Channels that are not multiples of C0 (17 = 16 + 1, stored as C1 = 2 blocks with padding
// lanes) convert the same way; the relu after the conv joins it in NC1HWC0.
// CHECK-LABEL: func.func @conv_channels_unaligned(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x4x4xf16>) -> tensor<1x17x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x17x4x4xf16> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[Y]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[R]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x17x4x4xf16>
// CHECK-NEXT:  }
func.func @conv_channels_unaligned(%x: tensor<1x17x4x4xf16>) -> tensor<1x17x4x4xf16> {
  %w = ge.const dense<1.0> : tensor<17x17x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x17x4x4xf16>, tensor<17x17x3x3xf16> -> tensor<1x17x4x4xf16>
  %r = ge.relu %y : tensor<1x17x4x4xf16>
  func.return %r : tensor<1x17x4x4xf16>
}

// -----

// The weight is converted at compile time into a FRACTAL_Z constant of physical shape
// [C1*H*W, ceil(N/16), 16, C0] = [1, 1, 16, 16]: element FZ[0][0][n][c] = W[n][c][0][0], so
// W[0] = 1.0 lands at flat index 0 and W[1] = 2.0 at index 16; the other 254 lanes are zero.
// CHECK-LABEL: func.func @conv_weight_fractal_z(
// CHECK-SAME:  %[[X:.*]]: tensor<1x1x2x2xf16>) -> tensor<1x2x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x1x2x2xf16> -> tensor<1x1x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const dense<"0x{{003C(0000){15}0040(0000){239}"}}> : tensor<1x1x16x16xf16> -> tensor<2x1x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] : tensor<1x1x2x2xf16, #ge.format<NC1HWC0>>, tensor<2x1x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x2x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x2x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x2x2x2xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x2x2x2xf16>
// CHECK-NEXT:  }
func.func @conv_weight_fractal_z(%x: tensor<1x1x2x2xf16>) -> tensor<1x2x2x2xf16> {
  %w = ge.const dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf16>
  %y = ge.conv2d %x, %w : tensor<1x1x2x2xf16>, tensor<2x1x1x1xf16> -> tensor<1x2x2x2xf16>
  func.return %y : tensor<1x2x2x2xf16>
}

// -----

// f32 uses C0 = 16 by default (the encoding omits it); the bias stays a rank-1 ND constant.
// CHECK-LABEL: func.func @conv_f32_bias(
// CHECK-SAME:  %[[X:.*]]: tensor<1x3x4x4xf32>) -> tensor<1x5x2x2xf32> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<5x3x3x3xf32, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00]> : tensor<5xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] bias %[[B]] strides [2, 2] pads [1, 1, 1, 1] : tensor<1x3x4x4xf32, #ge.format<NC1HWC0>>, tensor<5x3x3x3xf32, #ge.format<FRACTAL_Z>>, tensor<5xf32> -> tensor<1x5x2x2xf32, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x5x2x2xf32, #ge.format<NC1HWC0>> -> tensor<1x5x2x2xf32>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x5x2x2xf32>
// CHECK-NEXT:  }
func.func @conv_f32_bias(%x: tensor<1x3x4x4xf32>) -> tensor<1x5x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<5x3x3x3xf32>
  %b = ge.const dense<[1.0, 2.0, 3.0, 4.0, 5.0]> : tensor<5xf32>
  %y = ge.conv2d %x, %w bias %b strides [2, 2] pads [1, 1, 1, 1] : tensor<1x3x4x4xf32>, tensor<5x3x3x3xf32>, tensor<5xf32> -> tensor<1x5x2x2xf32>
  func.return %y : tensor<1x5x2x2xf32>
}

// -----

// A fused conv takes its input and its residual in NC1HWC0 (the bias stays ND).
// CHECK-LABEL: func.func @fused_conv_residual(
// CHECK-SAME:  %[[X:.*]]: tensor<1x8x4x4xf16>, %[[RES:.*]]: tensor<1x8x4x4xf16>) -> tensor<1x8x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[RES]] : tensor<1x8x4x4xf16> -> tensor<1x8x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.trans_data %[[X]] : tensor<1x8x4x4xf16> -> tensor<1x8x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.const #ge.elided : tensor<8x8x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<5.000000e-01> : tensor<8xf16>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[V1]], %[[V2]] bias %[[B]] residual %[[V0]] activation relu pads [1, 1, 1, 1] : tensor<1x8x4x4xf16, #ge.format<NC1HWC0>>, tensor<8x8x3x3xf16, #ge.format<FRACTAL_Z>>, tensor<8xf16> -> tensor<1x8x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[Y]] : tensor<1x8x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x8x4x4xf16>
// CHECK-NEXT:    func.return %[[V3]] : tensor<1x8x4x4xf16>
// CHECK-NEXT:  }
func.func @fused_conv_residual(%x: tensor<1x8x4x4xf16>, %res: tensor<1x8x4x4xf16>) -> tensor<1x8x4x4xf16> {
  %w = ge.const dense<1.0> : tensor<8x8x3x3xf16>
  %b = ge.const dense<5.0e-01> : tensor<8xf16>
  %y = ge.fused_conv2d %x, %w bias %b residual %res activation relu pads [1, 1, 1, 1] : tensor<1x8x4x4xf16>, tensor<8x8x3x3xf16>, tensor<8xf16> -> tensor<1x8x4x4xf16>
  func.return %y : tensor<1x8x4x4xf16>
}

// -----

// A grouped conv (groups = 2, 4 input and 4 output channels per group) gets a grouped
// FRACTAL_Z weight: e_mult = min(lcm(lcm(4, 16)/4, lcm(4, 16)/4), 2) = 2 groups share one
// 16x16 tile, group g on the diagonal block at rows (output channels) and columns (input
// channels) 4g..4g+3.  W[o][0] = o + 1, the rest 0, so output channel o has its value in column
// 0 (o < 4) or 4 (o >= 4): row o starts at flat index 16*o, plus 4 for the second group.
// CHECK-LABEL: func.func @grouped_conv_weight(
// CHECK-SAME:  %[[X:.*]]: tensor<1x8x2x2xf16>) -> tensor<1x8x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x8x2x2xf16> -> tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const dense<"0x{{003C(0000){15}0040(0000){15}0042(0000){15}0044(0000){19}0045(0000){15}0046(0000){15}0047(0000){15}0048(0000){139}"}}> : tensor<1x1x16x16xf16> -> tensor<8x4x1x1xf16, #ge.format<FRACTAL_Z, groups = 2>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] groups 2 : tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>, tensor<8x4x1x1xf16, #ge.format<FRACTAL_Z, groups = 2>> -> tensor<1x8x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x8x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x8x2x2xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x8x2x2xf16>
// CHECK-NEXT:  }
func.func @grouped_conv_weight(%x: tensor<1x8x2x2xf16>) -> tensor<1x8x2x2xf16> {
  %w = ge.const dense<[[[[1.0]], [[0.0]], [[0.0]], [[0.0]]], [[[2.0]], [[0.0]], [[0.0]], [[0.0]]], [[[3.0]], [[0.0]], [[0.0]], [[0.0]]], [[[4.0]], [[0.0]], [[0.0]], [[0.0]]], [[[5.0]], [[0.0]], [[0.0]], [[0.0]]], [[[6.0]], [[0.0]], [[0.0]], [[0.0]]], [[[7.0]], [[0.0]], [[0.0]], [[0.0]]], [[[8.0]], [[0.0]], [[0.0]], [[0.0]]]]> : tensor<8x4x1x1xf16>
  %y = ge.conv2d %x, %w groups 2 : tensor<1x8x2x2xf16>, tensor<8x4x1x1xf16> -> tensor<1x8x2x2xf16>
  func.return %y : tensor<1x8x2x2xf16>
}

// -----

// A depthwise conv (groups = channels = 2, one input channel per group): e_mult = 2, channel g
// sits on the diagonal of one tile, W[0] = 1.0 at flat index 0 and W[1] = 2.0 at 1*16 + 1 = 17.
// CHECK-LABEL: func.func @depthwise_conv_weight(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf16>) -> tensor<1x2x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x2x2x2xf16> -> tensor<1x2x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const dense<"0x{{003C(0000){16}0040(0000){238}"}}> : tensor<1x1x16x16xf16> -> tensor<2x1x1x1xf16, #ge.format<FRACTAL_Z, groups = 2>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] groups 2 : tensor<1x2x2x2xf16, #ge.format<NC1HWC0>>, tensor<2x1x1x1xf16, #ge.format<FRACTAL_Z, groups = 2>> -> tensor<1x2x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x2x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x2x2x2xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x2x2x2xf16>
// CHECK-NEXT:  }
func.func @depthwise_conv_weight(%x: tensor<1x2x2x2xf16>) -> tensor<1x2x2x2xf16> {
  %w = ge.const dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf16>
  %y = ge.conv2d %x, %w groups 2 : tensor<1x2x2x2xf16>, tensor<2x1x1x1xf16> -> tensor<1x2x2x2xf16>
  func.return %y : tensor<1x2x2x2xf16>
}

// -----

// A 3x3 depthwise conv over 32 channels: FRACTAL_Z with groups = 32.
// CHECK-LABEL: func.func @depthwise_conv_3x3(
// CHECK-SAME:  %[[X:.*]]: tensor<1x32x4x4xf16>) -> tensor<1x32x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x32x4x4xf16> -> tensor<1x32x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<32x1x3x3xf16, #ge.format<FRACTAL_Z, groups = 32>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] groups 32 : tensor<1x32x4x4xf16, #ge.format<NC1HWC0>>, tensor<32x1x3x3xf16, #ge.format<FRACTAL_Z, groups = 32>> -> tensor<1x32x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x32x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x32x4x4xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x32x4x4xf16>
// CHECK-NEXT:  }
func.func @depthwise_conv_3x3(%x: tensor<1x32x4x4xf16>) -> tensor<1x32x4x4xf16> {
  %w = ge.const dense<1.0> : tensor<32x1x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] groups 32 : tensor<1x32x4x4xf16>, tensor<32x1x3x3xf16> -> tensor<1x32x4x4xf16>
  func.return %y : tensor<1x32x4x4xf16>
}

// -----

// A weight that is not a constant (a graph input) is converted to FRACTAL_Z by a trans_data.
// CHECK-LABEL: func.func @weight_from_argument(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x4x4xf16>, %[[W:.*]]: tensor<17x17x1x1xf16>) -> tensor<1x17x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[W]] : tensor<17x17x1x1xf16> -> tensor<17x17x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[V1:.*]] = ge.trans_data %[[X]] : tensor<1x17x4x4xf16> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V1]], %[[V0]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<17x17x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x17x4x4xf16>
// CHECK-NEXT:  }
func.func @weight_from_argument(%x: tensor<1x17x4x4xf16>, %w: tensor<17x17x1x1xf16>) -> tensor<1x17x4x4xf16> {
  %y = ge.conv2d %x, %w : tensor<1x17x4x4xf16>, tensor<17x17x1x1xf16> -> tensor<1x17x4x4xf16>
  func.return %y : tensor<1x17x4x4xf16>
}

// -----

// An input already declared NC1HWC0 feeds the conv directly; the output keeps its declared
// NCHW layout (boundary=keep).
// CHECK-LABEL: func.func @declared_nc1hwc0_input(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>) -> tensor<1x17x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.const #ge.elided : tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[X]], %[[V0]] pads [1, 1, 1, 1] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.trans_data %[[Y]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16>
// CHECK-NEXT:    func.return %[[V1]] : tensor<1x17x4x4xf16>
// CHECK-NEXT:  }
func.func @declared_nc1hwc0_input(%x: tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>) -> tensor<1x17x4x4xf16> {
  %w = ge.const dense<1.0> : tensor<17x17x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<17x17x3x3xf16> -> tensor<1x17x4x4xf16>
  func.return %y : tensor<1x17x4x4xf16>
}

// -----

// ---- Propagation -----------------------------------------------------------------------------
//
// Every activation, clip and identity after a conv stays in NC1HWC0: a single trans_data at
// the graph output.
// CHECK-LABEL: func.func @activation_chain(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[A:.*]] = ge.relu %[[Y]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[B:.*]] = ge.relu6 %[[A]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[C:.*]] = ge.leaky_relu %[[B]] alpha 1.000000e-01 : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[D:.*]] = ge.sigmoid %[[C]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[E:.*]] = ge.silu %[[D]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[F:.*]] = ge.clip %[[E]] min -1.000000e+00 max 1.000000e+00 : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[G:.*]] = ge.identity %[[F]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[G]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x16x4x4xf16>
// CHECK-NEXT:  }
func.func @activation_chain(%x: tensor<1x16x4x4xf16>) -> tensor<1x16x4x4xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x4x4xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x4x4xf16>
  %a = ge.relu %y : tensor<1x16x4x4xf16>
  %b = ge.relu6 %a : tensor<1x16x4x4xf16>
  %c = ge.leaky_relu %b alpha 0.1 : tensor<1x16x4x4xf16>
  %d = ge.sigmoid %c : tensor<1x16x4x4xf16>
  %e = ge.silu %d : tensor<1x16x4x4xf16>
  %f = ge.clip %e min -1.0 max 1.0 : tensor<1x16x4x4xf16>
  %g = ge.identity %f : tensor<1x16x4x4xf16>
  func.return %g : tensor<1x16x4x4xf16>
}

// -----

// Batch norm (its parameters stay rank-1) and pooling after a conv stay in NC1HWC0.
// CHECK-LABEL: func.func @batch_norm_and_pools(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16>, %[[P:.*]]: tensor<16xf32>) -> tensor<1x16x1x1xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[BN:.*]] = ge.batch_norm %[[Y]], %[[P]], %[[P]], %[[P]], %[[P]] : (tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[M:.*]] = ge.max_pool %[[BN]] kernel [2, 2] strides [2, 2] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[A:.*]] = ge.avg_pool %[[M]] kernel [2, 2] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[G:.*]] = ge.global_avg_pool %[[A]] : tensor<1x16x1x1xf16, #ge.format<NC1HWC0>> -> tensor<1x16x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[G]] : tensor<1x16x1x1xf16, #ge.format<NC1HWC0>> -> tensor<1x16x1x1xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x16x1x1xf16>
// CHECK-NEXT:  }
func.func @batch_norm_and_pools(%x: tensor<1x16x4x4xf16>, %p: tensor<16xf32>) -> tensor<1x16x1x1xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x4x4xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x4x4xf16>
  %bn = ge.batch_norm %y, %p, %p, %p, %p : (tensor<1x16x4x4xf16>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>, tensor<16xf32>) -> tensor<1x16x4x4xf16>
  %m = ge.max_pool %bn kernel [2, 2] strides [2, 2] : tensor<1x16x4x4xf16> -> tensor<1x16x2x2xf16>
  %a = ge.avg_pool %m kernel [2, 2] : tensor<1x16x2x2xf16> -> tensor<1x16x1x1xf16>
  %g = ge.global_avg_pool %a : tensor<1x16x1x1xf16> -> tensor<1x16x1x1xf16>
  func.return %g : tensor<1x16x1x1xf16>
}

// -----

// A standalone pool at a graph edge (no conv anywhere) is not converted; neither are the
// other format-agnostic ops.
// CHECK-LABEL: func.func @standalone_ops(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16>, %[[P:.*]]: tensor<16xf16>) -> tensor<1x16x2x2xf16> {
// CHECK-NEXT:    %[[M:.*]] = ge.max_pool %[[X]] kernel [2, 2] strides [2, 2] : tensor<1x16x4x4xf16> -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    %[[BN:.*]] = ge.batch_norm %[[M]], %[[P]], %[[P]], %[[P]], %[[P]] : (tensor<1x16x2x2xf16>, tensor<16xf16>, tensor<16xf16>, tensor<16xf16>, tensor<16xf16>) -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[BN]] : tensor<1x16x2x2xf16>
// CHECK-NEXT:    %[[S:.*]] = ge.add %[[R]], %[[R]] : (tensor<1x16x2x2xf16>, tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    func.return %[[S]] : tensor<1x16x2x2xf16>
// CHECK-NEXT:  }
func.func @standalone_ops(%x: tensor<1x16x4x4xf16>, %p: tensor<16xf16>) -> tensor<1x16x2x2xf16> {
  %m = ge.max_pool %x kernel [2, 2] strides [2, 2] : tensor<1x16x4x4xf16> -> tensor<1x16x2x2xf16>
  %bn = ge.batch_norm %m, %p, %p, %p, %p : (tensor<1x16x2x2xf16>, tensor<16xf16>, tensor<16xf16>, tensor<16xf16>, tensor<16xf16>) -> tensor<1x16x2x2xf16>
  %r = ge.relu %bn : tensor<1x16x2x2xf16>
  %s = ge.add %r, %r : (tensor<1x16x2x2xf16>, tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16>
  func.return %s : tensor<1x16x2x2xf16>
}

// -----

// Backward propagation: the relu whose only user is a conv joins it; the max_pool could too,
// but its input (1x16x4x4) is four times its result, so the single trans_data sits after it.
// CHECK-LABEL: func.func @backward_into_pool(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16>) -> tensor<1x16x2x2xf16> {
// CHECK-NEXT:    %[[M:.*]] = ge.max_pool %[[X]] kernel [2, 2] strides [2, 2] : tensor<1x16x4x4xf16> -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[M]] : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[V0]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[R]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x16x2x2xf16>
// CHECK-NEXT:  }
func.func @backward_into_pool(%x: tensor<1x16x4x4xf16>) -> tensor<1x16x2x2xf16> {
  %m = ge.max_pool %x kernel [2, 2] strides [2, 2] : tensor<1x16x4x4xf16> -> tensor<1x16x2x2xf16>
  %r = ge.relu %m : tensor<1x16x2x2xf16>
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %r, %w pads [1, 1, 1, 1] : tensor<1x16x2x2xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x2x2xf16>
  func.return %y : tensor<1x16x2x2xf16>
}

// -----

// A relu that also feeds a flatten does not join the conv: the conversion stays after it.
// CHECK-LABEL: func.func @backward_blocked_by_flatten(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16>) -> (tensor<1x16x4x4xf16>, tensor<1x256xf16>) {
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[X]] : tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[R]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[F:.*]] = ge.flatten %[[R]] : tensor<1x16x4x4xf16> -> tensor<1x256xf16>
// CHECK-NEXT:    func.return %[[V2]], %[[F]] : tensor<1x16x4x4xf16>, tensor<1x256xf16>
// CHECK-NEXT:  }
func.func @backward_blocked_by_flatten(%x: tensor<1x16x4x4xf16>) -> (tensor<1x16x4x4xf16>, tensor<1x256xf16>) {
  %r = ge.relu %x : tensor<1x16x4x4xf16>
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %r, %w pads [1, 1, 1, 1] : tensor<1x16x4x4xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x4x4xf16>
  %f = ge.flatten %r : tensor<1x16x4x4xf16> -> tensor<1x256xf16>
  func.return %y, %f : tensor<1x16x4x4xf16>, tensor<1x256xf16>
}

// -----

// An add of two NC1HWC0 values of the same logical shape (a residual connection) stays in
// NC1HWC0.  The mul whose other operand is a graph input could too, but that costs two
// conversions (the input in, the result out) where one of the add's result suffices.
// CHECK-LABEL: func.func @elementwise_same_shape(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x4x4xf16>, %[[SKIP:.*]]: tensor<1x17x4x4xf16>) -> tensor<1x17x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x17x4x4xf16> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y1:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Y2:.*]] = ge.conv2d %[[Y1]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[S:.*]] = ge.add %[[Y1]], %[[Y2]] : (tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>) -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[S]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16>
// CHECK-NEXT:    %[[M:.*]] = ge.mul %[[V2]], %[[SKIP]] : (tensor<1x17x4x4xf16>, tensor<1x17x4x4xf16>) -> tensor<1x17x4x4xf16>
// CHECK-NEXT:    func.return %[[M]] : tensor<1x17x4x4xf16>
// CHECK-NEXT:  }
func.func @elementwise_same_shape(%x: tensor<1x17x4x4xf16>, %skip: tensor<1x17x4x4xf16>) -> tensor<1x17x4x4xf16> {
  %w = ge.const dense<1.0> : tensor<17x17x3x3xf16>
  %y1 = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x17x4x4xf16>, tensor<17x17x3x3xf16> -> tensor<1x17x4x4xf16>
  %y2 = ge.conv2d %y1, %w pads [1, 1, 1, 1] : tensor<1x17x4x4xf16>, tensor<17x17x3x3xf16> -> tensor<1x17x4x4xf16>
  %s = ge.add %y1, %y2 : (tensor<1x17x4x4xf16>, tensor<1x17x4x4xf16>) -> tensor<1x17x4x4xf16>
  %m = ge.mul %s, %skip : (tensor<1x17x4x4xf16>, tensor<1x17x4x4xf16>) -> tensor<1x17x4x4xf16>
  func.return %m : tensor<1x17x4x4xf16>
}

// -----

// ---- TransData placement --------------------------------------------------------------------
//
// A flatten after a 5-D region: the trans_data back to NCHW sits right before the flatten; the
// matmul and softmax after it run on default-layout tensors.
// CHECK-LABEL: func.func @flatten_after_region(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x4x4xf16>, %[[FC:.*]]: tensor<16x10xf16>) -> tensor<1x10xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x4x4xf16> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[Y]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[G:.*]] = ge.global_avg_pool %[[R]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[G]] : tensor<1x16x1x1xf16, #ge.format<NC1HWC0>> -> tensor<1x16x1x1xf16>
// CHECK-NEXT:    %[[F:.*]] = ge.flatten %[[V2]] : tensor<1x16x1x1xf16> -> tensor<1x16xf16>
// CHECK-NEXT:    %[[Z:.*]] = ge.matmul %[[F]], %[[FC]] : tensor<1x16xf16>, tensor<16x10xf16> -> tensor<1x10xf16>
// CHECK-NEXT:    %[[S:.*]] = ge.softmax %[[Z]] axis 1 : tensor<1x10xf16>
// CHECK-NEXT:    func.return %[[S]] : tensor<1x10xf16>
// CHECK-NEXT:  }
func.func @flatten_after_region(%x: tensor<1x16x4x4xf16>, %fc: tensor<16x10xf16>) -> tensor<1x10xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x4x4xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x4x4xf16>
  %r = ge.relu %y : tensor<1x16x4x4xf16>
  %g = ge.global_avg_pool %r : tensor<1x16x4x4xf16> -> tensor<1x16x1x1xf16>
  %f = ge.flatten %g : tensor<1x16x1x1xf16> -> tensor<1x16xf16>
  %z = ge.matmul %f, %fc : tensor<1x16xf16>, tensor<16x10xf16> -> tensor<1x10xf16>
  %s = ge.softmax %z axis 1 : tensor<1x10xf16>
  func.return %s : tensor<1x10xf16>
}

// -----

// Reshape, flatten, softmax, transpose and the graph output all need NCHW: they share one
// trans_data (sibling conversions of one value are one op).
// CHECK-LABEL: func.func @consumers_share_one_conversion(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>) -> (tensor<1x64xf16>, tensor<1x16x4xf16>, tensor<1x16x2x2xf16>, tensor<1x2x2x16xf16>, tensor<1x16x2x2xf16>) {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    %[[F:.*]] = ge.flatten %[[V2]] : tensor<1x16x2x2xf16> -> tensor<1x64xf16>
// CHECK-NEXT:    %[[R:.*]] = ge.reshape %[[V2]] : tensor<1x16x2x2xf16> -> tensor<1x16x4xf16>
// CHECK-NEXT:    %[[S:.*]] = ge.softmax %[[V2]] axis 1 : tensor<1x16x2x2xf16>
// CHECK-NEXT:    %[[T:.*]] = ge.transpose %[[V2]] perm [0, 2, 3, 1] : tensor<1x16x2x2xf16> -> tensor<1x2x2x16xf16>
// CHECK-NEXT:    func.return %[[F]], %[[R]], %[[S]], %[[T]], %[[V2]] : tensor<1x64xf16>, tensor<1x16x4xf16>, tensor<1x16x2x2xf16>, tensor<1x2x2x16xf16>, tensor<1x16x2x2xf16>
// CHECK-NEXT:  }
func.func @consumers_share_one_conversion(%x: tensor<1x16x2x2xf16>) -> (tensor<1x64xf16>, tensor<1x16x4xf16>, tensor<1x16x2x2xf16>, tensor<1x2x2x16xf16>, tensor<1x16x2x2xf16>) {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x2x2xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x2x2xf16>
  %f = ge.flatten %y : tensor<1x16x2x2xf16> -> tensor<1x64xf16>
  %r = ge.reshape %y : tensor<1x16x2x2xf16> -> tensor<1x16x4xf16>
  %s = ge.softmax %y axis 1 : tensor<1x16x2x2xf16>
  %t = ge.transpose %y perm [0, 2, 3, 1] : tensor<1x16x2x2xf16> -> tensor<1x2x2x16xf16>
  func.return %f, %r, %s, %t, %y : tensor<1x64xf16>, tensor<1x16x4xf16>, tensor<1x16x2x2xf16>, tensor<1x2x2x16xf16>, tensor<1x16x2x2xf16>
}

// -----

// A transpose between two convs leaves the 5-D region and re-enters it.
// CHECK-LABEL: func.func @transpose_between_convs(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    %[[T:.*]] = ge.transpose %[[V2]] perm [0, 1, 3, 2] : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[T]] : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Y2:.*]] = ge.conv2d %[[V3]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V4:.*]] = ge.trans_data %[[Y2]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    func.return %[[V4]] : tensor<1x16x2x2xf16>
// CHECK-NEXT:  }
func.func @transpose_between_convs(%x: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x2x2xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x2x2xf16>
  %t = ge.transpose %y perm [0, 1, 3, 2] : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16>
  %y2 = ge.conv2d %t, %w pads [1, 1, 1, 1] : tensor<1x16x2x2xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x2x2xf16>
  func.return %y2 : tensor<1x16x2x2xf16>
}

// -----

// One input read by two convs gets one trans_data, and the shared weight one FRACTAL_Z constant.
// CHECK-LABEL: func.func @siblings_merge(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x4x4xf16>) -> (tensor<1x17x4x4xf16>, tensor<1x17x4x4xf16>) {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x17x4x4xf16> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y1:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y1]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16>
// CHECK-NEXT:    %[[Y2:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[Y2]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16>
// CHECK-NEXT:    func.return %[[V2]], %[[V3]] : tensor<1x17x4x4xf16>, tensor<1x17x4x4xf16>
// CHECK-NEXT:  }
func.func @siblings_merge(%x: tensor<1x17x4x4xf16>) -> (tensor<1x17x4x4xf16>, tensor<1x17x4x4xf16>) {
  %w = ge.const dense<1.0> : tensor<17x17x3x3xf16>
  %y1 = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x17x4x4xf16>, tensor<17x17x3x3xf16> -> tensor<1x17x4x4xf16>
  %y2 = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x17x4x4xf16>, tensor<17x17x3x3xf16> -> tensor<1x17x4x4xf16>
  func.return %y1, %y2 : tensor<1x17x4x4xf16>, tensor<1x17x4x4xf16>
}

// -----

// Stream labels of the producer are copied onto the trans_data placed after it.
// CHECK-LABEL: func.func @label_copied(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x16x2x2xf16>
// CHECK-NEXT:  }
func.func @label_copied(%x: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] {stream.label = #stream.label<"1", priority = 0, inner_parallel = true>} : tensor<1x16x2x2xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x2x2xf16>
  func.return %y : tensor<1x16x2x2xf16>
}

// -----

// Each function of a module is converted on its own; one without a conv is left alone.
// CHECK-LABEL: func.func @two_functions_conv(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x16x2x2xf16>
// CHECK-NEXT:  }
// CHECK-LABEL: func.func @two_functions_plain(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[X]] : tensor<1x16x2x2xf16>
// CHECK-NEXT:    func.return %[[R]] : tensor<1x16x2x2xf16>
// CHECK-NEXT:  }
func.func @two_functions_conv(%x: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x2x2xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x2x2xf16>
  func.return %y : tensor<1x16x2x2xf16>
}
func.func @two_functions_plain(%x: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
  %r = ge.relu %x : tensor<1x16x2x2xf16>
  func.return %r : tensor<1x16x2x2xf16>
}

// -----

// ---- Constants are converted at compile time --------------------------------------------------
//
// A constant activation and a constant weight: both become constants of the physical layout
// (padding lanes zero) and no trans_data runs on them.  Activation [1, 2] -> NC1HWC0
// [1, 1, 1, 1, 16]; weight 2x2 identity -> FRACTAL_Z [1, 1, 16, 16] with 1.0 at FZ[0][0][0][0]
// (index 0) and FZ[0][0][1][1] (index 17).
// CHECK-LABEL: func.func @constant_operands(
// CHECK-SAME:  ) -> tensor<1x2x1x1xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.const dense<{{\[\[\[\[\[}}1.000000e+00, 2.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]]> : tensor<1x1x1x1x16xf16> -> tensor<1x2x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const dense<"0x{{003C(0000){16}003C(0000){238}"}}> : tensor<1x1x16x16xf16> -> tensor<2x2x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] : tensor<1x2x1x1xf16, #ge.format<NC1HWC0>>, tensor<2x2x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x2x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x2x1x1xf16, #ge.format<NC1HWC0>> -> tensor<1x2x1x1xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x2x1x1xf16>
// CHECK-NEXT:  }
func.func @constant_operands() -> tensor<1x2x1x1xf16> {
  %x = ge.const dense<[[[[1.0]], [[2.0]]]]> : tensor<1x2x1x1xf16>
  %w = ge.const dense<[[[[1.0]], [[0.0]]], [[[0.0]], [[1.0]]]]> : tensor<2x2x1x1xf16>
  %y = ge.conv2d %x, %w : tensor<1x2x1x1xf16>, tensor<2x2x1x1xf16> -> tensor<1x2x1x1xf16>
  func.return %y : tensor<1x2x1x1xf16>
}

// -----

// A [1, 3, 1, 1] constant used in NC1HWC0 by an add and returned in NCHW: the add reads a
// converted copy (1x1x1x1x16, channels 3..15 zero), the return the original.
// CHECK-LABEL: func.func @constant_shared_by_layouts(
// CHECK-SAME:  %[[X:.*]]: tensor<1x3x4x4xf16>) -> (tensor<1x3x4x4xf16>, tensor<1x3x1x1xf16>) {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x3x4x4xf16> -> tensor<1x3x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<3x3x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[C:.*]] = ge.const dense<{{\[\[\[\[}}1.000000e+00]], {{\[\[}}2.000000e+00]], {{\[\[}}3.000000e+00]]]]> : tensor<1x3x1x1xf16>
// CHECK-NEXT:    %[[V2:.*]] = ge.const dense<{{\[\[\[\[\[}}1.000000e+00, 2.000000e+00, 3.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00]]]]]> : tensor<1x1x1x1x16xf16> -> tensor<1x3x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x3x4x4xf16, #ge.format<NC1HWC0>>, tensor<3x3x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x3x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Z:.*]] = ge.add %[[Y]], %[[V2]] : (tensor<1x3x4x4xf16, #ge.format<NC1HWC0>>, tensor<1x3x1x1xf16, #ge.format<NC1HWC0>>) -> tensor<1x3x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[Z]] : tensor<1x3x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x3x4x4xf16>
// CHECK-NEXT:    func.return %[[V3]], %[[C]] : tensor<1x3x4x4xf16>, tensor<1x3x1x1xf16>
// CHECK-NEXT:  }
func.func @constant_shared_by_layouts(%x: tensor<1x3x4x4xf16>) -> (tensor<1x3x4x4xf16>, tensor<1x3x1x1xf16>) {
  %w = ge.const dense<1.0> : tensor<3x3x3x3xf16>
  %c = ge.const dense<[[[[1.0]], [[2.0]], [[3.0]]]]> : tensor<1x3x1x1xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x3x4x4xf16>, tensor<3x3x3x3xf16> -> tensor<1x3x4x4xf16>
  %z = ge.add %y, %c : (tensor<1x3x4x4xf16>, tensor<1x3x1x1xf16>) -> tensor<1x3x4x4xf16>
  func.return %z, %c : tensor<1x3x4x4xf16>, tensor<1x3x1x1xf16>
}

// -----

// Elided constants (IR printed for reading) stay constants: the weight becomes an elided
// FRACTAL_Z constant and the [1, 16, 1, 1] addend an elided NC1HWC0 one; no trans_data.
// CHECK-LABEL: func.func @elided_constants(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[V2:.*]] = ge.const #ge.elided : tensor<1x16x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Z:.*]] = ge.add %[[Y]], %[[V2]] : (tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x16x1x1xf16, #ge.format<NC1HWC0>>) -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[Z]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    func.return %[[V3]] : tensor<1x16x2x2xf16>
// CHECK-NEXT:  }
func.func @elided_constants(%x: tensor<1x16x2x2xf16>) -> tensor<1x16x2x2xf16> {
  %w = ge.const #ge.elided : tensor<16x16x3x3xf16>
  %c = ge.const #ge.elided : tensor<1x16x1x1xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x2x2xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x2x2xf16>
  %z = ge.add %y, %c : (tensor<1x16x2x2xf16>, tensor<1x16x1x1xf16>) -> tensor<1x16x2x2xf16>
  func.return %z : tensor<1x16x2x2xf16>
}

// -----

// ---- Cancellation ----------------------------------------------------------------------------
//
// An inverse pair written in the input cancels; the dead first conversion goes too.
// CHECK-LABEL: func.func @cancel_pair(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x4x4xf16>) -> tensor<1x17x4x4xf16> {
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[X]] : tensor<1x17x4x4xf16>
// CHECK-NEXT:    func.return %[[R]] : tensor<1x17x4x4xf16>
// CHECK-NEXT:  }
func.func @cancel_pair(%x: tensor<1x17x4x4xf16>) -> tensor<1x17x4x4xf16> {
  %a = ge.trans_data %x : tensor<1x17x4x4xf16> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
  %b = ge.trans_data %a : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16>
  %r = ge.relu %b : tensor<1x17x4x4xf16>
  func.return %r : tensor<1x17x4x4xf16>
}

// -----

// The first conversion of a pair stays when it has other users.
// CHECK-LABEL: func.func @cancel_pair_first_kept(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x4x4xf16>) -> (tensor<1x17x4x4xf16>, tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>) {
// CHECK-NEXT:    %[[A:.*]] = ge.trans_data %[[X]] : tensor<1x17x4x4xf16> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    func.return %[[X]], %[[A]] : tensor<1x17x4x4xf16>, tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  }
func.func @cancel_pair_first_kept(%x: tensor<1x17x4x4xf16>) -> (tensor<1x17x4x4xf16>, tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>) {
  %a = ge.trans_data %x : tensor<1x17x4x4xf16> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
  %b = ge.trans_data %a : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16>
  func.return %b, %a : tensor<1x17x4x4xf16>, tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
}

// -----

// The conversion the pass puts before a conv cancels with the NC1HWC0 -> NCHW conversion that
// produced its input: x -> NC1HWC0 -> NCHW -> NC1HWC0 becomes one trans_data.
// CHECK-LABEL: func.func @cancel_before_conv(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x4x4xf16>) -> tensor<1x17x4x4xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x17x4x4xf16> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x17x4x4xf16>
// CHECK-NEXT:  }
func.func @cancel_before_conv(%x: tensor<1x17x4x4xf16>) -> tensor<1x17x4x4xf16> {
  %a = ge.trans_data %x : tensor<1x17x4x4xf16> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
  %b = ge.trans_data %a : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16>
  %w = ge.const dense<1.0> : tensor<17x17x3x3xf16>
  %y = ge.conv2d %b, %w pads [1, 1, 1, 1] : tensor<1x17x4x4xf16>, tensor<17x17x3x3xf16> -> tensor<1x17x4x4xf16>
  func.return %y : tensor<1x17x4x4xf16>
}

// -----

// A conversion to NC1HWC0 after a conv cancels with the pass's conversion back to NCHW: the
// conv result is returned directly.
// CHECK-LABEL: func.func @cancel_after_conv(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x4x4xf16>) -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x17x4x4xf16> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  }
func.func @cancel_after_conv(%x: tensor<1x17x4x4xf16>) -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> {
  %w = ge.const dense<1.0> : tensor<17x17x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x17x4x4xf16>, tensor<17x17x3x3xf16> -> tensor<1x17x4x4xf16>
  %a = ge.trans_data %y : tensor<1x17x4x4xf16> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
  func.return %a : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
}

// -----

// Same, but the conversion back to NCHW also feeds a flatten, so it stays.
// CHECK-LABEL: func.func @cancel_after_conv_first_kept(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>) -> (tensor<1x64xf16>, tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>) {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x16x2x2xf16>
// CHECK-NEXT:    %[[F:.*]] = ge.flatten %[[V2]] : tensor<1x16x2x2xf16> -> tensor<1x64xf16>
// CHECK-NEXT:    func.return %[[F]], %[[Y]] : tensor<1x64xf16>, tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  }
func.func @cancel_after_conv_first_kept(%x: tensor<1x16x2x2xf16>) -> (tensor<1x64xf16>, tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>) {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x2x2xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x2x2xf16>
  %f = ge.flatten %y : tensor<1x16x2x2xf16> -> tensor<1x64xf16>
  %a = ge.trans_data %y : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
  func.return %f, %a : tensor<1x64xf16>, tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
}

// -----

// Not inverse: NC1HWC0 (C0 = 16) -> NCHW -> NC1HWC0 (C0 = 8) changes C0, so both stay.
// CHECK-LABEL: func.func @no_cancel_other_c0(
// CHECK-SAME:  %[[X:.*]]: tensor<1x8x2x2xf32, #ge.format<NC1HWC0>>) -> tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>> {
// CHECK-NEXT:    %[[A:.*]] = ge.trans_data %[[X]] : tensor<1x8x2x2xf32, #ge.format<NC1HWC0>> -> tensor<1x8x2x2xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.trans_data %[[A]] : tensor<1x8x2x2xf32> -> tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// CHECK-NEXT:    func.return %[[B]] : tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
// CHECK-NEXT:  }
func.func @no_cancel_other_c0(%x: tensor<1x8x2x2xf32, #ge.format<NC1HWC0>>) -> tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>> {
  %a = ge.trans_data %x : tensor<1x8x2x2xf32, #ge.format<NC1HWC0>> -> tensor<1x8x2x2xf32>
  %b = ge.trans_data %a : tensor<1x8x2x2xf32> -> tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
  func.return %b : tensor<1x8x2x2xf32, #ge.format<NC1HWC0, c0 = 8>>
}

// -----

// ---- int8 (C0 = 32) ------------------------------------------------------------------------
//
// int8 values are never sources (a quantised conv is out of scope), so int8 ops are left alone,
// even a channel concat whose first input (8 channels) is not C0-aligned.
// CHECK-LABEL: func.func @int8_untouched(
// CHECK-SAME:  %[[X:.*]]: tensor<1x32x2x2xi8>, %[[Y:.*]]: tensor<1x8x2x2xi8>) -> tensor<1x40x1x1xi8> {
// CHECK-NEXT:    %[[C:.*]] = ge.concat %[[Y]], %[[X]] axis 1 : tensor<1x8x2x2xi8>, tensor<1x32x2x2xi8> -> tensor<1x40x2x2xi8>
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[C]] : tensor<1x40x2x2xi8>
// CHECK-NEXT:    %[[M:.*]] = ge.max_pool %[[R]] kernel [2, 2] : tensor<1x40x2x2xi8> -> tensor<1x40x1x1xi8>
// CHECK-NEXT:    func.return %[[M]] : tensor<1x40x1x1xi8>
// CHECK-NEXT:  }
func.func @int8_untouched(%x: tensor<1x32x2x2xi8>, %y: tensor<1x8x2x2xi8>) -> tensor<1x40x1x1xi8> {
  %c = ge.concat %y, %x axis 1 : tensor<1x8x2x2xi8>, tensor<1x32x2x2xi8> -> tensor<1x40x2x2xi8>
  %r = ge.relu %c : tensor<1x40x2x2xi8>
  %m = ge.max_pool %r kernel [2, 2] : tensor<1x40x2x2xi8> -> tensor<1x40x1x1xi8>
  func.return %m : tensor<1x40x1x1xi8>
}

// -----

// An int8 NC1HWC0 constant (C0 = 32: 3 channels in a 1x1x1x1x32 physical array) converted to
// NCHW and back: the pair cancels and the relu reads the constant.
// CHECK-LABEL: func.func @int8_cancel(
// CHECK-SAME:  ) -> tensor<1x3x1x1xi8, #ge.format<NC1HWC0>> {
// CHECK-NEXT:    %[[C:.*]] = ge.const dense<{{\[\[\[\[\[}}1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]]]]> : tensor<1x1x1x1x32xi8> -> tensor<1x3x1x1xi8, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[C]] : tensor<1x3x1x1xi8, #ge.format<NC1HWC0>>
// CHECK-NEXT:    func.return %[[R]] : tensor<1x3x1x1xi8, #ge.format<NC1HWC0>>
// CHECK-NEXT:  }
func.func @int8_cancel() -> tensor<1x3x1x1xi8, #ge.format<NC1HWC0>> {
  %c = ge.const dense<[[[[[1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]]]]]> : tensor<1x1x1x1x32xi8> -> tensor<1x3x1x1xi8, #ge.format<NC1HWC0>>
  %a = ge.trans_data %c : tensor<1x3x1x1xi8, #ge.format<NC1HWC0>> -> tensor<1x3x1x1xi8>
  %b = ge.trans_data %a : tensor<1x3x1x1xi8> -> tensor<1x3x1x1xi8, #ge.format<NC1HWC0>>
  %r = ge.relu %b : tensor<1x3x1x1xi8, #ge.format<NC1HWC0>>
  func.return %r : tensor<1x3x1x1xi8, #ge.format<NC1HWC0>>
}
