// --to-nc1hwc0 places TransData by a minimum cut: which ops run in NC1HWC0
// is chosen to minimise the bytes the conversions move, then their number; every value is
// converted at most once per layout, and constants never at run time.  The unit tests compare
// the cut with every labelling of small random graphs (test_layout_pass.py).
// RUN: ge-opt %s --split-input-file --to-nc1hwc0 --elide-constants-if-larger=8 | filecheck %s
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)

// A conv feeding two exits, relu -> out1 and sigmoid -> out2 (the 3-vs-2 case): the
// greedy placement ran both in NC1HWC0 and converted each result (3 trans_data with the input's);
// one conversion of the conv result, read by both in NCHW, is the minimum (2).
// CHECK-LABEL: func.func @two_exits(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x4x4xf16>) -> (tensor<1x17x4x4xf16>, tensor<1x17x4x4xf16>) {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x17x4x4xf16> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<17x17x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[Y]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x17x4x4xf16>
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[V2]] : tensor<1x17x4x4xf16>
// CHECK-NEXT:    %[[S:.*]] = ge.sigmoid %[[V2]] : tensor<1x17x4x4xf16>
// CHECK-NEXT:    func.return %[[R]], %[[S]] : tensor<1x17x4x4xf16>, tensor<1x17x4x4xf16>
// CHECK-NEXT:  }
func.func @two_exits(%x: tensor<1x17x4x4xf16>) -> (tensor<1x17x4x4xf16>, tensor<1x17x4x4xf16>) {
  %w = ge.const dense<1.0> : tensor<17x17x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x17x4x4xf16>, tensor<17x17x3x3xf16> -> tensor<1x17x4x4xf16>
  %r = ge.relu %y : tensor<1x17x4x4xf16>
  %s = ge.sigmoid %y : tensor<1x17x4x4xf16>
  func.return %r, %s : tensor<1x17x4x4xf16>, tensor<1x17x4x4xf16>
}

// -----

// The cut minimises bytes, not conversions: the two exits (1x16x4x4 and 1x16x1x1) are smaller
// than the conv result (1x16x8x8), so converting both (1088 bytes) beats converting the conv
// result once (4096 bytes).
// CHECK-LABEL: func.func @small_exits(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x8x8xf16>) -> (tensor<1x16x4x4xf16>, tensor<1x16x1x1xf16>) {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x8x8xf16> -> tensor<1x16x8x8xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] pads [1, 1, 1, 1] : tensor<1x16x8x8xf16, #ge.format<NC1HWC0>>, tensor<16x16x3x3xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x8x8xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[M:.*]] = ge.max_pool %[[Y]] kernel [2, 2] strides [2, 2] : tensor<1x16x8x8xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[M]] : tensor<1x16x4x4xf16, #ge.format<NC1HWC0>> -> tensor<1x16x4x4xf16>
// CHECK-NEXT:    %[[G:.*]] = ge.global_avg_pool %[[Y]] : tensor<1x16x8x8xf16, #ge.format<NC1HWC0>> -> tensor<1x16x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[G]] : tensor<1x16x1x1xf16, #ge.format<NC1HWC0>> -> tensor<1x16x1x1xf16>
// CHECK-NEXT:    func.return %[[V2]], %[[V3]] : tensor<1x16x4x4xf16>, tensor<1x16x1x1xf16>
// CHECK-NEXT:  }
func.func @small_exits(%x: tensor<1x16x8x8xf16>) -> (tensor<1x16x4x4xf16>, tensor<1x16x1x1xf16>) {
  %w = ge.const dense<1.0> : tensor<16x16x3x3xf16>
  %y = ge.conv2d %x, %w pads [1, 1, 1, 1] : tensor<1x16x8x8xf16>, tensor<16x16x3x3xf16> -> tensor<1x16x8x8xf16>
  %m = ge.max_pool %y kernel [2, 2] strides [2, 2] : tensor<1x16x8x8xf16> -> tensor<1x16x4x4xf16>
  %g = ge.global_avg_pool %y : tensor<1x16x8x8xf16> -> tensor<1x16x1x1xf16>
  func.return %m, %g : tensor<1x16x4x4xf16>, tensor<1x16x1x1xf16>
}

// -----

// A tie in bytes: the concat's result (32 channels) or its two inputs (16 each).  Fewer
// conversions win: the concat runs in NC1HWC0 and its result is converted once.
// CHECK-LABEL: func.func @tie_fewer_conversions(
// CHECK-SAME:  %[[X:.*]]: tensor<1x16x2x2xf16>) -> tensor<1x32x2x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x16x2x2xf16> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[A:.*]] = ge.conv2d %[[V0]], %[[V1]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[B:.*]] = ge.conv2d %[[A]], %[[V1]] : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[C:.*]] = ge.concat %[[A]], %[[B]] axis 1 : tensor<1x16x2x2xf16, #ge.format<NC1HWC0>>, tensor<1x16x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x32x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[C]] : tensor<1x32x2x2xf16, #ge.format<NC1HWC0>> -> tensor<1x32x2x2xf16>
// CHECK-NEXT:    func.return %[[V2]] : tensor<1x32x2x2xf16>
// CHECK-NEXT:  }
func.func @tie_fewer_conversions(%x: tensor<1x16x2x2xf16>) -> tensor<1x32x2x2xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x1x1xf16>
  %a = ge.conv2d %x, %w : tensor<1x16x2x2xf16>, tensor<16x16x1x1xf16> -> tensor<1x16x2x2xf16>
  %b = ge.conv2d %a, %w : tensor<1x16x2x2xf16>, tensor<16x16x1x1xf16> -> tensor<1x16x2x2xf16>
  %c = ge.concat %a, %b axis 1 : tensor<1x16x2x2xf16>, tensor<1x16x2x2xf16> -> tensor<1x32x2x2xf16>
  func.return %c : tensor<1x32x2x2xf16>
}

// -----

// Between two convs every op here may and should run in NC1HWC0: a sub with an operand broadcast
// over N, a mul with a graph input of the same shape, a concat on H with unaligned (17)
// channels.  The graph inputs are converted once each.
// CHECK-LABEL: func.func @between_convs(
// CHECK-SAME:  %[[X:.*]]: tensor<2x17x2x2xf16>, %[[B:.*]]: tensor<1x17x2x2xf16>, %[[K:.*]]: tensor<2x17x2x2xf16>) -> tensor<2x17x4x2xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[K]] : tensor<2x17x2x2xf16> -> tensor<2x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.trans_data %[[B]] : tensor<1x17x2x2xf16> -> tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[X]] : tensor<2x17x2x2xf16> -> tensor<2x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V3:.*]] = ge.const #ge.elided : tensor<17x17x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V2]], %[[V3]] : tensor<2x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<17x17x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<2x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[S:.*]] = ge.sub %[[V1]], %[[Y]] : (tensor<1x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<2x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<2x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[M:.*]] = ge.mul %[[S]], %[[V0]] : (tensor<2x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<2x17x2x2xf16, #ge.format<NC1HWC0>>) -> tensor<2x17x2x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[C:.*]] = ge.concat %[[M]], %[[Y]] axis 2 : tensor<2x17x2x2xf16, #ge.format<NC1HWC0>>, tensor<2x17x2x2xf16, #ge.format<NC1HWC0>> -> tensor<2x17x4x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[Z:.*]] = ge.conv2d %[[C]], %[[V3]] : tensor<2x17x4x2xf16, #ge.format<NC1HWC0>>, tensor<17x17x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<2x17x4x2xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V4:.*]] = ge.trans_data %[[Z]] : tensor<2x17x4x2xf16, #ge.format<NC1HWC0>> -> tensor<2x17x4x2xf16>
// CHECK-NEXT:    func.return %[[V4]] : tensor<2x17x4x2xf16>
// CHECK-NEXT:  }
func.func @between_convs(%x: tensor<2x17x2x2xf16>, %b: tensor<1x17x2x2xf16>, %k: tensor<2x17x2x2xf16>) -> tensor<2x17x4x2xf16> {
  %w = ge.const dense<1.0> : tensor<17x17x1x1xf16>
  %y = ge.conv2d %x, %w : tensor<2x17x2x2xf16>, tensor<17x17x1x1xf16> -> tensor<2x17x2x2xf16>
  %s = ge.sub %b, %y : (tensor<1x17x2x2xf16>, tensor<2x17x2x2xf16>) -> tensor<2x17x2x2xf16>
  %m = ge.mul %s, %k : (tensor<2x17x2x2xf16>, tensor<2x17x2x2xf16>) -> tensor<2x17x2x2xf16>
  %c = ge.concat %m, %y axis 2 : tensor<2x17x2x2xf16>, tensor<2x17x2x2xf16> -> tensor<2x17x4x2xf16>
  %z = ge.conv2d %c, %w : tensor<2x17x4x2xf16>, tensor<17x17x1x1xf16> -> tensor<2x17x4x2xf16>
  func.return %z : tensor<2x17x4x2xf16>
}

// -----

// A trans_data the input already has (to NC1HWC0, returned) reads the relu in NC1HWC0: the relu
// joins the conv, the pass's conversion back to NCHW cancels against it, and none is left.
// CHECK-LABEL: func.func @user_conversion_reads_nc1hwc0(
// CHECK-SAME:  %[[X:.*]]: tensor<1x17x4x4xf16>) -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<1x17x4x4xf16> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<17x17x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>, tensor<17x17x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[Y]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    func.return %[[R]] : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:  }
func.func @user_conversion_reads_nc1hwc0(%x: tensor<1x17x4x4xf16>) -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>> {
  %w = ge.const dense<1.0> : tensor<17x17x1x1xf16>
  %y = ge.conv2d %x, %w : tensor<1x17x4x4xf16>, tensor<17x17x1x1xf16> -> tensor<1x17x4x4xf16>
  %r = ge.relu %y : tensor<1x17x4x4xf16>
  %t = ge.trans_data %r : tensor<1x17x4x4xf16> -> tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
  func.return %t : tensor<1x17x4x4xf16, #ge.format<NC1HWC0>>
}

// -----

// A value read both as a conv input and as a conv weight: the relu runs in NC1HWC0 (its input
// needs no conversion) and the weight reads it through NC1HWC0 -> NCHW -> FRACTAL_Z (there is
// no direct NC1HWC0 -> FRACTAL_Z trans_data; the cut counts the conversion to NCHW).
// CHECK-LABEL: func.func @filter_from_nc(
// CHECK-SAME:  %[[X:.*]]: tensor<16x16x1x1xf16>) -> tensor<16x16x1x1xf16> {
// CHECK-NEXT:    %[[V0:.*]] = ge.trans_data %[[X]] : tensor<16x16x1x1xf16> -> tensor<16x16x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V1:.*]] = ge.const #ge.elided : tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Y:.*]] = ge.conv2d %[[V0]], %[[V1]] : tensor<16x16x1x1xf16, #ge.format<NC1HWC0>>, tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<16x16x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[R:.*]] = ge.relu %[[Y]] : tensor<16x16x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V2:.*]] = ge.trans_data %[[R]] : tensor<16x16x1x1xf16, #ge.format<NC1HWC0>> -> tensor<16x16x1x1xf16>
// CHECK-NEXT:    %[[V3:.*]] = ge.trans_data %[[V2]] : tensor<16x16x1x1xf16> -> tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[Z:.*]] = ge.conv2d %[[R]], %[[V3]] : tensor<16x16x1x1xf16, #ge.format<NC1HWC0>>, tensor<16x16x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<16x16x1x1xf16, #ge.format<NC1HWC0>>
// CHECK-NEXT:    %[[V4:.*]] = ge.trans_data %[[Z]] : tensor<16x16x1x1xf16, #ge.format<NC1HWC0>> -> tensor<16x16x1x1xf16>
// CHECK-NEXT:    func.return %[[V4]] : tensor<16x16x1x1xf16>
// CHECK-NEXT:  }
func.func @filter_from_nc(%x: tensor<16x16x1x1xf16>) -> tensor<16x16x1x1xf16> {
  %w = ge.const dense<1.0> : tensor<16x16x1x1xf16>
  %y = ge.conv2d %x, %w : tensor<16x16x1x1xf16>, tensor<16x16x1x1xf16> -> tensor<16x16x1x1xf16>
  %r = ge.relu %y : tensor<16x16x1x1xf16>
  %z = ge.conv2d %r, %r : tensor<16x16x1x1xf16>, tensor<16x16x1x1xf16> -> tensor<16x16x1x1xf16>
  func.return %z : tensor<16x16x1x1xf16>
}
