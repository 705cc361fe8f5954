// The RMS-norm fusion of the built-in --fuse-mlp (transforms/fuse_mlp.py): Hugging Face
// Llama's weight * (x * rsqrt(mean(x^2) + eps)) -> ge.rms_norm, with x^2 as a pow by 2 or as
// mul(x, x) and the muls in either order; the cases it must leave alone follow.
// RUN: ge-opt --fuse-mlp %s --split-input-file | filecheck %s

// As the PyTorch importer writes LlamaRMSNorm.
// CHECK-LABEL: func.func @llama(
// CHECK-SAME:  %[[X:.*]]: tensor<2x3x8xf32>, %[[W:.*]]: tensor<8xf32>) -> tensor<2x3x8xf32> {
// CHECK-NEXT:    %[[Y:.*]] = ge.rms_norm %[[X]], %[[W]] axis 2 : tensor<2x3x8xf32>, tensor<8xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<2x3x8xf32>
// CHECK-NEXT:  }
func.func @llama(%x: tensor<2x3x8xf32>, %w: tensor<8xf32>) -> tensor<2x3x8xf32> {
  %two = ge.const dense<2.0> : tensor<f32>
  %eps = ge.const dense<1.0e-06> : tensor<f32>
  %sq = ge.pow %x, %two : (tensor<2x3x8xf32>, tensor<f32>) -> tensor<2x3x8xf32>
  %var = ge.reduce_mean %sq axes [2] keepdims : tensor<2x3x8xf32> -> tensor<2x3x1xf32>
  %ve = ge.add %var, %eps : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
  %r = ge.rsqrt %ve : tensor<2x3x1xf32>
  %h = ge.mul %x, %r : (tensor<2x3x8xf32>, tensor<2x3x1xf32>) -> tensor<2x3x8xf32>
  %y = ge.mul %w, %h : (tensor<8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  func.return %y : tensor<2x3x8xf32>
}

// -----

// mul(x, x), the muls the other way round, two trailing dims, f16 (epsilon 1e-5 is the fp16
// constant 1.00135803e-05).
// CHECK-LABEL: func.func @square_by_mul(
// CHECK-NEXT:    %[[Y:.*]] = ge.rms_norm %{{.*}}, %{{.*}} axis 1 epsilon 1.00135803e-05 : tensor<4x2x8xf16>, tensor<2x8xf16>
// CHECK-NEXT:    func.return %[[Y]]
func.func @square_by_mul(%x: tensor<4x2x8xf16>, %w: tensor<2x8xf16>) -> tensor<4x2x8xf16> {
  %eps = ge.const dense<1.0e-05> : tensor<1xf16>
  %sq = ge.mul %x, %x : (tensor<4x2x8xf16>, tensor<4x2x8xf16>) -> tensor<4x2x8xf16>
  %var = ge.reduce_mean %sq axes [1, 2] keepdims : tensor<4x2x8xf16> -> tensor<4x1x1xf16>
  %ve = ge.add %eps, %var : (tensor<1xf16>, tensor<4x1x1xf16>) -> tensor<4x1x1xf16>
  %r = ge.rsqrt %ve : tensor<4x1x1xf16>
  %h = ge.mul %r, %x : (tensor<4x1x1xf16>, tensor<4x2x8xf16>) -> tensor<4x2x8xf16>
  %y = ge.mul %h, %w : (tensor<4x2x8xf16>, tensor<2x8xf16>) -> tensor<4x2x8xf16>
  func.return %y : tensor<4x2x8xf16>
}

// -----

// Not fused: the mean is not over trailing dims (axes [1] of rank 3).
// CHECK-LABEL: func.func @not_trailing(
// CHECK-NOT:     ge.rms_norm
// CHECK:         ge.reduce_mean
func.func @not_trailing(%x: tensor<2x3x8xf32>, %w: tensor<3x8xf32>) -> tensor<2x3x8xf32> {
  %two = ge.const dense<2.0> : tensor<f32>
  %eps = ge.const dense<1.0e-06> : tensor<f32>
  %sq = ge.pow %x, %two : (tensor<2x3x8xf32>, tensor<f32>) -> tensor<2x3x8xf32>
  %var = ge.reduce_mean %sq axes [1] keepdims : tensor<2x3x8xf32> -> tensor<2x1x8xf32>
  %ve = ge.add %var, %eps : (tensor<2x1x8xf32>, tensor<f32>) -> tensor<2x1x8xf32>
  %r = ge.rsqrt %ve : tensor<2x1x8xf32>
  %h = ge.mul %x, %r : (tensor<2x3x8xf32>, tensor<2x1x8xf32>) -> tensor<2x3x8xf32>
  %y = ge.mul %w, %h : (tensor<3x8xf32>, tensor<2x3x8xf32>) -> tensor<2x3x8xf32>
  func.return %y : tensor<2x3x8xf32>
}

// -----

// Not fused: the exponent is 3.
// CHECK-LABEL: func.func @cube(
// CHECK-NOT:     ge.rms_norm
// CHECK:         ge.pow
func.func @cube(%x: tensor<2x8xf32>, %w: tensor<8xf32>) -> tensor<2x8xf32> {
  %three = ge.const dense<3.0> : tensor<f32>
  %eps = ge.const dense<1.0e-06> : tensor<f32>
  %sq = ge.pow %x, %three : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %var = ge.reduce_mean %sq axes [1] keepdims : tensor<2x8xf32> -> tensor<2x1xf32>
  %ve = ge.add %var, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %r = ge.rsqrt %ve : tensor<2x1xf32>
  %h = ge.mul %x, %r : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %y = ge.mul %w, %h : (tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// Not fused: the unweighted x * rsqrt(...) is also a result (used twice).
// CHECK-LABEL: func.func @intermediate_used(
// CHECK-NOT:     ge.rms_norm
// CHECK:         ge.rsqrt
func.func @intermediate_used(%x: tensor<2x8xf32>, %w: tensor<8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>) {
  %two = ge.const dense<2.0> : tensor<f32>
  %eps = ge.const dense<1.0e-06> : tensor<f32>
  %sq = ge.pow %x, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %var = ge.reduce_mean %sq axes [1] keepdims : tensor<2x8xf32> -> tensor<2x1xf32>
  %ve = ge.add %var, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %r = ge.rsqrt %ve : tensor<2x1xf32>
  %h = ge.mul %x, %r : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %y = ge.mul %w, %h : (tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y, %h : tensor<2x8xf32>, tensor<2x8xf32>
}

// -----

// Not fused: the weight [1, 8] is not of the normalised shape [8].
// CHECK-LABEL: func.func @broadcast_weight(
// CHECK-NOT:     ge.rms_norm
// CHECK:         ge.rsqrt
func.func @broadcast_weight(%x: tensor<2x8xf32>, %w: tensor<1x8xf32>) -> tensor<2x8xf32> {
  %two = ge.const dense<2.0> : tensor<f32>
  %eps = ge.const dense<1.0e-06> : tensor<f32>
  %sq = ge.pow %x, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %var = ge.reduce_mean %sq axes [1] keepdims : tensor<2x8xf32> -> tensor<2x1xf32>
  %ve = ge.add %var, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %r = ge.rsqrt %ve : tensor<2x1xf32>
  %h = ge.mul %x, %r : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %y = ge.mul %w, %h : (tensor<1x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}

// -----

// Not fused: a negative epsilon.
// CHECK-LABEL: func.func @negative_epsilon(
// CHECK-NOT:     ge.rms_norm
// CHECK:         ge.rsqrt
func.func @negative_epsilon(%x: tensor<2x8xf32>, %w: tensor<8xf32>) -> tensor<2x8xf32> {
  %two = ge.const dense<2.0> : tensor<f32>
  %eps = ge.const dense<-1.0e-06> : tensor<f32>
  %sq = ge.pow %x, %two : (tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
  %var = ge.reduce_mean %sq axes [1] keepdims : tensor<2x8xf32> -> tensor<2x1xf32>
  %ve = ge.add %var, %eps : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xf32>
  %r = ge.rsqrt %ve : tensor<2x1xf32>
  %h = ge.mul %x, %r : (tensor<2x8xf32>, tensor<2x1xf32>) -> tensor<2x8xf32>
  %y = ge.mul %w, %h : (tensor<8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  func.return %y : tensor<2x8xf32>
}
