// --fuse: every pattern of the pass, each on a tiny graph whose folded constants are computed
// by hand (the expected dense values are written below; all of them are exact in f32).
// Cases where a pattern must not fire are in fuse-legality.mlir.
// RUN: ge-opt %s --split-input-file --fuse | filecheck %s
// (the upstream check of this RUN line is in test/lit/upstream/transforms.test)
// RUN: ge-opt %s --split-input-file --fuse --print-debuginfo | filecheck %s --check-prefix=LOC

// ---- Conv + BatchNorm folding ----------------------------------------------------------------
// s = gamma / sqrt(var + eps), W' = W * s (per output channel), b' = (b - mean) * s + beta.

// Conv with a bias.  sqrt(var + eps) = sqrt([3.75, 8.75] + 0.25) = [2, 3], s = [1, 6] / [2, 3]
// = [0.5, 2]; W' = [[1, -2] * 0.5, [0.5, 4] * 2] = [[0.5, -1], [1, 8]];
// b' = ([1, 2] - [3, 0.5]) * [0.5, 2] + [0.5, -1] = [-0.5, 2].  The new constants replace the
// batch_norm; the old weight, bias and BN parameters are gone.
// CHECK-LABEL: func.func @bn_conv_with_bias(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<{{\[\[\[\[}}5.000000e-01]], {{\[\[}}-1.000000e+00]]], {{\[\[\[}}1.000000e+00]], {{\[\[}}8.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[-5.000000e-01, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
// The fused conv's location fuses the conv's and the batch_norm's; the new constants take the
// conv's.
// LOC-LABEL: func.func @bn_conv_with_bias(
// LOC:         ge.const {{.*}} loc("{{.*}}fuse.mlir":[[# @LINE + 11]]:3)
// LOC-NEXT:    ge.const {{.*}} loc("{{.*}}fuse.mlir":[[# @LINE + 10]]:3)
// LOC-NEXT:    ge.fused_conv2d {{.*}} loc(fused["{{.*}}fuse.mlir":[[# @LINE + 9]]:3, "{{.*}}fuse.mlir":[[# @LINE + 10]]:3])
// LOC-NEXT:    func.return
func.func @bn_conv_with_bias(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<[[[[1.0]], [[-2.0]]], [[[0.5]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %b = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %gamma = ge.const dense<[1.0, 6.0]> : tensor<2xf32>
  %beta = ge.const dense<[0.5, -1.0]> : tensor<2xf32>
  %mean = ge.const dense<[3.0, 0.5]> : tensor<2xf32>
  %var = ge.const dense<[3.75, 8.75]> : tensor<2xf32>
  %c = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %y = ge.batch_norm %c, %gamma, %beta, %mean, %var epsilon 0.25 : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// A conv without a bias gets one: b' = (0 - mean) * s + beta = -[3, 0.5] * [0.5, 2] + [0.5, -1]
// = [-1, -2].  The conv's pads and strides carry over.
// CHECK-LABEL: func.func @bn_conv_without_bias(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x3x3xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<{{\[\[\[\[}}5.000000e-01]], {{\[\[}}-1.000000e+00]]], {{\[\[\[}}1.000000e+00]], {{\[\[}}8.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[-1.000000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] strides [2, 2] pads [0, 1, 0, 1] : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @bn_conv_without_bias(%x: tensor<1x2x3x3xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<[[[[1.0]], [[-2.0]]], [[[0.5]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %gamma = ge.const dense<[1.0, 6.0]> : tensor<2xf32>
  %beta = ge.const dense<[0.5, -1.0]> : tensor<2xf32>
  %mean = ge.const dense<[3.0, 0.5]> : tensor<2xf32>
  %var = ge.const dense<[3.75, 8.75]> : tensor<2xf32>
  %c = ge.conv2d %x, %w strides [2, 2] pads [0, 1, 0, 1] : tensor<1x2x3x3xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.batch_norm %c, %gamma, %beta, %mean, %var epsilon 0.25 : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// A grouped conv (groups 2, 2 input channels per group) folds per output channel:
// s = [2, 1, 6, 2] / sqrt([1, 4, 9, 16]) = [2, 0.5, 2, 0.5];
// W' = [[1, 2] * 2, [3, 4] * 0.5, [-1, 0.5] * 2, [2, -2] * 0.5] = [[2, 4], [1.5, 2], [-2, 1], [1, -1]];
// b' = -[1, 2, 3, 4] * s + [0, 0, 1, 1] = [-2, -1, -5, -1].
// CHECK-LABEL: func.func @bn_grouped(
// CHECK-SAME:  %[[X:.*]]: tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}4.000000e+00]]], {{\[\[\[}}1.500000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}-2.000000e+00]], {{\[\[}}1.000000e+00]]], {{\[\[\[}}1.000000e+00]], {{\[\[}}-1.000000e+00]]]]> : tensor<4x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[-2.000000e+00, -1.000000e+00, -5.000000e+00, -1.000000e+00]> : tensor<4xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] groups 2 : tensor<1x4x1x1xf32>, tensor<4x2x1x1xf32>, tensor<4xf32> -> tensor<1x4x1x1xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x4x1x1xf32>
// CHECK-NEXT:  }
func.func @bn_grouped(%x: tensor<1x4x1x1xf32>) -> tensor<1x4x1x1xf32> {
  %w = ge.const dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]], [[[-1.0]], [[0.5]]], [[[2.0]], [[-2.0]]]]> : tensor<4x2x1x1xf32>
  %gamma = ge.const dense<[2.0, 1.0, 6.0, 2.0]> : tensor<4xf32>
  %beta = ge.const dense<[0.0, 0.0, 1.0, 1.0]> : tensor<4xf32>
  %mean = ge.const dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %var = ge.const dense<[1.0, 4.0, 9.0, 16.0]> : tensor<4xf32>
  %c = ge.conv2d %x, %w groups 2 : tensor<1x4x1x1xf32>, tensor<4x2x1x1xf32> -> tensor<1x4x1x1xf32>
  %y = ge.batch_norm %c, %gamma, %beta, %mean, %var epsilon 0.0 : (tensor<1x4x1x1xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x1x1xf32>
  func.return %y : tensor<1x4x1x1xf32>
}

// -----

// A depthwise conv (groups = channels, one 1x2 kernel per channel) folds per output channel,
// over every element of the kernel: s = [1, -2] / sqrt([0.25, 1]) = [2, -2];
// W' = [[1, 2] * 2, [3, 4] * -2] = [[2, 4], [-6, -8]];
// b' = ([0.5, 0] - [0.5, 1]) * [2, -2] + [1, 1] = [1, 3].
// CHECK-LABEL: func.func @bn_depthwise(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x1xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<{{\[\[\[\[}}2.000000e+00, 4.000000e+00]]], {{\[\[\[}}-6.000000e+00, -8.000000e+00]]]]> : tensor<2x1x1x2xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[1.000000e+00, 3.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] groups 2 : tensor<1x2x2x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32> -> tensor<1x2x2x1xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x1xf32>
// CHECK-NEXT:  }
func.func @bn_depthwise(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x1xf32> {
  %w = ge.const dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]]]> : tensor<2x1x1x2xf32>
  %b = ge.const dense<[0.5, 0.0]> : tensor<2xf32>
  %gamma = ge.const dense<[1.0, -2.0]> : tensor<2xf32>
  %beta = ge.const dense<[1.0, 1.0]> : tensor<2xf32>
  %mean = ge.const dense<[0.5, 1.0]> : tensor<2xf32>
  %var = ge.const dense<[0.25, 1.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w bias %b groups 2 : tensor<1x2x2x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32> -> tensor<1x2x2x1xf32>
  %y = ge.batch_norm %c, %gamma, %beta, %mean, %var epsilon 0.0 : (tensor<1x2x2x1xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x1xf32>
  func.return %y : tensor<1x2x2x1xf32>
}

// -----

// A FRACTAL_Z weight folds per output channel too; the new constant has the same format.
// Physical 1x1x16x16: output channel n, input channel c at element n * 16 + c, so the weights
// 1, 2 (0x3C00, 0x4000) sit at elements 0 and 16; s = [2, 3] gives 2, 6 (0x4000, 0x4600).
// CHECK-LABEL: func.func @bn_fractal_z_weight(
// CHECK-SAME:  %[[X:.*]]: tensor<1x1x2x2xf16>) -> tensor<1x2x2x2xf16> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<"0x0040000000000000000000000000000000000000000000000000000000000000004600000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"> : tensor<1x1x16x16xf16> -> tensor<2x1x1x1xf16, #ge.format<FRACTAL_Z>>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<0.000000e+00> : tensor<2xf16>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] : tensor<1x1x2x2xf16>, tensor<2x1x1x1xf16, #ge.format<FRACTAL_Z>>, tensor<2xf16> -> tensor<1x2x2x2xf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf16>
// CHECK-NEXT:  }
func.func @bn_fractal_z_weight(%x: tensor<1x1x2x2xf16>) -> tensor<1x2x2x2xf16> {
  %w = ge.const dense<"0x003C000000000000000000000000000000000000000000000000000000000000004000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"> : tensor<1x1x16x16xf16> -> tensor<2x1x1x1xf16, #ge.format<FRACTAL_Z>>
  %gamma = ge.const dense<[2.0, 3.0]> : tensor<2xf32>
  %zero = ge.const dense<0.0> : tensor<2xf32>
  %var = ge.const dense<1.0> : tensor<2xf32>
  %c = ge.conv2d %x, %w : tensor<1x1x2x2xf16>, tensor<2x1x1x1xf16, #ge.format<FRACTAL_Z>> -> tensor<1x2x2x2xf16>
  %y = ge.batch_norm %c, %gamma, %zero, %zero, %var epsilon 0.0 : (tensor<1x2x2x2xf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf16>
  func.return %y : tensor<1x2x2x2xf16>
}

// -----

// fp16 weights with f32 BN parameters: the fold is computed wide and rounded to f16 once.
// s = [1, 1] / sqrt([9, 1]) = [1/3, 1].  W' = 5 * (1/3) = 1.666... rounds to
// 1707/1024 = 1.6669921875 (rounding s to f16 first, 0.333251953125, would give
// 5 * 0.333251953125 = 1.666259765625 -> 1706/1024 = 1.666015625).
// b' = -[1, 0] * s + [0, 0.25] = [-1/3, 0.25]; -1/3 rounds to -1365/4096 = -0.333251953125.
// (f16 values print with 6 significant digits: 1.66699 and -0.333252.)
// CHECK-LABEL: func.func @bn_f16_rounds_once(
// CHECK-SAME:  %[[X:.*]]: tensor<1x1x1x1xf16>) -> tensor<1x2x1x1xf16> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<{{\[\[\[\[}}1.666990e+00]]], {{\[\[\[}}1.000000e+00]]]]> : tensor<2x1x1x1xf16>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[-3.332520e-01, 2.500000e-01]> : tensor<2xf16>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] : tensor<1x1x1x1xf16>, tensor<2x1x1x1xf16>, tensor<2xf16> -> tensor<1x2x1x1xf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x1x1xf16>
// CHECK-NEXT:  }
func.func @bn_f16_rounds_once(%x: tensor<1x1x1x1xf16>) -> tensor<1x2x1x1xf16> {
  %w = ge.const dense<[[[[5.0]]], [[[1.0]]]]> : tensor<2x1x1x1xf16>
  %gamma = ge.const dense<[1.0, 1.0]> : tensor<2xf32>
  %beta = ge.const dense<[0.0, 0.25]> : tensor<2xf32>
  %mean = ge.const dense<[1.0, 0.0]> : tensor<2xf32>
  %var = ge.const dense<[9.0, 1.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w : tensor<1x1x1x1xf16>, tensor<2x1x1x1xf16> -> tensor<1x2x1x1xf16>
  %y = ge.batch_norm %c, %gamma, %beta, %mean, %var epsilon 0.0 : (tensor<1x2x1x1xf16>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x1x1xf16>
  func.return %y : tensor<1x2x1x1xf16>
}

// -----

// fp16 with a tiny scale: a zero weight stays zero, which is not a nonzero weight rounding to
// zero, so the fold is accepted.  s = [2^-16, 2] / sqrt([1, 1]); W' = [0 * 2^-16, 1 * 2] = [0, 2];
// b' = [0, 0].
// CHECK-LABEL: func.func @bn_f16_zero_weight_tiny_scale(
// CHECK-SAME:  %[[X:.*]]: tensor<1x1x1x1xf16>) -> tensor<1x2x1x1xf16> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<{{\[\[\[\[}}0.000000e+00]]], {{\[\[\[}}2.000000e+00]]]]> : tensor<2x1x1x1xf16>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<0.000000e+00> : tensor<2xf16>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] : tensor<1x1x1x1xf16>, tensor<2x1x1x1xf16>, tensor<2xf16> -> tensor<1x2x1x1xf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x1x1xf16>
// CHECK-NEXT:  }
func.func @bn_f16_zero_weight_tiny_scale(%x: tensor<1x1x1x1xf16>) -> tensor<1x2x1x1xf16> {
  %w = ge.const dense<[[[[0.0]]], [[[1.0]]]]> : tensor<2x1x1x1xf16>
  %gamma = ge.const dense<[1.52587890625e-05, 2.0]> : tensor<2xf16>
  %beta = ge.const dense<[0.0, 0.0]> : tensor<2xf16>
  %mean = ge.const dense<[0.0, 0.0]> : tensor<2xf16>
  %var = ge.const dense<[1.0, 1.0]> : tensor<2xf16>
  %c = ge.conv2d %x, %w : tensor<1x1x1x1xf16>, tensor<2x1x1x1xf16> -> tensor<1x2x1x1xf16>
  %y = ge.batch_norm %c, %gamma, %beta, %mean, %var epsilon 0.0 : (tensor<1x2x1x1xf16>, tensor<2xf16>, tensor<2xf16>, tensor<2xf16>, tensor<2xf16>) -> tensor<1x2x1x1xf16>
  func.return %y : tensor<1x2x1x1xf16>
}

// -----

// ---- Activation fusion ---------------------------------------------------------------------
// The weight and bias are not refolded: the fused conv uses the original constants.

// relu; the conv's strides and pads carry over.
// CHECK-LABEL: func.func @relu(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x3x3xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[1.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] activation relu strides [2, 2] pads [1, 1, 1, 1] : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
// LOC-LABEL: func.func @relu(
// LOC:         ge.fused_conv2d {{.*}} loc(fused["{{.*}}fuse.mlir":[[# @LINE + 5]]:3, "{{.*}}fuse.mlir":[[# @LINE + 6]]:3])
// LOC-NEXT:    func.return
func.func @relu(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x3x3xf32>
  %b = ge.const dense<[1.0, -1.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w bias %b strides [2, 2] pads [1, 1, 1, 1] : tensor<1x2x4x4xf32>, tensor<2x2x3x3xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %y = ge.relu %c : tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// relu6, on a conv without bias (the fused conv has none either); dilations carry over.
// CHECK-LABEL: func.func @relu6(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] activation relu6 dilations [2, 2] : tensor<1x2x5x5xf32>, tensor<2x2x2x2xf32> -> tensor<1x2x3x3xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x3x3xf32>
// CHECK-NEXT:  }
func.func @relu6(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x2x2xf32>
  %c = ge.conv2d %x, %w dilations [2, 2] : tensor<1x2x5x5xf32>, tensor<2x2x2x2xf32> -> tensor<1x2x3x3xf32>
  %y = ge.relu6 %c : tensor<1x2x3x3xf32>
  func.return %y : tensor<1x2x3x3xf32>
}

// -----

// clip(0, 6) is relu6.
// CHECK-LABEL: func.func @clip_0_6(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf16>) -> tensor<1x2x2x2xf16> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf16>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[5.000000e-01, 2.500000e-01]> : tensor<2xf16>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] activation relu6 : tensor<1x2x2x2xf16>, tensor<2x2x1x1xf16>, tensor<2xf16> -> tensor<1x2x2x2xf16>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf16>
// CHECK-NEXT:  }
func.func @clip_0_6(%x: tensor<1x2x2x2xf16>) -> tensor<1x2x2x2xf16> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf16>
  %b = ge.const dense<[0.5, 0.25]> : tensor<2xf16>
  %c = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf16>, tensor<2x2x1x1xf16>, tensor<2xf16> -> tensor<1x2x2x2xf16>
  %y = ge.clip %c min 0.0 max 6.0 : tensor<1x2x2x2xf16>
  func.return %y : tensor<1x2x2x2xf16>
}

// -----

// leaky_relu keeps its alpha.
// CHECK-LABEL: func.func @leaky_relu(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] activation leaky_relu alpha 2.500000e-01 : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @leaky_relu(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %b = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %y = ge.leaky_relu %c alpha 0.25 : tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// leaky_relu with its default alpha (0.01, printed as the f32 value).
// CHECK-LABEL: func.func @leaky_relu_default_alpha(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] activation leaky_relu alpha 1.000000e-02 : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @leaky_relu_default_alpha(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.leaky_relu %c : tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// sigmoid.
// CHECK-LABEL: func.func @sigmoid(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] activation sigmoid : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @sigmoid(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %b = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %y = ge.sigmoid %c : tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// Conv + BN + relu: the BN folds, then relu fuses into the result; the location fuses all
// three.  s = [1, 1] / sqrt([4, 16]) = [0.5, 0.25]; W' = [2 * 0.5, 4 * 0.25] = [1, 1];
// b' = -[0, 2] * s + [0, 1] = [0, 0.5].
// CHECK-LABEL: func.func @bn_relu(
// CHECK-SAME:  %[[X:.*]]: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x1x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[0.000000e+00, 5.000000e-01]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] activation relu : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
// LOC-LABEL: func.func @bn_relu(
// LOC:         ge.const {{.*}} loc("{{.*}}fuse.mlir":[[# @LINE + 10]]:3)
// LOC-NEXT:    ge.const {{.*}} loc("{{.*}}fuse.mlir":[[# @LINE + 9]]:3)
// LOC-NEXT:    ge.fused_conv2d {{.*}} loc(fused["{{.*}}fuse.mlir":[[# @LINE + 8]]:3, "{{.*}}fuse.mlir":[[# @LINE + 9]]:3, "{{.*}}fuse.mlir":[[# @LINE + 10]]:3])
// LOC-NEXT:    func.return
func.func @bn_relu(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<[[[[2.0]]], [[[4.0]]]]> : tensor<2x1x1x1xf32>
  %gamma = ge.const dense<[1.0, 1.0]> : tensor<2xf32>
  %beta = ge.const dense<[0.0, 1.0]> : tensor<2xf32>
  %mean = ge.const dense<[0.0, 2.0]> : tensor<2xf32>
  %var = ge.const dense<[4.0, 16.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32> -> tensor<1x2x2x2xf32>
  %bn = ge.batch_norm %c, %gamma, %beta, %mean, %var epsilon 0.0 : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %y = ge.relu %bn : tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// ---- Residual fusion -----------------------------------------------------------------------

// conv + bias + add(residual).
// CHECK-LABEL: func.func @residual(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[R:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] residual %[[R]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
// LOC-LABEL: func.func @residual(
// LOC:         ge.fused_conv2d {{.*}} loc(fused["{{.*}}fuse.mlir":[[# @LINE + 5]]:3, "{{.*}}fuse.mlir":[[# @LINE + 6]]:3])
// LOC-NEXT:    func.return
func.func @residual(%x: tensor<1x2x2x2xf32>, %r: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %b = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %y = ge.add %c, %r : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// The conv on the right of the add, and without a bias.
// CHECK-LABEL: func.func @residual_conv_rhs_no_bias(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[R:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] residual %[[R]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @residual_conv_rhs_no_bias(%x: tensor<1x2x2x2xf32>, %r: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.add %r, %c : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// conv + add(residual) + relu.
// CHECK-LABEL: func.func @residual_relu(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[R:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] residual %[[R]] activation relu : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
// LOC-LABEL: func.func @residual_relu(
// LOC:         ge.fused_conv2d {{.*}} loc(fused["{{.*}}fuse.mlir":[[# @LINE + 5]]:3, "{{.*}}fuse.mlir":[[# @LINE + 6]]:3, "{{.*}}fuse.mlir":[[# @LINE + 7]]:3])
// LOC-NEXT:    func.return
func.func @residual_relu(%x: tensor<1x2x2x2xf32>, %r: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %b = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %a = ge.add %c, %r : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = ge.relu %a : tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// The residual is computed after the conv: the fused conv takes the add's position, after
// the residual's producer.
// CHECK-LABEL: func.func @residual_defined_after_conv(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[Z:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[R:.*]] = ge.sigmoid %[[Z]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] residual %[[R]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @residual_defined_after_conv(%x: tensor<1x2x2x2xf32>, %z: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %r = ge.sigmoid %z : tensor<1x2x2x2xf32>
  %y = ge.add %c, %r : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// Both operands of the add are fusable convs: the one defined later (here the lhs) absorbs
// the add and takes the other as its residual.
// CHECK-LABEL: func.func @residual_two_convs_later_lhs(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[Z:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W1:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[W2:.*]] = ge.const dense<2.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[C1:.*]] = ge.conv2d %[[X]], %[[W1]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[Z]], %[[W2]] residual %[[C1]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @residual_two_convs_later_lhs(%x: tensor<1x2x2x2xf32>, %z: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w1 = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %w2 = ge.const dense<2.0> : tensor<2x2x1x1xf32>
  %c1 = ge.conv2d %x, %w1 : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %c2 = ge.conv2d %z, %w2 : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.add %c2, %c1 : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// Both operands of the add are fusable convs, the later one on the rhs.
// CHECK-LABEL: func.func @residual_two_convs_later_rhs(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[Z:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W1:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[W2:.*]] = ge.const dense<2.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[C1:.*]] = ge.conv2d %[[X]], %[[W1]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[Z]], %[[W2]] residual %[[C1]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @residual_two_convs_later_rhs(%x: tensor<1x2x2x2xf32>, %z: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w1 = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %w2 = ge.const dense<2.0> : tensor<2x2x1x1xf32>
  %c1 = ge.conv2d %x, %w1 : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %c2 = ge.conv2d %z, %w2 : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.add %c1, %c2 : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// A ResNet block: conv + BN + add(residual) + relu becomes one fused conv.
// sqrt(var + eps) = sqrt([8, 0] + 1) = [3, 1], s = [1.5, -1] / [3, 1] = [0.5, -1];
// W' = [[1, 2] * 0.5, [3, 4] * -1] = [[0.5, 1], [-3, -4]]; b' = -[1, -1] * s + [0.25, 0] = [-0.25, -1].
// CHECK-LABEL: func.func @resnet_block(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[R:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<{{\[\[\[\[}}5.000000e-01]], {{\[\[}}1.000000e+00]]], {{\[\[\[}}-3.000000e+00]], {{\[\[}}-4.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[-2.500000e-01, -1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] residual %[[R]] activation relu : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
// LOC-LABEL: func.func @resnet_block(
// LOC:         ge.const {{.*}} loc("{{.*}}fuse.mlir":[[# @LINE + 10]]:3)
// LOC-NEXT:    ge.const {{.*}} loc("{{.*}}fuse.mlir":[[# @LINE + 9]]:3)
// LOC-NEXT:    ge.fused_conv2d {{.*}} loc(fused["{{.*}}fuse.mlir":[[# @LINE + 8]]:3, "{{.*}}fuse.mlir":[[# @LINE + 9]]:3, "{{.*}}fuse.mlir":[[# @LINE + 10]]:3, "{{.*}}fuse.mlir":[[# @LINE + 11]]:3])
// LOC-NEXT:    func.return
func.func @resnet_block(%x: tensor<1x2x2x2xf32>, %r: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<[[[[1.0]], [[2.0]]], [[[3.0]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %gamma = ge.const dense<[1.5, -1.0]> : tensor<2xf32>
  %beta = ge.const dense<[0.25, 0.0]> : tensor<2xf32>
  %mean = ge.const dense<[1.0, -1.0]> : tensor<2xf32>
  %var = ge.const dense<[8.0, 0.0]> : tensor<2xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %bn = ge.batch_norm %c, %gamma, %beta, %mean, %var epsilon 1.0 : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %a = ge.add %bn, %r : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = ge.relu %a : tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// Fusing an activation or a residual does not fold anything, so it needs no constant weight
// or bias: function arguments and an elided weight are kept as operands.
// CHECK-LABEL: func.func @fusion_without_constant_weights(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[W:.*]]: tensor<2x2x1x1xf32>, %[[B:.*]]: tensor<2xf32>, %[[R:.*]]: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
// CHECK-NEXT:    %[[E:.*]] = ge.const #ge.elided : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[Y1:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] activation relu : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    %[[Y2:.*]] = ge.fused_conv2d %[[X]], %[[E]] residual %[[R]] activation sigmoid : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y1]], %[[Y2]] : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @fusion_without_constant_weights(%x: tensor<1x2x2x2xf32>, %w: tensor<2x2x1x1xf32>, %b: tensor<2xf32>, %r: tensor<1x2x2x2xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %e = ge.const #ge.elided : tensor<2x2x1x1xf32>
  %c1 = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %y1 = ge.relu %c1 : tensor<1x2x2x2xf32>
  %c2 = ge.conv2d %x, %e : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %a2 = ge.add %c2, %r : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y2 = ge.sigmoid %a2 : tensor<1x2x2x2xf32>
  func.return %y1, %y2 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// ---- Constant shift: add of a per-channel constant, b' = b + t --------------------------------

// b' = [1, 2] + [0.5, -4] = [1.5, -2]; the weight is not refolded.
// CHECK-LABEL: func.func @shift(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[1.500000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
// LOC-LABEL: func.func @shift(
// LOC:         ge.const {{.*}} loc("{{.*}}fuse.mlir":[[# @LINE + 5]]:3)
// LOC-NEXT:    ge.const {{.*}} loc("{{.*}}fuse.mlir":[[# @LINE + 7]]:3)
// LOC-NEXT:    ge.fused_conv2d {{.*}} loc(fused["{{.*}}fuse.mlir":[[# @LINE + 6]]:3, "{{.*}}fuse.mlir":[[# @LINE + 7]]:3])
// LOC-NEXT:    func.return
func.func @shift(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %b = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %t = ge.const dense<[[[[0.5]], [[-4.0]]]]> : tensor<1x2x1x1xf32>
  %c = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %y = ge.add %c, %t : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// A conv without bias gets b' = t; the constant is the lhs and has rank 3 (C x 1 x 1).
// CHECK-LABEL: func.func @shift_no_bias_rank3_lhs(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[3.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @shift_no_bias_rank3_lhs(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %t = ge.const dense<[[[3.0]], [[-1.0]]]> : tensor<2x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.add %t, %c : (tensor<2x1x1xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// A one-element constant broadcasts to every channel: b' = [1, 2] + 0.5 = [1.5, 2.5].
// CHECK-LABEL: func.func @shift_scalar(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[1.500000e+00, 2.500000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @shift_scalar(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %b = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %t = ge.const dense<0.5> : tensor<1xf32>
  %c = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %y = ge.add %c, %t : (tensor<1x2x2x2xf32>, tensor<1xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// A shift after a residual fusion still folds into the bias (act is none, and
// conv + b + r + t = conv + (b + t) + r): b' = [1, 2] + [0.25, 0.75] = [1.25, 2.75].
// CHECK-LABEL: func.func @shift_after_residual(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[R:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[1.250000e+00, 2.750000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] residual %[[R]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @shift_after_residual(%x: tensor<1x2x2x2xf32>, %r: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %b = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %t = ge.const dense<[[[[0.25]], [[0.75]]]]> : tensor<1x2x1x1xf32>
  %c = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %a = ge.add %c, %r : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = ge.add %a, %t : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// ---- Constant shift by a subtraction: sub(conv, t) -> b' = b - t; sub(t, conv) -> W' = -W, b' = t - b

// b' = [1, 2] - [0.5, -4] = [0.5, 6]; the weight is not refolded.
// CHECK-LABEL: func.func @shift_sub(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[5.000000e-01, 6.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @shift_sub(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %b = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %t = ge.const dense<[[[[0.5]], [[-4.0]]]]> : tensor<1x2x1x1xf32>
  %c = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %y = ge.sub %c, %t : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// t - (conv(x, W) + b) = conv(x, -W) + (t - b), the constant (C x 1 x 1) on the lhs:
// W' = -[[1, -2], [0.5, 4]] = [[-1, 2], [-0.5, -4]]; b' = [3, -1] - [1, 2] = [2, -3].
// CHECK-LABEL: func.func @shift_rsub(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<{{\[\[\[\[}}-1.000000e+00]], {{\[\[}}2.000000e+00]]], {{\[\[\[}}-5.000000e-01]], {{\[\[}}-4.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[2.000000e+00, -3.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @shift_rsub(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<[[[[1.0]], [[-2.0]]], [[[0.5]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %b = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %t = ge.const dense<[[[3.0]], [[-1.0]]]> : tensor<2x1x1xf32>
  %c = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %y = ge.sub %t, %c : (tensor<2x1x1xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// Without a bias: W' = -W, b' = t (a scalar broadcast to both channels).
// CHECK-LABEL: func.func @shift_rsub_no_bias(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<-1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<2.500000e-01> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @shift_rsub_no_bias(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %t = ge.const dense<0.25> : tensor<1xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.sub %t, %c : (tensor<1xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// A subtraction after a residual fusion folds like an addition (conv + b + r - t =
// conv + (b - t) + r): b' = [1, 2] - [0.25, 0.75] = [0.75, 1.25].
// CHECK-LABEL: func.func @shift_sub_after_residual(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[R:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<1.000000e+00> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[7.500000e-01, 1.250000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] residual %[[R]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @shift_sub_after_residual(%x: tensor<1x2x2x2xf32>, %r: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %b = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %t = ge.const dense<[[[[0.25]], [[0.75]]]]> : tensor<1x2x1x1xf32>
  %c = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %a = ge.add %c, %r : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %y = ge.sub %a, %t : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// ---- Constant scale: mul by a per-channel constant, W' = W * s, b' = b * s --------------------

// s = [3, -0.5]: W' = [[1, -2] * 3, [0.5, 4] * -0.5] = [[3, -6], [-0.25, -2]]; b' = [1, 2] * s = [3, -1].
// CHECK-LABEL: func.func @scale(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<{{\[\[\[\[}}3.000000e+00]], {{\[\[}}-6.000000e+00]]], {{\[\[\[}}-2.500000e-01]], {{\[\[}}-2.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[3.000000e+00, -1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @scale(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<[[[[1.0]], [[-2.0]]], [[[0.5]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %b = ge.const dense<[1.0, 2.0]> : tensor<2xf32>
  %s = ge.const dense<[[[[3.0]], [[-0.5]]]]> : tensor<1x2x1x1xf32>
  %c = ge.conv2d %x, %w bias %b : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %y = ge.mul %c, %s : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// A conv without bias keeps none; the constant (C x 1 x 1) is the lhs.  s = [2, 0.5]:
// W' = [[1, -2] * 2, [0.5, 4] * 0.5] = [[2, -4], [0.25, 2]].
// CHECK-LABEL: func.func @scale_no_bias_rank3_lhs(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<{{\[\[\[\[}}2.000000e+00]], {{\[\[}}-4.000000e+00]]], {{\[\[\[}}2.500000e-01]], {{\[\[}}2.000000e+00]]]]> : tensor<2x2x1x1xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
func.func @scale_no_bias_rank3_lhs(%x: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<[[[[1.0]], [[-2.0]]], [[[0.5]], [[4.0]]]]> : tensor<2x2x1x1xf32>
  %s = ge.const dense<[[[2.0]], [[0.5]]]> : tensor<2x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %y = ge.mul %s, %c : (tensor<2x1x1xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// Scale, then shift, then relu: W' = [1, 2] * [4, 0.5] = [4, 1]; b' = [1, 1] * [4, 0.5] + [-4, 0.5]
// = [0, 1]; the location fuses all four ops.  A new constant takes the location of the conv it
// is folded into: the weight the conv's, the bias (refolded by the shift) that of conv + mul.
// CHECK-LABEL: func.func @scale_shift_relu(
// CHECK-SAME:  %[[X:.*]]: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<{{\[\[\[\[}}4.000000e+00]]], {{\[\[\[}}1.000000e+00]]]]> : tensor<2x1x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<[0.000000e+00, 1.000000e+00]> : tensor<2xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] activation relu : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x2x2x2xf32>
// CHECK-NEXT:  }
// LOC-LABEL: func.func @scale_shift_relu(
// LOC:         ge.const {{.*}} loc("{{.*}}fuse.mlir":[[# @LINE + 9]]:3)
// LOC-NEXT:    ge.const {{.*}} loc(fused["{{.*}}fuse.mlir":[[# @LINE + 8]]:3, "{{.*}}fuse.mlir":[[# @LINE + 9]]:3])
// LOC-NEXT:    ge.fused_conv2d {{.*}} loc(fused["{{.*}}fuse.mlir":[[# @LINE + 7]]:3, "{{.*}}fuse.mlir":[[# @LINE + 8]]:3, "{{.*}}fuse.mlir":[[# @LINE + 9]]:3, "{{.*}}fuse.mlir":[[# @LINE + 10]]:3])
// LOC-NEXT:    func.return
func.func @scale_shift_relu(%x: tensor<1x1x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w = ge.const dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %b = ge.const dense<[1.0, 1.0]> : tensor<2xf32>
  %s = ge.const dense<[[[[4.0]], [[0.5]]]]> : tensor<1x2x1x1xf32>
  %t = ge.const dense<[[[[-4.0]], [[0.5]]]]> : tensor<1x2x1x1xf32>
  %c = ge.conv2d %x, %w bias %b : tensor<1x1x2x2xf32>, tensor<2x1x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
  %m = ge.mul %c, %s : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %a = ge.add %m, %t : (tensor<1x2x2x2xf32>, tensor<1x2x1x1xf32>) -> tensor<1x2x2x2xf32>
  %y = ge.relu %a : tensor<1x2x2x2xf32>
  func.return %y : tensor<1x2x2x2xf32>
}

// -----

// Each side of the add is a conv + batch_norm (s = 1, so the weights stay): the chain that
// reaches the add first (conv %c1's) stops there, because the other operand may still fold
// into a conv; the add's own match then sees both as fused convs and the later one (%c2's,
// placed where its batch_norm was) absorbs it, as in the two cases above.
// CHECK-LABEL: func.func @residual_two_folded_convs(
// CHECK-SAME:  %[[X:.*]]: tensor<1x2x2x2xf32>, %[[Z:.*]]: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
// CHECK:         %[[F1:.*]] = ge.fused_conv2d %[[X]], %{{.*}} bias %{{.*}} : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK:         %[[F2:.*]] = ge.fused_conv2d %[[Z]], %{{.*}} bias %{{.*}} residual %[[F1]] activation relu : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>, tensor<2xf32> -> tensor<1x2x2x2xf32>
// CHECK-NEXT:    func.return %[[F2]] : tensor<1x2x2x2xf32>
// CHECK-NOT:     ge.batch_norm
// CHECK-NOT:     ge.add
func.func @residual_two_folded_convs(%x: tensor<1x2x2x2xf32>, %z: tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> {
  %w1 = ge.const dense<1.0> : tensor<2x2x1x1xf32>
  %w2 = ge.const dense<2.0> : tensor<2x2x1x1xf32>
  %one = ge.const dense<1.0> : tensor<2xf32>
  %zero = ge.const dense<0.0> : tensor<2xf32>
  %c1 = ge.conv2d %x, %w1 : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %c2 = ge.conv2d %z, %w2 : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32> -> tensor<1x2x2x2xf32>
  %b1 = ge.batch_norm %c1, %one, %zero, %zero, %one epsilon 0.0 : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %b2 = ge.batch_norm %c2, %one, %zero, %zero, %one epsilon 0.0 : (tensor<1x2x2x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x2x2xf32>
  %y = ge.add %b1, %b2 : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %r = ge.relu %y : tensor<1x2x2x2xf32>
  func.return %r : tensor<1x2x2x2xf32>
}

// -----

// One chain through every kind of step: batch_norm, scale, shift, residual add, shift after
// the residual, activation.  W = 1; BN: s = 2 / sqrt(3 + 1) = 1, b = 0 - 1 + 0.5 = -0.5;
// scale by 4: W = 4, b = -2; add 3: b = 1; residual %r; sub 0.5: b = 0.5; then relu6.  The
// constants take the locations and names of the ops whose folds made them last.
// CHECK-LABEL: func.func @chain_of_every_step(
// CHECK-SAME:  %[[X:.*]]: tensor<1x1x2x2xf32>, %[[R:.*]]: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
// CHECK-NEXT:    %[[W:.*]] = ge.const dense<4.000000e+00> : tensor<1x1x1x1xf32>
// CHECK-NEXT:    %[[B:.*]] = ge.const dense<5.000000e-01> : tensor<1xf32>
// CHECK-NEXT:    %[[Y:.*]] = ge.fused_conv2d %[[X]], %[[W]] bias %[[B]] residual %[[R]] activation relu6 : tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>, tensor<1xf32> -> tensor<1x1x2x2xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<1x1x2x2xf32>
// CHECK-NEXT:  }
// LOC-LABEL: func.func @chain_of_every_step(
// LOC:         ge.const dense<4.000000e+00> {{.*}} loc(fused["{{.*}}fuse.mlir":[[# @LINE + 12]]:3, "{{.*}}fuse.mlir":[[# @LINE + 13]]:3])
// LOC-NEXT:    ge.const dense<5.000000e-01> {{.*}} loc(fused["{{.*}}fuse.mlir":[[# @LINE + 11]]:3, "{{.*}}fuse.mlir":[[# @LINE + 12]]:3, "{{.*}}fuse.mlir":[[# @LINE + 13]]:3, "{{.*}}fuse.mlir":[[# @LINE + 14]]:3, "{{.*}}fuse.mlir":[[# @LINE + 15]]:3])
// LOC-NEXT:    ge.fused_conv2d {{.*}} loc(fused["{{.*}}fuse.mlir":[[# @LINE + 10]]:3, "{{.*}}fuse.mlir":[[# @LINE + 11]]:3, "{{.*}}fuse.mlir":[[# @LINE + 12]]:3, "{{.*}}fuse.mlir":[[# @LINE + 13]]:3, "{{.*}}fuse.mlir":[[# @LINE + 14]]:3, "{{.*}}fuse.mlir":[[# @LINE + 15]]:3, "{{.*}}fuse.mlir":[[# @LINE + 16]]:3])
func.func @chain_of_every_step(%x: tensor<1x1x2x2xf32>, %r: tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32> {
  %w = ge.const dense<1.0> : tensor<1x1x1x1xf32>
  %gamma = ge.const dense<2.0> : tensor<1xf32>
  %beta = ge.const dense<0.5> : tensor<1xf32>
  %mean = ge.const dense<1.0> : tensor<1xf32>
  %var = ge.const dense<3.0> : tensor<1xf32>
  %scale = ge.const dense<4.0> : tensor<1x1x1x1xf32>
  %three = ge.const dense<3.0> : tensor<1xf32>
  %half = ge.const dense<0.5> : tensor<1x1x1x1xf32>
  %c = ge.conv2d %x, %w : tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32> -> tensor<1x1x2x2xf32>
  %b = ge.batch_norm %c, %gamma, %beta, %mean, %var epsilon 1.0 : (tensor<1x1x2x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x2x2xf32>
  %m = ge.mul %b, %scale : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x2x2xf32>
  %a = ge.add %three, %m : (tensor<1xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %res = ge.add %a, %r : (tensor<1x1x2x2xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %s = ge.sub %res, %half : (tensor<1x1x2x2xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x2x2xf32>
  %y = ge.relu6 %s : tensor<1x1x2x2xf32>
  func.return %y : tensor<1x1x2x2xf32>
}

// -----

// Like a greedy rewrite driver, --fuse erases trivially dead ops, dead chains included (not
// ops with side effects).
// CHECK-LABEL: func.func @dead_code(
// CHECK-SAME:  %[[X:.*]]: tensor<4xf32>) -> tensor<4xf32> {
// CHECK-NEXT:    func.return %[[X]] : tensor<4xf32>
// CHECK-NEXT:  }
func.func @dead_code(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = ge.relu %x : tensor<4xf32>
  %b = ge.sigmoid %a : tensor<4xf32>
  %k = ge.const dense<1.0> : tensor<4xf32>
  %c = ge.add %b, %k : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  func.return %x : tensor<4xf32>
}
